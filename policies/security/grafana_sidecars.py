"""Grafana reads its configuration from its own namespace, not a tenant's: ``grafana-sidecars-read-their-namespace``.

The Grafana chart's sidecars (k8s-sidecar) load every ConfigMap and Secret carrying their label from the namespaces
in ``sidecar.<kind>.searchNamespace`` (one, a list, or ``ALL``) or the ``NAMESPACE`` variable of their ``env`` into
Grafana's provisioning. In a stack with tenants, a tenant who writes ConfigMaps in its own namespace then provides
the platform's Grafana with a datasource (Grafana's proxy in the monitoring namespace queries what the walls let it
reach), a dashboard replacing the GPU metering dashboards by ``uid``, alert rules or contact points. The oke-rdma
config refuses such values and pins kube-prometheus-stack's own default (``grafana.sidecar.dashboards.
searchNamespace: ALL`` since chart 45.12.0) to the release's namespace (``oke_rdma/addons/_grafana_sidecars.py``);
this rule holds the same for every stack the pack judges.

A Helm ``Release`` or v4 ``Chart`` of ``kube-prometheus-stack`` (values under ``grafana``; skipped when
``grafana.enabled`` is false) or of ``grafana`` (values at the top), in a stack with tenants (``_pss``), is refused
when a sidecar ``searchNamespace`` of dashboards, datasources, alerts, notifiers or plugins names anything but the
release's namespace (for kube-prometheus-stack's dashboards sidecar an unset or null value is the chart's ``ALL``;
for the others unset, null or empty is the release's namespace), when ``sidecar.env`` or ``sidecar.<kind>.env`` sets
``NAMESPACE``, or when any of these, the values or the release's namespace are unknown during preview.

Sources (checked 2026-12-03): grafana/helm-charts ``charts/grafana/values.yaml`` and ``templates/_pod.tpl``
(``sidecar.<kind>.searchNamespace`` rendered into ``NAMESPACE``), kube-prometheus-stack CHANGELOG 45.12.0 ("Allow
dashboard in all namespaces"), kiwigrid/k8s-sidecar README (``NAMESPACE``: ``ALL`` or a comma-separated list).
"""
from __future__ import annotations

from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy

if __package__:  # imported as the package `policies.security`
    from ._objects import HELM_TYPES
    from ._plain import plain
    from ._pss import tenant_namespaces
    from ._rules import UNKNOWN, read
    from .kubernetes import chart_name
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import HELM_TYPES
    from _plain import plain
    from _pss import tenant_namespaces
    from _rules import UNKNOWN, read
    from kubernetes import chart_name

RULE = "grafana-sidecars-read-their-namespace"
#: Sidecar kinds → the label of the objects it loads (grafana chart values.yaml).
KINDS = {"dashboards": "grafana_dashboard", "datasources": "grafana_datasource", "alerts": "grafana_alert",
         "notifiers": "grafana_notifier", "plugins": "grafana_plugin"}
#: Chart → (where Grafana's values sit, sidecar kinds whose unset search is the chart's ALL).
CHARTS = {"kube-prometheus-stack": (("grafana",), {"dashboards"}), "grafana": ((), set())}


def _only(value: Any, namespace: str) -> bool:
    if isinstance(value, str):
        return value.strip() == namespace
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) and v.strip() == namespace
                                                         for v in value)


def _sets_namespace(env: Any) -> bool:
    if env is None:
        return False
    if isinstance(env, dict):
        return "NAMESPACE" in env
    if isinstance(env, list):
        return any(not isinstance(e, dict) or e.get("name") in ("NAMESPACE", UNKNOWN) for e in env)
    return True  # unknown or of another shape: fail closed


def sidecar_problems(chart: str, values: Any, namespace: Any) -> list[str]:
    """Why a release's Grafana sidecars may read ConfigMaps and Secrets outside ``namespace`` (its own)."""
    path, wide_by_default = CHARTS[chart]
    grafana = read(values, *path) if path else values
    if values is UNKNOWN or grafana is UNKNOWN:
        return ["its values are unknown during preview, so where Grafana's sidecars read cannot be judged"]
    grafana = grafana if isinstance(grafana, dict) else {}
    if path and grafana.get("enabled") is False:
        return []
    if not isinstance(namespace, str):
        return ["its namespace is unknown during preview, so where Grafana's sidecars read cannot be judged"]
    sidecar = grafana.get("sidecar", {})
    if not isinstance(sidecar, dict):
        return [f"{'.'.join(path + ('sidecar',))} is not a map the pack can read"]
    where = ".".join(path + ("sidecar",))
    found = [f"{where}.env sets NAMESPACE (where every sidecar reads)"] if _sets_namespace(sidecar.get("env")) else []
    for kind, label in KINDS.items():
        section = sidecar.get(kind, {})
        if not isinstance(section, dict):
            found.append(f"{where}.{kind} is not a map the pack can read")
            continue
        if section.get("enabled") is False:
            continue
        value = section.get("searchNamespace")
        unset_is_wide = kind in wide_by_default
        if value is UNKNOWN or not (_only(value, namespace) or (not unset_is_wide and value in (None, "", []))):
            shown = ("unset, the chart's ALL" if value is None else
                     "unknown during preview" if value is UNKNOWN else repr(value))
            found.append(f"{where}.{kind}.searchNamespace is {shown}: ConfigMaps and Secrets labelled {label} in "
                         f"namespaces tenants write in become Grafana's {kind}; set it to {namespace!r}")
        if _sets_namespace(section.get("env")):
            found.append(f"{where}.{kind}.env sets NAMESPACE (where the {kind} sidecar reads)")
    return found


def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``grafana-sidecars-read-their-namespace`` (module docstring)."""
    tenants = tenant_namespaces(list(args.resources))
    if not tenants:
        return
    for r in args.resources:
        if r.resource_type not in HELM_TYPES:
            continue
        chart = chart_name(r.props)
        if chart not in CHARTS:
            continue
        values = plain(read(r.props, "values", default={}))
        namespace = read(r.props, "namespace", default="default")
        for problem in sidecar_problems(chart, values, namespace):
            report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}' ({chart}): {problem}. With tenants in the "
                             f"stack ({', '.join(sorted(tenants)[:3])}), Grafana would provision what a tenant "
                             "writes.", r.urn)


POLICIES = [
    StackValidationPolicy(
        name=RULE,
        description=("In a stack with tenants, Grafana's sidecars read dashboards, datasources, alerts, notifiers "
                     "and plugins from the release's own namespace only, never from namespaces tenants write in."),
        validate=validate, enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.HIGH,
        remediation_steps=("Set grafana.sidecar.<kind>.searchNamespace to the release's namespace (kube-prometheus-"
                           "stack's dashboards default is ALL) and leave NAMESPACE out of the sidecars' env. Source: "
                           "grafana chart values.yaml; kube-prometheus-stack CHANGELOG 45.12.0."),
        tags=["kubernetes", "tenancy", "monitoring"]),
]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    RULE: ("fails closed: unknown values, an unknown searchNamespace or env, or an unknown release namespace is a "
           "violation when the stack has tenants"),
}
