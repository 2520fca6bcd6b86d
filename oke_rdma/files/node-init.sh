#!/usr/bin/env bash
# oke-rdma node initialisation (cloud-init user data of an OKE managed node pool), rendered by oke_rdma/node_init.py.
#
# 1. Local NVMe (when @@NVME_ENABLED@@ is 1): every NVMe namespace of the host that carries no partition and no
#    mounted file system becomes one RAID 0 array (mdadm), formatted once and mounted at @@MOUNT_PATH@@ by a systemd
#    mount unit. Idempotent: an array that already exists is assembled, never recreated; a formatted array is never
#    formatted again; so a re-run, a reboot (the mount unit and mdadm.conf bring it back) and a boot volume
#    replacement keep the data, and a new node from node cycling builds its own array.
# 2. OKE's own node bootstrap, always, last: a pool with custom user data must still run it or the node never joins
#    the cluster (Oracle Linux images: the oke_init_script from the instance metadata; Ubuntu images: `oke bootstrap`).
#
# Sources (checked 2026-11-30): OKE docs "Using Custom Cloud-init Initialization Scripts to Set Up Managed Nodes"
# (the oke_init_script metadata key, IMDSv2 header); oracle-quickstart/oci-hpc-oke@61d210a files/oke-nvme-raid.sh
# and files/oke-ubuntu-cloud-init.sh (RAID over /dev/nvme*n1 on GPU bare metal, `oke bootstrap` on Ubuntu images).
set -o errexit -o nounset -o pipefail

NVME_ENABLED=@@NVME_ENABLED@@
MOUNT_PATH=@@MOUNT_PATH@@
FS_TYPE=@@FS_TYPE@@
DEVICE_GLOB=@@DEVICE_GLOB@@
MD_DEVICE=@@MD_DEVICE@@
SYSTEMD_DIR=@@SYSTEMD_DIR@@
MDADM_CONF=@@MDADM_CONF@@
IMDS=@@IMDS@@
OS_RELEASE=@@OS_RELEASE@@
LOG_TAG=oke-rdma-node-init

log() { echo "${LOG_TAG}: $*" >&2; }

# NVMe namespaces that are free to use: no partitions and no mounted file system on them.
free_nvme_devices() {
  local dev
  shopt -s nullglob
  for dev in ${DEVICE_GLOB}; do
    if [ -n "$(lsblk -n -o MOUNTPOINT "$dev" | tr -d '[:space:]')" ]; then
      log "skipping $dev: it holds a mounted file system"
      continue
    fi
    if [ "$(lsblk -n -o NAME "$dev" | wc -l)" -gt 1 ] && ! mdadm --examine "$dev" >/dev/null 2>&1; then
      log "skipping $dev: it is partitioned"
      continue
    fi
    echo "$dev"
  done
  shopt -u nullglob
}

setup_nvme() {
  local devices count
  mdadm --assemble --scan >/dev/null 2>&1 || true  # an array from an earlier boot or run comes back first
  if mdadm --detail "$MD_DEVICE" >/dev/null 2>&1; then
    log "$MD_DEVICE already assembled"
  else
    mapfile -t devices < <(free_nvme_devices)
    count=${#devices[@]}
    if [ "$count" -eq 0 ]; then
      log "no free NVMe devices matching ${DEVICE_GLOB}: no local NVMe file system on this node"
      return 0
    fi
    log "creating RAID 0 over ${count} NVMe devices: ${devices[*]}"
    mdadm --create "$MD_DEVICE" --run --level=0 --chunk=256 --raid-devices="$count" "${devices[@]}" || return 1
  fi
  if [ -z "$(blkid -s TYPE -o value "$MD_DEVICE" || true)" ]; then
    log "formatting $MD_DEVICE as ${FS_TYPE}"
    "mkfs.${FS_TYPE}" "$MD_DEVICE" || return 1
  else
    log "$MD_DEVICE already formatted"
  fi
  mkdir -p "$(dirname "$MDADM_CONF")"
  local array_line
  array_line=$(mdadm --detail --scan "$MD_DEVICE") || return 1
  if ! grep -qxF "$array_line" "$MDADM_CONF" 2>/dev/null; then
    echo "$array_line" >>"$MDADM_CONF"
  fi
  local unit uuid
  unit=$(systemd-escape --path --suffix=mount "$MOUNT_PATH")
  uuid=$(blkid -s UUID -o value "$MD_DEVICE") || return 1
  mkdir -p "$MOUNT_PATH" "$SYSTEMD_DIR"
  cat >"${SYSTEMD_DIR}/${unit}" <<UNIT
[Unit]
Description=oke-rdma local NVMe RAID 0
[Mount]
What=UUID=${uuid}
Where=${MOUNT_PATH}
Type=${FS_TYPE}
Options=defaults,noatime,nofail
[Install]
WantedBy=multi-user.target
UNIT
  systemctl daemon-reload || return 1
  systemctl enable --now "$unit" || return 1
}

oke_bootstrap() {
  local id=""
  if [ -r "$OS_RELEASE" ]; then
    id=$(. "$OS_RELEASE" && echo "${ID:-}")
  fi
  if [ "$id" = "ubuntu" ]; then
    log "Ubuntu image: oke bootstrap"
    oke bootstrap
  else
    log "Oracle Linux image: running the oke_init_script from the instance metadata"
    curl --fail --silent --show-error --retry 10 --retry-delay 5 -H "Authorization: Bearer Oracle" \
      "${IMDS}/opc/v2/instance/metadata/oke_init_script" | base64 --decode >/var/run/oke-init.sh
    bash /var/run/oke-init.sh
  fi
}

if [ "$NVME_ENABLED" = "1" ]; then
  # A failed RAID must not keep the node out of the cluster: log it and join; the node lacks the mount then.
  # (errexit does not apply inside a function called from an || list: every step above returns on failure.)
  setup_nvme || log "local NVMe setup failed; the node joins without ${MOUNT_PATH}"
fi
oke_bootstrap
