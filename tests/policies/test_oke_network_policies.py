"""The OKE network policies (policies/security/oke_network.py): each passes, fails, and meets unknown values; a hand-written
stack of raw pulumi_oci resources (no components) is caught by the pack."""
from __future__ import annotations

import pulumi_oci as oci
import pytest

from offline.engine import run_program
from offline.policy_eval import evaluate
from policies.security import node_subnets, oke_network
from policies.security.pack import PACK_NAME, POLICIES
from tests.policies.test_policies import CLUSTER, NODE_POOL, NSG, NSG_RULE, SL, U, cluster, messages, pool, res, rule, run

REQUIRED, INTERNET, PRIVATE = "oke-required-nsg-rules", "no-internet-ingress", "node-subnets-private"
SUBNET = "oci:Core/subnet:Subnet"
COMP = "ocid1.compartment.oc1..aaaaaaaahandwritten"


# --- a hand-written stack: raw pulumi_oci resources, run through the offline engine --------------------------------
def hand_written(proxymux=True, public_workers=False, kubelet=True):
    """A minimal OKE stack as someone might write it without our components."""
    def program():
        vcn = oci.core.Vcn("vcn", compartment_id=COMP, cidr_blocks=["10.1.0.0/16"])
        cp = oci.core.NetworkSecurityGroup("cp-nsg", compartment_id=COMP, vcn_id=vcn.id)
        workers = oci.core.NetworkSecurityGroup("workers-nsg", compartment_id=COMP, vcn_id=vcn.id)
        cp_subnet = oci.core.Subnet("cp", compartment_id=COMP, vcn_id=vcn.id, cidr_block="10.1.0.0/28",
                                    prohibit_public_ip_on_vnic=True)
        w_subnet = oci.core.Subnet("workers", compartment_id=COMP, vcn_id=vcn.id, cidr_block="10.1.16.0/20",
                                   prohibit_public_ip_on_vnic=not public_workers)

        def pair(name, src, dst, protocol, ports=None, icmp=None):
            tcp = oci.core.NetworkSecurityGroupSecurityRuleTcpOptionsArgs(
                destination_port_range=oci.core.NetworkSecurityGroupSecurityRuleTcpOptionsDestinationPortRangeArgs(
                    min=ports, max=ports)) if ports else None
            icmp_args = oci.core.NetworkSecurityGroupSecurityRuleIcmpOptionsArgs(type=3, code=4) if icmp else None
            oci.core.NetworkSecurityGroupSecurityRule(f"{name}-out", network_security_group_id=src.id,
                                                      direction="EGRESS", protocol=protocol, destination=dst.id,
                                                      destination_type="NETWORK_SECURITY_GROUP", tcp_options=tcp,
                                                      icmp_options=icmp_args)
            oci.core.NetworkSecurityGroupSecurityRule(f"{name}-in", network_security_group_id=dst.id,
                                                      direction="INGRESS", protocol=protocol, source=src.id,
                                                      source_type="NETWORK_SECURITY_GROUP", tcp_options=tcp,
                                                      icmp_options=icmp_args)

        pair("api", workers, cp, "6", 6443)
        if proxymux:
            pair("proxymux", workers, cp, "6", 12250)
        pair("mtu-up", workers, cp, "1", icmp=True)
        if kubelet:
            pair("kubelet", cp, workers, "6", 10250)
        pair("mtu-down", cp, workers, "1", icmp=True)
        oke = oci.containerengine.Cluster("oke", compartment_id=COMP, vcn_id=vcn.id, kubernetes_version="v1.34.1",
                                          type="ENHANCED_CLUSTER",
                                          endpoint_config=oci.containerengine.ClusterEndpointConfigArgs(
                                              subnet_id=cp_subnet.id, nsg_ids=[cp.id], is_public_ip_enabled=False))
        oci.containerengine.NodePool("cpu", cluster_id=oke.id, compartment_id=COMP, kubernetes_version="v1.34.1",
                                     node_shape="VM.Standard.E5.Flex",
                                     node_metadata={"areLegacyImdsEndpointsDisabled": "true"},
                                     node_config_details=oci.containerengine.NodePoolNodeConfigDetailsArgs(
                                         size=2, nsg_ids=[workers.id], is_pv_encryption_in_transit_enabled=True,
                                         placement_configs=[
                                             oci.containerengine.NodePoolNodeConfigDetailsPlacementConfigArgs(
                                                 availability_domain="bxtG:SA-SAOPAULO-1-AD-1",
                                                 subnet_id=w_subnet.id)]))
    return program


def pack_on(program, unknowns: bool):
    recorded = run_program({"oci:region": "sa-saopaulo-1"}, [], "hand", unknowns=unknowns, program=program)
    return evaluate(POLICIES, recorded.resources, PACK_NAME)


@pytest.mark.parametrize("unknowns", [False, True])
def test_hand_written_stack_with_every_oke_rule_passes(unknowns):
    report = pack_on(hand_written(), unknowns)
    assert report.violations == [] and report.not_run == []


@pytest.mark.parametrize("unknowns", [False, True])
def test_control_plane_nsg_without_12250_is_refused_naming_12250(unknowns):
    """Workers reach 6443 but not 12250: the classic "nodes never register"."""
    report = pack_on(hand_written(proxymux=False), unknowns)
    found = messages(report, REQUIRED)
    assert len(found) == 2, found  # the control-plane ingress and the worker egress
    cp_msg = next(m for m in found if "control-plane NSG 'cp-nsg' has no INGRESS rule allowing TCP 12250" in m)
    assert "from the worker NSG 'workers-nsg'" in cp_msg and "nodes never register" in cp_msg
    assert any("worker NSG 'workers-nsg' has no EGRESS rule allowing TCP 12250 to the control-plane NSG 'cp-nsg'"
               in m for m in found)
    assert all("node pool 'cpu'" in m for m in found)


def test_missing_kubelet_rules_are_named():
    found = messages(pack_on(hand_written(kubelet=False), False), REQUIRED)
    assert len(found) == 2 and all("TCP 10250" in m for m in found)


@pytest.mark.parametrize("unknowns", [False, True])
def test_public_worker_subnet_is_refused(unknowns):
    [message] = messages(pack_on(hand_written(public_workers=True), unknowns), PRIVATE)
    assert "Subnet 'workers' hosts the" in message and "node pool 'cpu'" in message
    assert "prohibitPublicIpOnVnic" in message


# --- oke-required-nsg-rules on engine-shaped props ----------------------------------------------------------------
def required_stack(cp_rules: list[dict], pool_nsg_ids=None, cluster_nsg_ids=None, link=True):
    """A cluster with a control-plane NSG holding ``cp_rules`` (all from the worker NSG) and a pool whose worker NSG
    holds every worker-side rule; ids are unknown (a first preview), links are property dependencies."""
    cp = res(NSG, "cp-nsg", {"vcnId": U})
    w = res(NSG, "w-nsg", {"vcnId": U})
    c = res(CLUSTER, "oke", cluster(nsg_ids=[U] if cluster_nsg_ids is None else cluster_nsg_ids),
            deps={"endpointConfig": [cp]} if link else None)
    p_props = pool(None)
    p_props["nodeConfigDetails"]["nsgIds"] = [U] if pool_nsg_ids is None else pool_nsg_ids
    p = res(NODE_POOL, "gpu", p_props, deps={"clusterId": [c], "nodeConfigDetails": [w]})
    rules = []
    for i, props in enumerate(cp_rules):
        rules.append(res(NSG_RULE, f"cp-{i}", {**props, "networkSecurityGroupId": U},
                         deps={"networkSecurityGroupId": [cp], "source": [w], "destination": [w]}))
    worker_side = [rule(source=U, source_type="NETWORK_SECURITY_GROUP", direction="EGRESS", ports=(6443, 6443)),
                   rule(source=U, source_type="NETWORK_SECURITY_GROUP", direction="EGRESS", ports=(12250, 12250)),
                   rule(source=U, source_type="NETWORK_SECURITY_GROUP", direction="EGRESS", protocol="1", ports=None,
                        icmpOptions={"type": 3.0, "code": 4.0}),
                   rule(source=U, source_type="NETWORK_SECURITY_GROUP", ports=None),  # all TCP from the API
                   rule(source="0.0.0.0/0", protocol="1", ports=None, icmpOptions={"type": 3.0, "code": 4.0})]
    for i, props in enumerate(worker_side):
        rules.append(res(NSG_RULE, f"w-{i}", {**props, "networkSecurityGroupId": U},
                         deps={"networkSecurityGroupId": [w], "source": [cp], "destination": [cp]}))
    return [cp, w, c, p, *rules]


CP_RULES = [rule(source=U, source_type="NETWORK_SECURITY_GROUP", ports=(6443, 6443)),
            rule(source=U, source_type="NETWORK_SECURITY_GROUP", ports=(12250, 12250)),
            rule(source=U, source_type="NETWORK_SECURITY_GROUP", protocol="1", ports=None,
                 icmpOptions={"type": 3.0, "code": 4.0}),
            rule(source=U, source_type="NETWORK_SECURITY_GROUP", direction="EGRESS", protocol="all", ports=None)]


def test_required_rules_pass_when_present():
    assert run(*required_stack(CP_RULES), policy=REQUIRED).violations == []


def test_required_rules_fail_without_12250():
    [v] = run(*required_stack([r for r in CP_RULES if r.get("tcpOptions", {}).get("destinationPortRange", {})
                               .get("min") != 12250.0]), policy=REQUIRED).violations
    assert "control-plane NSG 'cp-nsg' has no INGRESS rule allowing TCP 12250 from the worker NSG 'w-nsg'" in v.message
    assert v.urn.endswith("::oke")


def test_required_rules_are_reported_for_every_pool_sharing_a_worker_nsg():
    """Pools that share a worker NSG are judged once for it and each is reported: a missing control-plane rule names
    every such pool, and a pool on another worker NSG is judged on its own rules."""
    stack = required_stack([r for r in CP_RULES if r.get("tcpOptions", {}).get("destinationPortRange", {})
                            .get("min") != 12250.0])
    cluster_res, worker_nsg = stack[2], stack[1]
    twin = res(NODE_POOL, "gpu-2", dict(stack[3].inputs),
               deps={"clusterId": [cluster_res], "nodeConfigDetails": [worker_nsg]})
    bare = res(NSG, "bare-nsg", {"vcnId": U})
    lone = res(NODE_POOL, "cpu", dict(stack[3].inputs), deps={"clusterId": [cluster_res], "nodeConfigDetails": [bare]})
    messages = [v.message for v in run(*stack, twin, bare, lone, policy=REQUIRED).violations]
    for name in ("gpu", "gpu-2", "cpu"):
        assert any(f"node pool '{name}': the control-plane NSG 'cp-nsg' has no INGRESS rule allowing TCP 12250" in m
                   for m in messages), name
    assert any("node pool 'cpu': the worker NSG 'bare-nsg' has no EGRESS rule" in m for m in messages)
    assert not any("node pool 'gpu-2': the worker NSG" in m for m in messages)


def test_required_rules_unknown_ports_fail_closed():
    rules = [CP_RULES[0], {**CP_RULES[1], "tcpOptions": U}, *CP_RULES[2:]]
    [v] = run(*required_stack(rules), policy=REQUIRED).violations
    assert "cannot verify during preview" in v.message and "TCP 12250" in v.message
    assert "NSG rule 'cp-1' (" in v.message and "tcpOptions" in v.message


def test_required_rules_untraceable_control_plane_nsg_fails_closed():
    [v] = run(*required_stack(CP_RULES, link=False), policy=REQUIRED).violations
    assert "endpoint NSG(s) <unknown> are not managed in this stack" in v.message and "cannot be verified" in v.message
    c = res(CLUSTER, "oke", cluster(nsg_ids=U))
    [v] = run(c, policy=REQUIRED).violations
    assert "endpointConfig.nsgIds is unknown and depends on no NSG" in v.message


def test_required_rules_no_endpoint_nsg_is_a_violation():
    [v] = run(*required_stack(CP_RULES, cluster_nsg_ids=[], link=False), policy=REQUIRED).violations
    assert "has no NSG" in v.message


def test_required_rules_external_nsgs_pass_unless_configured():
    c = res(CLUSTER, "oke", cluster(nsg_ids=["ocid1.networksecuritygroup.oc1..external"]))
    p_props = pool(None)
    p_props["nodeConfigDetails"]["nsgIds"] = ["ocid1.networksecuritygroup.oc1..externalw"]
    p = res(NODE_POOL, "gpu", p_props, deps={"clusterId": [c]})
    assert run(c, p, policy=REQUIRED).violations == []
    config = {"all": "disabled", REQUIRED: {"enforcementLevel": "mandatory", "externalResources": "fail"}}
    report = evaluate(POLICIES, [c, p], PACK_NAME, policy_config=config)
    [v] = report.violations
    assert "ocid1.networksecuritygroup.oc1..external are not managed in this stack" in v.message


# --- no-internet-ingress -------------------------------------------------------------------------------------------
ICMP_MTU = {"type": 3.0, "code": 4.0}


@pytest.mark.parametrize("props", [
    rule(protocol="1", ports=None, icmpOptions=ICMP_MTU),
    rule(ports=(443, 443)),
    rule(ports=(80, 80), source="::/0"),
    rule(ports=(8080, 8080), source="10.0.0.0/8"),
    rule(protocol="all", ports=None, direction="EGRESS"),
    rule(protocol="58", ports=None, source="::/0", icmpOptions={"type": 2.0, "code": 0.0}),
    rule(protocol="1", ports=None, source=U, icmpOptions=ICMP_MTU),  # unknown source, harmless ICMP: passes
    rule(ports=(22, 22), source=U, source_type="NETWORK_SECURITY_GROUP"),  # an NSG peer is never the internet
])
def test_internet_ingress_passes(props):
    assert run(res(NSG_RULE, "r", props), policy=INTERNET).violations == []


@pytest.mark.parametrize("props, expected", [
    (rule(ports=(8080, 8080)), "NSG rule 'r' (INGRESS TCP 8080 from 0.0.0.0/0) admits the internet"),
    (rule(ports=(80, 443)), "TCP 80-443"),
    (rule(protocol="1", ports=None), "ICMP from 0.0.0.0/0"),  # every ICMP type
    (rule(protocol="1", ports=None, icmpOptions={"type": 8.0}), "ICMP from 0.0.0.0/0 type 8"),
    (rule(protocol="17", ports=(53, 53)), "UDP 53"),
    (rule(protocol="all", ports=None, source="::/0"), "all protocols"),
    (rule(ports=(8080, 8080), source=U), "cannot be verified during preview because source is unknown"),
    (rule(protocol="1", ports=None, icmpOptions=U), "cannot be verified during preview"),
])
def test_internet_ingress_fails(props, expected):
    [v] = run(res(NSG_RULE, "r", props), policy=INTERNET).violations
    assert expected in v.message


def test_internet_ingress_listener_ports_come_from_policy_config():
    config = {"all": "disabled", INTERNET: {"enforcementLevel": "mandatory", "publicListenerPorts": [8443]}}
    ok = evaluate(POLICIES, [res(NSG_RULE, "r", rule(ports=(8443, 8443)))], PACK_NAME, policy_config=config)
    bad = evaluate(POLICIES, [res(NSG_RULE, "r", rule(ports=(443, 443)))], PACK_NAME, policy_config=config)
    assert ok.violations == [] and "(8443)" in bad.violations[0].message


def test_internet_ingress_security_lists():
    oci_default = [{"protocol": "6", "source": "0.0.0.0/0", "tcpOptions": {"min": 22.0, "max": 22.0}},
                   {"protocol": "1", "source": "0.0.0.0/0", "icmpOptions": ICMP_MTU}]
    [v] = run(res(SL, "default", {"ingressSecurityRules": oci_default}), policy=INTERNET).violations
    assert "ingressSecurityRules[0] (INGRESS TCP 22 from 0.0.0.0/0)" in v.message
    [v] = run(res(SL, "sl", {"ingressSecurityRules": U}), policy=INTERNET).violations
    assert "unknown during preview" in v.message


def test_existing_rule_names_still_work():
    names = {p.name for p in POLICIES}
    assert {"no-internet-ssh-or-all-ports", "kubernetes-api-not-public", INTERNET, REQUIRED, PRIVATE} <= names
    for module in (oke_network, node_subnets):
        assert set(module.UNKNOWN_BEHAVIOUR) == {p.name for p in module.POLICIES}


# --- node-subnets-private ---------------------------------------------------------------------------------------
def subnet_stack(prohibit):
    s = res(SUBNET, "workers", {"cidrBlock": "10.0.16.0/20", **({} if prohibit is None else
                                                              {"prohibitPublicIpOnVnic": prohibit})})
    p = res(NODE_POOL, "gpu", pool(None), deps={"nodeConfigDetails": [s]})
    return s, p


@pytest.mark.parametrize("prohibit, expected", [
    (True, None), (False, "allows public IPs"), (None, "allows public IPs"), (U, "unknown during preview")])
def test_node_subnets_private(prohibit, expected):
    report = run(*subnet_stack(prohibit), policy=PRIVATE)
    if expected is None:
        assert report.violations == []
    else:
        [v] = report.violations
        assert expected in v.message and "Subnet 'workers'" in v.message and v.urn.endswith("::workers")


def test_node_subnets_found_by_id_and_roles_named():
    s = res(SUBNET, "pods", {"prohibitPublicIpOnVnic": False}, outputs={"prohibitPublicIpOnVnic": False,
                                                                       "id": "ocid1.subnet.oc1..pods"})
    p_props = pool(None)
    p_props["nodeConfigDetails"]["nodePoolPodNetworkOptionDetails"] = {"cniType": "OCI_VCN_IP_NATIVE",
                                                                       "podSubnetIds": ["ocid1.subnet.oc1..pods"]}
    [v] = run(s, res(NODE_POOL, "gpu", p_props), policy=PRIVATE).violations
    assert "hosts the pods of node pool 'gpu'" in v.message
