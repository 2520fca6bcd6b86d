"""Network exposure rules: no SSH / all-ports from the internet, and no internet-reachable Kubernetes API.

Sources: OCI Networking docs "Security Rules" and "Network Security Groups" (rule fields, protocol numbers, NSG and
security-list rules are unioned); OKE docs "Network Resource Configuration" (contengnetworkconfig.htm: the API
endpoint listens on TCP 6443, access is controlled by NSGs or security lists) and "Migrating to VCN-Native Clusters"
(contengmigratingclusters.htm: a cluster without an endpoint in your VCN has a public API endpoint you cannot
restrict). Property names checked against pulumi_oci 5.5.0 (``core/_inputs.py``, ``containerengine/_inputs.py``).

A policy is either a resource or a stack policy, so the "API not public" concern is split in two:

* ``kubernetes-api-not-public`` (resource) runs on each resource's inputs, at preview *and* again at ``pulumi up``
  before the resource is created. It flags a public endpoint with no NSG, a cluster with no VCN-native endpoint,
  and any NSG rule / security-list entry that admits 0.0.0.0/0 or ::/0 to TCP 6443 (so a rule declared before its
  cluster, or in another stack, is still caught).
* ``kubernetes-api-endpoint-restricted`` (stack) follows a public cluster to its endpoint NSGs through
  ``property_dependencies["endpointConfig"]`` and to their rules through ``property_dependencies
  ["networkSecurityGroupId"]`` (stack props are outputs: new resources have no id during preview), and reports
  on the cluster which rule exposes it, or that its NSGs cannot be inspected.

Unknown values. "Kleene" means the facts of a rule (ingress? from 0.0.0.0/0? covers the port?) are combined in
three-valued logic: one known safe fact (a private CIDR, an NSG source, TCP 443) passes the rule whatever else is
unknown; a verdict that stays unknown fails closed (a violation saying what could not be verified and how to fix it).

| rule                               | kind     | unknown during preview                          | behaviour      |
|------------------------------------|----------|-------------------------------------------------|----------------|
| no-internet-ssh-or-all-ports       | resource | direction, protocol, source, sourceType, ports  | Kleene         |
|                                    |          | a security list's whole ingressSecurityRules    | fail closed    |
| kubernetes-api-not-public          | resource | the same fields, for TCP 6443                   | Kleene         |
|                                    |          | endpointConfig, isPublicIpEnabled               | fail closed    |
|                                    |          | nsgIds of a public endpoint (the whole list)    | fail closed    |
|                                    |          | the NSG OCIDs inside nsgIds                     | fine (1)       |
| kubernetes-api-endpoint-restricted | stack    | isPublicIpEnabled                               | skipped (2)    |
|                                    |          | nsgIds entries with no NSG of this stack        | fail closed    |
|                                    |          | the fields of an endpoint NSG's rules           | Kleene         |

(1) only their presence matters here; the stack rule links them. (2) kubernetes-api-not-public fails closed on it.

Config. Both API rules take ``allowedApiCidrs`` (policy config, default ``[]``): when not empty, an ingress rule that
admits TCP 6443 from a CIDR outside these networks is a violation too (NSG and service sources are not CIDRs; an
unknown source fails closed the same Kleene way). 0.0.0.0/0 and ::/0 are always violations.

"The internet" in every rule here is 0.0.0.0/0, ::/0 or any other internet-wide source (``_rules.internet_wide``: an
IPv4 prefix shorter than /8, an IPv6 prefix shorter than /16, not wholly private), so 0.0.0.0/1 + 128.0.0.0/1 are
caught one by one; messages name such a source "internet-wide (/1)".
"""
from __future__ import annotations

import ipaddress
from typing import Any, Callable, Iterable, Sequence

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies` (tests, offline/)
    from . import _rules as R
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/ (the pack directory is on sys.path)
    import _rules as R
    from _gate import examines

UNKNOWN = R.UNKNOWN
_FIX_UNKNOWN = ("Give these fields literal values (a CIDR from stack config, or sourceType NETWORK_SECURITY_GROUP "
                "for a peer NSG) so the rule can be checked before anything is created.")


def _rules_of(resource_type: str, props: Any, name: str) -> Any:
    """The security rules a resource declares, normalised; UNKNOWN if a security list's rules are unknown."""
    if resource_type == R.NSG_RULE:
        return [R.nsg_rule(props, f"NSG rule '{name}'")]
    if resource_type in (R.SECURITY_LIST, R.DEFAULT_SECURITY_LIST):
        return R.security_list_rules(props, f"security list '{name}'")
    return []


def _judge(rules: Any, owner: str, verdict_of: Callable[[R.IngressRule], tuple[Any, str]],
           fix: str) -> Iterable[str]:
    """Turn three-valued verdicts into violation messages: True -> exposed, UNKNOWN -> cannot be verified."""
    if rules is UNKNOWN:
        yield (f"{owner}: ingressSecurityRules is unknown during preview, so its rules cannot be checked. "
               "Build the list from literal entries.")
        return
    for rule in rules:
        verdict, what = verdict_of(rule)
        if verdict is True:
            yield f"{rule.label} ({R.describe(rule)}) opens {what} to the internet. {fix}"
        elif verdict is UNKNOWN:
            unknown = ", ".join(R.unknown_props(rule)) or "a field"
            yield (f"{rule.label} ({R.describe(rule)}) may open {what} to the internet and cannot be verified "
                   f"during preview because {unknown} is unknown. {_FIX_UNKNOWN}")


# --- no-internet-ssh-or-all-ports ----------------------------------------------------------------------------------
def ssh_or_all_ports_verdict(rule: R.IngressRule) -> tuple[Any, str]:
    """(True/False/UNKNOWN, what) for "admits the internet to SSH or to every port"."""
    ssh, every = R.covers_port(rule, R.TCP, R.SSH_PORT), R.opens_all_ports(rule)
    parts = [label for fact, label in ((ssh, "SSH (TCP 22)"), (every, "all ports")) if fact is not False]
    return R.all3(R.from_internet(rule), R.any3(ssh, every)), " and ".join(parts) or "SSH or all ports"


def validate_no_internet_ssh_or_all_ports(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``no-internet-ssh-or-all-ports``: NSG rules and (default) security-list ingress entries from
    0.0.0.0/0 or ::/0 must not allow TCP 22 or every port (protocol "all", or TCP/UDP without a destination port
    range). Source: OCI docs, Security Rules. Unknowns: Kleene logic over the rule's fields, then fail closed."""
    rules = _rules_of(args.resource_type, args.props, args.name)
    fix = ("Restrict the source to an administrator CIDR or a bastion NSG (sourceType NETWORK_SECURITY_GROUP) and "
           "open only the ports needed; reach nodes through the OCI Bastion service, not public SSH.")
    for message in _judge(rules, f"security list '{args.name}'", ssh_or_all_ports_verdict, fix):
        report_violation(message, None)


# --- kubernetes-api-not-public (resource) ------------------------------------------------------------------------
def api_port_verdict(rule: R.IngressRule) -> tuple[Any, str]:
    """(True/False/UNKNOWN, what) for "admits the internet to TCP 6443"."""
    return R.all3(R.from_internet(rule), R.covers_port(rule, R.TCP, R.KUBERNETES_API_PORT)), \
        "the Kubernetes API port (TCP 6443)"


_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def allowed_networks(config: Any) -> tuple[list[_Network], list[str]]:
    """The ``allowedApiCidrs`` of a rule's policy config as networks, and the entries that are not CIDRs."""
    networks, bad = [], []
    for entry in config.get("allowedApiCidrs") or []:
        try:
            networks.append(ipaddress.ip_network(str(entry).strip(), strict=False))
        except ValueError:
            bad.append(str(entry))
    return networks, bad


def outside_allowed(rule: R.IngressRule, allowed: Sequence[_Network]) -> Any:
    """Is the rule's source a CIDR outside every network in ``allowed``? NSG and service sources never are."""
    if rule.source_type not in (None, UNKNOWN, "CIDR_BLOCK"):
        return False
    if rule.source is UNKNOWN or rule.source_type is UNKNOWN:
        return UNKNOWN
    try:
        source = ipaddress.ip_network(str(rule.source).strip(), strict=False)
    except ValueError:
        return False  # a service CIDR label or an OCID: not an address range
    return not any(source.version == net.version and source.subnet_of(net) for net in allowed)


def api_allowlist_verdict(rule: R.IngressRule, allowed: Sequence[_Network]) -> Any:
    """True/False/UNKNOWN for "admits TCP 6443 from a CIDR outside ``allowed``" (False when ``allowed`` is empty)."""
    if not allowed:
        return False
    ingress = UNKNOWN if rule.direction is UNKNOWN else rule.direction == "INGRESS"
    return R.all3(ingress, outside_allowed(rule, allowed), R.covers_port(rule, R.TCP, R.KUBERNETES_API_PORT))


def _allowlist_messages(rules: Any, allowed: Sequence[_Network], bad: Sequence[str]) -> Iterable[str]:
    """Violations of ``allowedApiCidrs`` by rules that do not already fail for admitting the internet."""
    for entry in bad:
        yield (f"The policy config allowedApiCidrs entry '{entry}' is not a CIDR, so TCP 6443 sources cannot be "
               "checked against it; fix the policy config.")
    if rules is UNKNOWN or not allowed:
        return
    shown = ", ".join(str(n) for n in allowed)
    for rule in rules:
        if api_port_verdict(rule)[0] is not False:
            continue  # already reported as open to (or unverifiable against) the internet
        verdict = api_allowlist_verdict(rule, allowed)
        if verdict is True:
            yield (f"{rule.label} ({R.describe(rule)}) admits the Kubernetes API port (TCP 6443) from a source "
                   f"outside allowedApiCidrs ({shown}). Narrow the source to an allowed range, or add the range "
                   "to allowedApiCidrs in the policy config.")
        elif verdict is UNKNOWN:
            unknown = ", ".join(R.unknown_props(rule)) or "a field"
            yield (f"{rule.label} ({R.describe(rule)}) may admit TCP 6443 from outside allowedApiCidrs ({shown}) "
                   f"and cannot be verified during preview because {unknown} is unknown. {_FIX_UNKNOWN}")


def endpoint_problem(props: Any) -> str | None:
    """Why a cluster's API endpoint (inputs or outputs) is or may be reachable from the internet; None if private
    or public-behind-NSGs (the NSG rules are checked separately)."""
    config = R.read(props, "endpointConfig")
    if config is None:
        return ("it has no endpointConfig, so its Kubernetes API endpoint is not in your VCN: it is public and "
                "cannot be restricted. Set endpointConfig {subnetId: <private control-plane subnet>, "
                "isPublicIpEnabled: false}")
    public = R.read(config, "isPublicIpEnabled", default=False)
    if config is UNKNOWN or public is UNKNOWN:
        return ("endpointConfig.isPublicIpEnabled is unknown during preview, so the endpoint may be public; "
                "set it to the literal false")
    if public is False:
        return None
    if public is not True:  # "true", 1, ...: a bridged provider may coerce them to true, so never read them as private
        return (f"endpointConfig.isPublicIpEnabled is {public!r}, not a boolean, so whether the endpoint is public "
                "cannot be judged; set it to the literal false")
    nsg_ids = R.elements(R.read(config, "nsgIds"))
    if nsg_ids is UNKNOWN:
        return ("its API endpoint is public and endpointConfig.nsgIds is unknown during preview, so nothing is "
                "known to restrict it; pass the NSG ids as a literal list, or set isPublicIpEnabled to false")
    if not nsg_ids:
        return ("its API endpoint is public (isPublicIpEnabled: true) and has no NSG, so nothing restricts TCP 6443 "
                "to known clients. Set isPublicIpEnabled to false, or attach an NSG (endpointConfig.nsgIds) that "
                "admits 6443 only from the allowed client CIDRs")
    return None


def validate_kubernetes_api_not_public(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``kubernetes-api-not-public``: a cluster's endpoint settings (:func:`endpoint_problem`), and NSG
    rules / security-list entries that admit 0.0.0.0/0 or ::/0 to TCP 6443. Source: OKE docs, Network Resource
    Configuration. Unknowns: endpoint settings fail closed; rule fields use Kleene logic, then fail closed."""
    if args.resource_type == R.CLUSTER:
        problem = endpoint_problem(args.props)
        if problem:
            report_violation(f"Cluster '{args.name}': {problem}.", None)
        return
    rules = _rules_of(args.resource_type, args.props, args.name)
    fix = ("Admit 6443 only from the client CIDRs that must reach the API (workers, pods, VPN or bastion ranges), "
           "and keep the endpoint private (endpointConfig.isPublicIpEnabled: false).")
    for message in _judge(rules, f"security list '{args.name}'", api_port_verdict, fix):
        report_violation(message, None)
    if args.resource_type in (R.NSG_RULE, R.SECURITY_LIST, R.DEFAULT_SECURITY_LIST):
        for message in _allowlist_messages(rules, *allowed_networks(args.get_config())):
            report_violation(message, None)


# --- kubernetes-api-endpoint-restricted (stack) ----------------------------------------------------------------------
def _id_matches(resource: Any, ocid: Any) -> bool:
    value = R.read(resource.props, "id")
    return isinstance(ocid, str) and isinstance(value, str) and value == ocid


def endpoint_nsgs(cluster: Any, all_nsgs: list[Any]) -> tuple[list[Any], str | None]:
    """The NSG resources behind a cluster's ``endpointConfig.nsgIds``, and why some cannot be found (or None).

    Links through ``property_dependencies["endpointConfig"]`` first (NSGs created in this deployment), then by
    comparing known OCIDs with each NSG's ``id`` output (existing NSGs whose outputs carry an id).
    """
    linked = [r for r in cluster.property_dependencies.get("endpointConfig", []) if r.resource_type == R.NSG]
    ids = R.elements(R.read(cluster.props, "endpointConfig", "nsgIds"))
    if ids is UNKNOWN:
        return linked, None if linked else "endpointConfig.nsgIds is unknown and depends on no NSG in this stack"
    found = {n.urn: n for n in all_nsgs for ocid in ids if _id_matches(n, ocid)}
    unmatched = [ocid for ocid in ids if ocid is UNKNOWN or not any(_id_matches(n, ocid) for n in all_nsgs)]
    spare = [n for n in linked if n.urn not in found]
    found.update((n.urn, n) for n in spare)
    if len(spare) < len(unmatched):
        shown = ", ".join("<unknown>" if o is UNKNOWN else str(o) for o in unmatched)
        return list(found.values()), (f"endpoint NSG(s) {shown} are not managed in this stack, so their rules "
                                      "cannot be inspected")
    return list(found.values()), None


def _belongs_to(rule: Any, nsgs: list[Any]) -> bool:
    urns = {n.urn for n in nsgs}
    if any(dep.urn in urns for dep in rule.property_dependencies.get("networkSecurityGroupId", [])):
        return True
    return any(_id_matches(n, R.read(rule.props, "networkSecurityGroupId")) for n in nsgs)


def validate_api_endpoint_restricted(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``kubernetes-api-endpoint-restricted``: a public API endpoint's NSGs are all in the stack and none
    of their rules admits the internet to TCP 6443. Runs on outputs, linked through property dependencies
    (:func:`endpoint_nsgs`, :func:`_belongs_to`). Unknowns: unresolvable NSGs and unverifiable rules fail closed."""
    nsgs = [r for r in args.resources if r.resource_type == R.NSG]
    nsg_rules = [r for r in args.resources if r.resource_type == R.NSG_RULE]
    allowed, bad = allowed_networks(args.get_config())
    for cluster in (r for r in args.resources if r.resource_type == R.CLUSTER):
        if R.read(cluster.props, "endpointConfig", "isPublicIpEnabled") is not True:
            continue  # private, or unknown/no-NSG cases that kubernetes-api-not-public already reports
        attached, missing = endpoint_nsgs(cluster, nsgs)
        prefix = f"Cluster '{cluster.name}' has a public API endpoint"
        if missing:
            report_violation(f"{prefix}, but {missing}. Manage the endpoint NSGs in this stack, or make the "
                             "endpoint private (endpointConfig.isPublicIpEnabled: false).", cluster.urn)
        for rule in (r for r in nsg_rules if _belongs_to(r, attached)):
            normalised = R.nsg_rule(rule.props, f"NSG rule '{rule.name}'")
            verdict, _ = api_port_verdict(normalised)
            if verdict is True:
                report_violation(f"{prefix} reachable from the internet: {normalised.label} "
                                 f"({R.describe(normalised)}) admits TCP 6443 from anywhere. Restrict its source "
                                 "to the allowed client CIDRs, or make the endpoint private.", cluster.urn)
            elif verdict is UNKNOWN:
                report_violation(f"{prefix}, and {normalised.label} ({R.describe(normalised)}) cannot be verified "
                                 f"during preview because {', '.join(R.unknown_props(normalised))} is unknown. "
                                 f"{_FIX_UNKNOWN}", cluster.urn)
            else:
                for message in _allowlist_messages([normalised], allowed, bad):
                    report_violation(f"{prefix}: {message}", cluster.urn)


_NET_DOC = "OKE docs: Network Resource Configuration; OCI docs: Security Rules"

_API_CIDRS_SCHEMA = PolicyConfigSchema({
    "allowedApiCidrs": {
        "type": "array", "uniqueItems": True, "default": [],
        # IPv4 octets 0-255 and prefix 0-32; IPv6 text with a prefix 0-128 (its address is checked by the rule)
        "items": {"type": "string", "pattern": (r"^((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}"
                                                r"(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])/(3[0-2]|[12]?[0-9])$"
                                                r"|^[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*/(12[0-8]|1[01][0-9]|[1-9]?[0-9])$")},
        "description": ("CIDRs that may reach TCP 6443; when not empty, a rule admitting 6443 from any other CIDR "
                        "is a violation (0.0.0.0/0 and ::/0 always are)"),
    },
})

no_internet_ssh_or_all_ports = ResourceValidationPolicy(
    name="no-internet-ssh-or-all-ports",
    description="No NSG rule or security list admits 0.0.0.0/0, ::/0 or another internet-wide CIDR (IPv4 shorter "
                "than /8) to SSH (TCP 22) or to all ports.",
    validate=validate_no_internet_ssh_or_all_ports,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Narrow the rule's source to a known CIDR or NSG and its destination ports to what the "
                       "service needs; use the OCI Bastion service for SSH. Also manage the VCN's "
                       f"DefaultSecurityList, whose default rules allow SSH from 0.0.0.0/0. Source: {_NET_DOC}."),
    tags=["network", "security"],
)

kubernetes_api_not_public = ResourceValidationPolicy(
    name="kubernetes-api-not-public",
    description="The Kubernetes API endpoint (TCP 6443) is not reachable from 0.0.0.0/0, ::/0 or another "
                "internet-wide CIDR (IPv4 shorter than /8).",
    validate=validate_kubernetes_api_not_public,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Keep endpointConfig.isPublicIpEnabled false (the default); if the endpoint must be public, "
                       "attach an NSG that admits TCP 6443 only from the allowed client CIDRs, and never open 6443 "
                       "to 0.0.0.0/0 in any NSG rule or security list. Source: OKE docs: Network Resource "
                       "Configuration; Migrating to VCN-Native Clusters."),
    tags=["oke", "network", "security"],
    config_schema=_API_CIDRS_SCHEMA,
)

kubernetes_api_endpoint_restricted = StackValidationPolicy(
    name="kubernetes-api-endpoint-restricted",
    description="A public Kubernetes API endpoint is restricted by NSGs of this stack that do not admit the internet.",
    validate=validate_api_endpoint_restricted,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Make the endpoint private, or manage its NSGs in this stack and admit TCP 6443 only from "
                       f"the allowed client CIDRs. Source: {_NET_DOC}."),
    tags=["oke", "network", "security"],
    config_schema=_API_CIDRS_SCHEMA,
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(no_internet_ssh_or_all_ports, R.NSG_RULE, R.SECURITY_LIST, R.DEFAULT_SECURITY_LIST)
examines(kubernetes_api_not_public, R.CLUSTER, R.NSG_RULE, R.SECURITY_LIST, R.DEFAULT_SECURITY_LIST)

POLICIES = [no_internet_ssh_or_all_ports, kubernetes_api_not_public, kubernetes_api_endpoint_restricted]

UNKNOWN_BEHAVIOUR = {
    "no-internet-ssh-or-all-ports": (
        "fails closed: the rule's fields are combined in three-valued logic, one known safe fact (private source, "
        "NSG source, harmless port) passes, a verdict that stays unknown is a violation, and so is an unknown "
        "ingressSecurityRules list"),
    "kubernetes-api-not-public": (
        "fails closed: an unknown endpointConfig, isPublicIpEnabled or nsgIds list of a public endpoint is a "
        "violation; NSG/security-list rules to TCP 6443 use three-valued logic, then fail closed"),
    "kubernetes-api-endpoint-restricted": (
        "fails closed: endpoint NSGs that cannot be traced in the stack and endpoint rules that stay unknown are "
        "violations; an unknown isPublicIpEnabled is left to kubernetes-api-not-public, which fails closed on it"),
}
