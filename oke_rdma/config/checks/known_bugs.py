"""Pins with a known bug the stack's own settings trigger (``oke_rdma.facts.known_bugs``).

For every enabled add-on and every row of its known bugs: when the pinned version carries the bug and the stack's
settings trigger it (a predicate of :data:`TRIGGERS`, reading the config and the release's final Helm values), the
pin is refused naming the bug, the setting and the fixed version (severity ``refuse``: quota or isolation), or warned
about on every preview (severity ``warn``: availability); a bug no release fixes yet says "unfixed in <pin>" and
names its workaround. ``platform.<key>.acceptedBugs`` turns a refusal into a
warning; an entry that is no known bug of that add-on is refused, one the pin or the settings no longer trigger is
warned about (remove it).

Read by the config loader (:func:`check_known_bugs`, exit 2) and by the program (:func:`known_bug_warnings`, each a
``pulumi.log.warn`` on every preview and update).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

import yaml

from .._base import _key
from ..stack import StackConfig
from ...facts.known_bugs import REFUSE, KnownBug, bugs_of

#: Kueue's integrations (``integrations.frameworks`` of the manager configuration) that each trigger reads.
_STATEFUL = ("statefulset", "leaderworkerset.x-k8s.io/leaderworkerset")


def _get(values: Any, *path: str) -> Any:
    cur = values
    for p in path:
        if not isinstance(cur, dict) or p not in cur:
            return None
        cur = cur[p]
    return cur


def _kueue_config(final: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Kueue's manager configuration as the release gets it (``{}`` when it cannot be read)."""
    text = _get(final.get("kueue"), "managerConfig", "controllerManagerConfigYaml")
    try:
        parsed = yaml.safe_load(text) if isinstance(text, str) else None
    except yaml.YAMLError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _frameworks(final: dict[str, dict[str, Any]]) -> list[str]:
    found = _get(_kueue_config(final), "integrations", "frameworks")
    return [f for f in found if isinstance(f, str)] if isinstance(found, list) else []


def _wait(final: dict[str, dict[str, Any]]) -> dict[str, Any]:
    found = _kueue_config(final).get("waitForPodsReady")
    return found if isinstance(found, dict) else {}


def _gate_on(final: dict[str, dict[str, Any]], key: str, gate: str) -> bool:
    """True when the release's final values turn feature gate ``gate`` on (``controllerManager.featureGates``)."""
    gates = _get(final.get(key), "controllerManager", "featureGates")
    return isinstance(gates, list) and any(
        isinstance(g, dict) and g.get("name") == gate and g.get("enabled") is True for g in gates)


def _requeue_limitrange(cfg: StackConfig, final: dict[str, dict[str, Any]]) -> Optional[str]:
    if cfg.tenants and isinstance(_wait(final).get("requeuingStrategy"), dict):
        return (f"tenants {', '.join(sorted(cfg.tenants))} get LimitRange default requests and waitForPodsReady "
                f"requeues evicted workloads")
    return None


def _limitrange_defaults(cfg: StackConfig, final: dict[str, dict[str, Any]]) -> Optional[str]:
    """Every tenant namespace has a LimitRange with default requests, and Kueue manages the tenants' workloads."""
    if cfg.tenants and _frameworks(final):
        return f"tenants {', '.join(sorted(cfg.tenants))} get LimitRange default requests and Kueue manages their pods"
    return None


def _pod_integration(cfg: StackConfig, final: dict[str, dict[str, Any]]) -> Optional[str]:
    return "the pod integration is on and tenants create pods" if cfg.tenants and "pod" in _frameworks(final) else None


def _mpi_kueue(cfg: StackConfig, final: dict[str, dict[str, Any]]) -> Optional[str]:
    """Kueue suspends and resumes MPIJobs: its kubeflow.org/mpijob integration is on."""
    if cfg.platform.kueue.enabled and "kubeflow.org/mpijob" in _frameworks(final):
        return "Kueue's kubeflow.org/mpijob integration suspends and resumes every MPIJob"
    return None


def _mpi_launcher(cfg: StackConfig, final: dict[str, dict[str, Any]]) -> Optional[str]:
    return f"tenants {', '.join(sorted(cfg.tenants))} run MPIJobs" if cfg.tenants else None


def _batch_job(cfg: StackConfig, final: dict[str, dict[str, Any]]) -> Optional[str]:
    if cfg.tenants and "batch/job" in _frameworks(final):
        return "the batch/job integration is on and tenants create Jobs"
    return None


def _statefulset(cfg: StackConfig, final: dict[str, dict[str, Any]]) -> Optional[str]:
    on = [f for f in _STATEFUL if f in _frameworks(final)]
    return f"the {' and '.join(on)} integration{'s are' if len(on) > 1 else ' is'} on" if cfg.tenants and on else None


def _leaderworkerset(cfg: StackConfig, final: dict[str, dict[str, Any]]) -> Optional[str]:
    """The leaderworkerset integration is on and the stack has tenants, who may create LeaderWorkerSets."""
    if cfg.tenants and "leaderworkerset.x-k8s.io/leaderworkerset" in _frameworks(final):
        return "the leaderworkerset integration is on and tenants may create LeaderWorkerSets"
    return None


def _pod_level_resources(cfg: StackConfig, final: dict[str, dict[str, Any]]) -> Optional[str]:
    """Tenants' pods may carry pod-level resources: served by default from Kubernetes 1.34 (PodLevelResources Beta)."""
    version = str(cfg.cluster.kubernetes_version).lstrip("v").split(".")
    try:
        minor = (int(version[0]), int(version[1]))
    except (IndexError, ValueError):
        return None  # the version rules refuse it
    if cfg.tenants and minor >= (1, 34) and _frameworks(final):  # Kueue manages the tenants' workloads
        return f"Kubernetes {cfg.cluster.kubernetes_version} serves pod-level resources and tenants create pods"
    return None


def _pod_recovery(cfg: StackConfig, final: dict[str, dict[str, Any]]) -> Optional[str]:
    timeout = _wait(final).get("recoveryTimeout")
    if timeout and "pod" in _frameworks(final):
        return f"waitForPodsReady.recoveryTimeout is {timeout} and the pod integration is on"
    return None


def _trainjob_tolerations(cfg: StackConfig, final: dict[str, dict[str, Any]]) -> Optional[str]:
    gpu_pools = [n for n, p in cfg.node_pools.items() if p.gpus]
    if "trainer" in final and "trainer.kubeflow.org/trainjob" in _frameworks(final) and gpu_pools:
        return f"Kubeflow Trainer is on and the ResourceFlavors of {', '.join(gpu_pools)} carry the GPU toleration"
    return None


def _rdma_device_plugin(cfg: StackConfig, final: dict[str, dict[str, Any]]) -> Optional[str]:
    """The operator's device plugin runs on RDMA pools and its final env does not pin MOFED_ENABLED to "false"
    (oke-rdma pins it: ``oke_rdma.addons.gpu_operator.DEVICE_INJECTION_ENV``)."""
    rdma = [n for n, p in cfg.node_pools.items() if p.rdma]
    env = _get(final.get("gpuOperator"), "devicePlugin", "env")
    pinned = isinstance(env, list) and any(
        isinstance(e, dict) and e.get("name") == "MOFED_ENABLED" and str(e.get("value")).lower() == "false"
        for e in env)
    if rdma and not pinned and _get(final.get("gpuOperator"), "devicePlugin", "enabled") is not False:
        return f"the operator's device plugin runs on the RDMA pool{'s' if len(rdma) > 1 else ''} {', '.join(rdma)}"
    return None


def _keda_tenant_kind(kind: str) -> Callable[[StackConfig, dict[str, dict[str, Any]]], Optional[str]]:
    """A predicate: the stack has tenants, and tenants may create KEDA's ``kind`` in their namespaces (the tenant
    roles grant every kind of ``oke_rdma.facts.tenancy.OPERATOR_JOB_KINDS["keda"]``)."""
    def trigger(cfg: StackConfig, final: dict[str, dict[str, Any]]) -> Optional[str]:
        return f"tenants {', '.join(sorted(cfg.tenants))} may create {kind}" if cfg.tenants else None
    return trigger


def _keda_mtls(cfg: StackConfig, final: dict[str, dict[str, Any]]) -> Optional[str]:
    """KEDA's operator and metrics server always talk gRPC over mTLS; the certificates rotate whoever issues them."""
    if _get(final.get("keda"), "certificates", "certManager", "enabled") is True:
        return "cert-manager rotates the operator's mTLS certificates"
    return "KEDA rotates its own mTLS certificates"


def _cilium_l7(cfg: StackConfig, final: dict[str, dict[str, Any]]) -> Optional[str]:
    """The L7 proxy or the Envoy DaemonSet is on in the final values (oke-rdma turns both off; user values may not)."""
    values = final.get("cilium") or {}
    on = [k for k, v in (("l7Proxy", _get(values, "l7Proxy")), ("envoy.enabled", _get(values, "envoy", "enabled")))
          if v is True]
    return f"{' and '.join(on)} {'are' if len(on) > 1 else 'is'} true in the release's values" if on else None


#: Trigger name (``KnownBug.trigger``) → predicate ``(config, final Helm values by add-on key) -> what triggers it``
#: (None: this stack does not trigger it). Only called for an enabled add-on.
TRIGGERS: dict[str, Callable[[StackConfig, dict[str, dict[str, Any]]], Optional[str]]] = {
    "kueue-requeue-limitrange": _requeue_limitrange,
    "kueue-limitrange-defaults": _limitrange_defaults,
    "kueue-pod-integration": _pod_integration,
    "kueue-batch-job": _batch_job,
    "kueue-statefulset": _statefulset,
    "kueue-leaderworkerset": _leaderworkerset,
    "kueue-pod-recovery": _pod_recovery,
    "kueue-pod-level-resources": _pod_level_resources,
    "kueue-trainjob-flavor-tolerations": _trainjob_tolerations,
    "gpu-operator-rdma-device-plugin": _rdma_device_plugin,
    "keda-tenant-scaledobjects": _keda_tenant_kind("ScaledObjects"),
    "keda-tenant-triggerauthentications": _keda_tenant_kind("TriggerAuthentications"),
    "keda-tenant-scaledjobs": _keda_tenant_kind("ScaledJobs"),
    "keda-metrics-service-mtls": _keda_mtls,
    "cilium-l7-proxy": _cilium_l7,
    "mpi-operator-kueue": _mpi_kueue,
    "mpi-operator-launcher": _mpi_launcher,
}


def _final_values(cfg: StackConfig) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    from oke_rdma.addons import REGISTRY, enabled_releases

    enabled = enabled_releases(cfg.platform, REGISTRY)
    context = REGISTRY.context(cfg.platform)
    final: dict[str, dict[str, Any]] = {}
    for key, release in enabled.items():
        try:
            final[key] = REGISTRY[key].helm_values(release, context)
        except ValueError:  # a version whose values cannot be built: check_chart_compatibility refuses it
            final[key] = {}
    return enabled, final


def findings(cfg: StackConfig) -> list[tuple[str, str]]:
    """``(kind, message)`` for every known bug the stack's pins carry and its settings trigger, and every
    ``acceptedBugs`` entry: kind ``refuse`` (a refused pin, an unknown entry) or ``warn``. Messages start with the
    config key path."""
    enabled, final = _final_values(cfg)
    out: list[tuple[str, str]] = []
    for key, release in enabled.items():
        accepted = tuple(getattr(release, "accepted_bugs", ()))
        known = bugs_of(key)
        at = ("platform", key)
        for i, ref in enumerate(accepted):
            if ref not in {b.ref for b in known}:
                listed = ", ".join(b.ref for b in known) or "none"
                out.append((REFUSE, f"{_key(at + ('acceptedBugs', i))}: {ref!r} is no known bug of {key} "
                                    f"(oke_rdma/facts/known_bugs.py lists: {listed}); remove it"))
        for bug in known:
            hit = _hit(bug, cfg, release.version, final, key)
            if hit is None:
                if bug.ref in accepted:
                    out.append(("warn", f"{_key(at + ('acceptedBugs',))}: {bug.ref} no longer applies to "
                                        f"{key} {release.version} with these settings; remove it"))
                continue
            out.append(_message(bug, key, release.version, hit, accepted))
    return out


def _hit(bug: KnownBug, cfg: StackConfig, version: str, final: dict[str, dict[str, Any]], key: str) -> Optional[str]:
    """What triggers ``bug`` in this stack at ``version`` (None: not affected or not triggered)."""
    try:
        affected = bug.affects(version)
    except ValueError:  # not semver: the version rules refuse it
        return None
    if not affected:
        if bug.gate is None or _gate_on(final, key, bug.gate):
            return None
        trigger = TRIGGERS[bug.trigger](cfg, final)
        return f"{trigger}, and feature gate {bug.gate} (which the fix needs) is off" if trigger else None
    return TRIGGERS[bug.trigger](cfg, final)


def _message(bug: KnownBug, key: str, version: str, hit: str, accepted: tuple[str, ...]) -> tuple[str, str]:
    fix = bug.fix_for(version)
    gate = f" with feature gate {bug.gate} on (oke-rdma sets it)" if bug.gate else ""
    state = f" (unfixed in {version})" if fix is None else ""
    text = (f"{_key(('platform', key, 'version'))}: {key} {version} has {bug.ref}{state}: {bug.summary}; this stack "
            f"triggers it ({hit}) [{bug.source}]")
    if fix is not None:
        text += f"; set {fix} or newer{gate}"
    if bug.workaround:
        text += f"; workaround: {bug.workaround}"
    if bug.severity == REFUSE and bug.ref not in accepted:
        return REFUSE, (f"{text}, or list {bug.ref} in platform.{key}.acceptedBugs to run with it knowingly")
    return "warn", text + (" (accepted in acceptedBugs)" if bug.ref in accepted else "")


def check_known_bugs(cfg: StackConfig) -> list[str]:
    """Refusals: a pin carrying a ``refuse`` bug the stack triggers (not accepted), an unknown ``acceptedBugs``
    entry (see the module docstring)."""
    return [m for kind, m in findings(cfg) if kind == REFUSE]


def known_bug_warnings(cfg: StackConfig) -> list[str]:
    """Warnings: ``warn`` bugs the stack triggers, accepted ``refuse`` bugs, stale ``acceptedBugs`` entries."""
    return [m for kind, m in findings(cfg) if kind != REFUSE]
