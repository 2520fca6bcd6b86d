"""GPU health: node-problem-detector's XID monitor rules match the driver's kernel lines for XIDs that need a reset
(and not application XIDs), the DaemonSet runs on GPU pools only with narrow RBAC, and the config refuses turning
the device plugin's own health check off."""

from __future__ import annotations

import json
import re

import pytest

from offline.engine import run_program
from oke_rdma.config import ConfigError
from oke_rdma.files import gpu_node_cordoner as cordoner
from oke_rdma.health import CONDITION, CORDONER_SCRIPT, NPD_IMAGE, xid_monitor
from oke_rdma.monitoring.facts import XID_APPLICATION_ERRORS, XID_FALLEN_OFF_BUS, XID_NEEDS_RESET
from tests.componenttest import named, of_type
from tests.stackcfg import dev_config, dev_raw_config, load_dev_config


def reasons(line: str) -> list[str]:
    """The reasons of the monitor's rules matching a kernel message (NPD matches the whole message)."""
    return [r["reason"] for r in xid_monitor()["rules"] if re.fullmatch(r["pattern"], line)]


@pytest.mark.parametrize("xid", sorted(XID_NEEDS_RESET))
def test_reset_xids_set_the_condition(xid):
    """Every XID that needs a GPU reset, as the NVIDIA driver logs it, sets GpuXidCritical (GpuXidNeedsReset)."""
    line = f"NVRM: Xid (PCI:0000:3b:00): {xid}, pid=2231, name=python, Ch 00000008"
    assert reasons(line) == ["GpuXidNeedsReset"]


def test_fallen_off_bus_sets_its_own_reason():
    """XID 79 sets the condition with reason GpuFallenOffBus."""
    assert reasons(f"NVRM: Xid (PCI:0000:9b:00): {XID_FALLEN_OFF_BUS}, pid=1, GPU has fallen off the bus.") == [
        "GpuFallenOffBus"]


@pytest.mark.parametrize("line", [
    *(f"NVRM: Xid (PCI:0000:3b:00): {x}, pid=2231, Graphics Exception" for x in sorted(XID_APPLICATION_ERRORS)),
    "NVRM: Xid (PCI:0000:3b:00): 480, pid=1, made-up XID sharing a prefix",
    "NVRM: Xid (PCI:0000:3b:00): 7, pid=1, an XID sharing a suffix",
    "NVRM: GPU at PCI:0000:3b:00: GPU-1234",
    "EXT4-fs error (device sda1): something else",
], ids=lambda s: s[:40])
def test_other_kernel_lines_leave_the_condition_alone(line):
    """Application XIDs (the device plugin ignores them too), look-alike numbers and other lines set nothing."""
    assert reasons(line) == []


def test_monitor_declares_the_condition_as_permanent():
    """The monitor reads /dev/kmsg, declares GpuXidCritical with a healthy default, and its rules are permanent."""
    cfg = xid_monitor()
    assert cfg["plugin"] == "kmsg" and cfg["logPath"] == "/dev/kmsg"
    assert [c["type"] for c in cfg["conditions"]] == [CONDITION]
    assert {r["type"] for r in cfg["rules"]} == {"permanent"} and {r["condition"] for r in cfg["rules"]} == {
        CONDITION}


def test_daemon_set_runs_on_gpu_pools_with_narrow_rbac():
    """The node-problem-detector DaemonSet (pinned image) runs only on nodes with the GPU-sharing label, in the GPU
    Operator's namespace, reading the monitor config; its ClusterRole only reads nodes, patches node status and
    writes events."""
    raw, secret = dev_config()
    run = run_program(raw, secret, "dev")
    ds = named(run, "okerdma-dev-npd").inputs
    assert ds["metadata"]["namespace"] == "gpu-operator"
    pod = ds["spec"]["template"]["spec"]
    (term,) = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term["matchExpressions"] == [{"key": "okerdma.io/gpu-sharing", "operator": "Exists"}]
    container = next(c for c in pod["containers"] if c["name"] == "node-problem-detector")
    assert container["image"] == NPD_IMAGE and "--config.system-log-monitor=/config/gpu-xid-monitor.json" in \
        container["command"]
    config = json.loads(named(run, "okerdma-dev-npd-config").inputs["data"]["gpu-xid-monitor.json"])
    assert config == xid_monitor()
    rules = named(run, "okerdma-dev-npd-role").inputs["rules"]
    assert {(tuple(r["resources"]), tuple(sorted(r["verbs"]))) for r in rules} == {
        (("nodes",), ("get", "patch")), (("nodes/status",), ("patch",)), (("events",), ("create", "patch", "update"))}
    cordoner = next(c for c in pod["containers"] if c["name"] == "cordoner")
    assert cordoner["securityContext"]["runAsNonRoot"] is True and cordoner["securityContext"]["capabilities"] == {
        "drop": ["ALL"]} and "privileged" not in cordoner["securityContext"]
    assert named(run, "okerdma-dev-npd-config").inputs["data"]["gpu_node_cordoner.py"] == CORDONER_SCRIPT.read_text()


def test_no_health_daemon_without_gpu_operator():
    """Without the GPU Operator there is no device plugin to pair with: no node-problem-detector either."""
    run = run_program(dev_raw_config(platform={"gpuOperator": {"enabled": False}}), [], "dev")
    assert not [r for r in of_type(run, "kubernetes:apps/v1:DaemonSet") if r.name.endswith("-npd")]


@pytest.mark.parametrize("env", [
    [{"name": "DP_DISABLE_HEALTHCHECKS", "value": "all"}],
    [{"name": "FOO", "value": "1"}, {"name": "DP_DISABLE_HEALTHCHECKS", "value": "79"}],
    [{"name": "dp_disable_healthchecks", "value": "xids"}],
])
def test_turning_the_device_plugin_health_check_off_is_refused(env):
    """DP_DISABLE_HEALTHCHECKS in the GPU Operator's device-plugin env is refused, naming the list entry."""
    with pytest.raises(ConfigError) as e:
        load_dev_config(platform={"gpuOperator": {"values": {"devicePlugin": {"env": env}}}})
    index = next(i for i, v in enumerate(env) if v["name"].upper() == "DP_DISABLE_HEALTHCHECKS")
    assert any(p.startswith(f"oke-rdma:platform.gpuOperator.values.devicePlugin.env.{index}: DP_DISABLE_HEALTHCHECKS")
               for p in e.value.problems), e.value.problems


def test_other_device_plugin_env_is_accepted():
    """Other device-plugin environment variables pass."""
    cfg = load_dev_config(platform={"gpuOperator": {"values": {"devicePlugin": {"env": [
        {"name": "DP_ENABLE_HEALTHCHECKS", "value": "13"}]}}}})
    assert cfg.platform.gpu_operator.values["devicePlugin"]["env"][0]["name"] == "DP_ENABLE_HEALTHCHECKS"


def _node(condition_status: str | None, unschedulable: bool = False) -> dict:
    conditions = [{"type": "Ready", "status": "True"}]
    if condition_status is not None:
        conditions.append({"type": CONDITION, "status": condition_status, "reason": "GpuFallenOffBus",
                           "message": "NVRM: Xid (PCI:0000:9b:00): 79, GPU has fallen off the bus."})
    return {"metadata": {"name": "10.0.10.5"}, "spec": {"unschedulable": unschedulable} if unschedulable else {},
            "status": {"conditions": conditions}}


def test_cordoner_cordons_a_node_with_the_condition_and_says_why():
    """A schedulable node whose GpuXidCritical is True is cordoned (spec.unschedulable) with the reason annotated;
    the script's condition name is the monitor's."""
    calls = []

    def api(method, path, body):
        calls.append((method, path, body))
        return _node("True")

    reason = cordoner.reconcile("10.0.10.5", api)
    assert cordoner.CONDITION == CONDITION
    assert reason.startswith("gpu-health: GpuFallenOffBus: NVRM: Xid")
    assert calls[1] == ("PATCH", "/api/v1/nodes/10.0.10.5", {
        "spec": {"unschedulable": True}, "metadata": {"annotations": {"okerdma.io/cordoned-by": reason}}})


@pytest.mark.parametrize("node", [_node(None), _node("False"), _node("Unknown"), _node("True", unschedulable=True)],
                         ids=["no-condition", "false", "unknown", "already-cordoned"])
def test_cordoner_leaves_healthy_or_cordoned_nodes_alone(node):
    """No condition, a False/Unknown one, or a node already cordoned: nothing is patched (it never uncordons)."""
    calls = []

    def api(method, path, body):
        calls.append(method)
        return node

    assert cordoner.reconcile("10.0.10.5", api) is None and calls == ["GET"]
