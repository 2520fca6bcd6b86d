"""``python -m bench.run`` (``make bench``): how the offline preview's cost grows with the stack, and how long
``pulumi up`` of each stack would take.

For the dev stack and every synthetic stack (:mod:`bench.stacks`: 1, 8, 32, 64 node pools × 2, 50, 200 tenants by
default) it runs ``python -m offline.preview --config-file <stack> --json <plan>`` as a separate process ``--runs``
times (round robin over the stacks) and records the median wall time, the CPU time, the peak memory (the child's
max RSS, from ``os.wait4``) and the resources declared (``resources`` of the JSON plan: every resource except the
root stack). It also measures the fixed cost —
a process that only starts Python and imports what the preview imports (:mod:`bench.imports`) — and fits
``wall = fixed + per_resource × resources`` over the stacks, so both parts are reported. From each plan's recorded
dependencies it estimates the ``pulumi up`` duration and its critical path (:mod:`bench.critical_path`) and
compares it with the unavoidable chain network → cluster → node pool → platform.

Prints a table and the dev stack's critical path, writes everything as JSON (``--json``, with the machine, its core
count, Python and package versions and the date) and, with ``--docs``, replaces the table of docs/benchmark.md
between the ``<!-- bench:begin -->`` and ``<!-- bench:end -->`` markers. Exit code 0 even when a target is missed (the table
says which); 2 when a generated stack is invalid or a preview fails.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

from bench import critical_path, stacks

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "bench" / "results.json"
README = ROOT / "docs" / "benchmark.md"  # the page holding the results (--docs)
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
PACKAGES = ("pulumi", "pulumi_oci", "pulumi_kubernetes", "pulumi_policy", "pydantic", "protobuf", "grpcio", "PyYAML")

#: The issue's targets on a 2-core machine.
DEV_MAX_S, DEV_MAX_MB, BIG_MAX_S, GROWTH_SLACK = 2.0, 600.0, 15.0, 1.1
#: The dev preview, both policy packs judged by their own analyzer servers included, against the fixed cost of
#: starting Python and importing what the preview imports (python -m bench.imports).
DEV_OVER_FLOOR_MAX = 1.15


@dataclass
class Measurement:
    """Repeated runs of one command: wall times (s) and peak RSS (MB) of each run."""

    walls: list[float]
    rss_mb: list[float]
    cpu: list[float]  # user + system CPU seconds of the child

    @property
    def median_s(self) -> float:
        return statistics.median(self.walls)

    @property
    def median_cpu_s(self) -> float:
        return statistics.median(self.cpu)

    @property
    def peak_mb(self) -> float:
        return max(self.rss_mb)


@dataclass
class Row:
    stack: str
    pools: Optional[int]
    tenants: Optional[int]
    resources: int
    median_s: float
    min_s: float
    max_s: float
    cpu_s: float
    peak_mb: float
    estimated_up_min: float
    unavoidable_min: float
    walls: list[float] = field(default_factory=list)


def measure_once(cmd: list[str], into: Measurement, cwd: Path = ROOT) -> None:
    """Run ``cmd`` once and append its wall time (spawn to exit), max RSS and CPU time (``os.wait4``) to ``into``.

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


def measure(cmd: list[str], runs: int, cwd: Path = ROOT) -> Measurement:
    """Run ``cmd`` ``runs`` times, one after the other (see :func:`measure_once`)."""
    m = Measurement([], [], [])
    for _ in range(runs):
        measure_once(cmd, m, cwd)
    return m


def preview_cmd(stack_file: Path, plan: Path) -> list[str]:
    return [sys.executable, "-m", "offline.preview", "--config-file", str(stack_file), "--json", str(plan)]


def stack_row(name: str, m: Measurement, plan: Path, pools: Optional[int],
              tenants: Optional[int]) -> tuple[Row, dict[str, Any]]:
    """One stack's row from its measurements and its plan, and its critical-path analysis (JSON form)."""
    resources = json.loads(plan.read_text())["resources"]
    analysis = critical_path.analyse(resources)
    row = Row(name, pools, tenants, len(resources), m.median_s, min(m.walls), max(m.walls), m.median_cpu_s,
              m.peak_mb, round(analysis.design.total_s / 60, 1), round(analysis.unavoidable.total_s / 60, 1),
              [round(w, 3) for w in m.walls])
    return row, critical_path.to_dict(analysis)


def fit(rows: list[Row], attr: str = "median_s") -> dict[str, float]:
    """Least-squares ``<attr> = intercept + slope × resources`` (empty with fewer than two distinct sizes)."""
    xs, ys = [r.resources for r in rows], [getattr(r, attr) for r in rows]
    if len(set(xs)) < 2:
        return {}
    slope, intercept = statistics.linear_regression(xs, ys)
    mean = statistics.fmean(ys)
    ss_tot = sum((y - mean) ** 2 for y in ys)
    ss_res = sum((y - (intercept + slope * x)) ** 2 for x, y in zip(xs, ys))
    return {"interceptS": round(intercept, 3), "msPerResource": round(slope * 1000, 3),
            "r2": round(1 - ss_res / ss_tot, 4) if ss_tot else 1.0}


def growth(rows: list[Row], fixed_s: float, fixed_cpu_s: Optional[float] = None) -> list[dict[str, Any]]:
    """Consecutive sizes along each axis (the other fixed): wall-time ratio vs size ratio, total and without the
    fixed cost, and the same for CPU time. "Close to linear" is time at k·N ≤ 1.1 × k × time at N (the issue:
    2N ≤ 2.2 × N); the ratios without the fixed cost against ``resourceRatio`` show the per-resource trend."""
    out = []
    for axis, other in (("pools", "tenants"), ("tenants", "pools")):
        groups: dict[Any, list[Row]] = {}
        for r in rows:
            if r.pools is not None:
                groups.setdefault(getattr(r, other), []).append(r)
        for key, group in sorted(groups.items()):
            group.sort(key=lambda r: getattr(r, axis))
            for a, b in zip(group, group[1:]):
                k = getattr(b, axis) / getattr(a, axis)
                ratio = b.median_s / a.median_s
                variable = (b.median_s - fixed_s) / (a.median_s - fixed_s) if a.median_s > fixed_s else None
                fc = fixed_cpu_s
                variable_cpu = (b.cpu_s - fc) / (a.cpu_s - fc) if fc is not None and a.cpu_s > fc else None
                out.append({"axis": axis, other: key, "from": getattr(a, axis), "to": getattr(b, axis),
                            "sizeRatio": round(k, 2), "resourceRatio": round(b.resources / a.resources, 2),
                            "timeRatio": round(ratio, 2),
                            "variableTimeRatio": round(variable, 2) if variable is not None else None,
                            "cpuRatio": round(b.cpu_s / a.cpu_s, 2),
                            "variableCpuRatio": round(variable_cpu, 2) if variable_cpu is not None else None,
                            "closeToLinear": ratio <= GROWTH_SLACK * k})
    return out


def environment() -> dict[str, Any]:
    model = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for pkg in PACKAGES:
        try:
            versions[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            versions[pkg] = None
    return {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "machine": f"{platform.machine()} {model}".strip(), "platform": platform.platform(),
            "cores": os.cpu_count(), "usableCores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
            else os.cpu_count(), "python": platform.python_version(), "packages": versions,
            "loadAverageAtStart": [round(x, 2) for x in os.getloadavg()]}


def targets(rows: list[Row], growth_rows: list[dict[str, Any]], dev_cp: Optional[dict[str, Any]],
            fixed_s: Optional[float] = None, fixed_cpu_s: Optional[float] = None,
            imports_only_s: Optional[float] = None) -> list[dict]:
    """The targets and whether the measurements meet them. The dev preview against the import floor is judged on
    wall time (``fixed_s``, ``python -m bench.imports``); its value also gives the CPU-time ratio (the preview's CPU
    includes its analyzer servers') and the ratio against the imports without the interpreter's finalization
    (``imports_only_s``, ``--exit-now``), which the preview's own process skips."""
    out = []
    dev = next((r for r in rows if r.stack == "dev"), None)
    if dev and fixed_s:
        ratio = dev.median_s / fixed_s
        value = f"{ratio:.2f}× ({dev.median_s:.2f} s / {fixed_s:.2f} s)"
        if fixed_cpu_s:
            value += f"; CPU {dev.cpu_s / fixed_cpu_s:.2f}× ({dev.cpu_s:.2f} s / {fixed_cpu_s:.2f} s)"
        if imports_only_s:
            value += (f"; {dev.median_s / imports_only_s:.2f}× the imports without finalization "
                      f"({imports_only_s:.2f} s)")
        out.append({"target": f"dev stack ≤ {DEV_OVER_FLOOR_MAX:g} × the import floor (analyzer servers included)",
                    "value": value, "met": ratio <= DEV_OVER_FLOOR_MAX})
    if dev:
        out.append({"target": f"dev stack ≤ {DEV_MAX_S:g} s median", "value": round(dev.median_s, 2),
                    "met": dev.median_s <= DEV_MAX_S})
        out.append({"target": f"dev stack ≤ {DEV_MAX_MB:g} MB peak", "value": round(dev.peak_mb),
                    "met": dev.peak_mb <= DEV_MAX_MB})
    big = max((r for r in rows if r.pools is not None), key=lambda r: (r.pools, r.tenants), default=None)
    if big:
        out.append({"target": f"{big.pools} pools, {big.tenants} tenants ≤ {BIG_MAX_S:g} s",
                    "value": round(big.median_s, 2), "met": big.median_s <= BIG_MAX_S})
    for g in growth_rows:
        if g["sizeRatio"] == 2:
            other = "tenants" if g["axis"] == "pools" else "pools"
            out.append({"target": f"{g['axis']} {g['from']}→{g['to']} ({other} {g[other]}): time at 2N ≤ 2.2 × "
                                  f"time at N", "value": g["timeRatio"], "met": g["timeRatio"] <= 2.2})
    if growth_rows:
        worst = max(growth_rows, key=lambda g: g["timeRatio"] / g["sizeRatio"])
        out.append({"target": "growth close to linear everywhere (time at kN ≤ 1.1·k × time at N)",
                    "value": f"worst {worst['timeRatio']}× for {worst['sizeRatio']}× {worst['axis']}",
                    "met": all(g["closeToLinear"] for g in growth_rows)})
    if dev_cp:
        out.append({"target": "estimated critical path = the unavoidable chain",
                    "value": f"{dev_cp['estimatedUpMin']} vs {dev_cp['unavoidableMin']} min",
                    "met": not dev_cp["extraSerialEdges"]})
    return out


def table(rows: list[Row]) -> list[str]:
    lines = ["| stack | node pools | tenants | resources | median wall (s) | min–max (s) | CPU (s) | peak RSS (MB) "
             "| est. `pulumi up` (min) | unavoidable (min) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r.stack} | {r.pools if r.pools is not None else '2 (dev)'} | "
                     f"{r.tenants if r.tenants is not None else '2 (dev)'} | {r.resources} | {r.median_s:.2f} | "
                     f"{r.min_s:.2f}–{r.max_s:.2f} | {r.cpu_s:.2f} | {r.peak_mb:.0f} | {r.estimated_up_min:.1f} | "
                     f"{r.unavoidable_min:.1f} |")
    return lines


def report(result: dict[str, Any]) -> str:
    """The Markdown report: environment line, table, fixed/per-resource split, targets, critical path."""
    env, fx, ft = result["environment"], result["fixedCost"], result["fit"]
    lines = [f"Measured {env['date']} on {env['machine']} ({env['cores']} cores, load average "
             f"{' / '.join(map(str, env['loadAverageAtStart']))} at start"
             + (f", {' / '.join(map(str, env['loadAverageAtEnd']))} at the end" if env.get("loadAverageAtEnd") else "")
             + f"), Python {env['python']}, "
             f"pulumi {env['packages'].get('pulumi')}, pulumi_oci {env['packages'].get('pulumi_oci')}, "
             f"pulumi_kubernetes {env['packages'].get('pulumi_kubernetes')}; median of {result['runs']} runs per "
             f"stack, each a separate `python -m offline.preview` process; {result['elapsedS']:.0f} s in all.", ""]
    lines += table([Row(**r) for r in result["rows"]])
    lines += ["", f"- Fixed cost (Python start + imports, `python -m bench.imports`): {fx['medianS']:.2f} s wall, "
                  f"{fx['cpuS']:.2f} s CPU, {fx['peakMb']:.0f} MB."]
    if result.get("importsOnly"):
        io = result["importsOnly"]
        lines.append(f"- The same imports ended with `os._exit`, as the preview's process ends (`python -m "
                     f"bench.imports --exit-now`): {io['medianS']:.2f} s wall, {io['cpuS']:.2f} s CPU; the rest of "
                     f"the fixed cost is the interpreter's finalization.")
    if ft:
        lines.append(f"- Per-resource cost (least squares over the stacks): {ft['msPerResource']:.2f} ms per "
                     f"resource, intercept {ft['interceptS']:.2f} s (R² {ft['r2']}); in CPU time "
                     f"{result['fitCpu']['msPerResource']:.2f} ms per resource, intercept "
                     f"{result['fitCpu']['interceptS']:.2f} s.")
    lines += ["", "| target | value | met |", "|---|---|---|"]
    lines += [f"| {t['target']} | {t['value']} | {'yes' if t['met'] else '**no**'} |" for t in result["targets"]]
    cp = result.get("devCriticalPath")
    if cp:
        lo, hi = cp["estimatedUpRangeMin"]
        lines += ["", f"Dev stack `pulumi up` estimate: {cp['estimatedUpMin']} min (range {lo}–{hi}); the "
                      f"unavoidable chain alone: {cp['unavoidableMin']} min. Critical path:", ""]
        lines += [f"{i + 1}. {p['name']} ({p['type'].split(':')[-1]}, {p['category']}) "
                  f"{p['startMin']}→{p['finishMin']} min" for i, p in enumerate(
                      q for q in cp["criticalPath"] if q["finishMin"] > q["startMin"])]
        for e in cp["extraSerialEdges"]:
            lines.append(f"\nSerial edge added by the design: {', '.join(e['allDependents'])} wait for "
                         f"{e['waitsFor']} ({e['edge']}); costs {e['costMin']} min.")
    return "\n".join(lines)


def update_readme(text: str, readme: Path = README) -> None:
    """Replace what is between the bench markers in ``readme`` with ``text``.

    :raises ValueError: if the markers are missing or out of order.
    """
    content = readme.read_text(encoding="utf-8")
    start, end = content.find(BEGIN), content.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{readme.name}: no {BEGIN} … {END} section to update")
    readme.write_text(content[:start + len(BEGIN)] + "\n" + text.rstrip() + "\n" + content[end:], encoding="utf-8")


def _ints(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not values or min(values) < 0:
        raise argparse.ArgumentTypeError(f"expected non-negative integers, got {text!r}")
    return values


def run(runs: int, pools: list[int], tenants: list[int], include_dev: bool, workdir: Path,
        log=print) -> dict[str, Any]:
    """Generate, check and measure every stack; returns the whole result (see the module docstring)."""
    t0 = time.perf_counter()
    env = environment()
    base = stacks.load_base()
    jobs: list[tuple[str, Path, Optional[int], Optional[int]]] = []
    if include_dev:
        jobs.append(("dev", stacks.BASE_STACK, None, None))
    for p in pools:
        for t in tenants:
            name = f"bench-p{p}-t{t}"
            path = stacks.write_stack(stacks.synthetic_stack(base, p, t), workdir, name)
            stacks.check(path)
            jobs.append((name, path, p, t))

    # Round robin (the fixed-cost probe, then every stack, ``runs`` times): a change of machine load during the
    # benchmark spreads over every stack instead of skewing the few measured while it lasted.
    probe = [sys.executable, "-m", "bench.imports"]
    fixed = Measurement([], [], [])
    imports_only = Measurement([], [], [])  # the same imports, ended with os._exit as the preview ends
    measured = {name: Measurement([], [], []) for name, *_ in jobs}
    for i in range(runs):
        log(f"round {i + 1}/{runs}: fixed-cost probe and {len(jobs)} stacks")
        measure_once(probe, fixed)
        measure_once([*probe, "--exit-now"], imports_only)
        for name, path, _, _ in jobs:
            measure_once(preview_cmd(path, workdir / f"{name}.plan.json"), measured[name])
    rows, paths = [], {}
    for name, _, p, t in jobs:
        row, cp = stack_row(name, measured[name], workdir / f"{name}.plan.json", p, t)
        log(f"{name:<20} {row.resources:>5} resources  median {row.median_s:6.2f} s  CPU {row.cpu_s:5.2f} s  "
            f"peak {row.peak_mb:5.0f} MB  est. up {row.estimated_up_min:5.1f} min")
        rows.append(row)
        paths[name] = cp
    growth_rows = growth(rows, fixed.median_s, fixed.median_cpu_s)
    dev_cp = paths.get("dev") or (paths[rows[0].stack] if rows else None)
    result = {
        "environment": env, "runs": runs,
        "fixedCost": {"medianS": round(fixed.median_s, 3), "cpuS": round(fixed.median_cpu_s, 3),
                      "peakMb": round(fixed.peak_mb, 1),
                      "walls": [round(w, 3) for w in fixed.walls]},
        "importsOnly": {"medianS": round(imports_only.median_s, 3), "cpuS": round(imports_only.median_cpu_s, 3),
                        "walls": [round(w, 3) for w in imports_only.walls]},
        "fit": fit(rows), "fitCpu": fit(rows, "cpu_s"),
        "rows": [asdict(r) for r in rows],
        "perResourceCpuMs": {r.stack: round((r.cpu_s - fixed.median_cpu_s) / r.resources * 1000, 2) for r in rows},
        "growth": growth_rows,
        "devCriticalPath": dev_cp,
        "criticalPaths": {k: {kk: v[kk] for kk in ("estimatedUpMin", "unavoidableMin", "addedByDesignMin",
                                                   "extraSerialEdges", "typesWithoutDuration")}
                          for k, v in paths.items()},
    }
    result["targets"] = targets(rows, growth_rows, dev_cp, fixed.median_s, fixed.median_cpu_s,
                                imports_only.median_s)
    result["environment"]["loadAverageAtEnd"] = [round(x, 2) for x in os.getloadavg()]
    result["elapsedS"] = round(time.perf_counter() - t0, 1)
    return result


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run",
                                     description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--runs", type=int, default=5, help="runs per stack (median reported; default 5)")
    parser.add_argument("--pools", type=_ints, default=[1, 8, 32, 64], help="node pool counts (default 1,8,32,64)")
    parser.add_argument("--tenants", type=_ints, default=[2, 50, 200], help="tenant counts (default 2,50,200)")
    parser.add_argument("--no-dev", action="store_true", help="skip the dev stack itself")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, metavar="PATH",
                        help=f"where to write the results (default {DEFAULT_JSON.relative_to(ROOT)})")
    parser.add_argument("--docs", "--readme", dest="readme", action="store_true",
                        help="also put the report in docs/benchmark.md between markers")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep the generated stacks and plans in DIR")
    args = parser.parse_args(argv)
    if args.runs < 1 or 0 in args.pools:
        parser.error("--runs and every --pools value must be at least 1")

    from oke_rdma.config import ConfigError

    with tempfile.TemporaryDirectory(prefix="oke-rdma-bench-") as tmp:
        workdir = args.keep or Path(tmp)
        try:
            result = run(args.runs, args.pools, args.tenants, not args.no_dev, workdir,
                         log=lambda m: print(m, file=sys.stderr, flush=True))
        except ConfigError as e:
            print("error: a generated stack is invalid:\n  " + "\n  ".join(e.problems), file=sys.stderr)
            return 2
        except RuntimeError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    text = report(result)
    print(text)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {args.json}", file=sys.stderr)
    if args.readme:
        update_readme(text)
        print(f"updated {README.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
