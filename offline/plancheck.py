"""The shape check of a ``--json`` plan read back as ``--previous``: everything :mod:`offline.replacement` compares
with must be there and of the right kind, or the preview refuses the file (exit 2) naming the first bad entry."""

from __future__ import annotations

import ipaddress
from typing import Any


def _kind(value: Any) -> str:
    """A JSON value's kind for messages: ``null``, ``a number (5)``, ``an object``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"text ({value!r})"
    return "a list" if isinstance(value, list) else "an object"


def check_plan(previous: Any) -> None:
    """Check that ``previous`` is shaped like a ``--json`` plan before anything is compared with it: an object
    whose ``resources`` is a list of objects, each with text ``urn``, ``type`` and ``name`` (URNs unique), an
    object ``inputs``/``outputs`` when present, text ``id``/``provider`` when present and a list of text
    ``replaceOnChanges`` when present, ``privateIps`` (when present) an object of text → IP address, and
    ``config`` (when present) an object. Nothing is skipped: an entry that would be ignored would show its resource as
    created (or hide its deletion).

    :raises ValueError: naming the first bad entry, e.g. ``resources[0].urn: expected text, got a number (5)``.
    """
    if not isinstance(previous, dict) or not isinstance(previous.get("resources"), list):
        raise ValueError("not an offline preview --json file (no 'resources' list)")
    seen: dict[str, int] = {}
    for i, res in enumerate(previous["resources"]):
        at = f"resources[{i}]"
        if not isinstance(res, dict):
            raise ValueError(f"{at}: expected a resource object with urn, type, name and inputs, got {_kind(res)}")
        for key in ("urn", "type", "name"):
            if key not in res:
                raise ValueError(f"{at}: has no {key!r}; expected a resource object with urn, type, name and inputs "
                                 "(a file written by --json)")
            if not isinstance(res[key], str) or not res[key]:
                raise ValueError(f"{at}.{key}: expected text, got {_kind(res[key])}")
        for key in ("inputs", "outputs"):
            if key in res and not isinstance(res[key], dict):
                raise ValueError(f"{at}.{key}: expected an object, got {_kind(res[key])}")
        for key in ("id", "provider"):
            if res.get(key) is not None and not isinstance(res[key], str):
                raise ValueError(f"{at}.{key}: expected text or null, got {_kind(res[key])}")
        for key in ("protect", "retainOnDelete"):
            if key in res and not isinstance(res[key], bool):
                raise ValueError(f"{at}.{key}: expected true or false, got {_kind(res[key])}")
        roc = res.get("replaceOnChanges", [])
        if not isinstance(roc, list) or not all(isinstance(p, str) for p in roc):
            raise ValueError(f"{at}.replaceOnChanges: expected a list of property paths (text), got {roc!r}")
        if res["urn"] in seen:
            raise ValueError(f"{at}.urn: {res['urn']} is also resources[{seen[res['urn']]}]; a plan lists each "
                             "resource once")
        seen[res["urn"]] = i
    addresses = previous.get("privateIps", {})
    if not isinstance(addresses, dict):
        raise ValueError(f"privateIps: expected an object of private IP OCID → address, got {_kind(addresses)}")
    for pip, address in addresses.items():
        try:
            ipaddress.ip_address(address if isinstance(address, str) else "")
        except ValueError:
            raise ValueError(f"privateIps.{pip}: expected an IP address, got {_kind(address)}") from None
    if "config" in previous and not isinstance(previous["config"], dict):  # the keys a report attributes come from it
        raise ValueError(f"config: expected an object of config key → value, got {_kind(previous['config'])}")


def check_plan_stack(previous: dict, stack: str, project: str) -> None:
    """Check that ``previous`` (a plan :func:`check_plan` accepted) is a plan of ``stack`` in ``project``: its URNs
    (``urn:pulumi:<stack>::<project>::...``, Pulumi docs "Resource names": a URN names its stack and project) name
    them. Pulumi keeps one state per stack, so another stack's plan would show every resource of this one created
    and every resource of that one deleted.

    :raises ValueError: naming the plan's stack and project and the one previewed.
    """
    for i, res in enumerate(previous["resources"]):
        parts = res["urn"].split("::")
        if len(parts) < 3 or not parts[0].startswith("urn:pulumi:"):
            raise ValueError(f"resources[{i}].urn: {res['urn']!r} is not a Pulumi URN (urn:pulumi:<stack>::<project>"
                             f"::<type>::<name>)")
        theirs = (parts[0].removeprefix("urn:pulumi:"), parts[1])
        if theirs != (stack, project):
            raise ValueError(f"is a plan of stack {theirs[0]!r} of project {theirs[1]!r}, not of the stack previewed "
                             f"({stack!r} of {project!r}); Pulumi compares a stack with its own state only: pass "
                             f"that stack's --json plan, or --stack {theirs[0]}")
