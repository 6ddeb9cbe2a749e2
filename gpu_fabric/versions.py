"""Versions: one type, and one grammar per way a cloud or project writes them.

Every version the config takes or the catalog holds is parsed here, so an ordering, a minor or a
floor means the same thing everywhere. A number is written without leading zeros (`1.33`, never
`1.033`): the clouds and Helm (semver 2.0.0, item 2: "MUST NOT contain leading zeroes") write
none, and `1.033` would compare equal to `1.33` while naming a version no API lists.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated

from pydantic import AfterValidator

_NUMBER = r"(0|[1-9][0-9]*)"


@functools.total_ordering
@dataclass(frozen=True)
class Version:
    """A parsed version: its text as written and its numbers, ordered by the numbers."""

    text: str = field(compare=False)
    parts: tuple[int, ...]

    @property
    def minor(self) -> str:
        """`MAJOR.MINOR`, e.g. `1.33`."""
        return f"{self.parts[0]}.{self.parts[1]}"

    @property
    def minor_parts(self) -> tuple[int, int]:
        return self.parts[0], self.parts[1]

    def __lt__(self, other: Version) -> bool:
        return self.parts < other.parts

    def __str__(self) -> str:
        return self.text


def _leading_zeros(text: object) -> str:
    """What a refusal adds when `text` has a number with a leading zero (`1.033`)."""
    if isinstance(text, str) and re.search(r"(^|\D)0\d", text):
        return " (numbers are written without leading zeros)"
    return ""


@dataclass(frozen=True)
class VersionGrammar:
    """How one cloud or project writes a version, and what to write instead of a wrong one."""

    form: str
    """The form with `N` for each number, e.g. `N.N.N-gke.N`."""
    fix: str
    """What a refusal says after "not <what>": the form spelled out, an example, where to look."""
    what: str

    @functools.cached_property
    def _pattern(self) -> re.Pattern[str]:
        return re.compile("^" + re.escape(self.form).replace("N", _NUMBER) + "$")

    def parse(self, text: str) -> Version:
        match = self._pattern.match(text) if isinstance(text, str) else None
        if not match:
            raise ValueError(f"not {self.what}{_leading_zeros(text)}; {self.fix}")
        return Version(text, tuple(int(p) for p in match.groups()))

    def check(self, text: str) -> str:
        """`text` if it parses (a pydantic validator); else ValueError with the fix."""
        self.parse(text)
        return text


GKE_VERSION = VersionGrammar(
    "N.N.N-gke.N",
    "use the MAJOR.MINOR.PATCH-gke.BUILD form from `gcloud container get-server-config`, "
    "e.g. 1.33.5-gke.1080000",
    "a full GKE version",
)
"""GKE cluster and node versions (`gcloud container get-server-config`)."""

ACK_VERSION = VersionGrammar(
    "N.N.N-aliyun.N",
    "ACK writes them as MAJOR.MINOR.PATCH-aliyun.N, e.g. 1.33.3-aliyun.1 "
    "(`aliyun cs GET /api/v1/metadata/versions` or the console)",
    "an ACK Kubernetes version",
)
"""ACK cluster versions (pulumi-alicloud ManagedKubernetes `version`, e.g. 1.22.3-aliyun.1)."""

OKE_VERSION = VersionGrammar(
    "vN.N.N",
    "OKE writes them with a leading v, e.g. v1.36.1 "
    "(`oci ce cluster-options get --cluster-option-id all`)",
    "an OKE Kubernetes version",
)
"""OKE cluster and node pool versions."""

ADDON_VERSION = VersionGrammar("N.N.N", "write MAJOR.MINOR.PATCH, e.g. 1.1.5", "an add-on version")
"""ACK add-on versions (`ack-rdma-device-plugin` 1.1.5)."""

CHART_VERSION = VersionGrammar(
    "N.N.N",
    "a Helm chart version is MAJOR.MINOR.PATCH without a leading v, e.g. 0.19.2 (the OCI tag "
    "`helm show chart` reads)",
    "a chart version",
)
"""Helm chart versions of the charts pulled from OCI registries (Kueue 0.19.2, JobSet 0.12.0)."""

MINOR_VERSION = VersionGrammar("N.N", "write MAJOR.MINOR, e.g. 1.33", "a MAJOR.MINOR version")
"""Kubernetes minors (the catalog's floors and support windows)."""


def gke_version_or_minor(text: str) -> Version:
    """A full GKE version, or a minor (`1.33`) that GKE resolves to its newest patch."""
    return _version_or_minor(text, GKE_VERSION, MINOR_VERSION, "GKE", "1.33")


def below(version: Version, floor: Version) -> bool:
    """`version` is below `floor`: by its minor where it names only a minor (a minor resolves to
    its newest patch, at or above every floor of that minor so far), else in full."""
    if is_minor(version):
        return version.minor_parts < floor.minor_parts
    return version < floor


def is_minor(version: Version) -> bool:
    """A minor only (`1.33`), not a full version."""
    return len(version.parts) == 2


OKE_MINOR = VersionGrammar("vN.N", "write vMAJOR.MINOR, e.g. v1.36", "an OKE minor")
"""An OKE minor (`v1.36`), which the stack resolves to OKE's newest patch of it at preview."""


def oke_version_or_minor(text: str) -> Version:
    """A full OKE version (`v1.36.1`), or a minor (`v1.36`) resolved at preview."""
    return _version_or_minor(text, OKE_VERSION, OKE_MINOR, "OKE", "v1.36")


def ack_version_or_minor(text: str) -> Version:
    """A full ACK version (`1.33.3-aliyun.1`), or a minor (`1.33`) resolved at preview."""
    return _version_or_minor(text, ACK_VERSION, MINOR_VERSION, "ACK", "1.33")


def _version_or_minor(
    text: str, full: VersionGrammar, minor: VersionGrammar, cloud: str, example: str
) -> Version:
    for grammar in (full, minor):
        try:
            return grammar.parse(text)
        except ValueError:
            pass
    raise ValueError(
        f"not a {cloud} minor or a full {cloud} version{_leading_zeros(text)}; write a minor, "
        f"e.g. {example} ({cloud}'s newest patch of it, read at preview), or pin one: {full.fix}"
    )


def newest_of_minor(offered: list[str], minor: Version, grammar: VersionGrammar) -> str | None:
    """The newest of the `offered` versions (in `grammar`) of `minor`, or None."""
    versions = []
    for text in offered:
        try:
            version = grammar.parse(text)
        except ValueError:
            continue
        if version.parts[:2] == minor.parts[:2]:
            versions.append(version)
    return max(versions).text if versions else None


def _taking(parse: Callable[[str], Version]) -> Callable[[str], str]:
    """A pydantic validator: the text as written, once `parse` takes it."""

    def check(text: str) -> str:
        parse(text)
        return text

    return check


# Config field types: text that must parse in the grammar (the text is what the cloud takes).
GkeVersionOrMinorText = Annotated[str, AfterValidator(_taking(gke_version_or_minor))]
AckVersionText = Annotated[str, AfterValidator(ACK_VERSION.check)]
OkeVersionText = Annotated[str, AfterValidator(OKE_VERSION.check)]
OkeVersionOrMinorText = Annotated[str, AfterValidator(_taking(oke_version_or_minor))]
AckVersionOrMinorText = Annotated[str, AfterValidator(_taking(ack_version_or_minor))]
AddonVersionText = Annotated[str, AfterValidator(ADDON_VERSION.check)]
ChartVersionText = Annotated[str, AfterValidator(CHART_VERSION.check)]
