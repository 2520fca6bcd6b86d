"""IAM grants that undo the pack's other rules at run time: who a broad principal really is, and grants that change
the exposure, the keys or the data the pack judged as stack resources.

The other rules judge what a stack *declares* (an NSG rule, a bucket's versioning, a key's deletion). A grant lets a
principal do the same at run time, after the preview: ``manage network-security-groups`` rewrites the NSG rules
``no-internet-ingress`` judged, ``manage keys`` schedules the deletion ``protected-data-keys-kept`` refuses, ``manage
objects`` purges the versions ``bucket-protected-data-versioned`` keeps. Two classes:

* **A principal type that is everyone of that type.** ``Allow any-user ... where request.principal.type =
  'instance'`` is every instance principal of the tenancy — every tenant's nodes, every self-managed VM. A workload
  statement is pinned to cluster, namespace and ServiceAccount (``iam-workload-statement-scoped``); an instance
  statement must be pinned as tightly: ``request.principal.id`` (one instance) or ``request.principal.compartment.id``
  (the instances of one compartment), or be written for a dynamic group (IAM docs "Managing Dynamic Groups").
  Every type but ``workload``, ``cluster`` and ``nodepool`` (:data:`JUDGED_ELSEWHERE_TYPES`) is pinned this way —
  ``instance``, ``resource``, ``fnfunc``, ``datasciencejob``, ... (:data:`TENANCY_WIDE_TYPES` names some): resource
  principal types are open-ended, so the class is closed by exclusion.
* **A grant that changes exposure, keys or data of others** (:data:`REACH_TYPES`): the network's write verbs
  (``manage`` of ``virtual-network-family`` and its members that open paths: NSGs, security lists, route tables,
  gateways, public IPs, VNICs, subnets, VCNs, DRGs, peering), Vault keys (``manage keys``/``vaults``: KEY_DELETE,
  KEY_DISABLE make the data they protect unreadable), Object Storage (``use buckets``: BUCKET_UPDATE, versioning and
  access type; ``manage objects``: OBJECT_DELETE, OBJECT_VERSION_DELETE) and File Storage (``manage`` of file
  systems, exports, export sets, mount targets, snapshots: exports without root squash, deleted snapshots), and
  ``all-resources`` at those verbs. ``iam-no-node-access`` already refuses node access for every subject; this rule
  refuses the rest of what a grant can undo, for two kinds of subject: a **workload statement** (a tenant's pod: it
  never administers what others share) and a **group or dynamic group** not listed in the policy config
  ``adminGroups`` (the platform's administrators, by name or OCID, who do administer it — and are reviewed outside
  the stack). ``any-user`` statements of the ``cluster`` and ``nodepool`` types are OKE's service principals (the
  cluster's load balancers, CSI), judged elsewhere; services (``Allow service ...``) are the providers' own.

Three more members, from tables (read 2026-12-02):

* **What the catalogue refuses or judges as a resource, created at run time** — ``iam_types.CATALOGUE_IAM_TYPES``
  maps every OCI entry the catalogue refuses for its own reason or judges by named rules to the IAM types that
  create it (``manage vtaps``, ``manage zpr-family``, ``manage network-firewall-family``, ``manage load-balancers``
  (a public one is what ``no-public-endpoints`` refuses), ``manage serviceconnectors``, ``manage
  cloud-guard-family``, ``manage instance-configurations``, ``use repos`` (pushes over a tag
  ``container-image-pinned`` trusts), ...); aggregates expand to their members (``iam_types.FAMILY_MEMBERS``). The
  types that reach a node or change IAM are left to ``iam-no-node-access`` and ``iam-no-identity-escalation``.
* **Reads across tenants** (``READ_REACH_TYPES``) — ``read secret-bundles``/``secret-family`` (every secret's
  contents) and ``read objects``/``object-family`` (every tenant's datasets and checkpoints), and ``all-resources``
  at read, ``in tenancy`` only: a compartment may be a tenant's own (the config check judges the compartments it
  knows). ``target.secret.name``/``.id`` and ``target.bucket.name``/``.id`` pins exempt.
* **A name no reference page lists** — ``use``/``manage`` of a resource type outside ``iam_vocabulary`` (the
  config's vocabulary): its effect cannot be judged (fail closed).

A ``where`` clause exempts a grant when it pins ``request.permission`` to permissions none of which is a write
listed here, or pins ``target.bucket.name`` of ``objects`` — a grant on a named bucket's objects is what a tenant's
own bucket needs (pinned to a bucket the stack protects, ``iam-protected-bucket-kept`` refuses it). A bucket pin does
not narrow ``use``/``manage buckets`` (or ``object-family``): BUCKET_UPDATE makes the pinned bucket public or
suspends its versioning, PAR_MANAGE shares it by pre-authenticated URL — what ``no-public-endpoints`` refuses as a
resource — unless ``request.permission`` is pinned to none of them. Every location counts: a policy in a parent
compartment or the tenancy reaches the platform's by inheritance, and a preview cannot see the compartment tree.

Sources (read 2026-12-02): OCI IAM docs "Details for the Core Services" (virtual-network-family members,
NSG_UPDATE_SECURITY_RULES, PUBLIC_IP_CREATE, PRIVATE_IP_UPDATE, ROUTE_TABLE_UPDATE), "Details for the Vault
Service" (manage keys: KEY_DELETE, KEY_DISABLE), "Details for Object Storage, Archive Storage, and Data Transfer"
(use buckets: BUCKET_UPDATE; manage objects: OBJECT_DELETE, OBJECT_VERSION_DELETE), "Details for the File Storage
Service", "General Variables for All Requests" (request.principal.id, request.principal.compartment.id).

| rule                             | kind     | checks                                                               |
|----------------------------------|----------|----------------------------------------------------------------------|
| iam-principal-type-pinned        | resource | an any-user statement of a type other than workload/cluster/nodepool |
|                                  |          | pins request.principal.id or request.principal.compartment.id         |
| iam-no-run-time-undo             | resource | no workload statement, and no group outside ``adminGroups``, gets a  |
|                                  |          | grant that changes exposure, keys or data (``REACH_TYPES``)           |
"""
from __future__ import annotations

from typing import Optional

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from . import _catalogue
    from .iam import (POLICY, Statement, StatementSyntaxError, _known_statements, _leave_unknowns_to_engine,
                      parse_statement, restricts)
    from .iam_types import CATALOGUE_IAM_TYPES, FAMILY_MEMBERS, LEAST_VERB, iam_types, tokens_of
    from .iam_vocabulary import KNOWN_RESOURCE_TYPES
    from .identity import IAM_RESOURCE_TYPES
    from .node_access import NODE_ACCESS_FAMILIES, NODE_ACCESS_TYPES, VERBS, pinned_values
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/security/
    import _catalogue
    from iam import (POLICY, Statement, StatementSyntaxError, _known_statements, _leave_unknowns_to_engine,
                     parse_statement, restricts)
    from iam_types import CATALOGUE_IAM_TYPES, FAMILY_MEMBERS, LEAST_VERB, iam_types, tokens_of
    from iam_vocabulary import KNOWN_RESOURCE_TYPES
    from identity import IAM_RESOURCE_TYPES
    from node_access import NODE_ACCESS_FAMILIES, NODE_ACCESS_TYPES, VERBS, pinned_values
    from _gate import examines

#: Principal types whose any-user statement is every principal of that type in the tenancy (IAM docs "General
#: Variables for All Requests": request.principal.type), and the variables that pin one (or one compartment's).
#: Named for the message; the rule judges every type outside :data:`JUDGED_ELSEWHERE_TYPES`, since a resource
#: principal's type is the type segment of its OCID (IAM docs "Writing Matching Rules to Define Dynamic Groups",
#: read 2026-12-02: ``fnfunc``, ``apigateway``, ``domain``; Data Science "Resource Principals": ``datasciencejob``,
#: ``datasciencenotebooksession``, ``datasciencemodeldeployment``, ``datasciencepipelinerun``; Data Flow "Resource
#: Principal Policies": ``dataflowrun``) — an open set, so it is closed by exclusion.
TENANCY_WIDE_TYPES = frozenset({"instance", "resource", "fnfunc", "apigateway", "dataflowrun", "datasciencejob",
                                "datasciencenotebooksession", "datasciencemodeldeployment", "datasciencepipelinerun",
                                "devopsbuildpipeline", "devopsdeploypipeline", "containerinstance", "user"})
#: Types judged by their own rules: ``workload`` (``iam-workload-statement-scoped``: cluster, namespace and
#: ServiceAccount), OKE's ``cluster`` and ``nodepool`` service principals (the cluster's load balancers and CSI, the
#: node pools' Compute Cluster launch: ``iam-compute-cluster-launch-statement``).
JUDGED_ELSEWHERE_TYPES = frozenset({"workload", "cluster", "nodepool"})
PRINCIPAL_PINS = ("request.principal.id", "request.principal.compartment.id")

_NET = "changes the network's exposure (NSG and security-list rules, routes, gateways, public IPs, VNICs, peering)"
_KEY = "disables or schedules the deletion of Vault keys, making the data they protect unreadable"
_OBJ = "changes buckets' access type and versioning, or deletes objects and their old versions"
_FS = "rewrites exports (root squash, sources), deletes snapshots and file systems"
#: resource type -> (least verb that changes what it protects, the write permissions — a ``request.permission`` pin
#: to none of them exempts —, what it gives). Sources: the module docstring.
REACH_TYPES: dict[str, tuple[str, Optional[frozenset[str]], str]] = {
    **{t: ("manage", frozenset({"NSG_UPDATE_SECURITY_RULES", "SECURITY_LIST_UPDATE", "ROUTE_TABLE_UPDATE",
                                "PUBLIC_IP_CREATE", "PUBLIC_IP_UPDATE", "PUBLIC_IP_ASSIGN_PRIVATE_IP",
                                "PRIVATE_IP_UPDATE", "PRIVATE_IP_CREATE", "VNIC_UPDATE", "VNIC_CREATE",
                                "SUBNET_UPDATE", "SUBNET_CREATE", "VCN_UPDATE", "INTERNET_GATEWAY_CREATE",
                                "INTERNET_GATEWAY_UPDATE", "DRG_ATTACHMENT_CREATE", "LOCAL_PEERING_GATEWAY_CONNECT",
                                "REMOTE_PEERING_CONNECTION_CONNECT"}), _NET)
       for t in ("virtual-network-family", "network-security-groups", "security-lists", "route-tables",
                 "internet-gateways", "nat-gateways", "public-ips", "private-ips", "vnics", "vnic-attachments",
                 "subnets", "vcns", "drgs", "drg-attachments", "local-peering-gateways",
                 "remote-peering-connections", "ipsec-connections", "cross-connects", "service-gateways")},
    **{t: ("manage", frozenset({"KEY_DELETE", "KEY_DISABLE", "VAULT_DELETE", "KEY_UPDATE", "KEY_ROTATE"}), _KEY)
       for t in ("keys", "vaults", "kms-family", "vault-family")},
    "buckets": ("use", frozenset({"BUCKET_UPDATE", "BUCKET_DELETE", "PAR_MANAGE"}), _OBJ),
    "objects": ("manage", frozenset({"OBJECT_DELETE", "OBJECT_VERSION_DELETE"}), _OBJ),
    "object-family": ("use", frozenset({"BUCKET_UPDATE", "BUCKET_DELETE", "PAR_MANAGE", "OBJECT_DELETE",
                                        "OBJECT_VERSION_DELETE"}), _OBJ),
    **{t: ("manage", frozenset({"EXPORT_CREATE", "EXPORT_UPDATE", "EXPORT_DELETE", "FILE_SYSTEM_DELETE",
                                "FILE_SYSTEM_UPDATE", "FILE_SYSTEM_DELETE_SNAPSHOT", "EXPORT_SET_UPDATE",
                                "MOUNT_TARGET_UPDATE"}), _FS)
       for t in ("file-family", "file-systems", "export-sets", "mount-targets")},
}


def _catalogue_what(iam_type: str) -> str:
    """What a grant of ``iam_type`` creates at run time, from the catalogue's own entry for what it makes."""
    token = tokens_of(iam_type)[0]
    entry = _catalogue.TYPES.get(token) or _catalogue.GROUPS[token]
    if entry["verdict"] == _catalogue.JUDGED:
        return f"creates or changes at run time what {', '.join(entry['rules'])} judge in the stack ({token})"
    return f"creates at run time what the catalogue refuses as a resource ({token}: {entry['reason']})"


#: The catalogue's types (``iam_types.CATALOGUE_IAM_TYPES``) not judged above, by node access or as IAM's own.
REACH_TYPES.update({t: (LEAST_VERB.get(t, "manage"), None, _catalogue_what(t)) for t in sorted(iam_types())
                    if t not in REACH_TYPES and t not in NODE_ACCESS_TYPES and t not in NODE_ACCESS_FAMILIES
                    and t not in IAM_RESOURCE_TYPES})
_SECRETS = "reads the contents of every Vault secret it covers (other tenants' and the platform's)"
_OBJECTS = "reads every object of every bucket it covers (every tenant's datasets and checkpoints)"
#: Reads across tenants, judged only ``in tenancy`` (a compartment may be a tenant's own; the config check judges
#: the compartments it knows): type -> (least verb, the variables that pin it to named targets, what it gives).
#: Sources: IAM "Details for the Vault Service" (``secret-bundles``: SECRET_BUNDLE_READ at read, the secret's
#: contents), "Details for Object Storage" (``objects``: OBJECT_READ at read).
READ_REACH_TYPES: dict[str, tuple[str, tuple[str, ...], str]] = {
    **{t: ("read", ("target.secret.name", "target.secret.id"), _SECRETS) for t in ("secret-bundles", "secret-family")},
    **{t: ("read", ("target.bucket.name", "target.bucket.id"), _OBJECTS) for t in ("objects", "object-family")},
}
_ALL = "all-resources"
_OBJECT_TYPES = frozenset({"buckets", "objects", "object-family"})
#: What a bucket pin does not narrow: the pinned bucket made public or versioning suspended (BUCKET_UPDATE), shared
#: by pre-authenticated request (PAR_MANAGE) or deleted — IAM "Details for Object Storage" (read 2026-12-02).
_EXPOSURE = frozenset({"BUCKET_UPDATE", "PAR_MANAGE", "BUCKET_DELETE"})
_DOC = ("OCI IAM docs: Details for the Core Services, Details for the Vault Service, Details for Object Storage, "
        "Details for the File Storage Service, General Variables for All Requests")


def principal_type_problem(st: Statement) -> Optional[str]:
    """Why an any-user statement of a tenancy-wide principal type matches every such principal, or None."""
    subjects = {part.strip().lower() for part in st.subject.split(",")}
    if not subjects & {"any-user", "any-group"} or st.action != "allow":
        return None
    types = pinned_values(st.condition, "request.principal.type")
    wide = sorted({t.lower() for t in types or ()} - JUDGED_ELSEWHERE_TYPES)
    if not wide or any(restricts(st.condition, v) for v in PRINCIPAL_PINS):
        return None
    what = ("every instance of every tenant and every self-managed VM" if wide[0] == "instance" else
            f"every {wide[0]} resource of every tenant: a resource principal's type is its OCID's type segment")
    return (f"lets every '{wide[0]}' principal of the tenancy in (request.principal.type = '{wide[0]}' is {what}); "
            f"pin request.principal.compartment.id or request.principal.id too, or grant a dynamic group pinned to "
            f"the platform's compartment")


def _members(resource: str) -> list[str]:
    """The judged types a resource-type name covers: itself, an aggregate's members, or (all-resources) every one."""
    if resource == _ALL:
        return sorted(REACH_TYPES)
    return sorted(({resource} | FAMILY_MEMBERS.get(resource, frozenset())) & REACH_TYPES.keys())


def unknown_type(st: Statement) -> list[str]:
    """A ``use``/``manage`` grant of a resource-type name the pack does not know (``iam_vocabulary``): its effect
    cannot be judged against the tables, so it is reported (fail closed)."""
    if st.verb in ("use", "manage") and st.resource and st.resource.lower() not in KNOWN_RESOURCE_TYPES:
        return [f"'{st.verb} {st.resource}' names a resource type no policy reference page the pack read lists, so "
                f"what it creates cannot be judged (check the spelling against the service's 'Details for ...' "
                f"page: e.g. zpr-policy, cluster-virtualnode-pools; a new type is added to "
                f"oke_rdma/facts/iam.py and policies/security/iam_vocabulary.py)"]
    return []


def read_reach(st: Statement) -> list[str]:
    """What one ``in tenancy`` statement lets its subject read of every tenant (:data:`READ_REACH_TYPES`)."""
    if st.verb not in VERBS or not st.resource or st.location.lower() != "tenancy":
        return []
    found: dict[str, list[str]] = {}
    for member in (sorted(READ_REACH_TYPES) if st.resource == _ALL else
                   [st.resource] if st.resource in READ_REACH_TYPES else []):
        least, pins, what = READ_REACH_TYPES[member]
        if VERBS.index(st.verb) >= VERBS.index(least) and not any(restricts(st.condition, v) for v in pins):
            found.setdefault(what, []).append(member)
    return [f"'{st.verb} {st.resource}' in tenancy {what}" for what in found]


def reach(st: Statement) -> list[str]:
    """What one statement lets its subject change of exposure, keys or data ([] when nothing)."""
    found: dict[str, list[str]] = {}
    if st.verb in VERBS and st.resource:
        pinned_perms = pinned_values(st.condition, "request.permission")
        for member in _members(st.resource):
            least, perms, what = REACH_TYPES[member]
            if VERBS.index(st.verb) < VERBS.index(least):
                continue
            if perms is not None and pinned_perms is not None and not {p.upper() for p in pinned_perms} & perms:
                continue
            if member == "objects" and restricts(st.condition, "target.bucket.name"):
                continue  # a named bucket's objects: what a tenant's own bucket needs (iam-protected-bucket-kept)
            if member in _OBJECT_TYPES and restricts(st.condition, "target.bucket.name") and not (
                    pinned_perms is None or {p.upper() for p in pinned_perms} & _EXPOSURE):
                continue
            found.setdefault(what, []).append(member)
    writes = {p for _, perms, _ in REACH_TYPES.values() for p in perms or ()}
    for perm in st.permissions:
        if perm in writes:
            what = next(w for _, perms, w in REACH_TYPES.values() if perm in (perms or ()))
            found.setdefault(what, []).append(f"{{{perm}}}")
    out = []
    for what, members in found.items():
        shown = ", ".join(members)
        via = f" (it includes {shown})" if st.resource and members != [st.resource] and len(members) < 6 else ""
        out.append(f"'{st.verb or 'permissions'} {st.resource or shown}'{via} {what}")
    return out


def _subject(st: Statement, admins: set[str]) -> Optional[str]:
    """Who the grant is for, when it is a subject this rule judges (see the module docstring), else None."""
    if restricts(st.condition, "request.principal.type", {"workload"}):
        return "a workload (a tenant's pods)"
    words = st.subject.split()
    if words and words[0].lower() in {"group", "dynamic-group"} and st.action == "allow":
        names = {w.strip(",'\"").lower() for w in words[1:] if w.lower() != "id"}
        if names and names <= admins:
            return None
        return f"{words[0].lower()} {' '.join(words[1:])}"
    return None


def validate_principal_type_pinned(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``iam-principal-type-pinned``: see the module docstring."""
    if args.resource_type != POLICY:
        return
    known, unknown = _known_statements(args.props)
    for i, text in known:
        try:
            problem = principal_type_problem(parse_statement(text))
        except StatementSyntaxError:
            continue  # refused by iam-no-identity-escalation
        if problem:
            report_violation(f"Policy '{args.name}' statements[{i}] {problem}: {text!r}.", None)
    _leave_unknowns_to_engine(args.props, unknown)


def validate_no_run_time_undo(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``iam-no-run-time-undo``: see the module docstring."""
    if args.resource_type != POLICY:
        return
    admins = {str(a).strip().lower() for a in ((args.get_config() or {}).get("adminGroups") or ())}
    known, unknown = _known_statements(args.props)
    for i, text in known:
        try:
            st = parse_statement(text)
        except StatementSyntaxError:
            continue  # refused by iam-no-identity-escalation
        who = _subject(st, admins)
        findings = reach(st) + read_reach(st) + unknown_type(st) if who else []
        if findings:
            report_violation(f"Policy '{args.name}' statements[{i}] gives {who} {'; '.join(findings)}: {text!r}. "
                             "That undoes at run time what the pack refuses in the stack; grant read or use, pin "
                             "target.bucket.name or request.permission, or (for the platform's administrators) list "
                             "the group in this rule's adminGroups.", None)
    _leave_unknowns_to_engine(args.props, unknown)


iam_principal_type_pinned = ResourceValidationPolicy(
    name="iam-principal-type-pinned",
    description=("An any-user statement of a tenancy-wide principal type (instance, resource, fnfunc, "
                 "datasciencejob, ... every type but workload, cluster and nodepool) also pins "
                 "request.principal.id or request.principal.compartment.id."),
    validate=validate_principal_type_pinned,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Write the statement for a dynamic group of the instances that need it, or add "
                       "request.principal.compartment.id = '<OCID>' (or request.principal.id) inside where all "
                       f"{{...}}. Source: {_DOC}."),
    tags=["iam", "least-privilege"],
)

iam_no_run_time_undo = ResourceValidationPolicy(
    name="iam-no-run-time-undo",
    description=("No workload statement, and no group outside the adminGroups list, may change the network's "
                 "exposure, Vault keys, buckets' access and versions, or File Storage exports and snapshots, create "
                 "what the catalogue refuses or judges as a resource, read every tenant's secrets or objects in "
                 "tenancy, or use/manage a resource type the pack does not know."),
    validate=validate_no_run_time_undo,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Grant read/use instead of manage; pin target.bucket.name for a tenant's own bucket, or "
                       "request.permission to permissions that write nothing listed; list the platform "
                       "administrators' groups (names or OCIDs) in this rule's adminGroups. Source: "
                       f"{_DOC}."),
    tags=["iam", "least-privilege", "data", "exposure"],
    config_schema=PolicyConfigSchema(properties={"adminGroups": {
        "type": "array", "items": {"type": "string"}, "default": [],
        "description": "groups (names or OCIDs) of the platform's administrators, whose grants this rule allows"}}),
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(iam_principal_type_pinned, POLICY)
examines(iam_no_run_time_undo, POLICY)

POLICIES = [iam_principal_type_pinned, iam_no_run_time_undo]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "iam-principal-type-pinned": ("engine note: can't run on a statement unknown at preview; the known statements "
                                  "are checked, all of them at pulumi up"),
    "iam-no-run-time-undo": ("engine note: can't run on a statement unknown at preview; the known statements are "
                             "checked, all of them at pulumi up"),
}
