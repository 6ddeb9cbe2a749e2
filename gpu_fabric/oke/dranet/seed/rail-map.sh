#!/bin/bash
# Prints one line for each rdma interface of this pod:
# interface, IPv4 address, RDMA device, index of its RoCE v2 GID.
set -u
declare -A gid_dev gid_idx gid_val
for path in /sys/class/infiniband/*; do
  dev=${path##*/}
  for f in "$path"/ports/1/gid_attrs/ndevs/*; do
    # The read fails for empty entries and for interfaces in other network namespaces.
    { read -r ndev < "$f"; } 2>/dev/null || continue
    case "$ndev" in rdma[0-9]*) ;; *) continue ;; esac
    idx=${f##*/}
    { read -r gid_type < "$path/ports/1/gid_attrs/types/$idx"; } 2>/dev/null || continue
    [ "$gid_type" = "RoCE v2" ] || continue
    read -r gid < "$path/ports/1/gids/$idx"
    case "$gid" in 0000:0000:0000:0000:0000:ffff:*) ;; *) continue ;; esac
    gid_dev[$ndev]=$dev
    gid_idx[$ndev]=$idx
    gid_val[$ndev]=$gid
  done
done
for path in /sys/class/net/rdma*; do
  echo "${path##*/}"
done | sort -V | while read -r iface; do
  ip=$(ip -4 -o addr show dev "$iface" | awk 'NR == 1 { split($4, a, "/"); print a[1] }')
  idx=${gid_idx[$iface]:-none}
  # The GID must hold the address of the child, not the address of the parent on the host.
  if [ -n "$ip" ]; then
    # shellcheck disable=SC2086
    want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${ip//./ })
    [ "${gid_val[$iface]:-}" = "$want" ] || idx=none
  fi
  echo "$iface ${ip:-none} ${gid_dev[$iface]:-none} $idx"
done
