"""`make plan`: the tree, build/plan/<stack>.json and the rendered Kubernetes objects."""

from __future__ import annotations

import json
import re

import yaml

from offline import plan as plan_cli


def test_plan_writes_every_resource_and_the_objects(tmp_path, capsys):
    assert plan_cli.main(["a3-prod", "--out", str(tmp_path)]) == 0
    tree = capsys.readouterr().out
    assert "gcp:container/nodePool:NodePool a3-prod-a3-highgpu" in tree
    assert "nodeConfig.gvnic.enabled=true" in tree
    assert "kubeconfig: [secret]" in tree

    written = json.loads((tmp_path / "a3-prod.json").read_text())
    resources = written["resources"]
    # 44 resources and the two layer components; the training queue's 19 (gpu_fabric/workloads:
    # Kueue, JobSet, Kubeflow Trainer, two CRD gates, the Kueue objects, 5 priority classes and
    # the runtime); the wait for usable GPU nodes and its command; node health's 10
    # (gpu_fabric/health: its component, node-problem-detector's release, 8 objects).
    assert len(resources) == 78
    for resource in resources:
        assert {"type", "name", "parent", "dependencies", "inputs", "provider"} <= set(resource)
    gates = [r for r in resources if r["type"] == "command:local:Command"]
    # The Network objects' CRDs, Kueue's and Kubeflow Trainer's; the wait for usable GPU nodes.
    assert len(gates) == 4
    for gate in gates:
        assert "[secret]" in json.dumps(gate["inputs"]["environment"])
        assert "gke-gcloud-auth-plugin" not in json.dumps(gate["inputs"])
    assert written["outputs"]["kubeconfig"] == "[secret]"

    # A flavor's and the Topology's names end in a hash of their spec (queue_objects._named).
    files = sorted(
        re.sub(r"-[0-9a-f]{8}\.yaml$", ".yaml", p.name) for p in (tmp_path / "a3-prod").iterdir()
    )
    assert files == [
        "clusterqueue-gpu-fabric.yaml",
        "clusterrole-gpu-taint-controller.yaml",
        "clusterrolebinding-gpu-taint-controller.yaml",
        "clusterrules-gpu-fabric-health.yaml",
        "clustertrainingruntime-torch-distributed-tcpx.yaml",
        "configmap-gpu-health-gpu-taint-controller.yaml",
        "daemonset-kube-system-nccl-tcpx-installer.yaml",
        "deployment-gpu-health-gpu-taint-controller.yaml",
        *[f"gkenetworkparamset-vpc{n}.yaml" for n in range(1, 5)],
        "helmrelease-gpu-health-node-problem-detector.yaml",
        "helmrelease-jobset-system-jobset.yaml",
        "helmrelease-kubeflow-system-kubeflow-trainer.yaml",
        "helmrelease-kueue-system-kueue.yaml",
        "localqueue-training-default.yaml",
        "namespace-gpu-health.yaml",
        "namespace-training.yaml",
        *[f"network-vpc{n}.yaml" for n in range(1, 5)],
        "podmonitoring-gpu-health-node-problem-detector.yaml",
        "resourceflavor-a3-highgpu.yaml",
        "serviceaccount-gpu-health-gpu-taint-controller.yaml",
        "topology-gpu-fabric.yaml",
        *[
            f"workloadpriorityclass-{name}.yaml"
            for name in ("high", "low", "medium", "very-high", "very-low")
        ],
    ]
    network = yaml.safe_load((tmp_path / "a3-prod" / "network-vpc1.yaml").read_text())
    assert list(network)[:3] == ["apiVersion", "kind", "metadata"]


def test_unknown_stack_is_reported(tmp_path, capsys):
    assert plan_cli.main(["nope", "--out", str(tmp_path)]) == 2
    assert "known stacks: a3-mega-prod, a3-prod, " in capsys.readouterr().err


def test_pick_reads_nested_and_listed_values():
    data = {"a": {"b": [{"c": 1}, {"c": 2}]}}
    assert plan_cli.pick(data, "a.b[].c") == [1, 2]
    assert plan_cli.pick(data, "a.x") is None


def test_plan_shows_non_fatal_warnings(monkeypatch, tmp_path, capsys):
    from offline import engine
    from tests.conftest import encode, stack_values, with_changes

    values = encode(with_changes(stack_values(), {"gpu-fabric:gke.version": "1.29.3-gke.1093000"}))
    monkeypatch.setattr(engine, "stack_config_and_secrets", lambda stack: (values, []))
    assert plan_cli.main(["a3-prod", "--out", str(tmp_path)]) == 0
    assert "warning: gpu-fabric:gke.version: 1.29.3-gke.1093000 is below 1.29.15-gke.2467000" in (
        capsys.readouterr().out
    )
