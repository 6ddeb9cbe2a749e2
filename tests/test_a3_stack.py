"""The a3-prod stack under mocks: what reached the engine, and what waits for what."""

from __future__ import annotations

from gpu_fabric import yaml_files
from gpu_fabric.gke.fabrics import tcpx
from offline.engine import Plan, Registration
from tests.conftest import assert_single_rule, project_of, run_stack

NETWORK = "gcp:compute/network:Network"
SUBNET = "gcp:compute/subnetwork:Subnetwork"
FIREWALL = "gcp:compute/firewall:Firewall"
CLUSTER = "gcp:container/cluster:Cluster"
NODE_POOL = "gcp:container/nodePool:NodePool"
K8S_NETWORK = "kubernetes:networking.gke.io/v1:Network"
PARAM_SET = "kubernetes:networking.gke.io/v1:GKENetworkParamSet"
DAEMON_SET = "kubernetes:apps/v1:DaemonSet"
COMMAND = "command:local:Command"


def gpu_pool(plan: Plan) -> Registration:
    (pool,) = [p for p in plan.of_type(NODE_POOL) if p.name.endswith("a3-highgpu")]
    return pool


def in_gpu_vpcs(plan: Plan, type_: str | None = None) -> list[Registration]:
    """Resources inside the GpuVpc components (of one type, if given)."""
    return [
        r
        for r in plan.resources
        if "$gpu-fabric:gcp:GpuVpc::" in r.parent and (type_ is None or r.type == type_)
    ]


def gpu_networks(plan: Plan) -> list[Registration]:
    return in_gpu_vpcs(plan, NETWORK)


def test_four_gpu_vpcs_with_seed_settings(a3_plan):
    networks = sorted(gpu_networks(a3_plan), key=lambda r: r.name)
    assert [n.inputs["name"] for n in networks] == [f"a3-prod-net-{n}" for n in range(1, 5)]
    assert all(
        n.inputs["mtu"] == 8244 and n.inputs["autoCreateSubnetworks"] is False for n in networks
    )

    subnets = sorted(in_gpu_vpcs(a3_plan, SUBNET), key=lambda r: r.name)
    assert [(s.inputs["name"], s.inputs["ipCidrRange"], s.inputs["region"]) for s in subnets] == [
        (f"a3-prod-sub-{n}", f"192.168.{n}.0/24", "us-central1") for n in range(1, 5)
    ]
    for subnet, network in zip(subnets, networks, strict=True):
        assert subnet.inputs["network"].endswith(f"/networks/{network.inputs['name']}")


def test_gpu_firewalls_allow_all_internal_traffic_from_their_own_subnet(a3_plan):
    rules = sorted(a3_plan.of_type(FIREWALL), key=lambda r: r.name)
    assert [r.inputs["name"] for r in rules] == [f"a3-prod-internal-{n}" for n in range(1, 5)]
    for n, rule in enumerate(rules, start=1):
        assert rule.inputs["direction"] == "INGRESS"
        assert rule.inputs["sourceRanges"] == [f"192.168.{n}.0/24"]
        assert rule.inputs["allows"] == [
            {"protocol": "tcp", "ports": ["0-65535"]},
            {"protocol": "udp", "ports": ["0-65535"]},
            {"protocol": "icmp"},
        ]
        assert rule.inputs["network"].endswith(f"/networks/a3-prod-net-{n}")


def test_configured_firewall_sources_replace_the_default():
    plan = run_stack({"gpu-fabric:network.nics.gpu.firewallSourceRanges": ["192.168.0.0/16"]})
    assert {tuple(r.inputs["sourceRanges"]) for r in plan.of_type(FIREWALL)} == {
        ("192.168.0.0/16",)
    }


def test_primary_network_owns_the_secondary_ranges(a3_plan):
    (subnet,) = [s for s in a3_plan.of_type(SUBNET) if s.name == "a3-prod-primary-sub"]
    assert subnet.inputs["ipCidrRange"] == "10.0.0.0/20"
    assert subnet.inputs["privateIpGoogleAccess"] is True
    assert subnet.inputs["secondaryIpRanges"] == [
        {"rangeName": "a3-prod-pods", "ipCidrRange": "10.64.0.0/19"},
        {"rangeName": "a3-prod-services", "ipCidrRange": "10.65.0.0/19"},
    ]
    (nat,) = a3_plan.of_type("gcp:compute/routerNat:RouterNat")
    assert nat.inputs["sourceSubnetworkIpRangesToNat"] == "LIST_OF_SUBNETWORKS"


def test_cluster_is_multi_networking_dataplane_v2_and_pinned(a3_plan):
    (cluster,) = a3_plan.of_type(CLUSTER)
    i = cluster.inputs
    assert i["name"] == "a3-prod" and i["location"] == "us-central1"
    assert i["enableMultiNetworking"] is True
    assert i["datapathProvider"] == "ADVANCED_DATAPATH"
    assert i["networkingMode"] == "VPC_NATIVE"
    assert i["ipAllocationPolicy"] == {
        "clusterSecondaryRangeName": "a3-prod-pods",
        "servicesSecondaryRangeName": "a3-prod-services",
    }
    # `gke.version: "1.33"`: GKE's newest 1.33 patch (the mocks'), read at preview.
    assert i["minMasterVersion"] == "1.33.100-gke.1000000"
    # A3 High's default channel keeps its last COS-121 minor longest (catalog).
    assert i["releaseChannel"] == {"channel": "EXTENDED"}
    assert i["removeDefaultNodePool"] is True
    assert i["deletionProtection"] is True
    assert i["enableShieldedNodes"] is True
    assert i["workloadIdentityConfig"] == {"workloadPool": f"{project_of()}.svc.id.goog"}
    assert i["privateClusterConfig"]["enablePrivateNodes"] is True
    assert i["network"].endswith("/global/networks/a3-prod-primary")
    assert i["subnetwork"].endswith("/regions/us-central1/subnetworks/a3-prod-primary")
    assert "autopilot" not in str(i).lower()
    assert "nodeConfig" in cluster.ignore_changes


def test_deletion_protection_follows_config():
    plan = run_stack({"gpu-fabric:gke.deletionProtection": False})
    (cluster,) = plan.of_type(CLUSTER)
    assert cluster.inputs["deletionProtection"] is False


def test_nodes_run_as_a_dedicated_least_privilege_account(a3_plan):
    (account,) = a3_plan.of_type("gcp:serviceaccount/account:Account")
    email = f"{account.inputs['accountId']}@{project_of()}.iam.gserviceaccount.com"
    grants = a3_plan.of_type("gcp:projects/iAMMember:IAMMember")
    # GKE's node role, and the image reads cluster-toolkit grants its node accounts.
    assert sorted(g.inputs["role"] for g in grants) == [
        "roles/artifactregistry.reader",
        "roles/container.defaultNodeServiceAccount",
    ]
    assert {g.inputs["member"] for g in grants} == {f"serviceAccount:{email}"}
    (cluster,) = a3_plan.of_type(CLUSTER)
    assert cluster.inputs["nodeConfig"]["serviceAccount"] == email
    # The cluster's short-lived default pool and every pool run as the account: after its grants.
    for resource in [cluster, *a3_plan.of_type(NODE_POOL)]:
        assert all(a3_plan.depends_on(resource, g) for g in grants), resource.name


def test_the_node_account_roles_are_a_setting_and_are_checked():
    plan = run_stack(
        {"gpu-fabric:gke.nodeAccountRoles": ["roles/container.defaultNodeServiceAccount"]}
    )
    grants = plan.of_type("gcp:projects/iAMMember:IAMMember")
    assert [g.inputs["role"] for g in grants] == ["roles/container.defaultNodeServiceAccount"]
    assert_single_rule(
        {"gpu-fabric:gke.nodeAccountRoles": ["artifactregistry.reader"]},
        "gpu-fabric:gke.nodeAccountRoles[0]",
        "artifactregistry.reader",
        "not an IAM role name: a predefined role (roles/artifactregistry.reader)",
        "a3-prod",
    )
    assert_single_rule(
        {"gpu-fabric:gke.nodeAccountRoles": []},
        "gpu-fabric:gke.nodeAccountRoles",
        [],
        "must not be an empty list",
        "a3-prod",
    )


def test_system_pool_is_small_cpu_and_auto_upgraded_in_the_channel(a3_plan):
    (system,) = [p for p in a3_plan.of_type(NODE_POOL) if p.inputs["name"] == "system"]
    assert system.inputs["nodeConfig"]["machineType"] == "e2-standard-4"
    assert "guestAccelerators" not in system.inputs["nodeConfig"]
    # GKE requires node auto-upgrade in a channel; the exclusion holds minor upgrades back.
    assert system.inputs["management"]["autoUpgrade"] is True


def test_a3_node_pool(a3_plan):
    pool = gpu_pool(a3_plan)
    i = pool.inputs
    assert i["name"] == "a3-highgpu"
    assert i["nodeLocations"] == ["us-central1-c"]
    assert i["nodeCount"] == 2
    assert i["version"] == "1.33.100-gke.1000000"
    assert i["management"] == {"autoUpgrade": True, "autoRepair": True}
    node = i["nodeConfig"]
    assert node["machineType"] == "a3-highgpu-8g"
    assert node["imageType"] == "COS_CONTAINERD"
    assert node["gvnic"] == {"enabled": True}
    assert node["guestAccelerators"] == [
        {
            "type": "nvidia-h100-80gb",
            "count": 8,
            "gpuDriverInstallationConfig": {"gpuDriverVersion": "LATEST"},
        }
    ]
    assert node["ephemeralStorageLocalSsdConfig"] == {"localSsdCount": 16}
    assert i["networkConfig"]["additionalNodeNetworkConfigs"] == [
        {"network": f"a3-prod-net-{n}", "subnetwork": f"a3-prod-sub-{n}"} for n in range(1, 5)
    ]
    assert i["placementPolicy"] == {"type": "COMPACT", "policyName": "a3-prod-a3-highgpu-compact"}
    (policy,) = a3_plan.of_type("gcp:compute/resourcePolicy:ResourcePolicy")
    assert policy.inputs["groupPlacementPolicy"] == {"collocation": "COLLOCATED"}
    assert policy.inputs["region"] == "us-central1"
    assert "reservationAffinity" not in node


def test_node_pool_options_from_config():
    plan = run_stack(
        {
            "gpu-fabric:gpuPool.localSsd": False,
            "gpu-fabric:gpuPool.compactPlacement": False,
            "gpu-fabric:gpuPool.gpuDriverVersion": "DEFAULT",
            "gpu-fabric:gpuPool.reservation": {"name": "h100-res", "project": "shared-proj"},
        }
    )
    pool = gpu_pool(plan)
    node = pool.inputs["nodeConfig"]
    assert "ephemeralStorageLocalSsdConfig" not in node
    assert "placementPolicy" not in pool.inputs
    assert plan.of_type("gcp:compute/resourcePolicy:ResourcePolicy") == []
    assert node["guestAccelerators"][0]["gpuDriverInstallationConfig"] == {
        "gpuDriverVersion": "DEFAULT"
    }
    assert node["reservationAffinity"] == {
        "consumeReservationType": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name",
        "values": ["projects/shared-proj/reservations/h100-res"],
    }


def test_network_objects_match_the_seed(a3_plan):
    param_sets = {p.inputs["metadata"]["name"]: p.inputs for p in a3_plan.of_type(PARAM_SET)}
    networks = {n.inputs["metadata"]["name"]: n.inputs for n in a3_plan.of_type(K8S_NETWORK)}
    assert sorted(param_sets) == sorted(networks) == ["vpc1", "vpc2", "vpc3", "vpc4"]
    for n in range(1, 5):
        assert param_sets[f"vpc{n}"]["spec"] == {
            "vpc": f"a3-prod-net-{n}",
            "vpcSubnet": f"a3-prod-sub-{n}",
            "deviceMode": "NetDevice",
        }
        assert networks[f"vpc{n}"]["spec"] == {
            "type": "Device",
            "parametersRef": {
                "group": "networking.gke.io",
                "kind": "GKENetworkParamSet",
                "name": f"vpc{n}",
            },
        }
    assert "default" not in networks  # GKE manages the default Network itself


def test_every_kubernetes_object_is_bound_to_the_cluster_provider(a3_plan):
    (provider,) = a3_plan.of_type("pulumi:providers:kubernetes")
    (cluster,) = a3_plan.of_type(CLUSTER)
    objects = a3_plan.kubernetes_objects()
    # 4 Networks, 4 param sets, the installer; the training queue's namespace, 4 Kueue objects,
    # the 5 WorkloadPriorityClasses and the fabric's runtime; node health's namespace, the taint
    # controller's 5 objects, its PodMonitoring and ClusterRules.
    assert len(objects) == 28
    assert {o.provider_urn for o in objects} == {provider.urn}
    assert provider.inputs["clusterIdentifier"] == (
        f"projects/{project_of()}/locations/us-central1/clusters/a3-prod"
    )
    assert a3_plan.depends_on(provider, cluster)


def test_kubeconfig_uses_the_auth_plugin_and_is_a_secret(a3_plan):
    (provider,) = a3_plan.of_type("pulumi:providers:kubernetes")
    assert "command: gke-gcloud-auth-plugin" in provider.inputs["kubeconfig"]
    assert "server: https://203.0.113.10" in provider.inputs["kubeconfig"]
    assert "token" not in provider.inputs["kubeconfig"]
    assert "kubeconfig" in a3_plan.secret_outputs


def test_network_objects_wait_for_the_crd_gate(a3_plan):
    (gate,) = [
        c
        for c in a3_plan.of_type(COMMAND)
        if "crd/networks.networking.gke.io" in c.inputs["create"]
    ]
    script = gate.inputs["create"]
    for crd in ("networks.networking.gke.io", "gkenetworkparamsets.networking.gke.io"):
        assert f"crd/{crd}" in script
    assert "kubectl wait --for=create" in script
    assert "--for=condition=Established" in script
    assert gate.inputs["environment"]["GPU_FABRIC_KUBECONFIG"].startswith("apiVersion: v1")
    assert gate.inputs["triggers"] == [
        f"projects/{project_of()}/locations/us-central1/clusters/a3-prod"
    ]
    for obj in a3_plan.of_type(PARAM_SET) + a3_plan.of_type(K8S_NETWORK):
        assert gate.urn in obj.dependencies, obj.name


def test_node_pool_does_not_wait_for_in_cluster_objects(a3_plan):
    pool = gpu_pool(a3_plan)
    for obj in [*a3_plan.kubernetes_objects(), *a3_plan.of_type(COMMAND)]:
        assert not a3_plan.depends_on(pool, obj), obj.name
    (cluster,) = a3_plan.of_type(CLUSTER)
    assert a3_plan.depends_on(pool, cluster)
    for resource in gpu_networks(a3_plan) + in_gpu_vpcs(a3_plan, SUBNET):
        assert a3_plan.depends_on(pool, resource), resource.name


def test_gpu_vpcs_wait_for_nothing_else(a3_plan):
    gpu_resources = in_gpu_vpcs(a3_plan)
    assert len(gpu_resources) == 12
    vpc_of = {r.urn: r.parent for r in gpu_resources}
    (cluster,) = a3_plan.of_type(CLUSTER)
    for resource in gpu_resources:
        for other in gpu_resources:
            if vpc_of[other.urn] != vpc_of[resource.urn]:
                assert not a3_plan.depends_on(resource, other), (resource.name, other.name)
        assert not a3_plan.depends_on(resource, cluster)
    assert not any(a3_plan.depends_on(cluster, r) for r in gpu_resources)


def test_installer_waits_for_the_cluster_only(a3_plan):
    (daemon_set,) = a3_plan.of_type(DAEMON_SET)
    assert not a3_plan.depends_on(daemon_set, gpu_pool(a3_plan))
    assert daemon_set.dependencies == []  # the provider carries the cluster dependency


def test_smoke_test_is_off_by_default_and_waits_for_the_fabric():
    plan = run_stack({"gpu-fabric:smokeTest": True})
    pods = plan.of_type("kubernetes:core/v1:Pod")
    assert sorted(p.inputs["metadata"]["name"] for p in pods) == [
        "nccl-test-host-1",
        "nccl-test-host-2",
    ]
    (daemon_set,) = plan.of_type(DAEMON_SET)
    for pod in pods:
        spec = pod.inputs["spec"]
        assert spec["hostNetwork"] is True
        assert spec["containers"][0]["name"] == "tcpx-daemon"
        assert spec["containers"][0]["image"].endswith("tcpgpudmarxd-dev:v2.0.12")
        assert plan.depends_on(pod, gpu_pool(plan))
        assert plan.depends_on(pod, daemon_set)
        for obj in plan.of_type(K8S_NETWORK):
            assert plan.depends_on(pod, obj)
    services = plan.of_type("kubernetes:core/v1:Service")
    assert len(services) == 2
    # In a namespace of their own, which they wait for; replaced old ones first (a new
    # pod needs the GPUs the old one holds).
    (namespace,) = [
        n
        for n in plan.of_type("kubernetes:core/v1:Namespace")
        if n.inputs["metadata"]["name"] == "gpu-fabric-smoke-test"
    ]
    for obj in [*pods, *services]:
        assert obj.inputs["metadata"]["namespace"] == "gpu-fabric-smoke-test"
        assert plan.depends_on(obj, namespace) and obj.delete_before_replace
    # Upstream's all-gather scripts (gpudirect-tcpx/nccl-config.yaml, verbatim) in the same
    # namespace, before the pods that mount them.
    (scripts,) = [
        c
        for c in plan.of_type("kubernetes:core/v1:ConfigMap")
        if c.inputs["metadata"]["namespace"] == "gpu-fabric-smoke-test"
    ]
    upstream = yaml_files.read(tcpx.NCCL_CONFIG_FILE)
    assert scripts.inputs["data"] == upstream["data"]
    assert scripts.inputs["metadata"] == {
        "name": "nccl-configmap",
        "namespace": "gpu-fabric-smoke-test",
    }
    for pod in pods:
        assert plan.depends_on(pod, scripts)
        (volume,) = [v for v in pod.inputs["spec"]["volumes"] if v["name"] == "config-volume"]
        assert volume["configMap"] == {"name": "nccl-configmap", "defaultMode": 0o777}


def test_smoke_test_pods_wait_long_enough_for_gpu_scheduling_and_the_driver(monkeypatch):
    # pulumi-kubernetes waits 10 minutes for a Pod by default, too short for a
    # GPU pod that waits for its node's driver and the installer's plugin.
    import pulumi_kubernetes as k8s

    seen: dict[str, object] = {}
    real = k8s.core.v1.Pod

    class Spy(real):  # type: ignore[misc, valid-type]
        def __init__(self, resource_name, opts=None, **kwargs):
            seen[resource_name] = opts.custom_timeouts if opts else None
            super().__init__(resource_name, opts, **kwargs)

    monkeypatch.setattr(k8s.core.v1, "Pod", Spy)
    plan = run_stack({"gpu-fabric:smokeTest": True}, cached=False)
    assert len(seen) == 2 == len(plan.of_type("kubernetes:core/v1:Pod"))
    for timeouts in seen.values():
        assert (timeouts.create, timeouts.update) == ("30m", "30m")


def test_existing_primary_network_is_used_by_name():
    plan = run_stack(
        {
            "gpu-fabric:network.primary": {
                "existing": {
                    "network": "shared-vpc",
                    "subnetwork": "shared-sub",
                    "podsRangeName": "gke-pods",
                    "servicesRangeName": "gke-svc",
                }
            }
        }
    )
    assert not [r for r in plan.resources if "primary" in r.name]
    (cluster,) = plan.of_type(CLUSTER)
    assert cluster.inputs["network"] == "shared-vpc"
    assert cluster.inputs["subnetwork"] == "shared-sub"
    assert cluster.inputs["ipAllocationPolicy"] == {
        "clusterSecondaryRangeName": "gke-pods",
        "servicesSecondaryRangeName": "gke-svc",
    }


def test_image_overrides_reach_the_installer():
    plan = run_stack(
        {
            "gpu-fabric:images": {
                "tcpx": {
                    "installer": "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/"
                    "nccl-plugin-gpudirecttcpx-dev:v3.1.12",
                    "daemon": "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/"
                    "tcpgpudmarxd-dev:v2.0.15",
                },
                "pause": "registry.example/pause:3.10",
            }
        }
    )
    (daemon_set,) = plan.of_type(DAEMON_SET)
    pod = daemon_set.inputs["spec"]["template"]["spec"]
    assert pod["initContainers"][0]["image"].endswith(":v3.1.12")
    assert pod["containers"][0]["image"] == "registry.example/pause:3.10"


def test_stack_outputs(a3_plan):
    assert a3_plan.outputs["gpuNetworks"] == [f"a3-prod-net-{n}" for n in range(1, 5)]
    assert a3_plan.outputs["networkObjects"] == ["vpc1", "vpc2", "vpc3", "vpc4"]
    assert a3_plan.outputs["gpuNodePool"] == "a3-highgpu"


def test_components_have_typed_tokens_and_derived_child_names(a3_plan):
    components = [r for r in a3_plan.resources if not r.custom]
    assert {c.type for c in components} == {
        "gpu-fabric:gke:GpuCluster",
        "gpu-fabric:index:GkeCloud",
        "gpu-fabric:index:GkeFabric",
        "gpu-fabric:gcp:GpuVpc",
        "gpu-fabric:gcp:PrimaryNetwork",
        "gpu-fabric:gke:Cluster",
        "gpu-fabric:gke:GpuNodePool",
        "gpu-fabric:gke:NetworkObjects",
        "gpu-fabric:gke:NcclInstaller",
        "gpu-fabric:k8s:CrdGate",
        "gpu-fabric:k8s:UsableNodes",
        "gpu-fabric:workloads:TrainingQueue",
        "gpu-fabric:health:NodeHealth",
    }
    for resource in a3_plan.resources:
        if resource.parent and not resource.parent.endswith("::gpu-fabric-a3-prod"):
            parent = a3_plan.by_urn(resource.parent)
            assert resource.name.startswith(parent.name), (resource.name, parent.name)


def test_the_smoke_test_on_fewer_than_two_gpu_nodes_is_refused():
    """The guide's test is two pods, each taking a node's 8 GPUs."""
    from tests.conftest import assert_single_rule

    assert_single_rule(
        {"gpu-fabric:smokeTest": True, "gpu-fabric:gpuPool.nodeCount": 1},
        "gpu-fabric:smokeTest",
        True,
        "runs on two GPU nodes, and the stack has 1",
        "a3-prod",
    )
