"""Identity escalation inside the cluster: Kubernetes RBAC objects that let a subject gain more privilege than the
platform intends, judged by effect with one model of what a rule grants (``rbac_model``).

| rule                                | kind     | judges                                                                  |
|-------------------------------------|----------|-------------------------------------------------------------------------|
| kubernetes-rbac-no-escalation       | resource | each Role, ClusterRole, RoleBinding, ClusterRoleBinding (and their      |
|                                     |          | ``*Patch`` and ``*List`` kinds, every API version) on its own: grants   |
|                                     |          | effective even in one namespace (escalate, bind, impersonate, token     |
|                                     |          | requests, namespace writes); a ClusterRole that feeds admin/edit/view   |
|                                     |          | (aggregate-to-* labels, or a patch of those roles) with more than they  |
|                                     |          | grant; an ``aggregationRule`` collecting built-in roles that escalate   |
|                                     |          | (admin, edit, cluster-admin); a binding to a built-in role that         |
|                                     |          | escalates at the binding's scope (``cluster-admin``, ``admin``,         |
|                                     |          | ``edit``, ``system:node``, ``system:controller:*``, unknown             |
|                                     |          | ``system:*``); subjects every caller, node or service account is in;    |
|                                     |          | anything it cannot interpret                                            |
| kubernetes-rbac-cluster-wide-grants | stack    | each ClusterRole at the scope the stack gives it — cluster-wide when a  |
|                                     |          | ClusterRoleBinding binds it or nothing in the stack binds it (any       |
|                                     |          | binding elsewhere would), namespaced when only RoleBindings do — with   |
|                                     |          | the rules its ``aggregationRule`` collects from the stack's roles:      |
|                                     |          | Secret reads, workload creation, exec, ``nodes/proxy``, node, PV,       |
|                                     |          | certificate, admission and APIService writes, non-resource URLs; a      |
|                                     |          | ClusterRoleBinding to a role neither in the stack nor built in          |

Config: ``allowedBindings`` (both rules: objects, ``<namespace>/<name>`` or ``<name>``, accepted as they are) and
``allowedGrants`` (the stack rule: a role name pattern, the exact permissions it may hold cluster-wide, the
subjects it may be bound to, and why). The default ``allowedGrants`` are the platform's own node agents: oke-rdma's
GPU health cordoner (node-problem-detector) patches nodes and node status, and the RDMA topology labeler patches
node labels; each only for its own ServiceAccount.

Unknown values fail closed: an unknown or uninterpretable rule, roleRef, subject, label or selector is a violation.
An unknown ``roleRef.name`` is followed through its property dependency to a ClusterRole of the stack.
Sources: see ``rbac_model`` (Kubernetes docs "Using RBAC Authorization", "Role Based Access Control Good
Practices", checked 2026-12-01); pulumi_kubernetes 4.34.2 type tokens ``kubernetes:rbac.authorization.k8s.io/
<version>:<Kind>`` with ``Patch``/``List`` kinds (``sdk/python/pulumi_kubernetes/rbac/v1/``).
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Iterator

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import UNKNOWN, elements, read
    from .rbac_builtin import BUILT_IN_ROLES, built_in_labels, built_in_role
    from .rbac_model import AGGREGATION_LABELS, READ, describe, findings, minus, parse_rules, selector_matches
else:  # run by the Pulumi CLI from inside policies/security/
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
SYSTEM_NAMESPACES = frozenset({"kube-system"})


def namespace_scope(props: Any) -> str:
    """``cluster`` for a namespaced object in a :data:`SYSTEM_NAMESPACES` namespace (or an unknown one), else
    ``namespace``."""
    namespace = read(props, "metadata", "namespace")
    return "cluster" if namespace is UNKNOWN or namespace in SYSTEM_NAMESPACES else "namespace"
FIX = ("Grant the namespaced verbs and resources the subject needs, through a Role and RoleBinding, to a named "
       "ServiceAccount; list an accepted exception in the policy config (allowedBindings / allowedGrants).")
DEFAULT_ALLOWED_GRANTS = [
    {"role": "*-gpu-node-problem-detector", "grants": ["patch nodes", "patch nodes/status"],
     "subjects": ["ServiceAccount:*/gpu-node-problem-detector"],
     "reason": "oke-rdma GPU health: node-problem-detector sets a node condition and its cordoner cordons and "
               "annotates a node whose GPU reported a fatal Xid error (oke_rdma/health.py)"},
    {"role": "*-rdma-topology-labeler", "grants": ["patch nodes"],
     "subjects": ["ServiceAccount:*/rdma-topology-labeler"],
     "reason": "oke-rdma scheduling: the labeler writes each GPU node's RDMA network block labels for Kueue "
               "topology-aware scheduling (oke_rdma/scheduling.py)"},
]


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


def role_problems(kind: str, patch: bool, props: Any) -> list[str]:
    """Why a Role/ClusterRole (or patch) escalates by itself: namespace-scope dangers, what it adds to the
    built-in roles it feeds, what its aggregationRule collects, and what cannot be interpreted."""
    rules, problems = parse_rules(read(props, "rules"), kind == "Role")
    scope = namespace_scope(props) if kind == "Role" else "namespace"
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


def role_ref(props: Any, patch: bool) -> tuple[Any, Any]:
    """(roleRef.kind, roleRef.name); a binding patch without roleRef targets a default binding of the same name,
    which Kubernetes names after its role (bootstrappolicy ``ClusterRoleBindings``), else (None, None)."""
    ref = read(props, "roleRef")
    if ref is None and patch:
        name = read(props, "metadata", "name")
        return ("ClusterRole", name) if isinstance(name, str) and name in BUILT_IN_ROLES else (None, None)
    return read(ref, "kind"), read(ref, "name")


def binding_problems(kind: str, patch: bool, props: Any) -> list[str]:
    """Why a (Cluster)RoleBinding (or patch) escalates by itself: a built-in role that escalates at the binding's
    scope, a ``system:`` role whose grants are not known, subjects that are everyone, uninterpretable parts."""
    problems = []
    ref_kind, name = role_ref(props, patch)
    if ref_kind is None and name is None and patch:
        problems.append("patches a binding whose roleRef is neither in the patch nor a default binding's, so the "
                        "role it hands to its subjects cannot be judged")
    elif ref_kind is UNKNOWN or (ref_kind not in ("ClusterRole", "Role")):
        problems.append(f"its roleRef.kind {ref_kind!r} is not ClusterRole or Role")
    elif ref_kind == "ClusterRole" and isinstance(name, str):
        scope = "cluster" if kind == "ClusterRoleBinding" else namespace_scope(props)
        rules = built_in_role(name)
        if name.startswith("system:controller:"):
            problems.append(f"binds {name}, a controller's own role (controllers create pods everywhere, delete "
                            "namespaces, or hold escalate)")
        elif rules is not None:
            found = findings(rules, scope)
            if found:
                problems.append(f"binds the built-in role {name}, which grants {describe(found)}"
                                f"{' in every namespace' if scope == 'cluster' else ''}")
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
        elif s_kind == "ServiceAccount" and s_name == "default":
            problems.append(f"binds role {name!r} to the ServiceAccount 'default', which every pod of its namespace "
                            "that names no service account runs as")
    return problems


def object_key(props: Any) -> str:
    """``<namespace>/<name>`` or ``<name>``: how ``allowedBindings`` names an object."""
    name, namespace = read(props, "metadata", "name"), read(props, "metadata", "namespace")
    return f"{namespace}/{name}" if isinstance(namespace, str) else str(name)


def problems_of(resource_type: str, props: Any, allowed: frozenset[str] = frozenset()) -> list[str]:
    """Why one RBAC resource escalates by itself (see the module docstring); [] when it does not."""
    problems = []
    for kind, patch, where, obj in rbac_objects(resource_type, props):
        if kind == "?":
            problems.append("its items are unknown during preview or not a list")
            continue
        if object_key(obj) in allowed:
            continue
        found = (binding_problems if kind.endswith("Binding") else role_problems)(kind, patch, obj)
        problems += [f"{where}{p}" for p in found]
    return problems


def _config(args: Any, key: str, default: Any) -> Any:
    value = (args.get_config() or {}).get(key)
    return default if value is None else value


def validate_rbac(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``kubernetes-rbac-no-escalation``: see the module docstring."""
    problems = problems_of(args.resource_type, args.props, frozenset(_config(args, "allowedBindings", [])))
    if problems:
        report_violation(f"{args.resource_type.split(':')[-1]} '{args.name}' {'; '.join(problems)}. {FIX}", None)


ALLOWED_BINDINGS_SCHEMA = {
    "type": "array", "uniqueItems": True, "default": [], "items": {"type": "string", "maxLength": 317},
    "description": "RBAC objects (<namespace>/<name>, or <name> when cluster-scoped) accepted as they are"}

kubernetes_rbac_no_escalation = ResourceValidationPolicy(
    name="kubernetes-rbac-no-escalation",
    description=("No RBAC object grants escalate, bind, impersonate, token requests or namespace writes, feeds the "
                 "built-in admin/edit/view roles more than they grant, aggregates or binds a built-in role that "
                 "escalates (cluster-admin, admin, edit, system:*), or binds everyone; uninterpretable rules fail."),
    validate=validate_rbac,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Bind a Role with the namespaced verbs and resources needed to a named ServiceAccount; list "
                       "an object an administrator accepts in allowedBindings. Source: Kubernetes docs: Using RBAC "
                       "Authorization; Role Based Access Control Good Practices (checked 2026-12-01)."),
    tags=["kubernetes", "rbac", "identity-escalation"],
    config_schema=PolicyConfigSchema(properties={"allowedBindings": ALLOWED_BINDINGS_SCHEMA}),
)

POLICIES = [kubernetes_rbac_no_escalation]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "kubernetes-rbac-no-escalation": ("fails closed: an unknown rule, roleRef kind, subject, label or aggregation "
                                      "selector is a violation"),
}
