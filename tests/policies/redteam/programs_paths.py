"""Red-team programs for the paths to an object other than declaring it: manifests rendered verbatim from Helm
values, exposure created through values, server-side-apply ``*Patch`` resources on objects the stack does not own,
and pod specs inside operator custom resources (Kubeflow Trainer, KubeRay, MPI, Prometheus). Registered in
``programs.CASES`` on import, like every ``programs_<area>.py``."""
from __future__ import annotations

import pulumi_kubernetes as k8s
import yaml

from tests.policies.redteam.programs import INTERNAL_LB, PSA, case, container, namespace, release

RBAC = "rbac.authorization.k8s.io"
RESTRICTED_POD = {"containers": [container(runAsNonRoot=True, allowPrivilegeEscalation=False,
                                           capabilities={"drop": ["ALL"]}, seccompProfile={"type": "RuntimeDefault"})]}
RDMA_POD = {"hostNetwork": True, "volumes": [{"name": "ib", "hostPath": {"path": "/dev/infiniband"}}],
            "containers": [container(privileged=True, capabilities={"add": ["IPC_LOCK"]})]}
NODE_ESCAPE_POD = {"hostPID": True, "volumes": [{"name": "root", "hostPath": {"path": "/"}}],
                   "containers": [container(capabilities={"add": ["SYS_ADMIN"]})]}


def kube_prometheus_stack(values: dict) -> None:
    """kube-prometheus-stack in its node-agent namespace ``monitoring``, as oke-rdma installs it."""
    namespace("monitoring", "privileged")
    k8s.helm.v3.Release("kps", chart="kube-prometheus-stack", version="87.2.1", namespace="monitoring",
                        repository_opts={"repo": "https://prometheus-community.github.io/helm-charts"}, values=values)


def binding(role: str, subject: dict, kind: str = "ClusterRoleBinding") -> dict:
    return {"apiVersion": f"{RBAC}/v1", "kind": kind, "metadata": {"name": "extra"},
            "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": role}, "subjects": [subject]}


AUTHENTICATED = {"kind": "Group", "apiGroup": RBAC, "name": "system:authenticated"}
METRICS_SA = {"kind": "ServiceAccount", "name": "metrics", "namespace": "monitoring"}


# --- manifests rendered verbatim from Helm values -------------------------------------------------------------------
@case("identity", "helm-values-manifests")
def kps_extra_manifests_cluster_admin_for_everyone(bad):
    kube_prometheus_stack({"extraManifests": [binding("cluster-admin" if bad else "view",
                                                      AUTHENTICATED if bad else METRICS_SA)]})


@case("network", "helm-values-manifests")
def grafana_extra_objects_public_load_balancer(bad):
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {
        "name": "grafana-lb", "annotations": {} if bad else INTERNAL_LB},
        "spec": {"type": "LoadBalancer", "selector": {"app.kubernetes.io/name": "grafana"}, "ports": [{"port": 80}]}}
    kube_prometheus_stack({"grafana": {"extraObjects": [service]}})


@case("pod", "node-escape-only-in-node-agent-namespaces")
def keda_extra_objects_yaml_string_pod_takes_the_node(bad):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "debug"},
           "spec": NODE_ESCAPE_POD if bad else RESTRICTED_POD}
    release({"extraObjects": [yaml.safe_dump(pod)]})


@case("identity", "helm-values-manifests")
def extra_manifests_item_is_a_template(bad):
    role = "{{ .Values.adminRole }}" if bad else "view"
    kube_prometheus_stack({"extraManifests": [binding(role, METRICS_SA)]})


@case("pod", "privileged-namespace-purpose")
def node_exporter_extra_manifests_privileged_namespace(bad):
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": "scratch", "labels": {PSA: "privileged" if bad else "restricted"}}}
    kube_prometheus_stack({"prometheus-node-exporter": {"extraManifests": [yaml.safe_dump(ns)]}})


@case("identity", "helm-values-manifests")
def extra_manifests_map_holding_a_list_of_bindings(bad):
    everyone = {"kind": "Group", "apiGroup": RBAC, "name": "system:serviceaccounts"}
    items = {"apiVersion": "v1", "kind": "List", "items": [
        binding("view", everyone if bad else METRICS_SA, kind="RoleBinding")]}
    kube_prometheus_stack({"extraManifests": {"rbac": items}})


# --- exposure through Helm values -----------------------------------------------------------------------------------
@case("network", "helm-values-exposure")
def prometheus_ingress_enabled_in_values(bad):
    kube_prometheus_stack({"prometheus": {"ingress": {"enabled": bad, "hosts": ["prometheus.example.com"]}}})


@case("network", "helm-values-exposure")
def thanos_sidecar_service_defaults_to_a_public_load_balancer(bad):
    section = {"enabled": True, **({} if bad else {"annotations": INTERNAL_LB})}
    kube_prometheus_stack({"prometheus": {"thanosServiceExternal": section}})


@case("network", "helm-values-exposure")
def kueueviz_ingresses_on_by_default(bad):
    namespace("kueue-system", "restricted")
    off = {} if bad else {"kueueViz": {"backend": {"ingress": {"enabled": False}},
                                       "frontend": {"ingress": {"enabled": False}}}}
    k8s.helm.v3.Release("kueue", chart="oci://registry.k8s.io/kueue/charts/kueue", version="0.18.2",
                        namespace="kueue-system", values={"enableKueueViz": True, **off})


@case("network", "helm-values-exposure")
def grafana_gateway_route_enabled(bad):
    kube_prometheus_stack({"grafana": {"route": {"main": {"enabled": bad, "parentRefs": [{"name": "public-gw"}]}}}})


@case("network", "helm-values-exposure")
def service_external_ips_in_values(bad):
    release({"service": {"type": "ClusterIP", **({"externalIPs": ["203.0.113.10"]} if bad else {})}})


# --- patches to objects the stack does not own ----------------------------------------------------------------------
@case("pod", "privileged-namespace-purpose")
def namespace_patch_labels_default_privileged(bad):
    k8s.core.v1.NamespacePatch("default-psa", metadata={"name": "default", "labels": {
        PSA: "privileged" if bad else "restricted", "pod-security.kubernetes.io/warn": "restricted"}})


@case("pod", "namespace-pod-security-enforce")
def namespace_patch_blanks_the_enforce_label(bad):
    k8s.core.v1.NamespacePatch("default-psa", metadata={"name": "default", "labels": {
        PSA: "" if bad else "baseline"}})


@case("network", "kubernetes-patch-or-list-judged-as-kind")
def service_patch_to_a_public_load_balancer(bad):
    annotations = {"oci.oraclecloud.com/load-balancer-type": "lb", **({} if bad else INTERNAL_LB)}
    k8s.core.v1.ServicePatch("expose", metadata={"name": "grafana", "namespace": "monitoring",
                                                 "annotations": annotations},
                             spec={"type": "LoadBalancer"})


@case("network", "kubernetes-patch-or-list-judged-as-kind")
def service_patch_unsets_the_internal_annotation(bad):
    k8s.core.v1.ServicePatch("flip", metadata={"name": "grafana", "namespace": "monitoring", "annotations": {
        "service.beta.kubernetes.io/oci-load-balancer-internal": "false" if bad else "true"}})


@case("identity", "kubernetes-rbac-no-escalation")
def cluster_role_binding_patch_adds_every_caller(bad):
    k8s.rbac.v1.ClusterRoleBindingPatch("grant", metadata={"name": "metrics-reader"},
                                        role_ref={"apiGroup": RBAC, "kind": "ClusterRole", "name": "view"},
                                        subjects=[AUTHENTICATED if bad else METRICS_SA])


@case("pod", "node-escape-only-in-node-agent-namespaces")
def daemonset_patch_adds_host_pid(bad):
    namespace("apps", "restricted")
    spec = {"hostPID": True} if bad else {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}
    k8s.apps.v1.DaemonSetPatch("agent", metadata={"name": "agent", "namespace": "apps"},
                               spec={"template": {"spec": spec}})


@case("identity", "kubernetes-rbac-no-escalation")
def cluster_role_binding_list_for_every_caller(bad):
    k8s.rbac.v1.ClusterRoleBindingList("grants", items=[{**binding("cluster-admin" if bad else "view",
                                                                   AUTHENTICATED if bad else METRICS_SA),
                                                          "metadata": {"name": "grant"}}])


@case("pod", "node-escape-only-in-node-agent-namespaces")
def pod_list_item_mounts_the_host_root(bad):
    namespace("research", "privileged")
    k8s.core.v1.PodList("pods", items=[{"metadata": {"name": "p", "namespace": "research"},
                                        "spec": NODE_ESCAPE_POD if bad else RDMA_POD}])


@case("pod", "node-escape-only-in-node-agent-namespaces")
def persistent_volume_patch_points_at_etc(bad):
    k8s.core.v1.PersistentVolumePatch("pv", metadata={"name": "scratch"},
                                      spec={"hostPath": {"path": "/etc" if bad else "/mnt/scratch"}})


# --- pod specs inside operator custom resources ---------------------------------------------------------------------
def trainjob(spec: dict, ns: str = "research") -> None:
    namespace(ns, "privileged")
    k8s.apiextensions.CustomResource("tj", api_version="trainer.kubeflow.org/v1alpha1", kind="TrainJob",
                                     metadata={"name": "llm", "namespace": ns,  # through the tenant's queue
                                               "labels": {"kueue.x-k8s.io/queue-name": ns}},
                                     spec={"runtimeRef": {"name": "torch-distributed"}, **spec})


@case("pod", "node-escape-only-in-node-agent-namespaces")
def trainjob_runtime_patch_mounts_the_host_root(bad):
    path = "/" if bad else "/dev/infiniband"
    trainjob({"runtimePatches": [{"manager": "example.com/platform", "trainingRuntimeSpec": {"template": {"spec": {
        "replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
            "volumes": [{"name": "v", "hostPath": {"path": path}}]}}}}}]}}}}]})


@case("pod", "node-escape-only-in-node-agent-namespaces")
def trainjob_pod_template_override_adds_sys_admin(bad):
    cap = "SYS_ADMIN" if bad else "IPC_LOCK"
    trainjob({"podTemplateOverrides": [{"targetJobs": [{"name": "node"}], "spec": {
        "containers": [{"name": "node", "securityContext": {"capabilities": {"add": [cap]}}}]}}]})


def cluster_runtime(pod_spec: dict) -> None:
    namespace("research", "privileged")
    k8s.apiextensions.CustomResource("ctr", api_version="trainer.kubeflow.org/v1alpha1",
                                     kind="ClusterTrainingRuntime", metadata={"name": "torch-rdma"},
                                     spec={"template": {"spec": {"replicatedJobs": [{"name": "node", "template": {
                                         "spec": {"template": {"spec": pod_spec}}}}]}}})


@case("pod", "node-escape-only-in-node-agent-namespaces")
def cluster_training_runtime_takes_the_node(bad):
    cluster_runtime(NODE_ESCAPE_POD if bad else RDMA_POD)


@case("pod", "rdma-pods-in-privileged-namespaces")
def cluster_training_runtime_beyond_the_rdma_envelope(bad):
    spec = {**RDMA_POD, "securityContext": {"seccompProfile": {"type": "Unconfined"}}} if bad else RDMA_POD
    cluster_runtime(spec)


@case("pod", "node-escape-only-in-node-agent-namespaces")
def rayjob_submitter_pod_host_pid(bad):
    namespace("research", "privileged")
    submitter = {"hostPID": True, "containers": [container()]} if bad else {"containers": [container()]}
    k8s.apiextensions.CustomResource("ray", api_version="ray.io/v1", kind="RayJob",
                                     metadata={"name": "batch", "namespace": "research"},
                                     spec={"entrypoint": "python train.py",
                                           "submitterPodTemplate": {"spec": submitter},
                                           "rayClusterSpec": {"headGroupSpec": {"template": {"spec": RDMA_POD}}}})


@case("pod", "node-escape-only-in-node-agent-namespaces")
def raycronjob_head_mounts_kubelet(bad):
    namespace("research", "privileged")
    path = "/var/lib/kubelet" if bad else "/dev/infiniband"
    head = {"volumes": [{"name": "v", "hostPath": {"path": path}}], "containers": [container()]}
    k8s.apiextensions.CustomResource("raycron", api_version="ray.io/v1", kind="RayCronJob",
                                     metadata={"name": "nightly", "namespace": "research"},
                                     spec={"schedule": "0 2 * * *", "jobTemplate": {
                                         "entrypoint": "python eval.py",
                                         "rayClusterSpec": {"headGroupSpec": {"template": {"spec": head}}}}})


@case("network", "kubernetes-patch-or-list-judged-as-kind")
def service_patch_load_balancer_without_its_type(bad):
    """The live Service may say nlb: then the load balancer annotation the patch sets does nothing."""
    annotations = INTERNAL_LB if bad else {**INTERNAL_LB, "oci-network-load-balancer.oraclecloud.com/internal": "true"}
    k8s.core.v1.ServicePatch("expose", metadata={"name": "grafana", "namespace": "monitoring",
                                                 "annotations": annotations}, spec={"type": "LoadBalancer"})


@case("network", "custom-resource-exposure")
def raycluster_head_service_public_load_balancer(bad):
    namespace("research", "privileged")
    k8s.apiextensions.CustomResource("rc", api_version="ray.io/v1", kind="RayCluster",
                                     metadata={"name": "dash", "namespace": "research"},
                                     spec={"headServiceAnnotations": {} if bad else INTERNAL_LB,
                                           "headGroupSpec": {"serviceType": "LoadBalancer",
                                                             "template": {"spec": RDMA_POD}}})


@case("network", "custom-resource-exposure")
def rayservice_head_ingress(bad):
    namespace("research", "privileged")
    k8s.apiextensions.CustomResource("rs", api_version="ray.io/v1", kind="RayService",
                                     metadata={"name": "serve", "namespace": "research"},
                                     spec={"rayClusterConfig": {"headGroupSpec": {
                                         "enableIngress": bad, "template": {"spec": RDMA_POD}}}})


@case("pod", "rdma-pods-in-privileged-namespaces")
def prometheus_custom_resource_host_network(bad):
    namespace("apps", "restricted")
    k8s.apiextensions.CustomResource("prom", api_version="monitoring.coreos.com/v1", kind="Prometheus",
                                     metadata={"name": "team", "namespace": "apps"},
                                     spec={"replicas": 1, "hostNetwork": bad,
                                           "containers": [{"name": "prometheus", "securityContext": {
                                               "allowPrivilegeEscalation": False}}]})
