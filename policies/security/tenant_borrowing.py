"""What one tenant's Kueue queue can take of another's: borrowed quota and preemption by priority. Kueue lends a
ClusterQueue's unused nominal quota of a (flavor, resource) to every ClusterQueue of its cohort tree that lists the
same pair, and takes it back only as its ``preemption`` says.

| rule                                   | judges, among the ClusterQueues of a cohort tree holding a tenant's     |
|----------------------------------------|-------------------------------------------------------------------------|
| tenant-quota-borrowed-only-while-idle  | a tenant's ClusterQueue that lists a flavor with no nominal quota of a  |
|                                        | resource and may borrow it (``borrowingLimit`` unset or above 0) gets   |
|                                        | that pool's capacity only from the tenants holding quota there: each of |
|                                        | them must lend none (``lendingLimit: 0``) or take it back at once       |
|                                        | (``reclaimWithinCohort: Any``). ``Never`` (Kueue's default) leaves the  |
|                                        | holder's GPUs with the borrower for as long as its jobs run;            |
|                                        | ``LowerPriority`` lets the borrower keep them by a higher priority      |
| tenant-queues-never-preempt-by-priority| no ClusterQueue evicts another queue's workloads by priority:           |
|                                        | ``preemption.borrowWithinCohort.policy`` is ``Never`` (the default).    |
|                                        | ``LowerPriority`` lets a borrowing workload preempt other tenants'      |
|                                        | lower-priority workloads, so a WorkloadPriorityClass value, a           |
|                                        | ``kueue.x-k8s.io/priority-class`` label or a PriorityClass's value       |
|                                        | decides who keeps GPUs across tenants                                   |

This is the platform's priority policy (``priority-class-never-preempts``: priorities order pending work, never evict
another tenant's) carried to Kueue, whose priority sources — a WorkloadPriorityClass (``kueue.x-k8s.io/priority-class``
label on the workload) or else the pods' PriorityClass value — evict across queues only through these fields; within
one ClusterQueue (``withinClusterQueue``) they order one tenant's own work. Tenants holding quota on the same pool
share it by the stack's own declaration; what one of them lends beyond that is its ClusterQueue's choice
(``reclaimWithinCohort``), and the program sets ``Any``.

Which pool is a tenant's alone is the config's decision (``tenants.<t>.nodePools``; such a pool's flavor is listed by
no other tenant's ClusterQueue): the stack shows it only as the flavors each queue lists. Cohort trees are followed
through ``Cohort`` objects' ``parentName``; a Cohort's own ``lendingLimit`` is not read (the tree is one lender: fail
closed). Unknown quotas, limits, preemption or cohort names fail closed.

Sources (checked 2026-12-02): kubernetes-sigs/kueue ``apis/kueue/v1beta2/clusterqueue_types.go`` (``cohortName``:
only quota of the (resource, flavor) pairs a ClusterQueue lists can be borrowed; ``borrowingLimit``/``lendingLimit``
null = no limit; ``reclaimWithinCohort`` default Never, LowerPriority, Any; ``borrowWithinCohort.policy`` Never,
LowerPriority; ``maxPriorityThreshold``), ``cohort_types.go`` (``parentName``, Cohort ``resourceGroups``); Kueue docs
"Cluster Queue" (borrowing, lending, preemption), "Workload Priority Class", "Preemption".
"""
from __future__ import annotations

from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy

if __package__:  # imported as the package `policies.security`
    from ._objects import with_derived
    from ._pss import gpu_quantity, tenant_namespaces
    from ._rules import UNKNOWN, elements, read
    from .tenant_queues import _cohort_of, _label, _queues, _roots, selected_namespace
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import with_derived
    from _pss import gpu_quantity, tenant_namespaces
    from _rules import UNKNOWN, elements, read
    from tenant_queues import _cohort_of, _label, _queues, _roots, selected_namespace

BORROWED, PREEMPT = "tenant-quota-borrowed-only-while-idle", "tenant-queues-never-preempt-by-priority"


def _amount(value: Any) -> Any:
    """A quota as a number (None: unset; UNKNOWN: unknown or unreadable)."""
    if value is None:
        return None
    number = gpu_quantity(value)
    return UNKNOWN if number is None else number


def quotas(queue: Any) -> Any:
    """(flavor, resource) → (nominal, borrowingLimit, lendingLimit) of a ClusterQueue; UNKNOWN for a pair or for the
    whole when unknown."""
    groups = elements(read(queue.props, "spec", "resourceGroups"))
    if groups is UNKNOWN:
        return UNKNOWN
    out: dict = {}
    for g in groups:
        flavors = UNKNOWN if g is UNKNOWN else elements(read(g, "flavors"))
        if flavors is UNKNOWN:
            return UNKNOWN
        for f in flavors:
            name = read(f, "name")
            resources = UNKNOWN if f is UNKNOWN else elements(read(f, "resources"))
            if not isinstance(name, str) or resources is UNKNOWN:
                return UNKNOWN
            for r in resources:
                resource = read(r, "name")
                if not isinstance(resource, str):
                    return UNKNOWN
                out[(name, resource)] = (_amount(read(r, "nominalQuota", default="0")),
                                         _amount(read(r, "borrowingLimit")), _amount(read(r, "lendingLimit")))
    return out


def _trees(resources: list, tenants: set) -> dict[Any, list]:
    """Cohort tree root → its ClusterQueues, for the trees that hold a tenant's queue (an unknown tree with them)."""
    roots = _roots(resources)
    members: dict[Any, list] = {}
    for q in _queues(resources):
        cohort = _cohort_of(q)
        if cohort is not None:
            members.setdefault(roots.get(cohort, UNKNOWN), []).append(q)
    held = {root for root, qs in members.items() if any(selected_namespace(q) in tenants for q in qs)}
    if UNKNOWN in members and held:
        held.add(UNKNOWN)
    out = {root: members[root] for root in held}
    if UNKNOWN in out:  # a queue of unknown cohort may be in any tree
        for root in held - {UNKNOWN}:
            out[root] = out[root] + [q for q in members[UNKNOWN] if q not in out[root]]
    return out


def _positive(value: Any) -> bool:
    return value is UNKNOWN or value is None or value > 0


def _reclaim(queue: Any) -> Any:
    return read(queue.props, "spec", "preemption", "reclaimWithinCohort", default="Never")


def _lenders(queues: list, table: dict) -> tuple[dict, list]:
    """The queues of one tree that lend quota they do not take back at once: (flavor, resource) → [(queue, lending,
    reclaim)], and those whose quotas are unknown (they may hold any pair)."""
    by_pair: dict = {}
    anywhere: list = []
    for lender in queues:
        reclaim = _reclaim(lender)
        if reclaim == "Any":
            continue
        held = table[id(lender)]
        if held is UNKNOWN:
            anywhere.append((lender, UNKNOWN, reclaim))
            continue
        for pair, (nominal, _, lending) in held.items():
            if _positive(nominal) and not (lending is not UNKNOWN and lending is not None and lending == 0):
                by_pair.setdefault(pair, []).append((lender, lending, reclaim))
    return by_pair, anywhere


def validate_borrowed(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``tenant-quota-borrowed-only-while-idle``: see the module docstring. Linear in the tree's queues
    and flavors: the lenders are indexed by (flavor, resource) once per tree."""
    resources = list(with_derived(args.resources))
    tenants = tenant_namespaces(resources)
    if not tenants:
        return
    table: dict[int, Any] = {}
    for queues in _trees(resources, tenants).values():
        for q in queues:
            if id(q) not in table:
                table[id(q)] = quotas(q)
        by_pair, anywhere = _lenders(queues, table)
        every = [x for xs in by_pair.values() for x in xs] + anywhere
        for q in queues:
            home = selected_namespace(q)
            if home not in tenants:
                continue  # a stranger in the tenants' tree: tenant-cohorts-hold-only-tenants
            mine = table[id(q)]
            pairs = [(None, None)] if mine is UNKNOWN else [
                pair for pair, (nominal, borrow, _) in mine.items()
                if (nominal is UNKNOWN or nominal == 0) and _positive(borrow)]
            found = []
            for pair in pairs:
                candidates = every if pair[0] is None else by_pair.get(pair, []) + anywhere
                for lender, lending, reclaim in candidates:
                    owner = selected_namespace(lender)
                    if lender is q or owner == home:
                        continue
                    what = ("an unknown flavor" if pair[0] is None else
                            f"spec.resourceGroups flavor {pair[0]!r} resource {pair[1]}")
                    found.append(f"{what} from {_label(lender)} of "
                                 f"{owner if isinstance(owner, str) else 'an unknown namespace'} "
                                 f"({'no lendingLimit' if lending is None else 'lendingLimit unknown or above 0'}, "
                                 f"reclaimWithinCohort {reclaim if isinstance(reclaim, str) else 'unknown'})")
            if found:
                report_violation(
                    f"{_label(q)} of tenant namespace {home!r} holds no nominal quota, but no borrowingLimit 0 "
                    f"either, on {'; '.join(dict.fromkeys(found))}: it borrows that tenant's capacity on that pool — "
                    "its GPUs and nodes — and keeps it for as long as its workloads run (with LowerPriority, as long "
                    "as their priority is not lower). Set borrowingLimit: 0 on this queue's flavor, or lendingLimit: "
                    "0 or reclaimWithinCohort: Any on the lender's ClusterQueue.", q.urn)


def validate_preempt(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``tenant-queues-never-preempt-by-priority``: see the module docstring."""
    resources = list(with_derived(args.resources))
    tenants = tenant_namespaces(resources)
    if not tenants:
        return
    seen = set()
    for queues in _trees(resources, tenants).values():
        for q in queues:
            if id(q) in seen:
                continue
            seen.add(id(q))
            policy = read(q.props, "spec", "preemption", "borrowWithinCohort", "policy", default="Never")
            if policy != "Never":
                shown = policy if isinstance(policy, str) else "unknown during preview"
                report_violation(
                    f"{_label(q)} joins a cohort holding tenants' ClusterQueues with "
                    f"preemption.borrowWithinCohort.policy {shown}: its borrowing workloads evict other queues' "
                    "workloads of lower priority, so a WorkloadPriorityClass (label kueue.x-k8s.io/priority-class) or "
                    "a PriorityClass value takes another tenant's GPUs. Set borrowWithinCohort.policy: Never (or leave "
                    "it unset); reclaimWithinCohort: Any takes back a queue's own quota without priorities.", q.urn)


def _policy(name: str, description: str, validate: Any, remediation: str) -> StackValidationPolicy:
    return StackValidationPolicy(
        name=name, description=description, validate=validate, enforcement_level=EnforcementLevel.MANDATORY,
        severity=Severity.HIGH, tags=["kubernetes", "tenancy", "kueue"],
        remediation_steps=remediation + " Source: docs/tenants.md; Kueue docs 'Cluster Queue', 'Preemption'.")


POLICIES = [
    _policy(BORROWED, ("A tenant's ClusterQueue borrows another tenant's quota on a pool where it holds none only "
                       "while that tenant can take it back at once."), validate_borrowed,
            "Set borrowingLimit: 0 on the borrower's flavor, or lendingLimit: 0 or reclaimWithinCohort: Any on the "
            "lender's ClusterQueue."),
    _policy(PREEMPT, "No ClusterQueue in a cohort with tenants preempts other queues' workloads by priority.",
            validate_preempt, "Leave preemption.borrowWithinCohort unset or set its policy to Never."),
]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    BORROWED: ("fails closed: unknown resource groups or quotas count as borrowing and lending, an unknown "
               "reclaimWithinCohort as not Any, an unknown cohort name as the tenants' tree"),
    PREEMPT: "fails closed: an unknown borrowWithinCohort policy or cohort name is a violation",
}
