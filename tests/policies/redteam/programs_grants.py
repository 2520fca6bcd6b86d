"""Grants that reach further than they read: a namespaced binding in a node-agent namespace, the default
ServiceAccount named as a User, operator resources whose controllers run what they name, a Workload Identity grant
pinned to the default ServiceAccount, and host paths the runtime executes or loads libraries from."""
from __future__ import annotations

import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import C, case, container, pod, statements

RBAC = "rbac.authorization.k8s.io"


@case("identity", "kubernetes-rbac-no-escalation")
def edit_in_a_node_agent_namespace(bad):
    # gpu-operator runs privileged, hostPID pods: creating pods there reaches every GPU node. The safe control gives
    # the tenant's own ServiceAccount edit in the tenant's namespace.
    ns = "gpu-operator" if bad else "research"
    k8s.rbac.v1.RoleBinding("rb", metadata={"name": "tenant-edit", "namespace": ns},
                            subjects=[{"kind": "ServiceAccount", "name": "trainer", "namespace": "research"}],
                            role_ref={"api_group": RBAC, "kind": "ClusterRole", "name": "edit"})


@case("identity", "kubernetes-rbac-no-escalation")
def default_service_account_as_a_user(bad):
    name = "system:serviceaccount:research:default" if bad else "alice@example.com"
    k8s.rbac.v1.RoleBinding("rb", metadata={"name": "x", "namespace": "research"},
                            subjects=[{"kind": "User", "api_group": RBAC, "name": name}],
                            role_ref={"api_group": RBAC, "kind": "ClusterRole", "name": "view"})


@case("identity", "kubernetes-rbac-no-escalation")
def gpu_operator_cluster_policy_writes_cluster_wide(bad):
    verbs = ["patch", "create"] if bad else ["get", "list", "watch"]
    k8s.rbac.v1.ClusterRole("cr", metadata={"name": "helper"},
                            rules=[{"api_groups": ["nvidia.com"], "resources": ["clusterpolicies"], "verbs": verbs}])
    k8s.rbac.v1.ClusterRoleBinding("crb", metadata={"name": "helper"},
                                   subjects=[{"kind": "ServiceAccount", "name": "trainer", "namespace": "research"}],
                                   role_ref={"api_group": RBAC, "kind": "ClusterRole", "name": "helper"})


@case("identity", "iam-workload-statement-scoped")
def workload_grant_to_the_default_service_account(bad):
    sa = "default" if bad else "trainer"
    statements("Allow any-user to read objects in compartment id " + C + " where all {request.principal.type = "
               f"'workload', request.principal.namespace = 'research', request.principal.service_account = '{sa}', "
               "request.principal.cluster_id = 'ocid1.cluster.oc1..aaaaaaaacluster'}")


@case("pod", "node-escape-only-in-node-agent-namespaces")
def host_path_cni_plugins(bad):
    path = "/opt/cni/bin" if bad else "/dev/infiniband"
    pod({"volumes": [{"name": "v", "hostPath": {"path": path}}], "containers": [container()]},
        ns="research", level="privileged")


@case("identity", "kubernetes-rbac-no-escalation")
def another_tenants_service_account_gets_admin(bad):
    # research's admin (its Secrets, pods and service accounts, hence their Workload Identity grants) for vision's
    # ServiceAccount; the control gives it to research's own.
    k8s.rbac.v1.RoleBinding("rb", metadata={"name": "x", "namespace": "research"},
                            subjects=[{"kind": "ServiceAccount", "name": "ml",
                                       "namespace": "vision" if bad else "research"}],
                            role_ref={"api_group": RBAC, "kind": "ClusterRole", "name": "admin"})
