"""Each platform's `make verify` parts, by its package's name (`PlatformSpec.package`): the check
of a deployed fabric (`expected_from(cfg)`, `read_snapshot(expected, api_client)`, `check(...)`)
and the bandwidth benchmarks (`BUILDERS`: fabric -> builder; `MIN_NODES`). They live here, beside
the checks, and not in the package's platform specs: the wheel holds no `verify/`."""

from __future__ import annotations

from types import ModuleType

from gpu_fabric.platform_spec import PlatformSpec

from . import ack, ack_bandwidth, gke, gke_bandwidth, oke, oke_bandwidth

CHECKS: dict[str, ModuleType] = {"gke": gke, "oke": oke, "ack": ack}
BENCHMARKS: dict[str, ModuleType] = {
    "gke": gke_bandwidth,
    "oke": oke_bandwidth,
    "ack": ack_bandwidth,
}


def checks_of(spec: PlatformSpec) -> ModuleType:
    """The platform's check of a deployed fabric."""
    return CHECKS[spec.package]


def benchmarks_of(spec: PlatformSpec) -> ModuleType:
    """The platform's bandwidth benchmarks."""
    return BENCHMARKS[spec.package]
