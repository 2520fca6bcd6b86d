"""The GPU Operator's device plugin never adds the node's RDMA, GPUDirect Storage or GDRCopy devices to GPU
containers: the platform sets MOFED_ENABLED, GDS_ENABLED and GDRCOPY_ENABLED to "false" (left unset, the operator's
start script turns them on by the node's loaded modules), a user's env merges with them by name, and values that turn
injection back on — the variables themselves or the chart switches that override them — are refused."""

from __future__ import annotations

import pytest

from oke_rdma.addons import REGISTRY
from oke_rdma.addons.gpu_operator import DEVICE_INJECTION_ENV
from oke_rdma.config import ConfigError, load_stack_config
from tests.stackcfg import dev_raw_config, load_dev_config

AT = "oke-rdma:platform.gpuOperator.values"


def final_env(cfg) -> list[dict]:
    release = cfg.platform.gpu_operator
    return REGISTRY["gpuOperator"].helm_values(release, REGISTRY.context(cfg.platform))["devicePlugin"]["env"]


def problems(values: dict) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(platform={"gpuOperator": {"values": values}}))
    return [p for p in err.value.problems if p.startswith(AT)]


def test_the_platform_sets_every_injection_flag_false():
    env = final_env(load_dev_config())
    assert [e for e in env if e["name"] in DEVICE_INJECTION_ENV] == [
        {"name": "MOFED_ENABLED", "value": "false"}, {"name": "GDS_ENABLED", "value": "false"},
        {"name": "GDRCOPY_ENABLED", "value": "false"}]


def test_a_user_env_keeps_the_platform_s_flags():
    cfg = load_dev_config(platform={"gpuOperator": {"values": {"devicePlugin": {"env": [
        {"name": "PASS_DEVICE_SPECS", "value": "true"}, {"name": "MOFED_ENABLED", "value": "false"}]}}}})
    env = final_env(cfg)
    assert {"name": "PASS_DEVICE_SPECS", "value": "true"} in env
    assert {e["name"] for e in env} >= set(DEVICE_INJECTION_ENV) and len(env) == 4


@pytest.mark.parametrize("name,device", [("MOFED_ENABLED", "/dev/infiniband"), ("GDS_ENABLED", "/dev/nvidia-fs"),
                                         ("GDRCOPY_ENABLED", "/dev/gdrdrv")])
def test_turning_an_injection_flag_back_on_is_refused(name, device):
    [line] = problems({"devicePlugin": {"env": [{"name": name, "value": "true"}]}})
    assert line.startswith(f"{AT}.devicePlugin.env.0:") and device in line and "remove the entry" in line


def test_the_chart_switches_that_override_the_flags_are_refused():
    lines = problems({"gds": {"enabled": True}, "gdrcopy": {"enabled": True}})
    assert [line.split(":")[1] for line in lines] == ["platform.gpuOperator.values.gds.enabled",
                                                       "platform.gpuOperator.values.gdrcopy.enabled"]
    assert "GDS_ENABLED and MOFED_ENABLED=true" in lines[0] and "GDRCOPY_ENABLED=true" in lines[1]
    load_dev_config(platform={"gpuOperator": {"values": {"gds": {"enabled": False}}}})  # off is fine


def test_an_env_value_that_is_not_text_is_refused():
    [line] = problems({"devicePlugin": {"env": [{"name": "PASS_DEVICE_SPECS", "value": True}]}})
    assert line.startswith(f"{AT}.devicePlugin.env.0.value:") and "quote it" in line
