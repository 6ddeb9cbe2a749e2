"""What the two layers of every platform share: how their children are parented and ordered.

Each platform has a cloud layer (network, cluster, GPU nodes) and an in-cluster fabric layer that
takes a `kubernetes.Provider`. `GpuCluster` composes both in one stack; a split deployment runs them
in two stacks (README, "Split deployment").
"""

from __future__ import annotations

import typing
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import pulumi
from pydantic.alias_generators import to_camel

CLOUD_CONFIG_OUTPUT = "cloudConfig"
"""The stack output in which a cloud stack gives its fabric stack its cloud keys."""


TOKEN_MODULE = "gpu-fabric:index"
"""Type tokens of the layer components: `gpu-fabric:index:<Class>`, the token the component
package (`component_package.py`) hosts them under, so a layer has one token in every language."""


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


def output_names(layer: Any) -> list[str]:
    """The outputs a layer's class declares (`name: pulumi.Output[T]`), in their order."""
    return [
        name
        for name, annotation in layer.__annotations__.items()
        if typing.get_origin(annotation) is pulumi.Output
    ]


def declared_outputs(layer: pulumi.ComponentResource) -> dict[str, Any]:
    """A layer's outputs, as its class declares them, for `register_outputs`: what the component
    package publishes and the stack exports. An output the layer has nothing for is None (its
    class says which may be) and is left out, so a stack without it exports no empty value."""
    return {
        name: value
        for name in output_names(type(layer))
        if (value := getattr(layer, name)) is not None
    }


def takes_outputs(annotation: Any) -> bool:
    """Whether an args field takes Outputs: `pulumi.Input[T]`, which is
    `Union[T, Awaitable[T], "Output[T]"]` (its Awaitable marks it)."""
    return any(typing.get_origin(a) is Awaitable for a in typing.get_args(annotation))


def stack_outputs(
    layer: Any, renamed: dict[str, str], unexported: tuple[str, ...]
) -> dict[str, str]:
    """Stack output name -> output attribute of a layer: each declared output under its camelCase
    name (the name the component package publishes), but those `renamed` (attribute -> the older
    stack output name, which a deployed stack keeps) and those `unexported`."""
    return {
        renamed.get(attr, to_camel(attr)): attr
        for attr in output_names(layer)
        if attr not in unexported
    }


def fabric_needs(cloud: Any, fabric_args: Any, renamed: dict[str, str]) -> tuple[str, ...]:
    """The cloud layer's outputs the fabric layer takes: every args field (nested ones too) that
    takes Outputs and is named after a cloud output, or `renamed` (args field -> cloud output)."""
    outputs, needs = output_names(cloud), []

    def walk(args_type: Any) -> None:
        for field, annotation in args_type.__annotations__.items():
            inner = field_type(annotation)
            if typing.is_typeddict(inner):
                walk(inner)
            elif takes_outputs(inner):
                output = renamed.get(field, field)
                if output in outputs and output not in needs:
                    needs.append(output)

    walk(fabric_args)
    return tuple(needs)


def field_type(annotation: Any) -> Any:
    """A TypedDict field's type without `NotRequired[...]`/`Required[...]`."""
    if typing.get_origin(annotation) in (typing.NotRequired, typing.Required):
        return typing.get_args(annotation)[0]
    return annotation


def whole_numbers(value: Any) -> Any:
    """`value` with every whole-number float turned back into an int, in nested dicts and lists.

    A component hosted by the component package (`component_package.py`) gets numbers from other
    languages as floats (2.0): the pinned SDK's input mapping converts them and then keeps the float
    (an incomplete upstream fix, pulumi/pulumi#21944). Counts must be ints: `range(2.0)` raises, and
    `str(2.0)` would write "2.0" into a node label or an ACK pool size.
    """
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [whole_numbers(item) for item in value]
    return value


def result_field(value: Any, name: str) -> Any:
    """A field of what the SDK hands an `apply`, by its Python name: a function's result is an
    object (`GetReservationResult`), its nested output types and a resource's outputs under the
    mocks are mappings; None where it has no such field."""
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def merged(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One dict of several whose keys never meet (an `apply` over `Output.all` of dict outputs)."""
    return {key: value for part in parts for key, value in part.items()}


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
    RENAMED_OUTPUTS: dict[str, str] = {}
    """A layer output the stack exports under an older name (attribute -> stack output name)."""
    UNEXPORTED_OUTPUTS: tuple[str, ...] = ()
    """Layer outputs the stack does not export (attribute names)."""
    RENAMED_NEEDS: dict[str, str] = {}
    """A fabric args field named otherwise than the cloud output it takes (field -> output)."""
    OPTIONAL_NEEDS: tuple[str, ...] = ()
    """Cloud outputs the stack's `fabric_args` reads beyond the args' fields, which a cloud layer
    has only when its config makes them (None otherwise, and not exported): a fabric stack reads
    them with `get_output`, so one whose cloud stack has none reads None."""

    CLOUD_OUTPUTS: dict[str, str]
    """Stack output name -> the cloud layer's output attribute (derived from its class)."""
    FABRIC_OUTPUTS: dict[str, str]
    """Stack output name -> the fabric layer's output attribute (derived from its class)."""
    FABRIC_NEEDS: tuple[str, ...]
    """The cloud layer's outputs the fabric layer takes (attribute names; derived from its
    args)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        renamed, unexported = cls.RENAMED_OUTPUTS, cls.UNEXPORTED_OUTPUTS
        declared = {*output_names(cls.CLOUD), *output_names(cls.FABRIC)}
        unknown = sorted({*renamed, *unexported} - declared)
        if unknown:
            raise TypeError(f"{cls.__name__}: its layers declare no output {', '.join(unknown)}")
        cls.CLOUD_OUTPUTS = stack_outputs(cls.CLOUD, renamed, unexported)
        cls.FABRIC_OUTPUTS = stack_outputs(cls.FABRIC, renamed, unexported)
        fabric_args = typing.get_type_hints(cls.FABRIC.__init__)["args"]
        cls.FABRIC_NEEDS = fabric_needs(cls.CLOUD, fabric_args, cls.RENAMED_NEEDS)
        unknown = sorted(set(cls.OPTIONAL_NEEDS) - set(output_names(cls.CLOUD)))
        if unknown:
            raise TypeError(f"{cls.__name__}: its cloud layer declares no {', '.join(unknown)}")

    cloud: Any
    fabric: Any

    def __init__(
        self,
        name: str,
        cfg: Any,
        opts: pulumi.ResourceOptions | None = None,
        cloud_config: str | None = None,
    ):
        """`cloud_config`: what a cloud stack exports for its fabric stack (its cloud keys, the
        fabric stack's only source for them; `stack_config.split.cloud_config_of`)."""
        super().__init__(self.TOKEN, name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.cloud = self.fabric = None
        layers = cfg.layers.value
        self.cloud_config = cloud_config
        if layers != "fabric":
            self.cloud = self.cloud_layer(name, cfg, child)
        if layers != "cloud":
            if self.cloud is not None:
                provider = self.cloud.kubernetes_provider
                outputs = self.needs_of(self.cloud)
            else:
                provider, outputs = self._from_cloud_stack(name, cfg.cloud_stack, child)
            self.fabric = self.fabric_layer(name, cfg, provider, outputs, child)
        self.register_outputs(self.outputs())

    @classmethod
    def needs_of(cls, cloud: Any) -> dict[str, Any]:
        """What the fabric layer takes of a cloud layer in the same program."""
        return {key: getattr(cloud, key) for key in (*cls.FABRIC_NEEDS, *cls.OPTIONAL_NEEDS)}

    def outputs(self) -> dict[str, pulumi.Input]:
        """The stack outputs: the declared outputs of the layers this stack runs."""
        out: dict[str, pulumi.Input] = {}
        for layer, names in ((self.cloud, self.CLOUD_OUTPUTS), (self.fabric, self.FABRIC_OUTPUTS)):
            if layer is not None:
                out.update(
                    {
                        key: value
                        for key, attr in names.items()
                        if (value := getattr(layer, attr)) is not None
                    }
                )
        if self.cloud_config is not None:
            out[CLOUD_CONFIG_OUTPUT] = self.cloud_config
        return out

    def _from_cloud_stack(self, name: str, reference: str, opts: pulumi.ResourceOptions):
        import pulumi_kubernetes as k8s

        cloud = pulumi.StackReference(f"{name}-cloud-stack", stack_name=reference, opts=opts)
        by_attr = {attr: key for key, attr in self.CLOUD_OUTPUTS.items()}
        outputs = {key: cloud.require_output(by_attr[key]) for key in self.FABRIC_NEEDS}
        outputs |= {key: cloud.get_output(by_attr[key]) for key in self.OPTIONAL_NEEDS}
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
