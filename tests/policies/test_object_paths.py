"""Every path to a Kubernetes object is judged like the object: manifests a chart renders verbatim from Helm values,
exposure a chart creates from values, ``*Patch`` resources on objects the stack does not own, and pod specs inside
operator custom resources."""
from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oke_rdma.addons import kube_prometheus_stack as kps
from oke_rdma.addons._registry import ValuesContext
from policies.security import _objects as O
from policies.security._rules import UNKNOWN
from policies.security.exposure_paths import custom_resource_exposure, effective_values, exposure_problems
from policies.security.object_paths import list_problems, patch_problems, patched_kind
from tests.policies.test_policies import U, messages, res, run

HELM, NS, NSP = "kubernetes:helm.sh/v3:Release", "kubernetes:core/v1:Namespace", "kubernetes:core/v1:NamespacePatch"
MANIFESTS, EXPOSURE, PATCH = "helm-values-manifests", "helm-values-exposure", "kubernetes-patch-or-list-judged-as-kind"
RDMA, ESCAPE, DECLARED, PURPOSE, ENFORCE = ("rdma-pods-in-privileged-namespaces",
                                            "node-escape-only-in-node-agent-namespaces", "workload-namespace-declared",
                                            "privileged-namespace-purpose", "namespace-pod-security-enforce")
PSA = "pod-security.kubernetes.io/enforce"
RBAC = "rbac.authorization.k8s.io"
INTERNAL_LB = {"service.beta.kubernetes.io/oci-load-balancer-internal": "true"}
ADMIN_FOR_ALL = {"apiVersion": f"{RBAC}/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "x"},
                 "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "cluster-admin"},
                 "subjects": [{"kind": "Group", "apiGroup": RBAC, "name": "system:authenticated"}]}
CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dash"}, "data": {"a": "b"}}
RDMA_SPEC = {"hostNetwork": True, "volumes": [{"name": "ib", "hostPath": {"path": "/dev/infiniband"}}],
             "containers": [{"name": "c", "securityContext": {"privileged": True,
                                                              "capabilities": {"add": ["IPC_LOCK"]}}}]}


def namespace(name, level):
    return res(NS, f"ns-{name}", {"metadata": {"name": name, "labels": {PSA: level}}})


def release(values, ns="apps", chart="keda"):
    return res(HELM, "rel", {"chart": chart, "version": "2.20.2", "namespace": ns,
                             "repositoryOpts": {"repo": "https://kedacore.github.io/charts"}, "values": values})


def found(policy, *resources):
    return messages(run(*resources, policy=policy), policy)


# --- _objects: what a hook value renders ----------------------------------------------------------------------------
def test_object_type_follows_pulumi_kubernetes_tokens():
    assert O.object_type({"apiVersion": "v1", "kind": "Pod"}) == "kubernetes:core/v1:Pod"
    assert O.object_type({"apiVersion": f"{RBAC}/v1", "kind": "Role"}) == f"kubernetes:{RBAC}/v1:Role"
    assert O.object_type({"kind": "Pod"}) is None and O.object_type({"apiVersion": 1, "kind": "Pod"}) is None


@pytest.mark.parametrize("hook", [
    [ADMIN_FOR_ALL], {"admin": ADMIN_FOR_ALL}, yaml.safe_dump(ADMIN_FOR_ALL),
    [yaml.safe_dump_all([CONFIG_MAP, ADMIN_FOR_ALL])], [{"apiVersion": "v1", "kind": "List", "items": [ADMIN_FOR_ALL]}],
])
def test_every_shape_a_chart_ranges_over_is_parsed(hook):
    objects = [obj for _, obj, problem in O.rendered_objects({"extraManifests": hook}) if obj is not None]
    assert ADMIN_FOR_ALL in objects


@pytest.mark.parametrize("hook, why", [
    (["{{ .Values.binding | toYaml }}"], "template action"), ([{"kind": "Pod", "metadata": {"name": "{{ x }}"}}],
                                                              "template action"),
    (["a: [unclosed"], "not valid YAML"), ([{"name": "no object"}], "not a Kubernetes object"),
    ([42], "not a Kubernetes object"), (U, "unknown during preview"), ([U], "unknown during preview"), (7, "int"),
])
def test_what_cannot_be_interpreted_is_named(hook, why):
    [(where, obj, problem)] = O.rendered_objects({"sub": {"extraObjects": hook}})
    assert obj is None and why in problem and where.startswith("values.sub.extraObjects")


def test_every_pinned_chart_hook_is_matched_by_the_class_wide_names():
    for chart, hooks in O.CHART_OBJECT_HOOKS.items():
        for path, source in hooks:
            assert path.split(".")[-1] in O.OBJECT_HOOK_KEYS and source, (chart, path)
            values: dict = {}
            node = values
            for key in path.split(".")[:-1]:
                node = node.setdefault(key, {})
            node[path.split(".")[-1]] = [CONFIG_MAP]
            assert [obj for _, obj, _ in O.rendered_objects(values)] == [CONFIG_MAP]


def test_an_object_anywhere_in_values_is_rendered_and_empty_hooks_are_nothing():
    values = {"a": {"b": [ADMIN_FOR_ALL]}, "extraManifests": [], "extraObjects": None, "extraDeploy": ""}
    assert [w for w, _, _ in O.rendered_objects(values)] == ["values.a.b[0]"]


def test_our_kube_prometheus_stack_values_render_nothing_and_expose_nothing():
    """The values oke-rdma passes its charts stay clean under the new rules (with and without a Grafana secret)."""
    for password in (None, "a-long-secret-value"):
        cfg = kps.KubePrometheusStackRelease.model_validate({"grafanaAdminPassword": password})
        values = kps.values(cfg, ValuesContext(frozenset({"kubePrometheusStack"})))
        assert O.rendered_objects(values) == []
        assert exposure_problems(effective_values("kube-prometheus-stack", values), {}) == []


# --- helm-values-manifests ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("obj, rule", [
    (ADMIN_FOR_ALL, "kubernetes-rbac-no-escalation"),
    ({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"type": "LoadBalancer"}},
     "no-public-endpoints"),
    ({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "i"},
      "spec": {"ingressClassName": "nginx"}}, "no-public-endpoints"),
    ({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "loose"}}, "namespace-pod-security-enforce"),
    ({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "fss"},
      "provisioner": "fss.csi.oraclecloud.com", "parameters": {"exportOptions": (
          '[{"source": "0.0.0.0/0", "access": "READ_WRITE", "identitySquash": "NONE"}]')}},
     "fss-export-no-internet-root"),
    ({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "t", "annotations": {
        "kubernetes.io/service-account.name": "default"}}, "type": "kubernetes.io/service-account-token"},
     "iam-no-static-credentials"),
])
def test_rendered_objects_get_the_checks_of_declared_objects(obj, rule):
    [message] = found(MANIFESTS, namespace("apps", "restricted"), release({"extraObjects": [obj]}))
    assert f"[{rule}]" in message and "values.extraObjects[0]" in message


def test_safe_rendered_objects_pass_and_uninterpretable_ones_fail():
    safe = [CONFIG_MAP, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "annotations": INTERNAL_LB},
                         "spec": {"type": "LoadBalancer"}}]
    assert found(MANIFESTS, namespace("apps", "restricted"), release({"extraObjects": safe})) == []
    [message] = found(MANIFESTS, namespace("apps", "restricted"), release({"extraObjects": ["{{ .Values.x }}"]}))
    assert "template action" in message


def test_a_rendered_pod_is_judged_in_its_own_namespace_by_the_pod_rules():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": RDMA_SPEC}
    tenant = (namespace("research", "privileged"),
              res("kubernetes:core/v1:ResourceQuota", "q", {"metadata": {"name": "gpu", "namespace": "research"},
                                                            "spec": {"hard": {"requests.nvidia.com/gpu": "8"}}}))
    in_release_ns = release({"extraObjects": [pod]})
    assert found(RDMA, namespace("apps", "restricted"), *tenant, in_release_ns)  # the release's restricted ns
    own_ns = release({"extraObjects": [{**pod, "metadata": {"name": "p", "namespace": "research"}}]})
    assert found(RDMA, namespace("apps", "restricted"), *tenant, own_ns) == []
    assert found(DECLARED, namespace("apps", "restricted"), release({"extraObjects": [
        {**pod, "metadata": {"name": "p", "namespace": "elsewhere"}}]}))


def test_a_rendered_namespace_is_judged_by_the_namespace_rules():
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "tools", "labels": {PSA: "privileged"}}}
    assert found(PURPOSE, namespace("apps", "restricted"), release({"extraObjects": [ns]}))
    ns["metadata"]["labels"][PSA] = "restricted"
    assert found(PURPOSE, namespace("apps", "restricted"), release({"extraObjects": [ns]})) == []


# --- helm-values-exposure -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("values, chart, what", [
    ({"prometheus": {"ingress": {"enabled": True}}}, "kube-prometheus-stack", "enables an Ingress"),
    ({"alertmanager": {"ingress": {"enabled": "true", "ingressClassName": "nginx"}}}, "x", "'nginx'"),
    ({"prometheus": {"thanosIngress": {"enabled": UNKNOWN}}}, "x", "enables an Ingress"),
    ({"prometheus": {"ingressPerReplica": {"enabled": True}}}, "x", "enables an Ingress"),
    ({"grafana": {"route": {"main": {"enabled": True}}}}, "x", "Gateway API route"),
    ({"grafana": {"service": {"type": "LoadBalancer"}}}, "x", "oci-load-balancer-internal"),
    ({"svc": {"serviceType": "LoadBalancer"}}, "x", "oci-load-balancer-internal"),
    ({"service": {"type": UNKNOWN}}, "x", "unknown"),
    ({"service": {"type": "LoadBalancer", "annotations": {"oci.oraclecloud.com/load-balancer-type": "nlb",
                                                          **INTERNAL_LB}}}, "x", "network load balancer"),
    ({"service": {"externalIPs": ["203.0.113.1"]}}, "x", "externalIPs"),
    ({"prometheus": {"thanosServiceExternal": {"enabled": True}}}, "kube-prometheus-stack", "thanosServiceExternal"),
    ({"enableKueueViz": True}, "kueue", "kueueViz.backend.ingress"),
    ({"enableKueueViz": UNKNOWN}, "kueue", "kueueViz.frontend.ingress"),
    (UNKNOWN, "x", "unknown during preview"),
])
def test_values_that_expose_a_chart_are_refused(values, chart, what):
    problems = exposure_problems(effective_values(chart, values), {})
    assert problems and what in " ".join(problems)


@pytest.mark.parametrize("values, chart, config", [
    ({"prometheus": {"ingress": {"enabled": False}}}, "kube-prometheus-stack", {}),
    ({"ingress": {"enabled": True, "ingressClassName": "oci-internal"}}, "x", {"internalIngressClasses":
                                                                             ["oci-internal"]}),
    ({"ingress": {"enabled": True, "annotations": {"kubernetes.io/ingress.class": "oci-internal"}}}, "x",
     {"internalIngressClasses": ["oci-internal"]}),
    ({"grafana": {"route": {"main": {"enabled": False}}}}, "x", {}),
    ({"alertmanager": {"config": {"route": {"receiver": "null", "routes": [{"receiver": "x"}]}}}}, "x", {}),
    ({"service": {"type": "LoadBalancer", "annotations": INTERNAL_LB}}, "x", {}),
    ({"service": {"type": "NodePort"}, "networkPolicy": {"ingress": True}}, "x", {}),
    ({"service": {"type": "LoadBalancer"}}, "x", {"allowPublicLoadBalancers": True}),
    ({"prometheus": {"thanosServiceExternal": {"enabled": True, "type": "ClusterIP"}}}, "kube-prometheus-stack", {}),
    ({"enableKueueViz": False}, "kueue", {}),
    ({"controller": {"ingressClassResource": {"enabled": True, "name": "internal"}}}, "x", {}),
])
def test_values_that_expose_nothing_pass(values, chart, config):
    assert exposure_problems(effective_values(chart, values), config) == []


def test_exposure_rule_reads_the_release():
    assert found(EXPOSURE, namespace("apps", "restricted"), release({"ingress": {"enabled": True}}))
    assert found(EXPOSURE, namespace("apps", "restricted"), release({"ingress": {"enabled": False}})) == []


# --- *Patch kinds ---------------------------------------------------------------------------------------------------
def test_patched_kind():
    assert patched_kind("kubernetes:core/v1:ServicePatch") == "kubernetes:core/v1:Service"
    assert patched_kind("kubernetes:core/v1:Service") is None and patched_kind("kubernetes:x/v1:Patch") is None


SVC_PATCH, CRB_PATCH = "kubernetes:core/v1:ServicePatch", f"kubernetes:{RBAC}/v1:ClusterRoleBindingPatch"


@pytest.mark.parametrize("type_, props, what", [
    (SVC_PATCH, {"spec": {"type": "LoadBalancer"}}, "oci-load-balancer-internal"),
    (SVC_PATCH, {"spec": {"type": "LoadBalancer"}, "metadata": {"annotations": INTERNAL_LB}}, "live Service's type"),
    (SVC_PATCH, {"metadata": {"annotations": {"service.beta.kubernetes.io/oci-load-balancer-internal": "false"}}},
     "becomes public"),
    (SVC_PATCH, {"metadata": {"annotations": {"oci.oraclecloud.com/load-balancer-type": "nlb"}}}, "switches"),
    (SVC_PATCH, {"metadata": {"annotations": UNKNOWN}}, "unknown"),
    (SVC_PATCH, {"spec": {"externalIPs": ["203.0.113.2"]}}, "externalIPs"),
    ("kubernetes:networking.k8s.io/v1:IngressPatch", {"spec": {"ingressClassName": "public-nginx"}}, "public-nginx"),
])
def test_a_patch_is_judged_like_its_kind(type_, props, what):
    problems = patch_problems(type_, props, {})
    assert problems and what in " ".join(problems)


@pytest.mark.parametrize("type_, props, config", [
    (SVC_PATCH, {"spec": {"type": "LoadBalancer"}, "metadata": {"annotations": {
        **INTERNAL_LB, "oci.oraclecloud.com/load-balancer-type": "lb"}}}, {}),
    (SVC_PATCH, {"spec": {"type": "LoadBalancer"}, "metadata": {"annotations": {
        **INTERNAL_LB, "oci-network-load-balancer.oraclecloud.com/internal": "1"}}}, {}),
    (SVC_PATCH, {"metadata": {"labels": {"team": "a"}}}, {}),
    (CRB_PATCH, {"roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "view"},
                 "subjects": [{"kind": "ServiceAccount", "name": "a", "namespace": "b"}]}, {}),
    ("kubernetes:networking.k8s.io/v1:IngressPatch", {"spec": {"ingressClassName": "oci-internal"}},
     {"internalIngressClasses": ["oci-internal"]}),
    ("kubernetes:core/v1:ConfigMapPatch", {"data": {"a": "b"}}, {}),
])
def test_a_safe_patch_passes(type_, props, config):
    assert patch_problems(type_, props, config) == []


RAY = "kubernetes:ray.io/v1:"


@pytest.mark.parametrize("kind, spec, meta, what", [
    ("RayCluster", {"headGroupSpec": {"serviceType": "LoadBalancer"}}, {}, "headGroupSpec.serviceType"),
    ("RayCluster", {"headGroupSpec": {"serviceType": UNKNOWN}}, {}, "unknown"),
    ("RayJob", {"rayClusterSpec": {"headGroupSpec": {"headService": {"spec": {"type": "LoadBalancer"}}}}}, {},
     "headService"),
    ("RayService", {"serveService": {"spec": {"type": "LoadBalancer"}}}, {}, "serveService"),
    ("RayService", {"rayClusterConfig": {"headGroupSpec": {"enableIngress": True}}}, {}, "Ingress"),
    ("RayCronJob", {"jobTemplate": {"rayClusterSpec": {"headGroupSpec": {"enableIngress": True}}}},
     {"annotations": {"kubernetes.io/ingress.class": "nginx"}}, "'nginx'"),
    ("RayCluster", UNKNOWN, {}, "unknown"),
])
def test_operator_resources_that_expose_are_refused(kind, spec, meta, what):
    problems = custom_resource_exposure(RAY + kind, {"metadata": meta, "spec": spec}, {})
    assert problems and what in " ".join(problems)


@pytest.mark.parametrize("kind, spec, meta, config", [
    ("RayCluster", {"headGroupSpec": {"serviceType": "ClusterIP"}}, {}, {}),
    ("RayCluster", {"headServiceAnnotations": INTERNAL_LB, "headGroupSpec": {"serviceType": "LoadBalancer"}}, {},
     {}),
    ("RayService", {"serveService": {"spec": {"type": "ClusterIP"}},
                    "rayClusterConfig": {"headGroupSpec": {"enableIngress": True}}},
     {"annotations": {"kubernetes.io/ingress.class": "oci-internal"}}, {"internalIngressClasses": ["oci-internal"]}),
    ("RayJob", {"entrypoint": "python x.py"}, {}, {}),
])
def test_operator_resources_that_expose_nothing_pass(kind, spec, meta, config):
    assert custom_resource_exposure(RAY + kind, {"metadata": meta, "spec": spec}, config) == []


def test_patch_rule_reports_through_the_pack():
    assert found(PATCH, res(SVC_PATCH, "p", {"spec": {"type": "LoadBalancer"}}))
    assert found(PATCH, res(SVC_PATCH, "p", {"spec": {"type": "ClusterIP"}})) == []


@pytest.mark.parametrize("type_, items, what", [
    ("kubernetes:core/v1:ServiceList", [{"metadata": {"name": "s"}, "spec": {"type": "LoadBalancer"}}],
     "oci-load-balancer-internal"),
    ("kubernetes:core/v1:NamespaceList", [{"metadata": {"name": "n"}}], "pod-security.kubernetes.io/enforce"),
    ("kubernetes:core/v1:ServiceList", UNKNOWN, "unknown"),
])
def test_each_item_of_a_list_resource_is_judged_like_its_kind(type_, items, what):
    problems = list_problems(type_, {"items": items}, {})
    assert problems and what in " ".join(problems)
    assert list_problems(type_, {"items": []}, {}) == [] and list_problems("kubernetes:core/v1:Service", {}, {}) == []


def test_list_items_reach_the_pod_and_namespace_rules():
    pods = res("kubernetes:core/v1:PodList", "pods", {"items": [
        {"metadata": {"name": "p", "namespace": "apps"}, "spec": {"hostPID": True, "containers": []}}]})
    assert found(ESCAPE, namespace("apps", "restricted"), pods)
    nss = res("kubernetes:core/v1:NamespaceList", "nss", {"items": [
        {"metadata": {"name": "tools", "labels": {PSA: "privileged"}}}]})
    assert found(PURPOSE, nss)
    pv = res("kubernetes:core/v1:PersistentVolumePatch", "pv", {"metadata": {"name": "v"},
                                                                "spec": {"hostPath": {"path": "/etc"}}})
    assert found(ESCAPE, pv)


def ns_patch(labels, name="default"):
    return res(NSP, f"patch-{name}", {"metadata": {"name": name, "labels": labels}})


def test_namespace_patch_is_judged_like_a_namespace_when_it_sets_the_enforce_label():
    assert found(PURPOSE, ns_patch({PSA: "privileged", "pod-security.kubernetes.io/warn": "restricted"}))
    assert found(PURPOSE, ns_patch({PSA: "privileged"}, "kube-system"))
    assert found(PURPOSE, ns_patch({PSA: "restricted"})) == []
    assert found(ENFORCE, ns_patch({PSA: ""})) and found(ENFORCE, ns_patch({PSA: "lenient"}))
    assert found(ENFORCE, ns_patch({PSA: U}))
    [message] = found(ENFORCE, ns_patch({PSA: None}))  # a null label in a server-side apply patch removes it
    assert "\nNamespacePatch 'patch-default'" in message and "no pod-security.kubernetes.io/enforce" in message
    assert found(ENFORCE, ns_patch({"team": "a"})) == [] and found(ENFORCE, ns_patch({PSA: "baseline"})) == []


def test_a_namespace_patch_declares_the_level_pods_in_it_are_judged_against():
    pod = res("kubernetes:core/v1:Pod", "p", {"metadata": {"name": "p", "namespace": "default"},
                                              "spec": {"hostNetwork": True, "containers": [{"name": "c"}]}})
    [message] = found(RDMA, ns_patch({PSA: "restricted"}), pod)
    assert "not privileged" in message
    assert found(DECLARED, ns_patch({PSA: "restricted"}), pod) == []
    assert found(DECLARED, ns_patch({"team": "a"}), pod)  # a patch that leaves the level alone declares nothing


def test_workload_patches_are_pod_specs():
    patch = res("kubernetes:apps/v1:DaemonSetPatch", "d", {"metadata": {"name": "d", "namespace": "apps"},
                                                           "spec": {"template": {"spec": {"hostPID": True}}}})
    assert found(ESCAPE, namespace("apps", "restricted"), patch)


# --- hypothesis: the new rules report or pass on any shape ----------------------------------------------------------
KEYS = ["extraManifests", "extraObjects", "apiVersion", "kind", "metadata", "name", "namespace", "labels", PSA,
        "annotations", "spec", "type", "ingress", "enabled", "route", "main", "roleRef", "subjects", "values",
        "runtimePatches", "podTemplateOverrides", "trainingRuntimeSpec", "template", "replicatedJobs", "containers",
        "volumes", "hostPath", "path", "submitterPodTemplate", "jobTemplate", "serviceType", "externalIPs",
        "headGroupSpec", "enableIngress", "headService", "serveService", "rayClusterConfig", "items"]
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.sampled_from(
    ["v1", "Pod", "List", "LoadBalancer", "{{ x }}", "a: [", "privileged", "", U, "/", "rbac.authorization.k8s.io/v1",
     "ClusterRoleBinding"]))
SHAPES = st.recursive(LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                      st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)),
                      max_leaves=14)
TYPES = [HELM, NSP, SVC_PATCH, CRB_PATCH, "kubernetes:core/v1:PodList", "kubernetes:core/v1:NamespaceList", "kubernetes:apps/v1:DeploymentPatch",
         "kubernetes:trainer.kubeflow.org/v1alpha1:TrainJob", "kubernetes:trainer.kubeflow.org/v1alpha1:"
         "ClusterTrainingRuntime", "kubernetes:ray.io/v1:RayCronJob", "kubernetes:ray.io/v1:RayService", "kubernetes:example.com/v1:Widget"]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(TYPES), st.dictionaries(st.sampled_from(KEYS), SHAPES, max_size=5))
def test_path_rules_report_or_pass_on_any_shape(type_, props):
    run(res(type_, "x", props))  # evaluate raises PolicyRuntimeError if any rule raises
