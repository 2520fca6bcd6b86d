"""A numeric security-rule ``protocol`` (6, or 6.0 as the engine returns numbers) is read like its string form ("6")
by every network rule, through ``policies._rules.protocol_of`` — passing, failing and unknown cases."""
from __future__ import annotations

import pulumi_oci as oci
import pytest

from offline.engine import run_program
from offline.policy_eval import evaluate
from policies.security import _rules as R
from policies.security.pack import PACK_NAME, POLICIES
from tests.policies.test_policies import NSG_RULE, SL, U, res, rule, run

SSH, API, INTERNET = "no-internet-ssh-or-all-ports", "kubernetes-api-not-public", "no-internet-ingress"


@pytest.mark.parametrize("value, expected", [
    (6, "6"), (6.0, "6"), ("6", "6"), (" 06 ", "6"), (17.0, "17"), ("ALL", R.ALL), ("all", R.ALL), ("TCP", "6"),
    ("udp", "17"), ("ICMPv6", "58"), (None, None), (True, True), ("gre", "gre"),
])
def test_protocol_of_normalises(value, expected):
    assert R.protocol_of(value) == expected


def test_protocol_of_passes_unknown_through():
    assert R.protocol_of(R.UNKNOWN) is R.UNKNOWN


def numeric(props: dict, protocol) -> dict:
    return {**props, "protocol": protocol}


@pytest.mark.parametrize("protocol", [6, 6.0, "TCP"])
@pytest.mark.parametrize("policy, ports, expected", [
    (SSH, (22, 22), "opens SSH (TCP 22) to the internet"),
    (SSH, None, "opens SSH (TCP 22) and all ports"),
    (API, (6443, 6443), "6443"),
    (INTERNET, (8080, 8080), "(INGRESS TCP 8080 from 0.0.0.0/0) admits the internet"),
])
def test_numeric_tcp_protocol_fails_like_the_string(protocol, policy, ports, expected):
    [v] = run(res(NSG_RULE, "r", numeric(rule(ports=ports), protocol)), policy=policy).violations
    assert expected in v.message


@pytest.mark.parametrize("policy", [SSH, API, INTERNET])
def test_numeric_protocol_on_a_private_source_passes_and_unknown_source_fails_closed(policy):
    assert run(res(NSG_RULE, "r", numeric(rule(ports=(22, 22), source="10.0.0.0/16"), 6)), policy=policy
               ).violations == []
    ports = (6443, 6443) if policy == API else (22, 22)
    [v] = run(res(NSG_RULE, "r", numeric(rule(ports=ports, source=U), 6)), policy=policy).violations
    assert "cannot be verified during preview because source is unknown" in v.message


def test_numeric_all_protocols_and_security_list_entries():
    [v] = run(res(NSG_RULE, "r", numeric(rule(ports=None), "ALL")), policy=SSH).violations
    assert "opens SSH (TCP 22) and all ports" in v.message
    entries = [{"protocol": 6.0, "source": "0.0.0.0/0", "tcpOptions": {"min": 22.0, "max": 22.0}}]
    [v] = run(res(SL, "sl", {"ingressSecurityRules": entries}), policy=SSH).violations
    assert "ingressSecurityRules[0] (INGRESS TCP 22 from 0.0.0.0/0) opens SSH" in v.message


def test_hand_written_stack_with_numeric_protocols_is_caught():
    """pulumi_oci types protocol as a string, but Python lets a program pass 6; the engine sends it as a number."""
    def program():
        comp = "ocid1.compartment.oc1..aaaaaaaahandwritten"
        vcn = oci.core.Vcn("vcn", compartment_id=comp, cidr_blocks=["10.0.0.0/16"])
        nsg = oci.core.NetworkSecurityGroup("nsg", compartment_id=comp, vcn_id=vcn.id)
        oci.core.NetworkSecurityGroupSecurityRule(
            "ssh", network_security_group_id=nsg.id, direction="INGRESS", protocol=6, source="0.0.0.0/0",
            source_type="CIDR_BLOCK", tcp_options={"destination_port_range": {"min": 22, "max": 22}})
        oci.core.NetworkSecurityGroupSecurityRule(
            "api", network_security_group_id=nsg.id, direction="INGRESS", protocol=6, source="0.0.0.0/0",
            source_type="CIDR_BLOCK", tcp_options={"destination_port_range": {"min": 6443, "max": 6443}})

    recorded = run_program({}, [], "dev", program=program)
    report = evaluate(POLICIES, recorded.resources, PACK_NAME)
    by_policy = {(v.policy, v.urn.rsplit("::", 1)[1]) for v in report.violations}
    assert {(SSH, "ssh"), (API, "api"), (INTERNET, "ssh"), (INTERNET, "api")} <= by_policy


def test_nfs_rule_reads_a_numeric_protocol_like_its_string():
    from tests.policies.test_storage_policies import PORTS_RULE, nfs_stack, nsg_rule
    from tests.policies.test_policies import messages
    good = [numeric(nsg_rule(dest=(2048, 2050)), 6), numeric(nsg_rule(protocol="17", dest=(111, 111)), 17.0)]
    assert messages(run(*nfs_stack(*good), policy=PORTS_RULE), PORTS_RULE) == []
    bad = numeric(nsg_rule(dest=(30000, 32767)), 6.0)
    [message] = messages(run(*nfs_stack(bad), policy=PORTS_RULE), PORTS_RULE)
    assert "TCP destination ports 30000-32767, which are not NFS ports" in message
    unknown = numeric(nsg_rule(dest=(2048, 2050)), U)
    [message] = messages(run(*nfs_stack(unknown), policy=PORTS_RULE), PORTS_RULE)
    assert "unknown" in message
