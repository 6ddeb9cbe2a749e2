"""Registering Kubernetes objects given as manifests (dicts in the API's own shape)."""

from __future__ import annotations

import importlib.metadata

import pulumi
import pulumi_kubernetes as k8s

_ENVELOPE = ("apiVersion", "kind", "metadata")
SKIP_AWAIT = "pulumi.com/skipAwait"
"""pulumi-kubernetes' annotation: `pulumi up` does not wait for the object to be ready."""


class _TopLevelObject(pulumi.CustomResource):
    """A custom object whose fields are not all under `spec` (Kueue's WorkloadPriorityClass has a
    top-level `value`): registered as pulumi-kubernetes' `CustomResource` registers any custom
    object (type `kubernetes:<apiVersion>:<kind>`, the manifest's fields as its inputs), since
    the Python `CustomResource` takes `spec` only."""

    def __init__(self, name: str, manifest: dict, opts: pulumi.ResourceOptions):
        # The plugin version of the SDK, as its own resources ask for it.
        version = importlib.metadata.version("pulumi-kubernetes")
        opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(version=version))
        super().__init__(
            f"kubernetes:{manifest['apiVersion']}:{manifest['kind']}", name, dict(manifest), opts
        )


def custom_resource(name: str, manifest: dict, opts: pulumi.ResourceOptions) -> pulumi.Resource:
    """A custom resource with exactly the manifest's fields: everything but the envelope is spec,
    or, where the kind has fields beside `spec`, the manifest as it is."""
    body = {k: v for k, v in manifest.items() if k not in _ENVELOPE}
    if set(body) - {"spec"}:
        return _TopLevelObject(name, manifest, opts)
    return k8s.apiextensions.CustomResource(
        name,
        api_version=manifest["apiVersion"],
        kind=manifest["kind"],
        metadata=manifest["metadata"],
        opts=opts,
        **body,
    )


_BUILT_IN = {
    ("v1", "Namespace"): k8s.core.v1.Namespace,
    ("v1", "ServiceAccount"): k8s.core.v1.ServiceAccount,
    ("v1", "ConfigMap"): k8s.core.v1.ConfigMap,
    ("v1", "Secret"): k8s.core.v1.Secret,
    ("v1", "Service"): k8s.core.v1.Service,
    ("v1", "PersistentVolume"): k8s.core.v1.PersistentVolume,
    ("v1", "PersistentVolumeClaim"): k8s.core.v1.PersistentVolumeClaim,
    ("apps/v1", "Deployment"): k8s.apps.v1.Deployment,
    ("apps/v1", "DaemonSet"): k8s.apps.v1.DaemonSet,
    ("rbac.authorization.k8s.io/v1", "ClusterRole"): k8s.rbac.v1.ClusterRole,
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): k8s.rbac.v1.ClusterRoleBinding,
}
_TOP_LEVEL_ARGS = {"roleRef": "role_ref", "stringData": "string_data"}
"""Top-level fields whose Python argument is spelled otherwise (nested ones stay camelCase, as the
provider takes them)."""


def kubernetes_object(name: str, manifest: dict, opts: pulumi.ResourceOptions) -> pulumi.Resource:
    """The manifest registered as its kind's typed resource (a built-in kind) or a custom one."""
    kind = _BUILT_IN.get((manifest["apiVersion"], manifest["kind"]))
    if kind is None:
        return custom_resource(name, manifest, opts)
    body = {_TOP_LEVEL_ARGS.get(k, k): v for k, v in manifest.items() if k not in _ENVELOPE[:2]}
    return kind(name, opts=opts, **body)
