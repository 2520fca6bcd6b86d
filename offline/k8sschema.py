"""Kubernetes fields the API reference documents as immutable, per engine type: derived, not picked by hand.

The Kubernetes OpenAPI descriptions say so field by field ("This field is immutable.", "The field is immutable.",
"immutable after creation"); the kubernetes Python client carries them as its models' docstrings. This module walks
the model of every kind pulumi_kubernetes declares (``kubernetes:<group>/<version>:<Kind>``) and lists the input
paths so described, and writes them to ``offline/k8s_immutable.json``; :data:`offline.immutable.API_IMMUTABLE` adds
them to its hand-written ``validation.go`` entries. ``tests/offline/test_k8s_immutable.py`` derives them again from
the installed client and compares, so the file cannot drift from its source. Regenerate after upgrading either
package::

    python -m offline.k8sschema --write

Left out: fields under a template (a workload's pod template, a CronJob's job template: changing one makes new
objects from it, nothing is updated in place),
``status`` (no input), fields "populated by the API server", and fields that say they "now" are mutable ("This field
was immutable in Kubernetes < 1.29 and now is mutable").
"""

from __future__ import annotations

import json
import re
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("k8s_immutable.json")

_IMMUTABLE = re.compile(r"(This|The) field is immutable|is immutable\.|immutable after creation", re.I)
_NOT = re.compile(r"was immutable|now is mutable|Populated by the API server|Once populated", re.I)
#: A template of other objects (a pod template, a CronJob's job template, a claim template): changing it makes new
#: objects from it, it never updates one in place.
_TEMPLATE = re.compile(r"Template(Spec)?$")
_TOKEN = re.compile(rb"'(kubernetes:[a-z0-9.]+/v[0-9a-z]+:[A-Za-z]+)'")


def _tokens() -> list[str]:
    """Every resource type token pulumi_kubernetes declares (its resource classes' ``__init__``), lists and patches
    excluded."""
    import pulumi_kubernetes

    root = Path(pulumi_kubernetes.__file__).parent
    found = {m.decode() for f in root.rglob("*.py") for m in _TOKEN.findall(f.read_bytes())}
    return sorted(t for t in found if not t.endswith(("List", "Patch")))


def _model(token: str) -> Any:
    """The kubernetes client model of a type token (``kubernetes:storage.k8s.io/v1:CSIDriver`` → V1CSIDriver), or
    None when the client has none (a CRD kind, a version it dropped)."""
    from kubernetes import client

    version, kind = token.split(":")[1].split("/")[1], token.split(":")[2]
    cls = getattr(client, version[0].upper() + version[1:] + kind, None)
    return cls if cls is not None and "kind" in getattr(cls, "openapi_types", {}) else None


def _walk(cls: Any, prefix: str, out: list[str], depth: int = 0) -> None:
    from kubernetes import client

    if depth > 6:
        return
    for attr, typ in cls.openapi_types.items():
        name = cls.attribute_map[attr]
        if name in ("status", "metadata", "apiVersion", "kind") and not prefix:
            continue
        doc = re.sub(r"\s+", " ", getattr(cls, attr).__doc__ or "")
        path = prefix + name
        if _IMMUTABLE.search(doc) and not _NOT.search(doc):
            out.append(path)
            continue
        inner = re.fullmatch(r"(list\[)?(\w+)\]?", typ)
        nested = getattr(client, inner.group(2), None) if inner else None
        if nested is None or not hasattr(nested, "openapi_types") or _TEMPLATE.search(inner.group(2)):
            continue
        _walk(nested, path + ("[*]." if inner.group(1) else "."), out, depth + 1)


def generate() -> dict[str, Any]:
    """The data file's content from the installed kubernetes and pulumi_kubernetes packages."""
    types: dict[str, list[str]] = {}
    for token in _tokens():
        cls = _model(token)
        if cls is None:
            continue
        paths: list[str] = []
        _walk(cls, "", paths)
        if paths:
            types[token] = sorted(paths)
    return {"source": f"Kubernetes OpenAPI field descriptions in the kubernetes Python client "
                      f"{metadata.version('kubernetes')}, for the kinds of pulumi_kubernetes "
                      f"{metadata.version('pulumi_kubernetes')}: fields described as immutable",
            "types": types}


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m offline.k8sschema --write")
    DATA.write_text(json.dumps(generate(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {DATA}")
