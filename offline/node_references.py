"""Changes that remove something the existing nodes of a node pool still reference.

OKE applies a node pool's node properties (labels, NSGs, ...) to nodes created after the update only
(:data:`offline.report.NODE_PROPERTIES`); the existing nodes keep the old values until they are replaced. When the
same plan removes what an old value names, those nodes point at something gone. Members of the class, each found
from the plan alone:

* a node label whose old value names a map key the plan removes elsewhere — the GPU Operator's device-plugin config
  ``time-slicing-4`` (label ``nvidia.com/device-plugin.config``, ``values.devicePlugin.config.data.time-slicing-4``)
  or a custom MIG configuration (``nvidia.com/mig.config``): the NVIDIA device plugin's config manager loads the
  config its node's label names from that ConfigMap (NVIDIA k8s-device-plugin README, "Multiple Config File
  Example"; checked 2026-12-02), so on the old nodes it finds none and cannot apply it;
* an NSG the pool's nodes leave (``nodeConfigDetails.nsgIds``) that the plan deletes: the existing nodes' VNICs
  still sit in it, and OCI refuses to delete a network security group that has VNICs (Networking docs, "Network
  Security Groups": delete only an empty NSG; checked 2026-12-02).

The fix in every case: cycle the pool first (``nodePools.<pool>.cycling.enabled``, or replace the nodes by hand),
or keep the old object until the nodes are replaced, then remove it in a later update.
"""

from __future__ import annotations

import re
from typing import Any, Optional

_TOKEN = re.compile(r'\["((?:[^"\\]|\\.)*)"\]|\[(\d+)\]|\.?([^.\[]+)')


def _segments(path: str) -> list[str]:
    return [m.group(1) if m.group(1) is not None else m.group(2) if m.group(2) is not None else m.group(3)
            for m in _TOKEN.finditer(path)]


def _has(inputs: Any, path: str) -> bool:
    cur = inputs
    for seg in _segments(path):
        if isinstance(cur, dict) and seg in cur:
            cur = cur[seg]
        elif isinstance(cur, list) and seg.isdigit() and int(seg) < len(cur):
            cur = cur[int(seg)]
        else:
            return False
    return True


def _labels(inputs: Optional[dict]) -> dict[str, str]:
    return {lab.get("key"): lab.get("value") for lab in (inputs or {}).get("initialNodeLabels") or []
            if isinstance(lab, dict) and isinstance(lab.get("key"), str)}


def _nsgs(inputs: Optional[dict]) -> list[str]:
    ids = ((inputs or {}).get("nodeConfigDetails") or {}).get("nsgIds") or []
    return [i for i in ids if isinstance(i, str)]


def dangling_references(pool: Any, changes: list[Any], before: dict[str, Any], now: dict[str, Any],
                        ids: dict[str, str]) -> list[str]:
    """What the existing nodes of node pool ``pool`` (a ``Change``, op ``update``) still reference and the plan
    removes, one clause each.

    :param changes: every change of the plan. :param before: / :param now: URN → inputs in the previous plan / now.
    :param ids: URN → the resource's ID in the previous plan (to match the NSGs a pool leaves with deleted ones).
    """
    old, new = before.get(pool.urn), now.get(pool.urn)
    out: list[str] = []
    old_labels, new_labels = _labels(old), _labels(new)
    for key, value in old_labels.items():
        if not value or new_labels.get(key) == value:
            continue
        for c in changes:
            if c.op not in ("update", "replace") or c.urn == pool.urn:
                continue
            for path in c.changed:
                if _segments(path)[-1:] == [value] and _has(before.get(c.urn), path) and not _has(now.get(c.urn), path):
                    out.append(f"the existing nodes keep label {key}={value}, but {c.name} removes {path}: the "
                               f"component reading that label (the NVIDIA device plugin's config manager) finds no "
                               f"{value!r} config for those nodes and cannot apply it")
    left = set(_nsgs(old)) - set(_nsgs(new))
    for c in changes:
        if c.op == "delete" and c.type == "oci:Core/networkSecurityGroup:NetworkSecurityGroup" and ids.get(c.urn) in left:
            out.append(f"the existing nodes' VNICs stay in NSG {c.name}, which this update deletes: OCI refuses to "
                       f"delete an NSG that has VNICs")
    return out
