"""Which pod specs take GPU-class devices — one definition for the rules that keep GPUs inside tenants' quotas and
pools (``tenant_queues``: GPU pods outside tenant namespaces; ``_tenant_pools``: where a tenant's GPU pods land).

A GPU-class device is anything a device plugin or a DRA driver hands a pod:

* any **extended resource** a container (init and ephemeral containers too) requests or limits — every resource name
  but Kubernetes' own ``cpu``, ``memory``, ``ephemeral-storage``, ``storage`` and ``hugepages-<size>``. That covers
  ``nvidia.com/gpu``, MIG slices ``nvidia.com/mig-<profile>``, a time-sliced or MPS resource renamed by the device
  plugin's ``renameByDefault`` (``nvidia.com/gpu.shared``) or a ``rename`` in its config, and a fork's own prefix
  (a renamed resource may take any name the plugin's config gives it, so no list of names is complete);
* a **DRA** claim: ``spec.resourceClaims`` (a DeviceClass decides what a claim allocates; the claim object may be
  declared elsewhere or made from a template at run time, so any claim counts).

Unknown containers, resources or claims count (fail closed).

Sources (checked 2026-12-02): Kubernetes docs "Resource Management for Pods and Containers" (extended resources are
names outside ``kubernetes.io``; hugepages-<size>), "Dynamic Resource Allocation" (``resourceClaims``,
``resources.claims``); NVIDIA k8s-device-plugin README "Shared Access to GPUs" (``renameByDefault``, ``rename``),
GPU Operator docs "GPU Operator with MIG" (``nvidia.com/mig-<profile>`` with the mixed strategy); Kueue docs "Run
Jobs" (the ``kueue.x-k8s.io/queue-name`` label).
"""
from __future__ import annotations

from typing import Any

if __package__:  # imported as the package `policies.security`
    from ._pss import gpu_quantity
    from ._rules import UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _pss import gpu_quantity
    from _rules import UNKNOWN, elements, read

#: Resource names Kubernetes itself accounts (not devices); ``hugepages-<size>`` by prefix.
NATIVE_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage", "storage"})
#: The GPU resources of NVIDIA's device plugin by name (messages; the test is :func:`device_resources`).
GPU_RESOURCE_PREFIXES = ("nvidia.com/gpu", "nvidia.com/mig-")
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
_CONTAINERS = ("initContainers", "containers", "ephemeralContainers")


def _is_device(name: Any) -> bool:
    return not isinstance(name, str) or not (name in NATIVE_RESOURCES or name.startswith("hugepages-"))


def device_resources(spec: Any) -> Any:
    """The extended resources a pod spec requests or limits with a non-zero amount (a sorted list of names), plus
    ``"<DRA resource claims>"`` when it has ``resourceClaims``; UNKNOWN when a part that could hold one is unknown."""
    if spec is UNKNOWN:
        return UNKNOWN
    found: set = set()
    claims = elements(read(spec, "resourceClaims"))
    if claims is UNKNOWN:
        return UNKNOWN
    if claims:
        found.add("<DRA resource claims>")
    owners = [spec]  # pod-level resources (PodLevelResources) too
    for key in _CONTAINERS:
        containers = elements(read(spec, key))
        if containers is UNKNOWN:
            return UNKNOWN
        owners += containers or []
    for c in owners:
        if c is UNKNOWN:
            return UNKNOWN
        for part in ("requests", "limits"):
            amounts = read(c, "resources", part)
            if amounts is UNKNOWN:
                return UNKNOWN
            if not hasattr(amounts, "keys"):
                continue
            for name in list(amounts.keys()):
                if not _is_device(name):
                    continue
                amount = read(amounts, name)
                if amount is UNKNOWN or gpu_quantity(amount) != 0:  # the client's quantity parser: "0", "0m", 0
                    found.add(name if isinstance(name, str) else "<unknown resource>")
    return sorted(found)


def asks_for_gpus(spec: Any) -> bool:
    """Does a pod spec take a GPU-class device (:func:`device_resources` non-empty or unknown)? A toleration of the
    GPU taint alone takes no device: the platform's preparation Jobs tolerate it to run where the file system is
    mounted."""
    found = device_resources(spec)
    return found is UNKNOWN or bool(found)


def queued(props: Any) -> bool:
    """The workload names a Kueue LocalQueue (label ``kueue.x-k8s.io/queue-name``, on the object or its pod
    template): Kueue suspends or gates it until a ClusterQueue selecting its namespace admits it, and then adds the
    admitted flavor's ``nodeLabels`` to its pods' node selector (Kueue docs "Run Jobs", "Run Plain Pods",
    "Resource Flavor")."""
    for path in (("metadata", "labels"), ("spec", "template", "metadata", "labels")):
        value = read(props, *path, QUEUE_LABEL)
        if isinstance(value, str) and value:
            return True
    return False
