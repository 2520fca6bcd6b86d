"""GPU sharing by effect: the node labels and device-plugin configurations the program derives from each pool's
``gpuSharing``, the GPU Operator values they end up in, and the rule that every GPU pool's GPUs are shared exactly
when its ``gpuSharing`` says so — judged by what the device plugin and MIG manager will do with the values as
merged (``platform.gpuOperator.values`` over the program's), never by the pool's own label alone.

The verdict per node comes from :mod:`oke_rdma.facts.gpu_sharing` (its sources there); the placement pack judges the
deployed objects with a copy of the same module.
"""

from __future__ import annotations

from typing import Any

from ...addons import merge_values
from ...addons._registry import ValuesContext
from ...addons.gpu_operator import ADDON, DEFAULT_DEVICE_PLUGIN_CONFIG, device_plugin_config_text
from ...facts.gpu_sharing import (DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_KEY, MIG_CONFIG_LABEL, MIG_DISABLED,
                                  DevicePlugin, MigManager, Verdict, node_sharing)
from .._base import _key
from ..fleet import MIG, TIME_SLICING
from ..platform import is_gpu_shape
from ..stack import StackConfig

SHARING_LABEL = "okerdma.io/gpu-sharing"
VALUES_AT = ("platform", "gpuOperator", "values")


def time_slicing_config(replicas: int) -> str:
    """The device-plugin configuration name of ``replicas``-way time-slicing."""
    return f"time-slicing-{replicas}"


def sharing_labels(pool: Any, is_gpu: bool) -> dict[str, str]:
    """The GPU-sharing node labels of a pool (:class:`oke_rdma.config.NodePool`; none for a pool without GPUs)."""
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


def gpu_operator_values(cfg: StackConfig) -> dict[str, Any]:
    """``platform.gpuOperator.values`` with the pools' device-plugin configurations merged under it: what the
    program hands the add-on (``oke_rdma.adapter.platform_config``)."""
    ours = {"devicePlugin": {"config": {"data": device_plugin_configs(cfg)}}}
    return merge_values(ours, cfg.platform.gpu_operator.values)


def _get(values: Any, *path: str) -> Any:
    for p in path:
        if not isinstance(values, dict):
            return None
        values = values.get(p)
    return values


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def effective_setup(cfg: StackConfig) -> tuple[DevicePlugin, MigManager]:
    """The device plugin's and MIG manager's configuration as the GPU Operator release will be installed with it
    (the add-on's values, the pools' configurations, the user's values merged over, in that order)."""
    gpu = cfg.platform.gpu_operator
    release = gpu.model_copy(update={"values": gpu_operator_values(cfg)})
    values = ADDON.helm_values(release, ValuesContext())
    config = _map(_get(values, "devicePlugin", "config"))
    name = _text(config.get("name"))
    # the chart renders the ConfigMap only with create and non-empty data; otherwise it must exist already, out of
    # the stack's sight (gpu-operator templates/plugin_config.yaml)
    data = config.get("data") if config.get("create") is True and isinstance(config.get("data"), dict) \
        and config.get("data") else None
    plugin = DevicePlugin(name=name if gpu.device_plugin else "", default=_text(config.get("default")), data=data,
                          where=_key(VALUES_AT + ("devicePlugin", "config")))
    manager = _map(values.get("migManager"))
    mig_config = _map(manager.get("config"))
    custom = bool(mig_config.get("name"))
    mig_data = _get(mig_config, "data", MIG_CONFIG_KEY) if custom and mig_config.get("create") is True else None
    mig = MigManager(enabled=gpu.enabled and manager.get("enabled") is not False,
                     default=_text(mig_config.get("default", MIG_DISABLED)), custom=custom, data=mig_data,
                     where=_key(VALUES_AT + ("migManager", "config")))
    return plugin, mig


def pool_verdicts(cfg: StackConfig) -> dict[str, Verdict]:
    """GPU pool name → whether its GPUs are shared by effect (:func:`oke_rdma.facts.gpu_sharing.node_sharing`)."""
    plugin, mig = effective_setup(cfg)
    operator_plugin = cfg.platform.operator_device_plugin
    return {name: node_sharing(sharing_labels(pool, operator_plugin and is_gpu_shape(pool.shape)), plugin, mig)
            for name, pool in cfg.node_pools.items() if pool.gpus or is_gpu_shape(pool.shape)}


def check_gpu_sharing_effect(cfg: StackConfig) -> list[str]:
    """A GPU pool's GPUs are shared exactly as its ``gpuSharing`` says: a pool declared ``exclusive`` whose device
    plugin or MIG manager would share them (a default config or an ``exclusive`` config that time-slices or uses
    MPS, a custom MIG config), or whose effective configuration cannot be read (a ConfigMap the stack does not
    create, a config name it lacks, a file the device plugin refuses), is refused: dedicated tenants and the
    policy pack rely on it.

    :returns: one ``oke-rdma:<key path>: <problem>; <fix>`` line per pool.
    """
    if not cfg.platform.gpu_operator.enabled:
        return []
    problems: list[str] = []
    for name, verdict in pool_verdicts(cfg).items():
        declared = cfg.node_pools[name].gpu_sharing.shared
        if verdict.shared is None:
            problems.append(f"{_key(VALUES_AT)}: the GPU sharing of pool {name!r} cannot be read ({verdict.why}); "
                            f"keep devicePlugin.config and migManager.config to configurations the stack creates, "
                            f"or remove the override")
        elif verdict.shared and not declared:
            problems.append(f"{_key(('nodePools', name, 'gpuSharing', 'mode'))}: exclusive, but {verdict.why}; "
                            f"remove that override from {_key(VALUES_AT)} or declare the pool's sharing with "
                            f"gpuSharing")
    return problems

