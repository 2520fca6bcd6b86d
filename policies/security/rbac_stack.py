"""``kubernetes-rbac-cluster-wide-grants`` (stack): each ClusterRole judged at the scope the stack's bindings give
it, with the rules its ``aggregationRule`` collects, against every danger of ``rbac_model.DANGERS``; and every
binding's role must be one the pack can judge (declared in the stack, or built in).

Scope of a ClusterRole (Kubernetes docs "Using RBAC Authorization": a RoleBinding may reference a ClusterRole and
grants it only in the binding's namespace; aggregated ClusterRoles): cluster-wide when a ClusterRoleBinding of the
stack binds it; namespaced when only RoleBindings do; the scope of the roles that aggregate it when one of the
stack's ``aggregationRule`` selectors collects it; judged by ``kubernetes-rbac-no-escalation`` when it feeds the
built-in admin/edit/view roles; otherwise (bound nowhere in the stack) as cluster-wide, since any ClusterRoleBinding,
in this stack or another, grants it in every namespace.

``allowedGrants`` entries accept named permissions (``patch nodes``) of the roles whose name matches ``role``
(``*`` wildcards), provided every binding of such a role binds only the ``subjects`` listed
(``ServiceAccount:<namespace>/<name>``, ``User:<name>``, ``Group:<name>``, with ``*`` wildcards), with the reason.
Sources: see ``rbac_model`` (checked 2026-12-01).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, Severity, StackValidationArgs,
                           StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import UNKNOWN, elements, read
    from .rbac import (ALLOWED_BINDINGS_SCHEMA, DEFAULT_ALLOWED_GRANTS, FIX, _config, aggregated_built_ins, feeds,
                       labels_of, namespace_scope, object_key, rbac_objects, role_ref)
    from .rbac_builtin import BUILT_IN_ROLES
    from .rbac_model import Rule, describe, findings, glob, parse_rules, selector_matches
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, elements, read
    from rbac import (ALLOWED_BINDINGS_SCHEMA, DEFAULT_ALLOWED_GRANTS, FIX, _config, aggregated_built_ins, feeds,
                      labels_of, namespace_scope, object_key, rbac_objects, role_ref)
    from rbac_builtin import BUILT_IN_ROLES
    from rbac_model import Rule, describe, findings, glob, parse_rules, selector_matches


@dataclass(eq=False)
class RoleObject:
    """A ClusterRole or Role of the stack (one item of a ``*List`` counts as one)."""

    resource: Any
    kind: str
    patch: bool
    props: Any
    name: Any
    namespace: Any
    rules: list[Rule]
    labels: Any
    bindings: list["BindingObject"] = field(default_factory=list)


@dataclass(eq=False)
class BindingObject:
    """A ClusterRoleBinding or RoleBinding of the stack, with the roles of the stack its roleRef resolves to."""

    resource: Any
    kind: str
    props: Any
    ref_kind: Any
    ref_name: Any
    roles: Optional[list[RoleObject]] = None  # None: the roleRef cannot be resolved


def collect(resources: list[Any], allowed: frozenset[str]) -> tuple[list[RoleObject], list[BindingObject]]:
    """The stack's RBAC roles and bindings (objects listed in ``allowedBindings`` left out), bindings resolved to
    roles: a known ``roleRef.name`` by name (and namespace, for a Role), an unknown one through the property
    dependency of ``roleRef`` on a role resource of the stack."""
    roles, bindings = [], []
    for res in resources:
        for kind, patch, _, obj in rbac_objects(res.resource_type, res.props):
            if kind == "?" or object_key(obj) in allowed:
                continue
            if kind.endswith("Binding"):
                ref_kind, ref_name = role_ref(obj, patch)
                bindings.append(BindingObject(res, kind, obj, ref_kind, ref_name))
            else:
                rules, _ = parse_rules(read(obj, "rules"), kind == "Role")  # what cannot be parsed: the other rule
                roles.append(RoleObject(res, kind, patch, obj, read(obj, "metadata", "name"),
                                        read(obj, "metadata", "namespace"), rules, labels_of(obj)))
    for b in bindings:
        if b.ref_kind not in ("ClusterRole", "Role"):
            continue  # refused by kubernetes-rbac-no-escalation
        namespace = read(b.props, "metadata", "namespace")
        candidates = [r for r in roles if r.kind == b.ref_kind]
        if isinstance(b.ref_name, str):
            b.roles = [r for r in candidates if r.name == b.ref_name
                       and (b.ref_kind == "ClusterRole" or r.namespace == namespace)]
        elif b.ref_name is UNKNOWN:
            deps = {d.urn for d in (getattr(b.resource, "property_dependencies", {}) or {}).get("roleRef", [])}
            found = [r for r in candidates if r.resource.urn in deps]
            b.roles = found or None
        for r in b.roles or []:
            r.bindings.append(b)
    return roles, bindings


def collected_by(aggregator: RoleObject, roles: list[RoleObject]) -> list[RoleObject]:
    """The stack's ClusterRoles an ``aggregationRule`` selects (by their labels)."""
    selectors = elements(read(aggregator.props, "aggregationRule", "clusterRoleSelectors"))
    if read(aggregator.props, "aggregationRule") is None or selectors is UNKNOWN:
        return []
    return [r for r in roles if r is not aggregator and r.kind == "ClusterRole" and isinstance(r.labels, dict)
            and any(selector_matches(s, r.labels) is True for s in selectors)]


def effective_rules(role: RoleObject, roles: list[RoleObject], seen: frozenset[int] = frozenset()) -> list[Rule]:
    """A role's own rules, and — for an aggregated ClusterRole — those of every role it collects, transitively,
    built-in ones included."""
    rules = list(role.rules)
    for member in collected_by(role, roles):
        if id(member) not in seen:
            rules += effective_rules(member, roles, seen | {id(role)})
    built_ins, _ = aggregated_built_ins(role.props)
    return rules + [r for name in built_ins for r in BUILT_IN_ROLES[name]]


def scope_of(role: RoleObject, roles: list[RoleObject], seen: frozenset[int] = frozenset()) -> tuple[str, str]:
    """(``cluster`` | ``namespace`` | ``built-in``, why) for a ClusterRole of the stack."""
    cluster = [b for b in role.bindings if b.kind == "ClusterRoleBinding"]
    if cluster:
        return "cluster", f"is bound cluster-wide by ClusterRoleBinding '{cluster[0].resource.name}'"
    system = [b for b in role.bindings if namespace_scope(b.props) == "cluster"]
    if system:
        return "cluster", (f"is bound by RoleBinding '{system[0].resource.name}' in a system namespace (or one "
                           "unknown during preview), where the controllers' service accounts live")
    if role.bindings:
        return "namespace", "is bound only by RoleBindings"
    aggregators = [a for a in roles if id(a) not in seen and role in collected_by(a, roles)]
    scopes = [(scope_of(a, roles, seen | {id(role)}), a) for a in aggregators]
    for (scope, why), a in scopes:
        if scope == "cluster":
            return "cluster", f"is aggregated into ClusterRole '{a.resource.name}', which {why}"
    if scopes:
        return "namespace", "is aggregated only into roles bound by RoleBindings"
    if isinstance(role.labels, dict) and feeds(role.name, role.labels, role.patch):
        return "built-in", "feeds a built-in role"
    return "cluster", ("is bound by no binding of this stack, so it is judged as bound cluster-wide (any "
                       "ClusterRoleBinding, here or in another stack, grants it in every namespace)")


def subject_text(subject: Any) -> str:
    """``ServiceAccount:<namespace>/<name>``, ``User:<name>`` or ``Group:<name>``."""
    kind, name, namespace = read(subject, "kind"), read(subject, "name"), read(subject, "namespace")
    return f"{kind}:{namespace}/{name}" if kind == "ServiceAccount" else f"{kind}:{name}"


def allowed_entries(role: RoleObject, entries: list[dict]) -> list[dict]:
    return [e for e in entries if glob(str(e.get("role", "")), role.name)]


def validate_cluster_wide_grants(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``kubernetes-rbac-cluster-wide-grants``: see the module docstring."""
    entries = list(_config(args, "allowedGrants", DEFAULT_ALLOWED_GRANTS))
    roles, bindings = collect(list(args.resources), frozenset(_config(args, "allowedBindings", [])))
    for role in roles:
        if role.kind != "ClusterRole":
            continue  # a Role is namespaced: judged by kubernetes-rbac-no-escalation
        scope, why = scope_of(role, roles)
        if scope != "cluster":
            continue
        found = findings(effective_rules(role, roles), "cluster")
        accepted = set()
        for entry in allowed_entries(role, entries):
            accepted |= set(entry.get("grants") or [])
        found = {k: v - accepted for k, v in found.items() if v - accepted}
        if found:
            report_violation(f"ClusterRole '{role.resource.name}' {why} and grants {describe(found)}. {FIX}",
                             role.resource.urn)
    for b in bindings:
        if b.ref_kind not in ("ClusterRole", "Role"):
            continue
        if b.roles is None:
            report_violation(f"{b.kind} '{b.resource.name}': its roleRef.name is unknown during preview and does "
                             "not depend on a role of this stack, so what it grants cannot be judged. " + FIX,
                             b.resource.urn)
            continue
        if not b.roles and not (b.ref_kind == "ClusterRole" and isinstance(b.ref_name, str)
                                and (b.ref_name in BUILT_IN_ROLES or b.ref_name.startswith("system:"))):
            report_violation(f"{b.kind} '{b.resource.name}' binds {b.ref_kind} '{b.ref_name}', which is neither "
                             "declared in this stack nor a built-in role, so what it grants cannot be judged. "
                             + FIX, b.resource.urn)
        for role in b.roles:
            allowed = allowed_entries(role, entries)
            if not allowed:
                continue
            patterns = [p for e in allowed for p in (e.get("subjects") or [])]
            subjects = elements(read(b.props, "subjects"))
            for subject in ([UNKNOWN] if subjects is UNKNOWN else subjects):
                if UNKNOWN in (subject, read(subject, "kind"), read(subject, "name"), read(subject, "namespace")):
                    report_violation(f"{b.kind} '{b.resource.name}' binds ClusterRole '{role.name}', whose grants "
                                     "allowedGrants accepts only for the subjects it lists, to a subject unknown "
                                     "during preview. Set the subject's kind, name and namespace literally.",
                                     b.resource.urn)
                    continue
                text = subject_text(subject)
                if not any(glob(p, text) for p in patterns):
                    report_violation(f"{b.kind} '{b.resource.name}' binds ClusterRole '{role.name}', whose grants "
                                     f"are accepted by allowedGrants only for {', '.join(patterns)}, to {text}. "
                                     "Bind it only to the subjects listed, or list the subject with its reason.",
                                     b.resource.urn)


ALLOWED_GRANTS_SCHEMA = {
    "type": "array", "default": DEFAULT_ALLOWED_GRANTS,
    "description": ("permissions ('verb resource[.group][/subresource]', e.g. 'patch nodes', as the violation "
                    "names them) accepted cluster-wide for ClusterRoles whose name matches 'role' (* wildcards), "
                    "bound only to 'subjects' (Kind:<namespace>/<name> or Kind:<name>), with the reason"),
    "items": {"type": "object", "required": ["role", "grants", "subjects", "reason"], "additionalProperties": False,
              "properties": {"role": {"type": "string"}, "grants": {"type": "array", "items": {"type": "string"}},
                             "subjects": {"type": "array", "items": {"type": "string"}},
                             "reason": {"type": "string", "minLength": 1}}}}

kubernetes_rbac_cluster_wide_grants = StackValidationPolicy(
    name="kubernetes-rbac-cluster-wide-grants",
    description=("No ClusterRole bound cluster-wide (or bound nowhere in the stack) reads Secrets, creates or execs "
                 "into workloads, reaches the kubelet, writes nodes, PersistentVolumes, certificates, admission "
                 "webhooks or APIServices; every binding's role is declared or built in."),
    validate=validate_cluster_wide_grants,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Bind the ClusterRole through RoleBindings in the namespaces that need it, or narrow its "
                       "rules; list a platform component's exact need in allowedGrants with its subjects and "
                       "reason. Source: Kubernetes docs: Using RBAC Authorization; Role Based Access Control Good "
                       "Practices (checked 2026-12-01)."),
    tags=["kubernetes", "rbac", "identity-escalation"],
    config_schema=PolicyConfigSchema(properties={"allowedBindings": ALLOWED_BINDINGS_SCHEMA,
                                                 "allowedGrants": ALLOWED_GRANTS_SCHEMA}),
)

POLICIES = [kubernetes_rbac_cluster_wide_grants]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "kubernetes-rbac-cluster-wide-grants": ("fails closed: an unknown roleRef name is followed through its "
                                            "property dependency to a role of the stack, else a violation; a "
                                            "ClusterRole with unknown labels is judged by its own bindings"),
}
