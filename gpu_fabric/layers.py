"""What the two layers of every platform share: how their children are parented and ordered.

Each platform has a cloud layer (network, cluster, GPU nodes) and an in-cluster fabric layer that
takes a `kubernetes.Provider`. `GpuCluster` composes both in one stack; a split deployment runs them
in two stacks (README, "Split deployment").
"""

from __future__ import annotations

from collections.abc import Callable
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


def declared_outputs(layer: pulumi.ComponentResource) -> dict[str, Any]:
    """A layer's outputs, as its class declares them (`name: pulumi.Output[T]`), for
    `register_outputs`: what the component package publishes and the stack exports."""
    return {name: getattr(layer, name) for name in type(layer).__annotations__}


def whole_numbers(value: Any) -> Any:
    """`value` with every whole-number float turned back into an int, in nested dicts and lists.

    A component hosted by the component package (`provider.py`) gets numbers from other languages
    as floats (2.0): the pinned SDK's input mapping converts them and then keeps the float (an
    incomplete upstream fix, pulumi/pulumi#21944). Counts must be ints: `range(2.0)` raises, and
    `str(2.0)` would write "2.0" into a node label or an ACK pool size.
    """
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [whole_numbers(item) for item in value]
    return value


def after(value: pulumi.Input[Any], *waits: pulumi.Input[Any]) -> pulumi.Output[Any]:
    """`value`, resolved only once every `waits` is: a resource that takes it waits for theirs.

    It carries a dependency across a layer boundary, where the other layer's resources are only
    known by their outputs (a GPU node pool's name): `depends_on` takes resources, not outputs.
    """
    return pulumi.Output.all(value, *waits).apply(lambda values: values[0])


class LayeredCluster(pulumi.ComponentResource):
    """A platform's `GpuCluster`: the layers its stack runs (`gpu-fabric:layers`), in one stack.

    - `all`: the cloud layer, then the fabric layer on the new cluster's provider;
    - `cloud`: the cloud layer only (its outputs are the stack's, for the fabric stack);
    - `fabric`: the fabric layer only, on the cluster of `gpu-fabric:cloudStack`, read through a
      `pulumi.StackReference`; it runs where the cluster's API endpoint can be reached.

    A subclass names its token and its two layer classes; `cloud_args(cfg)` and
    `fabric_args(cfg, provider, cloud_outputs)` turn the validated stack config into their args.
    """

    TOKEN: str
    CLOUD: Callable[[str, Any, pulumi.ResourceOptions], pulumi.ComponentResource]
    """The platform's cloud layer component."""
    FABRIC: Callable[[str, Any, pulumi.ResourceOptions], pulumi.ComponentResource]
    """The platform's fabric layer component."""
    CLOUD_OUTPUTS: dict[str, str]
    """Stack output name -> the cloud layer's output attribute."""
    FABRIC_OUTPUTS: dict[str, str]
    """Stack output name -> the fabric layer's output attribute."""
    FABRIC_NEEDS: tuple[str, ...] = ("kubeconfig", "cluster_id")
    """The cloud layer's outputs the fabric layer takes (attribute names)."""

    cloud: Any
    fabric: Any

    def __init__(self, name: str, cfg: Any, opts: pulumi.ResourceOptions | None = None):
        super().__init__(self.TOKEN, name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.cloud = self.fabric = None
        layers = cfg.layers.value
        if layers != "fabric":
            self.cloud = self.cloud_layer(name, cfg, child)
        if layers != "cloud":
            if self.cloud is not None:
                provider = self.cloud.kubernetes_provider
                outputs = {key: getattr(self.cloud, key) for key in self.FABRIC_NEEDS}
            else:
                provider, outputs = self._from_cloud_stack(name, cfg.cloud_stack, child)
            self.fabric = self.fabric_layer(name, cfg, provider, outputs, child)
        self.register_outputs({})

    def outputs(self) -> dict[str, pulumi.Input]:
        """The stack outputs: the declared outputs of the layers this stack runs."""
        out: dict[str, pulumi.Input] = {}
        for layer, names in ((self.cloud, self.CLOUD_OUTPUTS), (self.fabric, self.FABRIC_OUTPUTS)):
            if layer is not None:
                out.update({key: getattr(layer, attr) for key, attr in names.items()})
        return out

    def _from_cloud_stack(self, name: str, reference: str, opts: pulumi.ResourceOptions):
        import pulumi_kubernetes as k8s

        cloud = pulumi.StackReference(f"{name}-cloud-stack", stack_name=reference, opts=opts)
        by_attr = {attr: key for key, attr in self.CLOUD_OUTPUTS.items()}
        outputs = {key: cloud.require_output(by_attr[key]) for key in self.FABRIC_NEEDS}
        provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=pulumi.Output.secret(outputs["kubeconfig"]),
            # Replaced only with the cluster, as the cloud layer's own provider.
            cluster_identifier=outputs["cluster_id"],
            opts=opts,
        )
        return provider, outputs

    def cloud_layer(self, name: str, cfg: Any, opts: pulumi.ResourceOptions) -> Any:
        return self.CLOUD(name, self.cloud_args(cfg), opts)

    def fabric_layer(self, name, cfg, provider, cloud_outputs, opts) -> Any:
        return self.FABRIC(name, self.fabric_args(cfg, provider, cloud_outputs), opts)

    @staticmethod
    def cloud_args(cfg: Any) -> Any:
        raise NotImplementedError

    @staticmethod
    def fabric_args(cfg: Any, provider: Any, cloud_outputs: dict[str, Any], /) -> Any:
        raise NotImplementedError
