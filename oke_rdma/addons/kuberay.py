"""KubeRay operator: Ray clusters and jobs on Kubernetes (``RayCluster``, ``RayJob``, ``RayService``); Kueue admits
RayJobs and RayClusters as workloads (``ray.io/rayjob``, ``ray.io/raycluster``).

Off by default. Installed into its own namespace ``ray-system`` (the Ray docs advise a dedicated namespace so the
operator's service account is apart from workload pods). Namespace Pod Security ``baseline`` (its compliance with
``restricted`` was not checked at this version).

Sources: Ray docs "KubeRay Operator Installation" (Helm repository ``https://ray-project.github.io/kuberay-helm/``,
chart ``kuberay-operator`` 1.7.0, namespace ``ray-system``; the chart installs the ``ray.io`` CRDs); Kueue docs "Run
a RayJob"/"Run a RayCluster" and kueue chart values (``ray.io/rayjob``, ``ray.io/raycluster`` in
``integrations.frameworks``) — checked 2026-11-30.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import Field

from oke_rdma.addons._registry import BASELINE, AddOn, HelmRelease, ValuesContext

#: The Kueue integrations this add-on's kinds need (Kueue's ``integrations.frameworks`` names).
KUEUE_FRAMEWORKS = ("ray.io/rayjob", "ray.io/raycluster", "ray.io/rayservice")


class KubeRayRelease(HelmRelease):
    """KubeRay operator, default 1.7.0 in ``ray-system``; off unless enabled."""

    enabled: bool = Field(False, description="Install the release (off by default).")
    # renovate: datasource=helm depName=kuberay-operator registryUrl=https://ray-project.github.io/kuberay-helm
    version: str = Field("1.7.0", description="Exact KubeRay operator chart version.")
    namespace: str = Field("ray-system", description="Namespace of the KubeRay operator.")
    crds_applied: Optional[str] = Field(default=None, description=(
        "The chart version whose CRDs you applied server-side before moving `version` to it (Helm never upgrades a "
        "chart's crds/; the offline preview refuses a version change until this names the new version)."))


def values(cfg: KubeRayRelease, context: ValuesContext) -> dict[str, Any]:
    """The chart's defaults."""
    return {}


ADDON = AddOn(
    key="kuberay",
    release_name="kuberay-operator",
    chart="kuberay-operator",
    repository="https://ray-project.github.io/kuberay-helm",
    config=KubeRayRelease,
    pod_security=BASELINE,
    values=values,
    crds=("ray.io",),
    # RayJobs, so the operator stops the Ray job before deletion (ray-project/kuberay ray-operator/controllers/ray/
    # utils/constant.go RayJobStopJobFinalizer; checked 2026-12-02).
    finalizers=("ray.io/rayjob-finalizer",),
    kueue_frameworks=KUEUE_FRAMEWORKS,
    source="Ray docs KubeRay Operator Installation (kuberay-operator 1.7.0); Kueue docs; checked 2026-11-30",
)
