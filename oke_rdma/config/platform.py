"""In-cluster platform config: one ``platform.<key>`` section per add-on of the registry (``oke_rdma.addons``, each
module holding its config model, value shapes and rules), and the cross-field rules that keep the platform working
(``oke_rdma.config.checks.platform``).

Sources: OKE docs "Running Applications on GPU-based Nodes" (the ``oci.oraclecloud.com/disable-gpu-device-plugin``
node label); Helm docs "Values Files" / "Chart Development Tips" (values merge map by map, a ``null`` deletes a key
so the chart's default returns, and templates test truthiness: any non-empty string is true); Kubernetes docs
"Namespaces" (the initial, reserved namespaces) — checked 2026-11-30.
"""

from __future__ import annotations

from typing import Any, Optional

from oke_rdma.addons import REGISTRY, AddOn, HelmRelease, platform_model
from oke_rdma.addons.gpu_operator import GpuOperatorRelease
from oke_rdma.addons.keda import KedaRelease
from oke_rdma.addons.kube_prometheus_stack import MIN_BLOCK_VOLUME_GB, KubePrometheusStackRelease
from oke_rdma.addons.kueue import HOSTNAME_LABEL, RDMA_TOPOLOGY_LEVELS, KueueRelease, TopologyLabeler

from ._base import _key


__all__ = ["HOSTNAME_LABEL", "RDMA_TOPOLOGY_LEVELS", "MIN_BLOCK_VOLUME_GB", "OKE_DEVICE_PLUGIN_LABEL",
           "GpuOperatorRelease", "HelmRelease", "KedaRelease", "KubePrometheusStackRelease", "KueueRelease",
           "TopologyLabeler", "Platform", "platform_model", "values_problems", "is_gpu_shape"]

#: OKE runs its own NVIDIA device plugin on GPU nodes unless they carry this label set to "true"
#: (OKE docs, "Running Applications on GPU-based Nodes").
OKE_DEVICE_PLUGIN_LABEL = "oci.oraclecloud.com/disable-gpu-device-plugin"


def _shown(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    return "a list" if isinstance(value, list) else "a map"


def _shape_problem(at: tuple[str, ...], value: Any, shape: str) -> Optional[str]:
    key = _key(at)
    name = at[-1]
    if shape == "map" and not isinstance(value, dict):
        why = ("null deletes the chart's whole section, so its defaults come back and oke-rdma's settings there are "
               "lost" if value is None else
               "anything but a map replaces every value oke-rdma sets there (Helm merges maps only)")
        example = "enabled: false" if name in ("driver", "devicePlugin") else "key: value"
        return f"{key}: expected a map (like {name}: {{{example}}}), got {_shown(value)}; {why}: write it as a map " \
               f"or remove it"
    if shape == "list" and not isinstance(value, list):
        return f"{key}: expected a list, got {_shown(value)}; write it as a YAML list or remove it"
    if shape in ("bool", "false") and not isinstance(value, bool):
        fix = "write false or remove it" if shape == "false" else "write true or false without quotes"
        return (f"{key}: expected {'the boolean false' if shape == 'false' else 'true or false'}, got {_shown(value)}; "
                f"Helm templates treat any non-empty text (even 'false') as true: {fix}")
    return None


def values_problems(addon: AddOn, values: dict[str, Any]) -> list[str]:
    """Helm values of ``platform.<key>.values`` that would bypass the platform's settings: a section oke-rdma sets
    that is not a map, a flag that is not a boolean, a value that must be false (``gpuOperator``
    ``driver.enabled``) that is not (the add-on's :attr:`~oke_rdma.addons.AddOn.value_shapes`)."""
    problems: list[str] = []
    base = ("platform", addon.key, "values")
    for path, shape in addon.value_shapes:
        parent = _get(values, *path[:-1]) if len(path) > 1 else values
        if not isinstance(parent, dict) or path[-1] not in parent:
            continue  # absent, or below a section already refused
        value = parent[path[-1]]
        if shape == "false" and value is True:
            problems.append(f"{_key(base + path)}: OKE GPU images ship the NVIDIA driver (and OFED), a driver "
                            f"container would conflict with it; remove it or set false")
            continue
        problem = _shape_problem(base + path, value, shape)
        if problem:
            problems.append(problem)
    return problems


def _get(values: dict[str, Any], *path: str) -> Any:
    """``values[a][b]...`` or None when a step is missing or not a map."""
    cur: Any = values
    for p in path:
        if not isinstance(cur, dict) or p not in cur:
            return None
        cur = cur[p]
    return cur


#: The ``platform`` section of the stack config, one field per add-on of :data:`oke_rdma.addons.REGISTRY`.
Platform = platform_model(REGISTRY)


def is_gpu_shape(shape: str) -> bool:
    """True for NVIDIA GPU shapes: a shape of :data:`oke_rdma.facts.shapes.SHAPES` by its ``gpu_vendor`` (the AMD
    ``BM.GPU.MI300X.8`` is a GPU shape but no NVIDIA one: no GPU Operator labels, no ``nvidia.com/gpu``); a shape the
    table does not know only by OCI's naming (``VM.GPU*``, ``BM.GPU*``), which the config refuses unless the pool
    vouches for it (``allowUnknownShape`` with ``gpusPerNode``)."""
    from oke_rdma.facts.shapes import SHAPES

    if shape in SHAPES:
        return SHAPES[shape].gpu_vendor == "NVIDIA"
    parts = shape.split(".")
    return len(parts) > 1 and parts[1].startswith("GPU")
