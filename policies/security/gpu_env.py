"""GPUs reach a tenant's container only through the device plugin: no ``NVIDIA_VISIBLE_DEVICES`` in the env of a
container outside the node-agent namespaces.

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

Sources (read 2026-12-02): NVIDIA Container Toolkit docs "Environment variables (OCI spec)" and config.toml
(``accept-nvidia-visible-devices-envvar-when-unprivileged``); k8s-device-plugin README ("DEVICE_LIST_STRATEGY",
"Preventing unprivileged access to GPUs"); Bottlerocket settings reference (the same switch, default false there).

| rule                               | kind     | checks                                                           |
|------------------------------------|----------|------------------------------------------------------------------|
| gpu-devices-through-device-plugin  | resource | no container outside the node-agent namespaces sets              |
|                                    |          | NVIDIA_VISIBLE_DEVICES (other than void/none)                    |
"""
from __future__ import annotations

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._pod_templates import pod_specs
    from ._rules import UNKNOWN, elements, read
    from .privileged_namespaces import DEFAULT_NODE_AGENT_NAMESPACES
else:  # run by the Pulumi CLI from inside policies/security/
    from _pod_templates import pod_specs
    from _rules import UNKNOWN, elements, read
    from privileged_namespaces import DEFAULT_NODE_AGENT_NAMESPACES

ENV = "NVIDIA_VISIBLE_DEVICES"
NO_GPU = frozenset({"void", "none"})
_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


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
    if read(args.props, "metadata", "namespace") in agents:
        return
    for where, spec in pod_specs(args.resource_type, args.props):
        if spec is UNKNOWN or spec is None:
            continue
        for problem in env_problems(spec):
            report_violation(f"'{args.name}' {where + ' ' if where else ''}{problem}: the container toolkit injects "
                             "the GPUs it names (all: every GPU of the node) past the device plugin, the GPU quota "
                             "and Kueue. Remove it and request nvidia.com/gpu.", None)


gpu_devices_through_device_plugin = ResourceValidationPolicy(
    name="gpu-devices-through-device-plugin",
    description="No container outside the node-agent namespaces names GPUs through NVIDIA_VISIBLE_DEVICES.",
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

POLICIES = [gpu_devices_through_device_plugin]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "gpu-devices-through-device-plugin": ("fails closed on an unknown env value; an unknown pod spec is left to the "
                                          "pod rules, which fail closed"),
}
