"""Serving a pack: what each pack's ``__main__.py`` calls to start its analyzer server (:func:`serve`), with savings
that change no finding.

**Each resource converted once per analyzer call.** pulumi-policy 1.21.0's servicer (``policy.py``,
``_PolicyAnalyzerServicer``) converts a resource's properties inside its loop over the policies: ``Analyze`` runs
``unknown_checking_proxy(deserialize_properties(json_format.MessageToDict(request.properties)))`` (and the same for
the provider's properties, ``_get_provider_resource``) once per *resource policy*, and ``AnalyzeStack`` converts
every resource of the stack once per *stack policy*. The result depends on the message alone, so converting it again
for the next policy only costs time: with 27 resource and 13 stack policies it was 82–86 % of the security pack's
CPU time on a 64-pool × 200-tenant stack (docs/benchmark.md). :func:`install` wraps those three calls, under the
names the servicer's module calls them by, in a memo that exists only while one ``Analyze`` or ``AnalyzeStack``
call runs on its thread: the first policy converts a message, the next ones get the same proxy. The servicer's
helpers that build a request's options and provider (``_get_resource_options``, ``_get_provider_resource``, also
called once per policy) are remembered per request the same way. Outside those two calls (``Configure``,
``Remediate``) the wrappers pass every call straight through. A memo entry holds its message,
so no other object can take its ``id`` while the call lasts; the memo is dropped when the call returns.

The policies then share one proxy per resource; a rule that wrote to its props (``_DictProxy`` allows
``props[k] = v``) would be seen by the next policies. No rule of these packs writes to its props
(``tests/policies/test_pack_serving.py`` runs every policy on props that refuse writes).

**Each resource policy called only for the types it examines** (:func:`_dispatch.dispatched`). Beyond the conversion,
pulumi-policy's ``Analyze`` loop does per-policy work for every resource policy on every resource (its enforcement
level, a ``report_violation`` closure, the config, ``ResourceValidationArgs``, the call), though most of the packs'
rules look at one resource type or a few and return at once for the rest. A rule declares the types it examines with
``_gate.examines``, which makes the policy's ``validate`` a gate that returns ``None`` for any other type before
anything else runs; the server then runs pulumi-policy's own ``Analyze`` on a copy of the servicer whose policy list
holds only the resource policies whose gate matches the request's type and those without a gate (they run on every
resource). Skipping a gated policy is exactly what calling it would do, so the answer is the same by construction;
the test compares it byte for byte anyway, and also against the packs with every declaration removed (a declaration
narrower than its rule fails there).

**The stack read once per ``AnalyzeStack``** (:func:`_dispatch.analyze_stack`): pulumi-policy rebuilds the stack's list of
``PolicyResource`` objects for each stack policy, reading every resource of the request again (its properties
through the memo, its options, provider, parent and dependencies from the protobuf message). Here the request is
read and its ``PolicyResource`` objects made once per call, linked as pulumi-policy links them, and the stack
policies share them (each gets its own list of them); no rule changes a resource it is handed, which the tests
check after every policy has run; the rest is its loop as written. ``OKE_RDMA_PACK_DISPATCH=0`` keeps the memo without these
two (for an A/B measurement).

**This relies on pulumi-policy's internals**, so it is pinned: :data:`PINNED_VERSION` and the SHA-256 of the source
of everything wrapped or assumed (:data:`PINNED_SOURCES`). When either differs (a new pulumi-policy), :func:`install`
changes nothing and prints one line on stderr; the pack then runs as pulumi-policy wrote it (the same findings,
slower), and ``tests/policies/test_pack_serving.py`` fails until the pin is reviewed against the new sources. The
proposal to fix it upstream (convert once before the loop) is in docs/benchmark.md. ``OKE_RDMA_PACK_MEMO=0`` in the
server's environment turns the memo off (for an A/B measurement).

**Garbage collection.** The server's objects from its imports (pulumi, grpc, the rules) live as long as the process;
:func:`serve` moves them to the collector's permanent generation (``gc.freeze()``) once imported, so the collections
that the per-call garbage triggers no longer walk them again, and collects young objects every 100 000 allocations
rather than 700 (:data:`GC_THRESHOLDS`); what a call allocates is still collected.

Vendored: every pack carries an identical copy of this file (``policies.VENDORED``; the security pack's is the
source). Standard library and ``pulumi_policy`` only (a type gate is recognised by a marker on its class, so any
pack's copy of ``_gate.py`` is).
"""
from __future__ import annotations

import functools
import gc
import hashlib
import importlib
import inspect
import os
import sys
import threading
from typing import Any, Callable, Optional

if __package__:  # imported as the package `policies.<pack>` (tests, offline/)
    from . import _dispatch
else:  # run by the Pulumi CLI from inside the pack directory (its __main__.py)
    import _dispatch

#: The pulumi-policy release whose internals :data:`PINNED_SOURCES` describes (the packs' requirements.txt pin).
PINNED_VERSION = "1.21.0"
#: ``module.attribute`` under ``pulumi_policy`` → SHA-256 of its source (``inspect.getsource``) at
#: :data:`PINNED_VERSION`: the servicer methods that call the conversion in their policy loops, and the conversion
#: functions whose results the memo reuses (pure functions of their argument).
PINNED_SOURCES = {
    "policy._PolicyAnalyzerServicer.Analyze": "75db9cf8fc9d158596909b9b3f77bf48815990a6f513f2bb35728a67e4d8a515",
    "policy._PolicyAnalyzerServicer.AnalyzeStack": "3917a008482c2387d7da37f65d889970933e8df8efc57270559e20b36be837bf",
    "policy._PolicyAnalyzerServicer._get_provider_resource":
        "5db736069fc8d3d65e220ee75143faa1d2603982f5fcb3e96cbfc6d3e82ebdd7",
    "policy._PolicyAnalyzerServicer._get_resource_options":
        "986051047b696f0fd99ed8890bc7e6445a171630e99ae53cfbd6066ab4b45288",
    "deserialize.deserialize_properties": "2ef45163513f6cc9c65929241e2661bf6f3dfa47abaa545d1501a38fe841a191",
    "deserialize._deserialize_property": "f74731f85cfdd6af0630062df328542073d565b5156ecbe3907f6a0c9bb5071e",
    "proxy.unknown_checking_proxy": "760d27c0d09666ff364c53e298f1704d47a4dbf8ce16cdf7be375eb825930523",
    "proxy._proxy_helper": "c36dd3b6af1196cbab4c2be6408b333b0294c15c445efb4a3d7b0350e4088a0b",
    # the dispatch (:func:`_dispatch.dispatched`): every field of a servicer is set in __init__ (a copy of its __dict__ is
    # the same servicer), and what the Analyze loop asks of a policy before it converts anything
    "policy._PolicyAnalyzerServicer.__init__": "d79091472a8911d62a8b9fa639c1692aa32540251221c1828f377887da0345b0",
    "policy._PolicyAnalyzerServicer._get_enforcement_level":
        "e766403ef7ab7cdf0be172e84ebd1b0b19e5132c369af748007ab37b458fdbff",
    "policy.ResourceValidationPolicy.has_validation": "df3874233b40a16c510dcce113acce51a2f6aa1cd438e160d8a86b3b2a69ba87",
}
#: The names ``pulumi_policy.policy`` calls the conversion by (replaced by memoizing wrappers).
CONVERSION_NAMES = ("json_format", "deserialize_properties", "unknown_checking_proxy")
#: The servicer methods during which the memo exists.
SCOPED_METHODS = ("Analyze", "AnalyzeStack")
#: The servicer's helpers that build a resource's options and provider from its request, once per policy; memoized
#: per request like the conversion (the provider's properties are converted inside).
PER_REQUEST_METHODS = ("_get_resource_options", "_get_provider_resource")
#: Set to ``0`` in the server's environment to serve without the memo (and without the dispatch).
DISABLE_ENV = "OKE_RDMA_PACK_MEMO"
#: Set to ``0`` in the server's environment to keep the memo but call every resource policy for every resource.
DISPATCH_ENV = "OKE_RDMA_PACK_DISPATCH"
#: Set to ``1`` by the offline preview when it starts a server (``offline/prestart.py``): the server then ends when
#: its standard input reaches end of file, which happens when the process that started it ends in any way.
EXIT_WITH_STDIN_ENV = "OKE_RDMA_EXIT_WITH_STDIN"

_local = threading.local()
#: One memo per wrapped callable: MessageToDict, deserialize_properties, unknown_checking_proxy, then the
#: :data:`PER_REQUEST_METHODS`.
_SLOTS = 3 + len(PER_REQUEST_METHODS)
#: The replaced objects (name → original) while installed; None otherwise.
_originals: Optional[dict[str, Any]] = None


def _lookup(dotted: str) -> Any:
    module, *attributes = dotted.split(".")
    found: Any = importlib.import_module(f"pulumi_policy.{module}")
    for attribute in attributes:
        found = getattr(found, attribute)
    return found


@functools.lru_cache(maxsize=None)
def _source_sha256(obj: Any) -> str:
    """SHA-256 of ``obj``'s source (``inspect.getsource``), once per object and process: the check runs at every
    ``install`` (the tests install and uninstall per comparison) and tokenizing the sources again cost more than
    the comparison it guards. Keyed by the object, so a replaced function is read anew."""
    return hashlib.sha256(inspect.getsource(obj).encode("utf-8")).hexdigest()


def internals_problems() -> list[str]:
    """Why the memo cannot be installed on the pulumi-policy in use: one line per difference from the pinned
    version and sources (empty when everything matches)."""
    from pulumi_policy.version import VERSION

    problems = [] if VERSION == PINNED_VERSION else [f"pulumi-policy is {VERSION}, not {PINNED_VERSION}"]
    for dotted, digest in PINNED_SOURCES.items():
        try:
            found = _source_sha256(_lookup(dotted))
        except (AttributeError, ImportError, OSError, TypeError) as e:
            problems.append(f"pulumi_policy.{dotted} cannot be read ({type(e).__name__}: {e})")
            continue
        if found != digest:
            problems.append(f"pulumi_policy.{dotted} differs from {PINNED_VERSION}'s")
    policy = importlib.import_module("pulumi_policy.policy")
    problems += [f"pulumi_policy.policy has no {name}" for name in CONVERSION_NAMES if not hasattr(policy, name)]
    return problems


def _memoized(function: Callable[..., Any], slot: int) -> Callable[..., Any]:
    """``function`` of one argument, remembered per argument object (in memo ``slot``) while a memo exists on this
    thread; any other call passes straight through (see the module docstring)."""
    @functools.wraps(function)
    def call(value: Any, *args: Any, **kwargs: Any) -> Any:
        memo = getattr(_local, "memo", None)
        if memo is None or args or kwargs:
            return function(value, *args, **kwargs)
        slot_memo = memo[slot]
        hit = slot_memo.get(id(value))
        if hit is None:
            hit = slot_memo[id(value)] = (value, function(value))  # holds value: its id stays unique meanwhile
        return hit[1]
    return call


def _memoized_method(method: Callable[..., Any], slot: int) -> Callable[..., Any]:
    """A servicer helper ``method(self, request)`` remembered per request object like :func:`_memoized`."""
    @functools.wraps(method)
    def call(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        memo = getattr(_local, "memo", None)
        if memo is None or args or kwargs:
            return method(self, request, *args, **kwargs)
        slot_memo = memo[slot]
        hit = slot_memo.get(id(request))
        if hit is None:
            hit = slot_memo[id(request)] = (request, method(self, request))
        return hit[1]
    return call


class _JsonFormat:
    """``google.protobuf.json_format`` as ``pulumi_policy.policy`` sees it: ``MessageToDict`` memoized."""

    def __init__(self, module: Any):
        self._module = module
        self.MessageToDict = _memoized(module.MessageToDict, 0)  # noqa: N815 - the protobuf name

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)


def _one_conversion_per_call(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` (``Analyze``/``AnalyzeStack``) with a fresh memo on its thread for the duration of the call."""
    @functools.wraps(method)
    def call(self: Any, request: Any, context: Any) -> Any:
        if getattr(_local, "memo", None) is not None:  # already inside a call on this thread
            return method(self, request, context)
        _local.memo = tuple({} for _ in range(_SLOTS))
        try:
            return method(self, request, context)
        finally:
            _local.memo = None
    return call


def install(dispatch: bool = True) -> bool:
    """Memoize the conversion in ``pulumi_policy.policy`` (idempotent). False, with nothing changed and one line on
    stderr, when the installed pulumi-policy is not the pinned one (:func:`internals_problems`)."""
    global _originals
    if _originals is not None:
        return True
    problems = internals_problems()
    if problems:
        print(f"oke-rdma policy pack: converting each resource once per policy, as pulumi-policy does "
              f"({'; '.join(problems)})", file=sys.stderr)
        return False
    policy = importlib.import_module("pulumi_policy.policy")
    servicer = policy._PolicyAnalyzerServicer
    originals = {name: getattr(policy, name) for name in CONVERSION_NAMES}
    originals.update({f"servicer.{name}": servicer.__dict__[name] for name in SCOPED_METHODS + PER_REQUEST_METHODS})
    policy.json_format = _JsonFormat(originals["json_format"])
    policy.deserialize_properties = _memoized(originals["deserialize_properties"], 1)
    policy.unknown_checking_proxy = _memoized(originals["unknown_checking_proxy"], 2)
    for slot, name in enumerate(PER_REQUEST_METHODS, start=3):
        setattr(servicer, name, _memoized_method(originals[f"servicer.{name}"], slot))
    for name in SCOPED_METHODS:
        method = originals[f"servicer.{name}"]
        if name == "Analyze" and dispatch:
            method = _dispatch.dispatched(method)
        elif name == "AnalyzeStack" and dispatch:
            method = functools.wraps(method)(_dispatch.analyze_stack)
        setattr(servicer, name, _one_conversion_per_call(method))
    _originals = originals
    return True


def uninstall() -> None:
    """Put back what :func:`install` replaced (idempotent)."""
    global _originals
    if _originals is None:
        return
    policy = importlib.import_module("pulumi_policy.policy")
    for name in CONVERSION_NAMES:
        setattr(policy, name, _originals[name])
    for name in SCOPED_METHODS + PER_REQUEST_METHODS:
        setattr(policy._PolicyAnalyzerServicer, name, _originals[f"servicer.{name}"])
    _originals = None


#: The collector's thresholds in a server (``gc.set_threshold``; CPython's defaults are 700, 10, 10). Converting a
#: 64-pool × 200-tenant stack for ``AnalyzeStack`` allocates over a million containers that live until the call
#: returns; at the defaults the collector walked them again and again (2.3 of 6.3 s of CPU, measured in-process
#: 2026-12-01). A young collection every 100 000 allocations still frees the cycles a call leaves behind.
GC_THRESHOLDS = (100_000, 20, 10)


def freeze_imports() -> None:
    """Collect once, move every object alive now (the imports') to the permanent generation (``gc.freeze``), and
    set :data:`GC_THRESHOLDS`: later collections walk only what the calls allocate, and rarely."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def exit_with_stdin() -> bool:
    """With ``OKE_RDMA_EXIT_WITH_STDIN=1``: a daemon thread reads standard input until end of file, then ends the
    process (``os._exit(0)``). The offline preview starts its servers with a pipe as their standard input whose
    writing end only it holds, and the kernel closes that end when the preview's process ends — by ``os._exit``, a
    signal or SIGKILL too, on any thread — so no server outlives it, where ``atexit`` and ``PR_SET_PDEATHSIG`` (tied
    to the thread that spawned the child) do not cover every way a test process or script ends. Anything read is
    ignored. Returns whether the thread was started; without the variable (the Pulumi CLI) nothing changes."""
    if os.environ.get(EXIT_WITH_STDIN_ENV) != "1":
        return False

    def watch() -> None:
        try:
            while os.read(0, 65536):
                pass
        except OSError:  # no standard input at all: the same as its end
            pass
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-stdin", daemon=True).start()
    return True


def serve(name: str, policies: list, enforcement_level: Any, description: str) -> None:
    """Start the pack's analyzer server (``pulumi_policy.PolicyPack``: serves, prints its port, blocks) with the
    conversion memoized (unless ``OKE_RDMA_PACK_MEMO=0``) and the imports frozen; with ``OKE_RDMA_EXIT_WITH_STDIN=1``
    it ends when its standard input does (:func:`exit_with_stdin`)."""
    from pulumi_policy import PolicyPack

    exit_with_stdin()

    if os.environ.get(DISABLE_ENV, "1") != "0":
        install(dispatch=os.environ.get(DISPATCH_ENV, "1") != "0")
    freeze_imports()
    PolicyPack(name=name, policies=policies, enforcement_level=enforcement_level, description=description)
