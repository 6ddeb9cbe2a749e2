"""What the two layers of every platform share: how their children are parented and ordered.

Each platform has a cloud layer (network, cluster, GPU nodes) and an in-cluster fabric layer that
takes a `kubernetes.Provider`. `GpuCluster` composes both in one stack; a split deployment runs them
in two stacks (README, "Split deployment").
"""

from __future__ import annotations

from typing import Any

import pulumi

TOKEN_MODULE = "gpu-fabric:index"
"""Type tokens of the layer components: `gpu-fabric:index:<Class>`, the token the component
package (`provider.py`) hosts them under, so a layer has one token in every language."""


def layer_token(cls: type) -> str:
    return f"{TOKEN_MODULE}:{cls.__name__}"


def child_options(
    layer: pulumi.Resource,
    opts: pulumi.ResourceOptions | None,
    providers: list[pulumi.ProviderResource] | None = None,
) -> pulumi.ResourceOptions:
    """Options for a layer's direct children.

    Before the layers existed, their children were children of `GpuCluster` itself. When a layer
    has a parent (the one-stack composition), each child carries an alias to that parent, so the
    stacks created then keep every resource: Pulumi matches the old URN and moves it under the
    layer (its own children follow through the engine's inherited aliases).
    """
    parent = opts.parent if opts else None
    return pulumi.ResourceOptions(
        parent=layer,
        aliases=[pulumi.Alias(parent=parent)] if parent is not None else None,
        providers=providers,
    )


def after(value: pulumi.Input[Any], *waits: pulumi.Input[Any]) -> pulumi.Output[Any]:
    """`value`, resolved only once every `waits` is: a resource that takes it waits for theirs.

    It carries a dependency across a layer boundary, where the other layer's resources are only
    known by their outputs (a GPU node pool's name): `depends_on` takes resources, not outputs.
    """
    return pulumi.Output.all(value, *waits).apply(lambda values: values[0])
