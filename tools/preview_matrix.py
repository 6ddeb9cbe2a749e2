"""The pull-request workflow's preview matrix: one entry per stack file, with its cloud and layers.

    .venv/bin/python -m tools.preview_matrix [--stacks DIR] >> "$GITHUB_OUTPUT"

prints `matrix={"include":[{"stack": ..., "cloud": ..., "layers": ...}, ...]}`. The cloud is the
stack's platform spec's (`PlatformSpec.cloud`, the Pulumi package of its provider: the preview job
has one credentials step per cloud). A stack file whose platform no spec knows, or that does not
parse, stops it (exit 1) naming the file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gpu_fabric.problems import NAMESPACE, ConfigError
from gpu_fabric.registry import SPECS
from gpu_fabric.stack_file import STACKS_DIR, read_stack_file


def matrix(stacks: Path) -> list[dict[str, str]]:
    """The matrix entries of every stack file in `stacks` (ValueError naming a file it cannot
    place)."""
    clouds = {name: spec.cloud for spec in SPECS for name in spec.platforms}
    include = []
    for path in sorted(stacks.glob("Pulumi.*.yaml")):
        try:
            config = read_stack_file(path)
        except ConfigError as err:
            raise ValueError(str(err)) from None
        platform = config.get(f"{NAMESPACE}:platform")
        if platform not in clouds:
            raise ValueError(
                f"{path}: no platform spec knows {NAMESPACE}:platform {platform!r} "
                f"(known: {', '.join(sorted(clouds))})"
            )
        stack = path.name[len("Pulumi.") : -len(".yaml")]
        layers = config.get(f"{NAMESPACE}:layers", "all")
        include.append({"stack": stack, "cloud": clouds[platform], "layers": layers})
    return include


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stacks", type=Path, default=STACKS_DIR, help="the stack files' folder")
    args = parser.parse_args(argv)
    try:
        include = matrix(args.stacks)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print("matrix=" + json.dumps({"include": include}, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
