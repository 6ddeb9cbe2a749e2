"""The GitHub workflows: valid against the published workflow schema, every action pinned to a
commit, apt's lists fetched before an install, nothing needed beside the checkout, and a preview
job that authenticates each cloud its stacks need and skips, saying why, what it cannot preview.

check-jsonschema ships SchemaStore's github-workflow schema (`vendor.github-workflows`), so this
runs offline.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gpu_fabric import yaml_files
from gpu_fabric.registry import SPECS, spec_of
from offline.engine import ROOT

WORKFLOW_DIR = ROOT / ".github" / "workflows"
WORKFLOWS = sorted([*WORKFLOW_DIR.glob("*.yml"), *WORKFLOW_DIR.glob("*.yaml")])
PULL_REQUEST = WORKFLOW_DIR / "pull-request.yml"
STACK = WORKFLOW_DIR / "stack.yml"
"""One stack against its cloud: the preview of a pull request, the deploy and the drift check."""
DEPLOY = WORKFLOW_DIR / "deploy.yml"

# The clouds of the platform specs: a new platform's cloud fails
# test_the_preview_job_has_an_auth_step_per_cloud and test_the_gate_knows_every_cloud until the
# preview job can log in to it.
CLOUDS = sorted({spec.cloud for spec in SPECS})

# The inputs each action documents (its action.yml at the pinned release). A `with:` key outside
# these is a typo or an input of another version, which the runner only warns about.
DOCUMENTED_INPUTS = {
    "actions/checkout": {
        "allow-unsafe-pr-checkout", "clean", "fetch-depth", "fetch-tags", "filter",
        "github-server-url", "lfs", "path", "persist-credentials", "ref", "repository",
        "set-safe-directory", "show-progress", "sparse-checkout", "sparse-checkout-cone-mode",
        "ssh-key", "ssh-known-hosts", "ssh-strict", "ssh-user", "submodules", "token",
    },
    "actions/setup-python": {
        "allow-prereleases", "architecture", "cache", "cache-dependency-path", "check-latest",
        "freethreaded", "pip-version", "python-version", "python-version-file", "token",
        "update-environment",
    },
    "actions/download-artifact": {
        "artifact-ids", "digest-mismatch", "github-token", "merge-multiple", "name", "path",
        "pattern", "repository", "run-id", "skip-decompress",
    },
    "pypa/gh-action-pypi-publish": {
        "packages-dir", "packages_dir", "password", "print-hash", "print_hash", "repository-url",
        "repository_url", "skip-existing", "skip_existing", "user", "verbose", "verify-metadata",
        "verify_metadata",
    },
    "actions/upload-artifact": {
        "archive", "compression-level", "if-no-files-found", "include-hidden-files", "name",
        "overwrite", "path", "retention-days",
    },
    "google-github-actions/auth": {
        "access_token_lifetime", "access_token_scopes", "access_token_subject", "audience",
        "cleanup_credentials", "create_credentials_file", "credentials_json", "delegates",
        "export_environment_variables", "id_token_audience", "id_token_include_email",
        "project_id", "request_reason", "service_account", "token_format", "universe",
        "workload_identity_provider",
    },
    "google-github-actions/setup-gcloud": {
        "cache", "install_components", "project_id", "skip_install", "version",
    },
    "aliyun/configure-aliyun-credentials-action": {
        "audience", "oidc-provider-arn", "role-chaining", "role-session-expiration",
        "role-session-name", "role-to-assume",
    },
    "pulumi/actions": {
        "always-include-summary", "cloud-url", "color", "command", "comment-on-pr",
        "comment-on-pr-number", "comment-on-summary", "config-map", "continue-on-error", "debug",
        "diff", "edit-pr-comment", "exclude", "exclude-dependents", "exclude-protected",
        "expect-no-changes", "github-token", "log-flow", "log-verbosity", "message", "parallel",
        "plan", "policyPackConfigs", "policyPacks", "pulumi-version", "pulumi-version-file",
        "refresh", "remove", "replace", "secrets-provider", "stack-name", "suppress-outputs",
        "suppress-progress", "target", "target-dependents", "upsert", "work-dir",
    },
}  # fmt: skip

# `uses: owner/repo[/path]@<40 hex> # vX[.Y[.Z]]`
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40} +# v\d+(\.\d+)*$")
USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(.*?)\s*$")
APT_INSTALL = re.compile(r"\bapt(?:-get)?\s+(?:-\S+\s+)*install\b")
APT_UPDATE = re.compile(r"\bapt(?:-get)?\s+(?:-\S+\s+)*update\b")


def load(path: Path) -> dict:
    return yaml_files.load(path.read_text())


def steps_of(workflow: dict) -> list[tuple[str, dict]]:
    return [
        (job_id, step) for job_id, job in workflow["jobs"].items() for step in job.get("steps", [])
    ]


def action(step: dict) -> str:
    """`owner/repo` of a step's `uses:`, or "" for a `run:` step."""
    return step.get("uses", "").split("@")[0]


def schema_errors(*files: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows"]
        + [str(f) for f in files],
        capture_output=True,
        text=True,
    )


def test_every_workflow_matches_the_github_workflow_schema(tmp_path):
    assert PULL_REQUEST in WORKFLOWS
    bad = tmp_path / "bad.yml"
    workflow = load(PULL_REQUEST)
    workflow["jobs"]["offline"]["runs_on"] = workflow["jobs"]["offline"].pop("runs-on")
    bad.write_text(yaml.safe_dump(workflow))
    result = schema_errors(*WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr
    assert schema_errors(bad).returncode == 1  # the check does reject a broken file


# --- pinning ---------------------------------------------------------------------------------


def pin_problems(text: str) -> list[str]:
    """The `uses:` lines of a workflow that are not pinned to a commit with the tag beside it."""
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        match = USES_LINE.match(line)
        if match and not match.group(1).startswith("./") and not PINNED.match(match.group(1)):
            problems.append(f"line {number}: {line.strip()}")
    return problems


def test_the_pin_check_can_fail():
    assert pin_problems("      - uses: actions/checkout@v4\n")
    assert pin_problems("      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683\n")
    assert pin_problems("      - uses: actions/checkout@11bd71901bbe # v4.2.2\n")
    assert not pin_problems(
        "      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2\n"
        "        uses: ./.github/actions/local\n"
    )


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_commit_with_its_tag_in_a_comment(path):
    text = path.read_text()
    assert pin_problems(text) == []
    # Every `uses:` YAML sees was on a line the check read (none hides in flow style).
    lines = [m.group(1) for m in map(USES_LINE.match, text.splitlines()) if m]
    workflow = load(path)
    uses = [step["uses"] for _, step in steps_of(workflow) if "uses" in step]
    uses += [job["uses"] for job in workflow["jobs"].values() if "uses" in job]  # called workflows
    assert [line.split(" #")[0] for line in lines] == uses
    # One action, one release: the same commit and tag wherever it is used.
    pins: dict[str, set[str]] = {}
    for line in lines:
        if not line.startswith("./"):  # a workflow of this repository has no release
            pins.setdefault(line.split("@")[0], set()).add(line.split("@")[1])
    assert {name: pin for name, pin in pins.items() if len(pin) > 1} == {}


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_input_is_one_the_action_documents(path):
    for job_id, step in steps_of(load(path)):
        name = action(step)
        if not name or name.startswith("./"):
            continue
        assert name in DOCUMENTED_INPUTS, f"{job_id}: add the documented inputs of {name}"
        assert set(step.get("with", {})) <= DOCUMENTED_INPUTS[name], f"{job_id}: {name}"


# --- what a step runs ------------------------------------------------------------------------


def apt_problems(workflow: dict) -> list[str]:
    """Each `apt-get install` of a job that no earlier `apt-get update` of that job precedes."""
    problems = []
    for job_id, job in workflow["jobs"].items():
        script = "\n".join(step.get("run", "") for step in job.get("steps", []))
        updated_at = [m.start() for m in APT_UPDATE.finditer(script)]
        for install in APT_INSTALL.finditer(script):
            if not any(at < install.start() for at in updated_at):
                problems.append(f"{job_id}: {install.group(0)}")
    return problems


def test_the_apt_check_can_fail():
    job = {"runs-on": "x", "steps": [{"run": "sudo apt-get install -y graphviz"}]}
    assert apt_problems({"jobs": {"j": job}})
    job["steps"].append({"run": "sudo apt-get update"})  # after the install: too late
    assert apt_problems({"jobs": {"j": job}})
    job["steps"].insert(0, {"run": "sudo apt-get -q update"})
    assert apt_problems({"jobs": {"j": job}}) == []


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_apt_get_update_precedes_every_apt_get_install(path):
    assert apt_problems(load(path)) == []


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_no_step_needs_anything_beside_the_checkout(path):
    """CI checks out the repository alone: no ../shared (or other sibling) folder is there."""
    for job_id, step in steps_of(load(path)):
        text = yaml.safe_dump(step)
        assert "../shared" not in text, f"{job_id}: {step}"
        assert not re.search(r"(^|[\s'\"=:])\.\./", text), f"{job_id}: {step}"


def test_the_offline_job_runs_the_tests_and_the_diff_without_secrets():
    jobs = load(PULL_REQUEST)["jobs"]
    runs = " ".join(step.get("run", "") for step in jobs["offline"]["steps"])
    assert "make lint" in runs and "make test" in runs
    assert 'make diff BASE="$BASE_SHA"' in runs
    assert "GITHUB_STEP_SUMMARY" in runs and "gh pr comment" in runs
    assert "secrets." not in yaml.safe_dump(jobs["offline"])
    checkout = next(s for s in jobs["offline"]["steps"] if action(s) == "actions/checkout")
    assert checkout["with"]["fetch-depth"] == 0  # the base commit is there for the diff
    # The README says checkov runs in CI, and the package installs as users install it.
    assert "make scan" in runs and "make package-check" in runs


def test_every_stack_is_previewed_on_a_pull_request_deployed_on_merge_and_checked_for_drift():
    preview = load(PULL_REQUEST)["jobs"]["preview"]
    deploy = load(DEPLOY)
    assert preview["uses"] == deploy["jobs"]["stack"]["uses"] == "./.github/workflows/stack.yml"
    assert preview["with"]["command"] == "preview"
    assert deploy["jobs"]["stack"]["with"]["command"] == (
        "${{ github.event_name == 'push' && 'up' || 'drift' }}"
    )
    triggers = deploy[True] if True in deploy else deploy["on"]  # YAML 1.1 reads `on` as true
    assert triggers["push"] == {"branches": ["main"]} and "schedule" in triggers
    # `up` runs in the protected environment, one update of a stack at a time.
    job = load(STACK)["jobs"]["stack"]
    assert job["environment"] == "${{ inputs.command == 'up' && 'deploy' || '' }}"
    assert job["concurrency"] == {"group": "stack-${{ inputs.stack }}", "cancel-in-progress": False}


def test_a_tag_is_built_and_published_by_trusted_publishing():
    release = load(WORKFLOW_DIR / "release.yml")
    triggers = release[True] if True in release else release["on"]
    assert triggers == {"push": {"tags": ["v*"]}}
    build, publish = release["jobs"]["build"], release["jobs"]["publish"]
    runs = " ".join(step.get("run", "") for step in build["steps"])
    assert 'python -m tools.release_version "$TAG"' in runs and "python -m build" in runs
    # Only the publishing job may ask for an OIDC token, in the protected environment; no
    # PyPI token anywhere.
    assert publish["permissions"] == {"id-token": "write"} and publish["environment"] == "pypi"
    assert "permissions" not in build and release["permissions"] == {"contents": "read"}
    assert "secrets." not in yaml.safe_dump(release)
    assert action(publish["steps"][-1]) == "pypa/gh-action-pypi-publish"


def test_pip_downloads_are_cached_on_the_requirements():
    """Every job that installs a requirements file (the release build installs `build` only)."""
    for job_id, step in [
        js for path in (PULL_REQUEST, STACK, DEPLOY) for js in steps_of(load(path))
    ]:
        if action(step) == "actions/setup-python":
            assert step["with"]["cache"] == "pip", job_id
            paths = list(ROOT.glob(step["with"]["cache-dependency-path"]))
            assert ROOT / "requirements.txt" in paths, job_id


def test_the_pulumi_cli_is_the_pinned_sdks_version():
    pinned = re.search(r"^pulumi==(\S+)$", (ROOT / "requirements.txt").read_text(), re.M)
    assert pinned
    uses = [s for _, s in steps_of(load(STACK)) if action(s) == "pulumi/actions"]
    assert uses and {s["with"]["pulumi-version"] for s in uses} == {pinned.group(1)}


def test_a_pull_request_gets_one_comment():
    """The offline diff's, updated in place; each stack's preview goes to the job summary."""
    steps = [s for path in WORKFLOWS for _, s in steps_of(load(path))]
    assert sum("gh pr comment" in s.get("run", "") for s in steps) == 1
    for step in steps:
        if action(step) == "pulumi/actions":
            assert step["with"]["comment-on-pr"] is False
            assert step["with"]["comment-on-summary"] is True


# --- the preview job -------------------------------------------------------------------------


def stack_files() -> dict[str, dict]:
    return {
        p.name[len("Pulumi.") : -len(".yaml")]: load(p)["config"]
        for p in sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))
    }


def matrix_step() -> dict:
    steps = load(PULL_REQUEST)["jobs"]["offline"]["steps"]
    return next(s for s in steps if s.get("id") == "stacks")


def preview_matrix(*args: str) -> subprocess.CompletedProcess:
    """The offline job's step that lists the stacks for the preview matrix, run as it runs (its
    command, `tools/preview_matrix.py`, with `args`)."""
    command = matrix_step()["run"]
    assert command == '.venv/bin/python -m tools.preview_matrix >> "$GITHUB_OUTPUT"'
    return subprocess.run(
        [sys.executable, "-m", "tools.preview_matrix", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


def matrix_entries() -> list[dict]:
    result = preview_matrix()
    assert result.returncode == 0, result.stderr
    key, value = result.stdout.strip().split("=", 1)
    assert key == "matrix"
    return json.loads(value)["include"]


def test_the_preview_matrix_has_every_stack_with_its_platforms_cloud_and_layers():
    expected = [
        {
            "stack": stack,
            "cloud": spec_of(config["gpu-fabric:platform"]).cloud,
            "layers": config.get("gpu-fabric:layers", "all"),
        }
        for stack, config in stack_files().items()
    ]
    found = matrix_entries()
    assert sorted(found, key=lambda e: e["stack"]) == sorted(expected, key=lambda e: e["stack"])
    jobs = load(PULL_REQUEST)["jobs"]
    assert jobs["offline"]["outputs"]["matrix"] == "${{ steps.stacks.outputs.matrix }}"
    assert jobs["preview"]["strategy"]["matrix"] == "${{ fromJSON(needs.offline.outputs.matrix) }}"


def test_a_stack_of_a_platform_no_spec_knows_stops_the_matrix(tmp_path):
    (tmp_path / "Pulumi.good.yaml").write_text(
        yaml.safe_dump({"config": {"gpu-fabric:platform": next(iter(SPECS[0].platforms))}})
    )
    assert preview_matrix("--stacks", str(tmp_path)).returncode == 0
    (tmp_path / "Pulumi.x.yaml").write_text(
        yaml.safe_dump({"config": {"gpu-fabric:platform": "eks-p5"}})
    )
    result = preview_matrix("--stacks", str(tmp_path))
    assert result.returncode == 1 and result.stdout == ""
    assert "Pulumi.x.yaml" in result.stderr and "'eks-p5'" in result.stderr


def for_cloud(step: dict, cloud: str) -> bool:
    condition = step.get("if", "")
    return "steps.gate.outputs.run == 'true'" in condition and (
        f"inputs.cloud == '{cloud}'" in condition
    )


def test_the_preview_job_has_an_auth_step_per_cloud():
    preview = load(STACK)["jobs"]["stack"]
    steps = preview["steps"]
    assert preview["permissions"]["id-token"] == "write"  # GCP's and Alibaba Cloud's OIDC
    auth = {cloud: [s for s in steps if for_cloud(s, cloud)] for cloud in CLOUDS}

    gcp = next(s for s in auth["gcp"] if action(s) == "google-github-actions/auth")
    assert gcp["with"] == {
        "workload_identity_provider": "${{ vars.GCP_WORKLOAD_IDENTITY_PROVIDER }}",
        "service_account": "${{ vars.GCP_SERVICE_ACCOUNT }}",
    }
    alibaba = next(
        s for s in auth["alicloud"] if action(s) == "aliyun/configure-aliyun-credentials-action"
    )
    assert alibaba["with"] == {
        "role-to-assume": "${{ vars.ALIBABA_CLOUD_ROLE_ARN }}",
        "oidc-provider-arn": "${{ vars.ALIBABA_CLOUD_OIDC_PROVIDER_ARN }}",
    }
    # OCI: Oracle's OCI_CLI_* secrets, handed to the Pulumi OCI provider as its TF_VAR_* names.
    oci = next(s for s in auth["oci"] if "run" in s)
    for name in ("OCI_CLI_USER", "OCI_CLI_TENANCY", "OCI_CLI_FINGERPRINT", "OCI_CLI_KEY_CONTENT"):
        assert oci["env"][name] == f"${{{{ secrets.{name} }}}}"
    for name in ("user_ocid", "tenancy_ocid", "fingerprint", "private_key_path"):
        assert f"TF_VAR_{name}=" in oci["run"]
    assert "umask 077" in oci["run"] and "GITHUB_ENV" in oci["run"]

    # Every platform's cloud has its step, and each comes before the preview.
    assert [cloud for cloud, found in auth.items() if not found] == []
    preview_at = next(i for i, s in enumerate(steps) if action(s) == "pulumi/actions")
    assert all(steps.index(s) < preview_at for found in auth.values() for s in found)
    pulumi = steps[preview_at]
    assert pulumi["if"] == "steps.gate.outputs.run == 'true'"
    # A preview for pull requests and the drift check (which expects no changes), `up` on merge.
    assert pulumi["with"]["command"] == "${{ inputs.command == 'up' && 'up' || 'preview' }}"
    assert pulumi["with"]["expect-no-changes"] == "${{ inputs.command == 'drift' }}"
    # Gating is per stack (the gate step), not one cloud's settings for the whole job.
    assert "if" not in preview


# The gate step, run as the runner would: bash, with its env as GitHub renders it.
GATE_ENV = {
    "FROM_FORK": "false",
    "HAVE_BACKEND": "true",
    "HAVE_GCP": "true",
    "HAVE_OCI": "true",
    "HAVE_ALIBABA": "true",
}


def gate_step() -> dict:
    steps = load(STACK)["jobs"]["stack"]["steps"]
    assert steps[0].get("id") == "gate"  # before checkout: a skip costs nothing
    return steps[0]


def run_gate(tmp_path, stack: str, cloud: str, layers: str, **env: str):
    summary, output = tmp_path / "summary.md", tmp_path / "output"
    summary.write_text("")
    output.write_text("")
    result = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", gate_step()["run"]],
        env={
            "PATH": "/usr/bin:/bin",
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_OUTPUT": str(output),
            "STACK": stack,
            "CLOUD": cloud,
            "LAYERS": layers,
            "COMMAND": "preview",
            **GATE_ENV,
            **env,
        },
        capture_output=True,
        text=True,
    )
    return result, output.read_text().strip(), summary.read_text().strip()


def test_the_gate_reads_only_its_env_and_every_setting_it_needs():
    gate = gate_step()
    assert "${{" not in gate["run"]  # no expression is pasted into the script
    env = gate["env"]
    assert env["STACK"] == "${{ inputs.stack }}" and env["LAYERS"] == "${{ inputs.layers }}"
    for name in ("GCP_WORKLOAD_IDENTITY_PROVIDER", "GCP_SERVICE_ACCOUNT"):
        assert f"vars.{name} != ''" in env["HAVE_GCP"]
    for name in ("ALIBABA_CLOUD_ROLE_ARN", "ALIBABA_CLOUD_OIDC_PROVIDER_ARN"):
        assert f"vars.{name} != ''" in env["HAVE_ALIBABA"]
    for name in ("OCI_CLI_USER", "OCI_CLI_TENANCY", "OCI_CLI_FINGERPRINT", "OCI_CLI_KEY_CONTENT"):
        assert f"secrets.{name} != ''" in env["HAVE_OCI"]
    assert "secrets.PULUMI_ACCESS_TOKEN != ''" in env["HAVE_BACKEND"]


@pytest.mark.parametrize(
    "stack, cloud, layers",
    [
        ("a3-prod", "gcp", "all"),
        ("oke-dranet", "oci", "cloud"),
        ("ack-lingjun", "alicloud", "cloud"),
    ],
)
def test_a_stack_whose_cloud_is_set_up_is_previewed(tmp_path, stack, cloud, layers):
    result, output, summary = run_gate(tmp_path, stack, cloud, layers)
    assert result.returncode == 0, result.stderr
    assert output == "run=true" and summary == ""


@pytest.mark.parametrize(
    "stack, cloud, have, setting",
    [
        ("a3-prod", "gcp", "HAVE_GCP", "GCP_WORKLOAD_IDENTITY_PROVIDER"),
        ("oke-dranet", "oci", "HAVE_OCI", "OCI_CLI_KEY_CONTENT"),
        ("ack-lingjun", "alicloud", "HAVE_ALIBABA", "ALIBABA_CLOUD_ROLE_ARN"),
    ],
)
def test_a_stack_whose_cloud_has_no_credentials_is_skipped_with_a_summary_line(
    tmp_path, stack, cloud, have, setting
):
    result, output, summary = run_gate(tmp_path, stack, cloud, "cloud", **{have: "false"})
    assert result.returncode == 0, result.stderr  # skipped, not failed
    assert output == "run=false"
    assert summary.startswith(f"- `{stack}` ({cloud}): no pulumi preview.")
    assert f"No {cloud} credentials" in summary and setting in summary


@pytest.mark.parametrize(
    "stack, cloud", [("oke-dranet-fabric", "oci"), ("ack-lingjun-fabric", "alicloud")]
)
def test_a_fabric_stack_is_skipped_as_it_needs_a_runner_inside_the_network(tmp_path, stack, cloud):
    result, output, summary = run_gate(tmp_path, stack, cloud, "fabric")
    assert result.returncode == 0, result.stderr
    assert output == "run=false"
    assert "fabric stack" in summary and "VCN/VPC" in summary and "private" in summary


def test_forks_and_a_missing_backend_are_skipped_with_a_summary_line(tmp_path):
    _, output, summary = run_gate(tmp_path, "a3-prod", "gcp", "all", FROM_FORK="true")
    assert output == "run=false" and "fork" in summary
    _, output, summary = run_gate(tmp_path, "a3-prod", "gcp", "all", HAVE_BACKEND="false")
    assert output == "run=false" and "PULUMI_ACCESS_TOKEN" in summary


@pytest.mark.parametrize("cloud", CLOUDS)
def test_the_gate_knows_every_cloud(tmp_path, cloud):
    result, output, _ = run_gate(tmp_path, "x", cloud, "all")
    assert result.returncode == 0, result.stdout + result.stderr
    assert output == "run=true"


def test_a_cloud_without_a_credentials_step_fails_the_gate(tmp_path):
    result, output, _ = run_gate(tmp_path, "x", "aws", "all")
    assert result.returncode == 1 and output == ""
    assert "no credentials step for the cloud 'aws'" in result.stdout
