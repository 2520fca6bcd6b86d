"""Kubernetes RBAC objects judged one at a time, for the ``kubernetes-rbac-no-escalation`` rule (``rbac``): what a
Role, ClusterRole, RoleBinding or ClusterRoleBinding (and their ``*Patch`` and ``*List`` kinds, every API version)
grants on its own, whatever the rest of the stack holds.

* roles: grants that escalate even in one namespace (escalate, bind, impersonating users or groups, namespace
  writes; every danger in ``kube-system``), what a ClusterRole feeding the built-in admin/edit/view roles
  (aggregate-to-* labels, or a patch of those roles) adds to them, the built-in roles an ``aggregationRule``
  collects, and every part of a rule that cannot be interpreted;
* bindings: a built-in role that escalates at the binding's scope (``cluster-admin`` anywhere; ``admin``, ``edit``
  cluster-wide or in ``kube-system``;
  ``system:node``, ``system:controller:*``, an unknown ``system:*`` role; a binding patch without ``roleRef`` by
  the default binding it targets), and subjects that are everyone (``system:authenticated``,
  ``system:unauthenticated``, ``system:serviceaccounts[:<ns>]``, ``system:nodes``, ``system:anonymous``, a
  namespace's ``default`` ServiceAccount).

Sources: see ``rbac_model`` (Kubernetes docs "Using RBAC Authorization", "Role Based Access Control Good
Practices", "Service Accounts", checked 2026-12-01); pulumi_kubernetes 4.34.2 type tokens
``kubernetes:rbac.authorization.k8s.io/<version>:<Kind>`` with ``Patch``/``List`` kinds
(``sdk/python/pulumi_kubernetes/rbac/v1/``).
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Iterator

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._pss import NODE_ESCAPE_NAMESPACES
    from ._rules import UNKNOWN, elements, read
    from .rbac_builtin import BUILT_IN_ROLES, built_in_labels, built_in_role
    from .rbac_model import AGGREGATION_LABELS, READ, describe, findings, minus, parse_rules, selector_matches
else:  # run by the Pulumi CLI from inside policies/security/
    from _pss import NODE_ESCAPE_NAMESPACES
    from _rules import UNKNOWN, elements, read
    from rbac_builtin import BUILT_IN_ROLES, built_in_labels, built_in_role
    from rbac_model import AGGREGATION_LABELS, READ, describe, findings, minus, parse_rules, selector_matches

_TYPE = re.compile(r"^kubernetes:rbac\.authorization\.k8s\.io/[^:]+:(ClusterRole|Role|ClusterRoleBinding|RoleBinding)"
                   r"(Patch|List)?$")
#: Groups (and one user) every caller, every node or every service account belongs to (RBAC docs "Referring to
#: subjects", "Default roles and role bindings"; "Node Authorization": ``system:nodes``).
BROAD_GROUPS = frozenset({"system:authenticated", "system:unauthenticated", "system:serviceaccounts",
                          "system:nodes"})
BROAD_USERS = frozenset({"system:anonymous"})
SUBJECT_KINDS = ("User", "Group", "ServiceAccount")
#: Namespaces where a namespaced grant is a cluster-wide one: with ``--use-service-account-credentials`` every
#: built-in controller runs as its own ServiceAccount in kube-system, bound to its ``system:controller:*`` role (RBAC
#: docs "Controller roles"), so creating pods, reading Secrets or exec there hands over those controllers' powers.
#: An unknown namespace may be one of them.
#: kube-system, and the namespaces where the pack lets node agents escape to the node (``_pss.NODE_ESCAPE_NAMESPACES``,
#: Pod Security ``privileged``): workload creation, Secret reads or exec there reach every node and the agents'
#: service accounts, as cluster-wide grants do.
SYSTEM_NAMESPACES = frozenset({"kube-system", *NODE_ESCAPE_NAMESPACES})


def namespace_scope(props: Any, system: frozenset[str] = SYSTEM_NAMESPACES) -> str:
    """``cluster`` for a namespaced object in a ``system`` namespace (default :data:`SYSTEM_NAMESPACES`; the stack
    rule adds where the stack releases a node-agent chart) or an unknown one, else ``namespace``."""
    namespace = read(props, "metadata", "namespace")
    return "cluster" if namespace is UNKNOWN or namespace in system else "namespace"


def rbac_objects(resource_type: str, props: Any) -> Iterator[tuple[str, bool, str, Any]]:
    """(kind, is_patch, where, object props) for an RBAC resource: one object, or each item of a ``*List``; a
    non-RBAC type yields nothing. An unknown or malformed ``items`` yields kind ``?`` (a problem)."""
    m = _TYPE.match(resource_type)
    if not m:
        return
    kind, suffix = m.group(1), m.group(2) or ""
    if suffix != "List":
        yield kind, suffix == "Patch", "", props
        return
    items = read(props, "items")
    if items is UNKNOWN or not isinstance(items, Sequence) or isinstance(items, str):
        yield "?", False, "items", items
        return
    for i, item in enumerate(elements(items)):
        yield kind, False, f"items[{i}] ", item


def labels_of(props: Any) -> Any:
    """``metadata.labels`` as a dict of strings; UNKNOWN when unknown or not interpretable."""
    labels = read(props, "metadata", "labels")
    if labels is None:
        return {}
    if labels is UNKNOWN or not isinstance(labels, Mapping):
        return UNKNOWN
    out = {}
    for key in labels:
        value = read(labels, key)
        if value is UNKNOWN:
            return UNKNOWN
        out[key] = value
    return out


def feeds(name: Any, labels: dict, patch: bool) -> list[str]:
    """Built-in user-facing roles a ClusterRole's rules flow into: its ``aggregate-to-*: "true"`` labels, or —
    for a ``ClusterRolePatch`` — being that role (or its ``system:aggregate-to-*`` part) itself."""
    found = [role for label, role in AGGREGATION_LABELS.items() if str(labels.get(label, "")).lower() == "true"]
    if patch and isinstance(name, str):
        found += [r for r in ("admin", "edit", "view") if name in (r, f"system:aggregate-to-{r}")]
    return sorted(set(found))


def aggregated_built_ins(props: Any) -> tuple[list[str], list[str]]:
    """Built-in roles an ``aggregationRule`` collects (their labels match a selector), and problems."""
    rule = read(props, "aggregationRule")
    if rule is None:
        return [], []
    selectors = elements(read(rule, "clusterRoleSelectors"))
    if selectors is UNKNOWN:
        return [], ["aggregationRule.clusterRoleSelectors is unknown during preview"]
    collected, problems = set(), []
    for i, selector in enumerate(selectors):
        for name in BUILT_IN_ROLES:
            hit = selector_matches(selector, built_in_labels(name))
            if hit is UNKNOWN:
                problems.append(f"aggregationRule.clusterRoleSelectors[{i}] cannot be interpreted (unknown, or "
                                "not matchLabels / In / NotIn / Exists / DoesNotExist)")
                break
            if hit:
                collected.add(name)
    return sorted(collected), problems


def role_problems(kind: str, patch: bool, props: Any, system: frozenset[str] = SYSTEM_NAMESPACES) -> list[str]:
    """Why a Role/ClusterRole (or patch) escalates by itself: namespace-scope dangers, what it adds to the
    built-in roles it feeds, what its aggregationRule collects, and what cannot be interpreted."""
    rules, problems = parse_rules(read(props, "rules"), kind == "Role")
    scope = namespace_scope(props, system) if kind == "Role" else "namespace"
    found = findings(rules, scope)
    if found:
        where = " in a system namespace (the controllers' service accounts live there)" if scope == "cluster" else ""
        problems.append(f"grants{where} {describe(found)}")
    if kind != "ClusterRole":
        return problems
    name, labels = read(props, "metadata", "name"), labels_of(props)
    if labels is UNKNOWN:
        return problems + ["its metadata.labels are unknown during preview, so whether it feeds the built-in "
                           "admin/edit/view roles cannot be told"]
    for target in feeds(name, labels, patch):
        if patch and read(props, "rules") is None:
            problems.append(f"adds an existing ClusterRole to the built-in '{target}' role without its rules in the "
                            "patch, so what it adds cannot be judged")
            continue
        extra = minus(findings(rules, "cluster"), findings(BUILT_IN_ROLES[target], "cluster"))
        if target == "view":
            writes = {f"{','.join(sorted(r.verbs - set(READ)))} {','.join(sorted(r.resources or r.urls))}"
                      for r in rules if r.verbs - set(READ)}
            if writes:
                extra.setdefault("writes to the read-only view role", set()).update(writes)
        if extra:
            problems.append(f"feeds the built-in '{target}' role (bound in every namespace and often cluster-wide), "
                            f"adding {describe(extra)}")
    collected, selector_problems = aggregated_built_ins(props)
    problems += selector_problems
    inherited = findings([r for n in collected for r in BUILT_IN_ROLES[n]], "namespace")
    if inherited:
        problems.append(f"its aggregationRule collects the built-in role(s) {', '.join(collected)}, which grant "
                        f"{describe(inherited)}")
    return problems


def role_ref(kind: str, props: Any, patch: bool) -> tuple[Any, Any]:
    """(roleRef.kind, roleRef.name); a ``ClusterRoleBindingPatch`` without roleRef targets a default
    ClusterRoleBinding, which Kubernetes names after its role (bootstrappolicy ``ClusterRoleBindings``); any other
    patch without roleRef is (None, None): its role cannot be known."""
    ref = read(props, "roleRef")
    if ref is None and patch:
        name = read(props, "metadata", "name")
        known = kind == "ClusterRoleBinding" and isinstance(name, str) and name in BUILT_IN_ROLES
        return ("ClusterRole", name) if known else (None, None)
    ref_kind = read(ref, "kind")
    if ref_kind is None and kind == "ClusterRoleBinding" and ref is not None:
        ref_kind = "ClusterRole"  # the only kind a ClusterRoleBinding may reference (RBAC docs "RoleBinding and
        # ClusterRoleBinding"); a patch may leave it to the live object
    return ref_kind, read(ref, "name")


def binding_problems(kind: str, patch: bool, props: Any, system: frozenset[str] = SYSTEM_NAMESPACES) -> list[str]:
    """Why a (Cluster)RoleBinding (or patch) escalates by itself: a built-in role that escalates at the binding's
    scope, a ``system:`` role whose grants are not known, subjects that are everyone, uninterpretable parts."""
    problems = []
    ref_kind, name = role_ref(kind, props, patch)
    if ref_kind is None and name is None and patch:
        problems.append("patches a binding whose roleRef is neither in the patch nor a default binding's, so the "
                        "role it hands to its subjects cannot be judged")
    elif ref_kind is UNKNOWN or (ref_kind not in ("ClusterRole", "Role")):
        problems.append(f"its roleRef.kind {ref_kind!r} is not ClusterRole or Role")
    elif ref_kind == "ClusterRole" and isinstance(name, str):
        scope = "cluster" if kind == "ClusterRoleBinding" else namespace_scope(props, system)
        rules = built_in_role(name)
        if name.startswith("system:controller:"):
            problems.append(f"binds {name}, a controller's own role (controllers create pods everywhere, delete "
                            "namespaces, or hold escalate)")
        elif rules is not None:
            found = findings(rules, scope)
            if found:
                problems.append(f"binds the built-in role {name}, which grants {describe(found)}")
        elif name.startswith("system:"):
            problems.append(f"binds {name}, a system role whose grants this pack does not know")
    elif name is not None and not isinstance(name, str) and name is not UNKNOWN:
        problems.append(f"its roleRef.name {name!r} is not a string")
    subjects = read(props, "subjects")
    if subjects is UNKNOWN:
        return problems + ["its subjects are unknown during preview"]
    if subjects is not None and (isinstance(subjects, str) or not isinstance(subjects, Sequence)):
        return problems + [f"its subjects {subjects!r} are not a list"]
    for i, subject in enumerate(elements(subjects)):
        s_kind, s_name = read(subject, "kind"), read(subject, "name")
        if s_kind is UNKNOWN or s_name is UNKNOWN:
            problems.append(f"subjects[{i}] is unknown during preview")
        elif s_kind not in SUBJECT_KINDS or not isinstance(s_name, str):
            problems.append(f"subjects[{i}] ({s_kind!r} {s_name!r}) is not a User, Group or ServiceAccount by name")
        elif (s_kind == "Group" and (s_name in BROAD_GROUPS or s_name.startswith("system:serviceaccounts:"))) or (
                s_kind == "User" and s_name in BROAD_USERS):
            problems.append(f"binds role {name!r} to {s_kind} {s_name}, which every caller, node or service account "
                            "(of a namespace) is in")
        elif (s_kind == "ServiceAccount" and s_name == "default") or (
                s_kind == "User" and s_name.startswith("system:serviceaccount:") and s_name.endswith(":default")):
            # A ServiceAccount's username is system:serviceaccount:<namespace>:<name>; RBAC matches a User subject
            # by username, so the User form is the same principal (Kubernetes docs "Using RBAC Authorization",
            # "Referring to subjects"; checked 2026-12-01).
            problems.append(f"binds role {name!r} to the ServiceAccount 'default', which every pod of its namespace "
                            "that names no service account runs as")
    return problems


def outside_subjects(props: Any) -> list[tuple[int, str, Any]]:
    """(index, ``Kind:<namespace>/<name>`` text, the namespace it is of) for each subject of a RoleBinding that is
    a service account of another namespace than the binding's: a ServiceAccount whose ``namespace`` differs (absent:
    the binding's, as the authorizer reads it — ``k8s.io/kubernetes`` ``pkg/registry/rbac/validation/rule.go``
    ``appliesToUser``), the same account as a User ``system:serviceaccount:<namespace>:<name>``, and the groups of
    every service account of a namespace (``system:serviceaccounts:<namespace>``), of every namespace
    (``system:serviceaccounts``) or of everyone (``system:authenticated``, ``system:unauthenticated``) — namespace
    ``*``. A subject unknown during preview, or a binding whose namespace is unknown, counts (fail closed)."""
    home = read(props, "metadata", "namespace")
    subjects = elements(read(props, "subjects"))
    out = []
    for i, subject in enumerate([UNKNOWN] if subjects is UNKNOWN else subjects):
        kind, name = read(subject, "kind"), read(subject, "name")
        if UNKNOWN in (subject, kind, name):
            out.append((i, "a subject unknown during preview", "*"))
            continue
        other: Any = None
        if kind == "ServiceAccount":
            other = read(subject, "namespace", default=home)
            text = f"ServiceAccount:{other if isinstance(other, str) else '<unknown>'}/{name}"
        elif kind == "User" and isinstance(name, str) and name.startswith("system:serviceaccount:"):
            other, text = (name.split(":") + [""])[2], f"User:{name}"
        elif kind == "Group" and isinstance(name, str) and (name.startswith("system:serviceaccounts:")
                                                           or name in BROAD_GROUPS - {"system:nodes"}):
            other = name.split(":", 2)[2] if name.startswith("system:serviceaccounts:") else "*"
            text = f"Group:{name}"
        else:
            continue  # a person or group of people (not of a namespace): how a tenant's users are given access
        if other is UNKNOWN or not isinstance(other, str) or not isinstance(home, str) or other != home:
            out.append((i, text, other if isinstance(other, str) else "*"))
    return out


def object_key(props: Any) -> str:
    """``<namespace>/<name>`` or ``<name>``: how ``allowedBindings`` names an object."""
    name, namespace = read(props, "metadata", "name"), read(props, "metadata", "namespace")
    return f"{namespace}/{name}" if isinstance(namespace, str) else str(name)


def problems_of(resource_type: str, props: Any, allowed: frozenset[str] = frozenset(),
                system: frozenset[str] = SYSTEM_NAMESPACES) -> list[str]:
    """Why one RBAC resource escalates by itself (see the module docstring); [] when it does not."""
    problems = []
    for kind, patch, where, obj in rbac_objects(resource_type, props):
        if kind == "?":
            problems.append("its items are unknown during preview or not a list")
            continue
        if object_key(obj) in allowed:
            continue
        found = (binding_problems if kind.endswith("Binding") else role_problems)(kind, patch, obj, system)
        problems += [f"{where}{p}" for p in found]
    return problems
