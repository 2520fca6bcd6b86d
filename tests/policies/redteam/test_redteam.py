"""Red-team suite: every unsafe input is refused — a hand-written program by the packs (exit 1, the expected
policy named as mandatory), a stack-config variant by the config model (exit 2, one line naming the key path) —
and its safe control, which differs only in what makes the input unsafe, previews clean (exit 0).

The programs run through ``offline.preview`` in-process (``--program``), the same entry point as the CLI; two cases
also run as a subprocess, end to end."""
from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from offline.preview import main
from tests.policies.redteam.configs import CONFIG_CASES
from tests.policies.redteam.programs import CASES

ROOT = Path(__file__).resolve().parents[3]
STUB = """import sys
sys.path.insert(0, {root!r})
from tests.policies.redteam.programs import CASES
CASES[{name!r}][2]({bad!r})
"""


def program(tmp_path: Path, name: str, bad: bool) -> Path:
    path = tmp_path / f"{name}_{'bad' if bad else 'safe'}.py"
    path.write_text(STUB.format(root=str(ROOT), name=name, bad=bad))
    return path


def config(tmp_path: Path, name: str, bad: bool) -> Path:
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    _, _, unsafe, safe = CONFIG_CASES[name]
    (unsafe if bad else safe)(doc)
    path = tmp_path / f"Pulumi.{name}-{'bad' if bad else 'safe'}.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def preview(capsys, *args: str) -> tuple[int, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out + out.err


def test_the_suite_covers_every_threat_class_with_at_least_40_unsafe_inputs():
    classes = Counter(threat for threat, _, _ in CASES.values()) + Counter(t for t, *_ in CONFIG_CASES.values())
    assert set(classes) == {"identity", "network", "pod", "data", "placement", "supply-chain"}
    assert sum(classes.values()) >= 40


@pytest.mark.parametrize("name", sorted(CASES))
def test_unsafe_program_is_refused_and_its_control_passes(name, tmp_path, capsys):
    _, policy, _ = CASES[name]
    code, out = preview(capsys, "--program", str(program(tmp_path, name, True)))
    assert code == 1 and re.search(rf"\[mandatory\]  {re.escape(policy)}(\s|$)", out, re.M), out
    code, out = preview(capsys, "--program", str(program(tmp_path, name, False)))
    assert code == 0 and "[mandatory]" not in out, out


@pytest.mark.parametrize("name", sorted(CONFIG_CASES))
def test_unsafe_config_is_refused_and_its_control_passes(name, tmp_path, capsys):
    _, key, _, _ = CONFIG_CASES[name]
    code, out = preview(capsys, "--config-file", str(config(tmp_path, name, True)))
    assert code == 2 and f"  {key}: " in out and "Traceback" not in out, out
    code, out = preview(capsys, "--config-file", str(config(tmp_path, name, False)))
    assert code == 0 and "[mandatory]" not in out, out


@pytest.mark.parametrize("kind, name, expected", [("program", "helm_values_host_network_and_privileged", 1),
                                                  ("config", "api_clients_119_public_slash8s", 2)])
def test_end_to_end_through_the_cli(kind, name, expected, tmp_path):
    for bad, code in ((True, expected), (False, 0)):
        flag, path = (("--program", program(tmp_path, name, bad)) if kind == "program"
                      else ("--config-file", config(tmp_path, name, bad)))
        done = subprocess.run([sys.executable, "-m", "offline.preview", flag, str(path)], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == code, done.stdout + done.stderr
