"""Kueue's feature gates as the release gets them: a user's gate list merges with the platform's by name; gates
whose required gates are off (on by default or set on) are refused where Kueue would refuse to start, or where they
would do nothing; topology-aware scheduling stays on while RDMA pools exist; malformed entries and gates given both
as a list and in the manager configuration are refused."""

from __future__ import annotations

import pytest

from oke_rdma.addons import REGISTRY
from oke_rdma.addons._registry import merge_keyed_list
from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.config.checks.kueue_gates import check_kueue_gates
from oke_rdma.config.checks.known_bugs import known_bug_warnings
from oke_rdma.facts.kueue_gates import GATE_DEPENDENCIES, TAS, default_state
from tests.stackcfg import dev_raw_config, load_dev_config, pinned_knowingly

KEY = "oke-rdma:platform.kueue.values.controllerManager.featureGates"


def gates(*pairs: tuple[str, bool], version: str = "0.19.7") -> dict:
    kueue = pinned_knowingly("kueue", version) if version != "0.19.7" else {"version": version}
    return {"platform": {"kueue": {**kueue, "values": {"controllerManager": {
        "featureGates": [{"name": n, "enabled": e} for n, e in pairs]}}}}}


def problems(overrides: dict) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(**overrides))
    return err.value.problems


def gate_lines(overrides: dict) -> list[str]:
    """The feature-gate problems of a config (empty when it loads, or fails only for other reasons)."""
    try:
        cfg = load_dev_config(**overrides)
    except ConfigError as err:
        return [p for p in err.problems if "featureGates" in p]
    return check_kueue_gates(cfg)


def final_gates(cfg) -> list[dict]:
    return REGISTRY["kueue"].helm_values(cfg.platform.kueue, REGISTRY.context(cfg.platform))["controllerManager"][
        "featureGates"]


# -- the list merges by name ---------------------------------------------------------------------------------------
def test_a_user_gate_list_keeps_the_platform_s_own_gate():
    cfg = load_dev_config(**gates(("TASBalancedPlacement", True)))
    assert final_gates(cfg) == [{"name": "PodIntegrationCountSucceededPodsAsReady", "enabled": True},
                                {"name": "TASBalancedPlacement", "enabled": True}]
    # the platform's gate is still on, so the bug its fix needs it for is not reported
    assert not [w for w in known_bug_warnings(cfg) if "PodIntegrationCountSucceededPodsAsReady" in w]


def test_a_user_gate_of_the_same_name_wins_and_is_then_reported():
    cfg = load_dev_config(**gates(("PodIntegrationCountSucceededPodsAsReady", False)))
    assert final_gates(cfg) == [{"name": "PodIntegrationCountSucceededPodsAsReady", "enabled": False}]
    assert [w for w in known_bug_warnings(cfg) if "kueue#15910" in w and "is off" in w]


def test_keyed_merge_keeps_order_and_appends_new_names():
    ours = [{"name": "A", "enabled": True}, {"name": "B", "enabled": True}]
    theirs = [{"name": "C", "enabled": True}, {"name": "A", "enabled": False}, "junk"]
    assert merge_keyed_list(ours, theirs, "name") == [{"name": "A", "enabled": False}, {"name": "B", "enabled": True},
                                                       {"name": "C", "enabled": True}, "junk"]


# -- the dependency table ------------------------------------------------------------------------------------------
def test_every_row_carries_its_source_and_date():
    for row in GATE_DEPENDENCIES:
        assert "kubernetes-sigs/kueue" in row.source and "checked 20" in row.source, row.gate
        assert row.requires and row.refused_from
        for r in row.requires:
            assert default_state(r, "0.19.7") is not None, f"{row.gate} needs {r}, whose default is not recorded"


def test_tas_recompute_is_refused_from_the_cherry_picks_on():
    row = next(r for r in GATE_DEPENDENCIES if r.gate == "TASRecomputeAssignmentWithinSchedulingCycle")
    assert not row.refused("0.18.2") and row.refused("0.18.5") and row.refused("0.18.8")
    assert not row.refused("0.19.0") and row.refused("0.19.1") and row.refused("0.19.7") and row.refused("0.20.0")
    assert not row.refused("0.17.8")


# -- TopologyAwareScheduling off ------------------------------------------------------------------------------------
def test_tas_off_is_refused_while_rdma_pools_exist_and_names_the_default_on_gates():
    lines = problems(gates((TAS, False)))
    rdma = [p for p in lines if p.startswith(KEY) and "RDMA pool gpu" in p]
    assert len(rdma) == 1 and "enabled: true" in rdma[0]
    refused = [p for p in lines if p.startswith(KEY) and "refuses to start with TopologyAwareScheduling off" in p]
    assert len(refused) == 1
    for gate in ("TASRecomputeAssignmentWithinSchedulingCycle", "TASProfileMixed", "TASHandleOverlappingFlavors",
                 "TASFailedNodeReplacement", "TASMultiLayerTopology"):
        assert f"{gate} (on by default)" in refused[0]
    assert "\n" not in refused[0] and "checked 2026" in refused[0]


def test_tas_off_without_rdma_pools_passes_once_every_dependent_gate_is_off():
    cfg = load_dev_config()
    dependents = sorted({r.gate for r in GATE_DEPENDENCIES if TAS in r.requires})
    off = [{"name": g, "enabled": False} for g in [TAS, *dependents]]
    values = {"controllerManager": {"featureGates": off}}
    no_rdma = cfg.model_copy(update={
        "node_pools": {n: p.model_copy(update={"rdma": False}) for n, p in cfg.node_pools.items()},
        "platform": cfg.platform.model_copy(update={"kueue": cfg.platform.kueue.model_copy(update={"values": values})})})
    assert check_kueue_gates(no_rdma) == []
    # the same values with RDMA pools: only the topology line remains
    with_rdma = cfg.model_copy(update={
        "platform": cfg.platform.model_copy(update={"kueue": cfg.platform.kueue.model_copy(update={"values": values})})})
    assert [p for p in check_kueue_gates(with_rdma) if "RDMA pool" in p] == check_kueue_gates(with_rdma)


def test_the_dev_stack_s_gates_pass():
    assert check_kueue_gates(load_dev_config()) == []


# -- other dependencies of the class --------------------------------------------------------------------------------
def test_failed_node_replacement_off_is_refused_while_its_sub_gates_stay_on():
    lines = gate_lines(gates(("TASFailedNodeReplacement", False)))
    assert len(lines) == 1 and "refuses to start with TASFailedNodeReplacement off" in lines[0]
    assert "TASFailedNodeReplacementFailFast (on by default)" in lines[0]
    assert "TASReplaceNodeOnPodTermination (on by default)" in lines[0]
    assert gate_lines(gates(("TASFailedNodeReplacement", False), ("TASFailedNodeReplacementFailFast", False),
                            ("TASReplaceNodeOnPodTermination", False))) == []


def test_dra_integration_off_is_refused_where_its_sub_gates_are_on_by_default():
    lines = gate_lines(gates(("KueueDRAIntegration", False)))
    assert len(lines) == 1 and "KueueDRAIntegrationExtendedResource (on by default)" in lines[0]
    assert "KueueDRAIntegrationPartitionableDevices (on by default)" in lines[0]
    assert "KueueDRAIntegrationConsumableCapacity" not in lines[0]  # Alpha, off by default


def test_a_set_on_gate_without_its_dependency_is_refused():
    lines = gate_lines(gates(("UnadmittedWorkloadsExplicitStatus", True)))
    assert len(lines) == 1 and "UnadmittedWorkloadsExplicitStatus (set on)" in lines[0]
    assert "UnadmittedWorkloadsObservability" in lines[0]
    assert gate_lines(gates(("UnadmittedWorkloadsExplicitStatus", True),
                            ("UnadmittedWorkloadsObservability", True))) == []


def test_elastic_slices_with_tas_needs_elastic_slices():
    assert gate_lines(gates(("ElasticJobsViaWorkloadSlicesWithTAS", True))) == []  # slices on by default from 0.18
    lines = gate_lines(gates(("ElasticJobsViaWorkloadSlicesWithTAS", True), ("ElasticJobsViaWorkloadSlices", False)))
    assert len(lines) == 1 and "ElasticJobsViaWorkloadSlices off" in lines[0]


def test_before_kueue_checks_a_pair_a_set_on_gate_is_refused_as_doing_nothing_but_defaults_are_left_alone():
    # 0.17 does not check TASBalancedPlacement against TAS, and its default-on TAS gates do nothing without TAS
    lines = gate_lines(gates((TAS, False), ("TASProfileMixed", False), ("TASBalancedPlacement", True),
                             version="0.17.0"))
    idle = [p for p in lines if "no effect" in p]
    assert len(idle) == 1 and "TASBalancedPlacement (set on)" in idle[0]
    assert not [p for p in lines if "refuses to start" in p]


# -- the entries themselves -----------------------------------------------------------------------------------------
def test_an_enabled_written_as_text_is_refused():
    overrides = {"platform": {"kueue": {"values": {"controllerManager": {
        "featureGates": [{"name": "TASBalancedPlacement", "enabled": "false"}]}}}}}
    lines = gate_lines(overrides)
    assert len(lines) == 1 and lines[0].startswith(KEY) and "enabled: false" in lines[0]


def test_gates_in_both_the_list_and_the_manager_configuration_are_refused():
    config_yaml = ("managedJobsNamespaceSelector:\n  matchExpressions:\n  - key: okerdma.io/tenant\n"
                   "    operator: Exists\nfeatureGates:\n  TASBalancedPlacement: true\n")
    overrides = {"platform": {"kueue": {"values": {"managerConfig": {"controllerManagerConfigYaml": config_yaml}}}}}
    lines = gate_lines(overrides)
    assert len(lines) == 1 and "cannot" not in lines[0] and "refuses both" in lines[0]
    assert lines[0].startswith("oke-rdma:platform.kueue.values.managerConfig.controllerManagerConfigYaml:")
