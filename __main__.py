"""oke-rdma: an OKE GPU training platform with RDMA node pools on OCI. Wiring only (docs/architecture.md, "Data flow").

Config is parsed once (``oke_rdma.config``); ``oke_rdma.adapter`` turns it into each component's Args (its slice plus
the outputs it needs); the stack outputs below are the contract other projects read through ``pulumi.StackReference``.
"""

import pulumi

from oke_rdma import adapter
from oke_rdma.cluster import Cluster
from oke_rdma.compute import Compute, is_gpu_shape
from oke_rdma.config import load_from_pulumi
from oke_rdma.config.checks.chart_versions import chart_version_warnings, support_warnings
from oke_rdma.config.checks.known_bugs import known_bug_warnings
from oke_rdma.config.checks.oci_facts import unverified_ad_notes
from oke_rdma.config.checks.pairings import pairing_warnings
from oke_rdma.config.checks.storage import tenant_ids
from oke_rdma.deferred import deferred_output
from oke_rdma.iam import Iam
from oke_rdma.lustre import LustreStorage
from oke_rdma.network import Network
from oke_rdma.object_storage import WeightsBucket
from oke_rdma.outputs import OUTPUTS_VERSION
from oke_rdma.schema import ConfigError
from oke_rdma.guard import Guard
from oke_rdma.health import GpuHealth
from oke_rdma.monitoring.component import Monitoring
from oke_rdma.config.checks.compute import compute_cluster_warnings
from oke_rdma.config.checks.tenants import quota_capacity_warnings, rdma_tenant_warnings
from oke_rdma.quota_sums import quota_sum_warnings
from oke_rdma.platform import Platform
from oke_rdma.scheduling import Scheduling, topology_name
from oke_rdma.storage import Storage
from oke_rdma.tenant_access import TenantAccess
from oke_rdma.tenant_defaults import TenantDefaults
from oke_rdma.volumes import SharedVolumes
from oke_rdma.walls import Walls
from oke_rdma.workload_identity import WorkloadIdentity

config = load_from_pulumi()  # raises ConfigError (printed without a traceback) before anything is declared
if limit_problems := adapter.service_limit_problems(config):  # OCI service limits the config alone would exceed
    raise ConfigError(limit_problems)
for warning in adapter.idle_pool_warnings(config):  # GPUs no tenant's quota reaches: said before pulumi up
    pulumi.log.warn(warning)
for warning in compute_cluster_warnings(config):  # Compute Cluster members OCI may not place together
    pulumi.log.warn(warning)
for warning in quota_capacity_warnings(config):  # CPU/memory quotas beyond what the tenant's nodes hold
    pulumi.log.warn(warning)
for warning in rdma_tenant_warnings(config):  # privileged rights with no RDMA pool to use them on
    pulumi.log.warn(warning)
for warning in quota_sum_warnings(config):  # tenants' nominal quotas on one pool beyond what it offers
    pulumi.log.warn(warning)
prefix = config.name_prefix
for warning in pairing_warnings(config):  # declared, but cannot work on these nodes: the next step would fail
    pulumi.log.warn(warning)
for warning in known_bug_warnings(config):  # a pinned add-on with a known bug these settings trigger
    pulumi.log.warn(warning)
for warning in chart_version_warnings(config):  # an add-on version the facts do not know exists
    pulumi.log.warn(warning)
for warning in support_warnings(config):  # a pin on a release line its vendor no longer supports
    pulumi.log.warn(warning)
for note in unverified_ad_notes(config):  # an AD the facts cannot confirm (a realm whose AD counts are unread)
    pulumi.log.info(note)

network = Network(f"{prefix}-network", adapter.network_args(config))
# IAM before the cluster: the Vault key policy (cluster.kmsKeyId) must exist when OKE creates the cluster, while the
# cluster-principal statements name the cluster's OCID. A deferred output breaks the cycle (no resource waits on
# another that waits on it: only the cluster-principal policy waits for the cluster). The block settles it on every
# way out: an exception inside fails it (and is reported) instead of leaving the engine waiting (oke_rdma/deferred.py).
with deferred_output() as cluster_id:
    compute_cluster_id = config.compute_cluster.existing_id if config.compute_cluster else None
    iam = Iam(f"{prefix}-iam", adapter.iam_args(config, cluster_id.output, compute_cluster_id))
    key_policies = [iam.cluster_kms_policy] if iam.cluster_kms_policy else []
    cluster = Cluster(f"{prefix}-cluster", adapter.cluster_args(config, network.vcn_id, network.subnet_ids,
                                                               network.nsg_ids, depends_on=key_policies))
    cluster_id.resolve(cluster.cluster_id)
compute = Compute(f"{prefix}-compute", adapter.compute_args(
    config, cluster.cluster_id, config.cluster.kubernetes_version, network.subnet_ids, network.nsg_ids,
    depends_on=([iam.launch_policy] if iam.launch_policy else []) + key_policies))
# An encrypted file system fails to create until FSS may use storage.fss.kmsKeyId: it waits for that policy.
storage = Storage(f"{prefix}-storage", adapter.storage_args(config, network.subnet_ids, network.subnet_cidrs,
                                                           network.nsg_ids,
                                                           file_system_depends_on=iam.fss_kms_dependencies))
# The weights bucket waits for the policy letting Object Storage use its Vault key (storage.objectStorage.kmsKeyId).
weights = WeightsBucket(f"{prefix}-weights", adapter.weights_bucket_args(
    config, [iam.object_storage_kms_policy] if iam.object_storage_kms_policy else []))
# The add-ons run on the CPU pools, so they wait for those only — not for bare-metal GPU pools (tens of minutes to
# create), whose nodes join later and are set up by the GPU Operator's DaemonSets as they arrive. Waiting for every
# pool made the GPU pool a serial edge on `pulumi up`'s critical path (bench/critical_path.py).
cpu_pools = [pool for name, pool in compute.node_pools.items()
             if not config.node_pools[name].rdma and not is_gpu_shape(config.node_pools[name].shape)]
platform = Platform(f"{prefix}-platform", adapter.platform_args(
    config, cluster.provider, depends_on=cpu_pools or list(compute.node_pools.values())))
volumes = None if storage.file_system_id is None else SharedVolumes(f"{prefix}-volumes", adapter.shared_volumes_args(
    config, cluster.provider, platform.namespaces, storage.file_system_id, storage.mount_target_id,
    storage.mount_target_ip, storage.export_path, storage.availability_domain, storage.client_cidrs,
    storage.preparation_export_path, [storage.preparation_export] if storage.preparation_export else []))
lustre = None if config.storage.lustre is None else LustreStorage(f"{prefix}-lustre", adapter.lustre_args(
    config, network.vcn_id, network.subnet_ids, network.nsg_ids, cluster.provider, platform.namespaces,
    volumes.preparation_namespace if volumes else None, network.subnet_cidrs))
workload_identity = WorkloadIdentity(f"{prefix}-workload-identity", adapter.workload_identity_args(
    config, cluster.provider, cluster.cluster_id, platform.namespaces, iam.workload_mapping_dependencies))
scheduling = (Scheduling(f"{prefix}-scheduling", adapter.scheduling_args(config, cluster.provider,
                                                                        platform.releases["kueue"], platform.namespaces))
              if "kueue" in platform.releases else None)
# GPU fleet: alert and metering rules and dashboards (with kube-prometheus-stack), and the admission guard that holds
# the pack's RDMA and tenant-pool rules for every pod created later (docs/monitoring.md, docs/sharing.md).
monitoring_args = adapter.monitoring_args(config, cluster.provider, platform)
monitoring = Monitoring(f"{prefix}-monitoring", monitoring_args) if monitoring_args else None
guard = Guard(f"{prefix}-guard", adapter.guard_args(config, cluster.provider, platform))
# The tenants' walls (Cilium policies, docs/tenants.md "Isolation") and what each tenant namespace needs to work:
# default requests, the priority classes tenants may use, no system priority.
walls = Walls(f"{prefix}-walls", adapter.walls_args(config, cluster.provider, platform))
tenant_defaults = TenantDefaults(f"{prefix}-tenant-defaults", adapter.tenant_defaults_args(config, cluster.provider,
                                                                                           platform))
# The tenants' people: three platform roles bound by RoleBindings in each tenant's namespace (docs/tenants.md). The
# bindings wait for what judges a tenant's pods — guard, walls, defaults, GPU quotas — so none lands before them.
tenant_access = TenantAccess(f"{prefix}-tenant-access", adapter.tenant_access_args(
    config, cluster.provider, platform,
    enforcement=[guard, walls, tenant_defaults, *platform.resource_quotas.values()]))
gpu_health_args = adapter.gpu_health_args(config, cluster.provider, platform)
gpu_health = GpuHealth(f"{prefix}-gpu-health", gpu_health_args) if gpu_health_args else None

# The output contract (outputs.contract.json, docs/outputs.md): other projects read these through
# pulumi.StackReference. Adding, renaming or removing an output, or changing its shape, needs a new contract version
# (oke_rdma/outputs.py; tests/components/test_outputs_contract.py enforces it).
pulumi.export("outputsVersion", OUTPUTS_VERSION)
pulumi.export("region", config.region)
pulumi.export("compartmentId", config.compartment_id)
pulumi.export("vcnId", network.vcn_id)
pulumi.export("subnetIds", network.subnet_ids)
pulumi.export("nsgIds", network.nsg_ids)
pulumi.export("subnetCidrs", network.subnet_cidrs)  # read by network.fromStack of another oke-rdma stack
pulumi.export("clusterId", cluster.cluster_id)
pulumi.export("kubernetesVersion", cluster.kubernetes_version)
pulumi.export("apiEndpoint", cluster.api_endpoint)
pulumi.export("kubeconfig", cluster.kubeconfig)
pulumi.export("computeClusterId", compute.compute_cluster_id)
pulumi.export("computeClusterAvailabilityDomain", compute.compute_cluster_availability_domain)
pulumi.export("nodePools", {name: {"id": pool.id, "shape": config.node_pools[name].shape,
                                   "size": config.node_pools[name].size, "rdma": config.node_pools[name].rdma,
                                   "gpusPerNode": config.node_pools[name].gpus or 0,
                                   "localNvme": ({"mountPath": config.node_pools[name].local_nvme.mount_path}
                                                 if config.node_pools[name].local_nvme.enabled else None)}
                            for name, pool in compute.node_pools.items()})
pulumi.export("fss", None if storage.file_system_id is None else {
    "fileSystemId": storage.file_system_id, "mountTargetIp": storage.mount_target_ip,
    "exportPath": storage.export_path, "mountTargetId": storage.mount_target_id,
    "storageClassName": volumes.storage_class_name if volumes else None})
pulumi.export("weightsBucket", weights.outputs)
pulumi.export("topology", None if scheduling is None or scheduling.topology is None else {
    "name": topology_name(config.name_prefix), "levels": list(config.platform.kueue.topology_levels)})
queues = scheduling.queues if scheduling else {}
pulumi.export("tenants", {name: {
    "namespace": ns,
    "podSecurity": platform.pod_security[ns],
    "rdma": config.tenants[name].rdma,
    "localQueue": queues[name]["localQueue"] if name in queues else None,
    "clusterQueue": queues[name]["clusterQueue"] if name in queues else None,
    "serviceAccounts": [b.service_account for b in workload_identity.bindings if b.tenant == name],
    "mappedCompartmentId": next((b.mapped_compartment_id for b in workload_identity.bindings
                                 if b.tenant == name and b.mapped_compartment_id), None),
    "sharedStorageClaim": volumes.claim_names.get(name) if volumes else None,
    "lustreClaim": lustre.claim_names.get(name) if lustre else None,
    "runAsUser": tenant_ids(config, name)[0],
    "runAsGroup": tenant_ids(config, name)[1],
    "sharedStorageSubPath": (config.tenants[name].shared_storage.sub_path
                             if volumes and name in volumes.claim_names else None),
    "lustreSubPath": lustre.sub_paths.get(name) if lustre else None,
    "weights": adapter.tenant_weights_output(config, name)}
    for name, ns in platform.tenant_namespaces.items()})
pulumi.export("policyStatements", iam.statement_texts)
pulumi.export("iamPolicies", iam.policy_documents)
pulumi.export("iamDynamicGroups", iam.dynamic_group_documents)
