"""``python -m bench.rules SMALL.plan.json BIG.plan.json``: each policy's own CPU time on two stacks, against the
growth of their property nodes — the bench case that shows a rule worse than linear.

The packs' servers' CPU time (``make bench``) mixes the rules with pulumi-policy's conversion and per-policy plumbing
and, on a loaded machine, with noise: a rule costing a tenth of a second disappears in it. Here every resource is
converted once, as the servers now do (:mod:`offline.policy_eval`'s harness helpers), and each policy of both packs
is timed alone — a resource policy over every resource, a stack policy once — on two ``--json`` plans of the offline
preview, e.g. ``bench.run --keep DIR`` with 64 pools × 100 and × 200 tenants. A policy whose time grows more than
:data:`SLACK` × the node ratio, and costs at least :data:`MIN_S` on the bigger stack, is flagged: a rule quadratic
in tenants takes 4× on twice the tenants. Measured 2026-12-01 (64 × 100 → 64 × 200, 1.93× the nodes): every rule of
both packs together 0.75 s → 0.87 s of CPU; the largest, ``oke-required-nsg-rules``, 0.47 s → 0.39 s.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Optional

from bench.measure import property_nodes

#: A policy may grow at most this much faster than the property nodes.
SLACK = 1.5
#: Policies below this CPU time on the bigger stack are listed, not judged (timer resolution and noise).
MIN_S = 0.05


def _resources(plan: dict[str, Any]) -> list:
    from offline.policy_types import EngineResource

    return [EngineResource(urn=r["urn"], type=r["type"], name=r["name"], custom=r.get("custom", True),
                           inputs=r.get("inputs") or {}, outputs=r.get("outputs") or {}, parent=r.get("parent"),
                           dependencies=r.get("dependencies") or [],
                           property_dependencies=r.get("propertyDependencies") or {}, provider=r.get("provider"))
            for r in plan["resources"]]


def policy_seconds(plan: dict[str, Any]) -> dict[str, float]:
    """Policy name → CPU seconds of that policy alone on ``plan`` (its resources converted once beforehand)."""
    import importlib

    from pulumi_policy import ResourceValidationArgs, StackValidationArgs, StackValidationPolicy
    from pulumi_policy.proxy import UnknownValueError

    from offline.policy_eval import _options, _props, _provider, _stack_resources
    from policies import PACK_DIRS

    resources = _resources(plan)
    by_urn = {r.urn: r for r in resources}
    stack = StackValidationArgs(_stack_resources(resources, by_urn), None, {})
    each = [ResourceValidationArgs(r.type, _props(r.inputs), r.urn, r.name, _options(r), _provider(r, by_urn), None,
                                   {}) for r in resources]
    out: dict[str, float] = {}
    for pack_dir in PACK_DIRS:
        for policy in importlib.import_module(f"policies.{pack_dir.name}.pack").POLICIES:
            start = time.process_time()
            for args in [stack] if isinstance(policy, StackValidationPolicy) else each:
                try:
                    policy.validate(args, lambda *_, **__: None)
                except UnknownValueError:
                    pass
            out[policy.name] = time.process_time() - start
    return out


def compare(small: dict[str, float], big: dict[str, float], node_ratio: float) -> list[dict[str, Any]]:
    """One row per policy, slowest on the bigger stack first: both times, their ratio, and ``linear`` (True, False,
    or None when too small to judge)."""
    rows = []
    for name in sorted(big, key=lambda n: -big[n]):
        ratio: Optional[float] = big[name] / small[name] if small.get(name) else None
        judged = ratio is not None and big[name] >= MIN_S
        rows.append({"policy": name, "smallS": round(small.get(name, 0.0), 4), "bigS": round(big[name], 4),
                     "ratio": round(ratio, 2) if ratio is not None else None,
                     "linear": (ratio <= SLACK * node_ratio) if judged else None})
    return rows


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.rules", description=__doc__.splitlines()[0])
    parser.add_argument("small", type=Path, help="the smaller stack's --json plan")
    parser.add_argument("big", type=Path, help="the bigger stack's --json plan")
    args = parser.parse_args(argv)
    plans = [json.loads(p.read_text(encoding="utf-8")) for p in (args.small, args.big)]
    nodes = [property_nodes(p["resources"]) for p in plans]
    rows = compare(policy_seconds(plans[0]), policy_seconds(plans[1]), nodes[1] / nodes[0])
    print(f"property nodes {nodes[0]} → {nodes[1]} ({nodes[1] / nodes[0]:.2f}×)")
    print("| policy | small (s) | big (s) | ratio | linear |\n|---|---:|---:|---:|---|")
    for r in rows:
        verdict = "–" if r["linear"] is None else ("yes" if r["linear"] else "**no**")
        print(f"| {r['policy']} | {r['smallS']:.3f} | {r['bigS']:.3f} | {r['ratio']} | {verdict} |")
    return 1 if any(r["linear"] is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
