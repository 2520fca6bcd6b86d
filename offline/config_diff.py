"""The stack config a plan was made from, and what changed in it since an earlier plan: the report's attributions
("the config change behind this replacement") are made from these keys, never guessed.

A ``--json`` plan records its stack's config (:func:`plan_config`: the raw config the program read, structured
values decoded, secret keys ``[secret]``). With ``--previous``, :func:`config_changes` lists every path whose
value differs between the previous plan's config and this run's (maps compared key by key), in the ``pulumi config
set --path`` notation without the project's namespace (``network.apiEndpoint.publicSubnet``; another namespace's keys keep theirs,
``oci:region``). A plan written before plans recorded their config gives None: nothing can be attributed then,
and the report says so instead of naming a key.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Iterable, Optional

#: A secret config key's value in a plan (the plan never holds a secret).
SECRET = "[secret]"
#: A value absent on one side of a change.
UNSET = "(unset)"


def plan_config(config: dict[str, str], secret_keys: Iterable[str]) -> dict[str, Any]:
    """The raw config (key → the string Pulumi hands the program) as a plan records it: JSON maps and lists
    decoded, other values kept as their text, secret keys :data:`SECRET`."""
    secret = set(secret_keys)
    out: dict[str, Any] = {}
    for key, raw in sorted(config.items()):
        if key in secret:
            out[key] = SECRET
            continue
        value: Any = raw
        if isinstance(raw, str) and raw[:1] in "[{":
            try:
                value = json.loads(raw)
            except ValueError:
                value = raw
        out[key] = value
    return out


def _key_path(path: str, key: Any) -> str:
    key = str(key)
    return f"{path}.{key}" if "." not in key and "/" not in key else f'{path}["{key}"]'


def _diff(old: Any, new: Any, path: str, out: list[tuple[str, Any, Any]]) -> None:
    """Maps on both sides are compared key by key; anything else (a list, a scalar, a map on one side only: a tenant
    added or removed is one change, not one per key inside it) as a whole."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            _diff(old.get(key, UNSET), new.get(key, UNSET), _key_path(path, key), out)
    elif json.dumps(old, sort_keys=True) != json.dumps(new, sort_keys=True):
        out.append((path, old, new))


def config_changes(previous_plan: Optional[dict], config: dict[str, Any], project: str = "oke-rdma"
                   ) -> Optional[list[tuple[str, Any, Any]]]:
    """``(path, old, new)`` for every config value that differs between ``previous_plan``'s recorded config and
    ``config`` (:func:`plan_config` form), maps compared key by key (a map present on one side only is one change),
    sorted by path; :data:`UNSET` for a side without it. None when the previous plan records no config (written by an
    older version)."""
    if not isinstance(previous_plan, dict) or not isinstance(previous_plan.get("config"), dict):
        return None
    before, after = previous_plan["config"], config
    out: list[tuple[str, Any, Any]] = []
    for key in sorted(set(before) | set(after)):
        _diff(before.get(key, UNSET), after.get(key, UNSET), key.removeprefix(f"{project}:"), out)
    return sorted(out, key=lambda c: c[0])


def shown(value: Any) -> str:
    """A config value as the report prints it: text as is, a map as its keys, anything else as compact JSON."""
    if isinstance(value, dict):
        return f"a map ({', '.join(str(k) for k in value) or 'no keys'})"
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, separators=(",", ":"))


def describe(changes: list[tuple[str, Any, Any]], limit: int = 4) -> str:
    """``network.apiEndpoint.publicSubnet (unset → true)``, at most ``limit`` of them, the rest counted."""
    def short(value: Any) -> str:
        text = "unset" if value == UNSET else shown(value)
        return text if len(text) <= 60 else f"({len(text)} characters)"
    parts = [f"{path} ({short(old)} → {short(new)})" for path, old, new in changes[:limit]]
    if len(changes) > limit:
        parts.append(f"and {len(changes) - limit} more (Config changed, above)")
    return ", ".join(parts)


#: The change-cost reference (``python -m offline.changecost --write``): what changing each config key alone does to
#: the dev stack, as the preview's own replacement model planned it.
CHANGE_COST = Path(__file__).resolve().parent / "change_cost.json"


@functools.lru_cache(maxsize=1)
def _replaced_types() -> dict[str, frozenset[str]]:
    """Reference key (``nodePools.<pool>.shape``, or a structural change's label: ``a new tenant``) → the resource
    types changing it alone replaces (empty: it replaces nothing); keys the reference could not derive
    (``invalid``) are left out (their effect is unknown)."""
    try:
        entries = json.loads(CHANGE_COST.read_text(encoding="utf-8")).get("entries", {})
    except (OSError, ValueError):
        return {}
    return {e.get("label") or e["key"]: frozenset(c[1] for c in e.get("changes") or [] if c[0] == "replace")
            for e in entries.values() if isinstance(e, dict) and e.get("key") and e.get("kind") != "invalid"}


#: A map of the config added or removed as a whole → the change-cost reference's structural case.
_STRUCTURAL = {("tenants", "added"): "a new tenant", ("tenants", "removed"): "a tenant removed",
               ("nodePools", "added"): "a new node pool"}


def _reference_key(path: str, old: Any = None, new: Any = None) -> Optional[str]:
    """The change-cost reference's key for a changed config ``path`` (``nodePools.gpu.shape`` →
    ``nodePools.<pool>.shape``; a path inside a map-valued key → that key; a tenant or pool added or removed as a
    whole → its structural case), or None when it has none."""
    import re

    parts = [p for p in re.split(r'\.(?![^\[]*\])|\["|"\]', path) if p]
    known = _replaced_types()
    if len(parts) == 2 and (old == UNSET) != (new == UNSET):
        label = _STRUCTURAL.get((parts[0], "added" if old == UNSET else "removed"))
        return label if label in known else None
    for end in range(len(parts), 0, -1):
        for key in known:
            pieces = key.split(".")
            if len(pieces) == end and all(a == b or (a.startswith("<") and a.endswith(">"))
                                          for a, b in zip(pieces, parts[:end])):
                return key
    return None


def forcing_changes(changes: list[tuple[str, Any, Any]], resource_type: str
                    ) -> tuple[list[tuple[str, Any, Any]], list[tuple[str, Any, Any]]]:
    """``(forcing, unknown)``: of the config ``changes`` (:func:`config_changes`), those whose change alone replaces a
    resource of ``resource_type`` according to the change-cost reference (``network.apiEndpoint.public`` replaces a
    subnet; ``network.apiEndpoint.allowedCidrs`` adds an NSG rule and replaces nothing), and those the reference
    does not cover (a key it could not derive), which may contribute. The rest replace nothing of that type and are
    not its cause."""
    forcing, unknown = [], []
    for change in changes:
        key = _reference_key(*change)
        if key is None:
            unknown.append(change)
        elif resource_type in _replaced_types()[key]:
            forcing.append(change)
    return forcing, unknown


def attribute(changes: list[tuple[str, Any, Any]], resource_type: str, limit: int = 4) -> str:
    """The config change(s) behind a replacement of a ``resource_type``, described (:func:`describe`): the keys whose
    change alone forces it (:func:`forcing_changes`); when none does, those the change-cost reference does not cover
    (``possibly ...``); when there are none either, every changed key (a combination of them may force it). The
    report's Config changed block lists every key whatever is named here."""
    forcing, unknown = forcing_changes(changes, resource_type)
    if forcing:
        return describe(forcing, limit)
    if unknown:
        return "possibly " + describe(unknown, limit)
    return describe(changes, limit)
