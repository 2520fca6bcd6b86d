"""Red-team pass 3 (2026-12-02), identity: grants that create at run time what the catalogue refuses or judges as a
resource (a VTAP, a ZPR policy, a Network Firewall, a public load balancer, a connector moving data out, Cloud
Guard switched off, an instance configuration, an image push), node access through Management Agent plugins and
virtual node pools, cross-tenant reads by a group, and RBAC that binds pods to nodes or reads the kubelet's host
logs and container checkpoints. Each control is the same grant read-only, pinned, or narrowed."""
from __future__ import annotations

import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import case, statements

UNDO, NODE, RBAC = "iam-no-run-time-undo", "iam-no-node-access", "kubernetes-rbac-no-escalation"
RBAC_API = "rbac.authorization.k8s.io"


def _group(verb: str, resource: str, where: str = "") -> None:
    statements(f"Allow group research-team to {verb} {resource} in tenancy{where}")


@case("network", UNDO)
def group_manages_zpr_policies(bad):
    _group("manage" if bad else "inspect", "zpr-family")


@case("network", UNDO)
def group_manages_vtaps(bad):
    _group("manage" if bad else "inspect", "vtaps")


@case("network", UNDO)
def group_manages_network_firewalls(bad):
    _group("manage" if bad else "read", "network-firewall-family")


@case("network", UNDO)
def group_manages_load_balancers(bad):
    _group("manage" if bad else "read", "load-balancers")


@case("data", UNDO)
def group_manages_service_connectors(bad):
    _group("manage" if bad else "read", "serviceconnectors")


@case("identity", UNDO)
def group_manages_cloud_guard(bad):
    _group("manage" if bad else "read", "cloud-guard-family")


@case("identity", UNDO)
def group_manages_instance_configurations(bad):
    _group("manage" if bad else "read", "instance-configurations")


@case("supply-chain", UNDO)
def group_pushes_platform_images(bad):
    _group("manage" if bad else "read", "repos")


@case("data", UNDO)
def group_reads_every_secret_bundle(bad):
    _group("read", "secret-bundles", "" if bad else " where target.secret.name = 'research-token'")


@case("data", UNDO)
def group_reads_every_tenants_objects(bad):
    _group("read", "objects", "" if bad else " where target.bucket.name = 'research-data'")


@case("identity", NODE)
def group_manages_management_agents(bad):
    _group("manage" if bad else "read", "management-agents")


@case("identity", NODE)
def group_manages_virtual_node_pools(bad):
    _group("manage" if bad else "read", "cluster-virtualnode-pools")


@case("placement", RBAC)
def tenant_role_binds_pods_to_nodes(bad):
    k8s.rbac.v1.Role("r", metadata={"name": "dev", "namespace": "research"}, rules=[
        {"api_groups": [""], "resources": ["pods/binding", "bindings"] if bad else ["pods/log"],
         "verbs": ["create"] if bad else ["get"]}])


@case("identity", RBAC)
def node_logs_and_checkpoints_cluster_wide(bad):
    k8s.rbac.v1.ClusterRole("cr", metadata={"name": "collector"}, rules=[
        {"api_groups": [""], "resources": ["nodes/log", "nodes/checkpoint"] if bad else ["nodes/metrics",
                                                                                         "nodes/stats"],
         "verbs": ["get", "create"] if bad else ["get"]}])
    k8s.rbac.v1.ClusterRoleBinding("crb", metadata={"name": "collector"}, subjects=[
        {"kind": "ServiceAccount", "name": "collector", "namespace": "monitoring"}],
        role_ref={"api_group": RBAC_API, "kind": "ClusterRole", "name": "collector"})


@case("network", UNDO)
def group_manages_zpr_policies_by_an_undocumented_name(bad):
    # zpr-policies is no documented type (ZPR's is zpr-policy): the pack cannot judge it, so it fails closed
    _group("manage" if bad else "read", "zpr-policies")


@case("identity", UNDO)
def group_manages_virtual_node_pools_by_an_undocumented_name(bad):
    _group("manage" if bad else "read", "virtual-node-pools")
