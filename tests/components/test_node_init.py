"""The node initialisation script: RAID 0 over the free local NVMe drives only, formatted and mounted once however
often it runs, and OKE's bootstrap always run last (Oracle Linux and Ubuntu images).

The rendered script runs for real under bash, with the system tools it calls (mdadm, mkfs, blkid, lsblk, systemctl,
curl, oke) replaced by stubs on PATH that log their arguments and keep the array's state in files.
"""
from __future__ import annotations

import base64
import os
import shutil
import subprocess

import pytest

from oke_rdma import node_init
from tests.components.nodeinit_sandbox import node_init_sandbox

STUBS = {
    # mdadm: --create makes the array, --detail/--assemble find it, --examine says which devices carry a superblock.
    "mdadm": r'''
case "$1" in
  --create) [ -e "$STATE/md-fail" ] && exit 1; touch "$STATE/md" ;;
  --detail) [ -e "$STATE/md" ] || exit 1
            if [ "$2" = "--scan" ]; then echo "ARRAY /dev/md/okerdma-nvme metadata=1.2 UUID=aa:bb"; fi ;;
  --assemble) [ -e "$STATE/md" ] ;;
  --examine) exit 1 ;;
esac''',
    "mkfs.ext4": 'touch "$STATE/fs"',
    "mkfs.xfs": 'touch "$STATE/fs"',
    "blkid": r'''
[ -e "$STATE/fs" ] || exit 2
case "$2" in TYPE) echo ext4 ;; UUID) echo 1111-2222 ;; esac''',
    # lsblk: devices named in $STATE/mounted hold a mounted file system, those in $STATE/partitioned a partition.
    "lsblk": r'''
dev="${@: -1}"
case "$3" in
  MOUNTPOINT) grep -qxF "$dev" "$STATE/mounted" 2>/dev/null && echo /boot || true ;;
  NAME) echo "$(basename "$dev")"; grep -qxF "$dev" "$STATE/partitioned" 2>/dev/null && echo "$(basename "$dev")p1" || true ;;
esac''',
    "systemd-escape": 'echo "mnt-nvme.mount"',
    "systemctl": "true",
    "curl": r'echo "$(printf "echo oke-init-ran >> %s/calls" "$STATE" | base64)"',
    "oke": 'true',
}


@pytest.fixture
def node(tmp_path):
    """A fake node: stub tools on PATH, four NVMe devices, an os-release file; returns a runner."""
    bin_dir, state, dev = tmp_path / "bin", tmp_path / "state", tmp_path / "dev"
    for d in (bin_dir, state, dev):
        d.mkdir()
    for n in range(4):
        (dev / f"nvme{n}n1").touch()
    (dev / "sda").touch()  # a boot volume: never an NVMe name
    for name, body in STUBS.items():
        stub = bin_dir / name
        stub.write_text(f'#!/usr/bin/env bash\necho "{name} $*" >> "$STATE/calls"\n{body}\n')
        stub.chmod(0o755)
    os_release = tmp_path / "os-release"
    os_release.write_text("ID=ol\n")
    paths = node_init.Paths(systemd_dir=str(tmp_path / "systemd"), mdadm_conf=str(tmp_path / "mdadm.conf"),
                            os_release=str(os_release), device_glob=f"{dev}/nvme[0-9]*n1",
                            md_device="/dev/md/okerdma-nvme", **node_init_sandbox(tmp_path))

    def run(nvme=True, **kwargs):
        script = tmp_path / "node-init.sh"
        script.write_text(node_init.render(nvme=nvme, mount_path=str(tmp_path / "mnt" / "nvme"), paths=paths,
                                           **kwargs).replace("/var/run/oke-init.sh", str(tmp_path / "oke-init.sh")))
        env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "STATE": str(state)}
        out = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=30)
        calls = (state / "calls").read_text().splitlines() if (state / "calls").exists() else []
        (state / "calls").unlink(missing_ok=True)
        return out, calls

    run.state, run.dev, run.os_release, run.tmp = state, dev, os_release, tmp_path
    return run


def test_raid0_over_every_nvme_device_and_never_the_boot_volume(node):
    out, calls = node()
    assert out.returncode == 0, out.stderr
    create = [c for c in calls if c.startswith("mdadm --create")]
    assert len(create) == 1 and "--level=0" in create[0] and "--raid-devices=4" in create[0]
    assert all(f"{node.dev}/nvme{n}n1" in create[0] for n in range(4)) and "sda" not in create[0]
    assert any(c.startswith("mkfs.ext4 /dev/md/okerdma-nvme") for c in calls)
    unit = (node.tmp / "systemd" / "mnt-nvme.mount").read_text()
    assert f"Where={node.tmp}/mnt/nvme" in unit and "What=UUID=1111-2222" in unit and "nofail" in unit
    assert "ARRAY /dev/md/okerdma-nvme" in (node.tmp / "mdadm.conf").read_text()


def test_a_second_run_assembles_and_mounts_without_creating_or_formatting_again(node):
    node()
    out, calls = node()
    assert out.returncode == 0, out.stderr
    assert not [c for c in calls if c.startswith(("mdadm --create", "mkfs."))], calls
    assert (node.tmp / "mdadm.conf").read_text().count("ARRAY") == 1  # the array line is not appended twice
    assert "oke-init-ran" in calls  # the bootstrap still runs


def test_devices_with_a_partition_or_a_mounted_file_system_are_left_alone(node):
    (node.state / "mounted").write_text(f"{node.dev}/nvme0n1\n")
    (node.state / "partitioned").write_text(f"{node.dev}/nvme3n1\n")
    out, calls = node()
    create = next(c for c in calls if c.startswith("mdadm --create"))
    assert "--raid-devices=2" in create and "nvme0n1" not in create and "nvme3n1" not in create


def test_no_nvme_devices_means_no_array_but_the_node_still_joins(node):
    shutil.rmtree(node.dev)
    node.dev.mkdir()
    out, calls = node()
    assert out.returncode == 0 and not [c for c in calls if c.startswith("mdadm --create")]
    assert "oke-init-ran" in calls


def test_a_failed_raid_never_keeps_the_node_out_of_the_cluster(node):
    (node.state / "md-fail").touch()
    out, calls = node()
    assert out.returncode == 0
    assert not [c for c in calls if c.startswith("mkfs.")]  # nothing formatted after the failed create
    assert "local NVMe setup failed" in out.stderr and "oke-init-ran" in calls


def test_oracle_linux_runs_the_oke_init_script_from_instance_metadata_with_the_imdsv2_header(node):
    out, calls = node(nvme=False)
    curl = next(c for c in calls if c.startswith("curl"))
    assert "Authorization: Bearer Oracle" in curl and curl.endswith("/opc/v2/instance/metadata/oke_init_script")
    assert "oke-init-ran" in calls and not [c for c in calls if c.startswith(("mdadm", "oke "))]


def test_ubuntu_images_run_oke_bootstrap(node):
    node.os_release.write_text('ID=ubuntu\nVERSION_CODENAME=noble\n')
    out, calls = node()
    assert out.returncode == 0 and "oke bootstrap" in calls and not [c for c in calls if c.startswith("curl")]
    assert calls.index("oke bootstrap") > max(i for i, c in enumerate(calls) if c.startswith("systemctl"))


def test_xfs_is_formatted_with_mkfs_xfs(node):
    out, calls = node(filesystem="xfs")
    assert any(c.startswith("mkfs.xfs") for c in calls) and not any(c.startswith("mkfs.ext4") for c in calls)


def test_user_data_is_the_base64_of_the_script_and_bad_arguments_are_refused():
    assert base64.b64decode(node_init.user_data(nvme=True)).decode() == node_init.render(nvme=True)
    assert node_init.render(nvme=True).startswith("#!/usr/bin/env bash")
    with pytest.raises(ValueError, match="absolute"):
        node_init.render(nvme=True, mount_path="mnt/nvme")
    with pytest.raises(ValueError, match="filesystem"):
        node_init.render(nvme=True, filesystem="btrfs")


def test_the_rendered_script_is_valid_bash():
    out = subprocess.run(["bash", "-n"], input=node_init.render(nvme=True), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
