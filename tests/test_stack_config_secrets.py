"""Encrypted values in a stack file: a nested `secure:` value makes its top-level key secret, a
secret is text, and no problem shows a secret value. Each rule is triggered on both sides."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_fabric import stack_file
from gpu_fabric.problems import ConfigError
from gpu_fabric.stack_config import parse_pulumi_config
from offline import engine
from tests.conftest import (
    DELETE,
    encode,
    stack_values,
    with_changes,
    write_stack_file,
)

OKE, ACK, GKE = "oke-dranet", "ack-lingjun", "a3-prod"
SECURE = {"secure": "v1:AAABAxyzEncryptedBytes=="}


def _nested_secure(tmp_path, monkeypatch, stack: str, changes: dict[str, Any]):
    """The stack file of `stack` with `changes` (a `secure:` value somewhere), read offline."""
    write_stack_file(tmp_path, stack, with_changes(stack_values(stack), changes))
    monkeypatch.setattr(stack_file, "STACKS_DIR", tmp_path)
    return stack_file.stack_config_and_secrets(stack)


def test_a_nested_secure_value_parses_and_its_key_is_secret(tmp_path, monkeypatch):
    values, secret = _nested_secure(
        tmp_path, monkeypatch, OKE, {"gpu-fabric:gpuNodes.sshPublicKey": SECURE}
    )
    assert secret == ["gpu-fabric:gpuNodes"]
    assert '"sshPublicKey": "[secret]"' in values["gpu-fabric:gpuNodes"]
    assert "v1:AAAB" not in str(values)
    cfg = parse_pulumi_config(values, OKE, stacks_dir=None, secret_keys=secret)
    assert cfg.gpu_nodes.ssh_public_key == stack_file.SECRET_PLACEHOLDER


def test_a_top_level_secure_value_is_still_a_secret_key(tmp_path, monkeypatch):
    values, secret = _nested_secure(tmp_path, monkeypatch, OKE, {"oci:privateKey": SECURE})
    assert secret == ["oci:privateKey"]
    assert values["oci:privateKey"] == stack_file.SECRET_PLACEHOLDER


def test_a_nested_secret_reaches_its_resource_input_as_a_secret(tmp_path, monkeypatch):
    values, secret = _nested_secure(
        tmp_path, monkeypatch, OKE, {"gpu-fabric:gpuNodes.sshPublicKey": SECURE}
    )
    plan = engine.run(OKE, values, secret)
    instance = plan.of_type("oci:Core/instance:Instance")[0]
    assert "metadata" in instance.secret_inputs
    # Without the secret, the same input is plain: the test can fail.
    plain = engine.run(OKE, values, [])
    assert "metadata" not in plain.of_type("oci:Core/instance:Instance")[0].secret_inputs


@pytest.mark.parametrize(
    "stack, path, needs",
    [
        (OKE, "gpuNodes.count", "needs a whole number"),
        (GKE, "gke.privateNodes", "needs true or false"),
        (GKE, "gke.masterAuthorizedNetworks", "needs a list"),
        (ACK, "ack.systemPool.nodeCount", "needs a whole number"),
    ],
)
def test_a_nested_secure_value_under_a_key_that_is_not_text_is_refused(
    tmp_path, monkeypatch, stack, path, needs
):
    key = f"gpu-fabric:{path}"
    values, secret = _nested_secure(tmp_path, monkeypatch, stack, {key: SECURE})
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(values, stack, stacks_dir=None, secret_keys=secret)
    (problem,) = err.value.problems
    assert (problem.key, problem.value) == (key, "[secret]")
    assert needs in problem.message
    assert f"pulumi config set --path '{key}' VALUE` (without --secret)" in problem.message
    assert "quote it" not in problem.message


def test_a_decrypted_secret_under_a_count_is_refused_the_same_way_under_the_cli():
    # Under the CLI the program gets the decrypted text, and the key among the secret keys.
    values = encode(with_changes(stack_values(OKE), {"gpu-fabric:gpuNodes.count": "2"}))
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(values, OKE, stacks_dir=None, secret_keys=["gpu-fabric:gpuNodes"])
    (problem,) = err.value.problems
    assert (problem.key, problem.value) == ("gpu-fabric:gpuNodes.count", "[secret]")
    assert "needs a whole number" in problem.message
    # Not secret: the ordinary type problem, with its value.
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(values, OKE, stacks_dir=None)
    (problem,) = err.value.problems
    assert problem.value == "2" and "whole number" in problem.message


def test_a_checked_text_key_that_is_secret_says_the_offline_plan_cannot_check_it(
    tmp_path, monkeypatch
):
    values, secret = _nested_secure(
        tmp_path, monkeypatch, ACK, {"gpu-fabric:lingjun.groupId": SECURE}
    )
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(values, ACK, stacks_dir=None, secret_keys=secret)
    (problem,) = err.value.problems
    assert (problem.key, problem.value) == ("gpu-fabric:lingjun.groupId", "[secret]")
    assert "the offline plan cannot decrypt it" in problem.message


def test_a_secret_keys_bad_value_is_not_echoed():
    bad = "not-an-ocid-but-secret"
    values = encode(with_changes(stack_values(OKE), {"gpu-fabric:gpuNodes.imageId": bad}))
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(values, OKE, stacks_dir=None, secret_keys=["gpu-fabric:gpuNodes"])
    (problem,) = err.value.problems
    assert problem.key == "gpu-fabric:gpuNodes.imageId"
    assert bad not in str(problem.value) and bad not in problem.message


def test_another_stack_file_with_a_nested_secret_is_still_compared(tmp_path):
    # The copy check reads the other stack files too: a nested secret there must not make the
    # file unreadable (and so skip the check).
    other = with_changes(stack_values(OKE), {"gpu-fabric:gpuNodes.sshPublicKey": SECURE})
    write_stack_file(tmp_path, "prod", other)
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(encode(stack_values(OKE)), "copy", stacks_dir=tmp_path)
    assert any("stack prod" in p.message for p in err.value.problems)


def test_a_cross_field_problem_under_a_secret_key_does_not_show_its_values():
    """A rule that names values (the Lingjun group id equal to the cluster id) under a key Pulumi
    holds secret shows neither the value nor the ids in its message."""
    from gpu_fabric.problems import ConfigError
    from gpu_fabric.stack_config import parse_pulumi_config
    from gpu_fabric.stack_file import SECRET_PLACEHOLDER
    from tests.conftest import encode, stack_values, with_changes

    cluster = "i118191731740041623425"
    values = encode(
        with_changes(stack_values("ack-lingjun"), {"gpu-fabric:lingjun.groupId": cluster})
    )
    with pytest.raises(ConfigError) as plain:
        parse_pulumi_config(values, "ack-lingjun", stacks_dir=None)
    assert cluster in str(plain.value)  # the rule names it when the key is not secret
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(
            values, "ack-lingjun", stacks_dir=None, secret_keys=["gpu-fabric:lingjun"]
        )
    (problem,) = err.value.problems
    assert problem.key == "gpu-fabric:lingjun.groupId" and problem.value == SECRET_PLACEHOLDER
    assert cluster not in str(err.value)


# --- credentials in plain text -----------------------------------------------------------------


def test_a_credential_in_plain_text_is_refused_without_echoing_it():
    from gpu_fabric.stack_config.namespaces import credential_problems

    key_json = '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----"}'
    (problem,) = credential_problems({"gcp:credentials": key_json}, set())
    assert problem.key == "gcp:credentials" and problem.value == "[not shown]"
    assert "pulumi config set --secret gcp:credentials" in problem.message
    (token,) = credential_problems({"gcp:accessToken": "ya29.a0Af"}, set())
    assert token.key == "gcp:accessToken"
    assert credential_problems({"gcp:credentials": key_json}, {"gcp:credentials"}) == []


@pytest.mark.parametrize("path", ["/home/me/key.json", "C:\\\\keys\\\\sa.json", "key.json"])
def test_a_credential_file_path_is_not_a_credential(path):
    """pulumi-gcp `credentials`: either the path to or the contents of a key file."""
    from gpu_fabric.stack_config.namespaces import credential_problems

    assert credential_problems({"gcp:credentials": path}, set()) == []
    # A key other than a path key is a credential whatever it looks like.
    assert len(credential_problems({"gcp:accessToken": path}, set())) == 1


# --- a stack file that imports a Pulumi ESC environment -----------------------------------------


@pytest.mark.parametrize(
    "environment", [["acme/gpu-prod"], {"imports": ["acme/gpu-prod"]}], ids=["list", "imports"]
)
def test_provider_keys_left_to_an_esc_environment_plan_offline_with_a_warning(
    tmp_path, monkeypatch, environment
):
    """The CLI merges the environment's config; offline it is not read, so the key is planned
    with a placeholder and named unchecked, not refused as not set."""
    import yaml

    values = with_changes(stack_values(GKE), {"gcp:project": DELETE})
    path = write_stack_file(tmp_path, GKE, values)
    document = yaml.safe_load(path.read_text())
    path.write_text(yaml.safe_dump({"environment": environment, **document}, sort_keys=False))
    monkeypatch.setattr(stack_file, "STACKS_DIR", tmp_path)
    monkeypatch.setattr(engine, "STACKS_DIR", tmp_path)
    plan = engine.run(GKE)
    (warning,) = [w for w in plan.warnings if w.startswith("gcp:project:")]
    assert "ESC environment(s) it imports (acme/gpu-prod)" in warning
    assert "'esc-unread-project', unchecked" in warning
    # Without the import, the missing key is the problem it is.
    write_stack_file(tmp_path, GKE, values)
    with pytest.raises(ConfigError, match="gcp:project"):
        engine.run(GKE)


# --- encrypted values a check refuses offline ---------------------------------------------------


def test_an_encrypted_range_plans_offline_with_its_default_and_a_warning(tmp_path, monkeypatch):
    """The CLI decrypts it and the program checks it then; offline it cannot be read."""
    changes = {"gpu-fabric:network.primary.subnetCidr": SECURE, "gcp:project": SECURE}
    write_stack_file(tmp_path, GKE, with_changes(stack_values(GKE), changes))
    monkeypatch.setattr(stack_file, "STACKS_DIR", tmp_path)
    monkeypatch.setattr(engine, "STACKS_DIR", tmp_path)
    plan = engine.run(GKE)
    warned = sorted(
        w.split(":", 2)[0] + ":" + w.split(":", 2)[1] for w in plan.warnings if "secure:" in w
    )
    assert warned == ["gcp:project", "gpu-fabric:network.primary.subnetCidr"]
    (subnet,) = [
        s for s in plan.of_type("gcp:compute/subnetwork:Subnetwork") if "primary" in s.name
    ]
    assert subnet.inputs["ipCidrRange"] == "10.0.0.0/20"  # the field's default


def test_an_encrypted_required_value_is_named_as_what_it_is(tmp_path, monkeypatch):
    changes = {"gpu-fabric:gke.name": SECURE}
    write_stack_file(tmp_path, GKE, with_changes(stack_values(GKE), changes))
    monkeypatch.setattr(stack_file, "STACKS_DIR", tmp_path)
    monkeypatch.setattr(engine, "STACKS_DIR", tmp_path)
    with pytest.raises(ConfigError) as err:
        engine.run(GKE)
    (problem,) = err.value.problems
    assert problem.key == "gpu-fabric:gke.name"
    assert "encrypted (secure:) and required" in problem.message
