"""How a failed program is reported: ``error: the program failed: <Type>: <message>`` and the program's own frames.

The offline engine, the Pulumi runtime and the interpreter's program loading add frames in front of the program's;
they are left out, as the Pulumi CLI shows a program's failure."""

from __future__ import annotations

import asyncio
import os
import runpy
import traceback
from pathlib import Path

#: Where the frames of the offline engine, the Pulumi runtime and the interpreter's program loading live: left out of
#: a failed program's traceback, which keeps only the program's own frames.
_PLUMBING = tuple(str(p) for p in (Path(__file__).resolve().parent, Path(asyncio.__file__).resolve().parent,
                                   Path(runpy.__file__).resolve()))


def _plumbing(filename: str) -> bool:
    import pulumi

    if filename.startswith("<"):  # <frozen runpy>, <string>
        return True
    real = os.path.realpath(filename)  # the virtualenv may be a symlink
    return real.startswith(_PLUMBING) or real.startswith(str(Path(pulumi.__file__).resolve().parent))


def _trim(te: traceback.TracebackException, seen: set[int]) -> None:
    """Drop the leading plumbing frames of ``te`` and of the exceptions chained to it."""
    if id(te) in seen:
        return
    seen.add(id(te))
    frames = list(te.stack)
    while frames and _plumbing(frames[0].filename):
        frames.pop(0)
    te.stack = traceback.StackSummary.from_list(frames)
    for chained in (te.__cause__, te.__context__):
        if chained is not None:
            _trim(chained, seen)


def program_failure(error: BaseException) -> str:
    """The report of a failed program: ``error: the program failed: <Type>: <message>`` and, except for
    ``pulumi.RunError`` (printed without traceback, as the Pulumi CLI does), the traceback of the program's own
    frames (the engine's, the Pulumi runtime's and ``runpy``'s leading frames are left out)."""
    import pulumi

    if isinstance(error, SystemExit):
        code = error.code
        message = f"the program called sys.exit({code!r})" if code is not None else "the program called sys.exit()"
        message += " before it finished"
    else:
        message = str(error) or "(no message)"
    head = f"error: the program failed: {type(error).__name__}: {message}"
    if isinstance(error, pulumi.RunError):
        return head
    te = traceback.TracebackException.from_exception(error)
    _trim(te, set())
    return head + "\n" + "".join(te.format()).rstrip("\n")
