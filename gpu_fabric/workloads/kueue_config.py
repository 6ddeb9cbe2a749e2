"""Kueue's controller Configuration: the chart's own, plus how quota is counted.

The chart takes the whole Configuration as one text (`managerConfig.controllerManagerConfigYaml`,
charts/kueue/values.yaml), so a stack that changes one part of it passes all of it. It is read
from the vendored values of the pinned chart (upstream/kueue-values.yaml, Kueue v0.19.2), and two
parts are added:

- `managedJobsNamespaceSelector`: the training namespaces only. Kueue's mutating webhooks for jobs
  and pods fail closed (`failurePolicy: Fail`, charts/kueue/templates/webhook/manifests.yaml) and
  take their namespace selector from this setting, so with Kueue's default (every namespace but
  kube-system and kueue-system) a Kueue outage would stop pods from being created across the
  cluster; here it stops only training jobs (Kueue docs, "Opt-in namespace management"). A job in
  a namespace it leaves out is not queued at all: it runs at once, outside the quota.

- `quotaCheckStrategy: IgnoreUndeclared`: the queue's quota is GPUs (and, where DRA allocates
  them, the devices of each claimed DeviceClass); CPU and memory requests are left to the
  scheduler. With Kueue's default (`BlockUndeclared`, beta and on since v0.19) a job requesting
  any CPU would never be admitted by a queue that covers only GPUs ("resource cpu unavailable in
  ClusterQueue"; kueue pkg/scheduler/flavorassigner/flavorassigner.go, apis/config/v1beta2
  configuration_types.go `QuotaCheckStrategy`).
- `deviceClassMappings`: Kueue refuses a job whose ResourceClaimTemplate names a DeviceClass it has
  no mapping for (KueueDRAIntegration, on since v0.18; kueue pkg/dra/claims.go and
  site/content/en/docs/tasks/manage/setup_dra.md), so every DeviceClass the platform's claims use
  is mapped to the resource the queue counts.

A stack that overrides `kueueVersion` keeps this Configuration (v0.19.2's); Kueue fills what a
newer one adds with its defaults.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import yaml_files
from .queue_objects import namespaces_named
from .settings import WaitForPodsReadySettings

UPSTREAM = Path(__file__).with_name("upstream")
CHART_VALUES = UPSTREAM / "kueue-values.yaml"


def manager_configuration(
    namespaces: list[str],
    device_class_mappings: dict[str, list[str]],
    wait_for_pods_ready: WaitForPodsReadySettings | None = None,
    *,
    fair_sharing: bool = False,
) -> dict[str, Any]:
    """The chart's Configuration managing jobs of `namespaces` only, with `resources` set;
    `device_class_mappings`: the resource the queue counts -> the DeviceClasses whose devices
    count as it; `wait_for_pods_ready` as given (unset: Kueue's default); `fair_sharing` among the
    teams' ClusterQueues."""
    values = yaml_files.read(CHART_VALUES)
    config = yaml_files.load(values["managerConfig"]["controllerManagerConfigYaml"])
    resources: dict[str, Any] = {"quotaCheckStrategy": "IgnoreUndeclared"}
    if device_class_mappings:
        resources["deviceClassMappings"] = [
            {"name": name, "deviceClassNames": classes}
            for name, classes in device_class_mappings.items()
        ]
    selector = namespaces_named(namespaces)
    config = {**config, "managedJobsNamespaceSelector": selector, "resources": resources}
    if wait_for_pods_ready is not None:
        config["waitForPodsReady"] = wait_for_pods_ready_of(wait_for_pods_ready)
    if fair_sharing:
        # Kueue docs, "Preemption" (fair sharing): a team's share counts against its weight; a
        # job preempts another team's only while its own team stays at or below its share.
        config["fairSharing"] = {
            "preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
        }
    return config


def wait_for_pods_ready_of(settings: WaitForPodsReadySettings) -> dict[str, Any]:
    """Kueue's `waitForPodsReady` (config v1beta2: no `enable`, the struct turns it on): the
    timeout, the recovery timeout equal to it (Kueue's default), and requeues timed from the
    eviction, backing off from 60s to an hour (Kueue's defaults, written out)."""
    strategy: dict[str, Any] = {
        "timestamp": "Eviction",
        "backoffBaseSeconds": 60,
        "backoffMaxSeconds": 3600,
    }
    if "backoff_limit_count" in settings:
        strategy["backoffLimitCount"] = settings["backoff_limit_count"]
    return {
        "timeout": settings["timeout"],
        "blockAdmission": False,
        "requeuingStrategy": strategy,
    }


def kueue_values(
    namespaces: list[str],
    device_class_mappings: dict[str, list[str]],
    wait_for_pods_ready: WaitForPodsReadySettings | None = None,
    *,
    fair_sharing: bool = False,
) -> dict[str, Any]:
    """The Kueue chart's values: its controller Configuration, as the one text it takes."""
    configuration = manager_configuration(
        namespaces, device_class_mappings, wait_for_pods_ready, fair_sharing=fair_sharing
    )
    return {"managerConfig": {"controllerManagerConfigYaml": yaml_files.dump(configuration)}}
