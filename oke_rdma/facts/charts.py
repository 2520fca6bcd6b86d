"""Chart compatibility as data: per Helm chart oke-rdma installs, the chart versions that serve the APIs and features
the program uses through it, and the Kubernetes versions each chart version supports.

Read by ``oke_rdma.config.platform.check_chart_compatibility``: a ``platform.<release>.version`` below the first
version serving what the program creates, or a ``cluster.kubernetesVersion`` outside what that chart version
supports, is refused before anything is declared, naming both sides and the first version that fits. The Kubernetes
ranges are the vendors' tested or validated ranges where they publish one (NVIDIA's platform support matrix, KEDA's
compatibility matrix), not a chart's install floor.

Versions are semantic versions (a leading ``v``, as in GPU Operator's ``v25.10.1``, is ignored); parsed with the
``semver`` package. Every entry carries its source and the date it was checked. Where no source states a range (upper bounds Kueue and
kube-prometheus-stack do not publish; KEDA 2.21, 'TBD' in its matrix), nothing is recorded and nothing is checked — the docs page
``docs/charts.md`` lists those gaps.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

import semver

CHECKED = "checked 2026-12-01"


@dataclass(frozen=True)
class ApiRequirement:
    """An API or feature the program uses through a chart, and the first chart version that provides it.

    :param what: what the program needs, as a reader would name it (``kueue.x-k8s.io/v1beta2``).
    :param used_for: what the program creates or relies on through it.
    :param since: the first chart version providing it (semantic version, no ``v``).
    :param source: where that is stated (file@version or doc title/URL) and when it was checked.
    :param applies: ``"always"`` or ``"rdma"`` (only when the stack has RDMA pools: topology-aware scheduling).
    """

    what: str
    used_for: str
    since: str
    source: str
    applies: str = "always"


@dataclass(frozen=True)
class KubernetesSupport:
    """The Kubernetes versions a range of chart versions supports.

    :param charts: chart versions this holds for, ``[first, before)`` (``before`` None = no upper bound known).
    :param kube_min: / :param kube_max: lowest / highest supported Kubernetes minor (``"1.29"``); ``kube_max``
        None = the source states no upper bound.
    :param source: where that is stated, and when it was checked.
    """

    charts: tuple[str, Optional[str]]
    kube_min: str
    kube_max: Optional[str]
    source: str


@dataclass(frozen=True)
class ChartFacts:
    """What oke-rdma knows about one chart: its display name, API requirements and Kubernetes support."""

    name: str
    requirements: tuple[ApiRequirement, ...]
    kubernetes: tuple[KubernetesSupport, ...]


KUEUE_CHANGELOG = "kubernetes-sigs/kueue CHANGELOG/CHANGELOG-{}.md"

#: ``platform.<key>`` → facts. Keys are the config keys of the releases.
CHARTS: dict[str, ChartFacts] = {
    "kueue": ChartFacts(
        name="Kueue",
        requirements=(
            ApiRequirement(
                "kueue.x-k8s.io/v1beta2", "Topology, ResourceFlavor, ClusterQueue and LocalQueue objects", "0.15.0",
                f"{KUEUE_CHANGELOG.format('0.15')} ('V1beta2: Expose the v1beta2 API for CRD serving', #7304); "
                f"charts/kueue/templates/crd/*.yaml@v0.15.0 serve v1beta2, @v0.14.3 has no apis/kueue/v1beta2; "
                f"{CHECKED}"),
            ApiRequirement(
                "the TopologyAwareScheduling feature gate on by default (Beta)",
                "topology-aware scheduling on the RDMA pools without setting feature gates", "0.14.0",
                f"{KUEUE_CHANGELOG.format('0.14')} ('TAS: Graduated TopologyAwareScheduling to Beta', #6830); "
                f"{CHECKED}", applies="rdma"),
            ApiRequirement(
                "topology-aware scheduling with cohorts and preemption",
                "the tenants' ClusterQueues share one cohort on TAS flavors", "0.11.0",
                f"{KUEUE_CHANGELOG.format('0.11')} ('TAS: Support cohorts and preemption within them', #4418); "
                f"{CHECKED}", applies="rdma"),
        ),
        kubernetes=(
            KubernetesSupport(
                ("0.15.0", None), "1.29", None,
                "kubernetes-sigs/kueue site/content/en/v0.18/docs/getting-started/installation.md ('A Kubernetes "
                f"cluster with version 1.29 or newer'); no upper bound published; {CHECKED}"),
        ),
    ),
    "kubePrometheusStack": ChartFacts(
        name="kube-prometheus-stack",
        requirements=(),
        kubernetes=(
            KubernetesSupport(
                ("87.0.0", "89.0.0"), "1.25", None,
                "prometheus-community/helm-charts charts/kube-prometheus-stack/Chart.yaml@kube-prometheus-stack-87.2.1 "
                "and @kube-prometheus-stack-88.5.3 (kubeVersion: '>=1.25.0-0', which Helm enforces at install; the "
                f"project publishes no upper bound); {CHECKED}"),
        ),
    ),
    "gpuOperator": ChartFacts(
        name="NVIDIA GPU Operator",
        requirements=(),
        # NVIDIA's validated range (platform-support.rst, 'Kubernetes' column of every operating system row), not
        # the chart's install floor (Chart.yaml kubeVersion '>= 1.16.0-0' at every version).
        kubernetes=(
            KubernetesSupport(
                ("25.10.0", "25.11.0"), "1.30", "1.35",
                "NVIDIA/cloud-native-docs gpu-operator/platform-support.rst@a5b94d57 (2026-01-21, 25.10: 1.30---1.35); "
                f"{CHECKED}"),
            KubernetesSupport(
                ("26.3.0", "26.3.2"), "1.32", "1.35",
                "NVIDIA/cloud-native-docs gpu-operator/platform-support.rst@adfe9224 (2026-03-20, 26.3.0: "
                f"1.32---1.35); {CHECKED}"),
            KubernetesSupport(
                ("26.3.2", "26.4.0"), "1.32", "1.36",
                "NVIDIA/cloud-native-docs gpu-operator/platform-support.rst@de99f9d3 (2026-05-29, 26.3.2: "
                f"1.32---1.36); {CHECKED}"),
            KubernetesSupport(
                ("26.7.0", "26.8.0"), "1.33", "1.37",
                "NVIDIA/cloud-native-docs gpu-operator/platform-support.rst after PR #488 (2026-09-04, closes #482 "
                "of 2026-08-27: 26.7.0 upper bound 1.36 -> 1.37 in every cell, a 26.7.0 post-release documentation "
                "update) and PR #490 (2026-09-08: Ubuntu 24.04's lower bound 1.32 -> 1.33): 1.33---1.37 on every "
                "operating system; read before them at e8832910 (2026-08-21) as 1.33---1.36; checked 2026-12-02"),
        ),
    ),
    "cilium": ChartFacts(
        name="Cilium",
        requirements=(
            ApiRequirement(
                "the cni.chainingTarget value", "chaining onto OKE's 'oci' conflist found on each node", "1.14.0",
                "cilium/cilium#27579 ('new Helm option available as of v1.14.0'), Documentation/installation/"
                f"cni-chaining-generic-veth.rst; {CHECKED}"),
        ),
        kubernetes=(
            KubernetesSupport(
                ("1.20.0", "1.21.0"), "1.21", None,
                "cilium/charts cilium-1.20.0.tgz Chart.yaml (kubeVersion: '>= 1.21.0-0', which Helm enforces at "
                f"install); checked 2026-12-01"),
        ),
    ),
    "keda": ChartFacts(
        name="KEDA",
        requirements=(),
        kubernetes=tuple(
            KubernetesSupport((f"2.{m}.0", f"2.{m + 1}.0"), lo, hi,
                              f"kedacore/keda-docs content/docs/2.21/operate/cluster.md@a55c5d34 (2026-08-20) "
                              f"'Kubernetes Compatibility' matrix (the versions KEDA tests); {CHECKED}")
            for m, lo, hi in ((13, "1.27", "1.29"), (14, "1.27", "1.29"), (15, "1.28", "1.30"), (16, "1.29", "1.31"),
                              (17, "1.30", "1.32"), (18, "1.31", "1.33"), (19, "1.32", "1.34"), (20, "1.33", "1.35"))
        ),
    ),
}


#: Add-on key → its major versions in release order, for vendors that support an upgrade only to the next major: NVIDIA
#: GPU Operator ("Upgrades are only supported within a major release or to the next major release", with majors
#: YY.MM: NVIDIA/cloud-native-docs gpu-operator/platform-support.rst, life cycle; 25.10.x end of support, 26.3.x
#: deprecated, 26.7.x supported; NVIDIA/gpu-operator tags v25.10.1, v26.3.0–v26.3.3, v26.7.0). Read by the offline
#: preview with ``--previous``: a change skipping a major is refused naming the major to go through.
MAJOR_STEPS: dict[str, tuple[str, ...]] = {"gpuOperator": ("25.3", "25.10", "26.3", "26.7")}
MAJOR_STEPS_SOURCE = f"NVIDIA GPU Operator docs 'Platform Support' (life cycle); {CHECKED}"


@dataclass(frozen=True)
class SupportStatus:
    """The vendor's support status of one release line (``line``: ``major.minor`` as :data:`MAJOR_STEPS` spells
    it): ``supported``, ``deprecated`` (still fixed, going out) or ``end of support`` (no fixes); with its
    source."""

    line: str
    status: str
    source: str


#: Add-on key → the support status of its release lines, where the vendor publishes a life cycle. A pin on a line
#: that is deprecated or past its end of support is warned about on every preview
#: (:func:`oke_rdma.config.checks.chart_versions.support_warnings`); a line not listed makes no claim.
SUPPORT: dict[str, tuple[SupportStatus, ...]] = {
    "gpuOperator": tuple(SupportStatus(line, status, f"NVIDIA/cloud-native-docs gpu-operator/platform-support.rst, "
                                                     f"life cycle; {CHECKED}")
                         for line, status in (("25.3", "end of support"), ("25.10", "end of support"),
                                              ("26.3", "deprecated"), ("26.7", "supported"))),
}


def support_status(key: str, version: str) -> Optional[SupportStatus]:
    """The :data:`SUPPORT` row of the line ``version`` of add-on ``key`` belongs to (None: no life cycle recorded
    for it, or not a semantic version)."""
    try:
        v = parse_version(version)
    except ValueError:
        return None
    return next((row for row in SUPPORT.get(key, ()) if row.line == f"{v.major}.{v.minor}"), None)


def skipped_majors(key: str, before: str, after: str) -> list[str]:
    """The majors of ``key`` between ``before`` and ``after`` that an upgrade must go through ([] when it moves at most
    one major, or when nothing is recorded; a version that is not semver or a major not recorded: [])."""
    steps = MAJOR_STEPS.get(key)
    if not steps:
        return []
    try:
        old, new = parse_version(before), parse_version(after)
    except ValueError:
        return []
    majors = [f"{v.major}.{v.minor}" for v in (old, new)]
    if not all(m in steps for m in majors) or new <= old:
        return []
    i, j = steps.index(majors[0]), steps.index(majors[1])
    return list(steps[i + 1:j])


def parse_version(text: str) -> semver.Version:
    """``"v25.10.1"`` / ``"0.18.2"`` → ``semver.Version``.

    :raises ValueError: when ``text`` is not a semantic version (after dropping one leading ``v``).
    """
    return semver.Version.parse(text[1:] if text[:1] in "vV" else text)


def kube_minor(text: str) -> tuple[int, int]:
    """``"v1.34.1"`` or ``"1.29"`` → ``(1, 34)``.

    :raises ValueError: when ``text`` does not start with ``<major>.<minor>``.
    """
    parts = (text[1:] if text[:1] in "vV" else text).split(".")
    if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit():
        raise ValueError(f"not a Kubernetes version: {text!r}")
    return int(parts[0]), int(parts[1])


def unmet_requirements(key: str, version: str, rdma: bool) -> list[ApiRequirement]:
    """The requirements of chart ``key`` that ``version`` does not meet (``rdma``: the stack has RDMA pools)."""
    facts = CHARTS.get(key)
    if facts is None:
        return []
    v = parse_version(version)
    return [r for r in facts.requirements
            if (r.applies == "always" or rdma) and v < parse_version(r.since)]


def first_fitting(key: str, rdma: bool) -> Optional[str]:
    """The first chart version meeting every requirement of ``key`` that applies (None: no requirement)."""
    needed = [r.since for r in CHARTS[key].requirements if r.applies == "always" or rdma] if key in CHARTS else []
    return str(max(parse_version(s) for s in needed)) if needed else None


def kubernetes_support(key: str, version: str) -> Optional[KubernetesSupport]:
    """The Kubernetes support entry covering chart ``key`` at ``version`` (None: nothing recorded)."""
    facts = CHARTS.get(key)
    if facts is None:
        return None
    v = parse_version(version)
    for entry in facts.kubernetes:
        first, before = entry.charts
        if v >= parse_version(first) and (before is None or v < parse_version(before)):
            return entry
    return None


def fits_kubernetes(entry: KubernetesSupport, kubernetes: str) -> bool:
    """True when Kubernetes ``kubernetes`` (``v1.34.1``) is within ``entry``'s range (minor versions)."""
    k = kube_minor(kubernetes)
    if k < kube_minor(entry.kube_min):
        return False
    return entry.kube_max is None or k <= kube_minor(entry.kube_max)


def chart_versions_for_kubernetes(key: str, kubernetes: str) -> list[KubernetesSupport]:
    """The recorded chart version ranges of ``key`` that support Kubernetes ``kubernetes``, oldest first."""
    return [e for e in CHARTS[key].kubernetes if fits_kubernetes(e, kubernetes)] if key in CHARTS else []


KUEUE_MANAGER_CONFIG_PATH = Path(__file__).resolve().parent / "kueue_manager_config.json"


@lru_cache(maxsize=1)
def _kueue_manager_configs() -> list[dict[str, Any]]:
    return json.loads(KUEUE_MANAGER_CONFIG_PATH.read_text(encoding="utf-8"))["entries"]


def kueue_manager_config(version: str) -> Optional[tuple[dict[str, Any], str]]:
    """The Kueue chart's default manager configuration at chart ``version`` and its source, or None when not recorded.

    Kueue's Helm values hold the manager configuration as one YAML string
    (``managerConfig.controllerManagerConfigYaml``); setting one key means writing the whole string, so oke-rdma
    starts from the chart's own default for that version (``kueue_manager_config.json``: an entry covers its ``from``
    version up to the next entry of the same minor; sources in the file). Versions outside the recorded minors
    (0.15–0.19) return None.

    :raises ValueError: when ``version`` is not a semantic version.
    """
    v = parse_version(version)
    found = None
    for entry in _kueue_manager_configs():
        start = parse_version(entry["from"])
        if (start.major, start.minor) == (v.major, v.minor) and start <= v:
            found = entry
    return (json.loads(json.dumps(found["config"])), found["source"]) if found else None


def kueue_recorded_minors() -> list[str]:
    """The Kueue minors whose manager configuration is recorded (``["0.15", ...]``)."""
    return sorted({".".join(e["from"].split(".")[:2]) for e in _kueue_manager_configs()},
                  key=lambda m: tuple(int(x) for x in m.split(".")))
