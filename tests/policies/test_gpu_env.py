"""A container outside the node-agent namespaces never names GPUs through NVIDIA_VISIBLE_DEVICES (all, indexes, or
a value the preview cannot read); void/none, the variable absent, and the GPU Operator's own namespace pass."""
from __future__ import annotations

import pytest

from policies.security import gpu_env
from tests.policies.test_policies import U, call_resource_rule

POD = "kubernetes:core/v1:Pod"


def _pod(env, ns="research"):
    return {"metadata": {"name": "p", "namespace": ns},
            "spec": {"containers": [{"name": "c", "image": "nvcr.io/nvidia/cuda:12.4.1-base", "env": env}]}}


@pytest.mark.parametrize("env", [[{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}],
                                 [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "0,1"}],
                                 [{"name": "NVIDIA_VISIBLE_DEVICES", "value": U}],
                                 [{"name": "NVIDIA_VISIBLE_DEVICES", "valueFrom": {"configMapKeyRef": {"name": "x",
                                                                                                        "key": "k"}}}]])
def test_gpus_named_through_the_env_are_refused(env):
    assert call_resource_rule(gpu_env.validate_gpu_env, POD, _pod(env))


@pytest.mark.parametrize("env, ns", [([{"name": "NVIDIA_VISIBLE_DEVICES", "value": "void"}], "research"),
                                     ([{"name": "CUDA_VISIBLE_DEVICES", "value": "0"}], "research"),
                                     ([{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}], "gpu-operator")])
def test_no_gpu_other_variables_and_the_operators_namespace_pass(env, ns):
    assert call_resource_rule(gpu_env.validate_gpu_env, POD, _pod(env, ns)) == []
