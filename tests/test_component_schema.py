"""The component package's schema (component_package.py): what `pulumi package add` makes SDKs of.

The schema is built in-process the way `component_provider_host` builds it (the SDK's `Analyzer`,
then `generate_schema`), without starting a server. The expected surfaces below are exact: a
renamed, added, removed or retyped field of a hosted component or of one of its args types fails
here, since it changes every generated SDK.

Notation of a property's type: `string`, `integer`, `number`, `boolean`; `Name` for the package's
own type `gpu-fabric:index:Name`; `[T]` an array of T; `{T}` a map of string to T;
`kubernetes:Provider` the Kubernetes provider resource. `Input<T>` marks an input that takes
Outputs (the others are plain values in the SDKs); a trailing `!` marks a required property.
"""

from __future__ import annotations

import collections
import functools
import importlib.resources
import inspect
import json
import re
import sys
import typing
from pathlib import Path
from typing import Any

import pulumi
import pytest
from pulumi.provider.experimental import host
from pulumi.provider.experimental.analyzer import Analyzer
from pulumi.provider.experimental.schema import generate_schema

from gpu_fabric import component_package
from gpu_fabric.layers import layer_token

ROOT = Path(__file__).resolve().parent.parent
LOCAL_REF = f"#/types/{component_package.NAME}:index:"
# The Analyzer refers to a provider resource as `.../schema.json#/resources/pulumi:providers:<pkg>`
# (SDK codegen accepts it, with a deprecation warning for `#/provider`): accept both spellings.
KUBERNETES_PROVIDER_REF = re.compile(
    r"/kubernetes/v(?P<version>[^/]+)/schema\.json#/(resources/pulumi:providers:kubernetes|provider)"
)

COMPONENT_SURFACES: dict[str, dict[str, dict[str, str]]] = {
    "GkeCloud": {
        "inputs": {
            "clusterName": "string!",
            "project": "string!",
            "region": "string!",
            "version": "string!",
            "gpuNetworks": "[GkeGpuNetwork]!",
            "gpuPools": "[GkeGpuPool]!",
            "primaryNetwork": "GkePrimaryNetwork",
            "existingNetwork": "GkeExistingNetwork",
            "deletionProtection": "boolean!",
            "privateNodes": "boolean!",
            "masterAuthorizedNetworks": "[GkeAuthorizedNetwork]",
            "monitoring": "GkeMonitoring",
            "systemMachineType": "string!",
            "systemNodeCount": "integer!",
            "maxPodsPerNode": "integer",
            "nodeAccountRoles": "[string]",
            "releaseChannel": "string",
            "filestoreCsi": "boolean",
            "filestoreInstances": "[GkeFilestoreInstance]",
            "lustreCsi": "boolean",
            "lustreInstances": "[GkeLustreInstance]",
            "trainingBuckets": "[GkeTrainingBucket]",
        },
        "outputs": {
            "kubernetesProvider": "kubernetes:Provider!",
            "clusterName": "string!",
            "clusterId": "string!",
            "endpoint": "string!",
            "kubeconfig": "string!",
            "nodeServiceAccount": "string!",
            "gpuNodePools": "[string]!",
            "gpuNodePool": "string!",
            "gpuNodePoolInstanceGroups": "[string]!",
            "gpuNetworks": "[string]!",
            "gpuSubnets": "[string]!",
            "nicNetworks": "[string]!",
            "fileServerIps": "{string}",
        },
    },
    "GkeFabric": {
        "inputs": {
            "kubernetesProvider": "Input<kubernetes:Provider>!",
            "kubeconfig": "Input<string>!",
            "clusterId": "Input<string>!",
            "machineType": "string!",
            "networkObjectNames": "[string]!",
            "nicNetworks": "Input<[string]>!",
            "gpuSubnets": "Input<[string]>!",
            "installer": "GkeInstaller",
            "nriDeviceInjectorImage": "string",
            "smokeTest": "GkeSmokeTest",
            "gpuNodePools": "Input<[string]>",
            "gpuNodePoolInstanceGroups": "Input<[string]>",
            "gpuNodeCount": "integer",
            "nodeWaitTimeout": "string",
            "hyperdiskStorageClass": "GkeStorageClass",
            "nvlinkDriverVersion": "string",
            "trainingQueue": "TrainingQueueSettings",
            "health": "HealthSettings",
            "trainingVolumes": "[TrainingVolume]",
        },
        "outputs": {
            "networkObjects": "[string]!",
            "installer": "string!",
        },
    },
    "OkeCloud": {
        "inputs": {
            "tenancyId": "string!",
            "homeRegion": "string",
            "compartmentId": "string!",
            "clusterName": "string!",
            "kubernetesVersion": "string!",
            "vcn": "OkeVcn",
            "existingVcn": "OkeExistingVcn",
            "apiAllowedCidrs": "[string]!",
            "sshAllowedCidrs": "[string]!",
            "cni": "string!",
            "podsCidr": "string",
            "servicesCidr": "string!",
            "publicEndpoint": "boolean!",
            "deletionProtection": "boolean!",
            "maxPodsPerNode": "integer!",
            "systemPool": "OkeSystemPool!",
            "gpuNodes": "OkeGpuNodes!",
            "fileSystems": "[OkeFileSystem]",
            "lustreFileSystems": "[OkeLustreFileSystem]",
        },
        "outputs": {
            "kubernetesProvider": "kubernetes:Provider!",
            "clusterName": "string!",
            "clusterId": "string!",
            "apiServerHost": "string!",
            "kubeconfig": "string!",
            "vcnId": "string!",
            "loadBalancerNsgId": "string!",
            "computeClusterId": "string!",
            "gpuNodes": "[string]!",
            "gpuNodeIds": "[string]!",
            "fileSystemHandles": "{string}",
        },
    },
    "OkeFabric": {
        "inputs": {
            "kubernetesProvider": "Input<kubernetes:Provider>!",
            "kubeconfig": "Input<string>!",
            "clusterId": "Input<string>!",
            "gpuShape": "string!",
            "gpuNodes": "Input<[string]>",
            "gpuNodeIds": "Input<[string]>",
            "gpuNodeCount": "integer",
            "nodeWaitTimeout": "string",
            "dranetVersion": "string!",
            "dranetImageTag": "string!",
            "dranetChildCidr": "string",
            "draGpuDriverVersion": "string!",
            "claims": "[OkeClaim]!",
            "ncclTests": "OkeNcclTests",
            "trainingQueue": "TrainingQueueSettings",
            "health": "HealthSettings",
            "trainingVolumes": "[TrainingVolume]",
        },
        "outputs": {
            "namespace": "string!",
            "claimTemplates": "[string]!",
        },
    },
    "AckCloud": {
        "inputs": {
            "clusterName": "string!",
            "kubernetesVersion": "string!",
            "existingVpc": "AckExistingVpc",
            "serviceCidr": "string!",
            "ipStack": "string!",
            "proxyMode": "string!",
            "publicEndpoint": "boolean!",
            "deletionProtection": "boolean!",
            "systemPool": "AckSystemPool!",
            "lingjun": "AckLingjun!",
            "rdmaAddonVersion": "string!",
            "nonHostNetwork": "boolean!",
            "nonHostNetworkKey": "string!",
            "cpfsCsi": "boolean",
        },
        "outputs": {
            "kubernetesProvider": "kubernetes:Provider!",
            "clusterName": "string!",
            "clusterId": "string!",
            "kubeconfig": "string!",
            "vpcId": "string!",
            "lingjunNodePoolId": "string!",
            "rdmaAddon": "string!",
            "rdmaNonHostNetwork": "boolean!",
        },
    },
    "AckFabric": {
        "inputs": {
            "kubernetesProvider": "Input<kubernetes:Provider>!",
            "nonHostNetwork": "boolean!",
            "benchmarkImage": "string",
            "lingjunNodes": "AckLingjunNodes",
            "trainingQueue": "TrainingQueueSettings",
            "health": "HealthSettings",
            "trainingVolumes": "[TrainingVolume]",
            "kubeconfig": "Input<string>",
            "clusterId": "Input<string>",
        },
        "outputs": {
            "benchmarkJob": "string!",
        },
    },
}

# The args types the components' inputs name (their fields are plain values in the SDKs).
TYPE_SURFACES: dict[str, dict[str, str]] = {
    "GkeGpuNetwork": {
        "networkName": "string!",
        "subnets": "[GkeSubnet]!",
        "mtu": "integer!",
        "networkProfile": "string",
        "firewallName": "string",
        "firewallSourceRanges": "[string]",
    },
    "GkeSubnet": {"name": "string!", "cidr": "string!"},
    "GkeGpuPool": {
        "name": "string!",
        "zone": "string!",
        "machineType": "string!",
        "nodeCount": "integer!",
        "gpuDriverVersion": "string!",
        "localSsdCount": "integer!",
        "bootDiskType": "string!",
        "bootDiskSizeGb": "integer!",
        "labels": "{string}",
        "compactPlacementName": "string",
        "reservation": "Input<string>",
        "reservationProject": "string",
        "maxSurge": "integer",
        "maxUnavailable": "integer",
        "capacity": "string",
        "maxNodeCount": "integer",
        "locationPolicy": "string",
        "allowUnsupportedGkeVersion": "boolean",
        # The pool options, written by `make docs` from GpuPoolConfig (tools/pool_options.py).
        "queuedProvisioning": "boolean",
        "createTimeout": "string",
        "updateTimeout": "string",
    },
    "GkePrimaryNetwork": {
        "subnetCidr": "string!",
        "podsCidr": "string!",
        "servicesCidr": "string!",
        "cloudNat": "boolean!",
        "mtu": "integer",
    },
    "GkeExistingNetwork": {
        "network": "string!",
        "subnetwork": "string!",
        "podsRangeName": "string!",
        "servicesRangeName": "string!",
    },
    "GkeAuthorizedNetwork": {"cidrBlock": "string!", "displayName": "string"},
    "GkeMonitoring": {"dcgm": "boolean!", "managedPrometheus": "boolean!"},
    "GkeInstaller": {
        "image": "string!",
        "pauseImage": "string!",
        "awaitRollout": "boolean!",
        "retainOnDelete": "boolean",
    },
    "GkeSmokeTest": {"testImage": "string!", "daemonImage": "string!"},
    "GkeStorageClass": {"name": "string!", "isDefault": "boolean!"},
    "OkeVcn": {
        "vcnCidr": "string!",
        "apiSubnetCidr": "string!",
        "loadBalancerSubnetCidr": "string!",
        "workersSubnetCidr": "string!",
        "podsSubnetCidr": "string",
    },
    "OkeExistingVcn": {
        "vcnId": "string!",
        "vcnCidr": "string!",
        "apiSubnetId": "string!",
        "loadBalancerSubnetId": "string!",
        "workersSubnetId": "string!",
        "podsSubnetId": "string",
    },
    "OkeSystemPool": {
        "shape": "string!",
        "ocpus": "integer!",
        "memoryGbs": "integer!",
        "nodeCount": "integer!",
        "imageId": "string!",
    },
    "OkeGpuNodes": {
        "shape": "string!",
        "count": "integer!",
        "availabilityDomain": "string!",
        "imageId": "string!",
        "bootVolumeSizeGbs": "integer!",
        "nvmeRaid": "integer",
        "capacityReservationId": "string",
        "sshPublicKey": "string",
        "joinTagNamespace": "string",
        "joinTagKey": "string",
        "runCommandPlugin": "boolean",
        "rdmaGpuMonitoringPlugin": "boolean",
    },
    "OkeClaim": {
        "name": "string!",
        "gpus": "integer!",
        "rails": "integer!",
        "aligned": "boolean",
        "roots": "integer",
    },
    "OkeNcclTests": {"claims": "[string]!", "image": "string!", "workers": "integer!"},
    "TrainingQueueSettings": {
        "namespace": "string!",
        "teamNamespaces": "[string]",
        "teamWeights": "{integer}",
        "waitForPodsReady": "WaitForPodsReadySettings",
        "localQueue": "string!",
        "podSecurityLevel": "string!",
        "podSecurityReason": "string!",
        "topologyLevels": "[string]",
        "pools": "[QueuePool]!",
        "deviceClassMappings": "{[string]}",
        "kueueVersion": "string!",
        "jobsetVersion": "string!",
        "kueueImageRepository": "string",
        "jobsetImageRepository": "string",
        "runtime": "TrainingRuntimeSettings",
        "trainerVersion": "string",
    },
    "TrainingRuntimeSettings": {
        "name": "string!",
        "podTemplate": "{pulumi.json#/Any}!",
        "topology": "RuntimeTopology",
        "namespacedObjects": "[{pulumi.json#/Any}]",
        "namespacedObjectCrds": "[string]",
        "hostNetworkReason": "string",
        "privilegedReason": "string",
        "claimedGpus": "integer",
    },
    "RuntimeTopology": {"level": "string!", "required": "boolean!"},
    "WaitForPodsReadySettings": {"timeout": "string!", "backoffLimitCount": "integer"},
    "HealthSettings": {
        "gpusPerNode": "integer!",
        "rdma": "boolean!",
        "gpuPools": "[HealthPool]!",
        "nvidiaDriverPath": "string",
        "taintFailedNodes": "boolean!",
        "rules": "string!",
        "prometheus": "string",
        "alertmanagerConfig": "string",
        "imageRegistry": "string",
        "dcgmMetrics": "boolean",
        "dcgmExporter": "boolean",
        "dcgmForDra": "boolean",
        "nodeProblemDetectorVersion": "string",
        "prometheusStackVersion": "string",
    },
    "HealthPool": {"nodeLabels": "{string}!"},
    "TrainingVolume": {
        "claim": "string!",
        "readOnly": "boolean!",
        "driver": "string!",
        "volumeHandle": "Input<string>!",
        "attributes": "{string}",
        "mountOptions": "[string]",
        "fsType": "string",
        "capacity": "string",
    },
    "OkeFileSystem": {"name": "string!"},
    "OkeLustreFileSystem": {
        "name": "string!",
        "fileSystemName": "string!",
        "capacityGb": "integer!",
        "throughputPerTb": "integer!",
    },
    "GkeFilestoreInstance": {
        "name": "string!",
        "location": "string!",
        "tier": "string!",
        "share": "string!",
        "capacityGb": "integer!",
    },
    "GkeLustreInstance": {
        "instanceId": "string!",
        "zone": "string!",
        "filesystem": "string!",
        "capacityGib": "integer!",
        "throughputPerTib": "integer!",
    },
    "GkeTrainingBucket": {
        "bucket": "string!",
        "create": "boolean!",
        "role": "string!",
        "namespaces": "[string]!",
    },
    "QueuePool": {
        "name": "string!",
        "nodeLabels": "{string}!",
        "tolerations": "[QueueToleration]!",
        "quota": "{integer}!",
        "capacity": "string",
        "minNodes": "integer",
        "provisioningClass": "string",
    },
    "QueueToleration": {"key": "string!", "effect": "string!", "value": "string"},
    "AckLingjunNodes": {
        "count": "integer!",
        "groupId": "string!",
        "nodePoolId": "Input<string>!",
        "clusterId": "Input<string>!",
        "kubeconfig": "Input<string>!",
        "rdmaPlugin": "string",
        "timeout": "string",
    },
    "AckExistingVpc": {
        "vpcId": "string!",
        "nodeVswitchIds": "[string]!",
        "podVswitchIds": "[string]!",
    },
    "AckSystemPool": {
        "instanceTypes": "[string]!",
        "nodeCount": "integer!",
        "keyName": "string!",
        "systemDiskCategory": "string!",
        "systemDiskSize": "integer!",
    },
    "AckLingjun": {"poolName": "string!", "clusterId": "string!", "groupId": "string!"},
}

BY_NAME = {component.__name__: component for component in component_package.COMPONENTS}


def token(name: str) -> str:
    return f"{component_package.NAME}:index:{name}"


def _kind(prop: dict[str, Any]) -> str:
    """A property's type in the notation above, without `Input<>` or `!`."""
    ref = prop.get("$ref")
    if ref is not None:
        if ref.startswith(LOCAL_REF):
            return ref.removeprefix(LOCAL_REF)
        if KUBERNETES_PROVIDER_REF.fullmatch(ref):
            return "kubernetes:Provider"
        return ref
    if prop.get("type") == "array":
        return f"[{_kind(prop['items'])}]"
    if prop.get("type") == "object" and "additionalProperties" in prop:
        return "{" + _kind(prop["additionalProperties"]) + "}"
    return prop["type"]


def surface(
    properties: dict[str, dict[str, Any]], required: list[str], *, inputs: bool
) -> dict[str, str]:
    """Each property's type in the notation above."""
    out = {}
    for name, prop in properties.items():
        kind = _kind(prop)
        if inputs and not prop.get("plain"):
            kind = f"Input<{kind}>"
        out[name] = kind + ("!" if name in required else "")
    return out


def _component_modules() -> list[Any]:
    """The modules of the components, and of their args types (GKE's, and the training queue's
    that every fabric layer shares)."""
    names = {
        component.__module__ for component in component_package.COMPONENTS
    } | SHARED_ARGS_MODULES
    return [sys.modules[name] for name in sorted(names)]


SHARED_ARGS_MODULES = {
    "gpu_fabric.workloads.settings",
    "gpu_fabric.health.args",
    "gpu_fabric.storage.args",
    "gpu_fabric.gke.buckets.args",
    "gpu_fabric.gke.lustre.args",
    "gpu_fabric.gke.filestore.args",
    "gpu_fabric.oke.file_storage.args",
    "gpu_fabric.oke.lustre.args",
    "gpu_fabric.gke.cloud_args",
    "gpu_fabric.ack.cloud_args",
    "gpu_fabric.oke.cloud_args",
    "gpu_fabric.gke.fabric_args",
    "gpu_fabric.gke.pool.args",
    "gpu_fabric.gke.network.args",
    "gpu_fabric.gke.cluster.args",
}


def _source(module: Any) -> str:
    return str(Path(module.__file__).resolve().relative_to(ROOT))


@functools.cache
def _analysis() -> tuple[dict[str, Any], Any]:
    """The package schema as `component_provider_host` builds it, and the analysis behind it."""
    result = Analyzer(component_package.NAME).analyze(component_package.COMPONENTS)
    dependencies = sorted(result["dependencies"], key=lambda d: f"{d.name}{d.version}")
    spec = generate_schema(
        component_package.NAME,
        component_package.VERSION,
        None,
        result["component_definitions"],
        result["type_definitions"],
        dependencies,
    )
    # The host serves the schema as JSON: it must serialize.
    return json.loads(json.dumps(spec.to_json())), result


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    try:
        return _analysis()[0]
    except Exception as e:  # any analyzer error fails every schema test, with its cause
        pytest.fail(
            f"the Pulumi SDK's Analyzer rejects the hosted components: {type(e).__name__}: {e}\n"
            "(see test_component_annotations_are_evaluated; unions are unsupported, "
            "every public class annotation of a component is an output, and type names must be "
            "unique across modules)",
            pytrace=False,
        )


def test_importing_the_entry_point_starts_no_server():
    assert host.is_hosting is False
    assert component_package.__name__ != "__main__"


def test_hosts_exactly_the_six_layers():
    assert [c.__name__ for c in component_package.COMPONENTS] == list(COMPONENT_SURFACES)
    assert all(issubclass(c, pulumi.ComponentResource) for c in component_package.COMPONENTS)
    assert component_package.NAME == "gpu-fabric"
    assert re.fullmatch(r"\d+\.\d+\.\d+", component_package.VERSION)


@pytest.mark.parametrize("name", list(COMPONENT_SURFACES))
def test_each_component_registers_the_token_it_is_served_under(name):
    """The host constructs `gpu-fabric:index:<Class>` with the class of that name; the class must
    register itself under the same token, or the engine would see another resource type."""
    component = BY_NAME[name]
    assert layer_token(component) == token(name)
    assert f"layer_token({name})" in inspect.getsource(component.__init__)


@pytest.mark.parametrize("name", list(COMPONENT_SURFACES))
def test_component_annotations_are_evaluated(name):
    """The Analyzer reads annotations as they are stored (`inspect.get_annotations` without
    `eval_str`): under `from __future__ import annotations` they are strings, and it fails on the
    first one (`'str' object has no attribute '__mro__'` for a component's `args`)."""
    component = BY_NAME[name]
    annotations = inspect.get_annotations(component.__init__) | inspect.get_annotations(component)
    strings = sorted(key for key, value in annotations.items() if isinstance(value, str))
    assert strings == [], (
        f"{_source(sys.modules[component.__module__])}: remove `from __future__ import "
        f"annotations` ({name}'s annotations {strings} are strings the SDK's Analyzer cannot read)"
    )


def test_the_analyzer_accepts_every_component(schema):
    assert schema["name"] == component_package.NAME
    assert schema["version"] == component_package.VERSION
    assert set(schema["resources"]) == {token(name) for name in COMPONENT_SURFACES}


@pytest.mark.parametrize("name", list(COMPONENT_SURFACES))
def test_component_inputs(schema, name):
    resource = schema["resources"][token(name)]
    assert resource["isComponent"] is True
    got = surface(resource["inputProperties"], resource["requiredInputs"], inputs=True)
    assert got == COMPONENT_SURFACES[name]["inputs"]


@pytest.mark.parametrize("name", list(COMPONENT_SURFACES))
def test_component_outputs(schema, name):
    resource = schema["resources"][token(name)]
    got = surface(resource["properties"], resource["required"], inputs=False)
    assert got == COMPONENT_SURFACES[name]["outputs"]


def test_args_types(schema):
    assert set(schema["types"]) == {token(name) for name in TYPE_SURFACES}
    for name, expected in TYPE_SURFACES.items():
        spec = schema["types"][token(name)]
        assert spec["type"] == "object", name
        got = surface(spec["properties"], spec.get("required", []), inputs=True)
        assert got == expected, name


def test_every_component_type_and_property_has_a_description(schema):
    """Docstrings become the SDKs' doc comments: every class and field needs one."""
    missing = []
    for tok, resource in schema["resources"].items():
        if not resource.get("description"):
            missing.append(tok)
        for kind in ("inputProperties", "properties"):
            missing += [
                f"{tok} {kind}.{p}" for p, s in resource[kind].items() if not s.get("description")
            ]
    for tok, spec in schema["types"].items():
        if not spec.get("description"):
            missing.append(tok)
        missing += [f"{tok}.{p}" for p, s in spec["properties"].items() if not s.get("description")]
    assert missing == []


def test_fabric_layers_take_the_kubernetes_provider_of_the_pinned_sdk(schema):
    plugin = json.loads(
        importlib.resources.files("pulumi_kubernetes").joinpath("pulumi-plugin.json").read_text()
    )
    assert schema["dependencies"] == [{"name": "kubernetes", "version": plugin["version"]}]
    for name in ("GkeFabric", "OkeFabric", "AckFabric"):
        ref = schema["resources"][token(name)]["inputProperties"]["kubernetesProvider"]["$ref"]
        match = KUBERNETES_PROVIDER_REF.fullmatch(ref)
        assert match is not None, ref
        assert match["version"] == plugin["version"]
        # The cloud layer's output is that provider: another language passes it straight on.
        cloud = token(name.replace("Fabric", "Cloud"))
        assert schema["resources"][cloud]["properties"]["kubernetesProvider"]["$ref"] == ref


def test_class_names_are_unique_across_platforms(schema):
    """Every type of the package lives in one `index` module: a name must not repeat across the
    platforms' modules, even for a class the components do not use yet."""
    defined = [
        (name, module.__name__)
        for module in _component_modules()
        for name, value in vars(module).items()
        if inspect.isclass(value)
        and value.__module__ == module.__name__
        and (typing.is_typeddict(value) or issubclass(value, pulumi.ComponentResource))
    ]
    counts = collections.Counter(name for name, _ in defined)
    assert [name for name, n in counts.items() if n > 1] == []
    analysis = _analysis()[1]
    modules = {module.__name__ for module in _component_modules()}
    for name, definition in analysis["type_definitions"].items():
        assert definition.module in modules, (name, definition.module)
        assert (name, definition.module) in defined
