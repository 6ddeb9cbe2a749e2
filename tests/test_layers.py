"""Two layers per platform: a cloud stack and a fabric stack, and what one stack may not apply."""

from __future__ import annotations

from pathlib import Path

import pulumi
import pytest
import yaml

from gpu_fabric.problems import ConfigError
from gpu_fabric.stack_config import parse_pulumi_config
from offline import engine
from tests.conftest import encode, parse_stack, planned, problems, stack_values
from tests.test_ack_stack import EXISTING_VPC as ACK_EXISTING_VPC

FIXTURES = Path(__file__).parent / "fixtures" / "stacks"
CLOUD_TYPES = ("oci:", "alicloud:", "gcp:")


@pytest.mark.parametrize("stack", ["oke-dranet", "ack-lingjun"])
def test_the_committed_one_stack_file_of_fc7b61d_is_refused_with_the_fix(stack):
    values = yaml.safe_load((FIXTURES / f"Pulumi.{stack}.fc7b61d.yaml").read_text())["config"]
    if stack == "ack-lingjun":
        # Required since, each refused first on its own: the Lingjun node count, and the Lingjun
        # cluster's VPC (a created one holds no Lingjun cluster).
        values["gpu-fabric:lingjun"]["nodeCount"] = 2
        values["gpu-fabric:network"] = {"existing": ACK_EXISTING_VPC}
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(encode(values), stack, stacks_dir=None)
    (problem,) = err.value.problems
    assert "split the layers" in problem.message and "cloudStack" in problem.message


@pytest.mark.parametrize("stack", ["oke-dranet", "ack-lingjun"])
def test_a_cloud_stack_has_no_kubernetes_object_and_its_fabric_stack_no_cloud_resource(stack):
    cloud = planned(stack)
    assert cloud.kubernetes_objects() == [] and cloud.helm_releases() == []
    fabric = planned(f"{stack}-fabric")
    assert not [r.type for r in fabric.resources if r.type.startswith(CLOUD_TYPES)]
    assert fabric.kubernetes_objects() or fabric.helm_releases() or stack == "ack-lingjun"
    (provider,) = fabric.of_type("pulumi:providers:kubernetes")
    # Its provider is built from the cloud stack's outputs, read through a StackReference.
    assert provider.inputs["clusterIdentifier"] == cloud.outputs["clusterId"]
    assert "kubeconfig" in provider.secret_inputs
    (reference,) = provider.property_dependencies["kubeconfig"]
    assert reference.endswith(f"$pulumi:pulumi:StackReference::{stack}-cloud-stack")


def test_a_fabric_stack_needs_its_cloud_stack():
    found = problems({"gpu-fabric:layers": "fabric"}, stack="a3-prod")
    (problem,) = [p for p in found if p.key == "gpu-fabric:cloudStack"]
    assert "required" in problem.message
    # a3-prod's cloud keys are a cloud stack's, refused as such; its fabric key (smokeTest) stays.
    refused = {p.key for p in found if "is a key of the cloud stack" in p.message}
    assert refused == set(stack_values("a3-prod")) - {
        "gpu-fabric:platform",
        "gpu-fabric:layers",
        "gpu-fabric:smokeTest",
    }


def test_a_cloud_stack_reference_needs_a_fabric_stack():
    (problem,) = problems({"gpu-fabric:cloudStack": "org/gpu-fabric/x"}, stack="a3-prod")
    assert problem.key == "gpu-fabric:cloudStack" and "has no effect" in problem.message


def test_a_malformed_cloud_stack_reference_is_refused():
    changes = {"gpu-fabric:layers": "fabric", "gpu-fabric:cloudStack": "org/stack"}
    (problem,) = [p for p in problems(changes, stack="a3-prod") if p.key == "gpu-fabric:cloudStack"]
    assert problem.value == "org/stack"


def test_an_existing_vcn_with_a_stated_path_may_run_both_layers(without_fabric_stacks):
    from tests.conftest import OKE_EXISTING_VCN

    existing = {**OKE_EXISTING_VCN, "deployPath": "site-to-site VPN from the CI runners"}
    changes = {"gpu-fabric:layers": "all", "gpu-fabric:network": {"existing": existing}}
    assert parse_stack(changes, stack="oke-dranet").layers.value == "all"
    del existing["deployPath"]
    (problem,) = problems(changes, stack="oke-dranet")
    assert problem.key == "gpu-fabric:layers"


def test_an_oke_public_endpoint_needs_an_allow_list(without_fabric_stacks):
    from tests.conftest import OKE_EXISTING_VCN

    changes = {
        "gpu-fabric:layers": "all",
        "gpu-fabric:oke.publicEndpoint": True,
        "gpu-fabric:network": {"existing": OKE_EXISTING_VCN},
    }
    keys = [p.key for p in problems(changes, stack="oke-dranet")]
    assert "gpu-fabric:network.apiAllowedCidrs" in keys
    changes["gpu-fabric:network"] = {
        "existing": OKE_EXISTING_VCN,
        "apiAllowedCidrs": ["198.51.100.0/24"],
    }
    assert parse_stack(changes, stack="oke-dranet").oke.public_endpoint


def test_a_hosted_layer_takes_counts_that_arrive_as_floats():
    """Other languages' numbers reach a hosted component as floats (2.0); counts stay counts."""
    import pulumi_kubernetes as k8s

    from gpu_fabric.ack.cloud import AckCloud
    from gpu_fabric.ack.gpu_cluster import cloud_args as ack_cloud_args
    from gpu_fabric.oke.cloud import OkeCloud
    from gpu_fabric.oke.fabric import OkeFabric
    from gpu_fabric.oke.gpu_cluster import cloud_args, fabric_args
    from tests.conftest import parse_stack

    def floats(value):
        if isinstance(value, bool) or not isinstance(value, (int, dict, list)):
            return value
        if isinstance(value, int):
            return float(value)
        if isinstance(value, dict):
            return {k: floats(v) for k, v in value.items()}
        return [floats(v) for v in value]

    oke, ack = parse_stack({}, stack="oke-dranet"), parse_stack({}, stack="ack-lingjun")

    def program():
        OkeCloud("hosted", floats(cloud_args(oke)))
        provider = k8s.Provider("hosted-k8s", kubeconfig="{}")
        outputs = {"kubeconfig": "{}", "cluster_id": "ocid1.cluster.oc1..x"}
        OkeFabric(
            "hosted", {**floats(fabric_args(oke, None, outputs)), "kubernetes_provider": provider}
        )
        AckCloud("hosted-ack", floats(ack_cloud_args(ack)))

    plan = engine.run("oke-dranet", engine.stack_config("oke-dranet"), program=program)
    instances = plan.of_type("oci:Core/instance:Instance")
    assert len(instances) == oke.gpu_nodes.count
    assert "31.0" not in str([i.inputs for i in instances])
    pools = plan.of_type("alicloud:cs/nodePool:NodePool")
    sizes = sorted(p.inputs["desiredSize"] for p in pools if "desiredSize" in p.inputs)
    assert sizes and all(size.isdigit() for size in sizes), sizes


def _modules_after(code: str) -> set[str]:
    import subprocess
    import sys

    script = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_config_and_checks_import_no_component_module():
    loaded = _modules_after(
        "from gpu_fabric.stack_config import parse_with_cloud_stack_file\n"
        "from gpu_fabric.stack_file import stack_config\n"
        "for stack in ('a3-prod', 'oke-dranet', 'ack-lingjun'):\n"
        "    parse_with_cloud_stack_file(stack_config(stack), stack)"
    )
    ours = {m for m in loaded if m.startswith("gpu_fabric")}
    # The GKE fabrics' modules are asked for their image checks: pure functions, no component.
    fabric_side = {"fabrics", "by_name", "spec", "image_checks", "tcpx", "tcpxo", "gib"}
    # A config field's type (the OKE nodes' SSH keys) is config too: it registers nothing; so are
    # the Pod Security checks the queue's rules use.
    # GKE's node labels and names are names only (a Topology level's rule reads them). The training
    # queue's settings are typed dicts (its runtime's pods are built from them).
    # A layer's args and their rules (cloud_args.py, cloud_rules.py; a GKE concern's args.py and
    # rules.py, and the cloud args a stack config gives, from_stack.py) are plain data and checks.
    config_side = {
        "settings",
        "cloud_args",
        "cloud_rules",
        "from_stack",
        "args",
        "rules",
        "version_rules",
        "config",
        "checks",
        "claim_plan",
        "ssh_keys",
        "pod_security",
        "node_labels",
        "names",
        # node health's checks and the runtime's check container: data and a pod's init container
        "node_checks",
        "pre_job_check",
        # a storage kind's driver facts and its volumes as each layer's args: data
        "fuse",
        "volumes",
        "ids",
        "plan",
        # a GKE concern's folder (its package), whose component module is not loaded
        "pool",
        "network",
        "cluster",
        "nodes",
        "claims",
        "dranet",
        "lingjun",
        "rdma",
        "buckets",
        "lustre",
        "filestore",
        "driver",
        "training_volumes",
        "file_storage",
        "cpfs",
        *fabric_side,
    }
    components = {
        m
        for m in ours
        if m.count(".") >= 2
        and m.split(".")[1] != "stack_config"
        and m.rsplit(".", 1)[1] not in config_side
    }
    assert components == set()
    assert not {m for m in loaded if m.startswith("pulumi_kubernetes")}


def test_verify_imports_nothing_from_offline():
    assert not {m for m in _modules_after("import verify.__main__") if m.startswith("offline")}


def test_component_class_names_equal_their_type_tokens():
    """A component's class is named as its type token's last part (`gpu-fabric:oke:Cluster` is
    `Cluster`): what a URN says is what a reader finds in the code."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "gpu_fabric"
    # Each token, with the class it stands in: the nearest `class` line above it. A token in a
    # `create_urn(` call names an earlier type a resource is aliased from, not a class.
    token = re.compile(r'^class (\w+)\b|^(?!.*create_urn\().*"gpu-fabric:[a-z]+:([A-Za-z]+)"', re.M)
    mismatched = []
    for path in sorted(root.rglob("*.py")):
        owner = None
        for match in token.finditer(path.read_text()):
            if match.group(1):
                owner = match.group(1)
            elif owner != match.group(2):
                mismatched.append(f"{path.relative_to(root)}: {owner} is {match.group(0)}")
    assert mismatched == []


def test_the_stack_outputs_are_the_layers_declared_outputs_with_their_renames():
    """Each declared layer output is a stack output under its camelCase name, but those a stack
    kept from before the layers (`clusterEndpoint`) and those it does not export."""
    from gpu_fabric.layers import stack_outputs

    class Layer:
        # Evaluated (this module's annotations are strings), as a layer's are.
        __annotations__ = {
            "cluster_id": pulumi.Output[str],
            "endpoint": pulumi.Output[str],
            "namespace": pulumi.Output[str],
            "not_an_output": str,
        }

    assert stack_outputs(Layer, {"endpoint": "clusterEndpoint"}, ("namespace",)) == {
        "clusterId": "cluster_id",
        "clusterEndpoint": "endpoint",
    }


def test_a_rename_of_an_output_no_layer_declares_is_refused():
    from gpu_fabric.gke.gpu_cluster import GpuCluster

    with pytest.raises(TypeError, match="declare no output endpiont"):
        type("Misspelled", (GpuCluster,), {"RENAMED_OUTPUTS": {"endpiont": "clusterEndpoint"}})


def test_the_fabric_layer_takes_the_cloud_outputs_its_args_name():
    from gpu_fabric.ack.gpu_cluster import GpuCluster as Ack
    from gpu_fabric.gke.gpu_cluster import GpuCluster as Gke
    from gpu_fabric.oke.gpu_cluster import GpuCluster as Oke

    assert Gke.FABRIC_NEEDS == (
        "kubeconfig",
        "cluster_id",
        "nic_networks",
        "gpu_subnets",
        "gpu_node_pools",
        "gpu_node_pool_instance_groups",
    )
    assert Oke.FABRIC_NEEDS == ("kubeconfig", "cluster_id", "gpu_nodes", "gpu_node_ids")
    # Nested (`lingjun_nodes`), and under another name (`node_pool_id`).
    assert set(Ack.FABRIC_NEEDS) == {"kubeconfig", "cluster_id", "lingjun_node_pool_id"}


def test_the_top_component_registers_the_stack_outputs(monkeypatch):
    from gpu_fabric.layers import LayeredCluster

    registered = {}
    original = LayeredCluster.register_outputs

    def record(self, outputs):
        registered[type(self).__module__] = outputs
        return original(self, outputs)

    monkeypatch.setattr(LayeredCluster, "register_outputs", record)
    plan = engine.run("a3-prod")
    (outputs,) = registered.values()
    assert sorted(outputs) == sorted(plan.outputs) and "clusterEndpoint" in outputs


@pytest.mark.parametrize("stack", ["oke-dranet", "ack-lingjun"])
def test_a_deploy_path_in_a_stack_that_does_not_run_both_layers_is_refused(stack):
    """It only lets `layers: all` apply in-cluster objects from where `pulumi up` runs."""
    from tests.conftest import OKE_EXISTING_VCN, assert_single_rule
    from tests.test_ack_stack import EXISTING_VPC

    existing = OKE_EXISTING_VCN if stack == "oke-dranet" else EXISTING_VPC
    assert_single_rule(
        {"gpu-fabric:network": {"existing": {**existing, "deployPath": "a VPN"}}},
        "gpu-fabric:network.existing.deployPath",
        "a VPN",
        "has no effect with gpu-fabric:layers: cloud",
        stack,
    )
