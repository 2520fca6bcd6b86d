"""Compare an offline preview with a previous run's ``--json`` plan: create, update, **replace**, delete.

``python -m offline.preview --previous old.json`` matches resources by URN and diffs their inputs (as written in
the JSON: secrets ``[secret]``, unknowns ``[unknown]``). A changed input makes the resource an *update*, unless the
change touches a property that cannot be changed in place; then it is a **replace**, and the property is named.

Where the list of immutable properties comes from (both count):

* :data:`FORCE_NEW` below — what OCI cannot change in place, per resource type, for the types this program
  declares. Each entry is an input that pulumi_oci 5.5.0 documents *without* "(Updatable)" (its Args docstrings
  follow the OCI API's Update* models; ``tests/offline/test_replacement.py`` checks every entry against them). Entries the
  docstrings mark non-updatable but the OCI API does update (e.g. a cluster endpoint's ``nsgIds``, through
  ``UpdateClusterEndpointConfig``) are left out, so the preview never cries wolf.
* the program's own ``replaceOnChanges`` resource option, which the engine records per resource
  (``ProgramRun.replace_on_changes``) and ``--json`` writes as ``replaceOnChanges``.

Paths use Pulumi's property path syntax on the engine's camelCase inputs: ``a.b``, ``a[0].b``, ``a[*].b``.
A value that is unknown now (``--unknowns``) but was known before counts as changed: the engine would also report it
as a possible change, and for an immutable property that means a possible replacement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable

UNKNOWN_SHOWN = "[unknown]"

#: Resource type → input paths OCI cannot change in place (changing one replaces the resource).
FORCE_NEW: dict[str, tuple[str, ...]] = {
    "oci:ContainerEngine/nodePool:NodePool": (
        "clusterId", "compartmentId", "nodeConfigDetails.computeClusterId"),
    "oci:ContainerEngine/cluster:Cluster": (
        "compartmentId", "vcnId", "kmsKeyId", "clusterPodNetworkOptions[*].cniType", "endpointConfig.subnetId",
        "options.kubernetesNetworkConfig.servicesCidr", "options.kubernetesNetworkConfig.podsCidr"),
    "oci:Core/computeCluster:ComputeCluster": ("availabilityDomain",),
    "oci:Core/vcn:Vcn": ("dnsLabel",),
    "oci:Core/subnet:Subnet": (
        "vcnId", "availabilityDomain", "dnsLabel", "prohibitInternetIngress", "prohibitPublicIpOnVnic"),
    "oci:Core/networkSecurityGroup:NetworkSecurityGroup": ("vcnId",),
    "oci:Core/routeTable:RouteTable": ("vcnId",),
    "oci:Core/natGateway:NatGateway": ("vcnId",),
    "oci:Core/serviceGateway:ServiceGateway": ("vcnId",),
    "oci:Core/internetGateway:InternetGateway": ("vcnId",),
    "oci:FileStorage/fileSystem:FileSystem": ("availabilityDomain",),
    "oci:FileStorage/mountTarget:MountTarget": ("availabilityDomain", "subnetId", "hostnameLabel"),
    "oci:FileStorage/export:Export": ("exportSetId", "fileSystemId", "path"),
    "oci:Identity/policy:Policy": ("compartmentId", "name"),
}


@dataclass(frozen=True)
class Change:
    """One resource's planned operation against the previous plan.

    :param op: ``create``, ``update``, ``replace``, ``delete`` or ``same``.
    :param replace_because: the immutable properties that changed (for ``replace``), as their changed paths.
    :param changed: every changed input path.
    """

    urn: str
    type: str
    name: str
    op: str
    replace_because: tuple[str, ...] = ()
    changed: tuple[str, ...] = field(default=())


def changed_paths(old: Any, new: Any, path: str = "") -> list[str]:
    """Every input path whose value differs between ``old`` and ``new`` (missing keys count as changes).

    Objects are compared key by key; lists of the same length element by element, else the whole list; anything
    else by equality (``[unknown]`` now differs from any known value before).
    """
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new)):
            sub = f"{path}.{key}" if path else str(key)
            if key not in old or key not in new:
                out.append(sub)
            else:
                out += changed_paths(old[key], new[key], sub)
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        out = []
        for i, (a, b) in enumerate(zip(old, new)):
            out += changed_paths(a, b, f"{path}[{i}]")
        return out
    return [] if old == new and new != UNKNOWN_SHOWN else [path]


def _pattern(path: str) -> re.Pattern[str]:
    return re.compile(re.escape(path).replace(r"\[\*\]", r"\[[0-9]+\]"))


def _touches(changed: str, immutable: str) -> bool:
    """True when ``changed`` is ``immutable``, inside it, or an object/list that contains it."""
    pattern = _pattern(immutable)
    if pattern.fullmatch(changed) or any(pattern.fullmatch(changed[:i]) for i, ch in enumerate(changed)
                                         if ch in ".["):
        return True
    prefix = re.sub(r"\[[0-9]+\]", "[*]", changed)
    return immutable.startswith(prefix + ".") or immutable.startswith(prefix + "[")


def immutable_paths(resource: dict) -> tuple[str, ...]:
    """The immutable input paths of a ``--json`` resource: :data:`FORCE_NEW` plus its ``replaceOnChanges``."""
    return tuple(dict.fromkeys((*FORCE_NEW.get(resource["type"], ()), *resource.get("replaceOnChanges", ()))))


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
    object ``inputs`` when present and a list of text ``replaceOnChanges`` when present. Nothing is skipped: an
    entry that would be ignored would show its resource as created (or hide its deletion).

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
        if "inputs" in res and not isinstance(res["inputs"], dict):
            raise ValueError(f"{at}.inputs: expected an object, got {_kind(res['inputs'])}")
        roc = res.get("replaceOnChanges", [])
        if not isinstance(roc, list) or not all(isinstance(p, str) for p in roc):
            raise ValueError(f"{at}.replaceOnChanges: expected a list of property paths (text), got {roc!r}")
        if res["urn"] in seen:
            raise ValueError(f"{at}.urn: {res['urn']} is also resources[{seen[res['urn']]}]; a plan lists each "
                             "resource once")
        seen[res["urn"]] = i


def compare(previous: dict, current: dict) -> list[Change]:
    """The plan of ``current`` against ``previous`` (both ``--json`` documents), in ``current``'s order, then the
    deletions.

    :raises ValueError: when ``previous`` is not an offline preview ``--json`` document (:func:`check_plan`).
    """
    check_plan(previous)
    before = {r["urn"]: r for r in previous["resources"]}
    changes: list[Change] = []
    for res in current["resources"]:
        old = before.pop(res["urn"], None)
        if old is None:
            changes.append(Change(res["urn"], res["type"], res["name"], "create"))
            continue
        diff = tuple(changed_paths(old.get("inputs", {}), res.get("inputs", {})))
        immutable = immutable_paths(old) + immutable_paths(res)
        because = tuple(p for p in diff if any(_touches(p, i) for i in immutable))
        op = "replace" if because else ("update" if diff else "same")
        changes.append(Change(res["urn"], res["type"], res["name"], op, because, diff))
    changes += [Change(urn, r["type"], r["name"], "delete") for urn, r in before.items()]
    return changes


def summary(changes: Iterable[Change]) -> dict[str, int]:
    """Count per operation (``{"replace": 1, "same": 80, ...}``)."""
    counts: dict[str, int] = {}
    for c in changes:
        counts[c.op] = counts.get(c.op, 0) + 1
    return counts
