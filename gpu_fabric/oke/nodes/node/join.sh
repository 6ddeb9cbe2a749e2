#!/bin/bash
# gpu-fabric: prepare an RDMA GPU node for DRANET, then join it to OKE.
# Usage: join.sh NODE_LABELS NODE_TAINTS K8S_VERSION
#   (kubelet's --node-labels and --register-with-taints; the cluster's version, e.g. v1.36.1)
# cloud-init has already written the CRI-O drop-ins (NRI on, unlimited memlock),
# /etc/modprobe.d/ib_core.conf (netns_mode=1) and /etc/systemd/networkd.conf before this runs.
# Any failure exits non-zero; the stack's node wait then reports the instance (cloud-init log:
# /var/log/cloud-init-output.log).
set -euo pipefail
labels=$1
taints=$2
version=$3

# systemd-networkd read networkd.conf before cloud-init wrote it: restart it so that it stops
# deleting the routes and rules it did not create (the RDMA rails', DRANET's). oci-hpc-oke
# (terraform/oke-workers.tf, last runcmd) restarts it the same way. A no-op where it is not running.
systemctl try-restart systemd-networkd || true

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

# The node package, on images that have no join tooling: oci-hpc-oke's
# files/oke-ubuntu-cloud-init.sh (at 61d210ac) installs `oci-oke-node-all-<version>` from OKE's
# apt repository when the `oke` binary is missing: the image's local copy first, then the remote
# one at two mirrors; `apt-get update` may fail on another source and the install still work.
apt_source() {
  printf 'Enabled: yes\nTypes: deb\nURIs: %s\nSuites: stable\nComponents: main\nSigned-By:\nTrusted: yes\n' \
    "$1" >/etc/apt/sources.list.d/oke-node-client.sources
}
apt_install() {
  while fuser /var/lib/dpkg/lock /var/lib/dpkg/lock-frontend /var/lib/apt/lists/lock \
    /var/cache/apt/archives/lock >/dev/null 2>&1; do
    echo "waiting for the dpkg/apt lock" >&2
    sleep 1
  done
  apt-get -y update || true
  apt-get -y install "$1"
}
install_node_package() {
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "no apt-get: cannot install oci-oke-node-all on this image; use an OKE or oci-hpc-oke GPU image" >&2
    return 1
  fi
  # shellcheck disable=SC1091  # the image's own file
  . /etc/os-release
  local package_version=${version#v}
  local repo_version
  repo_version=$(echo "$package_version" | cut -d. -f1,2)
  local path="ubuntu-${VERSION_CODENAME}/kubernetes-${repo_version}"
  local local_repo="/opt/oke-node-client-packages/${path}"
  local mirrors="https://objectstorage.us-sanjose-1.oraclecloud.com/p/_Zaa2khW3lPESEbqZ2JB3FijAd0HeKmiP-KA2eOMuWwro85dcG2WAqua2o_a-PlZ/n/odx-oke/b/okn-repositories-private/o/prod/${path} https://odx-oke.objectstorage.us-sanjose-1.oci.customer-oci.com/n/odx-oke/b/okn-repositories/o/prod/${path}"
  local package="oci-oke-node-all-${package_version}"
  if [ -d "${local_repo}/dists" ]; then
    apt_source "file://${local_repo}"
    apt_install "$package" && return 0
    echo "the image's local OKE repository failed; trying the remote one" >&2
  fi
  apt_source "$mirrors"
  apt_install "$package"
}

# Kueue's Topology levels (the RDMA network's HPC island, network block and local block): OKE does
# not label nodes with them, so they are read from the instance metadata the way oci-hpc-oke's
# node labeler does (terraform/files/oci-hpc-oke-utils/templates/labeler-configmap.yaml at
# 15f902c6): the compact /host/rdmaTopologyData first, else the same ids embedded in /host, else
# /host's network block (as the island too) and rack; each value is the id's last 11 characters
# (a label value holds 63), and `no-imds-data` where the metadata has none.
imds_field() {  # imds_field PATH FIELD: one string field of an IMDS JSON document ('' if none)
  curl -sf -H 'Authorization: Bearer Oracle' "http://169.254.169.254/opc/v2$1" 2>/dev/null |
    grep -o "\"$2\" *: *\"[^\"]*\"" | head -n 1 | sed 's/.*: *"\(.*\)"/\1/' || true
}
label_value() { if [ -n "$1" ]; then printf '%s' "$1" | tail -c 11; else printf 'no-imds-data'; fi; }
for path in /host/rdmaTopologyData /host; do
  island=$(imds_field "$path" customerHPCIslandId)
  network_block=$(imds_field "$path" customerNetworkBlock)
  local_block=$(imds_field "$path" customerLocalBlock)
  if [ -n "$network_block" ]; then break; fi
done
if [ -z "$network_block" ]; then
  network_block=$(imds_field /host networkBlockId)
  island=${island:-$network_block}
  local_block=$(imds_field /host rackId)
fi
labels="${labels},oci.oraclecloud.com/rdma.hpc_island_id=$(label_value "$island")"
labels="${labels},oci.oraclecloud.com/rdma.network_block_id=$(label_value "$network_block")"
labels="${labels},oci.oraclecloud.com/rdma.local_block_id=$(label_value "$local_block")"

# Every path joins with the labels and the GPU taint.
extra="--node-labels=${labels} --register-with-taints=${taints}"
bootstrap() {
  for attempt in $(seq 1 20); do
    oke bootstrap --kubelet-extra-args "$extra" && return 0
    echo "oke bootstrap failed (attempt ${attempt}); retrying" >&2
    sleep 15
  done
  echo "oke bootstrap failed 20 times" >&2
  return 1
}

if command -v oke >/dev/null 2>&1; then
  # oci-hpc-oke GPU images (Ubuntu): the `oke` bootstrap binary.
  bootstrap
elif [ -f /etc/oke/oke-install.sh ]; then
  # OKE Oracle Linux images: the installer, with the endpoint and CA cloud-init wrote.
  bash /etc/oke/oke-install.sh \
    --apiserver-endpoint "$(cat /etc/oke/oke-apiserver)" \
    --kubelet-ca-cert "$(base64 -w0 /etc/kubernetes/ca.crt)" \
    --kubelet-extra-args "$extra"
elif [ -f /etc/systemd/system/oke-init.service ]; then
  # Images that join through their own unit (terraform-oci-oke's cloudinit-oke.sh): it takes no
  # arguments; the labels come from the instance metadata (oke-initial-node-labels), the taint
  # from its kubelet-extra-args (oci-hpc-oke's node_metadata key).
  systemctl enable --now oke-init.service
else
  echo "no oke binary, /etc/oke/oke-install.sh or oke-init.service: installing oci-oke-node-all" >&2
  install_node_package || {
    echo "could not install oci-oke-node-all-${version#v}; this node cannot join" >&2
    exit 1
  }
  bootstrap
fi
