"""In-cluster platform config: the four pinned Helm releases (defaults: docs/architecture.md), their extra Helm values,
Prometheus retention and storage, the Grafana admin password, Kueue's topology levels and the optional RDMA
topology labeler, and the cross-field rules that keep the platform working (``check_platform``).

Sources: NVIDIA GPU Operator docs "Installing the NVIDIA GPU Operator" (pre-installed drivers:
``driver.enabled=false``); OKE docs "Running Applications on GPU-based Nodes" (the
``oci.oraclecloud.com/disable-gpu-device-plugin`` node label);
Kueue docs "Topology Aware Scheduling" (the lowest level must be ``kubernetes.io/hostname``; every level's label must
be on the nodes); oracle-quickstart/oci-hpc-oke "Using RDMA Network Locality When Running Workloads on OKE" (the
``oci.oraclecloud.com/rdma.*`` labels); OCI Compute docs "Compute Shapes" (GPUs per bare metal GPU shape); Block
Volume docs (50 GB minimum volume); Helm docs "Values Files" / "Chart Development Tips" (values merge map by map, a
``null`` deletes a key so the chart's default returns, and templates test truthiness: any non-empty string is
true); Kubernetes docs "Namespaces" (the initial, reserved namespaces).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Optional

from pydantic import Field, field_validator

from ._base import _EXACT_VERSION_RE, RESERVED_NAMESPACES, StrList, _k8s_name, _key, _Model

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


#: Release → (Helm values path, shape) for the values oke-rdma sets or reads (``oke_rdma.platform.release_values``):
#: a user's ``values`` must keep that shape there. "map": a non-map would replace every value oke-rdma sets below it
#: (Helm merges maps only) and ``null`` would delete the section, bringing the chart's defaults back; "bool": Helm
#: templates treat any non-empty string (``"false"`` included) as true; "false": the boolean false only.
VALUE_SHAPES: dict[str, tuple[tuple[tuple[str, ...], str], ...]] = {
    "kubePrometheusStack": (
        (("prometheus",), "map"), (("prometheus", "prometheusSpec"), "map"),
        (("prometheus", "prometheusSpec", "storageSpec"), "map"), (("grafana",), "map"), (("grafana", "admin"), "map"),
    ),
    "gpuOperator": (
        (("driver",), "map"), (("driver", "enabled"), "false"), (("cdi",), "map"), (("cdi", "enabled"), "bool"),
        (("devicePlugin",), "map"), (("devicePlugin", "enabled"), "bool"), (("dcgmExporter",), "map"),
        (("dcgmExporter", "serviceMonitor"), "map"), (("dcgmExporter", "serviceMonitor", "enabled"), "bool"),
        (("daemonsets",), "map"), (("daemonsets", "tolerations"), "list"), (("node-feature-discovery",), "map"),
        (("node-feature-discovery", "worker"), "map"), (("node-feature-discovery", "worker", "tolerations"), "list"),
    ),
    "kueue": ((("enablePrometheus",), "bool"),),
}
#: Keys under ``kubePrometheusStack.values.grafana`` that hold a password (``adminPassword``,
#: ``grafana.ini.security.admin_password``, ``...password``, ``...passwd``); ``passwordKey`` names a Secret key and
#: is fine.
_PASSWORD_KEY_RE = re.compile(r"pass(word|wd)$", re.IGNORECASE)


def _shown(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    return "a list" if isinstance(value, list) else "a map"


def _shape_problem(at: tuple[str, ...], value: Any, shape: str) -> Optional[str]:
    key = _key(at)
    name = at[-1]
    if shape == "map" and not isinstance(value, dict):
        why = ("null deletes the chart's whole section, so its defaults come back and oke-rdma's settings there are "
               "lost" if value is None else
               "anything but a map replaces every value oke-rdma sets there (Helm merges maps only)")
        example = "enabled: false" if name in ("driver", "devicePlugin") else "key: value"
        return f"{key}: expected a map (like {name}: {{{example}}}), got {_shown(value)}; {why}: write it as a map " \
               f"or remove it"
    if shape == "list" and not isinstance(value, list):
        return f"{key}: expected a list, got {_shown(value)}; write it as a YAML list or remove it"
    if shape in ("bool", "false") and not isinstance(value, bool):
        fix = "write false or remove it" if shape == "false" else "write true or false without quotes"
        return (f"{key}: expected {'the boolean false' if shape == 'false' else 'true or false'}, got {_shown(value)}; "
                f"Helm templates treat any non-empty text (even 'false') as true: {fix}")
    return None


def _password_paths(value: Any, at: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Key paths below ``at`` whose key names a password and whose value is not empty."""
    found: list[tuple[str, ...]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if _PASSWORD_KEY_RE.search(str(k)) and v not in (None, ""):
                found.append(at + (str(k),))
            else:
                found += _password_paths(v, at + (str(k),))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _password_paths(v, at + (str(i),))
    return found


def values_problems(release: str, values: dict[str, Any]) -> list[str]:
    """Helm values of ``platform.<release>.values`` that would bypass the platform's settings: a section oke-rdma
    sets that is not a map, a flag that is not a boolean, ``gpuOperator`` ``driver.enabled`` not false, and a password
    under ``kubePrometheusStack`` ``grafana`` in plain text."""
    problems: list[str] = []
    base = ("platform", release, "values")
    for path, shape in VALUE_SHAPES.get(release, ()):
        parent = _get(values, *path[:-1]) if len(path) > 1 else values
        if not isinstance(parent, dict) or path[-1] not in parent:
            continue  # absent, or below a section already refused
        value = parent[path[-1]]
        if shape == "false" and value is True:
            problems.append(f"{_key(base + path)}: OKE GPU images ship the NVIDIA driver (and OFED), a driver "
                            f"container would conflict with it; remove it or set false")
            continue
        problem = _shape_problem(base + path, value, shape)
        if problem:
            problems.append(problem)
    if release == "kubePrometheusStack":
        for at in _password_paths(values.get("grafana"), base + ("grafana",)):
            problems.append(f"{_key(at)}: a password in plain-text Helm values (readable in the stack config and the "
                            f"Helm release); remove it and set the Grafana admin password as a Pulumi secret with "
                            f"pulumi config set --path --secret "
                            f"'oke-rdma:platform.kubePrometheusStack.grafanaAdminPassword' <password> (other Grafana "
                            f"credentials: reference a Kubernetes Secret, e.g. grafana.envFromSecret)")
    return problems


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

    enabled: bool = Field(True, description="Install the release.")
    version: str = Field(description="Exact chart version (no ranges).")
    namespace: str = Field(description="Namespace of the release (a Kubernetes name, never a reserved one).")
    values: dict[str, Any] = Field(default_factory=dict, description=(
        "Extra Helm values deep-merged over oke-rdma's (maps merge, lists replace); values that would break the "
        "platform are refused."))

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

    version: str = Field("87.2.1", description="Exact kube-prometheus-stack chart version.")
    namespace: str = Field("monitoring", description="Namespace of kube-prometheus-stack.")
    grafana_admin_password: Optional[str] = Field(default=None, json_schema_extra={"secret": True}, description=(
        "Grafana's admin password, a Pulumi secret (`pulumi config set --path --secret`, at least 12 characters);"
        " kept in a Kubernetes Secret, never in Helm values; absent: Grafana generates a random one (read it with "
        "`kubectl -n monitoring get secret kube-prometheus-stack-grafana -o jsonpath='{.data.admin-password}'`)."))
    retention: str = Field("15d", description=(
        "How long Prometheus keeps samples, a Prometheus duration like `15d` or `12h`."))
    retention_size_gb: Optional[int] = Field(default=None, gt=0, description=(
        "Size cap of Prometheus data in GB; must fit in `storageGb` with 10 % headroom."))
    storage_gb: int = Field(default=100, ge=MIN_BLOCK_VOLUME_GB, le=32768, description=(
        "Prometheus volume in GB (at least 50, OCI's smallest block volume)."))
    storage_class: str = Field("oci-bv", description=(
        "StorageClass of the Prometheus volume (`oci-bv`: OKE's CSI block volumes)."))

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

    version: str = Field("v25.10.1", description="Exact NVIDIA GPU Operator chart version.")
    namespace: str = Field("gpu-operator", description="Namespace of the GPU Operator.")

    @property
    def device_plugin(self) -> bool:
        """True when the operator runs its device plugin (enabled, and ``values.devicePlugin.enabled`` not false)."""
        return self.enabled and _get(self.values, "devicePlugin", "enabled") is not False


class TopologyLabeler(_Model):
    """The optional DaemonSet that labels RDMA nodes from the instance metadata's ``rdmaTopologyData``.

    ``image``: a pinned Python image (tag or digest, never ``latest``); ``namespace``: its own namespace (Pod
    Security ``privileged``: it uses hostNetwork to reach the node's instance metadata).
    """

    enabled: bool = Field(False, description="Run the RDMA topology labeler DaemonSet (docs/scheduling.md).")
    image: str = Field("docker.io/library/python:3.12.10-slim-bookworm", description=(
        "The labeler's image, pinned by tag or digest."))
    namespace: str = Field("oke-rdma-topology", description=(
        "The labeler's namespace (Pod Security `privileged`: hostNetwork)."))

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

    version: str = Field("0.18.2", description="Exact Kueue chart version.")
    namespace: str = Field("kueue-system", description="Namespace of Kueue.")
    topology_levels: StrList = Field(RDMA_TOPOLOGY_LEVELS, description=(
        "Node labels of the Kueue Topology, coarse to fine; must end with `kubernetes.io/hostname`."))
    topology_labeler: TopologyLabeler = Field(TopologyLabeler(), description=(
        "The RDMA topology labeler, for nodes OKE did not label."))

    @field_validator("topology_levels")
    @classmethod
    def _levels(cls, v: StrList) -> StrList:
        bad = [level for level in v if not _LABEL_KEY_RE.match(level)]
        if bad:
            raise ValueError(f"must be Kubernetes label keys, got {bad}")
        if len(set(v)) != len(v):
            raise ValueError("lists a label twice; each level is a different node label")
        if not v or v[-1] != HOSTNAME_LABEL:
            fix = (f"move {HOSTNAME_LABEL} to the last level" if HOSTNAME_LABEL in v else f"append {HOSTNAME_LABEL}")
            raise ValueError(f"must end with {HOSTNAME_LABEL} (Kueue requires the hostname as the last, finest level), "
                             f"got {list(v)}; {fix}")
        return v


class KedaRelease(HelmRelease):
    """KEDA (kedacore), default 2.20.2 in ``keda``."""

    version: str = Field("2.20.2", description="Exact KEDA chart version.")
    namespace: str = Field("keda", description="Namespace of KEDA.")


class Platform(_Model):
    """The in-cluster platform: the four pinned Helm releases (defaults in docs/configuration.md)."""

    kube_prometheus_stack: KubePrometheusStackRelease = Field(KubePrometheusStackRelease(), description=(
        "kube-prometheus-stack (prometheus-community)."))
    gpu_operator: GpuOperatorRelease = Field(GpuOperatorRelease(), description=(
        "NVIDIA GPU Operator (never installs a driver: OKE GPU images ship it)."))
    kueue: KueueRelease = Field(KueueRelease(), description=(
        "Kueue with topology-aware scheduling over the RDMA pools."))
    keda: KedaRelease = Field(KedaRelease(), description="KEDA.")

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

    * ``gpuOperator.values.driver.enabled`` other than the boolean false — OKE GPU images ship the NVIDIA driver; a
      second driver container fights it (NVIDIA docs, pre-installed drivers); and every other value of
      :func:`values_problems` (sections oke-rdma sets keep their shape; no Grafana password in plain text).
    * a release (or the topology labeler) in a reserved namespace (``kube-system``, ``kube-public``,
      ``kube-node-lease``, ``default``).
    * The operator's device plugin off while a GPU pool disables OKE's plugin (label ``true``): nothing would
      advertise ``nvidia.com/gpu`` on those nodes.
    * The operator's device plugin on while a GPU pool's labels force OKE's plugin on (label ``false``): both would
      advertise the same GPUs.
    * ``retentionSizeGb`` must fit in ``storageGb`` with 10 % headroom (Prometheus needs room for the WAL).
    """
    p = cfg.platform
    problems: list[str] = []
    for field, info in Platform.model_fields.items():
        release = getattr(p, field)
        alias = info.alias or field
        problems += values_problems(alias, release.values)
        if release.namespace in RESERVED_NAMESPACES:
            problems.append(f"{_key(('platform', alias, 'namespace'))}: {release.namespace!r} is a namespace "
                            f"Kubernetes reserves for itself (Kubernetes docs, Namespaces); install the release in "
                            f"its own, like the default {type(release).model_fields['namespace'].default!r}")
    labeler = p.kueue.topology_labeler
    if labeler.namespace in RESERVED_NAMESPACES:
        problems.append(f"{_key(('platform', 'kueue', 'topologyLabeler', 'namespace'))}: {labeler.namespace!r} is a "
                        f"namespace Kubernetes reserves for itself (Kubernetes docs, Namespaces); use its own, like "
                        f"the default {TopologyLabeler.model_fields['namespace'].default!r}")
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
