"""Alibaba Cloud identifiers and names a stack writes: VPC, vSwitch and Lingjun ids, zones,
instance types, key pairs."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

from ..versions import AckVersionOrMinorText, AddonVersionText

# Alibaba resource ids: `vpc-...`, `vsw-...` (TF: pod_vswitch_ids must match `^vsw-`).
_VPC_ID = re.compile(r"^vpc-[a-z0-9]+$")


_VSWITCH_ID = re.compile(r"^vsw-[a-z0-9]+$")


# Lingjun (eflo) cluster and node group ids. No published rule; the shapes come from the APIs' own
# examples. Cluster ids: an `i` and digits (eflo-controller `ClusterId` i118191731740041623425; CS
# CreateClusterNodePool `eflo_node_group.cluster_id` i1169130516633730****).
_LINGJUN_ID = re.compile(r"^i[0-9a-z]{6,}$")


# Node group ids come in more forms:
# - `i` and digits: eflo-controller and the provider's own examples (`eflo.NodeGroupAttachment`
#   node_group_id i127582271753269898630, TF docs r/eflo_node_group_attachment);
# - `ng-` and lowercase hex: the CS API's CreateClusterNodePool `eflo_node_group.group_id` example
#   `ng-ec3c96ff0aa****` (alibabacloud cs20151215 SDK, CreateClusterNodePoolRequestEfloNodeGroup);
# - digits only: reported by a user; UNVERIFIED (no published example found), accepted
#   so that a real id is never refused here.
_LINGJUN_GROUP_ID = re.compile(r"^(i[0-9a-z]{6,}|ng-[0-9a-z]{6,}|[0-9]{6,})$")


_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


# Zone ids are the region id and a letter: `-h` after a region that ends in a word
# (cn-hangzhou-h, cn-wulanchabu-c), the bare letter after one that ends in a number
# (ap-southeast-1a, cn-shanghai-finance-1z); lower case (Alibaba Cloud docs, "Regions and zones",
# https://www.alibabacloud.com/help/en/ecs/product-overview/regions-and-zones).
_ZONE_ID = re.compile(r"^[a-z]{2}(-[a-z0-9]+)*(-[a-z]|-[a-z0-9]*[0-9][a-z])$")


# ECS instance types are `ecs.<family>.<size>` in lower case (ecs.g7.xlarge, ecs.gn7i-c8g1.2xlarge;
# Alibaba Cloud ECS docs, "Instance families", and the provider's examples).
_INSTANCE_TYPE = re.compile(r"^ecs\.[a-z0-9-]+\.[a-z0-9]+$")


# Key pair names: 2 to 128 characters, a letter first, then letters, digits, colons, underscores and
# hyphens (ECS API CreateKeyPair, `KeyPairName`,
# https://www.alibabacloud.com/help/en/ecs/developer-reference/api-ecs-2014-05-26-createkeypair);
# periods too, which older versions of the same page list, so that no real name is refused. The
# console takes Chinese names as well: "letter" is any Unicode letter (Python's `\w` less digits
# and `_`), so 密钥-1 passes.
_KEY_PAIR_NAME = re.compile(r"^[^\W\d_][\w.:-]{1,127}$")


def _matching(pattern: re.Pattern, what: str, example: str):
    def check(value: str) -> str:
        if not pattern.match(value):
            raise ValueError(f"not {what}; copy it from the console, e.g. {example}")
        return value

    return check


def _name(value: str) -> str:
    if not _NAME.match(value) or len(value) > 40:
        raise ValueError(
            "must be 1-40 characters of lowercase letters, digits and hyphens, starting and "
            "ending with a letter or digit (it prefixes every resource name; ACK allows 63)"
        )
    return value


def _ip_stack(value: str) -> str:
    if value == "dual":
        raise ValueError(
            "Lingjun node pools support only IPv4 single-stack ACK clusters (Alibaba, 'Create and "
            "manage a Lingjun node pool'); use ipv4. Non-hostNetwork RDMA needs an IPv6 Lingjun "
            "computing network instead: gpu-fabric:lingjun.computingNetwork"
        )
    if value != "ipv4":
        raise ValueError("must be ipv4 (the only stack a Lingjun node pool supports)")
    return value


def _zone_id(value: str) -> str:
    if value != value.strip() or value != value.lower():
        raise ValueError(
            'zone ids are lower case, without spaces around them (Alibaba Cloud docs, "Regions '
            f'and zones"); write {value.strip().lower()!r}'
        )
    if not _ZONE_ID.match(value):
        raise ValueError(
            "not a zone id: the region id and a zone letter, e.g. cn-wulanchabu-c or "
            "ap-southeast-1a (`aliyun vpc DescribeZones --RegionId <region>`)"
        )
    return value


def _instance_type(value: str) -> str:
    if _INSTANCE_TYPE.match(value):
        return value
    guess = value.strip().lower()
    if guess and not guess.startswith("ecs."):
        guess = f"ecs.{guess}"
    fix = f"did you mean {guess!r}?" if _INSTANCE_TYPE.match(guess) else "e.g. ecs.g7.xlarge"
    raise ValueError(
        "not an ECS instance type: ecs.<family>.<size> in lower case (`aliyun ecs "
        f"DescribeInstanceTypes`); {fix}"
    )


def _key_pair_name(value: str) -> str:
    if _KEY_PAIR_NAME.match(value):
        return value
    stripped = value.strip()
    fix = (
        f"did you mean {stripped!r}?"
        if stripped != value and _KEY_PAIR_NAME.match(stripped)
        else "use the name `aliyun ecs DescribeKeyPairs` lists"
    )
    raise ValueError(
        "not an ECS key pair name: 2 to 128 characters, a letter first, then letters, digits, "
        f"., :, _ and - (ECS API CreateKeyPair); {fix}"
    )


AckVersion = AckVersionOrMinorText


ZoneId = Annotated[str, AfterValidator(_zone_id)]


InstanceType = Annotated[str, AfterValidator(_instance_type)]


KeyPairName = Annotated[str, AfterValidator(_key_pair_name)]


VpcId = Annotated[str, AfterValidator(_matching(_VPC_ID, "a VPC id", "vpc-bp1abc..."))]


VswitchId = Annotated[str, AfterValidator(_matching(_VSWITCH_ID, "a vSwitch id", "vsw-bp1abc..."))]


LingjunId = Annotated[
    str,
    AfterValidator(
        _matching(
            _LINGJUN_ID,
            "a Lingjun (eflo) id: an `i` and lowercase letters or digits",
            "i118191731740041623425 (Lingjun console, or `aliyun eflo-controller ListClusters`)",
        )
    ),
]


LingjunGroupId = Annotated[
    str,
    AfterValidator(
        _matching(
            _LINGJUN_GROUP_ID,
            "a Lingjun (eflo) node group id: an `i` and digits, `ng-` and lowercase letters or "
            "digits, or digits only",
            "i120021051733814190732 or ng-ec3c96ff0aa1 (Lingjun console, or `aliyun "
            "eflo-controller ListNodeGroups`)",
        )
    ),
]


Name = Annotated[str, AfterValidator(_name)]


IpStack = Annotated[str, AfterValidator(_ip_stack)]


AddonVersion = AddonVersionText
