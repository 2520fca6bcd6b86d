"""Tests for the oke-rdma policy pack (policies/): every rule passes, fails, and meets unknown values.

Props are built the way the engine builds them: wire-form JSON (unknowns as the engine's sentinel, secrets wrapped)
→ ``deserialize_properties`` → ``unknown_checking_proxy``; rules are exercised through
``offline.policy_eval.evaluate`` and by calling the rule functions directly.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from pulumi_policy import EnforcementLevel, ResourceValidationArgs, ResourceValidationPolicy, StackValidationPolicy
from pulumi_policy.deserialize import deserialize_properties
from pulumi_policy.proxy import unknown_checking_proxy

from offline.policy_eval import EngineResource, evaluate_packs, has_mandatory
from policies import PACK_DIRS
from policies.placement import placement
from policies.security import network
from policies.security._rules import UNKNOWN, nsg_rule
from policies.placement import pack as placement_pack
from policies.security import pack as security_pack

#: Every policy of both packs (names are unique across packs: test_pack_metadata).
POLICIES = [*security_pack.POLICIES, *placement_pack.POLICIES]
PACKS = (security_pack, placement_pack)

ROOT = Path(__file__).resolve().parents[2]
U = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # the engine's "unknown during preview" sentinel
SECRET_SIG = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}

NODE_POOL, CLUSTER = "oci:ContainerEngine/nodePool:NodePool", "oci:ContainerEngine/cluster:Cluster"
NSG = "oci:Core/networkSecurityGroup:NetworkSecurityGroup"
NSG_RULE = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"
SL, DSL = "oci:Core/securityList:SecurityList", "oci:Core/defaultSecurityList:DefaultSecurityList"


def urn(type_: str, name: str) -> str:
    return f"urn:pulumi:dev::oke-rdma::{type_}::{name}"


def res(type_: str, name: str, inputs: dict | None = None, outputs: dict | None = None,
        deps: dict[str, list[EngineResource]] | None = None) -> EngineResource:
    """A registration; ``outputs`` default to the inputs (what a preview of a create shows)."""
    inputs = inputs or {}
    pd = {k: [d.urn for d in v] for k, v in (deps or {}).items()}
    return EngineResource(urn=urn(type_, name), type=type_, name=name, custom=True, inputs=inputs,
                          outputs=inputs if outputs is None else outputs, property_dependencies=pd,
                          dependencies=sorted({u for v in pd.values() for u in v}))


def run(*resources: EngineResource, policy: str | None = None):
    """Evaluate both packs (optionally only one policy: every other disabled)."""
    config = {"all": "disabled", policy: "mandatory"} if policy else None
    return evaluate_packs(PACK_DIRS, list(resources), [config] * len(PACK_DIRS) if config else ())


def messages(report, policy: str) -> list[str]:
    return [v.message for v in report.violations if v.policy == policy]


def proxied(wire: dict):
    return unknown_checking_proxy(deserialize_properties(wire))


def call_resource_rule(fn, type_: str, wire: dict) -> list[str]:
    """Call a resource rule function directly, like the servicer does."""
    found: list[str] = []
    args = ResourceValidationArgs(type_, proxied(wire), urn(type_, "r"), "r", None, None)  # type: ignore[arg-type]
    fn(args, lambda message, u=None: found.append(message))
    return found


# --- node pools -------------------------------------------------------------------------------------------------------
def pool(cc_id=None, placements=None, **extra) -> dict:
    details = {"size": 2.0, "placementConfigs": placements if placements is not None else [
        {"availabilityDomain": "Uocm:SA-SAOPAULO-1-AD-1", "subnetId": U}]}
    if cc_id is not None:
        details["computeClusterId"] = cc_id
    return {"clusterId": U, "compartmentId": "ocid1.compartment.oc1..c", "nodeShape": "BM.GPU.H100.8",
            "nodeConfigDetails": details, **extra}


PLACEMENT = "rdma-node-pool-placement"
THREE_ADS = [{"availabilityDomain": f"AD-{i}", "subnetId": "s", "faultDomains": ["FAULT-DOMAIN-1"]} for i in (1, 2, 3)]


def test_placement_passes_for_one_placement_without_fault_domains():
    assert messages(run(res(NODE_POOL, "gpu", pool("ocid1.computecluster.oc1..x")), policy=PLACEMENT), PLACEMENT) == []


def test_placement_ignores_pools_outside_a_compute_cluster():
    assert messages(run(res(NODE_POOL, "cpu", pool(None, THREE_ADS)), policy=PLACEMENT), PLACEMENT) == []
    assert placement.placement_problems(proxied({"nodeShape": "VM.Standard.E5.Flex"})) == []


def test_placement_fails_on_several_placement_configs():
    report = run(res(NODE_POOL, "gpu", pool("ocid1.computecluster.oc1..x", THREE_ADS)), policy=PLACEMENT)
    [message] = messages(report, PLACEMENT)
    assert message.startswith(placement.rdma_node_pool_placement.description + "\n")
    assert "has 3 entries" in message and "exactly one" in message
    assert report.violations[0].enforcement_level == "mandatory" and has_mandatory(report)


def test_placement_fails_on_fault_domains():
    p = pool("ocid1.computecluster.oc1..x", [{"availabilityDomain": "AD-1", "subnetId": "s",
                                              "faultDomains": ["FAULT-DOMAIN-1", "FAULT-DOMAIN-2"]}])
    [message] = messages(run(res(NODE_POOL, "gpu", p), policy=PLACEMENT), PLACEMENT)
    assert "faultDomains is [FAULT-DOMAIN-1, FAULT-DOMAIN-2]" in message and "remove faultDomains" in message


def test_placement_still_runs_when_compute_cluster_id_is_unknown():
    """A Compute Cluster created in the same preview has no OCID yet: the pool still counts as placed in one."""
    bad = pool(U, [{"availabilityDomain": "AD-1", "subnetId": U, "faultDomains": ["FAULT-DOMAIN-1"]}])
    report = run(res(NODE_POOL, "gpu", bad), policy=PLACEMENT)
    assert len(messages(report, PLACEMENT)) == 1 and report.not_run == []
    good = run(res(NODE_POOL, "gpu", pool(U)), policy=PLACEMENT)
    assert good.violations == [] and good.not_run == []


def test_placement_sees_a_secret_compute_cluster_id():
    p = pool({**SECRET_SIG, "value": "ocid1.computecluster.oc1..x"}, THREE_ADS)
    assert len(messages(run(res(NODE_POOL, "gpu", p), policy=PLACEMENT), PLACEMENT)) == 1


@pytest.mark.parametrize("placements, expected", [
    (U, "placementConfigs is unknown during preview"),
    ([U], "placementConfigs[0] is unknown during preview"),
    ([{"availabilityDomain": "AD-1", "subnetId": "s", "faultDomains": U}], "faultDomains is set but unknown"),
    ([{"availabilityDomain": "AD-1", "faultDomains": [U]}], "faultDomains is [?]"),
])
def test_placement_fails_closed_on_unknown_placement(placements, expected):
    [message] = messages(run(res(NODE_POOL, "gpu", pool(U, placements)), policy=PLACEMENT), PLACEMENT)
    assert expected in message


def test_placement_whole_node_config_unknown_is_reported_as_not_run():
    report = run(res(NODE_POOL, "gpu", {"clusterId": U, "nodeConfigDetails": U}), policy=PLACEMENT)
    assert report.violations == []
    [nr] = report.not_run
    assert nr.enforcement_level == "advisory" and nr.urn == urn(NODE_POOL, "gpu")
    assert nr.message == (f"can't run policy '{PLACEMENT}' from policy pack '{placement_pack.PACK_NAME}@v0.0.1' during preview: "
                          "string value at .nodeConfigDetails can't be known during preview")


def test_placement_rule_function_called_directly():
    found = call_resource_rule(placement.validate_node_pool_placement, NODE_POOL, pool(U, THREE_ADS))
    assert len(found) == 1 and "has 3 entries" in found[0]
    assert call_resource_rule(placement.validate_node_pool_placement, CLUSTER, pool(U, THREE_ADS)) == []


# --- enhanced cluster -------------------------------------------------------------------------------------------------
ENHANCED = "rdma-cluster-enhanced"


def cluster(type_: str | None = "ENHANCED_CLUSTER", public=False, nsg_ids=None, **extra) -> dict:
    props = {"compartmentId": "c", "kubernetesVersion": "v1.31.1", "vcnId": U,
             "endpointConfig": {"subnetId": U, "isPublicIpEnabled": public, **({"nsgIds": nsg_ids}
                                                                                 if nsg_ids is not None else {})},
             **extra}
    if type_ is not None:
        props["type"] = type_
    return props


def stack_with(cluster_props: dict, pool_props: dict, link: bool = True):
    c = res(CLUSTER, "oke", cluster_props)
    p = res(NODE_POOL, "gpu", pool_props, deps={"clusterId": [c]} if link else None)
    return c, p


def test_enhanced_passes_when_cluster_is_enhanced():
    c, p = stack_with(cluster(), pool(U))
    assert messages(run(c, p, policy=ENHANCED), ENHANCED) == []


@pytest.mark.parametrize("type_, expected", [
    ("BASIC_CLUSTER", "its type is 'BASIC_CLUSTER'; set type='ENHANCED_CLUSTER'"),
    (None, "it does not set type, so OCI creates a BASIC_CLUSTER"),
    (U, "its type is unknown during preview"),  # fail closed: stack rules run after creation at `pulumi up`
])
def test_enhanced_fails_for_other_or_unknown_types(type_, expected):
    c, p = stack_with(cluster(type_), pool(U))
    report = run(c, p, policy=ENHANCED)
    [v] = report.violations
    assert v.urn == c.urn and v.policy_type == "stack" and expected in v.message and "'gpu'" in v.message


def test_enhanced_ignores_pools_outside_a_compute_cluster():
    c, p = stack_with(cluster("BASIC_CLUSTER"), pool(None))
    assert run(c, p, policy=ENHANCED).violations == []


def test_enhanced_falls_back_to_ids_when_there_is_no_property_dependency():
    c = res(CLUSTER, "oke", cluster("BASIC_CLUSTER"), outputs={**cluster("BASIC_CLUSTER"), "id": "ocid1.cluster.x"})
    p = res(NODE_POOL, "gpu", pool("ocid1.cc", clusterId="ocid1.cluster.x"))
    [v] = run(c, p, policy=ENHANCED).violations
    assert v.urn == c.urn


def test_enhanced_untraceable_cluster_fails_closed_and_external_cluster_passes():
    c, p = stack_with(cluster("BASIC_CLUSTER"), pool(U), link=False)  # clusterId unknown, no dependency
    [v] = run(c, p, policy=ENHANCED).violations
    assert v.urn == p.urn and "cannot be identified" in v.message
    external = res(NODE_POOL, "gpu", pool(U, clusterId="ocid1.cluster.elsewhere"))
    assert run(c, external, policy=ENHANCED).violations == []


# --- Kubernetes API ---------------------------------------------------------------------------------------------------
API, API_STACK = "kubernetes-api-not-public", "kubernetes-api-endpoint-restricted"


def rule(source="0.0.0.0/0", protocol="6", ports=(6443, 6443), direction="INGRESS", source_type="CIDR_BLOCK",
         nsg_id=U, **extra) -> dict:
    props = {"networkSecurityGroupId": nsg_id, "direction": direction, "protocol": protocol, "stateless": False}
    if direction == "INGRESS":
        props.update(source=source, sourceType=source_type)
    else:
        props.update(destination=source, destinationType=source_type)
    if ports is not None:
        opts = ports if ports == U else {"destinationPortRange": {"min": float(ports[0]), "max": float(ports[1])}}
        props["tcpOptions" if protocol == "6" else "udpOptions"] = opts
    return {**props, **extra}


@pytest.mark.parametrize("props", [cluster(public=False), cluster(public=None), cluster(public=True, nsg_ids=[U])])
def test_api_passes_for_private_or_nsg_restricted_endpoints(props):
    assert run(res(CLUSTER, "oke", props), policy=API).violations == []


@pytest.mark.parametrize("props, expected", [
    (cluster(public=True), "public (isPublicIpEnabled: true) and has no NSG"),
    (cluster(public=True, nsg_ids=[]), "has no NSG"),
    ({"compartmentId": "c", "type": "ENHANCED_CLUSTER"}, "has no endpointConfig"),
    (cluster(public=U), "isPublicIpEnabled is unknown during preview"),  # fail closed
    (cluster(public=True, nsg_ids=U), "nsgIds is unknown during preview"),  # fail closed
    ({"endpointConfig": U}, "isPublicIpEnabled is unknown during preview"),  # fail closed
])
def test_api_fails_for_public_or_unverifiable_endpoints(props, expected):
    [v] = run(res(CLUSTER, "oke", props), policy=API).violations
    assert expected in v.message and v.urn == urn(CLUSTER, "oke")


@pytest.mark.parametrize("props, ok", [
    (rule(), False),
    (rule(source="::/0", ports=None), False),  # TCP without a port range = every port, 6443 included
    (rule(protocol="all", ports=None), False),
    (rule(ports=(1, 65535)), False),
    (rule(source="10.0.0.0/16"), True),
    (rule(ports=(443, 443)), True),
    (rule(direction="EGRESS"), True),
    (rule(source=U, source_type="NETWORK_SECURITY_GROUP"), True),  # an NSG peer is never the internet
    (rule(source=U, ports=(443, 443)), True),  # unknown source, but the port is known not to be 6443
])
def test_api_nsg_rules(props, ok):
    assert (run(res(NSG_RULE, "r", props), policy=API).violations == []) is ok


def test_api_nsg_rule_with_unknown_source_fails_closed():
    [v] = run(res(NSG_RULE, "r", rule(source=U)), policy=API).violations
    assert "cannot be verified during preview because source is unknown" in v.message
    assert "NSG rule 'r' (INGRESS TCP 6443 from ?)" in v.message


def test_api_security_list_entries():
    open_entry = {"protocol": "6", "source": "0.0.0.0/0", "tcpOptions": {"min": 6443.0, "max": 6443.0}}
    closed_entry = {**open_entry, "source": "10.0.0.0/8"}
    [v] = run(res(SL, "cp", {"ingressSecurityRules": [closed_entry, open_entry]}), policy=API).violations
    assert "security list 'cp' ingressSecurityRules[1] (INGRESS TCP 6443 from 0.0.0.0/0)" in v.message
    assert run(res(SL, "cp", {"ingressSecurityRules": [closed_entry]}), policy=API).violations == []


def test_api_rule_functions_called_directly():
    assert "has no NSG" in call_resource_rule(network.validate_kubernetes_api_not_public, CLUSTER,
                                              cluster(public=True))[0]
    assert network.endpoint_problem(proxied(cluster(public=False))) is None
    verdict, _ = network.api_port_verdict(nsg_rule(proxied(rule(source=U)), "r"))
    assert verdict is UNKNOWN


def endpoint_stack(rule_props: dict, public=True, link_rule=True):
    nsg = res(NSG, "cp-nsg", {"compartmentId": "c", "vcnId": U})
    c = res(CLUSTER, "oke", cluster(public=public, nsg_ids=[U]), deps={"endpointConfig": [nsg]})
    r = res(NSG_RULE, "cp-6443", rule_props, deps={"networkSecurityGroupId": [nsg]} if link_rule else None)
    return nsg, c, r


def test_api_stack_passes_for_restricted_public_endpoint():
    assert run(*endpoint_stack(rule(source="203.0.113.0/24")), policy=API_STACK).violations == []


def test_api_stack_reports_the_open_rule_on_the_cluster():
    nsg, c, r = endpoint_stack(rule())
    [v] = run(nsg, c, r, policy=API_STACK).violations
    assert v.urn == c.urn and "NSG rule 'cp-6443'" in v.message and "reachable from the internet" in v.message
    both = run(nsg, c, r)  # the resource rule flags the rule itself too
    assert {x.policy for x in both.violations} == {API, API_STACK, "no-internet-ingress"}


def test_api_stack_ignores_private_endpoints_and_unlinked_rules():
    assert run(*endpoint_stack(rule(), public=False), policy=API_STACK).violations == []
    assert run(*endpoint_stack(rule(), link_rule=False), policy=API_STACK).violations == []


def test_api_stack_fails_closed_on_unknown_rule_source_and_foreign_nsgs():
    [v] = run(*endpoint_stack(rule(source=U)), policy=API_STACK).violations
    assert "cannot be verified during preview because source is unknown" in v.message
    c = res(CLUSTER, "oke", cluster(public=True, nsg_ids=["ocid1.networksecuritygroup.elsewhere"]))
    [v] = run(c, policy=API_STACK).violations
    assert "ocid1.networksecuritygroup.elsewhere are not managed in this stack" in v.message


def test_api_stack_links_existing_resources_by_id():
    nsg = res(NSG, "cp-nsg", {"vcnId": "v"}, outputs={"vcnId": "v", "id": "ocid1.nsg.a"})
    c = res(CLUSTER, "oke", cluster(public=True, nsg_ids=["ocid1.nsg.a"]))
    r = res(NSG_RULE, "open", rule(nsg_id="ocid1.nsg.a"))
    [v] = run(nsg, c, r, policy=API_STACK).violations
    assert v.urn == c.urn and "'open'" in v.message


# --- SSH and all ports ------------------------------------------------------------------------------------------------
SSH = "no-internet-ssh-or-all-ports"


@pytest.mark.parametrize("props, expected", [
    (rule(ports=(22, 22)), "opens SSH (TCP 22) to the internet"),
    (rule(source="::/0", ports=(20, 25)), "opens SSH (TCP 22) to the internet"),
    (rule(protocol="all", ports=None), "opens SSH (TCP 22) and all ports"),
    (rule(ports=None), "opens SSH (TCP 22) and all ports"),
    (rule(protocol="17", ports=None), "opens all ports"),
    (rule(ports=(22, 22), source=U), "cannot be verified during preview because source is unknown"),
    (rule(ports=U), "cannot be verified during preview because tcpOptions is unknown"),
    (rule(protocol=U, ports=None), "cannot be verified during preview because protocol is unknown"),
])
def test_ssh_nsg_rule_violations(props, expected):
    [v] = run(res(NSG_RULE, "r", props), policy=SSH).violations
    assert expected in v.message and v.message.startswith(network.no_internet_ssh_or_all_ports.description + "\n")


@pytest.mark.parametrize("props", [
    rule(ports=(22, 22), source="10.0.0.0/16"),
    rule(protocol="17", ports=(53, 53)),
    rule(protocol="1", ports=None, icmpOptions={"type": 3.0, "code": 4.0}),  # path MTU discovery from anywhere
    rule(ports=(443, 443)),
    rule(ports=(443, 443), source=U),  # unknown source, harmless port: passes (Kleene)
    rule(protocol="all", ports=None, direction="EGRESS"),
    rule(protocol="all", ports=None, source=U, source_type="SERVICE_CIDR_BLOCK"),
    rule(protocol="all", ports=None, source=U, source_type="NETWORK_SECURITY_GROUP"),
])
def test_ssh_nsg_rule_passes(props):
    assert run(res(NSG_RULE, "r", props), policy=SSH).violations == []


@pytest.mark.parametrize("rtype", [SL, DSL])
def test_ssh_security_lists(rtype):
    oci_default = [{"protocol": "6", "source": "0.0.0.0/0", "tcpOptions": {"min": 22.0, "max": 22.0}},
                   {"protocol": "1", "source": "0.0.0.0/0", "icmpOptions": {"type": 3.0, "code": 4.0}}]
    [v] = run(res(rtype, "default", {"ingressSecurityRules": oci_default}), policy=SSH).violations
    assert "ingressSecurityRules[0] (INGRESS TCP 22 from 0.0.0.0/0) opens SSH" in v.message
    only_source_ports = [{"protocol": "6", "source": "0.0.0.0/0",
                          "tcpOptions": {"sourcePortRange": {"min": 1024.0, "max": 65535.0}}}]
    [v] = run(res(rtype, "sl", {"ingressSecurityRules": only_source_ports}), policy=SSH).violations
    assert "TCP all ports" in v.message
    assert run(res(rtype, "locked", {"ingressSecurityRules": [], "egressSecurityRules": []}),
               policy=SSH).violations == []


def test_ssh_security_list_unknowns_fail_closed():
    [v] = run(res(SL, "sl", {"ingressSecurityRules": U}), policy=SSH).violations
    assert "ingressSecurityRules is unknown during preview" in v.message
    [v] = run(res(SL, "sl", {"ingressSecurityRules": [U]}), policy=SSH).violations
    assert "cannot be verified during preview" in v.message


def test_ssh_rule_function_called_directly():
    found = call_resource_rule(network.validate_no_internet_ssh_or_all_ports, NSG_RULE, rule(ports=(22, 22)))
    assert len(found) == 1 and "OCI Bastion" in found[0]
    assert call_resource_rule(network.validate_no_internet_ssh_or_all_ports, CLUSTER, cluster()) == []


# --- the pack itself --------------------------------------------------------------------------------------------------
def test_pack_metadata():
    names = [p.name for p in POLICIES]
    assert (security_pack.PACK_NAME, placement_pack.PACK_NAME) == ("oke-rdma-security", "oke-rdma-placement")
    assert len(names) == len(set(names))  # unique across packs too: one policy-config file can name any of them
    assert {"rdma-node-pool-placement", "rdma-cluster-enhanced", "kubernetes-api-not-public",
            "no-internet-ssh-or-all-ports"} <= set(names)
    advisory = {"node-pool-imds-v2-only", "node-pool-pv-encryption-in-transit", "instance-imds-v2-only",  # hardening
                "fss-export-no-internet",  # a deliberate, documented choice (policies/security/storage.py)
                "bucket-protected-data-customer-key",  # Oracle-managed encryption is on regardless (buckets.py)
                "cluster-oidc-discovery-off"}  # a reviewed federation may need it (cluster_auth.py)
    for p in POLICIES:
        level = EnforcementLevel.ADVISORY if p.name in advisory else EnforcementLevel.MANDATORY
        assert p.enforcement_level == level and p.severity and p.remediation_steps
        assert p.description and all(part.isalnum() for part in p.name.split("-"))
        assert isinstance(p, (ResourceValidationPolicy, StackValidationPolicy))


@pytest.mark.parametrize("pack", PACKS, ids=lambda m: m.PACK_NAME)
def test_pack_files(pack):
    """Each pack directory is a complete Python policy pack on its own: PulumiPolicy.yaml naming the pack, pinned
    requirements, and no import of the program or of a file outside the directory."""
    import yaml

    directory = ROOT / "policies" / pack.__name__.split(".")[1]
    meta = yaml.safe_load((directory / "PulumiPolicy.yaml").read_text())
    assert meta["runtime"]["name"] == "python" and meta["runtime"]["options"]["virtualenv"] == "venv"
    assert meta["version"] == "0.2.0" and meta["description"] and meta["name"] == pack.PACK_NAME
    reqs = (directory / "requirements.txt").read_text().split()
    # the security pack parses quota quantities with the Kubernetes client's parser (_pss.gpu_quantity)
    extra = ["kubernetes==35.0.0"] if pack.PACK_NAME == "oke-rdma-security" else []
    assert reqs == ["pulumi==3.272.0", "pulumi-policy==1.21.0", *extra]
    # the offline preview runs a pack without a venv/ with the project's (development) interpreter: the pins agree
    project = [line for name in ("requirements.txt", "requirements-dev.txt")
               for line in (ROOT / name).read_text().split() if "==" in line]
    assert set(reqs) <= set(project)
    assert (directory / "__main__.py").is_file() and (directory / "__init__.py").is_file()
    for path in directory.glob("*.py"):
        text = path.read_text()
        assert "import oke_rdma" not in text and "from oke_rdma" not in text, path
        assert "from policies" not in text and "import policies" not in text and "from .." not in text, path
