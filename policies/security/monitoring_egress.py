"""Metrics and alerts stay inside the platform: ``monitoring-data-stays-inside`` (MANDATORY, resource).

Prometheus holds every tenant's metrics (namespaces, pods, jobs, GPU use); Alertmanager's notifications carry the
same labels. The config model refuses outside destinations in kube-prometheus-stack's values unless
``platform.kubePrometheusStack.allowedRemoteUrls`` lists them (``oke_rdma.addons._monitoring_paths``); the
Prometheus Operator's custom resources reach the same places directly, so this rule judges them the same way.

Every address-bearing field of a ``monitoring.coreos.com`` resource (Prometheus Operator API reference, v1 and
v1alpha1/v1beta1, read 2026-12-02), at any depth of ``spec``:

* a field whose name ends in ``url``/``urls`` (any case): ``remoteWrite[].url``, ``remoteRead[].url`` (Prometheus,
  PrometheusAgent, ThanosRuler), ``proxyUrl``/``proxyURL`` (every HTTP client: a proxy outside sees everything),
  ``oauth2.tokenUrl``, ``alertmanagersUrl`` (ThanosRuler), the receivers of ``AlertmanagerConfig`` and of
  ``Alertmanager.spec.alertmanagerConfiguration`` (``webhookConfigs[].url``, ``pagerdutyConfigs[].url``,
  ``opsgenieConfigs[].apiURL``, ``slackConfigs[].apiURL``, ``victoropsConfigs[].apiUrl``, ``wechatConfigs[].apiURL``,
  ``telegramConfigs[].apiURL``, ``webexConfigs[].apiURL``, ``snsConfigs[].apiURL``, ``discordConfigs[].apiURL``,
  ``msteamsConfigs[].webhookUrl``, ``msteamsv2Configs``, ``rocketchatConfigs``, ``global.pagerdutyUrl``…),
  ``httpSDConfigs[].url`` (ScrapeConfig), ``prober.url`` (Probe);
* ``smarthost``/``smartHost`` (email receivers: ``host:port`` or ``{host, port}``) and ``additionalPeers``
  (Alertmanager cluster peers, who receive every alert);
* ``tracingConfig.endpoint`` (spans of every query);
* fields whose destination is kept in a Secret the pack cannot read: ``urlSecret``, a URL field given as a
  ``{name, key}`` Secret selector (``slackConfigs[].apiURL``, ``webhookConfigs[].url`` in v1beta1),
  ``additionalAlertManagerConfigs``, ``alertmanagersConfig``, ``objectStorageConfig`` /
  ``thanos.objectStorageConfig`` (every block uploaded to an object store) — refused: the destination cannot be
  judged.

The same sections of a Helm release's values (kube-prometheus-stack's ``prometheus.prometheusSpec``,
``alertmanager.alertmanagerSpec``, ``alertmanager.config`` — Alertmanager's own snake-case configuration, its
``global`` URLs included — and ``thanosRuler.thanosRulerSpec``) and the monitoring resources a release's values render
are judged too: a program that declares the chart itself is held to what the config model checks in the platform's.

A destination passes when it is a cluster Service (``<name>.<namespace>.svc[.cluster.local]``) or starts with a
prefix in this policy's ``allowedRemoteUrls`` (the reviewed destinations, the same list as the stack's
``platform.kubePrometheusStack.allowedRemoteUrls``; a smarthost or peer ``host:port`` is compared as
``smtp://host:port`` / ``tcp://host:port``). ``externalUrl`` (where users reach the UI, a link in notifications,
nothing is sent there) is not a destination. Receivers with no address of their own (``pagerdutyConfigs`` without
``url``, ``opsgenieConfigs`` without ``apiURL``…) send to the integration's built-in outside endpoint or the global
one: refused unless the built-in endpoint is allowed (:data:`BUILT_IN`).

Sources (read 2026-12-02): prometheus-operator ``Documentation/api-reference/api.md`` (RemoteWriteSpec,
RemoteReadSpec, AlertmanagerConfig receivers, AlertmanagerGlobalConfig, EmailConfig ``smarthost``,
``additionalPeers``, ThanosRulerSpec ``alertmanagersUrl``/``objectStorageConfig``, TracingConfig ``endpoint``,
ProxyConfig ``proxyUrl``, OAuth2 ``tokenUrl``); Alertmanager docs "Configuration" (integration defaults).
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Iterator

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._objects import HELM_TYPES, release_objects
    from ._rules import UNKNOWN, read
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import HELM_TYPES, release_objects
    from _rules import UNKNOWN, read
    from _gate import examines

POLICY_NAME = "monitoring-data-stays-inside"
GROUP = "monitoring.coreos.com"
IN_CLUSTER = re.compile(r"^([a-z][a-z0-9+.-]*://)?[^/:@\s]+\.svc(\.cluster\.local)?\.?(:\d+)?(/|$)", re.IGNORECASE)
#: Fields naming a host:port rather than a URL, and the scheme they are compared with.
HOST_PORT = {"smarthost": "smtp://", "smtp_smarthost": "smtp://", "additionalpeers": "tcp://"}
#: Fields whose destination sits in a Secret the pack does not read.
SECRET_HELD = frozenset({"urlsecret", "additionalalertmanagerconfigs", "alertmanagersconfig", "objectstorageconfig"})
NOT_A_DESTINATION = frozenset({"externalurl"})
#: Receiver lists → the endpoint Alertmanager uses when the receiver (and the global section) names none
#: (Alertmanager docs "Configuration", the global defaults; read 2026-12-02).
BUILT_IN = {"pagerdutyConfigs": "https://events.pagerduty.com/v2/enqueue", "opsgenieConfigs": "https://api.opsgenie.com/",
            "victoropsConfigs": "https://alert.victorops.com/integrations/generic/20131114/alert/",
            "wechatConfigs": "https://qyapi.weixin.qq.com/cgi-bin/", "telegramConfigs": "https://api.telegram.org",
            "webexConfigs": "https://webexapis.com/v1/messages", "pushoverConfigs": "https://api.pushover.net/",
            "snsConfigs": "https://sns.amazonaws.com/", "rocketchatConfigs": "https://open.rocket.chat"}
#: Alertmanager's own configuration spells the same receivers in snake case (kube-prometheus-stack's
#: ``alertmanager.config``).
BUILT_IN |= {f"{k[:-7].lower()}_configs": v for k, v in list(BUILT_IN.items())}
#: Where kube-prometheus-stack's values hold these specs (a Helm release of the chart declared by a program).
VALUES_SECTIONS = (("prometheus", "prometheusSpec"), ("alertmanager", "alertmanagerSpec"), ("alertmanager", "config"),
                   ("thanosRuler", "thanosRulerSpec"), ("prometheus-agent", "spec"))
#: A receiver entry's own address fields (any of them set: the receiver names its destination).
_OWN = ("url", "apiURL", "apiUrl", "urlSecret", "webhookUrl", "webhookURL", "api_url", "webhook_url",
        "url_file", "api_url_file", "webhook_url_file")


def _keys(node: Any) -> list[str]:
    try:
        return [str(k) for k in node.keys()]
    except Exception:  # noqa: BLE001 (an unknown mapping)
        return []


def _walk(node: Any, at: str) -> Iterator[tuple[str, str, Any]]:
    """(path, key, value) of every map entry below ``node`` (values read through :func:`read`)."""
    if isinstance(node, Mapping):
        for k in _keys(node):
            value = read(node, k)
            yield f"{at}.{k}", k, value
            yield from _walk(value, f"{at}.{k}")
    elif isinstance(node, Sequence) and not isinstance(node, str):
        for i in range(len(node)):
            yield from _walk(read(node, i), f"{at}[{i}]")


def destination_problem(address: Any, allowed: tuple[str, ...], scheme: str = "") -> str | None:
    """Why ``address`` is not a place metrics or alerts may go (None when it is)."""
    if address is UNKNOWN:
        return "is unknown during preview"
    if isinstance(address, Mapping):
        if read(address, "name") is not None and read(address, "key") is not None:
            return f"is read from Secret {read(address, 'name')!r}, which the preview cannot judge"
        host, port = read(address, "host"), read(address, "port")
        if host is None:
            return None
        address = f"{host}:{port}" if port is not None else str(host)
    if not isinstance(address, str):
        return f"is {type(address).__name__}, not an address"
    text = scheme + address if scheme and "://" not in address else address
    if IN_CLUSTER.match(text) or (allowed and text.startswith(allowed)):
        return None
    return f"sends to {address!r}, outside the platform"


def problems(spec: Any, allowed: tuple[str, ...], at: str = "spec") -> list[str]:
    """One line per address in a monitoring.coreos.com resource's ``spec`` that takes data outside."""
    found = []
    if spec is UNKNOWN:
        return [f"{at} is unknown during preview"]
    for path, key, value in _walk(spec, at):
        low = key.lower()
        if low in NOT_A_DESTINATION:
            continue
        if low in SECRET_HELD:
            found.append(f"{path} keeps its destination in a Secret the preview cannot judge")
        elif low in HOST_PORT:
            items = value if isinstance(value, Sequence) and not isinstance(value, str) else [value]
            for i, item in enumerate(items):
                problem = destination_problem(read(items, i) if items is value else item, allowed, HOST_PORT[low])
                if problem:
                    found.append(f"{path}{f'[{i}]' if items is value else ''} {problem}")
        elif low.endswith("url") or low.endswith("urls") or (low == "endpoint" and path.endswith("tracingConfig.endpoint")):
            items = value if isinstance(value, Sequence) and not isinstance(value, str) else [value]
            for i, item in enumerate(items):
                problem = destination_problem(read(items, i) if items is value else item, allowed)
                if problem:
                    found.append(f"{path}{f'[{i}]' if items is value else ''} {problem}")
        elif key in BUILT_IN and isinstance(value, Sequence) and not isinstance(value, str):
            for i in range(len(value)):
                entry = read(value, i)
                if isinstance(entry, Mapping) and not any(read(entry, k) is not None for k in _OWN):
                    problem = destination_problem(BUILT_IN[key], allowed)
                    if problem:
                        found.append(f"{path}[{i}] names no address, so it {problem} (the built-in endpoint)")
    return found


def _judged(resource_type: str) -> bool:
    return resource_type.startswith(f"kubernetes:{GROUP}/")


def _global_fallbacks(config: Any) -> set:
    """Receiver lists whose address the ``global`` section gives (Alertmanager's own configuration)."""
    glob = read(config, "global")
    if not isinstance(glob, Mapping):
        return set()
    return {kind for kind, (key, _) in _GLOBAL_KEYS.items() if read(glob, key) is not None}


#: snake-case receiver list → (global key, built-in endpoint) — Alertmanager docs "Configuration".
_GLOBAL_KEYS = {"slack_configs": ("slack_api_url", None), "pagerduty_configs": ("pagerduty_url", None),
                "opsgenie_configs": ("opsgenie_api_url", None), "victorops_configs": ("victorops_api_url", None),
                "wechat_configs": ("wechat_api_url", None), "telegram_configs": ("telegram_api_url", None),
                "webex_configs": ("webex_api_url", None), "rocketchat_configs": ("rocketchat_api_url", None)}


def release_problems(props: Any, allowed: tuple[str, ...], urn: str = "", name: str = "") -> list[str]:
    """One line per outside address in a Helm release's kube-prometheus-stack sections and in the monitoring
    resources its values render (``extraObjects``...)."""
    values = read(props, "values", default={})
    found = []
    for section in VALUES_SECTIONS:
        node = read(values, *section)
        if node is None:
            continue
        at = "values." + ".".join(section)
        lines = problems(node, allowed, at)
        if section == ("alertmanager", "config"):  # receivers that fall back to a global address are judged by it
            covered = _global_fallbacks(node)
            lines = [ln for ln in lines if not any(f".{kind}[" in ln and "names no address" in ln for kind in covered)]
        found += lines
    from types import SimpleNamespace
    for derived, _ in release_objects(SimpleNamespace(props=props, urn=urn, name=name, property_dependencies={})):
        if derived is not None and _judged(derived.resource_type or ""):
            found += [f"{derived.origin} {p}" for p in problems(read(derived.props, "spec"), allowed)]
    return found


def validate_monitoring_egress(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``monitoring-data-stays-inside``: see the module docstring."""
    allowed = tuple(p for p in ((args.get_config() or {}).get("allowedRemoteUrls") or []) if isinstance(p, str))
    if args.resource_type in HELM_TYPES:
        for problem in release_problems(args.props, allowed, args.urn, args.name):
            report_violation(f"Helm release '{args.name}': {problem}: every tenant's metrics or alerts would leave "
                             "the platform. Send to a cluster Service, or list the reviewed destination in this "
                             "policy's allowedRemoteUrls.", None)
        return
    if not _judged(args.resource_type):
        return
    kind = args.resource_type.rsplit(":", 1)[-1]
    for problem in problems(read(args.props, "spec"), allowed):
        report_violation(f"{kind} '{args.name}': {problem}: every tenant's metrics or alerts would leave the "
                         "platform. Send to a cluster Service, or list the reviewed destination in this policy's "
                         "allowedRemoteUrls (as in platform.kubePrometheusStack.allowedRemoteUrls).", None)


monitoring_data_stays_inside = ResourceValidationPolicy(
    name=POLICY_NAME,
    description="Prometheus Operator resources (Prometheus, PrometheusAgent, Alertmanager, AlertmanagerConfig, "
                "ThanosRuler, monitors) send metrics and alerts only to cluster Services or allowed URLs.",
    validate=validate_monitoring_egress,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Point remoteWrite/remoteRead, receivers, proxies and peers at cluster Services, or list the "
                       "reviewed destination in allowedRemoteUrls. Source: prometheus-operator API reference."),
    tags=["data"],
    config_schema=PolicyConfigSchema(properties={"allowedRemoteUrls": {
        "type": "array", "items": {"type": "string", "pattern": "^(https|smtp|tcp)://[^/\\s]+"}, "default": [],
        "description": "URL prefixes (https://host/..., smtp://host:port for email smarthosts, tcp://host:port for "
                       "Alertmanager peers) metrics and alerts may be sent to: the same reviewed destinations as "
                       "platform.kubePrometheusStack.allowedRemoteUrls"}}),
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(monitoring_data_stays_inside, *HELM_TYPES, prefixes=[f"kubernetes:{GROUP}/"])

POLICIES = [monitoring_data_stays_inside]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: "fails closed: an unknown spec or address is a destination outside the platform",
}
