"""ACK Lingjun: an ACK Pro cluster with Lingjun nodes and the RDMA device plugin."""

from ..platform_spec import PlatformSpec
from . import checks, config

PLATFORM = PlatformSpec(
    models=(config.AckLingjunConfig,),
    rules=checks.cross_field_problems,
    provider_keys=(config.REGION_KEY,),
    stack=".ack.gpu_cluster",
    verify="verify.ack",
)
