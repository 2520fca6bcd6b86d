"""Rules of the ``workload_identity`` section that read other keys of the stack config, and values derived from the whole
:class:`~oke_rdma.config.stack.StackConfig`. The section's models and single-key rules are in
``oke_rdma.config.workload_identity``, which imports nothing back."""

from __future__ import annotations


from .._base import _key
from ..stack import StackConfig
from ..workload_identity import Grant, valid_service_account_name, WorkloadBinding
from .object_storage import weights_grants, weights_service_account


def _other_compartments(cfg: StackConfig, grants: tuple[Grant, ...]) -> list[str]:
    seen: list[str] = []
    for g in grants:
        if not g.in_root and g.compartment_id != cfg.compartment_id and g.compartment_id not in seen:
            seen.append(g.compartment_id)  # type: ignore[arg-type]
    return seen


def service_account_grants(cfg: StackConfig, tenant: str, name: str) -> tuple[Grant, ...]:
    """The grants of service account ``name`` of tenant ``tenant``: its ``allow`` list, then, when it is the tenant's
    ``weights.serviceAccount``, the weights bucket's (:func:`~.object_storage.weights_grants`)."""
    own = cfg.tenants[tenant].service_accounts[name].grants
    return own + (weights_grants(cfg, tenant) if name == weights_service_account(cfg, tenant) else ())


def _tenant_grants(cfg: StackConfig, tenant: str) -> tuple[Grant, ...]:
    return tuple(g for name in cfg.tenants[tenant].service_accounts for g in service_account_grants(cfg, tenant, name))


def workload_bindings(cfg: StackConfig) -> list[WorkloadBinding]:
    """Every Workload Identity binding of the stack, tenant by tenant, service account by service account.

    Call only on a checked config (:func:`check_workload_identity` guarantees at most one other compartment per
    tenant namespace).
    """
    bindings = []
    for tenant, t in cfg.tenants.items():
        others = _other_compartments(cfg, _tenant_grants(cfg, tenant))
        for name in t.service_accounts:
            grants = service_account_grants(cfg, tenant, name)
            mine = _other_compartments(cfg, grants)
            bindings.append(WorkloadBinding(tenant, cfg.tenant_namespace(tenant), name, grants,
                                            others[0] if mine else None))
    return bindings


def check_workload_identity(cfg: StackConfig) -> list[str]:
    """Cross-field rules of Workload Identity and the IAM settings it and the KMS keys need.

    * bindings need an ``ENHANCED_CLUSTER`` (OKE: workload identities only on enhanced clusters);
    * service account names are Kubernetes names (DNS-1123 subdomains);
    * a service account lists at least one grant, unless it is the tenant's ``weights.serviceAccount``;
    * a tenant's grants (the weights bucket's included, :func:`service_account_grants`) reach at most one compartment
      besides the stack's: OKE maps a namespace to one compartment with a ``ClusterWorkloadMapping``;
    * a workload mapping needs ``iam.deployerGroupId`` (the group that creates it must be allowed to ``manage
      cluster-workload-mappings`` and to ``CLUSTER_WORKLOAD_COMPARTMENT_BIND`` in the mapped compartment);
    * with ``iam.createPolicies``, a grant ``in tenancy`` and an FSS ``kmsKeyId`` (its dynamic group) need
      ``iam.tenancyId`` (the policy or dynamic group is created in the root compartment).
    """
    problems: list[str] = []
    create = cfg.iam.create_policies
    tenancy_needed: list[str] = []
    for tenant, t in cfg.tenants.items():
        for name, sa in t.service_accounts.items():
            at = ("tenants", tenant, "serviceAccounts", name)
            if cfg.cluster.type != "ENHANCED_CLUSTER":
                problems.append(f"{_key(at)}: Workload Identity needs an enhanced cluster, but cluster.type is "
                                f"{cfg.cluster.type}; set oke-rdma:cluster.type to ENHANCED_CLUSTER or remove the "
                                f"binding")
            if not valid_service_account_name(name):
                problems.append(f"{_key(at)}: {name!r} is not a Kubernetes ServiceAccount name (lowercase letters, "
                                f"digits, '-' and '.', at most 253); rename it")
            elif name == "default":
                # Kubernetes docs "Service Accounts": every pod that names no ServiceAccount runs as its namespace's
                # "default"; a grant to it is a grant to every such pod (checked 2026-12-01).
                problems.append(f"{_key(at)}: 'default' is the ServiceAccount every pod of the namespace that names "
                                f"none runs as, so its grants would reach all of them; name a ServiceAccount of "
                                f"its own (e.g. trainer) and set it in the pods")
            if any(g.compartment_id is None for g in sa.grants):
                tenancy_needed.append(_key(at + ("allow",)))
            if not sa.grants and name != weights_service_account(cfg, tenant):
                problems.append(f"{_key(at + ('allow',))}: lists no grant; add at least one ('<verb> <resource-type> "
                                f"in <location>'), name it in tenants.{tenant}.weights.serviceAccount, or remove "
                                f"the service account")
        others = _other_compartments(cfg, _tenant_grants(cfg, tenant))
        at = ("tenants", tenant, "serviceAccounts")
        if len(others) > 1:
            problems.append(f"{_key(at)}: the grants of namespace {cfg.tenant_namespace(tenant)!r} reach "
                            f"{len(others)} compartments besides oke-rdma:compartmentId ({', '.join(others)}); OKE "
                            f"maps a namespace to one compartment (ClusterWorkloadMapping): keep one, or move the "
                            f"others to another tenant")
        elif others and cfg.iam.deployer_group_id is None:
            problems.append(f"{_key(('iam', 'deployerGroupId'))}: required because tenant {tenant!r} reaches "
                            f"compartment {others[0]} through a ClusterWorkloadMapping, which only a group allowed "
                            f"to bind workloads to that compartment may create; set the OCID of the group that runs "
                            f"pulumi up")
    if create and cfg.iam.tenancy_id is None:
        fss = cfg.storage.fss
        if fss.enabled and fss.kms_key_id:
            tenancy_needed.append(_key(("storage", "fss", "kmsKeyId")))
        if tenancy_needed:
            problems.append(f"{_key(('iam', 'tenancyId'))}: required with iam.createPolicies because "
                            f"{', '.join(tenancy_needed)} need a policy or dynamic group in the root compartment; "
                            f"set the tenancy OCID, or set iam.createPolicies: false")
    return problems
