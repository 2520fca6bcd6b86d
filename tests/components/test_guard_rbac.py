"""The admission guard's RBAC policies: their CEL (cel-python, see tests/components/test_guard.py for what it does and
does not emulate) refuses Roles, RoleBindings and ClusterRoleBindings that give tenant subjects what the platform owns,
and admits the platform's own tenant roles and bindings; the objects validate against the Kubernetes schema."""

from __future__ import annotations

import pytest

from oke_rdma.guard import policies
from oke_rdma.tenant_access import TenantBinding, manifests
from tests.components.test_guard import failures
from tests.k8s_schemas import validate_all  # noqa: E402

PREFIX = "okerdma-dev"
ROLES = [f"{PREFIX}-tenant-{r}" for r in ("viewer", "developer", "admin")]
OBJECTS = policies(PREFIX, {"research": ["gpu"]}, {"research": "research"}, ["monitoring"],
                   tenant_groups=["oidc:research-devs", "ocid1.group.oc1..aaaaaaaaexample"], tenant_roles=ROLES)


def policy(suffix: str) -> dict:
    return next(o for o in OBJECTS if o["kind"] == "ValidatingAdmissionPolicy"
                and o["metadata"]["name"] == f"{PREFIX}-{suffix}")


def role(*rules) -> dict:
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "r", "namespace": "research"}, "rules": list(rules)}


def rule(verbs, resources, groups=("",)) -> dict:
    return {"apiGroups": list(groups), "resources": list(resources), "verbs": list(verbs)}


REFUSED_ROLES = {
    "its ResourceQuota": rule(["update"], ["resourcequotas"]),
    "its ResourceQuota's status": rule(["patch"], ["resourcequotas/status"]),
    "its LimitRange": rule(["delete"], ["limitranges"]),
    "its LocalQueue": rule(["patch"], ["localqueues"], ["kueue.x-k8s.io"]),
    "ClusterQueues": rule(["create"], ["clusterqueues"], ["kueue.x-k8s.io"]),
    "ResourceFlavors": rule(["create"], ["resourceflavors"], ["kueue.x-k8s.io"]),
    "Cohorts": rule(["update"], ["cohorts"], ["kueue.x-k8s.io"]),
    "workload status": rule(["update"], ["workloads/status"], ["kueue.x-k8s.io"]),
    "the namespace's labels": rule(["patch"], ["namespaces"]),
    "PriorityClasses": rule(["create"], ["priorityclasses"], ["scheduling.k8s.io"]),
    "NetworkPolicies": rule(["delete"], ["networkpolicies"], ["networking.k8s.io"]),
    "any Cilium kind": rule(["create"], ["ciliumnetworkpolicies"], ["cilium.io"]),
    "ValidatingAdmissionPolicyBindings": rule(["delete"], ["validatingadmissionpolicybindings"],
                                              ["admissionregistration.k8s.io"]),
    "RoleBindings": rule(["create"], ["rolebindings"], ["rbac.authorization.k8s.io"]),
    "every core resource": rule(["*"], ["*"]),
    "every group's resourcequotas": rule(["create"], ["resourcequotas"], ["*"]),
    "every subresource status": rule(["patch"], ["*/status"], ["kueue.x-k8s.io"]),
    "escalate": rule(["escalate"], ["roles"], ["rbac.authorization.k8s.io"]),
    "bind": rule(["bind"], ["clusterroles"], ["rbac.authorization.k8s.io"]),
    "impersonate": rule(["impersonate"], ["users"]),
    "every verb on groups": rule(["*"], ["groups"]),
}


@pytest.mark.parametrize("name", sorted(REFUSED_ROLES))
def test_a_role_in_a_tenant_namespace_writing_a_platform_kind_is_refused(name):
    assert failures(policy("tenant-roles"), role(REFUSED_ROLES[name])) != []


@pytest.mark.parametrize("granted", [rule(["create", "delete", "patch"], ["pods", "configmaps", "secrets"]),
                                     rule(["get", "list", "watch"], ["resourcequotas", "namespaces"]),
                                     rule(["create"], ["rayjobs"], ["ray.io"]),
                                     rule(["get"], ["clusterqueues"], ["kueue.x-k8s.io"]),
                                     rule(["create"], ["pods"], ["*"])])
def test_a_role_without_platform_writes_is_admitted(granted):
    assert failures(policy("tenant-roles"), role(granted)) == []


def test_a_role_without_rules_is_admitted():
    assert failures(policy("tenant-roles"), {"kind": "Role", "metadata": {"name": "r"}}) == []


def binding(kind, name, ref_kind="ClusterRole", subjects=None):
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind,
            "metadata": {"name": "b", **({"namespace": "research"} if kind == "RoleBinding" else {})},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": ref_kind, "name": name},
            "subjects": subjects or [{"kind": "Group", "name": "oidc:research-devs"}]}


@pytest.mark.parametrize("ref", ["edit", "admin", "cluster-admin", "some-chart-role"])
def test_a_tenant_rolebinding_to_another_cluster_role_is_refused(ref):
    assert failures(policy("tenant-rolebindings"), binding("RoleBinding", ref)) != []


@pytest.mark.parametrize("subject", [{"kind": "Group", "name": "system:authenticated"},
                                     {"kind": "Group", "name": "system:serviceaccounts"},
                                     {"kind": "User", "name": "system:anonymous"}])
def test_a_tenant_rolebinding_naming_everyone_is_refused(subject):
    assert failures(policy("tenant-rolebindings"), binding("RoleBinding", ROLES[0], subjects=[subject])) != []


@pytest.mark.parametrize("ref, ref_kind", [(ROLES[0], "ClusterRole"), (ROLES[2], "ClusterRole"),
                                           ("view", "ClusterRole"), ("mpi-operator", "Role")])
def test_a_tenant_rolebinding_to_a_tenant_role_or_a_namespace_role_is_admitted(ref, ref_kind):
    assert failures(policy("tenant-rolebindings"), binding("RoleBinding", ref, ref_kind)) == []


@pytest.mark.parametrize("subject", [{"kind": "Group", "name": "oidc:research-devs"},
                                     {"kind": "Group", "name": "ocid1.group.oc1..aaaaaaaaexample"},
                                     {"kind": "ServiceAccount", "name": "trainer", "namespace": "research"},
                                     {"kind": "Group", "name": "system:serviceaccounts:research"}])
def test_a_cluster_role_binding_naming_a_tenant_subject_is_refused(subject):
    assert failures(policy("tenant-clusterrolebindings"), binding("ClusterRoleBinding", "view",
                                                                  subjects=[subject])) != []


def test_a_cluster_role_binding_of_a_platform_controller_is_admitted():
    sa = {"kind": "ServiceAccount", "name": "kueue-controller-manager", "namespace": "kueue-system"}
    assert failures(policy("tenant-clusterrolebindings"), binding("ClusterRoleBinding", "kueue", subjects=[sa])) == []


def test_the_platforms_tenant_roles_and_bindings_are_admitted():
    objs = manifests(PREFIX, ["kueue", "kuberay"], [TenantBinding("research", "research", "admin", ("oidc:g",))])
    for obj in objs:
        if obj["kind"] == "RoleBinding":
            assert failures(policy("tenant-rolebindings"), obj) == []


def test_the_tenant_policies_select_tenant_namespaces_and_cluster_role_bindings_everywhere():
    by_name = {o["metadata"]["name"]: o for o in OBJECTS if o["kind"] == "ValidatingAdmissionPolicyBinding"}
    selector = by_name[f"{PREFIX}-tenant-roles"]["spec"]["matchResources"]["namespaceSelector"]
    assert selector == {"matchExpressions": [{"key": "okerdma.io/tenant", "operator": "Exists"}]}
    assert "matchResources" not in by_name[f"{PREFIX}-tenant-clusterrolebindings"]["spec"]


@pytest.mark.parametrize("obj", [o for o in OBJECTS if o["metadata"]["name"].startswith(f"{PREFIX}-tenant-")
                                 and "pools" not in o["metadata"]["name"]], ids=lambda o: o["metadata"]["name"])
def test_objects_validate_against_the_kubernetes_schema(obj):
    validate_all(obj)


def test_the_mpi_operators_roles_in_tenant_namespaces_are_admitted():
    """The platform's own Roles and RoleBindings in tenant namespaces (the MPI Operator's per-tenant controller) pass
    the guard, so the guard never blocks the platform."""
    from oke_rdma.addons import REGISTRY
    from oke_rdma.addons.mpi_operator import objects
    from tests.stackcfg import load_dev_config
    cfg = load_dev_config(platform={"mpiOperator": {"enabled": True}})
    context = REGISTRY.context(cfg.platform, ["research", "analytics"])
    objs = [o for o in objects(cfg.platform.mpi_operator, context)
            if o["kind"] in ("Role", "RoleBinding") and o["metadata"].get("namespace") in ("research", "analytics")]
    assert {o["kind"] for o in objs} == {"Role", "RoleBinding"}
    for o in objs:
        assert failures(policy("tenant-roles" if o["kind"] == "Role" else "tenant-rolebindings"), o) == []
