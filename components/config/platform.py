"""In-cluster platform config: the four pinned Helm releases (DESIGN.md §3 defaults), their extra Helm values,
Prometheus retention and storage, the Grafana admin password, Kueue's topology levels and the optional RDMA
topology labeler, and the cross-field rules that keep the platform working (``check_platform``).

Sources: NVIDIA GPU Operator docs "Installing the NVIDIA GPU Operator" (pre-installed drivers:
``driver.enabled=false``); OKE docs "Running Applications on GPU-based Nodes" (the
``oci.oraclecloud.com/disable-gpu-device-plugin`` node label);
Kueue docs "Topology Aware Scheduling" (the lowest level must be ``kubernetes.io/hostname``; every level's label must
be on the nodes); oracle-quickstart/oci-hpc-oke "Using RDMA Network Locality When Running Workloads on OKE" (the
``oci.oraclecloud.com/rdma.*`` labels); OCI Compute docs "Compute Shapes" (GPUs per bare metal GPU shape); Block
Volume docs (50 GB minimum volume).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Optional

from pydantic import Field, field_validator

from ._base import _EXACT_VERSION_RE, StrList, _k8s_name, _key, _Model

if TYPE_CHECKING:
    from .stack import StackConfig

#: OKE runs its own NVIDIA device plugin on GPU nodes unless they carry this label set to "true"
#: (OKE docs, "Running Applications on GPU-based Nodes").
OKE_DEVICE_PLUGIN_LABEL = "oci.oraclecloud.com/disable-gpu-device-plugin"
HOSTNAME_LABEL = "kubernetes.io/hostname"
#: OCI's RDMA network tiers, coarse to fine, as OKE labels nodes (oci-hpc-oke, "Using RDMA Network Locality").
RDMA_TOPOLOGY_LEVELS = (
    "oci.oraclecloud.com/rdma.hpc_island_id",
    "oci.oraclecloud.com/rdma.network_block_id",
    "oci.oraclecloud.com/rdma.local_block_id",
    HOSTNAME_LABEL,
)
#: Smallest block volume OCI creates, in GB (Block Volume docs) — the floor of Prometheus' volume.
MIN_BLOCK_VOLUME_GB = 50
_LABEL_KEY_RE = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                           r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
_DURATION_RE = re.compile(r"^([0-9]+(y|w|d|h|m|s|ms))+$")  # Prometheus duration, e.g. 15d, 12h30m
_IMAGE_RE = re.compile(r"^[a-z0-9.-]+(:[0-9]+)?/[a-z0-9._/-]+(:[A-Za-z0-9._-]+|@sha256:[a-f0-9]{64})$")


def _get(values: dict[str, Any], *path: str) -> Any:
    """``values[a][b]...`` or None when a step is missing or not a map."""
    cur: Any = values
    for p in path:
        if not isinstance(cur, dict) or p not in cur:
            return None
        cur = cur[p]
    return cur


class HelmRelease(_Model):
    """One pinned Helm release: exact chart ``version`` (no ranges) installed into ``namespace``.

    ``values``: free-form Helm values deep-merged over the ones oke-rdma sets (maps merge key by key; any other
    value, lists included, replaces ours). Values that would break the platform are refused by ``check_platform``.
    """

    enabled: bool = True
    version: str
    namespace: str
    values: dict[str, Any] = Field(default_factory=dict)

    @field_validator("version")
    @classmethod
    def _exact(cls, v: str) -> str:
        if not _EXACT_VERSION_RE.match(v):
            raise ValueError(f"must be an exact chart version like 1.2.3 (no ranges or 'latest'), got {v!r}")
        return v

    _ns = field_validator("namespace")(lambda v: _k8s_name(v))


class KubePrometheusStackRelease(HelmRelease):
    """kube-prometheus-stack (prometheus-community), default 87.2.1 in ``monitoring``.

    ``retention`` (Prometheus duration, ``15d``), ``retentionSizeGb`` (GB kept before the oldest blocks are
    dropped; must leave headroom in the volume), ``storageGb`` (the Prometheus volume, GB, at least 50: OCI's
    smallest block volume), ``storageClass`` (``oci-bv``: OKE's CSI block volume class).
    ``grafanaAdminPassword``: a **secret** (``pulumi config set --secret``); stored in a Kubernetes Secret Grafana
    reads, never in Helm values. Without it Grafana generates a random one (never the chart's well-known default).
    """

    version: str = "87.2.1"
    namespace: str = "monitoring"
    grafana_admin_password: Optional[str] = Field(default=None, json_schema_extra={"secret": True})
    retention: str = "15d"
    retention_size_gb: Optional[int] = Field(default=None, gt=0)
    storage_gb: int = Field(default=100, ge=MIN_BLOCK_VOLUME_GB, le=32768)
    storage_class: str = "oci-bv"

    @field_validator("retention")
    @classmethod
    def _duration(cls, v: str) -> str:
        if not _DURATION_RE.match(v):
            raise ValueError(f"must be a Prometheus duration like 15d or 12h, got {v!r}")
        return v

    @field_validator("grafana_admin_password")
    @classmethod
    def _password(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and len(v) < 12:
            # Never echo the value (nor its length): it is a secret.
            raise ValueError("expected a password of at least 12 characters, got a shorter one (not shown); choose "
                             "a longer one and set it with pulumi config set --path --secret")
        return v

    _sc = field_validator("storage_class")(lambda v: _k8s_name(v))


class GpuOperatorRelease(HelmRelease):
    """NVIDIA GPU Operator, default v25.10.1 in ``gpu-operator``."""

    version: str = "v25.10.1"
    namespace: str = "gpu-operator"

    @property
    def device_plugin(self) -> bool:
        """True when the operator runs its device plugin (enabled, and ``values.devicePlugin.enabled`` not false)."""
        return self.enabled and _get(self.values, "devicePlugin", "enabled") is not False


class TopologyLabeler(_Model):
    """The optional DaemonSet that labels RDMA nodes from the instance metadata's ``rdmaTopologyData``.

    ``image``: a pinned Python image (tag or digest, never ``latest``); ``namespace``: its own namespace (Pod
    Security ``privileged``: it uses hostNetwork to reach the node's instance metadata).
    """

    enabled: bool = False
    image: str = "docker.io/library/python:3.12.10-slim-bookworm"
    namespace: str = "oke-rdma-topology"

    _ns = field_validator("namespace")(lambda v: _k8s_name(v))

    @field_validator("image")
    @classmethod
    def _pinned(cls, v: str) -> str:
        if not _IMAGE_RE.match(v) or v.endswith(":latest"):
            raise ValueError(f"must be a fully qualified image pinned by tag or digest "
                             f"(registry/repository:tag, not latest), got {v!r}")
        return v


class KueueRelease(HelmRelease):
    """Kueue (registry.k8s.io OCI chart), default 0.18.2 in ``kueue-system``.

    ``topologyLevels``: the node labels of the Kueue ``Topology``, coarse to fine; default OCI's RDMA tiers then
    ``kubernetes.io/hostname`` (which must be the lowest level). ``topologyLabeler``: see :class:`TopologyLabeler`.
    """

    version: str = "0.18.2"
    namespace: str = "kueue-system"
    topology_levels: StrList = RDMA_TOPOLOGY_LEVELS
    topology_labeler: TopologyLabeler = TopologyLabeler()

    @field_validator("topology_levels")
    @classmethod
    def _levels(cls, v: StrList) -> StrList:
        bad = [level for level in v if not _LABEL_KEY_RE.match(level)]
        if bad:
            raise ValueError(f"must be Kubernetes label keys, got {bad}")
        if len(set(v)) != len(v):
            raise ValueError("lists a label twice; each level is a different node label")
        if not v or v[-1] != HOSTNAME_LABEL:
            raise ValueError(f"must end with {HOSTNAME_LABEL} (Kueue requires the hostname as the lowest level), "
                             f"got {list(v)}; append {HOSTNAME_LABEL}")
        return v


class KedaRelease(HelmRelease):
    """KEDA (kedacore), default 2.20.2 in ``keda``."""

    version: str = "2.20.2"
    namespace: str = "keda"


class Platform(_Model):
    """The in-cluster platform: the four pinned Helm releases (DESIGN.md §3 defaults)."""

    kube_prometheus_stack: KubePrometheusStackRelease = KubePrometheusStackRelease()
    gpu_operator: GpuOperatorRelease = GpuOperatorRelease()
    kueue: KueueRelease = KueueRelease()
    keda: KedaRelease = KedaRelease()

    @property
    def operator_device_plugin(self) -> bool:
        """True when the GPU Operator's device plugin advertises ``nvidia.com/gpu`` (so OKE's must be disabled)."""
        return self.gpu_operator.device_plugin


def is_gpu_shape(shape: str) -> bool:
    """True for NVIDIA GPU shapes (``VM.GPU*``, ``BM.GPU*``)."""
    parts = shape.split(".")
    return len(parts) > 1 and parts[1].startswith("GPU")


def check_platform(cfg: StackConfig) -> list[str]:
    """Values that break the platform, and the device-plugin rule (exactly one plugin per GPU node).

    * ``gpuOperator.values.driver.enabled: true`` — OKE GPU images ship the NVIDIA driver; a second driver
      container fights it (NVIDIA docs, pre-installed drivers).
    * The operator's device plugin off while a GPU pool disables OKE's plugin (label ``true``): nothing would
      advertise ``nvidia.com/gpu`` on those nodes.
    * The operator's device plugin on while a GPU pool's labels force OKE's plugin on (label ``false``): both would
      advertise the same GPUs.
    * ``retentionSizeGb`` must fit in ``storageGb`` with 10 % headroom (Prometheus needs room for the WAL).
    """
    p = cfg.platform
    problems: list[str] = []
    gpu_values = ("platform", "gpuOperator", "values")
    if p.gpu_operator.enabled and _get(p.gpu_operator.values, "driver", "enabled") is True:
        problems.append(f"{_key(gpu_values + ('driver', 'enabled'))}: OKE GPU images ship the NVIDIA driver (and "
                        f"OFED), a driver container would conflict with it; remove it or set false")
    operator_plugin = p.operator_device_plugin
    for name, pool in cfg.node_pools.items():
        if not is_gpu_shape(pool.shape):
            continue
        forced = pool.labels.get(OKE_DEVICE_PLUGIN_LABEL)
        at = _key(("nodePools", name, "labels", OKE_DEVICE_PLUGIN_LABEL))
        if forced == "true" and not operator_plugin:
            problems.append(f"{at}: disables OKE's device plugin but the GPU Operator's device plugin is off, so "
                            f"nothing advertises nvidia.com/gpu on these nodes; remove the label or enable "
                            f"platform.gpuOperator (values.devicePlugin.enabled)")
        if forced == "false" and operator_plugin:
            problems.append(f"{at}: keeps OKE's device plugin on while the GPU Operator runs its own, so two plugins "
                            f"advertise the same GPUs; remove the label (oke-rdma sets it to true) or set "
                            f"platform.gpuOperator.values.devicePlugin.enabled: false")
    kps = p.kube_prometheus_stack
    if kps.retention_size_gb is not None and kps.retention_size_gb > kps.storage_gb * 0.9:
        problems.append(f"{_key(('platform', 'kubePrometheusStack', 'retentionSizeGb'))}: {kps.retention_size_gb} GB "
                        f"does not fit in the {kps.storage_gb} GB volume with 10% headroom for the WAL; lower it "
                        f"or raise storageGb")
    return problems
