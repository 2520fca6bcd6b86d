"""Shared test setup: the repo root on sys.path (the program imports ``oke_rdma`` like Pulumi runs it)."""

import contextlib
import io
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))



@pytest.fixture(scope="session")
def dev_plan_file(tmp_path_factory):
    """The dev stack previewed once per test session (``--stack dev --json``): ``(path of the plan, the report it
    printed)``. Tests that need the dev plan as it is (a ``--previous`` baseline, the summary of a first preview)
    share it instead of previewing dev again; copy the file before changing it."""
    from offline import preview

    path = tmp_path_factory.mktemp("dev-plan") / "dev.json"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = preview.main(["--stack", "dev", "--json", str(path)])
    assert code == 0, out.getvalue()[-3000:]
    return path, out.getvalue()
