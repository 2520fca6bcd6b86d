"""The one place the stack config (:class:`oke_rdma.config.StackConfig`) becomes component arguments.

Each ``*_args`` function takes the parsed stack config plus the outputs of other components the component needs,
and returns its ``*Args`` holding only the slice it uses. Programs that do not use this project's stack config build
the ``*Args`` themselves (see ``examples/compose/``).
"""

from __future__ import annotations

from typing import Sequence

import pulumi

from oke_rdma.config import StackConfig
from oke_rdma.addons import merge_values
from oke_rdma.guard import tenant_labels
from oke_rdma.platform import PlatformArgs, TenantNamespace
from oke_rdma.sharing import device_plugin_configs


def tenant_namespaces(cfg: StackConfig) -> dict[str, TenantNamespace]:
    """Tenant name → its namespace, Pod Security need (``rdma``), GPU quota (nominal plus borrowing limit) and the
    fleet labels (:data:`oke_rdma.guard.TENANT_LABEL` for metering, ``okerdma.io/rdma`` and
    ``okerdma.io/isolation`` for the in-cluster guard)."""
    return {name: TenantNamespace(namespace=cfg.tenant_namespace(name), rdma=t.rdma,
                                  gpu_quota=t.quota.gpu + t.quota.gpu_borrowing_limit,
                                  labels=tenant_labels(name, t.rdma, t.isolation))
            for name, t in cfg.tenants.items()}


def platform_config(cfg: StackConfig):
    """``cfg.platform`` with the GPU Operator's device-plugin configurations for the pools' time-slicing merged into
    its values (``oke_rdma.sharing.device_plugin_configs``), under the user's ``platform.gpuOperator.values``."""
    gpu = cfg.platform.gpu_operator
    ours = {"devicePlugin": {"config": {"data": device_plugin_configs(cfg)}}}
    return cfg.platform.model_copy(update={
        "gpu_operator": gpu.model_copy(update={"values": merge_values(ours, gpu.values)})})


def platform_args(cfg: StackConfig, provider: pulumi.ProviderResource,
                  depends_on: Sequence[pulumi.Resource] = ()) -> PlatformArgs:
    """:class:`~oke_rdma.platform.PlatformArgs` from ``platform``, ``tenants``, ``nodePools`` (GPU sharing) and
    ``namePrefix``."""
    return PlatformArgs(provider=provider, name_prefix=cfg.name_prefix, platform=platform_config(cfg),
                        tenants=tenant_namespaces(cfg), depends_on=depends_on)
