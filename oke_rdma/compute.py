"""The OCI Compute Cluster and the OKE managed node pools, RDMA pools placed inside the Compute Cluster.

Placement rules (OKE docs "Using Compute Clusters to Provision Managed Nodes"; Compute docs "Compute Clusters"),
all checked by ``oke_rdma.config`` before anything is declared and here only applied:

* an RDMA pool (``rdma: true``) sets ``node_config_details.compute_cluster_id`` and has exactly one placement
  config, in the Compute Cluster's availability domain, with **no fault domains** (OCI places the nodes);
* ``compute_cluster_id`` cannot be changed in place: changing it replaces the pool (every node is recreated);
* the pool's shape supports RDMA in Compute Clusters; the cluster is enhanced (see ``oke_rdma.cluster``);
* node pools must not be created before the IAM statement that lets them launch into the Compute Cluster (and,
  with ``cluster.kmsKeyId``, the key-use policy): those policies are passed in ``ComputeArgs.depends_on``;
* a bare metal shape Oracle does not list is accepted only with ``allowUnlistedRdmaShape: true``, and then logged
  as a warning (``pulumi.log.warn``) on every preview and update.

Every pool: VCN-native pod networking (pods in the pod subnet with the pod NSG, ``maxPodsPerNode``; with
``cluster.cniType: FLANNEL_OVERLAY`` only the CNI type), nodes in the worker subnet with the worker NSG, the
Kubernetes version (the pool's, else the cluster's), IMDSv2 only (node metadata ``areLegacyImdsEndpointsDisabled``,
which OKE applies to the instances: OKE docs "Configuring IMDS for Kubernetes Clusters"; pulumi_oci 5.5.0 has no
dedicated NodePool field), in-transit encryption for paravirtualized volumes, node eviction settings (grace
duration, force action/delete), node cycling (max surge/unavailable), preemptible capacity for non-RDMA pools, the
boot volume size in GB and the pool's initial labels. GPU pools get
``oci.oraclecloud.com/disable-gpu-device-plugin=true`` when the GPU Operator's device plugin runs
(``Platform.operator_device_plugin``), so that only one device plugin runs on them.
"""

from __future__ import annotations

from typing import Optional, Sequence

import pulumi
import pulumi_oci as oci

from oke_rdma.config import NodePool, StackConfig, placement_warnings
from oke_rdma.sharing import sharing_labels

#: OKE's own NVIDIA device plugin stays off on nodes with this label (the GPU Operator brings its own).
DISABLE_OKE_DEVICE_PLUGIN = ("oci.oraclecloud.com/disable-gpu-device-plugin", "true")
CNI_TYPE = "OCI_VCN_IP_NATIVE"
#: Node metadata key OKE reads to disable the legacy IMDSv1 endpoints of the pool's instances.
IMDS_METADATA_KEY = "areLegacyImdsEndpointsDisabled"
#: Properties whose change replaces a pool (every node destroyed): declared so every preview says "replace".
POOL_REPLACE_ON_CHANGES = ["nodeConfigDetails.computeClusterId"]


def is_gpu_shape(shape: str) -> bool:
    """True for NVIDIA GPU shapes (``VM.GPU*``, ``BM.GPU*``)."""
    return shape.split(".")[1].startswith("GPU")


def node_labels(pool: NodePool, name: str, gpu_operator: bool) -> dict[str, str]:
    """The initial Kubernetes labels of pool ``name``: its own, the pool name, the device-plugin switch and, with the
    GPU Operator, the GPU-sharing labels (``oke_rdma.sharing.sharing_labels``)."""
    labels = {"okerdma.io/node-pool": name, **pool.labels}
    if gpu_operator and is_gpu_shape(pool.shape):
        labels[DISABLE_OKE_DEVICE_PLUGIN[0]] = DISABLE_OKE_DEVICE_PLUGIN[1]
        labels.update(sharing_labels(pool, True))
    return labels


class ComputeArgs:
    """Inputs of :class:`Compute`.

    :param config: the stack config (``nodePools``, ``computeCluster``, ``availabilityDomains``, ...).
    :param cluster_id: the OKE cluster OCID.
    :param kubernetes_version: the cluster's version: what a pool without ``kubernetesVersion`` runs.
    :param subnet_ids: subnet OCID per role; uses ``workers`` and ``pods``.
    :param nsg_ids: NSG OCID per role; uses ``workers`` and ``pods``.
    :param depends_on: resources every node pool waits for (the Compute Cluster launch policy, the KMS key policy).
    """

    def __init__(self, config: StackConfig, cluster_id: pulumi.Input[str], kubernetes_version: pulumi.Input[str],
                 subnet_ids: dict[str, pulumi.Input[str]], nsg_ids: dict[str, pulumi.Input[str]],
                 depends_on: Sequence[pulumi.Resource] = ()):
        self.config = config
        self.cluster_id = cluster_id
        self.kubernetes_version = kubernetes_version
        self.subnet_ids = subnet_ids
        self.nsg_ids = nsg_ids
        self.depends_on = list(depends_on)


class Compute(pulumi.ComponentResource):
    """The Compute Cluster (new or existing) and every node pool (type ``oke-rdma:compute:Compute``).

    Attributes: ``compute_cluster_id`` (``Output[str]`` or ``None`` when no pool is RDMA),
    ``compute_cluster_availability_domain``, ``node_pools`` (name → ``oci.containerengine.NodePool``).
    """

    def __init__(self, name: str, args: ComputeArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:compute:Compute", name, None, opts)
        cfg = args.config
        prefix = cfg.name_prefix
        cc = cfg.compute_cluster

        self.compute_cluster_id: Optional[pulumi.Output[str]] = None
        self.compute_cluster_availability_domain = cc.availability_domain if cc else None
        if cc is not None and cc.existing_id:
            # An existing Compute Cluster must be ACTIVE; OKE does not create or validate it.
            self.compute_cluster_id = pulumi.Output.from_input(cc.existing_id)
        elif cc is not None:
            compute_cluster = oci.core.ComputeCluster(f"{prefix}-compute-cluster", oci.core.ComputeClusterArgs(
                availability_domain=cc.availability_domain, compartment_id=cfg.compartment_id,
                display_name=f"{prefix}-compute-cluster", freeform_tags=cfg.freeform_tags),
                pulumi.ResourceOptions(parent=self))
            self.compute_cluster_id = compute_cluster.id

        gpu_operator = cfg.platform.operator_device_plugin  # the operator's device plugin runs: OKE's must not
        vcn_native = cfg.cluster.cni_type == CNI_TYPE
        self.node_pools: dict[str, oci.containerengine.NodePool] = {}
        for pool_name, pool in cfg.node_pools.items():
            if pool.rdma:
                ads: tuple[str, ...] = (cc.availability_domain,)  # exactly one placement, no fault domains
            else:
                ads = pool.availability_domains or cfg.availability_domains
            preemptible = None
            if pool.preemptible is not None:  # never on RDMA pools (refused by the config checks)
                preemptible = oci.containerengine.NodePoolNodeConfigDetailsPlacementConfigPreemptibleNodeConfigArgs(
                    preemption_action=oci.containerengine
                    .NodePoolNodeConfigDetailsPlacementConfigPreemptibleNodeConfigPreemptionActionArgs(
                        type="TERMINATE", is_preserve_boot_volume=pool.preemptible.preserve_boot_volume))
            placements = [oci.containerengine.NodePoolNodeConfigDetailsPlacementConfigArgs(
                availability_domain=ad, subnet_id=args.subnet_ids["workers"],
                fault_domains=list(pool.fault_domains) or None, preemptible_node_config=preemptible) for ad in ads]
            shape_config = (oci.containerengine.NodePoolNodeShapeConfigArgs(ocpus=pool.ocpus,
                                                                            memory_in_gbs=pool.memory_gb)
                            if pool.is_flex else None)
            if vcn_native:
                pod_network = oci.containerengine.NodePoolNodeConfigDetailsNodePoolPodNetworkOptionDetailsArgs(
                    cni_type=CNI_TYPE, max_pods_per_node=pool.max_pods_per_node,
                    pod_subnet_ids=[args.subnet_ids["pods"]], pod_nsg_ids=[args.nsg_ids["pods"]])
            else:
                pod_network = oci.containerengine.NodePoolNodeConfigDetailsNodePoolPodNetworkOptionDetailsArgs(
                    cni_type=cfg.cluster.cni_type)
            self.node_pools[pool_name] = oci.containerengine.NodePool(
                f"{prefix}-{pool_name}", oci.containerengine.NodePoolArgs(
                    cluster_id=args.cluster_id, compartment_id=cfg.compartment_id, name=f"{prefix}-{pool_name}",
                    kubernetes_version=pool.kubernetes_version or args.kubernetes_version,
                    node_shape=pool.shape, node_shape_config=shape_config,
                    node_source_details=oci.containerengine.NodePoolNodeSourceDetailsArgs(
                        source_type="IMAGE", image_id=pool.image_id,
                        boot_volume_size_in_gbs=str(pool.boot_volume_gb)),
                    node_config_details=oci.containerengine.NodePoolNodeConfigDetailsArgs(
                        size=pool.size, placement_configs=placements,
                        compute_cluster_id=self.compute_cluster_id if pool.rdma else None,
                        nsg_ids=[args.nsg_ids["workers"]],
                        is_pv_encryption_in_transit_enabled=pool.is_pv_encryption_in_transit_enabled,
                        freeform_tags=cfg.freeform_tags, node_pool_pod_network_option_details=pod_network),
                    node_metadata={IMDS_METADATA_KEY: "true" if pool.are_legacy_imds_endpoints_disabled else "false"},
                    node_eviction_node_pool_settings=oci.containerengine.NodePoolNodeEvictionNodePoolSettingsArgs(
                        eviction_grace_duration=pool.eviction.grace_duration,
                        is_force_action_after_grace_duration=pool.eviction.force_action_after_grace_duration,
                        is_force_delete_after_grace_duration=pool.eviction.force_delete_after_grace_duration),
                    node_pool_cycling_details=oci.containerengine.NodePoolNodePoolCyclingDetailsArgs(
                        is_node_cycling_enabled=pool.cycling.enabled, maximum_surge=pool.cycling.max_surge,
                        maximum_unavailable=pool.cycling.max_unavailable),
                    initial_node_labels=[oci.containerengine.NodePoolInitialNodeLabelArgs(key=k, value=v)
                                         for k, v in node_labels(pool, pool_name, gpu_operator).items()],
                    freeform_tags=cfg.freeform_tags),
                pulumi.ResourceOptions(parent=self, depends_on=args.depends_on,
                                       # Moving a pool in or out of a Compute Cluster recreates every node.
                                       replace_on_changes=POOL_REPLACE_ON_CHANGES))

        for pool_name, warning in placement_warnings(cfg).items():
            pulumi.log.warn(warning, resource=self.node_pools[pool_name])

        self.register_outputs({"computeClusterId": self.compute_cluster_id,
                               "nodePoolIds": {k: p.id for k, p in self.node_pools.items()}})
