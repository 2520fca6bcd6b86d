"""Program code the Pulumi engine calls back at deploy time, which no policy pack can see: refused, by name.

A Pulumi program can hand the engine functions to call later, through the SDK's callback server
(``pulumi/runtime/_callbacks.py``). Some of them change what the engine registers and are judged by effect: resource,
stack and invoke transforms run before the engine registers or invokes, and the offline engine runs them
(:mod:`offline.transforms`), so the packs judge their result. The others run the program's own code beside the
deployment, with the deployer's credentials, and change nothing the packs are shown:

* **resource hooks** (``pulumi.ResourceHook`` bound through ``ResourceOptions(hooks=ResourceHookBinding(...))``, or
  a plain function there, which the SDK names ``<type>_<name>_<kind>_<i>``): ``before_create``, ``after_create``,
  ``before_update``, ``after_update``, ``before_delete``, ``after_delete``; one with
  ``ResourceHookOptions(on_dry_run=True)`` also runs during ``pulumi preview``;
* **error hooks** (``pulumi.ErrorHook`` in ``ResourceHookBinding(on_error=...)``): run when a create, update or
  delete fails, and may retry it;
* **state migrations** (``ResourceOptions(state_migrations=[...])``): rewrite the prior state the engine diffs
  against, during previews and updates alike — what the plan says changes (a replacement, a protected delete) is then
  decided by the program's code.

The analyzer protocol carries none of them (``AnalyzerResource`` and ``AnalyzerResourceOptions`` of
``pulumi/proto/analyzer.proto``: type, properties, URN, name, protect, ignoreChanges, deleteBeforeReplace,
additionalSecretOutputs, aliases, customTimeouts, parent — no hooks, no migrations), so ``pulumi preview`` with the
packs passes them silently, as it does dynamic providers (which the catalogue refuses: "runs the program's own code
... with the program's credentials"). The offline preview sees the registration itself: :func:`findings` names every
such callback of a registration as the engine receives it — after transforms, which can add or remove hooks
(``TransformResourceOptions.hooks``) — one line per resource, naming its type and name, each hook's kind and name,
and the fix. Sources: pulumi 3.272.0 Python SDK ``resource_hooks.py``, ``runtime/resource.py``
(``_prepare_resource_hooks``, ``state_migrations``), ``runtime/proto/resource_pb2`` (read 2026-12-02).
"""
from __future__ import annotations

import threading

#: The kinds of resource hook a binding holds (``RegisterResourceRequest.ResourceHooksBinding``), in the order the
#: SDK sends them, with when the engine runs each.
HOOK_KINDS = {
    "before_create": "before it creates the resource",
    "after_create": "after it creates the resource",
    "before_update": "before it updates the resource",
    "after_update": "after it updates the resource",
    "before_delete": "before it deletes the resource",
    "after_delete": "after it deletes the resource",
    "on_error": "when a create, update or delete of the resource fails (and retries it when the hook says so)",
}


class EngineCallbacks:
    """The hooks a program registered (``RegisterResourceHook``, ``RegisterErrorHook``), by name, with whether each
    also runs during ``pulumi preview``; and what each registration binds. Thread-safe: registrations arrive from
    the SDK's thread pool."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._dry_run: dict[str, bool] = {}

    def register_hook(self, request) -> None:
        """Remember a ``RegisterResourceHookRequest`` or ``RegisterErrorHookRequest`` (error hooks never run on a
        dry run)."""
        with self._lock:
            self._dry_run[request.name] = bool(getattr(request, "on_dry_run", False))

    def findings(self, request) -> list[str]:
        """What of ``request`` (a ``RegisterResourceRequest`` as the engine registers it) runs the program's code at
        deploy time unseen by the packs: one line naming the resource, every hook by kind and name, and the state
        migrations; empty when it binds none."""
        parts = []
        binding = request.hooks if request.HasField("hooks") else None
        for kind in HOOK_KINDS:
            for name in (getattr(binding, kind) if binding is not None else []):
                with self._lock:
                    dry = self._dry_run.get(name, False)
                parts.append(f"{kind} hook '{name}'" + (" (on_dry_run: pulumi preview runs it too)" if dry else ""))
        if request.state_migrations:
            count = len(request.state_migrations)
            parts.append(f"{count} state migration{'s' if count != 1 else ''} (the program rewrites the prior state "
                         "the engine diffs against)")
        if not parts:
            return []
        return [f"{request.type} '{request.name}': {', '.join(parts)}: the engine runs the program's own code at "
                "deploy time with the deployer's credentials, and no policy pack is shown it or what it does; remove "
                "it from the resource's options (declare what it would do as resources the packs judge)"]
