"""OKE and ACK places (regions, availability domains, zones and
the region of an image, from the providers' published lists in the catalog), ranges (reserved
ranges and the capacity a range must hold) and free text with a grammar (shapes, ECS instance
types, key pair names, zone ids). Each rule is triggered, and each limit is tried on both sides;
every problem names the key, the value and the fix."""

from __future__ import annotations

import pytest

from gpu_fabric.catalog import catalog, closest_known
from tests.conftest import DELETE, assert_single_rule, parse_stack

OKE, ACK = "oke-dranet", "ack-lingjun"
IMAGE = "ocid1.image.oc1.{}.aaaaaaaaexampleimage"


def oke_in(region: str, ad: str, place: str) -> dict:
    """An oke-dranet stack moved to `region`: its AD and both images (images are regional)."""
    return {
        "oci:region": region,
        "gpu-fabric:gpuNodes.availabilityDomain": ad,
        "gpu-fabric:gpuNodes.imageId": IMAGE.format(place),
        "gpu-fabric:oke.systemPool.imageId": IMAGE.format(place),
    }


# --- the catalog's lists, with their sources ----------------------------------------------------


def test_oci_regions_name_their_source_and_the_multi_ad_regions():
    regions = catalog().oke.regions
    assert "docs.oracle.com/en-us/iaas/Content/General/Concepts/regions.htm" in regions.source
    assert "2026-12-01" in regions.source
    three = {n for n, r in regions.regions.items() if r.availability_domains == 3}
    assert three == {
        "us-ashburn-1",
        "us-phoenix-1",
        "us-chicago-1",
        "eu-frankfurt-1",
        "uk-london-1",
    }
    assert regions.regions["us-ashburn-1"].key == "iad"
    assert regions.regions["ap-mumbai-1"].availability_domains == 1
    assert regions.named("PHX") == "us-phoenix-1"
    assert regions.named("us-chicago-1") == "us-chicago-1"
    assert regions.named("us-ashburn-2") is None


def test_ack_reserved_ranges_and_addresses_name_their_sources():
    ack = catalog().ack
    assert [r.cidr for r in ack.vpc_reserved_ranges] == ["100.64.0.0/10"]
    assert all("2026-12-01" in r.source for r in ack.vpc_reserved_ranges)
    assert ack.vswitch_reserved_addresses.count == 4
    assert "CreateVSwitch" in ack.vswitch_reserved_addresses.source


@pytest.mark.parametrize(
    "value, known, guess",
    [
        ("vm.standard.e5.flex", ["VM.Standard.E5.Flex"], "VM.Standard.E5.Flex"),
        (" BM.GPU.B4.8 ", ["BM.GPU.B4.8"], "BM.GPU.B4.8"),
        ("BM.GPU.B4-8", ["BM.GPU.B4.8"], "BM.GPU.B4.8"),
        ("BM.GPU.H100.8", ["BM.GPU.B4.8"], None),  # another shape, not a slip
    ],
)
def test_closest_known(value, known, guess):
    assert closest_known(value, known) == guess


# --- OKE: oci:region and oke.homeRegion are OCI regions -----------------------------------------


@pytest.mark.parametrize(
    "region, says",
    [
        ("us-ashburn-2", "did you mean 'us-ashburn-1'?"),
        ("IAD", "did you mean 'us-ashburn-1'?"),  # the region key, not its identifier
        ("US-ASHBURN-1", "did you mean 'us-ashburn-1'?"),
        ("us-phenix-1", "did you mean 'us-phoenix-1'?"),
        ("mars-north-1", "use one such as us-ashburn-1"),
    ],
)
def test_an_unknown_oci_region_is_refused_with_a_guess(region, says):
    assert_single_rule({"oci:region": region}, "oci:region", region, says, OKE)
    assert_single_rule(
        {"oci:region": region}, "oci:region", region, "not an OCI region identifier", OKE
    )


@pytest.mark.parametrize(
    "region, ad, place",
    [
        ("us-ashburn-1", "Uocm:US-ASHBURN-AD-1", "iad"),
        ("us-chicago-1", "Uocm:US-CHICAGO-1-AD-3", "us-chicago-1"),
        ("us-chicago-1", "Uocm:US-CHICAGO-1-AD-1", "ord"),
        ("eu-frankfurt-1", "Uocm:EU-FRANKFURT-1-AD-2", "eu-frankfurt-1"),
        ("ap-mumbai-1", "Uocm:AP-MUMBAI-1-AD-1", "bom"),
    ],
)
def test_a_known_region_with_its_ad_and_images_is_accepted(region, ad, place):
    assert parse_stack(oke_in(region, ad, place), OKE).oci_region == region


@pytest.mark.parametrize("home", ["us-ashburn-1", "eu-frankfurt-1", "us-gov-ashburn-1"])
def test_a_known_home_region_is_accepted(home):
    assert parse_stack({"gpu-fabric:oke.homeRegion": home}, OKE).oke.home_region == home


@pytest.mark.parametrize(
    "home, says", [("us-ashburn-2", "did you mean 'us-ashburn-1'?"), ("FRA", "'eu-frankfurt-1'")]
)
def test_an_unknown_home_region_is_refused_with_a_guess(home, says):
    key = "gpu-fabric:oke.homeRegion"
    assert_single_rule({key: home}, key, home, says, OKE)
    assert_single_rule({key: home}, key, home, "the tenancy's home region", OKE)


# --- OKE: the availability domain is one of oci:region's -----------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3])
def test_every_ad_of_a_three_ad_region_is_accepted(n):
    ad = f"Uocm:US-ASHBURN-AD-{n}"
    changes = {"gpu-fabric:gpuNodes.availabilityDomain": ad}
    assert parse_stack(changes, OKE).gpu_nodes.availability_domain == ad


def test_an_ad_number_past_the_regions_last_is_refused():
    assert_single_rule(
        {"gpu-fabric:gpuNodes.availabilityDomain": "Uocm:US-ASHBURN-AD-4"},
        "gpu-fabric:gpuNodes.availabilityDomain",
        "Uocm:US-ASHBURN-AD-4",
        "us-ashburn-1 has 3: AD-1 to AD-3; use one of Uocm:US-ASHBURN-AD-1 to "
        "Uocm:US-ASHBURN-AD-3 (`oci iam availability-domain list`; the catalog's oke.regions",
        OKE,
    )


def test_a_second_ad_in_a_one_ad_region_is_refused():
    changes = oke_in("ap-mumbai-1", "Uocm:AP-MUMBAI-1-AD-2", "bom")
    assert_single_rule(
        changes,
        "gpu-fabric:gpuNodes.availabilityDomain",
        "Uocm:AP-MUMBAI-1-AD-2",
        "ap-mumbai-1 has one availability domain, AD-1; use Uocm:AP-MUMBAI-1-AD-1",
        OKE,
    )


@pytest.mark.parametrize(
    "ad, other",
    [
        ("Uocm:PHX-AD-1", "us-phoenix-1"),
        ("Uocm:US-CHICAGO-1-AD-1", "us-chicago-1"),
        ("Uocm:EU-FRANKFURT-1-AD-1", "eu-frankfurt-1"),
    ],
)
def test_an_ad_of_another_region_is_refused_and_named(ad, other):
    assert_single_rule(
        {"gpu-fabric:gpuNodes.availabilityDomain": ad},
        "gpu-fabric:gpuNodes.availabilityDomain",
        ad,
        f"not an availability domain of us-ashburn-1 (it names {other}); use one of its names",
        OKE,
    )


# --- OKE: every image is in oci:region -----------------------------------------------------------


IMAGE_KEYS = ["gpu-fabric:gpuNodes.imageId", "gpu-fabric:oke.systemPool.imageId"]


@pytest.mark.parametrize("key", IMAGE_KEYS)
@pytest.mark.parametrize(
    "image, says",
    [
        (IMAGE.format("phx"), "an image of us-phoenix-1 (phx); images are regional"),
        (IMAGE.format("us-phoenix-1"), "an image of us-phoenix-1 (us-phoenix-1)"),
        (IMAGE.format("eu-frankfurt-1"), "an image of eu-frankfurt-1"),
        (IMAGE.format("xyz"), "an image of 'xyz', which is not us-ashburn-1 (or its key iad)"),
        (
            "ocid1.image.oc2.iad.aaaaaaaaexampleimage",
            "an OCID of realm oc2, and us-ashburn-1 is in realm oc1",
        ),
    ],
)
def test_an_image_of_another_region_is_refused(key, image, says):
    assert_single_rule({key: image}, key, image, says, OKE)
    assert_single_rule({key: image}, key, image, "use the image's OCID in us-ashburn-1", OKE)


@pytest.mark.parametrize("key", IMAGE_KEYS)
@pytest.mark.parametrize("place", ["iad", "us-ashburn-1"])
def test_an_image_of_the_region_by_key_or_name_is_accepted(key, place):
    parse_stack({key: IMAGE.format(place)}, OKE)


# --- OKE: service and flannel pod ranges outside Oracle Cloud Agent's RDMA range ----------------

FLANNEL = {"gpu-fabric:oke.cni": "FLANNEL_OVERLAY", "gpu-fabric:network.podsSubnetCidr": DELETE}


@pytest.mark.parametrize(
    "cidr", ["10.224.0.0/16", "10.230.0.0/16", "10.239.254.0/23", "10.224.0.0/12"]
)
def test_a_flannel_pod_range_in_the_oca_rdma_range_is_refused(cidr):
    assert_single_rule(
        {**FLANNEL, "gpu-fabric:oke.podsCidr": cidr},
        "gpu-fabric:oke.podsCidr",
        cidr,
        "overlaps 10.224.0.0/12, the range Oracle Cloud Agent gives the RDMA rails",
        OKE,
    )


@pytest.mark.parametrize("cidr", ["10.240.0.0/16", "10.244.0.0/16", "10.240.0.0/12"])
def test_a_flannel_pod_range_just_past_the_oca_range_is_accepted(cidr):
    assert parse_stack({**FLANNEL, "gpu-fabric:oke.podsCidr": cidr}, OKE).oke.pods_cidr == cidr


@pytest.mark.parametrize("cidr", ["10.224.0.0/16", "10.230.0.0/16", "10.239.255.0/24"])
def test_a_service_range_in_the_oca_rdma_range_is_refused(cidr):
    assert_single_rule(
        {"gpu-fabric:oke.servicesCidr": cidr},
        "gpu-fabric:oke.servicesCidr",
        cidr,
        "overlaps 10.224.0.0/12, the range Oracle Cloud Agent gives the RDMA rails (refused for "
        "the VCN too); pick a range outside it, e.g. 10.96.0.0/16",
        OKE,
    )


@pytest.mark.parametrize("cidr", ["10.240.0.0/24", "10.96.0.0/16"])
def test_a_service_range_outside_the_oca_range_is_accepted(cidr):
    assert parse_stack({"gpu-fabric:oke.servicesCidr": cidr}, OKE).oke.services_cidr == cidr


# --- OKE: shapes have OCI's grammar, with a guess ------------------------------------------------


@pytest.mark.parametrize(
    "shape, says",
    [
        ("vm.standard.e5.flex", "did you mean 'VM.Standard.E5.Flex'?"),
        ("VM.Standard.E5.Flex ", "did you mean 'VM.Standard.E5.Flex'?"),
        ("Standard.E5.Flex", "did you mean 'VM.Standard.E5.Flex'?"),
        ("VM Standard E5 Flex", "did you mean 'VM.Standard.E5.Flex'?"),
        ("n2-standard-8", "e.g. VM.Standard.E5.Flex or BM.GPU.B4.8"),
    ],
)
def test_a_system_shape_outside_ocis_grammar_is_refused(shape, says):
    key = "gpu-fabric:oke.systemPool.shape"
    assert_single_rule({key: shape}, key, shape, says, OKE)
    assert_single_rule({key: shape}, key, shape, "not an OCI shape name", OKE)


@pytest.mark.parametrize(
    "shape",
    [
        *("VM.Standard.E5.Flex", "VM.Standard3.Flex", "BM.Standard.E5.192", "VM.New9.Flex"),
        "VM.Standard.X9-v2.Flex",  # hyphens, as in OCI's BM.GPU.A100-v2.8 and BM.GPU.L40S-NC.4
    ],
)
def test_a_system_shape_of_ocis_grammar_is_accepted(shape):
    # A name the catalog does not list is accepted: the list only feeds the guess.
    key = "gpu-fabric:oke.systemPool.shape"
    assert parse_stack({key: shape}, OKE).oke.system_pool.shape == shape


@pytest.mark.parametrize(
    "shape, says",
    [
        ("BM.GPU.B4_8", "not an OCI shape name"),  # grammar
        ("bm.gpu.b4.8", "not an OCI shape name"),  # grammar (case)
        ("BM.GPU.B4-8", "not a GPU shape of the catalog for oke-dranet"),  # a hyphen is OCI's
        ("BM.GPU.B4.4", "not a GPU shape of the catalog for oke-dranet"),  # catalog
    ],
)
def test_a_gpu_shape_slip_is_refused_with_the_catalogs_shape(shape, says):
    # BM.GPU.A100-v2.8 is a real shape: hyphens are in OCI's grammar, so a slip to one is
    # caught by the catalog.
    key = "gpu-fabric:gpuNodes.shape"
    assert_single_rule({key: shape}, key, shape, says, OKE)
    assert_single_rule({key: shape}, key, shape, "did you mean 'BM.GPU.B4.8'?", OKE)


def test_the_catalogs_gpu_shape_is_accepted():
    assert parse_stack({"gpu-fabric:gpuNodes.shape": "BM.GPU.B4.8"}, OKE).gpu_nodes.shape == (
        "BM.GPU.B4.8"
    )


# --- ACK: zone ids: lower case, no spaces, the region's ------------------------------------------

ZONE_KEYS = {
    "gpu-fabric:lingjun.zoneId": lambda z: {"gpu-fabric:lingjun.zoneId": z},
    "gpu-fabric:network.existing.nodeVswitches[0].zoneId": lambda z: {
        "gpu-fabric:network.existing.nodeVswitches": [
            {"id": "vsw-0jltest", "zoneId": z, "cidr": "10.0.0.0/20"}
        ]
    },
    "gpu-fabric:network.existing.podVswitches[0].zoneId": lambda z: {
        "gpu-fabric:network.existing.podVswitches": [
            {"id": "vsw-0jltest", "zoneId": "cn-wulanchabu-c", "cidr": "10.0.64.0/18"},
            {"id": "vsw-0jltest", "zoneId": z, "cidr": "10.0.128.0/18"},
        ]
    },
}


@pytest.mark.parametrize("key", list(ZONE_KEYS))
@pytest.mark.parametrize("zone", ["CN-WULANCHABU-C", "cn-wulanchabu-C", "cn-wulanchabu-c ", " x"])
def test_a_zone_id_with_capitals_or_spaces_is_refused_with_its_fix(key, zone):
    changes = ZONE_KEYS[key](zone)
    if key.startswith("gpu-fabric:network.existing.podVswitches"):
        key = "gpu-fabric:network.existing.podVswitches[1].zoneId"
    assert_single_rule(
        changes, key, zone, "zone ids are lower case, without spaces around them (Alibaba", ACK
    )
    assert_single_rule(changes, key, zone, f"write {zone.strip().lower()!r}", ACK)


@pytest.mark.parametrize("zone", ["cn-wulanchabu", "wulanchabu-c", "cn_wulanchabu_c", "c"])
def test_a_zone_id_outside_the_grammar_is_refused(zone):
    key = "gpu-fabric:lingjun.zoneId"
    assert_single_rule(
        {key: zone}, key, zone, "not a zone id: the region id and a zone letter", ACK
    )


def test_zones_of_a_region_that_ends_in_a_number_take_the_bare_letter():
    def stack(node_zone: str) -> dict:
        return {
            "alicloud:region": "ap-southeast-1",
            "gpu-fabric:lingjun.zoneId": "ap-southeast-1a",
            "gpu-fabric:network.existing.nodeVswitches": [
                {"id": "vsw-0jltest", "zoneId": node_zone, "cidr": "10.0.0.0/20"}
            ],
            "gpu-fabric:network.existing.podVswitches": [
                {"id": "vsw-0jltest", "zoneId": "ap-southeast-1a", "cidr": "10.0.64.0/18"}
            ],
        }

    cfg = parse_stack(stack("ap-southeast-1b"), ACK)
    assert cfg.node_vswitches[0].zone_id == "ap-southeast-1b"
    assert_single_rule(
        stack("ap-southeast-1-b"),
        "gpu-fabric:network.existing.nodeVswitches[0].zoneId",
        "ap-southeast-1-b",
        "not a zone of ap-southeast-1; use one of its zones (e.g. ap-southeast-1c)",
        ACK,
    )


# --- ACK: no VPC in 100.64.0.0/10 ---------------------------------------------------------------


def ack_vpc(vpc: str, node: str, pod: str) -> dict:
    zone = "cn-wulanchabu-c"
    return {
        "gpu-fabric:network.existing": {
            "vpcId": "vpc-0jltest",
            "vpcCidr": vpc,
            "nodeVswitches": [{"id": "vsw-0jltest", "zoneId": zone, "cidr": node}],
            "podVswitches": [{"id": "vsw-0jltest", "zoneId": zone, "cidr": pod}],
        }
    }


@pytest.mark.parametrize(
    "vpc, node, pod",
    [
        ("100.64.0.0/16", "100.64.0.0/20", "100.64.64.0/18"),
        ("100.127.0.0/16", "100.127.0.0/20", "100.127.64.0/18"),
        ("100.0.0.0/8", "100.0.0.0/20", "100.0.64.0/18"),  # holds it
    ],
)
def test_a_vpc_in_alibabas_service_range_is_refused(vpc, node, pod):
    assert_single_rule(
        ack_vpc(vpc, node, pod),
        "gpu-fabric:network.existing.vpcCidr",
        vpc,
        "overlaps 100.64.0.0/10, the shared address space (RFC 6598) Alibaba Cloud keeps for its "
        "own services, which no VPC may use",
        ACK,
    )


@pytest.mark.parametrize(
    "vpc, node, pod",
    [
        ("100.128.0.0/16", "100.128.0.0/20", "100.128.64.0/18"),  # just past it
        ("100.63.0.0/16", "100.63.0.0/20", "100.63.64.0/18"),  # just before it
    ],
)
def test_a_vpc_beside_alibabas_service_range_is_accepted(vpc, node, pod):
    existing = parse_stack(ack_vpc(vpc, node, pod), ACK).network.existing
    assert existing is not None and existing.vpc_cidr == vpc


# --- ACK: node vSwitches hold every system node beside Alibaba's 4 addresses --------------------


def nodes_in(count: int, *cidrs: str) -> dict:
    return {
        "gpu-fabric:ack.systemPool.nodeCount": count,
        "gpu-fabric:network.existing.nodeVswitches": [
            {"id": "vsw-0jltest", "zoneId": "cn-wulanchabu-c", "cidr": cidr} for cidr in cidrs
        ],
    }


@pytest.mark.parametrize(
    "count, cidr, room, larger",
    [(20, "10.0.0.0/29", 4, 27), (5, "10.0.0.0/29", 4, 28), (13, "10.0.0.0/28", 12, 27)],
)
def test_a_node_vswitch_too_small_for_its_nodes_is_refused(count, cidr, room, larger):
    assert_single_rule(
        nodes_in(count, cidr),
        "gpu-fabric:network.existing.nodeVswitches[0].cidr",
        cidr,
        f"the node vSwitches hold {room} node addresses (Alibaba keeps 4 of each vSwitch: the "
        f"first and the last three), and gpu-fabric:ack.systemPool.nodeCount asks for {count} "
        f"nodes; pick a larger range (a /{larger} or larger) or fewer nodes",
        ACK,
    )


@pytest.mark.parametrize(
    "count, cidr", [(4, "10.0.0.0/29"), (12, "10.0.0.0/28"), (20, "10.0.0.0/27")]
)
def test_a_node_vswitch_that_holds_its_nodes_is_accepted(count, cidr):
    assert parse_stack(nodes_in(count, cidr), ACK).ack.system_pool.node_count == count


def test_several_node_vswitches_hold_the_nodes_together():
    two = ("10.0.0.0/29", "10.0.0.8/29")
    assert parse_stack(nodes_in(8, *two), ACK).ack.system_pool.node_count == 8
    assert_single_rule(
        nodes_in(9, *two),
        "gpu-fabric:network.existing.nodeVswitches",
        list(two),
        "the node vSwitches hold 8 node addresses",
        ACK,
    )


# --- ACK: ECS instance types and key pair names have Alibaba's grammar ---------------------------


@pytest.mark.parametrize(
    "instance_type, says",
    [
        ("ECS.g7.xlarge", "did you mean 'ecs.g7.xlarge'?"),
        ("g7.xlarge", "did you mean 'ecs.g7.xlarge'?"),
        ("ecs.g7.xlarge ", "did you mean 'ecs.g7.xlarge'?"),
        ("ecs.g7", "e.g. ecs.g7.xlarge"),
        ("e2-standard-4", "e.g. ecs.g7.xlarge"),
    ],
)
def test_an_instance_type_outside_the_grammar_is_refused(instance_type, says):
    key = "gpu-fabric:ack.systemPool.instanceTypes"
    changes = {key: ["ecs.g7.xlarge", instance_type]}
    assert_single_rule(changes, f"{key}[1]", instance_type, says, ACK)
    assert_single_rule(changes, f"{key}[1]", instance_type, "not an ECS instance type", ACK)


@pytest.mark.parametrize(
    "instance_type", ["ecs.g7.xlarge", "ecs.t6-c1m1.large", "ecs.r8a.16xlarge"]
)
def test_an_instance_type_of_the_grammar_is_accepted(instance_type):
    changes = {"gpu-fabric:ack.systemPool.instanceTypes": [instance_type]}
    assert parse_stack(changes, ACK).ack.system_pool.instance_types == [instance_type]


@pytest.mark.parametrize(
    "name, says",
    [
        ("a", "2 to 128 characters"),  # one short of the shortest
        ("k" * 129, "2 to 128 characters"),  # one past the longest
        ("1key", "a letter first"),
        ("my key", "use the name `aliyun ecs DescribeKeyPairs` lists"),
        ("https://key", "a letter first, then letters, digits"),
        (" ack-lingjun-admin", "did you mean 'ack-lingjun-admin'?"),
    ],
)
def test_a_key_pair_name_outside_the_grammar_is_refused(name, says):
    key = "gpu-fabric:ack.systemPool.keyName"
    assert_single_rule({key: name}, key, name, says, ACK)
    assert_single_rule({key: name}, key, name, "not an ECS key pair name", ACK)


@pytest.mark.parametrize("name", ["ab", "k" * 128, "ack:admin_key-1", "ops.key", "密钥-1"])
def test_a_key_pair_name_of_the_grammar_is_accepted(name):
    key = "gpu-fabric:ack.systemPool.keyName"
    assert parse_stack({key: name}, ACK).ack.system_pool.key_name == name
