"""Offline plan: `python -m offline.plan STACK` (what `make plan STACK=...` runs).

Runs the real program under Pulumi mocks (no credentials, no Pulumi CLI) and
- prints a tree of every resource with its key settings,
- writes build/plan/<stack>.json: every resource with type, name, parent, provider, dependencies and
  inputs, plus the stack outputs (secret ones masked),
- writes each Kubernetes object as YAML under build/plan/<stack>/.
A configuration error prints the problems and exits 2; nothing is registered then.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml
from pulumi import RunError

from gpu_fabric.problems import ConfigError
from gpu_fabric.registry import SPECS
from offline.engine import ROOT, Plan, Registration, manifest, run

OUT_DIR = ROOT / "build" / "plan"

# What the tree shows of each resource type: input paths (dotted, `[]` maps over a list); each
# platform's cloud resources are its spec's (`PlatformSpec.plan_view`).
KEY_SETTINGS: dict[str, list[str]] = {
    "pulumi:providers:kubernetes": ["clusterIdentifier"],
    "command:local:Command": ["triggers"],
    "kubernetes:apps/v1:DaemonSet": [
        "metadata.namespace",
        "metadata.name",
        "spec.template.spec.initContainers[].image",
        "spec.template.spec.hostNetwork",
    ],
    "kubernetes:core/v1:Pod": ["metadata.name", "spec.hostNetwork", "spec.containers[].name"],
    "kubernetes:core/v1:Service": ["metadata.name", "spec.clusterIP"],
    "kubernetes:storage.k8s.io/v1:StorageClass": [
        "metadata.name",
        "metadata.annotations",
        "provisioner",
        "parameters.type",
    ],
    "kubernetes:storage.k8s.io/v1:StorageClassPatch": ["metadata.name", "metadata.annotations"],
    "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime": ["metadata.name"],
    "kubernetes:helm.sh/v3:Release": ["name", "namespace", "chart", "version", "values"],
    "kubernetes:core/v1:Namespace": ["metadata.name", "metadata.labels"],
    "kubernetes:core/v1:ConfigMap": ["metadata.namespace", "metadata.name"],
    "kubernetes:resource.k8s.io/v1:DeviceClass": ["metadata.name"],
    "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate": [
        "metadata.name",
        "spec.spec.devices.requests[].name",
        "spec.spec.devices.constraints[].matchAttribute",
    ],
    "kubernetes:kubeflow.org/v2beta1:MPIJob": ["metadata.name", "spec.slotsPerWorker"],
    "kubernetes:batch/v1:Job": [
        "metadata.name",
        "spec.template.spec.hostNetwork",
        "spec.template.spec.containers[].resources.limits",
    ],
    **{
        type_: paths
        for spec in SPECS
        for type_, paths in spec.plan_view_module().KEY_SETTINGS.items()
    },
}


def pick(data: Any, path: str) -> Any:
    """Value at a dotted path; `name[]` maps the rest of the path over a list."""
    head, _, rest = path.partition(".")
    if head.endswith("[]"):
        items = data.get(head[:-2]) if isinstance(data, dict) else None
        if not isinstance(items, list):
            return None
        return [pick(item, rest) if rest else item for item in items]
    value = data.get(head) if isinstance(data, dict) else None
    return pick(value, rest) if rest and value is not None else value


def _settings(resource: Registration) -> str:
    shown = []
    for path in KEY_SETTINGS.get(resource.type, []):
        value = pick(resource.inputs, path)
        if value is not None:
            shown.append(f"{path}={json.dumps(value)}")
    return ", ".join(shown)


def render_tree(plan: Plan) -> str:
    children: dict[str, list[Registration]] = {}
    for resource in plan.resources:
        children.setdefault(resource.parent, []).append(resource)
    lines = [
        f"Stack {plan.stack} (offline plan under Pulumi mocks): {len(plan.resources)} resources"
    ]

    def walk(parent: str, depth: int) -> None:
        for resource in sorted(children.get(parent, []), key=lambda r: (r.type, r.name)):
            waits = sorted(
                {u.split("::")[-1] for u in resource.dependencies}
                | {u.split("::")[-1] for u in sum(resource.property_dependencies.values(), [])}
            )
            lines.append(f"{'  ' * depth}+ {resource.type} {resource.name}")
            details = _settings(resource)
            if resource.provider_urn:
                details = f"provider={resource.provider_urn.split('::')[-1]}" + (
                    f", {details}" if details else ""
                )
            if details:
                lines.append(f"{'  ' * depth}    {details}")
            if waits:
                lines.append(f"{'  ' * depth}    waits for: {', '.join(waits)}")
            walk(resource.urn, depth + 1)

    lines += [f"warning: {w}" for w in plan.warnings]
    roots = {r.parent for r in plan.resources} - {r.urn for r in plan.resources}
    for root in sorted(roots):
        walk(root, 1)
    lines.append("Outputs:")
    for name, value in plan.outputs.items():
        lines.append(
            f"  {name}: {'[secret]' if name in plan.secret_outputs else json.dumps(value)}"
        )
    return "\n".join(lines)


def write(plan: Plan, out_dir: Path = OUT_DIR) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    plan_file = out_dir / f"{plan.stack}.json"
    plan_file.write_text(
        json.dumps(
            {
                "stack": plan.stack,
                **({"cloudStack": plan.cloud_stack} if plan.cloud_stack else {}),
                # Sorted, so the file diffs cleanly between runs (registration order is async).
                "resources": [r.as_json() for r in sorted(plan.resources, key=lambda r: r.urn)],
                "outputs": {
                    k: "[secret]" if k in plan.secret_outputs else v
                    for k, v in plan.outputs.items()
                },
            },
            indent=2,
        )
    )
    objects_dir = out_dir / plan.stack
    shutil.rmtree(objects_dir, ignore_errors=True)
    objects_dir.mkdir()
    for resource in plan.kubernetes_objects():
        obj = manifest(resource)
        meta = obj["metadata"]
        stem = "-".join(filter(None, [obj["kind"].lower(), meta.get("namespace"), meta["name"]]))
        (objects_dir / f"{stem}.yaml").write_text(yaml.safe_dump(obj, sort_keys=False))
    for release in plan.helm_releases():
        inputs = release.inputs
        stem = f"helmrelease-{inputs['namespace']}-{inputs['name']}"
        shown = {k: inputs.get(k) for k in ("name", "namespace", "chart", "version", "values")}
        (objects_dir / f"{stem}.yaml").write_text(yaml.safe_dump(shown, sort_keys=False))
    return plan_file, objects_dir


def remove_stale(stack: str, out_dir: Path) -> bool:
    """Remove a stack's earlier plan files, so a failed plan leaves none to mistake for its own."""
    stale = [out_dir / f"{stack}.json", out_dir / stack]
    found = [path for path in stale if path.exists()]
    for path in found:
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    return bool(found)


def _remove_stale_and_say(stack: str, out_dir: Path) -> None:
    if remove_stale(stack, out_dir):
        print(f"Removed the previous plan of {stack} from {out_dir}/", file=sys.stderr)


def stack_arguments(description: str, argv: list[str] | None) -> argparse.Namespace:
    """`STACK [--out DIR]`, the arguments of the commands that plan one stack."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("stack", help="stack name, e.g. a3-prod (stacks/Pulumi.<stack>.yaml)")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="output folder (build/plan)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = stack_arguments(__doc__.splitlines()[0], argv)
    try:
        plan = run(args.stack)
    except (ConfigError, RunError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        _remove_stale_and_say(args.stack, args.out)
        return 2
    except BaseException:
        _remove_stale_and_say(args.stack, args.out)  # whatever failed, no old plan stays behind
        raise
    print(render_tree(plan))
    plan_file, objects_dir = write(plan, args.out)
    print(f"\nWrote {plan_file} and {objects_dir}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
