"""One measured preview: the command, its wall time, and the CPU time and peak memory of each process it ran — the
preview's own process and each pack's analyzer server — plus what the stack weighs (property nodes) and the
no-op packs that give the physical floor of any pack.

* **Per process.** ``os.wait4`` on the preview gives its wall and CPU time, but its ``ru_maxrss`` is the largest of
  the preview and the servers it reaped, not the preview's own. The preview is therefore run with
  ``--timings-json`` (:mod:`offline.timings`): its own CPU time and peak RSS (``getrusage``) and, for each pack's
  server, the CPU time and peak RSS the preview read when it reaped it.
* **Property nodes.** What a pack converts and walks is the resources' properties, not their number: each tenant's
  ClusterQueue lists every pool's flavor, so 1 pool × 200 tenants is 1 346 resources and 64 × 200 only 1 471, but
  the second carries several times the properties. :func:`property_nodes` counts every value (map, list, scalar) of
  every resource's inputs (what ``Analyze`` receives) and outputs (what ``AnalyzeStack`` receives) in the plan.
* **No-op packs.** :func:`write_noop_packs` writes two Python packs whose one resource policy and one stack policy do
  nothing, served by pulumi-policy as any pack is: the same preview with them (``--policy-pack`` twice) costs what
  any two packs cost — starting, the gRPC calls, pulumi-policy converting each resource once per call — so a stack's
  ratio to it is what the packs' rules add.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Measurement:
    """Repeated runs of one command: wall times (s), peak RSS (MB) and CPU (s) of each run (``os.wait4``: the
    process and the children it reaped), and, for a preview run with ``--timings-json``, its own figures and its
    servers'."""

    walls: list[float]
    rss_mb: list[float]
    cpu: list[float]  # user + system CPU seconds of the child and of the servers it reaped
    own_cpu: list[float] = field(default_factory=list)  # the preview process alone
    own_peak_mb: list[float] = field(default_factory=list)
    servers_cpu: list[float] = field(default_factory=list)  # every pack server together, per run
    server_peak_mb: dict[str, list[float]] = field(default_factory=dict)  # pack → per run

    @property
    def median_s(self) -> float:
        return statistics.median(self.walls)

    @property
    def median_cpu_s(self) -> float:
        return statistics.median(self.cpu)

    @property
    def peak_mb(self) -> float:
        return max(self.rss_mb)

    @property
    def median_servers_cpu_s(self) -> Optional[float]:
        return statistics.median(self.servers_cpu) if self.servers_cpu else None

    @property
    def own_peak(self) -> Optional[float]:
        return max(self.own_peak_mb) if self.own_peak_mb else None


@dataclass
class Row:
    """One stack's figures: its size, its previews' times (with the repository's packs and with the no-op packs),
    the CPU and peak memory of each process, and its estimated ``pulumi up``."""

    stack: str
    pools: Optional[int]
    tenants: Optional[int]
    resources: int
    median_s: float
    min_s: float
    max_s: float
    cpu_s: float  # the preview and its servers
    peak_mb: float  # the largest of the preview and its servers (os.wait4)
    estimated_up_min: float
    unavoidable_min: float
    walls: list[float] = field(default_factory=list)
    property_nodes: int = 0
    own_peak_mb: Optional[float] = None  # the preview process alone
    server_peak_mb: dict[str, float] = field(default_factory=dict)  # pack → its server's peak
    servers_cpu_s: Optional[float] = None  # the packs' servers together
    noop_median_s: Optional[float] = None  # the same stack with the no-op packs
    noop_cpu_s: Optional[float] = None
    noop_servers_cpu_s: Optional[float] = None
    noop_walls: list[float] = field(default_factory=list)


def measure_once(cmd: list[str], into: Measurement, cwd: Path = ROOT, timings_json: Optional[Path] = None) -> None:
    """Run ``cmd`` once and append its wall time (spawn to exit), max RSS and CPU time (``os.wait4``) to ``into``;
    with ``timings_json`` (the ``--timings-json`` path in ``cmd``), also the preview's own and its servers' figures.

    :raises RuntimeError: if it exits non-zero (with its stderr).
    """
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        if proc.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{err.read().decode(errors='replace')}")
    into.walls.append(wall)
    into.rss_mb.append(usage.ru_maxrss / 1024)  # Linux reports KiB
    into.cpu.append(usage.ru_utime + usage.ru_stime)
    if timings_json is not None:
        figures = json.loads(timings_json.read_text(encoding="utf-8"))
        into.own_cpu.append(figures["cpuS"])
        into.own_peak_mb.append(figures["peakMb"])
        into.servers_cpu.append(sum(s["cpuS"] for s in figures["servers"].values()))
        for pack, server in figures["servers"].items():
            into.server_peak_mb.setdefault(pack, []).append(server["peakMb"])


def measure(cmd: list[str], runs: int, cwd: Path = ROOT) -> Measurement:
    """Run ``cmd`` ``runs`` times, one after the other (see :func:`measure_once`)."""
    m = Measurement([], [], [])
    for _ in range(runs):
        measure_once(cmd, m, cwd)
    return m


def preview_cmd(stack_file: Path, plan: Path, timings_json: Optional[Path] = None,
                packs: Optional[list[Path]] = None) -> list[str]:
    """``python -m offline.preview`` of ``stack_file`` writing ``plan`` (and ``--timings-json``), with the default
    packs or ``packs``."""
    cmd = [sys.executable, "-m", "offline.preview", "--config-file", str(stack_file), "--json", str(plan)]
    if timings_json is not None:
        cmd += ["--timings-json", str(timings_json)]
    for pack in packs or []:
        cmd += ["--policy-pack", str(pack)]
    return cmd


def _nodes(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + sum(_nodes(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(_nodes(v) for v in value)
    return 1


def property_nodes(resources: list[dict[str, Any]]) -> int:
    """Every value (map, list, scalar; the top-level maps included) of the plan resources' ``inputs`` and
    ``outputs``."""
    return sum(_nodes(r.get("inputs") or {}) + _nodes(r.get("outputs") or {}) for r in resources)


_NOOP_MAIN = '''"""A pack whose policies do nothing (bench/measure.py): the floor any pack costs."""
from pulumi_policy import (EnforcementLevel, PolicyPack, ResourceValidationPolicy, StackValidationPolicy)

PolicyPack(name="{name}", enforcement_level=EnforcementLevel.ADVISORY, policies=[
    ResourceValidationPolicy(name="{name}-resource", description="does nothing", validate=lambda args, report: None),
    StackValidationPolicy(name="{name}-stack", description="does nothing", validate=lambda args, report: None),
])
'''


def write_noop_packs(directory: Path) -> list[Path]:
    """Two no-op pack directories under ``directory`` (``noop-first``, ``noop-second``), as ``--policy-pack``
    takes them."""
    packs = []
    for name in ("noop-first", "noop-second"):
        pack = directory / name
        pack.mkdir(parents=True, exist_ok=True)
        (pack / "PulumiPolicy.yaml").write_text(f"runtime: python\nversion: 0.0.1\ndescription: {name}\n")
        (pack / "__main__.py").write_text(_NOOP_MAIN.format(name=name))
        packs.append(pack)
    return packs
