"""Node health's images from a registry mirror (`health.imageRegistry`): each image's registry is
replaced, its path and tag kept, as kube-prometheus-stack's `global.imageRegistry` does for its
own images."""

from __future__ import annotations

NPD_IMAGE = "registry.k8s.io/node-problem-detector/node-problem-detector"
"""The node-problem-detector chart's `image.repository` (deliveryhero stable/node-problem-detector
values.yaml; the tag stays the chart's)."""


def mirrored(image: str, registry: str | None) -> str:
    """`image` pulled from `registry` (None: as it is). An image with no registry part is Docker
    Hub's, an official one under `library/` (Docker docs, "docker image pull")."""
    if registry is None:
        return image
    first, _, rest = image.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        path = rest
    else:
        path = image if rest else f"library/{image}"
    return f"{registry}/{path}"
