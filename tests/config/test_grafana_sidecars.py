"""Grafana's sidecars load ConfigMaps and Secrets into the platform's Grafana from the monitoring namespace only:
every sidecar kind searching another namespace, a list naming one, ALL, a null that brings the chart's ALL back
for dashboards, a templated value or a NAMESPACE variable is refused naming its key; the release's namespace passes,
and oke-rdma pins the dashboards sidecar (kube-prometheus-stack's default searches ALL)."""
from __future__ import annotations

import pytest

from oke_rdma.addons import kube_prometheus_stack as kps
from oke_rdma.addons._grafana_sidecars import KINDS, sidecar_reach_problems
from oke_rdma.config.platform import KubePrometheusStackRelease

AT = ("platform", "kubePrometheusStack", "values", "grafana")


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("value", ["ALL", "research", ["monitoring", "research"], "monitoring,research",
                                   "{{ .Values.x }}", 7])
def test_every_sidecar_reading_beyond_the_monitoring_namespace_is_refused(kind, value):
    (problem,) = sidecar_reach_problems({"sidecar": {kind: {"searchNamespace": value}}}, "monitoring", AT)
    assert problem.startswith(f"oke-rdma:platform.kubePrometheusStack.values.grafana.sidecar.{kind}.searchNamespace:")
    assert "remove it" in problem and KINDS[kind][0] in problem


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_monitoring_namespace_passes(kind):
    for value in ("monitoring", ["monitoring"]):
        assert sidecar_reach_problems({"sidecar": {kind: {"searchNamespace": value, "enabled": True}}},
                                      "monitoring", AT) == []


def test_null_brings_back_the_charts_all_for_dashboards_only():
    (problem,) = sidecar_reach_problems({"sidecar": {"dashboards": {"searchNamespace": None}}}, "monitoring", AT)
    assert "the chart's ALL" in problem
    assert sidecar_reach_problems({"sidecar": {"datasources": {"searchNamespace": None}}}, "monitoring", AT) == []


@pytest.mark.parametrize("sidecar, key", [
    ({"datasources": {"env": {"NAMESPACE": "ALL"}}}, "sidecar.datasources.env"),
    ({"alerts": {"env": [{"name": "NAMESPACE", "value": "ALL"}]}}, "sidecar.alerts.env"),
    ({"env": {"NAMESPACE": "ALL"}}, "sidecar.env"),
    ({"plugins": "ALL"}, "sidecar.plugins"),
])
def test_the_same_setting_by_another_road_or_unreadable_is_refused(sidecar, key):
    (problem,) = sidecar_reach_problems({"sidecar": sidecar}, "monitoring", AT)
    assert f"grafana.{key}:" in problem


def test_the_platform_pins_the_dashboards_sidecar_to_its_namespace_and_checks_the_merged_values():
    cfg = KubePrometheusStackRelease(namespace="metrics")
    assert kps.values(cfg, None)["grafana"]["sidecar"] == {"dashboards": {"searchNamespace": "metrics"}}
    bad = KubePrometheusStackRelease(namespace="metrics",
                                     values={"grafana": {"sidecar": {"notifiers": {"searchNamespace": "ALL"}}}})
    assert any("sidecar.notifiers.searchNamespace" in p for p in kps.checks(bad, ("platform", "kubePrometheusStack")))
