"""File Storage config: file system, mount target tier, export options, and a tenant's shared-storage request.

Source: FSS docs, "Managing Mount Targets" and "Updating Mount Target Performance" (performance tiers), "Working
with NFS Export Options", "Paths in File Systems", "Using In-transit TLS Encryption"; OKE docs "Provisioning PVCs on
the File Storage Service".
"""

from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import Field, field_validator

from ..facts.storage import (FSS_CAPACITY_ENTITLEMENT_TB, FSS_HIGH_PERFORMANCE_COMMITMENT_DAYS,  # noqa: F401
                             FSS_THROUGHPUT_TIERS)
from ._base import _Model, _ocid
from .lustre import Lustre


# Mount target tiers (Gbps), their capacity entitlement (TB) and billing commitment (days): ``oke_rdma.facts.storage``.

_PATH_ELEMENT = r"[A-Za-z0-9_][A-Za-z0-9._-]*"
_SUB_PATH_RE = re.compile(rf"^{_PATH_ELEMENT}(/{_PATH_ELEMENT})*$")
_QUANTITY_RE = re.compile(r"^[1-9][0-9]*(Mi|Gi|Ti|Pi)$")


class Fss(_Model):
    """File Storage: one file system, a mount target (``throughputGbps`` ∈ 1/20/40/80) and one export.

    ``kmsKeyId``: the Vault key (``ocid1.key...``) that encrypts the file system; None = Oracle-managed keys.
    ``inTransitTls``: clients mount with in-transit TLS (the ``oci-fss-utils`` package on the nodes); opens TCP 2051
    from the workers and pods to the mount target and sets ``encryptInTransit`` on the PVs and the StorageClass.
    """

    enabled: bool = Field(True, description="Create the file system, mount target and export.")
    availability_domain: Optional[str] = Field(None, description=(
        "AD of the file system and mount target (default: the Compute Cluster's); one of `availabilityDomains`."))
    throughput_gbps: int = Field(1, description=(
        "Mount target tier in Gbps: 1, 20, 40 or 80; 20-80 commit you to a 20-80 TB capacity entitlement billed "
        "in 30-day cycles (docs/deploying.md)."))
    export_path: str = Field("/shared", description=(
        "Absolute export path below `/` (no trailing `/`, no `.` or `..`)."))
    identity_squash: Literal["ROOT", "ALL", "NONE"] = Field("ROOT", description=(
        "NFS identity squash of the export: `ROOT`, `ALL` or `NONE`."))
    require_privileged_source_port: bool = Field(True, description="Clients must use a source port below 1024.")
    protect: bool = Field(True, description="`protect` the file system against `pulumi destroy`.")
    kms_key_id: Optional[str] = Field(None, description=(
        "Vault key OCID encrypting the file system (and the StorageClass's file systems); its dynamic group and "
        "statements (`<prefix>-fss-kms`) are generated."))
    in_transit_tls: bool = Field(False, description=(
        "Mount with in-transit TLS: opens TCP 2051 to the mount target, sets `encryptInTransit` on volumes and "
        "the StorageClass (nodes need `oci-fss-utils`)."))

    _kms = field_validator("kms_key_id")(lambda v: None if v is None else _ocid("key", v))

    @field_validator("throughput_gbps")
    @classmethod
    def _tier(cls, v: int) -> int:
        if v not in FSS_THROUGHPUT_TIERS:
            raise ValueError(f"must be one of {', '.join(map(str, FSS_THROUGHPUT_TIERS))} (Gbps), got {v}")
        return v

    @field_validator("export_path")
    @classmethod
    def _path(cls, v: str) -> str:
        if not re.match(r"^/[A-Za-z0-9._/-]*$", v) or "//" in v or v == "/" or v.endswith("/") or \
                any(p in (".", "..") for p in v.split("/")):
            raise ValueError(f"must be an absolute path below / like /shared (no trailing '/', no '.' or '..' "
                             f"elements), got {v!r}")
        return v


class Storage(_Model):
    """Shared storage settings: File Storage (``fss``, on by default) and File Storage with Lustre (``lustre``, none
    unless set; see :class:`oke_rdma.config.lustre.Lustre`)."""

    fss: Fss = Field(Fss(), description="The shared file system, its mount target and export.")
    lustre: Optional[Lustre] = Field(None, description=(
        "File Storage with Lustre: a high-throughput file system with a static volume per tenant (docs/storage.md)."))


class SharedStorage(_Model):
    """A tenant's request for the shared FSS volume (``tenants.<name>.sharedStorage``; its presence is the request).

    ``subPath``: a directory below the export path (relative, like ``research`` or ``teams/nlp``); the tenant's
    PersistentVolume then mounts ``<exportPath>/<subPath>`` instead of the whole export. The directory must exist on
    the file system before a pod mounts the volume (NFS does not create it). None = the whole export.
    ``capacity``: the size written on the PersistentVolume and its claim (a Kubernetes quantity such as ``1Ti``).
    FSS grows without provisioning, so it limits nothing on its own; a ResourceQuota on ``requests.storage`` in the
    tenant's namespace counts it.
    """

    sub_path: Optional[str] = Field(None, description=(
        "Mount only `<exportPath>/<subPath>` (relative, e.g. `research`; the directory must exist)."))
    capacity: str = Field("1Ti", description=(
        "Size written on the volume and claim, a Kubernetes quantity (FSS is elastic; counts against a "
        "`requests.storage` quota)."))

    @field_validator("sub_path")
    @classmethod
    def _sub_path(cls, v: Optional[str]) -> Optional[str]:
        if v is None:
            return v
        if not _SUB_PATH_RE.match(v) or any(p in (".", "..") for p in v.split("/")):
            raise ValueError(f"must be a relative directory below the export path like research or teams/nlp "
                             f"(letters, digits, '.', '_', '-', separated by '/'; no leading or trailing '/', "
                             f"no '..'), got {v!r}")
        return v

    @field_validator("capacity")
    @classmethod
    def _capacity(cls, v: str) -> str:
        if not _QUANTITY_RE.match(v):
            raise ValueError(f"must be a Kubernetes quantity in Mi, Gi, Ti or Pi like 1Ti, got {v!r}")
        return v
