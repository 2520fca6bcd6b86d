"""Tenants (a team's namespace) and IAM config, and the tenant namespace rules."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from pydantic import Field, field_validator

from ._base import _K8S_NAME_RE, RESERVED_NAMESPACES, _k8s_name, _key, _Model, _ocid
from .compute import RDMA_SHAPES
from .platform import platform_namespaces
from .storage import SharedStorage
from .workload_identity import ServiceAccount

if TYPE_CHECKING:
    from .stack import StackConfig

class TenantQuota(_Model):
    """A tenant's nominal Kueue quota: ``gpu`` (nvidia.com/gpu), ``cpu`` (cores), ``memoryGb`` (GiB), and
    ``gpuBorrowingLimit`` (GPUs it may borrow from idle quota of the other tenants' ClusterQueues in the cohort).

    The namespace's ResourceQuota caps ``requests.nvidia.com/gpu`` at ``gpu + gpuBorrowingLimit``.
    """

    gpu: int = Field(default=0, ge=0, description="Nominal `nvidia.com/gpu` quota of the tenant's ClusterQueue.")
    cpu: int = Field(default=0, ge=0, description="Nominal CPU quota, cores.")
    memory_gb: int = Field(default=0, ge=0, description="Nominal memory quota, GiB.")
    gpu_borrowing_limit: int = Field(default=0, ge=0, description=(
        "GPUs the tenant may borrow from idle quota in the cohort; the namespace's ResourceQuota allows `gpu + "
        "gpuBorrowingLimit`."))


class Tenant(_Model):
    """A team's namespace. ``rdma: true`` allows RDMA pods (Pod Security ``privileged``), else ``restricted``.

    ``sharedStorage`` (see :class:`SharedStorage`): present (even as ``{}``) = the tenant gets a claim on the
    shared FSS volume in its namespace.
    ``quota``: its Kueue quota (:class:`TenantQuota`); without it the tenant's ClusterQueue has zero nominal quota
    and its namespace may request no GPU.
    """

    namespace: Optional[str] = Field(None, description=(
        "The tenant's namespace (default: the tenant's name); not a system or platform namespace, not shared."))
    rdma: bool = Field(False, description="Allow RDMA pods (Pod Security `privileged`); otherwise `restricted`.")
    shared_storage: Optional[SharedStorage] = Field(None, description=(
        "Present (even `{}`): the tenant gets the claim `fss-shared` on the shared FSS volume; needs "
        "`storage.fss.enabled`."))
    #: Workload Identity: service account name → its grants (see ``oke_rdma.config.workload_identity``).
    service_accounts: dict[str, ServiceAccount] = Field(default_factory=dict, description=(
        "Workload Identity ServiceAccounts in the tenant's namespace, by name."))
    quota: TenantQuota = Field(TenantQuota(), description="Kueue quotas of the tenant's ClusterQueue.")

    _ns = field_validator("namespace")(lambda v: None if v is None else _k8s_name(v))


class Iam(_Model):
    """IAM: ``createPolicies: false`` creates nothing and outputs the statements for an administrator.

    ``tenancyId``: the tenancy OCID, where policies for ``in tenancy`` grants and the FSS key's dynamic group live.
    ``deployerGroupId``: OCID of the IAM group that runs ``pulumi up``; named in the statements that let it create
    ClusterWorkloadMappings. ``vaultCompartmentId``: the compartment holding the Vault keys of ``cluster.kmsKeyId``
    and ``storage.fss.kmsKeyId`` (default: ``compartmentId``); their policies are attached there.
    """

    create_policies: bool = Field(True, description=(
        "`false`: create no IAM resource, output the statements for an administrator instead."))
    tenancy_id: Optional[str] = Field(None, description=(
        "Tenancy OCID; required (with `createPolicies`) by grants `in tenancy` and by `storage.fss.kmsKeyId` "
        "(dynamic group)."))
    deployer_group_id: Optional[str] = Field(None, description=(
        "OCID of the IAM group that runs `pulumi up` (`oci iam group list`); required when a tenant's grants "
        "reach another compartment (it must create the ClusterWorkloadMapping)."))
    vault_compartment_id: Optional[str] = Field(None, description=(
        "Compartment of the Vault keys (default: `compartmentId`); their policies are attached there."))

    _tenancy = field_validator("tenancy_id")(lambda v: None if v is None else _ocid("tenancy", v))
    _group = field_validator("deployer_group_id")(lambda v: None if v is None else _ocid("group", v))
    # The tenancy is the root compartment: its OCID names a compartment too (as for compartmentId).
    _vault = field_validator("vault_compartment_id")(
        lambda v: None if v is None else _ocid("compartment", v, "tenancy"))


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
