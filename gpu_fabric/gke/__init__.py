"""GKE: A3 High (TCPX), A3 Mega (TCPXO), A3 Ultra, A4 and A4X (gIB).

The machine presets (`a3_high`, `a3_mega`, `a3_ultra`, `a4`, `a4x`; gpu_fabric/presets/gke.py) are
importable from here, loaded when first named: the platform spec below is read without the GKE SDK.
"""

from ..platform_spec import GpuHardware, PlatformSpec, lazy_attributes
from . import checks, config

PRESETS = ("a3_high", "a3_mega", "a3_ultra", "a4", "a4x", "preset", "PrimaryRanges")

# Named, not imported: a preset validates through the stack config, which reads every platform's
# spec from here (`registry.py`), so the presets sit above the platforms (gpu_fabric/presets/).
__getattr__ = lazy_attributes(__name__, "gpu_fabric.presets.gke", PRESETS)


def _hardware(cfg: config.GkeStackConfig) -> GpuHardware:
    """A machine type of the catalog, with its fabric."""
    machine = cfg.machine
    return GpuHardware(machine.fabric, cfg.pool.machine_type, machine.accelerator.count)


PLATFORM = PlatformSpec(
    models=(
        config.GkeA3HighConfig,
        config.GkeA4xConfig,
        config.GkeA3MegaConfig,
        config.GkeRdmaConfig,
    ),
    rules=checks.cross_field_problems,
    provider_keys=(config.GCP_PROJECT_KEY,),
    hardware=_hardware,
    cloud="gcp",
    sdk="pulumi_gcp",
    sdk_requirement="pulumi-gcp>=10.2.0,<11",
    credential_keys=("gcp:credentials", "gcp:accessToken"),
    # The Google provider takes the key file's path or its JSON contents (pulumi-gcp
    # `credentials`: "Either the path to or the contents of a service account key file").
    credential_path_keys=("gcp:credentials",),
)
