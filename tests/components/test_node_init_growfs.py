"""The root file system takes the whole boot volume on every node, before OKE's bootstrap: oci-growfs on Oracle Linux
images (after a rescan of the boot volume), growpart and resize2fs/xfs_growfs where oci-utils is absent (Ubuntu); a
root already at full size, or one the script cannot grow, never keeps the node out of the cluster. Every pool gets
the script, with Cilium on or off, and the NVMe and Lustre steps stay with it.

The rendered script runs under bash with findmnt, lsblk, growpart, resize2fs, xfs_growfs, dd, oci-growfs and the
bootstraps replaced by stubs that log their arguments; /sys/class/block is a directory of the test."""
from __future__ import annotations

import base64
import os
import subprocess

import pytest

from oke_rdma import adapter, node_init
from oke_rdma.compute import USER_DATA_KEY, node_metadata
from oke_rdma.config import load_stack_config
from tests.stackcfg import dev_config, edited

RAW, _ = dev_config()
STUBS = {
    # findmnt -n -o SOURCE|FSTYPE <mount>: the root device and type the test chose
    "findmnt": 'case "$3" in SOURCE) cat "$STATE/root-source" ;; FSTYPE) cat "$STATE/root-fstype" ;; esac',
    "lsblk": 'echo "  $(cat "$STATE/root-disk")"',
    "growpart": '[ -e "$STATE/growpart-out" ] && { cat "$STATE/growpart-out"; exit 1; }; echo "CHANGED: partition=$2"',
    "resize2fs": "true", "xfs_growfs": "true", "dd": "true",
    "curl": r'echo "$(printf "echo oke-init-ran >> %s/calls" "$STATE" | base64)"',
    "oke": "true",
}


@pytest.fixture
def node(tmp_path):
    """A fake node: stub tools on PATH, a /sys/class/block of the test; returns a runner."""
    bin_dir, state, sys_block = tmp_path / "bin", tmp_path / "state", tmp_path / "sys"
    for d in (bin_dir, state, sys_block):
        d.mkdir()
    for name, body in STUBS.items():
        stub = bin_dir / name
        stub.write_text(f'#!/usr/bin/env bash\necho "{name} $*" >> "$STATE/calls"\n{body}\n')
        stub.chmod(0o755)
    os_release = tmp_path / "os-release"

    def run(os_id="ubuntu", source="/dev/sda1", fstype="ext4", disk="sda", partition="1", growfs=None,
            growpart_out=None, boot_device=None, **kwargs):
        os_release.write_text(f"ID={os_id}\n")
        (state / "root-source").write_text(source)
        (state / "root-fstype").write_text(fstype)
        (state / "root-disk").write_text(disk)
        if growpart_out is not None:
            (state / "growpart-out").write_text(growpart_out)
        part = os.path.basename(source)
        if partition is not None:
            (sys_block / part).mkdir(exist_ok=True)
            (sys_block / part / "partition").write_text(partition + "\n")
        oci_growfs = tmp_path / "oci-growfs"
        if growfs is not None:
            oci_growfs.write_text(f'#!/usr/bin/env bash\necho "oci-growfs $*" >> "$STATE/calls"\nexit {growfs}\n')
            oci_growfs.chmod(0o755)
        paths = node_init.Paths(os_release=str(os_release), oci_growfs=str(oci_growfs), sys_block=str(sys_block),
                                boot_device=boot_device or str(tmp_path / "no-boot-device"),
                                lustre_work_dir=str(tmp_path / "work"))
        script = tmp_path / "node-init.sh"
        script.write_text(node_init.render(nvme=False, paths=paths, **kwargs)
                          .replace("/var/run/oke-init.sh", str(tmp_path / "oke-init.sh")))
        env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "STATE": str(state)}
        out = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        calls = (state / "calls").read_text().splitlines()
        (state / "calls").unlink()
        return out, calls

    run.sys_block, run.tmp = sys_block, tmp_path
    return run


def _joined(calls: list[str]) -> int:
    """The index of the bootstrap call (it must be there: the node always joins)."""
    [i] = [i for i, c in enumerate(calls) if c.startswith(("oke-init-ran", "oke bootstrap"))]
    return i


def test_oracle_linux_grows_the_root_with_oci_growfs_before_the_bootstrap(node):
    out, calls = node(os_id="ol", growfs=0)
    grow = calls.index("oci-growfs -y")
    assert grow < _joined(calls)
    assert not any(c.startswith("growpart") for c in calls)


def test_the_boot_volume_is_rescanned_before_oci_growfs(node):
    """Recent Oracle Linux 8 releases see a larger boot volume only after a rescan of its device."""
    dev = node.tmp / "dev-sdb"
    dev.touch()
    link = node.tmp / "oraclevda"
    link.symlink_to(dev)
    rescan = node.sys_block / "dev-sdb" / "device"
    rescan.mkdir(parents=True)
    (rescan / "rescan").write_text("")
    out, calls = node(os_id="ol", growfs=0, boot_device=str(link))
    assert (rescan / "rescan").read_text() == "1\n"
    assert calls.index(f"dd iflag=direct if={link} of=/dev/null count=1") < calls.index("oci-growfs -y")


@pytest.mark.parametrize("fstype, resize", [("ext4", "resize2fs /dev/sda1"), ("xfs", "xfs_growfs /")])
def test_without_oci_growfs_growpart_and_the_file_systems_resizer_grow_the_root(node, fstype, resize):
    """Ubuntu images (no oci-utils): the root partition to the end of its disk, then its ext4 or XFS file system."""
    out, calls = node(fstype=fstype)
    assert calls.index("growpart /dev/sda 1") < calls.index(resize) < _joined(calls)


def test_a_root_already_at_full_size_is_left_alone(node):
    out, calls = node(growpart_out="NOCHANGE: partition 1 is size 97654784. it cannot be grown")
    assert "growpart /dev/sda 1" in calls and not any(c.startswith(("resize2fs", "xfs_growfs")) for c in calls)
    assert "already fills /dev/sda" in out.stderr
    _joined(calls)


@pytest.mark.parametrize("kwargs, logged", [
    ({"growpart_out": "FAILED: sfdisk failed"}, "growpart /dev/sda 1 failed"),
    ({"source": "/dev/mapper/vg-root", "partition": None}, "not a disk partition"),
    ({"fstype": "btrfs"}, "cannot resize a btrfs root"),
    ({"os_id": "ol", "growfs": 1}, "growing the root file system failed"),
])
def test_a_root_that_cannot_grow_never_keeps_the_node_out(node, kwargs, logged):
    out, calls = node(**kwargs)
    assert logged in out.stderr and "the node joins with the image's root size" in out.stderr
    _joined(calls)


def _script(metadata: dict) -> str:
    return base64.b64decode(metadata[USER_DATA_KEY]).decode()


@pytest.mark.parametrize("cilium", [True, False])
def test_every_pool_gets_the_script_with_cilium_on_or_off(cilium):
    """The bug hunt's input: with platform.cilium.enabled false no pool had user data, so no root grew."""
    cfg = load_stack_config(edited(RAW, "platform", ("cilium",), {"enabled": cilium}))
    taints = adapter.startup_taints(cfg)
    for name, pool in cfg.node_pools.items():
        script = _script(node_metadata(pool, None, taints))
        assert "grow_root_fs ||" in script and "oke_init_script" in script, name


def test_with_cilium_off_the_nvme_and_lustre_steps_stay():
    """Cilium off removes only the startup taint: a pool's local NVMe and Lustre client steps are still rendered."""
    raw = edited(RAW, "platform", ("cilium",), {"enabled": False})
    raw = edited(raw, "nodePools", ("gpu", "localNvme"), {"enabled": True})
    cfg = load_stack_config(raw)
    assert adapter.startup_taints(cfg) == ()
    script = _script(node_metadata(cfg.node_pools["gpu"], {}, ()))
    assert "NVME_ENABLED=1" in script and "LUSTRE_ENABLED=1" in script and "REGISTER_TAINTS=''" in script
