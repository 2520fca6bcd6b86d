"""Run a Pulumi program function as the language host does, except that a program exception never hangs the run.

The Python SDK's ``run_pulumi_func`` (pulumi 3.272.0, ``runtime/stack.py``) catches the program's exception, then
awaits every outstanding registration and output before it re-raises it. A registration that waits on an output
nobody will resolve — a ``pulumi.deferred_output()`` whose ``resolve`` came after the ``raise`` — never finishes, so
``pulumi preview`` waits forever and never shows the error (pulumi/pulumi#18559, open, read 2026-12-02).

:func:`run_program_func` runs the same ``run_pulumi_func``. While the program has not raised it waits as long as the
program needs (a slow program is not a hung one). Once it has raised, the outstanding work is watched: as long as
tasks keep finishing it is waited for (an RPC failure the exception caused is reported as the SDK would report it);
when a whole :data:`STALL_SECONDS` passes with no task finishing, the rest are cancelled and the program's exception
is raised with a note saying that ``pulumi preview`` would hang there.
"""

from __future__ import annotations

import asyncio
from inspect import isawaitable
from typing import Any, Awaitable, Callable, Optional

from pulumi.runtime.stack import run_pulumi_func

#: Seconds without any task finishing, after the program raised, before its outstanding work is given up.
STALL_SECONDS = 3.0

HANG_NOTE = ("pulumi preview would wait here forever and never show this error: {count} pending registration or "
             "output task(s) waited on a value no one will resolve (e.g. a pulumi.deferred_output() whose resolve "
             "comes after the raise; pulumi/pulumi#18559); settle such outputs when the program raises "
             "(oke_rdma/deferred.py)")


async def run_program_func(body: Callable[[], Optional[Awaitable[None]]]) -> None:
    """Run ``body`` under ``run_pulumi_func``; see the module docstring.

    :raises BaseException: what ``run_pulumi_func`` raises (the program's exception, or the failure of a
        registration), or the program's exception with :data:`HANG_NOTE` when its outstanding work stalled."""
    failed: list[BaseException] = []

    def guarded() -> Optional[Awaitable[None]]:
        try:
            result = body()
        except BaseException as error:  # noqa: BLE001 (recorded, then re-raised to the SDK unchanged)
            failed.append(error)
            raise
        if isawaitable(result):
            return _guard_awaitable(result, failed)
        return None

    run = asyncio.ensure_future(run_pulumi_func(guarded))
    while not run.done():
        if not failed:
            await asyncio.wait({run}, timeout=STALL_SECONDS)
            continue
        before = _pending()
        await asyncio.wait({run}, timeout=STALL_SECONDS)
        if run.done():
            break
        still = _pending()
        if (before & still) == before:  # nothing that was waiting finished: what is left waits forever
            await _abandon(run, still)
            error = failed[0]
            if hasattr(error, "add_note"):
                error.add_note(HANG_NOTE.format(count=len(still)))
            raise error
    run.result()


async def _guard_awaitable(result: Awaitable[Any], failed: list[BaseException]) -> None:
    try:
        await result
    except BaseException as error:  # noqa: BLE001 (recorded, then re-raised unchanged)
        failed.append(error)
        raise


def _pending() -> set[asyncio.Task]:
    current = asyncio.current_task()
    return {t for t in asyncio.all_tasks() if t is not current and not t.done()}


async def _abandon(run: asyncio.Future, tasks: set[asyncio.Task]) -> None:
    """Cancel the run and what it waited on, and let them unwind (their ``finally`` blocks shut the SDK's
    callback server down)."""
    run.cancel()
    for task in tasks:
        task.cancel()
    await asyncio.wait({run, *tasks}, timeout=STALL_SECONDS)
    for task in (run, *tasks):
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: no "exception was never retrieved" warning at exit
