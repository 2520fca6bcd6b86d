"""Tenant isolation rules: RBAC reaches only the tenant's own namespace (kubernetes-tenant-rbac-own-namespace-only),
tenant pods are placed by the platform (tenant-pods-scheduled-by-the-platform), mount storage through their own
claims (tenant-volumes-through-claims) and expose Services only inside the wall (tenant-services-inside-the-wall); a
GPU quota of 0 makes no GPU tenant (privileged-namespace-purpose)."""
from __future__ import annotations

import pytest

from offline.policy_eval import evaluate
from policies.security import _pss, tenant_pods, tenant_reach
from policies.security.pack import PACK_NAME, POLICIES
from tests.policies.test_policies import U, res

NS, RQ = "kubernetes:core/v1:Namespace", "kubernetes:core/v1:ResourceQuota"
RBAC = "kubernetes:rbac.authorization.k8s.io/v1:"
API = "rbac.authorization.k8s.io"


def violations(rule, *resources):
    cfg = {"all": "disabled", rule: {"enforcementLevel": "mandatory"}}
    report = evaluate(POLICIES, list(resources), PACK_NAME, policy_config=cfg)
    return [v.message for v in report.violations if v.policy == rule]


def tenant(name):
    return res(NS, f"ns-{name}", {"metadata": {"name": name, "labels": {"okerdma.io/tenant": name}}})


def sa(ns, name="runner"):
    return {"kind": "ServiceAccount", "name": name, "namespace": ns}


def rolebinding(ns, *subjects, role="r"):
    return res(RBAC + "RoleBinding", "rb", {"metadata": {"name": "rb", "namespace": ns}, "subjects": list(subjects),
                                            "roleRef": {"apiGroup": API, "kind": "Role", "name": role}})


def role(ns, resources, verbs):
    return res(RBAC + "Role", "r", {"metadata": {"name": "r", "namespace": ns},
                                     "rules": [{"apiGroups": [""], "resources": resources, "verbs": verbs}]})


# --- RBAC reach -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("resources, verbs", [(["persistentvolumeclaims"], ["delete"]), (["pods/log"], ["get"]),
                                              (["configmaps"], ["list"]), (["pods"], ["deletecollection"])])
def test_any_grant_in_a_tenant_namespace_to_another_tenants_account_is_refused(resources, verbs):
    found = violations(tenant_reach.RULE, tenant("research"), tenant("analytics"), role("research", resources, verbs),
                       rolebinding("research", sa("analytics")))
    assert len(found) == 1 and "ServiceAccount:analytics/runner" in found[0]


@pytest.mark.parametrize("subject", [sa("research"), sa("monitoring", "prometheus"), sa("mpi-operator", "ctl"),
                                     {"kind": "Group", "name": "oidc:research-devs", "apiGroup": API}])
def test_own_accounts_platform_accounts_and_people_pass(subject):
    assert violations(tenant_reach.RULE, tenant("research"), role("research", ["pods"], ["get"]),
                      rolebinding("research", subject)) == []


@pytest.mark.parametrize("subject", [{"kind": "User", "name": "system:serviceaccount:analytics:runner"},
                                     {"kind": "Group", "name": "system:serviceaccounts:analytics"},
                                     {"kind": "Group", "name": "system:serviceaccounts"}, sa(U)])
def test_another_namespaces_accounts_in_every_form_are_refused(subject):
    assert violations(tenant_reach.RULE, tenant("research"), role("research", ["pods"], ["get"]),
                      rolebinding("research", subject))


def test_a_binding_outside_tenant_namespaces_is_not_judged_here():
    assert violations(tenant_reach.RULE, tenant("research"), role("apps", ["pods"], ["get"]),
                      rolebinding("apps", sa("analytics"))) == []


@pytest.mark.parametrize("subject, refused", [
    (sa("analytics"), True), ({"kind": "Group", "name": "system:serviceaccounts:analytics"}, True),
    (sa("monitoring", "prometheus"), False)])
def test_a_cluster_role_binding_naming_a_tenant_subject_is_refused(subject, refused):
    crb = res(RBAC + "ClusterRoleBinding", "b", {"metadata": {"name": "b"}, "subjects": [subject],
                                                 "roleRef": {"apiGroup": API, "kind": "ClusterRole", "name": "view"}})
    assert bool(violations(tenant_reach.RULE, tenant("analytics"), crb)) is refused


def test_people_bound_in_a_tenant_namespace_are_tenant_subjects_cluster_wide_too():
    people = {"kind": "Group", "name": "oidc:analytics-devs", "apiGroup": API}
    crb = res(RBAC + "ClusterRoleBinding", "b", {"metadata": {"name": "b"}, "subjects": [people],
                                                 "roleRef": {"apiGroup": API, "kind": "ClusterRole", "name": "view"}})
    assert violations(tenant_reach.RULE, tenant("analytics"), rolebinding("analytics", people), crb)
    assert violations(tenant_reach.RULE, tenant("analytics"), crb) == []


# --- scheduling -------------------------------------------------------------------------------------------------------
def pod(spec, ns="analytics", kind="kubernetes:core/v1:Pod"):
    return res(kind, "p", {"metadata": {"name": "p", "namespace": ns}, "spec": spec})


C = [{"name": "c", "image": "x"}]


@pytest.mark.parametrize("spec, refused", [
    ({"containers": C, "nodeName": "10.0.10.21"}, True), ({"containers": C, "nodeName": U}, True),
    ({"containers": C, "tolerations": [{"operator": "Exists"}]}, True),
    ({"containers": C, "tolerations": [{"operator": "Exists", "effect": "NoSchedule"}]}, True),
    ({"containers": C, "tolerations": U}, True),
    ({"containers": C, "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]}, True),
    ({"containers": C, "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
      "nodeSelector": {"okerdma.io/node-pool": "gpu"}}, True),
    ({"containers": C, "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}]}, False),
    ({"containers": C}, False)])
def test_tenant_pods_are_placed_by_the_scheduler(spec, refused):
    """nodeName, a toleration of every taint or an unknown one is refused; a pod tolerating the GPU taint is a GPU
    pod, which must land on its tenant's pools (none are declared here, so any GPU pod is refused); a pod with
    neither passes."""
    assert bool(violations(tenant_pods.SCHEDULING, tenant("analytics"), pod(spec))) is refused


def test_the_same_pod_outside_a_tenant_namespace_is_not_judged_and_patches_are():
    spec = {"containers": C, "nodeName": "n"}
    assert violations(tenant_pods.SCHEDULING, tenant("analytics"), pod(spec, ns="apps")) == []
    patch = res("kubernetes:apps/v1:DeploymentPatch", "d", {"metadata": {"name": "d", "namespace": "analytics"},
                                                            "spec": {"template": {"spec": spec}}})
    assert violations(tenant_pods.SCHEDULING, tenant("analytics"), patch)


def test_a_tenant_daemonset_is_refused():
    ds = res("kubernetes:apps/v1:DaemonSet", "ds", {"metadata": {"name": "ds", "namespace": "analytics"},
                                                    "spec": {"template": {"spec": {"containers": C}}}})
    assert any("is a DaemonSet" in v for v in violations(tenant_pods.SCHEDULING, tenant("analytics"), ds))


# --- volumes ---------------------------------------------------------------------------------------------------------
def pv(claim_ref):
    return res("kubernetes:core/v1:PersistentVolume", "pv", {"metadata": {"name": "data-pv"}, "spec": {
        "csi": {"driver": "fss.csi.oraclecloud.com", "volumeHandle": "h"}, **({"claimRef": claim_ref}
                                                                              if claim_ref else {})}})


def pvc(ns, volume):
    return res("kubernetes:core/v1:PersistentVolumeClaim", "pvc", {"metadata": {"name": "data", "namespace": ns},
                                                                  "spec": {"volumeName": volume}})


@pytest.mark.parametrize("claim_ref, ns, volume, refused", [
    (None, "analytics", "data-pv", True), ({"namespace": "research", "name": "data"}, "analytics", "data-pv", True),
    ({"namespace": "analytics", "name": "data"}, "analytics", "data-pv", False),
    ({"namespace": "analytics", "name": "data"}, "analytics", "elsewhere", True),
    ({"namespace": "analytics", "name": "data"}, "analytics", U, True),
    ({"namespace": "analytics", "name": "data"}, "analytics", None, False)])
def test_a_claim_takes_only_a_volume_reserved_for_it(claim_ref, ns, volume, refused):
    assert bool(violations(tenant_pods.VOLUMES, tenant("analytics"), pv(claim_ref), pvc(ns, volume))) is refused


def _ephemeral_pod(volume):
    template = {"spec": {"accessModes": ["ReadWriteOnce"], **({"volumeName": volume} if volume else {})}}
    return res("kubernetes:core/v1:Pod", "w", {"metadata": {"name": "w", "namespace": "analytics"}, "spec": {
        "containers": [{"name": "c", "image": "i"}], "volumes": [{"name": "d", "ephemeral": {
            "volumeClaimTemplate": template}}]}})


def _stateful_set(volume):
    return res("kubernetes:apps/v1:StatefulSet", "s", {"metadata": {"name": "s", "namespace": "analytics"}, "spec": {
        "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}},
        "volumeClaimTemplates": [{"metadata": {"name": "d"}, "spec": {"volumeName": volume}}]}})


@pytest.mark.parametrize("make", [_ephemeral_pod, _stateful_set])
@pytest.mark.parametrize("claim_ref, volume, refused", [
    (None, "data-pv", True), ({"namespace": "research", "name": "data"}, "data-pv", True),
    ({"namespace": "analytics", "name": "data"}, "elsewhere", True), ({"namespace": "analytics", "name": "d"}, U, True),
    ({"namespace": "analytics", "name": "data"}, "data-pv", False), (None, None, False)])
def test_claims_made_from_templates_take_only_a_volume_reserved_for_the_namespace(make, claim_ref, volume, refused):
    """A generic ephemeral volume's claim template and a StatefulSet's volumeClaimTemplates are claims too: naming a
    PersistentVolume not reserved for the tenant's namespace (or not declared, or unknown) is refused."""
    found = violations(tenant_pods.VOLUMES, tenant("analytics"), pv(claim_ref), make(volume))
    assert bool(found) is refused, found


@pytest.mark.parametrize("volume, refused", [({"name": "d", "nfs": {"server": "10.0.20.5", "path": "/x"}}, True),
                                             ({"name": "d", "persistentVolumeClaim": {"claimName": "c"}}, False)])
def test_inline_nfs_volumes_are_refused_in_tenant_pods(volume, refused):
    found = violations(tenant_pods.VOLUMES, tenant("analytics"), pod({"containers": C, "volumes": [volume]}))
    assert bool(found) is refused


# --- Services --------------------------------------------------------------------------------------------------------
def svc(spec):
    return res("kubernetes:core/v1:Service", "s", {"metadata": {"name": "s", "namespace": "analytics"}, "spec": spec})


@pytest.mark.parametrize("spec, refused", [
    ({"type": "NodePort"}, True), ({"type": "LoadBalancer"}, True),
    ({"type": "LoadBalancer", "externalTrafficPolicy": "Local"}, True), ({"type": U}, True), ({}, False),
    ({"type": "NodePort", "externalTrafficPolicy": "Local"}, False),
    ({"type": "ExternalName", "externalName": "infer.research.svc.cluster.local"}, True),
    ({"type": "ExternalName", "externalName": "infer.research.svc"}, True),
    ({"type": "ExternalName", "externalName": "infer.research"}, True),
    ({"type": "ExternalName", "externalName": "infer"}, True),
    ({"type": "ExternalName", "externalName": "10.96.0.10"}, True),
    ({"type": "ExternalName", "externalName": U}, True),
    ({"type": "ExternalName", "externalName": "api.example.com"}, False)])
def test_tenant_services_stay_inside_the_wall(spec, refused):
    found = violations(tenant_pods.SERVICES, tenant("analytics"), tenant("research"), svc(spec))
    assert bool(found) is refused, found


# --- GPU quota quantities --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, expected", [("0", 0), ("16", 16), ("2k", 2000), ("500m", 0.5), ("x", None),
                                             (U, None), (None, None)])
def test_gpu_quota_values_are_parsed_with_the_kubernetes_quantity_parser(value, expected):
    got = _pss.gpu_quantity(_pss.UNKNOWN if value == U else value)
    assert (got is None) if expected is None else float(got) == expected


@pytest.mark.parametrize("gpus, refused", [("0", True), ("0.0", True), ("8", False)])
def test_a_zero_gpu_quota_makes_no_gpu_tenant_for_a_privileged_namespace(gpus, refused):
    ns = res(NS, "ns", {"metadata": {"name": "debug", "labels": {"pod-security.kubernetes.io/enforce": "privileged"}}})
    quota = res(RQ, "q", {"metadata": {"name": "gpu", "namespace": "debug"},
                          "spec": {"hard": {"requests.nvidia.com/gpu": gpus}}})
    assert bool(violations("privileged-namespace-purpose", ns, quota)) is refused


NLB, KEEP = "oci.oraclecloud.com/load-balancer-type", "oci-network-load-balancer.oraclecloud.com/is-preserve-source"


def lb(annotations, kind="kubernetes:core/v1:Service", **spec):
    return res(kind, "s", {"metadata": {"name": "s", "namespace": "analytics", "annotations": annotations},
                           "spec": {"type": "LoadBalancer", "externalTrafficPolicy": "Local", **spec}})


@pytest.mark.parametrize("annotations, spec, refused", [
    ({NLB: "nlb", KEEP: "true"}, {}, False), ({NLB: "nlb", KEEP: "1"}, {}, False), ({NLB: "nlb", KEEP: "True"}, {}, False),
    ({NLB: "nlb", KEEP: "false"}, {}, True), ({NLB: "nlb", KEEP: "yes"}, {}, True), ({NLB: "nlb"}, {}, True),
    ({NLB: "nlb", KEEP: U}, {}, True), ({NLB: U, KEEP: "true"}, {}, True), (U, {}, True),
    ({NLB: "lb"}, {}, True), ({}, {}, True), ({NLB: "NLB", KEEP: "true"}, {}, True),
    ({NLB: "lb"}, {"loadBalancerSourceRanges": ["10.0.0.0/24"]}, True),
    ({NLB: "nlb", KEEP: "true"}, {"loadBalancerClass": "example.com/lb"}, True),
    ({NLB: "nlb", KEEP: "true"}, {"loadBalancerClass": U}, True)])
def test_a_tenant_load_balancer_must_hand_the_backend_the_clients_address(annotations, spec, refused):
    """Only a network load balancer with is-preserve-source true keeps the client pod's address, which the walls
    judge; a proxy's (the flexible load balancer's, another class's) connections come from its own address."""
    found = violations(tenant_pods.SERVICES, tenant("analytics"), lb(annotations, **spec))
    assert bool(found) is refused, found


def test_a_service_patch_making_a_proxy_load_balancer_is_refused_and_names_the_fix():
    (message,) = violations(tenant_pods.SERVICES, tenant("analytics"),
                            lb({NLB: "lb"}, kind="kubernetes:core/v1:ServicePatch"))
    assert "'lb'" in message and "is-preserve-source" in message and "analytics" in message
