"""How the component package serves the layers: the Pulumi SDK's component provider, with a
layer's refused inputs reported as such.

The SDK's `ComponentProvider.construct` wraps whatever a component's constructor raises in a
`ComponentInitError` (pulumi/pulumi, `sdk/python/lib/pulumi/provider/experimental/component.py`,
checked against the pinned SDK, 3.272.0), so the provider server never sees the layer's
`pulumi.InputPropertiesError` and reports a traceback instead of the property paths. Passed on
unwrapped, the server answers the engine with each property path and its reason
(`pulumi/provider/server.py`, `Construct`), and the CLI shows them; every other error keeps the
SDK's handling.
"""

from __future__ import annotations

import sys
from typing import Any

import pulumi
from pulumi.provider import main
from pulumi.provider.experimental.component import ComponentInitError, ComponentProvider


class LayerProvider(ComponentProvider):
    """The SDK's component provider, passing a layer's `InputPropertiesError` on as it is."""

    def construct(self, name: str, resource_type: str, inputs: Any, options: Any = None) -> Any:
        try:
            return super().construct(name, resource_type, inputs, options)
        except ComponentInitError as err:
            if isinstance(err.inner, pulumi.InputPropertiesError):
                raise err.inner from None
            raise


def serve(components: list[type[pulumi.ComponentResource]], name: str, version: str) -> None:
    """Serve `components` to the engine, as `component_provider_host` does (blocks until the
    engine shuts the plugin down); the first arguments are the plugin's, from the engine."""
    main(LayerProvider(components, name, None, version), sys.argv[1:])
