"""Identity escalation inside the cluster: ``kubernetes-rbac-no-escalation`` (stack) refuses every Kubernetes RBAC
object that lets a subject gain more privilege than the platform intends, judged by effect with one model of what a
rule grants (``rbac_model``; built-in roles in ``rbac_builtin``).

1. Each object on its own (``rbac_objects``): Role, ClusterRole, RoleBinding, ClusterRoleBinding, their ``*Patch``
   and ``*List`` kinds, every API version — grants that escalate even in one namespace, what a role adds to the built-in
   admin/edit/view roles it feeds, built-in roles an ``aggregationRule`` collects or a binding binds, subjects
   everyone is in, and anything that cannot be interpreted.
2. Each ClusterRole at the scope the stack gives it, with the rules its ``aggregationRule`` collects from the stack:
   cluster-wide when a ClusterRoleBinding (or a RoleBinding in ``kube-system``) binds it, namespaced when only
   RoleBindings do, the scope of the roles that aggregate it when a selector of the stack collects it, and — bound
   nowhere in the stack — cluster-wide, since any ClusterRoleBinding, here or in another stack, grants it in every
   namespace (Kubernetes docs "Using RBAC Authorization": a RoleBinding may reference a ClusterRole and grants it
   only in its namespace; aggregated ClusterRoles). Refused cluster-wide: Secret reads and writes (a
   service-account-token Secret is a token of any account), workload creation, exec, token requests and
   service-account impersonation (within one namespace, the tenant boundary, these are what
   workload creation there already gives), ``nodes/proxy``, ``nodes/log`` and ``nodes/checkpoint`` (the kubelet's
   host logs and container memory dumps), node, PersistentVolume, certificate, admission and
   APIService writes, non-resource URLs beyond discovery/health/metrics, and the writes that break tenant isolation
   (``rbac_isolation``: EndpointSlices, VolumeAttachments, Services of every namespace, network policies, storage,
   scheduling, device and Kueue classes, ...).
3. Every binding's role must be one the pack can judge: declared in the stack or built in; an unknown
   ``roleRef.name`` is followed through its property dependency to a role of the stack.
4. Across namespaces: a RoleBinding whose subject is a service account of another namespace (as a ServiceAccount,
   as the User ``system:serviceaccount:<ns>:<name>``, or through the groups of every service account) must not give
   it what only the namespace's own workloads may hold there (``rbac_model.CROSS_NAMESPACE_DANGERS``: Secret reads
   and writes, workload creation, exec/attach/port-forward/proxy, token requests, service-account impersonation,
   ConfigMap writes; and from ``rbac_isolation``, Services, Endpoints, routes, network policies, quotas and leases),
   whichever role carries it — built-in, a Role, a ClusterRole, an aggregated one — judged by the one
   grant model. People (Users, Groups of the identity provider) are how a tenant's users get access and pass.
   A namespace where the stack releases a node-agent chart is a system namespace here (point 2; stricter only).

Config: ``allowedBindings`` (objects, ``<namespace>/<name>`` or ``<name>``, accepted as they are) and
``allowedGrants`` (a role name pattern, the exact permissions it may hold cluster-wide, the subjects — every binding
of such a role must bind only these — and why). The default ``allowedGrants`` are the platform's node agents:
oke-rdma's GPU health (node-problem-detector and its cordoner patch nodes and node status) and the RDMA topology
labeler (patches node labels), each only for its own ServiceAccount. ``allowedCrossNamespaceGrants`` (same shape;
``{namespace}`` in a subject pattern is the binding's namespace) accepts point 4's grants: by default the MPI
Operator's per-tenant controllers, each only in the tenant namespace its name carries.

Unknown values fail closed: an unknown or uninterpretable rule, roleRef, subject, label or selector is a violation.
Sources: see ``rbac_model`` (checked 2026-12-01).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, Severity, StackValidationArgs,
                           StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._objects import HELM_TYPES, release_objects
    from ._pss import is_node_agent_chart
    from .kubernetes import chart_name
    from ._rules import UNKNOWN, elements, read
    from .rbac_objects import (SYSTEM_NAMESPACES, aggregated_built_ins, labels_of, object_key, outside_subjects,
                               problems_of, rbac_objects, role_ref)
    from .rbac_builtin import BUILT_IN_ROLES
    from .rbac_bind import bind_problems
    from .rbac_graph import collected_by, effective_rules, scope_of  # noqa: F401 (re-exported)
    from .rbac_model import (CROSS_NAMESPACE_DANGERS, DANGERS, Rule, describe, findings, glob, parse_rules)
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import HELM_TYPES, release_objects
    from _pss import is_node_agent_chart
    from kubernetes import chart_name
    from _rules import UNKNOWN, elements, read
    from rbac_objects import (SYSTEM_NAMESPACES, aggregated_built_ins, labels_of, object_key, outside_subjects,
                              problems_of, rbac_objects, role_ref)
    from rbac_builtin import BUILT_IN_ROLES
    from rbac_bind import bind_problems
    from rbac_graph import collected_by, effective_rules, scope_of  # noqa: F401 (re-exported)
    from rbac_model import (CROSS_NAMESPACE_DANGERS, DANGERS, Rule, describe, findings, glob, parse_rules)

FIX = ("Grant the namespaced verbs and resources the subject needs, through a Role and RoleBinding, to a named "
       "ServiceAccount; list an accepted exception in the policy config (allowedBindings / allowedGrants / "
       "allowedCrossNamespaceGrants).")
DEFAULT_ALLOWED_GRANTS = [
    {"role": "*-gpu-node-problem-detector", "grants": ["patch nodes", "patch nodes/status"],
     "subjects": ["ServiceAccount:*/gpu-node-problem-detector"],
     "reason": "oke-rdma GPU health: node-problem-detector sets a node condition and its cordoner cordons and "
               "annotates a node whose GPU reported a fatal Xid error (oke_rdma/health.py)"},
    {"role": "*-rdma-topology-labeler", "grants": ["patch nodes"],
     "subjects": ["ServiceAccount:*/rdma-topology-labeler"],
     "reason": "oke-rdma scheduling: the labeler writes each GPU node's RDMA network block labels for Kueue "
               "topology-aware scheduling (oke_rdma/scheduling.py)"},
    {"role": "*-kueue-gate-cluster", "grants": ["create clusterqueues.kueue.x-k8s.io",
                                                "create resourceflavors.kueue.x-k8s.io",
                                                "create topologies.kueue.x-k8s.io", "create cohorts.kueue.x-k8s.io"],
     "subjects": ["ServiceAccount:*/*-kueue-gate"],
     "reason": "oke-rdma readiness gate: a Job creates each Kueue kind with --dry-run=server until Kueue's webhooks "
               "answer, so the stack's queues wait for them (oke_rdma/readiness.py, oke_rdma/scheduling.py)"},
    {"role": "*-walls-gate-cluster", "grants": ["create ciliumclusterwidenetworkpolicies.cilium.io"],
     "subjects": ["ServiceAccount:*/*-walls-gate"],
     "reason": "oke-rdma readiness gate: a Job creates a throw-away clusterwide policy with --dry-run=server until "
               "Cilium's CRD answers, so the tenant walls wait for it (oke_rdma/readiness.py, oke_rdma/walls.py)"},
]

#: RoleBindings that hand a subject of another namespace a tenant's powers on purpose (``allowedCrossNamespaceGrants``;
#: ``{namespace}`` in a subject pattern is the binding's namespace).
DEFAULT_ALLOWED_CROSS_NAMESPACE_GRANTS = [
    {"role": "mpi-operator",
     "grants": ["list secrets", "watch secrets", "create secrets", "update secrets", "create pods", "update pods",
                "patch pods", "create pods/exec",
                "create jobs.batch", "update jobs.batch", "create mpijobs.kubeflow.org", "update mpijobs.kubeflow.org",
                "patch mpijobs.kubeflow.org", "create configmaps", "update configmaps", "create services",
                "update services", "create endpoints", "update endpoints", "create leases.coordination.k8s.io",
                "patch leases.coordination.k8s.io", "update leases.coordination.k8s.io"],
     "subjects": ["ServiceAccount:*/mpi-operator-{namespace}"],
     "reason": "oke-rdma MPI Operator: one controller per tenant namespace runs in the operator's namespace and "
               "creates that tenant's MPIJob launcher and workers (pods, Jobs, the hostfile ConfigMap, the SSH key "
               "Secret, exec into the launcher); its Role in the tenant namespace is bound only to the controller "
               "named after that namespace (oke_rdma/addons/mpi_operator.py); the launcher's headless Service, the "
               "endpoints and leases of its vendored 0.8.2 Role"},
]


def _config(args: Any, key: str, default: Any) -> Any:
    value = (args.get_config() or {}).get(key)
    return default if value is None else value


ALLOWED_BINDINGS_SCHEMA = {
    "type": "array", "uniqueItems": True, "default": [], "items": {"type": "string", "maxLength": 317},
    "description": "RBAC objects (<namespace>/<name>, or <name> when cluster-scoped) accepted as they are"}


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
                ref_kind, ref_name = role_ref(kind, obj, patch)
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


def subject_text(subject: Any) -> str:
    """``ServiceAccount:<namespace>/<name>``, ``User:<name>`` or ``Group:<name>``."""
    kind, name, namespace = read(subject, "kind"), read(subject, "name"), read(subject, "namespace")
    return f"{kind}:{namespace}/{name}" if kind == "ServiceAccount" else f"{kind}:{name}"


def allowed_entries(role: RoleObject, entries: list[dict]) -> list[dict]:
    return [e for e in entries if glob(str(e.get("role", "")), role.name)]


_RBAC = "kubernetes:rbac.authorization.k8s.io/v1:"
#: The RBAC kinds by type token (other modules judge patches and rendered objects as these kinds).
BINDINGS = (_RBAC + "ClusterRoleBinding", _RBAC + "RoleBinding")
ROLES = (_RBAC + "ClusterRole", _RBAC + "Role")

#: Dangers judged only at the scope the stack gives a ClusterRole (the others are refused at any scope, object by
#: object), and non-resource URLs (effective only through a ClusterRoleBinding).
CLUSTER_ONLY = frozenset({d.key for d in DANGERS if d.scope == "cluster"} | {"non-resource-urls"})


def cross_namespace_problems(b: BindingObject, roles: list[RoleObject], entries: list[dict]) -> list[str]:
    """Why a RoleBinding hands a subject of another namespace (``rbac_objects.outside_subjects``) what only the
    namespace's own workloads may hold there (``rbac_model.CROSS_NAMESPACE_DANGERS``: Secret reads and writes, workload
    creation, exec/attach/port-forward/proxy, token requests, service-account impersonation, ConfigMap writes), by
    what its role grants — a built-in role's rules or a role of the stack's (with what its aggregationRule
    collects) — less what an ``allowedCrossNamespaceGrants`` entry accepts for that role and subject."""
    if b.kind != "RoleBinding":
        return []
    outside = outside_subjects(b.props)
    if not outside:
        return []
    if b.roles:
        granted = [(str(r.name), effective_rules(r, roles)) for r in b.roles]
    elif b.ref_kind == "ClusterRole" and isinstance(b.ref_name, str) and b.ref_name in BUILT_IN_ROLES:
        granted = [(f"{b.ref_name} (built-in)", BUILT_IN_ROLES[b.ref_name])]
    else:
        return []  # an unresolved role is refused on its own (stack_problems)
    home = read(b.props, "metadata", "namespace")
    problems = []
    for role_name, rules in granted:
        found = {k: v for k, v in findings(rules, "cluster").items() if k in CROSS_NAMESPACE_DANGERS}
        if not found:
            continue
        for i, text, _ in outside:
            accepted = {g for e in entries if glob(str(e.get("role", "")), role_name)
                        and any(glob(str(p).replace("{namespace}", str(home)), text) for p in e.get("subjects") or [])
                        for g in e.get("grants") or []}
            left = {k: v - accepted for k, v in found.items() if v - accepted}
            if left:
                problems.append(f"gives subjects[{i}] ({text}, not of namespace {home!r}) role '{role_name}' in "
                                f"{home!r}, which grants {describe(left)} there: another namespace's Secrets, pods "
                                "and service accounts (and their cloud grants); bind the subject's own namespace's "
                                "account, or list the grant in allowedCrossNamespaceGrants with its reason")
    return problems


def stack_problems(resources: list[Any], entries: list[dict], allowed: frozenset[str],
                   cross_entries: tuple = (), system: frozenset[str] = SYSTEM_NAMESPACES) -> dict[str, list[str]]:
    """URN → why an RBAC resource escalates given the rest of the stack (points 2 to 4 of the module docstring)."""
    out: dict[str, list[str]] = {}
    roles, bindings = collect(resources, allowed)
    for role in roles:
        for problem in bind_problems(role, roles):
            out.setdefault(role.resource.urn, []).append(problem)
        if role.kind != "ClusterRole":
            continue  # a Role is namespaced: judged on its own (rbac_objects)
        scope, why = scope_of(role, roles, system=system)
        if scope != "cluster":
            continue
        found = {k: v for k, v in findings(effective_rules(role, roles), "cluster").items() if k in CLUSTER_ONLY}
        accepted = {g for entry in allowed_entries(role, entries) for g in (entry.get("grants") or [])}
        found = {k: v - accepted for k, v in found.items() if v - accepted}
        if found:
            collected = aggregated_built_ins(role.props)[0] + [str(m.name) for m in collected_by(role, roles)]
            via = f", with what its aggregationRule collects ({', '.join(collected)})," if collected else ""
            out.setdefault(role.resource.urn, []).append(f"{why}{via} and grants {describe(found)}")
    for b in bindings:
        problems = out.setdefault(b.resource.urn, [])
        if b.ref_kind not in ("ClusterRole", "Role"):
            continue  # refused on its own (rbac_objects)
        problems += cross_namespace_problems(b, roles, list(cross_entries))
        if b.roles is None:
            problems.append("its roleRef.name is unknown during preview and does not depend on a role of this stack, "
                            "so what it grants cannot be judged")
            continue
        if not b.roles and not (b.ref_kind == "ClusterRole" and isinstance(b.ref_name, str)
                                and (b.ref_name in BUILT_IN_ROLES or b.ref_name.startswith("system:"))):
            problems.append(f"binds {b.ref_kind} '{b.ref_name}', which is neither declared in this stack nor a "
                            "built-in role, so what it grants cannot be judged")
        for role in b.roles:
            patterns = [p for e in allowed_entries(role, entries) for p in (e.get("subjects") or [])]
            if not allowed_entries(role, entries):
                continue
            subjects = elements(read(b.props, "subjects"))
            for subject in ([UNKNOWN] if subjects is UNKNOWN else subjects):
                if UNKNOWN in (subject, read(subject, "kind"), read(subject, "name"), read(subject, "namespace")):
                    problems.append(f"binds ClusterRole '{role.name}', whose grants allowedGrants accepts only for "
                                    "the subjects it lists, to a subject unknown during preview (set its kind, name "
                                    "and namespace literally)")
                elif not any(glob(p, subject_text(subject)) for p in patterns):
                    problems.append(f"binds ClusterRole '{role.name}', whose grants allowedGrants accepts only for "
                                    f"{', '.join(patterns)}, to {subject_text(subject)} (bind it only to the "
                                    "subjects listed, or list the subject with its reason)")
    return {urn: problems for urn, problems in out.items() if problems}


def system_namespaces(resources: list[Any]) -> frozenset[str]:
    """:data:`rbac_objects.SYSTEM_NAMESPACES` and every namespace where the stack releases a node-agent chart
    (``_pss.NODE_AGENT_CHARTS``): its pods take the node, so workload creation, exec or Secret reads there reach every
    node as cluster-wide grants do. Only ever stricter: no namespace is exempted by it."""
    found = set()
    for res in resources:
        if res.resource_type in HELM_TYPES and is_node_agent_chart(chart_name(res.props)):
            ns = read(res.props, "namespace")
            found.update([ns] if isinstance(ns, str) else [])
            found.update(n for n in (read(d.props, "metadata", "name") for d in (
                getattr(res, "property_dependencies", {}) or {}).get("namespace", [])) if isinstance(n, str))
    return SYSTEM_NAMESPACES | frozenset(found)


def validate_rbac(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``kubernetes-rbac-no-escalation``: see the module docstring. One violation per resource."""
    entries = list(_config(args, "allowedGrants", DEFAULT_ALLOWED_GRANTS))
    allowed = frozenset(_config(args, "allowedBindings", []))
    resources = list(args.resources)
    # Objects a Helm release renders from its values (extraManifests, extraObjects, ...) are RBAC of this stack too:
    # a ClusterRole arriving that way is judged at the scope its bindings (rendered or declared) give it, and the
    # problems are reported on the release. Each rendered object alone is judged by helm-values-manifests.
    rendered = [obj for res in resources if res.resource_type in HELM_TYPES
                for obj, _ in release_objects(res) if obj is not None]
    cross = tuple(_config(args, "allowedCrossNamespaceGrants", DEFAULT_ALLOWED_CROSS_NAMESPACE_GRANTS))
    system = system_namespaces(resources)
    in_stack = stack_problems(resources + rendered, entries, allowed, cross, system)
    for res in resources:
        problems = problems_of(res.resource_type, res.props, allowed, system) + in_stack.get(res.urn, [])
        if problems:
            report_violation(f"{res.resource_type.split(':')[-1]} '{res.name}' {'; '.join(problems)}. {FIX}", res.urn)


ALLOWED_GRANTS_SCHEMA = {
    "type": "array", "default": DEFAULT_ALLOWED_GRANTS,
    "description": ("permissions ('verb resource[.group][/subresource]', e.g. 'patch nodes', as the violation "
                    "names them) accepted cluster-wide for ClusterRoles whose name matches 'role' (* wildcards), "
                    "bound only to 'subjects' (Kind:<namespace>/<name> or Kind:<name>), with the reason"),
    "items": {"type": "object", "required": ["role", "grants", "subjects", "reason"], "additionalProperties": False,
              "properties": {"role": {"type": "string"}, "grants": {"type": "array", "items": {"type": "string"}},
                             "subjects": {"type": "array", "items": {"type": "string"}},
                             "reason": {"type": "string", "minLength": 1}}}}

ALLOWED_CROSS_NAMESPACE_GRANTS_SCHEMA = {
    "type": "array", "default": DEFAULT_ALLOWED_CROSS_NAMESPACE_GRANTS,
    "description": ("permissions ('verb resource[.group][/subresource]', as the violation names them) a RoleBinding "
                    "may give a subject of another namespace, for roles whose name matches 'role' (* wildcards; a "
                    "built-in role as '<name> (built-in)'), bound only to 'subjects' (Kind:<namespace>/<name>; "
                    "{namespace} is the binding's namespace), with the reason"),
    "items": ALLOWED_GRANTS_SCHEMA["items"]}

kubernetes_rbac_no_escalation = StackValidationPolicy(
    name="kubernetes-rbac-no-escalation",
    description=("No RBAC object lets a subject escalate: escalate, bind, impersonating users, namespace writes, "
                 "pod binding to nodes; cluster-wide Secret reads or writes (a service-account-token Secret mints "
                 "any account's token), workload creation, exec, token requests, "
                 "nodes/proxy, nodes/log, nodes/checkpoint, node, PV, "
                 "certificate, admission or APIService writes; bindings of escalating built-in roles or to everyone; "
                 "a namespace's Secrets (read or written), workloads, exec, tokens or ConfigMaps given to another "
                 "namespace's service "
                 "accounts; aggregation into or of admin/edit; roles the pack cannot see or interpret; writes that "
                 "break tenant isolation: Service/Ingress status, and cluster-wide (or in another namespace) "
                 "Endpoints, Services, routes, network policies, VolumeAttachments, storage, scheduling, device and "
                 "Kueue classes, quotas, leases (rbac_isolation)."),
    validate=validate_rbac,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Bind a Role with the namespaced verbs and resources needed to a named ServiceAccount (a "
                       "ClusterRole only through RoleBindings); list an object an administrator accepts in "
                       "allowedBindings, a platform component's exact cluster-wide need in allowedGrants with its "
                       "subjects and reason. Source: Kubernetes docs: Using RBAC Authorization; Role Based Access "
                       "Control Good Practices (checked 2026-12-01)."),
    tags=["kubernetes", "rbac", "identity-escalation"],
    config_schema=PolicyConfigSchema(properties={"allowedBindings": ALLOWED_BINDINGS_SCHEMA,
                                                 "allowedGrants": ALLOWED_GRANTS_SCHEMA,
                                                 "allowedCrossNamespaceGrants":
                                                     ALLOWED_CROSS_NAMESPACE_GRANTS_SCHEMA}),
)

POLICIES = [kubernetes_rbac_no_escalation]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "kubernetes-rbac-no-escalation": ("fails closed: an unknown rule, roleRef kind, subject, label or aggregation "
                                      "selector is a violation; an unknown roleRef name is followed through its "
                                      "property dependency to a role of the stack, else a violation"),
}
