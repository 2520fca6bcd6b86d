"""The one place the stack config (:class:`oke_rdma.config.StackConfig`) becomes component arguments.

Each ``*_args`` function takes the parsed stack config plus the outputs of other components the component needs,
and returns its ``*Args`` holding only the slice it uses. Programs that do not use this project's stack config build
the ``*Args`` themselves (see ``examples/compose/``).
"""

from __future__ import annotations

from typing import Optional, Sequence

import pulumi

from oke_rdma.config import StackConfig
from oke_rdma.addons import merge_values
from oke_rdma.config.fleet import tenant_pools
from oke_rdma.config.platform import is_gpu_shape
from oke_rdma.guard import GuardArgs, tenant_labels
from oke_rdma.health import GpuHealthArgs
from oke_rdma.monitoring.component import MonitoringArgs
from oke_rdma.platform import Platform, PlatformArgs, TenantNamespace
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


def monitoring_args(cfg: StackConfig, provider: pulumi.ProviderResource, platform: Platform) -> Optional[MonitoringArgs]:
    """:class:`~oke_rdma.monitoring.component.MonitoringArgs` in kube-prometheus-stack's namespace, waiting for its
    release; None when kube-prometheus-stack is disabled (no Prometheus, Grafana or PrometheusRule CRD)."""
    release = platform.releases.get("kubePrometheusStack")
    if release is None:
        return None
    namespace = cfg.platform.kube_prometheus_stack.namespace
    return MonitoringArgs(name_prefix=cfg.name_prefix, provider=provider, namespace=namespace,
                          depends_on=[release, platform.namespaces[namespace]])


def guard_args(cfg: StackConfig, provider: pulumi.ProviderResource, platform: Platform) -> GuardArgs:
    """:class:`~oke_rdma.guard.GuardArgs`: each tenant's namespace and flavor pools
    (``oke_rdma.config.fleet.tenant_pools``); the platform's other namespaces are exempt from the RDMA-privileges
    policy."""
    tenants = {t: cfg.tenant_namespace(t) for t in cfg.tenants}
    return GuardArgs(name_prefix=cfg.name_prefix, provider=provider,
                     tenant_pools={t: tenant_pools(cfg, t) for t in cfg.tenants}, tenant_namespaces=tenants,
                     platform_namespaces=[ns for ns in platform.pod_security if ns not in tenants.values()],
                     depends_on=[platform.namespaces[ns] for ns in tenants.values()])


def gpu_health_args(cfg: StackConfig, provider: pulumi.ProviderResource, platform: Platform) -> Optional[GpuHealthArgs]:
    """:class:`~oke_rdma.health.GpuHealthArgs` in the GPU Operator's namespace; None without the GPU Operator or
    without a GPU pool (no node to watch)."""
    if "gpuOperator" not in platform.releases or not any(is_gpu_shape(p.shape) for p in cfg.node_pools.values()):
        return None
    namespace = cfg.platform.gpu_operator.namespace
    return GpuHealthArgs(name_prefix=cfg.name_prefix, provider=provider, namespace=namespace,
                         depends_on=[platform.namespaces[namespace]])
