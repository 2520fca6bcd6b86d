"""The Kubernetes versions OKE offers (and the ones it withdrew) and the version skew rules between the control
plane and node pools.

Versions: OKE's list for new clusters and node pools as Oracle's own OKE quickstart publishes it,
oracle-quickstart/oci-hpc-oke ``terraform/schema.yaml`` (the ``kubernetes_version`` enum) and ``terraform/variables.tf``
(its default), read at every commit of those files (``git log``) up to 61d210a of 2026-08-20, the newest commit of
the stored snapshot read on 2026-12-01. Each row of :data:`OKE_VERSIONS` says when the version was first seen offered,
when it was last seen offered and, for a version dropped from the list, the date of the first commit without it
(``withdrawn``), each with its commit. OKE docs "Kubernetes Versions and Kubernetes Engine (OKE)"
(contengupgradeoverview.htm) and "Supported Versions of Kubernetes" (contengaboutk8sversions.htm: three minor versions
for new clusters; the oldest of four kept at least 30 days after a new one) are the authority; the table is a dated
copy and the pre-flight asks OKE itself (``GetClusterOptions``/``GetNodePoolOptions``), so a version OKE adds or
retires after the last source read is caught there. Update :data:`OKE_VERSIONS` when OKE's list changes.

A withdrawn version is refused for a new cluster (OKE refuses to create one; the offline preview refuses it, exit 2)
and warned about for an existing cluster, which keeps running it until upgraded (docs/operations.md).

Skew (same OKE page): worker nodes never run a newer version than the control plane, and lag it by at most two
minor versions, three from Kubernetes 1.28 on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

_QUICKSTART = "oracle-quickstart/oci-hpc-oke terraform/schema.yaml"


@dataclass(frozen=True)
class OfferedVersion:
    """One Kubernetes version OKE offered: ``first_seen`` / ``last_seen`` (ISO dates the source first and last
    listed it), ``withdrawn`` (ISO date of the first source commit without it; None while offered) and ``source``
    (the commits read)."""

    version: str
    first_seen: str
    last_seen: str
    withdrawn: Optional[str]
    source: str

    @property
    def offered(self) -> bool:
        """True while OKE offers it (not withdrawn)."""
        return self.withdrawn is None


#: Version → its row. Only versions OKE offers today are accepted for a new cluster; a withdrawn one is known (an
#: existing cluster may run it: a warning) but refused for anything OKE must create.
OKE_VERSIONS: dict[str, OfferedVersion] = {v.version: v for v in (
    OfferedVersion("v1.33.1", "2026-05-18", "2026-05-18", "2026-05-25",
                   f"{_QUICKSTART} enum@0d63525 (2026-05-18); gone @7f60040 (2026-05-25)"),
    OfferedVersion("v1.34.1", "2025-10-29", "2026-05-18", "2026-05-25",
                   "oracle-quickstart/oci-hpc-oke terraform/variables.tf default@eabf460 (2025-10-29), "
                   f"{_QUICKSTART} enum@0d63525 (2026-05-18); gone @7f60040 (2026-05-25)"),
    OfferedVersion("v1.33.10", "2026-05-25", "2026-08-05", "2026-08-11",
                   f"{_QUICKSTART} enum@7f60040 (2026-05-25) to @3fff8b7 (2026-08-05); gone @523171c (2026-08-11)"),
    OfferedVersion("v1.34.2", "2026-02-12", "2026-08-20", None,
                   "oracle-quickstart/oci-hpc-oke terraform/variables.tf default@cfe4264 (2026-02-12), "
                   f"{_QUICKSTART} enum@0d63525 (2026-05-18) to @61d210a (2026-08-20)"),
    OfferedVersion("v1.35.2", "2026-05-18", "2026-08-20", None,
                   f"{_QUICKSTART} enum@0d63525 (2026-05-18) to @61d210a (2026-08-20)"),
    OfferedVersion("v1.36.1", "2026-08-11", "2026-08-20", None,
                   f"{_QUICKSTART} enum@523171c (2026-08-11) to @61d210a (2026-08-20)"),
)}
#: When :data:`OKE_VERSIONS` was last compared with its source.
CHECKED = "2026-12-01"
#: Most minor versions a node pool may lag the control plane: 3 from v1.28 on, 2 before (OKE docs, above).
MAX_MINOR_SKEW, MAX_MINOR_SKEW_BEFORE_1_28 = 3, 2

_VERSION_RE = re.compile(r"^v(?P<major>[0-9]+)\.(?P<minor>[0-9]+)\.(?P<patch>[0-9]+)$")


def parse_version(version: str) -> Optional[tuple[int, int, int]]:
    """``v1.34.1`` → ``(1, 34, 1)``; None when not written ``vX.Y.Z``."""
    m = _VERSION_RE.match(version)
    return (int(m["major"]), int(m["minor"]), int(m["patch"])) if m else None


def offered_versions() -> list[str]:
    """The versions OKE offers today, oldest first (withdrawn ones excluded)."""
    return sorted((v for v, row in OKE_VERSIONS.items() if row.offered), key=lambda v: parse_version(v) or (0, 0, 0))


def is_offered(version: str) -> bool:
    """True when OKE offers ``version`` today (per :data:`OKE_VERSIONS`; a withdrawn version is not offered)."""
    row = OKE_VERSIONS.get(version)
    return row is not None and row.offered


def withdrawn(version: str) -> Optional[OfferedVersion]:
    """The row of ``version`` when OKE offered it once and withdrew it, else None (offered, or never known)."""
    row = OKE_VERSIONS.get(version)
    return row if row is not None and not row.offered else None


def newest_offered_patch(version: str) -> Optional[str]:
    """The newest offered version of the same minor as ``version`` (``v1.34.1`` → ``v1.34.2``), or None."""
    parsed = parse_version(version)
    same = [v for v in offered_versions() if parsed and (parse_version(v) or (0, 0, 0))[:2] == parsed[:2]]
    return same[-1] if same else None


def withdrawal_notice(version: str, what: str = "the cluster") -> Optional[str]:
    """The warning for ``what`` running a withdrawn ``version`` (None when offered or unknown): it keeps running, but
    OKE refuses new clusters and node pools on it; names the upgrade target."""
    row = withdrawn(version)
    if row is None:
        return None
    target = newest_offered_patch(version) or offered_versions()[0]
    return (f"{what} runs Kubernetes {version}, which OKE no longer offers (last seen offered {row.last_seen}, gone "
            f"by {row.withdrawn}: {row.source}): it keeps running, but OKE refuses a new cluster or node pool on it; "
            f"upgrade to {target} (docs/operations.md, 'Upgrading Kubernetes')")


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
