"""Identity-escalation rules: IAM grants judged by what they let a principal do, not by their spelling.

A principal escalates when it can change who may do what: write or attach policies, change group or dynamic-group
membership, create users, credentials or identity providers, move or create compartments (a policy's scope), edit
tag namespaces or tag defaults (tag-based conditions such as ``target.resource.tag.<ns>.<key>`` gate policies), or
administer identity domains. ``use`` is enough for several of them (IAM "Policy Reference": ``use groups`` holds
GROUP_UPDATE and ``use users`` USER_UPDATE, which together add a user to a group). ``all-resources`` includes every
IAM type (IAM "Policy Reference": "There's no family resource-type for IAM"; ``all-resources`` covers all types),
so ``use``/``manage all-resources`` is an escalation too. Credentials belong to two types ("Details for IAM without
Identity Domains", checked 2026-12-01): ``manage users`` holds USER_APIKEY_ADD, USER_AUTHTOKEN_SET, USER_UIPASS_SET,
USER_SWIFTPASS_SET, USER_SECRETKEY_ADD, USER_OAUTH2_CLIENT_CRED_CREATE, USER_TOTPDEVICE_ADD (and, with identity
domains, USER_CAPABILITIES_UPDATE) — minting a credential for another user is acting as that user — and
``credentials`` is SMTP credentials only (CREDENTIAL_ADD). There is no ``api-keys`` or ``auth-tokens`` type. The
resources that mint credentials are refused by ``iam-no-static-credentials`` (``credentials.py``).

| rule                            | kind     | checks                                                                   |
|---------------------------------|----------|--------------------------------------------------------------------------|
| iam-no-identity-escalation      | resource | every statement of an ``oci:Identity/policy:Policy``: no use/manage of   |
|                                 |          | an IAM type or all-resources, no IAM-changing permission in a            |
|                                 |          | ``{PERMISSION}`` list, no verb outside inspect/read/use/manage, no       |
|                                 |          | cross-tenancy Endorse/Admit/Define, every statement parseable            |
| iam-no-admin-group-membership   | stack    | user-group memberships, identity-provider group mappings and             |
|                                 |          | identity-domain group members: the group is                              |
|                                 |          | in this stack, is not an administrators group and is granted nothing     |
|                                 |          | that escalates; identity-domain app-role grants are refused              |

Each statement is parsed once, by ``iam.parse_statement`` (one grammar for every IAM rule of the pack).
``tests/policies/test_identity_grammar.py`` keeps the program's grant parser and this one in agreement.

Sources (checked 2026-11-30): OCI IAM docs "Policy Syntax", "Verbs", "Policy Reference" / "Details for IAM without
Identity Domains" and "Details for IAM with Identity Domains" (IAM resource types and their permissions: policies,
groups, dynamic-groups, users, credentials, identity-providers, network-sources, compartments, tenancies,
tag-namespaces, tag-defaults, domains, ...), "Managing Administrators" / "The Administrators Group" (members of
Administrators manage every resource of the tenancy), "Cross-Tenancy Access Policies" (Endorse, Admit, Define);
pulumi_oci 5.5.0 ``identity/user_group_membership.py``, ``identity/idp_group_mapping.py``, ``identity/domains_group.py``, ``identity/domains_grant.py``.
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Optional

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import UNKNOWN, elements, read
    from .iam import POLICY, Statement, StatementSyntaxError, _known_statements, _leave_unknowns_to_engine, \
        parse_statement
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, elements, read
    from iam import POLICY, Statement, StatementSyntaxError, _known_statements, _leave_unknowns_to_engine, \
        parse_statement
    from _gate import examines

VERBS = ("inspect", "read", "use", "manage")
#: IAM's own resource types, lowercased (IAM "Details for IAM with/without Identity Domains", checked 2026-11-30).
#: ``use`` or ``manage`` of any of them changes who may do what. The program's grant parser
#: (``oke_rdma/config/workload_identity.py``) refuses the same set; a test keeps the two equal.
IAM_RESOURCE_TYPES = frozenset({
    "policies", "dynamic-groups", "groups", "group-memberships", "users", "credentials", "domains", "domain",
    "identity-providers", "network-sources", "authentication-policies", "oauth2-clients", "compartments",
    "tenancies", "tag-namespaces", "tag-defaults", "tagnamespaces", "tagrules", "service-principal",
    # listed as IAM resource types (2024-06-06 revision, checked 2026-12-01) without a permission table: what
    # use/manage of them allows cannot be judged, so they are treated as IAM-changing (fail closed)
    "authentication", "tasdomain",
})
#: Resource families that include IAM types: only ``all-resources`` (IAM has no family of its own).
IAM_FAMILIES = frozenset({"all-resources"})
#: Permission prefixes of IAM's resource types (IAM "Details for IAM ..." permission tables). A permission with one
#: of these prefixes that is not ``*_INSPECT`` / ``*_READ`` changes IAM.
IAM_PERMISSION_PREFIXES = ("POLICY_", "GROUP_", "USER_", "DYNAMIC_GROUP_", "IDENTITY_PROVIDER_", "IDP_",
                           "COMPARTMENT_", "TENANCY_", "TAG_NAMESPACE_", "TAG_DEFAULT_", "NETWORK_SOURCE_",
                           "CREDENTIAL_", "AUTHENTICATION_POLICY_", "DOMAIN_", "API_KEY_", "AUTH_TOKEN_",
                           "CUSTOMER_SECRET_KEY_", "SMTP_CREDENTIAL_", "OAUTH_CLIENT_CREDENTIAL_",
                           "DB_CREDENTIAL_")
_READ_ONLY_SUFFIXES = ("_INSPECT", "_READ")
_DEFINE = re.compile(r"^\s*define\b", re.IGNORECASE)
_DOC = "OCI IAM docs: Policy Syntax, Verbs, Policy Reference, Cross-Tenancy Access Policies"


def escalations(st: Statement) -> list[str]:
    """What one parsed statement lets a principal do to IAM, or why its effect cannot be judged; [] when safe.

    :returns: short reasons, e.g. ``"'manage policies' lets the principal write IAM policies"``.
    """
    found = []
    if st.action in ("endorse", "admit"):
        found.append(f"is a cross-tenancy '{st.action.capitalize()}' statement: it lets principals of another "
                     "tenancy act here, or ours act there, outside this tenancy's own IAM")
    if st.verb is not None:
        if st.verb not in VERBS:
            return [f"has verb {st.verb!r}, which is not an OCI verb ({', '.join(VERBS)}), so its effect cannot be "
                    "judged"]
        if st.verb in ("use", "manage") and (st.resource in IAM_RESOURCE_TYPES or st.resource in IAM_FAMILIES):
            what = ("includes every IAM resource type" if st.resource in IAM_FAMILIES else "is an IAM resource type")
            found.append(f"'{st.verb} {st.resource}' lets the principal change IAM ({st.resource} {what}: "
                         "policies, groups, users, dynamic groups, compartments, tag namespaces)")
    for perm in st.permissions:
        if not re.fullmatch(r"[A-Z0-9_]+", perm):
            found.append(f"permission {perm!r} is not an OCI permission name, so its effect cannot be judged")
        elif perm.startswith(IAM_PERMISSION_PREFIXES) and not perm.endswith(_READ_ONLY_SUFFIXES):
            found.append(f"permission {perm} changes IAM")
    return found


def statement_findings(text: str, cross_tenancy_allowed: bool = False) -> list[str]:
    """Escalations of one statement's text (parsed once); an unparseable statement is a finding (fail closed)."""
    if _DEFINE.match(text):
        return [] if cross_tenancy_allowed else [
            "is a cross-tenancy 'Define' statement (it names another tenancy's principals for Endorse/Admit)"]
    try:
        st = parse_statement(text)
    except StatementSyntaxError as e:
        return [f"cannot be parsed ({e}), so what it grants cannot be judged"]
    found = escalations(st)
    if cross_tenancy_allowed:
        found = [f for f in found if "cross-tenancy" not in f]
    return found


def validate_no_identity_escalation(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``iam-no-identity-escalation`` on ``oci:Identity/policy:Policy``: see the module docstring.
    Unknown statements: the known ones are checked, the engine reports the rule as not run for the rest."""
    if args.resource_type != POLICY:
        return
    allowed = bool((args.get_config() or {}).get("crossTenancyAllowed"))
    known, unknown = _known_statements(args.props)
    for i, text in known:
        findings = statement_findings(text, allowed)
        if findings:
            report_violation(f"Policy '{args.name}' statements[{i}] {'; '.join(findings)}: {text!r}. Grant people, "
                             "not workloads or broad subjects, IAM administration, and name the non-IAM resource "
                             "types needed instead.", None)
    _leave_unknowns_to_engine(args.props, unknown)


# --- iam-no-admin-group-membership (stack) ---------------------------------------------------------------------------
USER_GROUP_MEMBERSHIP = "oci:Identity/userGroupMembership:UserGroupMembership"
#: Maps an identity provider's group onto an IAM group: everyone the IdP puts in that group becomes a member.
IDP_GROUP_MAPPING = "oci:Identity/idpGroupMapping:IdpGroupMapping"
GROUP = "oci:Identity/group:Group"
DOMAINS_GROUP = "oci:Identity/domainsGroup:DomainsGroup"
DOMAINS_GRANT = "oci:Identity/domainsGrant:DomainsGrant"
#: Names of the groups that administer a tenancy or an identity domain (IAM "The Administrators Group"; identity
#: domains create "Administrators" and "Domain_Administrators"), compared case-insensitively.
ADMIN_GROUP_NAMES = frozenset({"administrators", "domain_administrators", "domain administrators"})


def _group_of(membership: Any, groups: list[Any]) -> Optional[Any]:
    urns = {d.urn for d in membership.property_dependencies.get("groupId", [])}
    gid = read(membership.props, "groupId")
    for g in groups:
        if g.urn in urns or (isinstance(gid, str) and read(g.props, "id") == gid):
            return g
    return None


def _granted_escalations(group: Any, policies: list[Any]) -> list[str]:
    """Escalating statements of the stack's policies whose subject names ``group`` (by name or by id)."""
    name, gid = read(group.props, "name"), read(group.props, "id")
    names = {n.lower() for n in (name, gid) if isinstance(n, str)}
    found = []
    for p in policies:
        for _, text in _known_statements(p.props)[0]:
            try:
                st = parse_statement(text)
            except StatementSyntaxError:
                continue
            words = [w.strip().lower() for w in re.split(r"[\s,]+", st.subject) if w.strip()]
            if words and words[0] == "group" and names & set(words[1:]) and escalations(st):
                found.append(f"policy '{p.name}': {text!r}")
    return found


def membership_findings(resources: list[Any], external_ok: Iterable[str]) -> Iterable[tuple[Any, str]]:
    """(resource, problem) for every membership into a group that administers, or cannot be judged."""
    external_ok = set(external_ok)
    groups = [r for r in resources if r.resource_type == GROUP]
    policies = [r for r in resources if r.resource_type == POLICY]
    for r in resources:
        if r.resource_type in (USER_GROUP_MEMBERSHIP, IDP_GROUP_MAPPING):
            group = _group_of(r, groups)
            gid = read(r.props, "groupId")
            if group is None:
                if isinstance(gid, str) and gid in external_ok:
                    continue
                shown = "unknown during preview" if gid is UNKNOWN else repr(gid)
                yield r, (f"adds members to group {shown}, which is not a Group of this stack, so it cannot be "
                          "verified not to be an administrators group; manage the group here, or list its OCID in "
                          "this policy's nonAdminGroupIds")
                continue
            name = read(group.props, "name")
            if name is UNKNOWN or not isinstance(name, str):
                yield r, f"adds members to group '{group.name}' whose name is unknown during preview"
            elif name.lower() in ADMIN_GROUP_NAMES:
                yield r, f"adds members to the administrators group {name!r}, which manages every resource"
            else:
                granted = _granted_escalations(group, policies)
                if granted:
                    yield r, (f"adds members to group {name!r}, which this stack grants IAM administration "
                              f"({'; '.join(granted)})")
        elif r.resource_type == DOMAINS_GROUP:
            members = elements(read(r.props, "members"))
            if members == []:
                continue
            name = read(r.props, "displayName")
            if members is UNKNOWN or name is UNKNOWN:
                yield r, "is an identity-domain group whose members or displayName are unknown during preview"
            elif isinstance(name, str) and name.lower() in ADMIN_GROUP_NAMES:
                yield r, f"adds members to the identity-domain administrators group {name!r}"
        elif r.resource_type == DOMAINS_GRANT:
            yield r, ("grants an identity-domain app role; which role (Identity Domain Administrator, User "
                      "Administrator, ...) cannot be judged from its id at preview time")


def validate_no_admin_group_membership(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``iam-no-admin-group-membership``: see :func:`membership_findings`. Fails closed on groups it cannot
    see (config ``nonAdminGroupIds`` lists external groups known not to administer)."""
    external = (args.get_config() or {}).get("nonAdminGroupIds") or []
    for resource, problem in membership_findings(args.resources, external):
        kind = resource.resource_type.split(":")[-1]
        report_violation(f"{kind} '{resource.name}' {problem}. Administrator membership is granted by people "
                         "through the console or a reviewed change, never by a workload stack.", resource.urn)


iam_no_identity_escalation = ResourceValidationPolicy(
    name="iam-no-identity-escalation",
    description=("No IAM statement lets a principal change IAM: use/manage of an IAM resource type or of "
                 "all-resources, IAM-changing permissions, unknown verbs, cross-tenancy Endorse/Admit/Define, or a "
                 "statement the pack cannot parse."),
    validate=validate_no_identity_escalation,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Grant only the non-IAM resource types a principal needs ('read objects', 'use "
                       "virtual-network-family'); 'inspect'/'read' of IAM types is fine. IAM administration belongs "
                       "to people in a reviewed process. Cross-tenancy statements need crossTenancyAllowed: true in "
                       f"the policy config. Source: {_DOC}."),
    tags=["iam", "least-privilege", "identity-escalation"],
    config_schema=PolicyConfigSchema(properties={"crossTenancyAllowed": {
        "type": "boolean", "default": False,
        "description": "allow Endorse/Admit/Define statements (cross-tenancy access)"}}),
)

iam_no_admin_group_membership = StackValidationPolicy(
    name="iam-no-admin-group-membership",
    description=("No user or identity-provider group is added to an administrators group, or to a group this stack "
                 "grants IAM administration; "
                 "memberships into groups the pack cannot see, and identity-domain app-role grants, are refused."),
    validate=validate_no_admin_group_membership,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Remove the membership, or manage the group in this stack (not an administrators group, no "
                       "IAM grants); list external groups known to be harmless in nonAdminGroupIds. Source: OCI IAM "
                       "docs: The Administrators Group; Policy Reference."),
    tags=["iam", "identity-escalation"],
    config_schema=PolicyConfigSchema(properties={"nonAdminGroupIds": {
        "type": "array", "uniqueItems": True, "default": [],
        "items": {"type": "string", "pattern": r"^ocid1\.group\.[a-z0-9]+\.[a-z0-9-]*\.[a-z0-9]+$"},
        "description": "OCIDs of groups outside this stack that do not administer anything"}}),
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(iam_no_identity_escalation, POLICY)

POLICIES = [iam_no_identity_escalation, iam_no_admin_group_membership]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "iam-no-identity-escalation": ("engine note: can't run on a statement unknown at preview (it embeds an OCID not "
                                   "known yet); the known statements are checked, all of them at pulumi up; an "
                                   "unparseable statement is a violation"),
    "iam-no-admin-group-membership": ("fails closed: a membership whose group is unknown, outside the stack or of "
                                      "unknown name is a violation"),
}
