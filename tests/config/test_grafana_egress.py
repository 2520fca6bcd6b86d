"""Grafana settings that send what it shows out of the platform (external snapshots, usage reports, update checks,
Gravatar, remote rendering, image uploads, mail, front-end analytics, contact points) are refused unless the
destination is allowed; public dashboards are refused; oke-rdma's own values turn every switch off."""
from __future__ import annotations

import pytest

from oke_rdma.addons._grafana_egress import PLATFORM_DEFAULTS, grafana_egress_problems

AT = ("platform", "kubePrometheusStack")


@pytest.mark.parametrize("grafana, key", [
    ({"grafana.ini": {"snapshots": {"external_enabled": True}}}, "snapshots.external_enabled"),
    ({"grafana.ini": {"snapshots": {"external_enabled": "true", "external_snapshot_url": "https://s.x"}}},
     "snapshots.external_enabled"),
    ({"grafana.ini": {"analytics": {"reporting_enabled": True}}}, "analytics.reporting_enabled"),
    ({"grafana.ini": {"analytics": {"check_for_updates": "1"}}}, "analytics.check_for_updates"),
    ({"grafana.ini": {"security": {"disable_gravatar": False}}}, "security.disable_gravatar"),
    ({"grafana.ini": {"public_dashboards": {"enabled": True}}}, "public_dashboards.enabled"),
    ({"grafana.ini": {"rendering": {"server_url": "https://render.x/render"}}}, "rendering.server_url"),
    ({"grafana.ini": {"external_image_storage": {"provider": "s3"}}}, "external_image_storage.provider"),
    ({"grafana.ini": {"external_image_storage.webdav": {"url": "https://dav.x/"}}}, "webdav"),
    ({"grafana.ini": {"smtp": {"enabled": True, "host": "smtp.x.example:587"}}}, "smtp.host"),
    ({"grafana.ini": {"analytics": {"google_analytics_4_id": "G-1"}}}, "google_analytics_4_id"),
    ({"grafana.ini": {"tracing.opentelemetry.otlp": {"address": "otel.x:4317"}}}, "address"),
    ({"env": {"GF_SNAPSHOTS_EXTERNAL_ENABLED": "true"}}, "GF_SNAPSHOTS_EXTERNAL_ENABLED"),
    ({"env": {"GF_RENDERING_SERVER_URL": "https://render.x/"}}, "GF_RENDERING_SERVER_URL"),
    ({"alerting": {"contactpoints.yaml": {"contactPoints": [{"name": "c", "receivers": [
        {"type": "webhook", "settings": {"url": "https://hooks.x/"}}]}]}}}, "settings.url"),
])
def test_settings_that_send_data_out_are_refused_naming_the_key(grafana, key):
    problems = grafana_egress_problems(grafana, [], AT)
    assert problems and key in problems[0] and "allowedRemoteUrls" in problems[0]


def test_in_cluster_allowed_or_switched_off_settings_and_logins_pass():
    grafana = {"grafana.ini": {
        **PLATFORM_DEFAULTS, "rendering": {"server_url": "http://renderer.monitoring.svc:8081/render"},
        "server": {"root_url": "https://grafana.corp.example"},
        "auth.generic_oauth": {"auth_url": "https://idp.corp.example/auth", "token_url": "https://idp/token"},
        "smtp": {"host": "smtp.corp.example:587"}}}
    assert grafana_egress_problems(grafana, ["smtp://smtp.corp.example:587"], AT) == []
    snap = {"grafana.ini": {"snapshots": {"external_enabled": True, "external_snapshot_url": "https://snap.corp/"}}}
    assert grafana_egress_problems(snap, ["https://snap.corp/"], AT) == []
    assert grafana_egress_problems(snap, [], AT)
