"""grafana-sidecars-read-their-namespace: in a stack with tenants, a kube-prometheus-stack or grafana release whose
sidecars read ConfigMaps and Secrets outside the release's namespace is refused; pinned to it, or no tenants, passes."""
from __future__ import annotations

import pytest

from policies.security.grafana_sidecars import RULE, sidecar_problems
from tests.policies.test_policies import U, messages, res, run

RELEASE = "kubernetes:helm.sh/v3:Release"
PINNED = {"dashboards": {"searchNamespace": "monitoring"}}


def release(values, chart="kube-prometheus-stack", ns="monitoring"):
    return res(RELEASE, "rel", {"chart": chart, "version": "1.0.0", "namespace": ns, "values": values})


def tenant():
    return res("kubernetes:core/v1:Namespace", "t", {"metadata": {"name": "research",
                                                                  "labels": {"okerdma.io/tenant": "research"}}})


@pytest.mark.parametrize("chart, values", [
    ("kube-prometheus-stack", {}),  # the chart's own dashboards default is ALL
    ("kube-prometheus-stack", {"grafana": {"sidecar": {**PINNED, "datasources": {"searchNamespace": "ALL"}}}}),
    ("kube-prometheus-stack", {"grafana": {"sidecar": {**PINNED, "alerts": {"searchNamespace": ["monitoring",
                                                                                               "research"]}}}}),
    ("kube-prometheus-stack", {"grafana": {"sidecar": {**PINNED, "env": {"NAMESPACE": "ALL"}}}}),
    ("kube-prometheus-stack", {"grafana": {"sidecar": {**PINNED, "notifiers": {"env": [{"name": "NAMESPACE"}]}}}}),
    ("kube-prometheus-stack", {"grafana": {"sidecar": {"dashboards": {"searchNamespace": None}}}}),
    ("kube-prometheus-stack", {"grafana": {"sidecar": {**PINNED, "plugins": {"searchNamespace": U}}}}),
    ("grafana", {"sidecar": {"datasources": {"searchNamespace": "research"}}}),
])
def test_sidecars_reading_tenant_namespaces_are_refused(chart, values):
    assert messages(run(tenant(), release(values, chart), policy=RULE), RULE)


@pytest.mark.parametrize("chart, values", [
    ("kube-prometheus-stack", {"grafana": {"sidecar": PINNED}}),
    ("kube-prometheus-stack", {"grafana": {"enabled": False}}),
    ("kube-prometheus-stack", {"grafana": {"sidecar": {"dashboards": {"enabled": False}}}}),
    ("grafana", {}),  # the grafana chart's default is the release's namespace
    ("grafana", {"sidecar": {"datasources": {"searchNamespace": ["monitoring"]}}}),
    ("keda", {"grafana": {"sidecar": {"datasources": {"searchNamespace": "ALL"}}}}),  # not a Grafana chart
])
def test_sidecars_held_to_their_namespace_pass(chart, values):
    assert messages(run(tenant(), release(values, chart), policy=RULE), RULE) == []


def test_a_stack_without_tenants_is_not_judged():
    assert messages(run(release({}), policy=RULE), RULE) == []
    assert sidecar_problems("kube-prometheus-stack", {}, "monitoring")  # the check itself still sees the default
