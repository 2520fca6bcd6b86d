"""NVIDIA GPU Operator: device plugin, DCGM exporter, container toolkit and validator on the GPU nodes.

``driver.enabled: false`` because OKE GPU images ship the NVIDIA driver (and OFED); CDI on; the device plugin on;
daemon sets tolerate the ``nvidia.com/gpu`` taint of GPU nodes. OKE runs its own NVIDIA device plugin on GPU nodes
unless the node carries ``oci.oraclecloud.com/disable-gpu-device-plugin=true``: the compute component labels GPU
pools with it while this operator's device plugin runs (:attr:`GpuOperatorRelease.device_plugin`), so only one
plugin advertises ``nvidia.com/gpu``. Waits for kube-prometheus-stack when it is enabled (its DCGM exporter
``ServiceMonitor``; turned off without it). Namespace Pod Security ``privileged``: its pods mount host paths, run
privileged and use the host's devices.

Sources: NVIDIA GPU Operator docs "Installing the NVIDIA GPU Operator" (pre-installed drivers, CDI) and chart
values.yaml of gpu-operator v25.10.1 (``driver``, ``cdi``, ``devicePlugin``, ``dcgmExporter.serviceMonitor``,
``daemonsets.tolerations``, ``node-feature-discovery.worker.tolerations``, the ``nvidia.com`` CRD group of
``ClusterPolicy``/``NVIDIADriver``); OKE docs "Running Applications on GPU-based Nodes" — checked 2026-11-30.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from oke_rdma.addons._registry import PRIVILEGED, AddOn, HelmRelease, ValuesContext

#: The taint key of GPU nodes (OKE docs, "Running Applications on GPU-based Nodes"; checked 2026-11-30).
GPU_TAINT_KEY = "nvidia.com/gpu"
#: The extended resource NVIDIA's device plugin advertises (NVIDIA k8s-device-plugin README; checked 2026-11-30);
#: the platform's ResourceQuotas and Kueue's ClusterQueues count it.
GPU_RESOURCE = "nvidia.com/gpu"


def _get(values: dict[str, Any], *path: str) -> Any:
    """``values[a][b]...`` or None when a step is missing or not a map."""
    cur: Any = values
    for p in path:
        if not isinstance(cur, dict) or p not in cur:
            return None
        cur = cur[p]
    return cur


class GpuOperatorRelease(HelmRelease):
    """NVIDIA GPU Operator, default v25.10.1 in ``gpu-operator``."""

    version: str = Field("v25.10.1", description="Exact NVIDIA GPU Operator chart version.")
    namespace: str = Field("gpu-operator", description="Namespace of the GPU Operator.")

    @property
    def device_plugin(self) -> bool:
        """True when the operator runs its device plugin (enabled, and ``values.devicePlugin.enabled`` not false)."""
        return self.enabled and _get(self.values, "devicePlugin", "enabled") is not False


def values(cfg: GpuOperatorRelease, context: ValuesContext) -> dict[str, Any]:
    """No driver container (OKE images ship it), CDI and the device plugin on, GPU-taint tolerations; the DCGM
    exporter's ServiceMonitor only with kube-prometheus-stack."""
    toleration = {"key": GPU_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}
    return {
        "driver": {"enabled": False},  # OKE GPU images ship the NVIDIA driver
        "cdi": {"enabled": True},
        "devicePlugin": {"enabled": True},
        "dcgmExporter": {"serviceMonitor": {"enabled": "kubePrometheusStack" in context.enabled}},
        "daemonsets": {"tolerations": [toleration]},
        "node-feature-discovery": {"worker": {"tolerations": [toleration]}},
    }


ADDON = AddOn(
    key="gpuOperator",
    release_name="gpu-operator",
    chart="gpu-operator",
    repository="https://helm.ngc.nvidia.com/nvidia",
    config=GpuOperatorRelease,
    pod_security=PRIVILEGED,
    values=values,
    after=("kubePrometheusStack",),  # the DCGM exporter's ServiceMonitor needs the monitoring.coreos.com CRD
    crds=("nvidia.com",),
    value_shapes=(
        (("driver",), "map"), (("driver", "enabled"), "false"), (("cdi",), "map"), (("cdi", "enabled"), "bool"),
        (("devicePlugin",), "map"), (("devicePlugin", "enabled"), "bool"), (("dcgmExporter",), "map"),
        (("dcgmExporter", "serviceMonitor"), "map"), (("dcgmExporter", "serviceMonitor", "enabled"), "bool"),
        (("daemonsets",), "map"), (("daemonsets", "tolerations"), "list"), (("node-feature-discovery",), "map"),
        (("node-feature-discovery", "worker"), "map"), (("node-feature-discovery", "worker", "tolerations"), "list"),
    ),
    source="NVIDIA GPU Operator docs, Installing the NVIDIA GPU Operator; gpu-operator chart v25.10.1 values.yaml; "
           "checked 2026-11-30",
)
