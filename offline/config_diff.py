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


@functools.lru_cache(maxsize=1)
def _reference_rows() -> dict[str, tuple[str, bool]]:
    """Config reference path (``platform.kubePrometheusStack.version``, ``tenants.<tenant>.quota.gpu``) → (its
    default as the reference gives it, whether the key is secret), read from the config model
    (:func:`oke_rdma.config.reference.iter_rows`); empty when the model cannot be read."""
    try:
        from oke_rdma.config.reference import iter_rows
        return {row.path: (row.default, "secret" in row.type) for row in iter_rows()}
    except Exception:  # noqa: BLE001 (a report never fails on its reference: no default is shown then)
        return {}


def _row_for(path: str) -> Optional[str]:
    import re

    parts = [p for p in re.split(r'\.(?![^\[]*\])|\["|"\]', path) if p]
    for row in _reference_rows():
        pieces = row.split(".")
        if len(pieces) == len(parts) and all(a == b or (a.startswith("<") and a.endswith(">"))
                                             for a, b in zip(pieces, parts)):
            return row
    return None


def default_of(path: str) -> Optional[str]:
    """The default the config model gives the key at ``path`` (``88.5.3`` for ``platform.kubePrometheusStack.version``),
    as text; None when it has none (a required key, one derived from others) or the path is not a key of it."""
    row = _row_for(path)
    text = _reference_rows()[row][0] if row else ""
    if len(text) > 2 and text.startswith("`") and text.endswith("`") and "`" not in text[1:-1]:
        return text[1:-1]
    return None


def _member_row(path: str) -> bool:
    """True when ``path`` names one member of a map of models (``tenants.nlp``, ``nodePools.gpu``): the reference
    has rows under ``tenants.<tenant>.``. Adding or removing one is one change (a tenant, a pool)."""
    parts = path.split(".")
    if len(parts) < 2:
        return False
    parent = _row_for(".".join(parts[:-1]))
    head = f"{parent or '.'.join(parts[:-1])}.<"
    return any(r.startswith(head) for r in _reference_rows())


def leaves(path: str, value: Any) -> list[tuple[str, Any]]:
    """``(path, value)`` of every leaf of a map ``value`` at ``path`` (lists and scalars are leaves), in key order."""
    if isinstance(value, dict) and value:
        return [leaf for key in sorted(value, key=str) for leaf in leaves(_key_path(path, key), value[key])]
    return [(path, value)]


def expand(changes: list[tuple[str, Any, Any]]) -> list[tuple[str, Any, Any]]:
    """The config ``changes`` as a reviewer reads them: a map that was unset before (a new add-on section, a new
    tenant) as its leaf keys, each against the default it replaces (``(default 88.5.3)``, else :data:`UNSET`); a
    settings map unset again the same way (its leaves back to their defaults); a member of a map removed (a tenant,
    a pool) stays one change. A secret key keeps its :data:`SECRET`."""
    out: list[tuple[str, Any, Any]] = []
    for path, old, new in changes:
        if old == UNSET and isinstance(new, dict) and new:
            out += [(leaf, _default_side(leaf), value) for leaf, value in leaves(path, new)]
        elif new == UNSET and isinstance(old, dict) and old and not _member_row(path):
            out += [(leaf, value, _default_side(leaf)) for leaf, value in leaves(path, old)]
        else:
            out.append((path, old, new))
    return out


#: How a default stands on one side of a config change in the report.
DEFAULT_MARK = " (default)"


def _default_side(path: str) -> Any:
    default = default_of(path)
    return UNSET if default is None else f"{default}{DEFAULT_MARK}"


def secret_key(path: str) -> bool:
    """True when the config model marks the key at ``path`` secret (a password): its value is never printed, even
    when the stack file holds it in plain text."""
    row = _row_for(path)
    return bool(row and _reference_rows()[row][1])
