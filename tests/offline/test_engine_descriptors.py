"""Running the program again and again under the mocks holds no more file descriptors than running it once: each run's
event loop is closed when the next starts (a test session of a thousand runs ran out of descriptors)."""
from __future__ import annotations

import os

from offline.engine import run_program


def _open() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_repeated_runs_do_not_leak_descriptors():
    def program():
        import pulumi
        pulumi.export("x", 1)
    run_program({"oci:region": "sa-saopaulo-1"}, [], "fd", program=program)
    once = _open()
    for _ in range(5):
        run_program({"oci:region": "sa-saopaulo-1"}, [], "fd", program=program)
    assert _open() <= once
