"""OCI paths around the exposure, data and node rules: the same effect as a refused resource, reached through a type
or a property the other rules do not read.

* **A route through a host** (``route-no-private-ip-hop``): a route rule whose target is a private IP sends the
  subnet's traffic through the instance that holds it (with source/destination check off it forwards it), which
  reads or rewrites every packet — the in-line form of the VTAP the catalogue refuses. OCI Networking docs "Using a
  Private IP as a Route Target". The target is a private IP when its OCID is ``ocid1.privateip.…``, or when the
  route rules depend on an ``oci:Core/privateIp:PrivateIp`` of the stack and the target is not another OCID.
* **A VNIC in another network** (``vnic-in-stack-subnet``): a secondary VNIC puts an instance on the subnet it names
  — a node on another VCN bypasses the platform VCN's NSGs and routes, as a peering would (refused as DRG
  attachments and peering). OCI Networking docs "Virtual Network Interface Cards" (secondary VNICs may be in
  another VCN). The subnet must be one the stack creates (a property dependency on an ``oci:Core/subnet:Subnet``);
  a literal OCID names a subnet the preview cannot see.
* **A copy of a file system** (``fs-not-cloned``): ``sourceSnapshotId`` clones another file system's snapshot into a
  new file system with none of the original's protection; block-volume clones are refused by the catalogue for the
  same reason. OCI File Storage docs "Cloning File Systems".
* **A quota that raises** (``quota-only-lowers``): an ``unset`` statement resets a quota a parent or an earlier
  statement set (``zero``), so a compartment may use up to the service limit again; only ``zero`` and ``set``
  statements are accepted, and a statement of another form is refused (OCI docs "Compartment Quotas", "Quota
  Policy Syntax").
* **A key onto the nodes** (``node-pool-no-ssh-key``): ``sshPublicKey`` installs a key for the ``opc`` user (root
  through sudo) on every node of a pool; ``iam-no-node-access`` refuses the grants that could set one, so the stack
  may not set one either. OKE docs "Connecting to Managed Nodes Using SSH".
* **A boot script that opens the node**: user data of node pools, instances and instance configurations is judged by
  ``node-cloud-init-keeps-node-closed`` (``node_boot``).
* **The cluster's own options** (OIDC sign-in, its discovery document, the legacy add-ons) are judged in
  ``cluster_auth``.

Unknown values: a route target or VNIC subnet that is unknown and has no property dependency to judge fails closed;
an unknown ``sourceSnapshotId`` is treated as set (``is_set``): a clone the preview cannot read is refused.
"""
from __future__ import annotations

from typing import Any, Optional

from pulumi_policy import (EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy,
                           Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._gate import examines
    from ._rules import NODE_POOL, UNKNOWN, elements, is_set, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _gate import examines
    from _rules import NODE_POOL, UNKNOWN, elements, is_set, read

ROUTE_TABLES = ("oci:Core/routeTable:RouteTable", "oci:Core/defaultRouteTable:DefaultRouteTable")
PRIVATE_IP = "oci:Core/privateIp:PrivateIp"
VNIC_ATTACHMENT = "oci:Core/vnicAttachment:VnicAttachment"
SUBNET = "oci:Core/subnet:Subnet"
FILE_SYSTEM = "oci:FileStorage/fileSystem:FileSystem"
QUOTA = "oci:Limits/quota:Quota"
#: Quota statement verbs that only lower what a compartment may use (OCI docs "Quota Policy Syntax").
LOWERING = ("zero", "set")
_NET = "OCI Networking docs: Using a Private IP as a Route Target, Virtual Network Interface Cards"


def _deps(res: Any, prop: str, kind: str) -> list[Any]:
    return [d for d in (getattr(res, "property_dependencies", None) or {}).get(prop, []) if d.resource_type == kind]


def validate_route_no_private_ip_hop(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``route-no-private-ip-hop``: no route rule targets a private IP (see the module docstring)."""
    for res in args.resources:
        if res.resource_type not in ROUTE_TABLES:
            continue
        from_stack = _deps(res, "routeRules", PRIVATE_IP)
        for i, rule in enumerate(elements(read(res.props, "routeRules")) or []):
            target = read(rule, "networkEntityId")
            if isinstance(target, str) and target.lower().startswith("ocid1.privateip."):
                why = f"routeRules[{i}].networkEntityId is the private IP {target}"
            elif from_stack and (target is UNKNOWN or not str(target).lower().startswith("ocid1.")):
                # the id of a PrivateIp of the stack: unknown at a first preview, the engine's id otherwise
                why = f"routeRules[{i}] targets the private IP '{from_stack[0].name}' of this stack"
            else:
                continue
            report_violation(f"Route table '{res.name}': {why}; the instance holding it reads and rewrites every "
                             "packet the route sends (an in-line tap). Route to a NAT, service, internet or dynamic "
                             "routing gateway instead.", res.urn)


def validate_vnic_in_stack_subnet(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``vnic-in-stack-subnet``: a secondary VNIC's subnet is one the stack creates."""
    for res in args.resources:
        if res.resource_type != VNIC_ATTACHMENT:
            continue
        subnet = read(res.props, "createVnicDetails", "subnetId")
        if _deps(res, "createVnicDetails", SUBNET):
            continue
        shown = subnet if isinstance(subnet, str) else "unknown during preview and from no subnet of this stack"
        report_violation(f"VNIC attachment '{res.name}': createVnicDetails.subnetId is {shown}; a secondary VNIC in "
                         "a subnet the stack does not create can put the instance on another VCN, past the "
                         "platform VCN's NSGs and routes. Attach it to a subnet this stack creates.", res.urn)


def validate_fs_not_cloned(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``fs-not-cloned``: a file system has no ``sourceSnapshotId``."""
    if args.resource_type == FILE_SYSTEM and is_set(args.props, "sourceSnapshotId"):
        src = read(args.props, "sourceSnapshotId")
        report_violation(f"File system '{args.name}' is cloned from the snapshot "
                         f"{src if isinstance(src, str) else '(unknown during preview)'}: a copy of another file "
                         "system's data without its protection. Create an empty file system.", None)


def quota_problem(statement: Any) -> Optional[str]:
    """Why one quota statement may raise what a compartment may use, or None."""
    if statement is UNKNOWN:
        return "is unknown during preview, so it cannot be shown to only lower a quota"
    if not isinstance(statement, str):
        return f"is {type(statement).__name__}, not a quota statement"
    first = (statement.split() or [""])[0].lower()
    if first == "unset":
        return "unsets a quota, so the compartment may use up to the service limit again"
    if first not in LOWERING:
        return f"starts with {first!r}, not one of {', '.join(LOWERING)} (the statements that only lower)"
    return None


def validate_quota_only_lowers(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``quota-only-lowers``: every statement of a quota is ``zero`` or ``set``."""
    if args.resource_type != QUOTA:
        return
    items = elements(read(args.props, "statements"))
    for i, text in enumerate([UNKNOWN] if items is UNKNOWN else items):
        if (why := quota_problem(text)) is not None:
            report_violation(f"Quota '{args.name}' statements[{i}] {why}: {text!r}. Write zero or set statements; "
                             "an exception for one compartment is a lower set, never an unset.", None)


def validate_node_pool_no_ssh_key(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``node-pool-no-ssh-key``: a node pool sets no ``sshPublicKey``."""
    if args.resource_type == NODE_POOL and is_set(args.props, "sshPublicKey"):
        report_violation(f"Node pool '{args.name}' sets sshPublicKey: every node accepts that key for opc (root "
                         "through sudo). Remove it; reach nodes through Kubernetes, or a reviewed break-glass "
                         "procedure outside the stack.", None)


def _resource(name: str, description: str, validate: Any, remediation: str, tags: list[str],
              level: EnforcementLevel = EnforcementLevel.MANDATORY, severity: Severity = Severity.HIGH):
    """A resource policy examining the resource types :data:`_EXAMINES` lists for it (_gate.py)."""
    return examines(ResourceValidationPolicy(name=name, description=description, validate=validate,
                                             enforcement_level=level, severity=severity,
                                             remediation_steps=remediation, tags=tags), *_EXAMINES[name])


#: The resource types each resource rule here examines (it returns at once for any other).
_EXAMINES = {"fs-not-cloned": (FILE_SYSTEM,), "quota-only-lowers": (QUOTA,), "node-pool-no-ssh-key": (NODE_POOL,)}


route_no_private_ip_hop = StackValidationPolicy(
    name="route-no-private-ip-hop", description="No route rule sends traffic through a private IP (a host).",
    validate=validate_route_no_private_ip_hop, enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH, tags=["network", "exposure", "data"],
    remediation_steps=f"Route to a gateway (NAT, service, internet, DRG). Source: {_NET}.")
vnic_in_stack_subnet = StackValidationPolicy(
    name="vnic-in-stack-subnet", description="A secondary VNIC is attached in a subnet the stack creates.",
    validate=validate_vnic_in_stack_subnet, enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH, tags=["network", "exposure"],
    remediation_steps=f"Pass a subnet of this stack's VCN (its .id). Source: {_NET}.")

POLICIES = [
    route_no_private_ip_hop, vnic_in_stack_subnet,
    _resource("fs-not-cloned", "A file system is not cloned from another's snapshot.", validate_fs_not_cloned,
              "Remove sourceSnapshotId. Source: OCI File Storage docs \"Cloning File Systems\".", ["data"]),
    _resource("quota-only-lowers", "Every compartment quota statement is zero or set (never unset).",
              validate_quota_only_lowers, "Replace unset with a set to the allowed value. Source: OCI docs "
              "\"Compartment Quotas\", \"Quota Policy Syntax\".", ["capacity", "tenancy"]),
    _resource("node-pool-no-ssh-key", "A node pool installs no SSH key on its nodes.", validate_node_pool_no_ssh_key,
              "Remove sshPublicKey. Source: OKE docs \"Connecting to Managed Nodes Using SSH\".", ["node-access"],
              severity=Severity.CRITICAL),
]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "route-no-private-ip-hop": ("fails closed: an unknown target whose route rules depend on a PrivateIp of the "
                                "stack is a violation"),
    "vnic-in-stack-subnet": "fails closed: a subnet that is not from a subnet of the stack is a violation",
    "fs-not-cloned": "fails closed: an unknown sourceSnapshotId counts as set",
    "quota-only-lowers": "fails closed: an unknown statement is a violation",
    "node-pool-no-ssh-key": "fails closed: an unknown sshPublicKey counts as set",
}
