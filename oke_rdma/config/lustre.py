"""OCI File Storage with Lustre config (``storage.lustre``): one parallel file system for very high throughput.

Facts (checked 2026-11-30):

* Performance tiers, in MB/s per TB of capacity: 125, 250, 500, 1000 (OCI CLI reference ``oci lfs lustre-file-system
  create --performance-tier``: ``MBPS_PER_TB_125`` ... ``MBPS_PER_TB_1000``; SDK ``CreateLustreFileSystemDetails``).
* Capacity: at least 31.2 TiB; from there up to 124.8 TiB in steps of 10.4 TiB, and in steps of 41.6 TiB beyond; a
  file system never shrinks (File Storage with Lustre docs, "Increasing File System Capacity" and "Limits and
  Considerations"). The API and pulumi_oci 5.5.0 (``lustre.FileStorageLustreFileSystem.capacity_in_gbs``) take the
  capacity as a whole number of GB, and 31.2 TiB is no whole number of GB in either reading of the prefixes, so the
  docs' figures are read as thousands of GB (31200, 41600, ... 124800, 166400, ...): ``capacityGb`` takes those, and
  is sent unchanged. The OCI CLI reference of ``--capacity-in-gbs`` still says "multiples of 5 TB" (an older rule);
  the service's own page wins here. Not checked against a tenancy: a value the service refuses fails ``pulumi up``.
* File system name: at most 8 characters, letters, digits and ``_`` (CLI reference, ``--file-system-name``).
* Root squash: ``rootSquashConfiguration`` with ``identitySquash`` NONE or ROOT, ``squashUid``/``squashGid``, and
  ``clientExceptions`` (CIDRs exempt from squash) (SDK ``RootSquashConfiguration``).
"""

from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import Field, field_validator

from ._base import StrList, _cidr, _Model, _ocid

#: Performance tiers in MB/s per TB of capacity (CLI reference, ``--performance-tier``).
LUSTRE_TIERS_MBPS_PER_TB = (125, 250, 500, 1000)
#: Smallest file system, and the capacity steps below and above 124800 GB ("Increasing File System Capacity").
LUSTRE_MIN_GB, LUSTRE_SMALL_STEP_GB, LUSTRE_STEP_THRESHOLD_GB, LUSTRE_LARGE_STEP_GB = 31200, 10400, 124800, 41600
_NAME_RE = re.compile(r"^[A-Za-z0-9_]{1,8}$")


def valid_capacities_gb(up_to: int) -> list[int]:
    """Every capacity (GB) the service accepts up to ``up_to`` GB, smallest first."""
    out, cap = [], LUSTRE_MIN_GB
    while cap <= up_to:
        out.append(cap)
        cap += LUSTRE_SMALL_STEP_GB if cap < LUSTRE_STEP_THRESHOLD_GB else LUSTRE_LARGE_STEP_GB
    return out


class Lustre(_Model):
    """A File Storage with Lustre file system, ``storage.lustre`` (absent = none).

    ``capacityGb``: capacity in GB, one the service accepts (31200, 41600, ... 124800, then +41600). ``performanceTier``:
    MB/s per TB (125, 250, 500, 1000): throughput = capacity × tier; capacity and tier are billed (no commitment, but
    the capacity never shrinks). ``fileSystemName``: the Lustre name clients mount (≤ 8 letters, digits, ``_``).
    ``availabilityDomain``: default the Compute Cluster's (the GPU nodes' AD: Lustre is zonal). ``rootSquash``: ROOT
    maps root on clients to ``squashUid``/``squashGid`` (65534, nobody) except for ``clientExceptions`` CIDRs.
    ``kmsKeyId``: a Vault key; None = Oracle-managed keys. ``protect``: the file system holds data (default on).
    ``tenants``: the tenants that get a static PersistentVolume and claim of it (``lustre-shared``).
    """

    capacity_gb: int = Field(description=(
        "Capacity in GB, one the service accepts: 31200, 41600, ... 124800, then steps of 41600 (File Storage "
        "with Lustre docs, \"Increasing File System Capacity\"); it never shrinks."))
    performance_tier: int = Field(125, description=(
        "Throughput tier in MB/s per TB of capacity: 125, 250, 500 or 1000 (throughput = capacity × tier; both "
        "billed)."))
    file_system_name: str = Field("okerdma", description="The Lustre name clients mount: 1-8 letters, digits or `_`.")
    availability_domain: Optional[str] = Field(None, description=(
        "AD of the file system (default: the Compute Cluster's; Lustre is zonal); one of `availabilityDomains`."))
    root_squash: Literal["ROOT", "NONE"] = Field("ROOT", description=(
        "`ROOT` maps root on clients to `squashUid`/`squashGid`; `NONE` keeps root."))
    squash_uid: int = Field(default=65534, ge=1, le=4294967294, description=(
        "UID root is squashed to (65534: nobody)."))
    squash_gid: int = Field(default=65534, ge=1, le=4294967294, description=(
        "GID root is squashed to (65534: nobody)."))
    client_exceptions: StrList = Field((), description="Client CIDRs exempt from root squash.")
    kms_key_id: Optional[str] = Field(None, description=(
        "Vault key OCID encrypting the file system (absent: Oracle-managed keys)."))
    protect: bool = Field(True, description="`protect` the file system against `pulumi destroy` (it holds data).")
    tenants: StrList = Field((), description=(
        "Tenants that get a static PersistentVolume and the claim `lustre-shared` of it."))

    _kms = field_validator("kms_key_id")(lambda v: None if v is None else _ocid("key", v))

    @field_validator("client_exceptions")
    @classmethod
    def _cidrs(cls, v: StrList) -> StrList:
        return tuple(_cidr(c) for c in v)

    @field_validator("performance_tier")
    @classmethod
    def _tier(cls, v: int) -> int:
        if v not in LUSTRE_TIERS_MBPS_PER_TB:
            raise ValueError(f"must be one of {', '.join(map(str, LUSTRE_TIERS_MBPS_PER_TB))} (MB/s per TB), got {v}")
        return v

    @field_validator("capacity_gb", mode="before")
    @classmethod
    def _capacity(cls, v):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"must be a whole number of GB like 31200, got {v!r}")
        valid = valid_capacities_gb(max(v, LUSTRE_MIN_GB) + LUSTRE_LARGE_STEP_GB)
        if v not in valid:
            near = [c for c in valid if c < v][-1:] + [c for c in valid if c > v][:1]
            raise ValueError(f"must be a capacity File Storage with Lustre accepts (at least {LUSTRE_MIN_GB} GB, then "
                             f"steps of {LUSTRE_SMALL_STEP_GB} GB up to {LUSTRE_STEP_THRESHOLD_GB} and of "
                             f"{LUSTRE_LARGE_STEP_GB} GB beyond), got {v}; nearest: {', '.join(map(str, near))}")
        return v

    @field_validator("file_system_name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME_RE.match(v):
            raise ValueError(f"must be 1 to 8 letters, digits or '_' (the name clients mount), got {v!r}")
        return v

    @property
    def throughput_mbps(self) -> int:
        """Aggregate throughput in MB/s: capacity in TB (1000 GB) × tier."""
        return self.capacity_gb * self.performance_tier // 1000
