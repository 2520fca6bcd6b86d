"""The admission guard's RBAC half: ValidatingAdmissionPolicies that hold, for every RBAC object written later by
anyone, what the security pack's ``kubernetes-tenant-no-platform-writes`` checks at deploy time — as far as CEL can
see one object at a time.

* ``<prefix>-tenant-roles`` — a Role in a tenant namespace (labelled ``okerdma.io/tenant``) may not grant a write verb
  (or ``*``) on a kind the platform owns (:data:`oke_rdma.facts.tenancy.PLATFORM_OWNED`, subresources included, an
  operator's whole group where the model says so, ``*`` groups or resources matching what they cover), nor
  ``escalate``, ``bind`` or ``impersonate``, nor ``*`` verbs on users, groups or user extras.
* ``<prefix>-tenant-rolebindings`` — a RoleBinding in a tenant namespace may reference only a Role of the namespace
  (checked by the policy above when written), the platform's tenant roles, or the built-in ``view``: a ClusterRole's
  rules cannot be read from CEL, so any other is refused (never ``edit``, ``admin`` or ``cluster-admin``); and may
  not name everyone (``system:authenticated``, ``system:unauthenticated``, ``system:serviceaccounts``,
  ``system:anonymous``).
* ``<prefix>-tenant-clusterrolebindings`` — a ClusterRoleBinding may not name a tenant subject: a ServiceAccount of a
  tenant namespace, the group of a tenant namespace's service accounts, or a group ``tenants.<t>.members`` names.

What CEL cannot see and the pack does: what a ClusterRole bound elsewhere grants, roles rendered or aggregated, a
subject that is a tenant's only because a RoleBinding binds it. Each policy has ``failurePolicy: Fail`` and a
binding with ``validationActions: [Deny]`` (CREATE and UPDATE).

Sources (checked 2026-12-01): Kubernetes docs "Validating Admission Policy" (``matchConstraints``, ``variables``,
``namespaceSelector`` — cluster-scoped objects are never skipped by it), "Using RBAC Authorization" (Role rules,
RoleBinding roleRef, subjects, ``system:serviceaccounts:<namespace>``), "CEL in Kubernetes" (``exists``, ``all``,
``startsWith``, map literals).
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping, Sequence

from oke_rdma.facts.tenancy import PLATFORM_OWNED, WRITE_VERBS

API = "admissionregistration.k8s.io/v1"
TENANT_LABEL = "okerdma.io/tenant"
#: Groups every caller or every service account is in (RBAC docs "Referring to subjects"): a tenant admin may not
#: hand the namespace to them.
EVERYONE_GROUPS = ("system:authenticated", "system:unauthenticated", "system:serviceaccounts")


def _cel(value: Any) -> str:
    return json.dumps(value)


def _owned_map() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for group, resource, *_ in PLATFORM_OWNED:
        out.setdefault(group, []).append(resource)
    return out


def role_validations() -> list[dict[str, str]]:
    """The CEL validations of ``<prefix>-tenant-roles`` (``object`` is a Role)."""
    owned = _owned_map()
    names = sorted({r for rs in owned.values() for r in rs if r != "*"})
    pair = (f"((g in {_cel(owned)}) && (x == '*' || x.startsWith('*/') || {_cel(owned)}[g].exists(o, o == '*' "
            f"|| x == o || x.startsWith(o + '/')))) || (g == '*' && (x == '*' || x.startsWith('*/') || "
            f"{_cel(names)}.exists(o, x == o || x.startsWith(o + '/'))))")
    rules = "(has(object.rules) ? object.rules : [])"
    return [
        {"expression": f"{rules}.all(r, !(r.verbs.exists(v, v in {_cel(list(WRITE_VERBS))}) && has(r.apiGroups) "
                       f"&& has(r.resources) && r.apiGroups.exists(g, r.resources.exists(x, {pair}))))",
         "message": "a Role in a tenant namespace may not write a kind the platform owns (quotas, limits, queues, "
                    "network and admission policies, RBAC, namespaces: docs/tenants.md)", "reason": "Forbidden"},
        {"expression": f"{rules}.all(r, !r.verbs.exists(v, v in ['escalate', 'bind', 'impersonate']))",
         "message": "a Role in a tenant namespace may not escalate, bind or impersonate", "reason": "Forbidden"},
        {"expression": f"{rules}.all(r, !(r.verbs.exists(v, v == '*') && has(r.resources) && r.resources.exists("
                       "x, x in ['*', 'users', 'groups', 'uids'] || x.startsWith('userextras'))))",
         "message": "a Role in a tenant namespace may not grant every verb on users, groups or their attributes "
                    "(impersonation)", "reason": "Forbidden"},
    ]


def rolebinding_validations(allowed_cluster_roles: Sequence[str]) -> list[dict[str, str]]:
    """The CEL validations of ``<prefix>-tenant-rolebindings`` (``object`` is a RoleBinding)."""
    allowed = _cel(list(allowed_cluster_roles))
    return [{"expression": f"object.roleRef.kind == 'Role' || object.roleRef.name in {allowed}",
             "messageExpression": f"'a RoleBinding in a tenant namespace may reference a Role of the namespace or "
                                  f"the ClusterRoles {', '.join(allowed_cluster_roles)}, not ' + object.roleRef.name",
             "reason": "Forbidden"},
            {"expression": "!has(object.subjects) || object.subjects.all(s, !((s.kind == 'Group' && s.name in "
                           f"{_cel(list(EVERYONE_GROUPS))}) || (s.kind == 'User' && s.name == 'system:anonymous')))",
             "message": "a RoleBinding in a tenant namespace may not name everyone (system:authenticated, "
                        "system:unauthenticated, system:serviceaccounts, system:anonymous): name the team's groups",
             "reason": "Forbidden"}]


def clusterrolebinding_validations(namespaces: Iterable[str], groups: Iterable[str]) -> list[dict[str, str]]:
    """The CEL validations of ``<prefix>-tenant-clusterrolebindings`` (``object`` is a ClusterRoleBinding)."""
    namespaces = sorted(set(namespaces))
    groups = sorted(set(groups) | {f"system:serviceaccounts:{ns}" for ns in namespaces})
    return [{"expression": "!has(object.subjects) || object.subjects.all(s, !((s.kind == 'ServiceAccount' && "
                           f"has(s.namespace) && s.namespace in {_cel(namespaces)}) || (s.kind == 'Group' && "
                           f"s.name in {_cel(groups)})))",
             "message": "a ClusterRoleBinding may not name a tenant's service accounts or people (tenant access is "
                        "granted in the tenant's namespace only)", "reason": "Forbidden"}]


def _rules(resource: str) -> list[dict[str, Any]]:
    return [{"apiGroups": ["rbac.authorization.k8s.io"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
             "resources": [resource]}]


def rbac_policies(prefix: str, tenant_namespaces: Mapping[str, str], tenant_groups: Iterable[str],
                  tenant_roles: Sequence[str]) -> list[dict[str, Any]]:
    """The three policies and their bindings as manifests (dicts), in the shape :func:`oke_rdma.guard.policies`
    returns.

    :param prefix: the stack's name prefix.
    :param tenant_namespaces: tenant → namespace.
    :param tenant_groups: every RBAC Group name a tenant's members are bound as.
    :param tenant_roles: the platform's tenant ClusterRole names (``<prefix>-tenant-<role>``).
    """
    labels = {"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": prefix}
    tenant_selector = {"namespaceSelector": {"matchExpressions": [{"key": TENANT_LABEL, "operator": "Exists"}]}}
    specs = [
        (f"{prefix}-tenant-roles", "roles", role_validations(), tenant_selector),
        (f"{prefix}-tenant-rolebindings", "rolebindings", rolebinding_validations([*tenant_roles, "view"]),
         tenant_selector),
        (f"{prefix}-tenant-clusterrolebindings", "clusterrolebindings",
         clusterrolebinding_validations(tenant_namespaces.values(), tenant_groups), {}),
    ]
    out: list[dict[str, Any]] = []
    for name, resource, validations, match in specs:
        out.append({"apiVersion": API, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name,
                                                                                           "labels": labels},
                    "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": _rules(resource)},
                             "validations": validations}})
        binding_spec: dict[str, Any] = {"policyName": name, "validationActions": ["Deny"]}
        if match:
            binding_spec["matchResources"] = match
        out.append({"apiVersion": API, "kind": "ValidatingAdmissionPolicyBinding",
                    "metadata": {"name": name, "labels": labels}, "spec": binding_spec})
    return out
