"""GPU sharing variants of the dev stack: GPU Operator values that make the exclusive RDMA pool's device plugin share
its GPUs (its default config redefined to time-slice, a new default config using MPS) or that point it at a
ConfigMap the stack does not create (refused, exit 2); each control previews clean."""
from __future__ import annotations

from typing import Any

from .configs import CONFIG_CASES, Edit

TIME_SLICED = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"
MPS = "version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 2\n"
EXCLUSIVE = "version: v1\nflags:\n  migStrategy: single\n"


def _plugin_config(config: dict[str, Any]) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        operator = doc["config"]["oke-rdma:platform"]["gpuOperator"]
        operator.setdefault("values", {})["devicePlugin"] = {"config": config}
    return edit


CONFIG_CASES.update({
    "exclusive_pool_whose_default_config_time_slices": (
        "placement", "oke-rdma:nodePools.gpu.gpuSharing.mode",
        _plugin_config({"data": {"exclusive": TIME_SLICED}}), _plugin_config({"data": {"exclusive": EXCLUSIVE}})),
    "exclusive_pool_under_a_new_mps_default": (
        "placement", "oke-rdma:nodePools.gpu.gpuSharing.mode",
        _plugin_config({"default": "any", "data": {"any": MPS}}),
        _plugin_config({"default": "any", "data": {"any": EXCLUSIVE}})),
    "device_plugin_config_map_out_of_the_stack": (
        "placement", "oke-rdma:platform.gpuOperator.values",
        _plugin_config({"create": False, "name": "theirs"}), _plugin_config({"create": True, "name": "ours"})),
})
