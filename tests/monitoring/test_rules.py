"""The shipped Prometheus rules: promtool checks and unit-tests them; every alert has a firing and a silent case,
every recording rule an expected value; rules read only metrics an exporter or another rule defines."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from oke_rdma.monitoring import facts
from tests.monitoring.promql import metric_names
from tests.systemtools import require

HERE = Path(__file__).resolve().parent
TEST_FILES = (HERE / "alerts_test.yaml", HERE / "metering_test.yaml")


def promtool() -> str:
    return require("promtool")


def rules() -> list[dict]:
    return [r for g in facts.rule_groups() for r in g["rules"]]


def test_promtool_checks_the_rule_files():
    """`promtool check rules` accepts every shipped rule file (syntax, templates, duplicate names)."""
    out = subprocess.run([promtool(), "check", "rules", *map(str, facts.rule_files())], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert len(facts.rule_files()) == 2


def test_promtool_unit_tests_pass():
    """`promtool test rules` passes the synthetic DCGM, node-exporter and kube-state-metrics cases."""
    out = subprocess.run([promtool(), "test", "rules", *map(str, TEST_FILES)], capture_output=True, text=True,
                         timeout=120, cwd=HERE)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("SUCCESS") == len(TEST_FILES)


def test_promtool_unit_tests_can_fail(tmp_path):
    """A wrong expected value fails `promtool test rules` (the harness is not vacuous)."""
    doc = yaml.safe_load((HERE / "metering_test.yaml").read_text())
    doc["rule_files"] = [str((HERE / f).resolve()) for f in doc["rule_files"]]
    doc["tests"][0]["promql_expr_test"][0]["exp_samples"][0]["value"] = 7
    broken = tmp_path / "broken_test.yaml"
    broken.write_text(yaml.safe_dump(doc))
    out = subprocess.run([promtool(), "test", "rules", str(broken)], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "FAILED" in out.stdout + out.stderr


def _alert_cases() -> dict[str, list[list]]:
    cases: dict[str, list[list]] = {}
    for case in yaml.safe_load((HERE / "alerts_test.yaml").read_text())["tests"]:
        for t in case.get("alert_rule_test", []):
            cases.setdefault(t["alertname"], []).append(t["exp_alerts"])
    return cases


def _expr_cases() -> dict[str, list[list]]:
    """Recorded metric → the expected samples of every expression test reading it."""
    cases: dict[str, list[list]] = {}
    for case in yaml.safe_load((HERE / "metering_test.yaml").read_text())["tests"]:
        for t in case.get("promql_expr_test", []):
            for name in metric_names(t["expr"]):
                cases.setdefault(name, []).append(t["exp_samples"])
    return cases


@pytest.mark.parametrize("alert", [r["alert"] for r in rules() if "alert" in r])
def test_every_alert_has_a_firing_and_a_silent_case(alert):
    """Each alert is unit-tested both firing (on a failing series) and silent (on a healthy one)."""
    cases = _alert_cases().get(alert, [])
    assert any(c for c in cases), f"{alert}: no case where it fires"
    assert any(not c for c in cases), f"{alert}: no case where it stays silent"


@pytest.mark.parametrize("record", sorted(facts.recorded_metrics()))
def test_every_recording_rule_has_an_expected_value(record):
    """Each recording rule's output is checked against hand-computed samples."""
    assert any(samples for samples in _expr_cases().get(record, [])), f"{record}: no expected samples"


@pytest.mark.parametrize("rule", rules(), ids=lambda r: r.get("alert") or r.get("record"))
def test_rules_read_only_defined_metrics(rule):
    """A rule reads only metrics the DCGM exporter list, node-exporter, kube-state-metrics or a recording rule
    defines (a typo would make an alert silently never fire)."""
    unknown = metric_names(rule["expr"]) - facts.known_metrics()
    assert not unknown, f"{rule.get('alert') or rule.get('record')} reads undefined metrics {sorted(unknown)}"


def test_the_undefined_metric_check_catches_a_typo():
    """A misspelt DCGM field is reported by the metric check."""
    assert metric_names("DCGM_FI_DEV_XID_ERROR == 79") - facts.known_metrics() == {"DCGM_FI_DEV_XID_ERROR"}


def test_reset_alert_covers_exactly_the_xid_catalogue_entries():
    """GpuXidNeedsReset fires on exactly the XIDs of facts.XID_NEEDS_RESET; XID 79 has its own alert and the
    application XIDs the device plugin ignores are in neither."""
    import promql_parser

    def xids(expr: str) -> set[int]:
        found: set[int] = set()

        def visit(node: object) -> None:
            if isinstance(node, promql_parser.NumberLiteral):
                found.add(int(node.val))
        promql_parser.walk(promql_parser.parse(expr), visit)
        return found

    by_name = {r["alert"]: r["expr"] for r in rules() if "alert" in r}
    assert xids(by_name["GpuXidNeedsReset"]) == set(facts.XID_NEEDS_RESET)
    assert xids(by_name["GpuFallenOffBus"]) == {facts.XID_FALLEN_OFF_BUS}
    assert not facts.XID_APPLICATION_ERRORS & (set(facts.XID_NEEDS_RESET) | {facts.XID_FALLEN_OFF_BUS})


def test_every_alert_has_severity_summary_and_runbook():
    """Alerts carry severity critical|warning, a summary and a runbook anchor in docs/monitoring.md."""
    for r in rules():
        if "alert" in r:
            assert r["labels"]["severity"] in ("critical", "warning"), r["alert"]
            assert r["annotations"]["summary"] and r["annotations"]["runbook"].startswith("docs/monitoring.md#")


def test_every_runbook_anchor_exists_in_the_docs():
    """Each alert's runbook link points at an anchor that docs/monitoring.md defines, and the page names every
    alert."""
    import re as _re
    doc = (Path(__file__).resolve().parents[2] / "docs" / "monitoring.md").read_text()
    anchors = set(_re.findall(r'<a id="([^"]+)"></a>', doc))
    for r in rules():
        if "alert" in r:
            assert r["annotations"]["runbook"].split("#", 1)[1] in anchors, r["alert"]
            assert f"`{r['alert']}`" in doc, r["alert"]


def test_dcgm_metrics_list_keeps_the_exporter_defaults_and_adds_what_the_alerts_need():
    """oke-rdma's DCGM metrics list replaces the exporter's: it keeps every default field and adds the ECC, NVLink
    error and profiling fields the alerts, metering rules and dashboards read; every line is well formed."""
    import csv
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "dcgm-exporter-default-counters.txt"
    defaults = {line.strip() for line in fixture.read_text().splitlines() if line.strip() and not line.startswith("#")}
    ours = facts.dcgm_metrics()
    assert defaults <= ours
    assert {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
            "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "DCGM_FI_PROF_GR_ENGINE_ACTIVE"} <= ours - defaults
    for row in csv.reader(line for line in facts.DCGM_METRICS_CSV.read_text().splitlines()
                          if line.strip() and not line.startswith("#")):
        assert len(row) >= 3 and row[0].strip().startswith("DCGM_FI_") and row[1].strip() in ("gauge", "counter"), row
