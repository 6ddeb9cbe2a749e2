"""ACK Lingjun: an ACK Pro cluster with Lingjun nodes and the RDMA device plugin.

The preset (`ack_lingjun`, with `ExistingVswitch`; gpu_fabric/presets/ack.py) is importable from
here, loaded when first named: the platform spec below is read without the Alibaba Cloud SDK.
"""

from ..platform_spec import GpuHardware, PlatformSpec, lazy_attributes
from . import checks, config

PRESETS = ("ack_lingjun", "ExistingVswitch")

# Named, not imported: a preset validates through the stack config, which reads every platform's
# spec from here (`registry.py`), so the presets sit above the platforms (gpu_fabric/presets/).
__getattr__ = lazy_attributes(__name__, "gpu_fabric.presets.ack", PRESETS)


def _hardware(cfg: config.AckLingjunConfig) -> GpuHardware:
    """The platform is the fabric: the Lingjun machine is not in the catalog."""
    return GpuHardware(str(getattr(cfg.platform, "value", cfg.platform)), None, None)


PLATFORM = PlatformSpec(
    models=(config.AckLingjunConfig,),
    rules=checks.cross_field_problems,
    provider_keys=(config.REGION_KEY,),
    hardware=_hardware,
    cloud="alicloud",
    sdk="pulumi_alicloud",
    sdk_requirement="pulumi-alicloud>=4.0.0,<5",
    credential_keys=("alicloud:accessKey", "alicloud:secretKey", "alicloud:securityToken"),
)
