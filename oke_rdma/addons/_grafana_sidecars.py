"""Where Grafana's sidecars read their configuration: the monitoring namespace only, never a tenant's.

The Grafana chart's ``sidecar.<kind>`` containers (k8s-sidecar) load every ConfigMap or Secret carrying a label
(``grafana_dashboard``, ``grafana_datasource``, ``grafana_alert``, ``grafana_notifier``, ``grafana_plugin``) from
the namespaces in ``sidecar.<kind>.searchNamespace`` (a namespace, a list joined with commas, or ``ALL``; passed
through ``tpl``) into Grafana's provisioning. Tenants write ConfigMaps and Secrets in their own namespaces (the
``developer`` role), so a search beyond the release's namespace makes a tenant's object part of the platform's
Grafana:

* **datasources**: a datasource whose server-side proxy (Grafana in ``monitoring``, which the walls let into every
  tenant) queries another tenant's Services, or an outside URL with every tenant's metrics;
* **dashboards**: a dashboard that replaces the platform's GPU metering dashboards by ``uid`` (what billing reads),
  or shows every tenant's series to whoever opens it;
* **alerts** and **notifiers**: alert rules and contact points (webhooks to anywhere) fed from Prometheus;
* **plugins**: plugin app configuration with its own credentials and routes.

The chart also gives the sidecars a ClusterRole reading ConfigMaps and Secrets everywhere when the search is wide.
kube-prometheus-stack turns the dashboards sidecar's search to ``ALL`` by default, so oke-rdma pins it to the
release's namespace (where the platform's own dashboards are, :mod:`oke_rdma.monitoring.component`); a user's value
is refused unless it names that namespace (a ``null`` for dashboards brings the chart's ``ALL`` back; for the other
kinds the chart's default is the release's namespace). A ``NAMESPACE`` variable in a sidecar's ``env`` (the same
setting, by another road) is refused.

Not members, on purpose: the Prometheus Operator's ``*NamespaceSelector`` values (ServiceMonitor, PodMonitor,
Probe, ScrapeConfig, PrometheusRule, AlertmanagerConfig) and ``*SelectorNilUsesHelmValues`` select kinds of the
``monitoring.coreos.com`` group, which the tenancy model gives to the platform only (``oke_rdma.facts.tenancy``:
tenant roles never write them, the security pack and the admission guard refuse them in tenant namespaces), so a
wide selector reads only platform objects; KEDA's ``watchNamespace`` narrows what KEDA serves (tenants' own
``ScaledObject`` s in their namespaces are the feature), never widens it.

Sources (read 2026-12-02): grafana/helm-charts ``charts/grafana/values.yaml`` and ``templates/_pod.tpl``
(``sidecar.{dashboards,datasources,alerts,notifiers,plugins}.searchNamespace``, ``label``, ``resource``, ``env``;
``NAMESPACE`` rendered from ``tpl (join "," searchNamespace)``), ``templates/clusterrole.yaml``;
kube-prometheus-stack CHANGELOG 45.12.0 ("Allow dashboard in all namespaces": ``grafana.sidecar.dashboards.
searchNamespace: ALL``); kiwigrid/k8s-sidecar README (``NAMESPACE``: ``ALL`` or a comma-separated list).
"""
from __future__ import annotations

from typing import Any

from oke_rdma.schema import _key

#: Sidecar kinds → (the label it loads by default, what it provisions into Grafana).
KINDS: dict[str, tuple[str, str]] = {
    "dashboards": ("grafana_dashboard", "dashboards (a tenant's can replace the platform's GPU metering dashboards "
                                        "by uid)"),
    "datasources": ("grafana_datasource", "datasources (Grafana's proxy then queries another tenant's Services or "
                                          "an outside URL for whoever holds the datasource)"),
    "alerts": ("grafana_alert", "alert rules and contact points (webhooks to anywhere, fed every tenant's metrics)"),
    "notifiers": ("grafana_notifier", "notification channels (webhooks to anywhere)"),
    "plugins": ("grafana_plugin", "plugin app configuration (its routes and credentials)"),
}


def pinned_sidecars(namespace: str) -> dict[str, Any]:
    """oke-rdma's ``grafana.sidecar`` values: the dashboards sidecar searches the release's namespace only
    (kube-prometheus-stack's default is ``ALL``)."""
    return {"dashboards": {"searchNamespace": namespace}}


def _only(value: Any, namespace: str) -> bool:
    if isinstance(value, str):
        return value.strip() == namespace
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) and v.strip() == namespace
                                                         for v in value)


def _env_sets_namespace(env: Any) -> bool:
    if isinstance(env, dict):
        return "NAMESPACE" in env
    if isinstance(env, list):
        return any(not isinstance(e, dict) or e.get("name") == "NAMESPACE" for e in env)
    return env is not None


def sidecar_reach_problems(grafana: Any, namespace: str, at: tuple[str, ...]) -> list[str]:
    """One line per Grafana sidecar value that reads configuration from namespaces other than ``namespace`` (the
    release's), naming the key path and the fix; a value the check cannot read is refused (fail closed)."""
    if not isinstance(grafana, dict) or "sidecar" not in grafana:
        return []
    sidecar = grafana["sidecar"]
    base = at + ("sidecar",)
    if not isinstance(sidecar, dict):
        return []  # refused by the add-on's value shapes (a map)
    problems: list[str] = []
    if _env_sets_namespace(sidecar.get("env")):
        problems.append(f"{_key(base + ('env',))}: sets the sidecars' NAMESPACE (where they read ConfigMaps and "
                        f"Secrets into Grafana); remove it (they read {namespace} only)")
    for kind, (label, what) in KINDS.items():
        if kind not in sidecar:
            continue
        section = sidecar[kind]
        if not isinstance(section, dict):
            if kind != "dashboards":  # dashboards: refused by the value shapes
                problems.append(f"{_key(base + (kind,))}: expected a map, got {type(section).__name__}; write it as "
                                f"a map or remove it")
            continue
        if "searchNamespace" in section:
            value = section["searchNamespace"]
            ok = _only(value, namespace) or (kind != "dashboards" and value in (None, "", []))
            if not ok:
                shown = "null (the chart's ALL)" if value is None else repr(value)
                problems.append(
                    f"{_key(base + (kind, 'searchNamespace'))}: {shown} makes Grafana load ConfigMaps and Secrets "
                    f"labelled {label} from namespaces tenants write in as its {what}; remove it (oke-rdma keeps the "
                    f"sidecar in {namespace}, where the platform's own are) or set {namespace!r}")
        env = section.get("env")
        if _env_sets_namespace(env):
            problems.append(f"{_key(base + (kind, 'env'))}: sets the {kind} sidecar's NAMESPACE (where it reads "
                            f"ConfigMaps and Secrets into Grafana); remove it and leave searchNamespace to oke-rdma")
    return problems
