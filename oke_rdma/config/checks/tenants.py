"""Rules of the ``tenants`` section that read other keys of the stack config, and values derived from the whole
:class:`~oke_rdma.config.stack.StackConfig`. The section's models and single-key rules are in
``oke_rdma.config.tenants``, which imports nothing back."""

from __future__ import annotations

from typing import Optional

from .._base import _K8S_NAME_RE, _key, RESERVED_NAMESPACES
from ...facts.shapes import did_you_mean_shape
from ..compute import RDMA_SHAPES
from ..stack import StackConfig
from .fleet import pool_gpu_units, shared_pools, tenant_pools
from .platform import platform_namespaces


def check_tenants(cfg: StackConfig) -> list[str]:
    problems: list[str] = []
    reserved = RESERVED_NAMESPACES
    platform = set(platform_namespaces(cfg))
    seen: dict[str, str] = {}
    for name in cfg.tenants:
        ns = cfg.tenant_namespace(name)
        at = ("tenants", name, "namespace")
        if not _K8S_NAME_RE.match(ns):
            problems.append(f"{_key(('tenants', name))}: the tenant name is used as its namespace and must be a "
                            f"Kubernetes name; rename it or set namespace")
        elif ns in reserved or ns in platform:
            problems.append(f"{_key(at)}: {ns!r} is a system or platform namespace; give the tenant its own")
        elif ns in seen:
            problems.append(f"{_key(at)}: {ns!r} is already the namespace of tenant {seen[ns]!r}; "
                            f"tenants must not share")
        seen[ns] = name
    return problems


def pool_gpus(cfg: StackConfig) -> dict[str, Optional[int]]:
    """Pool name → the ``nvidia.com/gpu`` it can ever offer (:func:`oke_rdma.config.checks.fleet.pool_gpu_units`),
    for every RDMA pool and every shared GPU pool; None when the GPUs per node are unknown (a shape not in
    :data:`GPUS_PER_SHAPE` without ``gpusPerNode``)."""
    return {name: pool_gpu_units(cfg, name) for name in [*cfg.rdma_pools, *shared_pools(cfg)]}


def check_quotas(cfg: StackConfig) -> list[str]:
    """A tenant's GPU quota (nominal plus borrowing limit) must not exceed the GPUs its flavors — the RDMA pools, and
    the shared pools for a ``shared`` tenant (:func:`oke_rdma.config.checks.fleet.tenant_pools`) — can ever offer;
    Kueue would admit work no node can run."""
    problems: list[str] = []
    capacity = pool_gpus(cfg)
    refused = [n for n in cfg.rdma_pools if cfg.node_pools[n].shape.startswith("VM.")
               or (cfg.node_pools[n].shape not in RDMA_SHAPES and not cfg.node_pools[n].allow_unlisted_rdma_shape)]
    if refused:
        return []  # the placement rules refuse these pools' shapes already; their capacity means nothing yet
    for name, tenant in cfg.tenants.items():
        q = tenant.quota
        at = _key(("tenants", name, "quota", "gpu"))
        if q.gpu + q.gpu_borrowing_limit == 0:
            continue
        # Kueue admits a workload only when every resource its pods request fits the ClusterQueue's quota (Kueue
        # docs "Cluster Queue", resource groups; checked 2026-12-01): with GPUs but 0 CPU or memory, no GPU job —
        # whose pods always request CPU and memory — is ever admitted.
        for field, value in (("cpu", q.cpu), ("memoryGb", q.memory_gb)):
            if value == 0:
                problems.append(f"{_key(('tenants', name, 'quota', field))}: 0 with {q.gpu} GPUs: Kueue admits a "
                                f"job only when its pods' CPU and memory requests fit the quota too, so no GPU job "
                                f"would ever run; set quota.{field} (e.g. what the tenant's GPU nodes offer)")
        if set(tenant.node_pools or ()) - set(capacity):
            continue  # a listed pool no tenant may use: check_tenant_pools says so on its own key, no follow-on claim
        pools = tenant_pools(cfg, name)
        unknown = sorted(n for n in pools if capacity[n] is None and cfg.node_pools[n].gpus is None)
        total = sum(capacity[n] or 0 for n in pools)
        if any(capacity[n] is None for n in pools if n not in unknown):
            continue  # a sharing setting (MIG profile) the sharing check refuses on its own key: no follow-on claim
        if unknown:
            shape = cfg.node_pools[unknown[0]].shape
            problems.append(f"{at}: cannot check the quota, the GPUs per node of pool(s) {unknown} "
                            f"(shape {shape}{did_you_mean_shape(shape)}) are unknown; set "
                            + _key(("nodePools", unknown[0], "gpusPerNode")))
        elif q.gpu + q.gpu_borrowing_limit > total:
            listed = ", ".join(f"{n}: {cfg.node_pools[n].size} × {cfg.node_pools[n].shape}" for n in pools)
            what = "RDMA and shared pools" if tenant.isolation == "shared" else "RDMA pools"
            problems.append(f"{at}: {q.gpu} GPUs (+{q.gpu_borrowing_limit} borrowable) is more than the {total} "
                            f"GPUs the {what} can ever offer ({listed or 'no such pool'}); lower it or grow "
                            f"the pools")
    return problems


def _pool_cpu_memory(cfg: StackConfig, pool: str) -> Optional[tuple[float, float]]:
    """(vCPUs, memory GB) all nodes of ``pool`` hold: ``size`` × the node's (a Flex pool's ``ocpus``/``memoryGb``, a
    fixed shape's row in :data:`oke_rdma.facts.shapes.SHAPES`; vCPUs = OCPUs × :func:`vcpus_per_ocpu`); None when
    the shape's facts are not known."""
    from ...facts.shapes import SHAPES, vcpus_per_ocpu

    p = cfg.node_pools[pool]
    row = SHAPES.get(p.shape)
    ocpus = p.ocpus if p.ocpus is not None else (row.ocpus if row else None)
    memory = p.memory_gb if p.memory_gb is not None else (row.memory_gb if row else None)
    if not ocpus or not memory:
        return None
    return p.size * ocpus * vcpus_per_ocpu(p.shape), p.size * memory


def quota_capacity_warnings(cfg: StackConfig) -> list[str]:
    """One line per tenant whose CPU or memory quota exceeds what all nodes of its pools
    (:func:`oke_rdma.config.checks.fleet.tenant_pools`) hold: Kueue would admit jobs no node can run (the GPU quota is
    refused for the same reason, :func:`check_quotas`). A pool whose shape facts are unknown makes no claim. Units:
    ``quota.cpu`` in cores (Kubernetes CPUs = vCPUs), ``quota.memoryGb`` compared with the shapes' memory in GB as
    numbers (new_stack's default quota is that number)."""
    out: list[str] = []
    for name, tenant in cfg.tenants.items():
        pools = tenant_pools(cfg, name)
        sizes = [_pool_cpu_memory(cfg, n) for n in pools]
        if not pools or any(s is None for s in sizes):
            continue
        cpus = sum(s[0] for s in sizes)
        memory_gb = sum(s[1] for s in sizes)
        listed = ", ".join(f"{n}: {cfg.node_pools[n].size} × {cfg.node_pools[n].shape}" for n in pools)
        q = tenant.quota
        if q.cpu > cpus:
            out.append(f"{_key(('tenants', name, 'quota', 'cpu'))}: {q.cpu} cores is more than the {cpus:g} vCPUs all "
                       f"nodes of its pools hold ({listed}): Kueue would admit jobs no node can run; lower it")
        # compared as numbers, as new_stack derives the default quota from the shapes' memory: only a quota beyond
        # that (not the GiB/GB difference, which node overhead exceeds anyway) is a claim
        if q.memory_gb > memory_gb:
            out.append(f"{_key(('tenants', name, 'quota', 'memoryGb'))}: {q.memory_gb} GiB is more than the "
                       f"{memory_gb:g} GB all nodes of its pools hold ({listed}): Kueue would admit jobs no node can "
                       f"run; lower it")
    return out
