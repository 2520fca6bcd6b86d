"""OKE network rules: the NSG rules OKE needs are present, and nothing but path-MTU ICMP and public listener ports is
open to the internet (the private worker/pod subnet rule is in ``node_subnets``).

Sources: OKE docs "Network Resource Configuration" (contengnetworkconfig.htm: workers → API endpoint TCP 6443 and
TCP 12250, API endpoint → workers TCP (kubelet 10250) and ICMP 3/4 both ways; without 12250 nodes never register;
worker and pod subnets should be private); OCI Networking docs "Security Rules" and "Network Security Groups"
(stateful rules, ``sourceType``/``destinationType``, ``icmpOptions {type, code}``; ICMP type 3 code 4 is the
"fragmentation needed" message path MTU discovery depends on); "VCNs and Subnets" (``prohibitPublicIpOnVnic``).
Property names checked against pulumi_oci 5.5.0 (``core/_inputs.py``, ``containerengine/_inputs.py``).

How the NSGs of a cluster are found (``oke-required-nsg-rules``). Stack policies see outputs; during a preview a new
resource has no id yet, so links go through property dependencies first and known OCIDs second:

* control-plane NSGs: the cluster's ``endpointConfig.nsgIds`` (``network.endpoint_nsgs``);
* worker NSGs: every node pool of the cluster (``clusterId`` dependency or id) → its ``nodeConfigDetails.nsgIds``.
  When those OCIDs are known they pick the worker NSGs exactly; when they are unknown, the NSGs ``nodeConfigDetails``
  depends on (worker *and* pod NSGs) are candidates and a requirement on the worker side is met if any one of them
  meets it;
* a rule belongs to an NSG through ``networkSecurityGroupId``; its peer is an NSG (through ``source`` /
  ``destination``, dependency or id) or 0.0.0.0/0 (which covers every peer). Rules written with other CIDRs are not
  followed: OKE's own examples use NSG peers, and a CIDR cannot be tied to the nodes without their subnets' CIDRs.

What cannot be traced: NSGs (and subnets) given by OCID and not managed in this stack are checked by the stack that
manages them — they pass here unless the policy config sets ``externalResources: "fail"``; ``nsgIds`` that are
unknown and depend on no NSG of this stack fail closed (the NSG cannot be identified); a cluster whose endpoint or a
node pool with no NSG at all is a violation (the required rules then live nowhere this pack can see).

Unknown values: the facts of a rule (direction, protocol, ports, peer) are combined in Kleene logic (``_rules``); a
requirement no known rule meets but an unknown one might fails closed, naming the rule and the unknown fields.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Optional

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies` (tests, offline/)
    from . import _rules as R
    from .network import endpoint_nsgs
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/
    import _rules as R
    from network import endpoint_nsgs
    from _gate import examines

UNKNOWN = R.UNKNOWN
KUBELET_PORT, PROXYMUX_PORT = 10250, 12250
PATH_MTU = (3, 4)  # ICMP "destination unreachable: fragmentation needed"
ICMPV6_PACKET_TOO_BIG = 2
_DOC = "OKE docs: Network Resource Configuration; OCI docs: Security Rules"


# --- a security rule with everything these policies read ---------------------------------------------------------
@dataclass(frozen=True)
class SecRule:
    """One NSG rule or security-list entry; every field may be UNKNOWN. ``peer`` is the source of an ingress rule
    and the destination of an egress rule; ``icmp`` is ``(type, code)`` with ``None`` for "any"."""

    base: R.IngressRule  # direction, protocol, source (= peer), source_type (= peer type), tcp/udp destination ports
    icmp: Any  # None (all types), (type, code), or UNKNOWN
    source_ports: Any  # None, (lo, hi) or UNKNOWN
    resource: Any = None  # the PolicyResource of an NSG rule (stack policies), for its dependencies


def _pair(options: Any, *path: str) -> Any:
    value = R.read(options, *path)
    if value is None or value is UNKNOWN:
        return value
    lo, hi = R.read(value, "min"), R.read(value, "max")
    try:
        return UNKNOWN if UNKNOWN in (lo, hi) else (int(lo), int(hi))
    except (TypeError, ValueError):  # not numbers: network-rule-interpretable names them; no verdict rests on them
        return UNKNOWN


def _icmp(options: Any) -> Any:
    if options is None or options is UNKNOWN:
        return options
    kind, code = R.read(options, "type"), R.read(options, "code")
    if kind is UNKNOWN or code is UNKNOWN:
        return UNKNOWN
    try:
        return (int(kind), None if code is None else int(code))
    except (TypeError, ValueError):  # not numbers: network-rule-interpretable names them
        return UNKNOWN


def sec_rule(props: Any, label: str, resource: Any = None) -> SecRule:
    """Normalise an NSG rule (inputs or outputs). Egress rules read ``destination``/``destinationType`` as peer."""
    direction = R.read(props, "direction")
    egress = direction == "EGRESS"
    base = R.nsg_rule(props, label)
    if egress:
        base = R.IngressRule(label, direction, base.protocol, R.read(props, "destination"),
                             R.read(props, "destinationType"), base.tcp_ports, base.udp_ports)
    tcp, udp = R.read(props, "tcpOptions"), R.read(props, "udpOptions")
    source_ports = _pair(tcp if base.protocol == R.TCP else udp, "sourcePortRange")
    return SecRule(base, _icmp(R.read(props, "icmpOptions")), source_ports, resource)


def security_list_entries(props: Any, label: str) -> Any:
    """The ingress entries of a (default) security list as SecRules; UNKNOWN if the list is unknown."""
    entries = R.elements(R.read(props, "ingressSecurityRules"))
    if entries is UNKNOWN:
        return UNKNOWN
    rules = R.security_list_rules(props, label)
    return [SecRule(rule, _icmp(R.read(entry, "icmpOptions")), None) for rule, entry in zip(rules, entries)]


def _not3(fact: Any) -> Any:
    return UNKNOWN if fact is UNKNOWN else not fact


def covers_icmp(rule: SecRule, kind: int, code: int) -> Any:
    """Does the rule allow ICMP ``kind``/``code``?"""
    proto = rule.base.protocol
    if proto is UNKNOWN:
        return UNKNOWN
    if proto == R.ALL:
        return True
    if proto != R.ICMP:
        return False
    if rule.icmp is None or rule.icmp is UNKNOWN:
        return True if rule.icmp is None else UNKNOWN
    return rule.icmp[0] == kind and rule.icmp[1] in (None, code)


def covers_tcp(rule: SecRule, port: int) -> Any:
    """Does the rule allow a TCP connection to ``port`` from any (ephemeral) source port?"""
    from_any_port = (UNKNOWN if rule.source_ports is UNKNOWN else
                     rule.source_ports is None or rule.source_ports == (R.MIN_PORT, R.MAX_PORT))
    if rule.base.protocol == R.ALL:
        return True
    return R.all3(R.covers_port(rule.base, R.TCP, port), from_any_port)


# --- oke-required-nsg-rules (stack) -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Requirement:
    side: str  # "controlPlane" or "workers": the NSG that must hold the rule
    direction: str
    what: str  # e.g. "TCP 12250"
    peer: str  # the other side
    why: str
    check: Any  # SecRule -> True/False/UNKNOWN (protocol and port only)


REQUIREMENTS = (
    Requirement("controlPlane", "INGRESS", "TCP 6443", "workers", "workers → Kubernetes API",
                lambda r: covers_tcp(r, R.KUBERNETES_API_PORT)),
    Requirement("controlPlane", "INGRESS", "TCP 12250", "workers",
                "workers → OKE control plane proxymux; without it nodes never register",
                lambda r: covers_tcp(r, PROXYMUX_PORT)),
    Requirement("controlPlane", "INGRESS", "ICMP 3/4", "workers", "path MTU discovery from the nodes",
                lambda r: covers_icmp(r, *PATH_MTU)),
    Requirement("controlPlane", "EGRESS", "TCP 10250", "workers", "API → kubelets (logs, exec, port-forward)",
                lambda r: covers_tcp(r, KUBELET_PORT)),
    Requirement("controlPlane", "EGRESS", "ICMP 3/4", "workers", "path MTU discovery to the nodes",
                lambda r: covers_icmp(r, *PATH_MTU)),
    Requirement("workers", "EGRESS", "TCP 6443", "controlPlane", "workers → Kubernetes API",
                lambda r: covers_tcp(r, R.KUBERNETES_API_PORT)),
    Requirement("workers", "EGRESS", "TCP 12250", "controlPlane",
                "workers → OKE control plane proxymux; without it nodes never register",
                lambda r: covers_tcp(r, PROXYMUX_PORT)),
    Requirement("workers", "EGRESS", "ICMP 3/4", "controlPlane", "path MTU discovery to the API",
                lambda r: covers_icmp(r, *PATH_MTU)),
    Requirement("workers", "INGRESS", "TCP 10250", "controlPlane", "API → kubelets (logs, exec, port-forward)",
                lambda r: covers_tcp(r, KUBELET_PORT)),
    Requirement("workers", "INGRESS", "ICMP 3/4", "controlPlane", "path MTU discovery from the API",
                lambda r: covers_icmp(r, *PATH_MTU)),
)


def _id(resource: Any) -> Any:
    value = R.read(resource.props, "id")
    return value if isinstance(value, str) else None


def _linked(rule: Any, prop: str, value: Any, targets: Iterable[Any]) -> list[Any]:
    """The ``targets`` a rule's ``prop`` points at: through its property dependencies, or by a known OCID."""
    targets = list(targets)
    urns = {d.urn for d in rule.property_dependencies.get(prop, [])}
    return [t for t in targets if t.urn in urns or (isinstance(value, str) and value == _id(t))]


def peer_matches(rule: SecRule, peers: list[Any]) -> Any:
    """Is the rule's peer (source of an ingress rule, destination of an egress rule) one of ``peers`` (NSG
    resources, through a dependency or a known OCID), or 0.0.0.0/0 / ::/0?"""
    base, res = rule.base, rule.resource
    props = (["source", "destination"] if base.direction is UNKNOWN else
             ["source" if base.direction == "INGRESS" else "destination"])
    if any(_linked(res, p, base.source, peers) for p in props):
        return True
    if base.source is UNKNOWN:  # an NSG of this stack not yet created, or a CIDR from an output
        return False if any(res.property_dependencies.get(p) for p in props) else UNKNOWN
    return R.is_internet_cidr(base.source)


def rules_of(nsgs: list[Any], all_rules: list[Any]) -> list[SecRule]:
    """The rules (as SecRules) that belong to any of ``nsgs``."""
    found = []
    for r in all_rules:
        if _linked(r, "networkSecurityGroupId", R.read(r.props, "networkSecurityGroupId"), nsgs):
            found.append(sec_rule(r.props, f"NSG rule '{r.name}'", r))
    return found


def _pools_of(cluster: Any, pools: list[Any]) -> list[Any]:
    return [p for p in pools if _linked(p, "clusterId", R.read(p.props, "clusterId"), [cluster])]


def worker_nsgs(pool: Any, nsgs: list[Any]) -> tuple[list[Any], Optional[str], list[str]]:
    """A node pool's worker NSGs, why they cannot be identified (or None), and the OCIDs of external ones."""
    ids = R.elements(R.read(pool.props, "nodeConfigDetails", "nsgIds"))
    deps = [n for n in pool.property_dependencies.get("nodeConfigDetails", []) if n.resource_type == R.NSG]
    if ids is UNKNOWN or (isinstance(ids, list) and any(i is UNKNOWN for i in ids)):
        if deps:
            return deps, None, []
        return [], "nodeConfigDetails.nsgIds is unknown and depends on no NSG in this stack", []
    if not ids:
        return [], "it has no NSG (nodeConfigDetails.nsgIds is empty)", []
    found = [n for n in nsgs if _id(n) in ids]
    found_ids = {_id(n) for n in found}
    unmatched = [str(i) for i in ids if i not in found_ids]
    # Stack resources often carry no ``id`` output: the NSGs nodeConfigDetails depends on stand in for the OCIDs no
    # NSG matched (worker and pod NSGs alike, so any of them may meet a worker-side requirement).
    spare = [n for n in deps if n not in found]
    return found + spare, None, unmatched if len(spare) < len(unmatched) else []


def _verdict(req: Requirement, own: list[SecRule], peers: list[Any]) -> tuple[Any, list[SecRule]]:
    """(met?, the rules whose unknown fields leave it open)."""
    verdicts = [(r, R.all3(UNKNOWN if r.base.direction is UNKNOWN else r.base.direction == req.direction,
                           req.check(r), peer_matches(r, peers))) for r in own]
    met = R.any3(*(v for _, v in verdicts))
    return met, [r for r, v in verdicts if v is UNKNOWN]


def _names(resources: list[Any]) -> str:
    return ", ".join(f"'{r.name}'" for r in resources)


def validate_oke_required_nsg_rules(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``oke-required-nsg-rules``: for every cluster and each of its node pools, the control-plane and
    worker NSGs hold every rule of :data:`REQUIREMENTS`. Tracing and unknowns: see the module docstring."""
    external_fails = (args.get_config() or {}).get("externalResources", "pass") == "fail"
    nsgs = [r for r in args.resources if r.resource_type == R.NSG]
    nsg_rules = [r for r in args.resources if r.resource_type == R.NSG_RULE]
    pools = [r for r in args.resources if r.resource_type == R.NODE_POOL]
    for cluster in (r for r in args.resources if r.resource_type == R.CLUSTER):
        where = f"Cluster '{cluster.name}'"
        ids = R.elements(R.read(cluster.props, "endpointConfig", "nsgIds"))
        cp, missing = endpoint_nsgs(cluster, nsgs)
        if ids == [] and not cp:
            report_violation(f"{where}: its API endpoint has no NSG (endpointConfig.nsgIds is empty), so the rules OKE "
                             "needs (workers → API TCP 6443 and 12250, API → workers, ICMP 3/4) cannot be verified. "
                             "Attach the control-plane NSG.", cluster.urn)
            continue
        if missing:
            untraceable = ids is UNKNOWN or any(i is UNKNOWN for i in ids)
            if untraceable or external_fails:
                report_violation(f"{where}: {missing}; the OKE-required rules cannot be verified. Manage the "
                                 "control-plane NSG in this stack or pass its OCID literally.", cluster.urn)
            if not cp or untraceable:
                continue
        cp_rules = rules_of(cp, nsg_rules)
        # pools that share worker NSGs share the verdicts: judged once per set of worker NSGs (64 pools of one NSG
        # were 64 scans of every NSG rule), reported per pool as before
        verdicts: dict[tuple[str, ...], list[tuple[Requirement, tuple[Any, list[SecRule]]]]] = {}
        for pool in _pools_of(cluster, pools):
            workers, why, external = worker_nsgs(pool, nsgs)
            at = f"{where}, node pool '{pool.name}'"
            if why:
                report_violation(f"{at}: {why}; the OKE-required rules cannot be verified. Attach the worker NSG "
                                 "(nodeConfigDetails.nsgIds) managed in this stack.", pool.urn)
                continue
            if external and external_fails:
                report_violation(f"{at}: worker NSG(s) {', '.join(external)} are not managed in this stack, so "
                                 "their rules cannot be verified.", pool.urn)
            if not workers:
                continue
            key = tuple(n.urn for n in workers)
            if key not in verdicts:
                w_rules = rules_of(workers, nsg_rules)
                verdicts[key] = [(req, _verdict(req, *((cp_rules, workers) if req.side == "controlPlane"
                                                       else (w_rules, cp)))) for req in REQUIREMENTS]
            for req, (met, unsure) in verdicts[key]:
                holder = (f"control-plane NSG {_names(cp)}" if req.side == "controlPlane"
                          else f"worker NSG {_names(workers)}")
                peer = f"the worker NSG {_names(workers)}" if req.peer == "workers" else \
                    f"the control-plane NSG {_names(cp)}"
                rule_text = (f"{req.direction} rule allowing {req.what} "
                             f"{'from' if req.direction == 'INGRESS' else 'to'} {peer}")
                if met is False:
                    report_violation(f"{at}: the {holder} has no {rule_text} ({req.why}). Add it.", cluster.urn)
                elif met is UNKNOWN:
                    detail = "; ".join(f"{r.base.label} ({', '.join(R.unknown_props(r.base)) or 'its peer'} "
                                       "unknown)" for r in unsure)
                    report_violation(f"{at}: cannot verify during preview that the {holder} has an {rule_text} "
                                     f"({req.why}): {detail}. Give these fields literal values or NSG peers.",
                                     cluster.urn)


# --- no-internet-ingress (resource) ---------------------------------------------------------------------------------
def allowed_from_internet(rule: SecRule, listener_ports: set[int]) -> Any:
    """Is this rule one the internet may use: ICMP 3/4, ICMPv6 2 (packet too big), or TCP to listener ports only?"""
    proto = rule.base.protocol
    if proto is UNKNOWN:
        return UNKNOWN
    if proto == R.ICMP:
        if rule.icmp is UNKNOWN:
            return UNKNOWN
        return rule.icmp is not None and rule.icmp[0] == PATH_MTU[0] and rule.icmp[1] == PATH_MTU[1]
    if proto == R.ICMPV6:
        if rule.icmp is UNKNOWN:
            return UNKNOWN
        return rule.icmp is not None and rule.icmp[0] == ICMPV6_PACKET_TOO_BIG
    if proto == R.TCP:
        ports = rule.base.tcp_ports
        if ports is UNKNOWN:
            return UNKNOWN
        if ports is None or ports[1] - ports[0] >= len(listener_ports):
            return False
        return all(p in listener_ports for p in range(ports[0], ports[1] + 1))
    return False


def _internet_rules(args: ResourceValidationArgs) -> Any:
    if args.resource_type == R.NSG_RULE:
        return [sec_rule(args.props, f"NSG rule '{args.name}'")]
    if args.resource_type in (R.SECURITY_LIST, R.DEFAULT_SECURITY_LIST):
        return security_list_entries(args.props, f"security list '{args.name}'")
    return []


def validate_no_internet_ingress(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``no-internet-ingress``: an ingress rule from 0.0.0.0/0, ::/0 or another internet-wide CIDR
    (``_rules.internet_wide``) admits only ICMP 3/4 (ICMPv6
    type 2), or TCP ports all in the policy config's ``publicListenerPorts`` (the public load balancers' listeners)."""
    listener_ports = {int(p) for p in (args.get_config() or {}).get("publicListenerPorts", [80, 443])}
    rules = _internet_rules(args)
    if rules is UNKNOWN:
        report_violation(f"security list '{args.name}': ingressSecurityRules is unknown during preview, so its rules "
                         "cannot be checked. Build the list from literal entries.", None)
        return
    shown = ", ".join(map(str, sorted(listener_ports))) or "none"
    for rule in rules:
        verdict = R.all3(R.from_internet(rule.base), _not3(allowed_from_internet(rule, listener_ports)))
        text = R.describe(rule.base) + (f" type {rule.icmp[0]}" + ("" if rule.icmp[1] is None else
                                                                    f" code {rule.icmp[1]}")
                                        if isinstance(rule.icmp, tuple) else "")
        if verdict is True:
            report_violation(f"{rule.base.label} ({text}) admits the internet to more than path-MTU ICMP (3/4) and "
                             f"the public listener ports ({shown}). Restrict its source to known CIDRs or NSGs.", None)
        elif verdict is UNKNOWN:
            report_violation(f"{rule.base.label} ({text}) may admit the internet and cannot be verified during "
                             f"preview because {', '.join(R.unknown_props(rule.base)) or 'icmpOptions'} is unknown. "
                             "Give these fields literal values.", None)


_EXTERNAL = {"externalResources": {"type": "string", "enum": ["pass", "fail"], "default": "pass",
                                   "description": "NSGs/subnets given by OCID and not managed in this stack: 'pass' "
                                                  "(their own stack is checked) or 'fail'"}}

oke_required_nsg_rules = StackValidationPolicy(
    name="oke-required-nsg-rules",
    description="The control-plane and worker NSGs hold the rules OKE needs (workers → API TCP 6443 and 12250, "
                "API → workers TCP 10250, ICMP 3/4 both ways).",
    validate=validate_oke_required_nsg_rules,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Add the missing rule to the NSG named in the finding, with the other NSG as peer "
                       "(sourceType/destinationType NETWORK_SECURITY_GROUP). TCP 12250 from the workers to the "
                       f"control plane is the one most often forgotten: without it nodes never register. Source: {_DOC}."),
    tags=["oke", "network"],
    config_schema=PolicyConfigSchema(properties=dict(_EXTERNAL)),
)

no_internet_ingress = ResourceValidationPolicy(
    name="no-internet-ingress",
    description="Nothing admits 0.0.0.0/0, ::/0 or another internet-wide CIDR (IPv4 shorter than /8) except "
                "path-MTU ICMP (3/4) and the public load balancers' listener ports.",
    validate=validate_no_internet_ingress,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Restrict the rule's source to the CIDRs or NSGs that need it. If it is a public load "
                       "balancer's listener, list its port in this policy's publicListenerPorts config. "
                       f"Source: {_DOC}."),
    tags=["network", "security"],
    config_schema=PolicyConfigSchema(properties={"publicListenerPorts": {
        "type": "array", "uniqueItems": True, "default": [80, 443],
        "items": {"type": "integer", "minimum": R.MIN_PORT, "maximum": R.MAX_PORT},
        "description": "TCP ports (1-65535) public load balancer listeners may open to the internet"}}),
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(no_internet_ingress, R.NSG_RULE, R.SECURITY_LIST, R.DEFAULT_SECURITY_LIST)

POLICIES = [oke_required_nsg_rules, no_internet_ingress]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "oke-required-nsg-rules": "fails closed: a required rule only unknown fields could provide, or NSG ids unknown "
                              "with no NSG dependency, is a violation naming the NSG and the rule.",
    "no-internet-ingress": "fails closed: Kleene logic over the rule's fields; a verdict still unknown is a "
                           "violation naming the unknown fields.",
}
