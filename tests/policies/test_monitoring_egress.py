"""Prometheus Operator resources send metrics and alerts only to cluster Services or to destinations the policy
config allows: remote write/read, every receiver kind, proxies, email smarthosts, cluster peers, tracing, and
destinations kept in Secrets (refused: they cannot be judged)."""
from __future__ import annotations

import pytest

from tests.policies.test_policies import U, messages, res, run
from offline.policy_eval import evaluate_packs
from policies import PACK_DIRS

RULE = "monitoring-data-stays-inside"
V1, V1A1 = "kubernetes:monitoring.coreos.com/v1:", "kubernetes:monitoring.coreos.com/v1alpha1:"
OUT = "https://metrics.example.net/api/v1/write"


def cr(kind: str, spec, version: str = V1):
    return res(version + kind, "cr", {"metadata": {"name": "x", "namespace": "monitoring"}, "spec": spec})


def receivers(**configs):
    return {"route": {"receiver": "r"}, "receivers": [{"name": "r", **configs}]}


REFUSED = [
    cr("Prometheus", {"remoteWrite": [{"url": OUT}]}),
    cr("Prometheus", {"remoteRead": [{"url": OUT}]}),
    cr("PrometheusAgent", {"remoteWrite": [{"url": OUT}]}, "kubernetes:monitoring.coreos.com/v1alpha1:"),
    cr("Prometheus", {"remoteWrite": [{"url": "http://vm.monitoring.svc:8428/api/v1/write",
                                       "proxyUrl": "http://proxy.example.net:3128"}]}),
    cr("Prometheus", {"remoteWrite": [{"url": U}]}),
    cr("Prometheus", {"tracingConfig": {"endpoint": "otel.example.net:4317"}}),
    cr("Prometheus", {"thanos": {"objectStorageConfig": {"name": "thanos", "key": "objstore.yml"}}}),
    cr("Prometheus", {"additionalAlertManagerConfigs": {"name": "am", "key": "cfg"}}),
    cr("ThanosRuler", {"alertmanagersUrl": ["https://am.example.net"]}),
    cr("Alertmanager", {"additionalPeers": ["am.example.net:9094"]}),
    cr("Alertmanager", {"alertmanagerConfiguration": {"name": "c", "global": {"pagerdutyUrl": OUT}}}),
    cr("AlertmanagerConfig", receivers(webhookConfigs=[{"url": "https://hooks.example.net/x"}]), V1A1),
    cr("AlertmanagerConfig", receivers(webhookConfigs=[{"urlSecret": {"name": "hook", "key": "url"}}]), V1A1),
    cr("AlertmanagerConfig", receivers(slackConfigs=[{"apiURL": {"name": "slack", "key": "url"}}]), V1A1),
    cr("AlertmanagerConfig", receivers(emailConfigs=[{"to": "a@example.net", "smarthost": "smtp.example.net:587"}]),
       V1A1),
    cr("AlertmanagerConfig", receivers(pagerdutyConfigs=[{"routingKey": {"name": "pd", "key": "k"}}]), V1A1),
    cr("AlertmanagerConfig", receivers(opsgenieConfigs=[{"apiKey": {"name": "og", "key": "k"}}]), V1A1),
    cr("AlertmanagerConfig", receivers(msteamsConfigs=[{"webhookUrl": {"name": "t", "key": "u"}}]), V1A1),
    cr("ServiceMonitor", {"endpoints": [{"port": "m", "proxyUrl": "http://proxy.example.net:3128"}]}),
    cr("ScrapeConfig", {"httpSDConfigs": [{"url": "https://sd.example.net/targets"}]}, V1A1),
    cr("Prometheus", U),
]


@pytest.mark.parametrize("resource", REFUSED)
def test_destinations_outside_the_cluster_are_refused(resource):
    assert messages(run(resource, policy=RULE), RULE)


@pytest.mark.parametrize("resource", [
    cr("Prometheus", {"remoteWrite": [{"url": "http://vm.monitoring.svc:8428/api/v1/write"}],
                      "externalUrl": "https://grafana.example.net"}),
    cr("AlertmanagerConfig", receivers(webhookConfigs=[{"url": "http://sink.apps.svc.cluster.local:8080/"}]), V1A1),
    cr("AlertmanagerConfig", receivers(emailConfigs=[{"to": "ops@corp", "smarthost": "mail.monitoring.svc:25"}]),
       V1A1),
    cr("ServiceMonitor", {"endpoints": [{"port": "metrics", "interval": "30s"}]}),
])
def test_cluster_services_pass(resource):
    assert messages(run(resource, policy=RULE), RULE) == []


def allowed_run(resource, prefixes):
    config = {"all": "disabled", RULE: {"enforcementLevel": "mandatory", "allowedRemoteUrls": prefixes}}
    return [v.message for v in evaluate_packs(PACK_DIRS, [resource], [config] * len(PACK_DIRS)).violations
            if v.policy == RULE]


def test_allowed_remote_urls_admit_the_reviewed_destinations_only():
    """A prefix admits what starts with it (URLs, smtp:// smarthosts, a built-in endpoint); nothing else."""
    assert allowed_run(cr("Prometheus", {"remoteWrite": [{"url": OUT}]}), ["https://metrics.example.net/"]) == []
    assert allowed_run(cr("Prometheus", {"remoteWrite": [{"url": "https://metrics.example.net.evil.io/w"}]}),
                       ["https://metrics.example.net/"])
    mail = cr("AlertmanagerConfig", receivers(emailConfigs=[{"smarthost": "smtp.example.net:587"}]), V1A1)
    assert allowed_run(mail, ["smtp://smtp.example.net:587"]) == []
    pd = cr("AlertmanagerConfig", receivers(pagerdutyConfigs=[{"routingKey": {"name": "pd", "key": "k"}}]), V1A1)
    assert allowed_run(pd, ["https://events.pagerduty.com/"]) == []


RELEASE = "kubernetes:helm.sh/v3:Release"


@pytest.mark.parametrize("values, ok", [
    ({"prometheus": {"prometheusSpec": {"remoteWrite": [{"url": OUT}]}}}, False),
    ({"alertmanager": {"config": {"global": {"slack_api_url": "https://hooks.slack.example.net/x"},
                                  "receivers": [{"name": "s", "slack_configs": [{"channel": "#a"}]}]}}}, False),
    ({"alertmanager": {"config": {"receivers": [{"name": "p", "pagerduty_configs": [{"routing_key": "k"}]}]}}}, False),
    ({"alertmanager": {"config": {"global": {"smtp_smarthost": "smtp.example.net:587"}}}}, False),
    ({"extraManifests": [], "prometheus": {"prometheusSpec": {"remoteWrite": [
        {"url": "http://vm.monitoring.svc:8428/api/v1/write"}]}}}, True),
    ({"alertmanager": {"config": {"global": {"slack_api_url": "http://relay.monitoring.svc/slack"},
                                  "receivers": [{"name": "s", "slack_configs": [{"channel": "#a"}]}]}}}, True),
])
def test_a_helm_release_of_the_chart_is_judged_like_the_config(values, ok):
    """A program that declares kube-prometheus-stack itself: its values' remote writes, Alertmanager's global URLs
    and receivers' built-in endpoints are judged as the config model judges the platform's release."""
    release = res(RELEASE, "kps", {"chart": "kube-prometheus-stack", "namespace": "monitoring", "values": values})
    assert (messages(run(release, policy=RULE), RULE) == []) is ok
