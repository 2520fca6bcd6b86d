"""The stack an offline preview runs as: an explicit --stack, else the <stack> of a Pulumi.<stack>.yaml config file,
else dev — so URNs (and a --previous comparison) follow the stack the user named."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from offline.preview import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("file_name, flags, stack", [
    ("Pulumi.base.yaml", ["--stack", "gpu-iad"], "gpu-iad"),
    ("Pulumi.base.yaml", [], "base"),
    ("stack.yaml", ["--stack", "gpu-iad"], "gpu-iad"),
    ("stack.yaml", [], "dev"),
])
def test_the_stack_name_follows_an_explicit_flag_then_the_file_name(tmp_path, capsys, file_name, flags, stack):
    path = tmp_path / file_name
    shutil.copy(ROOT / "Pulumi.dev.yaml", path)
    assert main(["--config-file", str(path), *flags]) == 0
    out = capsys.readouterr().out
    assert f"pulumi:pulumi:Stack oke-rdma-{stack}" in out
    # only a stack name no flag and no file name gave is warned about, in the report's Diagnostics
    assert ("warning: stack name defaulted to dev (stack.yaml is not named Pulumi.<stack>.yaml)" in out) == (
        file_name == "stack.yaml" and not flags)
