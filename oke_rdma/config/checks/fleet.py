"""Rules of GPU sharing, tenant isolation and the metering tariff that read several keys of the stack config, and the
values derived from them: which pools are shared, which pools each tenant's flavors cover, how many
``nvidia.com/gpu`` a pool offers. The models are in ``oke_rdma.config.fleet``, which imports nothing back."""

from __future__ import annotations

from typing import Optional

from .._base import _key
from ..fleet import MAX_TIME_SLICING_REPLICAS, MIG, MIG_GPU_OF_SHAPE, MIG_PROFILES, TIME_SLICING, mig_instances
from ..platform import is_gpu_shape
from ..stack import StackConfig


def check_fleet(cfg: StackConfig) -> list[str]:
    """GPU sharing, isolation and tariff rules.

    :returns: one ``oke-rdma:<key path>: <problem>; <fix>`` line per problem: sharing on a pool without GPUs or on
        an RDMA pool, ``replicas`` or ``profile`` missing or given for the wrong mode, a MIG profile the pool's GPU
        does not offer (or a GPU without MIG), a price for a pool that does not exist.
    """
    problems: list[str] = []
    for name, pool in cfg.node_pools.items():
        sharing = pool.gpu_sharing
        at = ("nodePools", name, "gpuSharing")
        if sharing.replicas is not None and sharing.mode != TIME_SLICING:
            problems.append(f"{_key(at + ('replicas',))}: only for mode timeSlicing (mode is {sharing.mode}); "
                            f"remove it or set mode: timeSlicing")
        if sharing.profile is not None and sharing.mode != MIG:
            problems.append(f"{_key(at + ('profile',))}: only for mode mig (mode is {sharing.mode}); remove it or "
                            f"set mode: mig")
        if not sharing.shared:
            continue
        if pool.rdma:
            problems.append(f"{_key(at + ('mode',))}: RDMA pools stay exclusive (a training rank owns its node's GPUs "
                            f"and RDMA NICs); remove gpuSharing or share a separate non-RDMA GPU pool")
            continue
        if not pool.gpus:
            # gpusPerNode helps time-slicing on a shape oke-rdma does not know; MIG needs a GPU it knows, so there
            # setting it would change nothing
            hint = " (or gpusPerNode is unset)" if pool.gpus is None and sharing.mode == TIME_SLICING else ""
            problems.append(f"{_key(at + ('mode',))}: {pool.shape} has no NVIDIA GPUs to share{hint}; remove "
                            f"gpuSharing or pick a GPU shape"
                            + (" with MIG (A100/H100/H200)" if sharing.mode == MIG else ""))
            continue
        if not cfg.platform.gpu_operator.device_plugin:
            problems.append(f"{_key(at + ('mode',))}: GPU sharing is done by the GPU Operator's device plugin, which "
                            f"is off (platform.gpuOperator.enabled or its values.devicePlugin.enabled is false); turn it "
                            f"on or remove gpuSharing")
        elif sharing.mode == MIG and _mig_manager_off(cfg):
            problems.append(f"{_key(at + ('mode',))}: MIG needs the GPU Operator's MIG manager, which "
                            f"platform.gpuOperator.values.migManager.enabled turns off; turn it on or use timeSlicing")
        if sharing.mode == TIME_SLICING and sharing.replicas is None:
            problems.append(f"{_key(at + ('replicas',))}: timeSlicing needs the number of pods per GPU; set replicas "
                            f"from 2 to {MAX_TIME_SLICING_REPLICAS}")
        if sharing.mode == MIG:
            gpu = MIG_GPU_OF_SHAPE.get(pool.shape)
            if gpu is None:
                capable = ", ".join(f"{s} ({g})" for s, g in MIG_GPU_OF_SHAPE.items())
                problems.append(f"{_key(at + ('mode',))}: {pool.shape} has no MIG-capable GPU oke-rdma knows (MIG "
                                f"runs on A100/H100/H200-class GPUs: {capable}); use timeSlicing or one of those")
            elif sharing.profile not in MIG_PROFILES[gpu]:
                got = "is missing" if sharing.profile is None else f"{sharing.profile!r} is not a MIG profile of the {gpu}"
                problems.append(f"{_key(at + ('profile',))}: {got}; pick one of {', '.join(MIG_PROFILES[gpu])}")
    for pool in cfg.metering.pool_prices:
        if pool not in cfg.node_pools:
            problems.append(f"{_key(('metering', 'poolPrices', pool))}: there is no node pool {pool!r}; use one of "
                            f"{', '.join(sorted(cfg.node_pools))}")
    return problems


def _mig_manager_off(cfg: StackConfig) -> bool:
    manager = cfg.platform.gpu_operator.values.get("migManager")
    return isinstance(manager, dict) and manager.get("enabled") is False


def shared_pools(cfg: StackConfig) -> list[str]:
    """Node pools whose GPUs are shared (time-sliced or MIG), in config order. Declared by ``gpuSharing`` and held
    by effect: :func:`oke_rdma.config.checks.gpu_sharing.check_gpu_sharing_effect` refuses a pool declared exclusive
    whose device plugin or MIG manager would share its GPUs, or whose configuration cannot be read."""
    return [n for n, p in cfg.node_pools.items() if p.gpu_sharing.shared]


def plain_gpu_pools(cfg: StackConfig) -> list[str]:
    """Node pools with NVIDIA GPUs (known or unknown count: a ``VM.GPU*``/``BM.GPU*`` shape) that are neither RDMA
    nor shared, in config order: no tenant's Kueue flavors cover them (:func:`tenant_pools`) and the guard refuses a
    tenant's GPU pod there, so only workloads outside the tenants (the cluster administrator's) can use them."""
    return [n for n, p in cfg.node_pools.items()
            if not p.rdma and not p.gpu_sharing.shared and (p.gpus or is_gpu_shape(p.shape))]


def tenant_pools(cfg: StackConfig, tenant: str) -> list[str]:
    """The pools tenant ``tenant``'s Kueue flavors cover, in the order its quota fills them: for a ``shared`` tenant
    the shared pools first, then the RDMA pools; for a ``dedicated`` tenant the RDMA pools only (never a shared
    pool). With ``tenants.<t>.nodePools`` only the pools listed there; without it, every such pool that no other
    ``dedicated`` tenant lists in its ``nodePools`` (those are that tenant's alone).

    :raises KeyError: ``tenant`` is not a tenant of ``cfg``."""
    return list(tenants_pools(cfg)[tenant])


#: The last configs' :func:`tenants_pools` by ``id``, each kept with its config (so its ``id`` is not reused while
#: it is here; the config model is frozen, so the answer cannot go stale).
_TENANTS_POOLS: dict[int, tuple[StackConfig, dict[str, list[str]]]] = {}
_TENANTS_POOLS_KEPT = 4


def tenants_pools(cfg: StackConfig) -> dict[str, list[str]]:
    """:func:`tenant_pools` of every tenant, tenant → pools, computed once per config in one pass over the tenants
    (asked for each tenant on its own, the other dedicated tenants' lists made it quadratic in tenants: 40 000 steps
    per question on a 200-tenant stack, and the program asks for every tenant several times). Do not change the
    lists returned."""
    kept = _TENANTS_POOLS.get(id(cfg))
    if kept is not None and kept[0] is cfg:
        return kept[1]
    rdma, shared = list(cfg.rdma_pools), shared_pools(cfg)
    listed_by: dict[str, set[str]] = {}  # pool → the dedicated tenants whose nodePools list it
    for name, other in cfg.tenants.items():
        if other.isolation == "dedicated":
            for pool in other.node_pools or ():
                listed_by.setdefault(pool, set()).add(name)
    found: dict[str, list[str]] = {}
    for name, t in cfg.tenants.items():
        eligible = shared + rdma if t.isolation == "shared" else rdma
        if t.node_pools is not None:
            found[name] = [p for p in eligible if p in t.node_pools]
        else:
            found[name] = [p for p in eligible if not listed_by.get(p, set()) - {name}]
    if len(_TENANTS_POOLS) >= _TENANTS_POOLS_KEPT:
        _TENANTS_POOLS.pop(next(iter(_TENANTS_POOLS)))
    _TENANTS_POOLS[id(cfg)] = (cfg, found)
    return found


def check_tenant_pools(cfg: StackConfig) -> list[str]:
    """``tenants.<t>.nodePools``: each entry an RDMA pool or a shared GPU pool of the stack, listed once; never a
    shared pool for a ``dedicated`` tenant; a pool two ``dedicated`` tenants both list is refused (each one's list is
    its alone)."""
    problems: list[str] = []
    gpu_pools = [*cfg.rdma_pools, *shared_pools(cfg)]
    owners: dict[str, tuple[str, int]] = {}  # pool → (the dedicated tenant listing it first, its index there)
    for name, tenant in cfg.tenants.items():
        seen: set[str] = set()
        for i, pool in enumerate(tenant.node_pools or ()):
            at = _key(("tenants", name, "nodePools", i))
            if pool in plain_gpu_pools(cfg):
                problems.append(f"{at}: {pool!r} is a plain GPU pool (exclusive, not RDMA), which no tenant's Kueue "
                                f"flavors cover; share it again (nodePools.{pool}.gpuSharing.mode: timeSlicing or mig) "
                                f"or remove it from this list")
            elif pool not in gpu_pools:
                problems.append(f"{at}: {pool!r} is not an RDMA or shared GPU pool of nodePools; name one of "
                                f"{', '.join(gpu_pools) or '(none)'} or remove it")
            elif pool in seen:
                problems.append(f"{at}: {pool!r} is listed twice; remove one")
            elif tenant.isolation == "dedicated" and pool in shared_pools(cfg):
                problems.append(f"{at}: {pool!r} is a shared (time-sliced or MIG) pool and the tenant is dedicated; "
                                f"remove it or set tenants.{name}.isolation: shared")
            elif tenant.isolation == "dedicated" and pool in owners:
                owner, j = owners[pool]
                problems.append(f"{at}: pool {pool!r} is already dedicated to tenant {owner!r} "
                                f"({_key(('tenants', owner, 'nodePools', j))}); a dedicated tenant's pools are its "
                                f"alone: give each its own pool, or remove it from one of the two lists")
            else:
                if tenant.isolation == "dedicated":
                    owners[pool] = (name, i)
            seen.add(pool)
    return problems


def pool_gpu_units(cfg: StackConfig, pool: str) -> Optional[int]:
    """The ``nvidia.com/gpu`` a pool can ever offer: ``size`` × GPUs per node × (time-slicing replicas, or MIG
    instances per GPU, or 1); None when the GPUs per node or the MIG profile are unknown."""
    p = cfg.node_pools[pool]
    if p.gpus is None:
        return None
    per_gpu: Optional[int] = 1
    if p.gpu_sharing.mode == TIME_SLICING:
        per_gpu = p.gpu_sharing.replicas
    elif p.gpu_sharing.mode == MIG:
        per_gpu = mig_instances(p.shape, p.gpu_sharing.profile or "")
    return None if per_gpu is None else p.size * p.gpus * per_gpu
