"""Rules of the ``compute`` section that read other keys of the stack config, and values derived from the whole
:class:`~oke_rdma.config.stack.StackConfig`. The section's models and single-key rules are in
``oke_rdma.config.compute``, which imports nothing back."""

from __future__ import annotations

import re
from typing import Any, Callable, Optional

from ...facts.kubernetes import max_skew, skew_problem
from ...facts.regions import parse_ad
from ...facts.shapes import SHAPES, did_you_mean_shape, nvme_drives
from .._base import _key
from oke_rdma.schema import k8s_label_problem
from ..compute import (FLEX_FALLBACK_LIMITS, FLEX_GB_PER_OCPU, FLEX_SHAPE_LIMITS, GPUS_PER_SHAPE,
                       KUBELET_LABEL_PREFIXES, KUBELET_WELL_KNOWN_LABELS, ComputeCluster, NodePool, PROGRAM_NODE_LABELS,
                       RDMA_SHAPES, SHARING_NODE_LABELS)
from ..stack import StackConfig


def _check_cluster(cfg: StackConfig) -> list[str]:
    problems: list[str] = []
    cl = cfg.cluster
    if cl.open_id_connect_discovery and not cl.is_enhanced:
        problems.append(f"{_key(('cluster', 'openIdConnectDiscovery'))}: OIDC discovery needs an ENHANCED_CLUSTER "
                        f"(OKE docs, OpenID Connect Discovery); set cluster.type: ENHANCED_CLUSTER or remove it")
    return problems


def _check_version(cfg: StackConfig, at: tuple[str, ...], version: str) -> list[str]:
    """Worker version vs control plane (``oke_rdma.facts.kubernetes``: never newer; at most 3 minor versions older
    from v1.28 on, 2 before)."""
    cluster_version = cfg.cluster.kubernetes_version
    why = skew_problem(cluster_version, version)
    if why == "newer":
        return [f"{_key(at)}: {version} is newer than the cluster's {cluster_version}; worker nodes must not run a "
                f"newer Kubernetes than the control plane: use {cluster_version} or older, or remove it"]
    if why is not None:
        skew = max_skew(cluster_version)
        minor = int(cluster_version[1:].split(".")[1])
        return [f"{_key(at)}: {version} is {why} than the cluster's {cluster_version} (Kubernetes version skew "
                f"policy); use v1.{minor - skew}.x or newer"]
    return []


def _check_cycling(cfg: StackConfig, at: tuple[str, ...], pool: NodePool) -> list[str]:
    cyc = pool.cycling
    if not cyc.enabled:
        return []
    problems: list[str] = []
    if not cfg.cluster.is_enhanced:
        problems.append(f"{_key(at + ('cycling', 'enabled'))}: node cycling needs an ENHANCED_CLUSTER; set "
                        f"cluster.type: ENHANCED_CLUSTER or cycling.enabled: false")
    if cyc.max_surge.rstrip("%") == "0" and cyc.max_unavailable.rstrip("%") == "0":
        problems.append(f"{_key(at + ('cycling',))}: maxSurge and maxUnavailable are both 0, so no node could ever "
                        f"be replaced; set maxSurge to at least 1 (or maxUnavailable, accepting fewer nodes)")
    for field, value in (("maxSurge", cyc.max_surge), ("maxUnavailable", cyc.max_unavailable)):
        if not value.endswith("%") and int(value) > pool.size:
            problems.append(f"{_key(at + ('cycling', field))}: {value} nodes is more than the pool's size "
                            f"{pool.size}; use at most {pool.size} or a percentage")
    return problems


def _check_flex(at: tuple[str, ...], pool: NodePool) -> list[str]:
    """Flex sizing (Compute docs "Compute Shapes", Flexible Shapes): whole OCPUs from 1 to the shape's maximum;
    memory from 1 GB per OCPU to 64 GB per OCPU and at most the shape's maximum."""
    if pool.ocpus is None or pool.memory_gb is None:
        return []  # "required for the Flex shape" is reported by check_pools
    problems: list[str] = []
    max_ocpus, max_gb = FLEX_SHAPE_LIMITS.get(pool.shape, FLEX_FALLBACK_LIMITS)
    which = pool.shape if pool.shape in FLEX_SHAPE_LIMITS else "a Flex VM"
    ocpus, gb = pool.ocpus, pool.memory_gb
    if not ocpus.is_integer() or not 1 <= ocpus <= max_ocpus:
        problems.append(f"{_key(at + ('ocpus',))}: expected a whole number of OCPUs from 1 to {max_ocpus} ({which}, "
                        f"Compute docs Flexible Shapes), got {ocpus:g}; change the value")
        return problems
    low, high = FLEX_GB_PER_OCPU
    most = min(high * ocpus, max_gb)
    least = max(low * ocpus, 1)
    if not least <= gb <= most:
        problems.append(f"{_key(at + ('memoryGb',))}: expected from {least:g} to {most:g} GB for {ocpus:g} OCPUs "
                        f"({low}-{high} GB per OCPU, at most {max_gb} GB for {which}; Compute docs Flexible Shapes), "
                        f"got {gb:g}; change memoryGb or ocpus")
    return problems


def _label_problem(key: str) -> Optional[str]:
    """Why a user label ``key`` cannot be an initial node label of a pool, or None."""
    if key in PROGRAM_NODE_LABELS:
        what = {PROGRAM_NODE_LABELS[0]: "to the pool name (Kueue ResourceFlavors and the scheduling objects select "
                                        "nodes by it)",
                PROGRAM_NODE_LABELS[1]: "from the pool's localNvme setting",
                PROGRAM_NODE_LABELS[2]: "on each node, only when the node's Lustre client works "
                                        "(storage.lustre.client; the Lustre volumes require it)"}[key]
        return f"is set by oke-rdma {what}; remove it (use your own key, like okerdma.io/role)"
    if key in SHARING_NODE_LABELS:
        return ("is set by oke-rdma from the pool's gpuSharing (the device plugin, MIG manager, policy pack and "
                "in-cluster guard read it); remove it and set gpuSharing instead")
    prefix = key.rpartition("/")[0]
    k8s = any(prefix == d or prefix.endswith("." + d) for d in ("kubernetes.io", "k8s.io"))
    if not k8s:
        return None
    if key in KUBELET_WELL_KNOWN_LABELS:
        return ("is set by the kubelet or OCI's cloud controller from each node itself (Kueue's topology reads "
                "kubernetes.io/hostname); a pool-wide value would be wrong: remove it")
    if prefix in KUBELET_LABEL_PREFIXES:
        return None
    return ("is in the kubernetes.io/k8s.io namespace, which a kubelet may not set on its own Node (NodeRestriction "
            "admission; kubelet --node-labels allows only kubelet.kubernetes.io/, node.kubernetes.io/ and a few "
            "well-known labels), so the nodes would never register; set node-role and similar labels with kubectl "
            "after the nodes join, or use your own prefix like okerdma.io/")


def _check_labels(at: tuple[str, ...], pool: NodePool) -> list[str]:
    return [f"{_key(at + ('labels', k))}: {why}" for k in pool.labels if (why := _label_problem(k)) is not None]


def _check_rdma(cfg: StackConfig, at: tuple[str, ...], pool: NodePool) -> list[str]:
    """OKE docs, "Using Compute Clusters to Provision Managed Nodes"; Compute docs, "Compute Clusters"."""
    problems: list[str] = []
    cc = cfg.compute_cluster
    if not cfg.cluster.is_enhanced:
        problems.append(f"{_key(at + ('rdma',))}: a node pool in a Compute Cluster needs an ENHANCED_CLUSTER, but "
                        f"cluster.type is {cfg.cluster.type}; set cluster.type: ENHANCED_CLUSTER or rdma: false")
    problems += rdma_pool_problems(pool, cc, lambda field: _key(at + (field,)))
    if cc is None:
        problems.append(f"{_key(at + ('rdma',))}: an RDMA pool needs oke-rdma:computeCluster; add it with "
                        f"availabilityDomain (plus existingId to use an ACTIVE Compute Cluster in that AD)")
    return problems


def rdma_shapes_offered() -> list[str]:
    """The RDMA shapes a message may offer, sorted: Oracle's list (:data:`RDMA_SHAPES`) without the shapes whose
    GPUs the platform cannot schedule (AMD: refused by ``check_gpu_vendor``)."""
    return sorted(s for s in RDMA_SHAPES if SHAPES.get(s) is None or SHAPES[s].gpu_vendor in (None, "NVIDIA"))


def rdma_pool_problems(pool: NodePool, compute_cluster: Optional[ComputeCluster],
                       key: Callable[[str], str]) -> list[str]:
    """The placement rules of one pool in a Compute Cluster (OKE docs, "Using Compute Clusters to Provision Managed
    Nodes"; Compute docs, "Compute Clusters"): no fault domains, not preemptible, a bare metal shape Oracle lists
    (or ``allowUnlistedRdmaShape``), and at most the Compute Cluster's availability domain.

    :param key: field name (``faultDomains``, ``shape``...) → how a problem names it (a config key path, or an
        argument like ``node_pools['gpu'].shape``).
    :returns: one line per problem, starting with ``key(field)``.
    """
    problems: list[str] = []
    if pool.fault_domains:
        problems.append(f"{key('faultDomains')}: must be empty for a node pool in a Compute Cluster "
                        f"(OCI places nodes itself); remove it")
    if pool.preemptible is not None:
        problems.append(f"{key('preemptible')}: a node pool in a Compute Cluster cannot be preemptible "
                        f"(RDMA nodes are reserved bare metal); remove preemptible or set rdma: false")
    listed = ", ".join(rdma_shapes_offered())
    if not pool.shape.startswith("BM."):
        problems.append(f"{key('shape')}: {pool.shape} is a VM shape; Compute Clusters hold bare metal "
                        f"instances only ({listed}); pick one of those or set rdma: false")
    elif pool.shape not in RDMA_SHAPES and not pool.allow_unlisted_rdma_shape:
        problems.append(f"{key('shape')}: {pool.shape}{did_you_mean_shape(pool.shape)} is not a shape Oracle "
                        f"lists for RDMA in Compute Clusters ({listed}); pick one, set rdma: false, or (if Oracle supports it in your region) "
                        f"set allowUnlistedRdmaShape: true")
    if compute_cluster is not None and pool.availability_domains and \
            tuple(pool.availability_domains) != (compute_cluster.availability_domain,):
        ad = compute_cluster.availability_domain
        got = ", ".join(pool.availability_domains)
        problems.append(f"{key('availabilityDomains')}: an RDMA pool has exactly one placement, in the "
                        f"Compute Cluster's availability domain {ad!r}, got [{got}]; set [{ad!r}] or remove the key")
    return problems


def _check_local_nvme(at: tuple, pool) -> list[str]:
    """``localNvme`` needs a shape with local NVMe drives (OCI Compute Shapes tables, via
    :func:`oke_rdma.facts.shapes.nvme_drives`); a shape whose drive count is not known is refused rather than
    trusted, since the RAID would silently not exist on its nodes."""
    drives = nvme_drives(pool.shape)
    if drives is None:
        known = sorted(n for n in SHAPES if (nvme_drives(n) or 0) > 0)
        return [f"{_key(at)}: the local NVMe drives of {pool.shape}{did_you_mean_shape(pool.shape)} are not in "
                f"oke-rdma's shape table, so the RAID cannot be promised; use a shape with known drives ({', '.join(known)}) or turn localNvme off"]
    if drives == 0:
        return [f"{_key(at)}: {pool.shape} has no local NVMe drives (OCI Compute Shapes); turn localNvme off or use "
                f"a shape with NVMe (a bare metal GPU shape, or a DenseIO shape)"]
    return []


def is_unknown_gpu_shape(shape: str) -> bool:
    """A GPU shape name (``.GPU`` in it, any case) that :data:`oke_rdma.facts.shapes.SHAPES` does not hold."""
    return ".gpu" in shape.lower() and shape not in SHAPES


def _check_unknown_gpu_shape(at: tuple[str, ...], pool: Any) -> list[str]:
    """An unknown GPU shape is refused as a likely typo (with the known shapes of the GPU model it names), unless
    the pool says it knows better: ``allowUnknownShape`` (an RDMA pool's shape is refused by the RDMA rules, with
    ``allowUnlistedRdmaShape`` as its override); an
    ``allowUnknownShape`` on a known shape changes nothing and is refused too."""
    if pool.allow_unknown_shape and not is_unknown_gpu_shape(pool.shape):
        return [f"{_key(at + ('allowUnknownShape',))}: has no effect because {pool.shape} is "
                f"{'a shape oke-rdma knows' if pool.shape in SHAPES else 'not a GPU shape'}; remove it"]
    if pool.allow_unknown_shape and pool.gpus_per_node is None:
        return [f"{_key(at + ('gpusPerNode',))}: required with allowUnknownShape: the GPUs per node of {pool.shape} "
                f"are unknown, and the tenants' GPU quotas and Kueue flavors count them; set it (`oci compute shape "
                f"list --compartment-id <OCID> --query \"data[?shape=='{pool.shape}'].gpus\"`)"]
    if not is_unknown_gpu_shape(pool.shape) or pool.allow_unknown_shape or pool.rdma:
        return []  # an RDMA pool's shape is judged by the RDMA rules (Oracle's list, allowUnlistedRdmaShape)
    hint = did_you_mean_shape(pool.shape)
    known = "" if hint else f" (known GPU shapes: {', '.join(sorted(n for n in SHAPES if '.GPU' in n))})"
    return [f"{_key(at + ('shape',))}: {pool.shape}{hint} is not a GPU shape oke-rdma knows{known}; fix the name "
            f"(shapes are case-sensitive), or for a real shape newer than oke_rdma/facts/shapes.py set "
            f"{_key(at + ('allowUnknownShape',))}: true with gpusPerNode"]


def check_pools(cfg: StackConfig) -> list[str]:
    """Cluster options and every node pool: names, ADs, Flex sizing, versions, cycling, placement in the Compute
    Cluster (enhanced cluster, bare metal RDMA shape, the Compute Cluster's AD only, no fault domains, not
    preemptible), and overrides that would have no effect.

    :returns: one ``oke-rdma:<key path>: <problem>; <fix>`` line per problem.
    """
    problems: list[str] = _check_cluster(cfg)
    ads = set(cfg.availability_domains)
    cc = cfg.compute_cluster
    if cc is not None and cc.availability_domain not in ads:
        parsed = parse_ad(cc.availability_domain)
        other = parsed.region if parsed is not None and parsed.region not in (None, cfg.region) else None
        where = (f" (it is an AD of region {other}, not of oci:region {cfg.region})" if other else "")
        problems.append(f"{_key(('computeCluster', 'availabilityDomain'))}: {cc.availability_domain!r} is not in "
                        f"oke-rdma:availabilityDomains{where}; add it there or pick one of {sorted(ads)}")
    for name, pool in cfg.node_pools.items():
        at = ("nodePools", name)
        bad_name = k8s_label_problem(name)
        if bad_name:
            # The name becomes the value of the okerdma.io/node-pool node label and part of Kubernetes object names.
            problems.append(f"{_key(at)}: the pool name {bad_name.split(': ', 1)[0]} is the okerdma.io/node-pool "
                            f"label value and names its Kueue ResourceFlavor: {bad_name.split(': ', 1)[1]}")
        for ad in pool.availability_domains:
            if ad not in ads:
                problems.append(f"{_key(at + ('availabilityDomains',))}: {ad!r} is not in "
                                f"oke-rdma:availabilityDomains; add it there or remove it here")
        if pool.is_flex and (pool.ocpus is None or pool.memory_gb is None):
            problems.append(f"{_key(at + ('ocpus' if pool.ocpus is None else 'memoryGb',))}: required for the "
                            f"Flex shape {pool.shape}; set ocpus and memoryGb")
        if pool.is_flex:
            problems += _check_flex(at, pool)
        if not pool.is_flex and (pool.ocpus is not None or pool.memory_gb is not None):
            problems.append(f"{_key(at + ('ocpus' if pool.ocpus is not None else 'memoryGb',))}: only Flex shapes "
                            f"take ocpus/memoryGb; {pool.shape} has a fixed size, remove them")
        if pool.kubernetes_version is not None:
            problems += _check_version(cfg, at + ("kubernetesVersion",), pool.kubernetes_version)
        if cfg.cluster.cni_type == "FLANNEL_OVERLAY" and "max_pods_per_node" in pool.model_fields_set:
            problems.append(f"{_key(at + ('maxPodsPerNode',))}: applies only to VCN-native pod networking "
                            f"(OCI_VCN_IP_NATIVE), but cluster.cniType is FLANNEL_OVERLAY; remove it")
        problems += _check_cycling(cfg, at, pool)
        problems += _check_labels(at, pool)
        problems += _check_unknown_gpu_shape(at, pool)
        known = GPUS_PER_SHAPE.get(pool.shape)
        if pool.gpus_per_node is not None and known is not None and pool.gpus_per_node != known:
            problems.append(f"{_key(at + ('gpusPerNode',))}: {pool.shape} has {known} GPUs per node (OCI Compute "
                            f"Shapes), got {pool.gpus_per_node}; remove gpusPerNode (it is only for shapes oke-rdma "
                            f"does not know): the tenants' GPU quotas are checked against the real count")
        if pool.allow_unlisted_rdma_shape and (not pool.rdma or pool.shape in RDMA_SHAPES):
            why = "the pool is not an RDMA pool" if not pool.rdma else f"{pool.shape} is on Oracle's list"
            problems.append(f"{_key(at + ('allowUnlistedRdmaShape',))}: has no effect because {why}; remove it")
        if pool.rdma:
            problems += _check_rdma(cfg, at, pool)
    for name, pool in cfg.node_pools.items():
        if pool.local_nvme.enabled:
            problems += _check_local_nvme(("nodePools", name, "localNvme"), pool)
    return problems


def placement_warnings(cfg: StackConfig) -> dict[str, str]:
    """Pool name → warning for what the config allows only by explicit override (``allowUnlistedRdmaShape``).

    Call after :func:`check_pools` passed; the program logs each with ``pulumi.log.warn`` on every run.
    """
    return {name: (f"{_key(('nodePools', name, 'allowUnlistedRdmaShape'))}: {pool.shape} is not on Oracle's list of "
                   f"shapes for RDMA in Compute Clusters ({', '.join(rdma_shapes_offered())}); OCI may refuse the "
                   f"pool or its nodes may not join the RDMA fabric")
            for name, pool in cfg.node_pools.items()
            if pool.rdma and pool.allow_unlisted_rdma_shape and pool.shape.startswith("BM.")
            and pool.shape not in RDMA_SHAPES}


#: Why RDMA pools of different shapes in one Compute Cluster are warned about, not refused: Oracle's OKE module
#: maintainer (oracle-terraform-modules/terraform-oci-oke PR #1007, 2025-05-26) states that several node shapes in
#: one Compute Cluster are possible in principle but "not recommended nor possible in all the regions", since the
#: shapes must sit in the same network block; the module therefore gives each compute-cluster pool its own Compute
#: Cluster and shares one only by explicit reference. OCI's API does not refuse the pair up front (the Compute docs,
#: "Compute Clusters", say instances must share the cluster's compartment and AD, which the program and
#: ``check_pools`` hold), so where a region cannot place both shapes the second pool fails at launch, and moving it
#: out later replaces it (``computeClusterId`` is immutable). Checked 2026-12-02.
MIXED_SHAPES_SOURCE = ("oracle-terraform-modules/terraform-oci-oke PR #1007 (2025-05-26, maintainer: different shapes "
                       "in one Compute Cluster must be in the same network block, not possible in all regions); "
                       "checked 2026-12-02")


def compute_cluster_warnings(cfg: StackConfig) -> list[str]:
    """Compute Cluster memberships OCI may refuse at launch, which the config cannot know: RDMA pools of different
    shapes sharing the stack's one Compute Cluster (see :data:`MIXED_SHAPES_SOURCE`). One line naming the key path
    of every pool after the first shape and the fix."""
    rdma = [(name, pool) for name, pool in cfg.node_pools.items() if pool.rdma]
    if len({pool.shape for _, pool in rdma}) < 2:
        return []
    first_shape = rdma[0][1].shape
    others = [(name, pool) for name, pool in rdma if pool.shape != first_shape]
    named = ", ".join(f"{_key(('nodePools', name, 'shape'))} ({pool.shape})" for name, pool in others)
    return [f"{named}: RDMA pools of different shapes share the one Compute Cluster with {rdma[0][0]} "
            f"({first_shape}); OCI can place them together only where both shapes are in the same network block, "
            f"not in every region, so the pool may fail to launch at pulumi up and moving it out later replaces it; "
            f"keep one RDMA shape per stack (another shape in its own stack, with its own computeCluster) "
            f"[{MIXED_SHAPES_SOURCE}]"]
