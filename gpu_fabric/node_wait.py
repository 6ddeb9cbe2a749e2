"""Waiting, in `pulumi up`, until a cluster's GPU nodes have registered and are Ready.

A cloud can report a node's machine running whether or not it joined the cluster (OKE's
self-managed instances), or the step that adds it may be a person's (ACK's Lingjun nodes, added to
their pool with "Add Existing Node"). Without a wait, `pulumi up` ends green with no GPU node.
The wait is a `command.local.Command` that runs where `pulumi up` runs (kubectl and the
kubeconfig's auth there, as the CRD gates): it selects the nodes by label, and on timeout fails
with what the platform says to do.

Ready is not usable: after it, every node must keep no taint but the GPU taint (the platform's
allowed ones), advertise its GPUs and NICs, and run the pods that make it a fabric node
(`NodeNeeds`, checked by `usable_lines`), or the wait fails naming each node and what it lacks. A
node without its devices would otherwise leave `pulumi up` green on a fabric that carries no
traffic.

Its environment: the kubeconfig (`KUBECONFIG_ENV`), `SELECTOR`, `COUNT`, `TIMEOUT_SECONDS`, and
what the platform's failure lines name.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_command as command

from .crd_gate import KUBECONFIG_ENV
from .nvidia import GPU_RESOURCE


@dataclass(frozen=True)
class Advertised:
    """An extended resource the node's allocatable must hold at least `count` of."""

    resource: str
    count: int
    by: str
    """Who advertises it (named when it is missing): `GKE's NVIDIA device plugin`."""


@dataclass(frozen=True)
class Published:
    """Devices a DRA driver's ResourceSlices must publish for the node, at least `count`."""

    driver: str
    count: int
    by: str
    counted: DeviceTest | None = None
    """Which of the driver's devices count (unset: every one)."""


@dataclass(frozen=True)
class DeviceTest:
    """Which published devices count: `awk`'s condition on the device's `attributes`, read in
    order as fields `$2`, `$3`, ... (`$1` is the device's name; an attribute the device lacks is
    an empty field)."""

    attributes: Sequence[tuple[str, str]]
    """Each as its qualified name and its value's type: `("dra.net/rdma", "bool")`
    (resource.k8s.io/v1 DeviceAttribute)."""
    condition: str
    what: str
    """What the counted devices are, in a lack's text: `RDMA rails up`."""


@dataclass(frozen=True)
class RunningPod:
    """A pod that must be Running on the node: a DaemonSet's, by its namespace and selector."""

    namespace: str
    selector: str
    what: str


@dataclass(frozen=True)
class NodeNeeds:
    """What every GPU node needs, beyond Ready, before the fabric is usable."""

    advertised: Sequence[Advertised] = ()
    published: Sequence[Published] = ()
    pods: Sequence[RunningPod] = ()
    allowed_taints: Sequence[str] = (GPU_RESOURCE,)
    """Taint keys a node may keep: the GPU taint (only GPU pods land there). Any other (not-ready,
    uninitialized, a driver's not-ready taint, a cordon) keeps the fabric's pods off it."""
    required_taints: Sequence[str] = ()
    """Taint keys a node must have: the GPU taint where the stack's join registers it (a node
    without it takes any pod, and CPU pods would crowd its GPUs' CPUs and memory)."""
    topology_labels: Sequence[str] = ()
    """Label keys a node must carry: the training queue's Topology levels. Kueue counts only
    nodes that carry every level's label (kueue pkg/util/tas/node.go, `NodeMatchesFlavor`), so
    a node without one takes no job while `pulumi up` would be green."""
    topology_fix: str = "remove the level from gpu-fabric:queues.topologyLevels"
    """What to do about a missing level label (named in the failure)."""


def _jsonpath_key(name: str) -> str:
    """A map key in kubectl's JSONPath: its dots escaped (`nvidia\\.com/gpu`)."""
    return name.replace(".", "\\.")


HAVE = "{have}"
"""Where a lack's text names the count the node has (the shell's `$have`)."""


def _in_double_quotes(text: str) -> str:
    """`text` for inside a double-quoted shell word, taken as written but for HAVE."""
    for special in ("\\", '"', "`", "$"):
        text = text.replace(special, f"\\{special}")
    return text.replace(HAVE, "$have")


AT_LEAST = """at_least() {
  # Whether Kubernetes quantity $1 (8, 1k, 2Ki, 500m, 1e3) is at least $2: an allocatable
  # is a quantity (apimachinery resource.Quantity), and a device plugin may advertise `1k`.
  printf '%s\\n' "$1" | awk -v want="$2" '
    BEGIN {
      # Literal scales: BusyBox awk built without math support has no power operator.
      scale[""] = 1; scale["n"] = 1e-9; scale["u"] = 1e-6; scale["m"] = 1e-3
      scale["k"] = 1e3; scale["M"] = 1e6; scale["G"] = 1e9; scale["T"] = 1e12
      scale["P"] = 1e15; scale["E"] = 1e18
      scale["Ki"] = 1024; scale["Mi"] = 1048576; scale["Gi"] = 1073741824
      scale["Ti"] = 1099511627776; scale["Pi"] = 1125899906842624
      scale["Ei"] = 1152921504606846976
    }
    match($0, /^[+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?/) {
      suffix = substr($0, RLENGTH + 1)
      if (suffix in scale) exit !(substr($0, 1, RLENGTH) * scale[suffix] >= want)
    }
    { exit 1 }'
}
"""
"""A shell function: whether a Kubernetes quantity is at least a number (an unreadable or
missing one is not). Every count the waits compare goes through it."""


def _check(count_command: str, at_least: int, lack: str) -> str:
    """Lines that count with `count_command` (into `have`, a quantity) and add `lack` (HAVE:
    what the node has) when below."""
    return (
        f"  have=$({count_command})\n"
        "  have=${have:-0}\n"
        f'  at_least "$have" {at_least} || lacks="$lacks {_in_double_quotes(lack)};"'
    )


def _published_devices(need: Published) -> str:
    """The command that counts the devices `need` counts on node `$1`."""
    counted = need.counted
    fields = "".join(
        f"|{{.attributes.{_jsonpath_key(attribute)}.{kind}}}"
        for attribute, kind in (counted.attributes if counted else ())
    )
    listing = (
        f'kubectl get resourceslices --field-selector "spec.nodeName=$1,spec.driver='
        f'{need.driver}" -o '
        + shlex.quote(
            f'jsonpath={{range .items[*].spec.devices[*]}}{{.name}}{fields}{{"\\n"}}{{end}}'
        )
        + " 2>/dev/null"
    )
    if counted is None:
        return listing + " | grep -c ."
    return (
        listing
        + " | awk -F'|' "
        + shlex.quote(f"{counted.condition} {{ n++ }} END {{ print n + 0 }}")
    )


def usable_lines(needs: NodeNeeds) -> str:
    """Shell lines, run once the nodes are Ready, that wait until every node has what `needs`
    says, or `fail` naming each node and what it lacks."""
    checks = [
        _check(
            'kubectl get node "$1" -o jsonpath='
            + shlex.quote(f"{{.status.allocatable.{_jsonpath_key(need.resource)}}}")
            + " 2>/dev/null",
            need.count,
            f"{need.resource} advertised: {HAVE} of {need.count} ({need.by})",
        )
        for need in needs.advertised
    ]
    checks += [
        _check(
            _published_devices(need),
            need.count,
            f"{need.driver} {need.counted.what if need.counted else 'devices published'}: "
            f"{HAVE} of {need.count} ({need.by})",
        )
        for need in needs.published
    ]
    checks += [
        _check(
            f"kubectl get pods -n {shlex.quote(pod.namespace)} -l {shlex.quote(pod.selector)} "
            '--field-selector "spec.nodeName=$1,status.phase=Running" -o name 2>/dev/null '
            "| grep -c '^pod/'",
            1,
            f"no Running {pod.what} pod ({pod.namespace}, {pod.selector})",
        )
        for pod in needs.pods
    ]
    checks += [
        '  [ -n "$(kubectl get node "$1" -o jsonpath='
        + shlex.quote(f"{{.metadata.labels.{_jsonpath_key(label)}}}")
        + ' 2>/dev/null)" ] || lacks="$lacks '
        + _in_double_quotes(
            f"no label {label} (a level of the training queue's Topology: Kueue places no job "
            f"on a node without it; {needs.topology_fix})"
        )
        + ';"'
        for label in needs.topology_labels
    ]
    allowed = shlex.quote(f" {' '.join(needs.allowed_taints)} ")
    required = "".join(
        f'  case " $taints " in *" {key} "*) ;; *) lacks="$lacks no {key} taint;" ;; esac\n'
        for key in needs.required_taints
    )
    return f"""{AT_LEAST}lacks_of() {{
  # What node $1 lacks to be usable, or nothing.
  lacks=""
  if ! taints=$(kubectl get node "$1" -o jsonpath='{{.spec.taints[*].key}}' 2>&1); then
    printf ' unreadable: %s;' "$taints"
    return
  fi
  allowed={allowed}
  for taint in $taints; do
    case "$allowed" in *" $taint "*) ;; *) lacks="$lacks taint $taint;" ;; esac
  done
{required}{chr(10).join(checks)}
  printf '%s' "$lacks"
}}
while :; do
  unusable=""
  if listed=$(kubectl get nodes -l "$SELECTOR" -o name 2>&1); then
    for node in $listed; do
      lacks=$(lacks_of "${{node#node/}}")
      [ -n "$lacks" ] && unusable="$unusable ${{node#node/}}:$lacks"
    done
  else
    unusable=" (kubectl could not list the nodes: $listed)"
  fi
  [ -z "$unusable" ] && break
  [ "$(date +%s)" -ge "$deadline" ] && fail "Ready, but not usable:$unusable"
  sleep 15
done
"""


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
    after: Sequence[pulumi.Resource] = (),
) -> command.local.Command:
    """The wait: `script` in `/bin/sh`, with the kubeconfig (secret) and `environment`; run again
    when one of `triggers` changes; started once `after` is done."""
    return command.local.Command(
        name,
        create=script,
        interpreter=["/bin/sh", "-c"],
        environment={KUBECONFIG_ENV: pulumi.Output.secret(kubeconfig), **environment},
        triggers=list(triggers),
        opts=pulumi.ResourceOptions(parent=parent, depends_on=list(after)),
    )


@dataclass(frozen=True)
class UsableNodesArgs:
    kubeconfig: pulumi.Input[str]
    """Kubeconfig of the cluster the wait reads nodes from."""
    selector: pulumi.Input[str]
    """The GPU nodes' label selector."""
    count: int
    """GPU nodes to wait for (a pool at 0 nodes has no wait)."""
    needs: NodeNeeds
    """What each must have beyond Ready."""
    failure: str
    """The failure's lines (shell, on stderr; `$1` is what went wrong): what to look at, what
    to do."""
    timeout_seconds: int
    """How long to wait before failing."""
    triggers: Sequence[pulumi.Input[object]]
    """Run again when one changes (the cluster, the nodes, the count); a trigger that is an
    output also makes the wait start after what makes it (the node pools)."""
    after: Sequence[pulumi.Resource] = ()
    """What must be done first: the installers and drivers whose pods and devices it waits for."""


class UsableNodes(pulumi.ComponentResource):
    """A `command.local.Command` that returns once `count` GPU nodes are Ready and usable
    (`NodeNeeds`), and fails naming each node and what it lacks otherwise."""

    command: command.local.Command

    def __init__(
        self, name: str, args: UsableNodesArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:k8s:UsableNodes", name, None, opts)
        environment: dict[str, pulumi.Input[str]] = {
            "SELECTOR": args.selector,
            "COUNT": str(args.count),
            "TIMEOUT_SECONDS": str(args.timeout_seconds),
        }
        script = wait_script(args.failure, usable_lines(args.needs))
        self.command = wait_command(
            f"{name}-wait",
            script,
            args.kubeconfig,
            environment,
            [*args.triggers, args.count],
            self,
            args.after,
        )
        self.register_outputs({})
