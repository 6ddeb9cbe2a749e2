"""OKE with DRANET: BM.GPU.B4.8 RDMA nodes, DRA drivers and PCIe-aligned claims.

The preset (`oke_dranet`; gpu_fabric/presets/oke.py) is importable from here, loaded when first
named: the platform spec below is read without the OCI SDK.
"""

from ..platform_spec import GpuHardware, PlatformSpec, lazy_attributes
from . import checks, config

PRESETS = ("oke_dranet",)

# Named, not imported: a preset validates through the stack config, which reads every platform's
# spec from here (`registry.py`), so the presets sit above the platforms (gpu_fabric/presets/).
__getattr__ = lazy_attributes(__name__, "gpu_fabric.presets.oke", PRESETS)


def _hardware(cfg: config.OkeDranetConfig) -> GpuHardware:
    """An OCI shape of the catalog; its `platform` is the fabric."""
    return GpuHardware(cfg.shape.platform, cfg.gpu_nodes.shape, cfg.shape.gpu_count)


PLATFORM = PlatformSpec(
    models=(config.OkeDranetConfig,),
    rules=checks.cross_field_problems,
    provider_keys=(config.TENANCY_KEY, config.REGION_KEY),
    hardware=_hardware,
    cloud="oci",
    sdk="pulumi_oci",
    sdk_requirement="pulumi-oci>=5.5.0,<6",
    credential_keys=("oci:privateKey", "oci:privateKeyPassword"),
)
