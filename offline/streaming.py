"""Policy packs judged while the program runs: every registration goes to each pack's analyzer server as it is
recorded, the way the Pulumi engine sends it.

The engine calls ``Analyze`` from its step generator for each ``RegisterResource`` event, before it plans the
resource's steps — "Send the resource off to any Analyzers before being operated on" (pulumi/pulumi
``pkg/resource/deploy/step_generator.go`` ``generateSteps``, read 2026-12-01) — and ``AnalyzeStack`` once the program
has finished. :class:`AnalysisStream` does the same: :meth:`~AnalysisStream.submit` is called by the offline engine
(:class:`offline.engine.RecordingMonitor`) for each registration in the order it records them, and one thread per
pack sends that pack's calls in the engine's order (``Handshake``, ``GetAnalyzerInfo``, ``Configure``,
``ConfigureStack``, then ``Analyze`` per resource), so the servers, separate processes, judge on the machine's other
cores while the program keeps registering. One difference from the engine, in timing only: up to
:data:`IN_FLIGHT` ``Analyze`` calls are sent before the oldest answer is awaited, where the engine waits for each;
the requests and the answers, read back in registration order, are the same. :meth:`~AnalysisStream.finish` sends ``AnalyzeStack``
with every resource's outputs and returns the same report as judging the finished resource list would
(:func:`offline.analyzer.analyze`): a registration whose ``Analyze`` request could differ from the one built from
the finished list (another URN at that position, a provider recorded only later) is analysed again there.

Errors keep the order of a sequential evaluation: a pack that did not start (in pack order), then invalid policy
config (every pack's lines), then a failed call (the first pack's). :meth:`~AnalysisStream.close` stops the
threads (a preview whose program failed never calls :meth:`~AnalysisStream.finish`).
"""
from __future__ import annotations

import queue
import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

from offline.policy_config import PolicyConfigError, policy_config_warnings, resolve_policy_config
from offline.analyzer import PolicyPackError, analyze_request, configure, describe, findings, stack_request_bytes
from offline.policy_types import EngineResource, PackInfo, PolicyReport, pack_version

_STOP = object()

#: How many ``Analyze`` calls one pack has in flight at most. The engine sends a pack one registration's call at a
#: time (its step generator handles events one by one); here each call and each answer needs the GIL, which the
#: program's busy main thread hands over at most every switch interval (1 ms, :mod:`offline.preview`), and gRPC's
#: completion thread needs it too. With 4 in flight (pulumi-policy's pool: ``futures.ThreadPoolExecutor(max_workers=4)``
#: in ``policy.py``, 1.21.0) a pack thread got one batch of 4 through per few hand-offs, and on the 64-pool ×
#: 200-tenant stack fewer than half of the 2 107 registrations had been answered when the program ended
#: (2026-12-02, session 11: ``Analyze`` answers by time against submissions). With 64, a pack thread sends
#: what has queued up whenever it runs, the server queues them for its pool, and the backlog at the program's end
#: drains in about 0.6 s instead of 1.4 s. ``Analyze`` keeps no state between calls; the answers are the same, read
#: back in registration order.
IN_FLIGHT = 64


@dataclass
class _Finish:
    """The last item of a pack's queue: the finished resource list (the stack first) and its ``AnalyzeStack``
    request, serialized (the same for every pack: built once)."""

    resources: Sequence[EngineResource]
    stack_request: bytes


class _Registration:
    """One registration queued to every pack, with its ``Analyze`` request: the packs' threads take the
    registrations in the same order, so at this one each has seen the same ones before it and would build the same
    request; the first thread to get here builds it (or meets the error building it raises) and the others send
    that (a protobuf message is only read once built)."""

    __slots__ = ("resource", "_built")

    def __init__(self, resource: EngineResource):
        self.resource = resource
        self._built: Optional[tuple[bool, Any]] = None  # (built, the request or the error raised)

    def request(self, by_urn: Mapping[str, EngineResource], providers: dict, lock: threading.Lock) -> Any:
        """The ``AnalyzeRequest`` (:func:`offline.analyzer.analyze_request` with ``by_urn`` and the stream's cache
        of provider messages), built once. :raises: what building it raised, in every thread that asks."""
        with lock:
            if self._built is None:
                try:
                    self._built = (True, analyze_request(self.resource, by_urn, providers))
                except Exception as e:  # noqa: BLE001 (raised again in each pack's thread, as before)
                    self._built = (False, e)
        built, value = self._built
        if not built:
            raise value
        return value


@dataclass
class _Sent:
    """One streamed ``Analyze``: the registration, its response, and whether its provider was already known."""

    resource: EngineResource
    response: Any
    provider_known: bool


@dataclass
class _Pack:
    """One pack's side of the stream: its thread, queue and what came back."""

    process: Any  # offline.analyzer.AnalyzerProcess
    path: Path
    config: Optional[Mapping[str, Any]]
    queue: "queue.SimpleQueue[Any]" = field(default_factory=queue.SimpleQueue)
    thread: Optional[threading.Thread] = None
    session: Any = None  # offline.analyzer.PackSession once described
    start_error: Optional[BaseException] = None  # the pack did not start (describe failed)
    config_problems: list[str] = field(default_factory=list)
    error: Optional[BaseException] = None  # a later call failed
    sent: list[_Sent] = field(default_factory=list)
    report: Optional[PolicyReport] = None


class AnalysisStream:
    """Each pack's conversation with its analyzer server, fed registration by registration.

    :param analyzers: started servers, one per pack (:func:`offline.analyzer.start_analyzers`), in pack order.
    :param packs: the pack directories.
    :param policy_configs: none, or one ``--policy-pack-config`` content per pack.
    """

    def __init__(self, analyzers: Any, packs: Sequence[Union[str, Path]],
                 policy_configs: Sequence[Optional[Mapping[str, Any]]] = (), stack: str = "", project: str = "",
                 stack_tags: Optional[Mapping[str, str]] = None):
        if len(analyzers.processes) != len(packs):
            raise ValueError(f"{len(analyzers.processes)} analyzers started for {len(packs)} packs")
        self._stack, self._project, self._tags = stack, project, dict(stack_tags or {})
        self._packs = [_Pack(process, Path(path), policy_configs[index] if policy_configs else None)
                       for index, (path, process) in enumerate(zip(packs, analyzers.processes))]
        self._analyzers = analyzers
        self._closed = False
        self._requests = threading.Lock()  # held while a pack's thread builds a registration's shared request
        # provider URN → (its registration, its message): offline.analyzer_requests._provider
        self._providers: dict = {}
        for pack in self._packs:
            pack.thread = threading.Thread(target=self._converse, args=(pack,), daemon=True,
                                           name=f"analyze-{pack.path.name}")
            pack.thread.start()

    def submit(self, resource: EngineResource) -> None:
        """Queue ``resource``'s ``Analyze`` on every pack (non-blocking; call in registration order)."""
        registration = _Registration(resource)
        for pack in self._packs:
            pack.queue.put(registration)

    def _converse(self, pack: _Pack) -> None:
        try:
            pack.session = self._describe(pack)
        except BaseException as e:  # noqa: BLE001 (reported by finish, in pack order)
            pack.start_error = e
            return
        try:
            resolved = resolve_policy_config(pack.session.specs, pack.config)
        except PolicyConfigError as e:
            pack.config_problems = list(e.problems)
            return
        try:
            configure(pack.session, resolved, self._stack, self._project, self._tags)
            by_urn: dict[str, EngineResource] = {}
            in_flight: deque[tuple[EngineResource, Any, bool]] = deque()
            while True:
                item = pack.queue.get()
                if item is _STOP or self._closed:
                    return
                if isinstance(item, _Finish):
                    while in_flight:
                        _collect(pack, in_flight)
                    pack.report = self._finish_pack(pack, item.resources, item.stack_request)
                    return
                resource = item.resource
                by_urn[resource.urn] = resource
                known = _provider_urn(resource) in by_urn if resource.provider else True
                request = item.request(by_urn, self._providers, self._requests)
                in_flight.append((resource, pack.process.send("Analyze", request, f"of {resource.urn}"), known))
                while len(in_flight) >= IN_FLIGHT or (in_flight and in_flight[0][1].done()):
                    _collect(pack, in_flight)
        except BaseException as e:  # noqa: BLE001 (reported by finish)
            pack.error = e

    def _describe(self, pack: _Pack) -> Any:
        """``Handshake`` and ``GetAnalyzerInfo`` (:func:`offline.analyzer.describe`). A server kept from an earlier
        preview of this process that fails them (killed or gone while it waited in the pool: "connection refused")
        is replaced by a fresh one, once; a fresh server's failure is the pack's."""
        try:
            return describe(pack.process)
        except PolicyPackError:
            if not pack.process.reused:
                raise
        pack.process = self._analyzers.replace(pack.process)
        return describe(pack.process)

    def _finish_pack(self, pack: _Pack, resources: Sequence[EngineResource], stack: Any) -> PolicyReport:
        """The streamed responses checked against the finished list (re-analysing what could differ), then
        ``AnalyzeStack``; the pack's report."""
        by_urn = {r.urn: r for r in resources}
        responses: list[tuple[Optional[str], Any]] = []
        for index, r in enumerate(resources):
            sent = pack.sent[index] if index < len(pack.sent) else None
            same = (sent is not None and _same_request(sent.resource, r)
                    and (sent.provider_known or _provider_urn(r) not in by_urn))
            response = sent.response if same else pack.process.call("Analyze", analyze_request(r, by_urn),
                                                                     f"of {r.urn}")
            responses.append((r.urn, response))
        responses.append((None, pack.process.call("AnalyzeStack", stack,
                                                  f"of {len(resources)} resources")))
        return findings(responses, by_urn)

    def finish(self, resources: Sequence[EngineResource]) -> PolicyReport:
        """Every pack's findings on ``resources`` (the finished list, root stack first), merged in pack order as
        :func:`offline.policy_eval.evaluate_packs` returns them.

        :raises PolicyRuntimeError: a pack did not start, or a call failed (a rule raised).
        :raises PolicyConfigError: a pack's policy config is invalid (``by_pack`` names the pack).
        """
        finished = _Finish(list(resources), stack_request_bytes(resources, {r.urn: r for r in resources}))
        for pack in self._packs:
            pack.queue.put(finished)
        for pack in self._packs:
            pack.thread.join()
        failures = []
        for pack in self._packs:
            if pack.start_error is not None:
                raise pack.start_error
            if pack.config_problems:
                info = PackInfo(pack.session.name, pack_version(pack.path), pack.path)
                failures += [(info, line) for line in pack.config_problems]
        if failures:
            raise PolicyConfigError([line for _, line in failures], failures)
        for pack in self._packs:
            if pack.error is not None:
                raise pack.error
        merged = PolicyReport()
        for pack in self._packs:
            info = PackInfo(pack.session.name, pack_version(pack.path), pack.path)
            warnings = policy_config_warnings(pack.session.specs, pack.config)
            merged.packs.append(info)
            merged.violations += pack.report.violations
            merged.not_run += pack.report.not_run
            merged.not_applicable += pack.report.not_applicable
            merged.config_warnings += warnings
            merged.config_warnings_by_pack += [(info, w) for w in warnings]
        return merged

    def close(self) -> None:
        """Stop every pack's thread (idempotent). A server still starting is stopped too: its thread is waiting for
        its port, and the preview that stops early has no more use for it."""
        self._closed = True
        for pack in self._packs:
            pack.queue.put(_STOP)
        for pack in self._packs:
            if pack.thread is not None and pack.thread.is_alive() and pack.session is None \
                    and pack.start_error is None and pack.process.process.poll() is None:
                pack.process.process.terminate()
            if pack.thread is not None:
                pack.thread.join()

    def __enter__(self) -> "AnalysisStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _collect(pack: _Pack, in_flight: "deque[tuple[EngineResource, Any, bool]]") -> None:
    """Wait for the oldest call in flight and record its answer (answers are kept in registration order)."""
    item, pending, known = in_flight.popleft()
    pack.sent.append(_Sent(item, pending.result(), known))


def _provider_urn(r: EngineResource) -> Optional[str]:
    """The provider URN of a registration's provider reference (``<urn>::<id>``), as offline.analyzer reads it."""
    if not r.provider:
        return None
    return r.provider.rsplit("::", 1)[0] if r.provider.count("::") > 3 else r.provider


def _same_request(a: EngineResource, b: EngineResource) -> bool:
    """Whether ``a`` and ``b`` make the same ``Analyze`` request (outputs play no part in it)."""
    return a is b or ((a.urn, a.type, a.name, a.inputs, a.provider, a.parent, a.protect, a.ignore_changes,
                       a.delete_before_replace, a.additional_secret_outputs, a.aliases)
                      == (b.urn, b.type, b.name, b.inputs, b.provider, b.parent, b.protect, b.ignore_changes,
                          b.delete_before_replace, b.additional_secret_outputs, b.aliases))
