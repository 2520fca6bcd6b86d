"""Tenants (a team's namespace) and IAM config, and the tenant namespace rules."""

from __future__ import annotations

from typing import Annotated, Literal, Optional

from pydantic import Field, Strict, field_validator

from ._base import StrList, _k8s_name, _Model, _ocid
from .access import Member
from .object_storage import TenantWeights
from .storage import SharedStorage
from .workload_identity import ServiceAccount


class TenantQuota(_Model):
    """A tenant's nominal Kueue quota: ``gpu`` (nvidia.com/gpu), ``cpu`` (vCPUs), ``memoryGb`` (GiB), and
    ``gpuBorrowingLimit`` (GPUs it may borrow from idle quota of the other tenants' ClusterQueues in the cohort).

    The namespace's ResourceQuota caps ``requests.nvidia.com/gpu`` at ``gpu + gpuBorrowingLimit``.
    """

    gpu: int = Field(default=0, ge=0, description="Nominal `nvidia.com/gpu` quota of the tenant's ClusterQueue.")
    cpu: int = Field(default=0, ge=0, description="Nominal CPU quota in Kubernetes CPUs (vCPUs: 2 per OCPU on x86 shapes, 1 on Arm).")
    memory_gb: int = Field(default=0, ge=0, description="Nominal memory quota, GiB.")
    gpu_borrowing_limit: int = Field(default=0, ge=0, description=(
        "GPUs the tenant may borrow from idle quota in the cohort; the namespace's ResourceQuota allows `gpu + "
        "gpuBorrowingLimit`."))


class TenantNetwork(_Model):
    """The tenant's network wall (enforced by Cilium, ``platform.cilium``): ``allowFrom``, the other tenants whose
    pods may open connections to this tenant's pods. Every other tenant's pods are denied; the platform's namespaces
    keep their access (docs/tenants.md, "Isolation")."""

    allow_from: StrList = Field((), description=(
        "Tenants (names under `tenants`) whose pods may connect to this tenant's pods; every other tenant is denied."))


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
    weights: Optional[TenantWeights] = Field(None, description=(
        "Access to the weights bucket (`storage.objectStorage`) for one of `serviceAccounts`: `{serviceAccount, "
        "access: read | readWrite}`."))
    quota: TenantQuota = Field(TenantQuota(), description="Kueue quotas of the tenant's ClusterQueue.")
    network: TenantNetwork = Field(TenantNetwork(), description=(
        "Network wall: `allowFrom` lists the tenants allowed in; all others are denied (needs `platform.cilium`)."))
    isolation: Literal["dedicated", "shared"] = Field("dedicated", description=(
        "`dedicated` (default): never scheduled on a shared (time-sliced or MIG) pool, and the pools it lists in "
        "`nodePools` are its alone; `shared`: may be (docs/sharing.md, docs/tenants.md)."))
    node_pools: Optional[StrList] = Field(None, description=(
        "The GPU pools (RDMA or shared) its Kueue flavors cover (default: every pool its isolation allows that no "
        "`dedicated` tenant lists). A `dedicated` tenant's list is its own: no other tenant's flavors cover those "
        "pools."))
    members: Annotated[tuple[Member, ...], Strict(False)] = Field((), description=(
        "The team's people: `{iamGroupId, role}` or `{oidcGroup, role}`, role `viewer` | `developer` | `admin`, "
        "bound by RoleBindings in the tenant's namespace only (docs/tenants.md)."))

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
