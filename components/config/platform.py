"""In-cluster platform config: the four pinned Helm releases (DESIGN.md §3 defaults)."""

from __future__ import annotations

from typing import Optional

from pydantic import Field, field_validator

from ._base import _EXACT_VERSION_RE, _k8s_name, _Model

class HelmRelease(_Model):
    """One pinned Helm release: exact chart ``version`` (no ranges) installed into ``namespace``."""

    enabled: bool = True
    version: str
    namespace: str

    @field_validator("version")
    @classmethod
    def _exact(cls, v: str) -> str:
        if not _EXACT_VERSION_RE.match(v):
            raise ValueError(f"must be an exact chart version like 1.2.3 (no ranges or 'latest'), got {v!r}")
        return v

    _ns = field_validator("namespace")(lambda v: _k8s_name(v))


class KubePrometheusStackRelease(HelmRelease):
    """kube-prometheus-stack (prometheus-community), default 87.2.1 in ``monitoring``."""

    version: str = "87.2.1"
    namespace: str = "monitoring"
    grafana_admin_password: Optional[str] = Field(default=None, json_schema_extra={"secret": True})


class GpuOperatorRelease(HelmRelease):
    """NVIDIA GPU Operator, default v25.10.1 in ``gpu-operator``."""

    version: str = "v25.10.1"
    namespace: str = "gpu-operator"


class KueueRelease(HelmRelease):
    """Kueue (registry.k8s.io OCI chart), default 0.18.2 in ``kueue-system``."""

    version: str = "0.18.2"
    namespace: str = "kueue-system"


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
