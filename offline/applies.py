"""Resources a program registers inside an ``apply`` callback: what a first ``pulumi preview`` never sees.

The Python SDK runs an ``Output.apply`` callback only when the value is known, or during an update
(``Output.apply`` in ``pulumi/output.py``: "may not run when the values of the resource is unknown"; its docstring
also warns that the callback "should not be used to create resources", pulumi 3.x, checked 2026-12-02). A resource
created inside one — ``cluster.id.apply(lambda i: k8s.core.v1.Namespace(...))`` — is therefore registered on a
stack's first preview only when the callback's value is known then; while it is unknown (a cluster not created yet),
the engine never sees the resource and no policy pack judges it. The offline preview's default run is update-like
(every callback runs), so it judges such a resource where ``pulumi preview`` cannot.

:class:`ApplyWatch` marks every registration made while an apply callback runs (the callback's context, which the
SDK's registration inherits); :func:`inside_apply_notes` names them in the report's "Not checked" advisories. With
``--unknowns`` the callbacks whose value is unknown do not run, so those resources are absent: :func:`skipped_notes`
names them by comparing with an update-like run of the same program (:func:`offline.engine.run_program`).
"""
from __future__ import annotations

import contextvars
import functools
import inspect
from typing import Any, Iterable

import pulumi
import pulumi.resource as _resource_module
from pulumi.runtime.sync_await import _sync_await

_INSIDE: contextvars.ContextVar[bool] = contextvars.ContextVar("okerdma_inside_apply", default=False)


def inside_apply_now() -> bool:
    """Whether the caller runs inside an ``Output.apply`` callback (while an :class:`ApplyWatch` is entered)."""
    return _INSIDE.get()


class ApplyWatch:
    """While entered, records the resources registered inside ``Output.apply`` callbacks (:attr:`resources`, the
    SDK's resource objects); :meth:`urns` gives their URNs once the program has run."""

    def __init__(self) -> None:
        self.resources: list[Any] = []
        self._saved: tuple = ()

    def __enter__(self) -> "ApplyWatch":
        apply, register = pulumi.Output.apply, _resource_module.register_resource
        self._saved = (apply, register)

        @functools.wraps(apply)
        def watched_apply(output, func, run_with_unknowns: bool = False):
            def inside(value):  # (not functools.wraps: copying func's attributes cost 5 % of a program's run)
                token = _INSIDE.set(True)
                try:
                    result = func(value)
                finally:
                    _INSIDE.reset(token)
                if inspect.isawaitable(result):  # an async callback runs when the SDK awaits it
                    async def awaited():
                        token = _INSIDE.set(True)
                        try:
                            return await result
                        finally:
                            _INSIDE.reset(token)
                    return awaited()
                return result
            return apply(output, inside, run_with_unknowns)

        @functools.wraps(register)
        def watched_register(res, *args, **kwargs):
            if _INSIDE.get():
                self.resources.append(res)
            return register(res, *args, **kwargs)

        pulumi.Output.apply = watched_apply  # type: ignore[method-assign]
        _resource_module.register_resource = watched_register
        return self

    def __exit__(self, *exc: Any) -> None:
        pulumi.Output.apply, _resource_module.register_resource = self._saved  # type: ignore[method-assign]

    def urns(self) -> list[str]:
        """The URNs of the resources registered inside apply callbacks, in registration order (after the run)."""
        found = []
        for res in self.resources:
            try:
                urn = _sync_await(res.urn.future())
            except Exception:  # noqa: BLE001 (a registration that failed has no URN: nothing to name)
                continue
            if isinstance(urn, str) and urn:
                found.append(urn)
        return list(dict.fromkeys(found))


def _named(urn: str) -> str:
    parts = urn.split("::")
    return f"{parts[2].split('$')[-1]} {parts[3]}" if len(parts) > 3 else urn


def inside_apply_notes(urns: Iterable[str]) -> list[str]:
    """One advisory per resource registered inside an apply callback in an update-like run."""
    return [f"{_named(u)}: created inside an apply callback, so pulumi preview registers it (and the policy packs "
            "judge it) only when the value the callback waits for is known; on a stack's first preview, while that "
            "value is unknown, the packs do not see it (--unknowns names what they miss)" for u in urns]


def skipped_notes(first_preview: Iterable[str], update_like: Iterable[str]) -> list[str]:
    """One advisory per resource an update-like run registered inside an apply callback that a first-preview run
    (``first_preview``: the URNs it registered) did not register."""
    registered = set(first_preview)
    return [f"{_named(u)}: not registered on this preview and not judged by the policy packs: the program creates it "
            "inside an apply callback whose value is unknown until the stack is up (pulumi preview does not see it "
            "either; it is judged once the value is known)" for u in update_like if u not in registered]
