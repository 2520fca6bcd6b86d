"""kube-prometheus-stack values never send every tenant's metrics or alerts outside the platform unless
``allowedRemoteUrls`` lists the destination, and never load Grafana plugins from a URL, without a version, or
unsigned; in-cluster addresses and pinned catalogue plugins pass."""
from __future__ import annotations

import pytest

from oke_rdma.addons._monitoring_paths import egress_problems, plugin_problems

AT = ("platform", "kubePrometheusStack", "values")


@pytest.mark.parametrize("values, key", [
    ({"prometheus": {"prometheusSpec": {"remoteWrite": [{"url": "https://m.example/write"}]}}},
     "prometheusSpec.remoteWrite[0].url"),
    ({"prometheus": {"prometheusSpec": {"remoteRead": [{"url": "https://m.example/read"}]}}},
     "prometheusSpec.remoteRead[0].url"),
    ({"alertmanager": {"config": {"receivers": [{"name": "x", "slack_configs": [{"api_url": "https://hooks.x/y"}]}]}}},
     "slack_configs[0].api_url"),
])
def test_metrics_or_alerts_sent_outside_are_refused_naming_the_key(values, key):
    (problem,) = egress_problems(values, [], AT)
    assert problem.startswith("oke-rdma:platform.kubePrometheusStack.values.") and key in problem
    assert "oke-rdma:platform.kubePrometheusStack.allowedRemoteUrls" in problem


def test_in_cluster_and_allowed_destinations_pass():
    inside = {"prometheus": {"prometheusSpec": {"remoteWrite": [
        {"url": "http://mimir.monitoring.svc.cluster.local:8080/api/v1/push"}]}}}
    assert egress_problems(inside, [], AT) == []
    out = {"prometheus": {"prometheusSpec": {"remoteWrite": [{"url": "https://metrics.corp.example/w"}]}}}
    assert egress_problems(out, ["https://metrics.corp.example/"], AT) == []
    assert egress_problems(out, ["https://other.example/"], AT)


@pytest.mark.parametrize("grafana, said", [
    ({"plugins": ["https://x.example/p.zip;evil"]}, "from a URL"),
    ({"plugins": ["grafana-piechart-panel"]}, "no version"),
    ({"env": {"GF_INSTALL_PLUGINS": "a-panel@1.0.0,b-panel"}}, "no version"),
    ({"grafana.ini": {"plugins": {"allow_loading_unsigned_plugins": "evil"}}}, "unsigned"),
])
def test_grafana_plugins_from_urls_unpinned_or_unsigned_are_refused(grafana, said):
    (problem,) = plugin_problems(grafana, AT + ("grafana",))
    assert said in problem


def test_pinned_catalogue_plugins_pass():
    assert plugin_problems({"plugins": ["grafana-piechart-panel@1.6.4", "a-panel 2.0.1"]}, AT + ("grafana",)) == []


@pytest.mark.parametrize("values, key", [
    ({"alertmanager": {"config": {"global": {"slack_api_url": "https://hooks.x/y"}}}}, "global.slack_api_url"),
    ({"alertmanager": {"config": {"global": {"smtp_smarthost": "smtp.x.example:587"}}}}, "global.smtp_smarthost"),
    ({"alertmanager": {"config": {"global": {"http_config": {"proxy_url": "http://proxy.x:3128"}}}}},
     "http_config.proxy_url"),
    ({"alertmanager": {"config": {"receivers": [{"name": "m", "email_configs": [{"smarthost": "mx.x:25"}]}]}}},
     "email_configs[0].smarthost"),
    ({"alertmanager": {"config": {"receivers": [{"name": "o", "opsgenie_configs": [{"api_key": "k"}]}]}}},
     "opsgenie_configs[0]"),
    ({"alertmanager": {"alertmanagerSpec": {"additionalPeers": ["am.x.example:9094"]}}}, "additionalPeers[0]"),
    ({"prometheus": {"prometheusSpec": {"thanos": {"objectStorageConfig": {"existingSecret": {"name": "s"}}}}}},
     "thanos.objectStorageConfig"),
    ({"prometheus": {"prometheusSpec": {"tracingConfig": {"endpoint": "otel.x.example:4317"}}}},
     "tracingConfig.endpoint"),
    ({"thanosRuler": {"thanosRulerSpec": {"alertmanagersUrl": ["https://am.x.example"]}}}, "alertmanagersUrl[0]"),
])
def test_every_address_of_the_class_is_judged(values, key):
    """Global URLs receivers fall back to, smarthosts, proxies, peers, object stores, tracing and receivers with no
    address (the integration's built-in outside endpoint) are refused like a receiver's own URL."""
    problems = egress_problems(values, [], AT)
    assert problems and key in problems[0]


def test_smarthosts_and_built_in_endpoints_pass_when_in_cluster_or_allowed():
    mail = {"alertmanager": {"config": {"global": {"smtp_smarthost": "relay.monitoring.svc:25"}}}}
    assert egress_problems(mail, [], AT) == []
    out = {"alertmanager": {"config": {"global": {"smtp_smarthost": "smtp.corp.example:587"}}}}
    assert egress_problems(out, ["smtp://smtp.corp.example:587"], AT) == []
    pd = {"alertmanager": {"config": {"receivers": [{"name": "p", "pagerduty_configs": [{"routing_key": "k"}]}]}}}
    assert egress_problems(pd, ["https://events.pagerduty.com/"], AT) == []
    assert egress_problems({"alertmanager": {"alertmanagerSpec": {"externalUrl": "https://am.corp.example"}}},
                           [], AT) == []
