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

from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_oci as oci

from oke_rdma import node_init
from oke_rdma.config.checks.compute import rdma_pool_problems
from oke_rdma.config.compute import PROGRAM_NODE_LABELS, ComputeCluster, NodePool
from oke_rdma.config.platform import OKE_DEVICE_PLUGIN_LABEL, is_gpu_shape
from oke_rdma.facts.kubernetes import withdrawal_notice
from oke_rdma.facts.regions import parse_ad
from oke_rdma.sharing import sharing_labels

#: OKE's own NVIDIA device plugin stays off on nodes with this label (the GPU Operator brings its own).
DISABLE_OKE_DEVICE_PLUGIN = (OKE_DEVICE_PLUGIN_LABEL, "true")
CNI_TYPE = "OCI_VCN_IP_NATIVE"
#: Node metadata key OKE reads to disable the legacy IMDSv1 endpoints of the pool's instances.
IMDS_METADATA_KEY = "areLegacyImdsEndpointsDisabled"
#: Node metadata key OKE hands to cloud-init as user data (OKE docs, "Using Custom Cloud-init Initialization Scripts
#: to Set Up Managed Nodes"); base64 of the script.
USER_DATA_KEY = "user_data"
#: Label on the nodes of a pool with ``localNvme`` (jobs that need the scratch file system select it).
LOCAL_NVME_LABEL = PROGRAM_NODE_LABELS[1]


def node_metadata(pool: NodePool, lustre_client: Optional[Mapping[str, node_init.LustreArchive]] = None,
                  startup_taints: Sequence[str] = ()) -> dict[str, str]:
    """The pool's node metadata: IMDSv2 only (or not), and the cloud-init user data (``oke_rdma.node_init``), on
    every pool: it grows the root file system to the boot volume (OKE images keep their built-in root partition
    otherwise), sets up local NVMe when ``localNvme`` is on and the Lustre client when the pool gets it
    (``lustre_client``: OS key → package archive, possibly empty; None = no Lustre client step), and has the nodes
    register with ``startup_taints`` (``key=value:Effect``: OKE's node pools have no taint field; the kubelet
    registers them), then runs OKE's bootstrap."""
    metadata = {IMDS_METADATA_KEY: "true" if pool.are_legacy_imds_endpoints_disabled else "false"}
    metadata[USER_DATA_KEY] = node_init.user_data(nvme=pool.local_nvme.enabled,
                                                  mount_path=pool.local_nvme.mount_path,
                                                  filesystem=pool.local_nvme.filesystem,
                                                  lustre_client=lustre_client, taints=tuple(startup_taints))
    return metadata
#: Properties whose change replaces a pool (every node destroyed): declared so every preview says "replace".
POOL_REPLACE_ON_CHANGES = ["nodeConfigDetails.computeClusterId"]


def node_labels(pool: NodePool, name: str, gpu_operator: bool) -> dict[str, str]:
    """The initial Kubernetes labels of pool ``name``: its own, the pool name, the device-plugin switch and, with the
    GPU Operator, the GPU-sharing labels (``oke_rdma.sharing.sharing_labels``)."""
    labels = {"okerdma.io/node-pool": name, **pool.labels}
    if pool.local_nvme.enabled:
        labels[LOCAL_NVME_LABEL] = "true"
    if gpu_operator and is_gpu_shape(pool.shape):
        labels[DISABLE_OKE_DEVICE_PLUGIN[0]] = DISABLE_OKE_DEVICE_PLUGIN[1]
        labels.update(sharing_labels(pool, True))
    return labels


class ComputeArgs:
    """Inputs of :class:`Compute`.

    :param compartment_id: OCID of the compartment of the pools and the Compute Cluster.
    :param cluster_id: the OKE cluster OCID.
    :param kubernetes_version: the cluster's version (``v1.x.y``): what a pool without ``kubernetesVersion`` runs.
    :param subnet_ids: subnet OCID per role; uses ``workers`` and (VCN-native pod networking) ``pods``.
    :param nsg_ids: NSG OCID per role; uses ``workers`` and (VCN-native pod networking) ``pods``.
    :param node_pools: pool name → :class:`oke_rdma.config.NodePool` (the ``oke-rdma:nodePools.<name>`` model:
        shape, size, image, ``rdma``, ...); at least one.
    :param availability_domains: ADs (``xxxx:REGION-AD-n``) of the pools that name none; not used by RDMA pools.
    :param compute_cluster: the Compute Cluster of the RDMA pools (:class:`oke_rdma.config.ComputeCluster`: its
        AD, or ``existingId``); required when a pool has ``rdma: true``.
    :param cni_type: ``OCI_VCN_IP_NATIVE`` (default) or ``FLANNEL_OVERLAY``, as the cluster's.
    :param disable_oke_device_plugin: label GPU pools so OKE's NVIDIA device plugin stays off (True when the GPU
        Operator runs its own device plugin; default False).
    :param name_prefix: prefix of logical and display names (default ``okerdma``).
    :param freeform_tags: free-form tags on every pool, node and the Compute Cluster (default none).
    :param warnings: pool name → a warning logged on the pool every run (the stack program passes the placement
        warnings of its config, e.g. an unlisted RDMA shape allowed by override); default none.
    :param lustre_clients: pool name → the Lustre client package archives (OS key → ``node_init.LustreArchive``,
        possibly empty) for the pools whose nodes get the Lustre client step; default none.
    :param startup_taints: taints every node of every pool registers with (``key=value:Effect``), removed by the node
        agent that must run before other pods (Cilium's agent-not-ready taint when the walls are on); default none.
    :param depends_on: resources every node pool waits for (the Compute Cluster launch policy, the KMS key policy).
    :raises ValueError: no pools, an RDMA pool without ``compute_cluster`` or breaking a placement rule
        (:func:`oke_rdma.config.checks.compute.rdma_pool_problems`: fault domains, preemptible, shape, AD), a
        non-RDMA pool without an AD, a missing subnet/NSG role, or a malformed startup taint — each naming the pool,
        the role or the taint.
    """

    def __init__(self, compartment_id: str, cluster_id: pulumi.Input[str], kubernetes_version: pulumi.Input[str],
                 subnet_ids: Mapping[str, pulumi.Input[str]], nsg_ids: Mapping[str, pulumi.Input[str]],
                 node_pools: Mapping[str, NodePool], *, availability_domains: Sequence[str] = (),
                 compute_cluster: Optional[ComputeCluster] = None, cni_type: str = CNI_TYPE,
                 disable_oke_device_plugin: bool = False, name_prefix: str = "okerdma",
                 freeform_tags: Optional[Mapping[str, str]] = None, warnings: Optional[Mapping[str, str]] = None,
                 lustre_clients: Optional[Mapping[str, Mapping[str, node_init.LustreArchive]]] = None,
                 startup_taints: Sequence[str] = (), depends_on: Sequence[pulumi.Resource] = ()):
        problems = []
        if not node_pools:
            problems.append("node_pools is empty; give at least one pool")
        for name, pool in node_pools.items():
            if not isinstance(pool, NodePool):
                problems.append(f"node_pools[{name!r}] is a {type(pool).__name__}, not an oke_rdma.config.NodePool "
                                f"(build it with NodePool.model_validate({{...}}))")
            elif pool.rdma and compute_cluster is None:
                problems.append(f"node_pools[{name!r}] has rdma: true but no compute_cluster is given; pass a "
                                f"ComputeCluster (its availability domain, or existingId)")
            elif pool.rdma:
                problems += rdma_pool_problems(pool, compute_cluster,
                                               lambda field, n=name: f"node_pools[{n!r}].{field}")
            elif not pool.rdma and not (pool.availability_domains or availability_domains):
                problems.append(f"node_pools[{name!r}] names no availability domain and availability_domains is "
                                f"empty; give one")
        ads = [("availability_domains", ad) for ad in availability_domains]
        ads += [(f"node_pools[{n!r}].availabilityDomains", ad) for n, p in node_pools.items()
                if isinstance(p, NodePool) for ad in p.availability_domains]
        if compute_cluster is not None:
            ads.append(("compute_cluster.availabilityDomain", compute_cluster.availability_domain))
        problems += [f"{where}: {ad!r} is not an availability domain name like 'bxtG:SA-SAOPAULO-1-AD-1' or "
                     f"'Uocm:US-ASHBURN-AD-1' (see oci iam availability-domain list)" for where, ad in ads
                     if parse_ad(ad) is None]
        roles = ("workers", "pods") if cni_type == CNI_TYPE else ("workers",)
        problems += [f"subnet_ids[{r!r}] missing" for r in roles if r not in subnet_ids]
        problems += [f"nsg_ids[{r!r}] missing" for r in roles if r not in nsg_ids]
        problems += [f"lustre_clients[{n!r}]: no such node pool" for n in (lustre_clients or {}) if n not in node_pools]
        problems += [f"startup_taints[{i}]: {t!r} is not key[=value]:NoSchedule|PreferNoSchedule|NoExecute"
                     for i, t in enumerate(startup_taints) if not node_init.TAINT.match(t)]
        if problems:
            raise ValueError("ComputeArgs: " + "; ".join(problems))
        self.compartment_id = compartment_id
        self.cluster_id = cluster_id
        self.kubernetes_version = kubernetes_version
        self.subnet_ids = dict(subnet_ids)
        self.nsg_ids = dict(nsg_ids)
        self.node_pools = dict(node_pools)
        self.availability_domains = tuple(availability_domains)
        self.compute_cluster = compute_cluster
        self.cni_type = cni_type
        self.disable_oke_device_plugin = disable_oke_device_plugin
        self.name_prefix = name_prefix
        self.freeform_tags = dict(freeform_tags or {})
        self.warnings = dict(warnings or {})
        self.lustre_clients = {n: dict(a) for n, a in (lustre_clients or {}).items()}
        self.startup_taints = tuple(startup_taints)
        self.depends_on = list(depends_on)


class Compute(pulumi.ComponentResource):
    """The Compute Cluster (new or existing) and every node pool (type ``oke-rdma:compute:Compute``).

    Attributes: ``compute_cluster_id`` (``Output[str]`` or ``None`` when no pool is RDMA),
    ``compute_cluster_availability_domain``, ``node_pools`` (name → ``oci.containerengine.NodePool``).
    """

    def __init__(self, name: str, args: ComputeArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:compute:Compute", name, None, opts)
        prefix, tags = args.name_prefix, args.freeform_tags
        cc = args.compute_cluster

        self.compute_cluster_id: Optional[pulumi.Output[str]] = None
        self.compute_cluster_availability_domain = cc.availability_domain if cc else None
        if cc is not None and cc.existing_id:
            # An existing Compute Cluster must be ACTIVE; OKE does not create or validate it.
            self.compute_cluster_id = pulumi.Output.from_input(cc.existing_id)
        elif cc is not None:
            compute_cluster = oci.core.ComputeCluster(f"{prefix}-compute-cluster", oci.core.ComputeClusterArgs(
                availability_domain=cc.availability_domain, compartment_id=args.compartment_id,
                display_name=f"{prefix}-compute-cluster", freeform_tags=tags),
                pulumi.ResourceOptions(parent=self))
            self.compute_cluster_id = compute_cluster.id

        gpu_operator = args.disable_oke_device_plugin  # the operator's device plugin runs: OKE's must not
        vcn_native = args.cni_type == CNI_TYPE
        self.node_pools: dict[str, oci.containerengine.NodePool] = {}
        for pool_name, pool in args.node_pools.items():
            if pool.rdma:
                ads: tuple[str, ...] = (cc.availability_domain,)  # exactly one placement, no fault domains
            else:
                ads = pool.availability_domains or args.availability_domains
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
                    cni_type=args.cni_type)
            self.node_pools[pool_name] = oci.containerengine.NodePool(
                f"{prefix}-{pool_name}", oci.containerengine.NodePoolArgs(
                    cluster_id=args.cluster_id, compartment_id=args.compartment_id, name=f"{prefix}-{pool_name}",
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
                        freeform_tags=tags, node_pool_pod_network_option_details=pod_network),
                    node_metadata=node_metadata(pool, args.lustre_clients.get(pool_name), args.startup_taints),
                    node_eviction_node_pool_settings=oci.containerengine.NodePoolNodeEvictionNodePoolSettingsArgs(
                        eviction_grace_duration=pool.eviction.grace_duration,
                        is_force_action_after_grace_duration=pool.eviction.force_action_after_grace_duration,
                        is_force_delete_after_grace_duration=pool.eviction.force_delete_after_grace_duration),
                    node_pool_cycling_details=oci.containerengine.NodePoolNodePoolCyclingDetailsArgs(
                        is_node_cycling_enabled=pool.cycling.enabled, maximum_surge=pool.cycling.max_surge,
                        maximum_unavailable=pool.cycling.max_unavailable),
                    initial_node_labels=[oci.containerengine.NodePoolInitialNodeLabelArgs(key=k, value=v)
                                         for k, v in node_labels(pool, pool_name, gpu_operator).items()],
                    freeform_tags=tags),
                pulumi.ResourceOptions(parent=self, depends_on=args.depends_on,
                                       # Moving a pool in or out of a Compute Cluster recreates every node.
                                       replace_on_changes=POOL_REPLACE_ON_CHANGES))

        for pool_name, warning in args.warnings.items():
            pulumi.log.warn(warning, resource=self.node_pools.get(pool_name, self))
        for pool_name, pool in args.node_pools.items():  # a pool's own withdrawn version (the cluster's: Cluster warns)
            notice = withdrawal_notice(pool.kubernetes_version, f"node pool {pool_name}") if pool.kubernetes_version \
                else None
            if notice and pool_name in self.node_pools:
                pulumi.log.warn(f"oke-rdma:nodePools.{pool_name}.kubernetesVersion: {notice}",
                                resource=self.node_pools[pool_name])

        self.register_outputs({"computeClusterId": self.compute_cluster_id,
                               "nodePoolIds": {k: p.id for k, p in self.node_pools.items()}})
