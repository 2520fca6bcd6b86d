"""The usage report against a real Prometheus on 127.0.0.1: synthetic kube-state-metrics and DCGM series are
backfilled, the shipped metering rules are backfilled from them, and `python -m oke_rdma.usage` reports GPU-hours,
utilisation, cost and quotas per tenant (table and CSV)."""

from __future__ import annotations

import csv
import datetime as dt
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from oke_rdma.monitoring import facts
from oke_rdma.usage import Tariff, UsageError, report
from tests.monitoring.promserver import PrometheusServer, openmetrics

ROOT = Path(__file__).resolve().parents[2]
HOUR = 3600


def _minutes(t0: float, first: int, last: int, value: float) -> list[tuple[float, float]]:
    return [(t0 + 60 * m, value) for m in range(first, last)]


def synthetic_series(t0: float) -> str:
    """Three hours of one-minute samples from ``t0`` (and ten warm-up minutes before it, so the backfilled rules,
    which start evaluating at an arbitrary offset, have a sample at ``t0`` too):

    * research/train-0 holds 8 GPUs on node n1 (pool gpu) the whole time; its 8 GPUs are 50 % busy;
    * analytics/a-1 holds 1 time-sliced GPU on n2 (pool shared) from minute 30 to 90 (Running, then Succeeded),
      25 % busy while it runs;
    * an idle GPU on n1 with no pod; a pending analytics pod asking for 4 GPUs.
    """
    end, warm = 180, -10
    series = []
    gpu = {"resource": "nvidia_com_gpu", "unit": "integer", "container": "main"}
    series.append(("kube_pod_container_resource_requests",
                   {**gpu, "namespace": "research", "pod": "train-0", "node": "n1"}, _minutes(t0, warm, end, 8)))
    series.append(("kube_pod_status_phase", {"namespace": "research", "pod": "train-0", "phase": "Running"},
                   _minutes(t0, warm, end, 1)))
    series.append(("kube_pod_container_resource_requests",
                   {**gpu, "namespace": "analytics", "pod": "a-1", "node": "n2"}, _minutes(t0, 30, end, 1)))
    series.append(("kube_pod_status_phase", {"namespace": "analytics", "pod": "a-1", "phase": "Running"},
                   _minutes(t0, 30, 90, 1) + _minutes(t0, 90, end, 0)))
    series.append(("kube_pod_container_resource_requests",
                   {**gpu, "namespace": "analytics", "pod": "wait-0", "node": ""}, _minutes(t0, warm, end, 4)))
    series.append(("kube_pod_status_phase", {"namespace": "analytics", "pod": "wait-0", "phase": "Pending"},
                   _minutes(t0, warm, end, 1)))
    series.append(("kube_pod_status_phase", {"namespace": "analytics", "pod": "wait-0", "phase": "Running"},
                   _minutes(t0, warm, end, 0)))
    for node, pool in (("n1", "gpu"), ("n2", "shared")):
        series.append(("kube_node_labels", {"node": node, "label_okerdma_io_node_pool": pool}, _minutes(t0, warm, end, 1)))
    for ns in ("research", "analytics"):
        series.append(("kube_namespace_labels", {"namespace": ns, "label_okerdma_io_tenant": ns},
                       _minutes(t0, warm, end, 1)))
    exporter = {"namespace": "gpu-operator", "pod": "nvidia-dcgm-exporter-x"}
    for i in range(8):
        series.append(("DCGM_FI_PROF_GR_ENGINE_ACTIVE",
                       {**exporter, "UUID": f"GPU-{i}", "gpu": str(i), "Hostname": "n1",
                        "exported_namespace": "research", "exported_pod": "train-0"}, _minutes(t0, warm, end, 0.5)))
    series.append(("DCGM_FI_PROF_GR_ENGINE_ACTIVE", {**exporter, "UUID": "GPU-8", "gpu": "8", "Hostname": "n1"},
                   _minutes(t0, warm, end, 1.0)))
    series.append(("DCGM_FI_PROF_GR_ENGINE_ACTIVE",
                   {**exporter, "UUID": "GPU-s", "gpu": "0", "Hostname": "n2", "exported_namespace": "analytics",
                    "exported_pod": "a-1"}, _minutes(t0, 30, 90, 0.25) + _minutes(t0, 90, end, 0)))
    return openmetrics(series)


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory):
    """A backfilled Prometheus (raw series and the shipped metering rules) serving on 127.0.0.1; stopped after."""
    now = dt.datetime.now(dt.timezone.utc).replace(minute=0, second=0, microsecond=0)
    t0 = (now - dt.timedelta(hours=8)).timestamp()
    server = PrometheusServer(tmp_path_factory.mktemp("prometheus"))
    server.backfill_series(synthetic_series(t0))
    server.backfill_rules([g for g in facts.rule_groups() if g["name"] == "okerdma.gpu.metering"], t0 - 600,
                          t0 + 3 * HOUR)
    server.start()
    try:
        yield server, dt.datetime.fromtimestamp(t0, dt.timezone.utc)
    finally:
        server.stop()


def test_report_gives_gpu_hours_utilisation_and_cost_per_tenant(prometheus):
    """Over the first two hours: research held 16 GPU-hours and used 8 (50 %); analytics held 1 GPU-hour on the
    shared pool and used 0.25; cost follows each pool's price; quotas appear next to use, idle tenants too."""
    server, t0 = prometheus
    tariff = Tariff(Decimal("2.00"), {"shared": Decimal("0.50")}, "EUR")
    rows = {r.tenant: r for r in report(server.url, t0, t0 + dt.timedelta(hours=2), tariff,
                                        {"research": (16, 0), "analytics": (4, 4), "idle": (2, 0)})}
    assert set(rows) == {"research", "analytics", "idle"}
    research, analytics, idle = rows["research"], rows["analytics"], rows["idle"]
    assert research.gpu_hours_allocated == pytest.approx(16.0)
    assert research.gpu_hours_used == pytest.approx(8.0)
    assert research.utilisation == pytest.approx(0.5)
    assert research.cost == Decimal("32.00")
    assert analytics.gpu_hours_allocated == pytest.approx(1.0)
    assert analytics.gpu_hours_used == pytest.approx(0.25)
    assert analytics.cost == Decimal("0.50")
    assert (analytics.quota_gpus, analytics.quota_borrowing_limit_gpus) == (4, 4)
    assert idle.gpu_hours_allocated == 0 and idle.utilisation is None and idle.cost == Decimal("0.00")


def test_report_window_counts_only_its_own_minutes(prometheus):
    """The hour from 1:00 to 2:00 holds 8 research GPU-hours and half an analytics GPU-hour (it ran 0:30-1:30). The
    metering rules see a pod up to one evaluation interval per rule level late (two levels: at most 2 minutes), so
    a pod ending inside the window may be counted up to 2 minutes longer."""
    server, t0 = prometheus
    rows = {r.tenant: r for r in report(server.url, t0 + dt.timedelta(hours=1), t0 + dt.timedelta(hours=2),
                                        Tariff(), {})}
    assert rows["research"].gpu_hours_allocated == pytest.approx(8.0)
    assert 0.5 <= rows["analytics"].gpu_hours_allocated <= 0.5 + 2 / 60


def test_cli_prints_a_table_and_writes_csv(prometheus, tmp_path):
    """`python -m oke_rdma.usage` with the dev stack's quotas prints one line per tenant and a total, and writes
    one CSV row per tenant."""
    server, t0 = prometheus
    stack = tmp_path / "Pulumi.usage.yaml"
    stack.write_text((ROOT / "Pulumi.dev.yaml").read_text().rstrip("\n") +
                     "\n  oke-rdma:metering:\n    pricePerGpuHour: 2.5\n    currency: EUR\n")
    out_csv = tmp_path / "usage.csv"
    start = t0.strftime("%Y-%m-%dT%H:%M:%SZ")
    end = (t0 + dt.timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    run = subprocess.run([sys.executable, "-m", "oke_rdma.usage", "--prometheus", server.url, "--from", start,
                          "--to", end, "--stack-file", str(stack), "--csv", str(out_csv)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == f"GPU usage {start} .. {end}"
    research = next(line for line in lines if line.startswith("research"))
    assert research.split() == ["research", "16.00", "8.00", "50%", "40.00", "16", "(+0)"]
    assert next(line for line in lines if line.startswith("total")).split()[:5] == [
        "total", "17.00", "8.25", "49%", "42.50"]
    rows = list(csv.DictReader(out_csv.open()))
    assert [r["tenant"] for r in rows] == ["analytics", "research"]
    assert rows[1]["gpu_hours_allocated"] == "16.0000" and rows[1]["cost"] == "40.00" and rows[1]["currency"] == "EUR"
    assert rows[0]["quota_gpus"] == "4" and rows[0]["quota_borrowing_limit_gpus"] == "4"


@pytest.mark.parametrize("args,needle", [
    (["--from", "2026-11-01T00:00:00", "--to", "2026-11-02T00:00:00Z"], "has no time zone"),
    (["--from", "2026-11-01T00:00:30Z", "--to", "2026-11-02T00:00:00Z"], "not on a whole minute"),
    (["--from", "yesterday", "--to", "2026-11-02T00:00:00Z"], "not an RFC 3339 time"),
    (["--from", "2026-11-02T00:00:00Z", "--to", "2026-11-01T00:00:00Z"], "--to must be after --from"),
])
def test_cli_refuses_bad_times_in_one_line(args, needle):
    """Malformed or reversed times exit 2 with one message, no traceback."""
    run = subprocess.run([sys.executable, "-m", "oke_rdma.usage", "--prometheus", "http://127.0.0.1:9", *args],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 2 and needle in run.stderr and "Traceback" not in run.stderr


def test_cli_reports_an_invalid_stack_config_by_key(tmp_path):
    """A stack file with a bad tariff exits 2 naming the key."""
    stack = tmp_path / "Pulumi.bad.yaml"
    stack.write_text((ROOT / "Pulumi.dev.yaml").read_text().rstrip("\n") +
                     "\n  oke-rdma:metering:\n    currency: euro\n")
    run = subprocess.run([sys.executable, "-m", "oke_rdma.usage", "--prometheus", "http://127.0.0.1:9", "--from",
                          "2026-11-01T00:00:00Z", "--to", "2026-11-02T00:00:00Z", "--stack-file", str(stack)],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 2 and "oke-rdma:metering.currency" in run.stderr and "Traceback" not in run.stderr


def test_unreachable_prometheus_is_one_line():
    """A Prometheus that does not answer is reported in one line (exit 1)."""
    with pytest.raises(UsageError, match="cannot reach Prometheus"):
        report("http://127.0.0.1:9", dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc),
               dt.datetime(2026, 11, 2, tzinfo=dt.timezone.utc), Tariff(), {})


def test_prometheus_error_is_reported(prometheus):
    """A query Prometheus refuses (here: a window longer than Prometheus' subquery limit is not the case, so an
    invalid rule name is used) surfaces Prometheus' own error."""
    server, t0 = prometheus
    from oke_rdma.usage import _query
    with pytest.raises(UsageError, match="Prometheus refused the query: bad_data"):
        _query(server.url, "sum(", t0.timestamp())
