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
* The Lustre client (``client``): OKE's Lustre CSI driver mounts with the node kernel's Lustre client, which must be
  installed on every worker node that mounts the file system; the driver supports Oracle Linux 8 x86 and Ubuntu 22.04
  x86 (OKE docs "Provisioning PVCs on the File Storage with Lustre Service", oracle/oci-cloud-controller-manager
  docs/pvcs-with-lustre-using-csi.md@1100ac3). No Oracle Linux or Ubuntu repository carries client packages for OKE
  images: Oracle's own installer (oci-hpc/oke-lustre-client@1a6fbcf, checked 2026-12-01) downloads a DKMS build of
  Lustre 2.15.5 as a ``.tar.gz`` from Object Storage, and needs Oracle Linux 8 on the Red Hat compatible kernel
  (RHCK), not UEK. ``client.packages`` names such archives (``oke_rdma.node_init`` installs them).
"""

from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import Field, field_validator

from oke_rdma.facts.images import PYTHON_IMAGE

from ._base import StrList, _cidr, _Model, _ocid, _pinned_image

#: The pinned Python image of the directory preparation Jobs (FSS and Lustre; ``oke_rdma.preparation``).
PREPARATION_IMAGE = PYTHON_IMAGE
#: Performance tiers in MB/s per TB of capacity (CLI reference, ``--performance-tier``).
LUSTRE_TIERS_MBPS_PER_TB = (125, 250, 500, 1000)
#: Smallest file system, and the capacity steps below and above 124800 GB ("Increasing File System Capacity").
LUSTRE_MIN_GB, LUSTRE_SMALL_STEP_GB, LUSTRE_STEP_THRESHOLD_GB, LUSTRE_LARGE_STEP_GB = 31200, 10400, 124800, 41600
_NAME_RE = re.compile(r"^[A-Za-z0-9_]{1,8}$")
_SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
#: An HTTPS URL without whitespace, quotes or shell metacharacters (it is written into the node's cloud-init).
_URL_RE = re.compile(r"^https://[A-Za-z0-9.-]+(:[0-9]+)?/[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*$")


class LustreClientArchive(_Model):
    """One archive of Lustre client packages: ``url`` (HTTPS; an Object Storage pre-authenticated request or any
    server the worker nodes reach) and ``sha256`` (64 lowercase hex digits) of the archive; the node installs nothing
    from an archive whose checksum differs."""

    url: str = Field(description=(
        "HTTPS URL of a `.tar.gz` of the client packages (RPMs for Oracle Linux, DEBs for Ubuntu); written in clear "
        "into the node pool's cloud-init, so use a read-only pre-authenticated request scoped to the one object."))
    sha256: str = Field(description="SHA-256 of the archive, 64 lowercase hex digits; a different archive is refused.")

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        if not _URL_RE.match(v) or '"' in v or "'" in v or "`" in v or "$" in v:
            raise ValueError(f"expected an https:// URL without spaces, quotes, '$' or '`', got {v!r}")
        return v

    @field_validator("sha256")
    @classmethod
    def _sha(cls, v: str) -> str:
        if not _SHA256_RE.match(v):
            raise ValueError(f"expected 64 lowercase hex digits (sha256sum of the archive), got {v!r}")
        return v


class LustreClientPackages(_Model):
    """Where the node installs the Lustre client from, per OS the Lustre CSI driver supports. An OS without an
    archive (and every node that is not x86_64, the architecture the driver supports) gets no install: its nodes are
    labelled only when their image already carries a working client."""

    oracle_linux8: Optional[LustreClientArchive] = Field(None, description=(
        "Oracle Linux 8 x86_64 on the RHCK kernel: a `.tar.gz` of `lustre-client` and `lustre-client-dkms` RPMs."))
    ubuntu2204: Optional[LustreClientArchive] = Field(None, description=(
        "Ubuntu 22.04 x86_64: a `.tar.gz` of `lustre-client-utils` and `lustre-client-modules-dkms` DEBs."))


class LustreClient(_Model):
    """The Lustre client on the worker nodes, ``storage.lustre.client``.

    ``enabled`` (default): every node of ``pools`` (default every pool) checks for a working client at first boot
    (``lfs`` runs and the ``lnet`` module loads in the running kernel), installs it from ``packages`` when missing,
    and joins with the node label ``okerdma.io/lustre-client: "true"`` only when the client works; the Lustre volumes
    require that label (node affinity), so a pod that mounts Lustre never lands on a node without the client.
    ``enabled: false``: the nodes are prepared outside oke-rdma; no label is set nor required.
    """

    enabled: bool = Field(True, description=(
        "Check for (and install) the client at node boot, label the nodes where it works, and require the label in "
        "the Lustre volumes' node affinity."))
    pools: StrList = Field((), description="Node pools whose nodes get the client (default: every node pool).")
    packages: LustreClientPackages = Field(LustreClientPackages(), description=(
        "Client package archives per OS (`oracleLinux8`, `ubuntu2204`); without one, only images that already carry "
        "the client are labelled."))


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
    ``client``: the Lustre client on the worker nodes (:class:`LustreClient`).
    ``prepareDirectories`` (default on): a one-off Job (``oke_rdma.preparation``, the same as FSS's) creates a
    directory ``/<tenant>`` per listed tenant, owned by the tenant's UID/GID (``tenants.<t>.sharedStorage.uid/gid``,
    else derived from its name), mode ``2770``; the tenant's claim names it (``okerdma.io/sub-path``) and the stack
    output ``tenants.<t>.lustreSubPath``. The Job runs as root on a worker node, so with ``rootSquash: ROOT`` the
    workers subnet becomes a root-squash client exception (``oke_rdma.lustre``; stated in the preview), as FSS's
    preparation export is unsquashed for the workers subnet; false = none of this: create the directories by hand
    (docs/storage.md). ``preparationImage``: the pinned Python image that Job runs.
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
    client: LustreClient = Field(LustreClient(), description=(
        "The Lustre client on the worker nodes: which pools get it, from which package archives."))
    prepare_directories: bool = Field(True, description=(
        "Create a directory `/<tenant>` per tenant owned by its UID/GID with a one-off root Job on a worker node "
        "(with rootSquash ROOT this adds the workers subnet to the client exceptions; docs/storage.md)."))
    preparation_image: str = Field(PREPARATION_IMAGE, description=(
        "Pinned image of the directory preparation Job."))

    _pinned = field_validator("preparation_image")(lambda v: _pinned_image(v))

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
