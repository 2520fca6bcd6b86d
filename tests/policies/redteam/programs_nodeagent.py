"""Red-team programs for two ways to borrow a privilege that belongs elsewhere: a node-agent chart released as a
decoy so that pods declared beside it may take their node (or its namespace may be labelled privileged), and a
role of the stack — not a built-in one — that hands a namespace's Secrets, workloads, exec, tokens or ConfigMaps to a
service account of another namespace. Registered in ``programs.CASES`` on import, like every
``programs_<area>.py``."""
from __future__ import annotations

import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import PSA, case, container, namespace

RBAC = "rbac.authorization.k8s.io"
ESCAPE, PURPOSE, GRANTS = ("node-escape-only-in-node-agent-namespaces", "privileged-namespace-purpose",
                           "kubernetes-rbac-no-escalation")
PROMETHEUS = "https://prometheus-community.github.io/helm-charts"
NVIDIA = "https://helm.ngc.nvidia.com/nvidia"
#: What the node exporter's DaemonSet runs with (prometheus-node-exporter chart: hostPID, hostPath /).
NODE_EXPORTER_POD = {"hostPID": True, "volumes": [{"name": "root", "hostPath": {"path": "/"}}],
                     "containers": [container()]}


def _daemon_set(ns: str) -> None:
    k8s.apps.v1.DaemonSet("agent", metadata={"name": "agent", "namespace": ns}, spec={
        "selector": {"matchLabels": {"app": "agent"}},
        "template": {"metadata": {"labels": {"app": "agent"}}, "spec": NODE_EXPORTER_POD}})


def _kube_prometheus_stack(ns: str, **extra) -> None:
    k8s.helm.v3.Release("kps", chart="kube-prometheus-stack", version="87.2.1", namespace=ns,
                        repository_opts={"repo": PROMETHEUS}, **extra)


# --- node-agent namespaces by decoy ---------------------------------------------------------------------------------
@case("pod", ESCAPE)
def decoy_kube_prometheus_stack_in_a_tenant_namespace(bad):
    # The stack releases kube-prometheus-stack into the tenant's namespace and declares a node-exporter-like
    # DaemonSet there; the control puts both where oke-rdma puts them.
    ns = "research" if bad else "monitoring"
    namespace(ns, "privileged")
    _kube_prometheus_stack(ns)
    _daemon_set(ns)


@case("pod", ESCAPE)
def gpu_operator_namespace_labelled_as_a_tenant(bad):
    # The configured node-agent namespace gpu-operator carries the tenant label: a tenant is never a node-agent
    # namespace, so the GPU Operator and its DaemonSet are refused there; the control is the same without the label.
    labels = {PSA: "privileged", **({"okerdma.io/tenant": "gpu-operator"} if bad else {})}
    k8s.core.v1.Namespace("ns", metadata={"name": "gpu-operator", "labels": labels})
    k8s.helm.v3.Release("gpu", chart="gpu-operator", version="v25.10.1", namespace="gpu-operator",
                        repository_opts={"repo": NVIDIA})
    _daemon_set("gpu-operator")


@case("pod", ESCAPE)
def decoy_node_exporter_through_a_chart_url(bad):
    ns = "research" if bad else "monitoring"
    namespace(ns, "privileged")
    k8s.helm.v3.Release("ne", chart=PROMETHEUS + "/prometheus-node-exporter-4.47.0.tgz",
                        version="4.47.0", namespace=ns)
    _daemon_set(ns)


@case("pod", ESCAPE)
def node_agent_chart_into_a_namespace_it_creates(bad):
    # createNamespace makes a namespace the stack does not declare; it is no node-agent namespace either.
    if bad:
        _kube_prometheus_stack("node-metrics", create_namespace=True)
    else:
        namespace("monitoring", "privileged")
        _kube_prometheus_stack("monitoring")


@case("pod", ESCAPE)
def release_named_like_a_node_agent(bad):
    # A release called gpu-operator whose chart is KEDA: the name makes nothing a node agent; its host PID stays
    # refused where oke-rdma's tenants run.
    namespace("research", "privileged")
    k8s.helm.v3.Release("gpu-operator", name="gpu-operator", chart="keda", version="2.20.2", namespace="research",
                        repository_opts={"repo": "https://kedacore.github.io/charts"},
                        values={"hostPID": bad})


@case("pod", ESCAPE)
def tenant_namespace_named_like_a_node_agent_namespace(bad):
    # A tenant called "monitoring" (a Kueue LocalQueue in it): a tenant is never a node-agent namespace, whatever
    # its name; the control is the same namespace without the tenant's queue.
    namespace("monitoring", "privileged")
    if bad:
        k8s.apiextensions.CustomResource("lq", api_version="kueue.x-k8s.io/v1beta2", kind="LocalQueue",
                                         metadata={"name": "monitoring", "namespace": "monitoring"},
                                         spec={"clusterQueue": "monitoring"})
    _daemon_set("monitoring")


@case("pod", ESCAPE)
def node_exporter_moved_into_a_tenant_namespace_by_values(bad):
    # kube-prometheus-stack where oke-rdma installs it, its node exporter rendered into the tenant's namespace
    # (the prometheus-community charts' namespaceOverride).
    namespace("monitoring", "privileged")
    namespace("research", "privileged")
    _kube_prometheus_stack("monitoring", values={
        "prometheus-node-exporter": {"namespaceOverride": "research" if bad else "monitoring"},
        "grafana": {"sidecar": {"dashboards": {"searchNamespace": "monitoring"}}}})  # as oke-rdma pins it


@case("pod", PURPOSE)
def decoy_release_to_label_a_namespace_privileged(bad):
    ns = "apps" if bad else "monitoring"
    k8s.core.v1.Namespace("ns", metadata={"name": ns, "labels": {PSA: "privileged"}})
    _kube_prometheus_stack(ns) if not bad else k8s.helm.v3.Release(
        "kps", chart="kube-prometheus-stack", version="87.2.1", namespace=ns,
        repository_opts={"repo": PROMETHEUS}, values={"nodeExporter": {"enabled": False}})


# --- a stack role given across namespaces ---------------------------------------------------------------------------
OTHER = {"kind": "ServiceAccount", "name": "ml", "namespace": "vision"}
OWN = {"kind": "ServiceAccount", "name": "ml", "namespace": "research"}


def _role_across(bad: bool, rules: list[dict], subject_bad: dict = OTHER, subject_safe: dict = OWN,
                 name: str = "helper") -> None:
    k8s.rbac.v1.Role("role", metadata={"name": name, "namespace": "research"}, rules=rules)
    k8s.rbac.v1.RoleBinding("rb", metadata={"name": name, "namespace": "research"},
                            subjects=[subject_bad if bad else subject_safe],
                            role_ref={"api_group": RBAC, "kind": "Role", "name": name})


def _rule(verbs: list[str], resources: list[str], group: str = "") -> dict:
    return {"api_groups": [group], "resources": resources, "verbs": verbs}


@case("identity", GRANTS)
def stack_role_reads_a_tenants_secrets_for_another_namespace(bad):
    _role_across(bad, [_rule(["get", "list"], ["secrets"])])


@case("identity", GRANTS)
def stack_role_port_forwards_into_a_tenants_pods(bad):
    _role_across(bad, [_rule(["create"], ["pods/portforward"])])


@case("identity", GRANTS)
def stack_role_impersonates_a_tenants_service_accounts(bad):
    _role_across(bad, [_rule(["impersonate"], ["serviceaccounts"])])


@case("identity", GRANTS)
def stack_role_mints_a_tenants_tokens(bad):
    _role_across(bad, [_rule(["create"], ["serviceaccounts/token"])])


@case("identity", GRANTS)
def stack_role_rewrites_a_tenants_config_maps(bad):
    _role_across(bad, [_rule(["update", "patch"], ["configmaps"])])


@case("identity", GRANTS)
def stack_role_adds_ephemeral_containers_to_a_tenants_pods(bad):
    _role_across(bad, [_rule(["patch"], ["pods/ephemeralcontainers"])])


@case("identity", GRANTS)
def stack_role_creates_a_tenants_ray_jobs_for_another_namespaces_user_form(bad):
    # the other namespace's service account named by its username
    user = {"kind": "User", "api_group": RBAC,
            "name": f"system:serviceaccount:{'vision' if bad else 'research'}:ml"}
    _role_across(bad, [_rule(["create"], ["rayjobs"], "ray.io")], subject_bad=user, subject_safe=user)


@case("identity", GRANTS)
def cluster_role_bound_in_a_tenant_namespace_for_another_namespace(bad):
    k8s.rbac.v1.ClusterRole("cr", metadata={"name": "pod-runner"}, rules=[_rule(["create"], ["pods"])])
    k8s.rbac.v1.RoleBinding("rb", metadata={"name": "pod-runner", "namespace": "research"},
                            subjects=[OTHER if bad else OWN],
                            role_ref={"api_group": RBAC, "kind": "ClusterRole", "name": "pod-runner"})


@case("identity", GRANTS)
def aggregated_cluster_role_execs_across_namespaces(bad):
    k8s.rbac.v1.ClusterRole("piece", metadata={"name": "piece", "labels": {"example.com/bundle": "true"}},
                            rules=[_rule(["create"], ["pods/exec"])])
    k8s.rbac.v1.ClusterRole("bundle", metadata={"name": "bundle"}, aggregation_rule={
        "cluster_role_selectors": [{"match_labels": {"example.com/bundle": "true"}}]})
    k8s.rbac.v1.RoleBinding("rb", metadata={"name": "bundle", "namespace": "research"},
                            subjects=[OTHER if bad else OWN],
                            role_ref={"api_group": RBAC, "kind": "ClusterRole", "name": "bundle"})


@case("identity", GRANTS)
def role_named_like_the_mpi_operators_for_another_tenants_controller(bad):
    # The MPI Operator's exception holds only for the controller named after the binding's namespace. The stack
    # installs the MPI Operator itself (declares its namespace), so the role may carry the operator's name.
    k8s.core.v1.Namespace("ns-mpi", metadata={"name": "mpi-operator", "labels": {
        "pod-security.kubernetes.io/enforce": "restricted"}})
    controller = {"kind": "ServiceAccount", "namespace": "mpi-operator",
                  "name": "mpi-operator-vision" if bad else "mpi-operator-research"}
    _role_across(bad, [_rule(["list", "watch"], ["secrets"])], subject_bad=controller, subject_safe=controller,
                 name="mpi-operator")
