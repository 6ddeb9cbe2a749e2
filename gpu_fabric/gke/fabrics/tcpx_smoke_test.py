"""The GPUDirect-TCPX smoke test: the two test pods of GKE's GPUDirect-TCPX guide
(`tcpx.smoke_test_manifests`) in a namespace of their own, off by default."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from ...layers import after
from .tcpx import SMOKE_TEST_NAMESPACE, smoke_test_manifests

# pulumi-kubernetes waits for a Pod to be Ready for 10 minutes by default (its
# Pod await logic). The test pods are created once the GPU node pools exist, then wait to be
# scheduled on GPU nodes, for the GPU driver install and for the installer's plugin on the node
# (wait_for_plugin_container) before Ready: give them 30 minutes, as Pulumi resource options.
SMOKE_TEST_POD_TIMEOUTS = pulumi.CustomTimeouts(create="30m", update="30m")


@dataclass(frozen=True)
class TcpxSmokeTestArgs:
    test_image: str
    """Image of the test pods' NCCL container."""
    daemon_image: str
    """Image of the tcpx-daemon sidecar."""
    namespace: str = SMOKE_TEST_NAMESPACE
    """Created here."""
    depends_on: list[pulumi.Resource] = field(default_factory=list)
    """What the pods need running first (installer, Network objects)."""
    wait_for: pulumi.Input[list[str]] | None = None
    """Outputs of another layer the pods wait for as well (the GPU node pools' names)."""


class TcpxSmokeTest(pulumi.ComponentResource):
    """Two GPUDirect-TCPX test pods (the GKE GPUDirect-TCPX guide, "deploy a test workload"), off
    by default."""

    def __init__(
        self, name: str, args: TcpxSmokeTestArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:gke:TcpxSmokeTest", name, None, opts)
        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={"name": args.namespace},
            opts=pulumi.ResourceOptions(parent=self),
        )
        manifests = smoke_test_manifests(args.test_image, args.daemon_image)

        def metadata_of(manifest: dict) -> k8s.meta.v1.ObjectMetaArgsDict:
            return {**manifest["metadata"], "namespace": args.namespace}

        # The pods mount the all-gather scripts' ConfigMap: it comes first, after the namespace.
        (scripts,) = [m for m in manifests if m["kind"] == "ConfigMap"]
        config_map = k8s.core.v1.ConfigMap(
            f"{name}-{scripts['metadata']['name']}",
            metadata=metadata_of(scripts),
            data=scripts["data"],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[namespace]),
        )
        # Children do not inherit a component's depends_on, so each pod and service gets it.
        # Deleted before they are replaced: a new pod needs the GPUs the old one holds, and
        # pulumi-kubernetes deletes first on its own only when name and namespace stay the same.
        child = pulumi.ResourceOptions(
            parent=self,
            depends_on=[*args.depends_on, namespace, config_map],
            delete_before_replace=True,
        )
        for manifest in (m for m in manifests if m is not scripts):
            spec = after(manifest["spec"], args.wait_for) if args.wait_for else manifest["spec"]
            child_name = f"{name}-{manifest['metadata']['name']}"
            if manifest["kind"] == "Service":
                k8s.core.v1.Service(
                    child_name, metadata=metadata_of(manifest), spec=spec, opts=child
                )
            else:
                pod_opts = pulumi.ResourceOptions(custom_timeouts=SMOKE_TEST_POD_TIMEOUTS)
                k8s.core.v1.Pod(
                    child_name,
                    metadata=metadata_of(manifest),
                    spec=spec,
                    opts=pulumi.ResourceOptions.merge(child, pod_opts),
                )
        self.register_outputs({})
