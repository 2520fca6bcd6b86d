"""A tenant's people: three platform ClusterRoles (``<prefix>-tenant-viewer``, ``-developer``, ``-admin``) bound
only by RoleBindings in each tenant's namespace, to the groups ``tenants.<t>.members`` names.

* ``viewer`` reads the namespace's workloads, jobs, Services, ConfigMaps, volumes claims, events, its quota, limits
  and NetworkPolicies, its Kueue LocalQueue and Workloads (and the queue's pending workloads); no Secrets.
* ``developer`` adds writes of Pods (exec, attach, port-forward, logs), Deployments, StatefulSets, ReplicaSets,
  batch Jobs and CronJobs, the job kinds of the ENABLED operators (:data:`oke_rdma.facts.tenancy.OPERATOR_JOB_KINDS`),
  Services, ConfigMaps, Secrets, PersistentVolumeClaims and HorizontalPodAutoscalers — no DaemonSets (they land on
  every node, other tenants' included), no ServiceAccounts (Workload Identity grants attach to their names: they are
  declared in ``tenants.<t>.serviceAccounts``), nothing the platform owns (:mod:`oke_rdma.facts.tenancy`).
* ``admin`` adds RoleBindings in its namespace with ``bind`` on these three roles only (``resourceNames``), and
  reading Roles; no Role writes (so it cannot mint a role of its own) and no ``escalate``.

Roles are ClusterRoles so one definition serves every tenant; a RoleBinding grants a ClusterRole only in its own
namespace (Kubernetes docs "Using RBAC Authorization", RoleBinding referring to a ClusterRole). An IAM group is the
subject ``Group`` named by its OCID (OKE docs "About Access Control and Kubernetes Engine (OKE)"); an identity
provider's group is ``Group`` ``<cluster.oidc.groupsPrefix><group>`` (Kubernetes docs "Authenticating", OpenID Connect
Tokens). Checked 2026-12-01.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from oke_rdma.facts.tenancy import BATCH_JOB_KINDS, OPERATOR_JOB_KINDS, OPERATOR_READ_KINDS

ROLES = ("viewer", "developer", "admin")
RBAC_API = "rbac.authorization.k8s.io"
READ = ["get", "list", "watch"]
WRITE = ["create", "update", "patch", "delete", "deletecollection"]


def role_name(prefix: str, role: str) -> str:
    """The ClusterRole of tenant role ``role``: ``<prefix>-tenant-<role>``."""
    return f"{prefix}-tenant-{role}"


def _rule(groups: Sequence[str], resources: Sequence[str], verbs: Sequence[str],
          names: Sequence[str] = ()) -> dict[str, Any]:
    rule: dict[str, Any] = {"apiGroups": list(groups), "resources": list(resources), "verbs": list(verbs)}
    if names:
        rule["resourceNames"] = list(names)
    return rule


def role_rules(prefix: str, enabled: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
    """Role → its RBAC ``rules`` (each role's rules include the lesser roles'), for the add-ons ``enabled``
    (``platform.<key>`` keys: only their job kinds are granted)."""
    enabled = set(enabled)
    jobs = list(BATCH_JOB_KINDS) + [k for key, kinds in OPERATOR_JOB_KINDS.items() if key in enabled for k in kinds]
    extra_reads = [k for key, kinds in OPERATOR_READ_KINDS.items() if key in enabled for k in kinds]
    viewer = [
        _rule([""], ["pods", "pods/log", "pods/status", "services", "endpoints", "configmaps",
                     "persistentvolumeclaims", "events", "serviceaccounts", "resourcequotas", "limitranges",
                     "replicationcontrollers"], READ),
        _rule(["events.k8s.io"], ["events"], READ),
        _rule(["apps"], ["deployments", "statefulsets", "replicasets", "daemonsets"], READ),
        _rule(["autoscaling"], ["horizontalpodautoscalers"], READ),
        _rule(["policy"], ["poddisruptionbudgets"], READ),
        _rule(["networking.k8s.io"], ["networkpolicies"], READ),
        *[_rule([g], list(rs), READ) for g, rs in jobs + extra_reads],
    ]
    developer = viewer + [
        _rule([""], ["pods", "services", "configmaps", "secrets", "persistentvolumeclaims"], WRITE),
        _rule([""], ["secrets"], READ),
        _rule([""], ["pods/exec", "pods/attach", "pods/portforward"], ["create", "get"]),
        _rule([""], ["pods/eviction"], ["create"]),
        _rule(["apps"], ["deployments", "statefulsets", "replicasets"], WRITE),
        _rule(["apps"], ["deployments/scale", "statefulsets/scale"], ["get", "update", "patch"]),
        _rule(["autoscaling"], ["horizontalpodautoscalers"], WRITE),
        *[_rule([g], list(rs), WRITE) for g, rs in jobs],
    ]
    admin = developer + [
        _rule([RBAC_API], ["rolebindings"], READ + WRITE),
        _rule([RBAC_API], ["roles"], READ),
        _rule([RBAC_API], ["clusterroles"], ["bind"], [role_name(prefix, r) for r in ROLES]),
        _rule(["authorization.k8s.io"], ["localsubjectaccessreviews"], ["create"]),
    ]
    return {"viewer": viewer, "developer": developer, "admin": admin}


def _cell(verbs: set[str], names: set[str]) -> str:
    parts, rest = [], set(verbs)
    for word, group in (("read", set(READ)), ("write", set(WRITE))):
        if group <= rest:
            parts.append(word)
            rest -= group
    parts += sorted(rest)
    text = ", ".join(parts) if parts else "—"
    return text + (" (only the three tenant roles)" if names else "")


def role_table() -> str:
    """The generated table of docs/tenants.md: each resource any tenant role touches, with what each role may do
    (every operator enabled; a disabled operator's job kinds are not granted), then every kind the platform owns —
    which no role writes — from :data:`oke_rdma.facts.tenancy.PLATFORM_OWNED`."""
    from oke_rdma.facts.tenancy import OPERATOR_JOB_KINDS, PLATFORM_OWNED
    roles = role_rules("<prefix>", [*OPERATOR_JOB_KINDS, *OPERATOR_READ_KINDS])
    rows: dict[tuple[str, str], dict[str, tuple[set[str], set[str]]]] = {}
    for role, rules in roles.items():
        for r in rules:
            for g in r["apiGroups"]:
                for res in r["resources"]:
                    verbs, names = rows.setdefault((g, res), {}).setdefault(role, (set(), set()))
                    verbs.update(r["verbs"])
                    names.update(r.get("resourceNames", []))
    job_groups = {g for table in (OPERATOR_JOB_KINDS, OPERATOR_READ_KINDS) for kinds in table.values()
                  for g, _ in kinds}
    lines = ["| resource (API group) | viewer | developer | admin |", "|---|---|---|---|"]
    for (g, res), by_role in sorted(rows.items(), key=lambda kv: (kv[0][0] != "", kv[0][0], kv[0][1])):
        note = " ¹" if g in job_groups else ""
        cells = [_cell(*by_role.get(role, (set(), set()))) for role in ROLES]
        lines.append(f"| `{res}` ({g or 'core'}){note} | " + " | ".join(cells) + " |")
    lines += ["", "¹ granted only when the operator serving it is enabled (`platform.<key>.enabled`).", "",
              "No role writes any kind the platform owns (`oke_rdma/facts/tenancy.py`; the security pack and the "
              "admission guard refuse RBAC that would):", "", "| kind | API group | a write would move |",
              "|---|---|---|"]
    for g, res, kind, _ns, why in PLATFORM_OWNED:
        lines.append(f"| {kind} | {g or 'core'} | {why} |")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class TenantBinding:
    """The groups of one tenant with one role: ``subjects`` are RBAC Group names (IAM group OCIDs, or
    ``<groupsPrefix><group>``)."""

    tenant: str
    namespace: str
    role: str
    subjects: tuple[str, ...]


def manifests(prefix: str, enabled: Iterable[str], bindings: Iterable[TenantBinding]) -> list[dict[str, Any]]:
    """The ClusterRoles in use and every RoleBinding as Kubernetes manifests (dicts): the roles members hold, all
    three when one holds ``admin`` (it may bind each of them); none without members."""
    bindings = list(bindings)
    labels = {"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": prefix}
    used = {b.role for b in bindings}
    needed = set(ROLES) if "admin" in used else used
    out: list[dict[str, Any]] = [
        {"apiVersion": f"{RBAC_API}/v1", "kind": "ClusterRole",
         "metadata": {"name": role_name(prefix, role), "labels": labels}, "rules": rules}
        for role, rules in role_rules(prefix, enabled).items() if role in needed]
    for b in bindings:
        out.append({"apiVersion": f"{RBAC_API}/v1", "kind": "RoleBinding",
                    "metadata": {"name": f"{prefix}-tenant-{b.role}", "namespace": b.namespace, "labels": labels},
                    "roleRef": {"apiGroup": RBAC_API, "kind": "ClusterRole", "name": role_name(prefix, b.role)},
                    "subjects": [{"kind": "Group", "apiGroup": RBAC_API, "name": s} for s in b.subjects]})
    return out


class TenantAccessArgs:
    """Inputs of :class:`TenantAccess`.

    :param name_prefix: the stack's name prefix.
    :param provider: the explicit Kubernetes provider of the OKE cluster.
    :param enabled_addons: the enabled ``platform.<key>`` add-ons (their job kinds are granted).
    :param bindings: one :class:`TenantBinding` per tenant and role that has members.
    :param namespaces: namespace name → its Namespace resource (the RoleBindings wait for theirs).
    :param enforcement: what must hold before a tenant's people can create anything (the admission guard, the
        walls, the tenant defaults): every RoleBinding waits for these (a component: all its children), so no
        tenant pod is admitted in the window before the rules that judge it exist. Default none.
    :raises ValueError: a binding with a role other than viewer/developer/admin, with no subject, or in a namespace
        ``namespaces`` does not hold (one line naming the argument).
    """

    def __init__(self, *, name_prefix: str, provider: pulumi.ProviderResource, enabled_addons: Iterable[str],
                 bindings: Iterable[TenantBinding], namespaces: Mapping[str, pulumi.Resource],
                 enforcement: Iterable[pulumi.Resource] = ()):
        bindings = tuple(bindings)
        for i, b in enumerate(bindings):
            if b.role not in ROLES:
                raise ValueError(f"TenantAccessArgs.bindings[{i}].role: expected one of {', '.join(ROLES)}, got "
                                 f"{b.role!r}")
            if not b.subjects:
                raise ValueError(f"TenantAccessArgs.bindings[{i}].subjects: empty; name at least one group")
            if b.namespace not in namespaces:
                raise ValueError(f"TenantAccessArgs.namespaces[{b.namespace!r}] missing; pass the platform's "
                                 "namespaces (the RoleBindings wait for theirs)")
        self.name_prefix = name_prefix
        self.provider = provider
        self.enabled_addons = tuple(enabled_addons)
        self.bindings = tuple(bindings)
        self.namespaces = dict(namespaces)
        self.enforcement = list(enforcement)


class TenantAccess(pulumi.ComponentResource):
    """The tenant roles and their RoleBindings (type ``oke-rdma:tenant-access:TenantAccess``); see the module
    docstring. Attributes: ``roles`` (role → ClusterRole), ``bindings`` (``<tenant>/<role>`` → RoleBinding).
    Raises nothing: the members come from checked config."""

    def __init__(self, name: str, args: TenantAccessArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:tenant-access:TenantAccess", name, None, opts)
        prefix = args.name_prefix
        self.roles: dict[str, k8s.rbac.v1.ClusterRole] = {}
        self.bindings: dict[str, k8s.rbac.v1.RoleBinding] = {}
        for m in manifests(prefix, args.enabled_addons, args.bindings):
            if m["kind"] == "ClusterRole":
                role = m["metadata"]["name"].rsplit("-", 1)[1]
                self.roles[role] = k8s.rbac.v1.ClusterRole(
                    m["metadata"]["name"], metadata=m["metadata"], rules=m["rules"],
                    opts=pulumi.ResourceOptions(parent=self, provider=args.provider))
                continue
            ns = m["metadata"]["namespace"]
            role = m["metadata"]["name"].rsplit("-", 1)[1]
            tenant = next(b.tenant for b in args.bindings if b.namespace == ns and b.role == role)
            deps = [self.roles[role], args.namespaces[ns], *args.enforcement]
            self.bindings[f"{tenant}/{role}"] = k8s.rbac.v1.RoleBinding(
                f"{prefix}-{tenant}-tenant-{role}", metadata=m["metadata"], role_ref=m["roleRef"],
                subjects=m["subjects"], opts=pulumi.ResourceOptions(parent=self, provider=args.provider,
                                                                    depends_on=deps))
        self.register_outputs({"roles": sorted(self.roles), "bindings": sorted(self.bindings)})
