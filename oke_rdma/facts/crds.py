"""How each add-on's CustomResourceDefinitions are installed and upgraded, as data: Helm installs a chart's ``crds/``
directory on the first install and never upgrades or deletes it (Helm docs "Custom Resource Definitions": "There is
no support at this time for upgrading or deleting CRDs using Helm"), so a plain ``version`` bump of such a chart would
leave the old CRDs serving the new controller. Every add-on whose chart or manifest ships CRDs has a row here (a test
fails for one that has none) saying which of these holds:

* ``templated``: the CRDs are templates of the chart, so ``helm upgrade`` (the release's update) upgrades them with
  the release; ``keep`` names the value that keeps them templated.
* ``chart-job``: the chart's own pre-upgrade hook Job applies the new CRDs server-side before the release's objects;
  ``keep`` names the value that turns the Job on (oke-rdma sets it; a user's other value is refused).
* ``manifest``: the CRDs are objects of the vendored release manifest, applied by Pulumi (server-side) with it: a new
  manifest version changes them in the plan.
* ``operator``: the add-on's own controller registers and upgrades its CRDs at startup (none in the chart): they move
  when the new controller starts (e.g. Cilium's operator).
* ``crds-dir``: only Helm's ``crds/`` directory: nothing upgrades them. A version change of such an add-on is refused
  by the offline preview (``--previous``) with the step to take — apply the new chart's CRDs server-side, then record
  it in ``platform.<key>.crdsApplied`` — until the stack says they were applied.

Read by the config check (``keep`` values) and by the offline preview (a version change shows how its CRDs change, or
is refused). Each row sourced; checked 2026-12-01.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

TEMPLATED, CHART_JOB, MANIFEST, CRDS_DIR, OPERATOR = "templated", "chart-job", "manifest", "crds-dir", "operator"
MODES = (TEMPLATED, CHART_JOB, MANIFEST, CRDS_DIR, OPERATOR)


@dataclass(frozen=True)
class CrdLifecycle:
    """How one add-on's CRDs are installed and upgraded (module docstring).

    :param mode: one of :data:`MODES`.
    :param keep: ``(values path, value)`` that must hold in the release's final Helm values for ``mode`` to hold
        (None: nothing to keep).
    :param since: the first version for which ``mode`` holds (None: every version oke-rdma accepts).
    :param how: one line for the preview: how the CRDs change on a version change.
    :param source: where that is stated, and when it was checked.
    """

    mode: str
    how: str
    source: str
    keep: Optional[tuple[tuple[str, ...], Any]] = None
    since: Optional[str] = None

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"CRD mode {self.mode!r} is not one of {MODES}")


#: Add-on key → how its CRDs are installed and upgraded.
CRD_LIFECYCLE: dict[str, CrdLifecycle] = {
    "gpuOperator": CrdLifecycle(
        CHART_JOB, "the chart's pre-upgrade Job (operator.upgradeCRD) applies the new version's nvidia.com CRDs "
        "before the operator is upgraded",
        "NVIDIA/gpu-operator deployments/gpu-operator/templates/upgrade_crd.yaml and values.yaml "
        "(operator.upgradeCRD: true) @v25.10.1, @v26.3.3, @v26.7.0; checked 2026-12-01",
        keep=(("operator", "upgradeCRD"), True)),
    "kubePrometheusStack": CrdLifecycle(
        CHART_JOB, "the chart's pre-upgrade Job (crds.upgradeJob) applies the new version's monitoring.coreos.com CRDs "
        "server-side before the Prometheus operator is upgraded (UPGRADE.md: CRDs first on every major)",
        "prometheus-community/helm-charts charts/kube-prometheus-stack/values.yaml (crds.upgradeJob), "
        "charts/crds/templates/upgrade/job.yaml and UPGRADE.md ('From 87.x to 88.x') @kube-prometheus-stack-88.5.3; "
        "checked 2026-12-01",
        keep=(("crds", "upgradeJob", "enabled"), True)),
    "keda": CrdLifecycle(
        TEMPLATED, "the keda.sh CRDs are chart templates (crds.install): the release's upgrade upgrades them",
        "kedacore/charts keda/templates/crds/*.yaml and values.yaml (crds.install: true) @v2.20.2; checked 2026-12-01",
        keep=(("crds", "install"), True)),
    "kueue": CrdLifecycle(
        TEMPLATED, "the kueue.x-k8s.io CRDs are chart templates (templates/crd/): the release's upgrade upgrades them",
        "kubernetes-sigs/kueue charts/kueue/templates/crd/ @v0.18.2, @v0.19.2; CHANGELOG-0.19.md v0.19.3-v0.19.7 "
        "(no CRD moved out of templates/crd/); checked 2026-12-02"),
    "trainer": CrdLifecycle(
        TEMPLATED, "the trainer.kubeflow.org CRDs are chart templates from 2.3.0: the release's upgrade upgrades them",
        "kubeflow/trainer release v2.3.0 notes (CRDs moved into the chart's templates; upgrade to 2.3 before any "
        "later version); checked 2026-11-30", since="2.3.0"),
    "jobset": CrdLifecycle(
        CRDS_DIR, "the jobset.x-k8s.io CRD is in the chart's crds/ directory: Helm never upgrades it",
        "kubernetes-sigs/jobset charts/jobset (crds/); Helm docs 'Custom Resource Definitions'; checked 2026-11-30"),
    "kuberay": CrdLifecycle(
        CRDS_DIR, "the ray.io CRDs are in the chart's crds/ directory: Helm never upgrades them",
        "Ray docs 'KubeRay Operator Installation' and ray-project/kuberay helm-chart/kuberay-operator (crds/); Helm "
        "docs 'Custom Resource Definitions'; checked 2026-11-30"),
    "cilium": CrdLifecycle(
        OPERATOR, "the cilium.io CRDs are registered and updated by cilium-operator itself when it starts (the chart "
        "ships none): the release's upgrade brings the new operator, which upgrades them",
        "cilium/cilium install/kubernetes/cilium (no crds/, no CRD templates) and the operator's CRD registration "
        "(operator/pkg/ciliumcrds... 'register CRDs') @v1.20.0; checked 2026-12-01"),
    "pulumiOperator": CrdLifecycle(
        CRDS_DIR, "the pulumi.com and auto.pulumi.com CRDs are in the chart's crds/ directory: Helm never upgrades them",
        "pulumi/pulumi-kubernetes-operator deploy/helm/pulumi-operator/crds/ @v2.9.0; Helm docs 'Custom Resource "
        "Definitions'; checked 2026-12-01"),
    "flux": CrdLifecycle(
        TEMPLATED, "the toolkit.fluxcd.io CRDs are chart templates (templates/*.crds.yaml): the release's upgrade "
        "upgrades them",
        "fluxcd-community/helm-charts charts/flux2/templates/*.crds.yaml @flux2-2.18.3; checked 2026-12-01"),
    "mpiOperator": CrdLifecycle(
        MANIFEST, "the mpijobs.kubeflow.org CRD is an object of the vendored manifest: Pulumi applies the new version's "
        "with it (the ConfigGroup's update)",
        "oke_rdma/addons/mpi_operator.py (MANIFESTS); kubeflow/mpi-operator deploy/v2beta1/mpi-operator.yaml; "
        "checked 2026-12-01"),
}


def crd_step(key: str, chart: str, repository: Optional[str], version: str) -> str:
    """The step to take before a ``crds-dir`` add-on moves to ``version``: apply that chart version's CRDs
    server-side (``helm show crds`` prints a chart's ``crds/``), then record it in ``platform.<key>.crdsApplied``."""
    ref = chart if repository is None else f"{chart} --repo {repository}"
    return (f"apply the new CRDs first: helm show crds {ref} --version {version} | kubectl apply --server-side "
            f"--force-conflicts -f -, then set platform.{key}.crdsApplied: {version}")
