"""Which nodes a pod spec may be scheduled on, as the scheduler filters them: its ``nodeSelector`` and its required
node affinity, read into *branches* — each a list of label requirements that must all hold — with a pool label
pinned to a finite set of values where they pin it.

* ``nodeSelector``: every ``key: value`` must match (a requirement ``key In [value]``);
* ``affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms``: the terms are ORed,
  each term's ``matchExpressions`` and ``matchFields`` ANDed, and the whole ANDed with ``nodeSelector``; a term with
  neither matches no node; operators ``In``, ``NotIn``, ``Exists``, ``DoesNotExist``, ``Gt``, ``Lt`` (integers);
* ``preferredDuringScheduling...`` terms only score nodes: they restrict nothing and are not read here.

Reading is an over-approximation, so a verdict built on it fails closed: a requirement (or a term, or the selector)
that is unknown during preview, or that cannot be read, restricts nothing — it can only have narrowed the set.
``matchFields`` (``metadata.name``) picks nodes by name, which no pool declaration tells apart: read as no
restriction (``tenant-pods-scheduled-by-the-platform`` refuses it on its own). ``nodeName`` skips the scheduler and
is refused on its own too. Taints never narrow the set here: OKE node pools have no taint field (the kubelet's
``--register-with-taints`` are startup taints the platform removes), and a ResourceFlavor's ``nodeTaints`` is what
Kueue believes of the nodes, not what they carry.

A requirement is *definitely unmet* by a node only when the node's labels are known and the label it tests is set
to a value that fails it: a label a pool's declaration does not set may still be added at run time (GPU feature
discovery, the cloud controller), so its absence proves nothing.

Sources (checked 2026-12-02): Kubernetes docs "Assigning Pods to Nodes" (nodeSelector and nodeAffinity ANDed;
terms ORed, expressions ANDed; "preferred" only weighs), API reference ``NodeSelectorTerm`` ("A null or empty node
selector term matches no objects"), ``NodeSelectorRequirement`` (operators; Gt/Lt parse the label as an integer),
"Taints and Tolerations".
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

if __package__:  # imported as the package `policies.security`
    from ._rules import UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, elements, read

OPERATORS = frozenset({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})


@dataclass(frozen=True)
class Requirement:
    """``key operator values`` (values a tuple of strings; empty for Exists/DoesNotExist)."""

    key: str
    operator: str
    values: tuple = ()


@dataclass
class Branch:
    """One way a node may satisfy the spec: every requirement holds. ``where`` names the term it came from."""

    where: str
    requirements: list = field(default_factory=list)


def _requirement(expr: Any) -> Optional[Requirement]:
    """A readable requirement, or None when any part of it is unknown or malformed (it then restricts nothing)."""
    if expr is UNKNOWN:
        return None
    key, op, values = read(expr, "key"), read(expr, "operator"), elements(read(expr, "values"))
    if not isinstance(key, str) or op not in OPERATORS or values is UNKNOWN:
        return None
    if any(not isinstance(v, str) for v in values):
        return None
    return Requirement(key, op, tuple(values))


def branches(spec: Any) -> list[Branch]:
    """The branches of a pod spec's node selection (at least one; none when every required term matches nothing)."""
    base: list = []
    selector = read(spec, "nodeSelector")
    if selector is not UNKNOWN and hasattr(selector, "keys"):
        for key in list(selector.keys()):
            value = read(selector, key)
            if isinstance(key, str) and isinstance(value, str):
                base.append(Requirement(key, "In", (value,)))
    affinity = read(spec, "affinity")
    terms = UNKNOWN if affinity is UNKNOWN else read(
        affinity, "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    if terms is UNKNOWN:
        return [Branch("nodeSelector (its required node affinity is unknown)", base)]
    items = elements(terms)
    if not items:
        return [Branch("nodeSelector" if base else "", base)]
    out = []
    for i, term in enumerate(items):
        where = f"nodeAffinity required term {i}"
        if term is UNKNOWN:
            out.append(Branch(where, base))
            continue
        exprs, fields = elements(read(term, "matchExpressions")), elements(read(term, "matchFields"))
        if exprs is UNKNOWN or fields is UNKNOWN:
            out.append(Branch(where, base))
            continue
        if not exprs and not fields:
            continue  # an empty term matches no node
        out.append(Branch(where, base + [r for r in map(_requirement, exprs) if r is not None]))
    return out


def pin(branch: Branch, key: str) -> Optional[frozenset]:
    """The finite set of values ``branch`` lets label ``key`` take (``In`` and nodeSelector intersected, ``NotIn``
    removed), or None when no requirement bounds it."""
    allowed: Optional[set] = None
    for r in branch.requirements:
        if r.key == key and r.operator == "In":
            allowed = set(r.values) if allowed is None else allowed & set(r.values)
    if allowed is None:
        return None
    for r in branch.requirements:
        if r.key == key and r.operator == "NotIn":
            allowed -= set(r.values)
        elif r.key == key and r.operator == "DoesNotExist":
            allowed = set()
    return frozenset(allowed)


def _integer(text: str) -> Optional[int]:
    try:
        return int(text)
    except ValueError:
        return None


def unmet(r: Requirement, labels: Any) -> bool:
    """True when a node labelled ``labels`` (a dict; UNKNOWN: nothing known) definitely fails ``r``."""
    if labels is UNKNOWN or not isinstance(labels, dict) or r.key not in labels:
        return False
    value = labels[r.key]
    if not isinstance(value, str):
        return False
    if r.operator == "In":
        return value not in r.values
    if r.operator == "NotIn":
        return value in r.values
    if r.operator == "DoesNotExist":
        return True
    if r.operator in ("Gt", "Lt"):
        have, bound = _integer(value), _integer(r.values[0]) if len(r.values) == 1 else None
        if have is None:
            return True  # the label does not parse as an integer: the requirement fails
        if bound is None:
            return False  # an invalid requirement the API server would refuse: no claim
        return not (have > bound if r.operator == "Gt" else have < bound)
    return False  # Exists: the label is set


def excludes(branch: Branch, labels: Any) -> bool:
    """True when ``branch`` definitely cannot land on a node labelled ``labels``."""
    return any(unmet(r, labels) for r in branch.requirements)
