"""Kueue objects for topology-aware scheduling on OCI RDMA pools, and the optional RDMA topology labeler.

Built only when the Kueue release is enabled; every custom resource here ``depends_on`` that release (it installs
the ``kueue.x-k8s.io`` CRDs; a custom resource registered before its CRD exists fails to create). API version
``kueue.x-k8s.io/v1beta2`` (the storage version of Kueue 0.18).

* ``Topology`` ``<prefix>-rdma``: ``platform.kueue.topologyLevels``, coarse to fine (default OCI's RDMA tiers
  ``oci.oraclecloud.com/rdma.hpc_island_id`` → ``rdma.network_block_id`` → ``rdma.local_block_id`` →
  ``kubernetes.io/hostname``).
* ``ResourceFlavor`` ``<prefix>-<pool>`` per RDMA pool: ``nodeLabels`` select that pool's nodes by the initial label
  the compute component puts on every pool (:data:`POOL_LABEL`), ``topologyName`` the Topology, and GPU pools
  tolerate the ``nvidia.com/gpu`` taint.
* One **cohort** ``<prefix>`` and a ``ClusterQueue`` ``<prefix>-<tenant>`` per tenant, usable only from the tenant's
  namespace, covering ``cpu``, ``memory`` and ``nvidia.com/gpu`` on every RDMA flavor. The tenant's quota
  (:func:`flavor_quotas`) is spread over the flavors in pool order: GPUs fill each pool up to what it can offer,
  CPU and memory follow the same shares. Idle CPU/memory can be borrowed within the cohort; GPUs only up to
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

from pathlib import Path
from typing import Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from oke_rdma.addons.gpu_operator import GPU_RESOURCE
from oke_rdma.config import StackConfig

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


def topology_name(cfg: StackConfig) -> str:
    return f"{cfg.name_prefix}-rdma"


def flavor_name(cfg: StackConfig, pool: str) -> str:
    return f"{cfg.name_prefix}-{pool}"


def cluster_queue_name(cfg: StackConfig, tenant: str) -> str:
    return f"{cfg.name_prefix}-{tenant}"


def local_queue_name(tenant: str) -> str:
    """The LocalQueue of tenant ``tenant`` (in its namespace): what ``kueue.x-k8s.io/queue-name`` must say."""
    return tenant


def _split(total: int, weights: list[int]) -> list[int]:
    """``total`` split in proportion to ``weights`` (integers; the remainder goes to the last non-zero weight)."""
    if total == 0 or not any(weights):
        return [total if i == 0 else 0 for i in range(len(weights))]
    whole = sum(weights)
    parts = [total * w // whole for w in weights]
    last = max(i for i, w in enumerate(weights) if w)
    parts[last] += total - sum(parts)
    return parts


def flavor_quotas(cfg: StackConfig, tenant: str) -> dict[str, dict[str, int]]:
    """RDMA pool → ``{gpu, gpuBorrowingLimit, cpuMillis, memoryMi}`` of tenant ``tenant``'s ClusterQueue.

    GPUs fill the pools in order up to each one's ``size × GPUs per shape``; the borrowing limit fills what is left;
    CPU (millicores) and memory (MiB) follow the GPU shares (all on the first pool when the quota has no GPU). The
    config model has already refused a GPU quota above what the pools can offer.
    """
    q = cfg.tenants[tenant].quota
    pools = list(cfg.rdma_pools)
    capacity = [cfg.node_pools[p].size * (cfg.node_pools[p].gpus or 0) for p in pools]
    gpus, borrow, left, left_borrow = [], [], q.gpu, q.gpu_borrowing_limit
    for cap in capacity:
        take = min(left, cap)
        gpus.append(take)
        left -= take
        extra = min(left_borrow, cap - take)
        borrow.append(extra)
        left_borrow -= extra
    cpu = _split(q.cpu * 1000, gpus)
    mem = _split(q.memory_gb * 1024, gpus)
    return {p: {"gpu": gpus[i], "gpuBorrowingLimit": borrow[i], "cpuMillis": cpu[i], "memoryMi": mem[i]}
            for i, p in enumerate(pools)}


class SchedulingArgs:
    """Inputs of :class:`Scheduling`.

    :param config: the stack config (reads ``platform.kueue``, ``nodePools``, ``tenants``, ``namePrefix``).
    :param provider: the explicit Kubernetes provider of the OKE cluster.
    :param kueue_release: the Kueue Helm release; every custom resource here depends on it.
    :param namespaces: namespace name → ``Namespace`` (``Platform.namespaces``): the tenants' and the labeler's.
    """

    def __init__(self, config: StackConfig, provider: pulumi.ProviderResource, kueue_release: pulumi.Resource,
                 namespaces: dict[str, k8s.core.v1.Namespace]):
        self.config = config
        self.provider = provider
        self.kueue_release = kueue_release
        self.namespaces = namespaces


class Scheduling(pulumi.ComponentResource):
    """Kueue Topology, ResourceFlavors, ClusterQueues, LocalQueues and the optional topology labeler
    (type ``oke-rdma:scheduling:Scheduling``).

    Attributes: ``topology`` (``CustomResource`` or None without RDMA pools), ``resource_flavors`` (pool →
    ``CustomResource``), ``cluster_queues`` / ``local_queues`` (tenant → ``CustomResource``), ``queues`` (tenant →
    ``{namespace, localQueue, clusterQueue}``: the contract jobs use), ``labeler`` (``DaemonSet`` or None).
    Raises nothing: the config model has checked levels, quotas and names.
    """

    def __init__(self, name: str, args: SchedulingArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:scheduling:Scheduling", name, None, opts)
        cfg = args.config
        prefix = cfg.name_prefix
        kueue = cfg.platform.kueue

        def k8s_opts(*deps: pulumi.Resource, immutable: Sequence[str] = ()) -> pulumi.ResourceOptions:
            # ``immutable``: fields Kueue's CRDs refuse to change (x-kubernetes-validations, KUEUE_IMMUTABLE), which
            # pulumi-kubernetes does not know: replacing the object is how they change.
            return pulumi.ResourceOptions(parent=self, provider=args.provider, replace_on_changes=list(immutable),
                                          depends_on=[args.kueue_release, *deps])

        def meta(name_: str, namespace: Optional[pulumi.Input[str]] = None) -> k8s.meta.v1.ObjectMetaArgs:
            return k8s.meta.v1.ObjectMetaArgs(name=name_, namespace=namespace,
                                              labels={"app.kubernetes.io/managed-by": "pulumi",
                                                      "app.kubernetes.io/part-of": prefix})

        rdma_pools = list(cfg.rdma_pools)
        self.topology: Optional[k8s.apiextensions.CustomResource] = None
        self.resource_flavors: dict[str, k8s.apiextensions.CustomResource] = {}
        if rdma_pools:
            self.topology = k8s.apiextensions.CustomResource(
                f"{prefix}-topology", api_version=KUEUE_API, kind="Topology", metadata=meta(topology_name(cfg)),
                spec={"levels": [{"nodeLabel": level} for level in kueue.topology_levels]},
                opts=k8s_opts(immutable=KUEUE_IMMUTABLE["Topology"]))
        for pool in rdma_pools:
            spec: dict = {"nodeLabels": {POOL_LABEL: pool}, "topologyName": topology_name(cfg)}
            if cfg.node_pools[pool].gpus:
                spec["tolerations"] = [{"key": GPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"}]
            self.resource_flavors[pool] = k8s.apiextensions.CustomResource(
                f"{prefix}-flavor-{pool}", api_version=KUEUE_API, kind="ResourceFlavor",
                metadata=meta(flavor_name(cfg, pool)), spec=spec,
                opts=k8s_opts(self.topology, immutable=KUEUE_IMMUTABLE["ResourceFlavor"]))

        self.cluster_queues: dict[str, k8s.apiextensions.CustomResource] = {}
        self.local_queues: dict[str, k8s.apiextensions.CustomResource] = {}
        self.queues: dict[str, dict[str, str]] = {}
        for tenant in cfg.tenants:
            ns_name = cfg.tenant_namespace(tenant)
            namespace = args.namespaces[ns_name]
            quotas = flavor_quotas(cfg, tenant)
            flavors = [{"name": flavor_name(cfg, pool), "resources": [
                {"name": "cpu", "nominalQuota": f"{q['cpuMillis']}m"},
                {"name": "memory", "nominalQuota": f"{q['memoryMi']}Mi"},
                {"name": GPU_RESOURCE, "nominalQuota": str(q["gpu"]), "borrowingLimit": str(q["gpuBorrowingLimit"])},
            ]} for pool, q in quotas.items()]
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
                metadata=meta(cluster_queue_name(cfg, tenant)), spec=cq_spec,
                opts=k8s_opts(*self.resource_flavors.values()))
            self.local_queues[tenant] = k8s.apiextensions.CustomResource(
                f"{prefix}-lq-{tenant}", api_version=KUEUE_API, kind="LocalQueue",
                metadata=meta(local_queue_name(tenant), namespace.metadata.name),
                spec={"clusterQueue": cluster_queue_name(cfg, tenant)},
                opts=k8s_opts(self.cluster_queues[tenant], namespace, immutable=KUEUE_IMMUTABLE["LocalQueue"]))
            self.queues[tenant] = {"namespace": ns_name, "localQueue": local_queue_name(tenant),
                                   "clusterQueue": cluster_queue_name(cfg, tenant)}

        self.labeler: Optional[k8s.apps.v1.DaemonSet] = None
        if kueue.topology_labeler.enabled and rdma_pools:
            self.labeler = self._labeler(cfg, args, rdma_pools)

        self.register_outputs({"topology": topology_name(cfg) if self.topology else None, "queues": self.queues})

    def _labeler(self, cfg: StackConfig, args: SchedulingArgs, pools: list[str]) -> k8s.apps.v1.DaemonSet:
        """The RDMA topology labeler: ServiceAccount, ClusterRole (get/patch nodes only), binding, script, DaemonSet.

        The pod uses hostNetwork (the metadata service must answer for the host, not a pod VNIC) and nothing else:
        non-root, read-only root filesystem, no capabilities, no privilege escalation, RuntimeDefault seccomp.
        """
        prefix = cfg.name_prefix
        spec = cfg.platform.kueue.topology_labeler
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
