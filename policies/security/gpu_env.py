"""GPUs reach a tenant's container only through the device plugin: no ``NVIDIA_VISIBLE_DEVICES`` in the env of a
container outside the node-agent namespaces — written in ``env``, or carried by a ConfigMap or Secret that ``envFrom``
imports — and no other path that injects devices past the plugin.

The NVIDIA Container Toolkit injects the GPUs that ``NVIDIA_VISIBLE_DEVICES`` names (``all``: every GPU of the node)
into any container it runs, unprivileged ones included, unless its config sets
``accept-nvidia-visible-devices-envvar-when-unprivileged = false`` — the toolkit's own default is ``true``; with CDI
on, the runtime turns the same variable into CDI device requests under the same switch. A container that names
``all`` and requests no ``nvidia.com/gpu`` then uses every GPU of the node, past the device plugin, the GPU
ResourceQuota and Kueue: other tenants' GPUs. Whether gpu-operator v26.7.0 (the version oke-rdma installs, CDI on)
sets the switch to ``false`` for the toolkit it deploys could not be verified from its sources on 2026-12-02 (NVIDIA
documents setting it through ``toolkit.env`` as the way to isolate GPUs; many installations do), and oke-rdma does not
set it: the pack fails closed and refuses the variable itself. ``void`` and ``none`` (no GPU, NVIDIA Container
Toolkit docs "Environment variables") are accepted; a value from a ConfigMap, Secret or field reference cannot be
read and is refused.

Every way an env var reaches a container (Kubernetes API ``EnvVar``/``EnvFromSource``): ``env[].value`` (judged
here), ``env[].valueFrom`` (refused: unread), ``envFrom[]`` with ``configMapRef``/``secretRef`` and an optional
``prefix`` (stack rule ``gpu-env-from-sources-without-gpus``: the ConfigMap or Secret of the stack is read — ``data``,
``stringData``, Secret ``data`` base64 — and one the stack does not declare, or an unknown one, is refused unless the
prefix rules the name out), and the image's own ``ENV`` (not readable at preview: see docs/threat-model.md).

Every other device-injection path than ``resources`` requests (sources below): a CDI annotation (key prefix
``cdi.k8s.io``, or a vendor's ``*.cdi.k8s.io``: containerd and CRI-O inject the CDI devices it names), the NRI device
injectors' annotations (``*.nri.io``: ``cdi.nri.io``, ``devices.nri.io``, ``cdi-devices.nri.io``; the NVIDIA
Container Toolkit's NRI plugin injects workload CDI devices for pods of any namespace since toolkit PR #1854,
2026-05-27; ``devices.noderesource.dev``), written anywhere in the resource (pod and template metadata, a chart's
values); ``runtimeClassName`` naming an NVIDIA runtime class (``nvidia*``: the toolkit runtime that reads the image's
``NVIDIA_VISIBLE_DEVICES``); ``resourceClaims`` of a pod spec (Dynamic Resource Allocation: devices from a
DeviceClass, outside the ``nvidia.com/gpu`` quota and Kueue).

Sources (read 2026-12-02): Kubernetes API reference ``EnvFromSource``, ``PodSpec.resourceClaims``, ``runtimeClassName``;
CDI README (``cdi.k8s.io`` annotations); containerd issue #7329 (CDI annotations on a Deployment's pods); containerd
NRI ``plugins/device-injector`` README; NVIDIA/nvidia-container-toolkit PRs #1601 and #1854 (NRI CDI injection);
k8s-device-plugin "Using CDI". NVIDIA Container Toolkit docs "Environment variables (OCI spec)" and config.toml
(``accept-nvidia-visible-devices-envvar-when-unprivileged``); k8s-device-plugin README ("DEVICE_LIST_STRATEGY",
"Preventing unprivileged access to GPUs"); Bottlerocket settings reference (the same switch, default false there).

| rule                               | kind     | checks                                                           |
|------------------------------------|----------|------------------------------------------------------------------|
| gpu-devices-through-device-plugin  | resource | no container outside the node-agent namespaces sets              |
|                                    |          | NVIDIA_VISIBLE_DEVICES (other than void/none); no device         |
|                                    |          | annotation (CDI, NRI), NVIDIA runtimeClassName or resourceClaims |
| gpu-env-from-sources-without-gpus  | stack    | no envFrom of a ConfigMap/Secret that carries (or, undeclared or |
|                                    |          | unknown, may carry) NVIDIA_VISIBLE_DEVICES under its prefix      |
"""
from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Iterator, Mapping, Sequence

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._objects import HELM_TYPES, _unproxied, plain, with_derived
    from ._pod_fields import Uninterpretable
    from ._pod_templates import pod_specs
    from ._values_pods import values_pod_specs
    from ._rules import UNKNOWN, elements, member, read
    from .privileged_namespaces import DEFAULT_NODE_AGENT_NAMESPACES
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import HELM_TYPES, _unproxied, plain, with_derived
    from _pod_fields import Uninterpretable
    from _pod_templates import pod_specs
    from _values_pods import values_pod_specs
    from _rules import UNKNOWN, elements, member, read
    from privileged_namespaces import DEFAULT_NODE_AGENT_NAMESPACES

ENV = "NVIDIA_VISIBLE_DEVICES"
NO_GPU = frozenset({"void", "none"})
_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")
#: Annotation key prefixes that make a runtime or an NRI plugin inject devices (see the module docstring).
DEVICE_ANNOTATION = re.compile(r"^(?:[^/]*\.)?(?:cdi\.k8s\.io|nri\.io|noderesource\.dev)(?:/|$)", re.I)
#: A runtime class of the NVIDIA Container Toolkit (the GPU Operator creates ``nvidia``, ``nvidia-cdi``,
#: ``nvidia-legacy``).
NVIDIA_RUNTIME = re.compile(r"^nvidia", re.I)
CONFIG_MAP, SECRET = "kubernetes:core/v1:ConfigMap", "kubernetes:core/v1:Secret"
_WALK_LIMIT = 100_000


#: Leaf types a walk passes over as they are (no container inside; ``_unproxied`` returns them unchanged).
_LEAVES = frozenset({str, int, float, bool, type(None)})


def annotation_keys(props: Any) -> Iterator[str]:
    """Every mapping key inside ``props`` that names a device-injection annotation (any depth, iteratively)."""
    stack, seen = [props], 0
    while stack and seen < _WALK_LIMIT:
        node = stack.pop()
        seen += 1
        if type(node) in _LEAVES:  # the most common node, by far; nothing to look into
            continue
        node = _unproxied(node)
        if isinstance(node, Mapping):
            for key, value in node.items():
                if isinstance(key, str) and DEVICE_ANNOTATION.match(key):
                    yield key
                stack.append(value)
        elif isinstance(node, Sequence) and not isinstance(node, (str, bytes)):
            stack.extend(node)


def injection_problems(spec: object) -> list[str]:
    """Why a pod spec gets devices past the device plugin: an NVIDIA runtime class, DRA resource claims."""
    found = []
    runtime = read(spec, "runtimeClassName")
    if runtime is UNKNOWN or (isinstance(runtime, str) and NVIDIA_RUNTIME.match(runtime)):
        found.append(f"runs in runtime class {runtime if isinstance(runtime, str) else '(unknown)'}, whose toolkit "
                     f"runtime injects the GPUs the image's {ENV} names")
    claims = read(spec, "resourceClaims")
    if claims is UNKNOWN or elements(claims):
        found.append("takes devices through resourceClaims (Dynamic Resource Allocation), outside the nvidia.com/gpu "
                     "quota and Kueue")
    return found


def env_from_sources(spec: object) -> list[tuple[str, str, Any, Any]]:
    """``(where, kind, name, prefix)`` of every envFrom source of a pod spec whose names may include
    ``NVIDIA_VISIBLE_DEVICES`` (its prefix is empty or a prefix of it; an unknown entry counts, with UNKNOWN name)."""
    found = []
    for field in _CONTAINER_LISTS:
        for i, c in enumerate(elements(read(spec, field)) or []):
            sources = elements(read(c, "envFrom"))
            if sources is UNKNOWN:
                found.append((f"{field}[{i}].envFrom", "source", UNKNOWN, ""))
                continue
            for j, src in enumerate(sources or []):
                prefix = read(src, "prefix", default="")
                if isinstance(prefix, str) and not ENV.startswith(prefix):
                    continue
                for key, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
                    ref = read(src, key)
                    if ref is not None:
                        found.append((f"{field}[{i}].envFrom[{j}]", kind, read(ref, "name"), prefix))
                if src is UNKNOWN or prefix is UNKNOWN:
                    found.append((f"{field}[{i}].envFrom[{j}]", "source", UNKNOWN, prefix))
    return found


def _source_values(source: Any) -> Any:
    """name → value of a ConfigMap or Secret of the stack; UNKNOWN when its data is unknown or unreadable."""
    values: dict[str, Any] = {}
    fields = ("data", "stringData") if source.resource_type == SECRET else ("data",)
    for field in fields:
        data = plain(read(source.props, field, default={}))
        if data is UNKNOWN or not isinstance(data, dict):
            return UNKNOWN
        for key, value in data.items():
            if value is UNKNOWN:
                return UNKNOWN
            if source.resource_type == SECRET and field == "data" and isinstance(value, str):
                try:
                    value = base64.b64decode(value, validate=True).decode("utf-8", "replace")
                except (binascii.Error, ValueError):
                    return UNKNOWN
            values[key] = value
    return values


def env_problems(spec: object) -> list[str]:
    """One line per container of a pod spec whose env names GPUs through NVIDIA_VISIBLE_DEVICES."""
    found = []
    for field in _CONTAINER_LISTS:
        for i, c in enumerate(elements(read(spec, field)) or []):
            for entry in elements(read(c, "env")) or []:
                if read(entry, "name") != ENV:
                    continue
                value = read(entry, "value")
                if value is UNKNOWN or (value is None and read(entry, "valueFrom") is not None):
                    found.append(f"{field}[{i}] takes {ENV} from a value the preview cannot read")
                elif str(value or "").strip().lower() not in NO_GPU:
                    found.append(f"{field}[{i}] sets {ENV}={value!r}")
    return found


def validate_gpu_env(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``gpu-devices-through-device-plugin``: see the module docstring."""
    agents = set((args.get_config() or {}).get("nodeAgentNamespaces") or DEFAULT_NODE_AGENT_NAMESPACES)
    if member(read(args.props, "metadata", "namespace"), agents):
        return
    # a Helm release names its namespace at the top (``namespace``): the GPU Operator's own chart is a node agent's
    keys = [] if member(read(args.props, "namespace"), agents) else sorted(set(annotation_keys(args.props)))
    for key in keys:
        report_violation(f"'{args.name}' carries the device-injection annotation {key!r}: the container runtime (CDI) "
                         "or an NRI plugin injects the devices it names (nvidia.com/gpu=all: every GPU of the node) "
                         "past the device plugin, the GPU quota and Kueue. Remove it and request nvidia.com/gpu.", None)
    specs = pod_specs(args.resource_type, args.props)
    if args.resource_type in HELM_TYPES and not member(read(args.props, "namespace"), agents):
        specs = values_pod_specs(read(args.props, "values", default={}))  # the chart copies them into its pods
    for where, spec in specs:
        if spec is UNKNOWN or spec is None or isinstance(spec, Uninterpretable):
            continue
        for problem in env_problems(spec):
            report_violation(f"'{args.name}' {where + ' ' if where else ''}{problem}: the container toolkit injects "
                             "the GPUs it names (all: every GPU of the node) past the device plugin, the GPU quota "
                             "and Kueue. Remove it and request nvidia.com/gpu.", None)
        for problem in injection_problems(spec):
            report_violation(f"'{args.name}' {where + ' ' if where else ''}{problem}. Remove it and request "
                             "nvidia.com/gpu.", None)


def _env_from_problems(spec: Any, namespace: Any, sources: dict) -> list[str]:
    found = []
    for where, kind, name, prefix in env_from_sources(spec):
        source = sources.get((kind, namespace, name)) if isinstance(name, str) else None
        values = UNKNOWN if source is None else _source_values(source)
        if values is UNKNOWN:
            what = f"{kind} {name!r}" if isinstance(name, str) else "a source the preview cannot read"
            found.append(f"{where} imports every key of {what}{'' if source else ' (not declared by this stack)'}"
                         f" under prefix {prefix!r}: it may set {ENV}; give it a prefix {ENV} does not start with, "
                         "or declare the source in this stack")
            continue
        key = ENV[len(prefix):] if isinstance(prefix, str) else ENV
        value = values.get(key)
        if value is not None and str(value).strip().lower() not in NO_GPU:
            found.append(f"{where} imports {ENV}={value!r} from {kind} {name!r}")
    return found


def validate_gpu_env_from(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``gpu-env-from-sources-without-gpus``: see the module docstring."""
    agents = set((args.get_config() or {}).get("nodeAgentNamespaces") or DEFAULT_NODE_AGENT_NAMESPACES)
    sources = {}
    for r in args.resources:
        if r.resource_type in (CONFIG_MAP, SECRET):
            kind = "ConfigMap" if r.resource_type == CONFIG_MAP else "Secret"
            key = (kind, read(r.props, "metadata", "namespace", default="default"), read(r.props, "metadata", "name"))
            if all(isinstance(k, str) for k in key):  # a source no pod can name (a map for a name) is no source
                sources[key] = r
    for r in with_derived(args.resources):  # Helm values' pod specs too (``_values_pods``)
        namespace = read(r.props, "metadata", "namespace", default="default")
        if member(namespace, agents):
            continue
        for where, spec in pod_specs(r.resource_type, r.props):
            if spec is UNKNOWN or spec is None:
                continue
            for problem in _env_from_problems(spec, namespace, sources):
                report_violation(f"'{r.name}' {where + ' ' if where else ''}{problem}: the container toolkit injects "
                                 "the GPUs it names past the device plugin, the GPU quota and Kueue.",
                                 getattr(r, "urn", None))


gpu_devices_through_device_plugin = ResourceValidationPolicy(
    name="gpu-devices-through-device-plugin",
    description=("No container outside the node-agent namespaces names GPUs through NVIDIA_VISIBLE_DEVICES, a device "
                 "annotation (CDI, NRI), an NVIDIA runtime class or DRA resource claims."),
    validate=validate_gpu_env,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Remove NVIDIA_VISIBLE_DEVICES and request nvidia.com/gpu in resources.limits. Source: NVIDIA "
                       "Container Toolkit docs; k8s-device-plugin README."),
    tags=["pod-privilege", "gpu", "tenancy"],
    config_schema=PolicyConfigSchema(properties={"nodeAgentNamespaces": {
        "type": "array", "items": {"type": "string"}, "default": DEFAULT_NODE_AGENT_NAMESPACES,
        "description": "namespaces whose pods may set NVIDIA_VISIBLE_DEVICES (the GPU Operator's own)"}}),
)

gpu_env_from_sources_without_gpus = StackValidationPolicy(
    name="gpu-env-from-sources-without-gpus",
    description=("No container outside the node-agent namespaces imports NVIDIA_VISIBLE_DEVICES through envFrom "
                 "(a ConfigMap or Secret that carries it, or one the preview cannot read)."),
    validate=validate_gpu_env_from,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Remove NVIDIA_VISIBLE_DEVICES from the ConfigMap or Secret, or import it with a prefix "
                       "NVIDIA_VISIBLE_DEVICES does not start with; request nvidia.com/gpu. Source: Kubernetes API "
                       "EnvFromSource; NVIDIA Container Toolkit docs."),
    tags=["pod-privilege", "gpu", "tenancy"],
    config_schema=PolicyConfigSchema(properties={"nodeAgentNamespaces": {
        "type": "array", "items": {"type": "string"}, "default": DEFAULT_NODE_AGENT_NAMESPACES,
        "description": "namespaces whose pods may set NVIDIA_VISIBLE_DEVICES (the GPU Operator's own)"}}),
)

POLICIES = [gpu_devices_through_device_plugin, gpu_env_from_sources_without_gpus]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "gpu-devices-through-device-plugin": ("fails closed on an unknown env value; an unknown pod spec is left to the "
                                          "pod rules, which fail closed; an unknown runtime class or resource "
                                          "claims fail closed"),
    "gpu-env-from-sources-without-gpus": ("fails closed: an unknown envFrom entry, source name or source data, and "
                                          "a source the stack does not declare, are violations"),
}
