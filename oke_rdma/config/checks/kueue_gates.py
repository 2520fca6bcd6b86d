"""Kueue's feature gates as the release gets them: what Kueue refuses at start, and what the stack needs.

Reads Kueue's FINAL Helm values (oke-rdma's merged with ``platform.kueue.values``; the chart's
``controllerManager.featureGates`` list merges by gate name, so the platform's own gates stay unless a user names
them) and the manager configuration's ``featureGates`` map. Refused, each one line naming the key path and the fix:

* an entry of ``controllerManager.featureGates`` that is not ``{name: <text>, enabled: <boolean>}`` (the chart prints
  ``enabled`` with ``%t``: the text ``"false"`` becomes ``%!t(string=false)`` and the manager refuses the flag);
* gates in both the chart's list and the manager configuration's ``featureGates`` map (Kueue refuses "feature gates
  for CLI and configuration cannot both specified"; ``apis/config/v1beta2/configuration_types.go``);
* ``TopologyAwareScheduling`` off while a node pool has ``rdma: true``: the RDMA pools' ResourceFlavors name the
  stack's Topology, which only TAS serves (their workloads would never be admitted);
* a gate on (by default or by the user) whose required gates are off, per :data:`GATE_DEPENDENCIES`: where that
  Kueue version refuses the pair its manager never starts; where it does not yet, a gate the user turned on does
  nothing (refused too, so the stack says what it runs; default-on gates of such versions are left alone).
"""

from __future__ import annotations

from typing import Any, Optional

import yaml

from .._base import _key
from ..stack import StackConfig
from ...facts.kueue_gates import GATE_DEPENDENCIES, GATES_PATH, TAS, default_state


def _final(cfg: StackConfig) -> Optional[dict[str, Any]]:
    from oke_rdma.addons import REGISTRY

    release = cfg.platform.kueue
    if not release.enabled:
        return None
    try:
        return REGISTRY["kueue"].helm_values(release, REGISTRY.context(cfg.platform))
    except ValueError:  # a version whose values cannot be built: the chart compatibility check refuses it
        return None


def _config_gates(final: dict[str, Any]) -> Optional[dict[str, Any]]:
    text = (final.get("managerConfig") or {}).get("controllerManagerConfigYaml") \
        if isinstance(final.get("managerConfig"), dict) else None
    try:
        parsed = yaml.safe_load(text) if isinstance(text, str) else None
    except yaml.YAMLError:
        return None  # the Kueue add-on's own check refuses it
    gates = parsed.get("featureGates") if isinstance(parsed, dict) else None
    return gates if isinstance(gates, dict) and gates else None


def check_kueue_gates(cfg: StackConfig) -> list[str]:
    """Problems with Kueue's feature gates (see the module docstring), each starting with the config key path."""
    final = _final(cfg)
    if final is None:
        return []
    version = cfg.platform.kueue.version
    at = ("platform", "kueue", "values") + GATES_PATH
    listed = (final.get("controllerManager") or {}).get("featureGates") \
        if isinstance(final.get("controllerManager"), dict) else None
    problems: list[str] = []
    explicit: dict[str, bool] = {}
    for i, entry in enumerate(listed if isinstance(listed, list) else []):
        if not (isinstance(entry, dict) and isinstance(entry.get("name"), str) and isinstance(entry.get("enabled"), bool)
                and set(entry) <= {"name", "enabled"}):
            problems.append(f"{_key(at)}: entry {entry!r} is not {{name: <gate>, enabled: true|false}} (the chart "
                            f"prints enabled as a boolean; text such as \"false\" makes Kueue refuse the flag); write "
                            f"it as {{name: <gate>, enabled: false}}")
            continue
        explicit[entry["name"]] = entry["enabled"]
    in_config = _config_gates(final)
    if in_config is not None and listed:
        names = ", ".join(sorted(str(g.get("name")) for g in listed if isinstance(g, dict)))
        problems.append(f"{_key(('platform', 'kueue', 'values', 'managerConfig', 'controllerManagerConfigYaml'))}: "
                        f"sets featureGates while the chart's controllerManager.featureGates list ({names}) is passed as "
                        f"--feature-gates, and Kueue refuses both at once; move the gates into "
                        f"platform.kueue.values.controllerManager.featureGates and remove featureGates from the YAML")
    elif in_config is not None:
        explicit = {k: v for k, v in in_config.items() if isinstance(v, bool)}
        at = ("platform", "kueue", "values", "managerConfig", "controllerManagerConfigYaml")
    try:
        state = _states(version, explicit)
    except ValueError:  # not a semantic version: the version rules refuse it
        return problems
    rdma = [name for name, pool in cfg.node_pools.items() if pool.rdma]
    if rdma and not state(TAS):
        problems.append(f"{_key(at)}: turns {TAS} off, while the RDMA pool{'s' if len(rdma) > 1 else ''} "
                        f"{', '.join(rdma)} get{'' if len(rdma) > 1 else 's'} ResourceFlavors bound to the stack's "
                        f"Topology, which only topology-aware scheduling admits to; remove the {TAS} entry (or set "
                        f"enabled: true)")
    refused: dict[str, list[str]] = {}
    idle: dict[str, list[str]] = {}
    sources: dict[str, set[str]] = {}
    for row in GATE_DEPENDENCIES:
        if not state(row.gate):
            continue
        for missing in (r for r in row.requires if not state(r)):
            if row.refused(version):
                refused.setdefault(missing, []).append(row.gate)
            elif row.gate in explicit:  # a default-on gate that does nothing here is Kueue's own choice
                idle.setdefault(missing, []).append(row.gate)
            else:
                continue
            sources.setdefault(missing, set()).add(row.source.rpartition("; ")[2])

    def shown(gates: list[str]) -> str:
        return ", ".join(f"{g} ({'set on' if g in explicit else 'on by default'})" for g in gates)

    for missing, gates in refused.items():
        problems.append(f"{_key(at)}: Kueue {version} refuses to start with {missing} off while {shown(gates)} "
                        f"need{'s' if len(gates) == 1 else ''} it; turn {missing} back on, or add "
                        f"{', '.join(f'{{name: {g}, enabled: false}}' for g in gates)} "
                        f"[kubernetes-sigs/kueue pkg/config/validation.go, oke_rdma/facts/kueue_gates.py; "
                        f"{'; '.join(sorted(sources[missing]))}]")
    for missing, gates in idle.items():
        problems.append(f"{_key(at)}: {shown(gates)} {'has' if len(gates) == 1 else 'have'} no effect with {missing} "
                        f"off in Kueue {version} (newer Kueue fails to start on it); turn {missing} on or remove "
                        f"{', '.join(gates)} [oke_rdma/facts/kueue_gates.py; {'; '.join(sorted(sources[missing]))}]")
    return problems


def _states(version: str, explicit: dict[str, bool]):
    """``gate -> on?`` for ``version``: the user's value, else Kueue's default (a gate the table does not record
    counts as off)."""
    default_state(TAS, version)  # raises ValueError on a version that is not semver

    def state(gate: str) -> bool:
        if gate in explicit:
            return explicit[gate]
        return bool(default_state(gate, version))
    return state
