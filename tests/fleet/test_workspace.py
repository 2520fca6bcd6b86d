"""The fleet's workspace image: its Dockerfile's pins, and the shim that runs the policy packs on the operator's own
previews and updates (run here with a stand-in for the real CLI that prints its arguments)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKSPACE = ROOT / "fleet" / "workspace"
SHIM = WORKSPACE / "pulumi-policy-shim.sh"


@pytest.fixture()
def run_shim(tmp_path):
    fake = tmp_path / "pulumi-real"
    fake.write_text("#!/bin/sh\nprintf '%s\\n' \"$@\"\n")
    fake.chmod(0o755)

    def run(*args: str) -> list[str]:
        env = {**os.environ, "PULUMI_REAL": str(fake), "PULUMI_POLICY_PACKS": "/opt/policies/security "
               "/opt/policies/placement"}
        out = subprocess.run(["sh", str(SHIM), *args], env=env, capture_output=True, text=True, check=True)
        return out.stdout.splitlines()
    return run


PACKS = ["--policy-pack", "/opt/policies/security", "--policy-pack", "/opt/policies/placement"]


@pytest.mark.parametrize("args, expected", [
    (["up", "--yes", "--stack", "org/p/s"], ["up", *PACKS, "--yes", "--stack", "org/p/s"]),
    (["preview", "--diff"], ["preview", *PACKS, "--diff"]),
    (["update", "--yes"], ["update", *PACKS, "--yes"]),
    (["--color", "never", "up", "--yes"], ["--color", "never", "up", *PACKS, "--yes"]),
    (["-v", "3", "--non-interactive", "preview"], ["-v", "3", "--non-interactive", "preview", *PACKS]),
])
def test_shim_adds_the_packs_to_preview_and_up(run_shim, args, expected):
    """preview and up (also after global flags and their values) get every pack; arguments keep their order."""
    assert run_shim(*args) == expected


@pytest.mark.parametrize("args", [["destroy", "--yes"], ["refresh", "--yes"], ["stack", "select", "up"],
                                  ["--cwd", "up", "install"], ["version"]])
def test_shim_leaves_other_commands_alone(run_shim, args):
    """Other commands (destroy, refresh, stack, install; a flag value spelled like a command) run unchanged."""
    assert run_shim(*args) == args


def test_dockerfile_pins_what_it_runs():
    """The base image must be pinned by digest, the Pulumi CLI checked against its checksum, installs resolved from
    the wheelhouse only, a non-root user, and the OCI CLI at the version CI installs."""
    text = (WORKSPACE / "Dockerfile").read_text()
    assert 'case "${PYTHON_IMAGE:-}" in *@sha256:*)' in text
    assert "sha256sum -c -" in text and "PIP_NO_INDEX=1" in text and "PIP_FIND_LINKS=/opt/wheels" in text
    assert re.search(r"^USER 65532:65532$", text, re.M)
    workflow = (ROOT / ".github" / "workflows" / "preview.yml").read_text()
    (ci,) = set(re.findall(r"oci-cli==([0-9.]+)", workflow))
    assert f"ARG OCI_CLI_VERSION={ci}" in text
    assert "COPY fleet/workspace/pulumi-policy-shim.sh /opt/pulumi/pulumi" in text
