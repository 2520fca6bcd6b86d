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

# --- objects (not kinds) the platform owns, for ``kubernetes-platform-objects-only-by-platform`` ----------------------
#: The type prefix of oke-rdma's components (``oke-rdma:<module>:<Class>``): a resource whose URN's parent type chain
#: holds a component of this prefix is the platform's own; every other resource is a stack's, whoever runs it. The
#: chain is identity by convention: a program that registers its own component under this prefix passes as the
#: platform (docs/threat-model.md).
PLATFORM_COMPONENT_PREFIX = "oke-rdma:"

#: The cluster's own namespaces (Kubernetes docs "Namespaces": kube-system holds the control plane's and OKE's
#: add-ons — CoreDNS and its ``coredns-custom`` ConfigMap, kube-proxy, the CNI —; kube-node-lease the nodes'
#: heartbeats). No stack writes any object in them; only the platform's components do.
CLUSTER_NAMESPACES: tuple[str, ...] = ("kube-system", "kube-public", "kube-node-lease")

#: The namespaces the platform's add-ons run in (the add-ons' default ``namespace``, oke_rdma/addons; a test keeps the
#: list equal to the registry's defaults). Their configuration, credentials and leader-election Leases steer the
#: platform's controllers (Kueue's leader Lease ``c1f6bfd2.kueue.x-k8s.io``, kubernetes-sigs/kueue cmd/kueue;
#: Kubernetes docs "Leases"): a stack writes them only when it declares that namespace itself (it installs the
#: add-on).
ADDON_NAMESPACES: tuple[str, ...] = (
    "cilium", "flux-system", "gpu-operator", "jobset-system", "keda", "kubeflow-system", "kueue-system",
    "monitoring", "mpi-operator", "oke-rdma-topology", "pulumi-kubernetes-operator", "ray-system",
)

#: Kinds that steer a controller from inside its namespace, (apiGroup, kind): with every kind of
#: :data:`PLATFORM_OWNED` they are the control objects of an add-on namespace.
CONTROL_KINDS: tuple[tuple[str, str], ...] = (("", "ConfigMap"), ("", "Secret"), ("coordination.k8s.io", "Lease"),
                                              ("", "ServiceAccount"))

#: API groups whose CRDs the platform's add-ons install (a group or any sub-group, ``<x>.<group>``), each with the
#: namespaces of the add-ons that install them: a stack that patches one of these CRDs, or declares one without
#: declaring such a namespace itself (installing the add-on), rewrites an add-on's API (its schema, its conversion
#: webhook). Sources: the add-ons' CRDs at the pinned versions (oke_rdma/addons; Flux ``*.toolkit.fluxcd.io``, PKO
#: ``pulumi.com``; ``kubeflow.org``: the MPI Operator's MPIJob).
ADDON_CRD_GROUPS: dict[str, tuple[str, ...]] = {
    "kueue.x-k8s.io": ("kueue-system",), "cilium.io": ("cilium",), "nvidia.com": ("gpu-operator",),
    "nfd.k8s-sigs.io": ("gpu-operator",), "monitoring.coreos.com": ("monitoring",),
    "trainer.kubeflow.org": ("kubeflow-system",), "keda.sh": ("keda",), "jobset.x-k8s.io": ("jobset-system",),
    "kubeflow.org": ("mpi-operator", "kubeflow-system"), "ray.io": ("ray-system",),
    "toolkit.fluxcd.io": ("flux-system",), "pulumi.com": ("pulumi-kubernetes-operator",),
}

#: The names the platform gives the objects it declares, for ``kubernetes-platform-objects-only-by-platform`` across
#: stacks: (apiGroup or ``*``, kind or ``*``, name pattern, what the platform keeps under it, the namespace of the
#: add-on that installs it or ``""``). In a pattern ``{prefix}`` is a platform stack's ``namePrefix``, ``{namespace}``
#: the object's own namespace and ``*`` any run of characters. A stack that declares (not patches) an object of a
#: platform-owned kind under such a name writes the platform's object: a declared object is applied server-side over
#: the live one (fields it sets are taken over; ``pulumi.com/patchForce`` takes the rest). ``{prefix}`` names count
#: in any namespace; a fixed name of a namespaced kind (``gpu``) counts in a namespace the stack does not declare
#: itself (a stack that declares the namespace runs its own tenants there); an add-on's name counts unless the stack
#: declares the add-on's namespace (it installs the add-on itself). Sources: the components that name them
#: (oke_rdma.guard, walls, scheduling, tenant_access, tenant_defaults, platform, volumes, lustre, health, readiness,
#: monitoring; the vendored MPI Operator manifest): a test reads every object of the dev and prod stacks against this
#: table. Kubernetes docs "Server-Side Apply".
PLATFORM_OBJECT_NAMES: tuple[tuple[str, str, str, str, str], ...] = (
    ("*", "*", "{prefix}-*", "the platform's own objects: the admission guard's policies and bindings, the walls, "
                             "queues, flavors, priority classes, tenant roles and bindings, volumes", ""),
    ("", "ResourceQuota", "gpu", "a tenant's GPU quota", ""),
    ("", "ResourceQuota", "system-priority", "a tenant's zero quota of system-priority pods", ""),
    ("", "LimitRange", "defaults", "a tenant's default container requests", ""),
    ("kueue.x-k8s.io", "LocalQueue", "{namespace}", "a tenant's queue, named after its namespace", ""),
    ("storage.k8s.io", "StorageClass", "oke-rdma-bv", "the platform's block volume class", ""),
    ("monitoring.coreos.com", "PrometheusRule", "okerdma-gpu", "the platform's GPU alert and metering rules", ""),
    ("rbac.authorization.k8s.io", "*", "mpi-operator", "the MPI Operator's controller roles", "mpi-operator"),
    ("rbac.authorization.k8s.io", "ClusterRole", "kubeflow-mpijobs-*", "the MPI Operator's MPIJob roles",
     "mpi-operator"),
)
#: The ``namePrefix`` of the platform's stacks when the policy config names none: the default ``okerdma`` (a pattern
#: ``okerdma-*`` covers ``okerdma-dev-...`` and every prefix that starts ``okerdma-``).
DEFAULT_PLATFORM_NAME_PREFIXES: tuple[str, ...] = ("okerdma",)

#: The labels of a tenant namespace the platform sets (``okerdma.io/tenant``, ``okerdma.io/isolation``, ...): the
#: walls, the guard, Kueue and metering select tenants by them (docs/tenants.md).
PLATFORM_LABEL_PREFIX = "okerdma.io/"

#: Platform-owned kinds whose ``*Patch`` is judged by effect rather than refused outright, with the rule that reads the
#: patch in full: a Namespace's Pod Security labels (``namespace-pod-security-enforce``,
#: ``privileged-namespace-purpose``; its ``okerdma.io/`` labels are refused here), RBAC (``kubernetes-rbac-no-escalation``
#: reads every binding and role patch) and PersistentVolumes (``node-escape-only-in-node-agent-namespaces``,
#: ``pv-claim-ref-in-own-namespace``).
PATCH_JUDGED_BY_EFFECT: dict[tuple[str, str], str] = {
    ("", "Namespace"): "the tenancy labels (okerdma.io/*) are refused; Pod Security labels: the namespace rules",
    ("rbac.authorization.k8s.io", "Role"): "kubernetes-rbac-no-escalation",
    ("rbac.authorization.k8s.io", "RoleBinding"): "kubernetes-rbac-no-escalation",
    ("rbac.authorization.k8s.io", "ClusterRole"): "kubernetes-rbac-no-escalation",
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): "kubernetes-rbac-no-escalation",
    ("", "PersistentVolume"): "node-escape-only-in-node-agent-namespaces",
}


def owned_kind(group: str, kind: str) -> tuple[str, str, str, bool, str] | None:
    """The :data:`PLATFORM_OWNED` entry of ``kind`` in API ``group`` (a whole-group entry for an unlisted kind)."""
    exact = [e for e in PLATFORM_OWNED if e[0] == group and e[2] == kind]
    whole = [e for e in PLATFORM_OWNED if e[0] == group and e[1] == "*"]
    return (exact or whole or [None])[0]


def owned(group: str, resource: str) -> bool:
    """Whether the platform owns ``resource`` (``name`` or ``name/sub``) of API ``group``."""
    name = resource.split("/", 1)[0]
    return any(g == group and r in ("*", name) for g, r, *_ in PLATFORM_OWNED)
