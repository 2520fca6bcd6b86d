"""The node initialisation script's Lustre client step: a working client is kept; a missing one is installed from the
configured archive for the node's OS (checksum first, the running kernel's headers, then the packages); a UEK kernel,
an unsupported OS, a missing archive, a bad download or checksum, a failed install or modules that do not load in the
running kernel are logged and never keep the node out of the cluster; the node registers with the
okerdma.io/lustre-client label only when its client works.

The rendered script runs under bash with the system tools it calls replaced by stubs on PATH that log their arguments
(sha256sum, tar and find are the real ones, on a real archive).
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from oke_rdma import node_init
from tests.components.nodeinit_sandbox import node_init_sandbox
from oke_rdma.node_init import LUSTRE_CLIENT_LABEL, LustreArchive

LABEL_ARG = f"--node-labels={LUSTRE_CLIENT_LABEL}=true"
KERNEL_RHCK = "4.18.0-553.el8_10.x86_64"
KERNEL_UEK = "5.15.0-300.163.18.el8uek.x86_64"
KERNEL_UBUNTU = "6.8.0-1020-oracle"
OL8 = 'NAME="Oracle Linux Server"\nID="ol"\nVERSION_ID="8.10"\n'
UBUNTU2204 = 'NAME="Ubuntu"\nID=ubuntu\nVERSION_ID="22.04"\nVERSION_CODENAME=jammy\n'

STUBS = {
    "uname": r'''
case "${1:-}" in
  -r) cat "$STATE/kernel" ;;
  -m) cat "$STATE/arch" 2>/dev/null || echo x86_64 ;;
  *) /bin/uname "$@" ;;
esac''',
    # The client works when installed and (unless $STATE/modules-broken) its modules load in the running kernel.
    "lfs": '[ -e "$STATE/installed" ]',
    "modprobe": '[ -e "$STATE/installed" ] && [ ! -e "$STATE/modules-broken" ]',
    "dnf": r'''
case "$*" in
  *kernel-devel-*) [ ! -e "$STATE/no-headers" ] ;;
  *.rpm*) [ -e "$STATE/install-fail" ] && exit 1; touch "$STATE/installed" ;;
esac''',
    "apt-get": r'''
case "$*" in
  update) true ;;
  *linux-headers-*) [ ! -e "$STATE/no-headers" ] ;;
  *.deb*) [ -e "$STATE/install-fail" ] && exit 1; touch "$STATE/installed" ;;
esac''',
    # curl: the IMDS call returns a fake oke_init_script that logs its arguments; a download copies the test archive.
    "curl": r'''
last="${@: -1}"
case "$last" in
  */oke_init_script) printf 'echo "oke-init-ran $*" >> %s/calls\n' "$STATE" | base64 ;;
  *) [ -e "$STATE/download-fail" ] && exit 22
     out=""; prev=""
     for a in "$@"; do [ "$prev" = "--output" ] && out="$a"; prev="$a"; done
     cp "$STATE/archive.tar.gz" "$out" ;;
esac''',
    "oke": "true",
}


def _archive(path: Path, names: list[str]) -> str:
    """A real .tar.gz holding empty package files ``names``; returns its SHA-256."""
    src = path.parent / "pkgsrc"
    src.mkdir(exist_ok=True)
    with tarfile.open(path, "w:gz") as tar:
        for name in names:
            (src / name).write_bytes(b"")
            tar.add(src / name, arcname=f"lustre/{name}")
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def node(tmp_path):
    """A fake node (Oracle Linux 8 on RHCK, no Lustre client); returns a runner ``run(lustre_client=..., nvme=...)``."""
    bin_dir, state = tmp_path / "bin", tmp_path / "state"
    bin_dir.mkdir()
    state.mkdir()
    for name, body in STUBS.items():
        stub = bin_dir / name
        stub.write_text(f'#!/usr/bin/env bash\necho "{name} $*" >> "$STATE/calls"\n{body}\n')
        stub.chmod(0o755)
    (state / "kernel").write_text(KERNEL_RHCK + "\n")
    os_release = tmp_path / "os-release"
    os_release.write_text(OL8)
    rpm_sha = _archive(tmp_path / "ol8.tar.gz", ["lustre-client-2.15.5-1.el8.x86_64.rpm",
                                                 "lustre-client-dkms-2.15.5-1.el8.noarch.rpm"])
    deb_sha = _archive(tmp_path / "ubuntu.tar.gz", ["lustre-client-utils_2.15.5-1_amd64.deb",
                                                    "lustre-client-modules-dkms_2.15.5-1_amd64.deb"])
    archives = {"oracleLinux8": LustreArchive("https://objectstorage.example.com/p/x/o/ol8.tar.gz", rpm_sha),
                "ubuntu2204": LustreArchive("https://objectstorage.example.com/p/x/o/ubuntu.tar.gz", deb_sha)}
    (state / "archive.tar.gz").write_bytes((tmp_path / "ol8.tar.gz").read_bytes())
    paths = node_init.Paths(systemd_dir=str(tmp_path / "systemd"), mdadm_conf=str(tmp_path / "mdadm.conf"),
                            os_release=str(os_release), device_glob=f"{tmp_path}/dev/nvme[0-9]*n1",
                            lustre_work_dir=str(tmp_path / "work"), **node_init_sandbox(tmp_path))

    def run(lustre_client=archives, nvme=False):
        script = tmp_path / "node-init.sh"
        script.write_text(node_init.render(nvme=nvme, mount_path=str(tmp_path / "mnt"), lustre_client=lustre_client,
                                           paths=paths).replace("/var/run/oke-init.sh", str(tmp_path / "oke-init.sh")))
        env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "STATE": str(state)}
        out = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=60)
        calls = (state / "calls").read_text().splitlines() if (state / "calls").exists() else []
        (state / "calls").unlink(missing_ok=True)
        return out, calls

    def ubuntu(version="22.04"):
        os_release.write_text(UBUNTU2204.replace('"22.04"', f'"{version}"'))
        (state / "kernel").write_text(KERNEL_UBUNTU + "\n")
        (state / "archive.tar.gz").write_bytes((tmp_path / "ubuntu.tar.gz").read_bytes())

    run.state, run.tmp, run.os_release, run.archives, run.ubuntu = state, tmp_path, os_release, archives, ubuntu
    return run


def _joined(calls: list[str]) -> str:
    """The bootstrap call: the fake oke_init_script's log line (Oracle Linux) or ``oke bootstrap ...`` (Ubuntu)."""
    [line] = [c for c in calls if c.startswith(("oke-init-ran", "oke bootstrap"))]
    return line


def _downloads(calls):
    return [c for c in calls if c.startswith("curl") and not c.endswith("oke_init_script")]


def test_oracle_linux_8_on_rhck_installs_the_checked_archive_with_the_kernels_headers_and_labels_the_node(node):
    out, calls = node()
    assert out.returncode == 0, out.stderr
    [download] = _downloads(calls)
    assert download.endswith(node.archives["oracleLinux8"].url) and "--fail" in download
    dnf = [c for c in calls if c.startswith("dnf")]
    assert dnf[0] == f"dnf install -y kernel-devel-{KERNEL_RHCK}"
    assert "--enablerepo ol8_codeready_builder --enablerepo ol8_developer_EPEL" in dnf[1]
    assert "lustre-client-2.15.5-1.el8.x86_64.rpm" in dnf[1] and "lustre-client-dkms-2.15.5-1.el8.noarch.rpm" in dnf[1]
    assert _joined(calls) == f"oke-init-ran --kubelet-extra-args {LABEL_ARG}"
    assert calls.index(dnf[1]) < calls.index(_joined(calls))  # installed before the node joins
    assert "Lustre client installed" in out.stderr


def test_ubuntu_22_04_installs_the_debs_with_the_kernels_headers_and_labels_the_node(node):
    node.ubuntu()
    out, calls = node()
    assert out.returncode == 0, out.stderr
    assert _downloads(calls)[0].endswith(node.archives["ubuntu2204"].url)
    apt = [c for c in calls if c.startswith("apt-get install")]
    assert apt[0] == f"apt-get install -y --no-upgrade linux-headers-{KERNEL_UBUNTU}"
    assert "lustre-client-modules-dkms_2.15.5-1_amd64.deb" in apt[1] and "lustre-client-utils" in apt[1]
    assert _joined(calls) == f"oke bootstrap --kubelet-extra-args {LABEL_ARG}"


def test_a_working_client_is_kept_and_a_second_run_installs_nothing(node):
    node()
    out, calls = node()  # the first run installed it
    assert out.returncode == 0 and not _downloads(calls) and not [c for c in calls if c.startswith("dnf")]
    assert _joined(calls).endswith(LABEL_ARG) and "Lustre client present" in out.stderr


def test_an_image_that_carries_the_client_is_labelled_even_on_an_os_without_archives(node):
    (node.state / "installed").touch()
    node.ubuntu("24.04")
    out, calls = node(lustre_client={})
    assert out.returncode == 0 and not _downloads(calls) and _joined(calls).endswith(LABEL_ARG)


def test_a_uek_kernel_is_a_kernel_mismatch_nothing_is_installed_and_the_node_joins_unlabelled(node):
    (node.state / "kernel").write_text(KERNEL_UEK + "\n")
    out, calls = node()
    assert out.returncode == 0
    assert not _downloads(calls) and not [c for c in calls if c.startswith("dnf")]
    assert "kernel mismatch" in out.stderr and "UEK" in out.stderr and "RHCK" in out.stderr
    assert _joined(calls) == "oke-init-ran "


def test_modules_that_do_not_load_in_the_running_kernel_leave_the_node_unlabelled(node):
    (node.state / "modules-broken").touch()
    out, calls = node()
    assert out.returncode == 0 and [c for c in calls if ".rpm" in c]  # installed, yet not working
    assert "kernel mismatch" in out.stderr and KERNEL_RHCK in out.stderr
    assert LABEL_ARG not in _joined(calls)


def test_an_archive_with_another_checksum_is_never_installed(node):
    archives = dict(node.archives, oracleLinux8=LustreArchive(node.archives["oracleLinux8"].url, "0" * 64))
    out, calls = node(lustre_client=archives)
    assert out.returncode == 0 and "checksum mismatch" in out.stderr
    assert not [c for c in calls if c.startswith(("dnf", "tar"))]
    assert LABEL_ARG not in _joined(calls)


@pytest.mark.parametrize("failure", ["download-fail", "install-fail", "no-headers"])
def test_a_failed_download_or_install_never_keeps_the_node_out(node, failure):
    (node.state / failure).touch()
    out, calls = node()
    assert out.returncode == 0, out.stderr
    assert "Lustre client not available" in out.stderr
    assert _joined(calls) == "oke-init-ran "
    if failure == "no-headers":  # no package is installed without the running kernel's headers
        assert not [c for c in calls if ".rpm" in c]


@pytest.mark.parametrize("os_release, needle", [
    ('ID="ol"\nVERSION_ID="9.4"\n', "no Lustre client packages for ol 9.4"),
    ('ID=ubuntu\nVERSION_ID="24.04"\n', "no Lustre client packages for ubuntu 24.04"),
])
def test_an_os_the_csi_driver_does_not_support_gets_no_install(node, os_release, needle):
    node.os_release.write_text(os_release)
    out, calls = node()
    assert out.returncode == 0 and needle in out.stderr and not _downloads(calls)
    assert LABEL_ARG not in _joined(calls)


def test_an_arm_node_gets_no_x86_archive_but_a_client_its_image_carries_is_used(node):
    (node.state / "arch").write_text("aarch64\n")
    out, calls = node()
    assert out.returncode == 0 and "no Lustre client packages for aarch64" in out.stderr and not _downloads(calls)
    assert _joined(calls) == "oke-init-ran "
    (node.state / "installed").touch()
    out, calls = node()
    assert _joined(calls).endswith(LABEL_ARG)


def test_a_node_without_os_release_gets_no_install_and_still_joins(node):
    node.os_release.unlink()
    out, calls = node()
    assert out.returncode == 0 and "no Lustre client packages for an unknown OS" in out.stderr
    assert not _downloads(calls) and _joined(calls) == "oke-init-ran "


def test_no_archive_for_the_nodes_os_means_detect_only(node):
    out, calls = node(lustre_client={"ubuntu2204": node.archives["ubuntu2204"]})  # an Oracle Linux node
    assert out.returncode == 0 and "names no archive for ol 8.10" in out.stderr and not _downloads(calls)
    assert _joined(calls) == "oke-init-ran "


def test_without_the_lustre_step_the_client_is_not_checked_and_no_label_is_asked_for(node):
    (node.state / "installed").touch()
    out, calls = node(lustre_client=None)
    assert out.returncode == 0 and not [c for c in calls if c.startswith(("lfs", "modprobe"))]
    assert _joined(calls) == "oke-init-ran "


def test_local_nvme_runs_first_and_its_failure_does_not_stop_the_lustre_client(node):
    (node.tmp / "dev").mkdir()
    (node.tmp / "dev" / "nvme0n1").touch()
    mdadm = node.tmp / "bin" / "mdadm"
    mdadm.write_text('#!/usr/bin/env bash\necho "mdadm $*" >> "$STATE/calls"\n[ "$1" = "--create" ] && exit 1\n'
                     '[ "$1" = "--assemble" ] && exit 1\n[ "$1" = "--detail" ] && exit 1\nexit 1\n')
    mdadm.chmod(0o755)
    for tool in ("lsblk",):
        stub = node.tmp / "bin" / tool
        stub.write_text("#!/usr/bin/env bash\ntrue\n")
        stub.chmod(0o755)
    out, calls = node(nvme=True)
    assert out.returncode == 0 and "local NVMe setup failed" in out.stderr
    create = next(i for i, c in enumerate(calls) if c.startswith("mdadm --create"))
    install = next(i for i, c in enumerate(calls) if c.startswith("dnf") and ".rpm" in c)
    assert create < install and _joined(calls).endswith(LABEL_ARG)


def test_render_refuses_an_unknown_os_or_an_archive_that_is_not_checked_https():
    good = LustreArchive("https://objectstorage.example.com/o/x.tar.gz", "a" * 64)
    with pytest.raises(ValueError, match="unknown OS"):
        node_init.render(nvme=False, lustre_client={"rhel9": good})
    for bad in (LustreArchive("http://example.com/x.tar.gz", "a" * 64), LustreArchive(good.url, "A" * 64),
                LustreArchive(good.url, "a" * 63)):
        with pytest.raises(ValueError, match="https:// url and a 64-hex-digit sha256"):
            node_init.render(nvme=False, lustre_client={"oracleLinux8": bad})
    script = node_init.render(nvme=False, lustre_client={"oracleLinux8": good})
    assert subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True).returncode == 0
