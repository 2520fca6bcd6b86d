"""kubernetes-rbac-no-escalation: RBAC objects that escalate on their own — at any scope, through the built-in roles
they bind, feed or aggregate, or through subjects that are everyone — are refused; scoped RBAC passes."""
from __future__ import annotations

import pytest

from tests.policies.test_policies import U, messages, res, run

RULE = "kubernetes-rbac-no-escalation"
RBAC = "kubernetes:rbac.authorization.k8s.io/v1:"
SA = {"kind": "ServiceAccount", "name": "trainer", "namespace": "research"}
AGG = "rbac.authorization.k8s.io/aggregate-to-"


def binding(role="view", subjects=(SA,), kind="ClusterRoleBinding", name="b", ref_kind="ClusterRole", **extra):
    meta = {"name": name, **({"namespace": "research"} if kind.startswith("RoleBinding") else {})}
    props = {"metadata": meta, "subjects": subjects if isinstance(subjects, str) else list(subjects),
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": ref_kind, "name": role}, **extra}
    return res(RBAC + kind, name, props)


def role(*rules, kind="ClusterRole", labels=None, name="r", **extra):
    meta = {"name": name, **({"namespace": "research"} if kind.startswith("Role") else {}),
            **({"labels": labels} if labels is not None else {})}
    return res(RBAC + kind, name, {"metadata": meta, "rules": list(rules), **extra})


def rule(verbs, resources, groups=("",)):
    return {"apiGroups": list(groups), "verbs": list(verbs), "resources": list(resources)}


def aggregated(*selectors):
    return res(RBAC + "ClusterRole", "agg", {"metadata": {"name": "agg"}, "rules": [],
                                             "aggregationRule": {"clusterRoleSelectors": list(selectors)}})


def found(*resources, config=None):
    if config is None:
        return messages(run(*resources, policy=RULE), RULE)
    from offline.policy_eval import evaluate_packs
    from policies import PACK_DIRS
    cfg = {"all": "disabled", RULE: {"enforcementLevel": "mandatory", **config}}
    return messages(evaluate_packs(PACK_DIRS, list(resources), [cfg] * len(PACK_DIRS)), RULE)


REFUSED = {
    # bindings to built-in roles that escalate at the binding's scope
    "cluster-admin cluster-wide": (binding("cluster-admin"), "cluster-admin"),
    "cluster-admin in a namespace": (binding("cluster-admin", kind="RoleBinding"), "namespace writes"),
    "admin cluster-wide": (binding("admin"), "Secret reads in every namespace"),
    "edit cluster-wide": (binding("edit"), "workload creation"),
    "system:node": (binding("system:node"), "Secret reads"),
    "kubelet api admin": (binding("system:kubelet-api-admin"), "nodes/proxy"),
    "client certificate approver": (binding("system:certificates.k8s.io:kube-apiserver-client-approver"),
                                    "approve signers"),
    "a controller's role": (binding("system:controller:replicaset-controller"), "controller's own role"),
    "an unknown system role": (binding("system:made-up"), "does not know"),
    "aggregate-to-admin piece cluster-wide": (binding("system:aggregate-to-admin"), "impersonate service accounts"),
    "token requests in kube-system": (res(RBAC + "Role", "r", {"metadata": {"name": "r", "namespace": "kube-system"},
                                                              "rules": [rule(["create"], ["*/token"])]}), "token"),
    # subjects that are everyone
    "system:authenticated": (binding("view", [{"kind": "Group", "name": "system:authenticated"}]), "every caller"),
    "system:unauthenticated": (binding("view", [{"kind": "Group", "name": "system:unauthenticated"}]), "every"),
    "all service accounts of a namespace": (binding("view", [{"kind": "Group", "name": "system:serviceaccounts:x"}],
                                                    kind="RoleBinding"), "every"),
    "every node": (binding("view", [{"kind": "Group", "name": "system:nodes"}]), "every"),
    "the anonymous user": (binding("view", [{"kind": "User", "name": "system:anonymous"}]), "every"),
    "the default service account": (binding("view", [{"kind": "ServiceAccount", "name": "default",
                                                       "namespace": "research"}]), "names no service account"),
    "edit for a service account in kube-system": (res(RBAC + "RoleBinding", "b", {
        "metadata": {"name": "b", "namespace": "kube-system"}, "subjects": [SA],
        "roleRef": {"kind": "ClusterRole", "name": "edit"}}), "Secret reads"),
    "secret creation in kube-system (a token Secret of any controller's account)": (res(RBAC + "Role", "r", {
        "metadata": {"name": "r", "namespace": "kube-system"}, "rules": [rule(["create"], ["secrets"])]}),
        "Secret writes"),
    "pod creation in kube-system": (res(RBAC + "Role", "r", {"metadata": {"name": "r", "namespace": "kube-system"},
                                                            "rules": [rule(["create"], ["pods"])]}), "system namespace"),
    # what cannot be interpreted
    "a subject kind that does not exist": (binding("view", [{"kind": "Robot", "name": "r2"}]), "not a User"),
    "unknown subjects": (binding("view", U), "subjects are unknown"),
    "a roleRef kind that does not exist": (binding("view", ref_kind="Policy"), "roleRef.kind"),
    "unknown rules": (role(kind="Role", rules=U), "unknown during preview"),
    "verbs as a string": (role({"apiGroups": [""], "resources": ["pods"], "verbs": "get"}), "not a list"),
    "an unknown verb": (role(rule([U], ["pods"])), "unknown during preview"),
    "a glob RBAC does not match": (role(rule(["get"], ["pods/*"])), "'*/<subresource>' only"),
    "a group that is not a string": (role({"apiGroups": [7], "resources": ["pods"], "verbs": ["get"]}),
                                     "not strings"),
    "resources and nonResourceURLs in one rule": (role({**rule(["get"], ["pods"]), "nonResourceURLs": ["/x"]}),
                                                  "mixes"),
    # grants that escalate even in one namespace
    "escalate and bind": (role(rule(["escalate", "bind"], ["roles"], ["rbac.authorization.k8s.io"]), kind="Role"),
                          "escalate"),
    "every verb on roles": (role(rule(["*"], ["clusterroles"], ["rbac.authorization.k8s.io"])), "escalate"),
    "bind on any resource": (role(rule(["bind"], ["clusterrolebindings"], ["rbac.authorization.k8s.io"])), "bind"),
    "impersonate users": (role(rule(["impersonate"], ["users"])), "impersonate users"),
    "namespace patch through a Role": (role(rule(["patch"], ["namespaces"]), kind="Role"), "namespace writes"),
    "pod binding through a Role": (role(rule(["create"], ["pods/binding"]), kind="Role"), "pod binding"),
    "the legacy bindings resource through a Role": (role(rule(["create"], ["bindings"]), kind="Role"),
                                                    "pod binding"),
    "the scheduler's role in a namespace": (binding("system:kube-scheduler", kind="RoleBinding"), "pod binding"),
    "every verb on everything in a Role": (role(rule(["*"], ["*"], ["*"]), kind="Role"), "escalate"),
    # roles that feed the built-in user-facing roles
    "view fed with secrets": (role(rule(["get"], ["secrets"]), labels={AGG + "view": "true"}), "feeds"),
    "view fed with writes": (role(rule(["create"], ["configmaps"]), labels={AGG + "view": "true"}), "read-only"),
    "edit fed with the kubelet api": (role(rule(["get"], ["nodes/proxy"]), labels={AGG + "edit": "true"}),
                                      "nodes/proxy"),
    "admin fed with webhook control": (role(rule(["patch"], ["mutatingwebhookconfigurations"],
                                                ["admissionregistration.k8s.io"]), labels={AGG + "admin": "true"}),
                                       "admission"),
    "a patch of view": (role(rule(["list"], ["secrets"]), kind="ClusterRolePatch", name="view"), "feeds"),
    "a patch labelling a role into admin": (res(RBAC + "ClusterRolePatch", "p", {"metadata": {
        "name": "someone-elses", "labels": {AGG + "admin": "true"}}}), "cannot be judged"),
    "unknown labels": (res(RBAC + "ClusterRole", "r", {"metadata": {"name": "r", "labels": U}, "rules": []}),
                       "labels are unknown"),
    # aggregation rules that collect built-in roles that escalate
    "aggregates admin": (aggregated({"matchLabels": {AGG + "admin": "true"}}), "collects"),
    "aggregates edit": (aggregated({"matchExpressions": [{"key": AGG + "edit", "operator": "Exists"}]}), "edit"),
    "aggregates everything": (aggregated({}), "cluster-admin"),
    "aggregates by exclusion": (aggregated({"matchExpressions": [{"key": "team", "operator": "NotIn",
                                                                  "values": ["a"]}]}), "cluster-admin"),
    "an operator selectors do not have": (aggregated({"matchExpressions": [{"key": "a", "operator": "Gt"}]}),
                                          "cannot be interpreted"),
    # patch and list kinds, other API versions
    "a patch adding subjects to cluster-admin": (res(RBAC + "ClusterRoleBindingPatch", "p", {
        "metadata": {"name": "cluster-admin"}, "subjects": [SA]}), "cluster-admin"),
    "a patch of a binding whose role is not visible": (res(RBAC + "ClusterRoleBindingPatch", "p", {
        "metadata": {"name": "someone-elses"}, "subjects": [SA]}), "cannot be judged"),
    "a namespaced binding patch without its roleRef": (res(RBAC + "RoleBindingPatch", "p", {
        "metadata": {"name": "edit", "namespace": "research"}, "subjects": [SA]}), "cannot be judged"),
    "a list with an escalating item": (res(RBAC + "ClusterRoleList", "l", {"items": [
        {"metadata": {"name": "ok"}, "rules": [rule(["get"], ["pods"])]},
        {"metadata": {"name": "bad"}, "rules": [rule(["impersonate"], ["groups"])]}]}), "items[1]"),
    "v1beta1": (res("kubernetes:rbac.authorization.k8s.io/v1beta1:Role", "r", {
        "metadata": {"name": "r", "namespace": "x"}, "rules": [rule(["escalate"], ["roles"], ["*"])]}), "escalate"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_rbac_that_escalates_is_refused_with_the_reason(name):
    resource, reason = REFUSED[name]
    got = found(resource)
    assert len(got) == 1 and reason in got[0], got


PASSES = {
    "view cluster-wide to a service account": binding("view"),
    "view in a namespace": binding("view", kind="RoleBinding"),
    "edit in a namespace (the tenant boundary)": binding("edit", kind="RoleBinding"),
    "admin in a namespace": binding("admin", kind="RoleBinding"),
    "token requests in a tenant namespace": role(rule(["create"], ["serviceaccounts/token"]), kind="Role"),
    "secret creation in a tenant namespace (its own accounts: what workload creation there gives)": role(
        rule(["create", "update", "patch"], ["secrets"]), kind="Role"),
    "service-account impersonation in a tenant namespace": role(rule(["impersonate"], ["serviceaccounts"]),
                                                                kind="Role"),
    "a Role reading one namespace's secrets": role(rule(["get", "list"], ["secrets"]), kind="Role"),
    "a Role creating jobs": role(rule(["create"], ["jobs"], ["batch"]), kind="Role"),
    "a Role reading pod logs and evicting pods": role(rule(["get", "create"], ["pods/log", "pods/eviction"]),
                                                      kind="Role"),
    "a Role reading kube-system's config maps": res(RBAC + "Role", "r", {"metadata": {
        "name": "r", "namespace": "kube-system"}, "rules": [rule(["get"], ["configmaps"])]}),
    "discovery URLs": role({"nonResourceURLs": ["/healthz", "/version"], "verbs": ["get"]}),
    "view fed with reads": role(rule(["get", "list"], ["widgets"], ["example.com"]), labels={AGG + "view": "true"}),
    "edit fed with another workload kind": role(rule(["create", "delete"], ["rayjobs"], ["ray.io"]),
                                                labels={AGG + "edit": "true"}),
    "aggregates view": aggregated({"matchLabels": {AGG + "view": "true"}}),
    "aggregates its own label": aggregated({"matchLabels": {"example.com/aggregate-to-monitoring": "true"}}),
    "a patch adding a subject to discovery": res(RBAC + "ClusterRoleBindingPatch", "p", {
        "metadata": {"name": "system:discovery"}, "subjects": [SA]}),
    "verbs spelled in capitals grant nothing but are judged as if lower case": role(rule(["GET"], ["pods"])),
    "public info viewer": binding("system:public-info-viewer"),
    "a ClusterRoleBinding patch naming its role without the kind": res(RBAC + "ClusterRoleBindingPatch", "p", {
        "metadata": {"name": "p"}, "roleRef": {"name": "view"}, "subjects": [SA]}),
}


@pytest.mark.parametrize("name", sorted(PASSES))
def test_scoped_rbac_passes(name):
    assert found(PASSES[name]) == []


def test_capital_letters_do_not_hide_an_escalating_verb():
    assert found(role(rule(["Impersonate"], ["users"])))


def test_an_accepted_binding_passes_and_only_it():
    admin = binding("cluster-admin", name="break-glass")
    assert found(admin, config={"allowedBindings": ["break-glass"]}) == []
    assert found(admin, config={"allowedBindings": ["other"]})
