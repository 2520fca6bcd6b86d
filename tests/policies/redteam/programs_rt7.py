"""Red-team programs of the seventh pass's classes: where an object without a namespace lands (the kubeconfig
context of its provider), settings injected into pods the objects do not declare (Kueue flavors, namespace default
tolerations, RuntimeClasses), node-address paths into the platform's walled namespaces, and resources given outside
the tenancy's accounting (LimitRange defaults). Registered into ``programs.CASES`` on import."""
from __future__ import annotations

import json

import pulumi
import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import case, namespace

READ_SECRETS = [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list"]}]
USER = [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice@example.com"}]
REF = {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "secret-reader"}


def kubeconfig(contexts: dict[str, str], current: str) -> str:
    """An inline kubeconfig whose contexts (name → namespace) all reach one cluster."""
    return json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": current,
        "clusters": [{"name": "k", "cluster": {"server": "https://10.0.0.10:6443"}}],
        "users": [{"name": "u", "user": {"token": "x"}}],
        "contexts": [{"name": n, "context": {"cluster": "k", "user": "u", "namespace": ns}}
                     for n, ns in contexts.items()]})


def _secret_reader(opts: pulumi.ResourceOptions) -> None:
    k8s.rbac.v1.Role("reader", metadata={"name": "secret-reader"}, rules=READ_SECRETS, opts=opts)
    k8s.rbac.v1.RoleBinding("reader", metadata={"name": "secret-reader"}, role_ref=REF, subjects=USER, opts=opts)


# --- where an object without a namespace lands ---------------------------------------------------------------------

@case("identity", "kubernetes-rbac-no-escalation")
def role_lands_in_the_provider_contexts_named_by_its_context_input(bad):
    """The provider's ``context`` input (not the kubeconfig's current context) picks the context whose namespace
    the objects land in."""
    namespace("apps", "restricted")
    config = kubeconfig({"dev": "apps", "admin": "kube-system"}, current="dev")
    _secret_reader(pulumi.ResourceOptions(provider=k8s.Provider("k8s", kubeconfig=config,
                                                                context="admin" if bad else "dev")))


@case("identity", "kubernetes-rbac-no-escalation")
def kustomize_role_lands_in_the_kubeconfig_contexts_kube_system(bad):
    """A remote component's objects (yaml/v2 ConfigGroup) land where the provider's kubeconfig context says."""
    namespace("apps", "restricted")
    config = kubeconfig({"c": "kube-system" if bad else "apps"}, current="c")
    k8s.yaml.v2.ConfigGroup("rbac", objs=[
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "secret-reader"},
         "rules": READ_SECRETS},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "secret-reader"},
         "roleRef": REF, "subjects": USER}],
        opts=pulumi.ResourceOptions(provider=k8s.Provider("k8s", kubeconfig=config)))


@case("identity", "kubernetes-platform-objects-only-by-platform")
def role_with_a_kubeconfig_path_lands_in_an_unknown_namespace(bad):
    """A kubeconfig given as a file path: its context's namespace is not in the props, so the objects' namespace is
    unknown and judged fail-closed; naming the provider's namespace is the control."""
    namespace("apps", "restricted")
    inputs = {"kubeconfig": "/home/ci/.kube/config", **({} if bad else {"namespace": "apps"})}
    _secret_reader(pulumi.ResourceOptions(provider=k8s.Provider("k8s", **inputs)))


# --- settings injected into pods -------------------------------------------------------------------------------------

def _tenant(name: str = "research", annotations: dict | None = None) -> None:
    meta = {"name": name, "labels": {"pod-security.kubernetes.io/enforce": "restricted", "okerdma.io/tenant": name},
            **({"annotations": annotations} if annotations else {})}
    k8s.core.v1.Namespace(f"ns-{name}", metadata=meta)


EVERY_TAINT = [{"operator": "Exists"}]
GPU_TAINT = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


@case("placement", "injected-scheduling-judged-as-pod-specs")
def resource_flavor_v1beta1_tolerates_every_taint(bad):
    """The older Kueue API version writes a flavor's tolerations into admitted pods the same way."""
    _tenant()
    k8s.apiextensions.CustomResource("rf", api_version="kueue.x-k8s.io/v1beta1", kind="ResourceFlavor",
                                     metadata={"name": "gpu"}, spec={
                                         "nodeLabels": {"okerdma.io/node-pool": "gpu"},
                                         "tolerations": EVERY_TAINT if bad else GPU_TAINT})


@case("placement", "injected-scheduling-judged-as-pod-specs")
def tenant_namespace_default_tolerations_tolerate_every_taint(bad):
    """PodTolerationRestriction writes a namespace's default tolerations into every pod of it."""
    _tenant(annotations={"scheduler.alpha.kubernetes.io/defaultTolerations": json.dumps(
        EVERY_TAINT if bad else GPU_TAINT)})


@case("placement", "pod-defaults-give-no-devices")
def limit_range_defaults_a_mig_slice_in_a_tenant_namespace(bad):
    """A LimitRange default of a MIG profile in a tenant's own namespace: every container takes a slice its spec
    never asked for, past the pool rule that reads specs."""
    _tenant()
    default = {"cpu": "1", "memory": "4Gi", **({"nvidia.com/mig-1g.10gb": "1"} if bad else {})}
    k8s.core.v1.LimitRange("defaults", metadata={"name": "defaults", "namespace": "research"},
                           spec={"limits": [{"type": "Container", "defaultRequest": default, "default": default}]})


# --- node-address paths into the platform's walled namespaces ------------------------------------------------------

@case("network", "platform-wall-no-node-paths")
def flexible_load_balancer_in_front_of_prometheus(bad):
    """An internal LoadBalancer Service of OCI's flexible load balancer (a proxy) in ``monitoring``: tenant pods reach
    Prometheus through its VCN address as 'world'. Control: a network load balancer that keeps the client's
    address."""
    _tenant()
    namespace("monitoring", "privileged")
    annotations = {"service.beta.kubernetes.io/oci-load-balancer-internal": "true"} if bad else {
        "oci.oraclecloud.com/load-balancer-type": "nlb",
        "oci-network-load-balancer.oraclecloud.com/internal": "true",
        "oci-network-load-balancer.oraclecloud.com/is-preserve-source": "true"}
    k8s.core.v1.Service("prom-lb", metadata={"name": "prom-lb", "namespace": "monitoring",
                                             "annotations": annotations},
                        spec={"type": "LoadBalancer", "externalTrafficPolicy": "Local",
                              "selector": {"app.kubernetes.io/name": "prometheus"},
                              "ports": [{"port": 9090, "targetPort": 9090}]})


@case("network", "platform-wall-no-node-paths")
def host_port_on_a_platform_pod(bad):
    """A Deployment in the privileged ``monitoring`` namespace publishing a hostPort: tenant pods reach it at
    <node>:<hostPort>. Control: a container port only."""
    _tenant()
    namespace("monitoring", "privileged")
    port = {"containerPort": 3000, **({"hostPort": 3000} if bad else {})}
    k8s.apps.v1.Deployment("grafana", metadata={"name": "grafana", "namespace": "monitoring"}, spec={
        "selector": {"matchLabels": {"app": "grafana"}},
        "template": {"metadata": {"labels": {"app": "grafana"}}, "spec": {"containers": [
            {"name": "grafana", "image": "docker.io/grafana/grafana:12.3.0", "ports": [port]}]}}})
