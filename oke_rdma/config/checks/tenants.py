"""Rules of the ``tenants`` section that read other keys of the stack config, and values derived from the whole
:class:`~oke_rdma.config.stack.StackConfig`. The section's models and single-key rules are in
``oke_rdma.config.tenants``, which imports nothing back."""

from __future__ import annotations

from typing import Optional

from .._base import _K8S_NAME_RE, _key, RESERVED_NAMESPACES
from ..compute import RDMA_SHAPES
from ..stack import StackConfig
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
    """RDMA pool name → the GPUs it can ever offer (``size`` × GPUs per node); None when the GPUs per node are unknown
    (a shape not in :data:`GPUS_PER_SHAPE` without ``gpusPerNode``)."""
    return {name: (None if pool.gpus is None else pool.size * pool.gpus) for name, pool in cfg.rdma_pools.items()}


def check_quotas(cfg: StackConfig) -> list[str]:
    """A tenant's GPU quota (nominal plus borrowing limit) must not exceed the GPUs its flavors — every RDMA pool's
    ResourceFlavor — can ever offer; Kueue would admit work no node can run."""
    problems: list[str] = []
    capacity = pool_gpus(cfg)
    refused = [n for n in capacity if cfg.node_pools[n].shape.startswith("VM.")
               or (cfg.node_pools[n].shape not in RDMA_SHAPES and not cfg.node_pools[n].allow_unlisted_rdma_shape)]
    if refused:
        return []  # the placement rules refuse these pools' shapes already; their capacity means nothing yet
    unknown = sorted(n for n, g in capacity.items() if g is None)
    total = sum(g for g in capacity.values() if g is not None)
    for name, tenant in cfg.tenants.items():
        q = tenant.quota
        at = _key(("tenants", name, "quota", "gpu"))
        if q.gpu + q.gpu_borrowing_limit == 0:
            continue
        if unknown:
            problems.append(f"{at}: cannot check the quota, the GPUs per node of pool(s) {unknown} "
                            f"(shape {cfg.node_pools[unknown[0]].shape}) are unknown; set "
                            f"oke-rdma:nodePools.{unknown[0]}.gpusPerNode")
        elif q.gpu + q.gpu_borrowing_limit > total:
            pools = ", ".join(f"{n}: {cfg.node_pools[n].size} × {cfg.node_pools[n].shape}" for n in capacity)
            problems.append(f"{at}: {q.gpu} GPUs (+{q.gpu_borrowing_limit} borrowable) is more than the {total} "
                            f"GPUs the RDMA pools can ever offer ({pools or 'no RDMA pool'}); lower it or grow "
                            f"the pools")
    return problems
