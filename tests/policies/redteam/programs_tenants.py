"""Red-team programs: one tenant reaches another through Kubernetes RBAC, storage, scheduling or Services — a
RoleBinding handing another tenant's service account any verb in its namespace, a ClusterRoleBinding for a tenant's
account, a claim taking another tenant's volume, an inline NFS mount, nodeName and tolerate-everything pods, a
tenant DaemonSet, NodePort and ExternalName Services, a zero GPU quota counted as a GPU tenant. Registered in
``programs.CASES`` on import; each safe control is the tenant doing the same inside its own namespace."""
from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import case

PSA = "pod-security.kubernetes.io/enforce"
RBAC_API = "rbac.authorization.k8s.io"
REACH = "kubernetes-tenant-rbac-own-namespace-only"
SCHEDULING, VOLUMES, SERVICES = ("tenant-pods-scheduled-by-the-platform", "tenant-volumes-through-claims",
                                 "tenant-services-inside-the-wall")
IMAGE = "nvcr.io/nvidia/pytorch:25.01-py3"
#: Submitted through the tenant's Kueue LocalQueue: Kueue pins its GPU pods to a flavor of the tenant's ClusterQueue
#: (a GPU pod selecting no pool of its own is refused otherwise).
QUEUED = {"kueue.x-k8s.io/queue-name": "tenant"}


def tenant(name: str, level: str = "restricted", gpus: str | None = "8") -> None:
    ns = k8s.core.v1.Namespace(f"ns-{name}", metadata={"name": name, "labels": {PSA: level, "okerdma.io/tenant": name}})
    if gpus is not None:
        k8s.core.v1.ResourceQuota(f"gpu-{name}", metadata={"name": "gpu", "namespace": name},
                                  spec={"hard": {"requests.nvidia.com/gpu": gpus}},
                                  opts=pulumi.ResourceOptions(depends_on=[ns]))


def restricted(**extra) -> dict:
    return {"name": "c", "image": IMAGE, **extra, "securityContext": {
        "allowPrivilegeEscalation": False, "runAsNonRoot": True, "runAsUser": 20002,
        "capabilities": {"drop": ["ALL"]}, "seccompProfile": {"type": "RuntimeDefault"}}}


def sa(ns: str) -> dict:
    return {"kind": "ServiceAccount", "name": "runner", "namespace": ns}


# --- RBAC ------------------------------------------------------------------------------------------------------------
@case("identity", REACH)
def rolebinding_cross_tenant_delete_pvcs_read_logs(bad):
    """Another tenant's account deletes research's PVCs, pods and jobs and reads its logs."""
    tenant("research"), tenant("analytics")
    k8s.rbac.v1.Role("r", metadata={"name": "cleanup", "namespace": "research"}, rules=[
        {"apiGroups": [""], "resources": ["persistentvolumeclaims", "pods"], "verbs": ["get", "list", "delete"]},
        {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["delete"]},
        {"apiGroups": [""], "resources": ["pods/log"], "verbs": ["get"]}])
    k8s.rbac.v1.RoleBinding("rb", metadata={"name": "cleanup", "namespace": "research"},
                            role_ref={"apiGroup": RBAC_API, "kind": "Role", "name": "cleanup"},
                            subjects=[sa("analytics" if bad else "research")])


@case("identity", REACH)
def rolebinding_gives_every_account_of_another_tenant_a_read(bad):
    """The group of every service account of analytics reads research's ConfigMaps."""
    tenant("research"), tenant("analytics")
    k8s.rbac.v1.Role("r", metadata={"name": "cfg", "namespace": "research"}, rules=[
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}])
    subject = ({"kind": "Group", "name": "system:serviceaccounts:analytics", "apiGroup": RBAC_API} if bad
               else {"kind": "Group", "name": "oidc:research-devs", "apiGroup": RBAC_API})
    k8s.rbac.v1.RoleBinding("rb", metadata={"name": "cfg", "namespace": "research"},
                            role_ref={"apiGroup": RBAC_API, "kind": "Role", "name": "cfg"}, subjects=[subject])


@case("identity", REACH)
def tenant_role_reads_all_pods_cluster_wide(bad):
    """A tenant's account reads pods, logs and ConfigMaps in every namespace."""
    tenant("analytics")
    k8s.rbac.v1.ClusterRole("cr", metadata={"name": "peek"}, rules=[
        {"apiGroups": [""], "resources": ["pods", "pods/log", "configmaps"], "verbs": ["get", "list"]}])
    ref = {"apiGroup": RBAC_API, "kind": "ClusterRole", "name": "peek"}
    if bad:
        k8s.rbac.v1.ClusterRoleBinding("b", metadata={"name": "peek"}, role_ref=ref, subjects=[sa("analytics")])
    else:
        k8s.rbac.v1.RoleBinding("b", metadata={"name": "peek", "namespace": "analytics"}, role_ref=ref,
                                subjects=[sa("analytics")])


@case("identity", REACH)
def tenant_account_bound_to_built_in_view_cluster_wide(bad):
    """The built-in view, cluster-wide, for a tenant's account: every tenant's pods and ConfigMaps."""
    tenant("analytics")
    ref = {"apiGroup": RBAC_API, "kind": "ClusterRole", "name": "view"}
    subject = sa("analytics") if bad else {"kind": "ServiceAccount", "name": "prometheus", "namespace": "monitoring"}
    k8s.rbac.v1.ClusterRoleBinding("b", metadata={"name": "viewer"}, role_ref=ref, subjects=[subject])


# --- storage ---------------------------------------------------------------------------------------------------------
def _pv(claim_ref: dict | None) -> None:
    spec = {"capacity": {"storage": "1Ti"}, "accessModes": ["ReadWriteMany"], "storageClassName": "",
            "persistentVolumeReclaimPolicy": "Retain", "csi": {
                "driver": "fss.csi.oraclecloud.com", "volumeHandle": "ocid1.filesystem.oc1..fs:10.0.20.5:/research"}}
    if claim_ref:
        spec["claimRef"] = claim_ref
    k8s.core.v1.PersistentVolume("pv", metadata={"name": "research-data"}, spec=spec)


def _claim(ns: str, volume: str | None) -> None:
    spec = {"accessModes": ["ReadWriteMany"], "storageClassName": "", "resources": {"requests": {"storage": "1Ti"}}}
    if volume:
        spec["volumeName"] = volume
    k8s.core.v1.PersistentVolumeClaim("pvc", metadata={"name": "data", "namespace": ns}, spec=spec)


@case("data", VOLUMES)
def pvc_binds_other_tenants_pv(bad):
    """A PV without claimRef: analytics' claim naming it binds it and mounts research's directory."""
    tenant("research"), tenant("analytics")
    _pv(None if bad else {"namespace": "research", "name": "data"})
    _claim("analytics" if bad else "research", "research-data")


@case("data", VOLUMES)
def pvc_names_a_pv_reserved_for_another_namespace(bad):
    """A claim naming a PV whose claimRef is research's: the claim waits — or wins the race if the ref goes."""
    tenant("research"), tenant("analytics")
    _pv({"namespace": "research", "name": "data"})
    _claim("analytics" if bad else "research", "research-data")


@case("data", VOLUMES)
def nfs_volume_other_tenants_export(bad):
    """An inline nfs volume mounts research's export path from vision's pod."""
    tenant("vision", "privileged", "16")
    vol = ({"name": "d", "nfs": {"server": "10.0.20.5", "path": "/shared/research"}} if bad
           else {"name": "d", "persistentVolumeClaim": {"claimName": "vision-data"}})
    c = restricted(volumeMounts=[{"name": "d", "mountPath": "/data"}], resources={"limits": {"nvidia.com/gpu": "8"}})
    k8s.batch.v1.Job("j", metadata={"name": "j", "namespace": "vision", "labels": QUEUED},
                     spec={"template": {"spec": {"restartPolicy": "Never", "containers": [c], "volumes": [vol]}}})


# --- scheduling ------------------------------------------------------------------------------------------------------
@case("placement", SCHEDULING)
def pod_pinned_to_other_tenants_node(bad):
    """nodeName and a toleration of every taint: the pod lands on research's dedicated node, outside Kueue."""
    tenant("analytics")
    spec = {"containers": [restricted(resources={"limits": {"nvidia.com/gpu": "8"}})]}
    if bad:
        spec.update(nodeName="10.0.10.21", tolerations=[{"operator": "Exists"}])
    k8s.core.v1.Pod("p", metadata={"name": "p", "namespace": "analytics", "labels": QUEUED}, spec=spec)


@case("placement", SCHEDULING)
def job_template_tolerates_every_taint(bad):
    """A Job's pods tolerate every taint: Kueue admits them, the scheduler may put them on any pool."""
    tenant("analytics")
    tol = [{"operator": "Exists"}] if bad else [{"key": "nvidia.com/gpu", "operator": "Exists",
                                                  "effect": "NoSchedule"}]
    k8s.batch.v1.Job("j", metadata={"name": "j", "namespace": "analytics", "labels": QUEUED}, spec={"template": {
        "spec": {"restartPolicy": "Never", "tolerations": tol, "containers": [restricted()]}}})


@case("pod", SCHEDULING)
def tenant_daemonset_privileged_on_every_node(bad):
    """An RDMA tenant's privileged DaemonSet: one pod on every node, other tenants' too."""
    tenant("research", "privileged", "16")
    tpl = {"metadata": {"labels": {"a": "x"}}, "spec": {"hostNetwork": True, "containers": [{
        "name": "c", "image": IMAGE, "securityContext": {"privileged": True, "capabilities": {"add": ["IPC_LOCK"]}},
        "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}
    if bad:
        k8s.apps.v1.DaemonSet("ds", metadata={"name": "x", "namespace": "research"},
                              spec={"selector": {"matchLabels": {"a": "x"}}, "template": tpl})
    else:
        tpl["spec"]["restartPolicy"] = "Never"
        k8s.batch.v1.Job("j", metadata={"name": "x", "namespace": "research", "labels": QUEUED}, spec={"template": tpl})


# --- Services --------------------------------------------------------------------------------------------------------
@case("network", SERVICES)
def nodeport_service_pierces_tenant_wall(bad):
    tenant("research")
    k8s.core.v1.Service("s", metadata={"name": "infer", "namespace": "research"}, spec={
        "type": "NodePort" if bad else "ClusterIP", "selector": {"app": "infer"}, "ports": [{"port": 8000}]})


#: An internal network load balancer that hands the backend the client's own address (the control of the cases below).
NLB_KEEPS_SOURCE = {"oci.oraclecloud.com/load-balancer-type": "nlb",
                    "oci-network-load-balancer.oraclecloud.com/internal": "true",
                    "oci-network-load-balancer.oraclecloud.com/is-preserve-source": "true"}


def _lb(annotations: dict, policy: str = "Local", **spec) -> None:
    tenant("research")
    k8s.core.v1.Service("s", metadata={"name": "infer", "namespace": "research", "annotations": annotations},
                        spec={"type": "LoadBalancer", "externalTrafficPolicy": policy, "selector": {"app": "infer"},
                              "ports": [{"port": 8000}], **spec})


@case("network", SERVICES)
def internal_load_balancer_with_cluster_traffic_policy(bad):
    """An internal load balancer with policy Cluster opens a NodePort on every node as well (the node's identity)."""
    _lb(NLB_KEEPS_SOURCE if not bad else {**NLB_KEEPS_SOURCE, "oci-network-load-balancer.oraclecloud.com/"
                                                                "is-preserve-source": "false"}, "Cluster" if bad else "Local")


@case("network", SERVICES)
def internal_flexible_load_balancer_proxies_past_the_wall(bad):
    """OCI's flexible load balancer is a proxy: with policy Local too, the tenant's pods see the load balancer's VCN
    address ('world' to Cilium), never the other tenant's namespace, so another tenant reaches them through it."""
    _lb({"oci.oraclecloud.com/load-balancer-type": "lb", "service.beta.kubernetes.io/oci-load-balancer-internal": "true"}
        if bad else NLB_KEEPS_SOURCE)


@case("network", SERVICES)
def load_balancer_of_the_default_type_proxies_past_the_wall(bad):
    """No type annotation: the cloud controller's default, the flexible load balancer (a proxy)."""
    _lb({"service.beta.kubernetes.io/oci-load-balancer-internal": "true"} if bad else NLB_KEEPS_SOURCE)


@case("network", SERVICES)
def load_balancer_source_ranges_do_not_keep_the_client_address(bad):
    """``loadBalancerSourceRanges`` and NSG annotations only add allow rules to what the load balancer subnet admits,
    and the backend still sees the proxy's address."""
    lb = {"oci.oraclecloud.com/load-balancer-type": "lb", "service.beta.kubernetes.io/oci-load-balancer-internal": "true",
          "oci.oraclecloud.com/security-rule-management-mode": "NSG",
          "oci.oraclecloud.com/oci-network-security-groups": "ocid1.networksecuritygroup.oc1..aaaaaaaalb"}
    _lb(lb if bad else NLB_KEEPS_SOURCE, loadBalancerSourceRanges=["10.0.0.0/24"])


@case("network", SERVICES)
def network_load_balancer_without_source_preservation(bad):
    """An NLB with ``is-preserve-source`` false (or unset: the controller's default is not relied on) hands the
    backend its own address."""
    keep = {k: v for k, v in NLB_KEEPS_SOURCE.items() if not k.endswith("is-preserve-source")}
    _lb(keep if bad else NLB_KEEPS_SOURCE)


@case("network", SERVICES)
def load_balancer_class_of_another_controller(bad):
    """``spec.loadBalancerClass`` hands the Service to a controller whose data path nobody judged (an in-cluster
    proxy, MetalLB, another cloud's controller)."""
    _lb(NLB_KEEPS_SOURCE, **({"loadBalancerClass": "example.com/proxy-lb"} if bad else {}))


@case("network", SERVICES)
def externalname_through_shared_ingress_to_other_tenant(bad):
    tenant("analytics")
    k8s.core.v1.Service("s", metadata={"name": "web", "namespace": "analytics"}, spec={
        "type": "ExternalName",
        "externalName": "infer.research.svc.cluster.local" if bad else "web.analytics.example.com"})


@case("network", SERVICES)
def externalname_short_form_to_other_tenant(bad):
    """``<service>.<namespace>`` resolves through the pod's DNS search path to another tenant's Service."""
    tenant("analytics"), tenant("research")
    k8s.core.v1.Service("s", metadata={"name": "web", "namespace": "analytics"}, spec={
        "type": "ExternalName", "externalName": "infer.research" if bad else "infer.example.org"})


# --- privileged namespaces -------------------------------------------------------------------------------------------
@case("pod", "privileged-namespace-purpose")
def privileged_namespace_zero_gpu_quota(bad):
    """A quota of 0 GPUs makes no GPU tenant: its privileged namespace has no RDMA purpose."""
    ns = k8s.core.v1.Namespace("ns", metadata={"name": "debug", "labels": {PSA: "privileged"}})
    k8s.core.v1.ResourceQuota("q", metadata={"name": "gpu", "namespace": "debug"},
                              spec={"hard": {"requests.nvidia.com/gpu": "0" if bad else "8"}},
                              opts=pulumi.ResourceOptions(depends_on=[ns]))


@case("data", "volume-reclaim-keeps-protected-storage")
def static_volume_deletes_the_protected_file_system(bad):
    """A static FSS volume of the protected file system with reclaim policy Delete, claimed by a tenant: deleting the
    claim makes the CSI driver delete the file system (its handle names it) — protect only stops Pulumi. The control
    retains it."""
    import pulumi_oci as oci
    tenant("research")
    fs = oci.filestorage.FileSystem("fs", availability_domain="Uocm:US-ASHBURN-AD-1",
                                    compartment_id="ocid1.compartment.oc1..aaaaaaaaredteam", display_name="shared",
                                    opts=pulumi.ResourceOptions(protect=True))
    k8s.core.v1.PersistentVolume("pv", metadata={"name": "research-shared"}, spec={
        "capacity": {"storage": "50Ti"}, "accessModes": ["ReadWriteMany"], "storageClassName": "",
        "persistentVolumeReclaimPolicy": "Delete" if bad else "Retain",
        "claimRef": {"namespace": "research", "name": "shared"},
        "csi": {"driver": "fss.csi.oraclecloud.com", "volumeHandle": fs.id.apply(lambda i: f"{i}:10.0.20.5:/shared")}})
