"""Kubernetes RBAC objects that hand out cluster-admin or the means to get it are refused."""
from __future__ import annotations

import pytest

from tests.policies.test_policies import U, messages, res, run

RULE = "kubernetes-rbac-no-escalation"
RBAC = "kubernetes:rbac.authorization.k8s.io/v1:"
SA = {"kind": "ServiceAccount", "name": "trainer", "namespace": "research"}


def binding(role="view", subjects=(SA,), kind="ClusterRoleBinding", name="b"):
    return res(RBAC + kind, name, {"metadata": {"name": name}, "subjects": list(subjects),
                                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                               "name": role}})


def role(*rules, kind="ClusterRole"):
    return res(RBAC + kind, "r", {"metadata": {"name": "r", "namespace": "research"}, "rules": list(rules)})


def rule(verbs, resources, groups=("",)):
    return {"apiGroups": list(groups), "verbs": list(verbs), "resources": list(resources)}


def found(*resources):
    return messages(run(*resources, policy=RULE), RULE)


@pytest.mark.parametrize("resource", [
    binding("cluster-admin"),
    binding("view", [{"kind": "Group", "name": "system:authenticated", "apiGroup": "rbac.authorization.k8s.io"}]),
    binding("edit", [{"kind": "Group", "name": "system:serviceaccounts:research"}], kind="RoleBinding"),
    binding(U),
    role(rule(["*"], ["*"], ["*"])),
    role(rule(["escalate", "bind"], ["clusterroles"], ["rbac.authorization.k8s.io"])),
    role(rule(["impersonate"], ["users"])),
    role(rule(["get"], ["nodes/proxy"])),
    role(rule(["list"], ["secrets"])),
    role(rule([U], ["pods"])),
])
def test_escalating_rbac_is_refused(resource):
    assert len(found(resource)) == 1


@pytest.mark.parametrize("resource", [
    binding("view"), binding("edit", kind="RoleBinding"),
    role(rule(["get", "list", "watch"], ["pods", "pods/log"])),
    role(rule(["get"], ["secrets"]), kind="Role"),  # one namespace's secrets, not every namespace's
    role(rule(["create"], ["jobs"], ["batch"])),
])
def test_scoped_rbac_passes(resource):
    assert found(resource) == []
