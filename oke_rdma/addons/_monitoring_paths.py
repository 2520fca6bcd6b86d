"""What kube-prometheus-stack's values may send out of the platform, and what code they may load into Grafana.

Prometheus holds every tenant's metrics (namespaces, pod and job names, GPU use that feeds metering); Alertmanager
sends alerts that carry the same labels; Grafana reads all of it. Two classes of values are refused:

* **Data leaving the platform** (:func:`egress_problems`): an address these components send to —
  ``prometheus.prometheusSpec.remoteWrite[].url`` / ``remoteRead[].url`` (Prometheus Operator API
  ``RemoteWriteSpec``/``RemoteReadSpec``), Alertmanager receivers' ``*_configs[].url``/``api_url``/``webhook_url``
  (``alertmanager.config.receivers``: Alertmanager docs "Configuration") and
  ``prometheus.prometheusSpec.additionalAlertManagerConfigs`` — unless the URL starts with one of
  ``platform.kubePrometheusStack.allowedRemoteUrls`` (a reviewed destination, e.g. the organisation's metrics
  store). An address in a cluster Service (``*.svc``/``*.svc.cluster.local``) stays inside and is fine.
* **Code Grafana downloads** (:func:`plugin_problems`): ``grafana.plugins`` entries that are a URL (``<url>;<name>``:
  an unsigned zip from anywhere) or a plugin without a version (whatever grafana.com serves that day), the same in
  ``GF_INSTALL_PLUGINS`` of ``grafana.env``, and ``grafana.ini.plugins.allow_loading_unsigned_plugins``. A plugin
  pinned as ``<id>@<version>`` or ``<id> <version>`` (Grafana docs "Install plugins", ``GF_INSTALL_PLUGINS``) from
  the signed catalogue is accepted.

Sources (read 2026-12-02): grafana/helm-charts ``charts/grafana/values.yaml`` (``plugins``, ``env``); Grafana docs
"Plugin signatures"; prometheus-operator API reference (``remoteWrite``, ``remoteRead``,
``additionalAlertManagerConfigs``); Alertmanager docs "Configuration" (receiver ``url``/``api_url``).
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Iterator

from oke_rdma.schema import _key

_URL_KEYS = frozenset({"url", "api_url", "webhook_url", "apiurl", "url_file"})
_IN_CLUSTER = re.compile(r"^https?://[^/:]+\.svc(\.cluster\.local)?(:\d+)?(/|$)", re.IGNORECASE)
_VERSION = r"v?\d+(\.\d+)+([-+][0-9A-Za-z.-]+)?"
_PINNED_PLUGIN = re.compile(rf"^[a-z0-9][a-z0-9._-]*(@|\s+){_VERSION}$", re.IGNORECASE)


def _walk(node: Any, at: tuple) -> Iterator[tuple[tuple, str, Any]]:
    """(path, key, value) of every map entry below ``node``."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield at + (k,), str(k), v
            yield from _walk(v, at + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, at + (i,))


def _leaves(values: dict, allowed: Iterable[str], at: tuple) -> Iterator[tuple[tuple, str]]:
    """(path, url) of every outbound address below the sections that send data out."""
    spec = ((values.get("prometheus") or {}).get("prometheusSpec") or {}) if isinstance(values, dict) else {}
    sections = [(("prometheus", "prometheusSpec", k), spec.get(k)) for k in
                ("remoteWrite", "remoteRead", "additionalAlertManagerConfigs")]
    sections.append((("alertmanager", "config"), ((values.get("alertmanager") or {}).get("config")
                                                  if isinstance(values.get("alertmanager"), dict) else None)))
    for base, node in sections:
        for path, key, value in _walk(node, at + base):
            if key.lower() in _URL_KEYS and isinstance(value, str):
                yield path, value
            elif key == "targets" and isinstance(value, list):  # additionalAlertManagerConfigs static targets
                yield from ((path + (i,), str(t)) for i, t in enumerate(value))


def egress_problems(values: Any, allowed: Iterable[str], at: tuple[str, ...]) -> list[str]:
    """One line per address the values send metrics or alerts to outside the cluster and not allowed."""
    if not isinstance(values, dict):
        return []
    prefixes = tuple(allowed)
    return [f"{_key(path)}: sends every tenant's metrics or alerts to {url!r}, outside the platform; remove it, or add "
            f"the reviewed destination to {_key(at[:2] + ('allowedRemoteUrls',))}"
            for path, url in _leaves(values, prefixes, at)
            if not _IN_CLUSTER.match(url) and not (prefixes and url.startswith(prefixes))]


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
