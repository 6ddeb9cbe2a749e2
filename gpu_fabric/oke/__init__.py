"""OKE with DRANET: BM.GPU.B4.8 RDMA nodes, DRA drivers and PCIe-aligned claims."""

from ..platform_spec import PlatformSpec
from . import checks, config

PLATFORM = PlatformSpec(
    models=(config.OkeDranetConfig,),
    rules=checks.cross_field_problems,
    provider_keys=(config.TENANCY_KEY, config.REGION_KEY),
    stack=".oke.gpu_cluster",
    verify="verify.oke",
)
