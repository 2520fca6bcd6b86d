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

config = load_from_pulumi()  # raises ConfigError (printed without a traceback) before anything is declared
prefix = config.name_prefix

network = Network(f"{prefix}-network", NetworkArgs(config))
cluster = Cluster(f"{prefix}-cluster", ClusterArgs(config, network.vcn_id, network.subnet_ids, network.nsg_ids))
compute_cluster_id = config.compute_cluster.existing_id if config.compute_cluster else None
iam = Iam(f"{prefix}-iam", IamArgs(config, cluster.cluster_id, compute_cluster_id))
compute = Compute(f"{prefix}-compute", ComputeArgs(
    config, cluster.cluster_id, config.cluster.kubernetes_version, network.subnet_ids, network.nsg_ids,
    depends_on=[iam.launch_policy] if iam.launch_policy else []))
storage = Storage(f"{prefix}-storage", StorageArgs(config, network.subnet_ids, network.subnet_cidrs, network.nsg_ids))
platform = Platform(f"{prefix}-platform", PlatformArgs(config, cluster.provider,
                                                      depends_on=list(compute.node_pools.values())))

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
                                   "size": config.node_pools[name].size, "rdma": config.node_pools[name].rdma}
                            for name, pool in compute.node_pools.items()})
pulumi.export("fss", None if storage.file_system_id is None else {
    "fileSystemId": storage.file_system_id, "mountTargetIp": storage.mount_target_ip,
    "exportPath": storage.export_path})
pulumi.export("tenants", {name: {"namespace": ns, "rdma": config.tenants[name].rdma}
                          for name, ns in platform.tenant_namespaces.items()})
pulumi.export("policyStatements", iam.statements)
