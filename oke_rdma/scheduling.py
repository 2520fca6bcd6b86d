"""Kueue objects for topology-aware scheduling on OCI RDMA pools, and the optional RDMA topology labeler.

Built only when the Kueue release is enabled. Every custom resource here ``depends_on`` a readiness gate
(:class:`oke_rdma.readiness.ApiGate`, ``<prefix>-kueue-gate``): a Job in Kueue's namespace that completes only once
a server-side dry run of every kind created here passes Kueue's CRDs and webhooks; the gate ``depends_on`` the
Kueue release (which installs the ``kueue.x-k8s.io`` CRDs and webhooks). Kueue can report ready before its webhook
serves, and pulumi-kubernetes does not retry a create refused by a webhook (see ``oke_rdma.readiness``). API
version ``kueue.x-k8s.io/v1beta2``: served from Kueue 0.15.0 (``oke_rdma.facts.charts``; the config check refuses
older versions).

* ``Topology`` ``<prefix>-rdma``: ``platform.kueue.topologyLevels``, coarse to fine (default OCI's RDMA tiers
  ``oci.oraclecloud.com/rdma.hpc_island_id`` → ``rdma.network_block_id`` → ``rdma.local_block_id`` →
  ``kubernetes.io/hostname``).
* ``ResourceFlavor`` ``<prefix>-<pool>`` per RDMA pool and per shared (time-sliced or MIG) GPU pool: ``nodeLabels``
  select that pool's nodes by the initial label the compute component puts on every pool (:data:`POOL_LABEL`),
  ``topologyName`` the Topology (RDMA pools only), and GPU pools tolerate the ``nvidia.com/gpu`` taint. Kueue adds
  a flavor's node labels to the pods it admits, so a tenant's pods land only on the pools of its ClusterQueue.
* One **cohort** ``<prefix>`` and a ``ClusterQueue`` ``<prefix>-<tenant>`` per tenant, usable only from the tenant's
  namespace, covering ``cpu``, ``memory`` and ``nvidia.com/gpu`` on every RDMA flavor, plus the shared pools'
  flavors for a tenant with ``isolation: shared`` (a ``dedicated`` tenant never gets a shared pool's flavor), each
  only if some tenant of the cohort has a nominal quota on it (:func:`quota_pools`: elsewhere Kueue can admit
  nothing, so listing it changed nothing but the object's size; each ClusterQueue waits for the flavors it lists).
  The tenant's quota (:func:`flavor_quotas`) is spread over the flavors in pool order: GPUs fill each pool up to
  what it can offer, CPU and memory follow the same shares. Idle CPU/memory can be borrowed within the cohort; GPUs only up to
  ``quota.gpuBorrowingLimit`` (the namespace's ResourceQuota allows exactly that much more). A tenant reclaims its
  nominal quota by preempting borrowers (``reclaimWithinCohort: Any``); inside a queue, higher priority preempts lower.
* A ``LocalQueue`` named after the tenant, in the tenant's namespace: jobs set ``kueue.x-k8s.io/queue-name``.
* With ``platform.kueue.topologyLabeler.enabled``: a DaemonSet on the RDMA pools that adds missing
  ``oci.oraclecloud.com/rdma.*`` labels from the instance metadata (``oke_rdma/files/rdma_topology_labeler.py``),
  with a ServiceAccount allowed only ``get``/``patch`` on nodes.

Sources: Kueue docs "Topology Aware Scheduling", "Cluster Queue" (cohorts, borrowing, preemption), "Resource
Flavor", "Local Queue"; Kueue ``apis/kueue/v1beta2`` types (field names); oracle-quickstart/oci-hpc-oke "Using RDMA
Network Locality When Running Workloads on OKE".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from oke_rdma.addons.gpu_operator import GPU_RESOURCE
from oke_rdma.addons.kueue import HOSTNAME_LABEL
from oke_rdma.readiness import ApiGate, ApiGateArgs, Probe

KUEUE_API = "kueue.x-k8s.io/v1beta2"
#: Kind → spec fields Kueue's CRD transition rules make immutable (``self == oldSelf``; a ResourceFlavor's when
#: topologyName is set, as here). Source: Kueue v0.18.2 config/components/crd/bases/kueue.x-k8s.io_{topologies,
#: resourceflavors,localqueues}.yaml x-kubernetes-validations, checked 2026-11-30.
KUEUE_IMMUTABLE = {"Topology": ["spec.levels"],
                   "ResourceFlavor": ["spec.nodeLabels", "spec.tolerations", "spec.topologyName"],
                   "LocalQueue": ["spec.clusterQueue"]}
#: The initial node label every pool carries (set by ``oke_rdma.compute.node_labels``): pool name.
POOL_LABEL = "okerdma.io/node-pool"
COVERED_RESOURCES = ("cpu", "memory", GPU_RESOURCE)
LABELER_SCRIPT = Path(__file__).resolve().parent / "files" / "rdma_topology_labeler.py"


def kueue_probes(has_rdma_pools: bool, has_tenants: bool, name_prefix: str) -> list[Probe]:
    """The Kueue kinds this component creates (Topology and ResourceFlavor with RDMA pools, ClusterQueue and
    LocalQueue with tenants), each with a minimal valid object for the readiness gate's dry run."""
    probes: list[Probe] = []
    if has_rdma_pools:
        probes += [Probe(KUEUE_API, "Topology", "topologies", False, {"levels": [{"nodeLabel": "kubernetes.io/hostname"}]}),
                   Probe(KUEUE_API, "ResourceFlavor", "resourceflavors", False, {})]
    if has_tenants:
        probes += [Probe(KUEUE_API, "ClusterQueue", "clusterqueues", False, {}),
                   Probe(KUEUE_API, "LocalQueue", "localqueues", True,
                         {"clusterQueue": f"{name_prefix}-readiness-probe"})]
    return probes


def topology_name(name_prefix: str) -> str:
    """Name of the Kueue ``Topology`` (``<prefix>-rdma``)."""
    return f"{name_prefix}-rdma"


def flavor_name(name_prefix: str, pool: str) -> str:
    """Name of a pool's ``ResourceFlavor`` (``<prefix>-<pool>``)."""
    return f"{name_prefix}-{pool}"


def cluster_queue_name(name_prefix: str, tenant: str) -> str:
    """Name of a tenant's ``ClusterQueue`` (``<prefix>-<tenant>``)."""
    return f"{name_prefix}-{tenant}"


def local_queue_name(tenant: str) -> str:
    """The LocalQueue of tenant ``tenant`` (in its namespace): what ``kueue.x-k8s.io/queue-name`` must say."""
    return tenant


@dataclass(frozen=True)
class FlavorQuota:
    """A tenant's nominal quota on one pool's flavor: ``gpu`` (GPUs, or GPU slices on a shared pool), ``gpu_borrowing_limit``
    (GPUs it may borrow beyond that from the cohort), ``cpu_millis`` (millicores) and ``memory_mi`` (MiB)."""

    gpu: int
    gpu_borrowing_limit: int
    cpu_millis: int
    memory_mi: int


@dataclass(frozen=True)
class FlavorPool:
    """A node pool that gets a ``ResourceFlavor``: ``rdma`` — in the Compute Cluster, so the flavor names the RDMA
    ``Topology``; ``gpu`` — a GPU shape, so the flavor tolerates the ``nvidia.com/gpu`` taint."""

    rdma: bool
    gpu: bool


@dataclass(frozen=True)
class TenantQueue:
    """A tenant's queueing: its ``namespace`` (the only one its ClusterQueue admits from) and ``quotas``, pool →
    :class:`FlavorQuota` in the order the ClusterQueue lists the flavors (every pool named must be in
    :attr:`SchedulingArgs.pools`)."""

    namespace: str
    quotas: Mapping[str, FlavorQuota]


def quota_pools(tenants: Mapping[str, TenantQueue]) -> set[str]:
    """The pools on whose flavor some tenant of the cohort has a nominal quota (GPUs, CPU or memory above zero).

    A flavor outside this set can admit nothing for anyone: the cohort has no quota there to lend, and Kueue admits a
    podset on a flavor only if its request fits ``PotentialAvailable`` — the queue's own nominal quota plus what the
    cohort holds, within ``borrowingLimit`` (kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/flavorassigner``
    ``fitsResourceQuota``; ``pkg/cache/scheduler/resource_node.go`` ``potentialAvailable``, the cohort's
    ``SubtreeQuota`` being the sum of its ClusterQueues' nominal quotas when no ``Cohort`` object gives it one; read
    2026-12-02). Nothing is in use there to preempt, and fair sharing weighs only usage above nominal quota. So the
    ClusterQueues list only these pools' flavors: a pool that gets its first quota adds its flavor to every eligible
    tenant's ClusterQueue (an in-place update), one that loses its last quota takes it out of them.
    """
    return {pool for queue in tenants.values() for pool, q in queue.quotas.items()
            if q.gpu > 0 or q.cpu_millis > 0 or q.memory_mi > 0}


@dataclass(frozen=True)
class TopologyLabelerArgs:
    """The RDMA topology labeler DaemonSet: its pinned ``image`` and ``namespace`` (which must be in
    :attr:`SchedulingArgs.namespaces`, Pod Security ``privileged``: hostNetwork)."""

    image: str
    namespace: str


@dataclass
class SchedulingArgs:
    """Inputs of :class:`Scheduling`; nothing here reads this project's stack config
    (:func:`oke_rdma.adapter.scheduling_args` builds it from ``platform.kueue``, ``nodePools``, ``tenants``).

    :param name_prefix: prefix of every name (``<prefix>-rdma`` Topology, ``<prefix>-<pool>`` flavors, the cohort).
    :param provider: the explicit Kubernetes provider of the OKE cluster.
    :param kueue_release: the Kueue Helm release; the readiness gate depends on it, every custom resource on both.
    :param namespaces: namespace name → ``Namespace`` (``Platform.namespaces``): Kueue's (the gate runs there), the
        tenants' and the labeler's.
    :param kueue_namespace: Kueue's namespace (the readiness gate's Job runs there).
    :param kubernetes_version: the cluster's version (``v1.34.1``): the gate's kubectl image follows it.
    :param topology_levels: node label keys of the RDMA ``Topology``, coarse to fine, ending with
        ``kubernetes.io/hostname`` (Kueue's rule for TAS).
    :param pools: pool name → :class:`FlavorPool`, in flavor order (RDMA pools first, then shared GPU pools).
    :param tenants: tenant name → :class:`TenantQueue`.
    :param labeler: the topology labeler, or None; runs only when some pool is RDMA.
    :raises ValueError: one line naming the argument: RDMA pools with ``topology_levels`` not ending with
        ``kubernetes.io/hostname`` (or repeating one), a namespace (Kueue's, a tenant's, the labeler's) missing from
        ``namespaces``, a tenant quota on a pool not in ``pools``.
    """

    name_prefix: str
    provider: pulumi.ProviderResource
    kueue_release: pulumi.Resource
    namespaces: Mapping[str, k8s.core.v1.Namespace]
    kueue_namespace: str
    kubernetes_version: str
    topology_levels: Sequence[str]
    pools: Mapping[str, FlavorPool] = field(default_factory=dict)
    tenants: Mapping[str, TenantQueue] = field(default_factory=dict)
    labeler: Optional[TopologyLabelerArgs] = None

    def __post_init__(self) -> None:
        # A library user has no stack-config checks in front of this: refuse, one line each, what Kueue or this
        # component could not use, before anything is declared.
        levels = list(self.topology_levels)
        if self.pools and any(f.rdma for f in self.pools.values()) and (
                not levels or levels[-1] != HOSTNAME_LABEL or len(set(levels)) != len(levels)):
            raise ValueError(f"SchedulingArgs.topology_levels: must be distinct node label keys ending with "
                             f"{HOSTNAME_LABEL} (Kueue's rule for topology-aware scheduling), got {levels}")
        needed = {"kueue_namespace": self.kueue_namespace,
                  **{f"tenants.{t}.namespace": q.namespace for t, q in self.tenants.items()},
                  **({"labeler.namespace": self.labeler.namespace} if self.labeler else {})}
        for where, ns in needed.items():
            if ns not in self.namespaces:
                raise ValueError(f"SchedulingArgs.{where}: namespace {ns!r} is not in SchedulingArgs.namespaces "
                                 f"(pass its Namespace resource)")
        for tenant, queue in self.tenants.items():
            unknown = sorted(set(queue.quotas) - set(self.pools))
            if unknown:
                raise ValueError(f"SchedulingArgs.tenants.{tenant}.quotas: pools {unknown} are not in "
                                 f"SchedulingArgs.pools (a quota needs the pool's ResourceFlavor)")

    @property
    def rdma_pools(self) -> list[str]:
        """The RDMA pools, in order."""
        return [p for p, f in self.pools.items() if f.rdma]


class Scheduling(pulumi.ComponentResource):
    """Kueue Topology, ResourceFlavors, ClusterQueues, LocalQueues and the optional topology labeler
    (type ``oke-rdma:scheduling:Scheduling``).

    Attributes: ``gate`` (the :class:`~oke_rdma.readiness.ApiGate`, or None when nothing is created),
    ``topology`` (``CustomResource`` or None without RDMA pools), ``resource_flavors`` (pool →
    ``CustomResource``), ``cluster_queues`` / ``local_queues`` (tenant → ``CustomResource``), ``queues`` (tenant →
    ``{namespace, localQueue, clusterQueue}``: the contract jobs use), ``labeler`` (``DaemonSet`` or None).
    Raises nothing: the config model has checked levels, quotas and names.
    """

    def __init__(self, name: str, args: SchedulingArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:scheduling:Scheduling", name, None, opts)
        prefix = args.name_prefix
        rdma_pools = args.rdma_pools

        probes = kueue_probes(bool(rdma_pools), bool(args.tenants), prefix)
        self.gate: Optional[ApiGate] = None
        if probes:
            self.gate = ApiGate(f"{prefix}-kueue-gate", ApiGateArgs(
                args.kueue_release, args.namespaces[args.kueue_namespace], probes, args.provider,
                args.kubernetes_version, prefix), pulumi.ResourceOptions(parent=self))
        gate_deps: list[pulumi.Resource] = [self.gate.job] if self.gate else []

        def k8s_opts(*deps: Optional[pulumi.Resource], immutable: Sequence[str] = ()) -> pulumi.ResourceOptions:
            # ``immutable``: fields Kueue's CRDs refuse to change (x-kubernetes-validations, KUEUE_IMMUTABLE), which
            # pulumi-kubernetes does not know: replacing the object is how they change.
            return pulumi.ResourceOptions(parent=self, provider=args.provider, replace_on_changes=list(immutable),
                                          depends_on=[args.kueue_release, *gate_deps, *(d for d in deps if d)])

        def meta(name_: str, namespace: Optional[pulumi.Input[str]] = None) -> k8s.meta.v1.ObjectMetaArgs:
            return k8s.meta.v1.ObjectMetaArgs(name=name_, namespace=namespace,
                                              labels={"app.kubernetes.io/managed-by": "pulumi",
                                                      "app.kubernetes.io/part-of": prefix})

        self.topology: Optional[k8s.apiextensions.CustomResource] = None
        self.resource_flavors: dict[str, k8s.apiextensions.CustomResource] = {}
        if rdma_pools:
            self.topology = k8s.apiextensions.CustomResource(
                f"{prefix}-topology", api_version=KUEUE_API, kind="Topology", metadata=meta(topology_name(prefix)),
                spec={"levels": [{"nodeLabel": level} for level in args.topology_levels]},
                opts=k8s_opts(immutable=KUEUE_IMMUTABLE["Topology"]))
        for pool, flavor in args.pools.items():
            # Shared (time-sliced or MIG) pools are not in the Compute Cluster: no RDMA topology to schedule by.
            spec: dict = {"nodeLabels": {POOL_LABEL: pool}}
            if flavor.rdma:
                spec["topologyName"] = topology_name(prefix)
            if flavor.gpu:
                spec["tolerations"] = [{"key": GPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"}]
            self.resource_flavors[pool] = k8s.apiextensions.CustomResource(
                f"{prefix}-flavor-{pool}", api_version=KUEUE_API, kind="ResourceFlavor",
                metadata=meta(flavor_name(prefix, pool)), spec=spec,
                opts=k8s_opts(*([self.topology] if flavor.rdma and self.topology else []),
                              immutable=KUEUE_IMMUTABLE["ResourceFlavor"]))

        self.cluster_queues: dict[str, k8s.apiextensions.CustomResource] = {}
        self.local_queues: dict[str, k8s.apiextensions.CustomResource] = {}
        self.queues: dict[str, dict[str, str]] = {}
        live = quota_pools(args.tenants)
        for tenant, queue in args.tenants.items():
            ns_name = queue.namespace
            namespace = args.namespaces[ns_name]
            flavors = [{"name": flavor_name(prefix, pool), "resources": [
                {"name": "cpu", "nominalQuota": f"{q.cpu_millis}m"},
                {"name": "memory", "nominalQuota": f"{q.memory_mi}Mi"},
                {"name": GPU_RESOURCE, "nominalQuota": str(q.gpu), "borrowingLimit": str(q.gpu_borrowing_limit)},
            ]} for pool, q in queue.quotas.items() if pool in live]
            cq_spec: dict = {
                "cohortName": prefix,
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns_name}},
                "queueingStrategy": "BestEffortFIFO",
                "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
                "resourceGroups": ([{"coveredResources": list(COVERED_RESOURCES), "flavors": flavors}]
                                   if flavors else []),
            }
            self.cluster_queues[tenant] = k8s.apiextensions.CustomResource(
                f"{prefix}-cq-{tenant}", api_version=KUEUE_API, kind="ClusterQueue",
                metadata=meta(cluster_queue_name(prefix, tenant)), spec=cq_spec,
                opts=k8s_opts(*(self.resource_flavors[pool] for pool in queue.quotas if pool in live)))
            self.local_queues[tenant] = k8s.apiextensions.CustomResource(
                f"{prefix}-lq-{tenant}", api_version=KUEUE_API, kind="LocalQueue",
                metadata=meta(local_queue_name(tenant), namespace.metadata.name),
                spec={"clusterQueue": cluster_queue_name(prefix, tenant)},
                opts=k8s_opts(self.cluster_queues[tenant], namespace, immutable=KUEUE_IMMUTABLE["LocalQueue"]))
            self.queues[tenant] = {"namespace": ns_name, "localQueue": local_queue_name(tenant),
                                   "clusterQueue": cluster_queue_name(prefix, tenant)}

        self.labeler: Optional[k8s.apps.v1.DaemonSet] = None
        if args.labeler is not None and rdma_pools:
            self.labeler = self._labeler(args, args.labeler, rdma_pools)

        self.register_outputs({"topology": topology_name(prefix) if self.topology else None, "queues": self.queues})

    def _labeler(self, args: SchedulingArgs, spec: TopologyLabelerArgs, pools: list[str]) -> k8s.apps.v1.DaemonSet:
        """The RDMA topology labeler: ServiceAccount, ClusterRole (get/patch nodes only), binding, script, DaemonSet.

        The pod uses hostNetwork (the metadata service must answer for the host, not a pod VNIC) and nothing else:
        non-root, read-only root filesystem, no capabilities, no privilege escalation, RuntimeDefault seccomp.
        """
        prefix = args.name_prefix
        name = "rdma-topology-labeler"
        namespace = args.namespaces[spec.namespace]
        opts = pulumi.ResourceOptions(parent=self, provider=args.provider)
        labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": prefix,
                  "app.kubernetes.io/managed-by": "pulumi"}

        def meta(namespaced: bool) -> k8s.meta.v1.ObjectMetaArgs:
            return k8s.meta.v1.ObjectMetaArgs(name=name if namespaced else f"{prefix}-{name}",
                                              namespace=namespace.metadata.name if namespaced else None,
                                              labels=labels)

        sa = k8s.core.v1.ServiceAccount(f"{prefix}-labeler-sa", k8s.core.v1.ServiceAccountInitArgs(
            metadata=meta(True)), opts)
        role = k8s.rbac.v1.ClusterRole(f"{prefix}-labeler-role", k8s.rbac.v1.ClusterRoleInitArgs(
            metadata=meta(False),
            rules=[k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["nodes"], verbs=["get", "patch"])]), opts)
        binding = k8s.rbac.v1.ClusterRoleBinding(f"{prefix}-labeler-binding", k8s.rbac.v1.ClusterRoleBindingInitArgs(
            metadata=meta(False),
            role_ref=k8s.rbac.v1.RoleRefArgs(api_group="rbac.authorization.k8s.io", kind="ClusterRole",
                                             name=role.metadata.name),
            subjects=[k8s.rbac.v1.SubjectArgs(kind="ServiceAccount", name=sa.metadata.name,
                                              namespace=namespace.metadata.name)]), opts)
        script = k8s.core.v1.ConfigMap(f"{prefix}-labeler-script", k8s.core.v1.ConfigMapInitArgs(
            metadata=meta(True), data={"labeler.py": LABELER_SCRIPT.read_text()}), opts)
        container = k8s.core.v1.ContainerArgs(
            name="labeler", image=spec.image, command=["python3", "/opt/labeler/labeler.py"],
            env=[k8s.core.v1.EnvVarArgs(name="NODE_NAME", value_from=k8s.core.v1.EnvVarSourceArgs(
                field_ref=k8s.core.v1.ObjectFieldSelectorArgs(field_path="spec.nodeName")))],
            resources=k8s.core.v1.ResourceRequirementsArgs(requests={"cpu": "10m", "memory": "32Mi"},
                                                           limits={"cpu": "100m", "memory": "64Mi"}),
            security_context=k8s.core.v1.SecurityContextArgs(
                allow_privilege_escalation=False, read_only_root_filesystem=True, run_as_non_root=True,
                run_as_user=65534, capabilities=k8s.core.v1.CapabilitiesArgs(drop=["ALL"])),
            volume_mounts=[k8s.core.v1.VolumeMountArgs(name="script", mount_path="/opt/labeler", read_only=True)])
        affinity = k8s.core.v1.AffinityArgs(node_affinity=k8s.core.v1.NodeAffinityArgs(
            required_during_scheduling_ignored_during_execution=k8s.core.v1.NodeSelectorArgs(node_selector_terms=[
                k8s.core.v1.NodeSelectorTermArgs(match_expressions=[k8s.core.v1.NodeSelectorRequirementArgs(
                    key=POOL_LABEL, operator="In", values=pools)])])))
        return k8s.apps.v1.DaemonSet(f"{prefix}-labeler", k8s.apps.v1.DaemonSetInitArgs(
            metadata=meta(True),
            spec=k8s.apps.v1.DaemonSetSpecArgs(
                selector=k8s.meta.v1.LabelSelectorArgs(match_labels={"app.kubernetes.io/name": name}),
                template=k8s.core.v1.PodTemplateSpecArgs(
                    metadata=k8s.meta.v1.ObjectMetaArgs(labels=labels),
                    spec=k8s.core.v1.PodSpecArgs(
                        service_account_name=sa.metadata.name, host_network=True,
                        dns_policy="ClusterFirstWithHostNet", affinity=affinity,
                        tolerations=[k8s.core.v1.TolerationArgs(operator="Exists")],
                        security_context=k8s.core.v1.PodSecurityContextArgs(
                            seccomp_profile=k8s.core.v1.SeccompProfileArgs(type="RuntimeDefault")),
                        containers=[container],
                        volumes=[k8s.core.v1.VolumeArgs(name="script", config_map=k8s.core.v1.ConfigMapVolumeSourceArgs(
                            name=script.metadata.name))])))),
            pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=[binding, namespace]))
