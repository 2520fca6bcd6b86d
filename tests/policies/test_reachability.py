"""Effective reachability: every rule value the pack reads must be one OCI defines, and the union of ingress sources
per protocol and port is measured against the public address space."""
from __future__ import annotations

import ipaddress

import pytest

from policies.security import _addresses as A
from policies.security._rules import embedded_v4, internet_wide
from tests.policies.test_policies import DSL, NSG_RULE, SL, U, messages, res, run

INTERPRETABLE = "network-rule-interpretable"
UNION = "no-internet-scale-ingress"


def nsg_rule(name="r", source="10.0.0.0/16", protocol="6", ports=(22, 22), direction="INGRESS",
             source_type="CIDR_BLOCK", **extra):
    props = {"networkSecurityGroupId": "ocid1.networksecuritygroup.oc1..n", "direction": direction,
             "protocol": protocol, "source": source, "sourceType": source_type, **extra}
    if ports is not None and protocol == "6":
        props.setdefault("tcpOptions", {"destinationPortRange": {"min": ports[0], "max": ports[1]}})
    return res(NSG_RULE, name, props)


def findings(policy, *resources):
    return messages(run(*resources, policy=policy), policy)


# --- network-rule-interpretable ----------------------------------------------------------------------------------
@pytest.mark.parametrize("extra, expected", [
    ({"direction": "ingress"}, "direction 'ingress'"),
    ({"direction": "IN"}, "direction 'IN'"),
    ({"protocol": "tcpp"}, "protocol 'tcpp'"),
    ({"protocol": "300"}, "protocol '300'"),
    ({"sourceType": "ANY"}, "sourceType 'ANY'"),
    ({"source": "anywhere"}, "is not a CIDR"),
    ({"stateless": "yes"}, "stateless 'yes'"),
    ({"tcpOptions": {"destinationPortRange": {"min": 22, "max": 70000}}}, "not a port 1-65535"),
    ({"tcpOptions": {"destinationPortRange": {"min": 443, "max": 22}}}, "min 443 > max 22"),
    ({"tcpOptions": {"destinationPortRange": {"min": "22", "max": 22}}}, "not a port"),
    ({"protocol": "1", "icmpOptions": {"type": 300}}, "icmpOptions.type 300"),
])
def test_values_oci_does_not_define_are_refused(extra, expected):
    props = {"source": "10.0.0.0/16", **extra}
    rule = nsg_rule(**{k: v for k, v in props.items() if k in ("source", "protocol", "direction")},
                    **{k: v for k, v in props.items() if k not in ("source", "protocol", "direction")})
    if "sourceType" in extra:
        rule = nsg_rule(source_type=extra["sourceType"])
    found = findings(INTERPRETABLE, rule)
    assert len(found) == 1 and expected in found[0], found


@pytest.mark.parametrize("source, source_type", [("0.0.0.0/0", "SERVICE_CIDR_BLOCK"),
                                                 ("0.0.0.0/0", "NETWORK_SECURITY_GROUP"),
                                                 ("ocid1.vcn.oc1..v", "NETWORK_SECURITY_GROUP")])
def test_a_peer_that_does_not_match_its_type_is_refused(source, source_type):
    [message] = findings(INTERPRETABLE, nsg_rule(source=source, source_type=source_type))
    assert f"although sourceType is {source_type}" in message


def test_security_list_entries_ingress_and_egress_are_interpreted():
    sl = res(SL, "sl", {"ingressSecurityRules": [{"protocol": "6", "source": "10.0.0.0/16"},
                                                 {"protocol": "TCPX", "source": "10.0.0.0/16"}],
                        "egressSecurityRules": [{"protocol": "all", "destination": "0.0.0.0/0"},
                                                {"protocol": "17", "destination": "oops",
                                                 "udpOptions": {"min": 0, "max": 53}}]})
    found = findings(INTERPRETABLE, sl)
    assert len(found) == 3
    assert any("ingressSecurityRules[1] protocol 'TCPX'" in m for m in found)
    assert any("egressSecurityRules[1] destination 'oops'" in m for m in found)
    assert any("udpOptions.min 0" in m for m in found)


@pytest.mark.parametrize("rule", [
    nsg_rule(), nsg_rule(protocol="TCP"), nsg_rule(protocol=6), nsg_rule(protocol="all", ports=None),
    nsg_rule(source="ocid1.networksecuritygroup.oc1..x", source_type="NETWORK_SECURITY_GROUP"),
    nsg_rule(source="all-gru-services-in-oracle-services-network", source_type="SERVICE_CIDR_BLOCK"),
    nsg_rule(direction="EGRESS", destination="10.0.0.0/16", destinationType="CIDR_BLOCK", stateless=False),
    nsg_rule(source=U), nsg_rule(protocol="1", icmpOptions={"type": 3, "code": 4}),
])
def test_values_oci_defines_pass(rule):
    assert findings(INTERPRETABLE, rule) == []


def test_a_lower_case_direction_no_longer_slips_past_the_exposure_rules():
    rule = nsg_rule(source="0.0.0.0/0", direction="ingress")
    report = run(rule)
    assert messages(report, INTERPRETABLE)


# --- no-internet-scale-ingress -----------------------------------------------------------------------------------------
PUBLIC_8S = [f"{i}.0.0.0/8" for i in range(1, 121) if i != 10]


def test_ssh_from_119_public_8s_is_internet_scale():
    rules = [nsg_rule(f"r{i}", source=c) for i, c in enumerate(PUBLIC_8S)]
    [message] = findings(UNION, *rules)
    assert "TCP 22:" in message and "54% of public IPv4" in message and "and 113 more" in message


def test_a_union_over_security_lists_and_nsgs_is_measured_per_port():
    sl = res(DSL, "default", {"ingressSecurityRules": [
        {"protocol": "6", "source": f"{i}.0.0.0/9", "tcpOptions": {"min": 8000, "max": 9000}} for i in (11, 12)]})
    rule = nsg_rule("wide", source="13.0.0.0/9", ports=(8080, 8080))
    [message] = findings(UNION, sl, rule)
    assert "TCP 8080:" in message and "TCP 8000" not in message and "'wide'" in message
    assert findings(UNION, sl) == []  # one /8 of public space in total


@pytest.mark.parametrize("sources", [
    ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "8.0.0.0/8"],  # private space does not count
    ["11.0.0.0/9", "11.128.0.0/9"],  # one /8 in two halves
    ["2001:db8::/32", "fd00::/8"],  # documentation and unique-local IPv6
])
def test_unions_within_one_8_of_public_space_pass(sources):
    assert findings(UNION, *[nsg_rule(f"r{i}", source=s) for i, s in enumerate(sources)]) == []


def test_ipv6_unions_and_listener_ports():
    ipv6 = [nsg_rule(f"r{i}", source=f"24{i:02x}::/16") for i in range(2)]  # 2001::/16 holds Teredo: wide alone
    assert findings(UNION, *ipv6) and "IPv6" in findings(UNION, *ipv6)[0]
    https = [nsg_rule(f"r{i}", source=c, ports=(443, 443)) for i, c in enumerate(PUBLIC_8S[:5])]
    assert findings(UNION, *https) == []  # a public listener port (publicListenerPorts)
    mtu = [res(NSG_RULE, f"m{i}", {"direction": "INGRESS", "protocol": "1", "source": c, "sourceType": "CIDR_BLOCK",
                                   "icmpOptions": {"type": 3, "code": 4}}) for i, c in enumerate(PUBLIC_8S[:5])]
    assert findings(UNION, *mtu) == []
    everything = [res(NSG_RULE, f"a{i}", {"direction": "INGRESS", "protocol": "all", "source": c})
                  for i, c in enumerate(PUBLIC_8S[:3])]
    assert len(findings(UNION, *everything)) >= 1


@pytest.mark.parametrize("cidr", ["::ffff:0.0.0.0/96", "::/80", "64:ff9b::/96", "::ffff:0:0/97",
                                  "2001::/32", "2001:0::/32", "2001:0:4136:e378::/64",  # Teredo, any server
                                  "64:ff9b:1::/48", "64:ff9b:1::/96",  # local-use NAT64 (RFC 8215)
                                  "::/96", "::ffff:0:0:0/96", "2002::/17"])
def test_ipv6_ranges_carrying_all_of_ipv4_are_internet_wide(cidr):
    assert internet_wide(cidr) is True
    report = run(nsg_rule(source=cidr))
    assert messages(report, "no-internet-ssh-or-all-ports")


@pytest.mark.parametrize("cidr, v4", [
    ("2001::f5ff:ff00/120", "10.0.0.0/24"),  # Teredo: the client address is stored inverted
    ("2001::f7f7:0/112", "8.8.0.0/16"),
    ("2002:808::/32", "8.8.0.0/16"),  # 6to4
    ("64:ff9b:1:808::/64", "8.8.0.0/16"),  # local-use NAT64 read in the /48 layout
    ("::ffff:0:808:0/112", "8.8.0.0/16"),  # IPv4-translated
])
def test_the_ipv4_a_narrow_ipv6_range_carries(cidr, v4):
    assert ipaddress.ip_network(v4) in embedded_v4(ipaddress.ip_network(cidr))


@pytest.mark.parametrize("cidr", ["2a01:4f8::/32", "2001::f5ff:ff00/120", "2001:db8::/32", "::1/128"])
def test_narrow_ipv6_ranges_stay_narrow(cidr):
    assert internet_wide(cidr) is False
    assert not messages(run(nsg_rule(source=cidr)), "no-internet-ssh-or-all-ports")


def test_teredo_ranges_count_toward_an_internet_scale_union():
    halves = [ipaddress.ip_network(c) for c in ("2001::/97", "2001::8000:0/97")]  # each half of the clients
    assert A.public_addresses(halves)[4] > A.INTERNET_SCALE[4] and A.internet_scale(halves)


def test_embedded_ipv4_is_counted_as_ipv4():
    assert A.public_addresses([ipaddress.ip_network("::ffff:8.0.0.0/104")]) == {4: 2 ** 24, 6: 0}
    assert A.internet_scale([ipaddress.ip_network("::ffff:8.0.0.0/104"), ipaddress.ip_network("9.0.0.0/8")])


@pytest.mark.parametrize("value", ["true", "True", 1])
def test_an_api_endpoint_flag_that_is_not_a_boolean_is_not_read_as_private(value):
    from policies.security.network import endpoint_problem
    from tests.policies.test_policies import proxied
    props = proxied({"endpointConfig": {"subnetId": "s", "isPublicIpEnabled": value, "nsgIds": []}})
    assert "not a boolean" in endpoint_problem(props)
    assert endpoint_problem(proxied({"endpointConfig": {"subnetId": "s", "isPublicIpEnabled": False}})) is None
