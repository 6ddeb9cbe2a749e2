#!/bin/bash
# RdmaLink: every RDMA port the host sees is up. The kernel's sysfs gives each port's state as
# `<n>: <STATE>` (`4: ACTIVE`) and its physical state as `<n>: <State>` (`5: LinkUp`):
# Documentation/ABI/stable/sysfs-class-infiniband, drivers/infiniband/core/sysfs.c.
# A port a running pod holds (DRANET, a Device-mode GKE network) leaves the host's view while the
# pod runs, so a missing port is no problem here; none at all is unknown (GPUs are counted by
# GpuCount, rails by `make verify` and the fabric's wait).
# Exit 0 = no problem, 1 = a problem, 2 = unknown. Needs: SYSFS (the host's /sys, mounted).
set -u
shopt -s nullglob
ports=("$SYSFS"/class/infiniband/*/ports/*)
if ((${#ports[@]} == 0)); then
  echo "no RDMA port in $SYSFS/class/infiniband"
  exit 2
fi
bad=""
for port in "${ports[@]}"; do
  device=${port%/ports/*}
  name="${device##*/}/${port##*/}"
  state=$(<"$port/state")
  physical=$(<"$port/phys_state")
  if [[ $state != *ACTIVE || $physical != *LinkUp ]]; then
    bad+="$name ${state#*: } ${physical#*: }; "
  fi
done
if [[ -n $bad ]]; then
  echo "RDMA ports down: ${bad%; }"
  exit 1
fi
echo "all ${#ports[@]} RDMA ports ACTIVE and LinkUp"
exit 0
