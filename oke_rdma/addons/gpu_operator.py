"""NVIDIA GPU Operator: device plugin, DCGM exporter, container toolkit and validator on the GPU nodes.

``driver.enabled: false`` because OKE GPU images ship the NVIDIA driver (and OFED); CDI on; the device plugin on;
daemon sets tolerate the ``nvidia.com/gpu`` taint of GPU nodes. OKE runs its own NVIDIA device plugin on GPU nodes
unless the node carries ``oci.oraclecloud.com/disable-gpu-device-plugin=true``: the compute component labels GPU
pools with it while this operator's device plugin runs (:attr:`GpuOperatorRelease.device_plugin`), so only one
plugin advertises ``nvidia.com/gpu``. Waits for kube-prometheus-stack when it is enabled (its DCGM exporter
``ServiceMonitor``; turned off without it). Namespace Pod Security ``privileged``: its pods mount host paths, run
privileged and use the host's devices.

Sources: NVIDIA GPU Operator docs "Installing the NVIDIA GPU Operator" (pre-installed drivers, CDI) and chart
values.yaml of gpu-operator v26.7.0 (unchanged from v25.10.1 for every path oke-rdma sets) (``driver``, ``cdi``, ``devicePlugin``, ``dcgmExporter.serviceMonitor``,
``daemonsets.tolerations``, ``node-feature-discovery.worker.tolerations``, the ``nvidia.com`` CRD group of
``ClusterPolicy``/``NVIDIADriver``); OKE docs "Running Applications on GPU-based Nodes" — checked 2026-11-30.
"""

from __future__ import annotations

from typing import Any

import yaml
from pydantic import Field

from oke_rdma.addons._registry import PRIVILEGED, AddOn, HelmRelease, ValuesContext
from oke_rdma.monitoring.facts import DCGM_METRICS_CSV
from oke_rdma.schema import _key

#: The taint key of GPU nodes (OKE docs, "Running Applications on GPU-based Nodes"; checked 2026-11-30).
GPU_TAINT_KEY = "nvidia.com/gpu"
#: The extended resource NVIDIA's device plugin advertises (NVIDIA k8s-device-plugin README; checked 2026-11-30);
#: the platform's ResourceQuotas and Kueue's ClusterQueues count it.
GPU_RESOURCE = "nvidia.com/gpu"
#: The ConfigMap (created by the chart in the operator's namespace) of the device plugin's named configurations
#: (chart values ``devicePlugin.config``); nodes pick one by the ``nvidia.com/device-plugin.config`` label
#: (``oke_rdma.sharing``), the others use the default.
DEVICE_PLUGIN_CONFIGMAP = "okerdma-device-plugin"
DEFAULT_DEVICE_PLUGIN_CONFIG = "exclusive"
#: The ConfigMap holding the DCGM exporter's metrics list (chart values ``dcgmExporter.config``; key
#: ``dcgm-metrics.csv``): ``oke_rdma/monitoring/dcgm-metrics.csv``.
DCGM_METRICS_CONFIGMAP = "okerdma-dcgm-metrics"


def device_plugin_config_text(extra: dict[str, Any]) -> str:
    """A device-plugin config file (``version: v1``, MIG strategy ``single`` like the operator's ``mig.strategy``)
    with ``extra`` (e.g. ``sharing.timeSlicing``) added."""
    return yaml.safe_dump({"version": "v1", "flags": {"migStrategy": "single"}, **extra}, sort_keys=False)


def _get(values: dict[str, Any], *path: str) -> Any:
    """``values[a][b]...`` or None when a step is missing or not a map."""
    cur: Any = values
    for p in path:
        if not isinstance(cur, dict) or p not in cur:
            return None
        cur = cur[p]
    return cur


class GpuOperatorRelease(HelmRelease):
    """NVIDIA GPU Operator, default v26.7.0 in ``gpu-operator``."""

    # renovate: datasource=helm depName=gpu-operator registryUrl=https://helm.ngc.nvidia.com/nvidia
    version: str = Field("v26.7.0", description=(
        "Exact NVIDIA GPU Operator chart version (upgrade one major at a time: docs/operations.md)."))
    namespace: str = Field("gpu-operator", description="Namespace of the GPU Operator.")

    @property
    def device_plugin(self) -> bool:
        """True when the operator runs its device plugin (enabled, and ``values.devicePlugin.enabled`` not false)."""
        return self.enabled and _get(self.values, "devicePlugin", "enabled") is not False


def values(cfg: GpuOperatorRelease, context: ValuesContext) -> dict[str, Any]:
    """No driver container (OKE images ship it), CDI and the device plugin on, GPU-taint tolerations; the DCGM
    exporter's ServiceMonitor only with kube-prometheus-stack. GPU sharing and monitoring (``oke_rdma.sharing``):
    the device plugin's named configurations (default ``exclusive``; the stack adds one per time-slicing replica
    count its pools use), ``mig.strategy: single`` and the DCGM exporter's metrics list
    (``oke_rdma/monitoring/dcgm-metrics.csv``: the ECC and NVLink error counters the alerts read)."""
    toleration = {"key": GPU_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}
    return {
        "driver": {"enabled": False},  # OKE GPU images ship the NVIDIA driver
        "cdi": {"enabled": True},
        "devicePlugin": {"enabled": True, "config": {
            "create": True, "name": DEVICE_PLUGIN_CONFIGMAP, "default": DEFAULT_DEVICE_PLUGIN_CONFIG,
            "data": {DEFAULT_DEVICE_PLUGIN_CONFIG: device_plugin_config_text({})}},
            # no host RDMA/GDS/GDRCopy devices in GPU containers, whatever modules a node loads (DEVICE_INJECTION_ENV)
            "env": [{"name": name, "value": "false"} for name in DEVICE_INJECTION_ENV]},
        "mig": {"strategy": "single"},
        "dcgmExporter": {"serviceMonitor": {"enabled": "kubePrometheusStack" in context.enabled},
                         "config": {"create": True, "name": DCGM_METRICS_CONFIGMAP,
                                    "data": DCGM_METRICS_CSV.read_text()}},
        "daemonsets": {"tolerations": [toleration]},
        "node-feature-discovery": {"worker": {"tolerations": [toleration]}},
    }


#: The device plugin's switch for its XID health check (k8s-device-plugin internal/rm/health.go).
HEALTHCHECK_ENV = "DP_DISABLE_HEALTHCHECKS"

#: The device plugin's feature flags that add host devices to EVERY container it gives a GPU: ``MOFED_ENABLED`` the
#: node's ``/dev/infiniband`` (uverbs, rdma_cm), ``GDS_ENABLED`` ``/dev/nvidia-fs*``, ``GDRCOPY_ENABLED``
#: ``/dev/gdrdrv``. oke-rdma sets all three to ``"false"``, for every version, deliberately:
#:
#: * The values depend on the node, not on the stack, when left unset. From v26.3.3 the operator's device-plugin
#:   start script sets ``GDRCOPY_ENABLED=true`` when the node has ``gdrdrv`` loaded and ``GDS_ENABLED=true`` and
#:   ``MOFED_ENABLED=true`` when it has ``nvidia_fs`` loaded, unless the variable is already set; v26.3.0–v26.3.2
#:   ship device plugin v0.19.0, whose flags default to true (NVIDIA/gpu-operator#2525).
#: * RDMA pods do not need the plugin for their devices: they run ``privileged`` with the host's
#:   ``/dev/infiniband`` through a hostPath (docs/tenants.md, "What pod policy cannot stop"), and GPUDirect Storage
#:   is not offered (no ``nvidia_fs`` driver container: ``driver.enabled`` is false). With the flags on, every GPU
#:   container of every tenant, RDMA or not, would get the node's RDMA devices instead.
#:
#: The operator sets the same variables to ``"true"`` when ``gds.enabled`` or ``gdrcopy.enabled`` is true, over any
#: value here (``TransformDevicePlugin``): those are refused too. A user's ``devicePlugin.env`` merges with these by
#: name (``AddOn.keyed_lists``); naming one of them with a value other than ``"false"`` is refused.
#: Sources (read 2026-12-02): NVIDIA/gpu-operator ``assets/state-device-plugin/0400_configmap.yaml`` at v26.3.3 and
#: v26.7.0 (commit 18220f413, 2026-06-08, "infer feature enablement envars from kernel modules"; absent at v26.3.2),
#: ``controllers/object_controls.go@v26.7.0`` (``TransformDevicePlugin``, ``setContainerEnv``), chart
#: ``templates/clusterpolicy.yaml@v26.7.0`` (``devicePlugin.env`` is the container's env); NVIDIA/k8s-device-plugin
#: PR #1837 (defaults back to false).
DEVICE_INJECTION_ENV = ("MOFED_ENABLED", "GDS_ENABLED", "GDRCOPY_ENABLED")
#: Chart switches with which the operator sets those variables to true (``gds.enabled``: GPUDirectStorage,
#: ``gdrcopy.enabled``: GDRCopy), whatever the env says.
DEVICE_INJECTION_SWITCHES = (("gds", "enabled"), ("gdrcopy", "enabled"))
_INJECTS = {"MOFED_ENABLED": "/dev/infiniband devices", "GDS_ENABLED": "/dev/nvidia-fs devices",
            "GDRCOPY_ENABLED": "/dev/gdrdrv device"}

#: Values oke-rdma sets that a user's ``values`` may not change: path → (required value, why). Sources (read
#: 2026-12-02): gpu-operator v26.7.0 ``controllers/object_controls.go`` (``TransformToolkit``: with CDI off and CRI-O
#: — OKE's container runtime — the toolkit installs its OCI prestart hook, ``CRIO_CONFIG_MODE=hook``, and the
#: operator's own pods get no runtime class: ``setRuntimeClassName``) and ``values.yaml`` (``cdi.enabled: true``,
#: ``cdi.nriPluginEnabled: false``, ``mig.strategy``); NVIDIA/gpu-operator#1374 (CRI-O without CDI: the toolkit
#: validator cannot find nvidia-smi and crash-loops; CDI on fixed it) and #448 (the hook is used only where CRI-O
#: reads its hooks directory); NVIDIA GPU Operator docs "GPU Operator with MIG" (``mixed`` advertises
#: ``nvidia.com/mig-<profile>`` resources); NVIDIA/nvidia-container-toolkit PR #1854 (the NRI plugin injects the CDI
#: devices a pod's annotations name, for pods of any namespace).
PINNED: dict[tuple[str, ...], tuple[Any, str]] = {
    ("cdi", "enabled"): (True, "OKE runs CRI-O: with CDI off the toolkit installs its OCI prestart hook for every "
                               "container instead, which works only where CRI-O reads the hook's directory "
                               "(NVIDIA/gpu-operator#1374: the validator crash-loops and no GPU is advertised) and "
                               "hands GPUs to any container that names NVIDIA_VISIBLE_DEVICES"),
    ("cdi", "nriPluginEnabled"): (False, "the NRI plugin injects the CDI devices a pod's annotations name, in any "
                                         "namespace: an annotation would then give a tenant's pod GPUs past the "
                                         "device plugin, the quotas and Kueue"),
    ("mig", "strategy"): ("single", "MIG instances are advertised as nvidia.com/gpu, the one resource the tenants' "
                                    "ResourceQuotas, Kueue's ClusterQueues and the admission guard count; 'mixed' "
                                    "advertises nvidia.com/mig-<profile> resources none of them counts"),
}


def checks(cfg: GpuOperatorRelease, at: tuple[str, ...]) -> list[str]:
    """The values OKE and the tenancy walls depend on stay as oke-rdma sets them (:data:`PINNED`: CDI on, its NRI
    plugin off, MIG strategy ``single``), and the device plugin's GPU health check stays on:
    ``DP_DISABLE_HEALTHCHECKS`` in ``devicePlugin.env`` (any value: ``all``, ``xids`` or a list of XIDs) is refused,
    since it keeps a failing GPU schedulable."""
    problems = []
    for path, (required, why) in PINNED.items():
        parent = _get(cfg.values, *path[:-1])
        if not isinstance(parent, dict) or path[-1] not in parent:
            continue
        value = parent[path[-1]]
        if isinstance(required, bool) and not isinstance(value, bool):
            continue  # not a boolean: the value shape's line names it (Helm reads any non-empty text as true)
        if value != required or type(value) is not type(required):
            shown = str(required).lower() if isinstance(required, bool) else repr(required)
            problems.append(f"{_key(at + ('values', *path))}: must stay {shown} ({why}); remove it")
    env = _get(cfg.values, "devicePlugin", "env")
    entries = env if isinstance(env, list) else []
    for i, entry in enumerate(entries):
        if isinstance(entry, dict) and str(entry.get("name", "")).strip().upper() == HEALTHCHECK_ENV:
            problems.append(f"{_key(at + ('values', 'devicePlugin', 'env', str(i)))}: {HEALTHCHECK_ENV} turns off "
                            f"the device plugin's XID health check, so a failing GPU stays schedulable; remove it "
                            f"(application XIDs 13, 31, 43, 45, 68, 109 are already ignored)")
    for i, entry in enumerate(entries):
        name = str(entry.get("name", "")).strip() if isinstance(entry, dict) else ""
        if isinstance(entry, dict) and not isinstance(entry.get("value", ""), str):
            problems.append(f"{_key(at + ('values', 'devicePlugin', 'env', str(i), 'value'))}: is "
                            f"{type(entry['value']).__name__}, but an environment variable's value is text (the "
                            f"ClusterPolicy refuses anything else); quote it")
        elif name.upper() in DEVICE_INJECTION_ENV and str(entry.get("value", "")).strip().lower() != "false":
            problems.append(f"{_key(at + ('values', 'devicePlugin', 'env', str(i)))}: {name}={entry.get('value')!r} "
                            f"makes the device plugin add the node's {_INJECTS[name.upper()]} to every GPU container "
                            f"of every tenant, RDMA or not (one device plugin DaemonSet serves every GPU pool); RDMA "
                            f"pods already get /dev/infiniband through their privileged hostPath; remove the entry "
                            f"(oke-rdma sets it to \"false\")")
    for path in DEVICE_INJECTION_SWITCHES:
        if _get(cfg.values, *path) is True:
            problems.append(f"{_key(at + ('values', *path))}: makes the operator set "
                            f"{'GDS_ENABLED and MOFED_ENABLED' if path[0] == 'gds' else 'GDRCOPY_ENABLED'}=true on the "
                            f"device plugin, over oke-rdma's false, so every GPU container gets the node's "
                            f"{'/dev/nvidia-fs and /dev/infiniband devices' if path[0] == 'gds' else '/dev/gdrdrv'} "
                            f"(and its driver container needs driver.enabled, which stays false on OKE's images); "
                            f"remove it")
    if env is not None and not isinstance(env, list):
        problems.append(f"{_key(at + ('values', 'devicePlugin', 'env'))}: expected a list of {{name, value}} "
                        f"environment variables; write it as a list")
    return problems


ADDON = AddOn(
    key="gpuOperator",
    release_name="gpu-operator",
    chart="gpu-operator",
    repository="https://helm.ngc.nvidia.com/nvidia",
    config=GpuOperatorRelease,
    pod_security=PRIVILEGED,
    values=values,
    after=("kubePrometheusStack",),  # the DCGM exporter's ServiceMonitor needs the monitoring.coreos.com CRD
    checks=checks,
    crds=("nvidia.com",),
    value_shapes=(
        (("driver",), "map"), (("driver", "enabled"), "false"), (("cdi",), "map"), (("cdi", "enabled"), "bool"),
        (("devicePlugin",), "map"), (("devicePlugin", "enabled"), "bool"), (("devicePlugin", "config"), "map"),
        (("devicePlugin", "config", "data"), "map"), (("devicePlugin", "env"), "list"), (("mig",), "map"),
        (("dcgmExporter",), "map"),
        (("dcgmExporter", "config"), "map"),
        (("dcgmExporter", "serviceMonitor"), "map"), (("dcgmExporter", "serviceMonitor", "enabled"), "bool"),
        (("daemonsets",), "map"), (("daemonsets", "tolerations"), "list"), (("node-feature-discovery",), "map"),
        (("node-feature-discovery", "worker"), "map"), (("node-feature-discovery", "worker", "tolerations"), "list"),
    ),
    keyed_lists=((("devicePlugin", "env"), "name"),),
    source="NVIDIA GPU Operator docs, Installing the NVIDIA GPU Operator; gpu-operator chart v26.7.0 values.yaml; "
           "checked 2026-12-01",
)
