"""KEDA (kedacore): event-driven autoscaling (``ScaledObject``, ``ScaledJob``, ``TriggerAuthentication``).

Its CRDs are too large for client-side ``kubectl apply`` (the last-applied annotation exceeds 256 KiB); Helm creates
them without that annotation, so the Helm release is safe. Namespace Pod Security ``restricted``: the chart's pods
run as non-root with dropped capabilities and RuntimeDefault seccomp.

Sources: KEDA docs "Deploying KEDA" (Helm install, the ``keda.sh`` CRD group); kedacore/charts keda 2.20.2
values.yaml (securityContext defaults) — checked 2026-11-30.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from oke_rdma.addons._registry import RESTRICTED, AddOn, HelmRelease, ValuesContext


class KedaRelease(HelmRelease):
    """KEDA, default 2.20.2 in ``keda`` (tested by KEDA on Kubernetes 1.33–1.35)."""

    # renovate: datasource=helm depName=keda registryUrl=https://kedacore.github.io/charts
    version: str = Field("2.20.2", description="Exact KEDA chart version.")
    namespace: str = Field("keda", description="Namespace of KEDA.")


def values(cfg: KedaRelease, context: ValuesContext) -> dict[str, Any]:
    """None: the chart's defaults."""
    return {}


ADDON = AddOn(
    key="keda",
    release_name="keda",
    chart="keda",
    repository="https://kedacore.github.io/charts",
    config=KedaRelease,
    pod_security=RESTRICTED,
    values=values,
    crds=("keda.sh",),
    # ScaledObjects and ScaledJobs (kedacore/keda controllers/keda/scaledobject_finalizer.go, scaledjob_finalizer.go
    # @v2.20.2; checked 2026-12-02).
    finalizers=("finalizer.keda.sh",),
    source="KEDA docs, Deploying KEDA; kedacore/charts keda 2.20.2; checked 2026-11-30",
)
