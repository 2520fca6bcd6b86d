"""Every command-line entry point's --help describes it in whole sentences: the description is the docstring's first
paragraph, never a line cut from the middle of a sentence."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = ("offline.preview", "offline.changecost", "oke_rdma.docs", "oke_rdma.new_stack", "oke_rdma.usage",
           "oke_rdma.outputs", "policies.doc", "bench.run", "offline.placement_config")


@pytest.mark.parametrize("module", MODULES)
def test_the_help_description_is_whole_sentences(module):
    out = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    text = out.stdout.split("\n\n", 2)
    description = " ".join(text[1].split()) if len(text) > 1 else ""
    assert description and re.search(r"[.)`]$", description), f"{module}: {description!r}"
    assert not re.search(r"--policy-pack$|[,:;(]$", description), description
