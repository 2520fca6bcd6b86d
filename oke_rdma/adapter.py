"""The one place the stack config (:class:`oke_rdma.config.StackConfig`) becomes component arguments.

Each ``*_args`` function takes the parsed stack config plus the outputs of other components the component needs,
and returns its ``*Args`` holding only the slice it uses. Programs that do not use this project's stack config build
the ``*Args`` themselves (see ``examples/compose/``).
"""

from __future__ import annotations

from typing import Sequence

import pulumi

from oke_rdma.config import StackConfig
from oke_rdma.platform import PlatformArgs, TenantNamespace


def tenant_namespaces(cfg: StackConfig) -> dict[str, TenantNamespace]:
    """Tenant name → its namespace, Pod Security need (``rdma``) and GPU quota (nominal plus borrowing limit)."""
    return {name: TenantNamespace(namespace=cfg.tenant_namespace(name), rdma=t.rdma,
                                  gpu_quota=t.quota.gpu + t.quota.gpu_borrowing_limit)
            for name, t in cfg.tenants.items()}


def platform_args(cfg: StackConfig, provider: pulumi.ProviderResource,
                  depends_on: Sequence[pulumi.Resource] = ()) -> PlatformArgs:
    """:class:`~oke_rdma.platform.PlatformArgs` from ``platform``, ``tenants`` and ``namePrefix``."""
    return PlatformArgs(provider=provider, name_prefix=cfg.name_prefix, platform=cfg.platform,
                        tenants=tenant_namespaces(cfg), depends_on=depends_on)
