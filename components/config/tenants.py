"""Tenants (a team's namespace) and IAM config, and the tenant namespace rules."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from pydantic import Field, field_validator

from ._base import _K8S_NAME_RE, _k8s_name, _key, _Model, _ocid
from .platform import Platform
from .storage import SharedStorage
from .workload_identity import ServiceAccount

if TYPE_CHECKING:
    from .stack import StackConfig

class Tenant(_Model):
    """A team's namespace. ``rdma: true`` allows RDMA pods (Pod Security ``privileged``), else ``restricted``.

    ``sharedStorage`` (see :class:`SharedStorage`): present (even as ``{}``) = the tenant gets a claim on the
    shared FSS volume in its namespace.
    """

    namespace: Optional[str] = None
    rdma: bool = False
    shared_storage: Optional[SharedStorage] = None
    #: Workload Identity: service account name → its grants (see ``components.config.workload_identity``).
    service_accounts: dict[str, ServiceAccount] = Field(default_factory=dict)

    _ns = field_validator("namespace")(lambda v: None if v is None else _k8s_name(v))


def _compartment_or_tenancy(v: str) -> str:
    if not re.match(r"^ocid1\.(compartment|tenancy)\.oc[0-9]+\.[a-z0-9-]*\.[a-z0-9]+$", v):
        raise ValueError(f"must be a compartment or tenancy OCID (ocid1.compartment.oc1..<id>), got {v!r}")
    return v


class Iam(_Model):
    """IAM: ``createPolicies: false`` creates nothing and outputs the statements for an administrator.

    ``tenancyId``: the tenancy OCID, where policies for ``in tenancy`` grants and the FSS key's dynamic group live.
    ``deployerGroupId``: OCID of the IAM group that runs ``pulumi up``; named in the statements that let it create
    ClusterWorkloadMappings. ``vaultCompartmentId``: the compartment holding the Vault keys of ``cluster.kmsKeyId``
    and ``storage.fss.kmsKeyId`` (default: ``compartmentId``); their policies are attached there.
    """

    create_policies: bool = True
    tenancy_id: Optional[str] = None
    deployer_group_id: Optional[str] = None
    vault_compartment_id: Optional[str] = None

    _tenancy = field_validator("tenancy_id")(lambda v: None if v is None else _ocid("tenancy", v))
    _group = field_validator("deployer_group_id")(lambda v: None if v is None else _ocid("group", v))
    _vault = field_validator("vault_compartment_id")(lambda v: None if v is None else _compartment_or_tenancy(v))


def check_tenants(cfg: StackConfig) -> list[str]:
    problems: list[str] = []
    reserved = {"default", "kube-system", "kube-public", "kube-node-lease"}
    platform = {getattr(cfg.platform, f).namespace for f in Platform.model_fields}
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
