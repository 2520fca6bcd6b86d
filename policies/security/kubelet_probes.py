"""Probes and lifecycle hooks connect to the pod itself: ``pod-probes-target-own-pod`` (MANDATORY).

The kubelet runs a container's liveness, readiness and startup probes and its ``postStart``/``preStop`` hooks
itself, from the node's network namespace. An ``httpGet`` or ``tcpSocket`` handler connects to its ``host``, the
pod's IP when it is unset. A host the pod sets makes the kubelet connect wherever the pod says, as the node: the
instance metadata service (169.254.169.254, whose IMDSv2 asks only for an ``Authorization: Bearer Oracle`` header a
probe's ``httpHeaders`` can send, and which holds the node's instance-principal credentials), the node's own ports
(127.0.0.1: the kubelet's, the container runtime's), the API server, another tenant's pods — past the Cilium walls,
which judge pods' traffic, not the kubelet's; the probe's result and the hook's events tell the pod what answered.

* Every ``httpGet.host`` and ``tcpSocket.host`` of a container's ``livenessProbe``, ``readinessProbe``,
  ``startupProbe``, ``lifecycle.postStart`` and ``lifecycle.preStop`` (init, regular and ephemeral containers, in
  every pod template the pack reads: built-in workloads, their ``*Patch`` forms, job custom resources and operator
  pods) must be unset or empty. In a ``hostNetwork: true`` pod the pod's IP is the node's and loopback
  (``127.0.0.0/8``, ``::1``, ``localhost``) is the pod's own network namespace, so those pass there.
* ``grpc`` probes have no host (the kubelet dials the pod's IP); ``exec`` runs inside the container; ``sleep``
  connects nowhere: all pass.
* In a Helm release's values, any ``httpGet`` or ``tcpSocket`` map with a ``host`` is refused wherever it sits (the
  chart decides which pod the probe lands in, and whether that pod is on the host network).
* An unknown handler, action or host is refused.

Sources (checked 2026-12-02): Kubernetes API reference v1.34 ``HTTPGetAction`` (``host``: "Host name to connect to,
defaults to the pod IP"), ``TCPSocketAction`` (``host``), ``GRPCAction`` (``port``, ``service``), ``LifecycleHandler``
(``exec``, ``httpGet``, ``sleep``; ``tcpSocket`` kept for compatibility), ``Container`` (the three probes,
``lifecycle``); Kubernetes docs "Configure Liveness, Readiness and Startup Probes" (the kubelet runs the probes);
OCI docs "Getting Instance Metadata" (IMDSv2: ``Authorization: Bearer Oracle``).
"""
from __future__ import annotations

import ipaddress
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy, Severity

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._gate import examines
    from ._objects import plain
    from ._pod_templates import pod_specs
    from ._rules import UNKNOWN, elements, read
    from .kubernetes import HELM_CHART_V4, HELM_RELEASE
else:  # run by the Pulumi CLI from inside policies/security/
    from _gate import examines
    from _objects import plain
    from _pod_templates import pod_specs
    from _rules import UNKNOWN, elements, read
    from kubernetes import HELM_CHART_V4, HELM_RELEASE

POLICY_NAME = "pod-probes-target-own-pod"
PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
HOOKS = ("postStart", "preStop")
#: Handler actions that connect to a host (``grpc`` has none).
ACTIONS = ("httpGet", "tcpSocket")
CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")
_MAX_NODES = 100_000


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (``127.0.0.0/8``, ``::1``)."""
    if host.strip().lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def handler_problems(handler: Any, where: str, host_network: bool) -> list[str]:
    """``where.action.host is ...`` for every action of a probe or hook that connects elsewhere than the pod."""
    if handler is None:
        return []
    if handler is UNKNOWN:
        return [f"{where} is unknown during preview"]
    found = []
    for action in ACTIONS:
        target = read(handler, action)
        if target is None:
            continue
        host = UNKNOWN if target is UNKNOWN else read(target, "host")
        if host is None or host == "":
            continue
        if host is UNKNOWN:
            found.append(f"{where}.{action}.host is unknown during preview")
        elif not (host_network and isinstance(host, str) and is_loopback(host)):
            found.append(f"{where}.{action}.host is {host!r}")
    return found


def spec_problems(spec: Any) -> list[str]:
    """Every probe or hook of a pod spec that makes the kubelet connect elsewhere than the pod."""
    if spec is None or spec is UNKNOWN or not hasattr(spec, "keys"):
        return []  # an unknown or unreadable pod spec: the pod rules fail closed on it
    host_network = read(spec, "hostNetwork") is True
    found = []
    for field in CONTAINER_LISTS:
        containers = elements(read(spec, field))
        for i, container in enumerate([] if containers is UNKNOWN else containers):
            name = read(container, "name")
            where = f"{field}[{name if isinstance(name, str) else i}]"
            for probe in PROBES:
                found += handler_problems(read(container, probe), f"{where}.{probe}", host_network)
            lifecycle = read(container, "lifecycle")
            if lifecycle is UNKNOWN:
                found.append(f"{where}.lifecycle is unknown during preview")
                continue
            for hook in HOOKS:
                found += handler_problems(read(lifecycle, hook), f"{where}.lifecycle.{hook}", host_network)
    return found


def values_problems(values: Any, path: str = "values") -> list[str]:
    """Every ``httpGet``/``tcpSocket`` map with a host anywhere in Helm values (already plain)."""
    found, stack, seen = [], [(path, values)], 0
    while stack and seen < _MAX_NODES:
        where, node = stack.pop()
        seen += 1
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ACTIONS and isinstance(value, dict) and value.get("host") not in (None, ""):
                    host = value["host"]
                    found.append(f"{where}.{key}.host is {'unknown during preview' if host is UNKNOWN else repr(host)}")
                stack.append((f"{where}.{key}", value))
        elif isinstance(node, list):
            stack.extend((f"{where}[{i}]", item) for i, item in enumerate(node))
    return sorted(found)


def probe_problems(resource_type: str, props: Any) -> list[str]:
    """Where a resource's pods (or its chart values) point a probe or hook elsewhere than the pod."""
    if resource_type in (HELM_RELEASE, HELM_CHART_V4):
        return values_problems(plain(read(props, "values")))
    found = []
    for where, spec in pod_specs(resource_type, props):
        found += [f"{where + ' ' if where else ''}{p}" for p in spec_problems(spec)]
    return found


def validate_probes_target_own_pod(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``pod-probes-target-own-pod`` (see the module docstring)."""
    for problem in probe_problems(args.resource_type, args.props):
        report_violation(f"'{args.name}' {problem}: the kubelet runs probes and hooks from the node's network and "
                         "would connect there for the pod (the instance metadata service, the node's own ports, "
                         "the API server, other tenants' pods), past the pod's network walls. Leave host unset: "
                         "the kubelet then connects to the pod's own IP (set a Host header in httpHeaders if the "
                         "server needs one).", None)


POLICIES = [examines(ResourceValidationPolicy(
    name=POLICY_NAME,
    description=("A container's probes and lifecycle hooks connect to its own pod: no httpGet or tcpSocket host "
                 "(loopback only in a hostNetwork pod)."),
    validate=validate_probes_target_own_pod, enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.HIGH,
    remediation_steps=("Remove httpGet.host and tcpSocket.host from probes and lifecycle hooks; use an httpHeaders "
                       "Host header for virtual hosts. Source: Kubernetes API reference HTTPGetAction, "
                       "TCPSocketAction."),
    tags=["pod-privilege", "network", "tenancy"]), prefixes=("kubernetes:",))]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: ("fails closed: an unknown probe, hook, action or host is a violation; an unknown pod spec is left "
                  "to the pod rules, which fail closed"),
}
