"""How deep a registration's inputs may nest: as deep as a policy pack can read them.

``pulumi preview`` hands each resource's inputs to a policy pack as a ``google.protobuf.Struct``; the pack
(``pulumi_policy`` 1.x, ``policy.py``: ``deserialize_properties(json_format.MessageToDict(request.properties))``)
turns it into a dict with protobuf's recursive ``MessageToDict``, which raises ``RecursionError`` below Python's
default recursion limit (1000 frames): measured here in a fresh thread, 197 levels of maps pass and 198 fail
(protobuf 5.29, Python 3.11). The pack's RPC then fails and so does the real preview. (protobuf's decoder would stop
at 100 nested messages, about 32 levels, but the Pulumi SDK lifts that with ``SetAllowOversizeProtos(True)``.)

The offline preview refuses a value deeper than :data:`MAX_LEVELS` — below the measured limit, since the thread the
pack runs in already holds frames — with one line naming the resource and the path of the deepest value, and
truncates the copy it keeps, so nothing downstream recurses through it.

Sources (checked 2026-12-02): pulumi_policy ``policy.py`` (``MessageToDict`` of each resource's properties); pulumi
``runtime/rpc.py`` (``SetAllowOversizeProtos``); protobuf ``json_format.py`` (recursive ``_MessageToJsonObject``);
the measurement above.
"""
from __future__ import annotations

from typing import Any, Optional

#: Levels of maps and lists a resource's inputs may nest (the pack's ``MessageToDict`` failed at 198 in a fresh thread).
MAX_LEVELS = 150


def _children(value: Any) -> list[tuple[str, Any]]:
    """(path suffix, child Value) of a ``google.protobuf.Value``'s struct or list."""
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return [(f".{k}", v) for k, v in value.struct_value.fields.items()]
    if kind == "list_value":
        return [(f"[{i}]", v) for i, v in enumerate(value.list_value.values)]
    return []


def deepest(struct: Any) -> tuple[int, str]:
    """(levels, path) of the deepest value in a ``Struct`` (levels of maps and lists below the top; iterative)."""
    best = (0, "")
    stack = [(f".{k}", v, 1) for k, v in struct.fields.items()]
    while stack:
        path, value, level = stack.pop()
        if level > best[0]:
            best = (level, path)
        stack.extend((path + p, c, level + 1) for p, c in _children(value))
    return best[0], best[1].lstrip(".")


def _deeper_than(struct: Any, limit: int) -> bool:
    """Whether some value of ``struct`` nests more than ``limit`` levels (iterative; no paths built: every
    registration is checked, and naming each value's path cost more than the walk)."""
    stack = [(v, 1) for v in struct.fields.values()]
    while stack:
        value, level = stack.pop()
        if level > limit:
            return True
        kind = value.WhichOneof("kind")
        if kind == "struct_value":
            stack.extend((c, level + 1) for c in value.struct_value.fields.values())
        elif kind == "list_value":
            stack.extend((c, level + 1) for c in value.list_value.values)
    return False


def too_deep(struct: Any) -> Optional[str]:
    """None when a pack can read ``struct``; else the reason (levels and path), for one error line."""
    if not _deeper_than(struct, MAX_LEVELS):
        return None
    levels, path = deepest(struct)
    return (f"its inputs nest {levels} levels deep (at {path[:120]}{'…' if len(path) > 120 else ''}); a policy "
            f"pack reads at most about {MAX_LEVELS} (pulumi_policy's MessageToDict exceeds Python's recursion "
            "limit), so pulumi preview fails on it too: flatten the value")


def truncated(struct: Any) -> Any:
    """A copy of ``struct`` whose maps and lists below :data:`MAX_LEVELS` levels are replaced by a string."""
    copy = type(struct)()
    copy.CopyFrom(struct)
    stack = [(v, 1) for v in copy.fields.values()]
    while stack:
        value, level = stack.pop()
        if level >= MAX_LEVELS and value.WhichOneof("kind") in ("struct_value", "list_value"):
            value.string_value = "<too deep>"
            continue
        stack.extend((c, level + 1) for _, c in _children(value))
    return copy
