"""The checks node-problem-detector runs on every GPU node, each reported as a node condition.

One entry per check: its condition (what `kubectl describe node` shows and the taint controller
reads), its script under `checks/` or its kernel-log pattern, and what it means and what to do
(docs/health.md is written from these). A check whose condition is `True` has confirmed a problem
(node-problem-detector's custom plugin contract: the script exits 1); `Unknown`, the script could
not tell (exit 2, or it timed out). To add a check: a script in `checks/` with that contract and a
test of it on a recorded healthy and broken output (tests/test_health_checks.py), and an entry
here.
"""

from __future__ import annotations

import dataclasses
from importlib import resources

SCRIPTS = resources.files(__package__) / "checks"
"""The checks' scripts, shipped in the package and mounted into node-problem-detector."""


@dataclasses.dataclass(frozen=True)
class NodeCheck:
    """A GPU or RDMA check of a node, reported as the node condition `condition`."""

    condition: str
    """The node condition (`GpuEcc`): `True` when the check confirms a problem."""
    means: str
    """What a problem means, for the docs and the alert."""
    action: str
    """What a user does about it."""
    script: str = ""
    """Its script under `checks/` (empty: a kernel-log check)."""
    needs_rdma: bool = False
    """Only on fabrics with RDMA NICs."""

    @property
    def problem_reason(self) -> str:
        """The condition's reason when the check confirms a problem (oci-hpc-oke's wording)."""
        return f"{self.condition}HasIssues"

    @property
    def healthy_reason(self) -> str:
        return f"{self.condition}HasNoIssues"


CHECKS = (
    NodeCheck(
        "GpuCount",
        "nvidia-smi lists fewer GPUs than the machine has: a GPU fell off the bus or its driver "
        "lost it.",
        "Drain the node and reset or replace it (GKE: delete the node, the pool re-creates it; "
        "OKE/ACK: reboot, then open a support case if the GPU stays missing).",
        script="gpu_count.sh",
    ),
    NodeCheck(
        "GpuEcc",
        "A GPU has an uncorrected ECC error since its driver loaded (or ECC is off): its memory "
        "returned bad data, so a job on it may compute garbage or crash.",
        "Drain the node and reset its GPUs (a reboot does it); if it comes back, replace the node.",
        script="gpu_ecc.sh",
    ),
    NodeCheck(
        "GpuXid",
        "The NVIDIA driver logged an XID that NVIDIA's XID catalog says needs a GPU reset or "
        "a node replacement (XID 48, 64, 74, 79, 94, 95, 119, 120, 140).",
        "Drain the node and reboot it (the condition clears when node-problem-detector starts "
        "again on the rebooted node); the same XID again: replace the node.",
    ),
    NodeCheck(
        "RdmaLink",
        "An RDMA port the host sees is not ACTIVE/LinkUp: NCCL over that rail fails or falls "
        "back, and the whole job slows to its slowest rank.",
        "Check the port (`rdma link`, the switch); reboot the node if it does not come back, "
        "then open a support case.",
        script="rdma_link.sh",
        needs_rdma=True,
    ),
)
"""Every check, in the order they run."""

FATAL_XIDS = (48, 64, 74, 79, 94, 95, 119, 120, 140)
"""XIDs after which NVIDIA's XID catalog (docs.nvidia.com/deploy/xid-errors) has the GPU reset or
the node serviced: 48 double-bit ECC, 64 row-remap failure, 74 NVLink error, 79 fallen off the
bus, 94/95 contained/uncontained ECC, 119/120 GSP errors, 140 unrecovered ECC. Others are logged as
events only (a job's own fault, such as 13 or 31, says nothing about the node)."""
XID_LINE = r"NVRM: Xid \(PCI:[^)]*\): (" + "|".join(map(str, FATAL_XIDS)) + r"),.*"
"""The kernel's line of a fatal XID: the driver prints `NVRM: Xid (PCI:<bus id>): <xid>, ...`, with
a MIG instance after the bus id (`(PCI:0000:01:00 GPU-I:05)`, NVIDIA's GPU memory error
management guide)."""
ANY_XID_LINE = r"NVRM: Xid \(PCI:[^)]*\): [0-9]+,.*"
"""Any XID line: an event on the node."""


def checks_for(*, rdma: bool) -> list[NodeCheck]:
    """The checks that apply to a fabric (with RDMA NICs or not)."""
    return [c for c in CHECKS if rdma or not c.needs_rdma]


def script_text(check: NodeCheck) -> str:
    return (SCRIPTS / check.script).read_text()
