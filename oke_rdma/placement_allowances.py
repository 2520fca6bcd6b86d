"""The placement pack's policy config a stack's own config implies: its non-RDMA pools on RDMA-capable shapes.

A pool declared ``rdma: false`` on a shape a Compute Cluster holds (``BM.GPU.A100-v2.8`` for MIG, ``BM.GPU.H100.8``
time-sliced: docs/sharing.md, RDMA pools stay exclusive) runs outside the Compute Cluster by decision. The placement
pack's ``rdma-shape-in-compute-cluster`` refuses any RDMA-capable shape outside a Compute Cluster unless its policy
config lists the resource in ``allowedOutsideComputeCluster`` (docs/policies.md): the pack owners keep the decision
in the policy config, never in the stack's resources (a tag on the pool would let any program exempt itself).

:func:`placement_policy_config` writes that policy config from the reviewed stack config: exactly the node pools the
program creates from ``nodePools.<p>`` with ``rdma: false`` on a Compute Cluster shape (resource name
``<namePrefix>-<p>``). A node pool or instance written by hand (not from ``nodePools``) is never listed, so the rule
still refuses it (fails closed). The offline preview uses it when no ``--policy-config`` is given; for the Pulumi CLI,
``python -m offline.placement_config --stack <stack> > placement.json`` and pass
``--policy-pack policies/placement --policy-pack-config placement.json`` (docs/policy-config.md).

Source: policies/placement/completeness.py (``allowedOutsideComputeCluster``; read 2026-12-02).
"""
from __future__ import annotations

from typing import Any, Optional

from .config.compute import RDMA_SHAPES

#: The placement pack's rule and its config property (policies/placement/completeness.py; a test keeps them equal).
SHAPE_POLICY = "rdma-shape-in-compute-cluster"
ALLOWANCE_KEY = "allowedOutsideComputeCluster"


def non_rdma_pools_on_rdma_shapes(config: Any) -> dict[str, str]:
    """``{resource name: pool key}`` of the pools ``config`` (a :class:`~oke_rdma.config.StackConfig`) declares
    ``rdma: false`` on a Compute Cluster shape (:data:`~oke_rdma.config.compute.RDMA_SHAPES`)."""
    return {f"{config.name_prefix}-{name}": name for name, pool in sorted(config.node_pools.items())
            if not pool.rdma and pool.shape in RDMA_SHAPES}


def placement_policy_config(config: Any) -> Optional[dict[str, Any]]:
    """The placement pack's ``--policy-pack-config`` content ``config`` implies, or None when it implies nothing
    (every other rule keeps its defaults)."""
    names = sorted(non_rdma_pools_on_rdma_shapes(config))
    return {SHAPE_POLICY: {ALLOWANCE_KEY: names}} if names else None
