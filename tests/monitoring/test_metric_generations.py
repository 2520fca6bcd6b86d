"""Alerts and panels that cannot go silent: every DCGM metric an alert rule or a dashboard panel reads is in the
exporter's configured field list, no rule or panel reads only fields that never move on a GPU generation of the
shapes oke-rdma knows (the NVLink *_COUNT_TOTAL fields stay 0 on Hopper, the NVLINK_COUNT_* fields exist from
Blackwell on), and the field list holds no pair of fields that cannot be watched together."""

from __future__ import annotations

import pytest

from oke_rdma.facts.shapes import SHAPES
from oke_rdma.monitoring import facts
from tests.monitoring.promql import metric_names
from tests.monitoring.test_dashboards import BOARDS, expand

#: The NVIDIA GPU generations of every shape the facts know.
GENERATIONS = sorted({g for s in SHAPES.values() if s.gpu_vendor == "NVIDIA"
                      and (g := facts.gpu_generation(s.gpu_model or "")) is not None})


def readers() -> dict[str, set[str]]:
    """Every alert rule and dashboard panel → the DCGM metrics its queries read."""
    out: dict[str, set[str]] = {}
    for group in facts.rule_groups():
        for rule in group["rules"]:
            name = f"rule {rule.get('alert') or rule.get('record')}"
            out[name] = {m for m in metric_names(rule["expr"]) if m.startswith("DCGM_")}
    for board_name, board in BOARDS.items():
        for panel in board["panels"]:
            found: set[str] = set()
            for target in panel.get("targets", []):
                found |= {m for m in metric_names(expand(target["expr"])) if m.startswith("DCGM_")}
            out[f"panel {board_name}/{panel.get('title')}"] = found
    return out


def silent_readers(reads: dict[str, set[str]], generations: list[str]) -> list[str]:
    """``"<reader> on <generation>: ..."`` for each reader whose DCGM metrics all never move on a generation."""
    return [f"{name} on {g}: reads only {sorted(metrics)} ({facts.silent_on(sorted(metrics)[0], g)})"
            for name, metrics in reads.items() for g in generations
            if metrics and all(facts.silent_on(m, g) for m in metrics)]


def test_every_nvidia_shape_has_a_known_generation():
    models = {s.gpu_model for s in SHAPES.values() if s.gpu_vendor == "NVIDIA"}
    assert [m for m in models if facts.gpu_generation(m or "") is None] == []
    assert {"Ampere", "Hopper", "Blackwell"} <= set(GENERATIONS)


def test_every_dcgm_metric_read_is_in_the_exporter_field_list():
    listed = facts.dcgm_metrics()
    missing = {name: sorted(m - listed) for name, m in readers().items() if m - listed}
    assert missing == {}


def test_no_alert_or_panel_is_silent_on_a_generation_the_shapes_run():
    """On Hopper (BM.GPU.H100.8, H200.8) the NVLink alerts read the DL counters, not only the totals that stay 0."""
    assert silent_readers(readers(), GENERATIONS) == []
    reads = readers()
    assert "DCGM_FI_DEV_NVLINK_ERROR_DL_RECOVERY" in reads["rule GpuNvlinkRecoveryErrors"]
    assert "DCGM_FI_DEV_NVLINK_ERROR_DL_CRC" in reads["rule GpuNvlinkCrcErrors"]


@pytest.mark.parametrize("expr, generation", [
    ("increase(DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL[10m]) > 0", "Hopper"),  # the old recovery alert
    ("increase(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL[10m])"
     " + increase(DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL[10m]) > 0", "Hopper"),  # the old CRC alert
    ("increase(DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS[10m]) > 0", "Hopper"),  # NVLink5 only
    ("rate(DCGM_FI_DEV_NVLINK_COUNT_RX_ERRORS[5m]) > 0", "Ampere"),
])
def test_a_reader_of_fields_that_never_move_is_caught(expr, generation):
    reads = {"rule X": {m for m in metric_names(expr) if m.startswith("DCGM_")}}
    [line] = silent_readers(reads, [generation])
    assert line.startswith(f"rule X on {generation}: reads only") and "checked 2026-12-02" in line


def test_a_reader_with_one_field_that_counts_is_not_silent():
    expr = ("increase(DCGM_FI_DEV_NVLINK_ERROR_DL_RECOVERY[10m]) > 0 "
            "or increase(DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL[10m]) > 0")
    assert silent_readers({"rule X": metric_names(expr)}, GENERATIONS) == []


def test_the_field_list_holds_no_pair_that_cannot_be_watched_together():
    """ECC single-bit errors and the NVLINK_COUNT_* fields both read N/A when watched together (dcgm-exporter#581):
    the list keeps ECC and carries no NVLINK_COUNT_* field; adding one is caught."""
    listed = facts.dcgm_metrics()
    assert facts.exclusive_conflicts(listed) == []
    assert "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL" in listed
    [line] = facts.exclusive_conflicts(listed | {"DCGM_FI_DEV_NVLINK_COUNT_RX_ERRORS"})
    assert "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL and DCGM_FI_DEV_NVLINK_COUNT_RX_ERRORS" in line and "#581" in line


def test_every_silent_entry_names_a_dated_source_and_a_known_generation():
    for field, gens in {**facts.DCGM_SILENT, **facts.DCGM_SILENT_PREFIXES}.items():
        for generation, source in gens.items():
            assert generation in set(facts.GPU_GENERATIONS.values()), field
            assert "checked 20" in source, field
