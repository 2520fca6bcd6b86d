"""Declared resource types (``policies/<pack>/_gate.py``) and the servers' dispatch by type (``_serve.py``): a policy
without a declaration runs on every resource, a declared one only on its types, the gate is what the server trusts
(a wrapper around it is not), every declaration in the packs survives their wrappers, and a request no policy
examines still fails to convert where pulumi-policy's loop fails. The byte-for-byte comparisons on real stacks and
the red-team programs are in ``test_pack_serving.py``."""
from __future__ import annotations

import functools
import importlib

import pytest
from google.protobuf import struct_pb2
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy
from pulumi_policy import policy as servicer_module

from policies import PACK_DIRS, SOURCE_PACK
from tests.policies.test_pack_serving import _ungated

serve = importlib.import_module(f"policies.{SOURCE_PACK.name}._serve")
dispatch = importlib.import_module(f"policies.{SOURCE_PACK.name}._dispatch")
gates = [importlib.import_module(f"policies.{d.name}._gate") for d in PACK_DIRS]
_gate = gates[0]
NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"
BUCKET = "oci:ObjectStorage/bucket:Bucket"
CHART = "kubernetes:cilium.io/v2:CiliumNetworkPolicy"


@pytest.fixture
def served():
    assert serve.install()
    try:
        yield
    finally:
        serve.uninstall()


def _recording(name, seen, report=False):
    def validate(args, report_violation):
        seen.append((name, args.resource_type))
        if report:
            report_violation(f"{name} saw {args.resource_type}", None)
    return ResourceValidationPolicy(name=name, description=name, validate=validate)


def _request(resource_type, properties=None):
    props = struct_pb2.Struct()
    props.update(properties or {"a": 1})
    return analyzer_pb2.AnalyzeRequest(type=resource_type, properties=props, urn=f"urn:pulumi:s::p::{resource_type}::x",
                                       name="x")


def _servicer(policies):
    return servicer_module._PolicyAnalyzerServicer("test", "0.0.1", policies, EnforcementLevel.MANDATORY)


def _answer(servicer, request) -> bytes:
    return servicer.Analyze(request, None).SerializeToString(deterministic=True)


def test_a_policy_without_a_declaration_runs_on_every_resource_a_declared_one_only_on_its_types(served):
    """Served with the dispatch: the undeclared policy sees both types, the declared ones only theirs (an exact type,
    a prefix), in the pack's order; the answers are those of pulumi-policy's loop."""
    seen: list = []
    policies = [_gate.examines(_recording("pools", seen, report=True), NODE_POOL), _recording("every", seen, report=True),
                _gate.examines(_recording("cilium", seen, report=True), prefixes=["kubernetes:cilium.io/"]),
                StackValidationPolicy(name="stack", description="s", validate=lambda args, report: None)]
    servicer = _servicer(policies)
    answers = [_answer(servicer, _request(t)) for t in (NODE_POOL, BUCKET, CHART)]
    assert seen == [("pools", NODE_POOL), ("every", NODE_POOL), ("every", BUCKET), ("every", CHART), ("cilium", CHART)]
    serve.uninstall()
    seen.clear()
    assert [_answer(servicer, _request(t)) for t in (NODE_POOL, BUCKET, CHART)] == answers
    assert seen == [("pools", NODE_POOL), ("every", NODE_POOL), ("every", BUCKET), ("every", CHART), ("cilium", CHART)]


def test_the_gate_alone_returns_for_other_types():
    """Called directly (as pulumi-policy's loop calls it), a declared policy's validate does nothing for another type:
    skipping it is what calling it does."""
    seen: list = []
    policy = _gate.examines(_recording("pools", seen, report=True), NODE_POOL)
    reports: list = []
    args = servicer_module.ResourceValidationArgs(BUCKET, {}, "urn", "x", None, None, None, {})
    assert policy.validate(args, lambda *a: reports.append(a)) is None
    assert seen == [] and reports == []
    args.resource_type = NODE_POOL
    policy.validate(args, lambda *a: reports.append(a))
    assert seen == [("pools", NODE_POOL)] and len(reports) == 1


def test_a_wrapper_around_a_gate_is_not_trusted_as_one(served):
    """A function wrapping a gate with ``functools.wraps`` (which copies attributes, not the class) may run code
    before the gate, so the server runs such a policy on every resource."""
    seen: list = []
    policy = _gate.examines(_recording("pools", seen), NODE_POOL)
    gate = policy.validate

    @functools.wraps(gate)
    def wrapper(args, report_violation):
        seen.append(("wrapper", args.resource_type))
        return gate(args, report_violation)
    vars(policy)["validate"] = wrapper
    assert dispatch.gate(policy) is None and _gate.gate_of(policy) is None
    _servicer([policy]).Analyze(_request(BUCKET), None)
    assert seen == [("wrapper", BUCKET)]


def test_a_rule_answering_outside_its_declaration_shows_without_its_gate():
    """What test_pack_serving's comparison relies on: a rule declared for node pools that reports on buckets answers
    differently once its declaration is removed (_ungated), so a declaration narrower than the rule fails there."""
    declared = _gate.examines(_recording("too-narrow", [], report=True), NODE_POOL)
    with_gate = _answer(_servicer([declared]), _request(BUCKET))
    without = _answer(_servicer([_ungated(declared)]), _request(BUCKET))
    assert with_gate != without and b"too-narrow saw" in without
    assert _answer(_servicer([declared]), _request(NODE_POOL)) == _answer(_servicer([_ungated(declared)]),
                                                                          _request(NODE_POOL))


def test_a_request_no_policy_examines_still_fails_to_convert_as_pulumi_policy_fails(served):
    """A property with an unrecognised signature makes pulumi-policy's conversion raise at the first policy; with
    every policy skipped for that type, the server still converts it once and raises the same error."""
    bad = _request(BUCKET, {"p": {"4dabf18193072939515e22adb298388d": "not-a-signature"}})
    servicer = _servicer([_gate.examines(_recording("pools", []), NODE_POOL)])
    with pytest.raises(AssertionError, match="Unrecognized signature"):
        servicer.Analyze(bad, None)
    serve.uninstall()
    with pytest.raises(AssertionError, match="Unrecognized signature"):
        servicer.Analyze(bad, None)


def test_a_disabled_pack_of_declared_policies_converts_nothing(served):
    """When every policy is disabled pulumi-policy's loop converts nothing, and neither does the dispatch (the bad
    request is answered, empty)."""
    bad = _request(BUCKET, {"p": {"4dabf18193072939515e22adb298388d": "not-a-signature"}})
    policy = _gate.examines(_recording("pools", []), NODE_POOL)
    policy.enforcement_level = EnforcementLevel.DISABLED
    assert _answer(_servicer([policy]), bad) == b""


def test_every_declaration_in_the_packs_is_the_validate_the_server_calls():
    """A wrapper added after ``examines`` (namespace_aware, cluster_aware) keeps the gate outermost: any policy with a
    gate anywhere in its ``validate``'s wrapper chain has one as its ``validate``, and most resource policies of each
    pack declare their types."""
    for pack_dir in PACK_DIRS:
        pack = importlib.import_module(f"policies.{pack_dir.name}.pack")
        resource = [p for p in pack.POLICIES if isinstance(p, ResourceValidationPolicy)]
        for policy in resource:
            chain, fn = [], vars(policy).get("validate")
            while fn is not None and len(chain) < 20:
                chain.append(fn)
                fn = getattr(fn, "__wrapped__", None)
            if any(getattr(type(f), "OKE_RDMA_TYPE_GATE", False) for f in chain):
                assert dispatch.gate(policy) is not None, policy.name
        assert sum(dispatch.gate(p) is not None for p in resource) * 2 > len(resource), pack_dir.name


def test_examines_refuses_an_empty_or_second_declaration():
    """No types at all would make a rule that never runs; declaring twice would hide the first declaration."""
    with pytest.raises(ValueError):
        _gate.examines(_recording("none", []))
    policy = _gate.examines(_recording("pools", []), NODE_POOL)
    with pytest.raises(ValueError):
        _gate.examines(policy, BUCKET)


def test_every_pack_vendors_the_same_gate():
    """Each pack carries its own copy (the CLI runs a pack with only its directory on sys.path); the server
    recognises any copy's gate."""
    sources = {g.__file__: open(g.__file__, encoding="utf-8").read() for g in gates}
    assert len(set(sources.values())) == 1
    for g in gates:
        assert dispatch.gate(g.examines(_recording("p", []), NODE_POOL)) is not None
