"""The one place the stack config (:class:`oke_rdma.config.StackConfig`) becomes component arguments.

Each ``*_args`` function takes the parsed stack config plus the outputs of other components the component needs,
and returns its ``*Args`` holding only the slice it uses. Programs that do not use this project's stack config build
the ``*Args`` themselves (see ``examples/compose/``).
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import pulumi

from oke_rdma.addons.cilium import AGENT_NOT_READY_TAINT
from oke_rdma.cluster import ClusterArgs
from oke_rdma.compute import ComputeArgs
from oke_rdma.config import (StackConfig, cidr_problems, placement_warnings, required_nsg_roles, required_subnet_roles,
                             workload_bindings)
from oke_rdma.config.checks.fleet import plain_gpu_pools, pool_gpu_units, shared_pools, tenant_pools
from oke_rdma.config.checks.object_storage import weights_bucket_name
from oke_rdma.config.object_storage import checkpoint_prefix
from oke_rdma.config.checks.storage import lustre_availability_domain, lustre_client_pools, tenant_ids
from oke_rdma.config.checks.storage_classes import unattachable_classes
from oke_rdma.config.platform import is_gpu_shape
from oke_rdma.facts.storage import BLOCK_VOLUME_CLASS
from oke_rdma.guard import GuardArgs, tenant_labels
from oke_rdma.guard_ids import TenantIds
from oke_rdma.lustre import CLAIM_NAME as LUSTRE_CLAIM
from oke_rdma.health import GpuHealthArgs
from oke_rdma.schema import _key
from oke_rdma.iam import IamArgs, IamInputs, iam_plan, statement_limit_problems
from oke_rdma.iam_access import member_group_ids
from oke_rdma.lustre import LNET_RULES_ON_CLIENT_NSG, LustreArgs
from oke_rdma.node_init import LustreArchive
from oke_rdma.monitoring.component import MonitoringArgs
from oke_rdma.network import NetworkArgs, nsg_rule_limit_problems, oke_rules
from oke_rdma.object_storage import WeightsBucketArgs
from oke_rdma.platform import Platform, PlatformArgs, TenantNamespace
from oke_rdma.scheduling import FlavorPool, FlavorQuota, SchedulingArgs, TenantQueue, TopologyLabelerArgs
from oke_rdma.sharing import gpu_operator_values
from oke_rdma.tenant_access import ROLES, TenantAccessArgs, TenantBinding, role_name
from oke_rdma.storage import StorageArgs, fss_availability_domain, needs_preparation
from oke_rdma.tenant_defaults import TenantDefaultsArgs, priority_class_names
from oke_rdma.volumes import CLAIM_NAME as FSS_CLAIM
from oke_rdma.volumes import SharedVolumesArgs, TenantShare
from oke_rdma.walls import TenantWall, WallsArgs
from oke_rdma.workload_identity import WorkloadIdentityArgs


def tenant_namespaces(cfg: StackConfig) -> dict[str, TenantNamespace]:
    """Tenant name → its namespace, Pod Security need (``rdma``), GPU quota (nominal plus borrowing limit) and the
    fleet labels (:data:`oke_rdma.guard.TENANT_LABEL` for metering, ``okerdma.io/rdma`` and
    ``okerdma.io/isolation`` for the in-cluster guard)."""
    return {name: TenantNamespace(namespace=cfg.tenant_namespace(name), rdma=t.rdma,
                                  gpu_quota=t.quota.gpu + t.quota.gpu_borrowing_limit,
                                  labels=tenant_labels(name, t.rdma, t.isolation))
            for name, t in cfg.tenants.items()}


def platform_config(cfg: StackConfig):
    """``cfg.platform`` with the GPU Operator's device-plugin configurations for the pools' time-slicing merged into
    its values (``oke_rdma.sharing.device_plugin_configs``), under the user's ``platform.gpuOperator.values``."""
    gpu = cfg.platform.gpu_operator
    return cfg.platform.model_copy(update={"gpu_operator": gpu.model_copy(update={"values": gpu_operator_values(cfg)})})


def platform_args(cfg: StackConfig, provider: pulumi.ProviderResource,
                  depends_on: Sequence[pulumi.Resource] = ()) -> PlatformArgs:
    """:class:`~oke_rdma.platform.PlatformArgs` from ``platform``, ``tenants``, ``nodePools`` (GPU sharing) and
    ``namePrefix``."""
    return PlatformArgs(provider=provider, name_prefix=cfg.name_prefix, platform=platform_config(cfg),
                        tenants=tenant_namespaces(cfg), depends_on=depends_on, block_volume_class=BLOCK_VOLUME_CLASS)


def service_limit_problems(cfg: StackConfig) -> list[str]:
    """OCI service limits the stack's own resources would exceed, known from the config alone (docs/constraints.md):
    rules per NSG (:func:`~oke_rdma.network.nsg_rule_limit_problems`, when this stack creates the NSGs) and IAM
    statements per compartment path (:func:`~oke_rdma.iam.statement_limit_problems`). ``__main__.py`` raises them as
    a :class:`~oke_rdma.schema.ConfigError` before anything is declared.

    :returns: one line per problem, naming the config key and the fix.
    """
    problems: list[str] = []
    if cfg.network.creates_nsgs:
        extra = {"workers": LNET_RULES_ON_CLIENT_NSG} if cfg.storage.lustre is not None else {}
        problems += nsg_rule_limit_problems(oke_rules(cfg.network.api_endpoint.allowed_cidrs,
                                                      cfg.storage.fss.in_transit_tls), extra)
    problems += statement_limit_problems(iam_plan(iam_inputs(cfg), "<cluster OCID>"))
    return problems


def network_args(cfg: StackConfig) -> NetworkArgs:
    """:class:`~oke_rdma.network.NetworkArgs` from ``network``, ``compartmentId``, ``namePrefix``, ``freeformTags``,
    ``storage.fss.inTransitTls``; the roles a brought network must provide and the CIDR-planning rules a
    ``fromStack`` network's CIDRs must pass come from the whole config (``cluster.cniType``, ``storage.fss``,
    ``nodePools``, ``cluster.servicesCidr``)."""
    return NetworkArgs(cfg.compartment_id, cfg.network, name_prefix=cfg.name_prefix, freeform_tags=cfg.freeform_tags,
                       nfs_in_transit_tls=cfg.storage.fss.in_transit_tls, subnet_roles=required_subnet_roles(cfg),
                       nsg_roles=required_nsg_roles(cfg),
                       cidr_check=lambda nets, key: cidr_problems(cfg, nets, key))


def cluster_args(cfg: StackConfig, vcn_id: pulumi.Input[str], subnet_ids: Mapping[str, pulumi.Input[str]],
                 nsg_ids: Mapping[str, pulumi.Input[str]], depends_on: Sequence[pulumi.Resource] = ()) -> ClusterArgs:
    """:class:`~oke_rdma.cluster.ClusterArgs` from ``cluster``, ``network.apiEndpoint.public``, ``compartmentId``,
    ``namePrefix`` and ``freeformTags``, plus the network's outputs."""
    return ClusterArgs(cfg.compartment_id, cfg.cluster, vcn_id, subnet_ids, nsg_ids,
                       public_endpoint=cfg.network.api_endpoint.public, name_prefix=cfg.name_prefix,
                       freeform_tags=cfg.freeform_tags, depends_on=depends_on)


def compute_args(cfg: StackConfig, cluster_id: pulumi.Input[str], kubernetes_version: pulumi.Input[str],
                 subnet_ids: Mapping[str, pulumi.Input[str]], nsg_ids: Mapping[str, pulumi.Input[str]],
                 depends_on: Sequence[pulumi.Resource] = ()) -> ComputeArgs:
    """:class:`~oke_rdma.compute.ComputeArgs` from ``nodePools``, ``computeCluster``, ``availabilityDomains``,
    ``cluster.cniType``, the GPU Operator's device plugin (``platform.gpuOperator``), the placement warnings, the
    Lustre client pools (``storage.lustre.client``), the startup taints (:func:`startup_taints`),
    ``compartmentId``, ``namePrefix`` and ``freeformTags``, plus the cluster's and network's outputs."""
    return ComputeArgs(cfg.compartment_id, cluster_id, kubernetes_version, subnet_ids, nsg_ids, cfg.node_pools,
                       availability_domains=cfg.availability_domains, compute_cluster=cfg.compute_cluster,
                       cni_type=cfg.cluster.cni_type, disable_oke_device_plugin=cfg.platform.operator_device_plugin,
                       name_prefix=cfg.name_prefix, freeform_tags=cfg.freeform_tags,
                       warnings=placement_warnings(cfg), lustre_clients=lustre_clients(cfg),
                       startup_taints=startup_taints(cfg), depends_on=depends_on)


def startup_taints(cfg: StackConfig) -> tuple[str, ...]:
    """The taints every node registers with: Cilium's agent-not-ready taint when ``platform.cilium`` is on (a pod
    that starts on a node before the agent is ready is not managed by Cilium, so the walls would not hold it;
    :data:`oke_rdma.addons.cilium.AGENT_NOT_READY_TAINT`); none otherwise."""
    return (AGENT_NOT_READY_TAINT,) if cfg.platform.cilium.enabled else ()


def lustre_clients(cfg: StackConfig) -> dict[str, dict[str, LustreArchive]]:
    """Pool name → Lustre client package archives (OS key → archive) for the pools of
    :func:`~oke_rdma.config.checks.storage.lustre_client_pools` (none without ``storage.lustre``)."""
    pools = lustre_client_pools(cfg)
    if not pools:
        return {}
    assert cfg.storage.lustre is not None
    packages = cfg.storage.lustre.client.packages.model_dump(by_alias=True)
    archives = {os_key: LustreArchive(a["url"], a["sha256"]) for os_key, a in packages.items() if a is not None}
    return {pool: dict(archives) for pool in pools}


def iam_inputs(cfg: StackConfig) -> IamInputs:
    """:class:`~oke_rdma.iam.IamInputs` from ``iam``, ``compartmentId``, ``namePrefix``, ``freeformTags``, the RDMA
    pools, ``storage.fss``, the cluster's Vault keys, the tenants' Workload Identity bindings (their weights bucket
    grants included) and the created weights bucket's Vault key (``storage.objectStorage.kmsKeyId``)."""
    obj = cfg.storage.object_storage
    return IamInputs(compartment_id=cfg.compartment_id, name_prefix=cfg.name_prefix, freeform_tags=cfg.freeform_tags,
                     iam=cfg.iam, rdma_pools=bool(cfg.rdma_pools), fss=cfg.storage.fss,
                     cluster_kms_key_ids=cfg.cluster.kms_key_ids, workload_bindings=tuple(workload_bindings(cfg)),
                     object_storage_kms_key_id=obj.kms_key_id if obj.enabled else None,
                     object_storage_previous_kms_key_ids=obj.previous_kms_key_ids if obj.enabled else (),
                     region=cfg.region,
                     lustre=cfg.storage.lustre is not None,
                     member_group_ids=member_group_ids(m.iam_group_id for t in cfg.tenants.values()
                                                       for m in t.members if m.iam_group_id))


def iam_args(cfg: StackConfig, cluster_id: pulumi.Input[str],
             compute_cluster_id: Optional[pulumi.Input[str]] = None) -> IamArgs:
    """:class:`~oke_rdma.iam.IamArgs` from :func:`iam_inputs`, plus the cluster's OCID."""
    return IamArgs(iam_inputs(cfg), cluster_id, compute_cluster_id)


def workload_identity_args(cfg: StackConfig, provider: pulumi.ProviderResource, cluster_id: pulumi.Input[str],
                           namespaces: Mapping[str, pulumi.Resource],
                           mapping_depends_on: Optional[Mapping[str, Sequence[pulumi.Resource]]] = None
                           ) -> WorkloadIdentityArgs:
    """:class:`~oke_rdma.workload_identity.WorkloadIdentityArgs` from the tenants' bindings, ``compartmentId``,
    ``namePrefix`` and ``freeformTags``, plus the cluster, its provider, the namespaces and the IAM dependencies."""
    return WorkloadIdentityArgs(workload_bindings(cfg), cfg.compartment_id, provider, cluster_id, namespaces,
                                mapping_depends_on, name_prefix=cfg.name_prefix, freeform_tags=cfg.freeform_tags)


def lustre_args(cfg: StackConfig, vcn_id: pulumi.Input[str], subnet_ids: Mapping[str, pulumi.Input[str]],
                nsg_ids: Mapping[str, pulumi.Input[str]], provider: Optional[pulumi.ProviderResource],
                namespaces: Mapping[str, pulumi.Resource],
                preparation_namespace: Optional[pulumi.Resource] = None,
                subnet_cidrs: Optional[Mapping[str, pulumi.Input[str]]] = None) -> LustreArgs:
    """:class:`~oke_rdma.lustre.LustreArgs` from ``storage.lustre`` (which must be set), ``compartmentId``,
    ``namePrefix``, ``freeformTags``, the tenants' namespaces and storage IDs
    (:func:`~oke_rdma.config.checks.storage.tenant_ids`), plus the network's outputs (the storage subnet, the
    workers' NSG and subnet CIDR), the platform's namespaces and FSS's preparation namespace
    (``SharedVolumes.preparation_namespace``, None without one)."""
    lustre = cfg.storage.lustre
    assert lustre is not None, "lustre_args needs storage.lustre"
    return LustreArgs(config=lustre, name_prefix=cfg.name_prefix, compartment_id=cfg.compartment_id,
                      availability_domain=lustre_availability_domain(cfg), vcn_id=vcn_id,
                      subnet_id=subnet_ids["storage"], client_nsg_id=nsg_ids["workers"],
                      freeform_tags=cfg.freeform_tags, provider=provider,
                      tenant_namespaces={t: cfg.tenant_namespace(t) for t in lustre.tenants}, namespaces=namespaces,
                      tenant_ids={t: tenant_ids(cfg, t) for t in lustre.tenants},
                      preparation_namespace=preparation_namespace,
                      workers_cidr=(subnet_cidrs or {}).get("workers"))


def storage_args(cfg: StackConfig, subnet_ids: Mapping[str, pulumi.Input[str]],
                 subnet_cidrs: Mapping[str, pulumi.Input[str]], nsg_ids: Mapping[str, pulumi.Input[str]],
                 file_system_depends_on: Sequence[pulumi.Resource] = ()) -> StorageArgs:
    """:class:`~oke_rdma.storage.StorageArgs` from ``storage.fss``, its availability domain
    (:func:`~oke_rdma.storage.fss_availability_domain`), ``compartmentId``, ``namePrefix`` and ``freeformTags``."""
    return StorageArgs(cfg.compartment_id, cfg.storage.fss, fss_availability_domain(cfg), subnet_ids, subnet_cidrs,
                       nsg_ids, name_prefix=cfg.name_prefix, freeform_tags=cfg.freeform_tags,
                       file_system_depends_on=file_system_depends_on, prepare_directories=needs_preparation(cfg))


def weights_bucket_args(cfg: StackConfig, depends_on: Sequence[pulumi.Resource] = ()) -> WeightsBucketArgs:
    """:class:`~oke_rdma.object_storage.WeightsBucketArgs` from ``storage.objectStorage``, its bucket name
    (``oke_rdma.config.checks.object_storage.weights_bucket_name``), ``compartmentId``, ``oci:region`` and
    ``freeformTags``; ``depends_on``: the ``objectstorage-kms`` policy when there is one."""
    return WeightsBucketArgs(cfg.storage.object_storage, weights_bucket_name(cfg), cfg.compartment_id, cfg.region,
                             freeform_tags=cfg.freeform_tags, depends_on=depends_on)


def tenant_weights_output(cfg: StackConfig, tenant: str) -> Optional[dict[str, Optional[str]]]:
    """The ``tenants.<t>.weights`` stack output: ``{serviceAccount, access, checkpointPrefix}`` (the prefix a
    ``readWrite`` tenant may create objects under, None for ``read``), or None without ``weights``."""
    weights = cfg.tenants[tenant].weights
    if weights is None:
        return None
    return {"serviceAccount": weights.service_account, "access": weights.access,
            "checkpointPrefix": checkpoint_prefix(tenant) if weights.access == "readWrite" else None}


def tenant_shares(cfg: StackConfig) -> dict[str, TenantShare]:
    """Tenant → its namespace, ``sharedStorage`` and storage UID/GID (configured or derived:
    :func:`~oke_rdma.config.checks.storage.tenant_ids`), for the tenants that asked for shared storage."""
    return {name: TenantShare(cfg.tenant_namespace(name), t.shared_storage, *tenant_ids(cfg, name))
            for name, t in cfg.tenants.items() if t.shared_storage is not None}


def shared_volumes_args(cfg: StackConfig, provider: pulumi.ProviderResource, namespaces: Mapping[str, pulumi.Resource],
                        file_system_id: pulumi.Input[str], mount_target_id: pulumi.Input[str],
                        mount_target_ip: pulumi.Input[str], export_path: pulumi.Input[str], availability_domain: str,
                        client_cidrs: Sequence[pulumi.Input[str]],
                        preparation_export_path: Optional[pulumi.Input[str]] = None,
                        preparation_depends_on: Sequence[pulumi.Resource] = ()) -> SharedVolumesArgs:
    """:class:`~oke_rdma.volumes.SharedVolumesArgs` from ``storage.fss``, the tenants' shares, ``compartmentId`` and
    ``namePrefix``, plus the storage outputs."""
    return SharedVolumesArgs(cfg.compartment_id, cfg.storage.fss, tenant_shares(cfg), provider, namespaces,
                             file_system_id, mount_target_id, mount_target_ip, export_path, availability_domain,
                             client_cidrs, name_prefix=cfg.name_prefix,
                             preparation_export_path=preparation_export_path,
                             preparation_depends_on=preparation_depends_on)


def monitoring_args(cfg: StackConfig, provider: pulumi.ProviderResource, platform: Platform) -> Optional[MonitoringArgs]:
    """:class:`~oke_rdma.monitoring.component.MonitoringArgs` in kube-prometheus-stack's namespace, waiting for its
    release; None when kube-prometheus-stack is disabled (no Prometheus, Grafana or PrometheusRule CRD)."""
    release = platform.releases.get("kubePrometheusStack")
    if release is None:
        return None
    namespace = cfg.platform.kube_prometheus_stack.namespace
    return MonitoringArgs(name_prefix=cfg.name_prefix, provider=provider, namespace=namespace,
                          depends_on=[release, platform.namespaces[namespace]], release=release,
                          namespace_resource=platform.namespaces[namespace],
                          kubectl_version=cfg.cluster.kubernetes_version)


def guard_args(cfg: StackConfig, provider: pulumi.ProviderResource, platform: Platform) -> GuardArgs:
    """:class:`~oke_rdma.guard.GuardArgs`: each tenant's namespace and flavor pools
    (``oke_rdma.config.checks.fleet.tenant_pools``); the platform's other namespaces are exempt from the RDMA-privileges
    policy."""
    tenants = {t: cfg.tenant_namespace(t) for t in cfg.tenants}
    return GuardArgs(name_prefix=cfg.name_prefix, provider=provider,
                     tenant_pools={t: tenant_pools(cfg, t) for t in cfg.tenants}, tenant_namespaces=tenants,
                     platform_namespaces=[ns for ns in platform.pod_security if ns not in tenants.values()],
                     namespaces={ns: platform.namespaces[ns] for ns in tenants.values()},
                     tenant_priority_classes=priority_class_names(cfg.name_prefix),
                     tenant_groups=[s for b in tenant_bindings(cfg) for s in b.subjects],
                     tenant_roles=[role_name(cfg.name_prefix, r) for r in ROLES],
                     tenant_ids=tenant_storage_ids(cfg), unattachable_classes=unattachable_classes(cfg))


def tenant_storage_ids(cfg: StackConfig) -> dict[str, TenantIds]:
    """Tenant → its storage UID/GID (:func:`~oke_rdma.config.checks.storage.tenant_ids`) and the shared claims the
    stack gives it in its namespace: ``fss-shared`` with ``sharedStorage``, ``lustre-shared`` when
    ``storage.lustre.tenants`` names it."""
    lustre = set(cfg.storage.lustre.tenants) if cfg.storage.lustre is not None else set()
    out = {}
    for name, t in cfg.tenants.items():
        claims = ([FSS_CLAIM] if t.shared_storage is not None else []) + ([LUSTRE_CLAIM] if name in lustre else [])
        if claims:
            out[name] = TenantIds(*tenant_ids(cfg, name), claims)
    return out


def walls_args(cfg: StackConfig, provider: pulumi.ProviderResource, platform: Platform) -> WallsArgs:
    """:class:`~oke_rdma.walls.WallsArgs`: each tenant's namespace and the namespaces of its ``network.allowFrom``
    tenants; the Cilium release and namespace (None without ``platform.cilium``); for each RDMA tenant, the other
    tenants whose flavors cover its GPU pools (:func:`~oke_rdma.config.checks.fleet.tenant_pools`)."""
    tenants = {t: cfg.tenant_namespace(t) for t in cfg.tenants}
    walls = {t: TenantWall(ns, tuple(sorted({tenants[o] for o in cfg.tenants[t].network.allow_from})),
                           rdma=cfg.tenants[t].rdma) for t, ns in tenants.items()}
    pools = {t: tenant_pools(cfg, t) for t in cfg.tenants}
    users: dict[str, list[str]] = {}  # pool → the tenants whose flavors cover it, in config order
    for t in cfg.tenants:
        for p in dict.fromkeys(pools[t]):
            users.setdefault(p, []).append(t)
    shared_nodes = {t: {p: [o for o in users[p] if o != t] for p in pools[t]}
                    for t in cfg.tenants if cfg.tenants[t].rdma}
    engine = platform.releases.get("cilium")
    cilium_ns = cfg.platform.cilium.namespace
    return WallsArgs(name_prefix=cfg.name_prefix, provider=provider, walls=walls, engine=engine, engine_namespace=platform.namespaces.get(cilium_ns) if engine else None,
                     kubectl_version=cfg.cluster.kubernetes_version,
                     namespaces={ns: platform.namespaces[ns] for ns in tenants.values()}, shared_nodes=shared_nodes)


def tenant_defaults_args(cfg: StackConfig, provider: pulumi.ProviderResource,
                         platform: Platform) -> TenantDefaultsArgs:
    """:class:`~oke_rdma.tenant_defaults.TenantDefaultsArgs`: the tenants' namespaces and their resources."""
    return TenantDefaultsArgs(name_prefix=cfg.name_prefix, provider=provider,
                              tenant_namespaces={t: cfg.tenant_namespace(t) for t in cfg.tenants},
                              namespaces=platform.namespaces)


def gpu_health_args(cfg: StackConfig, provider: pulumi.ProviderResource, platform: Platform) -> Optional[GpuHealthArgs]:
    """:class:`~oke_rdma.health.GpuHealthArgs` in the GPU Operator's namespace; None without the GPU Operator or
    without a GPU pool (no node to watch)."""
    if "gpuOperator" not in platform.releases or not any(is_gpu_shape(p.shape) for p in cfg.node_pools.values()):
        return None
    namespace = cfg.platform.gpu_operator.namespace
    return GpuHealthArgs(name_prefix=cfg.name_prefix, provider=provider, namespace=namespace,
                         depends_on=[platform.namespaces[namespace]])


def _split(total: int, weights: list[int]) -> list[int]:
    """``total`` split in proportion to ``weights`` (integers; the remainder goes to the last non-zero weight)."""
    if total == 0 or not any(weights):
        return [total if i == 0 else 0 for i in range(len(weights))]
    whole = sum(weights)
    parts = [total * w // whole for w in weights]
    last = max(i for i, w in enumerate(weights) if w)
    parts[last] += total - sum(parts)
    return parts


def flavor_quotas(cfg: StackConfig, tenant: str) -> dict[str, FlavorQuota]:
    """Pool → :class:`~oke_rdma.scheduling.FlavorQuota` of tenant ``tenant``'s ClusterQueue, over the pools
    of :func:`oke_rdma.config.checks.fleet.tenant_pools` (every RDMA pool; the shared pools too for a ``shared`` tenant).

    GPUs fill the pools in order up to each one's ``nvidia.com/gpu`` (``size × GPUs per shape``, times the
    time-slicing replicas or MIG instances of a shared pool); the borrowing limit fills what is left; CPU
    (millicores) and memory (MiB) follow the GPU shares (all on the first pool when the quota has no GPU). The
    config model has already refused a GPU quota above what the pools can offer.
    """
    q = cfg.tenants[tenant].quota
    pools = tenant_pools(cfg, tenant)
    capacity = [pool_gpu_units(cfg, p) or 0 for p in pools]
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
    return {p: FlavorQuota(gpu=gpus[i], gpu_borrowing_limit=borrow[i], cpu_millis=cpu[i], memory_mi=mem[i])
            for i, p in enumerate(pools)}



def idle_pool_warnings(cfg: StackConfig) -> list[str]:
    """One line per GPU pool whose GPUs are in no tenant's Kueue quota (nominal or borrowable, :func:`flavor_quotas`):
    no tenant's job is ever admitted there, so its nodes run idle. Typically a pool added after the tenants' quotas,
    which fill the pools in order. Also one line per plain GPU pool (:func:`~oke_rdma.config.checks.fleet.
    plain_gpu_pools`: exclusive, not RDMA), which no tenant's flavors cover and the guard keeps tenants' GPU pods off.
    Empty without tenants; without Kueue only the plain pools are named."""
    if not cfg.tenants:
        return []
    out = [f"{_key(('nodePools', pool))}: a plain GPU pool (exclusive, not RDMA): no tenant can use its GPUs (no "
           f"tenant's Kueue flavors cover it and the guard refuses tenants' GPU pods there), so only workloads the "
           f"cluster administrator runs outside the tenants use it; to give it to tenants set "
           f"nodePools.{pool}.gpuSharing (mode timeSlicing or mig) and a tenant with isolation: shared, or use an "
           f"RDMA shape with rdma: true (docs/sharing.md)" for pool in plain_gpu_pools(cfg)]
    if not cfg.platform.kueue.enabled:
        return out
    reached: dict[str, int] = {}
    filled: dict[str, list[str]] = {}  # tenant → the pools its GPU quota lands on, in order
    for t in cfg.tenants:
        for pool, q in flavor_quotas(cfg, t).items():
            reached[pool] = reached.get(pool, 0) + q.gpu + q.gpu_borrowing_limit
            if q.gpu or q.gpu_borrowing_limit:
                filled.setdefault(t, []).append(pool)
    order = [*cfg.rdma_pools, *shared_pools(cfg)]
    for pool in order:
        units = pool_gpu_units(cfg, pool)
        if units and not reached.get(pool):
            # the tenants whose flavors list this pool but whose quota the earlier pools took: who moved off it (a
            # pool added before it in the order takes their quota) and the one-key way to bring one back
            could = [t for t in cfg.tenants if pool in tenant_pools(cfg, t) and filled.get(t)]
            moved = ""
            if could:
                fills = [p for p in order if any(p in filled[t] for t in could)]
                moved = (f"; tenant{'s' if len(could) > 1 else ''} {', '.join(could)} could use it but "
                         f"{'their quotas fill' if len(could) > 1 else 'its quota fills'} {', '.join(fills)} first: "
                         f"to give it this pool set tenants.{could[0]}.nodePools: [{pool}]")
            out.append(f"{_key(('nodePools', pool))}: its {units} GPUs are in no tenant's Kueue quota, so no job is "
                       f"ever admitted there and its nodes run idle; raise a tenant's quota.gpu (quotas fill the "
                       f"pools in order: {', '.join(order)}) or list the pool in tenants.<t>.nodePools" + moved)
    return out


def scheduling_args(cfg: StackConfig, provider: pulumi.ProviderResource, kueue_release: pulumi.Resource,
                    namespaces: Mapping[str, pulumi.Resource]) -> SchedulingArgs:
    """:class:`~oke_rdma.scheduling.SchedulingArgs` from ``platform.kueue`` (namespace, topology levels, labeler),
    ``nodePools`` (RDMA pools, then the shared GPU pools: :func:`~oke_rdma.config.checks.fleet.shared_pools`),
    ``tenants`` (namespaces and :func:`flavor_quotas`), ``cluster.kubernetesVersion`` and ``namePrefix``."""
    kueue = cfg.platform.kueue
    pools = {p: FlavorPool(rdma=p in cfg.rdma_pools, gpu=bool(cfg.node_pools[p].gpus))
             for p in [*cfg.rdma_pools, *shared_pools(cfg)]}
    tenants = {t: TenantQueue(namespace=cfg.tenant_namespace(t), quotas=flavor_quotas(cfg, t)) for t in cfg.tenants}
    labeler = kueue.topology_labeler
    return SchedulingArgs(
        name_prefix=cfg.name_prefix, provider=provider, kueue_release=kueue_release, namespaces=namespaces,
        kueue_namespace=kueue.namespace, kubernetes_version=cfg.cluster.kubernetes_version,
        topology_levels=tuple(kueue.topology_levels), pools=pools, tenants=tenants,
        labeler=TopologyLabelerArgs(image=labeler.image, namespace=labeler.namespace) if labeler.enabled else None)


def tenant_bindings(cfg: StackConfig) -> list[TenantBinding]:
    """One :class:`~oke_rdma.tenant_access.TenantBinding` per tenant and role with members: IAM groups by OCID, an
    identity provider's groups as ``<cluster.oidc.groupsPrefix><group>``."""
    out = []
    oidc = cfg.cluster.oidc
    for tenant, t in cfg.tenants.items():
        for role in ("viewer", "developer", "admin"):
            subjects = [m.iam_group_id if m.iam_group_id else oidc.group_subject(m.oidc_group)  # type: ignore
                        for m in t.members if m.role == role]
            if subjects:
                out.append(TenantBinding(tenant, cfg.tenant_namespace(tenant), role, tuple(dict.fromkeys(subjects))))
    return out


def tenant_access_args(cfg: StackConfig, provider: pulumi.ProviderResource, platform: Platform,
                       enforcement: Sequence[pulumi.Resource] = ()) -> TenantAccessArgs:
    """:class:`~oke_rdma.tenant_access.TenantAccessArgs` from ``tenants.<t>.members``, ``cluster.oidc``, the enabled
    add-ons (their job kinds) and ``namePrefix``, plus the provider, the tenant namespaces and what the bindings
    wait for (``enforcement``: the guard, the walls, the tenant defaults)."""
    return TenantAccessArgs(name_prefix=cfg.name_prefix, provider=provider,
                            enabled_addons=list(platform.releases) + list(platform.manifests),
                            bindings=tenant_bindings(cfg), namespaces=platform.namespaces, enforcement=enforcement)
