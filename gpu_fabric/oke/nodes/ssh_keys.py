"""SSH public keys as a node's authorized_keys takes them: each line `TYPE BASE64 [COMMENT]`.

A line is refused unless its key data decodes and names its own type (RFC 4253 section 6.6: the
blob starts with the length-prefixed type name), so a truncated paste, a key without its type, a
private key or the path of a key file never reaches a node. A refused key is never echoed.
"""

from __future__ import annotations

import base64
import binascii
import struct
from typing import Annotated

from pydantic import AfterValidator

from ...problems import UnshownValueError
from ...stack_file import SECRET_PLACEHOLDER

KEY_TYPES = (
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
)
"""The public key types OpenSSH's authorized_keys takes (sshd(8), AUTHORIZED_KEYS FILE FORMAT)."""
OCI_METADATA_LIMIT = 32_000
"""OCI instance metadata, `metadata` and `extendedMetadata` together, at most 32,000 bytes (OCI
API reference, LaunchInstanceDetails `metadata`); the key is one value of it."""


def _fields(data: str) -> list[bytes] | None:
    """The length-prefixed fields of a key blob (type name, then the key's numbers), or None when
    the text is not base64 or the fields do not fill the blob exactly (a truncated paste)."""
    try:
        blob = base64.b64decode(data, validate=True)
    except binascii.Error:
        return None
    fields, at = [], 0
    while at < len(blob):
        if at + 4 > len(blob):
            return None
        (length,) = struct.unpack(">I", blob[at : at + 4])
        if at + 4 + length > len(blob):
            return None
        fields.append(blob[at + 4 : at + 4 + length])
        at += 4 + length
    return fields if len(fields) >= 2 else None


def _line_problem(line: str) -> str | None:
    words = line.split()
    if len(words) == 1 and ("/" in line or line.endswith(".pub") or line.startswith("~")):
        return "is the path of a key file, not the key; give the file's contents (cat KEY.pub)"
    if len(words) < 2 or words[0] not in KEY_TYPES:
        return (
            "is not an SSH public key line: write TYPE BASE64 [COMMENT], TYPE one of "
            f"{', '.join(KEY_TYPES)} (the line of a .pub file)"
        )
    fields = _fields(words[1])
    if fields is None:
        return "has key data that is not base64 of an SSH key; paste the whole .pub line again"
    named = fields[0].decode(errors="replace")
    if named != words[0]:
        return (
            f"says {words[0]} but its key data is a {named or 'truncated'} key; paste the whole "
            ".pub line again"
        )
    return None


def _ssh_public_keys(value: str) -> str:
    if value == SECRET_PLACEHOLDER:
        return value  # an encrypted (secure:) key offline: the CLI checks the decrypted one
    shown = f"[{len(value.encode())} bytes of key text, not shown]"
    if len(value.encode()) > OCI_METADATA_LIMIT:
        raise UnshownValueError(
            f"is larger than the {OCI_METADATA_LIMIT:,} bytes OCI allows for all of an instance's "
            "metadata; give only the public keys the nodes need",
            shown,
        )
    lines = [line for line in value.splitlines() if line.strip()]
    if not lines:
        raise UnshownValueError("holds no key; give a public key, or remove the key", shown)
    for n, line in enumerate(lines, start=1):
        problem = _line_problem(line.strip())
        if problem:
            where = f"line {n} " if len(lines) > 1 else ""
            raise UnshownValueError(f"{where}{problem}", shown)
    return value


SshPublicKeys = Annotated[str, AfterValidator(_ssh_public_keys)]
"""One or more SSH public keys, one per line (authorized_keys)."""
