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
CONFIG_GROUP = "kubernetes:yaml/v2:ConfigGroup"


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


def removed_addon_objects(run: Any, previous: Optional[dict]) -> list[str]:
    """One warning per add-on switched off against ``previous`` (its release or manifest deleted) whose CRDs hold
    users' objects: which custom objects the stack and the tenants lose with it (deleted with the CRDs, or left with
    no controller; :data:`oke_rdma.facts.crds.OBJECTS_DELETED_ON_REMOVAL`), and the command that lists them. Nothing
    without ``previous``."""
    from oke_rdma.facts.crds import OBJECTS_DELETED_ON_REMOVAL, user_objects

    if previous is None or run.changes is None:
        return []
    deleted = {c.urn: c for c in run.changes if c.op == "delete"}
    tenants = sorted(str(t.get("namespace")) for t in (run.outputs.get("tenants") or {}).values()
                     if isinstance(t, dict) and t.get("namespace"))
    before = previous.get("resources", [])
    out = []
    for addon in REGISTRY:
        gone = [r for r in before if r.get("urn") in deleted and r.get("type") in (RELEASE, CONFIG_GROUP)
                and str(r.get("name", "")).endswith(f"-{addon.release_name}")]
        kinds = user_objects(addon.key)
        if not gone or not addon.crds or not kinds:
            continue
        lifecycle = CRD_LIFECYCLE.get(addon.key)
        lost = lifecycle is None or OBJECTS_DELETED_ON_REMOVAL[lifecycle.mode]  # unknown: assume the worst
        groups = set(addon.crds)
        own = sorted(f"{r['type'].rsplit(':', 1)[1]} {r['name']}" for r in before
                     if r.get("urn") in deleted and r.get("type", "").split(":")[1].split("/")[0] in groups)
        what = ("are deleted with its CRDs (the API server deletes every object of a deleted CRD, in every "
                "namespace)" if lost else
                "stay, but no controller acts on them any more (objects carrying its finalizers cannot be deleted "
                "until it runs again)")
        out.append(f"oke-rdma:platform.{addon.key}: switching {addon.key} off removes release "
                   f"{gone[0]['name']}; its custom objects ({', '.join(kinds)}) {what}: the stack's own "
                   f"({', '.join(own) if own else 'none declared'}) and the tenants' in "
                   f"{', '.join(tenants) if tenants else 'no tenant namespace'}. List them before pulumi up: "
                   f"kubectl get {','.join(kinds)} -A")
    return out
