"""Add-ons that must match each other, as data: the operator versions each Kueue release drives (the job kinds Kueue
admits are served by other add-ons: MPIJobs by the MPI Operator, TrainJobs by Kubeflow Trainer, RayJobs and
RayClusters by KubeRay, JobSets by JobSet). Add-on ↔ Kubernetes ranges are in :mod:`oke_rdma.facts.charts`.

Each row: the Kueue versions it holds for, the operator (its ``platform.<key>``), the oldest operator version that
Kueue release drives (``minimum``: Kueue's docs "Run a MPIJob", "Run a TrainJob", "Run a RayJob"/"Run a RayCluster"
state it) and the version that Kueue release is built and tested against (``tested``: its ``go.mod``). Read by
``oke_rdma.config.checks.compat``: an enabled operator older than ``minimum`` beside an enabled Kueue is refused,
naming both versions and the versions that work. A Kueue version or an operator without a row is not checked (Kueue
publishes no JobSet minimum: JobSet's row records the tested version only) — docs/charts.md lists the gaps.
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
