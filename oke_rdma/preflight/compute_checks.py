"""Pre-flight checks of compute: shapes offered per AD and what OCI says of them (GPUs, RDMA ports, VNICs), the
existing Compute Cluster, and the compute limits and quotas the pools need.

OCI API sources: Core ``ListShapes`` (``Shape``: ``gpus``, ``rdma_ports``, ``max_vnic_attachments``,
``max_vnic_attachment_options``, ``quota_names``), ``GetComputeCluster``; Limits as in :mod:`.base` (oci 2.189.0;
checked 2026-11-30). Pods per node from VNICs: ``oke_rdma.facts.shapes``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import TYPE_CHECKING, Any, Optional

from ..config._base import _key
from ..facts import shapes
from .base import PreflightBase

if TYPE_CHECKING:
    from ..config import NodePool


def _surge_nodes(pool: NodePool) -> int:
    """Extra nodes a node cycle adds at once (``cycling.maxSurge``; 0 when cycling is off)."""
    if not pool.cycling.enabled:
        return 0
    surge = pool.cycling.max_surge
    return math.ceil(pool.size * int(surge[:-1]) / 100) if surge.endswith("%") else int(surge)


class ComputeChecks(PreflightBase):
    """Shapes, the Compute Cluster and compute limits (see the module docstring)."""

    def shapes_offered(self) -> None:
        """Each pool's shape is listed in each of its ADs; keeps the answers for :meth:`shape_details`."""
        self.offered: dict[str, Optional[dict[str, Any]]] = {}
        for name, pool in self.cfg.node_pools.items():
            for ad in self._usable_ads(self.pool_ads(pool)):
                if ad not in self.offered:
                    found = self.call(("availabilityDomains",), f"list the shapes of {ad}",
                                      self._in("inspect", "instance-family"), self.oci.compute.list_shapes,
                                      self.cfg.compartment_id, availability_domain=ad, all_pages=True)
                    self.offered[ad] = None if found is None else {s.shape: s for s in found}
                listed = self.offered[ad]
                if listed is not None and pool.shape not in listed:
                    self.problem(("nodePools", name, "shape"), f"{pool.shape} is not offered in {ad} to this "
                                                               f"compartment (Compute ListShapes); pick a shape "
                                                               f"listed there or another AD, or ask Oracle for it")

    def listed_shape(self, pool: NodePool) -> Any:
        """OCI's ``Shape`` of ``pool`` from :meth:`shapes_offered` (None when no AD of the pool lists it)."""
        for ad in self._usable_ads(self.pool_ads(pool)):
            listed = getattr(self, "offered", {}).get(ad)
            if listed and pool.shape in listed:
                return listed[pool.shape]
        return None

    def shape_details(self) -> None:
        """What ListShapes says of a pool's shape against the config and the facts table: RDMA ports for an RDMA
        pool, the GPU count the Kueue quotas use, and the VNICs behind ``maxPodsPerNode`` (VCN-native)."""
        for name, pool in self.cfg.node_pools.items():
            shape = self.listed_shape(pool)
            if shape is None:
                continue
            at = ("nodePools", name)
            if pool.rdma and shape.rdma_ports is not None and shape.rdma_ports == 0:
                self.problem(at + ("rdma",), f"ListShapes reports no RDMA ports for {pool.shape}, so its nodes "
                                             f"cannot join the Compute Cluster's RDMA network; use an RDMA shape or "
                                             f"set rdma: false")
            table = shapes.NVIDIA_GPUS_PER_SHAPE.get(pool.shape)
            if table is not None and shape.gpus is not None and shape.gpus != table:
                self.problem(at + ("shape",), f"OCI's ListShapes gives {pool.shape} {shape.gpus} GPUs, oke-rdma's "
                                              f"table {table} (Kueue quotas count the table's); correct "
                                              f"oke_rdma/facts/shapes.py")
            vnics = self._vnics(pool, shape)
            if self.cfg.cluster.cni_type == "OCI_VCN_IP_NATIVE" and vnics is not None:
                most = min(shapes.MAX_PODS_PER_NODE, max(vnics - 1, 0) * shapes.SECONDARY_IPS_PER_VNIC)
                if pool.max_pods_per_node > most:
                    self.problem(at + ("maxPodsPerNode",), f"OCI's ListShapes gives {pool.shape} {vnics} VNICs, so "
                                                           f"a node carries at most {most} pods (VCN-native: "
                                                           f"{shapes.SECONDARY_IPS_PER_VNIC} per secondary VNIC); "
                                                           f"set maxPodsPerNode to at most {most}")

    @staticmethod
    def _vnics(pool: NodePool, shape: Any) -> Optional[int]:
        options = getattr(shape, "max_vnic_attachment_options", None)
        if shape.is_flexible and options is not None and pool.ocpus is not None and options.default_per_ocpu:
            count = int(options.default_per_ocpu * pool.ocpus)
            return max(int(options.min or count), min(int(options.max or count), count))
        return shape.max_vnic_attachments

    def compute_cluster(self) -> None:
        cc = self.cfg.compute_cluster
        if cc is None or cc.existing_id is None:
            return
        found = self.call(("computeCluster", "existingId"), "read the Compute Cluster",
                          self._in("read", "compute-clusters"), self.oci.compute.get_compute_cluster, cc.existing_id)
        if found is None:
            return
        if found.lifecycle_state != "ACTIVE":
            self.problem(("computeCluster", "existingId"), f"the Compute Cluster is {found.lifecycle_state}, not "
                                                           f"ACTIVE (OKE places nodes only in an ACTIVE one); use "
                                                           f"another, or remove existingId to create one")
        if found.availability_domain != cc.availability_domain:
            self.problem(("computeCluster", "availabilityDomain"), f"the Compute Cluster is in "
                                                                   f"{found.availability_domain}, not "
                                                                   f"{cc.availability_domain}; set that AD")

    @staticmethod
    def _limit_of(pool: NodePool) -> tuple[Optional[str], int]:
        """The compute limit oke-rdma's table names for ``pool``'s shape and how much of it one node uses (GPUs,
        instances or, for a Flex VM, OCPUs), or ``(None, 0)``."""
        shape = shapes.SHAPES.get(pool.shape)
        if shape is not None and shape.limit is not None:
            return shape.limit, shape.limit_per_node
        if pool.shape in shapes.FLEX_CORE_LIMITS and pool.ocpus is not None:
            return shapes.FLEX_CORE_LIMITS[pool.shape], math.ceil(pool.ocpus)
        return None, 0

    def _node_usage(self, pool: NodePool, limit: str, shape: Any) -> Optional[int]:
        """How much of compute limit ``limit`` one node of ``pool`` uses, judged by the limit's name (GPUs, cores,
        memory GB or instances), or None when the name says none of these."""
        if "gpu" in limit:
            known = shapes.SHAPES.get(pool.shape)
            gpus = getattr(shape, "gpus", None) or (known.gpus if known else None)
            return gpus or None
        if "core" in limit or "ocpu" in limit:
            ocpus = pool.ocpus if pool.ocpus is not None else getattr(shape, "ocpus", None)
            return math.ceil(ocpus) if ocpus else None
        if "memory" in limit:
            memory = pool.memory_gb if pool.memory_gb is not None else getattr(shape, "memory_in_gbs", None)
            return math.ceil(memory) if memory else None
        return 1 if limit.endswith("-count") else None

    def _limits_of(self, name: str, pool: NodePool, names: set[str]) -> list[tuple[str, int]]:
        """The compute limits that count ``pool``'s nodes: the quota names ListShapes gives for its shape (OCI's
        own answer), else the name of oke-rdma's table; each with the amount one node uses. Notes what it skips."""
        shape = self.listed_shape(pool)
        at = _key(("nodePools", name, "shape"))
        quota_names = [n for n in (getattr(shape, "quota_names", None) or []) if n in names]
        found = []
        for limit in quota_names:
            usage = self._node_usage(pool, limit, shape)
            if usage is None:
                self.note(f"{at}: limit {limit} of {pool.shape} counts neither GPUs, cores, memory nor instances; "
                          f"not checked")
            else:
                found.append((limit, usage))
        if quota_names:
            return found
        limit, per_node = self._limit_of(pool)
        if limit is None:
            self.note(f"{at}: the service limit of {pool.shape} is not checked (ListShapes names no quota for it "
                      f"and oke-rdma knows no limit name); see `oci limits value list --service-name compute`")
            return []
        if limit not in names:
            self.note(f"{at}: the tenancy has no compute limit named {limit} (ListLimitDefinitions), so "
                      f"{pool.shape}'s limit is not checked")
            return []
        return [(limit, per_node)]

    def limits(self) -> None:
        names = self._limit_names("compute")
        if names is None:
            return
        demand: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
        for name, pool in self.cfg.node_pools.items():
            ads = self._usable_ads(self.pool_ads(pool))
            for limit, per_node in self._limits_of(name, pool, names):
                for ad in ads:
                    nodes = math.ceil(pool.size / len(ads)) + _surge_nodes(pool)
                    demand[(limit, ad)].append((name, nodes * per_node))
        for (limit, ad), uses in demand.items():
            need = sum(n for _, n in uses)
            first = uses[0][0]
            available = self._available(("nodePools", first, "size"), "compute", limit, ad)
            if available is not None and available < need:
                pools = ", ".join(f"{p} {n}" for p, n in uses)
                self.problem(("nodePools", first, "size"), f"the pools need {need} of compute limit {limit} in {ad} "
                                                           f"({pools}; nodes plus cycling surge), but only {available} "
                                                           f"are available (service limit or compartment quota, "
                                                           f"minus what is in use); ask for a limit increase or a "
                                                           f"quota change, or lower size")
        cc = self.cfg.compute_cluster
        if cc is not None and cc.existing_id is None:
            cc_limits = sorted(n for n in names if "compute-cluster" in n)
            if not cc_limits:
                self.note(f"{_key(('computeCluster',))}: the tenancy lists no compute-cluster limit "
                          f"(ListLimitDefinitions); the Compute Cluster's own limit is not checked")
            for limit in cc_limits:
                available = self._available(("computeCluster", "availabilityDomain"), "compute", limit,
                                            cc.availability_domain)
                if available is not None and available < 1:
                    self.problem(("computeCluster",), f"no Compute Cluster can be created in "
                                                      f"{cc.availability_domain}: compute limit {limit} has "
                                                      f"{available} available; ask for a limit increase or set "
                                                      f"existingId to an ACTIVE Compute Cluster")

