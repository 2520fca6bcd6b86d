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

# The derivations live with the config rule that judges them by effect (one source): re-exported here.
from oke_rdma.config.checks.gpu_sharing import (SHARING_LABEL, device_plugin_configs,  # noqa: F401
                                                gpu_operator_values, sharing_labels, time_slicing_config)
from oke_rdma.facts.gpu_sharing import DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_LABEL  # noqa: F401
