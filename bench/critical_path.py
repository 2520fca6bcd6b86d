"""Estimate how long ``pulumi up`` of a stack takes from the offline preview's dependency graph.

Input: the ``resources`` of ``python -m offline.preview --json`` (``urn``, ``type``, ``custom``, ``parent``,
``dependencies``, ``provider``, ``inputs``). Durations: ``bench/oci_creation_times.csv``, one row per resource type
(optionally narrowed by an input, e.g. ``nodeShape^=BM.``), with a low and a high typical creation time in seconds and
the reason for it. The estimate uses the middle of each range; the low and high ends give the spread.

How the Pulumi engine orders creation, and so how the schedule is computed:

* a resource starts when every resource it depends on has been created — its ``dependencies`` (explicit
  ``depends_on`` plus the resources behind its input Outputs) and its explicit provider (a Kubernetes resource waits
  for the provider, which waits for the cluster whose kubeconfig it holds);
* depending on a ComponentResource means depending on all of its descendants (the Python SDK expands local
  components to the custom resources below them: descend through components, stop at custom resources);
* a child is registered only after its parent is: a component registers as soon as its own dependencies are done
  (it takes no time: no cloud call), a custom parent once it is created;
* everything else runs in parallel (the engine's default, unbounded ``--parallel`` for this size).

The *unavoidable* chain is the same schedule with only the edges OKE itself imposes (:data:`REQUIRED`): everything
waits for the network it sits in, the cluster for its subnets and NSGs, a node pool for the cluster (and the Compute
Cluster and the launch policy), the platform for the cluster's API (the provider) and for the pools its pods run on
— the *platform pools*: pools without a GPU shape and outside the Compute Cluster (all pools if there is none) —
and platform objects for each other (namespaces, CRDs). Any edge outside that list that lies on the critical path
is a serial edge the design adds: :func:`analyse` reports it with what it costs.
"""

from __future__ import annotations

import csv
import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

DURATIONS_CSV = Path(__file__).resolve().parent / "oci_creation_times.csv"


@dataclass(frozen=True)
class Duration:
    """One row of the creation-time table: ``type`` (a glob), optional ``match`` on an input, seconds, source."""

    type: str
    match: str
    low_s: float
    high_s: float
    source: str

    @property
    def typical_s(self) -> float:
        return (self.low_s + self.high_s) / 2

    def applies(self, typ: str, inputs: dict[str, Any]) -> bool:
        if not fnmatch.fnmatchcase(typ, self.type):
            return False
        if not self.match:
            return True
        for op in ("^=", "*=", "="):
            if op in self.match:
                key, value = self.match.split(op, 1)
                actual = inputs.get(key)
                if not isinstance(actual, str):
                    return False
                return {"^=": actual.startswith, "*=": actual.__contains__, "=": actual.__eq__}[op](value)
        raise ValueError(f"{DURATIONS_CSV.name}: match {self.match!r} is not key=value, key^=prefix or key*=text")


def load_durations(path: Path = DURATIONS_CSV) -> list[Duration]:
    """The creation-time table, first matching row wins (so specific rows come before a type's general row).

    :raises ValueError: on a row with a missing column, a non-number, low > high, or an empty source.
    """
    rows: list[Duration] = []
    with path.open(newline="", encoding="utf-8") as f:
        for i, row in enumerate(csv.DictReader(f), start=2):
            try:
                d = Duration(row["type"], row["match"] or "", float(row["low_s"]), float(row["high_s"]),
                             row["source"].strip())
            except (KeyError, TypeError, ValueError) as e:
                raise ValueError(f"{path.name}:{i}: {e}") from None
            if d.low_s < 0 or d.low_s > d.high_s or not d.source:
                raise ValueError(f"{path.name}:{i}: needs 0 <= low_s <= high_s and a source")
            rows.append(d)
    return rows


# -- categories and the edges OKE imposes ----------------------------------------------------------------------
NETWORK, CLUSTER, NODE_POOL, COMPUTE_CLUSTER, IAM, STORAGE, PLATFORM, OTHER = (
    "network", "cluster", "node pool", "compute cluster", "iam", "storage", "platform", "other")

#: dependent category → the categories it may unavoidably wait for (see the module docstring).
REQUIRED: dict[str, frozenset[str]] = {
    NETWORK: frozenset({NETWORK}),
    CLUSTER: frozenset({NETWORK, CLUSTER}),  # the Kubernetes provider waits for the cluster's kubeconfig
    NODE_POOL: frozenset({NETWORK, CLUSTER, COMPUTE_CLUSTER, IAM}),
    COMPUTE_CLUSTER: frozenset(),
    IAM: frozenset({IAM, CLUSTER}),  # cluster-principal statements name the cluster's OCID
    STORAGE: frozenset({NETWORK, STORAGE}),
    PLATFORM: frozenset({CLUSTER, PLATFORM, NODE_POOL}),  # node pools: platform pools only
    OTHER: frozenset({NETWORK, CLUSTER, NODE_POOL, COMPUTE_CLUSTER, IAM, STORAGE, PLATFORM, OTHER}),
}


def category(typ: str) -> str:
    """The stage a resource type belongs to."""
    if typ == "oci:ContainerEngine/nodePool:NodePool":
        return NODE_POOL
    if typ == "oci:Core/computeCluster:ComputeCluster":
        return COMPUTE_CLUSTER
    if typ.startswith("oci:ContainerEngine/") or typ == "pulumi:providers:kubernetes":
        return CLUSTER
    if typ.startswith("oci:Core/"):
        return NETWORK
    if typ.startswith("oci:Identity/"):
        return IAM
    if typ.startswith("oci:FileStorage/"):
        return STORAGE
    if typ.startswith("kubernetes:"):
        return PLATFORM
    return OTHER


def is_platform_pool(res: dict[str, Any]) -> bool:
    """A node pool the platform's pods can run on: no GPU shape, not in the Compute Cluster."""
    inputs = res.get("inputs") or {}
    shape = str(inputs.get("nodeShape", ""))
    in_compute_cluster = bool((inputs.get("nodeConfigDetails") or {}).get("computeClusterId"))
    return ".GPU" not in shape and not in_compute_cluster


# -- the schedule --------------------------------------------------------------------------------------------
@dataclass
class Step:
    """One resource in the schedule: when it starts and ends (seconds from ``pulumi up``'s start)."""

    urn: str
    name: str
    type: str
    duration_s: float
    start_s: float
    finish_s: float
    via: Optional[str]  # the URN that made it wait (the critical predecessor)
    via_kind: str  # "dependsOn", "provider", "parent" or "" (nothing to wait for)


@dataclass
class Schedule:
    steps: dict[str, Step]
    total_s: float
    path: list[Step]
    unmatched_types: list[str] = field(default_factory=list)


def _name(s: "Schedule", urn: Optional[str]) -> Optional[str]:
    return s.steps[urn].name if urn in s.steps else None


class Graph:
    """The preview's resources as a dependency graph (components expanded the way the engine does)."""

    def __init__(self, resources: Iterable[dict[str, Any]]):
        self.res = {r["urn"]: r for r in resources}
        self.children: dict[str, list[str]] = {}
        for r in self.res.values():
            if r.get("parent") in self.res:
                self.children.setdefault(r["parent"], []).append(r["urn"])

    def is_component(self, urn: str) -> bool:
        r = self.res[urn]
        if "custom" in r:
            return not r["custom"]
        return category(r["type"]) == OTHER and not r["type"].startswith("pulumi:providers:")

    def expand(self, urn: str) -> list[str]:
        """``urn`` itself for a custom resource; for a component, every custom descendant (through components)."""
        if not self.is_component(urn):
            return [urn]
        out, todo = [], list(self.children.get(urn, []))
        while todo:
            u = todo.pop()
            if self.is_component(u):
                todo += self.children.get(u, [])
            else:
                out.append(u)
        return out

    def edges(self, urn: str) -> list[tuple[str, str]]:
        """What ``urn`` waits for: ``(predecessor, kind)`` with kind ``dependsOn``, ``provider`` or ``parent``."""
        r = self.res[urn]
        out: list[tuple[str, str]] = []
        for d in r.get("dependencies") or []:
            if d in self.res:
                out += [(e, "dependsOn") for e in self.expand(d) if e != urn]
        provider = (r.get("provider") or "").rsplit("::", 1)[0]  # a provider reference is "<urn>::<id>"
        if provider in self.res:
            out.append((provider, "provider"))
        if r.get("parent") in self.res:
            out.append((r["parent"], "parent"))
        return out


def schedule(resources: list[dict[str, Any]], durations: list[Duration],
             keep_edge=None, pick: str = "typical") -> Schedule:
    """Earliest start/finish of every resource and the critical path (the chain ending last).

    :param keep_edge: ``(graph, dependent_urn, predecessor_urn, kind) -> bool``; drop edges it refuses (used for the
        unavoidable chain). Parent edges are always kept.
    :param pick: ``low``, ``typical`` or ``high`` end of each duration range.
    :raises ValueError: on a dependency cycle.
    """
    graph = Graph(resources)
    unmatched: set[str] = set()

    def duration(urn: str) -> float:
        r = graph.res[urn]
        if graph.is_component(urn):
            return 0.0
        for d in durations:
            if d.applies(r["type"], r.get("inputs") or {}):
                return {"low": d.low_s, "typical": d.typical_s, "high": d.high_s}[pick]
        unmatched.add(r["type"])
        return 0.0

    steps: dict[str, Step] = {}
    visiting: set[str] = set()

    def visit(urn: str) -> Step:
        if urn in steps:
            return steps[urn]
        if urn in visiting:
            raise ValueError(f"dependency cycle through {urn}")
        visiting.add(urn)
        start, via, kind = 0.0, None, ""
        # sorted by name: of predecessors finishing at the same time the path names the same one on every run
        for pred, k in sorted(graph.edges(urn), key=lambda e: (graph.res[e[0]]["name"], e[1])):
            if k != "parent" and keep_edge is not None and not keep_edge(graph, urn, pred, k):
                continue
            p = visit(pred)
            # a child waits for its parent's registration: a component registers when it starts (no cloud call)
            t = p.start_s if (k == "parent" and graph.is_component(pred)) else p.finish_s
            if t > start or via is None:
                start, via, kind = max(start, t), pred, k
        dur = duration(urn)
        visiting.discard(urn)
        steps[urn] = Step(urn, graph.res[urn]["name"], graph.res[urn]["type"], dur, start, start + dur, via, kind)
        return steps[urn]

    for urn in graph.res:
        visit(urn)
    if not steps:
        return Schedule({}, 0.0, [], [])
    last = max(steps.values(), key=lambda s: (s.finish_s, s.duration_s))
    path = [last]
    while path[-1].via is not None:
        path.append(steps[path[-1].via])
    path.reverse()
    return Schedule(steps, last.finish_s, path, sorted(unmatched))


def required_edge(graph: Graph, urn: str, pred: str, kind: str) -> bool:
    """True if OKE itself imposes ``urn`` waiting for ``pred`` (see :data:`REQUIRED`)."""
    a, b = category(graph.res[urn]["type"]), category(graph.res[pred]["type"])
    if b not in REQUIRED[a]:
        return False
    if a == PLATFORM and b == NODE_POOL:
        pools = [r for r in graph.res.values() if category(r["type"]) == NODE_POOL]
        platform_pools = [r for r in pools if is_platform_pool(r)] or pools
        return graph.res[pred] in platform_pools
    return True


@dataclass
class Analysis:
    """The design's schedule, the unavoidable one, and the serial edges the design adds on its critical path."""

    design: Schedule
    unavoidable: Schedule
    design_low_s: float
    design_high_s: float
    extra_edges: list[dict[str, Any]]

    @property
    def added_s(self) -> float:
        return self.design.total_s - self.unavoidable.total_s


def analyse(resources: list[dict[str, Any]], durations: Optional[list[Duration]] = None) -> Analysis:
    """Critical path of the design vs the unavoidable chain; every non-required edge on the design's path."""
    durations = durations if durations is not None else load_durations()
    design = schedule(resources, durations)
    unavoidable = schedule(resources, durations, keep_edge=required_edge)
    graph = Graph(resources)
    extra: list[dict[str, Any]] = []
    for step in design.path:
        if step.via is None or step.via_kind == "parent":
            continue
        if not required_edge(graph, step.urn, step.via, step.via_kind):
            # What the edge costs: the estimate without every non-required edge into the same predecessor (the
            # dependent's siblings usually wait for it too, so dropping one edge alone would show nothing).
            pred = step.via
            without = schedule(resources, durations, keep_edge=lambda g, u, p, k, b=pred:
                               p != b or required_edge(g, u, p, k))
            dependents = sorted(graph.res[u]["name"] for u in graph.res for p, k in graph.edges(u)
                                if p == pred and k != "parent" and not required_edge(graph, u, p, k))
            extra.append({"waitsFor": graph.res[pred]["name"], "dependent": step.name,
                          "edge": f"{category(step.type)} → {category(graph.res[pred]['type'])}",
                          "kind": step.via_kind, "allDependents": dependents,
                          "costMin": round((design.total_s - without.total_s) / 60, 1)})
    return Analysis(design, unavoidable, schedule(resources, durations, pick="low").total_s,
                    schedule(resources, durations, pick="high").total_s, extra)


def format_path(s: Schedule) -> list[str]:
    """One line per custom resource on the path: start → finish (minutes), duration, type, name, why it waited."""
    lines = []
    for step in s.path:
        if step.duration_s == 0 and step.type.split(":")[0] not in ("oci", "kubernetes"):
            continue  # components and providers take no time; the next line names the edge through them
        lines.append(f"  {step.start_s / 60:6.1f} → {step.finish_s / 60:6.1f} min  {step.duration_s / 60:5.1f}  "
                     f"{category(step.type):<15} {step.type.split(':')[-1]:<34} {step.name}")
    return lines


def to_dict(a: Analysis) -> dict[str, Any]:
    """The analysis as JSON (minutes rounded to 0.1)."""
    def path(s: Schedule) -> list[dict[str, Any]]:
        return [{"name": p.name, "type": p.type, "category": category(p.type), "startMin": round(p.start_s / 60, 1),
                 "finishMin": round(p.finish_s / 60, 1), "waitsFor": _name(s, p.via),
                 "edge": p.via_kind or None} for p in s.path]
    return {"estimatedUpMin": round(a.design.total_s / 60, 1),
            "estimatedUpRangeMin": [round(a.design_low_s / 60, 1), round(a.design_high_s / 60, 1)],
            "unavoidableMin": round(a.unavoidable.total_s / 60, 1),
            "addedByDesignMin": round(a.added_s / 60, 1),
            "criticalPath": path(a.design), "unavoidablePath": path(a.unavoidable),
            "extraSerialEdges": a.extra_edges, "typesWithoutDuration": a.design.unmatched_types}
