#!/bin/bash
# GpuEcc: no GPU has an uncorrected ECC error since its driver loaded, the test of
# cluster-toolkit's `gpu-healthcheck` init container (examples/gke-a3-ultragpu/
# nccl-jobset-example.yaml): `ecc.errors.uncorrected.volatile.total` is 0 on every GPU, and `[N/A]`
# (ECC off or unreadable) fails as it does there. The count resets when the GPU is reset.
# Exit 0 = no problem, 1 = a problem, 2 = unknown (node-problem-detector's custom plugin contract).
# Needs: NVIDIA_SMI.
set -u
# cluster-toolkit's query: one value per GPU, in index order.
output=$($NVIDIA_SMI --query-gpu=ecc.errors.uncorrected.volatile.total --format=csv,noheader,nounits 2>&1)
status=$?
if ((status != 0)); then
  echo "nvidia-smi failed (exit $status): ${output%%$'\n'*}"
  exit 2
fi
bad=""
index=0
while IFS= read -r errors; do
  [[ -z $errors ]] && continue
  if [[ ! $errors =~ ^[0-9]+$ ]] || ((errors > 0)); then
    bad+="GPU $index: $errors; "
  fi
  index=$((index + 1))
done <<<"$output"
if [[ -n $bad ]]; then
  echo "uncorrected ECC errors: ${bad%; }"
  exit 1
fi
echo "no uncorrected ECC error on any GPU"
exit 0
