"""Conformance: both packs judged by pulumi_policy's own analyzer servers over gRPC (what the preview reports) agree
finding for finding with the in-process evaluation (offline.policy_eval.evaluate), on the dev and prod stacks (known
values and first previews), on the hand-written stacks of the test suite (other teams' programs, no components) and
on every red-team program with its safe control — and, on those programs, that the packs' memoized servicers
answer as pulumi-policy's own per-policy conversion does (each program is run once for both)."""
from __future__ import annotations

import functools
import importlib
import json
from pathlib import Path

import pytest

from offline.engine import run_program
from offline.policy_eval import evaluate, evaluate_packs
from offline.preview import _read_stack_file, derived_policy_configs, main
from policies import PACK_DIRS

ROOT = Path(__file__).resolve().parents[2]
PACK_MODULES = [importlib.import_module(f"policies.{d.name}.pack") for d in PACK_DIRS]


def _stack(name: str, unknowns: bool):
    config, secrets = _read_stack_file(ROOT / f"Pulumi.{name}.yaml", "oke-rdma")
    return run_program(config, secrets, name, unknowns=unknowns)


def _other_team(bad: bool, unknowns: bool):
    from tests.policies.test_policy_pack_e2e import _other_team as program
    return run_program({"oci:region": "us-ashburn-1"}, [], "other", unknowns=unknowns, program=lambda: program(bad))


def _node_pools(unknowns: bool):
    from tests.policies.test_policies_node_pool import bad_stack
    return run_program({"oci:region": "sa-saopaulo-1"}, [], "bad", unknowns=unknowns, program=bad_stack)


def _oke_network(unknowns: bool, **flaws):
    from tests.policies.test_oke_network_policies import hand_written
    return run_program({"oci:region": "sa-saopaulo-1"}, [], "hand", unknowns=unknowns, program=hand_written(**flaws))


def _kubernetes(unknowns: bool, **kw):
    from tests.policies.test_policies_kubernetes import _hand_written
    return _hand_written(unknowns=unknowns, **kw)


def _storage(unknowns: bool):
    from tests.policies.test_storage_policies import _raw_stack
    return run_program({"oci:region": "sa-saopaulo-1"}, [], "raw", unknowns=unknowns,
                       program=_raw_stack(nfs_ports=False, export_source="0.0.0.0/0", squash="NONE"))


def _identity_and_endpoint(unknowns: bool):
    """IAM grants and a public API endpoint written by hand: escalation-shaped statements, an unrestricted any-user
    grant, an unscoped workload grant, and an endpoint whose NSG is not managed here (it cannot be traced)."""
    import pulumi_oci as oci

    def program():
        c = "ocid1.compartment.oc1..aaaaaaaaconformance"
        oci.identity.Policy("too-broad", compartment_id=c, description="d",
                            statements=["Allow group ml-admins to manage all-resources in tenancy"])
        oci.identity.Policy("open-any-user", compartment_id=c, description="d",
                            statements=[f"Allow any-user to read objects in compartment id {c}"])
        oci.identity.Policy("unpinned-workload", compartment_id=c, description="d", statements=[
            f"Allow any-user to read objects in compartment id {c} where all {{request.principal.type = 'workload', "
            "request.principal.namespace = 'ml', request.principal.service_account = 'trainer'}"])
        oci.containerengine.Cluster("oke", compartment_id=c, kubernetes_version="v1.34.1", name="oke",
                                    vcn_id="ocid1.vcn.oc1..v", type="ENHANCED_CLUSTER",
                                    endpoint_config=oci.containerengine.ClusterEndpointConfigArgs(
                                        subnet_id="ocid1.subnet.oc1..s", is_public_ip_enabled=True,
                                        nsg_ids=["ocid1.networksecuritygroup.oc1..elsewhere"]),
                                    options=oci.containerengine.ClusterOptionsArgs(  # a published discovery document
                                        open_id_connect_discovery=oci.containerengine
                                        .ClusterOptionsOpenIdConnectDiscoveryArgs(
                                            is_open_id_connect_discovery_enabled=True)))

    return run_program({"oci:region": "sa-saopaulo-1"}, [], "hand", unknowns=unknowns, program=program)


def _lustre(unknowns: bool):
    """A Lustre file system written by hand that does not squash root and exempts every client."""
    import pulumi_oci as oci

    def program():
        oci.lustre.FileStorageLustreFileSystem(
            "lustre", availability_domain="AD-1", capacity_in_gbs=31200, compartment_id="ocid1.compartment.oc1..c",
            file_system_name="lfs", performance_tier="MBPS_PER_TB_125", subnet_id="ocid1.subnet.oc1..s",
            root_squash_configuration={"identity_squash": "NONE", "client_exceptions": ["0.0.0.0/0"]})

    return run_program({"oci:region": "sa-saopaulo-1"}, [], "hand", unknowns=unknowns, program=program)


def _storage_squashed(unknowns: bool):
    from tests.policies.test_storage_policies import _raw_stack
    return run_program({"oci:region": "sa-saopaulo-1"}, [], "raw", unknowns=unknowns,
                       program=_raw_stack(nfs_ports=True, export_source="0.0.0.0/0", squash="ROOT"))


def _tenancy_flawed(unknowns: bool):
    """What the tenants' walls and priorities must refuse, written by hand: a PriorityClass that preempts, a Cilium
    policy that allows, a Deployment in a tenant namespace at a system priority, and IAM statements whose text is
    unknown and derives from nothing in the stack."""
    import asyncio

    import pulumi
    import pulumi_kubernetes as k8s
    import pulumi_oci as oci

    def unknown_text() -> pulumi.Output:
        loop = asyncio.get_event_loop()
        value, known = loop.create_future(), loop.create_future()
        value.set_result(None)
        known.set_result(False)
        return pulumi.Output(set(), value, known)

    def program():
        k8s.scheduling.v1.PriorityClass("urgent", metadata={"name": "urgent"}, value=100000)
        k8s.apiextensions.CustomResource("open", api_version="cilium.io/v2", kind="CiliumClusterwideNetworkPolicy",
                                         metadata={"name": "open"},
                                         spec={"endpointSelector": {}, "ingress": [{"fromEntities": ["all"]}]})
        k8s.core.v1.Namespace("ns", metadata={"name": "team", "labels": {
            "okerdma.io/tenant": "team", "pod-security.kubernetes.io/enforce": "restricted"}})
        k8s.apps.v1.Deployment("critical", metadata={"name": "critical", "namespace": "team"}, spec={
            "selector": {"matchLabels": {"app": "x"}}, "template": {
                "metadata": {"labels": {"app": "x"}},
                "spec": {"priorityClassName": "system-node-critical", "containers": [
                    {"name": "c", "image": "registry.k8s.io/pause:3.10@sha256:" + "0" * 64}]}}})
        oci.identity.Policy("hidden", compartment_id="ocid1.compartment.oc1..c", description="d",
                            statements=[unknown_text()])

    return run_program({"oci:region": "sa-saopaulo-1"}, [], "hand", unknowns=unknowns, program=program)


STACKS = {
    "dev": lambda u: _stack("dev", u),
    "prod": lambda u: _stack("prod", u),
    "other-team-flawed": lambda u: _other_team(True, u),
    "other-team-clean": lambda u: _other_team(False, u),
    "tenancy-flawed": _tenancy_flawed,
    "node-pools-flawed": _node_pools,
    "oke-network-clean": lambda u: _oke_network(u),
    "oke-network-no-12250-public-workers": lambda u: _oke_network(u, proxymux=False, public_workers=True),
    "kubernetes-privileged": lambda u: _kubernetes(u, level="privileged"),
    "kubernetes-restricted-host-network": lambda u: _kubernetes(u, level="restricted"),
    "kubernetes-unpinned": lambda u: _kubernetes(u, level="privileged", pin="^2.20"),
    "storage-open-export": _storage,
    "storage-open-export-root-squashed": _storage_squashed,
    "identity-and-public-endpoint": _identity_and_endpoint,
    "lustre-unsquashed": _lustre,
}


@functools.cache
def _red_team(name: str, bad: bool) -> tuple:
    """The analyzed resources of red-team program ``name`` (unsafe or its safe control), run once per test process:
    the servers-against-in-process test and the memo-against-plain test below share them."""
    from tests.policies.redteam.programs import CASES
    return tuple(run_program({"oci:region": "sa-saopaulo-1"}, [], "redteam",
                             program=lambda: CASES[name][2](bad)).analyzed_resources())


def _red_team_names() -> list[str]:
    from tests.policies.redteam.programs import CASES
    return sorted(CASES)


@functools.cache
def _analyzed(name: str, unknowns: bool) -> tuple:
    """The analyzed resources of conformance stack ``name``, built once per test process: the tests below and the
    "every policy fires" check share them."""
    return tuple(STACKS[name](unknowns).analyzed_resources())


@functools.cache
def _served(name: str, unknowns: bool):
    """Both packs' servers on conformance stack ``name`` (once per test process)."""
    return evaluate_packs(PACK_DIRS, list(_analyzed(name, unknowns)))


#: The servers' report on each red-team program's unsafe variant, kept by the per-program test for the check that
#: every policy fires (reports only: the resources are dropped).
_RED_TEAM_SERVED: dict = {}


def _red_team_served(name: str, bad: bool, resources=None):
    if bad and name in _RED_TEAM_SERVED:
        return _RED_TEAM_SERVED[name]
    served = evaluate_packs(PACK_DIRS, list(resources if resources is not None else _red_team(name, bad)))
    if bad:
        _RED_TEAM_SERVED[name] = served
    return served


def _in_process(resources, configs=None):
    """Both packs through offline.policy_eval.evaluate, the harness of the rule tests."""
    found = []
    for index, module in enumerate(PACK_MODULES):
        found.append(evaluate(module.POLICIES, resources, module.PACK_NAME,
                              policy_config=configs[index] if configs else None,
                              pack_enforcement_level=module.PACK_ENFORCEMENT_LEVEL))
    return found


def _facts(reports):
    violations, not_run, not_applicable = [], [], []
    for report in reports:
        violations += [(v.policy, v.pack, v.enforcement_level, v.urn, v.message, v.severity, v.description,
                        v.policy_type) for v in report.violations]
        not_run += [(n.policy, n.pack, n.urn, n.reason, n.message) for n in report.not_run]
        not_applicable += [(n.policy, n.urn, n.reason) for n in report.not_applicable]
    return sorted(violations), sorted(not_run), sorted(not_applicable)


@pytest.mark.parametrize("unknowns", [False, True], ids=["known", "first-preview"])
@pytest.mark.parametrize("name", list(STACKS))
def test_the_analyzer_servers_agree_with_the_in_process_evaluation(name, unknowns):
    resources = list(_analyzed(name, unknowns))
    served = _served(name, unknowns)
    assert [p.name for p in served.packs] == [m.PACK_NAME for m in PACK_MODULES]
    assert _facts([served]) == _facts(_in_process(resources))


@pytest.mark.parametrize("name", _red_team_names())
def test_the_servers_agree_on_every_red_team_program_and_its_safe_control(name):
    """The red-team suite's hand-written programs (tests/policies/redteam), unsafe and safe."""
    for bad in (True, False):
        resources = list(_red_team(name, bad))
        assert _facts([_red_team_served(name, bad, resources)]) == _facts(_in_process(resources)), (name, bad)


@pytest.mark.parametrize("name", _red_team_names())
def test_memoized_answers_agree_on_every_red_team_program_and_its_safe_control(name, monkeypatch):
    """Every red-team program, unsafe and safe: each pack's servicer answers byte for byte the same with the memo
    (policies/<pack>/_serve.py) as with pulumi-policy converting per policy, on props that refuse writes
    (tests/policies/test_pack_serving.py covers dev and prod); the unsafe variant makes the packs report, so the
    comparison is not between empty answers."""
    from pulumi.runtime.proto.analyzer_pb2 import AnalyzeResponse
    from pulumi_policy.proxy import _DictProxy

    from tests.policies.test_pack_serving import _same_answers

    def refuse(self, key, value):
        raise AssertionError(f"a rule wrote {key!r} into the props it was handed")

    monkeypatch.setattr(_DictProxy, "__setitem__", refuse)
    for bad in (True, False):
        answers = _same_answers(list(_red_team(name, bad)))
        assert not bad or any(AnalyzeResponse.FromString(a).diagnostics for a in answers), name


def test_the_conformance_stacks_make_every_policy_fire():
    """The conformance set is not vacuous: across it, every policy of both packs reports a violation somewhere."""
    fired = set()
    for name in STACKS:
        for unknowns in (False, True):
            fired |= {v.policy for v in _served(name, unknowns).violations}
    for name in _red_team_names():
        fired |= {v.policy for v in _red_team_served(name, True).violations}
    every = {p.name for m in PACK_MODULES for p in m.POLICIES}
    assert every - fired == set(), sorted(every - fired)


def test_policy_config_is_applied_the_same_way():
    """A config that raises, downgrades, disables and parameterises rules gives the same findings both ways."""
    security = {"all": "advisory", "no-internet-ingress": "mandatory", "namespace-pod-security-enforce": "disabled",
                "kubernetes-api-not-public": {"allowedApiCidrs": ["10.2.0.0/16"]}}
    placement = {"rdma-node-pool-placement": {"enforcementLevel": "advisory", "allowedShapes": ["BM.GPU4.8"]}}
    resources = _other_team(True, False).analyzed_resources()
    served = evaluate_packs(PACK_DIRS, resources, [security, placement])
    assert _facts([served]) == _facts(_in_process(resources, [security, placement]))
    levels = {(v.policy, v.enforcement_level) for v in served.violations}
    assert ("no-internet-ingress", "mandatory") in levels and ("rdma-node-pool-placement", "advisory") in levels
    assert not any(v.policy == "namespace-pod-security-enforce" for v in served.violations)


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_what_the_preview_reports_is_what_the_packs_find(stack, tmp_path, capsys):
    """The preview's --json plan lists exactly the in-process evaluation's violations of the same stack, under the
    policy config the stack config implies (what the preview derives when given none)."""
    plan = tmp_path / "plan.json"
    assert main(["--stack", stack, "--json", str(plan)]) in (0, 1)
    capsys.readouterr()
    reported = sorted((v["policy"], v["enforcementLevel"], v["urn"]) for v in json.loads(plan.read_text())[
        "policyViolations"])
    resources = list(_analyzed(stack, False))
    configs, _ = derived_policy_configs(list(PACK_DIRS), *_read_stack_file(ROOT / f"Pulumi.{stack}.yaml", "oke-rdma"))
    expected = sorted((v[0], v[2], v[3]) for v in _facts(_in_process(resources, configs))[0])
    assert reported == expected



def test_a_protocol_given_as_a_map_is_judged_not_a_crash():
    """Found through the servers by the rules' property test: {"protocol": {}} made describe() raise."""
    from offline.policy_eval import EngineResource

    nsg_rule = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"
    rule = EngineResource(urn=f"urn:pulumi:dev::p::{nsg_rule}::x", type=nsg_rule, name="x",
                          inputs={"protocol": {}, "direction": "INGRESS", "source": "0.0.0.0/0"})
    report = evaluate_packs(PACK_DIRS, [rule])
    refused = {v.policy for v in report.mandatory}
    assert {"network-rule-interpretable", "no-internet-ingress"} <= refused
    assert refused == {v.policy for r in _in_process([rule]) for v in r.mandatory}
    # (messages are not compared here: network-rule-interpretable prints the map as a proxy object's repr, whose
    # address differs between processes — a rule-side formatting issue, reported)
