"""oke-rdma: an OKE GPU training platform with RDMA node pools on OCI. Wiring only (DESIGN.md §2).

Config is parsed once (``components.config``); each component gets its slice plus the outputs it needs; the
stack outputs below are the contract other projects read through ``pulumi.StackReference``.
"""

import pulumi

from components.cluster import Cluster, ClusterArgs
from components.compute import Compute, ComputeArgs
from components.config import load_from_pulumi
from components.iam import Iam, IamArgs
from components.network import Network, NetworkArgs
from components.platform import Platform, PlatformArgs
from components.storage import Storage, StorageArgs
from components.workload_identity import WorkloadIdentity, WorkloadIdentityArgs

config = load_from_pulumi()  # raises ConfigError (printed without a traceback) before anything is declared
prefix = config.name_prefix

network = Network(f"{prefix}-network", NetworkArgs(config))
cluster = Cluster(f"{prefix}-cluster", ClusterArgs(config, network.vcn.id, network.subnet_ids, network.nsg_ids))
compute_cluster_id = config.compute_cluster.existing_id if config.compute_cluster else None
iam = Iam(f"{prefix}-iam", IamArgs(config, cluster.cluster_id, compute_cluster_id))
compute = Compute(f"{prefix}-compute", ComputeArgs(
    config, cluster.cluster_id, config.cluster.kubernetes_version, network.subnet_ids, network.nsg_ids,
    depends_on=[iam.launch_policy] if iam.launch_policy else []))


def _file_system_waits_for_its_key_policy(args: pulumi.ResourceTransformationArgs):
    # A file system encrypted with storage.fss.kmsKeyId fails to create until FSS may use the key: the file system
    # (a child of Storage) waits for the fss-kms policy and its dynamic group. A component's depends_on does not
    # reach its children, a transformation on the component does.
    if args.type_ == "oci:FileStorage/fileSystem:FileSystem" and iam.fss_kms_dependencies:
        return pulumi.ResourceTransformationResult(args.props, pulumi.ResourceOptions.merge(
            args.opts, pulumi.ResourceOptions(depends_on=iam.fss_kms_dependencies)))
    return None


storage = Storage(f"{prefix}-storage", StorageArgs(config, network.subnet_ids, network.subnet_cidrs, network.nsg_ids),
                  pulumi.ResourceOptions(transformations=[_file_system_waits_for_its_key_policy]))
platform = Platform(f"{prefix}-platform", PlatformArgs(config, cluster.provider,
                                                      depends_on=list(compute.node_pools.values())))
workload_identity = WorkloadIdentity(f"{prefix}-workload-identity", WorkloadIdentityArgs(
    config, cluster.provider, cluster.cluster_id, platform.namespaces, iam.workload_mapping_dependencies))

pulumi.export("region", config.region)
pulumi.export("compartmentId", config.compartment_id)
pulumi.export("vcnId", network.vcn.id)
pulumi.export("subnetIds", network.subnet_ids)
pulumi.export("nsgIds", network.nsg_ids)
pulumi.export("clusterId", cluster.cluster_id)
pulumi.export("kubernetesVersion", cluster.kubernetes_version)
pulumi.export("apiEndpoint", cluster.api_endpoint)
pulumi.export("kubeconfig", cluster.kubeconfig)
pulumi.export("computeClusterId", compute.compute_cluster_id)
pulumi.export("computeClusterAvailabilityDomain", compute.compute_cluster_availability_domain)
pulumi.export("nodePools", {name: {"id": pool.id, "shape": config.node_pools[name].shape,
                                   "size": config.node_pools[name].size, "rdma": config.node_pools[name].rdma}
                            for name, pool in compute.node_pools.items()})
pulumi.export("fss", None if storage.file_system_id is None else {
    "fileSystemId": storage.file_system_id, "mountTargetIp": storage.mount_target_ip,
    "exportPath": storage.export_path})
pulumi.export("tenants", {name: {"namespace": ns, "rdma": config.tenants[name].rdma}
                          for name, ns in platform.tenant_namespaces.items()})
pulumi.export("policyStatements", iam.statement_texts)
pulumi.export("iamPolicies", iam.policy_documents)
pulumi.export("iamDynamicGroups", iam.dynamic_group_documents)
pulumi.export("workloadIdentity", {
    tenant: {"namespace": config.tenant_namespace(tenant),
             "serviceAccounts": [b.service_account for b in workload_identity.bindings if b.tenant == tenant],
             "mappedCompartmentId": next((b.mapped_compartment_id for b in workload_identity.bindings
                                          if b.tenant == tenant and b.mapped_compartment_id), None)}
    for tenant in config.tenants})
