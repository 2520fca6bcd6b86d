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


#: What switching an add-on off (``platform.<key>.enabled: false``: its release or manifest deleted) does to its CRDs
#: and so to the custom objects users keep in them, by :data:`MODES`. Helm deletes a release's templated objects on
#: uninstall (a CRD too, unless annotated ``helm.sh/resource-policy: keep``, which none of the pinned templated charts
#: does: kedacore/charts keda/templates/crds/*.yaml @v2.20.2, checked 2026-12-02) and never deletes ``crds/`` CRDs
#: (Helm docs "Custom Resource Definitions"); Pulumi deletes a manifest's CRD objects with the ConfigGroup; deleting a
#: CRD deletes every object of it in every namespace (Kubernetes docs "Extend the Kubernetes API with
#: CustomResourceDefinitions", Delete a CustomResourceDefinition). True: the objects are deleted with the CRDs.
OBJECTS_DELETED_ON_REMOVAL: dict[str, bool] = {TEMPLATED: True, MANIFEST: True, CHART_JOB: False, CRDS_DIR: False,
                                               OPERATOR: False}

#: Add-on key → the resources (``plural.group``) of its CRDs that hold users' objects beside the tenants' job kinds
#: (:data:`oke_rdma.facts.tenancy.OPERATOR_JOB_KINDS`, :data:`~oke_rdma.facts.tenancy.OPERATOR_READ_KINDS`): alert
#: and scrape rules, network policies, delivery sources, stacks. Sources: the add-ons' CRDs at the pinned versions
#: (prometheus-operator v0.8x ``monitoring.coreos.com``; cilium v1.20 ``cilium.io``; Flux 2.x
#: ``source``/``kustomize.toolkit.fluxcd.io``; PKO v2 ``pulumi.com``/``auto.pulumi.com``; NVIDIA GPU Operator
#: ``nvidia.com``); checked 2026-12-02.
USER_OBJECTS: dict[str, tuple[str, ...]] = {
    "keda": ("clustertriggerauthentications.keda.sh",),
    "kubePrometheusStack": ("servicemonitors.monitoring.coreos.com", "podmonitors.monitoring.coreos.com",
                            "prometheusrules.monitoring.coreos.com"),
    "cilium": ("ciliumnetworkpolicies.cilium.io", "ciliumclusterwidenetworkpolicies.cilium.io"),
    "flux": ("gitrepositories.source.toolkit.fluxcd.io", "ocirepositories.source.toolkit.fluxcd.io",
             "kustomizations.kustomize.toolkit.fluxcd.io"),
    "pulumiOperator": ("stacks.pulumi.com", "programs.pulumi.com", "workspaces.auto.pulumi.com"),
    "gpuOperator": ("clusterpolicies.nvidia.com", "nvidiadrivers.nvidia.com"),
    "kueue": ("clusterqueues.kueue.x-k8s.io", "resourceflavors.kueue.x-k8s.io", "cohorts.kueue.x-k8s.io"),
}


def user_objects(key: str) -> tuple[str, ...]:
    """The ``plural.group`` resources of add-on ``key``'s CRDs that hold users' or tenants' objects."""
    from .tenancy import OPERATOR_JOB_KINDS, OPERATOR_READ_KINDS

    kinds = [f"{plural}.{group}" for table in (OPERATOR_JOB_KINDS, OPERATOR_READ_KINDS)
             for group, plurals in table.get(key, ()) for plural in plurals if "/" not in plural
             and not group.startswith("visibility.")]
    return tuple(dict.fromkeys(kinds + list(USER_OBJECTS.get(key, ()))))
