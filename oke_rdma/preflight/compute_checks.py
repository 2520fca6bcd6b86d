"""Pre-flight checks of compute: shapes offered per AD and what OCI says of them (GPUs, RDMA ports, VNICs), the
existing Compute Cluster, and the compute limits and quotas the pools need.

OCI API sources: Core ``ListShapes`` (``Shape``: ``gpus``, ``rdma_ports``, ``max_vnic_attachments``,
``max_vnic_attachment_options``, ``quota_names``), ``GetComputeCluster``; Limits as in :mod:`.base` (oci 2.189.0;
checked 2026-11-30). Pods per node from VNICs: ``oke_rdma.facts.shapes``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import TYPE_CHECKING, Optional

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
        offered: dict[str, Optional[set[str]]] = {}
        for name, pool in self.cfg.node_pools.items():
            for ad in self._usable_ads(self.pool_ads(pool)):
                if ad not in offered:
                    found = self.call(("availabilityDomains",), f"list the shapes of {ad}",
                                      self._in("inspect", "instance-family"), self.oci.compute.list_shapes,
                                      self.cfg.compartment_id, availability_domain=ad, all_pages=True)
                    offered[ad] = None if found is None else {s.shape for s in found}
                if offered[ad] is not None and pool.shape not in offered[ad]:
                    self.problem(("nodePools", name, "shape"), f"{pool.shape} is not offered in {ad} to this "
                                                               f"compartment (Compute ListShapes); pick a shape "
                                                               f"listed there or another AD, or ask Oracle for it")

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
        """The compute limit counting ``pool``'s nodes and how much of it one node uses (GPUs, instances or, for
        a Flex VM, OCPUs), or ``(None, 0)``."""
        shape = shapes.SHAPES.get(pool.shape)
        if shape is not None and shape.limit is not None:
            return shape.limit, shape.limit_per_node
        if pool.shape in shapes.FLEX_CORE_LIMITS and pool.ocpus is not None:
            return shapes.FLEX_CORE_LIMITS[pool.shape], math.ceil(pool.ocpus)
        return None, 0

    def limits(self) -> None:
        names = self._limit_names("compute")
        if names is None:
            return
        demand: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
        for name, pool in self.cfg.node_pools.items():
            limit, per_node = self._limit_of(pool)
            if limit is None:
                self.note(f"{_key(('nodePools', name, 'shape'))}: the service limit of {pool.shape} is not checked "
                          f"(oke-rdma knows no limit name for it); see `oci limits value list --service-name "
                          f"compute`")
                continue
            if limit not in names:
                self.note(f"{_key(('nodePools', name, 'shape'))}: the tenancy has no compute limit named "
                          f"{limit} (ListLimitDefinitions), so {pool.shape}'s limit is not checked")
                continue
            ads = self._usable_ads(self.pool_ads(pool))
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

