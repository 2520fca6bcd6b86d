"""Cloud-init user data for OKE managed nodes: local NVMe RAID 0, then OKE's own bootstrap.

:func:`render` fills ``files/node-init.sh`` (a bash script: cloud-init runs a user-data script that starts with
``#!`` once per instance) and :func:`user_data` base64-encodes it for the node pool's ``node_metadata["user_data"]``,
the key OKE passes to cloud-init. A pool whose ``localNvme`` is off gets no user data: OKE's default initialisation
runs unchanged.

Sources (checked 2026-11-30): OKE docs "Using Custom Cloud-init Initialization Scripts to Set Up Managed Nodes"
(``user_data`` in the node pool's node metadata, base64-encoded; a custom script must run OKE's bootstrap itself);
cloud-init docs "User data formats" (a script starting with ``#!`` runs once per instance, in the ``scripts-user``
module); oracle-quickstart/oci-hpc-oke@61d210a (NVMe RAID on GPU bare metal nodes, ``oke bootstrap`` on Ubuntu).
"""

from __future__ import annotations

import base64
import shlex
from dataclasses import dataclass
from pathlib import Path

TEMPLATE = Path(__file__).parent / "files" / "node-init.sh"
#: NVMe namespaces of the host. OCI bare metal boot and block volumes attach over iSCSI or paravirtualized and
#: appear as ``/dev/sd*``, never as NVMe (Block Volume docs, "Volume Attachment Types"), so the glob only matches
#: the local drives; the script still skips any device with a partition or a mounted file system.
DEVICE_GLOB = "/dev/nvme[0-9]*n1"
#: The md array's device name (a named array: ``mdadm --assemble --scan`` finds it again after a reboot).
MD_DEVICE = "/dev/md/okerdma-nvme"
#: File systems the script can create (``mkfs.<type>`` exists on OKE's Oracle Linux and Ubuntu images).
FILESYSTEMS = ("ext4", "xfs")


@dataclass(frozen=True)
class Paths:
    """Where the script writes on the node. Defaults are the real paths; tests point them into a temporary tree."""

    systemd_dir: str = "/etc/systemd/system"
    mdadm_conf: str = "/etc/mdadm/mdadm.conf"
    imds: str = "http://169.254.169.254"
    os_release: str = "/etc/os-release"
    device_glob: str = DEVICE_GLOB
    md_device: str = MD_DEVICE


def render(*, nvme: bool, mount_path: str = "/mnt/nvme", filesystem: str = "ext4", paths: Paths = Paths()) -> str:
    """The node initialisation script (text).

    :param nvme: assemble the local NVMe drives into one RAID 0 file system at ``mount_path``.
    :param mount_path: an absolute path on the node.
    :param filesystem: one of :data:`FILESYSTEMS`.
    :raises ValueError: for a relative ``mount_path`` or an unknown ``filesystem`` (the config model refuses them
        first, with the key path).
    """
    if not mount_path.startswith("/"):
        raise ValueError(f"mount_path must be absolute, got {mount_path!r}")
    if filesystem not in FILESYSTEMS:
        raise ValueError(f"filesystem must be one of {FILESYSTEMS}, got {filesystem!r}")
    values = {"NVME_ENABLED": "1" if nvme else "0", "MOUNT_PATH": mount_path, "FS_TYPE": filesystem,
              "DEVICE_GLOB": paths.device_glob, "MD_DEVICE": paths.md_device, "SYSTEMD_DIR": paths.systemd_dir,
              "MDADM_CONF": paths.mdadm_conf, "IMDS": paths.imds, "OS_RELEASE": paths.os_release}
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
