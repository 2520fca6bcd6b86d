"""Rules of the ``tenants`` section that read other keys of the stack config, and values derived from the whole
:class:`~oke_rdma.config.stack.StackConfig`. The section's models and single-key rules are in
``oke_rdma.config.tenants``, which imports nothing back."""

from __future__ import annotations

from typing import Optional

from .._base import _key, RESERVED_NAMESPACES
from oke_rdma.schema import k8s_label_problem
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
        bad_name = k8s_label_problem(name)
        if bad_name:
            # Whatever namespace says, the name itself names the tenant's LocalQueue (and so every job's
            # kueue.x-k8s.io/queue-name label), ClusterQueue, admission policies, network wall, volume and the
            # okerdma.io/tenant label value: a namespace does not make it valid.
            problems.append(f"{_key(('tenants', name))}: the tenant name {bad_name.split(': ', 1)[0]} names its "
                            f"Kueue queues, admission policies, network wall and the okerdma.io/tenant label (and "
                            f"its namespace unless namespace is set): {bad_name.split(': ', 1)[1]}")
            continue
        if ns in reserved or ns in platform:
            problems.append(f"{_key(at)}: {ns!r} is a system or platform namespace; give the tenant its own")
        elif ns in seen:
            problems.append(_namespace_conflict(cfg, seen[ns], name, ns))
            continue  # the first claimant keeps the namespace: a third is compared with it
        seen[ns] = name
    return problems


def _namespace_conflict(cfg: StackConfig, first: str, second: str, ns: str) -> str:
    """Two tenants on namespace ``ns``: the line names the ``namespace`` key the user set (tenant ``second``'s
    when both set one), and how the other tenant got ``ns`` (its own ``namespace`` key, or its name)."""
    def how(tenant: str) -> str:
        if cfg.tenants[tenant].namespace is not None:
            return f"its {_key(('tenants', tenant, 'namespace'))}"
        return f"its name; tenants.{tenant} sets no namespace"

    blamed, other = (second, first) if cfg.tenants[second].namespace is not None else (first, second)
    return (f"{_key(('tenants', blamed, 'namespace'))}: {ns!r} is already the namespace of tenant {other!r} "
            f"({how(other)}); tenants must not share one: set tenants.{blamed}.namespace to a namespace of its own")


def pool_gpus(cfg: StackConfig) -> dict[str, Optional[int]]:
    """Pool name → the ``nvidia.com/gpu`` it can ever offer (:func:`oke_rdma.config.checks.fleet.pool_gpu_units`),
    for every RDMA pool and every shared GPU pool; None when the GPUs per node are unknown (a shape not in
    :data:`GPUS_PER_SHAPE` without ``gpusPerNode``)."""
    return {name: pool_gpu_units(cfg, name) for name in [*cfg.rdma_pools, *shared_pools(cfg)]}


def check_quotas(cfg: StackConfig) -> list[str]:
    """A tenant's GPU quota (nominal plus borrowing limit) must not exceed the GPUs its flavors — the RDMA pools, and
    the shared pools for a ``shared`` tenant (:func:`oke_rdma.config.checks.fleet.tenant_pools`) — can ever offer;
    Kueue would admit work no node can run. Each problem names the key that is wrong: ``quota.gpu`` when the nominal
    quota alone is too large, ``quota.gpuBorrowingLimit`` when only the borrowing limit takes it past the pools,
    ``nodePools.<pool>.gpusPerNode`` when a pool's GPU count is unknown; and every GPU pool the tenant's flavors do
    not cover is named with the reason (:func:`uncovered_pools`)."""
    problems: list[str] = []
    unchecked: dict[str, list[str]] = {}  # pool of unknown GPU count → the tenants whose quota it leaves unchecked
    capacity = pool_gpus(cfg)
    refused = [n for n in cfg.rdma_pools if cfg.node_pools[n].shape.startswith("VM.")
               or (cfg.node_pools[n].shape not in RDMA_SHAPES and not cfg.node_pools[n].allow_unlisted_rdma_shape)]
    if refused:
        return []  # the placement rules refuse these pools' shapes already; their capacity means nothing yet
    for name, tenant in cfg.tenants.items():
        q = tenant.quota
        gpus = f"{q.gpu} GPUs" + (f" (+{q.gpu_borrowing_limit} borrowable)" if q.gpu_borrowing_limit else "")
        if q.gpu + q.gpu_borrowing_limit == 0:
            continue
        # Kueue admits a workload only when every resource its pods request fits the ClusterQueue's quota (Kueue
        # docs "Cluster Queue", resource groups; checked 2026-12-01): with GPUs but 0 CPU or memory, no GPU job —
        # whose pods always request CPU and memory — is ever admitted.
        for field, value in (("cpu", q.cpu), ("memoryGb", q.memory_gb)):
            if value == 0:
                problems.append(f"{_key(('tenants', name, 'quota', field))}: 0 with {gpus}: Kueue admits a "
                                f"job only when its pods' CPU and memory requests fit the quota too, so no GPU job "
                                f"would ever run; set quota.{field} (e.g. what the tenant's GPU nodes offer)")
        if set(tenant.node_pools or ()) - set(capacity):
            continue  # a listed pool no tenant may use: check_tenant_pools says so on its own key, no follow-on claim
        pools = tenant_pools(cfg, name)
        # a pool with allowUnknownShape and no gpusPerNode is refused at its gpusPerNode key already (no follow-on)
        unknown = sorted(n for n in pools if capacity[n] is None and cfg.node_pools[n].gpus is None
                         and not cfg.node_pools[n].allow_unknown_shape)
        total = sum(capacity[n] or 0 for n in pools)
        if any(capacity[n] is None for n in pools if n not in unknown):
            continue  # a sharing setting (MIG profile) the sharing check refuses on its own key: no follow-on claim
        if unknown:
            for pool in unknown:  # one line per pool, naming every tenant it leaves unchecked (after the loop)
                unchecked.setdefault(pool, []).append(name)
        elif q.gpu + q.gpu_borrowing_limit > total:
            listed = ", ".join(f"{n}: {cfg.node_pools[n].size} × {cfg.node_pools[n].shape}" for n in pools)
            what = "RDMA and shared pools" if tenant.isolation == "shared" else "RDMA pools"
            left_out = uncovered_pools(cfg, name)
            why = f"; not counted: {'; '.join(left_out)}" if left_out else ""
            if q.gpu <= total:  # the nominal quota fits: the borrowing limit is what is wrong
                problems.append(f"{_key(('tenants', name, 'quota', 'gpuBorrowingLimit'))}: {q.gpu_borrowing_limit} "
                                f"borrowable on top of {q.gpu} nominal GPUs is more than the {total} GPUs the {what} "
                                f"can ever offer ({listed or 'none'}){why}; lower it to at most {total - q.gpu}")
            else:
                problems.append(f"{_key(('tenants', name, 'quota', 'gpu'))}: {gpus} is more than the {total} GPUs "
                                f"the {what} can ever offer ({listed or 'none'}){why}; lower it or grow the pools")
    for pool, names in unchecked.items():
        shape = cfg.node_pools[pool].shape
        quotas = ", ".join(f"tenants.{n}.quota.gpu" for n in names)
        problems.append(f"{_key(('nodePools', pool, 'gpusPerNode'))}: unset, and the GPUs per node of shape "
                        f"{shape}{did_you_mean_shape(shape)} are unknown, so the GPU quotas it serves ({quotas}) "
                        f"cannot be checked; set it")
    return problems


def uncovered_pools(cfg: StackConfig, tenant: str) -> list[str]:
    """``<pool> (<size> × <shape>): <why>`` for each GPU pool tenant ``tenant``'s Kueue flavors do not cover
    (:func:`oke_rdma.config.checks.fleet.tenant_pools`): a plain GPU pool (exclusive, not RDMA: no tenant's flavors
    cover it), a shared pool of a dedicated tenant, a pool another dedicated tenant lists as its own, a pool its own
    ``nodePools`` leaves out."""
    from ..platform import is_gpu_shape
    from .fleet import plain_gpu_pools

    t = cfg.tenants[tenant]
    covered = set(tenant_pools(cfg, tenant))
    plain, shared = set(plain_gpu_pools(cfg)), set(shared_pools(cfg))
    owners: dict[str, list[str]] = {}
    for other, o in cfg.tenants.items():
        if other != tenant and o.isolation == "dedicated":
            for pool in o.node_pools or ():
                owners.setdefault(pool, []).append(other)
    out = []
    for pool, p in cfg.node_pools.items():
        if pool in covered or not (p.gpus or is_gpu_shape(p.shape)):
            continue
        head = f"{pool} ({p.size} × {p.shape})"
        if pool in plain:
            out.append(f"{head} is a plain GPU pool (gpuSharing.mode {p.gpu_sharing.mode}, not RDMA), which no "
                       f"tenant's Kueue flavors cover: share it (nodePools.{pool}.gpuSharing.mode timeSlicing or mig) "
                       f"for shared tenants to use it")
        elif pool in shared and t.isolation == "dedicated":
            out.append(f"{head} is shared and tenant {tenant} is dedicated (set its isolation: shared to use it)")
        elif t.node_pools is not None and pool not in t.node_pools:
            out.append(f"{head} is not in tenants.{tenant}.nodePools")
        elif pool in owners:
            out.append(f"{head} is dedicated to tenant {', '.join(sorted(owners[pool]))} (its nodePools)")
    return out


def _pool_cpu_memory(cfg: StackConfig, pool: str) -> Optional[tuple[float, float]]:
    """(vCPUs, memory GB) all nodes of ``pool`` hold: ``size`` × the node's (a Flex pool's ``ocpus``/``memoryGb``, a
    fixed shape's row in :data:`oke_rdma.facts.shapes.SHAPES`; vCPUs = OCPUs × :func:`vcpus_per_ocpu`, from the
    shape's architecture in :data:`oke_rdma.facts.shapes.CPU_ARCH`); None when the shape's facts (OCPUs, memory or
    architecture) are not known."""
    from ...facts.shapes import SHAPES, vcpus_per_ocpu

    p = cfg.node_pools[pool]
    row = SHAPES.get(p.shape)
    ocpus = p.ocpus if p.ocpus is not None else (row.ocpus if row else None)
    memory = p.memory_gb if p.memory_gb is not None else (row.memory_gb if row else None)
    per_ocpu = vcpus_per_ocpu(p.shape)
    if not ocpus or not memory or per_ocpu is None:
        return None
    return p.size * ocpus * per_ocpu, p.size * memory


def quota_capacity_warnings(cfg: StackConfig) -> list[str]:
    """One line per tenant whose CPU or memory quota exceeds what all nodes of its pools
    (:func:`oke_rdma.config.checks.fleet.tenant_pools`) hold: Kueue would admit jobs no node can run (the GPU quota is
    refused for the same reason, :func:`check_quotas`). A pool whose shape facts are unknown makes no claim. Units:
    ``quota.cpu`` in vCPUs (Kubernetes CPUs), ``quota.memoryGb`` compared with the shapes' memory in GB as
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
            out.append(f"{_key(('tenants', name, 'quota', 'cpu'))}: {q.cpu} vCPUs is more than the {cpus:g} vCPUs all "
                       f"nodes of its pools hold ({listed}): Kueue would admit jobs no node can run; lower it")
        # compared as numbers, as new_stack derives the default quota from the shapes' memory: only a quota beyond
        # that (not the GiB/GB difference, which node overhead exceeds anyway) is a claim
        if q.memory_gb > memory_gb:
            out.append(f"{_key(('tenants', name, 'quota', 'memoryGb'))}: {q.memory_gb} GiB is more than all nodes "
                       f"of its pools hold ({listed}: {memory_gb:g} GB of memory as OCI lists it, so at most "
                       f"{memory_gb:g} GiB): Kueue would admit jobs no node can run; lower it")
    return out


def rdma_tenant_warnings(cfg: StackConfig) -> list[str]:
    """One line per ``rdma: true`` tenant none of whose pools (:func:`oke_rdma.config.checks.fleet.tenant_pools`) is
    an RDMA pool: its namespace keeps Pod Security ``privileged`` and its pods the hostNetwork and RDMA device rights
    (docs/tenants.md, "hostNetwork pods"), with no RDMA node to use them on, e.g. after its only pool became a MIG
    pool. Rights no workload needs are only risk: the line names ``tenants.<t>.rdma`` and both ways out."""
    out: list[str] = []
    rdma = set(cfg.rdma_pools)
    for name, tenant in cfg.tenants.items():
        if not tenant.rdma:
            continue
        pools = tenant_pools(cfg, name)
        if rdma & set(pools):
            continue
        which = f"its pools: {', '.join(pools)}" if pools else "it has no GPU pool"
        fix = (f"or list an RDMA pool ({', '.join(sorted(rdma))}) in tenants.{name}.nodePools" if rdma
               else "or add an RDMA pool")
        out.append(f"{_key(('tenants', name, 'rdma'))}: true, but none of the tenant's pools is an RDMA pool "
                   f"({which}): its namespace stays Pod Security privileged and its pods keep hostNetwork and RDMA "
                   f"device rights they cannot use; set it to false, {fix}")
    return out
