"""Grafana settings that send the platform's data out: refused unless the destination is reviewed.

Grafana reads every tenant's metrics; several of its settings send what it shows (or who uses it) to another host.
The class, from Grafana's ``conf/defaults.ini`` and ``conf/sample.ini`` (grafana/grafana, read 2026-12-02) and the
grafana chart's values (``grafana.ini``, ``env``, ``alerting``, ``notifiers``):

* **Switches with an outside destination** (:data:`SWITCHES`): ``[snapshots] external_enabled`` publishes a
  dashboard with its data to ``external_snapshot_url`` (default ``https://snapshots.raintank.io``, on by default);
  ``[analytics] reporting_enabled`` (usage statistics to ``stats.grafana.org``), ``check_for_updates`` and
  ``check_for_plugin_updates`` (``grafana.com``), ``[news] news_feed_enabled`` (``grafana.com``), Gravatar
  (``[security] disable_gravatar`` false: users' e-mail hashes to ``secure.gravatar.com``). oke-rdma turns each
  off (:data:`PLATFORM_DEFAULTS`, set in the chart values); a value that turns one on is refused unless its
  destination is under ``platform.kubePrometheusStack.allowedRemoteUrls``.
* **Sharing without a login**: ``[public_dashboards] enabled`` (on by default): anyone with the link reads the
  dashboard's data, no account — refused, like anonymous access (oke-rdma turns it off).
* **Addresses**: every ``grafana.ini`` key ending in ``url`` or named ``address`` (``[rendering] server_url`` and
  ``callback_url``: dashboards rendered by another host; ``[external_image_storage.webdav] url``; ``[tracing.*]
  address``; ``[database] url``; ``[plugins] plugin_catalog_url``; analytics' ``rudderstack_data_plane_url``…),
  ``[database] host`` and ``[smtp] host`` (``smtp://host:port``: every alert and invitation mail) — judged like the
  Prometheus addresses (a cluster Service, or under an allowed prefix). ``[server]`` (Grafana's own address) and
  the login sections ``[auth.*]`` (the identity provider a login goes to) are not destinations.
* **Uploads with no URL**: ``[external_image_storage] provider`` other than ``local`` (``s3``, ``gcs``,
  ``azure_blob``, ``webdav``): rendered panels go to that store; ``webdav`` is judged by its ``url``, the others are
  refused. Front-end analytics (``google_analytics_ua_id``, ``google_analytics_4_id``, ``google_tag_manager_id``,
  ``rudderstack_write_key``, ``application_insights_connection_string``, ``intercom_secret``): every user's browser
  reports what it views to that service — refused.
* **Contact points**: addresses in the chart's ``alerting`` (provisioned contact points) and ``notifiers`` values.
* The same settings through ``env`` (``GF_<SECTION>_<KEY>``, Grafana docs "Configure Grafana": override with
  environment variables).
"""
from __future__ import annotations

from typing import Any, Iterable, Iterator

from oke_rdma.addons._monitoring_paths import destinations, outside
from oke_rdma.schema import _key

#: (section, key, value that turns it on, where it sends, what leaves) — Grafana conf/defaults.ini (2026-12-02).
SWITCHES = (
    ("snapshots", "external_enabled", True, None, "a dashboard and its data, published by one click"),
    ("analytics", "reporting_enabled", True, "https://stats.grafana.org", "usage statistics"),
    ("analytics", "check_for_updates", True, "https://grafana.com", "its version, daily"),
    ("analytics", "check_for_plugin_updates", True, "https://grafana.com", "its plugins' versions, daily"),
    ("news", "news_feed_enabled", True, "https://grafana.com", "a request per user for the news feed"),
    ("security", "disable_gravatar", False, "https://secure.gravatar.com", "users' e-mail hashes"),
)
SNAPSHOT_DEFAULT = "https://snapshots.raintank.io"
#: What oke-rdma sets in ``grafana.grafana.ini`` (the values() of the release): every switch off.
PLATFORM_DEFAULTS = {"snapshots": {"external_enabled": False}, "public_dashboards": {"enabled": False},
                     "analytics": {"reporting_enabled": False, "check_for_updates": False,
                                   "check_for_plugin_updates": False},
                     "news": {"news_feed_enabled": False}, "security": {"disable_gravatar": True}}
FRONTEND_ANALYTICS = ("google_analytics_ua_id", "google_analytics_4_id", "google_tag_manager_id",
                      "rudderstack_write_key", "application_insights_connection_string", "intercom_secret")
_NOT_DESTINATION_SECTIONS = ("server", "auth")
_TRUE_TEXT = ("true", "1", "yes", "on")


def _bool(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, (str, int)):
        return str(value).strip().lower() in _TRUE_TEXT
    return None


def _settings(grafana: dict, at: tuple) -> dict[tuple[str, str], tuple[tuple, Any]]:
    """(section, key) → (key path, value) from ``grafana.ini`` and ``GF_<SECTION>_<KEY>`` in ``env``."""
    found: dict[tuple[str, str], tuple[tuple, Any]] = {}
    ini = grafana.get("grafana.ini")
    if isinstance(ini, dict):
        for section, body in ini.items():
            if isinstance(body, dict):
                for key, value in body.items():
                    found[(str(section), str(key))] = (at + ("grafana.ini", section, key), value)
    env = grafana.get("env")
    if isinstance(env, dict):
        known = {("GF_" + f"{s}_{k}".replace(".", "_").upper()): (s, k) for s, k in found} | {
            ("GF_" + f"{s}_{k}".upper()): (s, k) for s, k, *_ in SWITCHES} | {
            "GF_PUBLIC_DASHBOARDS_ENABLED": ("public_dashboards", "enabled"),
            "GF_SNAPSHOTS_EXTERNAL_SNAPSHOT_URL": ("snapshots", "external_snapshot_url"),
            "GF_EXTERNAL_IMAGE_STORAGE_PROVIDER": ("external_image_storage", "provider"),
            **{f"GF_ANALYTICS_{k.upper()}": ("analytics", k) for k in FRONTEND_ANALYTICS}}
        for name, value in env.items():
            name = str(name)
            if name in known:
                found[known[name]] = (at + ("env", name), value)
            elif name.startswith("GF_") and name.endswith("_URL") and not name.startswith(("GF_SERVER_", "GF_AUTH_")):
                found[("env", name.lower())] = (at + ("env", name), value)
    return found


def _problems(grafana: dict, prefixes: tuple[str, ...], at: tuple) -> Iterator[tuple[tuple, str]]:
    settings = _settings(grafana, at)
    for section, key, on, where, what in SWITCHES:
        path, value = settings.get((section, key), (None, None))
        if path is None or _bool(value) is not on and _bool(value) is not None:
            continue
        dest = where or str(settings.get((section, "external_snapshot_url"), (None, SNAPSHOT_DEFAULT))[1] or
                            SNAPSHOT_DEFAULT)
        if _bool(value) is None or outside(dest, "", prefixes):
            yield path, f"sends {what} to {dest!r}, outside the platform"
    path, value = settings.get(("public_dashboards", "enabled"), (None, None))
    if path is not None and _bool(value) is not False:
        yield path, "shares dashboards with anyone who has the link, without a login (public dashboards)"
    path, value = settings.get(("external_image_storage", "provider"), (None, None))
    if path is not None and str(value or "local").strip().lower() not in ("local", "webdav"):
        yield path, f"uploads rendered panels to {value!r} storage, which no allowed URL can describe"
    for name in FRONTEND_ANALYTICS:
        path, value = settings.get(("analytics", name), (None, None))
        if path is not None and value not in (None, ""):
            yield path, "reports every user's views to an outside analytics service"
    for (section, key), (path, value) in settings.items():
        low = key.lower()
        if section.startswith(_NOT_DESTINATION_SECTIONS) or (section, key) == ("snapshots", "external_snapshot_url"):
            continue
        scheme = None
        if low.endswith("url") or low == "address" or (section == "env" and low.endswith("_url")):
            scheme = ""
        elif (section, low) in (("smtp", "host"), ("database", "host")):
            scheme = "smtp://" if section == "smtp" else "tcp://"
        if scheme is not None and value not in (None, "") and outside(str(value), scheme, prefixes):
            yield path, f"sends to {value!r}, outside the platform"
    for part in ("alerting", "notifiers"):
        for path, address, scheme in destinations(grafana.get(part), at + (part,)):
            if outside(address, scheme, prefixes):
                yield path, f"sends alerts to {address!r}, outside the platform"


def grafana_egress_problems(grafana: Any, allowed: Iterable[str], at: tuple[str, ...]) -> list[str]:
    """One line per Grafana setting (``values.grafana``) that sends data outside and is not allowed."""
    if not isinstance(grafana, dict):
        return []
    allow = _key(at[:2] + ("allowedRemoteUrls",))
    return [f"{_key(path)}: {problem}; remove it, or (for a reviewed destination) add it to {allow}"
            for path, problem in _problems(grafana, tuple(allowed), at + ("values", "grafana"))]
