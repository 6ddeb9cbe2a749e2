"""Which Pod Security level admits a pod: the checks of the Pod Security Standards a namespace's
`pod-security.kubernetes.io/enforce` label applies (Kubernetes docs, "Pod Security Standards";
the enforcement code is kubernetes/pod-security-admission `policy/check_*.go`).

Only the checks a fabric's pods can fail are here: host namespaces, privileged containers, added
capabilities, host paths and ports (Baseline); volume types, privilege escalation, root, seccomp and
capabilities kept (Restricted). A pod that passes every check here may still fail one of the rest
(AppArmor, SELinux, sysctls, `/proc` mount): none of the runtimes sets those fields.
"""

from __future__ import annotations

from collections.abc import Iterator

LEVELS = ("privileged", "baseline", "restricted")
"""From the most to the least permissive."""

BASELINE_CAPABILITIES = frozenset(
    # policy/check_capabilities_baseline.go: capabilities_allowed_1_0
    "AUDIT_WRITE CHOWN DAC_OVERRIDE FOWNER FSETID KILL MKNOD NET_BIND_SERVICE SETFCAP SETGID "
    "SETPCAP SETUID SYS_CHROOT".split()
)
RESTRICTED_VOLUMES = frozenset(
    # policy/check_restrictedVolumes.go
    "configMap csi downwardAPI emptyDir ephemeral image persistentVolumeClaim projected "
    "secret".split()
)
_NOT_VOLUME_TYPES = {"name"}


def _containers(spec: dict) -> Iterator[dict]:
    for kind in ("initContainers", "containers", "ephemeralContainers"):
        yield from spec.get(kind) or []


def baseline_violations(spec: dict) -> list[str]:
    """What in a pod spec the Baseline level forbids."""
    found = [f"{field}: true" for field in ("hostNetwork", "hostPID", "hostIPC") if spec.get(field)]
    host_paths = [v["name"] for v in spec.get("volumes") or [] if "hostPath" in v]
    if host_paths:
        found.append(f"hostPath volumes ({', '.join(host_paths)})")
    for c in _containers(spec):
        context = c.get("securityContext") or {}
        if context.get("privileged"):
            found.append(f"privileged container {c['name']}")
        added = set((context.get("capabilities") or {}).get("add") or []) - BASELINE_CAPABILITIES
        if added:
            found.append(f"capabilities {', '.join(sorted(added))} of container {c['name']}")
        if any(p.get("hostPort") for p in c.get("ports") or []):
            found.append(f"host ports of container {c['name']}")
    return found


def restricted_violations(spec: dict) -> list[str]:
    """What in a pod spec the Restricted level forbids beyond Baseline's rules."""
    found = []
    for volume in spec.get("volumes") or []:
        kinds = set(volume) - _NOT_VOLUME_TYPES - RESTRICTED_VOLUMES
        if kinds:
            found.append(f"volume {volume['name']} of type {', '.join(sorted(kinds))}")
    pod = spec.get("securityContext") or {}
    for c in _containers(spec):
        context = c.get("securityContext") or {}
        if context.get("allowPrivilegeEscalation") is not False:
            found.append(f"container {c['name']} may escalate privileges")
        if not context.get("runAsNonRoot", pod.get("runAsNonRoot")):
            found.append(f"container {c['name']} may run as root")
        if context.get("runAsUser", pod.get("runAsUser")) == 0:
            found.append(f"container {c['name']} runs as user 0")
        seccomp = (context.get("seccompProfile") or pod.get("seccompProfile") or {}).get("type")
        if seccomp not in ("RuntimeDefault", "Localhost"):
            found.append(f"container {c['name']} has no RuntimeDefault seccomp profile")
        capabilities = context.get("capabilities") or {}
        if "ALL" not in (capabilities.get("drop") or []):
            found.append(f"container {c['name']} keeps capabilities (drop ALL)")
        if set(capabilities.get("add") or []) - {"NET_BIND_SERVICE"}:
            found.append(f"container {c['name']} adds capabilities")
    return found


def needed_level(spec: dict) -> tuple[str, list[str]]:
    """The strictest level that admits a pod spec, and what a stricter one would reject."""
    baseline = baseline_violations(spec)
    if baseline:
        return "privileged", baseline
    restricted = restricted_violations(spec)
    if restricted:
        return "baseline", restricted
    return "restricted", []


def is_stricter(level: str, than: str) -> bool:
    return LEVELS.index(level) > LEVELS.index(than)
