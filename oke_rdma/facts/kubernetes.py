"""The Kubernetes versions OKE offers and the version skew rules between the control plane and node pools.

Versions: OKE's list for new clusters and node pools as Oracle's own OKE quickstart publishes it,
oracle-quickstart/oci-hpc-oke ``terraform/schema.yaml`` (``kubernetes_version`` enum), read at every commit of
that file: v1.33.1, v1.34.1, v1.34.2, v1.35.2 listed on 2026-05-24; v1.33.10 from 2026-05-26; v1.36.1 from
2026-08-11 (commit 523171c; latest read 61d210a of 2026-08-20). OKE docs "Kubernetes Versions and Kubernetes
Engine (OKE)" (contengupgradeoverview.htm) and "Supported Versions of Kubernetes" are the authority; the table is a
dated copy (checked 2026-11-30) and the pre-flight asks OKE itself (``GetClusterOptions``/``GetNodePoolOptions``),
so a version OKE adds or retires after this date is caught there. Update :data:`OKE_VERSIONS` when OKE's list
changes.

Skew (same OKE page): worker nodes never run a newer version than the control plane, and lag it by at most two
minor versions, three from Kubernetes 1.28 on.
"""

from __future__ import annotations

import re
from typing import Optional

#: Version → the date (ISO) it was first seen in the source above. Only these are accepted by the config check.
OKE_VERSIONS = {
    "v1.33.1": "2026-05-24", "v1.33.10": "2026-05-26", "v1.34.1": "2026-05-24", "v1.34.2": "2026-05-24",
    "v1.35.2": "2026-05-24", "v1.36.1": "2026-08-11",
}
#: When :data:`OKE_VERSIONS` was last compared with its source.
CHECKED = "2026-11-30"
#: Most minor versions a node pool may lag the control plane: 3 from v1.28 on, 2 before (OKE docs, above).
MAX_MINOR_SKEW, MAX_MINOR_SKEW_BEFORE_1_28 = 3, 2

_VERSION_RE = re.compile(r"^v(?P<major>[0-9]+)\.(?P<minor>[0-9]+)\.(?P<patch>[0-9]+)$")


def parse_version(version: str) -> Optional[tuple[int, int, int]]:
    """``v1.34.1`` → ``(1, 34, 1)``; None when not written ``vX.Y.Z``."""
    m = _VERSION_RE.match(version)
    return (int(m["major"]), int(m["minor"]), int(m["patch"])) if m else None


def offered_versions() -> list[str]:
    """The versions OKE offers, oldest first."""
    return sorted(OKE_VERSIONS, key=lambda v: parse_version(v) or (0, 0, 0))


def is_offered(version: str) -> bool:
    """True when OKE offers ``version`` (per :data:`OKE_VERSIONS`)."""
    return version in OKE_VERSIONS


def skew_problem(control_plane: str, node: str) -> Optional[str]:
    """Why node pool version ``node`` cannot run under control plane ``control_plane``, or None.

    :raises ValueError: when either is not a ``vX.Y.Z`` version.
    """
    plane, pool = parse_version(control_plane), parse_version(node)
    if plane is None or pool is None:
        raise ValueError(f"not a Kubernetes version: {control_plane!r} / {node!r}")
    skew = MAX_MINOR_SKEW if plane[1] >= 28 else MAX_MINOR_SKEW_BEFORE_1_28
    if pool > plane:
        return "newer"
    if plane[0] != pool[0] or plane[1] - pool[1] > skew:
        return f"more than {skew} minor versions older"
    return None


def max_skew(control_plane: str) -> int:
    """The most minor versions a node pool may lag ``control_plane``."""
    parsed = parse_version(control_plane)
    return MAX_MINOR_SKEW if parsed is not None and parsed[1] >= 28 else MAX_MINOR_SKEW_BEFORE_1_28
