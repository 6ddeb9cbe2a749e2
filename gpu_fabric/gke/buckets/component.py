"""`TrainingBuckets`: the training volumes' Cloud Storage buckets, created or existing, each
readable (data) or writable (checkpoints) by the training namespaces' Kubernetes service accounts
and nothing else the stack makes.

What waits for what: a created bucket waits for nothing; a grant waits for its bucket and for the
cluster, whose Workload Identity pool its principal names.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_gcp as gcp

from .args import GkeTrainingBucket


@dataclass
class TrainingBucketsArgs:
    buckets: list[GkeTrainingBucket]
    """The buckets, each with what the training namespaces may do in it."""
    project: str
    """The cluster's project: a created bucket's, and its Workload Identity pool's."""
    region: str
    """Where a created bucket is: the cluster's region, so that its reads and writes stay in it
    (GKE docs, "Set up the Cloud Storage FUSE CSI driver": a regional bucket in the cluster's
    region)."""
    cluster: pulumi.Resource
    """The cluster: its Workload Identity pool is what the grants name."""


def namespace_principal(project_number: pulumi.Input[str], project: str, namespace: str):
    """Every Kubernetes service account of `namespace` in the project's clusters, as IAM names
    them (GKE docs, "Authenticate to Google Cloud APIs from GKE workloads": Workload Identity
    Federation for GKE principal identifiers)."""
    return pulumi.Output.concat(
        "principalSet://iam.googleapis.com/projects/",
        project_number,
        f"/locations/global/workloadIdentityPools/{project}.svc.id.goog/namespace/{namespace}",
    )


class TrainingBuckets(pulumi.ComponentResource):
    def __init__(
        self, name: str, args: TrainingBucketsArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-fabric:gke:TrainingBuckets", name, None, opts)
        # A principal names the project by number (`resourcemanager.projects.get`).
        number = gcp.organizations.get_project_output(
            project_id=args.project, opts=pulumi.InvokeOutputOptions(parent=self)
        ).number.apply(str)
        for bucket in args.buckets:
            name_of: pulumi.Input[str] = bucket["bucket"]
            if bucket["create"]:
                made = gcp.storage.Bucket(
                    f"{name}-{bucket['bucket']}",
                    name=bucket["bucket"],
                    project=args.project,
                    location=args.region.upper(),
                    storage_class="STANDARD",
                    # Hierarchical namespace: atomic folder renames and a higher initial request
                    # rate, which checkpoint writers need (Cloud Storage docs, "Hierarchical
                    # namespace"); it requires uniform bucket-level access.
                    hierarchical_namespace={"enabled": True},
                    uniform_bucket_level_access=True,
                    public_access_prevention="enforced",
                    # It holds the data set or the checkpoints: a `pulumi destroy` or a
                    # replacement stops at it, and Cloud Storage refuses to delete it non-empty.
                    force_destroy=False,
                    opts=pulumi.ResourceOptions(parent=self, protect=True),
                )
                name_of = made.name
            role = bucket["role"]
            for namespace in bucket["namespaces"]:
                gcp.storage.BucketIAMMember(
                    f"{name}-{bucket['bucket']}-{namespace}-{role.rsplit('.', 1)[-1]}",
                    bucket=name_of,
                    role=role,
                    member=namespace_principal(number, args.project, namespace),
                    opts=pulumi.ResourceOptions(parent=self, depends_on=[args.cluster]),
                )
        self.register_outputs({})
