"""What each kind of training volume promises, as its provider publishes it: one place for the
figures docs/storage.md's tier table and `make verify STORAGE=1` both give."""

from __future__ import annotations

PROMISES: dict[str, str] = {
    "claim": "your claim: its storage's own figures",
    "gcs": (
        "Cloud Storage FUSE: no per-node figure; a bucket's bandwidth scales with the nodes "
        "reading it, up to the project's regional egress quota (Cloud Storage docs, "
        '"Quotas and limits")'
    ),
    "fss": (
        "OCI File Storage: throughput grows with the data stored, and a high performance mount "
        'target raises it (OCI docs, "File Storage performance")'
    ),
    "cpfs": (
        "CPFS for Lingjun: throughput grows with the file system's capacity (Alibaba Cloud "
        'docs, "CPFS for Lingjun" specifications)'
    ),
}
"""A volume's kind -> what its provider promises, for a reader judging the measured figure."""
