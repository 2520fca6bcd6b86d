"""``python -m offline.preview --fleet fleet/fleet.yaml``: the offline preview of every stack of a fleet, in rollout
order, summed up in one table (docs/fleet.md, "One preview for the whole fleet").

Each stack's resolved config (:mod:`oke_rdma.fleet.resolve`: the fleet's defaults under its file, the landing zone,
the management egress) is previewed by the ordinary preview (:func:`offline.preview.main`, the same program and
policy packs), in this order: the management stack, the landing zones, then wave by wave. A landing zone's plan
feeds the clusters that take its network through ``--stack-outputs`` (the StackReference mechanism); a cluster
whose landing zone failed is not previewed (``skipped``).

With ``--previous-dir DIR`` (the base branch's plans, written by ``--json-dir`` of a fleet preview of the base),
each stack is planned against its base plan (``<DIR>/<stack>.json``): creates, updates, replaces, deletes. Every
stack is previewed with this checkout's program: a stack pinning another release says so in its note. A stack
in the base (``<DIR>/fleet.json``) and no longer in the fleet is **removed**: every resource of its base plan is
deleted; unless it was ``decommissioned`` in the base (the first of the two steps), the removal exits 5 like
``--fail-on-replace``, naming the stateful resources it would destroy. A base without ``fleet.json`` counts every
removed stack as not decommissioned (fail closed).

The table: stack, wave, release, exit code, creates / updates / replaces / deletes, node pools left on an older
Kubernetes version than their cluster, refusals (mandatory policy violations, changes the API server refuses,
protected resources replaced or deleted). The exit code is the worst of the stacks', worst first: 3 (a program
failed), 2 (invalid config), 4 (a plan that cannot be applied), 1 (a mandatory policy violation), 5 (a stateful
resource destroyed: ``--fail-on-replace``, or a stack removed before it was decommissioned), 0.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import yaml

#: Exit codes, worst first (see the module docstring).
SEVERITY = (3, 2, 4, 1, 5, 0)
CLUSTER, NODE_POOL = "oci:ContainerEngine/cluster:Cluster", "oci:ContainerEngine/nodePool:NodePool"
EXIT_DESTROYS = 5


def worst(codes: list[int]) -> int:
    """The worst exit code of ``codes`` by :data:`SEVERITY` (an unknown code counts as a program failure)."""
    ranked = [c if c in SEVERITY else 3 for c in codes] or [0]
    return min(ranked, key=SEVERITY.index)


@dataclass
class Row:
    """One stack's line of the table."""

    stack: str
    wave: str
    release: str
    code: Optional[int] = None
    counts: dict[str, int] = field(default_factory=dict)
    old_pools: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    note: str = ""
    output: str = ""

    def cells(self) -> list[str]:
        c = self.counts
        return [self.stack, self.wave, self.release, "-" if self.code is None else str(self.code),
                *(str(c.get(op, 0)) for op in ("create", "update", "replace", "delete")),
                ", ".join(self.old_pools) or "-", str(len(self.refusals)), self.note]


HEADER = ["stack", "wave", "release", "exit", "creates", "updates", "replaces", "deletes",
          "node pools on an old version", "refusals", "note"]


def table(rows: list[Row]) -> str:
    """The rows as a Markdown table (readable as text, rendered by the GitHub job summary)."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(r.cells()) + " |" for r in rows]
    return "\n".join(lines)


def plan_summary(plan: dict[str, Any], base: Optional[dict[str, Any]] = None) -> tuple[dict[str, int], list[str],
                                                                                   list[str]]:
    """From a ``--json`` plan (and the ``base`` plan it was compared with): the count per operation (every custom
    resource created when the plan has no ``changes``), the node pools left on an older Kubernetes version than their
    cluster — pinned older, or whose version changed in place without node cycling (OKE gives the new version only
    to nodes created from then on) —, and the refusals."""
    resources = plan.get("resources", [])
    if "changes" in plan:
        counts: dict[str, int] = {}
        for c in plan["changes"]:
            counts[c["op"]] = counts.get(c["op"], 0) + 1
    else:
        counts = {"create": sum(1 for r in resources if r.get("custom"))}
    versions = {r.get("id"): r["inputs"].get("kubernetesVersion") for r in resources if r["type"] == CLUSTER}
    only = next(iter(versions.values())) if len(versions) == 1 else None
    before = {r["urn"]: r.get("inputs", {}) for r in (base or {}).get("resources", [])}
    changed = {c["urn"]: c for c in plan.get("changes", []) if c["op"] == "update"}
    old = []
    for r in resources:
        if r["type"] != NODE_POOL:
            continue
        wanted = versions.get(r["inputs"].get("clusterId"), only)
        have = r["inputs"].get("kubernetesVersion")
        was = before.get(r["urn"], {}).get("kubernetesVersion")
        cycling = (r["inputs"].get("nodePoolCyclingDetails") or {}).get("isNodeCyclingEnabled") is True
        if wanted and have and have != wanted:
            old.append(f"{r['name']} ({have} < {wanted})")
        elif r["urn"] in changed and "kubernetesVersion" in changed[r["urn"]].get("changed", []) and not cycling:
            old.append(f"{r['name']} (existing nodes stay on {was}: no node cycling)")
    refusals = [f"policy {v['policy']}: {v['message']}" for v in plan.get("policyViolations", [])
                if v.get("enforcementLevel") == "mandatory"]
    for c in plan.get("changes", []):
        refusals += [f"{c['name']}: {reason}" for reason in c.get("refused", [])]
        if c.get("protect") and c["op"] in ("replace", "delete"):
            refusals.append(f"{c['name']}: protected, would be {c['op']}d")
    return counts, old, refusals


def removed_rows(previous_dir: Path, current: set[str]) -> list[Row]:
    """Rows for the stacks of the base (``fleet.json`` in ``previous_dir``, else every ``<stack>.json`` there) that
    are not in the fleet any more: every resource of the base plan deleted; exit 5 naming the stateful ones unless
    the stack was decommissioned in the base."""
    from offline.replacement import Change, stateful_destroyed

    index_path = previous_dir / "fleet.json"
    index = json.loads(index_path.read_text(encoding="utf-8")) if index_path.is_file() else {
        p.stem: {} for p in previous_dir.glob("*.json")}
    rows = []
    for name, info in sorted(index.items()):
        if name in current or info.get("kind") == "management":
            continue
        plan_path = previous_dir / f"{name}.json"
        plan = json.loads(plan_path.read_text(encoding="utf-8")) if plan_path.is_file() else {"resources": []}
        deleted = [Change(r["urn"], r["type"], r["name"], "delete") for r in plan["resources"] if r.get("custom")]
        row = Row(name, info.get("wave", "?"), info.get("release", "?"), counts={"delete": len(deleted)})
        if info.get("decommissioned"):
            row.code, row.note = 0, "removed after decommissioning: the operator destroys it"
        else:
            lost = stateful_destroyed(deleted)
            row.code = EXIT_DESTROYS
            row.note = (f"removed without being decommissioned: {len(lost)} stateful resources destroyed; set "
                        "decommissioned: true first, merge, then remove it")
            row.refusals = [f"{c.type} {c.name}: loses {reason}" for c, reason in lost]
        rows.append(row)
    return rows


def _write_config(path: Path, config: dict[str, Any]) -> None:
    path.write_text(yaml.safe_dump({"config": config}, sort_keys=True), encoding="utf-8")


def preview_fleet(fleet_path: Path, run: Callable[[list[str]], int], previous_dir: Optional[Path] = None,
                  json_dir: Optional[Path] = None, fail_on_replace: bool = False,
                  echo: bool = False) -> tuple[int, list[Row]]:
    """Preview every stack of the fleet at ``fleet_path`` (see the module docstring), each with ``run`` (the single
    stack preview, :func:`offline.preview.main`, handed in so the modules import in one direction).

    :returns: ``(exit code, rows)``; the fleet file's problems are printed and give ``(2, [])``.
    """
    from oke_rdma.fleet import FleetError, load_fleet, resolve

    try:
        fleet = load_fleet(fleet_path)
        stacks = resolve(fleet)
    except FleetError as e:
        print(f"error: {fleet_path}: invalid fleet ({len(e.problems)} problem{'s' * (len(e.problems) != 1)}):",
              file=sys.stderr)
        for p in e.problems:
            print(f"  {p}", file=sys.stderr)
        return 2, []
    spec = fleet.spec
    rows: list[Row] = []
    from oke_rdma.fleet.load import realm_notes
    realms = realm_notes(spec)
    with tempfile.TemporaryDirectory(prefix="fleet-preview-") as tmp:
        out = json_dir or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        plans: dict[str, Path] = {}
        for s in stacks:
            release = spec.release_of(s.entry).label
            row = Row(s.name, s.wave, release)
            rows.append(row)
            if spec.release_of(s.entry) != spec.release:
                # the offline preview runs this checkout's program: another release's code is not what it runs
                row.note = f"pins {release}: previewed with this checkout's program, not that release's"
            row.note = "; ".join(filter(None, [row.note, realms.get(s.name, "")]))
            config = Path(tmp) / f"Pulumi.{s.name}.yaml"
            _write_config(config, s.config)
            plan = out / f"{s.name}.json"
            argv = ["--config-file", str(config), "--stack", s.name, "--json", str(plan)]
            zone = getattr(s.entry, "landing_zone", None)
            if zone:
                if zone not in plans:
                    row.note = f"skipped: landing zone {zone} did not preview"
                    continue
                argv += ["--stack-outputs", f"{spec.qualified(zone)}={plans[zone]}"]
            base = previous_dir / f"{s.name}.json" if previous_dir else None
            if base is not None and base.is_file():
                argv += ["--previous", str(base)]
            if fail_on_replace:
                argv.append("--fail-on-replace")
            stdout, stderr = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                try:
                    row.code = run(argv)
                except SystemExit as e:  # argparse
                    row.code = e.code if isinstance(e.code, int) else 2
            row.output = stdout.getvalue() + stderr.getvalue()
            if echo:
                print(f"=== {s.name} ({s.wave}): exit {row.code}\n{row.output}")
            if plan.is_file() and row.code in (0, 1, 4, 5):
                plans[s.name] = plan
                base_plan = json.loads(base.read_text(encoding="utf-8")) if base is not None and base.is_file() \
                    else None
                row.counts, row.old_pools, row.refusals = plan_summary(json.loads(plan.read_text(encoding="utf-8")),
                                                                       base_plan)
                if base is not None and not base.is_file():
                    row.note = "; ".join(filter(None, [row.note, "new stack (no base plan)"]))
            else:
                failure = next((line for line in row.output.splitlines() if line.startswith("error")), "failed")
                row.note = "; ".join(filter(None, [row.note, failure[:160]]))
        if previous_dir is not None:
            rows += removed_rows(previous_dir, {s.name for s in stacks})
        if json_dir is not None:
            index = {s.name: {"kind": s.kind, "wave": s.wave, "release": spec.release_of(s.entry).label,
                              "decommissioned": bool(getattr(s.entry, "decommissioned", False))} for s in stacks}
            (json_dir / "fleet.json").write_text(json.dumps(index, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return worst([r.code if r.code is not None else 3 for r in rows]), rows  # a skipped stack counts as failed


def main(args: Any, run: Callable[[list[str]], int]) -> int:
    """The ``--fleet`` mode of :mod:`offline.preview` (``args``: its parsed arguments; ``run``: its ``main``)."""
    code, rows = preview_fleet(args.fleet, run, args.previous_dir, args.json_dir, args.fail_on_replace,
                               echo=args.details)
    if rows:
        print(f"Fleet preview: {args.fleet} ({len(rows)} stacks, exit {code})\n")
        print(table(rows))
        for r in rows:
            for refusal in r.refusals:
                print(f"error: {r.stack}: {refusal}", file=sys.stderr)
    if args.summary:
        with open(args.summary, "a", encoding="utf-8") as f:
            f.write(f"### Fleet preview: {args.fleet} (exit {code})\n\n{table(rows)}\n\n")
    return code
