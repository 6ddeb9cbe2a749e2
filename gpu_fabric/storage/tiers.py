"""What each kind of training volume promises, as its provider publishes it: one place for the
figures docs/storage.md's tier table and `make verify STORAGE=1` both give."""

from __future__ import annotations

PROMISES: dict[str, str] = {
    "claim": "your claim: its storage's own figures",
    "gcs": "Cloud Storage FUSE: no published per-node figure",
    "lustre": (
        "Lustre: 125, 250, 500 or 1000 MB/s per TiB (GKE's Managed Lustre) or TB (OCI File "
        'Storage with Lustre) of capacity, the tier chosen (Managed Lustre docs, "Performance '
        'tiers"; OCI API, `CreateLustreFileSystemDetails.performanceTier`)'
    ),
    "filestore": (
        "Filestore: by tier; zonal, 1-9.75 TiB: reads 260 and writes 88 MiB/s per TiB "
        '(Filestore docs, "Service tiers")'
    ),
    "fss": (
        "OCI File Storage: a mount target's throughput, 1 Gbps standard, 20, 40 or 80 Gbps high "
        'performance (OCI docs, "Changing mount target performance")'
    ),
    "cpfs": (
        "CPFS for Lingjun: reads 400 MB/s and writes 200 MB/s per TiB of capacity, at most "
        '25 GB/s per client (Alibaba Cloud, "CPFS for Lingjun product specifications")'
    ),
}
"""A volume's kind -> what its provider promises, for a reader judging the measured figure."""
