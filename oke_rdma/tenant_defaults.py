"""What a tenant namespace needs to work, besides its namespace, GPU quota and queues: default container requests,
the priority classes tenants may use, and a quota that keeps tenant pods off the system priorities.

* PriorityClasses ``<prefix>-tenant-low`` (1000), ``<prefix>-tenant-normal`` (10000, what a pod without a class
  should think of as normal) and ``<prefix>-tenant-high`` (100000): the only classes a tenant pod may name (the
  in-cluster guard refuses any other ``priorityClassName`` in a tenant namespace, :mod:`oke_rdma.guard`). All far
  below ``system-cluster-critical`` (2000000000) and ``system-node-critical`` (2000001000), so a tenant's pods never
  preempt kube-dns, Cilium or the GPU Operator's daemons. None is ``globalDefault`` (it would apply to the platform's
  pods too); a pod without a class gets priority 0, below all three. Each has ``preemptionPolicy: Never``: the
  scheduler orders pending pods by it but never evicts a running pod for it, so a tenant cannot mark its pods
  ``high`` to evict another tenant's pods from a shared node; eviction between tenants is Kueue's, by quota
  (``reclaimWithinCohort``), never the scheduler's by priority.
* Per tenant a ``LimitRange`` ``defaults``: every container that states no request gets ``cpu: 100m`` and
  ``memory: 256Mi``. The namespace's ResourceQuota counts ``requests.nvidia.com/gpu`` only (and the ``system-priority``
  quota below counts pods), so no pod is refused for lacking a CPU or memory request; the defaults make such pods
  schedulable with a real reservation and give Kueue requests to count against the tenant's CPU and memory quota
  (Kueue applies LimitRange defaults when it computes a workload's requests). No default *limit*: a default limit
  applies to every container without one, so it would cap training containers that state only requests, and refuse
  those requesting more than it. No default GPU request, ever.
* Per tenant a ``ResourceQuota`` ``system-priority``: ``pods: 0`` for pods whose priority class is
  ``system-node-critical`` or ``system-cluster-critical`` — Kubernetes' own mechanism to keep those classes out of a
  namespace, enforced by the API server even if the guard's policy were removed.

Sources (checked 2026-12-01): Kubernetes docs "Pod Priority and Preemption" (PriorityClass ``value`` up to one
billion for user classes; the two system classes and their values; ``globalDefault``), "Limit Ranges"
(``defaultRequest``/``default`` per container, applied at admission), "Resource Quotas" (a quota on compute
resources requires requests only for the resources it tracks; "Limit Priority Class consumption by default" and
``scopeSelector`` with ``PriorityClass``), "Pod Priority and Preemption" / "Non-preempting PriorityClass"
(``preemptionPolicy: Never``), Kueue docs "Workload" (requests with LimitRange defaults applied).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

#: The classes a tenant pod may use: suffix → value (Kubernetes docs "Pod Priority and Preemption": user classes up
#: to 1000000000; the system classes are 2000000000 and 2000001000).
TENANT_PRIORITIES: dict[str, int] = {"low": 1000, "normal": 10000, "high": 100000}
#: Kubernetes' built-in system priority classes, never for a tenant pod.
SYSTEM_PRIORITY_CLASSES = ("system-cluster-critical", "system-node-critical")
#: Requests of a container that states none (Kubernetes "Limit Ranges" ``defaultRequest``).
DEFAULT_REQUEST = {"cpu": "100m", "memory": "256Mi"}
LIMIT_RANGE_NAME = "defaults"
SYSTEM_PRIORITY_QUOTA = "system-priority"


def priority_class_names(prefix: str) -> list[str]:
    """The names of the tenants' PriorityClasses, lowest first."""
    return [f"{prefix}-tenant-{suffix}" for suffix in TENANT_PRIORITIES]


def manifests(prefix: str, tenant_namespaces: Mapping[str, str]) -> list[dict[str, Any]]:
    """Every object as a manifest (dict): the PriorityClasses, then per tenant its LimitRange and system-priority
    ResourceQuota."""
    labels = {"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": prefix}
    out: list[dict[str, Any]] = [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": f"{prefix}-tenant-{suffix}", "labels": labels}, "value": value,
         "globalDefault": False, "preemptionPolicy": "Never",
         "description": f"oke-rdma: {suffix} priority for tenant pods (never a system priority)"}
        for suffix, value in TENANT_PRIORITIES.items()]
    for tenant, ns in tenant_namespaces.items():
        out.append({"apiVersion": "v1", "kind": "LimitRange",
                    "metadata": {"name": LIMIT_RANGE_NAME, "namespace": ns, "labels": labels},
                    "spec": {"limits": [{"type": "Container", "defaultRequest": dict(DEFAULT_REQUEST)}]}})
        out.append({"apiVersion": "v1", "kind": "ResourceQuota",
                    "metadata": {"name": SYSTEM_PRIORITY_QUOTA, "namespace": ns, "labels": labels},
                    "spec": {"hard": {"pods": "0"}, "scopeSelector": {"matchExpressions": [
                        {"scopeName": "PriorityClass", "operator": "In", "values": list(SYSTEM_PRIORITY_CLASSES)}]}}})
    return out


class TenantDefaultsArgs:
    """Inputs of :class:`TenantDefaults`: ``name_prefix``, ``provider``, ``tenant_namespaces`` (tenant → namespace
    name) and ``namespaces`` (namespace name → its ``Namespace`` resource, which each object waits for)."""

    def __init__(self, *, name_prefix: str, provider: pulumi.ProviderResource, tenant_namespaces: Mapping[str, str],
                 namespaces: Mapping[str, pulumi.Resource]):
        self.name_prefix = name_prefix
        self.provider = provider
        self.tenant_namespaces = dict(tenant_namespaces)
        self.namespaces = dict(namespaces)


class TenantDefaults(pulumi.ComponentResource):
    """PriorityClasses, LimitRanges and system-priority quotas (type ``oke-rdma:tenant_defaults:TenantDefaults``).

    Attributes: ``priority_classes`` (names, lowest first), ``objects`` (logical name → resource). Raises nothing.
    """

    def __init__(self, name: str, args: TenantDefaultsArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:tenant_defaults:TenantDefaults", name, None, opts)
        prefix = args.name_prefix
        self.priority_classes = priority_class_names(prefix)
        self.objects: dict[str, pulumi.CustomResource] = {}
        for m in manifests(prefix, args.tenant_namespaces):
            kind, meta = m["kind"], m["metadata"]
            ns = meta.get("namespace")
            deps: Sequence[pulumi.Resource] = [args.namespaces[ns]] if ns in args.namespaces else []
            o = pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=list(deps))
            if kind == "PriorityClass":
                logical = f"{meta['name']}-priority"
                self.objects[logical] = k8s.scheduling.v1.PriorityClass(
                    logical, metadata=meta, value=m["value"], global_default=m["globalDefault"],
                    preemption_policy=m["preemptionPolicy"], description=m["description"], opts=o)
            elif kind == "LimitRange":
                logical = f"{prefix}-limits-{ns}"
                self.objects[logical] = k8s.core.v1.LimitRange(logical, metadata=meta, spec=m["spec"], opts=o)
            else:
                logical = f"{prefix}-system-priority-{ns}"
                self.objects[logical] = k8s.core.v1.ResourceQuota(logical, metadata=meta, spec=m["spec"], opts=o)
        self.register_outputs({"priorityClasses": self.priority_classes})
