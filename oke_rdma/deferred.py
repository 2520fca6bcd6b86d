"""A deferred output that cannot hang the engine: :func:`deferred_output` as a context manager.

``pulumi.deferred_output()`` returns an output whose value arrives later, from ``resolve(other_output)``. When the
program raises between the two, nothing ever resolves it: every registration waiting on it waits forever, the
language host waits for those registrations before it reports the exception, and ``pulumi preview`` hangs with the
error hidden (pulumi/pulumi#18559, open, read 2026-12-02; the Python SDK's ``run_pulumi_func`` awaits every
outstanding RPC and output before it re-raises the program's exception — pulumi 3.272.0, ``runtime/stack.py``).

:func:`deferred_output` settles the output on every way out of its block: resolved by the block, or failed with the
block's exception (so the waiting registrations fail with it and the engine reports it), or failed with
:class:`DeferredNotResolved` when the block ended without resolving it (a program error of its own).
"""

from __future__ import annotations

import asyncio
import contextlib
import traceback
from contextlib import contextmanager
from typing import Any, Generic, Iterator, TypeVar

import pulumi

T = TypeVar("T")


class DeferredNotResolved(RuntimeError):
    """The ``with deferred_output()`` block ended without calling :meth:`Deferred.resolve`."""


class Deferred(Generic[T]):
    """An output whose value is given later: :attr:`output` now, :meth:`resolve` once its source exists."""

    def __init__(self) -> None:
        self.output: pulumi.Output[T]
        self.output, self._resolve = pulumi.deferred_output()
        self.resolved = False

    def resolve(self, source: pulumi.Input[T]) -> None:
        """Give :attr:`output` the value (and dependencies) of ``source``.

        :raises Exception: when called twice (the SDK's own check)."""
        self._resolve(pulumi.Output.from_input(source))
        self.resolved = True

    def fail(self, error: BaseException) -> None:
        """Settle :attr:`output` with ``error``: whatever waits on it fails with ``error`` instead of waiting."""
        if self.resolved:
            return
        # The SDK re-raises the failed registration with its own traceback: say where the program raised.
        frames = [f for f in traceback.extract_tb(error.__traceback__)
                  if f.filename not in (__file__, contextlib.__file__)]
        if frames and hasattr(error, "add_note"):
            error.add_note(f"raised at {frames[-1].filename}, line {frames[-1].lineno}, before the deferred output "
                           "it waits on was resolved")
        failed: asyncio.Future[Any] = asyncio.get_event_loop().create_future()
        failed.set_exception(error)
        failed.exception()  # marked retrieved: the waiting outputs raise it; no "never retrieved" log at collection
        known: asyncio.Future[bool] = asyncio.get_event_loop().create_future()
        known.set_result(False)
        self.resolve(pulumi.Output(set(), failed, known))


@contextmanager
def deferred_output() -> Iterator[Deferred[Any]]:
    """``with deferred_output() as d:`` hand ``d.output`` to what is declared first, call ``d.resolve(source)`` in
    the block once the source exists. Leaving the block by an exception fails ``d.output`` with that exception (and
    re-raises it); leaving it without resolving fails ``d.output`` and raises :class:`DeferredNotResolved`.
    Either way no registration is left waiting on a value that never comes."""
    deferred: Deferred[Any] = Deferred()
    try:
        yield deferred
    except BaseException as error:
        deferred.fail(error)
        raise
    if not deferred.resolved:
        error = DeferredNotResolved("a deferred output was not resolved before its block ended "
                                    "(call .resolve(source) inside the with block)")
        deferred.fail(error)
        raise error

