"""The offline engine skips the source positions the Pulumi SDK computes for every resource; nothing here reads them.

For every ``register_resource`` and ``read_resource`` the Python SDK calls ``_get_stack_trace()``
(``pulumi/runtime/resource.py``, pulumi 3.272.0, read 2026-12-02): ``traceback.extract_stack()`` of the whole call
stack (some 60 frames under asyncio, each with its source line read), then a ``pathlib`` URI per frame, sent to the
engine as ``stackTrace`` and ``sourcePosition`` so that ``pulumi`` can say where a resource was declared. The
offline engine (:class:`offline.engine.RecordingMonitor`) never reads either field — neither the plan, the report nor
the policy packs carry them — and on the 64-pool × 200-tenant benchmark stack the stack traces were about 9 % of the
preview process's time (docs/benchmark.md). :func:`without_stack_traces` replaces the function, for one program run,
with one that returns the empty ``StackTrace`` the SDK itself sends when it finds no user frame.

It relies on an internal of the SDK, so it is pinned: :data:`SDK_CALLS` names the functions that must call
``_get_stack_trace`` by that name; :func:`check` (and ``tests/offline/test_stack_traces.py``) fails the day they no
longer do — then the replacement would do nothing but the SDK would still work, only slower.
"""

from __future__ import annotations

import contextlib
import inspect
from typing import Iterator

from pulumi.runtime import resource as _sdk_resource
from pulumi.runtime.proto import source_pb2

#: The SDK functions that call ``_get_stack_trace()`` by its module-level name (what the replacement intercepts).
SDK_CALLS = ("register_resource", "read_resource")
_EMPTY = source_pb2.StackTrace()


def _no_stack_trace() -> source_pb2.StackTrace:
    """What the SDK sends when it finds no user frame: an empty ``StackTrace`` (so no ``sourcePosition``)."""
    return _EMPTY


def check() -> list[str]:
    """What no longer holds of the SDK's internals the replacement relies on (empty when all holds)."""
    problems = []
    if not callable(getattr(_sdk_resource, "_get_stack_trace", None)):
        problems.append("pulumi.runtime.resource._get_stack_trace is gone")
    for name in SDK_CALLS:
        function = getattr(_sdk_resource, name, None)
        try:
            source = inspect.getsource(function) if function is not None else ""
        except (OSError, TypeError):
            source = ""
        if "_get_stack_trace()" not in source:
            problems.append(f"pulumi.runtime.resource.{name} no longer calls _get_stack_trace()")
    return problems


@contextlib.contextmanager
def without_stack_traces() -> Iterator[None]:
    """While entered, the SDK registers resources without computing their stack traces and source positions."""
    saved = getattr(_sdk_resource, "_get_stack_trace", None)
    if saved is None:
        yield
        return
    _sdk_resource._get_stack_trace = _no_stack_trace
    try:
        yield
    finally:
        _sdk_resource._get_stack_trace = saved
