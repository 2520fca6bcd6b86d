"""A version change of an add-on that ships CRDs, against the previous plan: how its CRDs change
(:data:`oke_rdma.facts.crds.CRD_LIFECYCLE`), or — for CRDs in a chart's ``crds/`` directory, which Helm never
upgrades — a refusal with the step to take until the stack records that the new CRDs were applied
(``platform.<key>.crdsApplied``)."""

from __future__ import annotations

import json
from typing import Any, Optional

from oke_rdma.addons import REGISTRY
from oke_rdma.facts.charts import MAJOR_STEPS_SOURCE, skipped_majors
from oke_rdma.facts.crds import CRD_LIFECYCLE, CRDS_DIR, crd_step

RELEASE = "kubernetes:helm.sh/v3:Release"


def _platform(config: dict[str, Any]) -> dict[str, Any]:
    raw = config.get("oke-rdma:platform", {})
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def crd_changes(run: Any, previous: Optional[dict], config: dict[str, Any]) -> tuple[list[str], list[str]]:
    """``(notes, refusals)`` for every add-on release whose chart version changes against ``previous``: a note saying
    how its CRDs change; a refusal (the step to take) for a ``crds-dir`` add-on whose ``crdsApplied`` does not name
    the new version, and for a change skipping a major the vendor requires going through
    (:data:`oke_rdma.facts.charts.MAJOR_STEPS`). Nothing without ``previous``."""
    if previous is None or run.changes is None:
        return [], []
    old = {r["urn"]: r.get("inputs") or {} for r in previous.get("resources", [])}
    by_release = {a.release_name: a for a in REGISTRY}
    platform = _platform(config)
    changed = {c.urn for c in run.changes if c.op in ("update", "replace") and "version" in c.changed}
    notes, refusals = [], []
    for res in run.resources:
        if res.type != RELEASE or res.urn not in changed:
            continue
        addon = by_release.get(res.inputs.get("name"))
        before, after = old.get(res.urn, {}).get("version"), res.inputs.get("version")
        skipped = skipped_majors(addon.key, str(before), str(after)) if addon else []
        if skipped:
            refusals.append(f"oke-rdma:platform.{addon.key}.version: {before} -> {after} skips the major "
                            f"release{'s' if len(skipped) > 1 else ''} {', '.join(skipped)}, and the vendor supports "
                            f"an upgrade to the next major only ({MAJOR_STEPS_SOURCE}); upgrade to the newest "
                            f"{skipped[0]}.x first, run pulumi up, then to {after}")
            continue
        row = CRD_LIFECYCLE.get(addon.key) if addon else None
        if row is None:
            continue
        line = f"{addon.key} {before} -> {after}: {row.how}"
        if row.mode == CRDS_DIR:
            applied = (platform.get(addon.key) or {}).get("crdsApplied")
            if applied != after:
                refusals.append(f"oke-rdma:platform.{addon.key}.version: {before} -> {after} leaves the old CRDs in "
                                f"place ({row.how}; {row.source}); "
                                f"{crd_step(addon.key, addon.chart, addon.repository, str(after))}")
                continue
            line += f"; applied beforehand (platform.{addon.key}.crdsApplied: {applied})"
        notes.append(line)
    return notes, refusals
