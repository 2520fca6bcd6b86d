"""Tests for offline/policy_eval.py: the offline stand-in for the engine's Analyze / AnalyzeStack calls.

The parity tests run the *real* ``pulumi_policy`` servicer (without gRPC) on the same registrations and compare.
"""
from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from google.protobuf import struct_pb2
from pulumi.runtime import proto
from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ResourceValidationPolicy, Severity,
                           StackValidationPolicy)
from pulumi_policy.policy import _PolicyAnalyzerServicer

from offline.policy_eval import (EngineResource, PolicyConfigError, PolicyRuntimeError, evaluate, has_mandatory,
                                 load_policy_config, resolve_policy_config)
from policies.security.pack import PACK_ENFORCEMENT_LEVEL, PACK_NAME
from tests.policies.test_policies import PACKS, POLICIES  # both packs' policies, evaluated here as one list

ROOT = Path(__file__).resolve().parents[2]
U = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
SECRET = "4dabf18193072939515e22adb298388d"
THING = "test:index:Thing"


def thing(name: str, inputs: dict | None = None, **kw) -> EngineResource:
    return EngineResource(urn=f"urn:pulumi:dev::proj::{THING}::{name}", type=THING, name=name,
                          inputs=inputs or {}, outputs=kw.pop("outputs", inputs or {}), **kw)


def reads_value(args, report):
    """Resource rule: reports the value of props["value"] (raises on unknown, like a plain rule)."""
    if args.resource_type == THING:
        report(f"value={args.props['value']}", "urn:ignored")


RES = ResourceValidationPolicy(name="res", description="Resource rule.", validate=reads_value,
                               severity=Severity.LOW)
STK = StackValidationPolicy(name="stk", description="Stack rule.",
                            validate=lambda args, report: [report(f"saw {r.name}", r.urn) for r in args.resources],
                            enforcement_level=EnforcementLevel.MANDATORY)


# --- Analyze ----------------------------------------------------------------------------------------------------------
def test_resource_violation_shape_and_urn_pinning():
    report = evaluate([RES], [thing("a", {"value": 1})], "pk")
    [v] = report.violations
    assert (v.policy, v.pack, v.enforcement_level, v.severity, v.policy_type) == ("res", "pk", "advisory", "low",
                                                                                 "resource")
    # 1.0: a number reaches a pack as a double (through a protobuf Struct), in-process as over gRPC
    assert v.message == "Resource rule.\nvalue=1.0" and v.description == "Resource rule."
    assert v.urn == "urn:pulumi:dev::proj::test:index:Thing::a"  # the URN a resource rule passes is ignored
    assert not has_mandatory(report)


def test_every_registration_is_analysed_the_root_stack_too():
    """pulumi's step generator analyses every registration (pkg/resource/deploy/step_generator.go has no exception
    for the root stack or for providers); the root stack registers with no inputs."""
    stack = EngineResource(urn="urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev", type="pulumi:pulumi:Stack",
                           name="proj-dev", custom=False)
    comp = EngineResource(urn="urn:pulumi:dev::proj::x:y:Comp::c", type="x:y:Comp", name="c", custom=False)
    seen = []
    pol = ResourceValidationPolicy(name="p", description="d",
                                   validate=lambda a, r: seen.append((a.resource_type, dict(a.props))))
    evaluate([pol], [stack, comp, thing("t")], "pk")
    assert seen == [("pulumi:pulumi:Stack", {}), ("x:y:Comp", {}), (THING, {})]


def test_top_level_internal_keys_are_dropped_like_the_engine_does():
    seen = []
    pol = ResourceValidationPolicy(name="p", description="d", validate=lambda a, r: seen.append(dict(a.props)))
    evaluate([pol], [thing("t", {"__defaults": ["x"], "a": {"__nested": 1}})], "pk")
    assert seen == [{"a": {"__nested": 1}}]  # SkipInternalKeys: top level only


def test_unknown_value_is_an_advisory_not_run_not_a_violation():
    report = evaluate([RES], [thing("a", {"value": U})], "pk", pack_enforcement_level=EnforcementLevel.MANDATORY)
    assert report.violations == [] and not has_mandatory(report)
    [nr] = report.not_run
    assert (nr.policy, nr.pack, nr.urn, nr.enforcement_level) == ("res", "pk", thing("a").urn, "advisory")
    assert nr.reason == "string value at .value can't be known during preview"
    assert nr.message == "can't run policy 'res' from policy pack 'pk@v0.0.1' during preview: " + nr.reason


def test_secrets_are_unwrapped_and_options_and_provider_are_passed():
    seen = {}

    def look(args, report):
        if args.resource_type != THING:
            return
        seen.update(value=args.props["value"], protect=args.opts.protect, parent=args.opts.parent,
                    ignore=list(args.opts.ignore_changes), dbr=args.opts.delete_before_replace,
                    provider=(args.provider.resource_type, args.provider.name, dict(args.provider.props)),
                    config=dict(args.get_config()), tags=dict(args.stack_tags))

    prov = EngineResource(urn="urn:pulumi:dev::proj::pulumi:providers:oci::oci", type="pulumi:providers:oci",
                          name="oci", inputs={"region": "sa-saopaulo-1"})
    t = thing("a", {"value": {SECRET: "1b47061264138c4ac30d75fd1eb44270", "value": "s3cret"}}, protect=True,
              parent="urn:p", ignore_changes=["x"], delete_before_replace=True, provider=f"{prov.urn}::id-1")
    evaluate([ResourceValidationPolicy(name="p", description="d", validate=look)], [prov, t], "pk",
             stack_tags={"team": "ml"})
    assert seen == {"value": "s3cret", "protect": True, "parent": "urn:p", "ignore": ["x"], "dbr": True,
                    "provider": ("pulumi:providers:oci", "oci", {"region": "sa-saopaulo-1"}), "config": {},
                    "tags": {"team": "ml"}}


def test_not_applicable_and_validate_less_policies():
    na = ResourceValidationPolicy(name="na", description="d", validate=lambda a, r: a.not_applicable("no things"))
    remediation_only = ResourceValidationPolicy(name="rem", description="d", remediate=lambda a: None)
    report = evaluate([na, remediation_only], [thing("a")], "pk")
    assert [(x.policy, x.reason) for x in report.not_applicable] == [
        ("na", "no things"), ("rem", "Policy does not implement validate")]


def test_a_crashing_rule_is_a_policy_runtime_error():
    boom = ResourceValidationPolicy(name="boom", description="d", validate=lambda a, r: 1 / 0)
    with pytest.raises(PolicyRuntimeError, match="policy 'boom' from pack 'pk' failed on .*ZeroDivisionError"):
        evaluate([boom], [thing("a")], "pk")


def test_async_rules_run_also_inside_a_running_event_loop():
    async def res_rule(args, report):
        await asyncio.sleep(0)
        report("async resource")

    async def stack_rule(args, report):
        await asyncio.sleep(0)
        report("async stack")

    pols = [ResourceValidationPolicy(name="a", description="A", validate=[res_rule, reads_value]),
            StackValidationPolicy(name="s", description="S", validate=stack_rule)]
    # sync validations report while the servicer collects the awaitables; async ones when they are awaited
    expected = ["A\nvalue=1.0", "A\nasync resource", "S\nasync stack"]
    assert [v.message for v in evaluate(pols, [thing("t", {"value": 1})], "pk").violations] == expected

    async def inside_loop():
        return evaluate(pols, [thing("t", {"value": 1})], "pk")
    loop = asyncio.new_event_loop()  # not asyncio.run: it would unset the thread's current loop for later tests
    try:
        assert [v.message for v in loop.run_until_complete(inside_loop()).violations] == expected
    finally:
        loop.close()


# --- AnalyzeStack -----------------------------------------------------------------------------------------------------
def test_stack_resources_use_outputs_and_resolve_links():
    seen = {}

    def look(args, report):
        by = {r.name: r for r in args.resources}
        b = by["b"]
        seen.update(props=dict(b.props), parent=b.parent.name, deps=[d.name for d in b.dependencies],
                    pdeps={k: [d.name for d in v] for k, v in b.property_dependencies.items()},
                    same=by["a"] is b.dependencies[0])
        report("stack-wide")

    a = thing("a", {"value": 1})
    b = thing("b", {"value": U}, outputs={"value": 2, "id": "ocid"}, parent=a.urn,
              dependencies=[a.urn, "urn:not-registered"], property_dependencies={"value": [a.urn]})
    report = evaluate([StackValidationPolicy(name="s", description="S", validate=look)], [a, b], "pk")
    assert seen == {"props": {"value": 2, "id": "ocid"}, "parent": "a", "deps": ["a"], "pdeps": {"value": ["a"]},
                    "same": True}
    assert [(v.urn, v.policy_type) for v in report.violations] == [("", "stack")]


def test_stack_violation_naming_no_resource_of_the_stack_is_stack_wide():
    pol = StackValidationPolicy(name="s", description="S", validate=lambda a, r: [r("x", "urn:elsewhere"),
                                                                                 r("y", a.resources[0].urn)])
    report = evaluate([pol], [thing("a")], "pk")
    assert [(v.message, v.urn) for v in report.violations] == [("S\nx", ""), ("S\ny", thing("a").urn)]


def test_stack_rule_violation_urns():
    report = evaluate([STK], [thing("a"), thing("b")], "pk")
    assert [(v.message, v.urn, v.enforcement_level) for v in report.violations] == [
        ("Stack rule.\nsaw a", thing("a").urn, "mandatory"), ("Stack rule.\nsaw b", thing("b").urn, "mandatory")]
    assert has_mandatory(report)


# --- config -----------------------------------------------------------------------------------------------------------
def levels(config=None, pack=EnforcementLevel.ADVISORY, pols=(RES, STK)):
    return {n: c.enforcement_level.value for n, c in resolve_policy_config(list(pols), config, pack).items()}


def test_level_precedence():
    assert levels() == {"res": "advisory", "stk": "mandatory"}  # pack default < the policy's own level
    assert levels(pack=EnforcementLevel.MANDATORY) == {"res": "mandatory", "stk": "mandatory"}
    assert levels({"all": "advisory"}) == {"res": "advisory", "stk": "advisory"}  # "all" > the policy's own
    assert levels({"all": "disabled", "stk": {"enforcementLevel": "mandatory"}}) == {"res": "disabled",
                                                                                  "stk": "mandatory"}
    assert levels({"all": {"enforcementLevel": "mandatory"}, "res": "advisory"}) == {"res": "advisory",
                                                                                   "stk": "mandatory"}


def test_disabled_skips_and_remediate_reports_mandatory():
    report = evaluate([RES, STK], [thing("a", {"value": 1})], "pk", policy_config={"res": "remediate",
                                                                                    "stk": "disabled"})
    assert [(v.policy, v.enforcement_level) for v in report.violations] == [("res", "mandatory")]


def test_config_properties_reach_the_rule_through_protobuf():
    schema = PolicyConfigSchema({"maxPorts": {"type": "integer", "default": 3}, "cidrs": {"type": "array"}})
    seen = []
    pol = ResourceValidationPolicy(name="cfg", description="d", config_schema=schema,
                                   validate=lambda a, r: seen.append(dict(a.get_config())))
    evaluate([pol], [thing("a")], "pk")
    evaluate([pol], [thing("a")], "pk", policy_config={"cfg": {"cidrs": ["10.0.0.0/8"]}})
    assert seen == [{"maxPorts": 3.0}, {"maxPorts": 3.0, "cidrs": ["10.0.0.0/8"]}]  # numbers arrive as floats


@pytest.mark.parametrize("config, match", [
    ({"res": "blocking"}, "parsing enforcement level for 'res': 'blocking' is not a valid enforcement level"),
    ({"res": {"enforcementLevel": 3}}, "3 is not a valid enforcement level; must be a string"),
    ({"res": 7}, "parsing 'res': 7 is not a valid value; must be a string or object"),
    ({"res": None}, "parsing 'res': None is not a valid value"),
    ([1], "must be a JSON object"),
    ({"environments": "prod"}, '"environments" must be an array of strings'),
    ({"cfg": {"limit": "ten"}}, "cfg: limit: 'ten' is not of type 'integer'"),
    ({"cfg": {"limit": 1.5}}, "cfg: limit: 1.5 is not of type 'integer'"),
    ({"nope": {"x": 1}}, "entry 'nope' has properties but no enforcementLevel"),  # the CLI's Configure refuses it
    ({"all": {"x": 1}}, "entry 'all' has properties but no enforcementLevel"),
])
def test_config_errors_the_cli_would_raise(config, match):
    schema = PolicyConfigSchema({"limit": {"type": "integer"}})
    pols = [RES, ResourceValidationPolicy(name="cfg", description="d", config_schema=schema,
                                          validate=lambda a, r: None)]
    with pytest.raises(PolicyConfigError, match=re.escape(match)):
        evaluate(pols, [], "pk", policy_config=config)


def test_config_the_cli_accepts_is_accepted_and_warned_about():
    schema = PolicyConfigSchema({"limit": {"type": "integer"}})
    pols = [RES, ResourceValidationPolicy(name="cfg", description="d", config_schema=schema,
                                          validate=lambda a, r: None)]
    config = {"nope": "advisory", "all": {"enforcementLevel": "mandatory", "x": 1}, "cfg": {"limit": 3.0, "typo": 1},
              "res": {}, "environments": ["team/prod"]}
    assert levels(config, pols=pols) == {"res": "mandatory", "cfg": "mandatory"}  # 3.0 is an integer (draft 7)
    warnings = evaluate(pols, [], "pk", policy_config=config).config_warnings
    assert len(warnings) == 4
    assert "'nope', which is not a policy of this pack" in warnings[0] and "ignored" in warnings[1]
    assert "'typo' not declared" in warnings[2] and "ESC" in warnings[3]
    assert evaluate(pols, [], "pk", policy_config={"cfg": "advisory"}).config_warnings == []


def test_schema_defaults_are_validated_and_all_errors_reported():
    """As the pulumi-policy integration tests (TestConfig): a bad default, enum, const, lengths, required."""
    schema = PolicyConfigSchema({"foo": {"type": "string", "maxLength": 3, "default": "too long"},
                                 "bar": {"enum": ["a", "b"]}, "baz": {"const": "x"}, "qux": {"type": "string"}},
                                required=["qux"])
    pol = ResourceValidationPolicy(name="p", description="d", config_schema=schema, validate=lambda a, r: None)
    with pytest.raises(PolicyConfigError) as e:
        resolve_policy_config([pol], {"p": {"bar": "c", "baz": "y"}})
    assert e.value.problems == ["p: 'qux' is a required property", "p: bar: 'c' is not one of ['a', 'b']",
                                "p: baz: 'x' was expected", "p: foo: 'too long' is too long"]
    ok = resolve_policy_config([pol], {"p": {"foo": "abc", "qux": "q", "bar": "a"}})
    assert ok["p"].properties == {"foo": "abc", "qux": "q", "bar": "a"}


def test_required_property_met_by_a_default():
    schema = PolicyConfigSchema({"x": {"type": "string", "default": "d"}}, ["x"])
    pol = ResourceValidationPolicy(name="req", description="d", validate=lambda a, r: None, config_schema=schema)
    assert resolve_policy_config([pol], {})["req"].properties == {"x": "d"}
    with pytest.raises(PolicyConfigError, match="'x' is a required property"):
        resolve_policy_config([ResourceValidationPolicy(name="req", description="d", validate=lambda a, r: None,
                                                        config_schema=PolicyConfigSchema({"x": {}}, ["x"]))], {})


def test_load_policy_config(tmp_path):
    (tmp_path / "empty.json").write_text("  \n")
    (tmp_path / "c.json").write_text('{"all": "advisory"}')
    assert load_policy_config(tmp_path / "empty.json") == {}
    assert load_policy_config(tmp_path / "c.json") == {"all": "advisory"}


# --- parity with the real servicer ------------------------------------------------------------------------------------
def _struct(d: dict) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(d)
    return s


def _servicer(config: dict) -> _PolicyAnalyzerServicer:
    servicer = _PolicyAnalyzerServicer(PACK_NAME, "0.0.1", POLICIES, PACK_ENFORCEMENT_LEVEL)
    levels = {"advisory": proto.ADVISORY, "mandatory": proto.MANDATORY, "disabled": proto.DISABLED,
              "remediate": proto.REMEDIATE}
    servicer.Configure(proto.ConfigureAnalyzerRequest(policyConfig={
        name: proto.PolicyConfig(enforcementLevel=levels[c.enforcement_level.value],
                                 properties=_struct(c.properties or {}))
        for name, c in resolve_policy_config(POLICIES, config, PACK_ENFORCEMENT_LEVEL).items()}), None)
    return servicer


def _diag(d) -> tuple:
    level = {proto.ADVISORY: "advisory", proto.MANDATORY: "mandatory"}[d.enforcementLevel]
    return d.policyName, d.message, level


def _scenario() -> list[EngineResource]:
    def r(type_, name, props, pdeps=None):
        return EngineResource(urn=f"urn:pulumi:dev::oke-rdma::{type_}::{name}", type=type_, name=name,
                              inputs=props, outputs=props, property_dependencies=pdeps or {})
    nsg = r("oci:Core/networkSecurityGroup:NetworkSecurityGroup", "cp", {"vcnId": U})
    return [
        nsg,
        r("oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule", "open",
          {"direction": "INGRESS", "protocol": "all", "source": "0.0.0.0/0", "networkSecurityGroupId": U},
          {"networkSecurityGroupId": [nsg.urn]}),
        r("oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule", "unknown",
          {"direction": "INGRESS", "protocol": "6", "source": U, "networkSecurityGroupId": U}),
        r("oci:ContainerEngine/cluster:Cluster", "oke", {"type": "BASIC_CLUSTER", "endpointConfig": {
            "isPublicIpEnabled": True, "nsgIds": [U]}}, {"endpointConfig": [nsg.urn]}),
        r("oci:ContainerEngine/nodePool:NodePool", "gpu", {"clusterId": U, "nodeConfigDetails": {
            "computeClusterId": U, "placementConfigs": [{"faultDomains": ["FAULT-DOMAIN-1"]}, {}]}},
          {"clusterId": [f"urn:pulumi:dev::oke-rdma::oci:ContainerEngine/cluster:Cluster::oke"]}),
        r("oci:ContainerEngine/nodePool:NodePool", "opaque", {"nodeConfigDetails": U}),
    ]


@pytest.mark.parametrize("config", [None, {"all": "advisory", "rdma-cluster-enhanced": "mandatory"},
                                    {"no-internet-ssh-or-all-ports": "disabled"}])
def test_parity_with_the_pulumi_policy_servicer(config):
    resources = _scenario()
    report = evaluate(POLICIES, resources, PACK_NAME, policy_config=config,
                      pack_enforcement_level=PACK_ENFORCEMENT_LEVEL)
    servicer = _servicer(config or {})
    expected = []
    for r in resources:
        resp = servicer.Analyze(proto.AnalyzeRequest(type=r.type, properties=_struct(r.inputs), urn=r.urn,
                                                     name=r.name), None)
        expected += [_diag(d) for d in resp.diagnostics]
    stack = servicer.AnalyzeStack(proto.AnalyzeStackRequest(resources=[proto.AnalyzerResource(
        type=r.type, properties=_struct(r.outputs), urn=r.urn, name=r.name,
        propertyDependencies={k: proto.AnalyzerPropertyDependencies(urns=v)
                              for k, v in r.property_dependencies.items()}) for r in resources]), None)
    expected += [_diag(d) for d in stack.diagnostics]
    ours = [(v.policy, v.message, v.enforcement_level) for v in report.violations]
    ours += [(n.policy, n.message, n.enforcement_level) for n in report.not_run]
    assert sorted(ours) == sorted(expected) and len(ours) >= 5


# --- the real SDK's wire shapes, and the pack as the CLI loads it -----------------------------------------------------
_SDK_PROGRAM = textwrap.dedent("""
    import json, pulumi, pulumi_oci as oci
    from google.protobuf import json_format
    from pulumi.runtime import mocks
    from pulumi.runtime.sync_await import _sync_await
    import asyncio
    regs = []
    class Mon(mocks.MockMonitor):
        def RegisterResource(self, req):
            resp = super().RegisterResource(req)
            regs.append(dict(urn=resp.urn, type=req.type, name=req.name, inputs=json_format.MessageToDict(req.object),
                             property_dependencies={k: list(v.urns) for k, v in req.propertyDependencies.items()}))
            return resp
    class M(pulumi.runtime.Mocks):
        def new_resource(self, a): return [a.name + "-id", dict(a.inputs)]
        def call(self, a): return {}
    m = M(); pulumi.runtime.set_mocks(m, preview=False, monitor=Mon(m))
    nsg = oci.core.NetworkSecurityGroup("nsg", compartment_id="c", vcn_id="v")
    oci.core.NetworkSecurityGroupSecurityRule("ssh", network_security_group_id=nsg.id, direction="INGRESS",
        protocol="6", source="0.0.0.0/0", tcp_options={"destination_port_range": {"min": 22, "max": 22}})
    oci.core.SecurityList("sl", compartment_id="c", vcn_id="v", ingress_security_rules=[
        {"protocol": "6", "source": "::/0", "tcp_options": {"min": 6443, "max": 6443}}])
    cl = oci.containerengine.Cluster("oke", compartment_id="c", kubernetes_version="v1.31.1", vcn_id="v",
        type="BASIC_CLUSTER", endpoint_config={"subnet_id": "s", "is_public_ip_enabled": True})
    oci.containerengine.NodePool("gpu", cluster_id=cl.id, compartment_id="c", node_shape="BM.GPU.H100.8",
        node_config_details={"size": 2, "compute_cluster_id": "cc", "placement_configs": [
            {"availability_domain": "AD-1", "subnet_id": "s", "fault_domains": ["FAULT-DOMAIN-1"]}]})
    _sync_await(asyncio.sleep(0.5))
    print(json.dumps([r for r in regs if r["type"] != "pulumi:pulumi:Stack"]))
""")


def test_rules_read_the_property_names_the_oci_sdk_sends():
    """Registrations made with pulumi_oci 5.5.0 Args classes trip every rule: the camelCase names match."""
    out = subprocess.run([sys.executable, "-c", _SDK_PROGRAM], capture_output=True, text=True, check=True, cwd=ROOT)
    regs = [EngineResource(custom=True, outputs=r["inputs"], **r) for r in json.loads(out.stdout)]
    assert len(regs) == 5
    report = evaluate(POLICIES, regs, PACK_NAME, pack_enforcement_level=PACK_ENFORCEMENT_LEVEL)
    found = {(v.policy, v.urn.rsplit("::", 1)[1]) for v in report.violations}
    assert found == {("no-internet-ssh-or-all-ports", "ssh"), ("kubernetes-api-not-public", "sl"),
                     ("kubernetes-api-not-public", "oke"), ("rdma-node-pool-placement", "gpu"),
                     ("rdma-cluster-enhanced", "oke"), ("no-internet-ingress", "ssh"), ("no-internet-ingress", "sl"),
                     ("oke-required-nsg-rules", "oke"),
                     # a pool built with no node_metadata / PV flag: the advisory hardening rules see it too
                     ("node-pool-imds-v2-only", "gpu"), ("node-pool-pv-encryption-in-transit", "gpu"),
                     ("iam-compute-cluster-launch-statement", "gpu")}  # the pool has no launch policy


@pytest.mark.parametrize("pack", PACKS, ids=lambda m: m.PACK_NAME)
def test_pack_imports_from_inside_the_pack_directory(pack):
    out = subprocess.run([sys.executable, "-c", "import pack; print(pack.PACK_NAME, len(pack.POLICIES))"],
                         cwd=ROOT / "policies" / pack.__name__.split(".")[1], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == [pack.PACK_NAME, str(len(pack.POLICIES))]


@pytest.mark.parametrize("pack", PACKS, ids=lambda m: m.PACK_NAME)
def test_pack_main_builds_the_policy_pack_like_the_cli_runs_it(pack):
    """``python -m pulumi.policy <addr> .`` runs ``runpy.run_path(".")`` in the pack dir; stub the blocking server."""
    script = textwrap.dedent("""
        import json, runpy, pulumi_policy
        seen = {}
        class Stub:
            def __init__(self, name, policies, enforcement_level=None, **kw):
                seen.update(name=name, policies=[p.name for p in policies], level=enforcement_level.value)
        pulumi_policy.PolicyPack = Stub
        runpy.run_path(".", run_name="__main__")
        print(json.dumps(seen))
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT / "policies" / pack.__name__.split(".")[1],
                         capture_output=True, text=True, check=True)
    seen = json.loads(out.stdout)
    assert seen == {"name": pack.PACK_NAME, "policies": [p.name for p in pack.POLICIES], "level": "mandatory"}


@pytest.mark.parametrize("unknowns", [False, True])
def test_parity_with_the_servicer_on_a_whole_program_with_the_root_stack(unknowns):
    """A hand-written program (not our components), run under the mocks: our evaluation of its registrations, root
    stack included, equals the real servicer's Analyze + AnalyzeStack on the same requests (parents and
    dependencies as the engine sends them, with the pack's config defaults)."""
    from offline.engine import run_program
    from tests.policies.test_policy_pack_e2e import _other_team

    run = run_program({"oci:region": "us-ashburn-1"}, [], "other", unknowns=unknowns,
                      program=lambda: _other_team(True))
    resources = run.analyzed_resources()
    config = {"kubernetes-api-not-public": {"allowedApiCidrs": ["10.2.0.0/16"]}}
    report = evaluate(POLICIES, resources, PACK_NAME, policy_config=config,
                      pack_enforcement_level=PACK_ENFORCEMENT_LEVEL)
    servicer = _servicer(config)
    expected = []
    for r in resources:
        resp = servicer.Analyze(proto.AnalyzeRequest(type=r.type, properties=_struct(r.inputs), urn=r.urn,
                                                     name=r.name), None)
        expected += [_diag(d) + (r.urn,) for d in resp.diagnostics]
    stack = servicer.AnalyzeStack(proto.AnalyzeStackRequest(resources=[proto.AnalyzerResource(
        type=r.type, properties=_struct(r.outputs), urn=r.urn, name=r.name, parent=r.parent or "",
        dependencies=r.dependencies, propertyDependencies={k: proto.AnalyzerPropertyDependencies(urns=v)
                                                           for k, v in r.property_dependencies.items()})
        for r in resources]), None)
    expected += [_diag(d) + (d.urn,) for d in stack.diagnostics]
    ours = [(v.policy, v.message, v.enforcement_level, v.urn) for v in report.violations]
    assert sorted(ours) == sorted(expected) and len(ours) >= 6
    assert resources[0].type == "pulumi:pulumi:Stack" and all(r.parent for r in resources[1:])
