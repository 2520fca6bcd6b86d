"""Kueue feature gates that need other gates, and their defaults, for the Kueue versions oke-rdma accepts (0.15–0.19).

Kueue's manager validates its feature gates when it starts: a gate whose dependencies are off makes the manager
exit with "<gate> requires <dependency> to be enabled" (``pkg/config/validation.go``, ``LoadAndValidateFeatureGates``),
so the Deployment crash-loops and every Kueue webhook and admission stops. Which pairs are checked grew release by
release (the 0.18 line added most TAS sub-gates; kubernetes-sigs/kueue #14237, cherry-picked as #14256 to 0.18 and
#14257 to 0.19, added ``TASRecomputeAssignmentWithinSchedulingCycle``). Before a version checks a pair, the dependent
gate simply has no effect while its dependency is off (the comment above the checks says so).

A gate that is ON BY DEFAULT matters as much as one a user turns on: turning ``TopologyAwareScheduling`` off alone is
refused by every Kueue oke-rdma accepts, because ``TASProfileMixed`` (Beta, on from 0.15) and, from 0.18,
``TASHandleOverlappingFlavors``, ``TASFailedNodeReplacement`` and the other default-on TAS gates stay on.

Each :class:`GateDependency` row: the gate, the gates it needs, the versions where it is on by default, the first
version of each release line where Kueue refuses the combination, and its source with the date it was read. Read by
:mod:`oke_rdma.config.checks.kueue_gates`.

Sources (read at each tag named): kubernetes-sigs/kueue ``pkg/config/validation.go`` and
``pkg/features/kube_features.go`` at v0.15.8, v0.16.9, v0.17.8, v0.18.0–v0.18.6, v0.19.0–v0.19.2; PR #14237 and its
cherry-picks #14256/#14257 ("ACTION REQUIRED: if you disable TopologyAwareScheduling, also set
TASRecomputeAssignmentWithinSchedulingCycle=false"); chart ``charts/kueue/templates/manager/manager.yaml@v0.19.2``
(``controllerManager.featureGates`` → ``--feature-gates``). 0.19.3–0.19.7 and 0.18.7–0.18.8 are taken to keep the
0.19.2/0.18.6 checks (NVIDIA/aicr PR #2598 cites the same check at v0.19.3). Checked 2026-12-02.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from oke_rdma.facts.charts import parse_version

CHECKED = "checked 2026-12-02"
TAS = "TopologyAwareScheduling"
_SRC = "kubernetes-sigs/kueue pkg/config/validation.go and pkg/features/kube_features.go"
#: Where the chart takes the gates: a list of ``{name, enabled}`` rendered into ``--feature-gates``.
GATES_PATH = ("controllerManager", "featureGates")


@dataclass(frozen=True)
class GateDependency:
    """One Kueue feature gate that needs others.

    :param gate: the gate's name.
    :param requires: the gates that must be on while it is on.
    :param default_on: ``(first, before)`` version ranges (``before`` None: open) where it is on by default.
    :param refused_from: per release line, the first version whose manager refuses to start when ``gate`` is on and a
        gate of ``requires`` is off (``("0.18.5", "0.19.1")``); a line newer than every listed line refuses too.
        Before it, ``gate`` only has no effect.
    :param source: where this is stated, and when it was read.
    """

    gate: str
    requires: tuple[str, ...]
    default_on: tuple[tuple[str, Optional[str]], ...]
    refused_from: tuple[str, ...]
    source: str

    def on_by_default(self, version: str) -> bool:
        """True when ``version``'s Kueue turns the gate on unless told otherwise."""
        v = parse_version(version)
        return any(v >= parse_version(a) and (b is None or v < parse_version(b)) for a, b in self.default_on)

    def refused(self, version: str) -> bool:
        """True when ``version``'s manager refuses to start on a violation of this row."""
        v = parse_version(version)
        lines = [parse_version(f) for f in self.refused_from]
        for first in lines:
            if (first.major, first.minor) == (v.major, v.minor):
                return v >= first
        return bool(lines) and (v.major, v.minor) > max((f.major, f.minor) for f in lines)


def _row(gate: str, requires: tuple[str, ...], default_on: tuple[tuple[str, Optional[str]], ...],
         refused_from: tuple[str, ...], where: str) -> GateDependency:
    return GateDependency(gate, requires, default_on, refused_from, f"{_SRC} ({where}); {CHECKED}")


_ALL = (("0.14.0", None),)
#: Every gate-to-gate requirement Kueue checks in the versions oke-rdma accepts (see the module docstring).
GATE_DEPENDENCIES: tuple[GateDependency, ...] = (
    _row("TASProfileMixed", (TAS,), (("0.15.0", None),), ("0.15.0",),
         "'cannot use a TAS profile with TAS disabled' from v0.15.0; Beta on from 0.15"),
    _row("TASHandleOverlappingFlavors", (TAS,), (("0.18.0", None),), ("0.18.0",),
         "checked from v0.18.0; Beta on from 0.18"),
    _row("TASFailedNodeReplacement", (TAS,), _ALL, ("0.18.0",), "checked from v0.18.0; Beta on from 0.14"),
    _row("TASFailedNodeReplacementFailFast", (TAS, "TASFailedNodeReplacement"), _ALL, ("0.18.0",),
         "checked from v0.18.0; Beta on from 0.14"),
    _row("TASReplaceNodeOnPodTermination", (TAS, "TASFailedNodeReplacement"), _ALL, ("0.18.0",),
         "checked from v0.18.0; Beta on from 0.14"),
    _row("TASReplaceNodeDueToNotReadyOverFixedTime", (TAS, "TASFailedNodeReplacement"),
         (("0.17.0", "0.18.0"), ("0.18.4", "0.19.0")), ("0.18.4", "0.19.0"),
         "checked from v0.18.4 and v0.19.0; Beta on in 0.17 and from 0.18.4, deprecated and off from 0.19"),
    _row("TASBalancedPlacement", (TAS,), (), ("0.18.0",), "checked from v0.18.0; Alpha, off"),
    _row("TASReplaceNodeOnNodeTaints", (TAS,), (("0.17.0", None),), ("0.18.0",),
         "checked from v0.18.0; Beta on from 0.17"),
    _row("TASMultiLayerTopology", (TAS,), (("0.19.0", None),), ("0.18.0",),
         "checked from v0.18.0; Alpha off in 0.17-0.18, Beta on from 0.19"),
    _row("TASRespectNodeAffinityPreferred", (TAS,), (), ("0.18.0",), "checked from v0.18.0; Alpha, off"),
    _row("TASRecomputeAssignmentWithinSchedulingCycle", (TAS,), (("0.18.2", None),), ("0.18.5", "0.19.1"),
         "PR #14237, cherry-picks #14256 (v0.18.5) and #14257 (v0.19.1); Beta on from 0.18.2"),
    _row("ElasticJobsViaWorkloadSlicesWithTAS", (TAS, "ElasticJobsViaWorkloadSlices"), (), ("0.17.0",),
         "checked from v0.17.0; Alpha, off"),
    _row("UnadmittedWorkloadsExplicitStatus", ("UnadmittedWorkloadsObservability",), (), ("0.18.5", "0.19.0"),
         "checked from v0.18.5 and v0.19.0; Beta, off"),
    _row("KueueDRAIntegrationExtendedResource", ("KueueDRAIntegration",), (("0.19.0", None),), ("0.18.0",),
         "checked from v0.18.0; Alpha off in 0.18, Beta on from 0.19"),
    _row("KueueDRAIntegrationPartitionableDevices", ("KueueDRAIntegration",), (("0.19.0", None),), ("0.18.0",),
         "checked from v0.18.0; Alpha off in 0.18, Beta on from 0.19"),
    _row("KueueDRAIntegrationConsumableCapacity", ("KueueDRAIntegration",), (), ("0.19.0",),
         "checked from v0.19.0; Alpha, off"),
)

#: Gates that are dependencies, with the versions where they are on by default (the manager's defaults).
REQUIRED_DEFAULTS: dict[str, tuple[tuple[str, Optional[str]], ...]] = {
    TAS: (("0.14.0", None),),  # Beta on from 0.14
    "TASFailedNodeReplacement": _ALL,
    "ElasticJobsViaWorkloadSlices": (("0.18.0", None),),  # Beta on from 0.18
    "UnadmittedWorkloadsObservability": (),  # Beta, off
    "KueueDRAIntegration": (("0.18.0", None),),  # Beta on from 0.18
}


def default_state(gate: str, version: str) -> Optional[bool]:
    """Whether ``gate`` is on by default in ``version`` (None: the table does not record the gate)."""
    for row in GATE_DEPENDENCIES:
        if row.gate == gate:
            return row.on_by_default(version)
    ranges = REQUIRED_DEFAULTS.get(gate)
    if ranges is None:
        return None
    v = parse_version(version)
    return any(v >= parse_version(a) and (b is None or v < parse_version(b)) for a, b in ranges)
