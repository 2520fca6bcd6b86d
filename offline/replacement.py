"""Compare an offline preview with a previous run's ``--json`` plan: create, update, **replace**, delete.

``python -m offline.preview --previous old.json`` matches resources by URN and diffs their inputs (as written in
the JSON: secrets ``[secret]``, unknowns ``[unknown]``). A changed input makes the resource an *update*, unless the
change touches a property that cannot be changed in place; then it is a **replace**, and the property is named.

Where the list of immutable properties comes from (both count):

* :data:`FORCE_NEW` below — what OCI cannot change in place, per resource type, for the types this program
  declares. Each entry is an input that pulumi_oci 5.5.0 documents *without* "(Updatable)" (its Args docstrings
  follow the OCI API's Update* models; ``tests/test_replacement.py`` checks every entry against them). Entries the
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


def compare(previous: dict, current: dict) -> list[Change]:
    """The plan of ``current`` against ``previous`` (both ``--json`` documents), in ``current``'s order, then the
    deletions.

    :raises ValueError: when ``previous`` is not an offline preview ``--json`` document.
    """
    if not isinstance(previous, dict) or not isinstance(previous.get("resources"), list):
        raise ValueError("not an offline preview --json file (no 'resources' list)")
    before = {r["urn"]: r for r in previous["resources"] if isinstance(r, dict) and "urn" in r}
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
    changes += [Change(urn, r.get("type", "?"), r.get("name", "?"), "delete") for urn, r in before.items()]
    return changes


def summary(changes: Iterable[Change]) -> dict[str, int]:
    """Count per operation (``{"replace": 1, "same": 80, ...}``)."""
    counts: dict[str, int] = {}
    for c in changes:
        counts[c.op] = counts.get(c.op, 0) + 1
    return counts
