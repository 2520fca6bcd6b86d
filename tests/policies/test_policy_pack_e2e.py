"""The pack end to end: ``offline.preview`` with ``--policy-config``, ``--unknowns`` and ``--program``, and a stack
that our components did not build (another team's hand-written pulumi_oci / pulumi_kubernetes resources)."""
from __future__ import annotations

import importlib
import json
import textwrap
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci
import pytest
import yaml
from pulumi_policy import StackValidationPolicy

from offline.engine import run_program
from offline.policy_eval import evaluate, evaluate_packs, has_mandatory
from offline.preview import main
from policies import PACK_DIRS
from tests.policies.test_policies import POLICIES

ROOT = Path(__file__).resolve().parents[2]
RULES = [p.name for p in POLICIES]
PLACEMENT_AND_EXPOSURE = ["rdma-node-pool-placement", "rdma-cluster-enhanced", "kubernetes-api-not-public",
                          "kubernetes-api-endpoint-restricted", "no-internet-ssh-or-all-ports"]


def write(path: Path, data) -> Path:
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


#: This project's program with its ``allowedCidrs`` checks (per CIDR and union) relaxed: a program that lets an open API endpoint through
#: (the config model refuses one broader than /8), which the pack must still catch.
_RELAXED_PROGRAM = """
import runpy
from oke_rdma.config import network
saved = network.MIN_API_CLIENT_PREFIX, network.MAX_API_CLIENT_PUBLIC_ADDRESSES
network.MIN_API_CLIENT_PREFIX, network.MAX_API_CLIENT_PUBLIC_ADDRESSES = 0, 2 ** 32
try:
    runpy.run_path({main!r}, run_name="__main__")
finally:
    network.MIN_API_CLIENT_PREFIX, network.MAX_API_CLIENT_PUBLIC_ADDRESSES = saved
"""


def open_api_stack(tmp_path: Path) -> list[str]:
    """Preview arguments: the dev stack with a public API endpoint open to 0.0.0.0/0, run by :data:`_RELAXED_PROGRAM`
    (the config model refuses it; the pack refuses it too)."""
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    doc["config"]["oke-rdma:network"]["apiEndpoint"] = {"public": True, "allowedCidrs": ["0.0.0.0/0"]}
    path = tmp_path / "Pulumi.open.yaml"
    path.write_text(yaml.safe_dump(doc))
    program = write(tmp_path / "relaxed.py", _RELAXED_PROGRAM.format(main=str(ROOT / "__main__.py")))
    return ["--config-file", str(path), "--program", str(program)]


PACK_POLICIES = {d: {p.name for p in importlib.import_module(f"policies.{d.name}.pack").POLICIES} for d in PACK_DIRS}


def pack_args(tmp_path: Path, config) -> list[str]:
    """``--policy-pack``/``--policy-config`` pairs for both packs, as the CLI takes them: each pack's file holds the
    entries naming its policies, plus ``all`` and names of no pack (``config`` is a dict or a JSON file)."""
    if isinstance(config, Path):
        config = json.loads(config.read_text())
    args = []
    for d, names in PACK_POLICIES.items():
        own = {k: v for k, v in config.items() if k in names or not any(k in n for n in PACK_POLICIES.values())}
        args += ["--policy-pack", str(d), "--policy-config", str(write(tmp_path / f"{d.name}.json", own))]
    return args


def same_file(path: Path) -> list[str]:
    """The same ``--policy-config`` file for both packs."""
    return [a for d in PACK_DIRS for a in ("--policy-pack", str(d), "--policy-config", str(path))]


def preview(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


# --- --policy-config: downgrade and raise -------------------------------------------------------------------------
def test_policy_config_downgrades_mandatory_rules_to_advisory(tmp_path, capsys):
    stack = open_api_stack(tmp_path)
    code, out, _ = preview(capsys, *stack)
    assert code == 1 and "[mandatory]  kubernetes-api-not-public" in out
    # the API NSG rule admitting 0.0.0.0/0 on TCP 6443 is also caught by no-internet-ingress
    assert "[mandatory]  no-internet-ingress" in out and out.count("[mandatory]") == 3
    every = {"kubernetes-api-not-public": "advisory", "kubernetes-api-endpoint-restricted": {
        "enforcementLevel": "advisory"}, "no-internet-ingress": "advisory"}
    for config in ({"all": "advisory"}, every):
        code, out, _ = preview(capsys, *stack, *pack_args(tmp_path, config))
        assert code == 0, out
        assert "[advisory]  kubernetes-api-not-public" in out and "[mandatory]" not in out
        assert "[advisory]  no-internet-ingress" in out
    one = {"kubernetes-api-not-public": "advisory"}  # the stack rule still fails the preview
    code, out, _ = preview(capsys, *stack, *pack_args(tmp_path, one))
    assert code == 1 and "[advisory]  kubernetes-api-not-public" in out
    assert "[mandatory]  kubernetes-api-endpoint-restricted" in out and "[mandatory]  no-internet-ingress" in out


def test_policy_config_raises_advisory_rules_to_mandatory(tmp_path, capsys):
    stack = open_api_stack(tmp_path)
    for raised, expected in (("kubernetes-api-not-public", 1), ("kubernetes-api-endpoint-restricted", 1),
                             ("no-internet-ingress", 1),
                             ("no-internet-ssh-or-all-ports", 0)):  # raising a rule that does not fire changes nothing
        config = write(tmp_path / "c.json", {"all": "advisory", raised: "mandatory"})
        code, out, _ = preview(capsys, *stack, *pack_args(tmp_path, config))
        assert code == expected, (raised, out)
        if expected:
            assert f"[mandatory]  {raised}" in out and out.count("[mandatory]") == 1


def test_policy_config_disabled_rules_do_not_run(tmp_path, capsys):
    config = write(tmp_path / "c.json", {"kubernetes-api-not-public": "disabled",
                                         "kubernetes-api-endpoint-restricted": "disabled",
                                         "no-internet-ingress": "disabled"})  # the three rules the open API meets
    code, out, _ = preview(capsys, *open_api_stack(tmp_path), *pack_args(tmp_path, config))
    assert code == 0 and "no violations" in out


def test_policy_config_parameters_change_the_dev_stack_verdict(tmp_path, capsys):
    def run(config):
        return preview(capsys, "--stack", "dev", *pack_args(tmp_path, config))
    assert run({"rdma-node-pool-placement": {"allowedShapes": ["BM.GPU.H100.8"]}})[0] == 0
    code, out, _ = run({"rdma-node-pool-placement": {"allowedShapes": ["BM.GPU4.8"]}})
    assert code == 1 and "nodeShape is 'BM.GPU.H100.8'" in out
    assert run({"kubernetes-api-not-public": {"allowedApiCidrs": ["10.0.0.0/16"]}})[0] == 0
    code, out, _ = run({"kubernetes-api-not-public": {"allowedApiCidrs": ["192.168.0.0/16"]}})
    assert code == 1 and "outside allowedApiCidrs (192.168.0.0/16)" in out


def test_invalid_policy_config_exits_2_like_the_cli(tmp_path, capsys):
    config = write(tmp_path / "c.json", {"rdma-node-pool-placement": {"allowedShapes": []},
                                         "kubernetes-api-not-public": {"allowedApiCidrs": ["banana"]}})
    code, out, err = preview(capsys, "--stack", "dev", *pack_args(tmp_path, config))
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 2  # every pack's config is checked before any pack runs: both problems, in pack order
    assert lines[0].startswith("error: validating policy config: oke-rdma-security 0.2.0  kubernetes-api-not-public")
    assert lines[1].startswith("error: validating policy config: oke-rdma-placement 0.2.0  rdma-node-pool-placement: "
                               "allowedShapes: [] should be non-empty")
    for bad in ('{"x": ', '"advisory"', '{"all": "blocking"}'):
        code, _, err = preview(capsys, "--stack", "dev", *same_file(write(tmp_path / "b.json", bad)))
        assert code == 2 and err.startswith("error: ") and "Traceback" not in err


def test_policy_config_the_cli_ignores_is_warned_about(tmp_path, capsys):
    config = write(tmp_path / "c.json", {"kubernetes-api-not-pubilc": "disabled"})  # a typo: the CLI ignores it
    code, out, err = preview(capsys, *open_api_stack(tmp_path), *pack_args(tmp_path, config))
    diagnostics = " ".join(out.split("\nDiagnostics:\n", 1)[1].split())  # in the report, not above it
    assert code == 1 and "'kubernetes-api-not-pubilc', which is not a policy of this pack" in diagnostics


# --- --unknowns: a stack's first preview --------------------------------------------------------------------------
def test_dev_stack_first_preview_is_clean(capsys):
    code, out, _ = preview(capsys, "--stack", "dev", "--unknowns")
    assert code == 0 and "[first preview: computed values unknown]" in out
    # no violation at all; only the engine's advisory "can't run" notes for IAM statements that embed the (unknown)
    # cluster OCID — they run on the real text at `pulumi up`
    findings = [line.strip() for line in out.split("Policies:")[1].split("\n\n")[0].splitlines()[1:]]
    advisories = [f for f in findings if f.startswith("- [")]
    assert advisories and all(f.startswith("- [advisory]  ") and "iam-" in f and "can't be known during preview" in f
                              for f in advisories)
    assert len(advisories) == len({f.split(": ", 1)[1] for f in advisories})  # one line per reason


_PROGRAM = textwrap.dedent('''
    """Another team's GPU stack, hand-written with pulumi_oci (no oke-rdma components). FLAW picks one mistake."""
    import pulumi_oci as oci

    FLAW = "{flaw}"
    C = "ocid1.compartment.oc1..team"
    vcn = oci.core.Vcn("vcn", compartment_id=C, cidr_blocks=["10.1.0.0/16"])
    subnet = oci.core.Subnet("nodes", compartment_id=C, vcn_id=vcn.id, cidr_block="10.1.1.0/24",
                             prohibit_public_ip_on_vnic=True)
    nsg = oci.core.NetworkSecurityGroup("api", compartment_id=C, vcn_id=vcn.id)
    oci.core.NetworkSecurityGroupSecurityRule(
        "api-clients", network_security_group_id=nsg.id, direction="INGRESS", protocol="6",
        source="0.0.0.0/0" if FLAW == "api-rule-open" else "203.0.113.0/24", source_type="CIDR_BLOCK",
        tcp_options={{"destination_port_range": {{"min": 6443, "max": 6443}}}})
    oci.core.NetworkSecurityGroupSecurityRule(
        "ssh", network_security_group_id=nsg.id, direction="INGRESS", protocol="6",
        source="0.0.0.0/0" if FLAW == "ssh" else "10.1.0.0/16", source_type="CIDR_BLOCK",
        tcp_options={{"destination_port_range": {{"min": 22, "max": 22}}}})
    # The worker NSG and the flows OKE needs between it and the control-plane NSG ("api"), allowed on both sides
    workers = oci.core.NetworkSecurityGroup("workers", compartment_id=C, vcn_id=vcn.id)
    for name, src, dst, protocol, port in (("workers-api", workers, nsg, "6", 6443),
                                           ("workers-proxymux", workers, nsg, "6", 12250),
                                           ("workers-mtu", workers, nsg, "1", None),
                                           ("api-kubelet", nsg, workers, "6", 10250),
                                           ("api-mtu", nsg, workers, "1", None)):
        tcp = {{"destination_port_range": {{"min": port, "max": port}}}} if port else None
        icmp = {{"type": 3, "code": 4}} if protocol == "1" else None  # path-MTU discovery
        oci.core.NetworkSecurityGroupSecurityRule(
            f"{{name}}-out", network_security_group_id=src.id, direction="EGRESS", protocol=protocol,
            destination=dst.id, destination_type="NETWORK_SECURITY_GROUP", tcp_options=tcp, icmp_options=icmp)
        oci.core.NetworkSecurityGroupSecurityRule(
            f"{{name}}-in", network_security_group_id=dst.id, direction="INGRESS", protocol=protocol,
            source=src.id, source_type="NETWORK_SECURITY_GROUP", tcp_options=tcp, icmp_options=icmp)
    public = FLAW in ("public-no-nsg", "api-rule-open")
    cluster = oci.containerengine.Cluster(
        "oke", compartment_id=C, vcn_id=vcn.id, kubernetes_version="v1.31.1",
        type="BASIC_CLUSTER" if FLAW == "basic" else "ENHANCED_CLUSTER",
        endpoint_config={{"subnet_id": subnet.id, "is_public_ip_enabled": public,
                          "nsg_ids": [] if FLAW == "public-no-nsg" else [nsg.id]}})
    cc = oci.core.ComputeCluster("cc", availability_domain="AD-1", compartment_id=C)
    oci.identity.Policy("launch", compartment_id=C, description="node pools launch into the Compute Cluster",
                        statements=["Allow any-user to {{COMPUTE_CLUSTER_LAUNCH_INSTANCE}} in compartment id " + C
                                    + " where request.principal.type = 'nodepool'"])
    placements = [{{"availability_domain": "AD-1", "subnet_id": subnet.id}}]
    if FLAW == "fault-domains":
        placements[0]["fault_domains"] = ["FAULT-DOMAIN-1"]
    oci.containerengine.NodePool(
        "gpu", cluster_id=cluster.id, compartment_id=C, node_shape="BM.GPU.H100.8",
        node_metadata={{"areLegacyImdsEndpointsDisabled": "true"}},
        node_config_details={{"size": 2, "compute_cluster_id": cc.id, "placement_configs": placements,
                              "nsg_ids": [workers.id],
                              "is_pv_encryption_in_transit_enabled": True}})
''')

#: rule → the one flaw that only it catches (the api-rule-open flaw is caught by two rules; each is tested alone)
FLAWS = {"rdma-node-pool-placement": "fault-domains", "rdma-cluster-enhanced": "basic",
         "kubernetes-api-not-public": "public-no-nsg", "kubernetes-api-endpoint-restricted": "api-rule-open",
         "no-internet-ssh-or-all-ports": "ssh"}


def _team_stack(tmp_path: Path, flaw: str) -> list[str]:
    program = write(tmp_path / f"{flaw}.py", _PROGRAM.format(flaw=flaw))
    stack = write(tmp_path / "Pulumi.team.yaml", "config:\n  oci:region: sa-saopaulo-1\n")
    return ["--config-file", str(stack), "--program", str(program), "--unknowns"]


def test_the_hand_written_stack_without_a_flaw_is_clean_on_its_first_preview(tmp_path, capsys):
    code, out, _ = preview(capsys, *_team_stack(tmp_path, "none"))
    assert code == 0, out
    assert "no violations" in out and "oci:Core/computeCluster:ComputeCluster" in out


@pytest.mark.parametrize("rule", PLACEMENT_AND_EXPOSURE)
def test_every_placement_and_exposure_rule_still_fails_a_bad_first_preview(rule, tmp_path, capsys):
    """With every id unknown (--unknowns), the one rule left enabled still exits 1 on its flaw."""
    only = write(tmp_path / "only.json", {"all": "disabled", rule: "mandatory"})
    code, out, _ = preview(capsys, *_team_stack(tmp_path, FLAWS[rule]), *pack_args(tmp_path, only))
    assert code == 1, out
    assert f"[mandatory]  {rule}" in out and out.count("[mandatory]") >= 1
    assert "can't run policy" not in out


def test_placement_and_exposure_rules_are_all_tested():
    assert set(FLAWS) == set(PLACEMENT_AND_EXPOSURE) and set(PLACEMENT_AND_EXPOSURE) <= set(RULES)


# --- reuse: another team's stack, run in-process ------------------------------------------------------------------
def _oke_nsgs(c: str, vcn: oci.core.Vcn) -> tuple[oci.core.NetworkSecurityGroup, oci.core.NetworkSecurityGroup]:
    """A control-plane and a worker NSG with the flows OKE needs between them, each allowed on both sides."""
    cp = oci.core.NetworkSecurityGroup("cp", compartment_id=c, vcn_id=vcn.id)
    workers = oci.core.NetworkSecurityGroup("workers", compartment_id=c, vcn_id=vcn.id)
    for name, src, dst, protocol, port in (("workers-api", workers, cp, "6", 6443),
                                           ("workers-proxymux", workers, cp, "6", 12250),
                                           ("workers-mtu", workers, cp, "1", None),
                                           ("cp-kubelet", cp, workers, "6", 10250),
                                           ("cp-mtu", cp, workers, "1", None)):
        tcp = {"destination_port_range": {"min": port, "max": port}} if port else None
        icmp = {"type": 3, "code": 4} if protocol == "1" else None  # path-MTU discovery
        oci.core.NetworkSecurityGroupSecurityRule(
            f"{name}-out", network_security_group_id=src.id, direction="EGRESS", protocol=protocol,
            destination=dst.id, destination_type="NETWORK_SECURITY_GROUP", tcp_options=tcp, icmp_options=icmp)
        oci.core.NetworkSecurityGroupSecurityRule(
            f"{name}-in", network_security_group_id=dst.id, direction="INGRESS", protocol=protocol,
            source=src.id, source_type="NETWORK_SECURITY_GROUP", tcp_options=tcp, icmp_options=icmp)
    return cp, workers


def _other_team(mistakes: bool):
    """Raw pulumi_oci and pulumi_kubernetes resources, as a project that does not use oke-rdma would write them."""
    c = "ocid1.compartment.oc1..other"
    vcn = oci.core.Vcn("vcn", compartment_id=c, cidr_blocks=["10.2.0.0/16"])
    if not mistakes:  # node pools in a Compute Cluster need the launch statement
        oci.identity.Policy("launch", compartment_id=c, description="node pools launch into the Compute Cluster",
                            statements=["Allow any-user to {COMPUTE_CLUSTER_LAUNCH_INSTANCE} in compartment id " + c
                                        + " where request.principal.type = 'nodepool'"])
    oci.core.DefaultSecurityList("default", manage_default_resource_id=vcn.default_security_list_id,
                                 ingress_security_rules=[{"protocol": "6", "source": "0.0.0.0/0" if mistakes
                                                          else "10.2.0.0/16", "tcp_options": {"min": 22, "max": 22}}])
    oci.core.SecurityList("workers", compartment_id=c, vcn_id=vcn.id, ingress_security_rules=[
        {"protocol": "all", "source": "::/0" if mistakes else "10.2.0.0/16"}])
    cp_nsgs, worker_nsgs = ([], []) if mistakes else ([n.id] for n in _oke_nsgs(c, vcn))  # the mistake: no NSGs
    cluster = oci.containerengine.Cluster(
        "oke", compartment_id=c, vcn_id=vcn.id, kubernetes_version="v1.31.1",
        **({} if mistakes else {"type": "ENHANCED_CLUSTER"}),
        endpoint_config={"subnet_id": "ocid1.subnet.oc1..s", "is_public_ip_enabled": mistakes, "nsg_ids": cp_nsgs})
    oci.containerengine.NodePool(
        "h100", cluster_id=cluster.id, compartment_id=c, node_shape="BM.GPU.H100.8",
        node_metadata={"areLegacyImdsEndpointsDisabled": "false" if mistakes else "true"},
        node_config_details={"size": 4, "compute_cluster_id": "ocid1.computecluster.oc1..existing",
                             "nsg_ids": worker_nsgs,
                             "is_pv_encryption_in_transit_enabled": not mistakes,
                             "placement_configs": [{"availability_domain": f"AD-{i}", "subnet_id": "s"}
                                                   for i in ((1, 2) if mistakes else (1,))]})
    provider = k8s.Provider("k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
    labels = {} if mistakes else {"pod-security.kubernetes.io/enforce": "restricted"}
    ns = k8s.core.v1.Namespace("training", metadata={"name": "training", "labels": labels}, opts=pulumi.ResourceOptions(
        provider=provider))
    k8s.apps.v1.Deployment("trainer", metadata={"namespace": ns.metadata["name"]}, spec={
        "selector": {"matchLabels": {"app": "t"}}, "template": {"metadata": {"labels": {"app": "t"}}, "spec": {
            "containers": [{"name": "t", "image": "nvcr.io/nvidia/pytorch:25.01-py3"}]}}},
        opts=pulumi.ResourceOptions(provider=provider))
    pulumi.export("clusterId", cluster.id)


@pytest.mark.parametrize("unknowns", [False, True])
def test_the_pack_catches_another_teams_mistakes(unknowns):
    config = {"oci:region": "us-ashburn-1"}
    bad = run_program(config, [], "other", unknowns=unknowns, program=lambda: _other_team(True))
    report = evaluate_packs(PACK_DIRS, bad.analyzed_resources())
    found = {(v.policy, v.urn.rsplit("::", 1)[-1]) for v in report.violations}
    assert found == {("no-internet-ssh-or-all-ports", "default"), ("no-internet-ssh-or-all-ports", "workers"),
                     ("kubernetes-api-not-public", "workers"), ("kubernetes-api-not-public", "oke"),
                     ("rdma-node-pool-placement", "h100"), ("rdma-cluster-enhanced", "oke"),
                     ("node-pool-imds-v2-only", "h100"), ("node-pool-pv-encryption-in-transit", "h100"),
                     ("iam-compute-cluster-launch-statement", "h100"),
                     ("namespace-pod-security-enforce", "training"),
                     # the same internet-open lists, and no NSG to hold the rules OKE needs
                     ("no-internet-ingress", "default"), ("no-internet-ingress", "workers"),
                     ("oke-required-nsg-rules", "oke")}
    assert has_mandatory(report) and report.not_run == []
    good = run_program(config, [], "other", unknowns=unknowns, program=lambda: _other_team(False))
    clean = evaluate_packs(PACK_DIRS, good.analyzed_resources())
    assert clean.violations == [] and clean.not_run == []
    assert {r.type for r in good.resources} >= {"kubernetes:apps/v1:Deployment", "kubernetes:core/v1:Namespace"}


def test_stack_rules_see_the_root_stack_as_parent_like_the_engine():
    """As pulumi-policy's parent_dependencies integration test: top-level resources have the root stack as parent,
    and the stack resource carries the stack outputs."""
    seen = {}

    def look(args, report_violation):
        stack = next(r for r in args.resources if r.resource_type == "pulumi:pulumi:Stack")
        vcn = next(r for r in args.resources if r.name == "vcn")
        seen.update(parent_is_stack=vcn.parent is stack, stack_parent=stack.parent, outputs=dict(stack.props))

    run = run_program({"oci:region": "us-ashburn-1"}, [], "other", program=lambda: _other_team(False))
    evaluate([StackValidationPolicy(name="look", description="d", validate=look)], run.analyzed_resources(), "pk")
    assert seen["parent_is_stack"] and seen["stack_parent"] is None
    assert seen["outputs"]["clusterId"].startswith("ocid1.cluster.")
