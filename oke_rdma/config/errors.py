"""How a pydantic validation error of the stack config becomes one line: the config key path
(``oke-rdma:nodePools.gpu.size``), what is wrong, the bounds or the nearest valid key, and the fix. Used by
:mod:`oke_rdma.config.loader`."""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping
from typing import Any, Optional

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from ._base import NAMESPACE, SECRET_PLACEHOLDER, _key
from .stack import StackConfig

_TOP_LEVEL_FIELDS = {f.alias or name: name for name, f in StackConfig.model_fields.items()}


def _unwrap(ann: Any) -> tuple[Any, bool]:
    """``Optional[X]``/``dict[str, X]``/``Annotated`` → ``(X, is_map)``: the model (or type) a key path walks into."""
    origin = getattr(ann, "__origin__", None)
    args = getattr(ann, "__args__", ())
    if origin is dict:
        return args[1], True
    for a in (ann, *args):
        if isinstance(a, type) and issubclass(a, BaseModel):
            return a, False
    return ann, False


def _walk(path: tuple[Any, ...]) -> Optional[tuple[Optional[FieldInfo], Any, bool]]:
    """Follow a key path (aliases, map keys and list indexes) from :class:`StackConfig`: the last field, the type
    it holds, and whether the path ends inside a map; ``None`` when the path leaves the model."""
    model: Any = StackConfig
    field: Optional[FieldInfo] = None
    in_map = False
    for part in path:
        if in_map or isinstance(part, int):  # a map key (a pool or tenant name) or a list index
            in_map = False
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return None
        field = next((f for n, f in model.model_fields.items() if (f.alias or n) == part), None)
        if field is None:
            return None
        model, in_map = _unwrap(field.annotation)
    return field, model, in_map


def _field_for(path: tuple[Any, ...]) -> Optional[FieldInfo]:
    """The model field a key path ends at, or ``None``."""
    walked = _walk(path)
    return walked[0] if walked else None


def _model_for(path: tuple[Any, ...]) -> Optional[type[BaseModel]]:
    """The model class whose keys live at ``path`` (used to suggest the nearest valid key for a typo)."""
    walked = _walk(path)
    if walked is None:
        return None
    _, model, in_map = walked
    if in_map or not (isinstance(model, type) and issubclass(model, BaseModel)):
        return None
    return model


def _keys_of(model: type[BaseModel]) -> list[str]:
    return [f.alias or n for n, f in model.model_fields.items()]


def _describe(value: Any) -> str:
    """A YAML-minded description of a value the user wrote."""
    if value is None:
        return "null (an empty value)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value:g}" if isinstance(value, float) and math.isfinite(value) else f"the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 60 else value[:57] + "..."
        return f"the text {shown!r}"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)} item" + ("s" if len(value) != 1 else "")
    if isinstance(value, dict):
        return "a map" + (f" with keys {', '.join(_shown_name(k) for k in list(value)[:4])}" if value
                          else " with no keys")
    return f"a {type(value).__name__}"


def _shown_name(name: Any) -> str:
    text = str(name)
    return text if text.isprintable() and text.strip() == text and text else repr(text)


def _bounds(field: Optional[FieldInfo], ctx: Mapping[str, Any]) -> str:
    lo = hi = None
    lo_strict = hi_strict = False
    for m in (field.metadata if field else []):
        lo = getattr(m, "ge", lo)
        hi = getattr(m, "le", hi)
        if getattr(m, "gt", None) is not None:
            lo, lo_strict = m.gt, True
        if getattr(m, "lt", None) is not None:
            hi, hi_strict = m.lt, True
    if lo is None and hi is None:
        lo = ctx.get("ge", ctx.get("gt"))
        lo_strict = "gt" in ctx
        hi = ctx.get("le", ctx.get("lt"))
        hi_strict = "lt" in ctx
    if lo is not None and hi is not None and not lo_strict and not hi_strict:
        return f"from {lo} to {hi}"
    parts = ([f"above {lo}" if lo_strict else f"at least {lo}"] if lo is not None else []) + \
            ([f"below {hi}" if hi_strict else f"at most {hi}"] if hi is not None else [])
    return " and ".join(parts)


def _number_text(value: Any) -> bool:
    return isinstance(value, str) and re.fullmatch(r"[-+]?[0-9]+(\.[0-9]+)?", value.strip()) is not None


#: pydantic error type → the accepted form, in the words of a stack config file.
_TYPE_FORMS = {
    "int_type": "a whole number", "int_parsing": "a whole number", "int_from_float": "a whole number",
    "float_type": "a number", "float_parsing": "a number", "bool_type": "true or false",
    "bool_parsing": "true or false", "string_type": "text", "dict_type": "a map of key: value",
    "model_type": "a map of key: value", "model_attributes_type": "a map of key: value", "tuple_type": "a list",
    "list_type": "a list", "finite_number": "a finite number",
}


def _format_error(err: Mapping[str, Any]) -> str:
    """One pydantic error → ``<key>: <what is wrong>; <fix>`` (type errors: ``expected <form>, got <what>; <fix>``)."""
    loc = tuple(err["loc"])
    key = _key(loc)
    kind = err["type"]
    value = err.get("input")
    field = _field_for(loc)
    if kind == "extra_forbidden":
        if _entry_key(loc[:-1]):  # nodePools.size.x: the entry named like one of its keys
            parent = loc[:-2]
            return (f"{key}: unknown key; {loc[-2]!r} is a key of each entry of {_key(parent)}, not an entry's name: "
                    f"write it under one entry, {_key(parent)}.<name>.{loc[-2]}")
        model = _model_for(loc[:-1])
        valid = _keys_of(model) if model else []
        close = difflib.get_close_matches(str(loc[-1]), valid, n=1, cutoff=0.6)
        if not close:
            close = [v for v in valid if v.lower() == str(loc[-1]).lower()]
        elsewhere = [] if close else _paths_ending(str(loc[-1]))
        if elsewhere:  # a key of another section, written at the wrong level
            where = " or ".join(f"{NAMESPACE}:{p}" for p in elsewhere[:3])
            return (f"{key}: unknown key here; {loc[-1]} is a key of another section: did you mean {where}? (move it "
                    "there, indented under its section)")
        hint = f"did you mean {close[0]}?" if close else f"valid keys here: {', '.join(valid)}"
        return f"{key}: unknown key; {hint}"
    if kind == "missing":
        why = ((field.json_schema_extra or {}) if field and isinstance(field.json_schema_extra, dict) else {}).get(
            "required_because")
        return f"{key}: required" + (f" ({why})" if why else "") + \
            "; set it in the stack config (docs/configuration.md lists its type)"
    if value == SECRET_PLACEHOLDER:
        form = _TYPE_FORMS.get(kind, "a value that can be checked")
        return (f"{key}: expected {form}, got a secret (secure:) that the offline preview cannot decrypt; this key "
                f"must not be a secret: store it in plain text with pulumi config set --path '{_pulumi_path(loc)}' "
                f"<value>")
    if kind in _TYPE_FORMS:
        form = _TYPE_FORMS[kind]
        model = _model_for(loc)
        if model is not None and kind in ("dict_type", "model_type", "model_attributes_type"):
            form += f" with keys {', '.join(_keys_of(model))}"
        if kind in ("int_type", "float_type", "int_parsing", "float_parsing") and _number_text(value):
            extra = field.json_schema_extra if field and isinstance(field.json_schema_extra, dict) else {}
            number = float(value)
            cli = (f" (pulumi config set --path '{_pulumi_path(loc)}' <number> --type "
                   f"{'int' if kind.startswith('int') or extra.get('whole') else 'float'})")
            if extra.get("whole") and math.isfinite(number) and not number.is_integer():
                # the value's own rule in the first message, not after the quotes are gone (a second round)
                fix = (f"{loc[-1]} is {extra.get('rule', 'a whole number')}, so {value.strip()} is not one: write "
                       f"a whole number{_whole_near(field, number)} without quotes{cli}")
            else:
                fix = (f"write {value.strip()} without quotes" if not _outside(field, number) else
                       f"write a number {_bounds(field, {})} without quotes ({value.strip()} is not one)")
        elif kind in ("bool_type", "bool_parsing") and isinstance(value, str):
            meant = {"yes": "true", "y": "true", "on": "true", "no": "false", "n": "false", "off": "false",
                     "true": "true", "false": "false"}.get(value.strip().lower())
            fix = (f"write {meant} without quotes" if meant else "write true or false without quotes") + \
                " (YAML 1.2: yes/no/on/off are text)"
        elif form == "a whole number" and isinstance(value, float) and math.isfinite(value) and \
                value.is_integer() and _bounds(field, {}):
            # A whole number too large for an integer (JSON hands it over as a float, 1e+30): say the range.
            return f"{key}: expected a whole number {_bounds(field, {})}, got {_describe(value)}; change the value"
        elif kind == "int_from_float" or (form == "a whole number" and isinstance(value, float)):
            fix = "use a whole number" + _whole_near(field, value)
        elif form.startswith("a map") and not isinstance(value, dict) and _entry_key(loc):
            return (f"{key}: {loc[-1]!r} is a key of each entry of {_key(loc[:-1])}, not an entry's name (got "
                    f"{_describe(value)} where an entry's map belongs): write it under one entry, "
                    f"{_key(loc[:-1])}.<name>.{loc[-1]}")
        elif form.startswith("a map") and not isinstance(value, dict):
            fix = "write it as an indented YAML map below the key"
        elif form == "a list":
            fix = "write it as a YAML list (- item per line, or [a, b])"
        elif form == "text" and isinstance(value, (int, float, bool)):
            fix = _as_text_fix(loc, value)
        else:
            fix = "docs/configuration.md lists this key's type"
        return f"{key}: expected {form}, got {_describe(value)}; {fix}"
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        return f"{key}: expected a number {_bounds(field, err.get('ctx') or {})}, got {_describe(value)}; " \
               f"change the value"
    if kind == "too_short":
        need = (err.get("ctx") or {}).get("min_length", 1)
        return f"{key}: expected at least {need} entr" + ("y" if need == 1 else "ies") + \
            f", got {_describe(value)}; add one"
    if kind == "too_long":
        most = (err.get("ctx") or {}).get("max_length")
        return f"{key}: expected at most {most} entries, got {_describe(value)}; remove some"
    if kind == "literal_error":
        expected = (err.get("ctx") or {}).get("expected", "")
        return f"{key}: expected one of {expected}, got {_describe(value)}; {_closest_literal(expected, value)}"
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
        return f"{key}: {msg}" if ";" in msg else \
            f"{key}: {msg}; correct the value (docs/configuration.md describes the key)"
    return f"{key}: {msg} (got {_describe(value)}); docs/configuration.md lists this key's type"


def _closest_literal(expected: str, value: Any) -> str:
    """``did you mean 'mig'?`` for the allowed value closest to ``value`` (case, a prefix, or a near spelling), else
    ``pick one of them``."""
    options = re.findall(r"'([^']*)'", expected)
    text = str(value).strip().lower() if isinstance(value, (str, int, float)) else ""
    lower = {o.lower(): o for o in options}
    close = ([lower[text]] if text in lower else
             [o for o in options if text and o.lower().startswith(text)][:1] or
             [lower[c] for c in difflib.get_close_matches(text, list(lower), n=1, cutoff=0.6)])
    return f"did you mean {close[0]!r}?" if close else "pick one of them"


def _outside(field: Optional[FieldInfo], number: float) -> bool:
    """``number`` is outside the field's ``ge``/``le`` bounds: a type hint naming it would lead to a second error."""
    lo = hi = None
    for m in (field.metadata if field else []):
        lo = getattr(m, "ge", None) if getattr(m, "ge", None) is not None else lo
        hi = getattr(m, "le", None) if getattr(m, "le", None) is not None else hi
    return (lo is not None and number < lo) or (hi is not None and number > hi)


def _whole_near(field: Optional[FieldInfo], value: Any) -> str:
    """`` such as 8 or 9``: the whole numbers next to a float ``value`` that the field's bounds accept."""
    if not isinstance(value, float) or not math.isfinite(value):
        return ""
    near = sorted({math.floor(value), math.ceil(value)})
    ok = [n for n in near if not _outside(field, n)]
    return f" such as {' or '.join(str(n) for n in ok)}" if ok else f" {_bounds(field, {})}"


def _as_text_fix(loc: tuple[Any, ...], value: Any) -> str:
    """The fix for a number or boolean where text is expected: the value as text is checked against the key's own
    rules first, so the hint is one that passes: ``quote it: '30%'`` when the quoted value is valid, else that
    value's own problem and fix (``kubernetesVersion: 1.36`` → write v1.36.1), never a hint that leads to a second
    error."""
    from pydantic import ValidationError

    text = str(value).lower() if isinstance(value, bool) else str(value)
    end = len(loc)
    while end and isinstance(loc[end - 1], int):  # a list item: check the list holding it
        end -= 1
    field_loc = loc[:end]
    model = _model_for(field_loc[:-1]) if field_loc else None
    if model is None:
        return f"quote it if it is meant as text ({text!r})"
    candidate: Any = text
    for _ in loc[end:]:
        candidate = [candidate]
    try:
        model.model_validate({field_loc[-1]: candidate})
    except ValidationError as e:
        mine = [x for x in e.errors() if tuple(x["loc"])[:1] == (field_loc[-1],)]
        if mine:
            msg = mine[0]["msg"].removeprefix("Value error, ")
            return f"quoting it is not enough, as text {text!r} is refused too: {msg}"
    except Exception:  # noqa: BLE001 — a model validator that needs other keys: say the plain fix
        return f"quote it if it is meant as text ({text!r})"
    return f"quote it: {text!r}"


def _paths_ending(name: str) -> list[str]:
    """The reference paths (:func:`oke_rdma.config.reference.iter_rows`, ``storage.fss``, ``nodePools.<pool>.size``)
    whose last key is ``name`` (exactly, else ignoring case): where a key found at the wrong level belongs."""
    from .reference import iter_rows

    paths = [row.path for row in iter_rows() if ":" not in row.path]
    exact = [p for p in paths if p.rsplit(".", 1)[-1] == name]
    return exact or [p for p in paths if p.rsplit(".", 1)[-1].lower() == name.lower()]


def _entry_key(loc: tuple[Any, ...]) -> bool:
    """``loc`` names an entry of a map of names (``nodePools.size``) with a key its entries have (``size``): a key
    written one level too high."""
    walked = _walk(loc[:-1]) if len(loc) > 1 else None
    if walked is None or not walked[2]:
        return False
    model = walked[1]
    return isinstance(model, type) and issubclass(model, BaseModel) and str(loc[-1]) in _keys_of(model)


def _top(key: str) -> str:
    """``oke-rdma:nodePools.gpu.size`` → ``oke-rdma:nodePools`` (the key Pulumi stores and marks secret)."""
    return re.split(r"[.\[]", key, maxsplit=1)[0]


def _pulumi_path(loc: tuple[Any, ...]) -> str:
    """A key path in ``pulumi config set --path`` syntax: :func:`oke_rdma.schema._key` (the one notation)."""
    return _key(loc)