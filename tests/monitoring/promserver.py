"""Test helper: a real Prometheus server (Debian's ``prometheus`` package) on 127.0.0.1, fed by backfilling.

Series are written as OpenMetrics text and turned into TSDB blocks with ``promtool tsdb create-blocks-from
openmetrics``; recording rules are backfilled with ``promtool tsdb create-blocks-from rules`` against the running
server, one dependency level at a time (a rule that reads another rule's output needs that output in the TSDB
first), restarting the server to load each level's blocks. Every wait is bounded.

Evaluation times. promtool evaluates a rule group at the interval's multiples shifted by an offset it derives from a
hash of the group's name and rule file path (Prometheus ``Group.EvalTimestamp``; ``cmd/promtool/rules.go`` cuts the
range at each 2-hour block, seconds truncated: prometheus/prometheus#19714 and #19715 describe that code). With the
file under a fresh temporary directory the offset changed from run to run, and an offset near the end of the minute
can lose the evaluation at a block's end: one missing minute of GPU-hours, the likely cause of the 15.87 instead of
16 seen in a few full runs (not reproduced on demand). The file is passed by its name, from its directory, so the
offsets are the same in every run: a bad one would fail every run, not one in many.

The server looks back one minute for a series' latest sample (``--query.lookback-delta=1m``, the sample spacing)
instead of five: backfilled blocks hold samples only, no staleness markers, so with the default a series that
ended (a pod that finished) would look alive for five more minutes at each rule level. A live Prometheus marks a
vanished series stale at once, so there the default is right.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterable, Optional

import requests
import yaml

START_TIMEOUT_SECONDS = 30


def binary(name: str) -> str:
    """The path of ``name``: skipped locally when missing, failed in CI (:func:`tests.systemtools.require`)."""
    from tests.systemtools import require
    return require(name)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def openmetrics(series: Iterable[tuple[str, dict[str, str], list[tuple[float, float]]]]) -> str:
    """OpenMetrics text of gauge ``series`` ``(name, labels, [(unix seconds, value), ...])``, families contiguous."""
    by_name: dict[str, list[str]] = {}
    for name, labels, samples in series:
        text = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
        lines = by_name.setdefault(name, [])
        lines += [f"{name}{{{text}}} {value} {ts:.3f}" for ts, value in samples]
    out = []
    for name in sorted(by_name):
        out.append(f"# TYPE {name} gauge")
        out += by_name[name]
    return "\n".join(out) + "\n# EOF\n"


class PrometheusServer:
    """Prometheus on 127.0.0.1:<free port> over ``workdir/data``; :meth:`stop` always ends the process."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.data = workdir / "data"
        self.data.mkdir(parents=True, exist_ok=True)
        self.config = workdir / "prometheus.yml"
        self.config.write_text(yaml.safe_dump({"global": {"scrape_interval": "1m"}}))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: Optional[subprocess.Popen] = None
        self.log = workdir / "prometheus.log"

    def backfill_series(self, text: str) -> None:
        src = self.workdir / "series.om"
        src.write_text(text)
        run([binary("promtool"), "tsdb", "create-blocks-from", "openmetrics", str(src), str(self.data)])

    def backfill_rules(self, groups: list[dict], start: float, end: float) -> None:
        """Backfill recording rules level by level (restarts the server between levels)."""
        for level, rules in enumerate(rule_levels(groups)):
            path = self.workdir / f"rules-{level}.yaml"
            path.write_text(yaml.safe_dump({"groups": [{"name": f"level-{level}", "interval": "1m",
                                                        "rules": rules}]}))
            out = self.workdir / f"rule-blocks-{level}"
            self.start()
            try:  # the rule file by a relative name (see the module docstring: evaluation times)
                run([binary("promtool"), "tsdb", "create-blocks-from", "rules", f"--url={self.url}",
                     f"--start={int(start)}", f"--end={int(end)}", f"--output-dir={out}", "--eval-interval=60s",
                     path.name], cwd=self.workdir)
            finally:
                self.stop()
            for block in out.iterdir():
                shutil.move(str(block), self.data / block.name)

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [binary("prometheus"), f"--config.file={self.config}", f"--storage.tsdb.path={self.data}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn", "--query.lookback-delta=1m",
             "--storage.tsdb.retention.time=3650d"],
            stdout=self.log.open("ab"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"prometheus exited {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            try:
                if requests.get(f"{self.url}/-/ready", timeout=1).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.1)
        self.stop()
        raise AssertionError(f"prometheus not ready after {START_TIMEOUT_SECONDS} s: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=15)
        self.proc = None


def run(cmd: list[str], cwd: Optional[Path] = None) -> None:
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=cwd)
    assert out.returncode == 0, f"{' '.join(cmd)}: {out.stdout}{out.stderr}"


def rule_levels(groups: list[dict]) -> list[list[dict]]:
    """Recording rules grouped by dependency depth: level 0 reads only raw series, level n reads level < n."""
    from tests.monitoring.promql import metric_names

    rules = [r for g in groups for r in g["rules"] if "record" in r]
    recorded = {r["record"] for r in rules}
    level: dict[str, int] = {}
    while len(level) < len(rules):
        progressed = False
        for r in rules:
            deps = metric_names(r["expr"]) & recorded
            if r["record"] not in level and deps <= set(level):
                level[r["record"]] = 1 + max((level[d] for d in deps), default=-1)
                progressed = True
        assert progressed, "recording rules depend on each other in a cycle"
    return [[r for r in rules if level[r["record"]] == n] for n in range(max(level.values()) + 1)]
