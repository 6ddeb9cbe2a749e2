"""The pull-request workflow validates against the published GitHub Actions workflow schema.

check-jsonschema ships SchemaStore's github-workflow schema (`vendor.github-workflows`), so this
runs offline.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from offline.engine import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def schema_errors(*files: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows"]
        + [str(f) for f in files],
        capture_output=True,
        text=True,
    )


def test_every_workflow_matches_the_github_workflow_schema(tmp_path):
    assert WORKFLOWS, "no workflow files"
    bad = tmp_path / "bad.yml"
    workflow = yaml.safe_load(WORKFLOWS[0].read_text())
    workflow["jobs"]["offline"]["runs_on"] = workflow["jobs"]["offline"].pop("runs-on")
    bad.write_text(yaml.safe_dump(workflow))
    result = schema_errors(*WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr
    assert schema_errors(bad).returncode == 1  # the check does reject a broken file


def test_the_preview_job_is_skipped_without_its_settings_and_comments_on_the_pr():
    jobs = yaml.safe_load((ROOT / ".github" / "workflows" / "pull-request.yml").read_text())["jobs"]
    preview = jobs["preview"]
    assert "vars.GCP_WORKLOAD_IDENTITY_PROVIDER != ''" in preview["if"]
    assert "vars.GCP_SERVICE_ACCOUNT != ''" in preview["if"]
    assert preview["permissions"]["id-token"] == "write"
    steps = {s.get("uses", "").split("@")[0]: s for s in preview["steps"]}
    assert steps["pulumi/actions"]["with"]["command"] == "preview"
    assert steps["pulumi/actions"]["with"]["comment-on-pr"] is True
    assert "workload_identity_provider" in steps["google-github-actions/auth"]["with"]
    offline_runs = " ".join(s.get("run", "") for s in jobs["offline"]["steps"])
    assert "make lint" in offline_runs and "make test" in offline_runs
    assert 'make diff BASE="$BASE_SHA"' in offline_runs
    assert "GITHUB_STEP_SUMMARY" in offline_runs and "gh pr comment" in offline_runs
    assert "secrets." not in yaml.safe_dump(jobs["offline"])
