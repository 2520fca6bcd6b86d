"""The NSG rule set of the dev stack against OKE's required-traffic table: every row present, each rule exactly once.

``DESIGN_TABLE`` is a literal transcription of the required-traffic table in docs/architecture.md ("What OCI and
Kubernetes require", from OKE docs "Network Resource Configuration" and FSS "Security rules"), one entry per
(from, to, protocol, ports) cell — written by hand from the document, not derived from ``oke_rdma/network.py``.
``BEYOND_THE_TABLE`` lists, with the reason for each, the few rules the platform needs that the table does not name.
The test expands each flow into the NSG rules it needs (an egress rule on the sending NSG and an ingress rule on the
receiving one when both are ours; only the rule on our side otherwise) and compares with what the offline preview of
``dev`` registers: same rules, each exactly once, nothing else.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from oke_rdma.config import Fss
from oke_rdma.network import oke_rules, rule_table_markdown
from offline.engine import run_program
from tests.stackcfg import dev_config

ROOT = Path(__file__).resolve().parents[2]
NSG = "oci:Core/networkSecurityGroup:NetworkSecurityGroup"
NSG_RULE = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"
ALL_PORTS = None

# docs/architecture.md, "What OCI and Kubernetes require" — (from, to, protocol, destination ports | ICMP (type, code)).
# Role names: controlPlane = "API endpoint", services = "Oracle Services Network", loadBalancers = "load balancers",
# storage = "FSS mount target", anywhere = 0.0.0.0/0. "↔" rows are written out in both directions.
DESIGN_TABLE = [
    # workers → API endpoint | TCP 6443, TCP 12250, ICMP 3/4
    ("workers", "controlPlane", "TCP", (6443, 6443)),
    ("workers", "controlPlane", "TCP", (12250, 12250)),
    ("workers", "controlPlane", "ICMP", ("icmp", 3, 4)),
    # pods → API endpoint (VCN-native) | TCP 6443, TCP 12250
    ("pods", "controlPlane", "TCP", (6443, 6443)),
    ("pods", "controlPlane", "TCP", (12250, 12250)),
    # API endpoint → workers | TCP all (or 10250), ICMP 3/4
    ("controlPlane", "workers", "TCP", ALL_PORTS),
    ("controlPlane", "workers", "ICMP", ("icmp", 3, 4)),
    # API endpoint → Oracle Services Network | TCP 443
    ("controlPlane", "services", "TCP", (443, 443)),
    # workers ↔ workers, workers ↔ pods, pods ↔ pods | all
    ("workers", "workers", "all", ALL_PORTS),
    ("workers", "pods", "all", ALL_PORTS),
    ("pods", "workers", "all", ALL_PORTS),
    ("pods", "pods", "all", ALL_PORTS),
    # workers → Oracle Services Network | TCP all
    ("workers", "services", "TCP", ALL_PORTS),
    # load balancers → workers | TCP and UDP 30000-32767 (NodePorts), TCP 10256 (kube-proxy health)
    ("loadBalancers", "workers", "TCP", (30000, 32767)),
    ("loadBalancers", "workers", "UDP", (30000, 32767)),
    ("loadBalancers", "workers", "TCP", (10256, 10256)),
    # anywhere → workers | ICMP 3/4 (path MTU)
    ("anywhere", "workers", "ICMP", ("icmp", 3, 4)),
    # clients (workers only: the CSI driver mounts on the node) → FSS mount target | TCP 111, 2048-2050; UDP 111, 2048
    ("workers", "storage", "TCP", (111, 111)),
    ("workers", "storage", "TCP", (2048, 2050)),
    ("workers", "storage", "UDP", (111, 111)),
    ("workers", "storage", "UDP", (2048, 2048)),
    # FSS mount target → clients | egress from source ports TCP 111, 2048-2050, UDP 111
    ("storage", "workers", "TCP", ("from", 111, 111)),
    ("storage", "workers", "TCP", ("from", 2048, 2050)),
    ("storage", "workers", "UDP", ("from", 111, 111)),
    # (text under the table) clients → API endpoint 6443 only from explicitly allowed CIDRs; dev allows 10.0.0.0/16
    ("10.0.0.0/16", "controlPlane", "TCP", (6443, 6443)),
]
# (clients → FSS mount target | TCP 2051 with in-transit TLS) is conditional: see test_in_transit_tls_row.
IN_TRANSIT_TLS_ROWS = [("workers", "storage", "TCP", (2051, 2051))]

# Rules the platform needs that the table does not name, and why.
BEYOND_THE_TABLE = [
    # VCN-native pods serve the admission webhooks (Kueue, GPU Operator, KEDA, Prometheus operator) the API calls.
    ("controlPlane", "pods", "TCP", ALL_PORTS),
    # Pods with Workload Identity call OCI APIs from their own VCN IPs, through the service gateway.
    ("pods", "services", "TCP", ALL_PORTS),
    # Images (nvcr.io, registry.k8s.io, quay.io) and model downloads over HTTPS through the NAT gateway.
    ("workers", "internet", "TCP", (443, 443)),
    ("pods", "internet", "TCP", (443, 443)),
]

OURS = {"controlPlane", "workers", "pods", "loadBalancers", "storage"}


def expand(flows) -> list[tuple]:
    """Flows → NSG rules: (nsg, direction, protocol, ports, peer)."""
    rules = []
    for src, dst, proto, ports in flows:
        reply = isinstance(ports, tuple) and ports[0] == "from"
        if src in OURS:
            rules.append((src, "EGRESS", proto, ports, dst))
        if dst in OURS and not reply and src not in ("services", "internet"):
            rules.append((dst, "INGRESS", proto, ports, src))
    return rules


def _ports(opts: dict | None, icmp: dict | None):
    if icmp:
        return ("icmp", int(icmp["type"]), int(icmp["code"]))
    if not opts:
        return ALL_PORTS
    if "sourcePortRange" in opts:
        r = opts["sourcePortRange"]
        return ("from", int(r["min"]), int(r["max"]))
    r = opts["destinationPortRange"]
    return (int(r["min"]), int(r["max"]))


def registered_rules(run) -> list[tuple]:
    """The NSG rules the run registered, in the same shape, peers resolved to roles."""
    role_of = {run.ids[r.urn]: r.inputs["displayName"].rsplit("-", 1)[1] for r in run.resources if r.type == NSG}
    protocol = {"6": "TCP", "17": "UDP", "1": "ICMP", "all": "all"}
    found = []
    for r in (r for r in run.resources if r.type == NSG_RULE):
        p = r.inputs
        ingress = p["direction"] == "INGRESS"
        peer = p["source"] if ingress else p["destination"]
        peer_type = p["sourceType"] if ingress else p["destinationType"]
        if peer_type == "NETWORK_SECURITY_GROUP":
            peer = role_of[peer]
        elif peer_type == "SERVICE_CIDR_BLOCK":
            assert re.fullmatch(r"all-[a-z]+-services-in-oracle-services-network", peer), peer
            peer = "services"
        elif peer == "0.0.0.0/0":
            peer = "anywhere" if ingress else "internet"
        ports = _ports(p.get("tcpOptions") or p.get("udpOptions"), p.get("icmpOptions"))
        assert p["stateless"] is False and p.get("description"), r.name
        found.append((role_of[p["networkSecurityGroupId"]], p["direction"], protocol[p["protocol"]], ports, peer))
    return found


def test_every_row_of_the_design_table_is_an_nsg_rule_exactly_once(dev_run):
    found = Counter(registered_rules(dev_run))
    expected = Counter(expand(DESIGN_TABLE) + expand(BEYOND_THE_TABLE))
    assert {k: n for k, n in found.items() if n != 1} == {}, "a rule registered more than once"
    assert sorted(expected - found) == [], "missing from the preview"
    assert sorted(found - expected) == [], "in the preview but neither in the required-traffic table nor justified here"


def test_the_proxymux_rule_is_the_one_that_matters(dev_run):
    """Removing the 12250 row from the expectation makes the comparison fail: the check is not vacuous."""
    found = Counter(registered_rules(dev_run))
    without = [row for row in DESIGN_TABLE if row[3] != (12250, 12250)]
    assert found - Counter(expand(without) + expand(BEYOND_THE_TABLE)) == Counter({
        ("workers", "EGRESS", "TCP", (12250, 12250), "controlPlane"): 1,
        ("controlPlane", "INGRESS", "TCP", (12250, 12250), "workers"): 1,
        ("pods", "EGRESS", "TCP", (12250, 12250), "controlPlane"): 1,
        ("controlPlane", "INGRESS", "TCP", (12250, 12250), "pods"): 1})


def test_in_transit_tls_opens_tcp_2051_between_clients_and_mount_target():
    assert "in_transit_tls" in Fss.model_fields
    raw, secrets = dev_config()
    from tests.stackcfg import edited
    run = run_program(edited(raw, "storage", ("fss", "inTransitTls"), True), secrets, "dev")
    found = Counter(registered_rules(run))
    for rule in expand(IN_TRANSIT_TLS_ROWS):
        assert found[rule] == 1, rule
    # the pods never reach the mount target (a pod's own NFS client claims any UID from a privileged port)
    assert not [r for r in found if "storage" in r and "pods" in r]


def test_networking_page_rule_table_is_generated_from_oke_rules():
    page = (ROOT / "docs" / "networking.md").read_text()
    begin, end = "<!-- nsg-rules:begin -->\n", "<!-- nsg-rules:end -->"
    assert begin in page and end in page
    table = page.split(begin, 1)[1].split(end, 1)[0]
    assert table == rule_table_markdown(), "docs/networking.md's NSG rule table is stale; run make docs"
    assert table.count("\n") == len(oke_rules(("x",))) + 2  # header, separator, one line per rule
