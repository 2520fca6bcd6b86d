"""GPU sharing on the nodes: the node labels that select each pool's device-plugin or MIG configuration, and the
per-stack time-slicing configurations merged into the GPU Operator's values (the ConfigMap itself, its default
``exclusive`` configuration, the MIG strategy and the DCGM metrics list are set by ``oke_rdma.addons.gpu_operator``).

* Every GPU pool carries ``okerdma.io/gpu-sharing`` = ``exclusive`` | ``time-slicing`` | ``mig`` (the policy pack and
  the in-cluster guard read it).
* Time-sliced pools carry ``nvidia.com/device-plugin.config`` = ``time-slicing-<replicas>``: the NVIDIA device
  plugin then advertises each GPU ``replicas`` times (``sharing.timeSlicing``), and refuses a pod asking for more
  than one replica (``failRequestsGreaterThanOne``: a second replica is not a second GPU).
* MIG pools carry ``nvidia.com/mig.config`` = ``all-<profile>``: the MIG manager cuts every GPU of the node into
  instances of that profile (mig-parted's built-in ``all-<profile>`` configurations) and the device plugin, with the
  operator's ``mig.strategy: single``, advertises each instance as one ``nvidia.com/gpu``.
* Every other GPU node uses the device plugin's ``exclusive`` configuration (the ConfigMap's default).

Sources (checked 2026-11-30): NVIDIA GPU Operator docs "Time-Slicing GPUs in Kubernetes" (ConfigMap of named
configurations, ``devicePlugin.config.name``/``default``, node label ``nvidia.com/device-plugin.config``,
``renameByDefault``, ``failRequestsGreaterThanOne``) and "GPU Operator with MIG" (``nvidia.com/mig.config``,
``mig.strategy``); gpu-operator v25.10.1 ``deployments/gpu-operator/templates/plugin_config.yaml`` and
``dcgm_exporter_config.yaml`` (``config.create``/``name``/``data``; the DCGM list under ``dcgm-metrics.csv``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oke_rdma.addons.gpu_operator import DEFAULT_DEVICE_PLUGIN_CONFIG, device_plugin_config_text
from oke_rdma.config.fleet import MIG, TIME_SLICING

if TYPE_CHECKING:
    from oke_rdma.config import NodePool, StackConfig

SHARING_LABEL = "okerdma.io/gpu-sharing"
DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
MIG_CONFIG_LABEL = "nvidia.com/mig.config"


def time_slicing_config(replicas: int) -> str:
    """The device-plugin configuration name of ``replicas``-way time-slicing."""
    return f"time-slicing-{replicas}"


def sharing_labels(pool: NodePool, is_gpu: bool) -> dict[str, str]:
    """The GPU-sharing node labels of a pool (none for a pool without GPUs)."""
    if not is_gpu:
        return {}
    sharing = pool.gpu_sharing
    labels = {SHARING_LABEL: sharing.label}
    if sharing.mode == TIME_SLICING and sharing.replicas:
        labels[DEVICE_PLUGIN_CONFIG_LABEL] = time_slicing_config(sharing.replicas)
    elif sharing.mode == MIG and sharing.profile:
        labels[MIG_CONFIG_LABEL] = f"all-{sharing.profile}"
    return labels


def device_plugin_configs(cfg: StackConfig) -> dict[str, str]:
    """Configuration name → NVIDIA device-plugin config file (YAML text, ``version: v1``): ``exclusive`` and one
    ``time-slicing-<n>`` per replica count a pool uses."""
    configs = {DEFAULT_DEVICE_PLUGIN_CONFIG: device_plugin_config_text({})}
    for replicas in sorted({p.gpu_sharing.replicas for p in cfg.node_pools.values()
                            if p.gpu_sharing.mode == TIME_SLICING and p.gpu_sharing.replicas}):
        configs[time_slicing_config(replicas)] = device_plugin_config_text({"sharing": {"timeSlicing": {
            "renameByDefault": False, "failRequestsGreaterThanOne": True,
            "resources": [{"name": "nvidia.com/gpu", "replicas": replicas}]}}})
    return configs
