"""JobSet (kubernetes-sigs): a group of Jobs run as one unit (leader and workers, stable hostnames), the API
Kubeflow Trainer builds on and a kind Kueue admits as one workload (``jobset.x-k8s.io/jobset``).

Off by default. With Kubeflow Trainer on (``platform.trainer``), Trainer's chart brings its own JobSet (a subchart);
turning this add-on on as well makes Trainer use this release instead (``jobset.install: false``) so one JobSet
controller runs. Namespace Pod Security ``baseline`` (its controller's compliance with ``restricted`` was not checked
at this version).

Sources: kubernetes-sigs/jobset charts/jobset (OCI chart ``oci://registry.k8s.io/jobset/charts/jobset``; the
``jobset.x-k8s.io`` CRD in ``crds/``); kubeflow/trainer charts/kubeflow-trainer/Chart.yaml at 2.3.0 (JobSet 0.12.0 as a
dependency with the condition ``jobset.install``); Kueue docs "Run A JobSet" and kueue chart values
(``integrations.frameworks`` lists ``jobset.x-k8s.io/jobset``) — checked 2026-11-30.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import Field

from oke_rdma.addons._registry import BASELINE, AddOn, HelmRelease, ValuesContext

#: The Kueue integrations this add-on's kinds need (Kueue's ``integrations.frameworks`` names).
KUEUE_FRAMEWORKS = ("jobset.x-k8s.io/jobset",)


class JobSetRelease(HelmRelease):
    """JobSet, default 0.12.0 in ``jobset-system``; off unless enabled."""

    enabled: bool = Field(False, description="Install the release (off by default).")
    # renovate: datasource=docker depName=registry.k8s.io/jobset/charts/jobset
    version: str = Field("0.12.0", description="Exact JobSet chart version.")
    namespace: str = Field("jobset-system", description="Namespace of the JobSet.")
    crds_applied: Optional[str] = Field(default=None, description=(
        "The chart version whose CRDs you applied server-side before moving `version` to it (Helm never upgrades a "
        "chart's crds/; the offline preview refuses a version change until this names the new version)."))


def values(cfg: JobSetRelease, context: ValuesContext) -> dict[str, Any]:
    """The chart's defaults."""
    return {}


ADDON = AddOn(
    key="jobset",
    release_name="jobset",
    chart="oci://registry.k8s.io/jobset/charts/jobset",
    repository=None,
    config=JobSetRelease,
    pod_security=BASELINE,
    values=values,
    crds=("jobset.x-k8s.io",),
    kueue_frameworks=KUEUE_FRAMEWORKS,
    source="kubernetes-sigs/jobset charts/jobset; kubeflow/trainer 2.3.0 Chart.yaml; Kueue docs Run A JobSet; "
           "checked 2026-11-30",
)
