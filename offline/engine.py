"""Run the oke-rdma program under Pulumi's runtime mocks and record what the engine would see.

:class:`offline.mocks.OciMocks` answers like the OCI and Kubernetes providers do (re-exported here). With a previous
plan, :class:`offline.replacement.Planner` plans every registration against it before the mock answers.

:class:`RecordingMonitor` keeps every registration as the engine receives it — inputs and outputs in wire form
(``json_format.MessageToDict``: unknowns as the engine's sentinel, secrets wrapped), parent, dependencies,
property dependencies and options — as :class:`offline.policy_eval.EngineResource` objects the policy pack is
evaluated on.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import math
import re
import runpy
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

import pulumi
from google.protobuf import json_format
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import rpc, settings
from pulumi.runtime.proto import resource_pb2
from pulumi.runtime.sync_await import _sync_await

from offline.nesting import too_deep, truncated
from offline.mocks import (  # noqa: F401 (re-exported: the names callers import from here)
    OCID_KINDS, REGION_KEYS, STACK_REFERENCE, OciMocks, StackOutputsMissing, fake_ocid, host_address, k8s_object_id,
    stack_reference_state)
from offline.config_diff import config_changes, plan_config
from offline.engine_code import EngineCallbacks
from offline.applies import ApplyWatch, inside_apply_notes, inside_apply_now
from offline.policy_types import EngineResource
from offline.remote import expand_remote
from offline.replacement import Change, Planner
from offline.settle import run_program_func
from offline.plain_urns import plain_urns
from offline.stack_traces import without_stack_traces
from offline.transforms import Transforms
from offline.values import UNKNOWN, mask

PROJECT = "oke-rdma"
PROJECT_DIR = Path(__file__).resolve().parent.parent



def _wire_value(value: Any) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return {k: _wire_value(v) for k, v in value.struct_value.fields.items()}
    if kind == "list_value":
        return [_wire_value(v) for v in value.list_value.values]
    if kind == "number_value" and not math.isfinite(value.number_value):
        return value.number_value
    return json_format.MessageToDict(value)


def non_finite(value: Any, at: str = "") -> list[str]:
    """The property paths (``a.b[0].c``) of every NaN or infinite number in a wire-form value."""
    if isinstance(value, float) and not math.isfinite(value):
        return [at]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in non_finite(v, f"{at}.{k}" if at else k)]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in non_finite(v, f"{at}[{i}]")]
    return []


def _number_at(value: Any, path: str) -> str:
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        value = value[int(part[1:-1])] if part.startswith("[") else value[part]
    return repr(value)


def wire_dict(struct: Any) -> dict:
    """A registration's ``Struct`` in wire form (``json_format.MessageToDict``), carrying NaN and infinities as
    floats where ``MessageToDict`` refuses them: the real engine hands such a number to the packs (protobuf's binary
    form holds any double), so the offline engine does too and the rules judge it rather than the preview crashing.
    """
    return wire_dict_and_non_finite(struct)[0]


def wire_dict_and_non_finite(struct: Any) -> tuple[dict, list[str]]:
    """:func:`wire_dict` and the paths of its NaN or infinite numbers (:func:`non_finite`). ``MessageToDict``
    raises ``ValueError`` for any NaN or infinity in a ``Value`` (protobuf ``json_format``: "Fail to serialize NaN
    for Value.number_value"), so a struct it converts holds none and is not walked again: walking every
    registration's inputs was 0.39 s of the 64-pool × 200-tenant preview (docs/benchmark.md, session 12)."""
    try:
        return json_format.MessageToDict(struct), []
    except ValueError:
        value = {k: _wire_value(v) for k, v in struct.fields.items()}
        return value, non_finite(value)


class RecordingMonitor(pulumi_mocks.MockMonitor):
    """A mock resource monitor that also records each registration as the engine sees it and, given a
    :class:`offline.replacement.Planner` (``--previous``), plans each one before the mock provider answers it."""

    def __init__(self, mocks: OciMocks, planner: Optional[Planner] = None,
                 on_record: Optional[Callable[[EngineResource], None]] = None):
        super().__init__(mocks)
        self.planner = planner
        #: Called with each registration as it is recorded, in the order of :attr:`recorded` (the root stack
        #: first): :meth:`offline.streaming.AnalysisStream.submit`, so the packs judge while the program runs.
        self.on_record = on_record
        self._order = threading.Lock()  # recorded order == the order on_record sees
        #: Where relative file paths of remote components are read from (Pulumi runs a program in its directory).
        self.cwd: Optional[str] = None
        self._lock = threading.Lock()  # registrations arrive from the SDK's thread pool
        self.recorded: list[EngineResource] = []
        self.ids: dict[str, str] = {}  # URN → the id the provider returned (the engine keeps ids apart from outputs)
        self.replace_on_changes: dict[str, list[str]] = {}  # URN → properties whose change forces a replacement
        self.changes: dict[str, Change] = {}  # URN → the planned operation (with a planner)
        self.alias_urns: dict[str, list[str]] = {}  # URN → the URNs its aliases name (children inherit them)
        self.stack_urn = ""  # the root stack's URN: the parent of every top-level resource under mocks
        #: What the offline run could not see, one line per resource (a Helm chart's objects, a remote file).
        self.advisories: list[str] = []
        #: What the Kubernetes provider would refuse inside a remote component (``pulumi preview`` fails on it).
        self.errors: list[str] = []
        #: Resource and stack transforms, run as the engine runs them (:mod:`offline.transforms`).
        self.transforms = Transforms()
        #: Hooks and state migrations: program code the engine would run at deploy time, unseen by the packs
        #: (:mod:`offline.engine_code`); each registration binding one adds a line to :attr:`refusals`.
        self.callbacks = EngineCallbacks()
        self.refusals: list[str] = []
        self._k8s_namespaces: dict[str, Any] = {}  # Kubernetes provider URN → its inputs (namespace, kubeconfig)

    def RegisterStackTransform(self, request):  # noqa: N802 (gRPC method name)
        self.transforms.add_stack(request)
        return super().RegisterStackTransform(request)

    def RegisterStackInvokeTransform(self, request):  # noqa: N802 (gRPC method name)
        self.transforms.add_stack_invoke(request)
        return super().RegisterStackInvokeTransform(request)

    def GetDeploymentInfo(self, request):  # noqa: N802 (gRPC method name)
        # The engine takes state migrations (pulumi 3.272 sends them); the SDK's mock monitor does not say so, and
        # a program using them would fail with "the CLI does not support state migrations" instead of being named.
        info = super().GetDeploymentInfo(request)
        info.supportedFeatures.append(resource_pb2.RESOURCE_MONITOR_FEATURE_STATE_MIGRATIONS)
        return info

    def RegisterResourceHook(self, request):  # noqa: N802 (gRPC method name)
        self.callbacks.register_hook(request)
        return super().RegisterResourceHook(request)

    def RegisterErrorHook(self, request):  # noqa: N802 (gRPC method name)
        self.callbacks.register_hook(request)
        return super().RegisterErrorHook(request)

    def Invoke(self, request):  # noqa: N802 (gRPC method name)
        return super().Invoke(self.transforms.run_invoke(request))  # the engine transforms before the provider answers

    def RegisterResource(self, request):  # noqa: N802 (gRPC method name)
        if request.type == "pulumi:pulumi:Stack":
            response = super().RegisterResource(request)
            self.stack_urn = response.urn
            if self.on_record is not None:
                with self._order:
                    self.on_record(stack_resource(response.urn))
            return response
        request = self.transforms.run(request)  # the engine transforms before it plans, registers or analyses
        found = self.callbacks.findings(request)  # hooks bound after transforms: what the engine runs
        if found:
            with self._lock:
                self.refusals += found
        urn = self.make_urn(request.parent, request.type, request.name)
        deep = too_deep(request.object)
        if deep is not None:  # the packs (and the SDK) cannot decode it: pulumi preview fails; keep a shallow copy
            self.errors.append(f"{request.type} '{request.name}': {deep}")
            request.object.CopyFrom(truncated(request.object))
        inputs, not_finite = wire_dict_and_non_finite(request.object)
        for path in not_finite:
            self.errors.append(f"{request.type} '{request.name}': {path} is {_number_at(inputs, path)}, not a finite "
                               f"number; no provider or policy pack accepts it (protobuf's JSON form has no NaN or "
                               f"infinity): write the number")
        property_dependencies = {k: list(v.urns) for k, v in request.propertyDependencies.items()}
        dbr = request.deleteBeforeReplace if request.deleteBeforeReplaceDefined else None
        aliases = self._alias_urns(request)
        trigger = (json_format.MessageToDict(request.replacement_trigger)
                   if request.HasField("replacement_trigger") else None)
        if self.planner is not None:
            with self._lock:
                change = self.planner.decide(
                    urn, request.type, bool(request.custom), mask(inputs), property_dependencies=property_dependencies,
                    provider=request.provider or None, replace_on_changes=list(request.replaceOnChanges),
                    protect=bool(request.protect), delete_before_replace=dbr,
                    dependencies=list(request.dependencies), ignore_changes=list(request.ignoreChanges),
                    aliases=aliases, replace_with=list(request.replace_with), replacement_trigger=mask(trigger),
                    deleted_with=request.deletedWith or None)
                self.changes[urn] = change
            self.mocks._pending.value = (change, self.planner.previous(urn))
        try:
            response = super().RegisterResource(request)
        finally:
            self.mocks._pending.value = None
        outputs = wire_dict(response.object) if response.object else {}
        self.transforms.remember(response.urn, request)
        self.ids[response.urn] = response.id
        if request.replaceOnChanges:
            self.replace_on_changes[response.urn] = list(request.replaceOnChanges)
        resource = EngineResource(
            urn=response.urn, type=request.type, name=request.name, custom=bool(request.custom),
            inputs=inputs, outputs=outputs, parent=request.parent or None, dependencies=list(request.dependencies),
            property_dependencies=property_dependencies, protect=bool(request.protect),
            provider=request.provider or None, ignore_changes=list(request.ignoreChanges),
            delete_before_replace=dbr, additional_secret_outputs=list(request.additionalSecretOutputs),
            aliases=aliases, retain_on_delete=bool(request.retainOnDelete), replace_with=list(request.replace_with),
            replacement_trigger=trigger, deleted_with=request.deletedWith or None, remote=bool(request.remote))
        self._record(resource)
        # A remote component names its provider in ``providers`` (or inherits the parent's: not visible here).
        provider = resource.provider or dict(request.providers).get("kubernetes")
        children, advisories = expand_remote(resource, provider, cwd=self.cwd, errors=self.errors,
                                             remote=bool(request.remote),
                                             default_namespace=self._provider_namespace(provider))
        self.advisories += advisories
        for child in children:
            self._record_child(child)
        return response

    def _provider_namespace(self, provider: Optional[str]) -> Optional[str]:
        """The default namespace of a Kubernetes provider reference (``<urn>::<id>``) as pulumi-kubernetes resolves
        it: its ``namespace`` input, else its kubeconfig context's namespace, else ``default`` — the packs' one
        resolver (``policies.security._provider_namespace.namespace_from_inputs``). None when it cannot be told (an
        unknown or file-path kubeconfig): the children then name no namespace, and the packs, which resolve it again
        through the children's provider, fail closed on it."""
        from policies.security._provider_namespace import namespace_from_inputs
        urn = provider.rsplit("::", 1)[0] if provider and provider.count("::") > 3 else provider
        inputs = self._k8s_namespaces.get(urn or "")
        if inputs is None:
            return "default"  # the default provider: the deployer's own kubeconfig (the packs' stated assumption)
        namespace = namespace_from_inputs(inputs)
        return namespace if isinstance(namespace, str) and namespace != UNKNOWN else None

    def _alias_urns(self, request) -> list[str]:
        """The URNs a registration's aliases name, as the engine resolves them (``source_eval.go``: an alias spec's
        name, type, stack and project default to the resource's own, its parent to the resource's parent unless
        ``noParent`` or ``parentUrn``), plus the aliases it inherits from an aliased parent (its own name and type
        under each of the parent's old URNs). Recorded per URN so children can inherit them."""
        found = list(request.aliasURNs)
        own = [(request.name, request.type, request.parent)]
        for alias in request.aliases:
            if alias.urn:
                found.append(alias.urn)
                continue
            spec = alias.spec
            # no parent: a top-level resource, whose parent the mock engine records as the root stack
            parent = self.stack_urn if spec.noParent else (spec.parentUrn or request.parent)
            urn = self.make_urn(parent, spec.type or request.type, spec.name or request.name)
            if spec.stack or spec.project:
                head, _, rest = urn.partition("::")
                stack = spec.stack or head.split(":")[-1]
                urn = f"urn:pulumi:{stack}::{spec.project or rest.split('::')[0]}::" + rest.split("::", 1)[1]
            found.append(urn)
            if not spec.noParent and not spec.parentUrn:
                own.append((spec.name or request.name, spec.type or request.type, request.parent))
        for parent_alias in self.alias_urns.get(request.parent, []):
            found += [self.make_urn(parent_alias, typ, name) for name, typ, _ in own]
        found = list(dict.fromkeys(found))
        with self._lock:
            self.alias_urns[self.make_urn(request.parent, request.type, request.name)] = found
        return found

    def _record_child(self, child: EngineResource) -> None:
        """Record an object a remote component (ConfigGroup, ConfigFile) would register, planned like any other.
        The provider registers it through the engine, so the component's and the stack's transforms apply to it."""
        self.transforms.run_child(child)
        # an aliased component's children inherit its aliases (named as offline.remote names children)
        child.aliases = ["::".join([*pa.split("::")[:2], f"{pa.split('::')[2]}${child.type}", child.name])
                         for pa in self.alias_urns.get(child.parent or "", [])]
        if self.planner is not None:
            with self._lock:
                self.changes[child.urn] = self.planner.decide(child.urn, child.type, True, mask(child.inputs),
                                                              property_dependencies={}, provider=child.provider,
                                                              aliases=child.aliases)
        self.ids[child.urn] = "" if child.urn in self.changes and self.changes[child.urn].op in (
            "create", "replace") else k8s_object_id(child.inputs, child.name)
        child.outputs = dict(child.inputs)
        self._record(child)

    def _record(self, resource: EngineResource) -> None:
        if resource.type == "pulumi:providers:kubernetes":
            self._k8s_namespaces[resource.urn] = resource.inputs
        with self._order:
            self.recorded.append(resource)
            if self.on_record is not None:
                self.on_record(resource)


def stack_resource(urn: str, outputs: Optional[dict[str, Any]] = None) -> EngineResource:
    """The root ``pulumi:pulumi:Stack`` as the engine analyses it: no inputs; its outputs are the stack outputs."""
    return EngineResource(urn=urn, type="pulumi:pulumi:Stack", name=urn.rsplit("::", 1)[1], custom=False, inputs={},
                          outputs=dict(outputs or {}))


def topological(resources: list[EngineResource]) -> list[EngineResource]:
    """``resources`` ordered so that each comes after its parent, dependencies, property dependencies and provider
    (those it holds), ties broken by URN (Kahn's algorithm with a heap)."""
    by_urn = {r.urn: r for r in resources}
    needs: dict[str, set[str]] = {}
    for r in resources:
        deps = {r.parent, *r.dependencies, *(u for us in r.property_dependencies.values() for u in us),
                r.provider.rsplit("::", 1)[0] if r.provider else None}
        needs[r.urn] = {d for d in deps if d in by_urn and d != r.urn}
    users: dict[str, list[str]] = {}
    for urn, deps in needs.items():
        for d in deps:
            users.setdefault(d, []).append(urn)
    ready = [urn for urn, deps in needs.items() if not deps]
    heapq.heapify(ready)
    out: list[EngineResource] = []
    while ready:
        urn = heapq.heappop(ready)
        out.append(by_urn[urn])
        for user in users.get(urn, []):
            needs[user].discard(urn)
            if not needs[user]:
                heapq.heappush(ready, user)
    if len(out) < len(resources):  # a cycle (the engine refuses one): the rest by URN, nothing dropped
        done = {r.urn for r in out}
        out += sorted((r for r in resources if r.urn not in done), key=lambda r: r.urn)
    return out


@dataclass
class ProgramRun:
    """What one run of the program declared: resources in registration order and the stack outputs (wire form)."""

    resources: list[EngineResource]
    outputs: dict[str, Any]
    stack_urn: str
    ids: dict[str, str]
    replace_on_changes: dict[str, list[str]]
    mocks: OciMocks = field(repr=False)
    #: The plan against ``previous`` (registration order, then the deletions), or None without a previous plan.
    changes: Optional[list[Change]] = None
    #: What the offline run could not check, one line per resource (see :mod:`offline.remote`).
    advisories: list[str] = field(default_factory=list)
    #: What a provider would refuse while registering (a remote component's invalid object): ``pulumi preview`` fails.
    errors: list[str] = field(default_factory=list)
    #: Program code the engine would run at deploy time that no pack is shown — resource hooks, error hooks, state
    #: migrations —, one line per resource naming it (:mod:`offline.engine_code`): refused, exit 1.
    refusals: list[str] = field(default_factory=list)
    #: The URNs of the resources registered inside an ``Output.apply`` callback (:mod:`offline.applies`).
    inside_apply: list[str] = field(default_factory=list)
    #: What the program logged (``pulumi.log.info/warn/error``), as (severity, message), in order: the
    #: "Diagnostics" of ``pulumi preview``.
    diagnostics: list[tuple[str, str]] = field(default_factory=list)
    #: The stack config this run read, as a plan records it (:func:`offline.config_diff.plan_config`: secret keys
    #: ``[secret]``).
    config: dict[str, Any] = field(default_factory=dict)
    #: With a previous plan: ``(path, old, new)`` of each config leaf that changed since it
    #: (:func:`offline.config_diff.config_changes`); None without a previous plan or when it records no config.
    config_changed: Optional[list[tuple[str, Any, Any]]] = None

    @property
    def warnings(self) -> list[str]:
        """The messages logged with ``pulumi.log.warn`` (the warnings ``pulumi preview`` prints), in order."""
        return [message for severity, message in self.diagnostics if severity == "warning"]

    def analyzed_resources(self) -> list[EngineResource]:
        """What the engine analyses: the root ``pulumi:pulumi:Stack`` (no inputs; its outputs are the stack outputs)
        followed by every recorded registration. Pass this to :func:`offline.policy_eval.evaluate`."""
        return [stack_resource(self.stack_urn, self.outputs), *self.resources]


class _DiagnosticsHandler(logging.Handler):
    """Collects the messages the mock engine logs (``pulumi.log``) as (severity, message, resource URN or "")."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[tuple[str, str, str, bool]] = []  # (severity, message, urn, logged inside an apply)

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.levelname.lower(), record.getMessage(), getattr(record, "urn", ""),
                             inside_apply_now()))

    def in_order(self, registered: Sequence[EngineResource]) -> list[tuple[str, str]]:
        """(severity, message) in an order that does not depend on the SDK's threads or the hash seed: the messages
        of no resource the program logged itself first, as logged; then those it logged from ``apply`` callbacks,
        by severity and text (a callback runs when its outputs resolve, in whatever order the registrations are
        answered); then each resource's messages in the order of ``registered``: the plan's order
        (:func:`topological`), not the order the registrations arrived in, which follows the SDK's threads too
        (``pulumi.log`` sends a resource's message only once its URN resolves)."""
        position = {r.urn: i for i, r in enumerate(registered)}

        def key(item: tuple[int, tuple[str, str, str, bool]]) -> tuple:
            index, (severity, message, urn, in_apply) = item
            if urn:
                return 2, position.get(urn, len(position)), index
            return (1, severity, message) if in_apply else (0, index)
        ordered = sorted(enumerate(self.records), key=key)
        return [(severity, message) for _, (severity, message, _, _) in ordered]


class _UrnEngine:
    """The mock engine's ``Log`` (``pulumi.runtime.mocks.MockEngine``), passing each message's resource URN to the
    logger (``record.urn``) so that :class:`_DiagnosticsHandler` can order them."""

    _LEVELS = {0: logging.DEBUG, 1: logging.INFO, 2: logging.WARNING, 3: logging.ERROR}  # engine_pb2.LogSeverity

    def __init__(self, logger: logging.Logger) -> None:
        self.logger = logger

    def Log(self, request: Any) -> None:  # noqa: N802 - the engine's RPC name
        self.logger.log(self._LEVELS.get(request.severity, logging.INFO), request.message,
                        extra={"urn": request.urn})


async def _flush_resource_logs(timeout: float = 10.0) -> None:
    """Wait for the messages ``pulumi.log`` sends for a resource: each is a task that first awaits the resource's
    URN (``pulumi.log._log``'s ``do_log``), and ``run_pulumi_func`` does not wait for those tasks, so a run could end
    before the message is sent and lose it. ``timeout`` (s) bounds the wait when a URN never resolves."""
    pending = [t for t in asyncio.all_tasks() if not t.done()
               and getattr(t.get_coro(), "__qualname__", "").endswith("_log.<locals>.do_log")]
    if pending:
        await asyncio.wait(pending, timeout=timeout)


def _quiet_loop_exception(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    error = context.get("exception")
    logging.getLogger("offline.engine.loop").debug("%s%s", context.get("message", ""),
                                                   f": {type(error).__name__}: {error}" if error else "")


class _RunsExecutor(ThreadPoolExecutor):
    """The thread pool every run's event loop hands the SDK's monitor calls to (``run_in_executor(None, ...)``): one
    for the process, so a run does not start its own threads again (a fresh loop's default pool starts up to six,
    about 6 ms of a small program's 20 ms). A loop's ``close`` shuts its default executor down; this one outlives
    the loops (the interpreter still joins its idle threads at exit)."""

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Kept running: the next run's loop uses it."""


_RUNS_EXECUTOR = _RunsExecutor(thread_name_prefix="offline-engine")


def run_program(config: dict[str, str], secret_keys: list[str], stack: str, *, unknowns: bool = False,
                program: Union[Path, Callable[[], None]] = PROJECT_DIR / "__main__.py",
                stack_outputs: Optional[dict[str, dict[str, Any]]] = None, project: str = PROJECT,
                previous: Optional[dict] = None,
                on_record: Optional[Callable[[EngineResource], None]] = None) -> ProgramRun:
    """Run ``program`` (a Pulumi program file, or a function declaring resources) under mocks with the given raw
    stack config and return what it registered.

    :param config: raw Pulumi config (``{"oke-rdma:network": "<json>", "oci:region": "sa-saopaulo-1"}``).
    :param secret_keys: the config keys that hold secrets.
    :param unknowns: first-preview mode (preview with every computed value unknown); otherwise an update-like run
        where every apply callback runs.
    :param stack_outputs: the outputs of the stacks the program reads through ``pulumi.StackReference``, by stack
        name (``{"organization/oke-rdma/dev": {"vcnId": "ocid1.vcn...", ...}}``); wire-form secrets in them come
        back to the program as secret outputs (:func:`stack_reference_state`).
    :param project: the Pulumi project the program belongs to (``pulumi.get_project()``, the default namespace of
        ``pulumi.Config()``, the stack URN): another project's name when ``program`` is another project's.
    :param previous: a ``--json`` plan of an earlier run: the state this run starts from. Every registration is
        planned against it (:class:`offline.replacement.Planner`): created and replaced resources have unknown ids
        and computed outputs, existing ones keep their ids, and lookups (``getMountTargets``) find what it holds.
    :param on_record: called with each registration as it is recorded (the root stack first, then in the order
        of :attr:`ProgramRun.resources`), from the SDK's threads: e.g.
        :meth:`offline.streaming.AnalysisStream.submit`, so the policy packs judge while the program runs.
    :raises oke_rdma.config.ConfigError: when the configuration is invalid (nothing is registered then).
    :raises ValueError: when ``previous`` is not shaped like a plan.
    :raises StackOutputsMissing: when the program references a stack not in ``stack_outputs``.
    :raises pulumi.RunError: when the program stops itself with a message (e.g. a consumer refusing its input).
    :raises BaseException: the program's own exception; when registrations were left waiting on outputs nothing
        will resolve, within seconds and with a note that ``pulumi preview`` would hang (:mod:`offline.settle`).
    """
    # A fresh loop per run (callers may have closed theirs); the last run's loop is closed first: an open loop keeps
    # its selector, self-pipe and the SDK's sockets (about 20 descriptors), and a test session that runs the program
    # a thousand times ran out of file descriptors (EMFILE).
    try:
        last = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        last = None
    loop = asyncio.new_event_loop()
    loop.set_default_executor(_RUNS_EXECUTOR)
    # What a loop reports when the garbage collector finds a task or future it never awaited (after a program that
    # raised, or one offline.settle gave up): logged as one line, without formatting the exception's traceback —
    # Python 3.11's traceback formatting parses source with ast, and from a finalizer that runs inside another
    # ast.parse it fails that parse ("AST constructor recursion depth mismatch").
    loop.set_exception_handler(_quiet_loop_exception)
    asyncio.set_event_loop(loop)
    if last is not None and not last.is_running() and not last.is_closed():
        last.close()
    settings.ROOT.set(None)
    pulumi.runtime.set_all_config(dict(config), list(secret_keys))
    planner = Planner(previous) if previous is not None else None
    mocks = OciMocks(config.get("oci:region", "unknown-region-1"), unknowns=unknowns, stack_outputs=stack_outputs,
                     previous=previous)
    monitor = RecordingMonitor(mocks, planner, on_record)
    monitor.cwd = None if callable(program) else str(Path(program).resolve().parent)
    diagnostics = _DiagnosticsHandler()
    logger = logging.getLogger("offline.engine.diagnostics")  # one logger; this run's handler replaces the last one
    logger.propagate, logger.level = False, logging.INFO
    for old in list(logger.handlers):
        logger.removeHandler(old)
    logger.addHandler(diagnostics)
    pulumi.runtime.set_mocks(mocks, project=project, stack=stack, preview=unknowns, monitor=monitor, logger=logger)
    settings.SETTINGS.engine = _UrnEngine(logger)
    # A run that stopped with an exception (a ConfigError, a RunError inside an apply) leaves its pending RPCs and
    # output tasks behind, bound to its closed event loop; this run would wait for them forever.
    settings._get_rpc_manager().clear()
    with settings.SETTINGS.lock:
        settings.SETTINGS.outputs.clear()
    if str(PROJECT_DIR) not in sys.path:
        sys.path.insert(0, str(PROJECT_DIR))
    body = program if callable(program) else (lambda: runpy.run_path(str(program), run_name="__main__"))
    # what a first pulumi preview may not register (offline.applies); no source positions (offline.stack_traces);
    # URNs of plain strings without output chains (offline.plain_urns)
    with ApplyWatch() as watch, without_stack_traces(), plain_urns():
        _sync_await(run_program_func(body))  # run_pulumi_func, but a program exception never hangs the run
    _sync_await(_flush_resource_logs())
    inside_apply = watch.urns()
    root = settings.get_root_resource()
    outputs = _sync_await(rpc.serialize_properties(dict(root.outputs), {}))
    recorded_config = plan_config(config, secret_keys)
    return ProgramRun(config=recorded_config,
                      config_changed=None if previous is None else config_changes(previous, recorded_config, project),
                      resources=monitor.recorded, outputs=json_format.MessageToDict(outputs), ids=monitor.ids,
                      replace_on_changes=monitor.replace_on_changes,
                      stack_urn=f"urn:pulumi:{stack}::{project}::pulumi:pulumi:Stack::{project}-{stack}", mocks=mocks,
                      diagnostics=diagnostics.in_order(topological(monitor.recorded)),
                      advisories=list(monitor.advisories) + list(mocks.advisories) + (
                          [] if unknowns else inside_apply_notes(inside_apply)), errors=list(monitor.errors),
                      refusals=list(monitor.refusals), inside_apply=inside_apply,
                      changes=None if planner is None else [
                          *(monitor.changes[r.urn] for r in topological(monitor.recorded)),
                          *planner.deletions(r.urn for r in monitor.recorded)])


def skipped_on_first_preview(first: ProgramRun, config: dict[str, str], secret_keys: list[str], stack: str,
                             **kwargs: Any) -> list[str]:
    """What an ``unknowns`` run (``first``) did not register because it is created inside an apply callback whose
    value was unknown: the program is run again update-like (no policy packs) with the same arguments
    (``kwargs``: ``program``, ``stack_outputs``, ``project``, ``previous``) and its apply-made resources missing from
    ``first`` are named, one advisory each (:func:`offline.applies.skipped_notes`). The second run's own failures
    are not reported (the first run's are)."""
    from offline.applies import skipped_notes

    try:
        again = run_program(config, secret_keys, stack, unknowns=False, **kwargs)
    except Exception:  # noqa: BLE001 (e.g. a program that only fails with known values: the first run stands)
        return []
    return skipped_notes((r.urn for r in first.resources), again.inside_apply)
