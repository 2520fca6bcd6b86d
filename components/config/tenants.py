"""Tenants (a team's namespace) and IAM config, and the tenant namespace rules."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from pydantic import field_validator

from ._base import _K8S_NAME_RE, _k8s_name, _key, _Model
from .platform import Platform
from .storage import SharedStorage

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

    _ns = field_validator("namespace")(lambda v: None if v is None else _k8s_name(v))


class Iam(_Model):
    """IAM: ``createPolicies: false`` creates nothing and outputs the statements for an administrator."""

    create_policies: bool = True


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
