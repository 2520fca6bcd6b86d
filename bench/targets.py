"""The benchmark's targets and its Markdown report (:mod:`bench.run` measures; this module judges and writes).

Every stack is read against two floors measured in the same run: the **import floor** (``python -m bench.imports``:
Python start plus every import of the preview) and the **no-op-pack floor** (the same stack previewed with two packs
whose policies do nothing, :mod:`bench.measure`). Wall-time ratios are what a user waits; on a machine shared with
other jobs the CPU-time ratios (the packs' servers' CPU time against the no-op servers') are the ones to compare
between runs.
"""
from __future__ import annotations

from typing import Any, Optional

from bench.measure import Row

#: The issue's targets on a 2-core machine.
DEV_MAX_S, DEV_MAX_MB, GROWTH_SLACK = 2.0, 600.0, 1.1
#: The dev preview, both policy packs judged by their own analyzer servers included, against the import floor.
DEV_OVER_FLOOR_MAX = 1.15
#: The biggest stack (64 pools × 200 tenants by default) against the import floor, its packs' servers against the
#: no-op packs' (CPU time), and the peak memory of each of its processes.
BIG_OVER_FLOOR_MAX, PACKS_OVER_NOOP_MAX, BIG_MAX_MB = 6.0, 1.5, 600.0
#: A rule's work (the packs' server CPU above the no-op packs') may grow at most this much faster than the property
#: nodes between two sizes; a quadratic rule doubles it on twice the nodes. Pairs where the smaller stack's rule work
#: is below :data:`RULES_MIN_S` are too noisy to judge and are listed without a verdict.
RULES_SLACK, RULES_MIN_S = 1.3, 0.3


def rules_cpu(row: Row) -> Optional[float]:
    """The packs' servers' CPU time above the no-op packs' servers' on the same stack (what the rules cost)."""
    if row.servers_cpu_s is None or row.noop_servers_cpu_s is None:
        return None
    return row.servers_cpu_s - row.noop_servers_cpu_s


def _peaks(row: Row) -> str:
    servers = ", ".join(f"{pack} {mb:.0f}" for pack, mb in sorted(row.server_peak_mb.items()))
    own = f"{row.own_peak_mb:.0f}" if row.own_peak_mb is not None else f"≤ {row.peak_mb:.0f}"
    return f"preview {own} MB" + (f"; servers {servers} MB" if servers else "")


def _max_peak(row: Row) -> float:
    own = row.own_peak_mb if row.own_peak_mb is not None else row.peak_mb
    return max([own, *row.server_peak_mb.values()])


def targets(rows: list[Row], growth_rows: list[dict[str, Any]], dev_cp: Optional[dict[str, Any]],
            fixed_s: Optional[float] = None, fixed_cpu_s: Optional[float] = None,
            imports_only_s: Optional[float] = None, program_floor_s: Optional[float] = None) -> list[dict]:
    """The targets and whether the measurements meet them. The dev preview against the import floor is judged on
    wall time (``fixed_s``, ``python -m bench.imports``); its value also gives the CPU-time ratio (the preview's CPU
    includes its analyzer servers'), the ratio against the imports without the interpreter's finalization
    (``imports_only_s``, ``--exit-now``), which the preview's own process skips, and the ratio against the program
    floor (``program_floor_s``, ``--program``: the imports plus the dev program's run under the SDK's own mocks),
    the part of the preview no offline engine, pack or report adds."""
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
        if program_floor_s:
            value += (f"; {dev.median_s / program_floor_s:.2f}× the program floor ({program_floor_s:.2f} s: the "
                      f"floor allows {DEV_OVER_FLOOR_MAX * fixed_s:.2f} s, the SDK's run of the program alone "
                      f"ends at {program_floor_s:.2f} s)")
        out.append({"target": f"dev stack ≤ {DEV_OVER_FLOOR_MAX:g} × the import floor (analyzer servers included)",
                    "value": value, "met": ratio <= DEV_OVER_FLOOR_MAX})
    if dev:
        out.append({"target": f"dev stack ≤ {DEV_MAX_S:g} s median", "value": round(dev.median_s, 2),
                    "met": dev.median_s <= DEV_MAX_S})
        out.append({"target": f"dev stack ≤ {DEV_MAX_MB:g} MB peak, each process", "value": _peaks(dev),
                    "met": _max_peak(dev) <= DEV_MAX_MB})
    big = max((r for r in rows if r.pools is not None), key=lambda r: (r.pools, r.tenants), default=None)
    if big and fixed_s:
        ratio = big.median_s / fixed_s
        value = f"{ratio:.2f}× ({big.median_s:.2f} s / {fixed_s:.2f} s)"
        if fixed_cpu_s:
            value += f"; CPU {big.cpu_s / fixed_cpu_s:.2f}× ({big.cpu_s:.2f} s / {fixed_cpu_s:.2f} s)"
        out.append({"target": f"{big.pools} pools, {big.tenants} tenants ≤ {BIG_OVER_FLOOR_MAX:g} × the import floor",
                    "value": value, "met": ratio <= BIG_OVER_FLOOR_MAX})
    if big:
        out.append({"target": f"{big.pools} pools, {big.tenants} tenants ≤ {BIG_MAX_MB:g} MB peak, each process",
                    "value": _peaks(big), "met": _max_peak(big) <= BIG_MAX_MB})
    if big and big.servers_cpu_s is not None and big.noop_servers_cpu_s:
        ratio = big.servers_cpu_s / big.noop_servers_cpu_s
        value = f"servers' CPU {ratio:.2f}× ({big.servers_cpu_s:.2f} s / {big.noop_servers_cpu_s:.2f} s)"
        if big.noop_median_s:
            value += f"; preview wall {big.median_s / big.noop_median_s:.2f}× ({big.noop_median_s:.2f} s no-op)"
        out.append({"target": f"{big.pools} pools, {big.tenants} tenants: the packs ≤ {PACKS_OVER_NOOP_MAX:g} × the "
                              f"no-op packs", "value": value, "met": ratio <= PACKS_OVER_NOOP_MAX})
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
    judged = [g for g in growth_rows if g.get("rulesLinear") is not None]
    if judged:
        worst = max(judged, key=lambda g: g["rulesCpuRatio"] / g["nodeRatio"])
        out.append({"target": f"no rule worse than linear: the rules' CPU grows ≤ {RULES_SLACK:g} × the property "
                              f"nodes",
                    "value": f"worst {worst['rulesCpuRatio']}× for {worst['nodeRatio']}× nodes ({worst['axis']} "
                             f"{worst['from']}→{worst['to']}); {len(judged)} of {len(growth_rows)} pairs judged",
                    "met": all(g["rulesLinear"] for g in judged)})
    if dev_cp:
        out.append({"target": "estimated critical path = the unavoidable chain",
                    "value": f"{dev_cp['estimatedUpMin']} vs {dev_cp['unavoidableMin']} min",
                    "met": not dev_cp["extraSerialEdges"]})
    return out


def _ratio(a: Optional[float], b: Optional[float]) -> str:
    return f"{a / b:.2f}×" if a is not None and b else "–"


def table(rows: list[Row], fixed_s: Optional[float] = None) -> list[str]:
    """The time table (each stack against both floors) and the memory / critical-path table."""
    lines = ["| stack | pools | tenants | resources | property nodes | median wall (s) | min–max (s) | CPU (s) "
             "| × import floor | no-op packs wall (s) | × no-op | packs' servers CPU (s) | no-op servers CPU (s) "
             "| × no-op (CPU) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r.stack} | {r.pools if r.pools is not None else '2 (dev)'} | "
            f"{r.tenants if r.tenants is not None else '2 (dev)'} | {r.resources} | {r.property_nodes} | "
            f"{r.median_s:.2f} | {r.min_s:.2f}–{r.max_s:.2f} | {r.cpu_s:.2f} | {_ratio(r.median_s, fixed_s)} | "
            f"{r.noop_median_s if r.noop_median_s is not None else '–'} | {_ratio(r.median_s, r.noop_median_s)} | "
            f"{r.servers_cpu_s if r.servers_cpu_s is not None else '–'} | "
            f"{r.noop_servers_cpu_s if r.noop_servers_cpu_s is not None else '–'} | "
            f"{_ratio(r.servers_cpu_s, r.noop_servers_cpu_s)} |")
    lines += ["", "| stack | peak RSS, preview process (MB) | peak RSS, each pack's server (MB) "
                  "| est. `pulumi up` (min) | unavoidable (min) |", "|---|---:|---|---:|---:|"]
    for r in rows:
        servers = ", ".join(f"{pack} {mb:.0f}" for pack, mb in sorted(r.server_peak_mb.items())) or "–"
        own = f"{r.own_peak_mb:.0f}" if r.own_peak_mb is not None else f"≤ {r.peak_mb:.0f}"
        lines.append(f"| {r.stack} | {own} | {servers} | {r.estimated_up_min:.1f} | {r.unavoidable_min:.1f} |")
    return lines


def report(result: dict[str, Any]) -> str:
    """The Markdown report: environment line, tables, floors and per-node cost, targets, critical path."""
    env, fx, ft = result["environment"], result["fixedCost"], result["fit"]
    lines = [f"Measured {env['date']} on {env['machine']} ({env['cores']} cores, load average "
             f"{' / '.join(map(str, env['loadAverageAtStart']))} at start"
             + (f", {' / '.join(map(str, env['loadAverageAtEnd']))} at the end" if env.get("loadAverageAtEnd") else "")
             + f"), Python {env['python']}, "
             f"pulumi {env['packages'].get('pulumi')}, pulumi_oci {env['packages'].get('pulumi_oci')}, "
             f"pulumi_kubernetes {env['packages'].get('pulumi_kubernetes')}, pulumi_policy "
             f"{env['packages'].get('pulumi_policy')}; median of {result['runs']} runs per stack, each a separate "
             f"`python -m offline.preview` process, interleaved (import floor, then each stack with its packs and "
             f"with the no-op packs, every round)"
             + ("; the sources compiled first (`compileall`), as a second run would find them"
                if env.get("compiledFirst") else "")
             + f"; {result['elapsedS']:.0f} s in all.", ""]
    lines += table([Row(**r) for r in result["rows"]], fx["medianS"])
    lines += ["", f"- Import floor (Python start + imports, `python -m bench.imports`): {fx['medianS']:.2f} s wall, "
                  f"{fx['cpuS']:.2f} s CPU, {fx['peakMb']:.0f} MB."]
    if result.get("programFloor"):
        pf = result["programFloor"]
        lines.append(f"- Program floor (the same imports, then the dev program's run under the Pulumi SDK's own mocks "
                     f"— no offline engine, packs, report or plan —, ended with `os._exit`; `python -m bench.imports "
                     f"--program Pulumi.dev.yaml`): {pf['medianS']:.2f} s wall, {pf['cpuS']:.2f} s CPU.")
    if result.get("importsOnly"):
        io = result["importsOnly"]
        lines.append(f"- The same imports ended with `os._exit`, as the preview's process ends (`python -m "
                     f"bench.imports --exit-now`): {io['medianS']:.2f} s wall, {io['cpuS']:.2f} s CPU; the rest of "
                     f"the fixed cost is the interpreter's finalization.")
    lines.append("- No-op-pack floor: the same stack previewed with two packs whose one resource and one stack policy "
                 "do nothing (`bench/measure.py`), in the same rounds.")
    nodes = result.get("fitNodes") or {}
    if nodes:
        lines.append(f"- Cost per property node (least squares over the stacks, CPU time of the preview and its "
                     f"servers): {nodes['usPerNode']:.2f} µs per node, intercept {nodes['interceptS']:.2f} s "
                     f"(R² {nodes['r2']}); the packs' servers alone: "
                     f"{result['fitNodesServers'].get('usPerNode', float('nan')):.2f} µs per node.")
    if ft:
        lines.append(f"- Per resource, for comparison (it fits worse: the stacks differ in properties per resource): "
                     f"{ft['msPerResource']:.2f} ms wall per resource (R² {ft['r2']}).")
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
