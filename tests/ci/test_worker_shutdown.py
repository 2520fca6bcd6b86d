"""A pytest-xdist worker that is slow to end after its last test (pytest's unconfigure collects garbage over the
worker's whole heap) is not interrupted: execnet sends a worker that has not ended 5 s after the controller's
terminate a SIGINT, which lands as a KeyboardInterrupt in whatever callback runs then (hypothesis' gc callback,
printed as a PytestUnraisableExceptionWarning after a green run). ``tests/conftest.py`` has the workers ignore
SIGINT once their session has finished."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from types import SimpleNamespace

from tests.conftest import ROOT, ignore_shutdown_sigint


def test_a_worker_ignores_sigint_once_its_session_has_finished():
    before = signal.getsignal(signal.SIGINT)
    try:
        assert ignore_shutdown_sigint(SimpleNamespace(workerinput={"workerid": "gw0"})) is True
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_the_controller_and_a_run_without_xdist_keep_ctrl_c():
    before = signal.getsignal(signal.SIGINT)
    assert ignore_shutdown_sigint(SimpleNamespace()) is False
    assert signal.getsignal(signal.SIGINT) is before


def test_a_gc_callback_running_past_executions_grace_period_is_not_interrupted(tmp_path):
    """A real ``pytest -n 1`` whose worker spends 6 s in a gc callback at unconfigure (past execnet's 5 s) ends
    green with no KeyboardInterrupt anywhere; the callback ran to its end."""
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert True\n")
    (tmp_path / "conftest.py").write_text(textwrap.dedent(f"""
        import gc, sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from tests.conftest import ignore_shutdown_sigint

        def _slow(phase, info):
            if phase == "start":
                end = time.monotonic() + 6
                while time.monotonic() < end:
                    time.sleep(0.01)
                open({str(tmp_path / 'done')!r}, "w").write("done")

        def pytest_sessionfinish(session):
            ignore_shutdown_sigint(session.config)

        def pytest_unconfigure(config):
            if hasattr(config, "workerinput"):
                gc.callbacks.append(_slow)
                try:
                    gc.collect()
                finally:
                    gc.callbacks.remove(_slow)
    """))
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "1", str(tmp_path)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "KeyboardInterrupt" not in run.stdout + run.stderr
    assert (tmp_path / "done").exists(), run.stdout + run.stderr
