#!/bin/bash
# gpu-fabric: stripe the node's local NVMe drives into one array at first boot, before it joins,
# and put the container runtime's storage, kubelet's (the pods' ephemeral storage) and the pods'
# logs on it, as oci-hpc-oke's files/oke-nvme-raid.sh does (there: RAID 10 by default, ext4 at
# /mnt/nvme, the same three bind mounts).
# Usage: nvme-raid.sh LEVEL [MOUNT_POINT [DRIVES]]
#   LEVEL 0 or 10; MOUNT_POINT default /mnt/nvme; DRIVES a glob, default /dev/nvme*n1 (the local
#   NVMe namespaces of OCI's bare-metal shapes, whose boot volume is not NVMe).
# A node without NVMe drives changes nothing. Any failure exits non-zero; cloud-init then stops
# before the join, and the stack's node wait reports the instance (cloud-init-output.log).
set -euo pipefail
level=$1
mount_point=${2:-/mnt/nvme}
pattern=${3:-/dev/nvme*n1}
array=/dev/md/gpu-fabric

mapfile -t drives < <(compgen -G "$pattern" || true)
if [ "${#drives[@]}" -eq 0 ]; then
  echo "no local NVMe drive: nothing to stripe" >&2
  exit 0
fi
# RAID 10 mirrors pairs: it needs an even count of four or more; fewer drives are striped alone.
if [ "$level" = 10 ] && { [ "${#drives[@]}" -lt 4 ] || [ $(("${#drives[@]}" % 2)) -ne 0 ]; }; then
  echo "${#drives[@]} NVMe drives: RAID 0 instead of 10" >&2
  level=0
fi

# A reboot, or a boot volume replaced on the same host, finds the array already made.
mdadm --assemble --scan >/dev/null 2>&1 || true
if [ ! -e "$array" ]; then
  mdadm --create "$array" --name=gpu-fabric --level="$level" --chunk=256 --run \
    --raid-devices="${#drives[@]}" "${drives[@]}"
fi
blkid "$array" >/dev/null 2>&1 || mkfs.xfs -f "$array"
conf=/etc/mdadm/mdadm.conf
[ -d /etc/mdadm ] || conf=/etc/mdadm.conf
grep -qs "name=.*gpu-fabric" "$conf" || mdadm --detail --scan | grep gpu-fabric >> "$conf"

uuid=$(blkid -s UUID -o value "$array")
mkdir -p "$mount_point"
grep -qs "UUID=$uuid " /etc/fstab ||
  echo "UUID=$uuid $mount_point xfs defaults,noatime,nofail 0 2" >> /etc/fstab
mountpoint -q "$mount_point" || mount "$mount_point"

# The runtime must not hold its storage while it moves: stopped, then started again after.
was_running=false
if systemctl is-active --quiet crio; then
  was_running=true
  systemctl stop crio
fi
for dir in /var/lib/containers /var/lib/kubelet /var/log/pods; do
  target="$mount_point/$(basename "$dir")"
  mkdir -p "$target" "$dir"
  grep -qs " $dir none bind" /etc/fstab || echo "$target $dir none bind,nofail 0 0" >> /etc/fstab
  mountpoint -q "$dir" || mount "$dir"
done
if [ "$was_running" = true ]; then
  systemctl start crio
fi
echo "NVMe RAID $level of ${#drives[@]} drives at $mount_point" >&2
