"""GKE's in-cluster fabric layer: Network objects, the NCCL installer, the fabric's extras and the
training queue.

It takes a Kubernetes provider and plain values; it creates nothing in GCP. What waits for what:
the Network objects wait for their CRD gate (the CRDs served); the installer DaemonSet and the NRI
device injector wait for the provider only, or, when their rollout is awaited, for the GPU node
pools too; the StorageClass waits for the provider only; the optional TCPX smoke test waits
for the installer, the Network objects and the GPU node pools it is given; the training queue
waits for the provider only (`gpu_fabric/workloads/queues.py`).
"""

from operator import itemgetter

import pulumi

from ..catalog import catalog
from ..durations import seconds_of
from ..health.component import NodeHealth, NodeHealthArgs
from ..layers import child_options, declared_outputs, layer_token
from ..storage.component import TrainingVolumes, TrainingVolumesArgs
from ..workloads.queues import TrainingQueue, TrainingQueueArgs
from .fabric_args import GkeFabricArgs
from .fabrics.nccl_installer import (
    NcclInstaller,
    NcclInstallerArgs,
    NriDeviceInjector,
    NriDeviceInjectorArgs,
    installer_file,
    quiet_martians_of,
)
from .fabrics.network_objects import DeviceNetwork, NetworkObjects, NetworkObjectsArgs
from .fabrics.nvlink import NvlinkDomains, NvlinkDomainsArgs
from .fabrics.tcpx_smoke_test import TcpxSmokeTest, TcpxSmokeTestArgs
from .inputs import FABRIC_INPUTS
from .storage import HyperdiskStorage, HyperdiskStorageArgs
from .usable_nodes import needs_of, usable_gpu_nodes


class GkeFabric(pulumi.ComponentResource):
    """GKE's fabric layer: Network objects, NCCL installer, NRI injector, storage, tests."""

    network_objects: pulumi.Output[list[str]]
    """The Network objects' names, in NIC order (what pods name in their annotations)."""
    installer: pulumi.Output[str]
    """The installer DaemonSet's name ('' when something else owns it)."""

    def __init__(
        self, name: str, args: GkeFabricArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        args = FABRIC_INPUTS.checked(GkeFabricArgs, name, args)
        super().__init__(layer_token(GkeFabric), name, None, opts)
        machine = catalog().machines[args["machine_type"]]
        on_cluster = child_options(self, opts, [args["kubernetes_provider"]])

        names = args["network_object_names"]
        modes = [g.device_mode.value for g in machine.nic_groups for _ in range(g.count)]
        nic_networks = pulumi.Output.from_input(args["nic_networks"])
        gpu_subnets = pulumi.Output.from_input(args["gpu_subnets"])
        network_objects = NetworkObjects(
            f"{name}-networks",
            NetworkObjectsArgs(
                networks=[
                    DeviceNetwork(
                        object_name,
                        nic_networks.apply(itemgetter(i)),
                        gpu_subnets.apply(itemgetter(i)),
                        mode,
                    )
                    for i, (object_name, mode) in enumerate(zip(names, modes, strict=True))
                ],
                kubeconfig=args["kubeconfig"],
                cluster_id=args["cluster_id"],
            ),
            on_cluster,
        )

        installer = None
        installed: list[pulumi.Resource] = []
        if "installer" in args:
            upstream = installer_file(machine)
            awaited = args["installer"]["await_rollout"]
            retained = args["installer"].get("retain_on_delete", False)
            # An awaited DaemonSet created before its nodes counts 0 pods and is done at once:
            # awaited, it waits for the GPU node pools (the cloud layer's outputs).
            pools = args.get("gpu_node_pools") if awaited else None
            installer = NcclInstaller(
                f"{name}-{upstream.stem}",
                NcclInstallerArgs(
                    upstream,
                    args["installer"]["image"],
                    args["installer"]["pause_image"],
                    await_rollout=awaited,
                    wait_for=pools,
                    retain_on_delete=retained,
                    quiet_martians=quiet_martians_of(machine),
                ),
                on_cluster,
            )
            installed.append(installer.daemon_set)
            if "nri_device_injector_image" in args:
                # The tcpxo-daemon gets its GPU devices from the NRI device injector (upstream
                # README): it belongs with the installer.
                injector = NriDeviceInjector(
                    f"{name}-nri-device-injector",
                    NriDeviceInjectorArgs(
                        args["nri_device_injector_image"],
                        awaited,
                        wait_for=pools,
                        retain_on_delete=retained,
                    ),
                    on_cluster,
                )
                installed.append(injector.daemon_set)
        # The NVLink driver goes in beside the nodes (its DaemonSet's pods come with them); the
        # usable wait checks that its kubelet plugin publishes each node's devices.
        runtime_after: list[pulumi.Resource] = []
        guarded: list[pulumi.Input[object]] = [args.get("installer", {}).get("image", "")]
        if "nri_device_injector_image" in args:
            guarded.append(args["nri_device_injector_image"])
        if "nvlink_driver_version" in args:
            nvlink = NvlinkDomains(
                f"{name}-nvlink",
                NvlinkDomainsArgs(
                    catalog().nvidia_dra_driver.at(args["nvlink_driver_version"]),
                    machine.accelerator.type,
                ),
                on_cluster,
            )
            installed.append(nvlink.release)
            runtime_after.append(nvlink.release)
            guarded.append(args["nvlink_driver_version"])
        usable: list[pulumi.Resource] = []
        if args.get("gpu_node_count") and "gpu_node_pools" in args:
            timeout = args.get("node_wait_timeout")
            wait = usable_gpu_nodes(
                f"{name}-gpu-nodes-usable",
                args["kubeconfig"],
                args["cluster_id"],
                args["gpu_node_pools"],
                args.get("gpu_node_pool_instance_groups", []),
                args["gpu_node_count"],
                needs_of(
                    machine,
                    names,
                    compute_domains="nvlink_driver_version" in args,
                    topology_levels=args.get("training_queue", {}).get("topology_levels", []),
                ),
                installed,
                guarded,
                on_cluster,
                **({"timeout_seconds": seconds_of(timeout)} if timeout else {}),
            )
            usable.append(wait.command)
        if "smoke_test" in args:
            TcpxSmokeTest(
                f"{name}-nccl-test",
                TcpxSmokeTestArgs(
                    test_image=args["smoke_test"]["test_image"],
                    daemon_image=args["smoke_test"]["daemon_image"],
                    depends_on=[r for r in (installer, network_objects) if r is not None],
                    wait_for=args.get("gpu_node_pools"),
                ),
                on_cluster,
            )
        if "hyperdisk_storage_class" in args:
            storage = args["hyperdisk_storage_class"]
            HyperdiskStorage(
                f"{name}-hyperdisk",
                HyperdiskStorageArgs(storage["name"], storage["is_default"]),
                on_cluster,
            )
        if "training_queue" in args:
            queue = TrainingQueue(
                f"{name}-training-queue",
                TrainingQueueArgs(
                    args["training_queue"],
                    args["kubeconfig"],
                    args["cluster_id"],
                    runtime_after=runtime_after,
                    # A4X's stacks had the earlier runtime component; an alias matches only what a
                    # stack's state holds, so elsewhere it is a no-op (no platform compared).
                    runtime_aliases=[_earlier_runtime(self, name)],
                ),
                on_cluster,
            )
            if args.get("training_volumes"):
                TrainingVolumes(
                    f"{name}-training-volumes",
                    TrainingVolumesArgs.of(args["training_volumes"], queue),
                    on_cluster,
                )

        if "health" in args:
            NodeHealth(f"{name}-health", NodeHealthArgs(args["health"]), on_cluster)

        self.network_objects = pulumi.Output.from_input(network_objects.network_names)
        self.installer = pulumi.Output.from_input(
            installer.daemon_set.metadata.name if installer else ""
        )
        self.register_outputs(declared_outputs(self))


def _earlier_runtime(fabric: GkeFabric, name: str) -> pulumi.Alias:
    """Where A4X's `torch-distributed-rdma` runtime was before the training queue made every
    fabric's: its own component (`gpu-fabric:gke:TrainingRuntime`, `gpu-fabric:trainingRuntime:
    true`), so a stack that had it keeps its object instead of creating it again beside it."""
    earlier = f"{name}-torch-distributed-rdma"
    component = pulumi.create_urn(earlier, "gpu-fabric:gke:TrainingRuntime", parent=fabric)
    return pulumi.Alias(name=earlier, parent=component)
