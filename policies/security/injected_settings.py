"""Settings an object writes into pods it does not declare, judged by the rules that judge the same settings in a pod
spec. A pod spec the pack reads is only what the program wrote; the pod the kubelet runs also carries what admission
and the queue add to it. Two classes:

**Scheduling written into pods** (``injected-scheduling-judged-as-pod-specs``, in a stack with tenant namespaces):

each judged as a tenant pod's tolerations and nodeSelector are (``tenant-pods-scheduled-by-the-platform``: no
toleration of every taint, no node picked by a per-node label):

* a Kueue ``ResourceFlavor`` (``kueue.x-k8s.io``, any version, its ``*Patch`` too): Kueue writes its
  ``spec.tolerations`` and its ``spec.nodeLabels`` (as a nodeSelector) into every pod it admits through the flavor;
* a ``RuntimeClass``: its ``scheduling.tolerations`` and ``scheduling.nodeSelector`` are written into every pod that
  names the class;
* a tenant ``Namespace``'s annotations ``scheduler.alpha.kubernetes.io/defaultTolerations`` (the
  PodTolerationRestriction admission plugin) and ``scheduler.alpha.kubernetes.io/node-selector`` (PodNodeSelector):
  written into every pod of the namespace where the plugins run (whether OKE enables them is not published; judged
  as if it did).

A flavor or RuntimeClass is cluster-scoped: which namespaces' pods it reaches is decided by ClusterQueues and pods
possibly declared elsewhere, so in a stack that has tenants every one is judged (fail closed). Members already held
elsewhere: ``MutatingWebhookConfiguration`` and ``MutatingAdmissionPolicy`` (they may write anything) are refused by
the catalogue; a ``PriorityClass`` that is ``globalDefault`` or preempts is refused by ``priority-class-never-preempts``;
``PodPreset`` (``settings.k8s.io``) was removed in Kubernetes 1.20. Not written into pods: a flavor's ``nodeTaints``
(Kueue only checks that a workload tolerates them), its ``topologyName`` (topology-aware placement inside the
flavor's own nodes) and a ``WorkloadPriorityClass`` (a workload's priority in Kueue's queueing, judged through the
ClusterQueue's preemption by ``tenant-queues-never-preempt-by-priority``). Kueue's ProvisioningRequest admission
checks' ``podSetUpdates`` are written by a controller at run time from a cloud autoscaler's answer: no declared input
holds them.

**Resources written into pods** (``pod-defaults-give-no-devices``, every namespace): a ``LimitRange`` ``default`` or
``defaultRequest`` is written by the LimitRanger admission plugin into every container that sets none, extended
resources included, so a default of ``nvidia.com/gpu`` (a MIG profile ``nvidia.com/mig-<profile>``, an RDMA device
``rdma/<name>``, any extended resource: ``_gpu_pods``) gives each pod of the namespace a device its spec never asked
for — outside a tenant namespace, outside every GPU quota, Kueue and the tenant pools; inside one, past the pool rule
that reads the declared spec. A ``RuntimeClass``'s ``overhead.podFixed`` is added to every pod naming the class in
the same way. ``min``, ``max`` and ``maxLimitRequestRatio`` only refuse pods, and a ``ResourceQuota`` only caps: they
give nothing and are not judged here.

Unknown values fail closed: an unknown flavor spec, toleration list, node labels, annotation, limit list or default
is a violation; an annotation whose JSON or ``key=value`` list does not parse is one too.

Sources (checked 2026-12-03): Kueue docs "Resource Flavor" (``nodeLabels`` and ``tolerations`` are added to the
admitted pods; ``nodeTaints`` restrict admission), Kueue API ``ResourceFlavorSpec`` (v1beta1/v1beta2: ``nodeLabels``,
``nodeTaints``, ``tolerations``, ``topologyName``), "Admission Check" / "Provisioning Request" (``podSetUpdates``),
"Workload Priority Class"; Kubernetes docs "Runtime Class" (Scheduling: ``nodeSelector`` merged, ``tolerations``
appended; Pod Overhead), "Admission Controllers" (PodTolerationRestriction
``scheduler.alpha.kubernetes.io/defaultTolerations``, PodNodeSelector ``scheduler.alpha.kubernetes.io/node-selector``,
LimitRanger), "Limit Ranges" (``default``, ``defaultRequest`` applied at admission), "Resource Management for Pods and
Containers" (extended resources: the request defaults to the limit).
"""
from __future__ import annotations

import json
import re
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy

if __package__:  # imported as the package `policies.security`
    from ._gpu_pods import NATIVE_RESOURCES
    from ._objects import with_derived
    from ._pss import gpu_quantity, tenant_namespaces
    from ._rules import UNKNOWN, elements, read
    from .tenant_pods import scheduling_problems
else:  # run by the Pulumi CLI from inside policies/security/
    from _gpu_pods import NATIVE_RESOURCES
    from _objects import with_derived
    from _pss import gpu_quantity, tenant_namespaces
    from _rules import UNKNOWN, elements, read
    from tenant_pods import scheduling_problems

SCHEDULING, DEVICES = "injected-scheduling-judged-as-pod-specs", "pod-defaults-give-no-devices"
_FLAVOR = re.compile(r"^kubernetes:kueue\.x-k8s\.io/[^:]+:ResourceFlavor(Patch)?$")
_RUNTIME_CLASS = re.compile(r"^kubernetes:node\.k8s\.io/[^:]+:RuntimeClass(Patch)?$")
_LIMIT_RANGE = re.compile(r"^kubernetes:core/v1:LimitRange(Patch)?$")
NAMESPACE_TYPES = ("kubernetes:core/v1:Namespace", "kubernetes:core/v1:NamespacePatch")
#: Namespace annotations admission plugins turn into pod settings (Kubernetes docs "Admission Controllers").
DEFAULT_TOLERATIONS = "scheduler.alpha.kubernetes.io/defaultTolerations"
NODE_SELECTOR = "scheduler.alpha.kubernetes.io/node-selector"


def _injected_spec(tolerations: Any, node_selector: Any) -> dict:
    """The pod-spec fields an object writes into pods, as a pod spec the pod rules read."""
    return {"tolerations": tolerations, "nodeSelector": node_selector}


def _annotation_spec(annotations: Any) -> Any:
    """The pod-spec fields a namespace's annotations make admission write (None: none), or a problem text."""
    if annotations is UNKNOWN:
        return "its annotations are unknown during preview"
    tolerations, selector = read(annotations, DEFAULT_TOLERATIONS), read(annotations, NODE_SELECTOR)
    if tolerations is None and selector is None:
        return None
    if isinstance(tolerations, str):
        try:
            tolerations = json.loads(tolerations)
        except ValueError:
            return f"its {DEFAULT_TOLERATIONS} annotation is no JSON list of tolerations"
        if not isinstance(tolerations, list):
            return f"its {DEFAULT_TOLERATIONS} annotation is no JSON list of tolerations"
    elif tolerations is not None and tolerations is not UNKNOWN:
        return f"its {DEFAULT_TOLERATIONS} annotation is no JSON list of tolerations"
    if isinstance(selector, str):
        pairs = [p.strip() for p in selector.split(",") if p.strip()]
        if any("=" not in p for p in pairs):
            return f"its {NODE_SELECTOR} annotation is no comma-separated key=value list"
        selector = dict(p.split("=", 1) for p in pairs)
    elif selector is not None and selector is not UNKNOWN:
        return f"its {NODE_SELECTOR} annotation is no comma-separated key=value list"
    return _injected_spec(tolerations, selector)


def scheduling_injected(resource_type: str, props: Any, tenants: set) -> list[str]:
    """Why the scheduling settings an object writes into pods would be refused in a tenant's pod spec (the module
    docstring's first table); [] for other objects."""
    if _FLAVOR.match(resource_type):
        spec = read(props, "spec")
        if spec is UNKNOWN:
            return ["its spec is unknown during preview"]
        written, what = _injected_spec(read(spec, "tolerations"), read(spec, "nodeLabels")), (
            "Kueue writes its tolerations and nodeLabels into every pod it admits through the flavor")
    elif _RUNTIME_CLASS.match(resource_type):
        scheduling = read(props, "scheduling")
        if scheduling is UNKNOWN:
            return ["its scheduling is unknown during preview"]
        written, what = _injected_spec(read(scheduling, "tolerations"), read(scheduling, "nodeSelector")), (
            "its scheduling tolerations and nodeSelector are written into every pod naming the class")
    elif resource_type in NAMESPACE_TYPES:
        name = read(props, "metadata", "name")
        if not (name is UNKNOWN or name in tenants):
            return []
        written = _annotation_spec(read(props, "metadata", "annotations"))
        if written is None:
            return []
        if isinstance(written, str):
            return [written]
        what = "admission writes its default tolerations and node selector into every pod of the tenant namespace"
    else:
        return []
    found = [p for p in scheduling_problems(written) if "nodeName" not in p]
    return [f"{what}, and there: {p}" for p in found]


def _validate_scheduling(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    resources = with_derived(args.resources)
    tenants = tenant_namespaces(resources)
    if not tenants:
        return
    for r in resources:
        found = scheduling_injected(r.resource_type, r.props, tenants)
        if found:
            report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}': {'; '.join(found)}.",
                             getattr(r, "urn", None))


def _devices(amounts: Any) -> Any:
    """The extended resources a resource map gives a non-zero amount of (sorted), or UNKNOWN."""
    if amounts is UNKNOWN:
        return UNKNOWN
    if not hasattr(amounts, "keys"):
        return []
    found = []
    for name in list(amounts.keys()):
        if isinstance(name, str) and (name in NATIVE_RESOURCES or name.startswith("hugepages-")):
            continue
        amount = read(amounts, name)
        if amount is UNKNOWN or gpu_quantity(amount) != 0:
            found.append(name if isinstance(name, str) else "<unknown resource>")
    return sorted(found)


def devices_injected(resource_type: str, props: Any) -> list[str]:
    """Which devices an object writes into pods that never asked for them (the module docstring's second class)."""
    if _LIMIT_RANGE.match(resource_type):
        limits = elements(read(props, "spec", "limits"))
        if limits is UNKNOWN:
            return ["its limits are unknown during preview"]
        found = []
        for i, item in enumerate(limits):
            for key in ("default", "defaultRequest"):
                names = _devices(UNKNOWN if item is UNKNOWN else read(item, key))
                if names is UNKNOWN:
                    found.append(f"limits[{i}].{key} is unknown during preview")
                elif names:
                    found.append(f"limits[{i}].{key} gives {', '.join(names)} to every container that names none")
        return found
    if _RUNTIME_CLASS.match(resource_type):
        names = _devices(read(props, "overhead", "podFixed"))
        if names is UNKNOWN:
            return ["its overhead is unknown during preview"]
        return [f"overhead.podFixed adds {', '.join(names)} to every pod naming the class"] if names else []
    return []


def _validate_devices(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    for r in with_derived(args.resources):
        found = devices_injected(r.resource_type, r.props)
        if found:
            ns = read(r.props, "metadata", "namespace", default="default")
            where = "" if _RUNTIME_CLASS.match(r.resource_type) else (
                f" in {'an unknown namespace' if ns is UNKNOWN else repr(ns)}")
            report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}'{where}: {'; '.join(found)}: admission "
                             "writes them into pods whose specs ask for no device, so the GPU rules (which read the "
                             "specs) never see them; default CPU and memory only, and ask for devices in the pod "
                             "spec.", getattr(r, "urn", None))


POLICIES = [
    StackValidationPolicy(
        name=SCHEDULING,
        description=("Tolerations and node selectors an object writes into pods (a Kueue ResourceFlavor, a "
                     "RuntimeClass, a tenant namespace's default-toleration and node-selector annotations) pass the "
                     "rules a tenant's pod spec must pass: no toleration of every taint, no node picked by name."),
        validate=_validate_scheduling, enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.HIGH,
        remediation_steps=("Tolerate only the taints of the pool the flavor (or class) stands for, with their key; "
                           "select pools by the pool label, never one node. Source: Kueue docs \"Resource Flavor\"; "
                           "Kubernetes docs \"Runtime Class\", \"Admission Controllers\"."),
        tags=["kubernetes", "tenancy", "isolation"]),
    StackValidationPolicy(
        name=DEVICES,
        description=("No LimitRange default or defaultRequest, and no RuntimeClass overhead, gives pods an extended "
                     "resource (a GPU, a MIG slice, an RDMA device): admission would write it into pods whose specs "
                     "ask for none, outside the rules that keep GPUs inside tenants' quotas and pools."),
        validate=_validate_devices, enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.HIGH,
        remediation_steps=("Default only cpu, memory and ephemeral-storage; a workload that needs a GPU asks for it "
                           "in its own spec (and through a tenant's LocalQueue). Source: Kubernetes docs \"Limit "
                           "Ranges\", \"Runtime Class\" (Pod Overhead)."),
        tags=["kubernetes", "tenancy", "gpu"]),
]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    SCHEDULING: ("fails closed: an unknown flavor spec, RuntimeClass scheduling, toleration, node selector or tenant "
                 "namespace annotation is a violation; an annotation that does not parse is one too"),
    DEVICES: "fails closed: unknown limits, defaults, overhead or amounts are violations",
}
