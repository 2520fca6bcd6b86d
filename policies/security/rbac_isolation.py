"""Kubernetes RBAC grants that break tenant isolation without a classic escalation: where traffic goes, which
volume a node gets, what every pod is scheduled or admitted with, what network policies say, every tenant's quota.

The class: a write to a **cluster-scoped** object every tenant shares (a VolumeAttachment, a StorageClass, a
PriorityClass, a ClusterQueue, a Cilium clusterwide policy), or a write to **another namespace's** object that
decides who reaches whom (Services, Endpoints, Ingresses and routes, NetworkPolicies, quotas, leases). Each row is
``(key, what it gives, scope, permissions, namespaced)`` in the shape of ``rbac_model.Danger``: ``namespace`` rows
are refused even through a Role (no tenant should hold them in its own namespace either: the API's own default
roles left them out), ``cluster`` rows only through a cluster-wide grant, and ``namespaced`` rows also when a
RoleBinding gives them to another namespace's service account (``rbac_model.CROSS_NAMESPACE_DANGERS``). Within
its own namespace a tenant keeps what ``edit`` gives (Services, Ingresses, NetworkPolicies).

| key                           | scope      | source (checked 2026-12-02)                                         |
|-------------------------------|------------|---------------------------------------------------------------------|
| endpoint-writes               | cluster×ns | kubernetes#103675 (CVE-2021-25740); #103703, #103704 (out of the    |
|                               |            | aggregated edit/admin roles in 1.22); RBAC docs "Write access for   |
|                               |            | Endpoints"                                                          |
| load-balancer-status          | namespace  | kubernetes#97076 (CVE-2020-8554): services/status, a privileged     |
|                               |            | operation users should not hold                                     |
| service-writes                | cluster×ns | kubernetes#97076 (externalIPs, LoadBalancer); docs "Service"        |
| route-writes                  | cluster×ns | docs "Ingress"; Gateway API "HTTPRoute", "ReferenceGrant"           |
| ingress-class-writes          | cluster    | docs "Ingress" (default IngressClass); Gateway API "GatewayClass"   |
| cluster-ip-allocation         | cluster    | docs "Service ClusterIP allocation" (ServiceCIDR, IPAddress)        |
| network-policy-writes         | cluster×ns | docs "Network Policies"; Cilium "CiliumNetworkPolicy"               |
| cluster-network-policy-writes | cluster    | Cilium "CiliumClusterwideNetworkPolicy", "Identity", "CIDR Groups"; |
|                               |            | network-policy-api "AdminNetworkPolicy"                             |
| volume-attachment             | cluster    | API reference "VolumeAttachment v1 storage.k8s.io" (cluster-scoped, |
|                               |            | the CSI external-attacher's)                                        |
| snapshot-content-writes       | cluster    | kubernetes-csi/external-snapshotter "Pre-provisioned snapshots"     |
|                               |            | (VolumeSnapshotContent: cluster-scoped, ``source.snapshotHandle``,  |
|                               |            | ``volumeSnapshotRef`` names any namespace); group snapshots v1beta1 |
| storage-class-writes          | cluster    | docs "Storage Classes", "CSI Driver", "Volume Attributes Classes"   |
| scheduling-class-writes       | cluster    | docs "Pod Priority and Preemption", "Runtime Class" (its            |
|                               |            | scheduling.tolerations are merged into the pod's)                   |
| api-fairness-writes           | cluster    | docs "API Priority and Fairness"                                    |
| device-writes                 | cluster    | docs "Dynamic Resource Allocation" (DeviceClass, ResourceSlice)     |
| device-allocation             | namespace  | docs "Dynamic Resource Allocation" (the scheduler's allocation)     |
| trust-bundle-writes           | cluster    | docs "Certificates and CSRs": ClusterTrustBundles                   |
| quota-writes                  | cluster×ns | docs "Resource Quotas", "Limit Ranges"                              |
| kueue-admin-writes            | cluster    | Kueue "ClusterQueue", "Cohort", "ResourceFlavor", "Topology"        |
| workload-admission            | namespace  | Kueue "Workload" (status.admission is Kueue's own)                  |
| lease-writes                  | cluster×ns | docs "Leases" (leader election; node heartbeats, kube-node-lease)   |

Endpoints writes in one's own namespace stay open: the CVE's confused deputy needs a LoadBalancer or Ingress that
forwards to the hand-written endpoints, the default edit/admin roles and the platform's tenant roles hold no such
write, and the MPI Operator's vendored Role (0.8.2) does (docs/threat-model.md).

Deletes are judged only where deleting is the isolation break (NetworkPolicies, Cilium policies); deleting other
tenants' objects is an availability matter the pack leaves to who holds cluster-wide delete (docs/threat-model.md).
"""
from __future__ import annotations

from typing import Iterable

WRITE = ("create", "update", "patch")
_DEL = WRITE + ("delete", "deletecollection")


def perms(group: str, resources: Iterable[str], verbs: tuple[str, ...]) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """``(group, resource, verbs)`` for each resource."""
    return tuple((group, r, verbs) for r in resources)


#: ``(key, what, scope, permissions, namespaced)`` rows (the module docstring's table).
ISOLATION_DANGERS: tuple[tuple, ...] = (
    ("endpoint-writes", "Endpoints/EndpointSlice writes (point a Service, LoadBalancer or Ingress at any "
           "namespace's pod IPs: CVE-2021-25740)", "cluster",
           perms("", ("endpoints",), WRITE) + perms("discovery.k8s.io", ("endpointslices",), WRITE), True),
    ("load-balancer-status", "services/status or ingresses/status writes (a load balancer IP every node "
           "routes to the Service: CVE-2020-8554)", "namespace",
           perms("", ("services/status",), WRITE) + perms("networking.k8s.io", ("ingresses/status",), WRITE)
           + perms("gateway.networking.k8s.io", ("gateways/status",), WRITE)),
    ("service-writes", "Service writes in every namespace (externalIPs and LoadBalancers that intercept "
           "other tenants' traffic, CVE-2020-8554; selectors that redirect their Services)", "cluster",
           perms("", ("services",), WRITE), True),
    ("route-writes", "Ingress, Gateway, route and ReferenceGrant writes in every namespace (take other "
           "tenants' hostnames and paths, open their Services to routes)", "cluster",
           perms("networking.k8s.io", ("ingresses",), WRITE)
           + perms("gateway.networking.k8s.io", ("gateways", "httproutes", "grpcroutes", "tlsroutes", "tcproutes",
                                                  "udproutes", "referencegrants", "backendtlspolicies"), WRITE),
           True),
    ("ingress-class-writes", "IngressClass/GatewayClass writes (the default class every tenant's Ingress "
           "falls into, the controller behind a class)", "cluster",
           perms("networking.k8s.io", ("ingressclasses",), WRITE)
           + perms("gateway.networking.k8s.io", ("gatewayclasses",), WRITE)),
    ("cluster-ip-allocation", "ServiceCIDR/IPAddress writes (the cluster's Service IP allocations)", "cluster",
           perms("networking.k8s.io", ("servicecidrs", "ipaddresses"), WRITE)),
    ("network-policy-writes", "NetworkPolicy writes or deletes in every namespace (lift another tenant's "
           "isolation)", "cluster",
           perms("networking.k8s.io", ("networkpolicies",), _DEL)
           + perms("cilium.io", ("ciliumnetworkpolicies",), _DEL),
           True),
    ("cluster-network-policy-writes", "cluster-wide network policy and identity writes (Cilium clusterwide "
           "policies, CIDR groups, identities and endpoints; admin network policies): every tenant's isolation",
           "cluster",
           perms("cilium.io", ("ciliumclusterwidenetworkpolicies", "ciliumcidrgroups", "ciliumidentities",
                                "ciliumendpoints", "ciliumendpointslices", "ciliumnodes",
                                "ciliumlocalredirectpolicies", "ciliumegressgatewaypolicies"),
                  _DEL)
           + perms("policy.networking.k8s.io", ("adminnetworkpolicies", "baselineadminnetworkpolicies",
                                                 "clusternetworkpolicies"), _DEL)),
    ("volume-attachment", "VolumeAttachment writes (attach any PersistentVolume's volume, another tenant's "
           "data, to any node)", "cluster",
           perms("storage.k8s.io", ("volumeattachments", "volumeattachments/status"), WRITE)),
    ("snapshot-content-writes", "VolumeSnapshotContent and VolumeSnapshotClass writes, group snapshots' too (a "
           "pre-provisioned content names any backup's snapshotHandle and binds it to a VolumeSnapshot of any "
           "namespace, whose claims restore another tenant's data)", "cluster",
           perms("snapshot.storage.k8s.io", ("volumesnapshotcontents", "volumesnapshotcontents/status",
                                             "volumesnapshotclasses"), WRITE)
           + perms("groupsnapshot.storage.k8s.io", ("volumegroupsnapshotcontents",
                                                    "volumegroupsnapshotcontents/status",
                                                    "volumegroupsnapshotclasses"), WRITE)),
    ("storage-class-writes", "StorageClass, CSIDriver, CSINode and VolumeAttributesClass writes (provisioner "
           "parameters and the default class every tenant's claims get)", "cluster",
           perms("storage.k8s.io", ("storageclasses", "csidrivers", "csinodes", "volumeattributesclasses"), WRITE)),
    ("scheduling-class-writes", "PriorityClass and RuntimeClass writes (preempt every tenant's pods; "
           "tolerations merged into pods, past the GPU pools' taints)", "cluster",
           perms("scheduling.k8s.io", ("priorityclasses",), WRITE) + perms("node.k8s.io", ("runtimeclasses",),
                                                                            WRITE)),
    ("api-fairness-writes", "FlowSchema/PriorityLevelConfiguration writes (starve other tenants' API "
           "requests, exempt one's own)", "cluster",
           perms("flowcontrol.apiserver.k8s.io", ("flowschemas", "prioritylevelconfigurations"), WRITE)),
    ("device-writes", "DeviceClass/ResourceSlice writes (which GPUs a claim selects; devices a node "
           "offers)", "cluster", perms("resource.k8s.io", ("deviceclasses", "resourceslices"), WRITE)),
    ("device-allocation", "resourceclaims/status writes (allocate any device to a claim, the scheduler's "
           "job)", "namespace", perms("resource.k8s.io", ("resourceclaims/status",), WRITE)),
    ("trust-bundle-writes", "ClusterTrustBundle writes (CAs projected into pods as trusted)", "cluster",
           perms("certificates.k8s.io", ("clustertrustbundles",), WRITE)),
    ("quota-writes", "ResourceQuota and LimitRange writes in every namespace (lift another "
           "tenant's limits)", "cluster",
           perms("", ("resourcequotas", "limitranges"), WRITE),
           True),
    ("kueue-admin-writes", "ClusterQueue, Cohort, ResourceFlavor, AdmissionCheck, Topology and "
           "WorkloadPriorityClass writes (every tenant's GPU quota and borrowing)", "cluster",
           perms("kueue.x-k8s.io", ("clusterqueues", "cohorts", "resourceflavors", "admissionchecks", "topologies",
                                     "workloadpriorityclasses", "multikueueclusters", "multikueueconfigs"), WRITE)),
    ("workload-admission", "Kueue workloads/status writes (admit a job past its quota)", "namespace",
           perms("kueue.x-k8s.io", ("workloads/status",), WRITE)),
    ("lease-writes", "Lease writes in every namespace (the platform controllers' leader election, the nodes' "
           "heartbeats in kube-node-lease)", "cluster", perms("coordination.k8s.io", ("leases",), WRITE),
           True),

)
