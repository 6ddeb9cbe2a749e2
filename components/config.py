"""Typed stack configuration, validated in full before any resource is registered.

Stack files (`stacks/Pulumi.<stack>.yaml`) hold `gpu-fabric:*` keys in camelCase plus `gcp:project`.
Validation is layered: per-field checks live on the fields (a CIDR parses, a count is not negative),
cross-field checks live in `_cross_checks` (ranges do not overlap, the zone is in the region, the GKE
version suits the machine type). Every failure names the stack key, the bad value and the fix.
"""

from __future__ import annotations

import difflib
import ipaddress
import itertools
import json
import re
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
)
from pydantic.alias_generators import to_camel

from .catalog import GkeVersion, Machine, catalog, image_tag, minor_tuple

NAMESPACE = "gpu-fabric"
GCP_PROJECT_KEY = "gcp:project"

# --- field types -------------------------------------------------------------------------------

_RFC1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


def _cidr(value: str) -> str:
    try:
        network = ipaddress.ip_network(value, strict=True)
    except ValueError as err:
        raise ValueError(f"not a CIDR range ({err}); write it as ADDRESS/PREFIX, e.g. 192.168.1.0/24")
    if network.version != 4:
        raise ValueError("only IPv4 ranges are supported here; use an IPv4 CIDR such as 10.0.0.0/20")
    return str(network)


def _source_range(value: str) -> str:
    value = _cidr(value)
    if ipaddress.ip_network(value).prefixlen == 0:
        raise ValueError(
            "a range open to the whole internet is refused; list the GPU subnets that may reach "
            "this VPC (the default is the VPC's own subnet)"
        )
    return value


def _gce_name(max_len: int):
    def check(value: str) -> str:
        if not _RFC1035.match(value) or len(value) > max_len:
            raise ValueError(
                f"must be 1-{max_len} characters of lowercase letters, digits and hyphens, starting "
                "with a letter and not ending with a hyphen"
            )
        return value

    return check


def _gke_version(value: str) -> str:
    GkeVersion(value)
    return value


def _not_negative(value: int) -> int:
    if value < 0:
        raise ValueError("a node count cannot be negative; use 0 to keep the pool empty")
    return value


def _mtu(value: int) -> int:
    if not 1300 <= value <= 8896:
        raise ValueError("a VPC MTU must be within 1300..8896; GPUDirect-TCPX uses 8244")
    return value


Cidr = Annotated[str, AfterValidator(_cidr)]
SourceRange = Annotated[str, AfterValidator(_source_range)]
ResourceName = Annotated[str, AfterValidator(_gce_name(63))]
ClusterName = Annotated[str, AfterValidator(_gce_name(40))]
# The prefix must leave room for the longest derived name, `<prefix>-internal-N`.
NamePrefix = Annotated[str, AfterValidator(_gce_name(63 - len("-internal-9")))]
NodeCount = Annotated[int, AfterValidator(_not_negative)]
Mtu = Annotated[int, AfterValidator(_mtu)]
GkeVersionText = Annotated[str, AfterValidator(_gke_version)]


class Platform(str, Enum):
    """What a stack builds."""

    GKE_A3_HIGH = "gke-a3-high"


class GpuDriverVersion(str, Enum):
    """`gpu_driver_installation_config.gpu_driver_version` of a GKE GPU node pool."""

    DEFAULT = "DEFAULT"
    LATEST = "LATEST"
    INSTALLATION_DISABLED = "INSTALLATION_DISABLED"


class _Config(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True
    )


# --- sections ----------------------------------------------------------------------------------


class ExistingNetwork(_Config):
    """A primary VPC and subnet that exist already, with their secondary ranges."""

    network: str = Field(description="Name or self link of the existing VPC.")
    subnetwork: str = Field(description="Name or self link of the existing subnet in the region.")
    pods_range_name: str = Field(description="Secondary range of the subnet for pods.")
    services_range_name: str = Field(description="Secondary range of the subnet for services.")


class PrimaryNetworkConfig(_Config):
    """The cluster's own network (node eth0, pods, services)."""

    subnet_cidr: Cidr = Field("10.0.0.0/20", description="Primary subnet range of the nodes.")
    pods_cidr: Cidr = Field("10.64.0.0/19", description="Secondary range for pods (seed example).")
    services_cidr: Cidr = Field(
        "10.65.0.0/19", description="Secondary range for services (seed example)."
    )
    cloud_nat: bool = Field(
        True, description="Cloud NAT for private nodes to reach registries outside Google."
    )
    existing: ExistingNetwork | None = Field(
        None, description="Use this network instead of creating one; then set no CIDRs here."
    )


class NetworkConfig(_Config):
    """VPCs: the primary network and one VPC per GPU NIC."""

    prefix: NamePrefix | None = Field(
        None, description="Prefix of the GPU VPC names `<prefix>-net-N`; default: the cluster name."
    )
    gpu_mtu: Mtu | None = Field(None, description="MTU of the GPU VPCs; default from the catalog.")
    gpu_subnets: list[Cidr] | None = Field(
        None, description="One range per GPU NIC, in NIC order; default 192.168.N.0/24."
    )
    gpu_firewall_source_ranges: list[SourceRange] | None = Field(
        None, description="Sources allowed into every GPU VPC; default: each VPC's own subnet."
    )
    primary: PrimaryNetworkConfig = Field(default_factory=PrimaryNetworkConfig)


class AuthorizedNetwork(_Config):
    cidr_block: SourceRange = Field(description="Range allowed to reach the control plane.")
    display_name: str = Field("", description="Label shown in the console.")


class SystemPoolConfig(_Config):
    """The small CPU pool that runs system pods (the default pool is removed)."""

    machine_type: str = Field("e2-standard-4", description="Machine type of the system nodes.")
    node_count: NodeCount = Field(1, description="Nodes per zone of the cluster's region.")


class GkeConfig(_Config):
    """The GKE Standard cluster."""

    name: ClusterName = Field(description="Cluster name (1-40 characters).")
    version: GkeVersionText = Field(
        description="Pinned GKE version, e.g. 1.33.5-gke.1080000; auto-upgrade is off."
    )
    deletion_protection: bool = Field(True, description="GKE deletion protection of the cluster.")
    private_nodes: bool = Field(True, description="Nodes get no external IP addresses.")
    master_authorized_networks: list[AuthorizedNetwork] | None = Field(
        None, description="If set, only these ranges reach the public control-plane endpoint."
    )
    system_pool: SystemPoolConfig = Field(default_factory=SystemPoolConfig)


class ReservationConfig(_Config):
    """Consume a specific Compute Engine reservation."""

    name: ResourceName = Field(description="Reservation name.")
    project: str | None = Field(None, description="Owner project of a shared reservation.")


class BootDiskConfig(_Config):
    type: str = Field("pd-balanced", description="Boot disk type.")
    size_gb: int = Field(200, ge=10, description="Boot disk size in GB.")


class GpuPoolConfig(_Config):
    """The GPU node pool."""

    name: ResourceName = Field("gpu-pool", description="Node pool name.")
    machine_type: str = Field(description="A machine type from the catalog, e.g. a3-highgpu-8g.")
    zone: str = Field(description="The one zone of the pool (compact placement is zonal).")
    node_count: NodeCount = Field(description="Number of GPU nodes.")
    gpu_driver_version: GpuDriverVersion = Field(
        GpuDriverVersion.LATEST, description="GKE-managed NVIDIA driver: LATEST, DEFAULT or disabled."
    )
    local_ssd: bool = Field(
        True, description="Expose the machine's local SSDs (catalog count) as ephemeral storage."
    )
    compact_placement: bool = Field(True, description="Compact placement through a policy.")
    reservation: ReservationConfig | None = Field(
        None, description="Consume this reservation; default: any matching reservation."
    )
    boot_disk: BootDiskConfig = Field(default_factory=BootDiskConfig)
    allow_unsupported_gke_version: bool = Field(
        False, description="Accept a GKE minor the catalog marks unsupported for the machine type."
    )


class TcpxImagesConfig(_Config):
    """A coupled installer/daemon pair; both are given together."""

    installer: str = Field(description="NCCL GPUDirect-TCPX installer image.")
    daemon: str = Field(description="tcpx-daemon (RxDM) image matching the installer.")


class ImagesConfig(_Config):
    """Overrides of the catalog's pinned images."""

    tcpx: TcpxImagesConfig | None = None
    pause: str | None = None


class StackConfig(_Config):
    """Everything one stack needs, validated."""

    project: str = Field(description="GCP project ID (`gcp:project`).")
    platform: Platform = Field(description="What the stack builds: gke-a3-high.")
    region: str = Field(description="GCP region of the cluster and every subnet, e.g. us-central1.")
    network: NetworkConfig = Field(default_factory=NetworkConfig)
    gke: GkeConfig
    gpu_pool: GpuPoolConfig
    images: ImagesConfig = Field(default_factory=ImagesConfig)
    smoke_test: bool = Field(False, description="Deploy the two-pod GPUDirect-TCPX test workload.")

    # Derived values, so components never re-derive defaults.

    @property
    def machine(self) -> Machine:
        return catalog().machines[self.gpu_pool.machine_type]

    @property
    def name_prefix(self) -> str:
        return self.network.prefix or self.gke.name

    @property
    def gpu_mtu(self) -> int:
        return self.network.gpu_mtu or self.machine.gpu_nics.mtu

    @property
    def gpu_subnets(self) -> list[str]:
        if self.network.gpu_subnets is not None:
            return list(self.network.gpu_subnets)
        return [f"192.168.{n}.0/24" for n in range(1, self.machine.gpu_nics.count + 1)]

    @property
    def tcpx_images(self) -> TcpxImagesConfig:
        pinned = catalog().images.tcpx
        return self.images.tcpx or TcpxImagesConfig(installer=pinned.installer, daemon=pinned.daemon)

    @property
    def pause_image(self) -> str:
        return self.images.pause or catalog().images.pause

    @property
    def warnings(self) -> list[str]:
        """Advice that is not fatal: the stack deploys, but you may want to change it."""
        version = GkeVersion(self.gke.version)
        advised = self.machine.gke.advisory_floor_for(version.minor)
        if advised and version < advised:
            return [
                f"{NAMESPACE}:gke.version: {version} is below {advised}, the security patch "
                f"cluster-toolkit requires for {self.gpu_pool.machine_type} on {version.minor} "
                "(warning, not fatal)"
            ]
        return []


# --- errors ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    key: str
    """Full stack key, e.g. `gpu-fabric:gke.version`."""
    value: Any
    message: str
    """What is wrong and the fix."""

    def __str__(self) -> str:
        shown = "(not set)" if self.value is _MISSING else json.dumps(self.value, default=str)
        return f"{self.key}: {shown}: {self.message}"


_MISSING = object()


class ConfigError(Exception):
    """The stack configuration is invalid; nothing may be registered."""

    def __init__(self, stack: str, problems: list[Problem]):
        self.problems = problems
        lines = [f"stack {stack!r}: {len(problems)} configuration problem(s):"]
        lines += [f"  - {p}" for p in problems]
        super().__init__("\n".join(lines))


def _stack_key(loc: tuple) -> str:
    if loc and loc[0] == "project":
        return GCP_PROJECT_KEY
    path = ".".join(str(part) if not isinstance(part, int) else f"[{part}]" for part in loc)
    head, _, rest = path.partition(".")
    key = f"{NAMESPACE}:{head}"
    return f"{key}.{rest}".replace(".[", "[") if rest else key


def _model_at(loc: tuple) -> type[BaseModel] | None:
    """The config model that owns the last element of `loc`."""
    model: Any = StackConfig
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = next(
            (f for name, f in model.model_fields.items() if part in (name, f.alias)), None
        )
        if field is None:
            return None
        annotation = field.annotation
        candidates = [annotation, *getattr(annotation, "__args__", ())]
        nested = [
            c for c in itertools.chain(candidates, *(getattr(c, "__args__", ()) for c in candidates))
            if isinstance(c, type) and issubclass(c, BaseModel)
        ]
        if not nested:
            return None
        model = nested[0]
    return model


def _problem_from_pydantic(error: dict) -> Problem:
    loc = error["loc"]
    key = _stack_key(loc)
    kind = error["type"]
    if kind == "missing":
        return Problem(key, _MISSING, "required; set it in the stack file")
    if kind == "extra_forbidden":
        model = _model_at(loc)
        known = sorted(f.alias or n for n, f in model.model_fields.items()) if model else []
        close = difflib.get_close_matches(str(loc[-1]), known, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        return Problem(
            key, error["input"], f"unknown key; {hint}remove it or use one of: {', '.join(known)}"
        )
    if kind == "value_error":
        return Problem(key, error["input"], str(error["ctx"]["error"]))
    if kind == "enum":
        return Problem(key, error["input"], f"must be one of {error['ctx']['expected']}")
    return Problem(key, error["input"], f"{error['msg']}; fix the value in the stack file")


# --- cross-field checks ------------------------------------------------------------------------


def _cross_checks(cfg: StackConfig) -> list[Problem]:
    problems: list[Problem] = []
    pool_key = f"{NAMESPACE}:gpuPool"

    machine = catalog().machines.get(cfg.gpu_pool.machine_type)
    if machine is None:
        known = ", ".join(sorted(catalog().machines))
        return [
            Problem(
                f"{pool_key}.machineType",
                cfg.gpu_pool.machine_type,
                f"unknown machine type; use one of the catalog's: {known}",
            )
        ]
    if machine.platform != cfg.platform.value:
        problems.append(
            Problem(
                f"{pool_key}.machineType",
                cfg.gpu_pool.machine_type,
                f"belongs to platform {machine.platform!r}, not {cfg.platform.value!r}; "
                "change gpu-fabric:platform or the machine type",
            )
        )

    if not cfg.gpu_pool.zone.startswith(f"{cfg.region}-") or not re.fullmatch(
        r"[a-z]+-[a-z]+\d+-[a-z]", cfg.gpu_pool.zone
    ):
        problems.append(
            Problem(
                f"{pool_key}.zone",
                cfg.gpu_pool.zone,
                f"not a zone of region {cfg.region}; use e.g. {cfg.region}-a, or change "
                f"{NAMESPACE}:region",
            )
        )

    problems += _version_checks(cfg, machine)
    problems += _network_checks(cfg, machine)
    problems += _image_checks(cfg)
    return problems


def _version_checks(cfg: StackConfig, machine: Machine) -> list[Problem]:
    key = f"{NAMESPACE}:gke.version"
    version = GkeVersion(cfg.gke.version)
    rules = machine.gke
    fabric = machine.fabric
    if minor_tuple(version.minor) < minor_tuple(rules.min_minor):
        return [
            Problem(
                key,
                version.text,
                f"GKE {version.minor} is not supported by {fabric} on {cfg.gpu_pool.machine_type} "
                f"(needs {rules.min_minor} or newer); pick a newer version",
            )
        ]
    floor = rules.floor_for(version.minor)
    if floor and version < floor:
        return [
            Problem(
                key,
                version.text,
                f"below the {fabric} floor {floor} for minor {version.minor}; pick {floor} or newer",
            )
        ]
    if (
        rules.unsupported_from_minor
        and minor_tuple(version.minor) >= minor_tuple(rules.unsupported_from_minor)
        and not cfg.gpu_pool.allow_unsupported_gke_version
    ):
        return [
            Problem(
                key,
                version.text,
                f"{cfg.gpu_pool.machine_type} is not supported on GKE {rules.unsupported_from_minor} "
                f"or newer: {rules.unsupported_reason}. Pick an older minor, or set "
                f"{NAMESPACE}:gpuPool.allowUnsupportedGkeVersion: true to accept the risk",
            )
        ]
    return []


def _network_checks(cfg: StackConfig, machine: Machine) -> list[Problem]:
    problems: list[Problem] = []
    net_key = f"{NAMESPACE}:network"
    nics = machine.gpu_nics.count
    if len(cfg.gpu_subnets) != nics:
        problems.append(
            Problem(
                f"{net_key}.gpuSubnets",
                cfg.gpu_subnets,
                f"{cfg.gpu_pool.machine_type} has {nics} GPU NICs; give exactly {nics} ranges",
            )
        )
    if cfg.network.gpu_firewall_source_ranges == []:
        problems.append(
            Problem(
                f"{net_key}.gpuFirewallSourceRanges",
                [],
                "an empty list would block all GPU traffic; remove the key to allow each VPC's "
                "own subnet, or list the ranges",
            )
        )

    ranges = [(f"{net_key}.gpuSubnets[{i}]", cidr) for i, cidr in enumerate(cfg.gpu_subnets)]
    primary = cfg.network.primary
    if primary.existing is None:
        ranges += [
            (f"{net_key}.primary.subnetCidr", primary.subnet_cidr),
            (f"{net_key}.primary.podsCidr", primary.pods_cidr),
            (f"{net_key}.primary.servicesCidr", primary.services_cidr),
        ]
    else:
        set_here = primary.model_fields_set - {"existing"}
        for field in sorted(set_here):
            problems.append(
                Problem(
                    f"{net_key}.primary.{to_camel(field)}",
                    getattr(primary, field),
                    "has no effect with primary.existing (the existing subnet owns its ranges); "
                    "remove it",
                )
            )
    for (key_a, a), (key_b, b) in itertools.combinations(ranges, 2):
        if ipaddress.ip_network(a).overlaps(ipaddress.ip_network(b)):
            problems.append(
                Problem(key_b, b, f"overlaps {key_a} ({a}); pick a range that does not overlap")
            )
    return problems


def _image_checks(cfg: StackConfig) -> list[Problem]:
    pair = cfg.images.tcpx
    if pair is None:
        return []
    known = catalog().images.tcpx.known_pairs
    installer_tag, daemon_tag = image_tag(pair.installer), image_tag(pair.daemon)
    expected = known.get(installer_tag)
    if expected and expected != daemon_tag:
        return [
            Problem(
                f"{NAMESPACE}:images.tcpx.daemon",
                pair.daemon,
                f"installer {installer_tag} pairs with tcpx-daemon {expected}, not {daemon_tag}; "
                f"use the {expected} daemon image",
            )
        ]
    return []


# --- loading -----------------------------------------------------------------------------------


def parse(raw: dict[str, Any], stack: str = "") -> StackConfig:
    """Validate a raw config mapping (camelCase keys, as in a stack file) or raise ConfigError."""
    try:
        cfg = StackConfig.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(stack, [_problem_from_pydantic(e) for e in err.errors()]) from None
    problems = _cross_checks(cfg)
    if problems:
        raise ConfigError(stack, problems)
    return cfg


def raw_from_pulumi_config(values: dict[str, Any]) -> dict[str, Any]:
    """Turn Pulumi's flat config map (`gpu-fabric:gke` -> JSON text) into a raw mapping.

    Every `gpu-fabric:*` key is kept, so an unknown top-level key is reported, not ignored.
    """
    raw: dict[str, Any] = {}
    for key, value in values.items():
        namespace, _, name = key.partition(":")
        if key == GCP_PROJECT_KEY:
            raw["project"] = value
        elif namespace == NAMESPACE:
            raw[name] = _decode(value)
    return raw


def _decode(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def load_stack_config() -> StackConfig:
    """Read and validate the current stack's config (call before registering any resource)."""
    import pulumi
    from pulumi.runtime import config as runtime_config

    values = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    cfg = parse(raw_from_pulumi_config(values), pulumi.get_stack())
    for warning in cfg.warnings:
        pulumi.log.warn(warning)
    return cfg
