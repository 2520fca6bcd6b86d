"""The shape of a Pulumi stack file (``Pulumi.<stack>.yaml``): where config must sit for Pulumi to read it. One home
for the rule, used by the offline preview's reader (:mod:`offline.stackfile`, which adds the line) and the fleet's
(:mod:`oke_rdma.fleet.resolve`).

Pulumi reads from a stack file only the keys of its ``ProjectStack`` type (pulumi sdk/go/common/workspace/project.go:
``secretsprovider``, ``encryptedkey``, ``encryptionsalt``, ``config``, ``environment``; checked 2026-12-02) and the
config only from ``config:``, a map of ``<namespace>:<key>: value`` (a key without a namespace takes the project's).
A file shaped otherwise is read without (part of) its config — the program then runs with defaults in their place —
so each mistake is refused, naming what is where and the fix:

* no ``config:`` but config keys (``oci:region``) at the top level; config keys at the top level beside ``config:``;
* a top-level key Pulumi does not read (``configs:``, ``Config:``, ``conifg:``), with the key it is closest to;
* ``config:`` holding a list (``- key: value`` entries) or text instead of ``key: value`` lines;
* ``config:`` one level too deep: a key ``config`` or a bare namespace (``oke-rdma:``, ``oci:``) holding a map.
"""

from __future__ import annotations

import difflib
from typing import Optional

#: The top-level keys of a stack file Pulumi reads (see the module docstring).
STACK_FILE_KEYS = ("config", "environment", "secretsprovider", "encryptedkey", "encryptionsalt")
#: Namespaces whose bare name, as a config key holding a map, is config written one level too deep.
NAMESPACES = ("oci", "kubernetes", "pulumi")


def _listed(names: list[str], limit: int = 6) -> str:
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def shape_problem(top: dict[str, str], project: str) -> Optional[tuple[str, str]]:
    """The first shape mistake of a stack file whose top-level keys are ``top`` (key → the kind of its value:
    ``map``, ``list``, ``text`` or ``null``), as ``(the key it is at, the message)``; None when the shape is
    right."""
    config = top.get("config", "null")
    stray = [name for name in top if name not in STACK_FILE_KEYS]
    config_like = [name for name in stray if ":" in name or name == project]
    if config_like and config == "null":
        return config_like[0], (f"no top-level config:; found {_listed(config_like)} at the top level: indent them "
                                "under config: (Pulumi reads config only from there)")
    if config_like:
        return config_like[0], (f"{_listed(config_like)} at the top level, beside config:, where Pulumi does not read "
                                "config: indent " + ("it" if len(config_like) == 1 else "them") + " under config:")
    for name in stray:
        close = difflib.get_close_matches(name.lower(), STACK_FILE_KEYS, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}:? " if close else ""
        return name, (f"top-level key {name!r} is not one Pulumi reads from a stack file "
                      f"({', '.join(STACK_FILE_KEYS)}): {hint}Everything under it would be ignored")
    if config == "list":
        return "config", ("'config:' is a list (its entries start with '- '); write each key: value directly under "
                          "config:, without the '- '")
    if config == "text":
        return "config", "'config:' holds text; expected key: value lines indented under it"
    return None


def config_key_problem(name: str, inner: list[str], project: str) -> Optional[str]:
    """The mistake of a ``config:`` key ``name`` holding a map with keys ``inner``, when it is config written one
    level too deep (a key ``config``, or a bare namespace, which Pulumi would read as ``<project>:<name>``); None
    otherwise."""
    if ":" in name:
        return None
    if name == "config":
        return "config: holds another config:; remove the inner one and indent its keys one level up"
    if name == project or name in NAMESPACES:
        example = ", ".join(f"{name}:{k}" for k in inner[:2]) or f"{name}:<key>"
        return (f"'{name}:' is a namespace, not a key: write each key under it as {name}:<key> directly under "
                f"config: ({example}); Pulumi would read this as the key {project}:{name}")
    return None


def kind_of(value: object) -> str:
    """The kind :func:`shape_problem` takes for a parsed YAML value."""
    if value is None:
        return "null"
    return "map" if isinstance(value, dict) else "list" if isinstance(value, list) else "text"


def document_problem(doc: object, project: str) -> Optional[str]:
    """:func:`shape_problem` and :func:`config_key_problem` of a parsed stack file (``yaml.safe_load``), as one
    line; a document that is not a map is a problem too."""
    if doc is None:
        return None
    if not isinstance(doc, dict):
        return "expected a mapping with a 'config:' mapping of key: value"
    found = shape_problem({str(k): kind_of(v) for k, v in doc.items()}, project)
    if found:
        return found[1]
    for name, value in (doc.get("config") or {}).items():
        if isinstance(value, dict):
            problem = config_key_problem(str(name), [str(k) for k in value], project)
            if problem:
                return problem
    return None
