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

from ._base import _FD_RE, _K8S_VERSION_RE, StrList, _cidr, _k8s_labels, _Model, _ocid


#: NVIDIA GPUs per node of the bare metal shapes OKE can place in a Compute Cluster (OCI Compute docs, "Compute
#: Shapes", bare metal GPU shapes). CPU-only RDMA shapes offer none.
GPUS_PER_SHAPE = {
    "BM.GPU.H100.8": 8, "BM.GPU.H200.8": 8, "BM.GPU.B200.8": 8, "BM.GPU.A100-v2.8": 8, "BM.GPU4.8": 8,
    "BM.GPU.B4.8": 8, "BM.GPU.GB200.4": 4, "BM.GPU.GB200-v2.4": 4, "BM.GPU.GB200-v3.4": 4, "BM.GPU.GB300.4": 4,
    "BM.HPC2.36": 0, "BM.Optimized3.36": 0,
}
#: Shapes Oracle lists as supporting RDMA cluster networking in Compute Clusters (Compute docs, "Compute Clusters").
RDMA_SHAPES = frozenset({
    "BM.GPU.H100.8", "BM.GPU.A100-v2.8", "BM.GPU4.8", "BM.GPU.GB200.4", "BM.HPC2.36", "BM.Optimized3.36",
})
#: Smallest boot volume OCI accepts, in GB (Block Volume docs, "Boot Volumes").
MIN_BOOT_VOLUME_GB = 50
#: How many minor versions worker nodes may lag the control plane (OKE "Kubernetes Versions": 3 from v1.28, else 2).
MAX_MINOR_SKEW, MAX_MINOR_SKEW_BEFORE_1_28 = 3, 2
#: Longest eviction grace OKE accepts, in minutes (``PT0M`` to ``PT60M``; OCI API ``NodeEvictionNodePoolSettings``).
MAX_EVICTION_GRACE_MINUTES = 60

#: Flex shape → (most OCPUs, most memory in GB) (Compute docs "Compute Shapes", Flexible Shapes and the VM standard
#: shape tables). Every Flex VM takes whole OCPUs from 1, and from 1 GB (at least 1 GB per OCPU) to 64 GB per OCPU.
#: E3/E4: older pages say 64 OCPUs / 1024 GB, later ones larger VMs (114 OCPUs); the larger bound is used so that a
#: valid pool is never refused here (OCI itself refuses what the region's hosts cannot give).
FLEX_SHAPE_LIMITS = {
    "VM.Standard.E3.Flex": (114, 1776), "VM.Standard.E4.Flex": (114, 1776), "VM.Standard.E5.Flex": (94, 1049),
    "VM.Standard3.Flex": (32, 512), "VM.Optimized3.Flex": (18, 256), "VM.Standard.A1.Flex": (80, 512),
}
#: Bounds for a Flex shape not in :data:`FLEX_SHAPE_LIMITS`: sanity bounds above every Flex VM OCI documents, so a
#: typo (``memoryGb: 1e308``) is caught while a newer shape still works.
FLEX_FALLBACK_LIMITS = (256, 4096)
#: Memory per OCPU of every Flex VM, in GB (Compute docs "Flexible Shapes": 1 GB, or the OCPU count, at least; up
#: to 64 GB per OCPU).
FLEX_GB_PER_OCPU = (1, 64)
#: Node labels the program sets on every node of a pool (``oke_rdma.compute.node_labels``): Kueue ResourceFlavors
#: and the scheduling component select nodes by it, so a user label must not replace it.
PROGRAM_NODE_LABELS = ("okerdma.io/node-pool", "okerdma.io/local-nvme")
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

_DURATION_RE = re.compile(r"^PT([0-9]{1,2})M$")
_SURGE_RE = re.compile(r"^(?:[0-9]+|(?:100|[1-9]?[0-9])%)$")


class Cluster(_Model):
    """The OKE cluster: type, pod networking, version, service CIDR and the optional security features.

    ``kmsKeyId`` encrypts Kubernetes secrets in etcd with a Vault key (OKE docs "Encrypting Kubernetes Secrets at Rest
    in Etcd"; set only at creation: changing it replaces the cluster). ``imageVerificationKeyIds`` turns on image
    signature verification with those Vault keys (OKE docs "Enforcing the Use of Signed Images from Registry").
    ``openIdConnectDiscovery`` publishes the cluster's OIDC issuer (enhanced clusters only).
    """

    kubernetes_version: str
    services_cidr: str = "10.96.0.0/16"
    type: Literal["ENHANCED_CLUSTER", "BASIC_CLUSTER"] = "ENHANCED_CLUSTER"
    cni_type: Literal["OCI_VCN_IP_NATIVE", "FLANNEL_OVERLAY"] = "OCI_VCN_IP_NATIVE"
    kms_key_id: Optional[str] = None
    open_id_connect_discovery: bool = False
    image_verification_key_ids: StrList = ()

    _svc = field_validator("services_cidr")(lambda v: _cidr(v))
    _kms = field_validator("kms_key_id")(lambda v: None if v is None else _ocid("key", v))

    @field_validator("kubernetes_version")
    @classmethod
    def _version(cls, v: str) -> str:
        if not _K8S_VERSION_RE.match(v):
            raise ValueError(f"must be an OKE Kubernetes version like v1.34.1, got {v!r}")
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
        """Every Vault key the cluster principal uses: the secrets key, then the image verification keys."""
        return tuple(dict.fromkeys(((self.kms_key_id,) if self.kms_key_id else ()) + self.image_verification_key_ids))


class ComputeCluster(_Model):
    """The OCI Compute Cluster RDMA pools join: created in ``availabilityDomain``, or an existing ACTIVE one.

    ``availabilityDomain`` is required for an existing one too: every RDMA pool's placement names it, and it must
    be known before anything is declared (a lookup would be unknown on a first preview).
    """

    availability_domain: str = Field(json_schema_extra={
        "required_because": "the Compute Cluster's AD (for existingId, the AD it was created in): every RDMA pool "
                            "is placed there"})
    existing_id: Optional[str] = None

    _ocid = field_validator("existing_id")(lambda v: None if v is None else _ocid("computecluster", v))


class Eviction(_Model):
    """How OKE drains a node it deletes or cycles (OCI ``NodeEvictionNodePoolSettings``).

    ``graceDuration``: ISO 8601 minutes, ``PT0M`` (delete without cordon and drain) to ``PT60M`` (OCI's default).
    ``forceActionAfterGraceDuration``: go on with the node action when pods are still running after the grace.
    ``forceDeleteAfterGraceDuration``: delete the instance when pods could not all be evicted.
    """

    grace_duration: str = "PT60M"
    force_action_after_grace_duration: bool = False
    force_delete_after_grace_duration: bool = False

    @field_validator("grace_duration")
    @classmethod
    def _duration(cls, v: str) -> str:
        m = _DURATION_RE.match(v)
        if not m or int(m.group(1)) > MAX_EVICTION_GRACE_MINUTES:
            raise ValueError(f"must be an ISO 8601 duration in minutes from PT0M to PT{MAX_EVICTION_GRACE_MINUTES}M, "
                             f"got {v!r}")
        return v


class Cycling(_Model):
    """Node cycling on upgrades (OCI ``NodePoolCyclingDetails``; enhanced clusters only).

    When ``enabled``, a change to the pool's node properties (version, image, shape, boot volume, metadata, ...)
    replaces the existing nodes, at most ``maxSurge`` extra nodes and ``maxUnavailable`` missing nodes at a time.
    Each is a node count (``"1"``, or the number ``1``) or a percentage of the pool (``"25%"``); OCI defaults are 1
    and 0; at least one
    must be above 0. For RDMA pools, surge nodes need free capacity in the Compute Cluster's fabric.
    """

    enabled: bool = False
    max_surge: str = "1"
    max_unavailable: str = "0"

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

    preserve_boot_volume: bool = False


class LocalNvme(_Model):
    """The pool's local NVMe drives as one RAID 0 file system on every node (``nodePools.<p>.localNvme``).

    ``mountPath``: an absolute path on the node (default ``/mnt/nvme``); ``filesystem``: ``ext4`` or ``xfs``. Built by
    the node's cloud-init before OKE's bootstrap (``oke_rdma.node_init``); a shape without NVMe drives is refused.
    """

    enabled: bool = False
    mount_path: str = "/mnt/nvme"
    filesystem: Literal["ext4", "xfs"] = "ext4"

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

    shape: str
    size: int = Field(ge=0, le=1000)
    image_id: str
    ocpus: Optional[float] = Field(default=None, gt=0)
    memory_gb: Optional[float] = Field(default=None, gt=0)
    boot_volume_gb: int = Field(default=100, ge=MIN_BOOT_VOLUME_GB, le=32768)
    max_pods_per_node: int = Field(default=31, ge=1, le=110)
    availability_domains: StrList = ()
    fault_domains: StrList = ()
    labels: dict[str, str] = Field(default_factory=dict)
    rdma: bool = False
    allow_unlisted_rdma_shape: bool = False
    #: GPUs per node, for a shape not in :data:`GPUS_PER_SHAPE` (Kueue quotas and flavors need it); for a shape in
    #: it, only the same count is accepted.
    gpus_per_node: Optional[int] = Field(default=None, ge=0, le=16)
    kubernetes_version: Optional[str] = None
    eviction: Eviction = Eviction()
    cycling: Cycling = Cycling()
    are_legacy_imds_endpoints_disabled: bool = True
    is_pv_encryption_in_transit_enabled: bool = True
    preemptible: Optional[Preemptible] = None
    local_nvme: LocalNvme = LocalNvme()

    _image = field_validator("image_id")(lambda v: _ocid("image", v))
    _labels = field_validator("labels")(lambda v: _k8s_labels(v))

    @field_validator("kubernetes_version")
    @classmethod
    def _version(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and not _K8S_VERSION_RE.match(v):
            raise ValueError(f"must be an OKE Kubernetes version like v1.34.1, got {v!r}")
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
            raise ValueError(f"must be an OCI shape name like VM.Standard.E5.Flex or BM.GPU.H100.8, got {v!r}")
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
