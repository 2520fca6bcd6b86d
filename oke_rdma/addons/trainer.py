"""Kubeflow Trainer (v2): one ``TrainJob`` API for distributed PyTorch, DeepSpeed (over MPI), JAX and other
frameworks, run as JobSets; Kueue admits a TrainJob as one workload (``trainer.kubeflow.org/trainjob``) in the
tenant's LocalQueue, with topology-aware placement.

Off by default. Its chart installs JobSet as a subchart unless the ``jobset`` add-on is on, in which case Trainer
waits for that release and ``jobset.install`` is false (two JobSet controllers must never run). The built-in
``ClusterTrainingRuntime`` templates stay off (the chart's default); turn them on with
``platform.trainer.values.runtimes``. Namespace Pod Security ``restricted``: the manager's security context in the
chart's values drops every capability, runs as non-root with the RuntimeDefault seccomp profile.

Sources: Kubeflow docs "Kubeflow Trainer: Installation" (Helm OCI chart ``oci://ghcr.io/kubeflow/charts/
kubeflow-trainer``, namespace ``kubeflow-system``, Kubernetes >= 1.31); kubeflow/trainer release v2.3.0 notes (CRDs
moved into the chart's templates, so ``helm upgrade`` now upgrades them; upgrade to 2.3 before any later version);
charts/kubeflow-trainer values.yaml (``jobset.install``, ``manager.securityContext``, ``runtimes.*``); kueue chart
values (``trainer.kubeflow.org/trainjob`` in ``integrations.frameworks``) — checked 2026-11-30.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from oke_rdma.addons._registry import RESTRICTED, AddOn, HelmRelease, ValuesContext

#: The Kueue integrations this add-on's kinds need (Kueue's ``integrations.frameworks`` names). The JobSets a
#: TrainJob creates are admitted through the TrainJob, not on their own; ``jobset.x-k8s.io/jobset`` is listed because
#: Trainer always runs a JobSet controller (its subchart, or the ``jobset`` add-on's), so a JobSet a tenant creates
#: directly must queue too.
KUEUE_FRAMEWORKS = ("trainer.kubeflow.org/trainjob", "jobset.x-k8s.io/jobset")


class TrainerRelease(HelmRelease):
    """Kubeflow Trainer, default 2.3.0 in ``kubeflow-system``; off unless enabled."""

    enabled: bool = Field(False, description="Install the release (off by default).")
    # renovate: datasource=docker depName=ghcr.io/kubeflow/charts/kubeflow-trainer
    version: str = Field("2.3.0", description="Exact Kubeflow Trainer chart version.")
    namespace: str = Field("kubeflow-system", description="Namespace of the Kubeflow Trainer.")


def values(cfg: TrainerRelease, context: ValuesContext) -> dict[str, Any]:
    """JobSet from this chart unless the ``jobset`` add-on runs it."""
    return {"jobset": {"install": "jobset" not in context.enabled}}


ADDON = AddOn(
    key="trainer",
    release_name="kubeflow-trainer",
    chart="oci://ghcr.io/kubeflow/charts/kubeflow-trainer",
    repository=None,
    config=TrainerRelease,
    pod_security=RESTRICTED,
    values=values,
    after=("jobset", "kubePrometheusStack"),
    crds=("trainer.kubeflow.org",),
    value_shapes=((("jobset",), "map"), (("jobset", "install"), "bool")),
    kueue_frameworks=KUEUE_FRAMEWORKS,
    source="Kubeflow Trainer docs Installation; kubeflow/trainer v2.3.0 release notes and chart; kueue chart values; "
           "checked 2026-11-30",
)
