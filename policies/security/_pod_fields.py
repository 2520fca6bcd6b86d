"""Shared reading of operator pod fields (see ``_operator_pods``): partial pod specs, the value the pack cannot
interpret, workflow parameters as unknown values, documents written as strings, and objects a resource creates.

Sources (checked 2026-12-01): argoproj/argo-workflows v4.1.2 ``workflow/util/util.go`` ``ApplyPodSpecPatch`` (a pod
spec patch is YAML or JSON), Argo Workflows docs "Workflow Variables" (``{{...}}``, ``{{=...}}``), tektoncd/pipeline
v1.15.0 docs "Variable Substitution" (``$(params.x)``), argoproj/argo-events v1.9.11 ``TriggerParameter.dest`` (an
sjson path: dot-separated keys, list indexes, ``-1`` appends).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Optional

import yaml  # PyYAML: a dependency of the pulumi SDK, so present wherever the pack runs

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from . import _yaml_bounded
    from ._plain import object_type
    from ._rules import UNKNOWN
else:  # run by the Pulumi CLI from inside policies/security/
    import _yaml_bounded
    from _plain import object_type
    from _rules import UNKNOWN

@dataclass(frozen=True)
class Uninterpretable:
    """A pod (or part of one) whose fields the pack cannot read; ``reason`` says why, for the violation message."""

    reason: str


Found = list[tuple[str, Any]]
#: ``recurse(resource_type, object)`` → the pod specs of an object a resource makes its controller create.
Recurse = Callable[[str, Any], Found]

ARGO, TEKTON = "argoproj.io", "tekton.dev"
_PARAMETER = {ARGO: re.compile(r"\{\{.*?\}\}", re.S), TEKTON: re.compile(r"\$\(.*?\)", re.S),
              "triggers.tekton.dev": re.compile(r"\$\(.*?\)", re.S)}
_SENTINEL = "__OKE_RDMA_RUNTIME_PARAMETER__"
#: Strings that are documents the pack parses itself (parameters inside them are made unknown after parsing).
DOCUMENT_KEYS = frozenset({"podSpecPatch", "manifest", "inline"})


# --- shapes ---------------------------------------------------------------------------------------------------------
def as_map(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> Any:
    """A list field: the list, [] when absent or malformed, UNKNOWN when unknown."""
    if value is UNKNOWN:
        return UNKNOWN
    return value if isinstance(value, list) else []


def gather_containers(*parts: Any) -> list:
    """Containers gathered from several fields: one container (a map), a list, or UNKNOWN (kept as an unknown
    container, which the checks refuse)."""
    out: list = []
    for part in parts:
        if part is UNKNOWN:
            out.append(UNKNOWN)
        elif isinstance(part, dict):
            out.append(part)
        elif isinstance(part, list):
            out += part
    return out


def gather_volumes(*parts: Any) -> Any:
    lists = [as_list(p) for p in parts]
    return UNKNOWN if any(v is UNKNOWN for v in lists) else [v for vs in lists for v in vs]


def partial_pod(**fields: Any) -> dict:
    """A partial pod spec with the set fields only."""
    return {k: v for k, v in fields.items() if v is not None and v != []}


def runtime_parameters(value: Any, group: str) -> Any:
    """``value`` with every string that holds a workflow parameter of ``group`` made unknown."""
    pattern = _PARAMETER.get(group)
    if pattern is None:
        return value
    if isinstance(value, str):
        return UNKNOWN if pattern.search(value) or _SENTINEL in value else value
    if isinstance(value, dict):
        return {k: v if k in DOCUMENT_KEYS else runtime_parameters(v, group) for k, v in value.items()}
    if isinstance(value, list):
        return [runtime_parameters(v, group) for v in value]
    return value


def parse_document(text: Any, group: str, what: str) -> tuple[Any, Optional[str]]:
    """(the YAML/JSON ``text`` parsed, None) or (None, why it cannot be read); workflow parameters become unknown
    values (they are substituted before the controller parses the text)."""
    if text is UNKNOWN:
        return UNKNOWN, None
    if not isinstance(text, str):
        return None, f"{what} is a {type(text).__name__}, not a YAML or JSON string"
    pattern = _PARAMETER.get(group)
    substituted = pattern.sub(_SENTINEL, text) if pattern else text
    try:
        docs = [d for d in _yaml_bounded.safe_load_all(substituted) if d is not None]
    except yaml.YAMLError:
        try:
            docs = [json.loads(substituted)]
        except ValueError as e:
            return None, f"{what} is not valid YAML or JSON ({' '.join(str(e).split())[:100]})"
    if len(docs) != 1:
        return None, f"{what} holds {len(docs)} documents, not one"
    return runtime_parameters(docs[0], group), None


@dataclass
class Context:
    group: str
    namespace: Any  # the resource's namespace; None for a cluster-scoped resource
    recurse: Recurse


def created_object_pods(obj: Any, where: str, ctx: Context) -> Found:
    """The pod specs of an object a resource makes its controller create, judged in the resource's namespace."""
    if obj is UNKNOWN:
        return [(where, UNKNOWN)]
    typ = object_type(obj) if isinstance(obj, dict) else None
    if typ is None:
        return [(where, Uninterpretable(f"{where} is not a Kubernetes object (a map with apiVersion and kind)"))]
    ns = as_map(obj.get("metadata")).get("namespace")
    if ns is not None and ctx.namespace is not None and ns != ctx.namespace:
        return [(where, Uninterpretable(
            f"{where} creates a {obj['kind']} in namespace {'<unknown>' if ns is UNKNOWN else repr(ns)}, not its own "
            f"namespace {ctx.namespace if isinstance(ctx.namespace, str) else '<unknown>'!r}; the pack judges the "
            "objects a resource creates only in that resource's namespace"))]
    if ns is None and ctx.namespace is not None:  # created in the resource's namespace, as its controller does
        obj = {**obj, "metadata": {**as_map(obj.get("metadata")), "namespace": ctx.namespace}}
    return [(f"{where} ({obj['kind']})" + (f".{w}" if w else ""), s) for w, s in ctx.recurse(typ, obj)]


def copy_props(value: Any) -> Any:
    """A deep copy of plain props that keeps :data:`UNKNOWN` itself (``copy.deepcopy`` would clone it)."""
    if isinstance(value, dict):
        return {k: copy_props(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_props(v) for v in value]
    return value


def set_unknown(obj: Any, dest: Any) -> Optional[str]:
    """Make the value at an Argo Events parameter ``dest`` (sjson path: dot-separated keys, list indexes, ``-1``
    appends, ``\\.`` a literal dot) unknown in ``obj``, in place; the reason it cannot be applied, else None."""
    if not isinstance(dest, str) or not dest:
        return f"parameter dest {dest!r} cannot be interpreted"
    keys = [k.replace("\0", ".") for k in dest.replace("\\.", "\0").split(".")]
    cur = obj
    for i, key in enumerate(keys):
        last = i == len(keys) - 1
        if isinstance(cur, dict):
            if last:
                cur[key] = UNKNOWN
                return None
            if not isinstance(cur.get(key), (dict, list)):
                cur[key] = [] if keys[i + 1].lstrip("-").isdigit() else {}
            cur = cur[key]
        elif isinstance(cur, list) and (key == "-1" or key.isdigit()):
            if key == "-1" or int(key) >= len(cur):
                cur.append(UNKNOWN if last else {})
                if last:
                    return None
                cur = cur[-1]
            elif last:
                cur[int(key)] = UNKNOWN
                return None
            else:
                cur = cur[int(key)]
        else:
            return f"parameter dest {dest!r} does not follow the object's shape"
    return None


def pod_spec_patch(text: Any, where: str, group: str) -> Found:
    """A pod spec patch written as a string (Argo ``podSpecPatch``: YAML or JSON, strategic-merged into the pod
    spec): the patch is itself a partial pod spec; text that does not parse to a map is refused."""
    if text is None or text == "":
        return []
    patch, problem = parse_document(text, group, where)
    if problem:
        return [(where, Uninterpretable(problem))]
    if patch is not UNKNOWN and not isinstance(patch, dict):
        return [(where, Uninterpretable(f"{where} is not a pod spec (a map of pod fields)"))]
    return [(where, patch)]


def at(node: Any, path: tuple) -> Any:
    for key in path:
        if node is UNKNOWN:
            return UNKNOWN
        node = node.get(key) if isinstance(node, dict) else None
    return node


def template_list(entries: Any, where: str, path: tuple, skip_missing: bool = False) -> Found:
    entries = as_list(entries)
    if entries is UNKNOWN:
        return [(f"{where}[*]", UNKNOWN)]
    found = [(f"{where}[{i}]", at(item, path)) for i, item in enumerate(entries)]
    return [(w, s) for w, s in found if not (skip_missing and s is None)]

