"""Node-script paths that keep a test run away from the machine's own disks: the root-growing step finds no
oci-growfs, no boot device and no partition of the test machine's root (so it never calls growpart on it)."""
from __future__ import annotations

from pathlib import Path


def node_init_sandbox(tmp_path: Path) -> dict[str, str]:
    """``node_init.Paths`` keyword arguments pointing the root-growing step into ``tmp_path``."""
    return {"oci_growfs": str(tmp_path / "no-oci-growfs"), "boot_device": str(tmp_path / "no-boot-device"),
            "sys_block": str(tmp_path / "no-sys-block")}
