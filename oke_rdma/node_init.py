"""Cloud-init user data for OKE managed nodes: the root file system grown to the boot volume, local NVMe RAID 0, the
Lustre client, then OKE's own bootstrap (with the node's startup taints).

:func:`render` fills ``files/node-init.sh`` (a bash script: cloud-init runs a user-data script that starts with
``#!`` once per instance) and :func:`user_data` base64-encodes it for the node pool's ``node_metadata["user_data"]``,
the key OKE passes to cloud-init. Every pool gets it: OKE images keep their built-in root partition whatever boot
volume a pool asks for, so the root file system is grown on every node (Oracle Linux: ``oci-growfs``; Ubuntu:
``growpart`` and ``resize2fs``/``xfs_growfs``) before OKE's bootstrap; the NVMe and Lustre steps run when the pool
asks for them, and startup taints (:data:`TAINT`) are registered by the kubelet (OKE's node pools have no taint
field: ``--register-with-taints`` through OKE's bootstrap ``--kubelet-extra-args``). What each step does, and its
sources, is in the script's header.

Sources (checked 2026-11-30): OKE docs "Using Custom Cloud-init Initialization Scripts to Set Up Managed Nodes"
(``user_data`` in the node pool's node metadata, base64-encoded; a custom script must run OKE's bootstrap itself);
cloud-init docs "User data formats" (a script starting with ``#!`` runs once per instance, in the ``scripts-user``
module); oracle-quickstart/oci-hpc-oke@61d210a (NVMe RAID on GPU bare metal nodes, ``oke bootstrap`` on Ubuntu).
"""

from __future__ import annotations

import base64
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional, Sequence

TEMPLATE = Path(__file__).parent / "files" / "node-init.sh"
#: NVMe namespaces of the host. OCI bare metal boot and block volumes attach over iSCSI or paravirtualized and
#: appear as ``/dev/sd*``, never as NVMe (Block Volume docs, "Volume Attachment Types"), so the glob only matches
#: the local drives; the script still skips any device with a partition or a mounted file system.
DEVICE_GLOB = "/dev/nvme[0-9]*n1"
#: The md array's device name (a named array: ``mdadm --assemble --scan`` finds it again after a reboot).
MD_DEVICE = "/dev/md/okerdma-nvme"
#: oci-utils' root file system grower on Oracle Linux images (OCI docs "OCI Utilities Reference", oci-growfs).
OCI_GROWFS = "/usr/libexec/oci-growfs"
#: The boot volume's consistent device path on OCI Linux images (Block Volume docs "Connecting to Volumes With
#: Consistent Device Paths"): rescanned so the kernel sees a volume larger than the image.
BOOT_DEVICE = "/dev/oracleoci/oraclevda"
#: File systems the script can create (``mkfs.<type>`` exists on OKE's Oracle Linux and Ubuntu images).
FILESYSTEMS = ("ext4", "xfs")
#: The node label a node registers with when its Lustre client works; the Lustre volumes require it.
LUSTRE_CLIENT_LABEL = "okerdma.io/lustre-client"
#: OS keys of the Lustre client package archives (``storage.lustre.client.packages``): Oracle Linux 8 (RHCK) and
#: Ubuntu 22.04, the systems OKE's Lustre CSI driver supports; each maps to the script's URL/SHA-256 placeholders.
LUSTRE_CLIENT_OS = {"oracleLinux8": "OL8", "ubuntu2204": "UBUNTU2204"}
#: A kubelet ``--register-with-taints`` entry: ``key[=value]:Effect`` (Kubernetes' kubelet reference: the effect is
#: NoSchedule, PreferNoSchedule or NoExecute; key a qualified name, value a label value).
TAINT = re.compile(r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
                   r"(=[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?:(NoSchedule|PreferNoSchedule|NoExecute)$")


@dataclass(frozen=True)
class LustreArchive:
    """A Lustre client package archive: its HTTPS ``url`` and the ``sha256`` (hex) the node checks it against."""

    url: str
    sha256: str


@dataclass(frozen=True)
class Paths:
    """Where the script writes on the node. Defaults are the real paths; tests point them into a temporary tree."""

    systemd_dir: str = "/etc/systemd/system"
    mdadm_conf: str = "/etc/mdadm/mdadm.conf"
    imds: str = "http://169.254.169.254"
    os_release: str = "/etc/os-release"
    device_glob: str = DEVICE_GLOB
    md_device: str = MD_DEVICE
    lustre_work_dir: str = "/var/lib/oke-rdma/lustre"
    oci_growfs: str = OCI_GROWFS
    boot_device: str = BOOT_DEVICE
    sys_block: str = "/sys/class/block"
    root_mount: str = "/"


def render(*, nvme: bool, mount_path: str = "/mnt/nvme", filesystem: str = "ext4",
           lustre_client: Optional[Mapping[str, LustreArchive]] = None, taints: Sequence[str] = (),
           paths: Paths = Paths()) -> str:
    """The node initialisation script (text).

    :param nvme: assemble the local NVMe drives into one RAID 0 file system at ``mount_path``.
    :param mount_path: an absolute path on the node.
    :param filesystem: one of :data:`FILESYSTEMS`.
    :param lustre_client: None = no Lustre step; else OS key (:data:`LUSTRE_CLIENT_OS`) → the archive to install the
        client from when the image lacks a working one (an empty mapping: only detect it). Either way the node
        registers with :data:`LUSTRE_CLIENT_LABEL` only when its client works.
    :param taints: startup taints the node registers with (``key=value:Effect``, :data:`TAINT`), e.g. Cilium's
        agent-not-ready taint, which its agent removes once it manages the node's pods.
    :raises ValueError: for a taint that is not ``key[=value]:Effect``, for a relative ``mount_path``, an unknown ``filesystem`` or OS key, or an archive that is not
        an ``https://`` URL with a 64-hex-digit SHA-256 (the config model refuses them first, with the key path).
    """
    if not mount_path.startswith("/"):
        raise ValueError(f"mount_path must be absolute, got {mount_path!r}")
    if filesystem not in FILESYSTEMS:
        raise ValueError(f"filesystem must be one of {FILESYSTEMS}, got {filesystem!r}")
    for taint in taints:
        if not TAINT.match(taint):
            raise ValueError(f"taints: {taint!r} is not key[=value]:NoSchedule|PreferNoSchedule|NoExecute")
    archives = dict(lustre_client or {})
    for os_key, archive in archives.items():
        if os_key not in LUSTRE_CLIENT_OS:
            raise ValueError(f"lustre_client: unknown OS {os_key!r}; use one of {', '.join(LUSTRE_CLIENT_OS)}")
        if not archive.url.startswith("https://") or len(archive.sha256) != 64 or \
                any(c not in "0123456789abcdef" for c in archive.sha256):
            raise ValueError(f"lustre_client[{os_key!r}]: needs an https:// url and a 64-hex-digit sha256")
    values = {"NVME_ENABLED": "1" if nvme else "0", "MOUNT_PATH": mount_path, "FS_TYPE": filesystem,
              "DEVICE_GLOB": paths.device_glob, "MD_DEVICE": paths.md_device, "SYSTEMD_DIR": paths.systemd_dir,
              "MDADM_CONF": paths.mdadm_conf, "IMDS": paths.imds, "OS_RELEASE": paths.os_release,
              "LUSTRE_ENABLED": "1" if lustre_client is not None else "0", "LUSTRE_LABEL": LUSTRE_CLIENT_LABEL,
              "LUSTRE_WORK_DIR": paths.lustre_work_dir, "REGISTER_TAINTS": ",".join(taints),
              "OCI_GROWFS": paths.oci_growfs, "BOOT_DEVICE": paths.boot_device, "SYS_BLOCK": paths.sys_block,
              "ROOT_MOUNT": paths.root_mount}
    for os_key, tag in LUSTRE_CLIENT_OS.items():
        archive = archives.get(os_key)
        values[f"LUSTRE_{tag}_URL"] = archive.url if archive else ""
        values[f"LUSTRE_{tag}_SHA256"] = archive.sha256 if archive else ""
    text = TEMPLATE.read_text()
    for key, value in values.items():
        # The glob must stay unquoted in the script's `for` loop; it is a fixed pattern, never user input.
        text = text.replace(f"@@{key}@@", value if key == "DEVICE_GLOB" else shlex.quote(value))
    if "@@" in text:
        raise RuntimeError("node-init.sh has a placeholder render() does not fill")
    return text


def user_data(**kwargs) -> str:
    """:func:`render`'s script, base64-encoded for ``node_metadata["user_data"]``."""
    return base64.b64encode(render(**kwargs).encode()).decode()
