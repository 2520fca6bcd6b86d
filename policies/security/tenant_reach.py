"""A tenant's subjects reach only their own namespace: ``kubernetes-tenant-rbac-own-namespace-only`` (stack).

* A RoleBinding in a tenant namespace (``tenant_rbac.tenant_namespaces``: labelled ``okerdma.io/tenant``, or listed
  in ``tenantNamespaces``) that names a service account of another namespace — a ServiceAccount, the User
  ``system:serviceaccount:<ns>:<name>``, the group ``system:serviceaccounts:<ns>`` or every account's groups
  (``rbac_objects.outside_subjects``) — is refused whatever its role grants: any verb on any resource, subresources
  included (deleting another tenant's PVCs, pods and jobs, reading its pods' logs, not only its Secrets). Service
  accounts of the platform's namespaces (``tenancy.CLUSTER_NAMESPACES``, ``tenancy.ADDON_NAMESPACES``: the
  platform's controllers and monitoring) are the platform's, not a tenant's, and pass.
* A ClusterRoleBinding that names a tenant subject (``tenant_rbac.tenant_subjects``: a ServiceAccount of a tenant
  namespace, the group of a tenant namespace's accounts, a person bound in a tenant namespace, a ``tenantSubjects``
  pattern) is refused whatever its role grants: it reaches every other tenant's namespace (pods, pods/log,
  ConfigMaps read cluster-wide). The in-cluster guard holds the same at admission
  (``<prefix>-tenant-clusterrolebindings``, oke_rdma/guard_rbac.py).

Unknown subjects, namespaces and roleRefs fail closed (an unknown binding namespace is judged a tenant's).
Source: Kubernetes docs "RBAC Good Practices" (namespaces as the boundary; ``pods/log`` and workload reads expose
secrets in environment variables), "Using RBAC Authorization" (subjects, ``system:serviceaccounts:<namespace>``),
checked 2026-12-02.
"""
from __future__ import annotations

from typing import Any

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, Severity, StackValidationArgs,
                           StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from . import tenancy
    from ._objects import HELM_TYPES, release_objects
    from ._rules import UNKNOWN, elements, member, read
    from .rbac import collect
    from .rbac_objects import outside_subjects
    from .tenant_rbac import _text, tenant_namespaces, tenant_people, tenant_subjects
else:  # run by the Pulumi CLI from inside policies/security/
    import tenancy
    from _objects import HELM_TYPES, release_objects
    from _rules import UNKNOWN, elements, member, read
    from rbac import collect
    from rbac_objects import outside_subjects
    from tenant_rbac import _text, tenant_namespaces, tenant_people, tenant_subjects

RULE = "kubernetes-tenant-rbac-own-namespace-only"
PLATFORM_NAMESPACES = frozenset(tenancy.CLUSTER_NAMESPACES) | frozenset(tenancy.ADDON_NAMESPACES)


def problems(resources: list[Any], namespaces: set[str], patterns: list[str]) -> dict[str, list[str]]:
    """URN → why a binding lets a tenant's subject reach another tenant's namespace (see the module docstring)."""
    _, bindings = collect(resources, frozenset())
    people = tenant_people(bindings, namespaces)
    out: dict[str, list[str]] = {}
    for b in bindings:
        home = read(b.props, "metadata", "namespace")
        if b.kind == "RoleBinding" and (home is UNKNOWN or member(home, namespaces)):
            foreign = [text for _, text, ns in outside_subjects(b.props) if ns not in PLATFORM_NAMESPACES]
            if foreign:
                out.setdefault(b.resource.urn, []).append(
                    f"gives {', '.join(foreign[:3])} — service accounts of another namespace — {b.ref_kind} "
                    f"'{b.ref_name}' in tenant namespace {home if isinstance(home, str) else '<unknown>'!r}: any "
                    "verb on any resource there (its PVCs, pods, jobs, logs) is another tenant's data")
        elif b.kind == "ClusterRoleBinding":
            who = tenant_subjects(b.props, namespaces, patterns, people)
            groups = [s for s in (elements(read(b.props, "subjects")) or []) if s is not UNKNOWN
                      and isinstance(read(s, "name"), str) and read(s, "name").startswith("system:serviceaccounts:")
                      and read(s, "name").split(":", 2)[2] in namespaces]
            who += [_text(s) for s in groups]
            if who:
                out.setdefault(b.resource.urn, []).append(
                    f"names tenant subjects ({', '.join(who[:3])}) in a ClusterRoleBinding of {b.ref_kind} "
                    f"'{b.ref_name}': it grants them in every namespace, every other tenant's too")
    return out


def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``kubernetes-tenant-rbac-own-namespace-only``: see the module docstring."""
    config = args.get_config() or {}
    resources = list(args.resources)
    rendered = [obj for res in resources if res.resource_type in HELM_TYPES
                for obj, _ in release_objects(res) if obj is not None]
    found = problems(resources + rendered, tenant_namespaces(resources, config.get("tenantNamespaces") or []),
                     list(config.get("tenantSubjects") or []))
    for res in resources:
        mine = found.get(res.urn, [])
        if mine:
            report_violation(f"{res.resource_type.split(':')[-1]} '{res.name}' {'; '.join(mine)}. Bind a tenant's "
                             "own service accounts and people in its own namespace only.", res.urn)


kubernetes_tenant_rbac_own_namespace_only = StackValidationPolicy(
    name=RULE,
    description=("A tenant's subjects reach only their own namespace: no RoleBinding in a tenant namespace names "
                 "another namespace's service account (any grant, subresources included), and no "
                 "ClusterRoleBinding names a tenant subject."),
    validate=validate,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Run the job with the tenant's own service account in its own namespace; give people access "
                       "through tenants.<t>.members. Source: Kubernetes docs \"RBAC Good Practices\"."),
    tags=["kubernetes", "rbac", "tenancy", "isolation"],
    config_schema=PolicyConfigSchema(properties={
        "tenantNamespaces": {"type": "array", "default": [], "items": {"type": "string"},
                             "description": "namespaces of tenants besides those labelled okerdma.io/tenant"},
        "tenantSubjects": {"type": "array", "default": [], "items": {"type": "string"},
                           "description": "subjects that are tenants wherever bound: Kind:name patterns with *"}}),
)

POLICIES = [kubernetes_tenant_rbac_own_namespace_only]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    RULE: "fails closed: an unknown binding namespace is a tenant's, an unknown subject is another namespace's",
}
