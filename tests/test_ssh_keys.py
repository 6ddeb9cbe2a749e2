"""SSH public keys of the OKE GPU nodes: used as written, or refused without being echoed."""

from __future__ import annotations

import base64

import pytest

from tests.conftest import SSH_PUBLIC_KEY, only_problem, parse_stack

KEY = "gpu-fabric:gpuNodes.sshPublicKey"
RSA_AS_ED25519 = (
    "ssh-ed25519 "
    + base64.b64encode(
        b"".join(len(p).to_bytes(4, "big") + p for p in (b"ssh-rsa", b"\x01\x00\x01"))
    ).decode()
)


def test_a_public_key_and_several_lines_of_them_are_used_as_written():
    for keys in (SSH_PUBLIC_KEY, f"{SSH_PUBLIC_KEY} me@laptop\n{SSH_PUBLIC_KEY} ci\n"):
        cfg = parse_stack({KEY: keys}, "oke-dranet")
        assert cfg.gpu_nodes.ssh_public_key == keys


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("~/.ssh/id_ed25519.pub", "the path of a key file"),
        ("/home/me/.ssh/id_rsa.pub", "the path of a key file"),
        (SSH_PUBLIC_KEY.split()[1], "not an SSH public key line"),  # the key without its type
        (f"ssh-dss {SSH_PUBLIC_KEY.split()[1]}", "not an SSH public key line"),
        (SSH_PUBLIC_KEY[:-12], "not base64 of an SSH key"),  # a truncated paste
        (RSA_AS_ED25519, "its key data is a ssh-rsa key"),
        (f"{SSH_PUBLIC_KEY}\nssh-ed25519", "line 2 is not an SSH public key line"),
        ("\n \n", "holds no key"),
        (f"{SSH_PUBLIC_KEY} {'x' * 32_000}", "32,000 bytes OCI allows"),
    ],
)
def test_a_bad_key_is_refused_naming_why_and_is_never_echoed(value, says):
    problem = only_problem({KEY: value}, "oke-dranet")
    assert problem.key == KEY and says in problem.message
    assert problem.value == f"[{len(value.encode())} bytes of key text, not shown]"
    for word in value.split():
        if len(word) > len("ssh-ed25519"):  # a key's data, a path, a comment: never echoed
            assert word not in str(problem)


def test_the_hosted_oke_cloud_layer_refuses_a_key_path_by_property_path():
    from tests.test_layer_inputs import _build, _refused

    _, reasons = _refused(
        lambda: _build("OkeCloud", (("gpu_nodes", "ssh_public_key"), "~/.ssh/id_ed25519.pub"))
    )
    assert list(reasons) == ["gpuNodes.sshPublicKey"]
    assert "the path of a key file" in reasons["gpuNodes.sshPublicKey"]
