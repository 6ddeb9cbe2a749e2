"""A stack's URNs are its users' state: no refactor may change one without an alias.

`tests/fixtures/urns/<stack>.txt` holds every URN of the committed stack files as of the last
release of each (fc7b61d for the seven stacks that existed then). A resource whose URN changed must
carry an alias to its old URN, so `pulumi up` moves its state instead of deleting and recreating
it; a resource that is new is either a layer component (a grouping with no cloud state) or a URN
added to the fixture in the commit that adds it. A URN leaves the fixture only when the committed
stack file stops creating the resource (ack-lingjun's VPC and vSwitches: ACK requires the Lingjun
cluster's own VPC, `network.existing`, so a created one could never have worked; the placement
policies of the reserved A3 Ultra and A4 pools, which now follow cluster-toolkit's examples).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpu_fabric import component_package
from gpu_fabric.layers import layer_token
from offline import engine
from tests.conftest import run_stack

FIXTURES = Path(__file__).parent / "fixtures" / "urns"
LAYERS = {layer_token(c) for c in component_package.COMPONENTS}
"""The layer components' types: groupings added by the two-layer design, with no cloud state."""


def _state_urn(resource: engine.Registration, old: set[str]) -> str:
    """The URN whose state this resource takes: its own, or the one alias of it that existed."""
    if resource.urn in old:
        return resource.urn
    matches = [a for a in resource.aliases if a in old]
    assert len(matches) <= 1, f"{resource.urn} aliases several old URNs: {matches}"
    return matches[0] if matches else resource.urn


def old_urns(stack: str) -> set[str]:
    return set((FIXTURES / f"{stack}.txt").read_text().split())


def state_urns(plan: engine.Plan, stack: str) -> set[str]:
    """The plan's URNs as the committed stack knows them: a moved resource by the URN whose
    state it takes, and the layer components (groupings, no state) left out."""
    old = old_urns(stack)
    return {_state_urn(r, old) for r in plan.resources if r.type not in LAYERS}


TRAINING_QUEUE = "gpu-fabric:workloads:TrainingQueue"
NVLINK_DOMAINS = "gpu-fabric:gke:NvlinkDomains"
USABLE_NODES = "gpu-fabric:k8s:UsableNodes"
NODE_HEALTH = "gpu-fabric:health:NodeHealth"
ADDED_COMPONENTS = (TRAINING_QUEUE, NVLINK_DOMAINS, USABLE_NODES, NODE_HEALTH)
"""Components added after the recorded URNs: what is in them is new, not renamed."""


@pytest.mark.parametrize("stack", sorted(p.stem for p in FIXTURES.glob("*.txt")))
def test_every_old_urn_is_kept_or_aliased(stack):
    old = old_urns(stack)

    # A split stack is planned with its fabric stack: together they hold what it held.
    def as_one_stack(urn: str) -> str:
        return urn.replace(f"urn:pulumi:{stack}-fabric::", f"urn:pulumi:{stack}::")

    resources, seen = [], set()
    for r in run_stack(stack=stack).resources:
        moved = dataclasses.replace(
            r, urn=as_one_stack(r.urn), aliases=[as_one_stack(a) for a in r.aliases]
        )
        # Both stacks of a pair have the GpuCluster component (a grouping): count it once.
        if moved.custom or moved.urn not in seen:
            resources.append(moved)
            seen.add(moved.urn)
    kept = [_state_urn(r, old) for r in resources]
    assert len(kept) == len(set(kept)), "two resources claim one old URN"
    assert sorted(old - set(kept)) == [], "these resources would be deleted"
    # The training queue, A4X's NVLink domains and the waits for usable GPU nodes came later: they
    # and what is in them are new resources, all else is kept.
    by_urn = {r.urn: r for r in resources}

    def in_training_queue(r) -> bool:
        """In a component added since (or OKE's claim templates in the queue's namespace)."""
        while r is not None:
            if r.type in ADDED_COMPONENTS or r.name.endswith("-training-claims"):
                return True
            r = by_urn.get(as_one_stack(r.parent))
        return False

    new = [r for r in resources if _state_urn(r, old) not in old and not in_training_queue(r)]
    # A fabric stack reads its cloud stack (a StackReference is read, not registered) and builds
    # its own provider from that stack's outputs.
    reads_cloud = {"pulumi:pulumi:StackReference", "pulumi:providers:kubernetes"}
    # OKE's home-region provider, now also made when the home region is looked up (a provider
    # holds no cloud state).
    providers = {"pulumi:providers:oci"}
    # Added beside what was there: GKE's node account's Artifact Registry grant.
    added = [r for r in new if r.name.endswith("-nodes-artifactregistry.reader")]
    assert {r.type for r in added} <= {"gcp:projects/iAMMember:IAMMember"}
    new = [r for r in new if r not in added]
    assert sorted(r.type for r in new if r.type not in LAYERS | reads_cloud | providers) == []
    assert all(not r.custom for r in new if r.type in LAYERS), "a layer holds no cloud state"
    assert [r.type for r in new if r.type in reads_cloud] in ([], ["pulumi:providers:kubernetes"])


def test_moved_resources_carry_an_alias_to_their_old_parent():
    plan = engine.run("a3-prod")
    cloud = plan.of_type("gpu-fabric:index:GkeCloud")[0]
    cluster = plan.of_type("gpu-fabric:gke:Cluster")[0]
    assert cluster.parent == cloud.urn
    assert cluster.aliases == [
        "urn:pulumi:a3-prod::gpu-fabric::gpu-fabric:gke:GpuCluster$gpu-fabric:gke:Cluster::a3-prod"
    ]
