"""How the component package serves the layers: the Pulumi SDK's component provider, with a
layer's refused inputs reported as such, and a schema that says what the package is.

The SDK's `ComponentProvider.construct` wraps whatever a component's constructor raises in a
`ComponentInitError` (pulumi/pulumi, `sdk/python/lib/pulumi/provider/experimental/component.py`,
checked against the pinned SDK, 3.272.0), so the provider server never sees the layer's
`pulumi.InputPropertiesError` and reports a traceback instead of the property paths. Passed on
unwrapped, the server answers the engine with each property path and its reason
(`pulumi/provider/server.py`, `Construct`), and the CLI shows them; every other error keeps the
SDK's handling.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

import pulumi
from pulumi.provider import main
from pulumi.provider.experimental.component import ComponentInitError, ComponentProvider


@dataclass(frozen=True)
class PackageInfo:
    """The package schema's own fields that the SDK's schema generator leaves out (Pulumi docs,
    "Pulumi Package Schema": `description`, `license`, `repository`, `namespace`)."""

    description: str
    license: str
    """An SPDX expression (`Apache-2.0`)."""
    repository: str
    """The source repository's URL."""
    namespace: str
    """The publisher's namespace, which the generated SDKs are named after."""


class LayerProvider(ComponentProvider):
    """The SDK's component provider, passing a layer's `InputPropertiesError` on as it is, with
    `info` (when given) written into the schema it serves."""

    def __init__(
        self,
        components: list[type[pulumi.ComponentResource]],
        name: str,
        version: str,
        info: PackageInfo | None = None,
    ) -> None:
        super().__init__(components, name, info.namespace if info else None, version)
        if info is not None and self.schema is not None:
            schema = json.loads(self.schema)
            schema.update(
                description=info.description, license=info.license, repository=info.repository
            )
            self.schema = json.dumps(schema)

    def construct(self, name: str, resource_type: str, inputs: Any, options: Any = None) -> Any:
        try:
            return super().construct(name, resource_type, inputs, options)
        except ComponentInitError as err:
            if isinstance(err.inner, pulumi.InputPropertiesError):
                raise err.inner from None
            raise


def serve(
    components: list[type[pulumi.ComponentResource]], name: str, version: str, info: PackageInfo
) -> None:
    """Serve `components` to the engine, as `component_provider_host` does (blocks until the
    engine shuts the plugin down); the first arguments are the plugin's, from the engine."""
    main(LayerProvider(components, name, version, info), sys.argv[1:])
