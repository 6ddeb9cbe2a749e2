"""The rules of OKE's cloud layer over its args (`OkeCloudArgs`): the stack config runs them on the
args it makes (checks.py, naming stack keys through `cloud_args.STACK_KEYS`), a hosted `OkeCloud`
on the args it is given (inputs.py, naming property paths), so both refuse alike; `name` writes a
path in the caller's words, for a message that names another path.

The network's rules are network/rules.py's. Only the ranges of an existing VCN's subnets, which
the args do not carry (they take the subnets' IDs), are checked by the stack config alone
(checks.py)."""

from __future__ import annotations

from collections.abc import Callable

from ..catalog import catalog
from ..layer_inputs import ArgsPath, ArgsProblem
from ..problems import MISSING
from ..versions import OKE_MINOR, oke_version_or_minor
from .cloud_args import OkeCloudArgs
from .network.rules import capacity_problems, range_problems


def cloud_problems(args: OkeCloudArgs, name: Callable[[ArgsPath], str]) -> list[ArgsProblem]:
    """Every problem of the cloud layer's args that the args themselves show."""
    problems = [*range_problems(args, name), *capacity_problems(args)]
    floor = catalog().oke.min_kubernetes
    version = args["kubernetes_version"]
    if oke_version_or_minor(version).minor_parts < OKE_MINOR.parse(floor).minor_parts:
        problems.append(
            ArgsProblem(
                ("kubernetes_version",),
                version,
                f"DRANET and the claims use DRA `resource.k8s.io/v1`, GA from Kubernetes {floor}; "
                f"pick {floor}.x or newer",
            )
        )
    # The system pool takes no GPU shape: by the GPU shape families the catalog records for OCI
    # (BM.GPU*, VM.GPU*), not only the shapes it builds.
    shape = args["system_pool"]["shape"]
    refusal = (
        catalog()
        .gpu_families["oke"]
        .system_pool_refusal(shape, "shape", "flexible CPU shape such as VM.Standard.E5.Flex")
    )
    if refusal:
        problems.append(ArgsProblem(("system_pool", "shape"), shape, refusal))
    # At the tenancy root, the dynamic group's compartment rule would match every instance of
    # the root compartment, and each could join the cluster: a join tag narrows it to the GPU
    # nodes (terraform-oci-oke's modules/iam/group-workers.tf matches workers by tags likewise).
    if args["compartment_id"].startswith("ocid1.tenancy.") and not args["gpu_nodes"].get(
        "join_tag_key"
    ):
        problems.append(
            ArgsProblem(
                ("gpu_nodes", "join_tag_key"),
                MISSING,
                "required when the compartment is the tenancy (root compartment): without it "
                "every instance of the root compartment may join the cluster; set an existing "
                "defined tag, {namespace: <ns>, key: <key>} (`oci iam tag-namespace list`), or "
                "use a compartment of its own",
            )
        )
    return problems
