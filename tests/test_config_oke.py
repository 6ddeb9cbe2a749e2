"""Every oke-dranet validation rule, triggered: each names the key, the bad value and the fix."""

from __future__ import annotations

import pytest

from gpu_fabric.problems import ConfigError
from tests.conftest import (
    DELETE,
    OKE_EXISTING_VCN,
    assert_registers_nothing,
    assert_single_rule,
    only_problem,
    parse_stack,
)

STACK = "oke-dranet"


def claims(*shapes: dict) -> dict:
    return {"gpu-fabric:claims": list(shapes)}


def test_committed_stack_is_valid():
    cfg = parse_stack({}, stack=STACK)
    assert cfg.platform == STACK
    assert cfg.child_cidr == "10.208.0.0/12"
    assert [c.name for c in cfg.claims][:2] == ["all-rails", "aligned-8gpu-16rails"]


# (changes, key, value, what the message must say): one row per rule.
RULES = {
    "Kubernetes below v1.34": (
        {"gpu-fabric:oke.kubernetesVersion": "v1.33.1"},
        "gpu-fabric:oke.kubernetesVersion",
        "v1.33.1",
        "pick v1.34.x or newer",
    ),
    "tenancy root compartment without a join tag": (
        {"gpu-fabric:compartmentId": "ocid1.tenancy.oc1..aaaaaaaaexampletenancy"},
        "gpu-fabric:gpuNodes.joinTag",
        None,
        "every instance of the root compartment may join",
    ),
    "home region that is not a region": (
        {"gpu-fabric:oke.homeRegion": "Ashburn"},
        "gpu-fabric:oke.homeRegion",
        "Ashburn",
        "the tenancy's home region",
    ),
    "Kubernetes version without the v": (
        {"gpu-fabric:oke.kubernetesVersion": "1.36.1"},
        "gpu-fabric:oke.kubernetesVersion",
        "1.36.1",
        "with a leading v",
    ),
    "pod CIDR inside the child range": (
        {
            "gpu-fabric:oke.cni": "FLANNEL_OVERLAY",
            "gpu-fabric:oke.podsCidr": "10.208.0.0/16",
            "gpu-fabric:network.podsSubnetCidr": DELETE,
        },
        "gpu-fabric:oke.podsCidr",
        "10.208.0.0/16",
        "overlaps the pod range",
    ),
    "service CIDR inside the child range": (
        {"gpu-fabric:oke.servicesCidr": "10.210.0.0/16"},
        "gpu-fabric:oke.servicesCidr",
        "10.210.0.0/16",
        "DRANET child range 10.208.0.0/12 (DRANET's default; set gpu-fabric:dranet.childCidr",
    ),
    "child range overlapping the VCN": (
        {"gpu-fabric:dranet": {"childCidr": "10.128.0.0/11"}},
        "gpu-fabric:dranet.childCidr",
        "10.128.0.0/11",
        "overlaps the VCN 10.140.0.0/16",
    ),
    "child range overlapping Oracle Cloud Agent's": (
        {"gpu-fabric:dranet": {"childCidr": "10.224.0.0/12"}},
        "gpu-fabric:dranet.childCidr",
        "10.224.0.0/12",
        "overlaps the RDMA range of Oracle Cloud Agent 10.224.0.0/12",
    ),
    "child prefix too short for the workers subnet": (
        {"gpu-fabric:dranet": {"childCidr": "10.208.0.0/16"}},
        "gpu-fabric:dranet.childCidr",
        "10.208.0.0/16",
        "16 rails need a child prefix 4 bits shorter than the workers subnet 10.140.64.0/19, "
        "/15 or shorter",
    ),
    "more GPUs than a node has": (
        claims({"name": "big", "gpus": 16, "rails": 16}),
        "gpu-fabric:claims[0]",
        None,
        "a BM.GPU.B4.8 node has 8 GPUs and 16 rails",
    ),
    "more rails than a node has": (
        claims({"name": "big", "gpus": 0, "rails": 32, "aligned": False}),
        "gpu-fabric:claims[0]",
        None,
        "a BM.GPU.B4.8 node has 8 GPUs and 16 rails",
    ),
    "the seed's shape-root: 4 GPUs and 16 rails on one root": (
        claims({"name": "shape-root", "gpus": 4, "rails": 16, "roots": 1}),
        "gpu-fabric:claims[0]",
        None,
        "no PCIe root has 4 GPUs and 16 rails (each BM.GPU.B4.8 root has 2 GPUs and 4 rails)",
    ),
    "rails not a multiple of the roots": (
        claims({"name": "odd", "gpus": 4, "rails": 5}),
        "gpu-fabric:claims[0]",
        None,
        "4 GPUs and 5 rails cannot be split evenly over any number of PCIe roots",
    ),
    "GPUs not a multiple of the roots asked for": (
        claims({"name": "odd", "gpus": 3, "rails": 6, "roots": 2}),
        "gpu-fabric:claims[0]",
        None,
        "make both multiples of the roots",
    ),
    "more roots than a node has": (
        claims({"name": "wide", "gpus": 8, "rails": 16, "roots": 8}),
        "gpu-fabric:claims[0]",
        None,
        "a BM.GPU.B4.8 node has 4",
    ),
    "aligned claim without GPUs": (
        claims({"name": "rails-only", "gpus": 0, "rails": 8}),
        "gpu-fabric:claims[0]",
        None,
        "or aligned: false",
    ),
    "a claim of nothing": (
        claims({"name": "none", "gpus": 0, "rails": 0, "aligned": False}),
        "gpu-fabric:claims[0]",
        None,
        "claims no device",
    ),
    "roots on an unaligned claim": (
        claims({"name": "any", "gpus": 4, "rails": 16, "aligned": False, "roots": 2}),
        "gpu-fabric:claims[0]",
        None,
        "roots has no effect with aligned: false",
    ),
    "two claims of one name": (
        claims({"name": "same", "gpus": 2, "rails": 4}, {"name": "same", "gpus": 4, "rails": 8}),
        "gpu-fabric:claims[1].name",
        "same",
        "another claim has this name",
    ),
    "claim name that is not a DNS label": (
        claims({"name": "Aligned_8", "gpus": 8, "rails": 16}),
        "gpu-fabric:claims[0].name",
        "Aligned_8",
        "lowercase letters, digits and hyphens",
    ),
    "compartment OCID of the wrong kind": (
        {"gpu-fabric:compartmentId": "ocid1.vcn.oc1.iad.aaaaexample"},
        "gpu-fabric:compartmentId",
        "ocid1.vcn.oc1.iad.aaaaexample",
        "an OCID of a vcn, but this key takes the OCID of a compartment or tenancy",
    ),
    "image OCID of the wrong kind": (
        {"gpu-fabric:gpuNodes.imageId": "ocid1.compartment.oc1..aaaaexample"},
        "gpu-fabric:gpuNodes.imageId",
        "ocid1.compartment.oc1..aaaaexample",
        "takes the OCID of a image",
    ),
    "tenancy that is not an OCID": (
        {"oci:tenancyOcid": "my-tenancy"},
        "oci:tenancyOcid",
        "my-tenancy",
        "not an OCID",
    ),
    "availability domain outside the region": (
        {"gpu-fabric:gpuNodes.availabilityDomain": "Uocm:PHX-AD-1"},
        "gpu-fabric:gpuNodes.availabilityDomain",
        "Uocm:PHX-AD-1",
        "not an availability domain of us-ashburn-1",
    ),
    "region that is not an OCI region": (
        {"oci:region": "ashburn"},
        "oci:region",
        "ashburn",
        "not an OCI region identifier",
    ),
    "subnet outside the VCN": (
        {"gpu-fabric:network.workersSubnetCidr": "10.150.64.0/19"},
        "gpu-fabric:network.workersSubnetCidr",
        "10.150.64.0/19",
        "is not inside the VCN 10.140.0.0/16",
    ),
    "overlapping subnets": (
        {"gpu-fabric:network.loadBalancerSubnetCidr": "10.140.0.0/24"},
        "gpu-fabric:network.loadBalancerSubnetCidr",
        "10.140.0.0/24",
        "overlaps gpu-fabric:network.apiSubnetCidr",
    ),
    "service range inside the VCN": (
        {"gpu-fabric:oke.servicesCidr": "10.140.250.0/24"},
        "gpu-fabric:oke.servicesCidr",
        "10.140.250.0/24",
        "overlaps the VCN",
    ),
    "pod overlay range with the VCN-native CNI": (
        {"gpu-fabric:oke.podsCidr": "10.244.0.0/16"},
        "gpu-fabric:oke.podsCidr",
        "10.244.0.0/16",
        "has no effect with the VCN-native CNI",
    ),
    "pod subnet with flannel": (
        {"gpu-fabric:oke.cni": "FLANNEL_OVERLAY"},
        "gpu-fabric:network.podsSubnetCidr",
        "10.140.128.0/17",
        "has no effect with FLANNEL_OVERLAY",
    ),
    "ranges beside an existing VCN": (
        {"gpu-fabric:network": {"vcnCidr": "10.140.0.0/16", "existing": OKE_EXISTING_VCN}},
        "gpu-fabric:network.vcnCidr",
        "10.140.0.0/16",
        "has no effect with network.existing",
    ),
    "existing VCN without a pod subnet for VCN-native pods": (
        {
            "gpu-fabric:network": {
                "existing": {
                    k: v for k, v in OKE_EXISTING_VCN.items() if not k.startswith("podsSubnet")
                }
            }
        },
        "gpu-fabric:network.existing.podsSubnetId",
        None,
        "the VCN-native CNI needs a pod subnet",
    ),
    "NCCL jobs without an aligned claim": (
        {
            "gpu-fabric:ncclTests": True,
            **claims({"name": "all-rails", "gpus": 0, "rails": 16, "aligned": False}),
        },
        "gpu-fabric:ncclTests",
        True,
        "none is declared",
    ),
    "NCCL jobs on one node": (
        {"gpu-fabric:ncclTests": ["aligned-8gpu-16rails"], "gpu-fabric:gpuNodes.count": 1},
        "gpu-fabric:ncclTests",
        True,
        "need 2 GPU nodes",
    ),
    "a public endpoint in the private VCN this stack creates": (
        {"gpu-fabric:oke.publicEndpoint": True},
        "gpu-fabric:oke.publicEndpoint",
        True,
        "cannot get a public IP",
    ),
    "a VCN inside Oracle Cloud Agent's RDMA range": (
        {
            "gpu-fabric:network": {
                "vcnCidr": "10.224.0.0/16",
                "apiSubnetCidr": "10.224.0.0/28",
                "loadBalancerSubnetCidr": "10.224.1.0/24",
                "workersSubnetCidr": "10.224.64.0/19",
                "podsSubnetCidr": "10.224.128.0/17",
            }
        },
        "gpu-fabric:network.vcnCidr",
        "10.224.0.0/16",
        "the range Oracle Cloud Agent gives the RDMA rails",
    ),
    "a cluster name that starts with a digit": (
        {"gpu-fabric:oke.name": "1oke"},
        "gpu-fabric:oke.name",
        "1oke",
        "starting with a letter",
    ),
    "NCCL jobs that cannot run together": (
        {"gpu-fabric:ncclTests": True},
        "gpu-fabric:ncclTests",
        True,
        "need 18 GPUs per node at once and a node has 8, so they can deadlock",
    ),
    "an NCCL job over a claim that is not aligned": (
        {"gpu-fabric:ncclTests": ["all-rails"]},
        "gpu-fabric:ncclTests[0]",
        "all-rails",
        "not an aligned claim of gpu-fabric:claims",
    ),
    "a join tag that is not a tag name": (
        {"gpu-fabric:gpuNodes.joinTag": {"namespace": "gpu fabric", "key": "cluster"}},
        "gpu-fabric:gpuNodes.joinTag.namespace",
        "gpu fabric",
        "letters, digits, - and _ only",
    ),
    "a shape that is not in the catalog": (
        {"gpu-fabric:gpuNodes.shape": "BM.GPU.H100.8"},
        "gpu-fabric:gpuNodes.shape",
        "BM.GPU.H100.8",
        "use one of: BM.GPU.B4.8",
    ),
    "a GKE key on an OKE stack": (
        {"gpu-fabric:gke": {"name": "x"}},
        "gpu-fabric:gke",
        None,
        "not for platform oke-dranet: a key of gke-a3-high and gke-a4x",
    ),
    "gcp:project on an OKE stack": (
        {"gcp:project": "my-project"},
        "gcp:project",
        "my-project",
        "not for platform oke-dranet",
    ),
    "a typo in an OKE key": (
        {"gpu-fabric:oke.kubernetesVersoin": "v1.36.1"},
        "gpu-fabric:oke.kubernetesVersoin",
        "v1.36.1",
        "did you mean 'kubernetesVersion'?",
    ),
    "a source range open to the internet": (
        {"gpu-fabric:network.apiAllowedCidrs": ["0.0.0.0/0"]},
        "gpu-fabric:network.apiAllowedCidrs[0]",
        "0.0.0.0/0",
        "open to the whole internet is refused",
    ),
}


@pytest.mark.parametrize("rule", list(RULES))
def test_single_rule(rule):
    assert_single_rule(*RULES[rule], stack=STACK)


@pytest.mark.parametrize(
    "changes, key",
    [
        ({"gpu-fabric:gpuNodes": {"count": 2}}, "gpu-fabric:gpuNodes"),
        ({"oci:tenancyOcid": "ocid1.tenancy.oc1..aaaa"}, "oci:tenancyOcid"),
    ],
)
def test_oke_keys_on_a_gke_stack_name_their_platform(changes, key):
    problem = only_problem(changes, stack="a3-prod")
    assert problem.key == key
    assert "not for platform gke-a3-high: a key of oke-dranet" in problem.message


def test_availability_domains_of_the_older_and_newer_naming():
    for region, ad, place in (
        ("us-ashburn-1", "Uocm:US-ASHBURN-AD-3", "iad"),
        ("us-phoenix-1", "Uocm:PHX-AD-1", "phx"),
        ("ap-mumbai-1", "Uocm:AP-MUMBAI-1-AD-1", "ap-mumbai-1"),
    ):
        changes = {
            "oci:region": region,
            "gpu-fabric:gpuNodes.availabilityDomain": ad,
            # Images are regional: each region's own.
            "gpu-fabric:gpuNodes.imageId": f"ocid1.image.oc1.{place}.aaaaaaaaexamplegpuimage",
            "gpu-fabric:oke.systemPool.imageId": f"ocid1.image.oc1.{place}.aaaaaaaaexampleoke",
        }
        cfg = parse_stack(changes, stack=STACK)
        assert cfg.gpu_nodes.availability_domain == ad


def test_a_child_range_that_fits_is_accepted():
    cfg = parse_stack({"gpu-fabric:dranet": {"childCidr": "10.192.0.0/15"}}, stack=STACK)
    assert cfg.child_cidr == "10.192.0.0/15"


def test_error_text_names_key_value_and_fix():
    with pytest.raises(ConfigError) as err:
        parse_stack({"gpu-fabric:oke.servicesCidr": "10.210.0.0/16"}, stack=STACK)
    text = str(err.value)
    # The cloud stack alone is fine: its fabric stack, which holds DRANET's range, refuses it.
    assert "stack 'oke-dranet-fabric': 1 configuration problem(s)" in text
    assert "a key of the cloud stack oke-dranet" in text
    assert 'gpu-fabric:oke.servicesCidr: "10.210.0.0/16": the DRANET child range' in text
    assert "pick ranges that do not overlap" in text


@pytest.mark.parametrize("rule", list(RULES))
def test_bad_config_registers_nothing(rule):
    assert_registers_nothing(RULES[rule][0], STACK)


@pytest.mark.parametrize(
    "gpus, rails, roots", [(8, 16, 4), (4, 8, 2), (2, 4, 1), (4, 6, 2), (2, 1, 1), (1, 4, 1)]
)
def test_aligned_claims_spread_over_the_fewest_roots_that_hold_them(gpus, rails, roots):
    cfg = parse_stack(claims({"name": "c", "gpus": gpus, "rails": rails}), stack=STACK)
    from gpu_fabric.oke.claims.plan import plan_claim

    plan = plan_claim(cfg.claims[0], cfg.shape, cfg.gpu_nodes.shape)
    assert plan.roots == roots


def test_a_cloud_stack_that_admits_no_range_to_its_api_warns_where_the_fabric_runner_must_be():
    from tests.conftest import run_stack

    warned = [w for w in run_stack(stack="oke-dranet").warnings if "apiAllowedCidrs" in w]
    assert len(warned) == 1 and "must run on a host inside the VCN" in warned[0]
    assert "port 6443" in warned[0] and "OCI Bastion" in warned[0]
    listed = run_stack(
        {"gpu-fabric:network.apiAllowedCidrs": ["192.168.10.0/24"]}, stack="oke-dranet"
    )
    assert not [w for w in listed.warnings if "apiAllowedCidrs" in w]


def test_an_existing_pod_subnet_has_no_effect_with_flannel():
    from tests.conftest import OKE_EXISTING_VCN, problems

    found = problems(
        {
            "gpu-fabric:network": {"existing": OKE_EXISTING_VCN},
            "gpu-fabric:oke.cni": "FLANNEL_OVERLAY",
        },
        stack="oke-dranet",
    )
    assert [p.key for p in found] == [
        "gpu-fabric:network.existing.podsSubnetId",
        "gpu-fabric:network.existing.podsSubnetCidr",
    ]
    assert all("has no effect with FLANNEL_OVERLAY" in p.message for p in found)
