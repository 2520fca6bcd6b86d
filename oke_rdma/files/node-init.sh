#!/usr/bin/env bash
# oke-rdma node initialisation (cloud-init user data of an OKE managed node pool), rendered by oke_rdma/node_init.py.
#
# 0. Root file system, always, first: OKE node images keep the root partition they were built with (about 30-47 GB)
#    whatever boot volume size the pool asks for, so images, logs and emptyDirs would fill it while the rest of the
#    volume lies unused. Oracle Linux images carry oci-utils' /usr/libexec/oci-growfs, which grows the partition,
#    the LVM volume and the XFS/ext4 file system; the boot volume's device is rescanned first (recent Oracle Linux 8
#    releases do not see the larger volume otherwise). Images without it (Ubuntu) get the same with growpart (the
#    root partition to the end of its disk) and resize2fs or xfs_growfs. Growing an already full-size root changes
#    nothing (growpart's NOCHANGE), so a re-run and a reboot are harmless. It runs before OKE's bootstrap so the
#    kubelet registers the node's full ephemeral-storage capacity.
# 1. Local NVMe (when @@NVME_ENABLED@@ is 1): every NVMe namespace of the host that carries no partition and no
#    mounted file system becomes one RAID 0 array (mdadm), formatted once and mounted at @@MOUNT_PATH@@ by a systemd
#    mount unit. Idempotent: an array that already exists is assembled, never recreated; a formatted array is never
#    formatted again; so a re-run, a reboot (the mount unit and mdadm.conf bring it back) and a boot volume
#    replacement keep the data, and a new node from node cycling builds its own array.
# 2. Lustre client (when @@LUSTRE_ENABLED@@ is 1): a client counts as working when `lfs --version` runs and the `lnet`
#    kernel module loads in the running kernel (the checks OKE's Lustre CSI driver makes before it sets up LNet).
#    A working client is kept; otherwise, on x86_64, the package archive for this OS (Oracle Linux 8 on RHCK: RPMs;
#    Ubuntu 22.04: DEBs) is downloaded over HTTPS, its SHA-256 checked, and installed with the running kernel's
#    headers (the modules are DKMS builds for that kernel). An Arm node, a UEK kernel, another OS, no archive, a
#    failed download, checksum, install, or modules that do not load in this kernel: logged, nothing half-done is
#    used, and the node joins without the label below.
# 3. OKE's own node bootstrap, always, last: a pool with custom user data must still run it or the node never joins
#    the cluster (Oracle Linux images: the oke_init_script from the instance metadata; Ubuntu images: `oke bootstrap`).
#    When the Lustre client works, the kubelet registers the node with @@LUSTRE_LABEL@@=true (--node-labels through
#    --kubelet-extra-args): the Lustre volumes require that label, so pods that mount Lustre only land where it works.
#    (NodeRestriction lets a kubelet set labels outside the kubernetes.io / k8s.io namespaces on its own node:
#    Kubernetes docs "Admission Controllers Reference", NodeRestriction, checked 2026-12-01.)
#    With startup taints (REGISTER_TAINTS not empty: Cilium's node.cilium.io/agent-not-ready=true:NoExecute), the
#    kubelet registers the node with them (--register-with-taints through --kubelet-extra-args), so no pod without a
#    matching toleration is scheduled or runs there until the node agent that removes the taint is ready: a pod that
#    started before Cilium is not managed by it (Cilium docs "Considerations on Node Pool Taints and Unmanaged Pods",
#    Documentation/installation/taints.rst, checked 2026-12-02). Taints and labels share one --kubelet-extra-args.
#
# Sources for step 0 (checked 2026-12-02): OCI docs "OCI Utilities Reference" (oci-growfs: a Linux instance does not
# use a boot volume beyond its image's size until the root partition is expanded; XFS and ext4; -y answers yes);
# oracle-terraform-modules/terraform-oci-oke modules/oke/cloudinit/worker.template.sh (oci-growfs -y on OKE workers),
# issue #649 (the oraclevda rescan before oci-growfs on recent Oracle Linux 8) and pull request #661 (grow before
# the OKE bootstrap); oracle.github.io/cluster-api-provider-oci "Increase boot volume" (the same step for OKE node
# pools); NVIDIA-NeMo/Nemotron pull request #342 (2026-09: OKE images keep a ~30-47 GB root whatever the boot volume);
# oracle/oci-utils issue #136 (oci-utils is not supported on Ubuntu: growpart and resize2fs there).
# Sources (checked 2026-11-30): OKE docs "Using Custom Cloud-init Initialization Scripts to Set Up Managed Nodes"
# (the oke_init_script metadata key, IMDSv2 header); oracle-quickstart/oci-hpc-oke@61d210a files/oke-nvme-raid.sh
# and files/oke-ubuntu-cloud-init.sh (RAID over /dev/nvme*n1 on GPU bare metal, `oke bootstrap` on Ubuntu images,
# `--kubelet-extra-args` on both bootstraps). Checked 2026-12-01: oracle/oci-cloud-controller-manager@1100ac3
# pkg/csi-util/lustre_lnet_helper.go (the driver checks `lfs --version`, runs `modprobe lnet` and configures LNet
# itself when the volume says setupLnet) and docs/pvcs-with-lustre-using-csi.md (client needed on every node that
# mounts; Oracle Linux 8 and Ubuntu 22.04 x86); oci-hpc/oke-lustre-client@1a6fbcf (Oracle's installer: DKMS archives,
# kernel-devel / linux-headers of the running kernel, the ol8_codeready_builder and ol8_developer_EPEL repositories
# for the build dependencies, RHCK required on Oracle Linux 8).
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
LUSTRE_ENABLED=@@LUSTRE_ENABLED@@
LUSTRE_LABEL=@@LUSTRE_LABEL@@
LUSTRE_OL8_URL=@@LUSTRE_OL8_URL@@
LUSTRE_OL8_SHA256=@@LUSTRE_OL8_SHA256@@
LUSTRE_UBUNTU2204_URL=@@LUSTRE_UBUNTU2204_URL@@
LUSTRE_UBUNTU2204_SHA256=@@LUSTRE_UBUNTU2204_SHA256@@
LUSTRE_WORK_DIR=@@LUSTRE_WORK_DIR@@
REGISTER_TAINTS=@@REGISTER_TAINTS@@
OCI_GROWFS=@@OCI_GROWFS@@
BOOT_DEVICE=@@BOOT_DEVICE@@
SYS_BLOCK=@@SYS_BLOCK@@
ROOT_MOUNT=@@ROOT_MOUNT@@
LOG_TAG=oke-rdma-node-init
KUBELET_EXTRA_ARGS=""
if [ -n "$REGISTER_TAINTS" ]; then
  KUBELET_EXTRA_ARGS="--register-with-taints=${REGISTER_TAINTS}"
fi

log() { echo "${LOG_TAG}: $*" >&2; }

# Step 0: the root file system takes the whole boot volume.
rescan_boot_volume() {  # best effort: makes the kernel see a boot volume larger than the image
  local dev
  [ -e "$BOOT_DEVICE" ] || return 0
  dd iflag=direct if="$BOOT_DEVICE" of=/dev/null count=1 >/dev/null 2>&1 || true
  dev=$(basename "$(readlink -f "$BOOT_DEVICE")")
  if [ -w "${SYS_BLOCK}/${dev}/device/rescan" ]; then
    echo 1 >"${SYS_BLOCK}/${dev}/device/rescan" || true
  fi
}

grow_root_fs() {
  local source fstype part disk number out
  rescan_boot_volume
  if [ -x "$OCI_GROWFS" ]; then
    log "growing the root file system with ${OCI_GROWFS}"
    "$OCI_GROWFS" -y || return 1
    return 0
  fi
  source=$(findmnt -n -o SOURCE "$ROOT_MOUNT") || return 1
  fstype=$(findmnt -n -o FSTYPE "$ROOT_MOUNT") || return 1
  part=$(basename "$(readlink -f "$source")")
  if [ ! -r "${SYS_BLOCK}/${part}/partition" ]; then
    log "the root file system is on ${source}, not a disk partition, and ${OCI_GROWFS} is absent: left as it is"
    return 1
  fi
  number=$(cat "${SYS_BLOCK}/${part}/partition") || return 1
  disk=$(lsblk -n -d -o PKNAME "/dev/${part}" | tr -d '[:space:]') || return 1
  [ -n "$disk" ] || { log "no parent disk for /dev/${part}"; return 1; }
  if ! out=$(growpart "/dev/${disk}" "$number" 2>&1); then
    case "$out" in
      NOCHANGE*) log "the root partition already fills /dev/${disk}"; return 0 ;;
      *) log "growpart /dev/${disk} ${number} failed: ${out}"; return 1 ;;
    esac
  fi
  log "grew /dev/${part} to the end of /dev/${disk}; resizing its ${fstype} file system"
  case "$fstype" in
    ext4) resize2fs "/dev/${part}" || return 1 ;;
    xfs) xfs_growfs "$ROOT_MOUNT" || return 1 ;;
    *) log "cannot resize a ${fstype} root file system"; return 1 ;;
  esac
}

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

os_field() {  # os_field NAME: a field of os-release, empty when absent
  if [ -r "$OS_RELEASE" ]; then
    (. "$OS_RELEASE" && printf '%s' "${!1:-}")
  fi
}

lustre_client_works() {
  lfs --version >/dev/null 2>&1 && modprobe lnet >/dev/null 2>&1
}

setup_lustre_client() {
  local kernel id version url sha archive dir
  kernel=$(uname -r)
  if lustre_client_works; then
    log "Lustre client present: lfs runs and lnet loads in kernel ${kernel}"
    return 0
  fi
  if [ "$(uname -m)" != "x86_64" ]; then
    log "no Lustre client packages for $(uname -m): the archives, like OKE's Lustre CSI driver, are for x86_64; use" \
      "an image that carries the client"
    return 1
  fi
  id=$(os_field ID)
  version=$(os_field VERSION_ID)
  case "${id}:${version%%.*}" in
    ol:8)
      if [[ "$kernel" == *uek* ]]; then
        log "kernel mismatch: ${kernel} is UEK; the Oracle Linux 8 Lustre client packages are built for the Red Hat" \
          "compatible kernel (RHCK): use an image that boots RHCK or carries the client"
        return 1
      fi
      url=$LUSTRE_OL8_URL sha=$LUSTRE_OL8_SHA256 ;;
    ubuntu:22)
      url=$LUSTRE_UBUNTU2204_URL sha=$LUSTRE_UBUNTU2204_SHA256 ;;
    *)
      log "no Lustre client packages for ${id:-an unknown OS} ${version}: OKE's Lustre CSI driver supports Oracle" \
        "Linux 8 and Ubuntu 22.04; use an image that carries the client"
      return 1 ;;
  esac
  if [ -z "$url" ]; then
    log "the image has no working Lustre client and storage.lustre.client.packages names no archive for" \
      "${id} ${version}"
    return 1
  fi
  mkdir -p "$LUSTRE_WORK_DIR" || return 1
  archive="${LUSTRE_WORK_DIR}/lustre-client.tar.gz"
  dir="${LUSTRE_WORK_DIR}/packages"
  rm -rf "$archive" "$dir"
  log "downloading the Lustre client packages for ${id} ${version}"
  curl --fail --silent --show-error --location --retry 5 --retry-delay 5 --output "$archive" "$url" || return 1
  if ! echo "${sha}  ${archive}" | sha256sum --check --status; then
    log "checksum mismatch: the downloaded archive is not the one storage.lustre.client.packages names; not installed"
    rm -f "$archive"
    return 1
  fi
  mkdir -p "$dir" && tar -xzf "$archive" -C "$dir" || return 1
  local packages=()
  if [ "$id" = "ol" ]; then
    mapfile -t packages < <(find "$dir" -type f -name '*.rpm' | sort)
    [ "${#packages[@]}" -gt 0 ] || { log "the archive holds no .rpm"; return 1; }
    # DKMS builds the modules for the running kernel: its headers must match it exactly.
    dnf install -y "kernel-devel-${kernel}" || return 1
    dnf install -y --enablerepo ol8_codeready_builder --enablerepo ol8_developer_EPEL "${packages[@]}" || return 1
  else
    mapfile -t packages < <(find "$dir" -type f -name '*.deb' | sort)
    [ "${#packages[@]}" -gt 0 ] || { log "the archive holds no .deb"; return 1; }
    export DEBIAN_FRONTEND=noninteractive  # cloud-init has no terminal: debconf must never prompt
    apt-get update || return 1
    apt-get install -y --no-upgrade "linux-headers-${kernel}" || return 1
    apt-get install -y --no-install-recommends "${packages[@]}" || return 1
  fi
  if ! lustre_client_works; then
    log "kernel mismatch: the Lustre client is installed but lfs or the lnet module does not work in kernel ${kernel}"
    return 1
  fi
  log "Lustre client installed for kernel ${kernel}"
}

oke_bootstrap() {
  local args=()
  if [ -n "$KUBELET_EXTRA_ARGS" ]; then
    args=(--kubelet-extra-args "$KUBELET_EXTRA_ARGS")
  fi
  if [ "$(os_field ID)" = "ubuntu" ]; then
    log "Ubuntu image: oke bootstrap ${args[*]}"
    oke bootstrap "${args[@]}"
  else
    log "Oracle Linux image: running the oke_init_script from the instance metadata ${args[*]}"
    curl --fail --silent --show-error --retry 10 --retry-delay 5 -H "Authorization: Bearer Oracle" \
      "${IMDS}/opc/v2/instance/metadata/oke_init_script" | base64 --decode >/var/run/oke-init.sh
    bash /var/run/oke-init.sh "${args[@]}"
  fi
}

# A failed step never keeps the node out of the cluster: it is logged and the node joins without what it failed to
# set up. (errexit does not apply inside a function called from an if or || list: every step returns on failure.)
grow_root_fs || log "growing the root file system failed; the node joins with the image's root size"
if [ "$NVME_ENABLED" = "1" ]; then
  setup_nvme || log "local NVMe setup failed; the node joins without ${MOUNT_PATH}"
fi
if [ "$LUSTRE_ENABLED" = "1" ]; then
  if setup_lustre_client; then
    KUBELET_EXTRA_ARGS="${KUBELET_EXTRA_ARGS:+${KUBELET_EXTRA_ARGS} }--node-labels=${LUSTRE_LABEL}=true"
  else
    log "Lustre client not available; the node joins without ${LUSTRE_LABEL}, so no Lustre volume is mounted here"
  fi
fi
oke_bootstrap
