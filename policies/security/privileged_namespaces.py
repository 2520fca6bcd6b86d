"""Privileged namespaces only where the platform needs them: node agents and GPU tenants.

``privileged-namespace-purpose`` (stack) refuses a ``Namespace`` whose ``pod-security.kubernetes.io/enforce`` label
is ``privileged`` (or unknown) unless it is

* a node-agent namespace (config ``nodeAgentNamespaces``: Cilium's, the GPU Operator's and the Prometheus node exporter's,
  plus the RDMA topology labeler's, which reads instance metadata over hostNetwork; only the config names them —
  releasing a node-agent chart somewhere does not, so a renamed namespace is added to the config), or
* a GPU tenant namespace: the stack puts a ``ResourceQuota`` in it that caps ``requests.nvidia.com/gpu`` (how an
  OKE platform admits tenants to GPUs; RDMA training pods need hostNetwork, privileged and IPC_LOCK, which only
  ``privileged`` allows).

A privileged namespace with neither purpose lets any pod in it run privileged: label it ``restricted``. Node escape
inside a privileged tenant is still refused by ``node-escape-only-in-node-agent-namespaces``.

Sources (checked 2026-11-30): Kubernetes docs "Pod Security Admission" (the enforce label), "Pod Security Standards"
(privileged is unrestricted), "Resource Quotas" (extended resources quota as ``requests.<resource>``); NVIDIA GPU
Operator docs (the operator's pods run privileged); pulumi_kubernetes 4.34.2 ``core/v1:ResourceQuota``.
"""
from __future__ import annotations

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, Severity, StackValidationArgs,
                           StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._objects import with_derived
    from ._pss import GPU_QUOTA_KEY, gpu_tenant_namespaces
    from ._rules import UNKNOWN, read
    from .kubernetes import ENFORCE_LABEL, NAMESPACE
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import with_derived
    from _pss import GPU_QUOTA_KEY, gpu_tenant_namespaces
    from _rules import UNKNOWN, read
    from kubernetes import ENFORCE_LABEL, NAMESPACE

DEFAULT_NODE_AGENT_NAMESPACES = ["cilium", "gpu-operator", "monitoring", "oke-rdma-topology"]


def validate_privileged_namespace_purpose(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``privileged-namespace-purpose``: see the module docstring."""
    agents = set((args.get_config() or {}).get("nodeAgentNamespaces") or DEFAULT_NODE_AGENT_NAMESPACES)
    resources = with_derived(args.resources)  # rendered Namespaces and quotas, NamespacePatches that relabel
    tenant_names, tenant_urns = gpu_tenant_namespaces(resources)
    for ns in (r for r in resources if r.resource_type == NAMESPACE):
        level = read(ns.props, "metadata", "labels", ENFORCE_LABEL)
        if level != "privileged" and level is not UNKNOWN:
            continue
        name = read(ns.props, "metadata", "name")
        if name in agents or name in tenant_names or ns.urn in tenant_urns:
            continue
        shown = name if isinstance(name, str) else ns.name
        why = "may be labelled privileged (its label is unknown during preview)" if level is UNKNOWN else \
            "is labelled privileged"
        report_violation(f"Namespace '{shown}' {why}, but it is neither a node-agent namespace "
                         f"({', '.join(sorted(agents))}) nor a GPU tenant (a ResourceQuota on {GPU_QUOTA_KEY} in it), "
                         "so any pod there may run privileged. Label it restricted.", ns.urn)


privileged_namespace_purpose = StackValidationPolicy(
    name="privileged-namespace-purpose",
    description=("A namespace labelled privileged is a node-agent namespace or a GPU tenant namespace (one with a "
                 "ResourceQuota on requests.nvidia.com/gpu)."),
    validate=validate_privileged_namespace_purpose,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Label the namespace pod-security.kubernetes.io/enforce: restricted; privileged is for RDMA "
                       "tenants (which get a GPU ResourceQuota) and node agents (nodeAgentNamespaces). Source: "
                       "Kubernetes docs: Pod Security Admission; Pod Security Standards; Resource Quotas."),
    tags=["kubernetes", "pod-security"],
    config_schema=PolicyConfigSchema({"nodeAgentNamespaces": {
        "type": "array", "uniqueItems": True, "default": DEFAULT_NODE_AGENT_NAMESPACES,
        "items": {"type": "string", "maxLength": 63, "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
        "description": "Namespaces of node agents that may be labelled privileged"}}),
)

POLICIES = [privileged_namespace_purpose]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "privileged-namespace-purpose": ("fails closed: a namespace whose enforce label is unknown is judged as "
                                     "privileged"),
}
