#!/bin/bash
# GpuCount: the node shows every GPU its machine has. `nvidia-smi -L` prints one `GPU <n>: ...`
# line per GPU the driver can reach; a GPU that fell off the bus is missing or printed as an
# error line instead.
# node-problem-detector's custom plugin contract (pkg/custompluginmonitor/types): exit 0 = no
# problem, 1 = a problem, 2 = unknown; the first line printed becomes the condition's message.
# Needs: NVIDIA_SMI (the command that runs nvidia-smi on this node), EXPECTED_GPUS.
set -u
output=$($NVIDIA_SMI -L 2>&1)
status=$?
found=0
while IFS= read -r line; do
  [[ $line =~ ^GPU\ [0-9]+: ]] && found=$((found + 1))
done <<<"$output"
if [[ $output == *"Unable to determine the device handle"* || $output == *"No devices were found"* ]]; then
  # The driver is up and a GPU does not answer: oci-hpc-oke's GpuCount fails on these too.
  echo "nvidia-smi lists $found of $EXPECTED_GPUS GPUs: ${output##*$'\n'}"
  exit 1
fi
if ((found == 0 && status != 0)); then
  # No GPU and nvidia-smi failed otherwise: the driver may still be loading (a new node).
  echo "nvidia-smi -L failed (exit $status): ${output%%$'\n'*}"
  exit 2
fi
if ((found < EXPECTED_GPUS)); then
  echo "nvidia-smi lists $found of $EXPECTED_GPUS GPUs"
  exit 1
fi
echo "nvidia-smi lists all $EXPECTED_GPUS GPUs"
exit 0
