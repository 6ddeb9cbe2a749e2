"""Secure by default, for every Kubernetes object this package renders (docs/security.md).

`make scan` runs checkov (pinned in requirements-scan.txt) over every object of every stack. Each
finding is either fixed where the object is rendered, or waived in the object itself with
checkov's own suppression, a `checkov.io/skipN: CHECK=reason` annotation (checkov docs,
"Suppressing and Skipping Policies", Kubernetes). Every waiver is made here, from the tables
below, and carries its reason; docs/security.md lists them.

Two kinds of objects:

- **Upstream's** (the NCCL installers and the NRI device injector): their shape stays as upstream
  wrote it. `waive_upstream` annotates the DaemonSet with the checks that upstream's privileged,
  host-level design fails, naming the upstream manifest.
- **This package's own** (the TCPX smoke-test pods, the benchmark Jobs and pods of `make verify
  BANDWIDTH=1`, the OKE MPIJobs, the ACK Job, the Kubeflow training runtime): `secure_pod` gives
  every container CPU and memory requests and a memory limit (`SIZES`), `allowPrivilegeEscalation:
  false` and all capabilities dropped but the ones the fabric names, and the pod no service
  account token. `waive` then names what the fabric still needs (host network, a privileged TCPX
  daemon, IPC_LOCK, root, no CPU limit, no seccomp profile), each with its reason.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

SKIP = "checkov.io/skip"
"""checkov's suppression annotation prefix: `checkov.io/skip1`, `checkov.io/skip2`, ..."""

# --- reasons ------------------------------------------------------------------------------------

PROBES = "a run-to-completion test serves nothing a probe could ask"
ROOT_FS = (
    "the NCCL test images write outside their volumes (nccl-tests' scripts, sshd's keys and "
    "run directory), so the root filesystem stays writable"
)
ROOT_USER = (
    "the NCCL test images run as root: sshd for MPI and the RDMA devices' memory registration "
    "need it (upstream's test pods and the source documents' jobs run them so)"
)
NO_DIGEST = (
    "pinned by the tag its publisher documents (the catalog); give the image as "
    "REPOSITORY:TAG@sha256:DIGEST in gpu-fabric:images to pin it by digest"
)
NETWORK_POLICY_HOST = (
    "the pods use the host network, where a NetworkPolicy does not apply (Kubernetes docs, "
    "Network Policies: host-network pods are out of scope)"
)
NETWORK_POLICY_FABRIC = (
    "NCCL's bootstrap and data paths go between the test pods over the GPU NICs and RDMA, which a "
    "NetworkPolicy does not govern; the pods live for one run in a namespace of their own"
)


def upstream_reasons(source: str) -> dict[str, str]:
    """Why upstream's privileged node agents (installers, injector) fail each check."""
    privileged = f"privileged, as {source}: it writes into the node's /home/kubernetes/bin"
    return {
        "CKV_K8S_8": f"no probes, as {source}: a one-shot init container and a pause container",
        "CKV_K8S_9": f"no probes, as {source}: a one-shot init container and a pause container",
        "CKV_K8S_10": f"resources as {source}",
        "CKV_K8S_11": f"resources as {source}",
        "CKV_K8S_12": f"resources as {source}",
        "CKV_K8S_13": f"resources as {source}",
        "CKV_K8S_14": f"image as {source} (its pre-installation step)",
        "CKV_K8S_15": f"pull policy as {source}",
        "CKV_K8S_16": privileged,
        "CKV_K8S_17": f"hostPID, as {source}",
        "CKV_K8S_19": f"hostNetwork, as {source}",
        "CKV_K8S_20": privileged,
        "CKV_K8S_22": f"{privileged} (host paths); its root filesystem as upstream",
        "CKV_K8S_23": f"root, as {source}: the host paths it writes are root's",
        "CKV_K8S_28": privileged,
        "CKV_K8S_29": f"security context as {source} (privileged)",
        "CKV_K8S_30": f"security context as {source} (privileged)",
        "CKV_K8S_31": f"seccomp as {source}: a privileged container runs unconfined",
        "CKV_K8S_37": privileged,
        "CKV_K8S_38": f"service account as {source} (the namespace default, no role bound)",
        "CKV_K8S_40": f"root, as {source}: the host paths it writes are root's",
        "CKV_K8S_43": f"pinned by tag, as {source}; {NO_DIGEST}",
        "CKV2_K8S_6": f"host network, as {source}: {NETWORK_POLICY_HOST}",
    }


UPSTREAM_SOURCES = {
    "nccl-tcpx-installer": "container-engine-accelerators gpudirect-tcpx/nccl-tcpx-installer.yaml",
    "nccl-tcpxo-installer": (
        "container-engine-accelerators gpudirect-tcpxo/nccl-tcpxo-installer.yaml"
    ),
    "nccl-rdma-installer": "container-engine-accelerators gpudirect-rdma/nccl-rdma-installer.yaml",
    "device-injector": "container-engine-accelerators nri_device_injector/nri-device-injector.yaml",
}
"""The upstream DaemonSets this package applies, by name, and the manifest each comes from."""

UPSTREAM_WAIVED = {
    "nccl-tcpx-installer": {
        *("CKV_K8S_8", "CKV_K8S_9", "CKV_K8S_10", "CKV_K8S_11", "CKV_K8S_12", "CKV_K8S_13"),
        *("CKV_K8S_15", "CKV_K8S_16", "CKV_K8S_17", "CKV_K8S_19", "CKV_K8S_20", "CKV_K8S_22"),
        *("CKV_K8S_23", "CKV_K8S_28", "CKV_K8S_29", "CKV_K8S_30", "CKV_K8S_31", "CKV_K8S_37"),
        *("CKV_K8S_38", "CKV_K8S_40", "CKV_K8S_43", "CKV2_K8S_6"),
    },
}
UPSTREAM_WAIVED["nccl-rdma-installer"] = UPSTREAM_WAIVED["nccl-tcpx-installer"]
UPSTREAM_WAIVED["nccl-tcpxo-installer"] = UPSTREAM_WAIVED["nccl-tcpx-installer"] | {"CKV_K8S_14"}
UPSTREAM_WAIVED["device-injector"] = UPSTREAM_WAIVED["nccl-tcpx-installer"] - {
    *("CKV_K8S_10", "CKV_K8S_15", "CKV_K8S_30", "CKV_K8S_43")
}
"""The checks each upstream DaemonSet fails as upstream wrote it (checkov 3.3.30)."""


# --- annotations --------------------------------------------------------------------------------


def _digest_pinned(pod_spec: Mapping) -> bool:
    containers = [*pod_spec.get("initContainers", []), *pod_spec.get("containers", [])]
    return all("@sha256:" in c.get("image", "") for c in containers)


def waive(manifest: dict, reasons: Mapping[str, str]) -> dict:
    """A copy of `manifest` with one `checkov.io/skipN: CHECK=reason` annotation per check.

    Numbered in check order; annotations the manifest already has are kept (a rendered object
    is waived once, here)."""
    out = copy.deepcopy(manifest)
    annotations = out.setdefault("metadata", {}).setdefault("annotations", {})
    if any(key.startswith(SKIP) for key in annotations):
        raise ValueError(f"{manifest['metadata'].get('name')}: already waived")
    for n, check in enumerate(sorted(reasons, key=_check_order), start=1):
        annotations[f"{SKIP}{n}"] = f"{check}={reasons[check]}"
    return out


def _check_order(check: str) -> tuple[str, int]:
    prefix, _, number = check.rpartition("_")
    return prefix, int(number)


def waivers(manifest: Mapping) -> dict[str, str]:
    """The checks an object waives, with their reasons (from its annotations)."""
    annotations = manifest.get("metadata", {}).get("annotations") or {}
    return dict(value.split("=", 1) for key, value in annotations.items() if key.startswith(SKIP))


def without_waivers(manifest: Mapping) -> dict:
    """A copy of `manifest` without its checkov waivers (what upstream or a source wrote)."""
    out = copy.deepcopy(dict(manifest))
    annotations = {
        k: v for k, v in out["metadata"].get("annotations", {}).items() if not k.startswith(SKIP)
    }
    out["metadata"] = {**out["metadata"], "annotations": annotations}
    if not annotations:
        del out["metadata"]["annotations"]
    return out


def waive_upstream(manifest: dict) -> dict:
    """Upstream's DaemonSet `manifest`, annotated with the checks its design fails and why."""
    name = manifest["metadata"]["name"]
    reasons = upstream_reasons(UPSTREAM_SOURCES[name])
    checks = set(UPSTREAM_WAIVED[name])
    if _digest_pinned(manifest["spec"]["template"]["spec"]):
        checks.discard("CKV_K8S_43")
    return waive(manifest, {check: reasons[check] for check in checks})


# --- this package's own pods --------------------------------------------------------------------

SIZES: dict[str, dict[str, dict[str, str]]] = {
    # The main container of a test on a whole GPU node (nccl-tests, the ACK benchmark): requests
    # a scheduler can place beside the system pods, and a memory limit far below the smallest GPU
    # machine here (a4x-highgpu-4g: 884 GB) and far above what nccl-tests holds in host memory
    # (its buffers are on the GPUs). Estimates, not from a source. No CPU limit (CPU_LIMIT).
    "test": {"requests": {"cpu": "4", "memory": "16Gi"}, "limits": {"memory": "256Gi"}},
    # The TCPX/TCPXO receive daemons beside a test (estimates, as above; no CPU limit).
    "daemon": {"requests": {"cpu": "2", "memory": "4Gi"}, "limits": {"memory": "32Gi"}},
    # An MPI launcher or a wait-for-the-plugin init container: a shell and mpirun.
    "small": {
        "requests": {"cpu": "250m", "memory": "256Mi"},
        "limits": {"cpu": "1", "memory": "1Gi"},
    },
    # A job that takes a whole GPU node and whose host memory use is its own (the ACK benchmark):
    # requests only, no limit (the caller gives the reason).
    "whole-node": {"requests": {"cpu": "4", "memory": "16Gi"}, "limits": {}},
    # What a pod of the training runtime gets: nothing (RUNTIME_REASONS, resources).
    "none": {"requests": {}, "limits": {}},
}

CPU_LIMIT = (
    "no CPU limit: a CFS quota throttles NCCL's proxy and network threads and the receive "
    "daemons, and the test is alone on its GPU node (upstream's test pods set none); the CPU "
    "request is set"
)
# containerd's RuntimeDefault profile (contrib/seccomp/seccomp_default.go) has neither mbind,
# set_mempolicy nor get_mempolicy in its allow-list, and no capability adds them: they fail with
# EPERM under it, whatever the container's capabilities.
SECCOMP = (
    "no seccomp profile, as upstream's test pods: NCCL, MPI and the CUDA driver bind memory to "
    "NUMA nodes (mbind, set_mempolicy, get_mempolicy), which containerd's default profile does "
    "not admit (UNVERIFIED on a cluster which of them a run makes)"
)
DEFAULT_CAPABILITIES = (
    "keeps the container runtime's default capabilities but NET_RAW: the NCCL test images start "
    "sshd for mpirun (privilege separation needs SETUID, SETGID and SYS_CHROOT), and upstream's "
    "TCPXO daemon runs with the defaults (UNVERIFIED that it needs none but NET_ADMIN and "
    "NET_BIND_SERVICE)"
)
RUNTIME_REASONS = {
    "CKV_K8S_8": "a training job runs to completion: nothing to probe",
    "CKV_K8S_9": "a training job runs to completion: nothing to probe",
    **dict.fromkeys(
        ("CKV_K8S_10", "CKV_K8S_11", "CKV_K8S_12", "CKV_K8S_13"),
        "a runtime is the template of every TrainJob that names it: their requests and limits "
        "are the TrainJob's (`spec.trainer.resourcesPerNode`, Kubeflow Trainer)",
    ),
    "CKV_K8S_22": "the TrainJob's image decides whether its root filesystem can be read-only",
    "CKV_K8S_23": "the TrainJob's image decides its user",
    "CKV_K8S_40": "the TrainJob's image decides its user",
    "CKV2_K8S_6": "the pods run in the TrainJob's namespace, whose NetworkPolicies are its own",
}
"""The training runtime's reasons, where a test pod's do not fit (it runs users' jobs)."""


def secure_pod(
    spec: dict,
    sizes: Mapping[str, str] | None = None,
    default_capabilities: Iterable[str] = (),
    default_size: str = "test",
) -> dict:
    """A copy of pod `spec` with the secure defaults.

    `sizes` maps a container name to a SIZES key (others: `default_size`). Containers named in
    `default_capabilities` drop only NET_RAW; the others drop ALL. What the spec already sets is
    kept: privileged containers keep their privilege, added capabilities stay added. No seccomp
    profile is set (SECCOMP).
    """
    out = copy.deepcopy(spec)
    out.setdefault("automountServiceAccountToken", False)
    keep = set(default_capabilities)
    for container in [*out.get("initContainers", []), *out.get("containers", [])]:
        size = SIZES[(sizes or {}).get(container["name"], default_size)]
        for kind in ("requests", "limits"):
            for resource, quantity in size[kind].items():
                resources = container.setdefault("resources", {})
                resources.setdefault(kind, {}).setdefault(resource, quantity)
        container.setdefault("imagePullPolicy", "Always")
        security = container.setdefault("securityContext", {})
        if not security.get("privileged"):
            security.setdefault("allowPrivilegeEscalation", False)
            drop = ["NET_RAW"] if container["name"] in keep else ["ALL"]
            security.setdefault("capabilities", {}).setdefault("drop", drop)
    return out


_RESOURCE_CHECKS = {
    ("requests", "cpu"): "CKV_K8S_10",
    ("limits", "cpu"): "CKV_K8S_11",
    ("requests", "memory"): "CKV_K8S_12",
    ("limits", "memory"): "CKV_K8S_13",
}


def _fails_resource_check(container: Mapping, kind: str, resource: str) -> bool:
    """Whether checkov's check of `kind`.`resource` fails on the container. Its requests checks
    (CPURequests, MemoryRequests in checkov/kubernetes/checks/resource/k8s) give no result, not a
    failure, for a container whose `resources` has no `requests` (a DRA claim or device-plugin
    limits only), and a waiver of a check that passes is refused (`make scan`)."""
    resources = container.get("resources") or {}
    if kind == "requests" and resources and not isinstance(resources.get("requests"), dict):
        return False
    return resource not in resources.get(kind, {})


def pod_reasons(
    pod_spec: Mapping,
    host_network: str | None = None,
    privileged: str | None = None,
    reasons: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The waivers a secured pod needs: probes, root, a writable root filesystem, no seccomp
    profile, and what its spec says (added or default capabilities, images without a digest,
    resources not set, the host network, a privileged sidecar). `reasons` replaces the default
    reason of a check (and gives the one of a resource left unset on purpose, but a CPU limit's);
    the caller gives the reasons for the host network and a privileged container."""
    given = dict(reasons or {})
    found = {
        "CKV_K8S_8": PROBES,
        "CKV_K8S_9": PROBES,
        "CKV_K8S_22": ROOT_FS,
        "CKV_K8S_23": ROOT_USER,
        "CKV_K8S_29": SECCOMP,
        "CKV_K8S_31": SECCOMP,
        "CKV_K8S_40": ROOT_USER,
        "CKV2_K8S_6": NETWORK_POLICY_FABRIC,
    }
    containers = [*pod_spec.get("initContainers", []), *pod_spec.get("containers", [])]
    for (kind, resource), check in _RESOURCE_CHECKS.items():
        if any(_fails_resource_check(c, kind, resource) for c in containers):
            if check not in given and check != "CKV_K8S_11":
                raise ValueError(f"{kind} {resource} left unset needs the reason for it")
            found[check] = given.get(check, CPU_LIMIT)
    capabilities = [(c.get("securityContext") or {}).get("capabilities") or {} for c in containers]
    added = {capability for c in capabilities for capability in c.get("add", [])}
    if added:
        found["CKV_K8S_25"] = _capabilities(added)
    if any("ALL" not in c.get("drop", []) for c in capabilities):
        found["CKV_K8S_37"] = DEFAULT_CAPABILITIES
    if not _digest_pinned(pod_spec):
        found["CKV_K8S_43"] = NO_DIGEST
    if pod_spec.get("hostNetwork"):
        if host_network is None:
            raise ValueError("a host-network pod needs the reason for it")
        found["CKV_K8S_19"] = host_network
        found["CKV2_K8S_6"] = NETWORK_POLICY_HOST
    if any((c.get("securityContext") or {}).get("privileged") for c in containers):
        if privileged is None:
            raise ValueError("a privileged container needs the reason for it")
        for check in ("CKV_K8S_16", "CKV_K8S_20", "CKV_K8S_28", "CKV_K8S_37"):
            found[check] = privileged
    return {check: given.get(check, why) for check, why in found.items()}


def pod_templates(obj: Any, path: str = "") -> Iterator[tuple[str, dict]]:
    """Every pod template inside `obj` (`{metadata?, spec: {containers}}`), with its path; a Pod
    is its own template."""
    if isinstance(obj, dict):
        if isinstance(obj.get("spec"), dict) and "containers" in obj["spec"]:
            yield path, obj
            return
        for key, value in obj.items():
            yield from pod_templates(value, f"{path}.{key}" if path else key)
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from pod_templates(value, f"{path}[{i}]")


def secure_workload(
    obj: dict,
    sizes: Mapping[str, str] | None = None,
    default_capabilities: Iterable[str] = (),
    host_network: str | None = None,
    privileged: str | None = None,
    default_size: str = "test",
    reasons_for: Mapping[str, str] | None = None,
) -> dict:
    """A copy of a workload this package writes (a Pod, Job, MPIJob or training runtime) with
    every pod template secured (`secure_pod`) and the object waived for what they still need
    (`pod_reasons`; `reasons_for` replaces a check's reason)."""
    out = copy.deepcopy(obj)
    reasons: dict[str, str] = {}
    for _, template in list(pod_templates(out)):
        spec = secure_pod(template["spec"], sizes, default_capabilities, default_size)
        template["spec"] = spec
        found = pod_reasons(spec, host_network, privileged, reasons_for)
        if out["kind"] == "Job":
            # checkov (3.3.30) runs no probe check on a Job, and its NetworkPolicy check only on
            # a labelled pod template (it is a graph check on Pods): no waiver where nothing
            # runs (`make scan` refuses a waiver of a check the object passes without it).
            found.pop("CKV_K8S_8")
            found.pop("CKV_K8S_9")
            if not (template.get("metadata") or {}).get("labels"):
                found.pop("CKV2_K8S_6")
        reasons |= found
    return waive(out, reasons)


CAPABILITY_REASONS = {
    "IPC_LOCK": "pins the pages RDMA and GPUDirect register (the source documents' pods add it)",
    "SYS_RESOURCE": (
        "raises the memlock limit RDMA registration needs (Alibaba's Lingjun RDMA guide adds it)"
    ),
    "NET_ADMIN": "the tcpxo-daemon configures the GPU NICs (upstream's nccl-test-tcpxo.yaml)",
    "NET_BIND_SERVICE": "the tcpxo-daemon binds its port (upstream's nccl-test-tcpxo.yaml)",
}
"""Why a container of this package's adds a capability; adding another needs its reason here."""


def _capabilities(added: Iterable[str]) -> str:
    unknown = set(added) - set(CAPABILITY_REASONS)
    if unknown:
        raise ValueError(f"capabilities {sorted(unknown)} have no reason in CAPABILITY_REASONS")
    return "; ".join(f"{c}: {CAPABILITY_REASONS[c]}" for c in sorted(added))
