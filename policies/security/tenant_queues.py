"""Tenant isolation through Kueue: who gets the tenants' GPUs. Kueue objects run no pods, but a ClusterQueue decides
which namespaces' workloads take a pool's capacity, and a cohort decides who borrows it — so not all of
``kueue.x-k8s.io`` is harmless (the catalogue still lets the kinds through; these stack rules judge what they say).

| rule                                 | judges                                                                   |
|--------------------------------------|--------------------------------------------------------------------------|
| cluster-queues-select-one-namespace  | every ClusterQueue's ``namespaceSelector`` is absent (Kueue: no          |
|                                      | namespace) or names one namespace by ``kubernetes.io/metadata.name``     |
|                                      | (``matchLabels``, or ``matchExpressions`` ``In`` with one value); ``{}`` |
|                                      | selects every namespace, any other label selector every namespace that   |
|                                      | carries (or is later given) the label                                    |
| tenant-cohorts-hold-only-tenants     | a cohort tree (``spec.cohortName`` / ``spec.cohort`` of ClusterQueues,   |
|                                      | ``spec.parentName`` / ``spec.parent`` of Cohort objects) that holds a    |
|                                      | tenant's ClusterQueue holds only ClusterQueues that select one tenant    |
|                                      | namespace: any other member borrows the tenants' unused quota and, with  |
|                                      | ``borrowWithinCohort``, preempts to keep it                              |
| gpu-pods-only-in-tenant-namespaces   | a pod spec that takes a GPU-class device (any extended resource:         |
|                                      | ``nvidia.com/gpu``, ``gpu.shared``, ``mig-*``, a renamed one; DRA        |
|                                      | ``resourceClaims``: ``_gpu_pods``) runs in a tenant namespace (its       |
|                                      | ResourceQuota and LocalQueue bound it)                                   |
|                                      | or a node-agent namespace (the GPU Operator's validators): elsewhere no  |
|                                      | quota applies and Kueue ignores it (``manageJobsWithoutQueueName``       |
|                                      | defaults to false), so it takes GPUs past every tenant's share; a        |
|                                      | workload labelled ``kueue.x-k8s.io/queue-name`` passes (Kueue holds it   |
|                                      | until a ClusterQueue selecting its namespace admits it)                  |

Tenant namespaces: ``_pss.tenant_namespaces`` (a GPU quota, a LocalQueue or the ``okerdma.io/tenant`` label).
Unknown selectors, cohort names and pod specs fail closed.

Sources (checked 2026-12-02): Kueue docs "Cluster Queue" (``namespaceSelector``: ``{}`` admits every namespace, an
unset selector none; cohorts, ``borrowWithinCohort``, ``reclaimWithinCohort``), "Cohort" (hierarchical cohorts,
``parentName``), "Run Plain Pods" / Kueue configuration API (``manageJobsWithoutQueueName`` default false); Kubernetes
docs "Resource Quotas" (``requests.nvidia.com/gpu`` per namespace), "Well-Known Labels" (``kubernetes.io/metadata.name``
is set by the API server to the namespace's name and cannot be changed).
"""
from __future__ import annotations

import re
from typing import Any, Iterable

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, Severity, StackValidationArgs,
                           StackValidationPolicy)

if __package__:  # imported as the package `policies.security`
    from ._gpu_pods import asks_for_gpus, queued
    from ._objects import with_derived
    from ._pod_templates import pod_specs
    from ._pss import node_agent_namespaces, tenant_namespaces
    from ._rules import UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _gpu_pods import asks_for_gpus, queued
    from _objects import with_derived
    from _pod_templates import pod_specs
    from _pss import node_agent_namespaces, tenant_namespaces
    from _rules import UNKNOWN, elements, read

SELECT_ONE, COHORTS, GPU_PODS = ("cluster-queues-select-one-namespace", "tenant-cohorts-hold-only-tenants",
                                 "gpu-pods-only-in-tenant-namespaces")
NAME_LABEL, QUEUE_LABEL = "kubernetes.io/metadata.name", "kueue.x-k8s.io/queue-name"
_CLUSTER_QUEUE = re.compile(r"^kubernetes:kueue\.x-k8s\.io/[^:]+:ClusterQueue(Patch)?$")
_COHORT = re.compile(r"^kubernetes:kueue\.x-k8s\.io/[^:]+:Cohort(Patch)?$")
_NO_NAMESPACE = object()  # an unset selector: Kueue admits from no namespace


def selected_namespace(queue: Any) -> Any:
    """The one namespace a ClusterQueue's ``namespaceSelector`` names, :data:`_NO_NAMESPACE` when unset, UNKNOWN
    when unknown, or None when it selects anything else (several namespaces, or every one)."""
    selector = read(queue.props, "spec", "namespaceSelector")
    if selector is None:
        return _NO_NAMESPACE
    if selector is UNKNOWN:
        return UNKNOWN
    labels = read(selector, "matchLabels")
    exprs = elements(read(selector, "matchExpressions"))
    if labels is UNKNOWN or exprs is UNKNOWN:
        return UNKNOWN
    names = set()
    by_label = read(labels, NAME_LABEL) if labels else None
    if by_label is UNKNOWN:
        return UNKNOWN
    if isinstance(by_label, str):
        names.add(by_label)
    for e in exprs or []:
        if e is UNKNOWN or UNKNOWN in (read(e, "key"), read(e, "operator")):
            return UNKNOWN
        values = elements(read(e, "values"))
        if read(e, "key") == NAME_LABEL and read(e, "operator") == "In" and values is not UNKNOWN \
                and len(values or []) == 1 and isinstance(values[0], str):
            names.add(values[0])
    # every term narrows (they are ANDed): one name pinned anywhere is the most it can select
    return names.pop() if len(names) == 1 else None


def _label(queue: Any) -> str:
    name = read(queue.props, "metadata", "name")
    return f"ClusterQueue '{name if isinstance(name, str) else queue.name}'"


def _queues(resources: Iterable[Any]) -> list[Any]:
    return [r for r in resources if _CLUSTER_QUEUE.match(r.resource_type)]


def validate_select_one(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    for q in _queues(args.resources):
        ns = selected_namespace(q)
        if ns is UNKNOWN:
            report_violation(f"{_label(q)}: its namespaceSelector is unknown during preview; name the one namespace "
                             f"with matchLabels {NAME_LABEL}.", q.urn)
        elif ns is None:
            report_violation(f"{_label(q)}: its namespaceSelector does not name one namespace (an empty selector "
                             "admits every namespace, a label selector every namespace carrying the label): any "
                             "namespace's LocalQueue then takes this queue's GPUs. Select the tenant's namespace "
                             f"with matchLabels {NAME_LABEL}: <namespace>.", q.urn)


def _cohort_of(r: Any) -> Any:
    spec = read(r.props, "spec")
    if spec is UNKNOWN:
        return UNKNOWN
    for key in ("cohortName", "cohort", "parentName", "parent"):
        value = read(spec, key)
        if value is not None:
            return value
    return None


def _roots(resources: list[Any]) -> dict[Any, Any]:
    """Cohort name → the root of its tree (Cohort objects' parents followed; a cycle or unknown parent → UNKNOWN)."""
    parents = {read(c.props, "metadata", "name"): _cohort_of(c) for c in resources if _COHORT.match(c.resource_type)}

    def root(name: Any) -> Any:
        seen = set()
        while True:
            if name is UNKNOWN or name in seen:
                return UNKNOWN
            seen.add(name)
            parent = parents.get(name)
            if parent is None:
                return name
            name = parent
    names = set(parents) | {_cohort_of(q) for q in _queues(resources)}
    return {n: root(n) for n in names if n is not None}


def validate_cohorts(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    resources = list(with_derived(args.resources))
    tenants = tenant_namespaces(resources)
    if not tenants:
        return
    roots = _roots(resources)
    members: dict[Any, list] = {}
    for q in _queues(resources):
        cohort = _cohort_of(q)
        if cohort is not None:
            members.setdefault(roots.get(cohort, UNKNOWN), []).append((q, cohort))
    tenant_trees = {root for root, qs in members.items()
                    if any(selected_namespace(q) in tenants for q, _ in qs)}
    if UNKNOWN in members and tenant_trees:
        tenant_trees.add(UNKNOWN)  # an unknown cohort may be the tenants' (fail closed)
    for root in tenant_trees:
        for q, cohort in members.get(root, []):
            ns = selected_namespace(q)
            if ns not in tenants:
                what = ("selects no namespace" if ns is _NO_NAMESPACE else "selects an unknown or several namespaces"
                        if ns in (UNKNOWN, None) else f"selects namespace {ns!r}, not a tenant's")
                where = ("an unknown cohort" if cohort is UNKNOWN or root is UNKNOWN
                         else f"cohort {cohort!r}" + (f" (tree {root!r})" if root != cohort else ""))
                report_violation(f"{_label(q)} {what} but joins {where}, which holds tenants' ClusterQueues: it "
                                 "borrows their unused GPUs (and with borrowWithinCohort preempts to keep them). Give "
                                 "it its own cohort, or none.", q.urn)


def validate_gpu_pods(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    resources = list(with_derived(args.resources))
    tenants = tenant_namespaces(resources)
    agents = node_agent_namespaces(args.get_config(), resources)
    for r in resources:
        specs = pod_specs(r.resource_type, r.props)
        if not specs:
            continue
        ns = read(r.props, "metadata", "namespace", default="default")
        if ns in tenants or (isinstance(ns, str) and ns in agents) or queued(r.props):
            continue
        for where, spec in specs:
            if asks_for_gpus(spec):
                report_violation(
                    f"{r.resource_type.split(':')[-1]} '{r.name}'{' ' + where if where else ''} in namespace "
                    f"{ns if isinstance(ns, str) else '(unknown)'} "
                    f"{'has a pod spec unknown during preview' if spec is UNKNOWN else 'asks for GPUs'}, outside "
                    "every tenant namespace: no GPU quota bounds it and Kueue does not manage it, so it takes the "
                    "tenants' GPUs. Run it in a tenant namespace through its LocalQueue.", r.urn)


_AGENTS = {"nodeAgentNamespaces": {"type": "array", "items": {"type": "string"},
                                   "description": "namespaces of node agents (the GPU Operator) whose pods use GPUs"}}


def _policy(name: str, description: str, validate: Any, remediation: str, schema: dict | None = None) -> Any:
    return StackValidationPolicy(
        name=name, description=description, validate=validate, enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.HIGH, tags=["kubernetes", "tenancy", "kueue"],
        remediation_steps=remediation + " Source: docs/tenants.md; Kueue docs 'Cluster Queue', 'Cohort'.",
        config_schema=PolicyConfigSchema(properties=schema) if schema else None)


POLICIES = [
    _policy(SELECT_ONE, "Every Kueue ClusterQueue selects one namespace by name (or none).", validate_select_one,
            f"Set namespaceSelector.matchLabels {{{NAME_LABEL}: <namespace>}}."),
    _policy(COHORTS, "A cohort that holds tenants' ClusterQueues holds only tenants' ClusterQueues.",
            validate_cohorts, "Put other ClusterQueues in their own cohort, or in none."),
    _policy(GPU_PODS, "Pods that ask for GPUs run in tenant namespaces (or node-agent namespaces) only.",
            validate_gpu_pods, "Submit GPU work from a tenant namespace through its LocalQueue.", _AGENTS),
]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    SELECT_ONE: "fails closed: an unknown namespaceSelector, label or expression is a violation",
    COHORTS: "fails closed: an unknown cohort name counts as the tenants' cohort; an unknown selector as a stranger",
    GPU_PODS: "fails closed: an unknown pod spec outside tenant and node-agent namespaces is a violation",
}
