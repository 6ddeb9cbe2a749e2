"""gpu_fabric/yaml_files.py: libyaml's parser reads what `yaml.safe_load` reads, and a parsed file
is handed out as a copy, read again once the file changes."""

from __future__ import annotations

import os

import yaml

from gpu_fabric import yaml_files
from gpu_fabric.catalog import CATALOG_FILE
from gpu_fabric.gke.fabrics.nccl_installer import UPSTREAM

# What the package parses with it: the catalog and the upstream manifests.
PACKAGE_FILES = [
    CATALOG_FILE,
    *sorted(UPSTREAM.glob("nccl-*.yaml")),
    UPSTREAM / "nri-device-injector.yaml",
]


def test_the_package_files_read_as_safe_load_reads_them():
    for path in PACKAGE_FILES:
        text = path.read_text()
        assert yaml_files.load_all(text) == list(yaml.safe_load_all(text)), path


def _rewrite(path, text: str) -> None:
    """Write `text` with a later modification time (as an edit a moment later would)."""
    before = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before, before + 1_000_000))


def test_a_read_file_is_a_copy_and_is_read_again_once_changed(tmp_path):
    path = tmp_path / "manifest.yaml"
    path.write_text("kind: DaemonSet\nspec: {replicas: 1}\n")
    first = yaml_files.read(path)
    first["spec"]["replicas"] = 5
    assert yaml_files.read(path) == {"kind": "DaemonSet", "spec": {"replicas": 1}}
    _rewrite(path, "kind: Pod\n")
    assert yaml_files.read(path) == {"kind": "Pod"}
    _rewrite(path, "kind: Pod\n---\nkind: Service\n")
    assert yaml_files.read_all(path) == [{"kind": "Pod"}, {"kind": "Service"}]
