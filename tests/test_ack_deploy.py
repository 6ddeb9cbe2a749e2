"""What `pulumi up` of ack-lingjun does between runs: the credential it keeps (issue 14)."""

from __future__ import annotations

import yaml

from tests.conftest import run_stack

STACK = "ack-lingjun"
PROVIDER = "pulumi:providers:kubernetes"


def _provider_inputs(plan) -> dict[str, dict]:
    return {p.urn: p.inputs for p in plan.of_type(PROVIDER)}


def test_two_runs_give_the_kubernetes_provider_the_same_kubeconfig():
    # A temporary credential is a new certificate per call (the mocks model it so): with one,
    # every preview showed a provider change and a destroy after 3 days failed (issue 14, 16).
    first = run_stack(stack=STACK, cached=False)
    second = run_stack(stack=STACK, cached=False)
    assert _provider_inputs(first) and _provider_inputs(first) == _provider_inputs(second)
    assert {r.urn: r.inputs for r in first.resources} == {r.urn: r.inputs for r in second.resources}
    kubeconfig = yaml.safe_load(next(iter(_provider_inputs(first).values()))["kubeconfig"])
    assert kubeconfig["users"][0]["user"]["client-certificate-data"]
