"""The layers check their own args: a hosted layer refuses bad inputs by property path, at once.

Each layer is built on its own, as another language's program builds it through `pulumi package
add`: directly, and through the component provider the package serves (`LayerProvider.construct`,
what the provider server calls for each component, with the schema's camelCase inputs).
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
import typing
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest
from pydantic.alias_generators import to_camel

from gpu_fabric import component_package
from gpu_fabric.catalog import catalog
from gpu_fabric.component_host import LayerProvider
from gpu_fabric.gke.cloud_args import GkeCloudArgs
from gpu_fabric.gke.inputs import CLOUD_INPUTS
from gpu_fabric.layers import layer_token
from offline import engine

PROVIDER = "kubernetes_provider"
"""The fabric layers' Kubernetes provider: created in the program, not written in the args."""

A3_NICS = sum(group.count for group in catalog().machines["a3-highgpu-8g"].nic_groups)

GOOD: dict[str, dict[str, Any]] = {
    "GkeCloud": {
        "cluster_name": "a3",
        "project": "my-project-1",
        "region": "us-central1",
        "version": "1.33.5-gke.1080000",
        # A3 High's 4 GPU NICs, a VPC each (catalog `vpc_per_nic`).
        "gpu_networks": [
            {
                "network_name": f"a3-gpu-{n}",
                "subnets": [{"name": f"a3-gpu-{n}", "cidr": f"10.{n}.0.0/24"}],
                "mtu": 8244,
                "firewall_name": f"a3-gpu-{n}-internal",
            }
            for n in range(1, 5)
        ],
        "gpu_pools": [
            {
                "name": "gpu",
                "zone": "us-central1-a",
                "machine_type": "a3-highgpu-8g",
                "node_count": 2,
                "gpu_driver_version": "LATEST",
                "local_ssd_count": 16,
                "boot_disk_type": "pd-ssd",
                "boot_disk_size_gb": 200,
            }
        ],
        "primary_network": {
            "subnet_cidr": "10.0.0.0/20",
            "pods_cidr": "10.64.0.0/19",
            "services_cidr": "10.65.0.0/19",
            "cloud_nat": True,
        },
        "deletion_protection": False,
        "private_nodes": True,
        "system_machine_type": "e2-standard-4",
        "system_node_count": 1,
        "training_buckets": [
            {
                "bucket": "acme-data",
                "create": True,
                "role": "roles/storage.objectViewer",
                "namespaces": ["training"],
            }
        ],
    },
    "GkeFabric": {
        PROVIDER: None,
        "kubeconfig": "{}",
        "cluster_id": "projects/my-project-1/locations/us-central1/clusters/a3",
        "machine_type": "a3-highgpu-8g",
        "network_object_names": [f"vpc{n}" for n in range(1, A3_NICS + 1)],
        "nic_networks": [f"a3-gpu-{n}" for n in range(1, A3_NICS + 1)],
        "gpu_subnets": [f"a3-gpu-{n}" for n in range(1, A3_NICS + 1)],
        "installer": {
            "image": "example.com/nccl-installer:v1.0.0",
            "pause_image": "example.com/pause:3.9",
            "await_rollout": False,
        },
        "health": {
            "gpus_per_node": 8,
            "rdma": False,
            "gpu_pools": [{"node_labels": {"cloud.google.com/gke-nodepool": "gpu"}}],
            "nvidia_driver_path": "/home/kubernetes/bin/nvidia",
            "taint_failed_nodes": True,
            "rules": "gmp",
        },
    },
    "OkeCloud": {
        "tenancy_id": "ocid1.tenancy.oc1..aaaaexample",
        "compartment_id": "ocid1.compartment.oc1..aaaaexample",
        "cluster_name": "oke-gpu",
        "kubernetes_version": "v1.36.1",
        "vcn": {
            "vcn_cidr": "10.140.0.0/16",
            "api_subnet_cidr": "10.140.0.0/28",
            "load_balancer_subnet_cidr": "10.140.1.0/24",
            "workers_subnet_cidr": "10.140.64.0/19",
            "pods_subnet_cidr": "10.140.128.0/17",
        },
        "api_allowed_cidrs": ["192.0.2.0/24"],
        "ssh_allowed_cidrs": [],
        "cni": "OCI_VCN_IP_NATIVE",
        "services_cidr": "10.96.0.0/16",
        "public_endpoint": False,
        "deletion_protection": False,
        "max_pods_per_node": 31,
        "system_pool": {
            "shape": "VM.Standard.E5.Flex",
            "ocpus": 4,
            "memory_gbs": 32,
            "node_count": 2,
            "image_id": "ocid1.image.oc1.iad.aaaasystem",
        },
        "gpu_nodes": {
            "shape": "BM.GPU.B4.8",
            "count": 2,
            "availability_domain": "Uocm:US-ASHBURN-AD-1",
            "image_id": "ocid1.image.oc1.iad.aaaagpu",
            "boot_volume_size_gbs": 512,
        },
        "file_systems": [{"name": "checkpoints"}],
    },
    "OkeFabric": {
        PROVIDER: None,
        "kubeconfig": "{}",
        "cluster_id": "ocid1.cluster.oc1.iad.aaaaexample",
        "gpu_shape": "BM.GPU.B4.8",
        "dranet_version": "v1.0.1",
        "dranet_image_tag": "v1.0.1",
        "dra_gpu_driver_version": "25.8.0",
        "claims": [{"name": "one-gpu", "gpus": 1, "rails": 1}],
    },
    "AckCloud": {
        "cluster_name": "ack-gpu",
        "kubernetes_version": "1.33.3-aliyun.1",
        "existing_vpc": {
            "vpc_id": "vpc-0jlexisting",
            "node_vswitch_ids": ["vsw-0jlnode"],
            "pod_vswitch_ids": ["vsw-0jlpod"],
        },
        "service_cidr": "192.168.0.0/16",
        "ip_stack": "ipv4",
        "proxy_mode": "ipvs",
        "public_endpoint": False,
        "deletion_protection": False,
        "system_pool": {
            "instance_types": ["ecs.g7.xlarge"],
            "node_count": 3,
            "key_name": "gpu-key",
            "system_disk_category": "cloud_essd",
            "system_disk_size": 120,
        },
        "lingjun": {
            "pool_name": "lingjun",
            "cluster_id": "i118191731740041623425",
            "group_id": "i120021051733814190732",
        },
        "rdma_addon_version": "1.1.5",
        "non_host_network": False,
        "non_host_network_key": "enableNonHostNetworkRdma",
    },
    "AckFabric": {
        PROVIDER: None,
        "non_host_network": False,
        "lingjun_nodes": {
            "count": 2,
            "group_id": "i120021051733814190732",
            "node_pool_id": "np-lingjun",
            "cluster_id": "c-ack-gpu",
            "kubeconfig": "{}",
        },
    },
}
"""Good args of each layer, as a program in another language would give them."""

# Per layer: a bad input (args path, value), its property path and a word of its fix.
BAD: dict[str, list[tuple[tuple, Any, str, str]]] = {
    "GkeCloud": [
        (("gpu_pools", 0, "node_count"), -3, "gpuPools[0].nodeCount", "use 0 to keep the pool"),
        (
            ("gpu_pools", 0, "machine_type"),
            "a3-highgpu-9g",
            "gpuPools[0].machineType",
            "did you mean a3-highgpu-8g?",
        ),
        (
            ("training_buckets", 0, "bucket"),
            "Acme_Data",
            "trainingBuckets[0].bucket",
            "not a Cloud Storage bucket name",
        ),
        (
            ("training_buckets", 0, "role"),
            "roles/storage.admin",
            "trainingBuckets[0].role",
            "'roles/storage.objectViewer'",
        ),
    ],
    "GkeFabric": [
        (("machine_type",), "a3-highgpu-9g", "machineType", "use one of the catalog's"),
        (("installer", "image"), "example.com/nccl:latest", "installer.image", "pin a version"),
        (("health", "rules"), "alertmanager", "health.rules", "'gmp', 'prometheus-operator'"),
        (("health", "gpu_pools"), [], "health.gpuPools", "at least 1 item"),
        (("health", "nvidia_driver_path"), "bin/nvidia", "health.nvidiaDriverPath", "absolute"),
        (
            ("health", "image_registry"),
            "https://m.example",
            "health.imageRegistry",
            "not a registry",
        ),
    ],
    "OkeCloud": [
        (("gpu_nodes", "count"), -1, "gpuNodes.count", "use 0 to keep the pool empty"),
        (("vcn", "vcn_cidr"), "10.140.0.0", "vcn.vcnCidr", "10.140.0.0/32"),
        (("file_systems", 0, "name"), "logs", "fileSystems[0].name", "'data'"),
    ],
    "OkeFabric": [
        (("gpu_shape",), "BM.GPU.B4.9", "gpuShape", "did you mean 'BM.GPU.B4.8'?"),
        (("claims", 0, "gpus"), -1, "claims[0].gpus", "greater than or equal to 0"),
    ],
    "AckCloud": [
        (("system_pool", "node_count"), 0, "systemPool.nodeCount", "set 3 (the default"),
        (("lingjun", "group_id"), "group 1", "lingjun.groupId", "ListNodeGroups"),
    ],
    "AckFabric": [
        (("lingjun_nodes", "count"), -2, "lingjunNodes.count", "greater than or equal to 0"),
        (("benchmark_image",), "example.com/hps", "benchmarkImage", "pin a version"),
    ],
}

LAYERS = {component.__name__: component for component in component_package.COMPONENTS}


def _args(layer: str, *changes: tuple[tuple, Any]) -> dict[str, Any]:
    """The good args of `layer` with `changes` (args path, value) applied, and a provider."""
    args = copy.deepcopy(GOOD[layer])
    for path, value in changes:
        node = args
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value
    if PROVIDER in args:
        args[PROVIDER] = k8s.Provider(f"{layer}-k8s", kubeconfig="{}")
    return args


def _build(layer: str, *changes: tuple[tuple, Any]) -> engine.Plan:
    """A program that builds `layer` alone with its args changed (raising what it raises)."""
    return engine.run(
        "layer-inputs", {}, program=lambda: LAYERS[layer](layer.lower(), _args(layer, *changes))
    )


def _refused(build) -> tuple[pulumi.InputPropertiesError, dict[str, str]]:
    with pytest.raises(pulumi.InputPropertiesError) as err:
        build()
    assert err.value.errors is not None
    return err.value, {e["property_path"]: e["reason"] for e in err.value.errors}


def _registered(plan: engine.Plan, layer: str) -> list[engine.Registration]:
    return plan.of_type(layer_token(LAYERS[layer]))


@pytest.mark.parametrize("layer", list(GOOD))
def test_good_inputs_register_the_layer_and_its_resources(layer):
    plan = _build(layer)
    assert [r.name for r in _registered(plan, layer)] == [layer.lower()]
    assert len(plan.resources) > 2  # the layer, the provider of a fabric layer, its children


@pytest.mark.parametrize("layer", list(GOOD))
def test_a_bad_input_is_refused_naming_its_property_path_value_and_fix(layer):
    (path, value, property_path, fix) = BAD[layer][0]
    error, reasons = _refused(lambda: _build(layer, (path, value)))
    assert list(reasons) == [property_path]
    assert reasons[property_path].startswith(f"{json.dumps(value)}: ")
    assert fix in reasons[property_path]
    assert f"{property_path}: {json.dumps(value)}" in error.message


@pytest.mark.parametrize("layer", list(GOOD))
def test_every_bad_input_is_reported_and_nothing_is_registered(layer):
    changes = [(path, value) for path, value, _, _ in BAD[layer]]
    error, reasons = _refused(lambda: _build(layer, *changes))
    assert sorted(reasons) == sorted(property_path for _, _, property_path, _ in BAD[layer])
    for _, value, property_path, fix in BAD[layer]:
        assert fix in reasons[property_path] and json.dumps(value) in reasons[property_path]
    assert f"{len(BAD[layer])} input problem(s)" in error.message
    assert _registered(engine.LAST_RUN, layer) == []


# --- the hosted path ---------------------------------------------------------------------------


@functools.cache
def _host() -> LayerProvider:
    return LayerProvider(
        component_package.COMPONENTS, component_package.NAME, component_package.VERSION
    )


def _camel(value: Any) -> Any:
    """Python args as another language sends them: camelCase names, numbers as floats."""
    if isinstance(value, dict):
        return {to_camel(key): _camel(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_camel(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _construct(layer: str, *changes: tuple[tuple, Any]) -> engine.Plan:
    def program():
        args = _args(layer, *changes)
        inputs = {**_camel({k: v for k, v in args.items() if k != PROVIDER})}
        if PROVIDER in args:
            inputs["kubernetesProvider"] = args[PROVIDER]
        result = _host().construct(
            layer.lower(), layer_token(LAYERS[layer]), inputs, pulumi.ResourceOptions()
        )
        pulumi.export("urn", result.urn)

    return engine.run("layer-inputs", {}, program=program)


@pytest.mark.parametrize("layer", list(GOOD))
def test_the_hosted_layer_registers_good_inputs(layer):
    plan = _construct(layer)
    assert [r.name for r in _registered(plan, layer)] == [layer.lower()]
    assert plan.outputs["urn"].endswith(f"::{layer.lower()}")


@pytest.mark.parametrize("layer", list(GOOD))
def test_the_hosted_layer_refuses_bad_inputs_with_their_property_paths(layer):
    """The provider server reports an InputPropertiesError by property path: it must reach it
    unwrapped (the SDK wraps a constructor's errors in ComponentInitError)."""
    changes = [(path, value) for path, value, _, _ in BAD[layer]]
    _, reasons = _refused(lambda: _construct(layer, *changes))
    assert sorted(reasons) == sorted(property_path for _, _, property_path, _ in BAD[layer])


def test_another_error_of_a_hosted_layer_keeps_the_sdks_handling(monkeypatch):
    """Only refused inputs are passed on unwrapped; any other error of a constructor stays the
    SDK's ComponentInitError (reported with its traceback)."""
    from pulumi.provider.experimental.component import ComponentInitError

    from gpu_fabric.gke import cloud

    class Broken:
        def checked(self, *args):
            raise RuntimeError("a bug")

    monkeypatch.setattr(cloud, "CLOUD_INPUTS", Broken())
    with pytest.raises(ComponentInitError) as err:
        _construct("GkeCloud")
    assert isinstance(err.value.inner, RuntimeError)


# --- single rules ------------------------------------------------------------------------------


def test_numbers_from_other_languages_are_whole_or_refused():
    _, reasons = _refused(lambda: _build("GkeCloud", (("gpu_pools", 0, "node_count"), 2.5)))
    assert "valid integer" in reasons["gpuPools[0].nodeCount"]
    plan = _build("GkeCloud", (("gpu_pools", 0, "node_count"), 2.0))
    (pool,) = [
        p for p in plan.of_type("gcp:container/nodePool:NodePool") if p.inputs["name"] == "gpu"
    ]
    assert pool.inputs["nodeCount"] == 2 and isinstance(pool.inputs["nodeCount"], int)


@pytest.mark.parametrize(
    "layer, change, property_path, says",
    [
        (
            "GkeCloud",
            (
                ("existing_network",),
                {
                    "network": "n",
                    "subnetwork": "s",
                    "pods_range_name": "p",
                    "services_range_name": "x",
                },
            ),
            "primaryNetwork",
            "exactly one of",
        ),
        ("GkeCloud", (("gpu_pools",), []), "gpuPools", "at least one"),
        (
            "GkeFabric",
            (("network_object_names",), ["vpc1"]),
            "networkObjectNames",
            f"give {A3_NICS} names",
        ),
        (
            "OkeCloud",
            (
                ("existing_vcn",),
                {
                    "vcn_id": "ocid1.vcn.oc1.iad.aaaa",
                    "vcn_cidr": "10.140.0.0/16",
                    "api_subnet_id": "ocid1.subnet.oc1.iad.a",
                    "load_balancer_subnet_id": "ocid1.subnet.oc1.iad.b",
                    "workers_subnet_id": "ocid1.subnet.oc1.iad.c",
                },
            ),
            "vcn",
            "exactly one of",
        ),
        ("OkeFabric", (("claims", 0, "gpus"), 9), "claims[0]", "GPU"),
    ],
)
def test_the_rules_over_several_inputs_and_the_catalog(layer, change, property_path, says):
    _, reasons = _refused(lambda: _build(layer, change))
    assert list(reasons) == [property_path]
    assert says in reasons[property_path]


def test_an_input_that_takes_outputs_is_not_checked_and_a_plain_one_refuses_them():
    """An Output may be unknown at preview: where the schema takes one (a kubeconfig, a cluster
    id), it is not checked; a plain value's field is read to decide what to create."""
    unknown = pulumi.Output.from_input("not read")
    assert _registered(_build("GkeFabric", (("cluster_id",), unknown)), "GkeFabric")
    _, reasons = _refused(lambda: _build("GkeCloud", (("cluster_name",), unknown)))
    assert "takes a plain value, not an Output" in reasons["clusterName"]


def _typeddicts(annotation: Any) -> dict[str, type]:
    """The TypedDicts an args type is made of, by name: itself and those of its fields."""
    found: dict[str, type] = {}

    def walk(value: Any) -> None:
        if typing.is_typeddict(value) and value.__name__ not in found:
            found[value.__name__] = value
            for field in value.__annotations__.values():
                walk(field)
        for arg in typing.get_args(value):
            walk(arg)

    walk(annotation)
    return found


@pytest.mark.parametrize("layer", list(GOOD))
def test_every_rule_names_a_field_of_the_layers_args(layer):
    """A rule under a misspelled class or field name would check nothing."""
    module = importlib.import_module(LAYERS[layer].__module__.rsplit(".", 1)[0] + ".inputs")
    checks = getattr(module, "CLOUD_INPUTS" if layer.endswith("Cloud") else "FABRIC_INPUTS")
    types = _typeddicts(typing.get_type_hints(LAYERS[layer].__init__)["args"])
    assert set(checks.rules) <= set(types)
    for name, fields in checks.rules.items():
        assert set(fields) <= set(types[name].__annotations__), name


def test_a_required_input_left_out_is_named_not_set():
    args = {k: v for k, v in GOOD["GkeCloud"].items() if k != "project"}
    (problem,) = CLOUD_INPUTS.problems(GkeCloudArgs, args)
    assert (problem.path, problem.reason) == ("project", "(not set): required; set it")


@pytest.mark.parametrize(
    "layer, path, property_path",
    [
        ("GkeFabric", ("node_wait_timeout",), "nodeWaitTimeout"),
        ("OkeFabric", ("node_wait_timeout",), "nodeWaitTimeout"),
        ("AckFabric", ("lingjun_nodes", "timeout"), "lingjunNodes.timeout"),
    ],
)
def test_a_usable_nodes_timeout_that_is_not_a_duration_is_refused(layer, path, property_path):
    _, reasons = _refused(lambda: _build(layer, (path, "soon")))
    assert list(reasons) == [property_path]
    assert "a duration" in reasons[property_path]


def test_a_hosted_ack_cloud_without_the_lingjun_vpc_is_refused():
    """The Lingjun cluster exists already, in its VPC, where ACK requires the ACK cluster too:
    `existingVpc` is required."""
    args = copy.deepcopy(GOOD["AckCloud"])
    del args["existing_vpc"]
    _, reasons = _refused(
        lambda: engine.run("layer-inputs", {}, program=lambda: LAYERS["AckCloud"]("ackcloud", args))
    )
    assert list(reasons) == ["existingVpc"]
    assert "ACK requires the ACK cluster in that same VPC" in reasons["existingVpc"]


def test_a_reservation_may_be_an_output_read_once_known_and_a_plain_one_is_checked():
    """A reservation another stack or resource names arrives as an Output: the pool reads it
    once known and consumes it by name; a plain name is still checked by the config's rule."""
    named = pulumi.Output.from_input("team-reservation")
    plan = _build("GkeCloud", (("gpu_pools", 0, "reservation"), named))
    (pool,) = [
        p
        for p in plan.of_type("gcp:container/nodePool:NodePool")
        if p.inputs["nodeConfig"].get("reservationAffinity")
    ]
    assert pool.inputs["nodeConfig"]["reservationAffinity"]["values"] == ["team-reservation"]
    _, reasons = _refused(lambda: _build("GkeCloud", (("gpu_pools", 0, "reservation"), "Bad_Name")))
    assert list(reasons) == ["gpuPools[0].reservation"]


def test_a_hosted_fabric_layers_alert_rules_go_where_its_metrics_are():
    _, errors = _refused(lambda: _build("GkeFabric", (("health", "prometheus"), "stack")))
    assert "leave out prometheus" in errors["health.rules"]
    _, errors = _refused(lambda: _build("GkeFabric", (("health", "rules"), "prometheus-operator")))
    assert "give prometheus `stack` or `external`" in errors["health.rules"]


def test_a_hosted_fabric_layers_alertmanager_configuration_needs_an_alertmanager():
    config = (("health", "alertmanager_config"), "route: {receiver: x}\nreceivers: [{name: x}]\n")
    _build("GkeFabric", config)  # GKE's managed Alertmanager takes it
    _, errors = _refused(lambda: _build("GkeFabric", config, (("health", "rules"), "none")))
    assert "no Alertmanager of GKE's or the stack's takes it" in errors["health.alertmanagerConfig"]


VOLUME = {"claim": "training-data", "read_only": True, "driver": "d", "volume_handle": "h"}


@pytest.mark.parametrize("layer", ["GkeFabric", "OkeFabric", "AckFabric"])
def test_a_hosted_fabric_layers_training_volumes_need_its_runtime(layer):
    _, errors = _refused(lambda: _build(layer, (("training_volumes",), [VOLUME])))
    assert "only the training runtime mounts them" in errors["trainingVolumes"]


def test_a_hosted_fabric_layers_volume_claim_is_a_claim_name():
    bad = {**VOLUME, "claim": "Data"}
    _, errors = _refused(lambda: _build("GkeFabric", (("training_volumes",), [bad])))
    assert "not a PersistentVolumeClaim name" in errors["trainingVolumes[0].claim"]
