"""DRA claims from the node topology: the claim builder and the pod-spec wiring (the
DRANET-on-OKE write-up).

A claim shape (GPUs and rails per pod, aligned or not) becomes a `ResourceClaimTemplate`. An aligned
shape gets one GPU request and one rail request per PCIe root it spreads over, with a
`matchAttribute: resource.kubernetes.io/pcieRoot` constraint on each pair, as the write-up's
`aligned-8gpu-16rails` and `aligned-4gpu-8rails-a`; the scheduler then puts every GPU next to its
rails. A shape no node can satisfy (the write-up's `shape-root`: 4 GPUs and 16 rails on one root) is
refused here, at plan time, instead of leaving the pod Pending.
"""

from __future__ import annotations

import copy

import pulumi
import pulumi_kubernetes as k8s

from ...catalog import catalog
from ...nvidia import GPU_DEVICE_CLASS, GPU_TOLERATION
from ...pod_spec import add_claim, add_items, add_named, container_named, set_fields
from .plan import ClaimPlan

DRA_API_VERSION = "resource.k8s.io/v1"
RAIL_DEVICE_CLASS = "dra.net"
RAIL_DRIVER = "dra.net"
"""DRANET's driver name: its ResourceSlices' `spec.driver` and its devices' attribute domain."""
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"
# The DRANET-on-OKE write-up: DRANET also publishes the front-end NIC and virtual interfaces;
# only rdmaN are rails.
RAIL_SELECTOR = (
    'has(device.attributes["dra.net"].ifName) && '
    'device.attributes["dra.net"].ifName.startsWith("rdma") && device.attributes["dra.net"].rdma'
)
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
# The write-up's GPU nodes are tainted for GPU pods only; every test pod there tolerates this.


def _request(name: str, device_class: str, count: int) -> dict:
    exactly: dict = {"deviceClassName": device_class, "count": count}
    if device_class == RAIL_DEVICE_CLASS:
        exactly["selectors"] = [{"cel": {"expression": RAIL_SELECTOR}}]
    return {"name": name, "exactly": exactly}


def claim_devices(plan: ClaimPlan) -> dict:
    """The `spec.devices` of a claim (a template's `spec.spec.devices`)."""
    if not plan.aligned:
        requests = []
        if plan.gpus:
            requests.append(_request("gpus", GPU_DEVICE_CLASS, plan.gpus))
        if plan.rails:
            requests.append(_request("rails", RAIL_DEVICE_CLASS, plan.rails))
        return {"requests": requests}
    requests, constraints = [], []
    for pair in range(1, plan.roots + 1):
        requests += [
            _request(f"gpus-{pair}", GPU_DEVICE_CLASS, plan.gpus // plan.roots),
            _request(f"rails-{pair}", RAIL_DEVICE_CLASS, plan.rails // plan.roots),
        ]
        constraints.append(
            {"requests": [f"gpus-{pair}", f"rails-{pair}"], "matchAttribute": PCIE_ROOT}
        )
    return {"requests": requests, "constraints": constraints}


def claim_template(plan: ClaimPlan, namespace: pulumi.Input[str]) -> dict:
    """The `ResourceClaimTemplate` of a claim shape."""
    return {
        "apiVersion": DRA_API_VERSION,
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": plan.name, "namespace": namespace},
        "spec": {"spec": {"devices": claim_devices(plan)}},
    }


def with_dra_claim(
    pod_template: dict,
    claim_template_name: str,
    shape_name: str,
    claim: str = "gpus-rails",
    container: str | None = None,
    nccl_env: bool = True,
) -> dict:
    """Return a copy of a pod template (`{metadata, spec}`) that gets its devices from a claim.

    Adds `spec.resourceClaims` from `claim_template_name`, the claim to `container` (default: the
    first), the node selector on the GPU shape and the GPU toleration, as the DRANET-on-OKE
    write-up's MPIJob workers have them, and (`nccl_env`) NCCL's settings for the shape's RoCE
    rails in the container's env (catalog `oci_shapes.<shape>.nccl_env`: traffic class 41,
    timeout 22, 4 QPs per connection), which the write-up's runs pass to every rank. No
    privilege, capability or device-plugin resource is needed there. Raises ValueError rather
    than overwrite something the template already sets differently.
    """
    template = copy.deepcopy(pod_template)
    spec = template.setdefault("spec", {})
    target = container_named(spec, container)
    set_fields(
        spec.setdefault("nodeSelector", {}), {INSTANCE_TYPE_LABEL: shape_name}, "node selector"
    )
    add_items(spec.setdefault("tolerations", []), [GPU_TOLERATION])
    add_claim(spec, target, claim, claim_template_name)
    if nccl_env:
        env = catalog().oci_shapes[shape_name].nccl_env
        add_named(
            target.setdefault("env", []),
            [{"name": name, "value": value} for name, value in env.items()],
            f"container {target['name']}'s env",
        )
    return template


class ClaimTemplates(pulumi.ComponentResource):
    """One `ResourceClaimTemplate` per claim shape of the stack, in `namespace` (the RDMA one, and
    the training one)."""

    templates: dict[str, k8s.resource.v1.ResourceClaimTemplate]
    """By claim name."""

    def __init__(
        self,
        name: str,
        plans: list[ClaimPlan],
        namespace: pulumi.Input[str],
        opts: pulumi.ResourceOptions | None = None,
        after: list[pulumi.Resource] | None = None,
    ):
        """`after`: what the templates wait for (the GPU nodes' devices: a claim of a template
        made before them is pending with nothing to allocate)."""
        super().__init__("gpu-fabric:oke:ClaimTemplates", name, None, opts)
        self.templates = {}
        for plan in plans:
            manifest = claim_template(plan, namespace)
            self.templates[plan.name] = k8s.resource.v1.ResourceClaimTemplate(
                f"{name}-{plan.name}",
                metadata=manifest["metadata"],
                spec=manifest["spec"],
                opts=pulumi.ResourceOptions(parent=self, depends_on=after or []),
            )
        self.register_outputs({})
