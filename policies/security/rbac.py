"""Identity escalation inside the cluster: Kubernetes RBAC objects that hand out cluster-admin or the means to get it.

``kubernetes-rbac-no-escalation`` (resource) refuses:

* a ``ClusterRoleBinding`` or ``RoleBinding`` whose ``roleRef`` is ``cluster-admin``, or that binds any role to the
  groups every caller or every service account is in (``system:authenticated``, ``system:unauthenticated``,
  ``system:anonymous``, ``system:serviceaccounts``, ``system:serviceaccounts:<namespace>``);
* a ``ClusterRole`` or ``Role`` rule with the verbs ``escalate``, ``bind`` or ``impersonate``, a wildcard verb on a
  wildcard resource, ``nodes/proxy`` (kubelet API: exec in any pod of the node), or — in a ClusterRole —
  ``get``/``list``/``watch`` of ``secrets`` in every namespace;
* ``aggregationRule`` ClusterRoles are judged by the roles they collect (those roles are judged themselves).

Config ``allowedBindings``: binding names (``<namespace>/<name>`` or ``<name>`` for cluster-scoped) an administrator
accepts, e.g. an operator's own ``cluster-admin`` binding.

Unknown values fail closed: an unknown roleRef, subject list or rule list is a violation.

Sources (checked 2026-11-30): Kubernetes docs "Using RBAC Authorization" (default roles, ``system:*`` groups,
``escalate``/``bind``/``impersonate`` verbs) and "Role Based Access Control Good Practices" (privilege escalation
risks: listing secrets, ``nodes/proxy``, escalate/bind, impersonate, wildcards); pulumi_kubernetes 4.34.2 type tokens
``kubernetes:rbac.authorization.k8s.io/v1:*``.
"""
from __future__ import annotations

from typing import Any, Iterable

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, elements, read

_RBAC = "kubernetes:rbac.authorization.k8s.io/v1:"
BINDINGS = (_RBAC + "ClusterRoleBinding", _RBAC + "RoleBinding")
ROLES = (_RBAC + "ClusterRole", _RBAC + "Role")
ADMIN_ROLES = frozenset({"cluster-admin"})
BROAD_GROUPS = frozenset({"system:authenticated", "system:unauthenticated", "system:anonymous",
                          "system:serviceaccounts"})
ESCALATING_VERBS = frozenset({"escalate", "bind", "impersonate"})
READ_VERBS = frozenset({"get", "list", "watch", "*"})


def binding_problems(props: Any) -> list[str]:
    """Why a (Cluster)RoleBinding hands out too much."""
    problems = []
    role = read(props, "roleRef", "name")
    if role is UNKNOWN:
        problems.append("its roleRef is unknown during preview")
    elif role in ADMIN_ROLES:
        problems.append(f"binds {role}, which may do anything in the cluster")
    subjects = elements(read(props, "subjects"))
    if subjects is UNKNOWN:
        return problems + ["its subjects are unknown during preview"]
    for i, subject in enumerate(subjects):
        name = read(subject, "name")
        if name is UNKNOWN:
            problems.append(f"subjects[{i}].name is unknown during preview")
        elif read(subject, "kind") == "Group" and isinstance(name, str) and (
                name in BROAD_GROUPS or name.startswith("system:serviceaccounts:")):
            problems.append(f"binds role {role!r} to group {name}, which every caller (or every service account) "
                            "is in")
    return problems


def role_problems(resource_type: str, props: Any) -> list[str]:
    """Why a (Cluster)Role's rules grant escalation."""
    rules = elements(read(props, "rules"))
    if rules is UNKNOWN:
        return ["its rules are unknown during preview"]
    problems = []
    cluster_wide = resource_type.endswith(":ClusterRole")
    for i, rule in enumerate(rules):
        verbs, resources = elements(read(rule, "verbs")), elements(read(rule, "resources"))
        if verbs is UNKNOWN or resources is UNKNOWN or UNKNOWN in verbs or UNKNOWN in resources:
            problems.append(f"rules[{i}] is unknown during preview")
            continue
        verbs = {str(v).lower() for v in verbs}
        resources = {str(r) for r in resources}
        if verbs & ESCALATING_VERBS:
            problems.append(f"rules[{i}] grants {', '.join(sorted(verbs & ESCALATING_VERBS))}")
        if "*" in verbs and "*" in resources:
            problems.append(f"rules[{i}] grants every verb on every resource")
        if "nodes/proxy" in resources:
            problems.append(f"rules[{i}] grants nodes/proxy (the kubelet API: exec into any pod of a node)")
        if cluster_wide and verbs & READ_VERBS and resources & {"secrets", "*"}:
            problems.append(f"rules[{i}] reads secrets in every namespace")
    return problems


def problems_of(resource_type: str, props: Any) -> Iterable[str]:
    """Why one RBAC object escalates (see the module docstring)."""
    if resource_type in BINDINGS:
        yield from binding_problems(props)
    elif resource_type in ROLES:
        yield from role_problems(resource_type, props)


def validate_rbac(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``kubernetes-rbac-no-escalation``: see the module docstring."""
    if args.resource_type not in BINDINGS + ROLES:
        return
    name, namespace = read(args.props, "metadata", "name"), read(args.props, "metadata", "namespace")
    key = f"{namespace}/{name}" if isinstance(namespace, str) else str(name)
    if key in set((args.get_config() or {}).get("allowedBindings") or []):
        return
    problems = list(problems_of(args.resource_type, args.props))
    if problems:
        report_violation(f"{args.resource_type.split(':')[-1]} '{args.name}' {'; '.join(problems)}. Grant the "
                         "namespaced verbs and resources the subject needs, to a named service account.", None)


kubernetes_rbac_no_escalation = ResourceValidationPolicy(
    name="kubernetes-rbac-no-escalation",
    description=("No RBAC object hands out cluster-admin, binds roles to every caller or service account, or grants "
                 "escalate/bind/impersonate, wildcard access, nodes/proxy or cluster-wide secret reads."),
    validate=validate_rbac,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Bind a Role with the namespaced verbs and resources needed to a named ServiceAccount; list "
                       "a binding an administrator accepts in allowedBindings. Source: Kubernetes docs: Using RBAC "
                       "Authorization; Role Based Access Control Good Practices."),
    tags=["kubernetes", "rbac", "identity-escalation"],
    config_schema=PolicyConfigSchema(properties={"allowedBindings": {
        "type": "array", "uniqueItems": True, "default": [], "items": {"type": "string", "maxLength": 317},
        "description": "RBAC objects (<namespace>/<name>, or <name> when cluster-scoped) accepted as they are"}}),
)

POLICIES = [kubernetes_rbac_no_escalation]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "kubernetes-rbac-no-escalation": ("fails closed: an unknown roleRef, subject or rule is a violation"),
}
