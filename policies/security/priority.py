"""System priorities only for the system: a pod at ``system-node-critical`` or ``system-cluster-critical`` preempts
everything else on its node, kube-dns, the CNI and the GPU Operator's daemons included.

``system-priority-only-for-node-agents`` (stack) refuses a workload (any kind whose pod spec the pack reads: the
built-in pod-template kinds and their ``*Patch`` variants, Kubeflow, JobSet, KubeRay, Trainer jobs) whose pod spec
names a ``priorityClassName`` starting with ``system-`` unless it lands in ``kube-system`` or a node-agent namespace
(config ``nodeAgentNamespaces``, less every tenant namespace of the stack). A tenant namespace never qualifies, and
a consumer stack deploying into a tenant's namespace (declared elsewhere) is refused too, since that namespace is
not a node-agent one. The in-cluster guard's ``<prefix>-tenant-priority`` policy and each tenant's
``system-priority`` ResourceQuota hold the same for pods created later (``oke_rdma.guard``,
``oke_rdma.tenant_defaults``).

Unknown values: an unknown pod spec, ``priorityClassName`` or namespace fails closed.

Sources (checked 2026-12-01): Kubernetes docs "Pod Priority and Preemption" (the two built-in system classes; a pod
of higher priority preempts lower ones), "Resource Quotas" ("Limit Priority Class consumption by default");
pulumi_kubernetes 4.34.2 pod spec ``priorityClassName``.
"""
from __future__ import annotations

from typing import Any

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._objects import with_derived
    from ._pod_templates import is_cluster_scoped, pod_specs
    from ._pss import NODE_ESCAPE_NAMESPACES, node_agent_namespaces
    from ._rules import UNKNOWN, read
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import with_derived
    from _pod_templates import is_cluster_scoped, pod_specs
    from _pss import NODE_ESCAPE_NAMESPACES, node_agent_namespaces
    from _rules import UNKNOWN, read
    from _gate import examines

SYSTEM_NAMESPACE = "kube-system"
SYSTEM_PREFIX = "system-"


def priority_problem(spec: Any) -> Any:
    """The ``system-*`` class a pod spec names (UNKNOWN when the spec or the field is unknown, None otherwise)."""
    if spec is UNKNOWN:
        return UNKNOWN
    name = read(spec, "priorityClassName")
    if name is UNKNOWN:
        return UNKNOWN
    return name if isinstance(name, str) and name.strip().lower().startswith(SYSTEM_PREFIX) else None


def validate_system_priority(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``system-priority-only-for-node-agents``: see the module docstring."""
    resources = with_derived(args.resources)
    allowed = {SYSTEM_NAMESPACE, *node_agent_namespaces(args.get_config(), resources)}
    for r in resources:
        found = [(where, priority_problem(spec)) for where, spec in pod_specs(r.resource_type, r.props)]
        found = [(where, name) for where, name in found if name is not None]
        if not found:
            continue
        kind = r.resource_type.split(":")[-1]
        shown = ", ".join(f"{where + ': ' if where else ''}"
                          f"{'an unknown class' if name is UNKNOWN else name}" for where, name in found)
        ns = UNKNOWN if is_cluster_scoped(r.resource_type) else read(r.props, "metadata", "namespace",
                                                                     default="default")
        if isinstance(ns, str) and ns in allowed and all(name is not UNKNOWN for _, name in found):
            continue
        where = "an unknown namespace" if ns is UNKNOWN or not isinstance(ns, str) else f"namespace '{ns}'"
        report_violation(f"{kind} '{r.name}' in {where} runs pods at a system priority ({shown}), which preempts "
                         f"the platform's own daemons; only kube-system and node agents "
                         f"({', '.join(sorted(allowed - {SYSTEM_NAMESPACE})) or 'none'}) may. Use one of the "
                         f"tenants' classes (<prefix>-tenant-low|normal|high) or none.", r.urn)


system_priority_only_for_node_agents = StackValidationPolicy(
    name="system-priority-only-for-node-agents",
    description=("A pod at system-node-critical or system-cluster-critical runs only in kube-system or a node-agent "
                 "namespace, never in a tenant's."),
    validate=validate_system_priority,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Drop priorityClassName or use a tenant class (<prefix>-tenant-low, -normal, -high); system "
                       "classes are for kube-system and node agents (nodeAgentNamespaces). Source: Kubernetes docs: "
                       "Pod Priority and Preemption; Resource Quotas."),
    tags=["kubernetes", "tenancy"],
    config_schema=PolicyConfigSchema({"nodeAgentNamespaces": {
        "type": "array", "uniqueItems": True, "default": list(NODE_ESCAPE_NAMESPACES),
        "items": {"type": "string", "maxLength": 63, "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
        "description": "Namespaces of node agents, whose pods may run at a system priority"}}),
)

PRIORITY_CLASS = "kubernetes:scheduling.k8s.io/v1:PriorityClass"


def priority_class_problem(props: Any) -> Any:
    """Why a PriorityClass lets its pods take other tenants' places, or None: it preempts (``preemptionPolicy`` other
    than ``Never``; the default is ``PreemptLowerPriority``) or it is the cluster's ``globalDefault`` (every pod
    without a class gets it). UNKNOWN when either is unknown."""
    policy = read(props, "preemptionPolicy", default="PreemptLowerPriority")
    default = read(props, "globalDefault", default=False)
    if policy is UNKNOWN or default is UNKNOWN:
        return UNKNOWN
    if policy != "Never":
        return f"preemptionPolicy is {policy!r}: its pods evict lower-priority pods, other tenants' running jobs"
    if default not in (False, None):
        return "globalDefault is set: every pod that names no class would run at it"
    return None


def validate_priority_class(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``priority-class-never-preempts``: a PriorityClass never preempts and is never the default."""
    if not args.resource_type.startswith("kubernetes:scheduling.k8s.io/") or \
            args.resource_type.split(":")[-1].removesuffix("Patch") != "PriorityClass":
        return
    problem = priority_class_problem(args.props)
    if problem is UNKNOWN:
        report_violation("preemptionPolicy or globalDefault is unknown during preview, so the class may preempt "
                         "other tenants' pods; set them from literal values")
    elif problem:
        report_violation(f"PriorityClass: {problem}; set preemptionPolicy: Never and leave globalDefault unset")


priority_class_never_preempts = ResourceValidationPolicy(
    name="priority-class-never-preempts",
    description="A PriorityClass a stack declares never preempts other pods and is not the cluster's default.",
    validate=validate_priority_class,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Set preemptionPolicy: Never (pods of the class go first in the queue but never evict running "
                       "pods) and leave globalDefault unset. Source: Kubernetes docs: Pod Priority and Preemption "
                       "(Non-preempting PriorityClass)."),
    tags=["kubernetes", "tenancy"],
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(priority_class_never_preempts, prefixes=["kubernetes:scheduling.k8s.io/"])

POLICIES = [system_priority_only_for_node_agents, priority_class_never_preempts]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "priority-class-never-preempts": "fails closed: an unknown preemptionPolicy or globalDefault is a violation",
    "system-priority-only-for-node-agents": ("fails closed: an unknown pod spec, priorityClassName or namespace is "
                                             "judged a system priority outside the allowed namespaces"),
}
