"""GKE: A3 High (TCPX), A3 Mega (TCPXO), A3 Ultra, A4 and A4X (gIB)."""

from ..platform_spec import PlatformSpec
from . import checks, config

PLATFORM = PlatformSpec(
    models=(
        config.GkeA3HighConfig,
        config.GkeA4xConfig,
        config.GkeA3MegaConfig,
        config.GkeRdmaConfig,
    ),
    rules=checks.cross_field_problems,
    provider_keys=(config.GCP_PROJECT_KEY,),
    stack=".gke.gpu_cluster",
    verify="verify.gke",
)
