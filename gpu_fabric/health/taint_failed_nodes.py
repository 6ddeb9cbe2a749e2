"""The taint controller: keeps new pods off a GPU node whose health check confirms a problem.

Runs in the cluster (a Deployment of `taint_controller.py`, this file in a ConfigMap), with the
Python standard library only. Every `INTERVAL_SECONDS` it lists the nodes; a node with one of
`CONDITIONS` `True` (node-problem-detector's verdict, `node_checks.py`) gets the taint
`TAINT_KEY=<conditions>:NoSchedule`, and a node whose conditions are all back to `False` loses it.
`Unknown` is no verdict: the taint stays as it was. Running pods stay (NoSchedule, not NoExecute):
a job on a node that breaks fails or finishes by itself, and the queue's next job goes elsewhere.

Each change is a JSON patch that first tests the node's resourceVersion, so a taint another
controller wrote meanwhile is never overwritten: the patch fails and the next round retries.
"""

from __future__ import annotations

import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.request

TAINT_EFFECT = "NoSchedule"
ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"


def failed_checks(node: dict, conditions: set[str]) -> list[str]:
    """The node's conditions among `conditions` that are `True`, sorted."""
    return sorted(
        c["type"]
        for c in node.get("status", {}).get("conditions", [])
        if c.get("type") in conditions and c.get("status") == "True"
    )


def wanted_taints(node: dict, conditions: set[str], taint_key: str) -> list[dict] | None:
    """The node's taints as they should be, or None when they already are: the others' taints
    kept as they are, ours there with the failed checks as its value while one has failed."""
    taints = node.get("spec", {}).get("taints") or []
    others = [t for t in taints if t.get("key") != taint_key]
    failed = failed_checks(node, conditions)
    if failed:
        # A taint value is a label value: at most 63 characters of [A-Za-z0-9_.-].
        ours = [{"key": taint_key, "value": ".".join(failed)[:63], "effect": TAINT_EFFECT}]
    else:
        ours = []
    wanted = others + ours
    return None if wanted == taints else wanted


def patch_of(node: dict, taints: list[dict]) -> list[dict]:
    """The JSON patch that sets `taints` if the node is still the one read."""
    return [
        {
            "op": "test",
            "path": "/metadata/resourceVersion",
            "value": node["metadata"]["resourceVersion"],
        },
        {"op": "add", "path": "/spec/taints", "value": taints},
    ]


def _request(method: str, path: str, body: object | None = None) -> dict:
    host = os.environ["KUBERNETES_SERVICE_HOST"]
    port = os.environ["KUBERNETES_SERVICE_PORT"]
    with open(f"{ACCOUNT}/token") as token:
        headers = {"Authorization": f"Bearer {token.read().strip()}"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json-patch+json"
    request = urllib.request.Request(
        f"https://{host}:{port}{path}", data=data, headers=headers, method=method
    )
    context = ssl.create_default_context(cafile=f"{ACCOUNT}/ca.crt")
    with urllib.request.urlopen(request, context=context, timeout=30) as response:
        return json.load(response)


def reconcile(conditions: set[str], taint_key: str) -> None:
    """One round over every node."""
    for node in _request("GET", "/api/v1/nodes")["items"]:
        taints = wanted_taints(node, conditions, taint_key)
        if taints is None:
            continue
        name = node["metadata"]["name"]
        failed = failed_checks(node, conditions)
        try:
            _request("PATCH", f"/api/v1/nodes/{name}", patch_of(node, taints))
        except urllib.error.HTTPError as error:
            print(f"{name}: not patched ({error.code}), next round retries", flush=True)
            continue
        verdict = f"tainted, failed {', '.join(failed)}" if failed else "untainted, checks pass"
        print(f"{name}: {verdict}", flush=True)


def main() -> None:
    conditions = set(os.environ["CONDITIONS"].split(","))
    taint_key = os.environ["TAINT_KEY"]
    interval = int(os.environ.get("INTERVAL_SECONDS", "30"))
    while True:
        try:
            reconcile(conditions, taint_key)
        except (OSError, ValueError, KeyError) as error:
            print(f"round failed: {error!r}", file=sys.stderr, flush=True)
        time.sleep(interval)


if __name__ == "__main__":
    main()
