"""Node-agent namespaces come from the policy config only, never from what the stack releases: a node-agent chart
(GPU Operator, kube-prometheus-stack, the node exporter, ...) in any other namespace is node escape itself, and
makes no namespace a node-agent one — neither for declared pods, nor for the privileged label, nor by its release
name or createNamespace; a tenant namespace is never one even when configured; RBAC treats a namespace holding a
node-agent chart as a system namespace (stricter only)."""
from __future__ import annotations

import pytest

from offline.policy_eval import evaluate_packs
from policies import PACK_DIRS
from policies.security._pss import NODE_AGENT_CHARTS
from tests.policies.test_policies import U, messages, res, run
from tests.policies.test_pod_security import HELM, POD, namespace

ESCAPE, PURPOSE, RBAC_RULE = ("node-escape-only-in-node-agent-namespaces", "privileged-namespace-purpose",
                              "kubernetes-rbac-no-escalation")
HELM_V4 = "kubernetes:helm.sh/v4:Chart"
NODE_EXPORTER_POD = {"hostPID": True, "volumes": [{"name": "root", "hostPath": {"path": "/"}}],
                     "containers": [{"name": "c", "image": "i"}]}
REPOS = {"gpu-operator": "https://helm.ngc.nvidia.com/nvidia", "network-operator": "https://helm.ngc.nvidia.com/nvidia",
         "kube-prometheus-stack": "https://prometheus-community.github.io/helm-charts",
         "prometheus-node-exporter": "https://prometheus-community.github.io/helm-charts"}


def found(policy, *resources, config=None):
    if config is None:
        return messages(run(*resources, policy=policy), policy)
    cfg = {"all": "disabled", policy: {"enforcementLevel": "mandatory", **config}}
    return messages(evaluate_packs(PACK_DIRS, list(resources), [cfg] * len(PACK_DIRS)), policy)


def chart(name, ns, kind=HELM, values=None, repo=None, **extra):
    return res(kind, "agent", {"chart": name, "version": "1.0.0", "namespace": ns, "values": values or {},
                               "repositoryOpts": {"repo": repo or REPOS.get(name, "https://charts.example.com")},
                               **extra})


def gpu_tenant(name="research"):
    ns = namespace(name, "privileged")
    quota = res("kubernetes:core/v1:ResourceQuota", f"quota-{name}", {
        "metadata": {"name": "gpu", "namespace": name}, "spec": {"hard": {"requests.nvidia.com/gpu": "8"}}})
    return [ns, quota]


def pod(ns, spec=NODE_EXPORTER_POD):
    return res(POD, "p", {"metadata": {"name": "p", "namespace": ns}, "spec": spec})


@pytest.mark.parametrize("name", sorted(NODE_AGENT_CHARTS))
def test_a_node_agent_chart_outside_a_node_agent_namespace_is_node_escape_even_without_values(name):
    got = found(ESCAPE, namespace("apps", "privileged"), chart(name, "apps"))
    assert len(got) == 1 and "is a node agent's" in got[0], got
    assert found(ESCAPE, namespace("monitoring", "privileged"), chart(name, "monitoring")) == []


@pytest.mark.parametrize("spelling", ["oci://ghcr.io/prometheus-community/charts/kube-prometheus-stack",
                                      "https://example.com/charts/kube-prometheus-stack-87.2.1.tgz",
                                      "prometheus-community/kube-prometheus-stack", "./vendor/kube-prometheus-stack",
                                      "Kube-Prometheus-Stack"])
def test_every_spelling_of_a_node_agent_chart_counts(spelling):
    assert found(ESCAPE, namespace("apps", "privileged"), chart(spelling, "apps"))


def test_a_look_alike_from_another_repository_and_a_v4_chart_count_too():
    assert found(ESCAPE, namespace("apps", "privileged"),
                 chart("kube-prometheus-stack", "apps", repo="https://evil.example.com/charts"))
    assert found(ESCAPE, namespace("apps", "privileged"), chart("gpu-operator", "apps", kind=HELM_V4))
    assert found(ESCAPE, namespace("gpu-operator", "privileged"), chart("gpu-operator", "gpu-operator",
                                                                       kind=HELM_V4)) == []


def test_an_unknown_chart_outside_a_node_agent_namespace_fails_closed():
    got = found(ESCAPE, namespace("apps", "restricted"), chart(U, "apps"))
    assert got and "unknown during preview" in got[0]


@pytest.mark.parametrize("decoy", ["kube-prometheus-stack", "gpu-operator", "prometheus-node-exporter"])
def test_a_decoy_release_does_not_let_declared_pods_escape_in_its_namespace(decoy):
    """The decoy release is refused, and so is the privileged hostPID pod declared beside it; the same pod in a
    configured node-agent namespace passes."""
    got = found(ESCAPE, *gpu_tenant(), chart(decoy, "research"), pod("research"))
    assert len(got) == 2 and any("Pod 'p'" in m for m in got), got
    assert found(ESCAPE, namespace("monitoring", "privileged"), chart(decoy, "monitoring"), pod("monitoring")) == []


def test_a_decoy_release_does_not_let_its_namespace_be_labelled_privileged():
    assert found(PURPOSE, namespace("apps", "privileged"), chart("kube-prometheus-stack", "apps"))
    assert found(PURPOSE, namespace("monitoring", "privileged"), chart("kube-prometheus-stack", "monitoring")) == []


def test_create_namespace_and_release_names_make_no_node_agent_namespace():
    created = chart("kube-prometheus-stack", "observability", createNamespace=True)
    assert found(ESCAPE, created, pod("observability"))
    named = res(HELM, "gpu-operator", {"chart": "keda", "version": "2.20.2", "namespace": "apps",
                                       "name": "gpu-operator", "values": {"hostPID": True},
                                       "repositoryOpts": {"repo": "https://kedacore.github.io/charts"}})
    assert found(ESCAPE, namespace("apps", "privileged"), named, pod("apps"))


def test_a_configured_node_agent_namespace_is_one():
    config = {"nodeAgentNamespaces": ["nvidia"]}
    ns = namespace("nvidia", "privileged")
    assert found(ESCAPE, ns, chart("gpu-operator", "nvidia"), pod("nvidia"), config=config) == []
    assert found(ESCAPE, ns, chart("gpu-operator", "nvidia"), pod("nvidia"))  # not configured: refused
    assert found(PURPOSE, ns, config=config) == []
    assert found(PURPOSE, ns)


def _local_queue(ns):
    return [namespace(ns, "privileged"), res("kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue", "lq", {
        "metadata": {"name": "q", "namespace": ns}, "spec": {"clusterQueue": "cq"}})]


def _labelled(ns):
    return [res("kubernetes:core/v1:Namespace", f"ns-{ns}", {"metadata": {"name": ns, "labels": {
        "pod-security.kubernetes.io/enforce": "privileged", "okerdma.io/tenant": ns}}})]


@pytest.mark.parametrize("tenant", [gpu_tenant, _local_queue, _labelled])
def test_a_tenant_namespace_is_never_a_node_agent_namespace_even_when_configured(tenant):
    config = {"nodeAgentNamespaces": ["research"]}
    got = found(ESCAPE, *tenant("research"), pod("research"), config=config)
    assert len(got) == 1 and "Pod 'p'" in got[0], got
    assert found(ESCAPE, namespace("research", "privileged"), pod("research"), config=config) == []


def test_rbac_treats_a_namespace_holding_a_node_agent_chart_as_a_system_namespace():
    edit = res("kubernetes:rbac.authorization.k8s.io/v1:RoleBinding", "rb", {
        "metadata": {"name": "rb", "namespace": "nvidia"},
        "subjects": [{"kind": "ServiceAccount", "name": "ops", "namespace": "nvidia"}],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"}})
    got = found(RBAC_RULE, chart("gpu-operator", "nvidia"), edit)
    assert len(got) == 1 and "binds the built-in role edit" in got[0], got
    assert found(RBAC_RULE, chart("keda", "nvidia"), edit) == []


@pytest.mark.parametrize("values", [{"namespaceOverride": "research"},
                                    {"prometheus-node-exporter": {"namespaceOverride": "research"}},
                                    {"namespaceOverride": U}])
def test_values_that_move_a_node_agent_charts_pods_into_another_namespace_are_refused(values):
    """kube-prometheus-stack released into its node-agent namespace, its node exporter rendered into a tenant's."""
    got = found(ESCAPE, namespace("monitoring", "privileged"), *gpu_tenant(),
                chart("kube-prometheus-stack", "monitoring", values=values))
    assert len(got) == 1 and "namespaceOverride" in got[0], got
    same = {"namespaceOverride": "monitoring"}
    assert found(ESCAPE, namespace("monitoring", "privileged"),
                 chart("kube-prometheus-stack", "monitoring", values=same)) == []


def test_values_privileges_are_judged_at_the_level_of_the_namespace_they_are_moved_to():
    values = {"namespaceOverride": "apps", "hostNetwork": True}
    rel = res(HELM, "rel", {"chart": "keda", "version": "2.20.2", "namespace": "monitoring", "values": values,
                            "repositoryOpts": {"repo": "https://kedacore.github.io/charts"}})
    got = found("helm-values-pod-security", namespace("monitoring", "privileged"), namespace("apps", "restricted"),
                rel)
    assert len(got) == 1 and "namespace 'apps'" in got[0], got
    values["namespaceOverride"] = "monitoring"
    assert found("helm-values-pod-security", namespace("monitoring", "privileged"), rel) == []
