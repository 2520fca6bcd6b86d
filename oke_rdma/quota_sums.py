"""The tenants' nominal quotas on one pool, added up: more than the pool offers is promised away.

Each tenant's Kueue quota fills its pools in order, each pool at most up to what it offers
(:func:`oke_rdma.adapter.flavor_quotas`); the single-tenant check refuses a tenant whose quota exceeds all its pools
(:func:`oke_rdma.config.checks.tenants.check_quotas`). Several tenants can still fill the same pool: `speech` 24 and
`nlp` 32 time-sliced GPUs on a pool of 32. Kueue treats every ClusterQueue's nominal quota as guaranteed and the
cohort lends the sum of them (docs/tenants.md, "Which flavors a tenant's ClusterQueue lists"; kubernetes-sigs/kueue
v0.19.2 ``pkg/cache/scheduler/resource_node.go``, the cohort's ``SubtreeQuota`` is the sum of its ClusterQueues'
nominal quotas; read 2026-12-02): with a sum above the pool, Kueue admits jobs up to quota that no node can run,
their pods stay Pending while holding quota, and a tenant's "guaranteed" share is not there when it wants it.

Only pools whose flavor has no ``Topology`` — the shared (time-sliced, MIG) pools: an RDMA pool's flavor names the
RDMA Topology, and Topology Aware Scheduling admits a workload only where its pods fit the nodes' free capacity
(Kueue docs "Topology Aware Scheduling"; checked 2026-12-02), so there the nominal quotas may add up to more on
purpose (the dev stack does: `research` 16 + `analytics` 4 on 16 GPUs). Warned, not refused: oversubscribing
guaranteed quota can be a choice (borrowing fills the gaps while not every tenant is busy); a single tenant beyond
its pools is refused because it can never be honoured at all. Checked per pool for GPUs (``nvidia.com/gpu`` units: GPUs, time-slicing replicas or
MIG instances), CPU (vCPUs: Kubernetes CPUs, 2 per OCPU on x86 and 1 on Arm) and memory (the quota's GB against the shapes' memory as numbers, like
:func:`~oke_rdma.config.checks.tenants.quota_capacity_warnings`).
"""
from __future__ import annotations

from typing import Any

from .adapter import flavor_quotas
from .config._base import _key
from .config.checks.fleet import pool_gpu_units
from .config.checks.tenants import _pool_cpu_memory


def quota_sum_warnings(cfg: Any) -> list[str]:
    """One line per non-RDMA pool and resource (GPU, CPU, memory) whose tenants' nominal quotas add up to more than
    the pool offers, naming the pool, each tenant's share and the quota keys to lower. Empty without tenants or Kueue."""
    if not cfg.tenants or not cfg.platform.kueue.enabled:
        return []
    shares: dict[str, list[tuple[str, Any]]] = {}
    for tenant in cfg.tenants:
        for pool, q in flavor_quotas(cfg, tenant).items():
            shares.setdefault(pool, []).append((tenant, q))
    out: list[str] = []
    for pool, quotas in shares.items():
        p = cfg.node_pools[pool]
        if p.rdma:
            continue  # its flavor has the RDMA Topology: TAS admits only what fits the nodes
        held = f"{p.size} × {p.shape}"
        gpus = pool_gpu_units(cfg, pool)
        nodes = _pool_cpu_memory(cfg, pool)
        for field, unit, of, offered in (
                ("gpu", "nvidia.com/gpu", lambda q: q.gpu, gpus),
                ("cpu", "vCPUs", lambda q: q.cpu_millis / 1000, nodes[0] if nodes else None),
                ("memoryGb", "GB", lambda q: q.memory_mi / 1024, nodes[1] if nodes else None)):
            parts = [(t, of(q)) for t, q in quotas if of(q) > 0]
            total = sum(v for _, v in parts)
            if offered is None or total <= offered + 1e-6 or len(parts) < 2:
                continue  # unknown facts make no claim; one tenant alone is check_quotas' (refused) case
            listed = ", ".join(f"{t} {v:g}" for t, v in parts)
            keys = ", ".join(_key(("tenants", t, "quota", field)) for t, _ in parts)
            out.append(f"{_key(('nodePools', pool))}: the tenants' nominal {field} quotas on this pool add up to "
                       f"{total:g} {unit} ({listed}) but it offers {offered:g} ({held}): Kueue guarantees each "
                       f"ClusterQueue its nominal quota and this pool's flavor has no Topology (no topology-aware "
                       f"admission), so it admits jobs no node can run (their pods stay Pending "
                       f"holding quota); lower {keys} to sum to at most {offered:g}"
                       + (" (lend the rest with gpuBorrowingLimit)" if field == "gpu" else "")
                       + ", or grow the pool (docs/tenants.md)")
    return out
