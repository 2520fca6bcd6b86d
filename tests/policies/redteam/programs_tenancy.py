"""Red-team programs: RBAC that lets a tenant's people move the platform's limits and walls — a hand-written Role
giving the tenant's group writes on its own ResourceQuota, a ClusterRole on ClusterQueues bound in the tenant's
namespace, the built-in ``edit`` for a tenant group. Registered in ``programs.CASES`` on import, like every
``programs_<area>.py``; the safe control grants the same subject reads only."""
from __future__ import annotations

import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import case

RBAC_API = "rbac.authorization.k8s.io"
POLICY = "kubernetes-tenant-no-platform-writes"
GROUP = {"kind": "Group", "api_group": RBAC_API, "name": "oidc:research-devs"}


def tenant_namespace() -> None:
    k8s.core.v1.Namespace("ns-research", metadata={"name": "research", "labels": {
        "okerdma.io/tenant": "research", "pod-security.kubernetes.io/enforce": "restricted"}})


def bind(kind: str, name: str) -> None:
    k8s.rbac.v1.RoleBinding("rb-team", metadata={"name": "team", "namespace": "research"}, subjects=[GROUP],
                            role_ref={"api_group": RBAC_API, "kind": kind, "name": name})


@case("identity", POLICY)
def tenant_group_writes_its_own_resource_quota(bad):
    tenant_namespace()
    k8s.rbac.v1.Role("quota", metadata={"name": "quota", "namespace": "research"}, rules=[
        {"api_groups": [""], "resources": ["resourcequotas"],
         "verbs": ["get", "list", "update", "patch"] if bad else ["get", "list"]}])
    bind("Role", "quota")


@case("identity", POLICY)
def tenant_group_patches_cluster_queues(bad):
    tenant_namespace()
    k8s.rbac.v1.ClusterRole("queues", metadata={"name": "queues"}, rules=[
        {"api_groups": ["kueue.x-k8s.io"], "resources": ["clusterqueues", "localqueues"],
         "verbs": ["get", "list", "patch"] if bad else ["get", "list"]}])
    bind("ClusterRole", "queues")


@case("identity", POLICY)
def tenant_group_bound_to_built_in_edit(bad):
    tenant_namespace()
    bind("ClusterRole", "edit" if bad else "view")
