"""The shipped Grafana dashboards: valid Grafana dashboard JSON (Grafana's own schema types round-trip it), one
datasource variable, unique panel ids, and queries that parse and read only metrics an exporter or a recording rule
defines."""

from __future__ import annotations

import json
import re

import pytest
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import dashboard as dm

from oke_rdma.monitoring import facts
from oke_rdma.monitoring.dashboards import dashboards
from tests.monitoring.promql import metric_names

BOARDS = dashboards()
#: Grafana template variables replaced by a value of their type before parsing (Grafana docs "Global variables").
_VARIABLE = re.compile(r"\$(__range|__interval|__rate_interval)\b|\$\{?(\w+)\}?")
_LABEL_VALUES = re.compile(r"^label_values\((.+),\s*(\w+)\)$")


def expand(expr: str) -> str:
    """A dashboard query with template variables replaced: durations by 5m, the others by a match-all regex."""
    return _VARIABLE.sub(lambda m: "5m" if m.group(1) else ".*", expr)


def queries(board: dict) -> list[str]:
    found = [t["expr"] for p in board["panels"] for t in p.get("targets", [])]
    for v in board["templating"]["list"]:
        if v["type"] == "query":
            m = _LABEL_VALUES.match(v["query"])
            assert m, f"variable {v['name']}: not a label_values() query: {v['query']}"
            found.append(m.group(1))
    return found


def unknown_metrics(board: dict) -> set[str]:
    out: set[str] = set()
    for q in queries(board):
        out |= metric_names(expand(q)) - facts.known_metrics()
    return out


@pytest.mark.parametrize("name", sorted(BOARDS))
def test_dashboard_round_trips_through_grafana_schema_types(name):
    """The JSON decodes into Grafana's Dashboard model and encodes back unchanged (no unknown or mistyped field)."""
    board = BOARDS[name]
    again = json.loads(json.dumps(dm.Dashboard.from_json(board), cls=JSONEncoder))
    assert again == board
    assert board["uid"] and board["title"] and board["schemaVersion"] >= 36


@pytest.mark.parametrize("name", sorted(BOARDS))
def test_dashboard_panels_have_ids_layout_and_the_datasource(name):
    """Every panel has a unique id and a grid position; every query panel uses the datasource variable."""
    panels = BOARDS[name]["panels"]
    assert len({p["id"] for p in panels}) == len(panels)
    for p in panels:
        assert {"h", "w", "x", "y"} <= set(p["gridPos"])
        if p["type"] != "row":
            assert p["datasource"] == {"type": "prometheus", "uid": "${datasource}"} and p["targets"]
    assert [v["name"] for v in BOARDS[name]["templating"]["list"] if v["type"] == "datasource"] == ["datasource"]


@pytest.mark.parametrize("name", sorted(BOARDS))
def test_dashboard_queries_read_only_defined_metrics(name):
    """Each query parses as PromQL and reads only metrics of the DCGM list, node-exporter, kube-state-metrics or
    the recording rules."""
    assert queries(BOARDS[name])
    assert unknown_metrics(BOARDS[name]) == set()


def test_a_dashboard_query_on_an_undefined_metric_is_caught():
    """A panel reading a metric nobody exports (here a misspelt DCGM field) is reported."""
    board = json.loads(json.dumps(BOARDS["okerdma-gpu-fleet.json"]))
    board["panels"][1]["targets"][0]["expr"] = 'avg(DCGM_FI_DEV_GPU_UTILIZATION{Hostname=~"$node"})'
    assert unknown_metrics(board) == {"DCGM_FI_DEV_GPU_UTILIZATION"}


def test_a_dashboard_query_that_does_not_parse_is_caught():
    """A malformed query fails the parse."""
    with pytest.raises(Exception):
        metric_names(expand("sum by (pool (tenant_namespace_pool:okerdma_gpu_allocated:sum)"))


def test_fleet_dashboard_covers_the_issue_panels():
    """The fleet dashboard shows utilisation, memory, power, temperature, XID, NVLink and RDMA NIC (per node and
    pool) panels."""
    text = json.dumps(BOARDS["okerdma-gpu-fleet.json"])
    for metric in ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_TEMP",
                   "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
                   "node_pool:okerdma_rdma_receive_bytes:rate5m"):
        assert metric in text


def test_docs_show_every_fleet_panel():
    """docs/monitoring.md lists every panel of the GPU fleet dashboard by its title."""
    from pathlib import Path
    doc = (Path(__file__).resolve().parents[2] / "docs" / "monitoring.md").read_text()
    for panel in BOARDS["okerdma-gpu-fleet.json"]["panels"]:
        assert panel["title"] in doc, panel["title"]
