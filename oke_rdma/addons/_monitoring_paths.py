"""What kube-prometheus-stack's values may send out of the platform, and what code they may load into Grafana.

Prometheus holds every tenant's metrics (namespaces, pod and job names, GPU use that feeds metering); Alertmanager
sends alerts that carry the same labels; Grafana reads all of it. Two classes of values are refused:

* **Data leaving the platform** (:func:`egress_problems`): every address these components send to, at any depth
  of ``prometheus.prometheusSpec``, ``alertmanager.alertmanagerSpec``, ``thanosRuler.thanosRulerSpec`` and
  ``alertmanager.config`` (:func:`destinations`): keys ending in ``url``/``url_file`` (``remoteWrite[].url``,
  ``remoteRead[].url``, ``proxyUrl``/``proxy_url``, ``oauth2.token_url``, receivers' ``url``/``api_url``/
  ``webhook_url``, **the ``global`` section's** ``slack_api_url``, ``pagerduty_url``, ``opsgenie_api_url``…, which
  receivers without their own address use), ``smarthost``/``global.smtp_smarthost`` (compared as
  ``smtp://host:port``), ``additionalPeers`` (``tcp://host:port``), ``tracingConfig.endpoint``, the static targets of
  ``additionalAlertManagerConfigs``; an object-store config (Thanos ``objectStorageConfig``) or a Secret selector is
  refused (it cannot be judged); a receiver that names no address and has no global one uses the integration's
  built-in outside endpoint (:data:`BUILT_IN`, e.g. PagerDuty's) and is judged as that. Each passes only as a
  cluster Service (``*.svc``/``*.svc.cluster.local``) or under a prefix of
  ``platform.kubePrometheusStack.allowedRemoteUrls`` (a reviewed destination, e.g. the organisation's metrics
  store). ``externalUrl`` (a link) is not a destination. The security pack's ``monitoring-data-stays-inside``
  judges the Prometheus Operator's custom resources the same way.
* **Code Grafana downloads** (:func:`plugin_problems`): ``grafana.plugins`` entries that are a URL (``<url>;<name>``:
  an unsigned zip from anywhere) or a plugin without a version (whatever grafana.com serves that day), the same in
  ``GF_INSTALL_PLUGINS`` of ``grafana.env``, and ``grafana.ini.plugins.allow_loading_unsigned_plugins``. A plugin
  pinned as ``<id>@<version>`` or ``<id> <version>`` (Grafana docs "Install plugins", ``GF_INSTALL_PLUGINS``) from
  the signed catalogue is accepted.

Sources (read 2026-12-02): grafana/helm-charts ``charts/grafana/values.yaml`` (``plugins``, ``env``); Grafana docs
"Plugin signatures"; prometheus-operator API reference (``remoteWrite``, ``remoteRead``,
``additionalAlertManagerConfigs``, ``additionalPeers``, ``tracingConfig``, ``thanos.objectStorageConfig``);
Alertmanager docs "Configuration" (receiver ``url``/``api_url``, the ``<global>`` section and its defaults).
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Iterator

from oke_rdma.schema import _key

_IN_CLUSTER = re.compile(r"^([a-z][a-z0-9+.-]*://)?[^/:@\s]+\.svc(\.cluster\.local)?\.?(:\d+)?(/|$)", re.IGNORECASE)
_VERSION = r"v?\d+(\.\d+)+([-+][0-9A-Za-z.-]+)?"
_PINNED_PLUGIN = re.compile(rf"^[a-z0-9][a-z0-9._-]*(@|\s+){_VERSION}$", re.IGNORECASE)
#: Keys naming ``host:port`` rather than a URL, and the scheme they are compared with (``smtp://host:port``).
_HOST_PORT = {"smarthost": "smtp://", "smtp_smarthost": "smtp://", "additionalpeers": "tcp://"}
#: Keys whose destination sits in a Secret or an object-store config the model cannot judge.
_OPAQUE = frozenset({"objectstorageconfig", "additionalalertmanagerconfigssecret", "alertmanagersconfig"})
#: Where users reach the UI (a link in notifications): nothing is sent there.
_NOT_A_DESTINATION = frozenset({"externalurl"})
#: Alertmanager receiver lists → (the global key that gives their address, the built-in address when neither the
#: receiver nor the global section names one). Alertmanager docs "Configuration" (``<global>`` defaults).
BUILT_IN = {
    "slack_configs": ("slack_api_url", None), "jira_configs": ("jira_api_url", None),
    "pagerduty_configs": ("pagerduty_url", "https://events.pagerduty.com/v2/enqueue"),
    "opsgenie_configs": ("opsgenie_api_url", "https://api.opsgenie.com/"),
    "victorops_configs": ("victorops_api_url", "https://alert.victorops.com/integrations/generic/20131114/alert/"),
    "wechat_configs": ("wechat_api_url", "https://qyapi.weixin.qq.com/cgi-bin/"),
    "telegram_configs": ("telegram_api_url", "https://api.telegram.org"),
    "webex_configs": ("webex_api_url", "https://webexapis.com/v1/messages"),
    "rocketchat_configs": ("rocketchat_api_url", "https://open.rocket.chat"),
    "pushover_configs": (None, "https://api.pushover.net/1/messages.json"),
    "sns_configs": (None, "https://sns.amazonaws.com/"),
    "email_configs": ("smtp_smarthost", None),
}
_OWN_ADDRESS = ("url", "url_file", "api_url", "api_url_file", "webhook_url", "webhook_url_file", "smarthost")


def _walk(node: Any, at: tuple) -> Iterator[tuple[tuple, str, Any]]:
    """(path, key, value) of every map entry below ``node``."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield at + (k,), str(k), v
            yield from _walk(v, at + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, at + (i,))


def _section(values: dict, *path: str) -> Any:
    node: Any = values
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def destinations(node: Any, at: tuple) -> Iterator[tuple[tuple, str, str]]:
    """(path, address, scheme) of every address below ``node``: keys ending in ``url``/``url_file``/``urls`` (any
    case: ``url``, ``api_url``, ``proxy_url``, ``token_url``, ``proxyUrl``, ``alertmanagersUrl``…), ``smarthost``/
    ``smtp_smarthost``/``additionalPeers`` (``host:port``), ``tracingConfig.endpoint``; a value the model cannot
    read (a Secret selector, an object-store config) is yielded as ``<kind>``."""
    for path, key, value in _walk(node, at):
        low = key.lower()
        if low in _NOT_A_DESTINATION:
            continue
        if low in _OPAQUE:
            if value not in (None, {}, "", []):
                yield path, "<a destination kept in a Secret or object-store config>", ""
        elif key == "targets" and "additionalAlertManagerConfigs" in path and isinstance(value, list):
            yield from ((path + (i,), str(t), "") for i, t in enumerate(value))  # static Alertmanager targets
        elif low in _HOST_PORT or low.endswith(("url", "urls", "url_file")) or (
                low == "endpoint" and len(path) > 1 and str(path[-2]).lower() == "tracingconfig"):
            scheme = _HOST_PORT.get(low, "")
            for i, item in enumerate(value if isinstance(value, list) else [value]):
                where = path + (i,) if isinstance(value, list) else path
                if isinstance(item, dict) and {"name", "key"} <= set(item):
                    yield where, f"<Secret {item.get('name')!r}>", ""
                elif isinstance(item, dict) and "host" in item:
                    yield where, f"{item['host']}:{item.get('port', '')}".rstrip(":"), scheme
                elif isinstance(item, (str, int)) and str(item) != "":
                    yield where, str(item), scheme


def _receiver_defaults(config: Any, at: tuple) -> Iterator[tuple[tuple, str, str]]:
    """(path, built-in address, scheme) of receivers that name no address: they use the global key, else the
    integration's built-in outside endpoint."""
    if not isinstance(config, dict):
        return
    glob = config.get("global") if isinstance(config.get("global"), dict) else {}
    for r, receiver in enumerate(config.get("receivers") or [] if isinstance(config.get("receivers"), list) else []):
        if not isinstance(receiver, dict):
            continue
        for kind, (global_key, built_in) in BUILT_IN.items():
            for i, entry in enumerate(receiver.get(kind) or [] if isinstance(receiver.get(kind), list) else []):
                if isinstance(entry, dict) and any(entry.get(k) not in (None, "") for k in _OWN_ADDRESS):
                    continue  # its own address, judged by destinations()
                if global_key and glob.get(global_key) not in (None, ""):
                    continue  # the global address, judged by destinations()
                if built_in:
                    yield at + ("receivers", r, kind, i), built_in, ""


def _leaves(values: dict, at: tuple) -> Iterator[tuple[tuple, str, str]]:
    """(path, address, scheme) of every outbound address of the sections that send data out."""
    for base in (("prometheus", "prometheusSpec"), ("alertmanager", "alertmanagerSpec"),
                 ("thanosRuler", "thanosRulerSpec"), ("alertmanager", "config")):
        yield from destinations(_section(values, *base), at + base)
    yield from _receiver_defaults(_section(values, "alertmanager", "config"), at + ("alertmanager", "config"))


def outside(address: str, scheme: str, prefixes: tuple[str, ...]) -> bool:
    """True when ``address`` (compared as ``scheme + address`` for a ``host:port``) is neither a cluster Service nor
    under one of ``prefixes``."""
    if address.startswith("<"):
        return True
    text = scheme + address if scheme and "://" not in address else address
    return not _IN_CLUSTER.match(text) and not (prefixes and text.startswith(prefixes))


def egress_problems(values: Any, allowed: Iterable[str], at: tuple[str, ...]) -> list[str]:
    """One line per address the values send metrics or alerts to outside the cluster and not allowed."""
    if not isinstance(values, dict):
        return []
    prefixes = tuple(allowed)
    return [f"{_key(path)}: sends every tenant's metrics or alerts to {url!r}, outside the platform; remove it, or add "
            f"the reviewed destination to {_key(at[:2] + ('allowedRemoteUrls',))}"
            for path, url, scheme in _leaves(values, at) if outside(url, scheme, prefixes)]


def plugin_problems(grafana: Any, at: tuple[str, ...]) -> list[str]:
    """One line per Grafana plugin downloaded from a URL or without a version, and per unsigned-plugin allowance."""
    if not isinstance(grafana, dict):
        return []
    problems = []
    entries: list[tuple[tuple, Any]] = [(at + ("plugins", i), p) for i, p in enumerate(grafana.get("plugins") or [])
                                        ] if isinstance(grafana.get("plugins"), list) else []
    env = grafana.get("env")
    if isinstance(env, dict) and isinstance(env.get("GF_INSTALL_PLUGINS"), str):
        entries += [(at + ("env", "GF_INSTALL_PLUGINS"), p.strip())
                    for p in env["GF_INSTALL_PLUGINS"].split(",") if p.strip()]
    for path, plugin in entries:
        text = str(plugin).strip()
        if "://" in text:
            problems.append(f"{_key(path)}: {text!r} downloads a plugin from a URL, unsigned and unpinned, into "
                            f"Grafana (which reads every tenant's metrics); install a signed catalogue plugin "
                            f"pinned as <id>@<version>, or remove it")
        elif not _PINNED_PLUGIN.match(text):
            problems.append(f"{_key(path)}: {text!r} names no version, so Grafana installs whatever the catalogue "
                            f"serves on each start; pin it as <id>@<version>")
    unsigned = ((grafana.get("grafana.ini") or {}).get("plugins") or {}) if isinstance(
        grafana.get("grafana.ini"), dict) else {}
    if isinstance(unsigned, dict) and unsigned.get("allow_loading_unsigned_plugins"):
        problems.append(f"{_key(at + ('grafana.ini', 'plugins', 'allow_loading_unsigned_plugins'))}: lets Grafana load "
                        f"unsigned plugins (code nobody signed); remove it")
    return problems
