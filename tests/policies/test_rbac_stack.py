"""kubernetes-rbac-no-escalation, across the stack: a ClusterRole is judged at the scope the stack's bindings give it (with what
its aggregationRule collects), every binding's role must be judgeable, and allow-listed grants hold only for the
subjects listed."""
from __future__ import annotations

import pytest

from offline.policy_eval import evaluate_packs
from policies import PACK_DIRS
from tests.policies.test_policies import U, messages, res, run
from tests.policies.test_rbac import RBAC, SA, binding, role, rule

RULE = "kubernetes-rbac-no-escalation"


def found(*resources, config=None):
    if config is None:
        return messages(run(*resources, policy=RULE), RULE)
    cfg = {"all": "disabled", RULE: {"enforcementLevel": "mandatory", **config}}
    return messages(evaluate_packs(PACK_DIRS, list(resources), [cfg] * len(PACK_DIRS)), RULE)


def bound(*rules, kind="ClusterRoleBinding", name="r"):
    """A ClusterRole ``name`` with ``rules`` and one binding of ``kind`` to it."""
    return role(*rules, name=name), binding(name, kind=kind, name=f"{name}-binding")


CLUSTER_DANGERS = {
    "secret reads": (rule(["list"], ["secrets"]), "Secret reads"),
    "secret reads through every resource of the core group": (rule(["get"], ["*"]), "Secret reads"),
    "secret reads through every group": (rule(["watch"], ["secrets"], ["*"]), "Secret reads"),
    "secret creation (a service-account-token Secret mints any account's token)": (
        rule(["create"], ["secrets"]), "Secret writes"),
    "secret patches (the response holds the Secret's data)": (rule(["patch"], ["secrets"]), "Secret writes"),
    "secret updates through a group wildcard": (rule(["update"], ["secrets"], ["*"]), "Secret writes"),
    "pod creation": (rule(["create"], ["pods"]), "workload creation"),
    "deployment updates": (rule(["update"], ["deployments"], ["apps"]), "workload creation"),
    "a training job custom resource": (rule(["create"], ["pytorchjobs"], ["kubeflow.org"]), "workload creation"),
    "a KEDA ScaledJob": (rule(["create"], ["*"], ["keda.sh"]), "workload creation"),
    "exec into pods": (rule(["create"], ["pods/exec"]), "exec/attach"),
    "token requests": (rule(["create"], ["serviceaccounts/token"]), "serviceaccounts/token"),
    "token requests through a subresource wildcard": (rule(["create"], ["*/token"]), "serviceaccounts/token"),
    "service-account impersonation": (rule(["impersonate"], ["serviceaccounts"]), "impersonate service accounts"),
    "ephemeral containers": (rule(["patch"], ["pods/ephemeralcontainers"]), "exec/attach"),
    "nodes/proxy get": (rule(["get"], ["nodes/proxy"]), "kubelet API"),
    "nodes/log get (the host's /var/log)": (rule(["get"], ["nodes/log"]), "host logs"),
    "nodes/checkpoint create (a container's memory)": (rule(["create"], ["nodes/checkpoint"]), "checkpoints"),
    "every resource of the core group": (rule(["get"], ["*"]), "host logs"),
    "node labels": (rule(["patch"], ["nodes"]), "node writes"),
    "PersistentVolume creation": (rule(["create"], ["persistentvolumes"]), "PersistentVolume"),
    "CSR approval": (rule(["update"], ["certificatesigningrequests/approval"], ["certificates.k8s.io"]),
                     "certificate"),
    "signer approval": (rule(["approve"], ["signers"], ["certificates.k8s.io"]), "certificate"),
    "webhook configuration": (rule(["create"], ["validatingwebhookconfigurations"],
                                   ["admissionregistration.k8s.io"]), "admission"),
    "admission policy deletion": (rule(["delete"], ["validatingadmissionpolicies"],
                                       ["admissionregistration.k8s.io"]), "admission"),
    "CRD conversion webhooks": (rule(["patch"], ["customresourcedefinitions"], ["apiextensions.k8s.io"]),
                                "admission"),
    "APIService registration": (rule(["create"], ["apiservices"], ["apiregistration.k8s.io"]), "APIService"),
    "every non-resource URL": ({"nonResourceURLs": ["*"], "verbs": ["get"]}, "non-resource URLs"),
    "control plane logs": ({"nonResourceURLs": ["/logs/*"], "verbs": ["get"]}, "non-resource URLs"),
    "writes to a health URL": ({"nonResourceURLs": ["/healthz"], "verbs": ["post"]}, "non-resource URLs"),
}


@pytest.mark.parametrize("name", sorted(CLUSTER_DANGERS))
def test_a_cluster_wide_escalating_grant_is_refused_and_passes_when_bound_in_a_namespace(name):
    granted, reason = CLUSTER_DANGERS[name]
    got = found(*bound(granted))
    assert len(got) == 1 and reason in got[0] and "ClusterRoleBinding 'r-binding'" in got[0], got
    if "nonResourceURLs" not in granted:  # non-resource URLs take effect only through a ClusterRoleBinding
        assert found(*bound(granted, kind="RoleBinding")) == []


def test_an_unbound_cluster_role_is_judged_cluster_wide_and_a_role_is_not():
    got = found(role(rule(["create"], ["pods"])))
    assert len(got) == 1 and "bound by no binding of this stack" in got[0]
    assert found(role(rule(["create"], ["pods"]), kind="Role")) == []


@pytest.mark.parametrize("granted", [rule(["get", "list"], ["pods", "nodes", "configmaps"]),
                                     rule(["get"], ["nodes/metrics", "nodes/stats", "nodes/spec"]),
                                     rule(["create"], ["localqueues"], ["kueue.x-k8s.io"]),
                                     {"nonResourceURLs": ["/metrics"], "verbs": ["get"]}])
def test_a_cluster_wide_grant_that_does_not_escalate_passes(granted):
    assert found(*bound(granted)) == []


def test_an_aggregated_role_is_judged_with_the_rules_it_collects_at_its_own_scope():
    member = role(rule(["get"], ["secrets"]), name="member", labels={"example.com/aggregate-to-ops": "true"})
    agg = res(RBAC + "ClusterRole", "ops", {"metadata": {"name": "ops"}, "aggregationRule": {
        "clusterRoleSelectors": [{"matchLabels": {"example.com/aggregate-to-ops": "true"}}]}})
    got = found(member, agg, binding("ops", name="ops-binding"))
    assert any("ClusterRole 'ops'" in m and "Secret reads" in m for m in got), got
    assert any("ClusterRole 'member' is aggregated into ClusterRole 'ops'" in m for m in got), got
    assert found(member, agg, binding("ops", name="ops-binding", kind="RoleBinding")) == []


def test_a_binding_to_a_role_the_pack_cannot_see_is_refused():
    got = found(binding("someone-elses-role"))
    assert len(got) == 1 and "neither declared in this stack nor a built-in role" in got[0]
    got = found(binding("missing", kind="RoleBinding", ref_kind="Role"))
    assert len(got) == 1 and "Role 'missing'" in got[0]
    assert found(binding("view")) == []


def test_an_unknown_role_name_is_followed_through_its_dependency_or_refused():
    cr = role(rule(["get"], ["pods"]), name="reader")
    unresolved = binding(U, name="b")
    assert "unknown during preview" in found(cr, unresolved)[0]
    resolved = res(RBAC + "ClusterRoleBinding", "b", unresolved.inputs, deps={"roleRef": [cr]})
    assert found(cr, resolved) == []
    bad = role(rule(["list"], ["secrets"]), name="reader")
    got = found(bad, res(RBAC + "ClusterRoleBinding", "b", unresolved.inputs, deps={"roleRef": [bad]}))
    assert len(got) == 1 and "bound cluster-wide by ClusterRoleBinding 'b'" in got[0]


NPD_SA = {"kind": "ServiceAccount", "name": "gpu-node-problem-detector", "namespace": "gpu-operator"}


def npd(*extra_rules, subject=NPD_SA):
    return (role(rule(["get", "patch"], ["nodes"]), rule(["patch"], ["nodes/status"]), *extra_rules,
                 name="acme-gpu-node-problem-detector"),
            binding("acme-gpu-node-problem-detector", [subject], name="npd-binding"))


def test_the_platform_node_agent_is_allowed_exactly_its_grants_for_its_own_service_account():
    assert found(*npd()) == []
    got = found(*npd(rule(["create"], ["pods"])))
    assert len(got) == 1 and "create pods" in got[0] and "patch nodes" not in got[0]
    got = found(*npd(subject=SA))
    assert len(got) == 1 and "ServiceAccount:research/trainer" in got[0]
    assert found(*npd(), config={"allowedGrants": []})


def test_an_allowed_grant_needs_its_reason():
    entry = {"role": "x", "grants": ["patch nodes"], "subjects": ["User:u"]}
    with pytest.raises(Exception, match="reason"):
        found(*npd(), config={"allowedGrants": [entry]})


def test_the_platform_rbac_passes_through_its_allow_list_and_only_through_it(tmp_path, capsys):
    """The prod stack's own ClusterRoles are judged: with no allowedGrants, each node agent's role is refused for
    its node writes; with the defaults, the stack is clean."""
    import json

    from offline.preview import main
    from policies.security.rbac import DEFAULT_ALLOWED_GRANTS
    from tests.policies.test_policies import ROOT

    config = tmp_path / "security.json"
    config.write_text(json.dumps({RULE: {"allowedGrants": []}}))
    pack = str(ROOT / "policies" / "security")
    assert main(["--stack", "prod", "--policy-pack", pack, "--policy-config", str(config)]) == 1
    out = capsys.readouterr().out
    refused = [line for line in out.splitlines() if f"[mandatory]  {RULE} (" in line]
    assert len(refused) == len(DEFAULT_ALLOWED_GRANTS) and "patch nodes" in out, out
    assert main(["--stack", "prod", "--policy-pack", pack]) == 0
    assert RULE not in capsys.readouterr().out


def test_an_allow_listed_role_bound_to_a_subject_unknown_during_preview_is_refused():
    got = found(*npd(subject={"kind": "ServiceAccount", "name": U, "namespace": "gpu-operator"}))
    assert len(got) == 1 and "unknown during preview" in got[0]


def test_a_role_binding_in_kube_system_is_a_cluster_wide_grant():
    cr, rb = bound(rule(["create"], ["pods"]), kind="RoleBinding")
    in_kube_system = res(rb.type, rb.name, {**rb.inputs, "metadata": {"name": "rb", "namespace": "kube-system"},
                                            "subjects": [{**SA, "namespace": "kube-system"}]})
    got = found(cr, in_kube_system)
    assert len(got) == 1 and "system namespace" in got[0]
    assert found(cr, rb) == []


def _release_with(*objects):
    return res("kubernetes:helm.sh/v3:Release", "kps", {
        "chart": "kube-prometheus-stack", "version": "87.2.1", "namespace": "monitoring",
        "repositoryOpts": {"repo": "https://prometheus-community.github.io/helm-charts"},
        "values": {"extraManifests": list(objects)}})


def _cluster_role(verbs, resources, name="extra"):
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": name},
            "rules": [{"apiGroups": [""], "resources": resources, "verbs": verbs}]}


def test_rbac_a_helm_release_renders_is_judged_at_the_scope_its_bindings_give_it():
    """A ClusterRole rendered from Helm values that reads Secrets cluster-wide (bound by a rendered
    ClusterRoleBinding, or bound nowhere) is refused on the release; the same role reading pods passes, and so does
    the Secret reader bound only in one namespace by a rendered RoleBinding."""
    crb = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "extra"},
           "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "extra"},
           "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": "monitoring"}]}
    rb = {**crb, "kind": "RoleBinding", "metadata": {"name": "extra", "namespace": "team-a"},
          "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": "team-a"}]}
    for objects in ([_cluster_role(["list"], ["secrets"]), crb], [_cluster_role(["list"], ["secrets"])]):
        got = found(_release_with(*objects))
        assert len(got) == 1 and "Release 'kps'" in got[0] and "Secret reads" in got[0], got
    assert found(_release_with(_cluster_role(["list"], ["pods"]), crb)) == []
    assert found(_release_with(_cluster_role(["list"], ["secrets"]), rb)) == []


@pytest.mark.parametrize("namespace", ["gpu-operator", "monitoring", "kube-system"])
def test_workload_creation_in_a_node_agent_or_system_namespace_is_a_cluster_wide_grant(namespace):
    """Creating pods where node agents run privileged (or in kube-system) reaches every node: a RoleBinding there to
    a role that creates pods is refused; the same binding in a tenant's namespace passes."""
    from tests.policies.test_policies import res
    from tests.policies.test_rbac import RBAC as TYPE

    def rb(ns):
        b = binding("pods", kind="RoleBinding", name="pods-binding")
        return (role(rule(["create"], ["pods"]), name="pods"),
                res(TYPE + "RoleBinding", "pods-binding", {**b.inputs, "metadata": {"name": "pods-binding",
                                                                                   "namespace": ns}}))
    assert found(*rb(namespace)), namespace
    assert found(*rb("research")) == []


@pytest.mark.parametrize("group, resource", [
    ("ray.io", "raycronjobs"), ("nvidia.com", "clusterpolicies"), ("nvidia.com", "nvidiadrivers"),
    ("mellanox.com", "nicclusterpolicies"), ("monitoring.coreos.com", "prometheuses"),
    ("monitoring.coreos.com", "alertmanagers"), ("argoproj.io", "workflows"), ("batch.volcano.sh", "jobs"),
    ("argoproj.io", "sensors"), ("argoproj.io", "clusterworkflowtemplates"), ("sparkoperator.k8s.io", "sparkapplications"),
    ("tekton.dev", "taskruns"), ("serving.kserve.io", "inferenceservices"), ("flink.apache.org", "flinkdeployments")])
def test_operator_resources_whose_controllers_run_what_they_name_are_workload_creation(group, resource):
    """Creating one of these cluster-wide makes its operator run pods (or privileged DaemonSets) it names: refused;
    reading them passes."""
    got = found(*bound(rule(["create"], [resource], [group])))
    assert len(got) == 1 and "workload creation" in got[0], got
    assert found(*bound(rule(["get", "list"], [resource], [group]))) == []
