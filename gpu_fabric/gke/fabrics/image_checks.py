"""Checks of an image override against the image the catalog pins: one image, or an installer and
its daemon that must form a known pair. Each fabric's module applies them to its own images."""

from __future__ import annotations

from ...images import parse_image
from ...problems import Problem
from ...problems import key as _key


def coupled_pair_problems(base: str, pair, pinned, daemon: str) -> list[Problem]:
    """An installer and its daemon (RxDM) are a coupled pair: the repositories the catalog pins
    (so two swapped images are caught), and tags that form one of its known pairs."""
    if pair is None:
        return []
    problems = [
        problem
        for role in ("installer", "daemon")
        for problem in pinned_image_problems(
            _key(f"{base}.{role}"),
            getattr(pair, role),
            getattr(pinned, role),
            f"the {role} comes from",
            "(are the installer and daemon swapped?)",
        )
    ]
    if problems:
        return problems
    installer_tag, daemon_tag = parse_image(pair.installer).tag, parse_image(pair.daemon).tag
    expected = pinned.known_pairs.get(installer_tag)
    if expected is None:
        known = ", ".join(f"{i} <-> {d}" for i, d in pinned.known_pairs.items())
        return [
            Problem(
                _key(f"{base}.installer"),
                pair.installer,
                f"installer {installer_tag} is not a known {base.split('.')[-1].upper()} pair "
                f"({known}); use one of them, or add the pair to the catalog's "
                f"{base}.known_pairs with its source",
            )
        ]
    if expected != daemon_tag:
        return [
            Problem(
                _key(f"{base}.daemon"),
                pair.daemon,
                f"installer {installer_tag} pairs with {daemon} {expected}, not {daemon_tag}; "
                f"use the {expected} {daemon} image",
            )
        ]
    return []


def pinned_image_problems(
    key: str, given: str, pinned: str, comes_from: str, hint: str = ""
) -> list[Problem]:
    """An override of a pinned image must come from the pinned image's repository (another one is
    another component, or another architecture's build), and say its version (a tag)."""
    image, catalog_image = parse_image(given), parse_image(pinned)
    problems = []
    if image.repository != catalog_image.repository:
        problems.append(
            Problem(
                key,
                given,
                f"{comes_from} {catalog_image.repository}, not {image.repository}"
                f"{f' {hint}' if hint else ''}; use that repository",
            )
        )
    if image.tag is None:
        problems.append(
            Problem(
                key,
                given,
                "a digest alone does not say which version this is, so it cannot be checked; pin "
                "it as REPOSITORY:TAG@sha256:DIGEST",
            )
        )
    return problems
