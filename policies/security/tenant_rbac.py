"""The platform's objects stay the platform's: ``kubernetes-tenant-no-platform-writes`` (stack) refuses every RBAC
binding that lets a tenant subject write a kind the platform owns (``tenancy.PLATFORM_OWNED``: quotas, LimitRanges,
Kueue queues, flavors, cohorts and priorities, PriorityClasses, namespaces, network policies of every engine,
admission policies, webhooks and their bindings, RBAC, CRDs, nodes, the operators' configuration), or escalate
(``escalate``, ``impersonate``, ``bind`` on any role), or that binds a tenant subject to the built-in ``edit``,
``admin`` or ``cluster-admin``.

Tenant subjects:

* every subject of a RoleBinding in a tenant namespace — a namespace of the stack labelled ``okerdma.io/tenant``, or
  one the policy config lists in ``tenantNamespaces`` (a RoleBinding whose namespace is unknown during preview is
  judged as one: fail closed);
* every ServiceAccount of a tenant namespace, and every subject the policy config's ``tenantSubjects`` patterns
  (``Kind:name`` with ``*``) match — wherever they are bound (a ClusterRoleBinding too);
* a User or Group bound in a tenant namespace is a tenant subject in every other binding of the stack too.

What a binding grants is judged with the pack's RBAC model (``rbac_model``): the rules of the role it references —
declared in the stack or rendered by a chart (with what an aggregationRule collects), or built in (``rbac_builtin``)
— with ``*`` in groups, resources or verbs matching every member it covers. The one delegated write is RoleBindings
(``tenancy.DELEGATED``), accepted only when the role's ``bind`` is restricted by ``resourceNames``; the roles it names
are then judged as if bound to the tenant subject themselves.

Source: Kubernetes docs "Using RBAC Authorization" (RoleBinding subjects and roleRef, ``escalate``/``bind``/
``impersonate``, a namespace's own ``patch namespaces/<name>`` is checked in that namespace), checked 2026-12-01.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterable

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, Severity, StackValidationArgs,
                           StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._objects import HELM_TYPES, NAMESPACE, release_objects
    from ._rules import UNKNOWN, elements, member, read
    from .rbac import collect, effective_rules
    from .rbac_bind import named_targets
    from .rbac_builtin import BUILT_IN_ROLES
    from .rbac_model import RBAC_GROUP, Rule, glob
    from .tenancy import DELEGATED, PLATFORM_OWNED, WRITE_VERBS
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import HELM_TYPES, NAMESPACE, release_objects
    from _rules import UNKNOWN, elements, member, read
    from rbac import collect, effective_rules
    from rbac_bind import named_targets
    from rbac_builtin import BUILT_IN_ROLES
    from rbac_model import RBAC_GROUP, Rule, glob
    from tenancy import DELEGATED, PLATFORM_OWNED, WRITE_VERBS

TENANT_LABEL = "okerdma.io/tenant"
#: Built-in roles a tenant subject never gets (they write NetworkPolicies, DaemonSets, RoleBindings to any role...).
FORBIDDEN_BUILT_INS = ("edit", "admin", "cluster-admin")
_SUBRESOURCES = ("", "/status", "/finalize", "/scale")
#: (verb, group, resource) where escalate, bind and impersonate take effect (RBAC docs "Privilege escalation
#: prevention and bootstrapping", "User impersonation").
_ESCALATIONS = (("escalate", RBAC_GROUP, "roles"), ("escalate", RBAC_GROUP, "clusterroles"),
                ("bind", RBAC_GROUP, "roles"), ("bind", RBAC_GROUP, "clusterroles"),
                ("impersonate", "", "users"), ("impersonate", "", "groups"), ("impersonate", "", "serviceaccounts"),
                ("impersonate", "authentication.k8s.io", "userextras/scopes"),
                ("impersonate", "authentication.k8s.io", "uids"))
FIX = ("Bind tenant subjects only to the platform's tenant roles (<prefix>-tenant-viewer/-developer/-admin, from "
       "tenants.<t>.members); the platform owns these kinds (oke_rdma/facts/tenancy.py) and changes them through its "
       "config.")


def _group_match(rule: Rule, group: str, resource: str) -> bool:
    if resource != "*":
        return any(rule.allows(group, resource + sub, "*") for sub in _SUBRESOURCES)
    # every resource of the group: a rule naming the group with any resource, or `*` groups with `*` resources
    return bool(rule.resources) and (group in rule.groups or (
        "*" in rule.groups and any(r == "*" or r.startswith("*/") for r in rule.resources)))


def platform_writes(rules: Iterable[Rule]) -> set[str]:
    """What ``rules`` let their subject write of the platform's kinds, escalate or impersonate, as ``verb
    resource.group`` phrases (``patch resourcequotas``, ``create clusterqueues.kueue.x-k8s.io``, ``bind
    clusterroles.rbac.authorization.k8s.io``). Delegated writes (``tenancy.DELEGATED``) count only when the rules
    also hold ``bind`` on roles that is not restricted by name."""
    rules = list(rules)
    found: set[str] = set()
    free_bind = any(r.allows(RBAC_GROUP, res, "bind") and not r.named_bind() for r in rules
                    for res in ("roles", "clusterroles"))
    for group, resource, _kind, _ns, _why in PLATFORM_OWNED:
        if (group, resource) in DELEGATED and not free_bind:
            continue
        for r in rules:
            if not _group_match(r, group, resource):
                continue
            verbs = sorted(WRITE_VERBS if "*" in r.verbs else set(WRITE_VERBS) & r.verbs)
            names = [resource] if resource != "*" else sorted(r.resources)  # a group's every kind: name the grant's
            for verb in verbs:
                for name in names:
                    found.add(f"{'any verb on' if verb == '*' else verb} {name}{'.' + group if group else ''}")
    for r in rules:
        for verb in ("escalate", "impersonate", "bind"):  # named on any resource, as rbac_model judges them
            if verb in r.verbs and r.resources and not (verb == "bind" and r.named_bind()):
                found.add(f"{verb} {','.join(sorted(r.resources))}")
        for verb, group, resource in _ESCALATIONS:  # through `*` verbs, groups or resources
            if "*" in r.verbs and r.allows(group, resource, verb):
                found.add(f"{verb} {resource}{'.' + group if group else ''}")
    return found


def tenant_namespaces(resources: list[Any], configured: Iterable[str]) -> set[str]:
    """Namespaces of the stack labelled :data:`TENANT_LABEL`, and those the policy config lists."""
    found = set(configured)
    for res in resources:
        if res.resource_type == NAMESPACE:
            labels, name = read(res.props, "metadata", "labels"), read(res.props, "metadata", "name")
            if isinstance(name, str) and isinstance(labels, Mapping) and isinstance(read(labels, TENANT_LABEL), str):
                found.add(name)
    return found


def _text(subject: Any) -> str:
    kind, name, ns = read(subject, "kind"), read(subject, "name"), read(subject, "namespace")
    return f"{kind}:{ns}/{name}" if kind == "ServiceAccount" else f"{kind}:{name}"


def tenant_subjects(binding: Any, namespaces: set[str], patterns: list[str], people: set[str]) -> list[str]:
    """The subjects of ``binding`` (its props) that are tenant subjects (see the module docstring)."""
    subjects = elements(read(binding, "subjects"))
    if subjects is UNKNOWN:
        return ["(subjects unknown during preview)"]
    ns = read(binding, "metadata", "namespace")
    in_tenant = ns is UNKNOWN or member(ns, namespaces)
    out = []
    for s in subjects:
        text = _text(s)
        kind, sns = read(s, "kind"), read(s, "namespace")
        if in_tenant or (kind == "ServiceAccount" and (sns is UNKNOWN or sns in namespaces)) or text in people \
                or any(glob(p, text) for p in patterns):
            out.append(text)
    return out


def tenant_people(bindings: list[Any], namespaces: set[str]) -> set[str]:
    """The users and groups bound by a RoleBinding in a tenant namespace (``namespaces``): a tenant's people."""
    people = set()
    for b in bindings:
        subjects = elements(read(b.props, "subjects"))
        if b.kind == "RoleBinding" and member(read(b.props, "metadata", "namespace"), namespaces) and subjects is not UNKNOWN:
            people |= {_text(s) for s in subjects if s is not UNKNOWN and read(s, "kind") in ("User", "Group")}
    return people


def problems(resources: list[Any], namespaces: set[str], patterns: list[str]) -> dict[str, list[str]]:
    """URN → why a binding gives a tenant subject a platform write (see the module docstring)."""
    roles, bindings = collect(resources, frozenset())
    people = tenant_people(bindings, namespaces)
    out: dict[str, list[str]] = {}
    for b in bindings:
        who = tenant_subjects(b.props, namespaces, patterns, people)
        if not who or b.ref_kind not in ("ClusterRole", "Role"):
            continue
        ref, where = b.ref_name, f"{b.kind.replace('Binding', '')} '{b.ref_name}'"
        if b.ref_kind == "ClusterRole" and ref in FORBIDDEN_BUILT_INS:
            found = {f"the built-in {ref} role"}
        elif b.roles:
            found = set()
            for role in b.roles:
                found |= platform_writes(effective_rules(role, roles))
                for name in named_targets(role, "clusterroles"):  # what the subject may bind to itself
                    if name in FORBIDDEN_BUILT_INS:
                        found.add(f"bind the built-in {name} role")
                    for target in (r for r in roles if r.kind == "ClusterRole" and r.name == name):
                        found |= {f"{w} (through bind on '{name}')" for w in
                                  platform_writes(effective_rules(target, roles))}
        elif b.ref_kind == "ClusterRole" and isinstance(ref, str) and ref in BUILT_IN_ROLES:
            found = platform_writes(BUILT_IN_ROLES[ref])
        else:
            continue  # an unresolved role is refused by kubernetes-rbac-no-escalation
        if found:
            shown = sorted(found)
            out.setdefault(b.resource.urn, []).append(
                f"gives tenant subjects ({', '.join(who[:3])}{', ...' if len(who) > 3 else ''}) {where}, which "
                f"lets them {'; '.join(shown[:6])}{f' (+{len(shown) - 6} more)' if len(shown) > 6 else ''}: "
                "kinds the platform owns (a limit, a wall or the cluster itself)")
    return out


def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``kubernetes-tenant-no-platform-writes``: see the module docstring. One violation per binding
    (reported on the Helm release for a binding it renders)."""
    config = args.get_config() or {}
    resources = list(args.resources)
    rendered = [obj for res in resources if res.resource_type in HELM_TYPES
                for obj, _ in release_objects(res) if obj is not None]
    found = problems(resources + rendered, tenant_namespaces(resources, config.get("tenantNamespaces") or []),
                     list(config.get("tenantSubjects") or []))
    for res in resources:
        mine = found.get(res.urn, [])
        if mine:
            report_violation(f"{res.resource_type.split(':')[-1]} '{res.name}' {'; '.join(mine)}. {FIX}", res.urn)


kubernetes_tenant_no_platform_writes = StackValidationPolicy(
    name="kubernetes-tenant-no-platform-writes",
    description=("No binding lets a tenant subject (bound in a tenant namespace, a tenant's ServiceAccount, or named "
                 "as tenant) write a kind the platform owns — quotas, LimitRanges, Kueue queues and flavors, "
                 "PriorityClasses, namespaces, network and admission policies, RBAC, CRDs, nodes, operator "
                 "configuration — escalate, bind or impersonate, or hold the built-in edit, admin or cluster-admin."),
    validate=validate,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Give tenants' people the platform's tenant roles through tenants.<t>.members; change limits "
                       "and walls through the platform's config. Source: Kubernetes docs, Using RBAC Authorization "
                       "(checked 2026-12-01); the ownership model: policies/security/tenancy.py."),
    tags=["kubernetes", "rbac", "tenancy"],
    config_schema=PolicyConfigSchema(properties={
        "tenantNamespaces": {"type": "array", "default": [], "items": {"type": "string"},
                             "description": "namespaces of tenants besides those labelled okerdma.io/tenant"},
        "tenantSubjects": {"type": "array", "default": [], "items": {"type": "string"},
                           "description": "subjects that are tenants wherever bound: Kind:name patterns with * "
                                          "(Group:oidc:*, ServiceAccount:team-*/*)"}}),
)

POLICIES = [kubernetes_tenant_no_platform_writes]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "kubernetes-tenant-no-platform-writes": ("fails closed: a RoleBinding whose namespace is unknown is judged as "
                                             "in a tenant namespace, and unknown subjects as tenant subjects; "
                                             "unknown rules and roleRefs are refused by kubernetes-rbac-no-escalation"),
}
