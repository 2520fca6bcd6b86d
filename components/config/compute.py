"""Cluster, Compute Cluster and node pool config, and the placement rules OCI enforces.

Sources: OKE docs, "Using Compute Clusters to Provision Managed Nodes" (contengusingcomputeclusters.htm); Compute
docs, "Compute Clusters" (supported shapes); Block Volume docs, "Boot Volumes".
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal, Optional

from pydantic import Field, field_validator

from ._base import _FD_RE, _K8S_NAME_RE, _K8S_VERSION_RE, StrList, _cidr, _key, _Model, _ocid

if TYPE_CHECKING:
    from .stack import StackConfig

#: Shapes Oracle lists as supporting RDMA cluster networking in Compute Clusters (Compute docs, "Compute Clusters").
RDMA_SHAPES = frozenset({
    "BM.GPU.H100.8", "BM.GPU.A100-v2.8", "BM.GPU4.8", "BM.GPU.GB200.4", "BM.HPC2.36", "BM.Optimized3.36",
})
#: Smallest boot volume OCI accepts, in GB (Block Volume docs, "Boot Volumes").
MIN_BOOT_VOLUME_GB = 50

class Cluster(_Model):
    """The enhanced OKE cluster (``ENHANCED_CLUSTER``, VCN-native pod networking)."""

    kubernetes_version: str
    services_cidr: str = "10.96.0.0/16"
    cni_type: Literal["OCI_VCN_IP_NATIVE", "FLANNEL_OVERLAY"] = "OCI_VCN_IP_NATIVE"

    _svc = field_validator("services_cidr")(lambda v: _cidr(v))

    @field_validator("kubernetes_version")
    @classmethod
    def _version(cls, v: str) -> str:
        if not _K8S_VERSION_RE.match(v):
            raise ValueError(f"must be an OKE Kubernetes version like v1.34.1, got {v!r}")
        return v


class ComputeCluster(_Model):
    """The OCI Compute Cluster RDMA pools join: created in ``availabilityDomain``, or an existing ACTIVE one."""

    availability_domain: str
    existing_id: Optional[str] = None

    _ocid = field_validator("existing_id")(lambda v: None if v is None else _ocid("computecluster", v))


class NodePool(_Model):
    """One OKE managed node pool. Sizes: ``ocpus`` (count), ``memoryGb`` and ``bootVolumeGb`` in GB."""

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

    _image = field_validator("image_id")(lambda v: _ocid("image", v))

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
    def is_flex(self) -> bool:
        """True for Flex shapes, which need ``ocpus`` and ``memoryGb``."""
        return self.shape.endswith(".Flex")


def check_pools(cfg: StackConfig) -> list[str]:
    problems: list[str] = []
    ads = set(cfg.availability_domains)
    cc = cfg.compute_cluster
    if cc is not None and cc.availability_domain not in ads:
        problems.append(f"{_key(('computeCluster', 'availabilityDomain'))}: {cc.availability_domain!r} is not in "
                        f"oke-rdma:availabilityDomains; add it there or pick one of {sorted(ads)}")
    for name, pool in cfg.node_pools.items():
        at = ("nodePools", name)
        if not _K8S_NAME_RE.match(name):
            problems.append(f"{_key(at)}: the pool name must be lowercase letters, digits and '-'; rename it")
        for ad in pool.availability_domains:
            if ad not in ads:
                problems.append(f"{_key(at + ('availabilityDomains',))}: {ad!r} is not in "
                                f"oke-rdma:availabilityDomains; add it there or remove it here")
        if pool.is_flex and (pool.ocpus is None or pool.memory_gb is None):
            problems.append(f"{_key(at + ('ocpus' if pool.ocpus is None else 'memoryGb',))}: required for the "
                            f"Flex shape {pool.shape}; set ocpus and memoryGb")
        if not pool.is_flex and (pool.ocpus is not None or pool.memory_gb is not None):
            problems.append(f"{_key(at + ('ocpus' if pool.ocpus is not None else 'memoryGb',))}: only Flex shapes "
                            f"take ocpus/memoryGb; {pool.shape} has a fixed size, remove them")
        if not pool.rdma:
            continue
        # OKE docs, "Using Compute Clusters to Provision Managed Nodes".
        if pool.fault_domains:
            problems.append(f"{_key(at + ('faultDomains',))}: must be empty for a node pool in a Compute Cluster "
                            f"(OCI places nodes itself); remove it")
        if pool.shape not in RDMA_SHAPES:
            problems.append(f"{_key(at + ('shape',))}: {pool.shape} is not a shape Oracle lists for RDMA in Compute "
                            f"Clusters ({', '.join(sorted(RDMA_SHAPES))}); pick one or set rdma: false")
        if cc is None:
            problems.append(f"{_key(at + ('rdma',))}: an RDMA pool needs oke-rdma:computeCluster "
                            f"(availabilityDomain, or existingId of an ACTIVE Compute Cluster); add it")
        elif pool.availability_domains and tuple(pool.availability_domains) != (cc.availability_domain,):
            problems.append(f"{_key(at + ('availabilityDomains',))}: an RDMA pool has exactly one placement, in the "
                            f"Compute Cluster's availability domain {cc.availability_domain!r}; remove the others")
    return problems
