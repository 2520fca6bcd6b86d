"""The offline preview's machine-readable plan (``--json``): every resource with its inputs, outputs, id,
dependencies and options, the stack outputs, the policy findings, the diagnostics and, with ``--previous``, the
planned change of each resource, and the stack config it was made from (secret keys ``[secret]``).

The document is deterministic: resources in topological order (a resource after its parent, its dependencies, its
property dependencies and its provider), ties broken by URN, and every object's keys sorted when written
(:func:`dumps`), so two plans of the same program and config are byte-identical whatever the Python hash seed, and
two plans of different commits diff line by line. Secrets are ``[secret]``, unknown values ``[unknown]``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from offline import indented_json
from offline.engine import ProgramRun, topological
from offline.policy_types import EngineResource
from offline.replacement import Change
from offline.values import hide, mask

#: The version of the plan document's shape (``planVersion``).
PLAN_VERSION = 2


def ordered_violations(violations: list, resources: list[EngineResource]) -> list:
    """Policy findings in a stable order: by pack, policy, the resource's place in the plan (stack-wide first),
    message. The engine's analysis order follows registration order, which the SDK's threads may vary."""
    position = {r.urn: i for i, r in enumerate(resources)}
    return sorted(violations, key=lambda v: (v.pack, v.policy, position.get(v.urn, -1), v.urn, v.message))


def _id(run: ProgramRun, urn: str) -> Optional[str]:
    rid = run.ids.get(urn)
    return None if rid is None else (rid or "[unknown]")


def to_json(stack: str, run: ProgramRun, report, changes: Optional[list[Change]] = None) -> dict:
    """The plan document (secrets masked). ``replaceOnChanges``, ``protect``, ``id`` and ``outputs`` per resource let
    a later run's ``--previous`` start from it; ``changes`` is present only when this run was compared with a previous
    one (in plan order, then the deletions by URN)."""
    ordered = topological(run.resources)
    doc = {
        "planVersion": PLAN_VERSION,
        "stack": stack,
        # the config the plan was made from (secret keys [secret]): a later --previous run names the keys that
        # changed since (offline.config_diff)
        "config": getattr(run, "config", None) or {},
        "resources": [{
            "urn": r.urn, "type": r.type, "name": r.name, "id": _id(run, r.urn), "parent": r.parent,
            "custom": r.custom, "provider": r.provider, "protect": r.protect, "retainOnDelete": r.retain_on_delete,
            **({"replaceWith": sorted(r.replace_with)} if r.replace_with else {}),
            **({"replacementTrigger": mask(r.replacement_trigger)} if r.replacement_trigger is not None else {}),
            **({"deletedWith": r.deleted_with} if r.deleted_with else {}),
            "deleteBeforeReplace": r.delete_before_replace, "ignoreChanges": sorted(r.ignore_changes),
            "replaceOnChanges": run.replace_on_changes.get(r.urn, []),
            "dependencies": sorted(r.dependencies),
            "propertyDependencies": {k: sorted(v) for k, v in sorted(r.property_dependencies.items())},
            "inputs": mask(r.inputs), "outputs": mask(r.outputs)} for r in ordered],
        "outputs": mask(run.outputs),
        "policyViolations": [{"policy": v.policy, "enforcementLevel": v.enforcement_level, "urn": v.urn,
                              "message": hide(v.message)} for v in ordered_violations(report.violations, ordered)],
        "notChecked": [hide(a) for a in run.advisories],
        "diagnostics": [{"severity": severity, "message": hide(message)} for severity, message in run.diagnostics],
        # the addresses OCI gave the private IPs the program read (getPrivateIp): tenancy state, not Pulumi state;
        # a later --previous run answers from them (offline.mocks)
        "privateIps": dict(sorted(run.mocks.addresses.items())),
    }
    if changes is not None:
        position = {r.urn: i for i, r in enumerate(ordered)}
        ordered_changes = sorted(changes, key=lambda c: (c.op == "delete", position.get(c.urn, 0), c.urn))
        doc["changes"] = [{"urn": c.urn, "type": c.type, "name": c.name, "op": c.op,
                           "replaceBecause": list(c.replace_because), "causedBy": list(c.caused_by),
                           "deleteBeforeReplace": c.delete_before_replace, "protect": c.protect,
                           "retained": c.retained,
                           "refused": list(c.refused), "manual": list(c.manual),
                           "changed": list(c.changed)} for c in ordered_changes]
    return doc


def dumps(doc: dict) -> str:
    """The plan as written to ``--json``: keys sorted, two-space indent, a final newline — the text of
    ``json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False)``, written faster
    (:func:`offline.indented_json.dumps`)."""
    return indented_json.dumps(doc) + "\n"


def write(doc: dict, path: Path) -> None:
    """Write the plan to ``path`` as :func:`dumps` gives it (UTF-8), a part at a time (the text of a large plan is
    never held whole).

    :raises OSError: when the file cannot be written.
    """
    with path.open("w", encoding="utf-8") as fp:
        indented_json.dump(doc, fp, end="\n")
