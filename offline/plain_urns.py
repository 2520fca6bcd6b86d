"""The offline engine computes the SDK's URNs from plain strings without building a chain of outputs for each.

For every ``register_resource`` and ``read_resource`` the Python SDK computes a "mock URN"
(``create_urn(name, ty, resolver.parent_urn)`` in ``pulumi/runtime/resource.py``, pulumi 3.272.0, read
2026-12-02), which it uses only when no resource monitor exists; the offline engine always has one
(:class:`offline.engine.RecordingMonitor`), so the value is thrown away. ``create_urn`` builds it as outputs:
``Output.from_input`` of the parent or of the stack's prefix, an ``apply`` on it, ``Output.all`` of the three parts
and another ``apply`` — four outputs, their tasks and futures — and on the dev stack that was 23 % of the program's
run (py-spy, ``--gil``, ten runs of the dev program in one process). Aliases use the same function
(``all_aliases``, ``inherited_child_alias``).

:func:`plain_urns` replaces ``create_urn``, for one program run, with one that gives the **same value** straight
from the strings when every part is a plain string (the name, the type, the parent's URN or nothing, the project
and the stack): a known, non-secret output with no resources — what the SDK's own chain resolves to for such
inputs. Anything else (a parent given as a resource or an output, an output name) goes to the SDK's function.
``tests/offline/test_plain_urns.py`` compares both on every shape the SDK passes.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Iterator, Optional

from pulumi.output import Output, _OutputData
from pulumi.runtime import resource as _sdk_resource
from pulumi.runtime import settings


def _known(value: str) -> Output:
    """A known, non-secret output of ``value`` that depends on no resource."""
    future = asyncio.get_event_loop().create_future()
    future.set_result(_OutputData(resources=set(), value=value, is_known=True, is_secret=False))
    return Output._from_data(future)


def plain_urn(name: Any, type_: Any, parent: Any = None, project: Optional[str] = None,
              stack: Optional[str] = None) -> Optional[str]:
    """The URN ``create_urn`` resolves to when every part is a plain string (``parent``: a URN, or None for a
    resource at the stack's root); None when a part is anything else (the SDK's function must compute it)."""
    if not (isinstance(name, str) and isinstance(type_, str)):
        return None
    if parent is not None:
        if not isinstance(parent, str):
            return None
        return parent[0:parent.rfind("::")] + "$" + type_ + "::" + name
    stack = settings.get_stack() if stack is None else stack
    project = settings.get_project() if project is None else project
    if not (isinstance(stack, str) and isinstance(project, str)):
        return None
    return "urn:pulumi:" + stack + "::" + project + "::" + type_ + "::" + name


@contextlib.contextmanager
def plain_urns() -> Iterator[None]:
    """While entered, the SDK's ``create_urn`` returns a resolved output for plain-string parts (same value)."""
    sdk = getattr(_sdk_resource, "create_urn", None)
    if sdk is None:
        yield
        return

    def create_urn(name: Any, type_: Any, parent: Any = None, project: Optional[str] = None,
                   stack: Optional[str] = None) -> Output:
        value = plain_urn(name, type_, parent, project, stack)
        return sdk(name, type_, parent, project, stack) if value is None else _known(value)

    _sdk_resource.create_urn = create_urn
    try:
        yield
    finally:
        _sdk_resource.create_urn = sdk
