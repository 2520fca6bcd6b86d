"""kubernetes-rbac-no-escalation across namespaces: a RoleBinding that hands a subject of another namespace what only
a namespace's own workloads may hold there (Secret reads, workload creation, exec/attach/port-forward/proxy, token
requests, service-account impersonation, ConfigMap writes) is refused, whatever role carries it — built-in, a Role
or a ClusterRole of the stack, an aggregated one; the same grants to the namespace's own accounts, to people, or
harmless grants across namespaces pass; the platform's per-tenant MPI controllers pass by a listed reason."""
from __future__ import annotations

import pytest

from tests.policies.test_policies import U
from tests.policies.test_rbac import RBAC, found, res, role, rule

HOME = "research"
OTHER_SA = {"kind": "ServiceAccount", "name": "ml", "namespace": "vision"}
OWN_SA = {"kind": "ServiceAccount", "name": "ml", "namespace": HOME}


def role_binding(role_name, subjects, ref_kind="Role", name="rb", namespace=HOME):
    return res(RBAC + "RoleBinding", name, {
        "metadata": {"name": name, "namespace": namespace}, "subjects": list(subjects),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": ref_kind, "name": role_name}})


def stack_role(*rules, name="helper"):
    return role(*rules, kind="Role", name=name)


GRANTS = {
    "secret reads": rule(["get", "list"], ["secrets"]),
    "pod creation": rule(["create"], ["pods"]),
    "deployment writes": rule(["patch"], ["deployments"], ["apps"]),
    "an operator custom resource": rule(["create"], ["rayjobs"], ["ray.io"]),
    "a training job through a group wildcard": rule(["create"], ["*"], ["kubeflow.org"]),
    "exec": rule(["create"], ["pods/exec"]),
    "attach": rule(["get"], ["pods/attach"]),
    "port-forward": rule(["create"], ["pods/portforward"]),
    "the pod proxy": rule(["get"], ["pods/proxy"]),
    "the service proxy": rule(["create"], ["services/proxy"]),
    "ephemeral containers": rule(["patch"], ["pods/ephemeralcontainers"]),
    "token requests": rule(["create"], ["serviceaccounts/token"]),
    "service-account impersonation": rule(["impersonate"], ["serviceaccounts"]),
    "config map writes": rule(["update"], ["configmaps"]),
    "secret creation (a token Secret of the namespace's accounts)": rule(["create"], ["secrets"]),
    "secret patches": rule(["patch"], ["secrets"]),
    "every verb on pods and secrets": rule(["*"], ["pods", "secrets"]),
}
OUTSIDE = {
    "a ServiceAccount of another namespace": OTHER_SA,
    "another namespace's account as a User": {"kind": "User", "apiGroup": "rbac.authorization.k8s.io",
                                               "name": "system:serviceaccount:vision:ml"},
    "an account whose namespace is unknown": {"kind": "ServiceAccount", "name": "ml", "namespace": U},
}


@pytest.mark.parametrize("grant", sorted(GRANTS))
def test_a_stack_role_granting_a_tenant_power_to_another_namespaces_account_is_refused(grant):
    got = found(stack_role(GRANTS[grant]), role_binding("helper", [OTHER_SA]))
    assert len(got) == 1 and "not of namespace 'research'" in got[0] and "vision/ml" in got[0], got
    assert found(stack_role(GRANTS[grant]), role_binding("helper", [OWN_SA])) == []


@pytest.mark.parametrize("subject", sorted(OUTSIDE))
def test_every_form_of_an_outside_account_is_refused(subject):
    got = found(stack_role(GRANTS["secret reads"]), role_binding("helper", [OUTSIDE[subject]]))
    assert len(got) == 1 and "not of namespace 'research'" in got[0], got


@pytest.mark.parametrize("group", ["system:serviceaccounts:vision", "system:serviceaccounts", "system:authenticated"])
def test_groups_of_other_namespaces_accounts_are_refused(group):
    subject = {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": group}
    got = found(stack_role(GRANTS["pod creation"]), role_binding("helper", [subject]))
    assert len(got) == 1 and "not of namespace 'research'" in got[0], got


def test_a_cluster_role_bound_in_the_namespace_is_judged_the_same():
    cluster_role = role(rule(["list"], ["secrets"]), name="secret-reader")
    got = found(cluster_role, role_binding("secret-reader", [OTHER_SA], ref_kind="ClusterRole"))
    assert len(got) == 1 and "role 'secret-reader'" in got[0] and "Secret reads" in got[0], got
    assert found(cluster_role, role_binding("secret-reader", [OWN_SA], ref_kind="ClusterRole")) == []


def test_what_an_aggregated_cluster_role_collects_counts():
    piece = role(rule(["create"], ["pods/exec"]), name="piece", labels={"example.com/bundle": "true"})
    bundle = res(RBAC + "ClusterRole", "bundle", {"metadata": {"name": "bundle"}, "aggregationRule": {
        "clusterRoleSelectors": [{"matchLabels": {"example.com/bundle": "true"}}]}})
    got = found(piece, bundle, role_binding("bundle", [OTHER_SA], ref_kind="ClusterRole"))
    assert any("exec/attach" in m and "role 'bundle'" in m for m in got), got


@pytest.mark.parametrize("built_in", ["admin", "edit"])
def test_a_namespaces_built_in_admin_or_edit_for_another_namespaces_account_is_refused(built_in):
    got = found(role_binding(built_in, [OTHER_SA], ref_kind="ClusterRole"))
    assert len(got) == 1 and f"'{built_in} (built-in)'" in got[0], got
    assert found(role_binding(built_in, [OWN_SA], ref_kind="ClusterRole")) == []


def test_harmless_grants_across_namespaces_pass():
    """Reading a tenant's pods, config maps and services (what view holds) or writing its Kueue objects is not a
    tenant power: monitoring and schedulers read other namespaces."""
    reader = stack_role(rule(["get", "list", "watch"], ["pods", "configmaps", "services", "endpoints"]),
                        rule(["create"], ["localqueues"], ["kueue.x-k8s.io"]))
    assert found(reader, role_binding("helper", [OTHER_SA])) == []
    assert found(role_binding("view", [OTHER_SA], ref_kind="ClusterRole")) == []


def test_people_and_the_namespaces_own_accounts_pass():
    people = [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice@example.com"},
              {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "research-team"},
              {"kind": "ServiceAccount", "name": "ml"},  # no namespace: the binding's own
              {"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "system:serviceaccount:research:ml"}]
    assert found(stack_role(GRANTS["secret reads"]), role_binding("helper", people)) == []


MPI_RULES = [rule(["create", "list", "watch", "update"], ["configmaps", "secrets", "services"]),
             rule(["create", "get", "list", "watch", "delete", "update", "patch"], ["pods"]),
             rule(["create"], ["pods/exec"]), rule(["create", "list", "update", "watch"], ["jobs"], ["batch"]),
             rule(["*"], ["mpijobs", "mpijobs/finalizers", "mpijobs/status"], ["kubeflow.org"])]


def test_the_per_tenant_mpi_controller_passes_only_for_its_own_tenant_and_its_own_grants():
    controller = {"kind": "ServiceAccount", "name": "mpi-operator-research", "namespace": "mpi-operator"}
    mpi = stack_role(*MPI_RULES, name="mpi-operator")
    assert found(mpi, role_binding("mpi-operator", [controller])) == []
    # another tenant's controller, or the grants under another role name, or one more grant: refused
    vision = {**controller, "name": "mpi-operator-vision"}
    assert found(mpi, role_binding("mpi-operator", [vision]))
    assert found(stack_role(*MPI_RULES), role_binding("helper", [controller]))
    more = stack_role(*MPI_RULES, rule(["create"], ["serviceaccounts/token"]), name="mpi-operator")
    got = found(more, role_binding("mpi-operator", [controller]))
    assert len(got) == 1 and "serviceaccounts/token" in got[0] and "list secrets" not in got[0], got


def test_allowed_cross_namespace_grants_accept_a_listed_grant_and_subject():
    entry = {"role": "backup", "grants": ["get secrets", "list secrets"], "subjects": ["ServiceAccount:velero/*"],
             "reason": "backups read every tenant's Secrets"}
    backup = stack_role(rule(["get", "list"], ["secrets"]), name="backup")
    velero = {"kind": "ServiceAccount", "name": "velero", "namespace": "velero"}
    assert found(backup, role_binding("backup", [velero]), config={"allowedCrossNamespaceGrants": [entry]}) == []
    assert found(backup, role_binding("backup", [OTHER_SA]), config={"allowedCrossNamespaceGrants": [entry]})
    assert found(backup, role_binding("backup", [velero]), config={"allowedCrossNamespaceGrants": []})


def test_a_rendered_role_binding_across_namespaces_is_refused_on_its_release():
    bad = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
           "metadata": {"name": "x", "namespace": HOME}, "subjects": [OTHER_SA],
           "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"}}
    release = res("kubernetes:helm.sh/v3:Release", "rel", {
        "chart": "keda", "version": "2.20.2", "namespace": "keda",
        "repositoryOpts": {"repo": "https://kedacore.github.io/charts"}, "values": {"extraObjects": [bad]}})
    got = found(release)
    assert any("not of namespace 'research'" in m for m in got), got
