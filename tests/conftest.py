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


@pytest.fixture(scope="session")
def prod_plan_file(tmp_path_factory):
    """The prod stack previewed once per test session (``--stack prod --json``): ``(path of the plan, the report it
    printed)``; copy the file before changing it."""
    from offline import preview

    path = tmp_path_factory.mktemp("prod-plan") / "prod.json"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = preview.main(["--stack", "prod", "--json", str(path)])
    assert code == 0, out.getvalue()[-3000:]
    return path, out.getvalue()


# -- the stacks' program runs, shared: many modules read the same dev or prod recording ------------------------------
# Each is one run of the program under the offline mocks (preview=False: values known), as the Pulumi CLI reads the
# stack file. Tests only read a recording; one that needs to change it builds its own.
@pytest.fixture(scope="session")
def dev_run():
    """The dev stack's program run (:class:`offline.engine.ProgramRun`), values known."""
    from offline.engine import run_program
    from tests.stackcfg import dev_config

    return run_program(*dev_config(), "dev")


@pytest.fixture(scope="session")
def dev_first_preview():
    """The dev stack's program run as on a first preview: every output the provider computes is unknown."""
    from offline.engine import run_program
    from tests.stackcfg import dev_config

    return run_program(*dev_config(), "dev", unknowns=True)


@pytest.fixture(scope="session")
def prod_run():
    """The prod stack's program run (:class:`offline.engine.ProgramRun`), values known."""
    from offline.engine import run_program
    from offline.preview import read_stack_file

    return run_program(*read_stack_file(ROOT / "Pulumi.prod.yaml"), "prod")


@pytest.fixture(scope="session")
def prod_first_preview():
    """The prod stack's program run as on a first preview: every output the provider computes is unknown."""
    from offline.engine import run_program
    from offline.preview import read_stack_file

    return run_program(*read_stack_file(ROOT / "Pulumi.prod.yaml"), "prod", unknowns=True)


# -- where the suite's time goes: ``pytest --cpu-report FILE`` ------------------------------------------------------
# One tab-separated line per test (its setup, call and teardown; a shared fixture counts for the test that first
# needs it): node id, CPU seconds of this process, CPU seconds of the child processes reaped meanwhile (preview
# subprocesses, promtool), wall seconds. CPU is what a loaded machine does not
# distort; under xdist each worker appends its own lines to the same file.
def pytest_addoption(parser):
    parser.addoption("--cpu-report", default=None, metavar="FILE",
                     help="append each test's CPU time (own, children) and wall time to FILE (TSV)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    path = item.config.getoption("--cpu-report")
    if not path:
        yield
        return
    import resource
    import time

    def sample():
        own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime, time.perf_counter()

    before = sample()
    yield
    after = sample()
    with open(path, "a", encoding="utf-8") as out:
        out.write(f"{item.nodeid}\t{after[0] - before[0]:.3f}\t{after[1] - before[1]:.3f}\t"
                  f"{after[2] - before[2]:.3f}\n")


# -- the collector as in the preview's own process --------------------------------------------------------------------
# Each worker imports every test module (the SDKs, the packs, the schemas): with CPython's default thresholds the
# cyclic collector walks those objects again and again while the tests run the program (a dev program run: 1.46 s of
# CPU by default, 0.95 s with the imports frozen, measured 2026-12-02). Once collected, the imports are frozen and the
# collector runs at the preview's thresholds (offline.preview.collect_after_imports); OKE_RDMA_TEST_GC=default keeps
# CPython's settings (for an A/B measurement).
def pytest_collection_finish(session):
    import os

    if os.environ.get("OKE_RDMA_TEST_GC") == "default":
        return
    from offline.preview import collect_after_imports

    collect_after_imports()


# -- no pack server outlives the test process -------------------------------------------------------------------------
# The servers the previews of a test process start are kept for its later previews (offline.analyzer._POOL) and
# stopped by atexit; a pytest-xdist worker may end without running atexit, and a test pack of its own (not this
# repository's, which ends with its standard input: _serve.exit_with_stdin) would then be left running. Stop them
# when the session ends.
def pytest_sessionfinish(session, exitstatus):
    from offline import analyzer

    analyzer.shutdown()
    ignore_shutdown_sigint(session.config)


# -- a pytest-xdist worker's end is not interrupted ------------------------------------------------------------------
# xdist's worker reports "workerfinished" after this hook (its sessionfinish is a hook wrapper); the controller then
# terminates the gateway, and execnet (gateway_base._terminate_execution, 2.1.2) waits 5 s for the worker's pytest
# run to return and then sends the worker a SIGINT (os.kill(os.getpid(), 2)). On a loaded machine pytest's
# unconfigure (its unraisable-exception plugin runs gc.collect() over the worker's whole heap) takes longer, and the
# KeyboardInterrupt lands in whatever runs then: hypothesis' gc callback, printed as a PytestUnraisableExceptionWarning
# after a green run. Past this point a worker has no test left to interrupt, so it ignores SIGINT: execnet then waits
# its further 10 s (and only then os._exit), by which time the worker has ended on its own. The controller and a
# plain (non-xdist) run keep Ctrl-C.
def ignore_shutdown_sigint(config) -> bool:
    """In a pytest-xdist worker (``config.workerinput`` set), ignore SIGINT from now on and return True; in the
    controller or a run without xdist, leave SIGINT alone and return False."""
    import signal
    import threading

    if not hasattr(config, "workerinput") or threading.current_thread() is not threading.main_thread():
        return False
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return True
