"""Cluster, Compute Cluster and node pool config, and the placement rules OCI enforces.

Sources: OKE docs, "Using Compute Clusters to Provision Managed Nodes" (contengusingcomputeclusters.htm); Compute
docs, "Compute Clusters" (supported shapes; bare metal only); Block Volume docs, "Boot Volumes"; OKE docs
"Kubernetes Versions and Kubernetes Engine (OKE)" (contengupgradeoverview.htm: version skew), "Configuring IMDS for
Kubernetes Clusters" (contengconfiguringimds.htm), "Cycling Nodes in a Node Pool", "Encrypting Kubernetes Secrets at
Rest in Etcd" (contengencryptingdata.htm), "Enforcing the Use of Signed Images from Registry", "OpenID Connect
Discovery" (enhanced clusters only); Compute docs "Compute Shapes" > "Flexible Shapes" (OCPU and memory ranges);
Kubernetes docs "Using NodeRestriction admission" / kubelet ``--node-labels`` (the labels a kubelet may set on its
own Node); OCI docs "Resource Identifiers" (regional OCIDs carry their region).
"""

from __future__ import annotations

import re
from typing import Any, Literal, Optional

from pydantic import Field, field_validator

from ..facts.shapes import (COMPUTE_CLUSTER_SHAPES, FLEX_FALLBACK_LIMITS, FLEX_GB_PER_OCPU,  # noqa: F401 - re-exported
                            FLEX_SHAPE_LIMITS, NVIDIA_GPUS_PER_SHAPE)
from ._base import _FD_RE, _K8S_VERSION_RE, StrList, _cidr, _k8s_labels, _Model, _ocid
from .access import OidcAuth
from .fleet import GpuSharing


#: NVIDIA GPUs per node (``oke_rdma.facts.shapes``: the Compute Shapes tables); CPU-only RDMA shapes offer none.
GPUS_PER_SHAPE = NVIDIA_GPUS_PER_SHAPE
#: Shapes a Compute Cluster holds (``oke_rdma.facts.shapes``: Compute docs "Compute Clusters" and Oracle's OKE RDMA
#: quickstart).
RDMA_SHAPES = COMPUTE_CLUSTER_SHAPES
#: Smallest boot volume OCI accepts, in GB (Block Volume docs, "Boot Volumes").
MIN_BOOT_VOLUME_GB = 50
#: Longest eviction grace OKE accepts, in minutes (``PT0M`` to ``PT60M``; OCI API ``NodeEvictionNodePoolSettings``).
MAX_EVICTION_GRACE_MINUTES = 60

#: Node labels the program sets on every node of a pool (``oke_rdma.compute.node_labels``): Kueue ResourceFlavors
#: and the scheduling component select nodes by it, so a user label must not replace it.
PROGRAM_NODE_LABELS = ("okerdma.io/node-pool", "okerdma.io/local-nvme", "okerdma.io/lustre-client")
#: Node labels the program derives from ``gpuSharing`` (``oke_rdma.sharing``; NVIDIA GPU Operator docs
#: "Time-Slicing GPUs in Kubernetes" and "GPU Operator with MIG"): a user label must not contradict them.
SHARING_NODE_LABELS = ("okerdma.io/gpu-sharing", "nvidia.com/device-plugin.config", "nvidia.com/mig.config")
#: Labels in the kubernetes.io / k8s.io namespaces a kubelet may set on its own Node (Kubernetes docs, kubelet
#: ``--node-labels`` and "NodeRestriction"): these, plus any under ``kubelet.kubernetes.io/`` or
#: ``node.kubernetes.io/``. The kubelet and OCI's cloud controller set these from the node itself, so a pool-wide
#: value would be wrong or contradict the node: refused too.
KUBELET_WELL_KNOWN_LABELS = frozenset({
    "kubernetes.io/hostname", "kubernetes.io/arch", "kubernetes.io/os", "beta.kubernetes.io/arch",
    "beta.kubernetes.io/os", "beta.kubernetes.io/instance-type", "node.kubernetes.io/instance-type",
    "failure-domain.beta.kubernetes.io/region", "failure-domain.beta.kubernetes.io/zone",
    "topology.kubernetes.io/region", "topology.kubernetes.io/zone",
})
KUBELET_LABEL_PREFIXES = ("kubelet.kubernetes.io", "node.kubernetes.io")

#: ``PT<minutes>M``; ``PT0S`` (zero, as OCI writes it) is accepted too.
_DURATION_RE = re.compile(r"^PT(?:([0-9]{1,2})M|(0)S)$")
_SURGE_RE = re.compile(r"^(?:[0-9]+|(?:100|[1-9]?[0-9])%)$")



def version_hint(text: str) -> str:
    """`` (did you mean v1.35.2?)`` for a Kubernetes version written almost right — without the ``v``, with ``V``,
    spaces or a ``-x`` suffix — or, for a minor alone (``1.35``), the patches of it OKE offers
    (:func:`oke_rdma.facts.kubernetes.offered_versions`); empty when nothing close is known."""
    from ..facts.kubernetes import offered_versions

    core = re.sub(r"^[vV]?", "v", text.strip()).split("-", 1)[0].split("+", 1)[0]
    if _K8S_VERSION_RE.match(core):
        return f" (did you mean {core}?)"
    if re.fullmatch(r"v1\.[0-9]+", core):
        patches = [x for x in offered_versions() if x.startswith(core + ".")]
        return (f" (a patch release is needed: write {' or '.join(patches)}, with the v)" if patches else "")
    return ""

class Cluster(_Model):
    """The OKE cluster: type, pod networking, version, service CIDR and the optional security features.

    ``kmsKeyId`` encrypts Kubernetes secrets in etcd with a Vault key (OKE docs "Encrypting Kubernetes Secrets at Rest
    in Etcd"; set only at creation: changing it replaces the cluster). ``imageVerificationKeyIds`` turns on image
    signature verification with those Vault keys (OKE docs "Enforcing the Use of Signed Images from Registry").
    ``openIdConnectDiscovery`` publishes the cluster's OIDC issuer (enhanced clusters only).
    """

    kubernetes_version: str = Field(description=(
        "A Kubernetes version OKE offers, `vX.Y.Z`, e.g. `v1.35.2` (`oke_rdma/facts/kubernetes.py`; `oci ce "
        "cluster-options get --cluster-option-id all`)."))
    services_cidr: str = Field("10.96.0.0/16", description="Kubernetes service CIDR; must not overlap the VCN.")
    type: Literal["ENHANCED_CLUSTER", "BASIC_CLUSTER"] = Field("ENHANCED_CLUSTER", description=(
        "`BASIC_CLUSTER` has no RDMA pools, Workload Identity, node cycling or OIDC discovery."))
    cni_type: Literal["OCI_VCN_IP_NATIVE", "FLANNEL_OVERLAY"] = Field("OCI_VCN_IP_NATIVE", description=(
        "Pod networking (`FLANNEL_OVERLAY`: no `maxPodsPerNode`, no Cilium, and no tenants: pods leave with the "
        "node's address, which voids the walls); changing it replaces the cluster."))
    kms_key_id: Optional[str] = Field(None, description=(
        "Vault key OCID encrypting Kubernetes secrets in etcd; set at creation (a change replaces the cluster); "
        "its IAM statement (`<prefix>-cluster-kms`) is generated and the cluster waits for it."))
    open_id_connect_discovery: bool = Field(False, description=(
        "Publish the cluster's OIDC issuer (enhanced clusters)."))
    image_verification_key_ids: StrList = Field((), description=(
        "Vault key OCIDs; non-empty: only images signed with these keys run."))
    previous_kms_key_ids: StrList = Field((), description=(
        "Vault key OCIDs the cluster used before `kmsKeyId` or `imageVerificationKeyIds` (a switch to another key): their grants are kept, so it "
        "can use the old key until it has switched; list the old key for the one `pulumi up` that switches, remove "
        "it in the next (docs/operations.md, \"Rotating a key\"). A new key version needs no change here."))
    oidc: Optional[OidcAuth] = Field(None, description=(
        "OIDC token authentication with your identity provider (enhanced clusters only); needed by `oidcGroup` "
        "members (docs/tenants.md)."))

    _svc = field_validator("services_cidr")(lambda v: _cidr(v))
    _kms = field_validator("kms_key_id")(lambda v: None if v is None else _ocid("key", v))
    _previous_kms = field_validator("previous_kms_key_ids")(lambda v: tuple(_ocid("key", k) for k in v))

    @field_validator("kubernetes_version")
    @classmethod
    def _version(cls, v: str) -> str:
        if not _K8S_VERSION_RE.match(v):
            raise ValueError(f"must be an OKE Kubernetes version like v1.35.2, got {v!r}{version_hint(v)}")
        return v

    @field_validator("image_verification_key_ids")
    @classmethod
    def _image_keys(cls, v: StrList) -> StrList:
        for key in v:
            _ocid("key", key)
        if len(set(v)) != len(v):
            raise ValueError("lists a key twice")
        return v

    @property
    def is_enhanced(self) -> bool:
        """True for ``ENHANCED_CLUSTER``."""
        return self.type == "ENHANCED_CLUSTER"

    @property
    def kms_key_ids(self) -> tuple[str, ...]:
        """Every Vault key the cluster principal uses: the secrets key, the image verification keys, then the keys it
        used before (``previousKmsKeyIds``, kept for the update that switches)."""
        return tuple(dict.fromkeys(((self.kms_key_id,) if self.kms_key_id else ()) + self.image_verification_key_ids
                                   + self.previous_kms_key_ids))


class ComputeCluster(_Model):
    """The OCI Compute Cluster RDMA pools join: created in ``availabilityDomain``, or an existing ACTIVE one.

    ``availabilityDomain`` is required for an existing one too: every RDMA pool's placement names it, and it must
    be known before anything is declared (a lookup would be unknown on a first preview).
    """

    availability_domain: str = Field(json_schema_extra={
        "required_because": "the Compute Cluster's AD (for existingId, the AD it was created in): every RDMA pool "
                            "is placed there"}, description=(
        "AD of the Compute Cluster and of every RDMA pool (for `existingId`, the AD it was created in); one of "
        "`availabilityDomains`."))
    existing_id: Optional[str] = Field(None, description=(
        "OCID of an existing, ACTIVE Compute Cluster of `oci:region` to use instead of creating one."))

    _ocid = field_validator("existing_id")(lambda v: None if v is None else _ocid("computecluster", v))


def oci_grace_duration(minutes: int) -> str:
    """A node pool's eviction grace duration as OCI returns it: ``PT0S`` for zero, ``PT<minutes>M`` otherwise (see
    :class:`Eviction`)."""
    return "PT0S" if minutes == 0 else f"PT{minutes}M"


class Eviction(_Model):
    """How OKE drains a node it deletes or cycles (OCI ``NodeEvictionNodePoolSettings``).

    ``graceDuration``: ISO 8601 minutes, ``PT0M`` (delete without cordon and drain) to ``PT60M`` (OCI's default).
    The model holds it in the form OCI returns, so a refresh finds what the program sends and the preview shows no
    change that never happens: zero as ``PT0S`` (OCI answers ``PT0S`` to ``PT0M``: oracle-terraform-modules/
    terraform-oci-oke commit 48c4ced, issue #688, PR #791 — a ``PT0M`` there left a diff on every plan) and other
    values without leading zeros (``PT05M`` → ``PT5M``; that module sends ``PT<n>M``). Checked 2026-12-02.
    ``forceActionAfterGraceDuration``: go on with the node action when pods are still running after the grace.
    ``forceDeleteAfterGraceDuration``: delete the instance when pods could not all be evicted.
    """

    grace_duration: str = Field("PT60M", description=(
        "How long OKE waits for pods to drain, ISO 8601 minutes: `PT0M` (no cordon and drain; sent as `PT0S`, the "
        "form OCI returns) to `PT60M`."))
    force_action_after_grace_duration: bool = Field(False, description=(
        "Go on with the node action when pods are still running after the grace duration."))
    force_delete_after_grace_duration: bool = Field(False, description=(
        "Delete the instance when its pods could not all be evicted."))

    @field_validator("grace_duration")
    @classmethod
    def _duration(cls, v: str) -> str:
        m = _DURATION_RE.match(v)
        minutes = int(m.group(1) or m.group(2)) if m else None
        if minutes is None or minutes > MAX_EVICTION_GRACE_MINUTES:
            raise ValueError(f"must be an ISO 8601 duration in minutes from PT0M to PT{MAX_EVICTION_GRACE_MINUTES}M, "
                             f"got {v!r}")
        return oci_grace_duration(minutes)


class Cycling(_Model):
    """Node cycling on upgrades (OCI ``NodePoolCyclingDetails``; enhanced clusters only).

    When ``enabled``, a change to the pool's node properties (version, image, shape, boot volume, metadata, ...)
    replaces the existing nodes, at most ``maxSurge`` extra nodes and ``maxUnavailable`` missing nodes at a time.
    Each is a node count (``"1"``, or the number ``1``) or a percentage of the pool (``"25%"``); OCI defaults are 1
    and 0; at least one
    must be above 0. For RDMA pools, surge nodes need free capacity in the Compute Cluster's fabric.
    """

    enabled: bool = Field(False, description=(
        "Replace the nodes when the pool's node properties change (version, image, shape, ...); enhanced "
        "clusters only."))
    max_surge: str = Field("1", description=(
        "Extra nodes during a cycle: a count (`2` or `\"2\"`) or `\"N%\"`; not 0 together with `maxUnavailable`."))
    max_unavailable: str = Field("0", description=(
        "Nodes that may be unavailable during a cycle: a count or `\"N%\"`."))

    @field_validator("max_surge", "max_unavailable", mode="before")
    @classmethod
    def _number(cls, v: Any) -> Any:
        # ``maxSurge: 2`` (a YAML number) means the node count "2"; booleans and fractions stay refused.
        return str(v) if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else v

    @field_validator("max_surge", "max_unavailable")
    @classmethod
    def _count(cls, v: str) -> str:
        if not _SURGE_RE.match(v):
            raise ValueError(f"must be a node count like \"1\" or a percentage like \"25%\" (0-100%), got {v!r}")
        return v


class Preemptible(_Model):
    """Preemptible capacity for a non-RDMA pool: OCI may reclaim the nodes at any time (action ``TERMINATE``).

    ``preserveBootVolume``: keep the boot volume of a reclaimed node (billed until deleted).
    """

    preserve_boot_volume: bool = Field(False, description=(
        "Keep the boot volume of a reclaimed node (billed until deleted)."))


class LocalNvme(_Model):
    """The pool's local NVMe drives as one RAID 0 file system on every node (``nodePools.<p>.localNvme``).

    ``mountPath``: an absolute path on the node (default ``/mnt/nvme``); ``filesystem``: ``ext4`` or ``xfs``. Built by
    the node's cloud-init before OKE's bootstrap (``oke_rdma.node_init``); a shape without NVMe drives is refused.
    """

    enabled: bool = Field(False, description="RAID 0 the pool's local NVMe drives and mount them on every node.")
    mount_path: str = Field("/mnt/nvme", description=(
        "Absolute mount path on the node, outside the system directories (`/etc`, `/var`, `/usr`, ...)."))
    filesystem: Literal["ext4", "xfs"] = Field("ext4", description="File system of the RAID volume.")

    @field_validator("mount_path")
    @classmethod
    def _path(cls, v: str) -> str:
        parts = v.split("/")
        if not re.match(r"^/[A-Za-z0-9._/-]+$", v) or v.endswith("/") or "//" in v or \
                any(p in (".", "..") for p in parts) or parts[1] in _SYSTEM_DIRS:
            raise ValueError(f"must be an absolute path like /mnt/nvme outside the system directories "
                             f"({', '.join('/' + d for d in sorted(_SYSTEM_DIRS))}), got {v!r}")
        return v


#: Top-level directories a RAID mount must not cover (the node's OS, kubelet and container runtime live there).
_SYSTEM_DIRS = frozenset({"bin", "boot", "dev", "etc", "lib", "lib64", "proc", "root", "run", "sbin", "sys", "usr",
                          "var"})


class NodePool(_Model):
    """One OKE managed node pool. Sizes: ``ocpus`` (count), ``memoryGb`` and ``bootVolumeGb`` in GB.

    ``kubernetesVersion`` defaults to the cluster's. ``areLegacyImdsEndpointsDisabled`` (IMDSv2 only) and
    ``isPvEncryptionInTransitEnabled`` are on by default. ``rdma: true`` places the pool in the Compute Cluster;
    ``allowUnlistedRdmaShape: true`` accepts a bare metal shape Oracle does not list for Compute Clusters, with a
    warning on every preview.
    """

    shape: str = Field(description=(
        "Compute shape, e.g. `VM.Standard.E5.Flex`, `BM.GPU.H100.8` (`oci ce node-pool-options get --node-pool-"
        "option-id all`)."))
    size: int = Field(ge=0, le=1000, description="Number of nodes.")
    image_id: str = Field(description=(
        "Node image OCID in `oci:region` (GPU pools: an OKE GPU image with the driver and OFED; `oci ce node-"
        "pool-options get --node-pool-option-id all`)."))
    ocpus: Optional[float] = Field(default=None, gt=0, json_schema_extra={
        "whole": True, "rule": "a whole number of OCPUs from 1 to the shape's maximum"}, description=(
        "OCPUs per node, Flex shapes only (required there): whole, from 1 to the shape's maximum (Compute docs "
        "\"Flexible Shapes\")."))
    memory_gb: Optional[float] = Field(default=None, gt=0, description=(
        "Memory per node in GB, Flex shapes only (required there): 1-64 GB per OCPU up to the shape's maximum."))
    boot_volume_gb: int = Field(default=100, ge=MIN_BOOT_VOLUME_GB, le=32768, description=(
        "Boot volume size in GB (OCI's minimum is 50; Block Volume docs \"Boot Volumes\"); the node's cloud-init grows "
        "the root file system to it before OKE's bootstrap (docs/storage.md)."))
    max_pods_per_node: int = Field(default=31, ge=1, le=110, description=(
        "Pods per node with VCN-native pod networking (each takes a pod-subnet IP): at most "
        "`min(110, (VNICs − 1) × 31)` of the shape."))
    availability_domains: StrList = Field((), description=(
        "ADs of a non-RDMA pool (default: every one of `availabilityDomains`); an RDMA pool has only the Compute "
        "Cluster's."))
    fault_domains: StrList = Field((), description=(
        "Fault domains `FAULT-DOMAIN-1` to `-3` of a non-RDMA pool; must be empty for RDMA pools."))
    labels: dict[str, str] = Field(default_factory=dict, description=(
        "Initial Kubernetes node labels; not `okerdma.io/node-pool` (oke-rdma sets it to the pool name), nor "
        "`kubernetes.io`/`k8s.io` labels a kubelet may not set (`node-role.kubernetes.io/*`, ...) or sets itself "
        "(`kubernetes.io/hostname`, `topology.kubernetes.io/zone`, ...); `kubelet.kubernetes.io/*` and "
        "`node.kubernetes.io/*` are fine."))
    rdma: bool = Field(False, description="Place the pool in the Compute Cluster (bare metal RDMA shapes only).")
    allow_unlisted_rdma_shape: bool = Field(False, description=(
        "Accept a bare metal shape not on Oracle's RDMA list for an RDMA pool (every preview warns; the policy "
        "pack's `allowedShapes` must list it too)."))
    allow_unknown_shape: bool = Field(False, description=(
        "Accept a GPU shape oke-rdma's shape table (`oke_rdma/facts/shapes.py`) does not know, e.g. one newer than "
        "the table (give its `gpusPerNode`); without it an unknown GPU shape is refused as a likely typo, with the "
        "known shapes of the GPU model it names."))
    #: GPUs per node, for a shape not in :data:`GPUS_PER_SHAPE` (Kueue quotas and flavors need it); for a shape in
    #: it, only the same count is accepted.
    gpus_per_node: Optional[int] = Field(default=None, ge=0, le=16, description=(
        "GPUs per node, for a shape oke-rdma does not know (`GPUS_PER_SHAPE`); for a known shape only its real "
        "count is accepted."))
    kubernetes_version: Optional[str] = Field(None, description=(
        "The pool's Kubernetes version (default: the cluster's): not newer than the cluster, at most 3 minor "
        "versions older (2 before v1.28)."))
    eviction: Eviction = Field(Eviction(), description="How OKE drains a node it deletes or cycles.")
    cycling: Cycling = Field(Cycling(), description="Node cycling (rolling replacement on change).")
    are_legacy_imds_endpoints_disabled: bool = Field(True, description=(
        "IMDSv2 only on the pool's instances (set through node metadata: OKE docs \"Configuring IMDS for "
        "Kubernetes Clusters\")."))
    is_pv_encryption_in_transit_enabled: bool = Field(True, description=(
        "Encrypt paravirtualized boot and block volume traffic in transit."))
    gpu_sharing: GpuSharing = Field(GpuSharing(), description=(
        "How the pool's GPUs are shared: `exclusive` (default), time-slicing with `replicas`, or MIG with a "
        "`profile` (docs/sharing.md); RDMA pools stay exclusive."))
    preemptible: Optional[Preemptible] = Field(None, description="Preemptible capacity (not for RDMA pools).")
    local_nvme: LocalNvme = Field(LocalNvme(), description=(
        "The pool's local NVMe drives as one RAID 0 file system on every node, built by cloud-init before OKE's "
        "bootstrap; a shape without NVMe drives is refused."))

    _image = field_validator("image_id")(lambda v: _ocid("image", v))
    _labels = field_validator("labels")(lambda v: _k8s_labels(v))

    @field_validator("kubernetes_version")
    @classmethod
    def _version(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and not _K8S_VERSION_RE.match(v):
            raise ValueError(f"must be an OKE Kubernetes version like v1.35.2, got {v!r}{version_hint(v)}")
        return v

    @field_validator("ocpus", "memory_gb", mode="before")
    @classmethod
    def _number(cls, v: Any) -> Any:
        # JSON has one number type: accept integers for float fields, refuse strings and booleans.
        return float(v) if isinstance(v, int) and not isinstance(v, bool) else v

    @field_validator("shape")
    @classmethod
    def _shape(cls, v: str) -> str:
        if not re.match(r"^(VM|BM)\.[A-Za-z0-9.\-]+$", v):
            from ..facts.shapes import did_you_mean_shape
            raise ValueError(f"must be an OCI shape name like VM.Standard.E5.Flex or BM.GPU.H100.8 (names are "
                             f"case-sensitive), got {v!r}{did_you_mean_shape(str(v))}")
        return v

    @field_validator("fault_domains")
    @classmethod
    def _fds(cls, v: StrList) -> StrList:
        for fd in v:
            if not _FD_RE.match(fd):
                raise ValueError(f"fault domains are FAULT-DOMAIN-1, -2 or -3, got {fd!r}")
        return v

    @property
    def gpus(self) -> Optional[int]:
        """NVIDIA GPUs per node: the shape's entry in :data:`GPUS_PER_SHAPE`, else ``gpusPerNode``, else None (a
        ``gpusPerNode`` that contradicts the table is refused by :func:`check_pools`)."""
        return GPUS_PER_SHAPE.get(self.shape, self.gpus_per_node)

    @property
    def is_flex(self) -> bool:
        """True for Flex shapes, which need ``ocpus`` and ``memoryGb``."""
        return self.shape.endswith(".Flex")
