"""Waiting, in `pulumi up`, until a cluster's GPU nodes have registered and are Ready.

A cloud can report a node's machine running whether or not it joined the cluster (OKE's
self-managed instances), or the step that adds it may be a person's (ACK's Lingjun nodes, added to
their pool with "Add Existing Node"). Without a wait, `pulumi up` ends green with no GPU node.
The wait is a `command.local.Command` that runs where `pulumi up` runs (kubectl and the
kubeconfig's auth there, as the CRD gates): it selects the nodes by label, and on timeout fails
with what the platform says to do.

Its environment: the kubeconfig (`KUBECONFIG_ENV`), `SELECTOR`, `COUNT`, `TIMEOUT_SECONDS`, and
what the platform's failure lines name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pulumi
import pulumi_command as command

from .crd_gate import KUBECONFIG_ENV


def wait_script(failure: str, then: str = "") -> str:
    """The wait's shell script. `failure`: the lines `fail` prints after its first (shell, with
    the environment's variables); `then`: lines run once the nodes are Ready (they may `fail`)."""
    return f"""set -u
KUBECONFIG="$(mktemp)"
export KUBECONFIG
trap 'rm -f "$KUBECONFIG"' EXIT
printf '%s' "${KUBECONFIG_ENV}" > "$KUBECONFIG"
fail() {{
{failure}  exit 1
}}
deadline=$(( $(date +%s) + TIMEOUT_SECONDS ))
while :; do
  # An API error is not "no node": it is retried, and named if the time runs out.
  if listed=$(kubectl get nodes -l "$SELECTOR" -o name 2>&1); then
    joined=$(printf '%s\n' "$listed" | grep -c '^node/')
    [ "$joined" -ge "$COUNT" ] && break
    why="$joined of $COUNT registered within $TIMEOUT_SECONDS s"
  else
    why="kubectl could not list the nodes: $listed"
  fi
  [ "$(date +%s)" -ge "$deadline" ] && fail "$why"
  sleep 15
done
remaining=$(( deadline - $(date +%s) ))
[ "$remaining" -gt 60 ] || remaining=60
kubectl wait --for=condition=Ready node -l "$SELECTOR" --timeout="${{remaining}}s" \\
  || fail "$COUNT registered, but not all Ready"
{then}"""


def wait_command(
    name: str,
    script: str,
    kubeconfig: pulumi.Input[str],
    environment: Mapping[str, pulumi.Input[str]],
    triggers: Sequence[pulumi.Input[object]],
    parent: pulumi.Resource,
) -> command.local.Command:
    """The wait: `script` in `/bin/sh`, with the kubeconfig (secret) and `environment`; run again
    when one of `triggers` changes."""
    return command.local.Command(
        name,
        create=script,
        interpreter=["/bin/sh", "-c"],
        environment={KUBECONFIG_ENV: pulumi.Output.secret(kubeconfig), **environment},
        triggers=list(triggers),
        opts=pulumi.ResourceOptions(parent=parent),
    )
