"""File Storage config: file system, mount target tier, export options, and a tenant's shared-storage request.

Source: FSS docs, "Managing Mount Targets" and "Updating Mount Target Performance" (performance tiers), "Working
with NFS Export Options", "Paths in File Systems", "Using In-transit TLS Encryption"; OKE docs "Provisioning PVCs on
the File Storage Service".
"""

from __future__ import annotations

import re
import zlib
from typing import Literal, Optional

from pydantic import Field, field_validator

from ..facts.storage import (FSS_CAPACITY_ENTITLEMENT_TB, FSS_HIGH_PERFORMANCE_COMMITMENT_DAYS,  # noqa: F401
                             FSS_THROUGHPUT_TIERS)
from ._base import StrList, _Model, _ocid, _pinned_image
from .lustre import PREPARATION_IMAGE, Lustre
from .object_storage import ObjectStorage


# Mount target tiers (Gbps), their capacity entitlement (TB) and billing commitment (days): ``oke_rdma.facts.storage``.

_PATH_ELEMENT = r"[A-Za-z0-9_][A-Za-z0-9._-]*"
_SUB_PATH_RE = re.compile(rf"^{_PATH_ELEMENT}(/{_PATH_ELEMENT})*$")
_QUANTITY_RE = re.compile(r"^[1-9][0-9]*(Mi|Gi|Ti|Pi)$")
#: POSIX IDs a tenant may own its directory as: not root (0), not below 1000 (system accounts on the nodes' and
#: images' distributions), not the FSS anonymous ID 65534 (what squashed root becomes: FSS docs "Working with NFS
#: Export Options", anonymousUid/anonymousGid default 65534), below 2^31 (Kubernetes runAsUser/runAsGroup are int64
#: but NFSv3 AUTH_SYS carries 32-bit IDs; kept signed-safe).
MIN_TENANT_ID, ANONYMOUS_ID, MAX_TENANT_ID = 1000, 65534, 2**31 - 1
#: The platform namespace of the squash-safe preparation Job (``oke_rdma.volumes``); no tenant may use it.
PREPARATION_NAMESPACE = "oke-rdma-storage"
#: Derived default IDs fall in [DERIVED_BASE, DERIVED_BASE + DERIVED_SPAN): above the usual human ranges.
DERIVED_BASE, DERIVED_SPAN = 100000, 900000


def derived_id(tenant: str) -> int:
    """The default UID (and GID) of tenant ``tenant``'s shared-storage directory: ``100000 + crc32(name) % 900000``.

    Stable across runs and independent of the other tenants (adding a tenant never changes another's owner, which
    would leave its files owned by a UID it no longer runs as). Two tenants whose IDs collide are refused by
    ``oke_rdma.config.checks.storage.check_storage``, which names the fix (set ``uid``/``gid``).
    """
    return DERIVED_BASE + zlib.crc32(tenant.encode()) % DERIVED_SPAN


class Fss(_Model):
    """File Storage: one file system, a mount target (``throughputGbps`` ∈ 1/20/40/80) and one export.

    ``kmsKeyId``: the Vault key (``ocid1.key...``) that encrypts the file system; None = Oracle-managed keys.
    ``inTransitTls``: clients mount with in-transit TLS (the ``oci-fss-utils`` package on the nodes); opens TCP 2051
    from the workers and pods to the mount target and sets ``encryptInTransit`` on the PVs and the StorageClass.
    ``prepareDirectories``: declare the workers-only, unsquashed preparation export and the Job that creates each
    tenant's directory owned by its UID/GID (``oke_rdma.storage``, ``oke_rdma.volumes``); false = prepare them by
    hand (docs/operations.md). ``preparationImage``: the pinned Python image that Job runs (tag or digest).
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
    previous_kms_key_ids: StrList = Field((), description=(
        "Vault key OCIDs the file system used before `kmsKeyId` (a switch to another key): their grants are kept, so it "
        "can use the old key until it has switched; list the old key for the one `pulumi up` that switches, remove "
        "it in the next (docs/operations.md, \"Rotating a key\"). A new key version needs no change here."))
    in_transit_tls: bool = Field(False, description=(
        "Mount with in-transit TLS: opens TCP 2051 to the mount target, sets `encryptInTransit` on volumes and "
        "the StorageClass (nodes need `oci-fss-utils`)."))
    prepare_directories: bool = Field(True, description=(
        "Create each tenant's directory owned by its UID/GID through a workers-only unsquashed preparation export "
        "and a one-off Job (docs/operations.md)."))
    preparation_image: str = Field(PREPARATION_IMAGE, description=(
        "Pinned image of the directory preparation Job."))

    _kms = field_validator("kms_key_id")(lambda v: None if v is None else _ocid("key", v))
    _previous_kms = field_validator("previous_kms_key_ids")(lambda v: tuple(_ocid("key", k) for k in v))

    @field_validator("throughput_gbps")
    @classmethod
    def _tier(cls, v: int) -> int:
        if v not in FSS_THROUGHPUT_TIERS:
            raise ValueError(f"must be one of {', '.join(map(str, FSS_THROUGHPUT_TIERS))} (Gbps), got {v}")
        return v

    _pinned = field_validator("preparation_image")(lambda v: _pinned_image(v))

    @field_validator("export_path")
    @classmethod
    def _path(cls, v: str) -> str:
        if not re.match(r"^/[A-Za-z0-9._/-]*$", v) or "//" in v or v == "/" or v.endswith("/") or \
                any(p in (".", "..") for p in v.split("/")):
            raise ValueError(f"must be an absolute path below / like /shared (no trailing '/', no '.' or '..' "
                             f"elements), got {v!r}")
        return v


class Storage(_Model):
    """Shared storage settings: File Storage (``fss``, on by default), File Storage with Lustre (``lustre``, none
    unless set; see :class:`oke_rdma.config.lustre.Lustre`) and the Object Storage weights bucket (``objectStorage``,
    off by default; see :class:`oke_rdma.config.object_storage.ObjectStorage`)."""

    fss: Fss = Field(Fss(), description="The shared file system, its mount target and export.")
    lustre: Optional[Lustre] = Field(None, description=(
        "File Storage with Lustre: a high-throughput file system with a static volume per tenant (docs/storage.md)."))
    object_storage: ObjectStorage = Field(ObjectStorage(), description=(
        "The Object Storage bucket for model weights and checkpoints, created or brought, reached by tenants through "
        "Workload Identity (`tenants.<t>.weights`; docs/storage.md)."))


class SharedStorage(_Model):
    """A tenant's request for the shared FSS volume (``tenants.<name>.sharedStorage``; its presence is the request).

    ``subPath``: the tenant's own directory below the export path (relative, like ``research`` or ``teams/nlp``).
    The platform's preparation Job (``oke_rdma.volumes``) creates it owned by ``uid``:``gid``, mode ``2770``; the
    tenant's PersistentVolume mounts the whole export (a directory below an export path is not a mountable export:
    FSS docs "Paths in File Systems") and the claim's ``okerdma.io/sub-path`` annotation names the directory pods
    mount with ``volumeMounts[].subPath``. None = the tenant shares the export's top directory (made writable by every
    such tenant, sticky like ``/tmp``).
    ``uid`` / ``gid``: the non-root POSIX IDs the tenant's pods run as (``runAsUser``/``runAsGroup``) and that own
    its directory; default :func:`derived_id` of the tenant name. Root in a pod is squashed to 65534 by the export
    (``identitySquash: ROOT``), so only these IDs can write there.
    ``capacity``: the size written on the tenant's PersistentVolume (a Kubernetes quantity such as ``1Ti``); raising
    or lowering it is an in-place update of the volume. FSS grows without provisioning, so it limits nothing on its
    own. The claim requests a fixed nominal ``1Mi`` (``oke_rdma.preparation.STATIC_CLAIM_REQUEST``: a static claim
    cannot be resized), so a ResourceQuota on ``requests.storage`` counts 1Mi per tenant claim.
    """

    sub_path: Optional[str] = Field(None, description=(
        "Mount only `<exportPath>/<subPath>` (relative, e.g. `research`; the directory must exist)."))
    capacity: str = Field("1Ti", description=(
        "Size written on the tenant's PersistentVolume, a Kubernetes quantity (FSS is elastic; changed in place; "
        "the claim requests a nominal 1Mi)."))
    uid: Optional[int] = Field(default=None, ge=MIN_TENANT_ID, le=MAX_TENANT_ID, description=(
        "UID the tenant's pods write as and its directory is owned by (default: derived from the tenant name)."))
    gid: Optional[int] = Field(default=None, ge=MIN_TENANT_ID, le=MAX_TENANT_ID, description=(
        "GID of the tenant's directory (default: derived from the tenant name)."))

    @field_validator("uid", "gid")
    @classmethod
    def _not_anonymous(cls, v: Optional[int]) -> Optional[int]:
        if v == ANONYMOUS_ID:
            raise ValueError(f"{ANONYMOUS_ID} is the anonymous ID squashed root becomes on the export (FSS "
                             f"anonymousUid/anonymousGid); every root process would write as this tenant: choose "
                             f"another ID")
        return v

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
