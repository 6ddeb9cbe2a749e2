"""Blank nested values and repeated list items are refused, on every
platform, and the offline engine stops on a duplicate URN as Pulumi's engine does."""

from __future__ import annotations

import pulumi
import pytest

from offline import engine
from tests.conftest import problems

BLANKS = [
    ("a3-prod", "gpu-fabric:gpuPool.reservation"),
    ("a3-prod", "gpu-fabric:network.nics"),
    ("a4x-prod", "gpu-fabric:gke.masterAuthorizedNetworks"),
    ("oke-dranet", "gpu-fabric:dranet.childCidr"),
    ("oke-dranet", "gpu-fabric:gpuNodes.sshPublicKey"),
    ("ack-lingjun", "gpu-fabric:rdma.nonHostNetworkKey"),
]


@pytest.mark.parametrize("stack, key", BLANKS)
def test_a_nested_key_left_blank_is_refused(stack, key):
    (problem,) = problems({key: None}, stack=stack)
    assert problem.key == key
    assert problem.value is None and "blank" in problem.message


def test_a_blank_list_item_is_refused():
    changes = {"gpu-fabric:network.apiAllowedCidrs": ["10.0.0.0/8", None]}
    (problem,) = problems(changes, stack="oke-dranet")
    assert problem.key == "gpu-fabric:network.apiAllowedCidrs[1]"


REPEATS = [
    ("oke-dranet", "gpu-fabric:network.apiAllowedCidrs", ["10.1.0.0/16", "10.1.0.0/16"]),
    ("oke-dranet", "gpu-fabric:network.sshAllowedCidrs", ["10.1.0.0/16", "10.1.0.0/16"]),
    (
        "a3-prod",
        "gpu-fabric:gke.masterAuthorizedNetworks",
        [{"cidrBlock": "192.0.2.0/24"}, {"cidrBlock": "192.0.2.0/24"}],
    ),
    ("ack-lingjun", "gpu-fabric:ack.systemPool.instanceTypes", ["ecs.g7.xlarge"] * 2),
]


@pytest.mark.parametrize("stack, key, value", REPEATS)
def test_an_item_written_twice_is_refused(stack, key, value):
    found = [p for p in problems({key: value}, stack=stack) if p.key == f"{key}[1]"]
    assert [p.message for p in found] == ["repeats item [0] of the list; keep one"]


def test_distinct_items_are_accepted():
    assert not [
        p
        for p in problems(
            {
                "gpu-fabric:network.apiAllowedCidrs": ["10.1.0.0/16", "10.2.0.0/16"],
                "gpu-fabric:oke.publicEndpoint": "not a bool",  # one problem to make it raise
            },
            stack="oke-dranet",
        )
        if "apiAllowedCidrs" in p.key
    ]


def test_the_offline_engine_stops_on_a_duplicate_urn_as_pulumi_does():
    def program():
        pulumi.ComponentResource("test:index:Thing", "same")
        pulumi.ComponentResource("test:index:Thing", "same")

    with pytest.raises(Exception, match="Duplicate resource URN"):
        engine.run("a3-prod", engine.stack_config("a3-prod"), program=program)


PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
    "-----END OPENSSH PRIVATE KEY-----"
)


def test_a_private_key_pasted_into_a_key_field_is_refused_and_not_shown():
    (problem,) = problems({"gpu-fabric:gpuNodes.sshPublicKey": PRIVATE_KEY}, stack="oke-dranet")
    assert problem.key == "gpu-fabric:gpuNodes.sshPublicKey"
    assert "private key" in problem.message and "BEGIN" not in str(problem)


def test_a_public_key_is_accepted():
    from tests.conftest import SSH_PUBLIC_KEY, parse_stack

    key = f"{SSH_PUBLIC_KEY} user@host"
    cfg = parse_stack({"gpu-fabric:gpuNodes.sshPublicKey": key}, stack="oke-dranet")
    assert cfg.gpu_nodes.ssh_public_key == key


@pytest.mark.parametrize(
    "stack, key",
    [("oke-dranet", "oci:privateKey"), ("ack-lingjun", "alicloud:secretKey")],
)
def test_a_provider_credential_in_plain_text_is_refused_and_a_secret_one_accepted(stack, key):
    from gpu_fabric.problems import ConfigError

    values = {**engine.stack_config(stack), key: "not-a-real-credential"}
    with pytest.raises(ConfigError) as err:
        engine.run(stack, values)
    (problem,) = err.value.problems
    assert problem.key == key and "pulumi config set --secret" in problem.message
    assert "not-a-real-credential" not in str(err.value)
    plan = engine.run(stack, values, secret_keys=[key])
    assert plan.resources
