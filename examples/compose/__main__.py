"""A network, an enhanced OKE cluster and one RDMA node pool, composed from the ``oke_rdma`` components with typed
arguments and this program's own config (``rdma-compose:*``); it reads none of the oke-rdma project's stack config.

Each component takes the slice of config it uses as a small pydantic model (the same models the oke-rdma stack
config uses, built here with ``model_validate`` from camelCase keys) plus the outputs of the others. A value the
models refuse stops the program with one line per problem naming this program's config key, and arguments a
component cannot use with the ``*Args`` line naming the argument (``pulumi.RunError``, printed without a
traceback).

The IAM component adds the statements the cluster and the RDMA pool need (OKE launching the pool's instances into
the Compute Cluster; the cluster principal using the VCN for load balancers); the pool waits for the launch policy.
Not included: the in-cluster platform (``oke_rdma.platform``), shared storage and Workload Identity.
"""

import pulumi
from pydantic import ValidationError

from oke_rdma.cluster import Cluster, ClusterArgs
from oke_rdma.compute import Compute, ComputeArgs
from oke_rdma.config import Cluster as ClusterConfig
from oke_rdma.config import ComputeCluster, NodePool
from oke_rdma.config import Network as NetworkConfig
from oke_rdma.iam import Iam, IamArgs, IamInputs
from oke_rdma.network import Network, NetworkArgs

PREFIX = "compose"
config = pulumi.Config()


def model(kind, values: dict, keys: dict):
    """``kind.model_validate(values)``; a refused value stops the program naming this program's config key."""
    try:
        return kind.model_validate(values)
    except ValidationError as e:
        lines = []
        for err in e.errors():
            field = str(err["loc"][0]) if err["loc"] else ""
            key = keys.get(field, f"{kind.__name__}.{'.'.join(map(str, err['loc']))}")
            lines.append(f"{pulumi.get_project()}:{key}: {err['msg']}; fix it with pulumi config set")
        raise pulumi.RunError("\n".join(lines)) from None


compartment_id = config.require("compartmentId")
network = Network(f"{PREFIX}-network", NetworkArgs(
    compartment_id, model(NetworkConfig, {"vcnCidr": "10.40.0.0/16", "dnsLabel": "compose"}, {}),
    name_prefix=PREFIX))
cluster = Cluster(f"{PREFIX}-cluster", ClusterArgs(
    compartment_id, model(ClusterConfig, {"kubernetesVersion": config.get("kubernetesVersion") or "v1.35.2"},
                          {"kubernetesVersion": "kubernetesVersion"}),
    network.vcn_id, network.subnet_ids, network.nsg_ids, name_prefix=PREFIX))
pool = model(NodePool, {"shape": config.get("shape") or "BM.GPU.H100.8", "size": config.get_int("nodes") or 2,
                        "imageId": config.require("imageId"), "rdma": True},
             {"shape": "shape", "size": "nodes", "imageId": "imageId"})
iam = Iam(f"{PREFIX}-iam", IamArgs(IamInputs(compartment_id, name_prefix=PREFIX, rdma_pools=True),
                                   cluster.cluster_id))
try:
    compute_args = ComputeArgs(
        compartment_id, cluster.cluster_id, cluster.kubernetes_version, network.subnet_ids, network.nsg_ids,
        {"gpu": pool},
        compute_cluster=model(ComputeCluster, {"availabilityDomain": config.require("availabilityDomain")},
                              {"availabilityDomain": "availabilityDomain"}),
        name_prefix=PREFIX, depends_on=[iam.launch_policy])
except ValueError as e:  # an argument the component cannot use (e.g. a malformed availability domain)
    raise pulumi.RunError(str(e)) from None
compute = Compute(f"{PREFIX}-compute", compute_args)

pulumi.export("vcnId", network.vcn_id)
pulumi.export("clusterId", cluster.cluster_id)
pulumi.export("kubeconfig", cluster.kubeconfig)
pulumi.export("computeClusterId", compute.compute_cluster_id)
pulumi.export("rdmaPoolId", compute.node_pools["gpu"].id)
