"""Policy packs judged by their own analyzer servers, started and called over gRPC as the Pulumi CLI does.

How the CLI runs a Python policy pack (sources read 2026-11-30):

* ``pulumi/pulumi`` ``sdk/python/dist/pulumi-analyzer-policy-python``: the plugin script runs
  ``python -u -m pulumi.policy <engine address> <program>`` (the pack's ``venv/bin/python`` when the pack has one),
  and ``pkg/resource/plugin/analyzer_plugin.go`` ``NewPolicyAnalyzer`` starts it with the pack directory as working
  directory and ``[host.ServerAddr(), "."]`` as arguments;
* ``pulumi`` 3.272.0 ``pulumi/policy/__main__.py`` runs ``runpy.run_path(".")``, i.e. the pack's ``__main__.py``,
  whose ``pulumi_policy.PolicyPack(...)`` (pulumi-policy 1.21.0 ``policy.py``) serves the ``Analyzer`` gRPC service
  on ``127.0.0.1:<port>`` and prints the port as the first line of stdout;
* the engine then calls ``Handshake`` (answered ``UNIMPLEMENTED`` by pulumi-policy 1.21, which the CLI tolerates),
  ``GetAnalyzerInfo`` (policies, levels, config schemas), ``Configure`` (the reconciled policy config, see
  :mod:`offline.policy_config`), ``ConfigureStack``, ``Analyze`` once per resource and ``AnalyzeStack`` once.

This module does the same with the generated stubs that ship in the ``pulumi`` SDK (``pulumi.runtime.proto``): no
private ``pulumi_policy`` internals. The engine address it passes is a minimal ``Engine`` service served in this
process (:class:`EngineLog`): a Python pack never calls it in pulumi 3.272, but every ``Log`` call it would make is
recorded rather than lost.

Start the servers early (:func:`start_analyzers`, non-blocking: the processes import while the program runs) and
close them (:meth:`Analyzers.close`, or use it as a context manager): no process outlives the call.

Known differences from the CLI: the stack's config is not passed to the pack (``PULUMI_CONFIG``; these packs do not
read it, and it would hand decrypted secrets to a child process); the pack's ``venv/`` is used when it exists, else
this interpreter (whose ``pulumi``/``pulumi-policy`` pins equal the packs' ``requirements.txt``, a test checks).
"""
from __future__ import annotations

import atexit
import signal
import selectors
import subprocess
import threading
import time
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection, Mapping, Optional, Sequence, Union

from offline import prestart, timings
from offline.policy_config import ResolvedPolicyConfig, policy_specs
# the requests (re-exported: callers import them from here)
from offline.analyzer_requests import _struct, analyze_request, stack_request, stack_request_bytes  # noqa: F401
from offline.policy_types import NotApplicable, NotRun, PolicyReport, PolicyRuntimeError, Violation

#: How long a pack may take to print its port (import of pulumi + pulumi_policy + the rules on a loaded machine).
START_TIMEOUT_S = 120.0
#: The gRPC message limit pulumi-policy sets on its server (``_MAX_RPC_MESSAGE_SIZE``, 400 MiB); the client matches.
MAX_MESSAGE = 400 * 1024 * 1024


class PolicyPackError(PolicyRuntimeError):
    """A pack could not be started or answered an analyzer call with an error (a crashed rule, a bad pack)."""


@dataclass
class EngineLog:
    """The ``Engine`` gRPC service handed to packs as their engine address; records ``Log`` calls."""

    logs: list[tuple[str, str, str]] = field(default_factory=list)  # (severity, urn, message)
    server: Any = None
    address: str = ""

    def start(self) -> "EngineLog":
        """Serve on ``address`` (a free port chosen before the packs were spawned)."""
        import grpc
        from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc
        from google.protobuf import empty_pb2

        outer = self

        class Servicer(engine_pb2_grpc.EngineServicer):
            def Log(self, request, context):  # noqa: N802 - gRPC method name
                outer.logs.append((engine_pb2.LogSeverity.Name(request.severity), request.urn, request.message))
                return empty_pb2.Empty()

            def GetRootResource(self, request, context):  # noqa: N802
                return engine_pb2.GetRootResourceResponse()

            def SetRootResource(self, request, context):  # noqa: N802
                return engine_pb2.SetRootResourceResponse()

        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        engine_pb2_grpc.add_EngineServicer_to_server(Servicer(), self.server)
        try:
            self.server.add_insecure_port(self.address)
        except RuntimeError:  # the port was taken meanwhile: packs that dial it would fail (none does, see above)
            self.server = None
            return self
        self.server.start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop(0)
            self.server = None


class PendingCall:
    """A unary call sent to a pack's server whose answer has not been read yet."""

    def __init__(self, process: "AnalyzerProcess", method: str, what: str, future: Any):
        self._process, self._method, self._what, self._future = process, method, what, future
        self._start = time.perf_counter()

    def done(self) -> bool:
        """Whether the answer (or an error) has arrived."""
        return self._future.done()

    def result(self) -> Any:
        """The answer (waits for it).

        :raises PolicyPackError: a gRPC error (a rule that raised, a dead server)."""
        import grpc

        try:
            return self._future.result()
        except grpc.RpcError as e:
            self._process.failed = True
            detail = e.details() if hasattr(e, "details") else str(e)
            raise PolicyPackError(f"policy pack {self._process.pack_dir}: {self._method} {self._what} failed: "
                                  f"{detail}{self._process.gone()}") from None
        finally:
            timings.add(self._process.pack_dir.name, self._method, time.perf_counter() - self._start)


class AnalyzerProcess:
    """One pack's analyzer server: ``python -u -m pulumi.policy <engine> .`` in the pack directory."""

    def __init__(self, pack_dir: Union[str, Path], engine_address: str, env: Optional[dict[str, str]] = None,
                 started: Optional[tuple[subprocess.Popen, Any]] = None):
        """Spawn the server, or adopt ``started`` = ``(process, stderr file)`` spawned by :mod:`offline.prestart`."""
        self.pack_dir = Path(pack_dir)
        self.engine_address, self.env = engine_address, env
        self.output: list[str] = []  # what the pack printed after its port (the CLI logs it)
        self.process, self._stderr = started or prestart.popen(self.pack_dir, engine_address, env)
        self.failed = False  # set when a call failed: the server is then stopped, never reused
        self.reused = False  # taken from the pool of an earlier preview of this process (Analyzers)
        self._stub: Any = None
        self._channel: Any = None

    def gone(self) -> str:
        """`` (its server exited with <code>, <signal>: <stderr tail>)`` when the server process has ended, else ``""``:
        what a failed call's message adds, so a server that died says how."""
        code = self.process.poll()
        if code is None:
            return ""
        how = f"signal {signal.Signals(-code).name}" if code < 0 and -code in signal.valid_signals() else f"code {code}"
        return f" (its server exited with {how}: {self._stderr_tail(500)})"

    def _stderr_tail(self, limit: int = 2000) -> str:
        self._stderr.seek(0)
        text = self._stderr.read().decode("utf-8", "replace").strip()
        return text[-limit:] if text else "(no output)"

    def stub(self) -> Any:
        """The ``AnalyzerStub`` once the server printed its port (waits up to :data:`START_TIMEOUT_S`).

        :raises PolicyPackError: the process exited or printed no port in time (its stderr is in the message).
        """
        if self._stub is not None:
            return self._stub
        import grpc
        from pulumi.runtime.proto import analyzer_pb2_grpc

        start = time.perf_counter()
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        ready = selector.select(START_TIMEOUT_S)
        selector.close()
        timings.add(self.pack_dir.name, "(waiting for the port)", time.perf_counter() - start)
        line = self.process.stdout.readline().decode("utf-8", "replace").strip() if ready else ""
        if not line.isdigit():
            self.failed = True
            why = "exited" if self.process.poll() is not None else f"printed no port within {START_TIMEOUT_S:.0f} s"
            message = (f"policy pack {self.pack_dir} failed to start ({why}; first output {line[:200]!r}): "
                       f"{self._stderr_tail()}")
            self.close()
            raise PolicyPackError(message)
        threading.Thread(target=self._drain, daemon=True).start()
        options = [("grpc.max_receive_message_length", MAX_MESSAGE), ("grpc.max_send_message_length", MAX_MESSAGE)]
        self._channel = grpc.insecure_channel(f"127.0.0.1:{line}", options=options)
        # Wait for the connection (HTTP/2 settings exchange included) before the first call: on a loaded machine the
        # server, started at a lower priority, may miss gRPC's settings timeout once; the channel then reconnects,
        # where a call made at once would fail with "Handshake failed: settings timeout" (exit 3).
        try:
            grpc.channel_ready_future(self._channel).result(timeout=max(1.0, START_TIMEOUT_S - (time.perf_counter()
                                                                                                 - start)))
        except grpc.FutureTimeoutError:
            self.failed = True
            message = f"policy pack {self.pack_dir}: no gRPC connection to its server: {self._stderr_tail()}"
            self.close()
            raise PolicyPackError(message) from None
        self._stub = analyzer_pb2_grpc.AnalyzerStub(self._channel)
        return self._stub

    def _drain(self) -> None:
        for raw in iter(self.process.stdout.readline, b""):
            self.output.append(raw.decode("utf-8", "replace").rstrip("\n"))

    def call(self, method: str, request: Any, what: str) -> Any:
        """One unary call; a gRPC error (a rule that raised, a dead server) becomes :class:`PolicyPackError`."""
        return self.send(method, request, what).result()

    def send(self, method: str, request: Any, what: str) -> "PendingCall":
        """Start one unary call without waiting for its answer (``PendingCall.result()`` waits). ``request`` is the
        request message, or its serialized bytes, sent as they are (``AnalyzeStack``'s is built that way without
        holding the whole message: :func:`offline.analyzer_requests.stack_request_bytes`)."""
        stub = self.stub()
        if isinstance(request, bytes):
            return PendingCall(self, method, what, self._raw(method).future(request))
        return PendingCall(self, method, what, getattr(stub, method).future(request))

    def _raw(self, method: str) -> Any:
        """A callable of ``method`` on this server's channel whose request is already serialized (gRPC sends bytes
        as they are when no serializer is given); its answer is read as the service defines it."""
        from pulumi.runtime.proto import analyzer_pb2

        service = analyzer_pb2.DESCRIPTOR.services_by_name["Analyzer"]
        answer = getattr(analyzer_pb2, service.methods_by_name[method].output_type.name)
        return self._channel.unary_unary(f"/{service.full_name}/{method}", request_serializer=None,
                                         response_deserializer=answer.FromString)

    def close(self) -> None:
        """Stop the server process and release the channel (idempotent)."""
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        if self.process.returncode is None:
            if self.process.poll() is None:  # (poll reaps a server that already exited: no usage to read then)
                self.process.terminate()
            try:
                usage = prestart.reap(self.process, timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                usage = prestart.reap(self.process, timeout=None)
            if usage is not None:
                timings.server_usage(self.pack_dir.name, usage)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self._stderr.close()


#: Idle servers by pack directory: a process that previews several times (the tests) reuses them; each use starts
#: with ``Configure`` and ``ConfigureStack``, which replace all of a pulumi-policy server's state.
_POOL: dict[Path, list[AnalyzerProcess]] = {}
_ENGINE: Optional[EngineLog] = None


def _engine(address: Optional[str]) -> EngineLog:
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = EngineLog(address=address or prestart.free_address()).start()
    return _ENGINE


def shutdown() -> None:
    """Stop every idle server and the engine service (registered with ``atexit``; idempotent)."""
    global _ENGINE
    for processes in _POOL.values():
        for process in processes:
            process.close()
    _POOL.clear()
    prestart.release()
    if _ENGINE is not None:
        _ENGINE.stop()
        _ENGINE = None


atexit.register(shutdown)


class Analyzers:
    """The analyzer servers of several packs (one process each), for one preview; :meth:`close` stops them or, when
    they are healthy, keeps them for the next preview of this process (:func:`shutdown` stops them at exit)."""

    def __init__(self, pack_dirs: Sequence[Union[str, Path]], env: Optional[dict[str, str]] = None):
        claimed = prestart.claim(pack_dirs)  # servers spawned at the start of the preview process, if any
        self.engine = _engine(claimed[0] if claimed else None)
        self.processes: list[AnalyzerProcess] = []
        try:
            for index, pack_dir in enumerate(pack_dirs):
                idle = [p for p in _POOL.get(Path(pack_dir).resolve(), []) if p.process.poll() is None]
                if claimed:
                    process = AnalyzerProcess(pack_dir, self.engine.address, env, claimed[1][index])
                elif idle:
                    process = idle[0]
                    _POOL[Path(pack_dir).resolve()].remove(process)
                    process.reused = True
                else:
                    process = AnalyzerProcess(pack_dir, self.engine.address, env)
                self.processes.append(process)
        except BaseException:
            self.close()
            raise

    def replace(self, process: AnalyzerProcess) -> AnalyzerProcess:
        """Stop ``process`` (one of :attr:`processes`) and start a fresh server for its pack in its place: for a
        server kept from an earlier preview of this process that no longer answers (it was killed, or its port
        closed, while it waited in the pool). Returns the new one.

        :raises ValueError: ``process`` is not one of this preview's servers."""
        index = self.processes.index(process)
        process.failed = True
        process.close()
        fresh = AnalyzerProcess(process.pack_dir, process.engine_address, process.env)
        self.processes[index] = fresh
        return fresh

    def close(self) -> None:
        for process in self.processes:
            if process.failed or process.process.poll() is not None or process._stub is None:
                process.close()
            else:
                _POOL.setdefault(process.pack_dir.resolve(), []).append(process)
        self.processes = []

    def __enter__(self) -> "Analyzers":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def start_analyzers(pack_dirs: Sequence[Union[str, Path]]) -> Analyzers:
    """Start every pack's analyzer server now, without waiting for it (call before the program runs), or adopt
    the ones :func:`offline.prestart.spawn` started for the same packs."""
    return Analyzers(pack_dirs, {"PULUMI_DRY_RUN": "true"})


# --- the engine's side of the conversation -------------------------------------------------------------------------
_CANT_RUN = "can't run policy "  # how pulumi-policy words an UnknownValueError diagnostic (policy.py, 1.21.0)


def _level(value: int) -> str:
    from pulumi.runtime.proto import analyzer_pb2

    return analyzer_pb2.EnforcementLevel.Name(value).lower()


def _severity(value: int) -> Optional[str]:
    from pulumi.runtime.proto import analyzer_pb2

    name = analyzer_pb2.PolicySeverity.Name(value).removeprefix("POLICY_SEVERITY_").lower()
    return None if name == "unspecified" else name


def _tolerate_unimplemented(process: AnalyzerProcess, method: str, request: Any) -> None:
    """A call the CLI makes but older servers lack (``Handshake``): ``UNIMPLEMENTED`` is accepted, as the CLI does."""
    import grpc

    try:
        getattr(process.stub(), method)(request)
    except grpc.RpcError as e:
        if e.code() != grpc.StatusCode.UNIMPLEMENTED:
            process.failed = True  # never back to the pool: the next preview would meet the same dead server
            raise PolicyPackError(f"policy pack {process.pack_dir}: {method} failed: {e.details()}"
                                  f"{process.gone()}") from None


@dataclass
class PackSession:
    """One started pack after ``Handshake`` and ``GetAnalyzerInfo``: its name and policies as the server reports."""

    process: AnalyzerProcess
    name: str
    specs: list  # offline.policy_config.PolicySpec, pack order


def describe(process: AnalyzerProcess) -> PackSession:
    """``Handshake`` then ``GetAnalyzerInfo``, as the engine does right after starting the plugin.

    :raises PolicyPackError: the pack did not start or answer. :raises PolicyConfigError: a bad policy level.
    """
    from google.protobuf import empty_pb2
    from pulumi.runtime.proto import analyzer_pb2

    _tolerate_unimplemented(process, "Handshake", analyzer_pb2.AnalyzerHandshakeRequest(
        root_directory=str(process.pack_dir.resolve()), program_directory=str(process.pack_dir.resolve())))
    info = process.call("GetAnalyzerInfo", empty_pb2.Empty(), "")
    return PackSession(process, info.name, policy_specs(info))


def configure(session: PackSession, configs: Mapping[str, ResolvedPolicyConfig], stack: str = "", project: str = "",
              stack_tags: Optional[Mapping[str, str]] = None) -> None:
    """``Configure`` (the reconciled policy config) then ``ConfigureStack``, as the engine does before analysing.

    :raises PolicyPackError: a call failed.
    """
    from pulumi.runtime.proto import analyzer_pb2

    process = session.process
    levels = {level.lower(): analyzer_pb2.EnforcementLevel.Value(level) for level in
              analyzer_pb2.EnforcementLevel.keys()}
    process.call("Configure", analyzer_pb2.ConfigureAnalyzerRequest(policyConfig={
        name: analyzer_pb2.PolicyConfig(enforcementLevel=levels[c.enforcement_level.value],
                                        properties=_struct(c.properties or {}))
        for name, c in configs.items()}), "")
    _tolerate_unimplemented(process, "ConfigureStack", analyzer_pb2.AnalyzerStackConfigureRequest(
        stack=stack, project=project, organization="organization", dry_run=True, tags=dict(stack_tags or {})))


def findings(responses: Sequence[tuple[Optional[str], Any]], urns: Collection[str]) -> PolicyReport:
    """One pack's report from its ``Analyze`` responses (``(urn, response)`` in the order sent) and its
    ``AnalyzeStack`` response (``(None, response)``), attributed as the engine attributes them: a resource's
    findings to its URN, a stack finding to the URN it names when that is one of ``urns`` (else stack-wide, "").
    An advisory "can't run policy" diagnostic is a :class:`NotRun`, not a violation."""
    report = PolicyReport()
    for urn, response in responses:
        kind = "resource" if urn is not None else "stack"
        for d in response.diagnostics:
            where = urn if urn is not None else (d.urn if d.urn in urns else "")
            if d.message.startswith(_CANT_RUN) and _level(d.enforcementLevel) == "advisory":
                reason = d.message.split(" during preview: ", 1)[-1]
                report.not_run.append(NotRun(d.policyName, d.policyPackName, where, reason, d.message))
            else:
                report.violations.append(Violation(d.policyName, d.policyPackName, _level(d.enforcementLevel), where,
                                                   d.message, _severity(d.severity), d.description, kind))
        for n in response.not_applicable:
            report.not_applicable.append(NotApplicable(n.policy_name, urn or "", n.reason))
    return report

