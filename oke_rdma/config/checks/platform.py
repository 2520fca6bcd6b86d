"""Rules of the ``platform`` section that read other keys of the stack config, and values derived from the whole
:class:`~oke_rdma.config.stack.StackConfig`. The section's models and single-key rules are in
``oke_rdma.config.platform``, which imports nothing back."""

from __future__ import annotations

from typing import Any

from oke_rdma.addons import AddOn, all_namespaces, REGISTRY, Registry
from .._base import _key, RESERVED_NAMESPACES
from ..platform import is_gpu_shape, OKE_DEVICE_PLUGIN_LABEL, values_problems
from ..stack import StackConfig


def check_platform(cfg: StackConfig, registry: Registry = REGISTRY) -> list[str]:
    """Values that break the platform, reserved namespaces, and the device-plugin rule (one plugin per GPU node).

    * every add-on's :func:`values_problems` (sections oke-rdma sets keep their shape; flags stay booleans;
      ``gpuOperator.values.driver.enabled`` only false — OKE GPU images ship the NVIDIA driver) and its own rules
      (:attr:`~oke_rdma.addons.AddOn.checks`, e.g. no Grafana password in plain text, Prometheus' retention size
      fits its volume).
    * an add-on (or a namespace its config asks for, like Kueue's topology labeler) in a reserved namespace
      (``kube-system``, ``kube-public``, ``kube-node-lease``, ``default``).
    * The operator's device plugin off while a GPU pool disables OKE's plugin (label ``true``): nothing would
      advertise ``nvidia.com/gpu`` on those nodes.
    * The operator's device plugin on while a GPU pool's labels force OKE's plugin on (label ``false``): both would
      advertise the same GPUs.
    """
    p = cfg.platform
    problems: list[str] = []
    for addon in registry:
        release = getattr(p, addon.field)
        at = ("platform", addon.key)
        problems += values_problems(addon, release.values)
        if addon.checks:
            problems += addon.checks(release, at)
        if release.namespace in RESERVED_NAMESPACES:
            problems.append(f"{_key(at + ('namespace',))}: {release.namespace!r} is a namespace "
                            f"Kubernetes reserves for itself (Kubernetes docs, Namespaces); install the release in "
                            f"its own, like the default {addon.defaults.namespace!r}")
        for extra in (addon.extra_namespaces(release) if addon.extra_namespaces else ()):
            if extra.name in RESERVED_NAMESPACES:
                problems.append(f"{_key(at + extra.path)}: {extra.name!r} is a namespace Kubernetes reserves for "
                                f"itself (Kubernetes docs, Namespaces); use its own, like the default "
                                f"{_default_at(addon, extra.path)!r}")
    operator_plugin = p.operator_device_plugin
    for name, pool in cfg.node_pools.items():
        if not is_gpu_shape(pool.shape):
            continue
        forced = pool.labels.get(OKE_DEVICE_PLUGIN_LABEL)
        at = _key(("nodePools", name, "labels", OKE_DEVICE_PLUGIN_LABEL))
        if forced == "true" and not operator_plugin:
            problems.append(f"{at}: disables OKE's device plugin but the GPU Operator's device plugin is off, so "
                            f"nothing advertises nvidia.com/gpu on these nodes; remove the label or enable "
                            f"platform.gpuOperator (values.devicePlugin.enabled)")
        if forced == "false" and operator_plugin:
            problems.append(f"{at}: keeps OKE's device plugin on while the GPU Operator runs its own, so two plugins "
                            f"advertise the same GPUs; remove the label (oke-rdma sets it to true) or set "
                            f"platform.gpuOperator.values.devicePlugin.enabled: false")
    return problems


def _default_at(addon: AddOn, path: tuple[str, ...]) -> Any:
    """The default value at config key path ``path`` (camelCase keys) below the add-on's config."""
    cur: Any = addon.defaults
    for part in path:
        cur = getattr(cur, next(n for n, f in type(cur).model_fields.items() if (f.alias or n) == part))
    return cur


def platform_namespaces(cfg: StackConfig, registry: Registry = REGISTRY) -> dict[str, tuple[str, ...]]:
    """Namespace → config key path of every add-on namespace (enabled or not) and every extra namespace an add-on's
    config asks for: the namespaces a tenant must not take."""
    return {ns: ("platform", *path) for ns, path in all_namespaces(cfg.platform, registry).items()}
