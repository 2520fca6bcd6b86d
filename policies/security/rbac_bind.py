"""``bind`` on named roles, for ``kubernetes-rbac-no-escalation`` (``rbac``): a rule granting ``bind`` on
``roles``/``clusterroles`` with ``resourceNames`` lets its subject bind those roles and no other, so it is judged by
what the named roles grant, not refused as ``bind`` on every role.

* Every named role must be one the pack can judge: a role of the stack (a ClusterRole by name; a Role of the
  binder's namespace) or a built-in role other than ``cluster-admin`` and the ``system:`` roles.
* A ClusterRole bound by no binding of the stack but named by a binder takes the binder's scope: namespaced when
  every binder is a Role, or a ClusterRole bound only by RoleBindings without ``clusterrolebindings`` writes (it can
  write RoleBindings only where it holds them); cluster-wide otherwise.

Source: Kubernetes docs "Using RBAC Authorization" ("Privilege escalation prevention and bootstrapping",
"Restrictions on role binding creation or update": ``bind`` may be limited with ``resourceNames``), checked
2026-12-01.
"""
from __future__ import annotations

from typing import Any, Callable

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from .rbac_builtin import BUILT_IN_ROLES
    from .rbac_model import RBAC_GROUP
else:  # run by the Pulumi CLI from inside policies/security/
    from rbac_builtin import BUILT_IN_ROLES
    from rbac_model import RBAC_GROUP

#: Built-in roles a named ``bind`` may never name: everything, or a controller's or node's own powers.
NEVER_BOUND = frozenset({"cluster-admin"})


def named_targets(role: Any, resource: str) -> set[str]:
    """The names a role's ``bind`` rules restricted by ``resourceNames`` name on ``resource`` (``clusterroles`` or
    ``roles``)."""
    return {n for r in role.rules if r.named_bind() and resource in r.resources for n in r.names}


def bind_problems(role: Any, roles: list[Any]) -> list[str]:
    """Why a role's named ``bind`` targets cannot be judged or escalate (see the module docstring)."""
    problems = []
    for resource, kind in (("clusterroles", "ClusterRole"), ("roles", "Role")):
        for name in sorted(named_targets(role, resource)):
            declared = [r for r in roles if r.kind == kind and r.name == name
                        and (kind == "ClusterRole" or r.namespace == role.namespace)]
            if declared:
                continue
            if kind == "ClusterRole" and name in BUILT_IN_ROLES and name not in NEVER_BOUND \
                    and not name.startswith("system:"):
                continue
            why = ("grants everything" if name in NEVER_BOUND else
                   "is neither declared in this stack nor a judged built-in role, so what it grants cannot be judged")
            problems.append(f"grants bind on {kind} '{name}', which {why}")
    return problems


def _binds_cluster_wide(binder: Any) -> bool:
    return any(r.allows(RBAC_GROUP, "clusterrolebindings", v) for r in binder.rules for v in ("create", "update",
                                                                                              "patch"))


def binder_scope(role: Any, roles: list[Any], scope_of: Callable[[Any], tuple[str, str]]) -> tuple[str, str] | None:
    """(scope, why) of a ClusterRole bound nowhere in the stack but named by a binder's ``bind``, or None when no role
    names it."""
    binders = [b for b in roles if b is not role and role.name in named_targets(b, "clusterroles")]
    if not binders:
        return None
    for b in binders:
        scope = "namespace" if b.kind == "Role" else scope_of(b)[0]
        if scope == "cluster" or _binds_cluster_wide(b):
            return "cluster", f"may be bound in every namespace by the holders of '{b.name}'"
    holders = ", ".join(repr(b.name) for b in binders)
    return "namespace", f"may be bound only by RoleBindings the holders of {holders} write"
