"""Cross-field rules of the `oke-dranet` stack configuration.

What OCI, DRANET and the scheduler would only refuse after `pulumi up` (or never: an overlapping
child range just drops traffic) is refused here, with the key, the value and the fix.
"""

from __future__ import annotations

import ipaddress
import itertools
import math
import re

from ..catalog import catalog, closest_known
from ..config_base import Layers
from ..health.config import PrometheusOwner
from ..health.from_stack import health_problems
from ..layer_inputs import ArgsPath, stack_key_in
from ..problems import (
    Problem,
    deploy_path_without_effect,
    private_endpoint_fix,
    timeout_without_wait,
)
from ..problems import key as _key
from ..storage.rules import storage_problems
from ..workloads.checks import WELL_KNOWN_NODE_LABELS, queue_problems
from .claims.plan import RUNTIME_CLAIM, plan_claim
from .cloud_args import STACK_KEYS, cloud_args
from .cloud_rules import cloud_problems
from .cluster.config import Cni
from .config import REGION_KEY, OkeDranetConfig
from .ids import ocid_place
from .network.rules import RESERVED_PER_SUBNET

# Availability domains are `<tenancy prefix>:<REGION>-AD-<n>`. The oldest regions name it without
# the region's number (us-ashburn-1 -> US-ASHBURN-AD-1) or with an airport code; newer ones in full
# (ap-mumbai-1 -> AP-MUMBAI-1-AD-1). OCI docs "Regions and Availability Domains".
_AD = re.compile(r"^[A-Za-z0-9]+:([A-Z0-9-]+)-AD-(\d)$")
_OCA = "Oracle Cloud Agent"


HEALTH_PROMETHEUS = (PrometheusOwner.STACK, PrometheusOwner.EXTERNAL)
"""The Prometheus owners the platform offers: no managed one the stack could send to (OKE has
none; ACK's add-on is UNVERIFIED, DAY2.md)."""

POD_SECURITY = (
    "baseline",
    "the GPUs and RDMA rails come through DRA claims, so a training pod needs no host path, "
    "host network or added capability; the DRANET-on-OKE write-up ran every test pod under "
    "Baseline",
)
"""What the runtime's pods need of the training namespace's Pod Security level, and why."""


def cross_field_problems(cfg: OkeDranetConfig) -> list[Problem]:
    """Every cross-field problem of an oke-dranet stack."""
    problems = _region_checks(cfg)
    # The join labels the nodes with the RDMA network's locality (catalog `oke.topology_levels`).
    carried = [*WELL_KNOWN_NODE_LABELS, *catalog().oke.topology_levels]
    problems += queue_problems(cfg.queues, None, POD_SECURITY, list(dict.fromkeys(carried)))
    problems += _topology_checks(cfg)
    problems += health_problems(cfg.health, HEALTH_PROMETHEUS, "OKE")
    problems += storage_problems(cfg.storage, cfg.queues)
    problems += timeout_without_wait(cfg.node_wait_timeout, cfg.gpu_nodes.count)

    # The rules of the cloud layer's args, as a hosted OkeCloud runs them (cloud_rules.py).
    def name(path: ArgsPath) -> str:
        return _key(stack_key_in(path, STACK_KEYS))

    problems += [
        Problem(name(p.path), p.value, p.message) for p in cloud_problems(cloud_args(cfg), name)
    ]
    problems += _chart_pair_checks(cfg)
    unknown = unknown_gpu_shape(cfg.gpu_nodes.shape, cfg.platform)
    if unknown is not None:
        return [*problems, Problem(_key("gpuNodes.shape"), cfg.gpu_nodes.shape, unknown)]
    problems += _network_checks(cfg)
    problems += _capacity_checks(cfg)
    if cfg.layers is not Layers.CLOUD:
        # DRANET's range is its fabric stack's key: there it is checked with this stack's ranges
        # (a cloud stack would be held to the default of a key it may not set).
        problems += _child_range_checks(cfg)
    problems += _claim_checks(cfg)
    return problems


def _topology_checks(cfg: OkeDranetConfig) -> list[Problem]:
    """No Topology while Kueue's topology-aware scheduling does not count DRA devices: Kueue
    0.19 places such a job by its containers' requests ("No DRA + Topology Aware Scheduling
    (TAS): DRA resources are not accounted for in TAS capacity calculations", kueue site/content/
    en/docs/concepts/dynamic_resource_allocation.md, Limitations), so two pods that each claim a
    node's 8 GPUs could be given one host and one of them never starts."""
    if not (cfg.queues.enabled and cfg.queues.topology_levels):
        return []
    return [
        Problem(
            _key("queues.topologyLevels"),
            cfg.queues.topology_levels,
            'Kueue does not count DRA devices in topology-aware placement (its docs: "No DRA + '
            "Topology Aware Scheduling\"), and this fabric's GPUs and rails are DRA claims: two "
            "whole-node pods could be placed on one host; remove it (the nodes keep their RDMA "
            "locality labels for a Kueue that counts them)",
        )
    ]


def unknown_gpu_shape(shape_name: str, platform: str) -> str | None:
    """What to do about a GPU shape the catalog does not have for `platform` (None: it has it)."""
    shape = catalog().oci_shapes.get(shape_name)
    if shape is not None and shape.platform == platform:
        return None
    names = [n for n, s in catalog().oci_shapes.items() if s.platform == platform]
    guess = closest_known(shape_name, names)
    hint = f"did you mean {guess!r}? " if guess and guess != shape_name else ""
    return f"not a GPU shape of the catalog for {platform}; {hint}use one of: " + ", ".join(names)


def _region_checks(cfg: OkeDranetConfig) -> list[Problem]:
    """`oci:region` and `oke.homeRegion` are regions of the catalog (OCI's published list); the
    availability domain is one of `oci:region`'s, and every image is in it."""
    regions = catalog().oke.regions
    problems = []
    home = cfg.oke.home_region
    if home is not None and home not in regions.regions:
        problems.append(
            Problem(
                _key("oke.homeRegion"),
                home,
                "not an OCI region identifier; use the tenancy's home region"
                f"{_region_hint(home)} (`oci iam region-subscription list` marks it "
                "`is-home-region: true`)",
            )
        )
    region = cfg.oci_region
    if region not in regions.regions:
        return [
            *problems,
            Problem(
                REGION_KEY,
                region,
                f"not an OCI region identifier{_region_hint(region)} (`oci iam region list`; "
                f"the catalog's oke.regions, from {regions.source.split(' (')[0]})",
            ),
        ]
    return problems + _availability_domain_checks(cfg) + _image_region_checks(cfg)


def _region_hint(text: str) -> str:
    """`; did you mean 'us-ashburn-1'?` for a region key, a case slip or a near miss, else an
    example."""
    regions = catalog().oke.regions
    guess = regions.named(text.strip()) or closest_known(text, list(regions.regions))
    return f"; did you mean {guess!r}?" if guess else "; use one such as us-ashburn-1"


def _ad_names(region: str) -> set[str]:
    """What an availability domain's name may call `region`: `US-ASHBURN-1`, the oldest regions'
    `US-ASHBURN`, or the region key (`PHX`)."""
    upper = region.upper()
    return {upper, upper.rsplit("-", 1)[0], catalog().oke.regions.regions[region].key.upper()}


def _availability_domain_checks(cfg: OkeDranetConfig) -> list[Problem]:
    region, ad = cfg.oci_region, cfg.gpu_nodes.availability_domain
    key = _key("gpuNodes.availabilityDomain")
    prefix = region.upper().rsplit("-", 1)[0]
    match = _AD.match(ad)
    if not match or match.group(1) not in _ad_names(region):
        others = [
            name
            for name in catalog().oke.regions.regions
            if name != region and match and match.group(1) in _ad_names(name)
        ]
        where = f" (it names {others[0]})" if len(others) == 1 else ""
        return [
            Problem(
                key,
                ad,
                f"not an availability domain of {region}{where}; use one of its names from "
                f"`oci iam availability-domain list` (e.g. Uocm:{prefix}-AD-1), or change "
                f"{REGION_KEY}",
            )
        ]
    count = catalog().oke.regions.regions[region].availability_domains
    number = int(match.group(2))
    if count is not None and not 1 <= number <= count:
        has = "one availability domain, AD-1" if count == 1 else f"{count}: AD-1 to AD-{count}"
        stem = ad[: -len(match.group(2))]
        pick = f"{stem}1" if count == 1 else f"one of {stem}1 to {stem}{count}"
        return [
            Problem(
                key,
                ad,
                f"{region} has {has}; use {pick} (`oci iam availability-domain list`; the "
                "catalog's oke.regions, from OCI's \"Regions and Availability Domains\")",
            )
        ]
    return []


def _image_region_checks(cfg: OkeDranetConfig) -> list[Problem]:
    """Images are regional: an image OCID carries its region (`ocid1.image.oc1.iad...` or
    `ocid1.image.oc1.us-chicago-1...`), and an instance in another region cannot boot from it."""
    regions = catalog().oke.regions
    region = cfg.oci_region
    here = regions.regions[region]
    problems = []
    for path, image in (
        ("oke.systemPool.imageId", cfg.oke.system_pool.image_id),
        ("gpuNodes.imageId", cfg.gpu_nodes.image_id),
    ):
        place = ocid_place(image)
        if place is None or not place[1]:
            continue
        realm, part = place
        if part in (region, here.key) and realm == here.realm:
            continue
        other = regions.named(part)
        if part in (region, here.key):
            what = f"an OCID of realm {realm}, and {region} is in realm {here.realm}"
        elif other is not None:
            what = f"an image of {other} ({part})"
        else:
            what = f"an image of {part!r}, which is not {region} (or its key {here.key})"
        problems.append(
            Problem(
                _key(path),
                image,
                f"{what}; images are regional and nodes in {region} ({REGION_KEY}) boot only "
                f"from images there: use the image's OCID in {region} (`oci compute image list "
                f"--region {region}`, or import it there), or change {REGION_KEY}",
            )
        )
    return problems


def _chart_pair_checks(cfg: OkeDranetConfig) -> list[Problem]:
    """DRANET's chart version and image tag form one of the catalog's known pairs: the chart's
    templates and the image's flags and providers move together (the v1.4 line has no OKE RDMA
    provider at all)."""
    pinned = catalog().oke.dranet
    chart = cfg.charts.dranet
    if chart.version is None and chart.image_tag is None:
        return []
    known = ", ".join(f"chart {v} <-> image {t}" for v, t in pinned.known_pairs.items())
    version, tag = cfg.dranet_version, cfg.dranet_image_tag
    expected = pinned.known_pairs.get(version)
    if expected is None:
        return [
            Problem(
                _key("charts.dranet.version"),
                version,
                f"DRANET chart {version} is not a known chart and image pair ({known}); use one "
                "of them, or add the pair to the catalog's oke.dranet.known_pairs with its source",
            )
        ]
    if expected != tag:
        return [
            Problem(
                _key("charts.dranet.imageTag"),
                tag,
                f"DRANET chart {version} pairs with image {expected}, not {tag} (known pairs: "
                f"{known}); set charts.dranet.imageTag to {expected}, or remove it",
            )
        ]
    return []


def _net(cidr: str) -> ipaddress.IPv4Network:
    return ipaddress.IPv4Network(cidr)


def _existing_subnet_ranges(cfg: OkeDranetConfig) -> list[tuple[str, str]]:
    """(stack key, range) of an existing VCN's subnets that the nodes and pods use (the cloud
    layer's args take their IDs only, so these ranges are the stack file's to check)."""
    existing = cfg.network.existing
    if existing is None:
        return []
    ranges = [(_key("network.existing.workersSubnetCidr"), existing.workers_subnet_cidr)]
    if existing.pods_subnet_cidr:
        ranges.append((_key("network.existing.podsSubnetCidr"), existing.pods_subnet_cidr))
    return ranges


def _vcn_key(cfg: OkeDranetConfig) -> str:
    return _key("network.existing.vcnCidr" if cfg.network.existing else "network.vcnCidr")


def _network_checks(cfg: OkeDranetConfig) -> list[Problem]:
    problems: list[Problem] = []
    network, existing = cfg.network, cfg.network.existing
    if existing is not None:
        for field in sorted(network.model_fields_set - {"existing"}):
            if field in ("api_allowed_cidrs", "ssh_allowed_cidrs"):
                continue
            problems.append(
                Problem(
                    _key(f"network.{type(network).model_fields[field].alias}"),
                    getattr(network, field),
                    "has no effect with network.existing (the existing VCN owns its ranges); "
                    "remove it",
                )
            )
        if cfg.oke.cni is Cni.VCN_NATIVE and existing.pods_subnet_id is None:
            problems.append(
                Problem(
                    _key("network.existing.podsSubnetId"),
                    None,
                    "the VCN-native CNI needs a pod subnet; set podsSubnetId and podsSubnetCidr, "
                    "or use oke.cni: FLANNEL_OVERLAY",
                )
            )
        if cfg.oke.cni is Cni.FLANNEL:
            for field in ("pods_subnet_id", "pods_subnet_cidr"):
                if field in existing.model_fields_set:
                    problems.append(
                        Problem(
                            _key(f"network.existing.{type(existing).model_fields[field].alias}"),
                            getattr(existing, field),
                            "has no effect with FLANNEL_OVERLAY (pods take addresses from "
                            "oke.podsCidr, not a subnet); remove it",
                        )
                    )
    elif cfg.oke.cni is Cni.FLANNEL and "pods_subnet_cidr" in network.model_fields_set:
        problems.append(
            Problem(
                _key("network.podsSubnetCidr"),
                network.pods_subnet_cidr,
                "has no effect with FLANNEL_OVERLAY (pods use oke.podsCidr); remove it",
            )
        )
    if cfg.oke.cni is Cni.VCN_NATIVE and cfg.oke.pods_cidr is not None:
        problems.append(
            Problem(
                _key("oke.podsCidr"),
                cfg.oke.pods_cidr,
                "has no effect with the VCN-native CNI (pods take addresses from the pod subnet); "
                "remove it, or use oke.cni: FLANNEL_OVERLAY",
            )
        )

    problems += _reachability(cfg)
    vcn = _net(cfg.vcn_cidr)
    subnets = _existing_subnet_ranges(cfg)
    for key, cidr in subnets:
        if not _net(cidr).subnet_of(vcn):
            problems.append(
                Problem(key, cidr, f"is not inside the VCN {vcn}; pick a range inside it")
            )
    for (key_a, a), (key_b, b) in itertools.combinations(subnets, 2):
        if _net(a).overlaps(_net(b)):
            problems.append(Problem(key_b, b, f"overlaps {key_a} ({a}); pick another range"))
    return problems


def _child_range_checks(cfg: OkeDranetConfig) -> list[Problem]:
    """DRANET's child range: each pod has an on-link route for all of it (the DRANET-on-OKE
    write-up, DRANET docs)."""
    dranet = catalog().oke.dranet
    key = _key("dranet.childCidr")
    child = _net(cfg.child_cidr)
    shown = cfg.child_cidr
    default_note = "" if cfg.dranet.child_cidr else f" (DRANET's default; set {key} to move it)"
    problems: list[Problem] = []
    # Every subnet lies inside the VCN (checked above), so the VCN stands for them all here.
    others = [
        (_vcn_key(cfg), cfg.vcn_cidr, "the VCN"),
        (_key("oke.servicesCidr"), cfg.oke.services_cidr, "the service range"),
        (_OCA, dranet.oca_rdma_cidr, "the RDMA range of Oracle Cloud Agent"),
    ]
    if cfg.oke.effective_pods_cidr:
        others.append((_key("oke.podsCidr"), cfg.oke.effective_pods_cidr, "the pod range"))
    for other_key, cidr, what in others:
        if not child.overlaps(_net(cidr)):
            continue
        # Blame what the user set: a configured child range, else the range that moved into it.
        blame_child = cfg.dranet.child_cidr is not None or other_key == _OCA
        problems.append(
            Problem(
                key if blame_child else other_key,
                shown if blame_child else cidr,
                f"the DRANET child range {shown}{default_note} overlaps {what} {cidr} "
                f"({other_key}); pods route all of the child range to the rails, so pick "
                "ranges that do not overlap",
            )
        )
    workers = _net(cfg.workers_subnet_cidr)
    # A child address is base + rail index x subnet size + host offset: the range holds one
    # copy of the workers subnet per rail (DRANET's OKE provider).
    bits = math.ceil(math.log2(cfg.shape.rail_count))
    longest = workers.prefixlen - bits
    if child.prefixlen > longest:
        problems.append(
            Problem(
                key,
                shown,
                f"too small: {cfg.shape.rail_count} rails need a child prefix {bits} bits shorter "
                f"than the workers subnet {workers}, /{longest} or shorter",
            )
        )
    if not 8 <= child.prefixlen <= 30:
        problems.append(Problem(key, shown, "DRANET takes child prefixes /8 to /30; pick one"))
    return problems


def _claim_checks(cfg: OkeDranetConfig) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[str] = set()
    for i, claim in enumerate(cfg.claims):
        key = _key(f"claims[{i}]")
        try:
            plan_claim(claim, cfg.shape, cfg.gpu_nodes.shape)
        except ValueError as err:
            problems.append(
                Problem(key, claim.model_dump(by_alias=True, exclude_none=True), str(err))
            )
        if claim.name in seen:
            problems.append(
                Problem(f"{key}.name", claim.name, "another claim has this name; rename one")
            )
        seen.add(claim.name)
        if claim.name == RUNTIME_CLAIM and cfg.queues.enabled and cfg.queues.runtime:
            # Both templates are made in the training namespace under that name.
            problems.append(
                Problem(
                    f"{key}.name",
                    claim.name,
                    "is the training runtime's claim template, which the queue makes in the "
                    "training namespace beside the claims; rename the claim",
                )
            )
    problems += _nccl_job_checks(cfg)
    return problems


def _nccl_job_checks(cfg: OkeDranetConfig) -> list[Problem]:
    if not cfg.nccl_tests:
        return []
    problems: list[Problem] = []
    by_name = {c.name: c for c in cfg.claims}
    if isinstance(cfg.nccl_tests, list):
        for i, name in enumerate(cfg.nccl_tests):
            claim = by_name.get(name)
            if claim is None or not (claim.aligned and claim.gpus and claim.rails):
                aligned = [c.name for c in cfg.claims if c.aligned and c.gpus and c.rails]
                problems.append(
                    Problem(
                        _key(f"ncclTests[{i}]"),
                        name,
                        "not an aligned claim of gpu-fabric:claims; name one of: "
                        + ", ".join(aligned),
                    )
                )
    chosen = cfg.nccl_claims
    # The jobs run at once, one worker per node each: if their GPUs add up to more than a node
    # has, the workers can take nodes in an order where no job gets all of its (no gang scheduling).
    if sum(c.gpus for c in chosen) > cfg.shape.gpu_count:
        problems.append(
            Problem(
                _key("ncclTests"),
                cfg.nccl_tests,
                f"the jobs over {', '.join(c.name for c in chosen)} need "
                f"{sum(c.gpus for c in chosen)} GPUs per node at once and a node has "
                f"{cfg.shape.gpu_count}, so they can deadlock; list the claims to run together, "
                "e.g. [aligned-4gpu-8rails-a, aligned-4gpu-8rails-b]",
            )
        )
    if cfg.gpu_nodes.count < 2:
        problems.append(
            Problem(
                _key("ncclTests"),
                True,
                f"the NCCL jobs test the rails between nodes and need 2 GPU nodes, the stack has "
                f"{cfg.gpu_nodes.count}; raise gpu-fabric:gpuNodes.count or remove ncclTests",
            )
        )
    if not any(c.aligned and c.gpus and c.rails for c in cfg.claims):
        problems.append(
            Problem(
                _key("ncclTests"),
                True,
                "the NCCL jobs run over aligned claims, and none is declared; add one to "
                "gpu-fabric:claims (e.g. 8 GPUs and 16 rails) or remove ncclTests",
            )
        )
    return problems


def _capacity_checks(cfg: OkeDranetConfig) -> list[Problem]:
    """An existing VCN's subnets must hold what the stack puts in them (a created VCN's are the
    cloud layer's rules, cloud_rules.py)."""
    existing = cfg.network.existing
    if existing is None:
        return []
    nodes = cfg.gpu_nodes.count + cfg.oke.system_pool.node_count
    wants = [
        (_key("network.existing.workersSubnetCidr"), existing.workers_subnet_cidr, nodes, "nodes")
    ]
    if cfg.oke.cni is Cni.VCN_NATIVE and existing.pods_subnet_cidr:
        wants.append(
            (
                _key("network.existing.podsSubnetCidr"),
                existing.pods_subnet_cidr,
                nodes * cfg.oke.max_pods_per_node,
                f"pod addresses ({nodes} nodes x {cfg.oke.max_pods_per_node} pods)",
            )
        )
    return [
        Problem(
            key,
            cidr,
            f"holds {room} addresses, and the stack needs {count} {what}; pick a larger range",
        )
        for key, cidr, count, what in wants
        if (room := _net(cidr).num_addresses - RESERVED_PER_SUBNET) < count
    ]


def _reachability(cfg: OkeDranetConfig) -> list[Problem]:
    """A stack that applies the fabric layer must reach the API endpoint from where it runs."""
    existing, net = cfg.network.existing, cfg.network
    problems: list[Problem] = []
    if cfg.layers is not Layers.ALL:
        if existing is not None and existing.deploy_path:
            problems.append(deploy_path_without_effect(existing.deploy_path, cfg.layers))
        return problems
    public = cfg.oke.public_endpoint and bool(net.api_allowed_cidrs)
    if existing is not None and (public or existing.deploy_path):
        return problems
    fix = private_endpoint_fix(
        "VCN",
        "an existing VCN with a public API subnet, oke.publicEndpoint: true and "
        "network.apiAllowedCidrs listing the runner's range",
    )
    return [*problems, Problem(_key("layers"), cfg.layers.value, fix)]
