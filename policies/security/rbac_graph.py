"""The graph a stack's ClusterRoles form, walked once per role: aggregation (``aggregationRule`` selecting roles by
label) and ``bind`` (a role naming another it may bind), for ``kubernetes-rbac-no-escalation``.

Both graphs are the stack author's: ClusterRoles can aggregate each other level by level, each level selecting every
role of the next, so a walk that remembers only the roles on its own path visits every path (four roles per level over
twelve levels is 4^12 walks). Here each role is read once per judgement: :func:`effective_rules` collects the roles an
aggregated role reaches breadth-first with one visited set, and :func:`scope_of` remembers each role's scope unless the
answer left out a role of the current path (a cycle), with a step budget past which the role is judged cluster-wide
(fail closed) and the reason says so.

Sources (checked 2026-12-03): Kubernetes docs "Using RBAC Authorization" ("Aggregated ClusterRoles": the controller
unions the rules of every ClusterRole the selectors match; "Restrictions on role binding creation": ``bind`` with
``resourceNames``).
"""
from __future__ import annotations

from typing import Any

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import UNKNOWN, elements, read
    from .rbac_bind import binder_scope, named_targets
    from .rbac_builtin import BUILT_IN_ROLES
    from .rbac_model import Rule, selector_matches
    from .rbac_objects import SYSTEM_NAMESPACES, aggregated_built_ins, feeds, namespace_scope
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, elements, read
    from rbac_bind import binder_scope, named_targets
    from rbac_builtin import BUILT_IN_ROLES
    from rbac_model import Rule, selector_matches
    from rbac_objects import SYSTEM_NAMESPACES, aggregated_built_ins, feeds, namespace_scope


def _collects(aggregator: Any, roles: list[Any]) -> list[Any]:
    selectors = elements(read(aggregator.props, "aggregationRule", "clusterRoleSelectors"))
    if read(aggregator.props, "aggregationRule") is None or selectors is UNKNOWN:
        return []
    return [r for r in roles if r is not aggregator and r.kind == "ClusterRole" and isinstance(r.labels, dict)
            and any(selector_matches(s, r.labels) is True for s in selectors)]


#: The aggregation graph of the last role list judged: (the list, its length, aggregator → members, role →
#: aggregators). Selectors are matched once per pair of roles, not once per visit.
_GRAPH: list[Any] = [None, 0, {}, {}]


def _graph(roles: list[Any]) -> tuple[dict[int, list[Any]], dict[int, list[Any]]]:
    if _GRAPH[0] is not roles or _GRAPH[1] != len(roles):
        forward = {id(a): _collects(a, roles) for a in roles}
        reverse: dict[int, list[Any]] = {id(r): [] for r in roles}
        for a in roles:
            for member in forward[id(a)]:
                reverse[id(member)].append(a)
        _GRAPH[:] = [roles, len(roles), forward, reverse]
    return _GRAPH[2], _GRAPH[3]


def collected_by(aggregator: Any, roles: list[Any]) -> list[Any]:
    """The stack's ClusterRoles an ``aggregationRule`` selects (by their labels)."""
    forward, _ = _graph(roles)
    return forward[id(aggregator)] if id(aggregator) in forward else _collects(aggregator, roles)


def collecting(role: Any, roles: list[Any]) -> list[Any]:
    """The stack's ClusterRoles whose ``aggregationRule`` selects ``role``."""
    _, reverse = _graph(roles)
    return reverse[id(role)] if id(role) in reverse else [a for a in roles if role in _collects(a, roles)]


def effective_rules(role: Any, roles: list[Any], seen: frozenset[int] = frozenset()) -> list[Rule]:
    """A role's own rules, and — for an aggregated ClusterRole — those of every role it collects, transitively,
    built-in ones included. Each role reached is read once however many aggregation paths reach it (a lattice of
    aggregated ClusterRoles is as much work as it has roles, not one walk per path); roles in ``seen`` are left out."""
    rules: list[Rule] = []
    reached = {id(role)}
    queue = [role]
    while queue:
        current = queue.pop()
        rules += list(current.rules)
        built_ins, _ = aggregated_built_ins(current.props)
        rules += [r for name in built_ins for r in BUILT_IN_ROLES[name]]
        for member in collected_by(current, roles):
            if id(member) not in reached and id(member) not in seen:
                reached.add(id(member))
                queue.append(member)
    return rules


#: Roles one scope judgement may evaluate (memoised, so an acyclic graph costs one evaluation per role); past it the
#: role is judged cluster-wide (fail closed) with a reason that says so.
MAX_SCOPE_STEPS = 20_000


class _ScopeWalk:
    """One ``scope_of`` judgement: results that did not depend on the path (memo), and the steps taken."""

    def __init__(self) -> None:
        self.memo: dict[int, tuple[str, str]] = {}
        self.steps = 0


def scope_of(role: Any, roles: list[Any], seen: frozenset[int] = frozenset(),
             system: frozenset[str] = SYSTEM_NAMESPACES) -> tuple[str, str]:
    """(``cluster`` | ``namespace`` | ``built-in``, why) for a ClusterRole of the stack."""
    return _scope(role, roles, seen, system, _ScopeWalk())[:2]


def _scope(role: Any, roles: list[Any], seen: frozenset[int], system: frozenset[str],
           walk: _ScopeWalk) -> tuple[str, str, bool]:
    """(scope, why, whether the answer depended on ``seen``): an answer that left out a role of the path (a cycle of
    aggregation or ``bind``) is not remembered, every other one is, so each role is judged once per judgement."""
    if id(role) in walk.memo:
        return (*walk.memo[id(role)], False)
    walk.steps += 1
    if walk.steps > MAX_SCOPE_STEPS:
        return "cluster", (f"is reached through more than {MAX_SCOPE_STEPS} aggregation and bind steps, so its scope "
                           "cannot be judged and it is judged as bound cluster-wide"), True
    scope, why, depends = _scope_step(role, roles, seen, system, walk)
    if not depends:
        walk.memo[id(role)] = (scope, why)
    return scope, why, depends


def _scope_step(role: Any, roles: list[Any], seen: frozenset[int], system: frozenset[str],
                walk: _ScopeWalk) -> tuple[str, str, bool]:
    cluster = [b for b in role.bindings if b.kind == "ClusterRoleBinding"]
    if cluster:
        return "cluster", f"is bound cluster-wide by ClusterRoleBinding '{cluster[0].resource.name}'", False
    in_system = [b for b in role.bindings if namespace_scope(b.props, system) == "cluster"]
    if in_system:
        return "cluster", (f"is bound by RoleBinding '{in_system[0].resource.name}' in a system namespace (or one "
                           "unknown during preview), where the controllers' service accounts live"), False
    if role.bindings:
        return "namespace", "is bound only by RoleBindings", False
    inner = seen | {id(role)}
    aggregators = collecting(role, roles)
    depends = any(id(a) in seen for a in aggregators)
    scopes = []
    for a in (a for a in aggregators if id(a) not in seen):
        scope, why, d = _scope(a, roles, inner, system, walk)
        depends = depends or d
        scopes.append(((scope, why), a))
    for (scope, why), a in scopes:
        if scope == "cluster":
            return "cluster", f"is aggregated into ClusterRole '{a.resource.name}', which {why}", depends
    if scopes:
        return "namespace", "is aggregated only into roles bound by RoleBindings", depends
    if isinstance(role.labels, dict) and feeds(role.name, role.labels, role.patch):
        return "built-in", "feeds a built-in role", depends
    # binder_scope leaves the path's roles out: the answer depends on the path when one of them binds this role
    depends = depends or any(id(r) in seen and role.name in named_targets(r, "clusterroles") for r in roles)

    def binder(b: Any) -> tuple[str, str]:
        nonlocal depends
        scope, why, d = _scope(b, roles, inner, system, walk)
        depends = depends or d
        return scope, why

    named = binder_scope(role, [r for r in roles if id(r) not in seen], binder)
    if named is not None:  # bound by no binding, named by a role's `bind` (rbac_bind)
        return (*named, depends)
    return "cluster", ("is bound by no binding of this stack, so it is judged as bound cluster-wide (any "
                       "ClusterRoleBinding, here or in another stack, grants it in every namespace)"), depends
