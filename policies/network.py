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
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from pulumi_policy import (EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy,
                           Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies` (tests, offline/)
    from . import _rules as R
else:  # run by the Pulumi CLI from inside policies/ (the pack directory is on sys.path)
    import _rules as R

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
    if public is not True:
        return None
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


_NET_DOC = "OKE docs: Network Resource Configuration; OCI docs: Security Rules"

no_internet_ssh_or_all_ports = ResourceValidationPolicy(
    name="no-internet-ssh-or-all-ports",
    description="No NSG rule or security list admits 0.0.0.0/0 or ::/0 to SSH (TCP 22) or to all ports.",
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
    description="The Kubernetes API endpoint (TCP 6443) is not reachable from 0.0.0.0/0 or ::/0.",
    validate=validate_kubernetes_api_not_public,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Keep endpointConfig.isPublicIpEnabled false (the default); if the endpoint must be public, "
                       "attach an NSG that admits TCP 6443 only from the allowed client CIDRs, and never open 6443 "
                       "to 0.0.0.0/0 in any NSG rule or security list. Source: OKE docs: Network Resource "
                       "Configuration; Migrating to VCN-Native Clusters."),
    tags=["oke", "network", "security"],
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
)

POLICIES = [no_internet_ssh_or_all_ports, kubernetes_api_not_public, kubernetes_api_endpoint_restricted]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "no-internet-ssh-or-all-ports": "fails closed: Kleene logic over the rule's fields; a verdict still unknown "
                                    "(or an unknown ingressSecurityRules list) is a violation.",
    "kubernetes-api-not-public": "fails closed: unknown endpoint settings, or a rule that may admit 0.0.0.0/0 to "
                                 "6443, is a violation.",
    "kubernetes-api-endpoint-restricted": "fails closed: endpoint NSGs it cannot identify or rules it cannot verify "
                                          "are violations; an unknown isPublicIpEnabled is left to "
                                          "kubernetes-api-not-public.",
}
