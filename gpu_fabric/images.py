"""Container image references: what a pinned image of the stack config must be."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator

# A container image reference, per the distribution project's reference grammar
# (github.com/distribution/reference): [domain[:port]/]path[:tag][@digest].
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_DOMAIN = (
    r"(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*"
)
_IMAGE = re.compile(
    rf"^(?P<repository>(?:{_DOMAIN}(?::[0-9]+)?/)?{_COMPONENT}(?:/{_COMPONENT})*)"
    r"(?::(?P<tag>[\w][\w.-]{0,127}))?"
    r"(?:@(?P<digest>sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128}))?$"
)


@dataclass(frozen=True)
class ImageReference:
    repository: str
    tag: str | None
    digest: str | None


def parse_image(text: str) -> ImageReference:
    match = _IMAGE.match(text)
    if not match:
        raise ValueError(
            "not an image reference; write REGISTRY/REPOSITORY:TAG, optionally @sha256:DIGEST"
        )
    return ImageReference(match["repository"], match["tag"], match["digest"])


def _image(value: str) -> str:
    image = parse_image(value)
    if image.tag is None and image.digest is None:
        raise ValueError("has no tag or digest, so it would pull whatever is newest; pin a version")
    if image.tag == "latest":
        raise ValueError("`latest` moves under you; pin a version tag (and digest)")
    return value


ImageRef = Annotated[str, AfterValidator(_image)]
"""A pinned image: a tag or digest, never `latest`."""
