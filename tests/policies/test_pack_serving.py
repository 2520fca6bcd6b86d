"""How the packs serve (``policies/<pack>/_serve.py``): each resource is converted once per analyzer call whatever
the number of policies, ``Analyze`` calls only the resource policies whose declared types match (``_gate.py``) and
``AnalyzeStack`` reads the request once for all stack policies; the answers are byte for byte those of
pulumi-policy's own loop over every policy (dev and prod stacks and first previews here; every red-team program and
its safe control in tests/offline/test_policy_conformance.py, which runs those programs once for both of its checks),
and those of the packs with every declaration removed (no rule reports on, or fails for, a type outside its
declaration); no rule writes to the props it is handed (the policies share them) nor changes a resource of the
stack (the stack policies share those objects), and the memo relies on
pulumi-policy internals only at the pinned version and sources: a new pulumi-policy fails here and leaves the packs
served as pulumi-policy serves them, never wrong."""
from __future__ import annotations

import contextlib
import copy
import importlib
import re
from pathlib import Path

import pytest
from pulumi.runtime.proto.analyzer_pb2 import AnalyzeResponse
from pulumi_policy import policy as servicer_module
from pulumi_policy.proxy import _DictProxy

from offline.analyzer import analyze_request, stack_request
from policies import PACK_DIRS, SOURCE_PACK

ROOT = Path(__file__).resolve().parents[2]
PACKS = [importlib.import_module(f"policies.{d.name}.pack") for d in PACK_DIRS]
serve = importlib.import_module(f"policies.{SOURCE_PACK.name}._serve")
dispatch = importlib.import_module(f"policies.{SOURCE_PACK.name}._dispatch")
DISPATCHES = [importlib.import_module(f"policies.{d.name}._dispatch") for d in PACK_DIRS]
NAMESPACED = importlib.import_module(f"policies.{SOURCE_PACK.name}._provider_namespace").NAMESPACED


def _servicer(pack, policies=None):
    return servicer_module._PolicyAnalyzerServicer(pack.PACK_NAME, "0.0.1", list(policies or pack.POLICIES),
                                                   pack.PACK_ENFORCEMENT_LEVEL, None, pack.PACK_DESCRIPTION)


def _ungated(policy):
    """``policy`` without its declaration of the types it examines: a copy whose ``validate`` is what its gate
    wraps (the rule as it would run on every resource)."""
    gate = dispatch.gate(policy)
    if gate is None:
        return policy
    bare = copy.copy(policy)
    vars(bare)["validate"] = gate.validate
    return bare


def _answers(resources, stack: bool = True, ungated: bool = False) -> list[bytes]:
    """Every pack's ``Analyze`` answer for each resource and (``stack``) its ``AnalyzeStack`` answer, serialized
    deterministically, in the engine's order; ``ungated``: every policy's declaration of types removed."""
    by_urn = {r.urn: r for r in resources}
    out = []
    for pack in PACKS:
        servicer = _servicer(pack, [_ungated(p) for p in pack.POLICIES] if ungated else None)
        out += [servicer.Analyze(analyze_request(r, by_urn), None).SerializeToString(deterministic=True)
                for r in resources]
        if stack:
            out.append(servicer.AnalyzeStack(stack_request(resources, by_urn), None).SerializeToString(
                deterministic=True))
    return out


@pytest.fixture
def memo():
    assert serve.install()
    try:
        yield
    finally:
        serve.uninstall()


@pytest.fixture
def props_refuse_writes(monkeypatch):
    def refuse(self, key, value):
        raise AssertionError(f"a rule wrote {key!r} into the props it was handed")
    monkeypatch.setattr(_DictProxy, "__setitem__", refuse)




def _state(resource) -> tuple:
    """What a stack policy could change on a shared ``PolicyResource``: its fields (by identity) and its links."""
    fields = {k: v for k, v in vars(resource).items() if k not in ("props", NAMESPACED)}
    return ({k: id(v) for k, v in fields.items()}, [id(d) for d in resource.dependencies],
            {k: [id(d) for d in v] for k, v in resource.property_dependencies.items()}, id(resource.parent))


@contextlib.contextmanager
def _shared_resources_kept():
    """While entered, every ``PolicyResource`` list the packs' ``AnalyzeStack`` shares among its stack policies
    (``_dispatch.policy_resources``) is recorded as made; on exit each object must be as made — no field set or
    replaced, no link added, removed or reordered — and its props either as made or the namespace wrapper's
    rewrite of them (``_provider_namespace.NAMESPACED``), so no policy saw what another one changed."""
    made: list[tuple] = []
    originals = [m.policy_resources for m in DISPATCHES]

    def recording(original):
        def policy_resources(records):
            resources = original(records)
            made.extend((r, r.props, _state(r)) for r in resources)
            return resources
        return policy_resources

    for module, original in zip(DISPATCHES, originals):
        module.policy_resources = recording(original)
    try:
        yield
    finally:
        for module, original in zip(DISPATCHES, originals):
            module.policy_resources = original
    for resource, props, state in made:
        assert _state(resource) == state, f"a stack policy changed the shared resource {resource.urn}"
        assert resource.props is props or vars(resource).get(NAMESPACED) is resource.props, (
            f"a stack policy replaced the props of the shared resource {resource.urn}")


def _same_answers(resources) -> list[bytes]:
    """The answers of pulumi-policy's own loop, then served as the packs serve (memo, dispatch by declared type,
    ``AnalyzeStack`` reading the request once; props refusing writes); asserts they are equal byte for byte. Then
    the ``Analyze`` answers of the packs with every declaration removed, served by pulumi-policy alone: equal too,
    or the rule that reports on (or fails for) a type outside its declaration is named."""
    plain = _answers(resources)
    assert serve.install()
    try:
        with _shared_resources_kept():
            served = _answers(resources)
    finally:
        serve.uninstall()
    assert served == plain
    ungated = _answers(resources, stack=False, ungated=True)
    per_pack = len(resources) + 1
    analyzed = [a for i, a in enumerate(plain) if i % per_pack != per_pack - 1]
    if ungated != analyzed:
        for with_gate, without, r in zip(analyzed, ungated, resources * len(PACKS)):
            if with_gate != without:
                extra = {d.policyName for d in AnalyzeResponse.FromString(without).diagnostics} - {
                    d.policyName for d in AnalyzeResponse.FromString(with_gate).diagnostics}
                pytest.fail(f"{sorted(extra) or 'a rule'} answers for {r.type} ({r.urn}), outside the types it "
                            "declares (_gate.examines): widen its declaration")
    return plain


@pytest.mark.parametrize("unknowns", [False, True], ids=["known", "first-preview"])
@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_memoized_answers_are_byte_for_byte_the_unmemoized_ones(stack, unknowns, props_refuse_writes, request):
    """dev and prod, with known values and as a first preview (unknowns: "can't run" diagnostics)."""
    run = request.getfixturevalue(f"{stack}_first_preview" if unknowns else f"{stack}_run")  # tests/conftest.py
    answers = _same_answers(run.analyzed_resources())
    assert len(answers) > 2 * len(PACKS)
    if unknowns:
        assert any(b"can't run policy" in a for a in answers)  # the unknown-value path is exercised


def test_each_resource_is_converted_once_per_analyze_call(monkeypatch, memo, dev_run):
    """With the memo, one ``Analyze`` converts the resource's properties once, not once per resource policy."""
    serve.uninstall()
    calls = []
    original = servicer_module.unknown_checking_proxy
    monkeypatch.setattr(servicer_module, "unknown_checking_proxy", lambda props: calls.append(1) or original(props))
    resources = dev_run.analyzed_resources()
    namespace = next(r for r in resources if r.type == "kubernetes:core/v1:Namespace")
    request = analyze_request(namespace, {r.urn: r for r in resources})
    security = _servicer(PACKS[0])
    resource_policies = sum(isinstance(p, servicer_module.ResourceValidationPolicy) for p in PACKS[0].POLICIES)
    conversions = 1 + request.HasField("provider")  # the resource's properties, and its provider's
    security.Analyze(request, None)
    assert len(calls) == resource_policies * conversions and resource_policies > 1  # once per policy
    calls.clear()
    assert serve.install()
    security.Analyze(request, None)
    assert len(calls) == conversions
    calls.clear()
    security.AnalyzeStack(stack_request(resources, {r.urn: r for r in resources}), None)
    stack_policies = sum(isinstance(p, servicer_module.StackValidationPolicy) for p in PACKS[0].POLICIES)
    assert stack_policies > 1 and len(calls) <= 2 * len(resources)  # each resource (and provider) once


def test_outside_an_analyzer_call_nothing_is_remembered(memo):
    """The wrappers pass through outside ``Analyze``/``AnalyzeStack`` (``Configure``, ``Remediate``): two calls
    give two conversions."""
    value = {"a": [1, {"b": 2}]}
    first = servicer_module.unknown_checking_proxy(value)
    assert servicer_module.unknown_checking_proxy(value) is not first
    assert servicer_module.deserialize_properties(value) is not servicer_module.deserialize_properties(value)


def test_the_pinned_internals_are_the_installed_ones():
    """Fails the day pulumi-policy's internals move: the installed version is the pinned one, every pinned
    source's hash matches, and the packs' requirements pin that version."""
    from pulumi_policy.version import VERSION

    assert VERSION == serve.PINNED_VERSION
    assert serve.internals_problems() == []
    for pack_dir in PACK_DIRS:
        pins = re.findall(r"^pulumi-policy==(\S+)$", (pack_dir / "requirements.txt").read_text(), re.M)
        assert pins == [serve.PINNED_VERSION], pack_dir


def test_moved_internals_leave_the_packs_unmemoized(monkeypatch, capsys):
    """A source that differs from the pinned hash (a new pulumi-policy) is named, and ``install`` changes nothing."""
    monkeypatch.setitem(serve.PINNED_SOURCES, "policy._PolicyAnalyzerServicer.Analyze", "0" * 64)
    monkeypatch.setattr(serve, "PINNED_VERSION", "0.0.0")
    problems = serve.internals_problems()
    assert any("Analyze differs" in p for p in problems) and any("not 0.0.0" in p for p in problems)
    before = servicer_module.deserialize_properties, servicer_module._PolicyAnalyzerServicer.Analyze
    assert serve.install() is False
    assert (servicer_module.deserialize_properties, servicer_module._PolicyAnalyzerServicer.Analyze) == before
    assert "converting each resource once per policy" in capsys.readouterr().err


def test_install_and_uninstall_restore_pulumi_policy():
    """``uninstall`` puts back every replaced object (tests and the in-process harness see pulumi-policy as is)."""
    before = [getattr(servicer_module, n) for n in serve.CONVERSION_NAMES]
    methods = [servicer_module._PolicyAnalyzerServicer.__dict__[n] for n in serve.SCOPED_METHODS]
    assert serve.install() and serve.install()
    assert [getattr(servicer_module, n) for n in serve.CONVERSION_NAMES] != before
    serve.uninstall()
    serve.uninstall()
    assert [getattr(servicer_module, n) for n in serve.CONVERSION_NAMES] == before
    assert [servicer_module._PolicyAnalyzerServicer.__dict__[n] for n in serve.SCOPED_METHODS] == methods


def test_no_rule_reaches_behind_the_proxy():
    """A rule could bypass the write check through the proxy's raw target; no pack source does, except two readers
    that build fresh containers from it: ``_plain._unproxied`` (``plain()``) and ``_provider_namespace._target``
    (a copy with the provider's namespace, wrapped again)."""
    readers = {"_plain.py": "def _unproxied", "_provider_namespace.py": "def _target"}
    for pack_dir in PACK_DIRS:
        for path in pack_dir.glob("*.py"):
            text = path.read_text(encoding="utf-8")
            if path.name in readers:
                assert readers[path.name] in text and "__target\"] =" not in text, path  # read, never written
                continue
            assert "__target" not in text, path


def test_plain_copies_what_it_reads_behind_the_proxy():
    """What plain() returns is a fresh container: changing it leaves the shared props as they were."""
    from pulumi_policy.proxy import unknown_checking_proxy

    from policies.security._objects import plain
    shared = {"spec": {"containers": [{"name": "c", "image": "x"}]}}
    copy = plain(unknown_checking_proxy(shared))
    copy["spec"]["containers"][0]["image"] = "changed"
    copy["spec"]["containers"].append({})
    assert shared == {"spec": {"containers": [{"name": "c", "image": "x"}]}}


@pytest.mark.parametrize("change", ["link", "field"])
def test_a_stack_policy_that_changes_a_shared_resource_is_caught(change, dev_run):
    """The check behind the byte-for-byte comparisons fails when a stack policy changes one of the resources the
    stack policies share (a dependency removed, a field set), so a rule that starts doing it cannot pass."""
    from pulumi_policy import EnforcementLevel, StackValidationPolicy

    def meddle(args, report_violation):
        target = next(r for r in args.resources if r.dependencies)
        if change == "link":
            target.dependencies.pop()
        else:
            target.name = "renamed"

    resources = dev_run.analyzed_resources()
    servicer = _servicer(PACKS[0], [*PACKS[0].POLICIES, StackValidationPolicy(
        name="meddler", description="changes a resource it is handed", enforcement_level=EnforcementLevel.ADVISORY,
        validate=meddle)])
    assert serve.install()
    try:
        with pytest.raises(AssertionError, match="changed the shared resource"):
            with _shared_resources_kept():
                servicer.AnalyzeStack(stack_request(resources, {r.urn: r for r in resources}), None)
    finally:
        serve.uninstall()
