"""A command's ``main(argv)`` run in the test's own process, as its ``python -m`` entry point would run it, with
what it prints captured: no new interpreter, so no second import of the SDKs (several seconds of CPU each time),
and previews reuse this process's idle policy-pack servers (``offline.analyzer``). Tests of the process itself
(exit without a traceback, hash seeds, ``os._exit``, signals) still start one."""

from __future__ import annotations

import contextlib
import io
import subprocess
from typing import Callable, Optional, Sequence


def run_main(main: Callable[[Optional[list[str]]], int], argv: Sequence[str]) -> tuple[int, str, str]:
    """``(exit code, stdout, stderr)`` of ``main(list(argv))``; a ``SystemExit`` (argparse's usage errors) gives its
    code as the interpreter would (None → 0, a message → 1)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            if isinstance(e.code, str):
                err.write(e.code + "\n")
    return code, out.getvalue(), err.getvalue()


def preview(*args: str) -> "subprocess.CompletedProcess[str]":
    """``python -m offline.preview ARGS`` run in-process: a ``CompletedProcess`` with its exit code and output."""
    from offline.preview import main

    code, out, err = run_main(main, [str(a) for a in args])
    return subprocess.CompletedProcess(["offline.preview", *args], code, out, err)
