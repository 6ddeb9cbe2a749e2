"""gpu_fabric/nvidia.py is the one place of NVIDIA's resource names, labels and driver paths."""

from __future__ import annotations

import ast
from pathlib import Path

from gpu_fabric import nvidia

ROOT = Path(__file__).resolve().parents[1]
NAMES = {
    value
    for value in vars(nvidia).values()
    if isinstance(value, str) and not value.startswith(("gpu_fabric", "NVIDIA"))
}


def test_no_other_module_writes_an_nvidia_name_or_path():
    """String literals equal to (or starting with) a name of nvidia.py, outside it: each should
    be the module's constant instead."""
    found = []
    for path in sorted([*(ROOT / "gpu_fabric").rglob("*.py"), *(ROOT / "verify").glob("*.py")]):
        if path.name == "nvidia.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if any(node.value == name or node.value.startswith(f"{name}=") for name in NAMES):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value}")
    assert found == []


def test_the_gpu_toleration_tolerates_the_gpu_taint():
    assert nvidia.GPU_TOLERATION["key"] == nvidia.GPU_RESOURCE
    assert nvidia.CONTAINER_LIBRARY_DIR.startswith(nvidia.CONTAINER_DRIVER_DIR)
