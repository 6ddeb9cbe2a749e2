#!/bin/bash
# gpu-fabric: prepare an RDMA GPU node for DRANET, then join it to OKE.
# Usage: join.sh NODE_LABELS NODE_TAINTS   (kubelet's --node-labels and --register-with-taints)
# cloud-init has already written the CRI-O drop-ins (NRI on, unlimited memlock) and
# /etc/modprobe.d/ib_core.conf (netns_mode=1) before this runs.
set -euo pipefail
labels=$1
taints=$2

# ib_core in shared network-namespace mode, before the node takes pods: DRANET's oke-rdma profile
# gives each pod IPvlan children of the rails and fails claims in exclusive mode. The modprobe
# option keeps the mode across reboots; `rdma system set` applies it now. The RDMA subsystem may
# still be coming up, so retry for up to 90 s.
update-initramfs -u >/dev/null 2>&1 || dracut --force >/dev/null 2>&1 || true
for _ in $(seq 1 30); do
  if rdma system set netns shared 2>/dev/null; then break; fi
  sleep 3
done
rdma system show | grep -q 'netns shared' || { echo "ib_core is not in shared netns mode" >&2; exit 1; }

# CRI-O reads its drop-ins at start; restart it if the image started it already.
systemctl try-restart crio || true

# The node authenticates to OKE with its instance principal: wait until IMDS serves it.
for _ in $(seq 1 60); do
  curl -sf -H 'Authorization: Bearer Oracle' \
    http://169.254.169.254/opc/v2/identity/cert.pem >/dev/null && break
  sleep 5
done

extra="--node-labels=${labels} --register-with-taints=${taints}"
if [ -f /etc/systemd/system/oke-init.service ]; then
  # Images that join through their own unit (terraform-oci-oke's first choice). The labels and
  # taint come from the instance metadata (oke-initial-node-labels) on this path.
  systemctl enable --now oke-init.service
  exit 0
elif command -v oke >/dev/null 2>&1; then
  # oci-hpc-oke GPU images (Ubuntu): the `oke` bootstrap binary.
  for attempt in $(seq 1 20); do
    oke bootstrap --kubelet-extra-args "$extra" && exit 0
    echo "oke bootstrap failed (attempt ${attempt}); retrying" >&2
    sleep 15
  done
  exit 1
elif [ -f /etc/oke/oke-install.sh ]; then
  # OKE Oracle Linux images: the installer, with the endpoint and CA cloud-init wrote.
  exec bash /etc/oke/oke-install.sh \
    --apiserver-endpoint "$(cat /etc/oke/oke-apiserver)" \
    --kubelet-ca-cert "$(base64 -w0 /etc/kubernetes/ca.crt)" \
    --kubelet-extra-args "$extra"
fi
echo "this image has no oke-init.service, oke bootstrap binary or /etc/oke/oke-install.sh" >&2
exit 1
