"""Add-ons that must match each other, as data: the operator versions each Kueue release drives (the job kinds Kueue
admits are served by other add-ons: MPIJobs by the MPI Operator, TrainJobs by Kubeflow Trainer, RayJobs and
RayClusters by KubeRay, JobSets by JobSet). Add-on ↔ Kubernetes ranges are in :mod:`oke_rdma.facts.charts`.

Each row: the Kueue versions it holds for, the operator (its ``platform.<key>``), the oldest operator version that
Kueue release drives (``minimum``: Kueue's docs "Run a MPIJob", "Run a TrainJob", "Run a RayJob"/"Run a RayCluster"
state it) and the version that Kueue release is built and tested against (``tested``: its ``go.mod``). Read by
``oke_rdma.config.checks.compat``: an enabled operator older than ``minimum`` beside an enabled Kueue is refused,
naming both versions and the versions that work. A Kueue version or an operator without a row is not checked (Kueue
publishes no JobSet minimum: JobSet's row records the tested version only) — docs/charts.md lists the gaps.

The other direction — a partner NEWER than the API an add-on is compiled against — is :data:`PARTNER_CHANGES`: for a
consumer add-on (Kueue, which links each operator's Go API; Trainer, which links JobSet's and bundles its chart) and a
partner add-on, each later partner line that was reviewed against that consumer's line, with ``breaks`` saying whether
its API changed in a way the consumer was not built for. An enabled partner at or after a breaking ``since`` beside an
enabled consumer in the row's range is refused (``oke_rdma.config.checks.compat.check_partner_api_breaks``), naming
both versions, the change, its source and the versions that work together. :data:`BUILT_WITH` records the partner
version each consumer line builds against (go.mod, a bundled chart) beyond Kueue's rows; a test keeps every default
partner whose line is newer than what its consumer's default builds with covered by a reviewed row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from oke_rdma.facts.charts import parse_version

_KUEUE = "kubernetes-sigs/kueue"


@dataclass(frozen=True)
class KueueDrives:
    """One Kueue range and one operator it drives.

    :param kueue: Kueue chart versions ``[first, before)`` (``before`` None: no upper bound).
    :param operator: the operator's add-on key (``mpiOperator``, ``trainer``, ``kuberay``, ``jobset``).
    :param minimum: the oldest operator version those Kueue versions drive (None: Kueue states none).
    :param tested: the operator version those Kueue versions build against (go.mod).
    :param source: where both are stated, and when it was checked.
    """

    kueue: tuple[str, Optional[str]]
    operator: str
    minimum: Optional[str]
    tested: str
    source: str


def _rows(first: str, before: str, tag: str, mpi: str, trainer: str, ray: str, jobset: str) -> tuple[KueueDrives, ...]:
    docs = f"{_KUEUE} site/content/en/docs/tasks/run"
    return (
        KueueDrives((first, before), "mpiOperator", "0.8.0", mpi,
                    f"{docs}/kubeflow/mpijobs.md@{tag} ('The minimum required MPI Operator version is v0.8.0'); "
                    f"go.mod@{tag} (github.com/kubeflow/mpi-operator v{mpi}); checked 2026-12-01"),
        KueueDrives((first, before), "trainer", "2.2.0", trainer,
                    f"kubernetes-sigs/kueue#11931 (closed 2026-06-11: Trainer 2.1 has no TrainJob runtimePatches, "
                    f"which Kueue uses from 0.17, so an admitted TrainJob stays suspended) and PR #14943 (open, "
                    f"2026-08-31: the docs' 'v2.0.0' minimum corrected to v2.2.0; {docs}/trainjobs.md@{tag} still "
                    f"says v2.0.0); go.mod@{tag} (github.com/kubeflow/trainer/v2 v{trainer}); checked 2026-12-02"),
        KueueDrives((first, before), "kuberay", "1.1.0", ray,
                    f"{docs}/rayjobs.md and rayclusters.md@{tag} ('KubeRay v1.1.0 or newer'); go.mod@{tag} "
                    f"(github.com/ray-project/kuberay/ray-operator v{ray}); checked 2026-12-01"),
        KueueDrives((first, before), "jobset", None, jobset,
                    f"go.mod@{tag} (sigs.k8s.io/jobset v{jobset}; Kueue's docs state no minimum); checked 2026-12-01"),
    )


#: Every recorded row (Kueue 0.18 and 0.19, the versions oke-rdma pinned on 2026-11-30 and pins today). The 0.19 rows
#: are read at v0.19.2 and hold for the pinned 0.19.7: CHANGELOG-0.19.md v0.19.3-v0.19.7 changes no operator minimum
#: (checked 2026-12-02; go.mod at v0.19.7 not read, so ``tested`` stays v0.19.2's).
KUEUE_DRIVES: tuple[KueueDrives, ...] = (
    _rows("0.18.0", "0.19.0", "v0.18.2", mpi="0.8.0", trainer="2.2.1", ray="1.6.1", jobset="0.12.0")
    + _rows("0.19.0", "0.20.0", "v0.19.2", mpi="0.8.2", trainer="2.2.1", ray="1.6.2", jobset="0.12.0")
)


def kueue_drives(kueue: str, operator: str) -> Optional[KueueDrives]:
    """The row for Kueue ``kueue`` and add-on ``operator``, or None when nothing is recorded.

    :raises ValueError: when ``kueue`` is not a semantic version.
    """
    v = parse_version(kueue)
    for row in KUEUE_DRIVES:
        first, before = row.kueue
        if row.operator == operator and v >= parse_version(first) and (before is None or v < parse_version(before)):
            return row
    return None


@dataclass(frozen=True)
class BuiltWith:
    """The version of add-on ``partner`` that versions ``[first, before)`` of add-on ``consumer`` build against.

    :param consumer: the add-on key compiled against the partner's API (``trainer``).
    :param versions: the consumer versions ``(first, before)`` (``before`` None: no upper bound).
    :param partner: the partner's add-on key (``jobset``).
    :param version: the partner version they build against (go.mod) and, where they bundle it, ship.
    :param source: where that is stated, and when it was checked.
    """

    consumer: str
    versions: tuple[str, Optional[str]]
    partner: str
    version: str
    source: str


@dataclass(frozen=True)
class PartnerChange:
    """A partner line newer than the one a consumer line is built against, reviewed against it.

    :param consumer: the add-on compiled against the partner's API (``kueue``).
    :param versions: the consumer versions ``(first, before)`` the review holds for (none of them built for ``since``).
    :param partner: the partner's add-on key (``trainer``).
    :param since: the first partner version with the change.
    :param breaks: True when the change breaks what the consumer versions do with the partner's objects (refused);
        False when it was checked and the consumer works with it (recorded, so the review is not repeated).
    :param what: the change, in one clause.
    :param works: which versions work together (the fix the refusal names); for ``breaks=False``, why it is safe.
    :param source: where the change and its effect are stated, and when that was checked.
    """

    consumer: str
    versions: tuple[str, Optional[str]]
    partner: str
    since: str
    breaks: bool
    what: str
    works: str
    source: str


#: Beyond :data:`KUEUE_DRIVES` (Kueue's ``tested``): what other consumer add-ons build against.
BUILT_WITH: tuple[BuiltWith, ...] = (
    BuiltWith("trainer", ("2.2.0", "2.3.0"), "jobset", "0.11.1",
              "kubeflow/trainer go.mod@v2.2.1 (sigs.k8s.io/jobset v0.11.1) and charts/kubeflow-trainer/Chart.yaml"
              "@v2.2.1 (the jobset chart 0.11.0 as its jobset.install subchart); checked 2026-12-02"),
    BuiltWith("trainer", ("2.3.0", "2.4.0"), "jobset", "0.12.0",
              "kubeflow/trainer go.mod@v2.3.0 (sigs.k8s.io/jobset v0.12.0) and charts/kubeflow-trainer/Chart.yaml"
              "@v2.3.0 (the jobset chart 0.12.0 as its jobset.install subchart); checked 2026-12-02"),
)

_K0_18_0_20 = ("0.18.0", "0.20.0")

#: Every reviewed partner line newer than what a consumer line builds against (class docstring of PartnerChange).
PARTNER_CHANGES: tuple[PartnerChange, ...] = (
    PartnerChange(
        "kueue", _K0_18_0_20, "trainer", "2.3.0", True,
        "Trainer 2.3 merges a TrainJob's runtimePatches with strategic-merge semantics (a patch naming a "
        "ReplicatedJob the runtime lacks now adds one) and builds the JobSet from a runtime snapshot, while Kueue "
        "0.18-0.19 compute the PodSets they admit, charge and place from the live runtime with Trainer 2.2.1's "
        "library, so the pods that run can differ from the ones Kueue counted; upstream: 'Trainer v2.2 and v2.3 "
        "don't have API compatibility'",
        "the pairs upstream builds together are Kueue 0.18-0.19 with Trainer 2.2.x and Kueue main (the future 0.20, "
        "unreleased) with Trainer 2.3.x, and oke-rdma refuses Trainer before 2.3.0 (its CRDs sit in the chart's "
        "crds/, and moving them into 2.3's templates needs a CRD ownership migration oke-rdma does not model): set "
        "platform.trainer.enabled: false (or platform.kueue.enabled: false) until a Kueue line built against "
        "Trainer 2.3 is pinned",
        "kubernetes-sigs/kueue PR #14504 (commit 22553e5, merged to main 2026-08-16; release note 'ACTION REQUIRED: "
        "If you use Trainer v2.2, you have to update it to v2.3 since Trainer v2.2 and v2.3 don't have API "
        "compatibility'); go.mod@release-0.18 and @release-0.19 (github.com/kubeflow/trainer/v2 v2.2.1, read "
        "2026-08-22) and CHANGELOG-0.19.md v0.19.3-v0.19.7 (no Trainer bump); PR #14886 (open: main requires "
        "Trainer v2.3.0 or later); kubeflow/trainer CHANGELOG-2.3.md (runtime snapshot #3580); checked 2026-12-02"),
    PartnerChange(
        "kueue", _K0_18_0_20, "kuberay", "1.7.0", False,
        "KubeRay 1.7.0 adds to the ray.io/v1 API (RayService spec.suspend among others) and removes nothing Kueue's "
        "Ray adapters use",
        "Kueue's own move to ray-operator v1.7.0 needed no source change: its RayJob, RayCluster and RayService "
        "adapters build and their tests pass against the 1.7.0 API, and Kueue patches Ray objects (merge patches of "
        "the fields it owns), so fields only 1.7.0 knows are kept",
        "kubernetes-sigs/kueue PR #14669 (commit efa3c9d, merged to main 2026-08-20, kind/cleanup, no release note); "
        "ray-project/kuberay ray-operator/apis/ray/v1 v1.6.2..v1.7.0 (fields added, none removed); kueue "
        "pkg/controller/jobframework/reconciler.go@release-0.19 (clientutil.Patch on the job object); checked "
        "2026-12-02"),
)


def _in(version: str, versions: tuple[str, Optional[str]]) -> bool:
    v = parse_version(version)
    first, before = versions
    return v >= parse_version(first) and (before is None or v < parse_version(before))


def built_with(consumer: str, version: str, partner: str) -> Optional[tuple[str, str]]:
    """``(partner version, source)`` that ``consumer`` at ``version`` builds against, or None when not recorded.

    :raises ValueError: when ``version`` is not a semantic version.
    """
    if consumer == "kueue":
        row = kueue_drives(version, partner)
        return (row.tested, row.source) if row is not None else None
    for r in BUILT_WITH:
        if r.consumer == consumer and r.partner == partner and _in(version, r.versions):
            return r.version, r.source
    return None


def partner_changes(consumer: str, version: str, partner: str, partner_version: str) -> tuple[PartnerChange, ...]:
    """The reviewed changes of ``partner`` up to ``partner_version`` that ``consumer`` at ``version`` was not built
    for (breaking or not), oldest first.

    :raises ValueError: when a version is not a semantic version.
    """
    p = parse_version(partner_version)
    return tuple(sorted((c for c in PARTNER_CHANGES if c.consumer == consumer and c.partner == partner
                         and _in(version, c.versions) and p >= parse_version(c.since)),
                        key=lambda c: parse_version(c.since)))
