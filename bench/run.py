"""``python -m bench.run`` (``make bench``): how the offline preview's cost grows with the stack, against two floors
measured in the same run, and how long ``pulumi up`` of each stack would take.

For the dev stack and every synthetic stack (:mod:`bench.stacks`: 1, 8, 32, 64 node pools × 2, 50, 200 tenants by
default) it runs ``python -m offline.preview --config-file <stack> --json <plan> --timings-json <figures>`` as a
separate process ``--runs`` times, and the same with two no-op packs (:mod:`bench.measure`), round robin with the
import floor (``python -m bench.imports``), so every figure of one round saw the same machine. It records the median
wall time, the CPU time of the preview and of its packs' servers, the peak memory of each of those processes, the
resources declared and their property nodes (:func:`bench.measure.property_nodes`). It fits the cost per property
node (and, for comparison, per resource), compares consecutive sizes (a rule worse than linear makes the packs' CPU
grow faster than the property nodes), and judges the targets (:mod:`bench.targets`). From each plan's recorded
dependencies it estimates the ``pulumi up`` duration and its critical path (:mod:`bench.critical_path`) and compares
it with the unavoidable chain network → cluster → node pool → platform.

Prints the report, writes everything as JSON (``--json``, with the machine, its core count and load, Python and
package versions and the date) and, with ``--docs``, replaces the report in docs/benchmark.md between the
``<!-- bench:begin -->`` and ``<!-- bench:end -->`` markers. Exit code 0 even when a target is missed (the report
says which); 2 when a generated stack is invalid or a preview fails.
"""

from __future__ import annotations

import argparse
import compileall
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
from dataclasses import asdict
from pathlib import Path
from typing import Any, Optional

from bench import critical_path, stacks
from bench.measure import Measurement, Row, measure, measure_once, preview_cmd, property_nodes, write_noop_packs  # noqa: F401
from bench.targets import (DEV_MAX_MB, DEV_MAX_S, DEV_OVER_FLOOR_MAX, GROWTH_SLACK, RULES_MIN_S,  # noqa: F401
                           RULES_SLACK, report, rules_cpu, table, targets)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "bench" / "results.json"
README = ROOT / "docs" / "benchmark.md"  # the page holding the results (--docs)
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
#: What is compiled before the first measurement (as ``make test`` compiles it): with ``PYTHONDONTWRITEBYTECODE`` set,
#: every preview, every pack server and the import floor would otherwise compile these sources again at each start
#: (about 0.15 s of a dev preview and 0.3 s of each pack server here), a cost no second run on a user's machine pays.
COMPILED = ("oke_rdma", "offline", "policies", "bench", "__main__.py")
PACKAGES = ("pulumi", "pulumi_oci", "pulumi_kubernetes", "pulumi_policy", "pydantic", "protobuf", "grpcio", "PyYAML")



def stack_row(name: str, m: Measurement, plan: Path, pools: Optional[int], tenants: Optional[int],
              noop: Optional[Measurement] = None) -> tuple[Row, dict[str, Any]]:
    """One stack's row from its measurements (with the packs, and with the no-op packs) and its plan, and its
    critical-path analysis (JSON form)."""
    resources = json.loads(plan.read_text())["resources"]
    analysis = critical_path.analyse(resources)
    row = Row(name, pools, tenants, len(resources), m.median_s, min(m.walls), max(m.walls), m.median_cpu_s,
              m.peak_mb, round(analysis.design.total_s / 60, 1), round(analysis.unavoidable.total_s / 60, 1),
              [round(w, 3) for w in m.walls], property_nodes(resources), m.own_peak,
              {pack: max(peaks) for pack, peaks in m.server_peak_mb.items()},
              round(m.median_servers_cpu_s, 3) if m.servers_cpu else None)
    if noop is not None and noop.walls:
        row.noop_median_s, row.noop_cpu_s = round(noop.median_s, 3), round(noop.median_cpu_s, 3)
        row.noop_servers_cpu_s = round(noop.median_servers_cpu_s, 3) if noop.servers_cpu else None
        row.noop_walls = [round(w, 3) for w in noop.walls]
    return row, critical_path.to_dict(analysis)


def fit(rows: list[Row], attr: str = "median_s", by: str = "resources") -> dict[str, float]:
    """Least-squares ``<attr> = intercept + slope × <by>`` (``resources`` or ``property_nodes``; empty with fewer
    than two distinct sizes or a missing value)."""
    pairs = [(getattr(r, by), getattr(r, attr)) for r in rows if getattr(r, attr) is not None]
    xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
    if len(set(xs)) < 2:
        return {}
    slope, intercept = statistics.linear_regression(xs, ys)
    mean = statistics.fmean(ys)
    ss_tot = sum((y - mean) ** 2 for y in ys)
    ss_res = sum((y - (intercept + slope * x)) ** 2 for x, y in zip(xs, ys))
    r2 = round(1 - ss_res / ss_tot, 4) if ss_tot else 1.0
    if by == "property_nodes":
        return {"interceptS": round(intercept, 3), "usPerNode": round(slope * 1e6, 3), "r2": r2}
    return {"interceptS": round(intercept, 3), "msPerResource": round(slope * 1000, 3), "r2": r2}


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
                            "closeToLinear": ratio <= GROWTH_SLACK * k, **_rules_growth(a, b)})
    return out


def _rules_growth(a: Row, b: Row) -> dict[str, Any]:
    """The rules' CPU (packs' servers above the no-op packs', :func:`bench.targets.rules_cpu`) from ``a`` to ``b``
    against the property nodes: a rule worse than linear grows faster than the nodes. Judged only when ``a``'s
    rule work is at least :data:`bench.targets.RULES_MIN_S` (below, the difference of two noisy figures)."""
    node_ratio = b.property_nodes / a.property_nodes if a.property_nodes else None
    ra, rb = rules_cpu(a), rules_cpu(b)
    if node_ratio is None or ra is None or rb is None or ra <= 0:
        return {"nodeRatio": round(node_ratio, 2) if node_ratio else None, "rulesCpuRatio": None,
                "rulesLinear": None}
    ratio = rb / ra
    return {"nodeRatio": round(node_ratio, 2), "rulesCpuRatio": round(ratio, 2),
            "rulesLinear": ratio <= RULES_SLACK * node_ratio if ra >= RULES_MIN_S else None}


def compile_sources(root: Path = ROOT) -> bool:
    """Write the bytecode of :data:`COMPILED` under ``root`` (``compileall``; it writes whatever
    ``PYTHONDONTWRITEBYTECODE`` says), so the measured processes load it instead of compiling their sources at each
    start. Returns whether every file compiled (a syntax error is the preview's own failure to report, not the
    bench's)."""
    ok = True
    for name in COMPILED:
        path = root / name
        ok &= bool(compileall.compile_dir(path, quiet=1) if path.is_dir() else compileall.compile_file(path, quiet=1))
    return ok


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
        log=print, with_noop: bool = True) -> dict[str, Any]:
    """Generate, check and measure every stack; returns the whole result (see the module docstring)."""
    t0 = time.perf_counter()
    env = environment()
    env["compiledFirst"] = compile_sources()
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

    # Round robin (the fixed-cost probe, then every stack with its packs and with the no-op packs, ``runs`` times):
    # a change of machine load during the benchmark spreads over every stack and both floors instead of skewing the
    # few measured while it lasted.
    probe = [sys.executable, "-m", "bench.imports"]
    fixed = Measurement([], [], [])
    imports_only = Measurement([], [], [])  # the same imports, ended with os._exit as the preview ends
    # the imports and the dev program's run under the SDK's own mocks (no engine, packs, report): the program floor
    program_floor = Measurement([], [], [])
    measured = {name: Measurement([], [], []) for name, *_ in jobs}
    noop = {name: Measurement([], [], []) for name, *_ in jobs}
    noop_packs = write_noop_packs(workdir / "noop-packs") if with_noop else []
    for i in range(runs):
        log(f"round {i + 1}/{runs}: fixed-cost probe and {len(jobs)} stacks" + (", each also with the no-op packs"
                                                                                if with_noop else ""))
        measure_once(probe, fixed)
        measure_once([*probe, "--exit-now"], imports_only)
        if include_dev:
            measure_once([*probe, "--program", str(stacks.BASE_STACK)], program_floor)
        for name, path, _, _ in jobs:
            usage = workdir / f"{name}.timings.json"
            measure_once(preview_cmd(path, workdir / f"{name}.plan.json", usage), measured[name], timings_json=usage)
            if with_noop:
                usage = workdir / f"{name}.noop.timings.json"
                measure_once(preview_cmd(path, workdir / f"{name}.noop.plan.json", usage, noop_packs), noop[name],
                             timings_json=usage)
    rows, paths = [], {}
    for name, _, p, t in jobs:
        row, cp = stack_row(name, measured[name], workdir / f"{name}.plan.json", p, t, noop[name])
        log(f"{name:<20} {row.resources:>5} resources {row.property_nodes:>7} nodes  median {row.median_s:6.2f} s  "
            f"CPU {row.cpu_s:5.2f} s (servers {row.servers_cpu_s}, no-op servers {row.noop_servers_cpu_s})  "
            f"peak {row.own_peak_mb} MB  est. up {row.estimated_up_min:5.1f} min")
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
        "programFloor": {"medianS": round(program_floor.median_s, 3), "cpuS": round(program_floor.median_cpu_s, 3),
                         "walls": [round(w, 3) for w in program_floor.walls]} if program_floor.walls else None,
        "fit": fit(rows), "fitCpu": fit(rows, "cpu_s"),
        "fitNodes": fit(rows, "cpu_s", "property_nodes"),
        "fitNodesServers": fit(rows, "servers_cpu_s", "property_nodes"),
        "rows": [asdict(r) for r in rows],
        "perResourceCpuMs": {r.stack: round((r.cpu_s - fixed.median_cpu_s) / r.resources * 1000, 2) for r in rows},
        "growth": growth_rows,
        "devCriticalPath": dev_cp,
        "criticalPaths": {k: {kk: v[kk] for kk in ("estimatedUpMin", "unavoidableMin", "addedByDesignMin",
                                                   "extraSerialEdges", "typesWithoutDuration")}
                          for k, v in paths.items()},
    }
    result["targets"] = targets(rows, growth_rows, dev_cp, fixed.median_s, fixed.median_cpu_s,
                                imports_only.median_s, program_floor.median_s if program_floor.walls else None)
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
    parser.add_argument("--no-noop", action="store_true",
                        help="skip the no-op-pack floor (half the previews; no packs-vs-no-op ratios)")
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
                         log=lambda m: print(m, file=sys.stderr, flush=True), with_noop=not args.no_noop)
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
