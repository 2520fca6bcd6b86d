"""The platform's kinds, for ``kubernetes-tenant-no-platform-writes`` (``tenant_rbac``): a copy of the tenancy
ownership model of oke-rdma (``oke_rdma/facts/tenancy.py``: ``PLATFORM_OWNED``, ``DELEGATED``, ``WRITE_VERBS``), kept
here because the pack is published alone; ``tests/policies/test_tenant_rbac.py`` keeps the copies equal.

A write to one of these kinds moves a limit (quotas, LimitRanges, Kueue queues, flavors, cohorts, priorities), a wall
(namespaces and their Pod Security labels, network policies of every engine, admission policies, webhooks and their
bindings, RBAC itself) or the cluster (CRDs, APIServices, nodes, volumes, storage and runtime classes, API fairness,
device classes, the operators' own configuration). Sources: see the model (Kubernetes, Kueue v0.18.2, Cilium 1.18, the
operators oke-rdma installs; checked 2026-12-01).
"""
from __future__ import annotations

#: (apiGroup, resource, kind, namespaced, what a write moves). Resource ``*``: every resource of the group.
PLATFORM_OWNED: tuple[tuple[str, str, str, bool, str], ...] = (
    # limits
    ("", "resourcequotas", "ResourceQuota", True, "a limit: the namespace's quota"),
    ("", "limitranges", "LimitRange", True, "a limit: default and maximum requests of the namespace's pods"),
    ("scheduling.k8s.io", "priorityclasses", "PriorityClass", False, "a limit: who preempts whom"),
    ("kueue.x-k8s.io", "clusterqueues", "ClusterQueue", False, "a limit: a tenant's GPU quota and borrowing"),
    ("kueue.x-k8s.io", "localqueues", "LocalQueue", True, "a limit: which ClusterQueue the namespace's jobs use"),
    ("kueue.x-k8s.io", "resourceflavors", "ResourceFlavor", False, "a limit: which nodes a quota admits onto"),
    ("kueue.x-k8s.io", "cohorts", "Cohort", False, "a limit: what quota is shared and lent"),
    ("kueue.x-k8s.io", "topologies", "Topology", False, "a limit: topology-aware placement levels"),
    ("kueue.x-k8s.io", "admissionchecks", "AdmissionCheck", False, "a limit: what must pass before admission"),
    ("kueue.x-k8s.io", "workloadpriorityclasses", "WorkloadPriorityClass", False, "a limit: queueing priority"),
    ("kueue.x-k8s.io", "provisioningrequestconfigs", "ProvisioningRequestConfig", False,
     "a limit: capacity provisioning before admission"),
    ("kueue.x-k8s.io", "multikueueclusters", "MultiKueueCluster", False, "a limit: clusters jobs are sent to"),
    ("kueue.x-k8s.io", "multikueueconfigs", "MultiKueueConfig", False, "a limit: clusters jobs are sent to"),
    ("kueue.x-k8s.io", "workloads", "Workload", True, "a limit: its status admits a job and reserves quota"),
    ("kueue.x-k8s.io", "*", "Kueue (every other kind)", True,
     "a limit: Kueue's kinds of later releases too (DynamicResourceAllocationConfig, ClusterQueueBinding, ...)"),
    # walls
    ("", "namespaces", "Namespace", False, "a wall: the Pod Security level and the tenant labels"),
    ("networking.k8s.io", "networkpolicies", "NetworkPolicy", True, "a wall: pod network isolation"),
    ("policy.networking.k8s.io", "adminnetworkpolicies", "AdminNetworkPolicy", False, "a wall: cluster network policy"),
    ("policy.networking.k8s.io", "baselineadminnetworkpolicies", "BaselineAdminNetworkPolicy", False,
     "a wall: cluster network policy"),
    ("cilium.io", "*", "Cilium (every kind)", True, "a wall: Cilium's network policies, identities and endpoints"),
    ("admissionregistration.k8s.io", "validatingadmissionpolicies", "ValidatingAdmissionPolicy", False,
     "a wall: the admission guard"),
    ("admissionregistration.k8s.io", "validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding", False,
     "a wall: where the admission guard applies"),
    ("admissionregistration.k8s.io", "mutatingadmissionpolicies", "MutatingAdmissionPolicy", False,
     "a wall: admission mutation"),
    ("admissionregistration.k8s.io", "mutatingadmissionpolicybindings", "MutatingAdmissionPolicyBinding", False,
     "a wall: where admission mutation applies"),
    ("admissionregistration.k8s.io", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration", False,
     "a wall: admission webhooks (Kueue's, the operators')"),
    ("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", False,
     "a wall: admission webhooks (Kueue's, the operators')"),
    ("rbac.authorization.k8s.io", "roles", "Role", True, "a wall: who may do what"),
    ("rbac.authorization.k8s.io", "rolebindings", "RoleBinding", True, "a wall: who may do what"),
    ("rbac.authorization.k8s.io", "clusterroles", "ClusterRole", False, "a wall: who may do what"),
    ("rbac.authorization.k8s.io", "clusterrolebindings", "ClusterRoleBinding", False, "a wall: who may do what"),
    # the cluster itself
    ("apiextensions.k8s.io", "customresourcedefinitions", "CustomResourceDefinition", False,
     "the cluster: the APIs every kind above is served by"),
    ("apiregistration.k8s.io", "apiservices", "APIService", False, "the cluster: aggregated APIs"),
    ("", "nodes", "Node", False, "the cluster: node labels and taints steer every tenant's pods"),
    ("", "persistentvolumes", "PersistentVolume", False, "the cluster: the platform's shared volumes"),
    ("storage.k8s.io", "storageclasses", "StorageClass", False, "the cluster: how volumes are provisioned"),
    ("node.k8s.io", "runtimeclasses", "RuntimeClass", False, "the cluster: the nodes' container runtimes"),
    ("flowcontrol.apiserver.k8s.io", "flowschemas", "FlowSchema", False, "the cluster: API server fairness"),
    ("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations", "PriorityLevelConfiguration", False,
     "the cluster: API server fairness"),
    ("resource.k8s.io", "deviceclasses", "DeviceClass", False, "the cluster: which devices claims may select"),
    # the operators' own configuration
    ("nvidia.com", "*", "GPU Operator (every kind)", False, "the cluster: the GPU nodes' driver and device plugin"),
    ("nfd.k8s-sigs.io", "*", "Node Feature Discovery (every kind)", True, "the cluster: rules that label nodes"),
    ("monitoring.coreos.com", "*", "prometheus-operator (every kind)", True,
     "the cluster: the platform's monitoring and alerts"),
    ("trainer.kubeflow.org", "clustertrainingruntimes", "ClusterTrainingRuntime", False,
     "the cluster: runtimes every TrainJob may name"),
    ("keda.sh", "clustertriggerauthentications", "ClusterTriggerAuthentication", False,
     "the cluster: credentials every namespace's scalers may use"),
)

#: Writes of a platform-owned kind the tenant ``admin`` role holds on purpose, each with what keeps it a delegation
#: and not an escalation: RoleBindings in its namespace, with ``bind`` only on the three tenant roles by name (the API
#: server lets a RoleBinding be written only to a role the writer holds or may ``bind``; RBAC docs "Privilege
#: escalation prevention and bootstrapping").
DELEGATED: dict[tuple[str, str], str] = {
    ("rbac.authorization.k8s.io", "rolebindings"):
        "tenant admins bind the three tenant roles in their namespace (bind restricted by resourceNames)",
}

#: Verbs that write (RBAC verbs on resources; ``*`` is every verb).
WRITE_VERBS = ("create", "update", "patch", "delete", "deletecollection", "*")


def owned(group: str, resource: str) -> bool:
    """Whether the platform owns ``resource`` (``name`` or ``name/sub``) of API ``group``."""
    name = resource.split("/", 1)[0]
    return any(g == group and r in ("*", name) for g, r, *_ in PLATFORM_OWNED)
