"""Effective reachability: security rules the pack can interpret, and the union of their sources per port.

Two rules:

* ``network-rule-interpretable`` (resource) refuses an NSG rule or security-list entry (ingress *and* egress) that
  has a value the exposure rules cannot read the way OCI does: a direction other than ``INGRESS``/``EGRESS`` (OCI
  takes them in upper case only), a protocol that is neither ``all`` nor an IANA protocol number 0-255 (names such as
  ``TCP`` are read as their numbers), a ``sourceType``/``destinationType`` outside ``CIDR_BLOCK``,
  ``SERVICE_CIDR_BLOCK``, ``NETWORK_SECURITY_GROUP`` (NSG rules only), a CIDR-typed peer that is not a CIDR (or an
  NSG- or service-typed peer that is not an NSG OCID or service label: a ``0.0.0.0/0`` typed as a service would
  otherwise read as "not the internet"),
  ``stateless``/``isStateless`` that is not a boolean, a port outside 1-65535 or ``min > max``, an ICMP type or
  code outside 0-255. Every property that decides whether traffic flows is judged; anything else is a violation, so
  a value no other rule understands never passes silently.
* ``no-internet-scale-ingress`` (stack) takes every ingress rule with a literal CIDR source, from every NSG and
  security list of the stack, and for each protocol and destination port measures the union of their sources
  against the public IPv4 and IPv6 space (``_addresses``). More public space than one /8 (IPv4) or /16 (IPv6) in
  total is a violation, so 119 public /8s, or 256 ``/9``s opening TCP 22, are caught although no single rule is
  internet-wide. The union is taken over the whole stack — a superset of the rules that apply to any one VNIC (its
  subnet's security lists plus its NSGs), so it never under-counts. Exempt, as in ``no-internet-ingress``: TCP
  ports all in ``publicListenerPorts`` and path-MTU ICMP (3/4, ICMPv6 2). A union to which a single internet-wide
  rule contributes is left to the per-rule exposure rules, which already report that rule.

Unknown values: an unknown field is not interpretable yet; ``network-rule-interpretable`` leaves it to the per-rule
exposure rules (Kleene logic, then fail closed). The union counts known CIDR sources only: a rule with an unknown
source is already refused by those rules when it could admit the internet.

Sources (checked 2026-11-30): OCI Networking docs "Security Rules" (stateful/stateless, directions, protocols as IANA
numbers or ``all``, port ranges 1-65535, ICMP type/code; a VNIC's traffic is allowed by the union of its subnet's
security lists and its NSGs), API reference "AddSecurityRuleDetails" and "IngressSecurityRule" (enum values);
pulumi_oci 5.5.0 ``core/_inputs.py`` (property names); IANA "Protocol Numbers".
"""
from __future__ import annotations

import re
from typing import Any, Iterable

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from . import _addresses as A
    from . import _rules as R
    from .oke_network import ICMPV6_PACKET_TOO_BIG, PATH_MTU, SecRule, sec_rule, security_list_entries
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/security/
    import _addresses as A
    import _rules as R
    from oke_network import ICMPV6_PACKET_TOO_BIG, PATH_MTU, SecRule, sec_rule, security_list_entries
    from _gate import examines

UNKNOWN = R.UNKNOWN
DIRECTIONS = ("INGRESS", "EGRESS")
PEER_TYPES = {"nsg": ("CIDR_BLOCK", "SERVICE_CIDR_BLOCK", "NETWORK_SECURITY_GROUP"),
              "list": ("CIDR_BLOCK", "SERVICE_CIDR_BLOCK")}
#: What a peer of each non-CIDR type looks like: an NSG OCID, or a service CIDR label of the Oracle Services Network
#: (OCI docs "Service Gateway": ``all-<region>-services-in-oracle-services-network``, ``oci-<region>-objectstorage``).
PEER_FORMS = {"NETWORK_SECURITY_GROUP": re.compile(r"^ocid1\.networksecuritygroup\.[a-z0-9]+\.[a-z0-9-]*\.[a-z0-9]+$"),
              "SERVICE_CIDR_BLOCK": re.compile(r"^(all-[a-z0-9-]+-services-in-oracle-services-network|"
                                               r"oci-[a-z0-9-]+-objectstorage)$")}
PEER_FORM_NAMES = {"NETWORK_SECURITY_GROUP": "network security group OCID",
                   "SERVICE_CIDR_BLOCK": "service CIDR label (all-<region>-services-in-oracle-services-network)"}
_DOC = "OCI docs: Security Rules; API reference: AddSecurityRuleDetails, IngressSecurityRule, EgressSecurityRule"


# --- network-rule-interpretable ---------------------------------------------------------------------------------
def _known(value: Any) -> bool:
    return value is not UNKNOWN and value is not None


def _int_in(value: Any, lo: int, hi: int) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return float(value).is_integer() and lo <= value <= hi


def _range_problems(rng: Any, where: str) -> list[str]:
    if not _known(rng):
        return []
    lo, hi = R.read(rng, "min"), R.read(rng, "max")
    if UNKNOWN in (lo, hi):
        return []
    bad = [f"{where}.{k} {v!r} is not a port 1-65535" for k, v in (("min", lo), ("max", hi))
           if not _int_in(v, R.MIN_PORT, R.MAX_PORT)]
    if not bad and lo > hi:
        bad.append(f"{where} has min {int(lo)} > max {int(hi)}")  # integers (checked above); the engine sends doubles
    return bad


def entry_problems(entry: Any, kind: str, direction: Any) -> list[str]:
    """What in one rule (an NSG rule's props or one security-list entry) the pack cannot interpret.

    :param kind: ``"nsg"`` (ports in ``tcpOptions.destinationPortRange``) or ``"list"`` (``tcpOptions.min/max``).
    :param direction: the rule's direction (``INGRESS``/``EGRESS``, or what the NSG rule says).
    """
    problems = []
    if _known(direction) and not _member(direction, DIRECTIONS):
        problems.append(f"direction {direction!r} is not INGRESS or EGRESS (OCI's values are upper case)")
    raw = R.read(entry, "protocol")
    proto = R.protocol_of(raw)
    if raw is None:
        problems.append("has no protocol")
    elif proto is not UNKNOWN and not (proto == R.ALL or (isinstance(proto, str) and proto.isdigit()
                                                          and 0 <= int(proto) <= 255)):
        problems.append(f"protocol {raw!r} is not 'all' or an IANA protocol number 0-255")
    peer_key = "source" if direction != "EGRESS" else "destination"
    peer, peer_type = R.read(entry, peer_key), R.read(entry, f"{peer_key}Type")
    if _known(peer_type) and not _member(peer_type, PEER_TYPES[kind]):
        problems.append(f"{peer_key}Type {peer_type!r} is not one of {', '.join(PEER_TYPES[kind])}")
    if peer_type in (None, "CIDR_BLOCK") and _known(peer) and A.parse_cidr(peer) is None:
        problems.append(f"{peer_key} {peer!r} is not a CIDR although {peer_key}Type is CIDR_BLOCK")
    elif _member(peer_type, PEER_FORMS) and _known(peer) and not (isinstance(peer, str)
                                                                 and PEER_FORMS[peer_type].match(peer)):
        problems.append(f"{peer_key} {peer!r} is not a {PEER_FORM_NAMES[peer_type]} although {peer_key}Type is "
                        f"{peer_type}")
    if peer is None and direction in DIRECTIONS:
        problems.append(f"has no {peer_key}")
    for key in ("stateless", "isStateless"):
        value = R.read(entry, key)
        if _known(value) and not isinstance(value, bool):
            problems.append(f"{key} {value!r} is not a boolean")
    for options in ("tcpOptions", "udpOptions"):
        opts = R.read(entry, options)
        if not _known(opts):
            continue
        if kind == "nsg":
            problems += _range_problems(R.read(opts, "destinationPortRange"), f"{options}.destinationPortRange")
        else:
            if _known(R.read(opts, "min")) or _known(R.read(opts, "max")):
                problems += _range_problems(opts, options)
        problems += _range_problems(R.read(opts, "sourcePortRange"), f"{options}.sourcePortRange")
    icmp = R.read(entry, "icmpOptions")
    if _known(icmp):
        for key in ("type", "code"):
            value = R.read(icmp, key)
            if _known(value) and not _int_in(value, 0, 255):
                problems.append(f"icmpOptions.{key} {value!r} is not 0-255")
        if R.read(icmp, "type") is None:
            problems.append("icmpOptions has no type")
    return problems


def _member(value: Any, allowed: Any) -> bool:
    """``value in allowed`` for a value of any shape: a map or list (unhashable) is in no set of OCI's names."""
    return isinstance(value, (str, int, float, bool)) and value in allowed


def resource_problems(resource_type: str, props: Any, name: str) -> Iterable[str]:
    """Uninterpretable values of an NSG rule or of every entry of a (default) security list."""
    if resource_type == R.NSG_RULE:
        for p in entry_problems(props, "nsg", R.read(props, "direction")):
            yield f"NSG rule '{name}' {p}"
        return
    if resource_type not in (R.SECURITY_LIST, R.DEFAULT_SECURITY_LIST):
        return
    for key, direction in (("ingressSecurityRules", "INGRESS"), ("egressSecurityRules", "EGRESS")):
        entries = R.elements(R.read(props, key))
        if entries is UNKNOWN:
            continue
        for i, entry in enumerate(entries):
            for p in entry_problems(entry, "list", direction):
                yield f"security list '{name}' {key}[{i}] {p}"


def validate_rule_interpretable(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``network-rule-interpretable``: see the module docstring."""
    for problem in resource_problems(args.resource_type, args.props, args.name):
        report_violation(f"{problem}; the exposure rules cannot judge what it allows. Write it as OCI defines it.",
                         None)


# --- no-internet-scale-ingress (stack) -----------------------------------------------------------------------------
def ingress_rules(resources: list[Any]) -> list[SecRule]:
    """Every known ingress rule of the stack's NSG rules and security lists, as SecRules."""
    found: list[SecRule] = []
    for r in resources:
        if r.resource_type == R.NSG_RULE:
            found.append(sec_rule(r.props, f"NSG rule '{r.name}'", r))
        elif r.resource_type in (R.SECURITY_LIST, R.DEFAULT_SECURITY_LIST):
            entries = security_list_entries(r.props, f"security list '{r.name}'")
            if entries is not UNKNOWN:
                found += entries
    return [s for s in found if s.base.direction == "INGRESS" and s.base.source_type in (None, "CIDR_BLOCK")
            and A.parse_cidr(s.base.source) is not None and s.base.protocol is not UNKNOWN]


def _ports(rule: SecRule, proto: str) -> Any:
    if rule.base.protocol == R.ALL:
        return (R.MIN_PORT, R.MAX_PORT)
    ports = rule.base.tcp_ports if proto == R.TCP else rule.base.udp_ports
    return (R.MIN_PORT, R.MAX_PORT) if ports is None else ports


def _exempt_icmp(rule: SecRule) -> bool:
    if rule.base.protocol == R.ICMP:
        return isinstance(rule.icmp, tuple) and rule.icmp == PATH_MTU
    if rule.base.protocol == R.ICMPV6:
        return isinstance(rule.icmp, tuple) and rule.icmp[0] == ICMPV6_PACKET_TOO_BIG
    return False


def groups(rules: list[SecRule], listener_ports: set[int]) -> list[tuple[str, list[SecRule]]]:
    """(what, contributing rules) for every protocol/port segment, merged where the same rules contribute."""
    out: dict[frozenset, tuple[list[str], list[SecRule]]] = {}

    def add(what: str, members: list[SecRule]) -> None:
        if members:
            key = frozenset(id(m) for m in members)
            out.setdefault(key, ([], members))[0].append(what)

    for proto in (R.TCP, R.UDP):
        mine = [r for r in rules if r.base.protocol in (proto, R.ALL) and _ports(r, proto) is not UNKNOWN]
        points = sorted({p for r in mine for p in (_ports(r, proto)[0], _ports(r, proto)[1] + 1)})
        for lo, nxt in zip(points, points[1:]):
            hi = nxt - 1
            if proto == R.TCP and hi - lo < len(listener_ports) and all(p in listener_ports
                                                                        for p in range(lo, hi + 1)):
                continue
            members = [r for r in mine if _ports(r, proto)[0] <= lo and hi <= _ports(r, proto)[1]]
            add(f"{R.PROTOCOL_NAMES[proto]} {lo}" + ("" if lo == hi else f"-{hi}"), members)
    others = sorted({r.base.protocol for r in rules} - {R.TCP, R.UDP})
    for proto in others:
        members = [r for r in rules if r.base.protocol in (proto, R.ALL) and not _exempt_icmp(r)]
        add(R.PROTOCOL_NAMES.get(proto, f"protocol {proto}"), members)
    return [(", ".join(whats), members) for whats, members in out.values()]


def union_findings(resources: list[Any], listener_ports: set[int]) -> list[str]:
    """One message per protocol/port segment whose union of sources is internet-scale."""
    messages = []
    for what, members in groups(ingress_rules(resources), listener_ports):
        if any(R.internet_wide(m.base.source) is True for m in members):
            continue  # a single internet-wide rule: the per-rule exposure rules report it
        why = A.internet_scale(A.parse_cidr(m.base.source) for m in members)
        if why:
            shown = ", ".join(m.base.label for m in members[:6]) + (f" and {len(members) - 6} more"
                                                                     if len(members) > 6 else "")
            messages.append(f"{what}: the ingress rules {shown} together admit {why}, although no single one is "
                            "internet-wide. Admit only the client networks that need it (a few CIDRs, or an NSG).")
    return messages


def validate_no_internet_scale_ingress(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``no-internet-scale-ingress``: see the module docstring."""
    listener_ports = {int(p) for p in (args.get_config() or {}).get("publicListenerPorts", [80, 443])}
    for message in union_findings(args.resources, listener_ports):
        report_violation(message, None)


network_rule_interpretable = ResourceValidationPolicy(
    name="network-rule-interpretable",
    description=("Every NSG rule and security-list entry uses values the pack can read as OCI does (direction, "
                 "protocol, source/destination type and CIDR, stateless, ports, ICMP type/code)."),
    validate=validate_rule_interpretable,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Write the rule with OCI's values: direction INGRESS/EGRESS, protocol 'all' or its number "
                       "('6' TCP, '17' UDP, '1' ICMP, '58' ICMPv6), a CIDR source for CIDR_BLOCK, ports 1-65535 "
                       f"with min <= max, stateless true/false. Source: {_DOC}."),
    tags=["network", "security", "fail-closed"],
)

no_internet_scale_ingress = StackValidationPolicy(
    name="no-internet-scale-ingress",
    description=("For every protocol and port, the union of ingress sources over all NSGs and security lists covers "
                 "no more public address space than one IPv4 /8 (IPv6 /16), listener ports and path-MTU ICMP "
                 "aside."),
    validate=validate_no_internet_scale_ingress,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Replace the many broad CIDRs with the few client networks that need the port, or a peer "
                       "NSG; a public load balancer's listener port belongs in publicListenerPorts. Source: "
                       f"{_DOC}; IANA IPv4/IPv6 Special-Purpose Address Registries."),
    tags=["network", "security", "exposure"],
    config_schema=PolicyConfigSchema(properties={"publicListenerPorts": {
        "type": "array", "uniqueItems": True, "default": [80, 443],
        "items": {"type": "integer", "minimum": R.MIN_PORT, "maximum": R.MAX_PORT},
        "description": "TCP ports (1-65535) public load balancer listeners may open to the internet"}}),
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(network_rule_interpretable, R.NSG_RULE, R.SECURITY_LIST, R.DEFAULT_SECURITY_LIST)

POLICIES = [network_rule_interpretable, no_internet_scale_ingress]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "network-rule-interpretable": ("reads only inputs known at preview: unknown fields are left to the per-rule "
                                   "exposure rules, which fail closed on them; every known value must be one OCI "
                                   "defines"),
    "no-internet-scale-ingress": ("reads only inputs known at preview: it counts known CIDR sources; a rule with an "
                                  "unknown source is refused by the per-rule exposure rules when it could admit "
                                  "the internet"),
}
