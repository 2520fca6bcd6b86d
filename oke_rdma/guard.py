"""The in-cluster guard: ValidatingAdmissionPolicy objects (Kubernetes' native CEL admission, no extra controller)
that hold, for every pod created later by anyone, what the policy pack checks at deploy time.

* ``<prefix>-rdma-privileges`` — outside the namespaces of RDMA tenants (``okerdma.io/rdma: "true"``) and the
  platform's own namespaces, a pod may not use ``hostNetwork``, a privileged container, the ``IPC_LOCK`` capability
  (or ``ALL``, which includes it; any case, with or without ``CAP_``), or a ``hostPath`` volume exposing
  ``/dev/infiniband`` (the path itself, below it, or an ancestor: ``/dev``, ``/``; repeated slashes included). Checked
  on CREATE and UPDATE for containers, init containers and ephemeral containers.
* ``<prefix>-tenant-pools-<tenant>`` — in a tenant's namespace, a pod that asks for a GPU-class device (any
  extended resource in requests or limits of any container — ``nvidia.com/gpu``, ``nvidia.com/mig-<profile>``, a
  renamed time-sliced resource — or a DRA ``resourceClaims`` entry) or tolerates the ``nvidia.com/gpu`` taint (by key, or a key-less ``Exists`` toleration)
  must select one of the tenant's pools by ``nodeSelector`` ``okerdma.io/node-pool`` (Kueue adds it from the
  admitted flavor), and may not name a node (``spec.nodeName`` bypasses the scheduler). The pools are the tenant's
  flavors' pools (``oke_rdma.config.checks.fleet.tenant_pools``): a ``dedicated`` tenant never gets a shared pool.
  Checked on CREATE (a scheduled pod's placement cannot change).
* ``<prefix>-tenant-priority`` — in every tenant namespace (label ``okerdma.io/tenant``), a pod's
  ``priorityClassName`` is unset or one of the tenants' classes (:mod:`oke_rdma.tenant_defaults`): never
  ``system-node-critical``/``system-cluster-critical`` (a tenant pod would preempt the platform's daemons) nor a class
  the platform keeps for itself. Checked on CREATE (the field is immutable). Created only when tenant classes exist.
* ``<prefix>-tenant-ids-<tenant>`` — a pod mounting the tenant's shared claim runs as the tenant's storage UID/GID
  (:mod:`oke_rdma.guard_ids`); ``<prefix>-tenant-routes`` — a tenant's Gateway API routes name backends only in its
  namespace; ``<prefix>-tenant-nodes`` — a tenant's pods pick no node by name; ``<prefix>-tenant-services`` — a
  tenant's own Services stay inside the walls and off the internet (:mod:`oke_rdma.guard_services`).
* ``<prefix>-tenant-roles``, ``-tenant-rolebindings``, ``-tenant-clusterrolebindings`` — tenant subjects never get
  what the platform owns (:mod:`oke_rdma.guard_rbac`).
* ``<prefix>-tenant-block-volumes`` — in every tenant namespace, a PersistentVolumeClaim may not name a StorageClass
  whose block volumes cannot attach to the stack's nodes: OKE's iSCSI ``oci-bv`` and ``oci`` while a node pool has
  in-transit encryption (the CSI driver refuses that attachment, so the claim's pod never starts; docs/storage.md).
  A claim naming no class gets the stack's paravirtualized default. Checked on CREATE (the field is immutable).
  Created only when such classes exist.

Each policy has ``failurePolicy: Fail`` (an expression that cannot be evaluated refuses the pod) and a binding with
``validationActions: [Deny]``; namespaces are selected by labels the platform sets on tenant namespaces
(:func:`tenant_labels`). The objects are plain dicts (:func:`policies`) so tests evaluate their CEL and validate them
against the Kubernetes OpenAPI schema; :class:`Guard` creates them.

Sources (checked 2026-11-30): Kubernetes docs "Validating Admission Policy" (admissionregistration.k8s.io/v1, GA
in 1.30: ``matchConstraints``, ``variables``, ``validations``, ``messageExpression``, ``failurePolicy``, bindings with
``validationActions``), "CEL in Kubernetes" (``has()``, ``exists``, ``all``, ``matches`` with RE2), "Pod Security
Standards" (the fields: ``hostNetwork``, ``privileged``, ``capabilities.add``, ``hostPath``); Kueue docs "Resource
Flavor" (flavor ``nodeLabels`` are added to the admitted workload's node selector).
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from oke_rdma.depends import all_of
from oke_rdma.guard_ids import TenantIds, ids_policies, node_policies, route_policies
from oke_rdma.guard_rbac import rbac_policies
from oke_rdma.guard_services import service_policies

TENANT_LABEL = "okerdma.io/tenant"
RDMA_LABEL = "okerdma.io/rdma"
ISOLATION_LABEL = "okerdma.io/isolation"
POOL_LABEL = "okerdma.io/node-pool"
GPU_RESOURCE = "nvidia.com/gpu"
API = "admissionregistration.k8s.io/v1"
#: Namespaces Kubernetes and OKE run system pods in (Kubernetes docs "Namespaces"; OKE runs its add-ons in
#: kube-system): the guard leaves them to their owners.
SYSTEM_NAMESPACES = ("kube-system", "kube-public", "kube-node-lease")

_CONTAINERS = ("object.spec.containers"
               " + (has(object.spec.initContainers) ? object.spec.initContainers : [])"
               " + (has(object.spec.ephemeralContainers) ? object.spec.ephemeralContainers : [])")
#: A hostPath that exposes /dev/infiniband: it, anything below it, or an ancestor (/, /dev), any repeated slashes.
_INFINIBAND_PATH_RE = r"^/+(dev(/+(infiniband(/.*)?)?)?)?/*$"
_IPC_LOCK_RE = r"^(?i)(CAP_)?(IPC_LOCK|ALL)$"

RDMA_VARIABLES = (
    {"name": "containers", "expression": _CONTAINERS},
)
RDMA_VALIDATIONS = (
    {"expression": "!has(object.spec.hostNetwork) || !object.spec.hostNetwork",
     "message": "hostNetwork is allowed only in RDMA tenants' namespaces", "reason": "Forbidden"},
    {"expression": "variables.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged)"
                   " || !c.securityContext.privileged)",
     "message": "privileged containers are allowed only in RDMA tenants' namespaces", "reason": "Forbidden"},
    {"expression": "variables.containers.all(c, !has(c.securityContext) || !has(c.securityContext.capabilities)"
                   " || !has(c.securityContext.capabilities.add)"
                   f" || !c.securityContext.capabilities.add.exists(a, a.matches('{_IPC_LOCK_RE}')))",
     "message": "the IPC_LOCK capability (or ALL) is allowed only in RDMA tenants' namespaces", "reason": "Forbidden"},
    {"expression": "!has(object.spec.volumes) || object.spec.volumes.all(v, !has(v.hostPath)"
                   f" || !v.hostPath.path.matches('{_INFINIBAND_PATH_RE}'))",
     "message": "hostPath volumes exposing /dev/infiniband are allowed only in RDMA tenants' namespaces",
     "reason": "Forbidden"},
)


def tenant_labels(tenant: str, rdma: bool, isolation: str) -> dict[str, str]:
    """The labels of a tenant's namespace the guard and the metering rules read."""
    return {TENANT_LABEL: tenant, RDMA_LABEL: "true" if rdma else "false", ISOLATION_LABEL: isolation}


def _cel_list(items: Iterable[str]) -> str:
    return "[" + ", ".join(json.dumps(i) for i in items) + "]"


#: Resource names Kubernetes accounts itself (``hugepages-<size>`` by prefix): every other name in a container's
#: requests or limits is an extended resource a device plugin hands out — ``nvidia.com/gpu``, MIG slices
#: ``nvidia.com/mig-<profile>``, a time-sliced resource renamed by the plugin's config — so a GPU-class device (the
#: policy pack's ``_gpu_pods`` holds the same list; Kubernetes docs "Resource Management for Pods and Containers").
NATIVE_RESOURCES = ("cpu", "memory", "ephemeral-storage", "storage")


def pool_variables() -> tuple[dict[str, str], ...]:
    """CEL variables of the tenant-pools policy: ``containers``, ``wantsGpu`` (any extended resource requested or
    limited, or a DRA ``resourceClaims`` entry), ``toleratesGpu``."""
    resource = json.dumps(GPU_RESOURCE)
    device = f"!(k in {_cel_list(NATIVE_RESOURCES)}) && !k.startsWith('hugepages-')"
    return (
        {"name": "containers", "expression": _CONTAINERS},
        {"name": "wantsGpu", "expression":
            "variables.containers.exists(c, has(c.resources) && ("
            f"(has(c.resources.requests) && c.resources.requests.exists(k, {device}))"
            f" || (has(c.resources.limits) && c.resources.limits.exists(k, {device}))))"
            " || (has(object.spec.resourceClaims) && size(object.spec.resourceClaims) > 0)"},
        {"name": "toleratesGpu", "expression":
            "has(object.spec.tolerations) && object.spec.tolerations.exists(t, "
            f"(has(t.key) && t.key == {resource}) || ((!has(t.key) || t.key == '') && has(t.operator)"
            " && t.operator == 'Exists'))"},
    )


def pool_validations(pools: Sequence[str]) -> tuple[dict[str, str], ...]:
    """CEL validations of the tenant-pools policy for a tenant whose flavors cover ``pools``."""
    allowed = _cel_list(pools)
    label = json.dumps(POOL_LABEL)
    return (
        {"expression": "!(variables.wantsGpu || variables.toleratesGpu) || (has(object.spec.nodeSelector)"
                       f" && {label} in object.spec.nodeSelector && object.spec.nodeSelector[{label}] in {allowed})",
         "messageExpression": f"'GPU pods of this tenant must select one of its pools with nodeSelector "
                              f"{POOL_LABEL} in {', '.join(pools) or '(none)'} (submit through its Kueue LocalQueue)'",
         "reason": "Forbidden"},
        {"expression": "!(variables.wantsGpu || variables.toleratesGpu) || !has(object.spec.nodeName)"
                       " || object.spec.nodeName == ''",
         "message": "GPU pods of a tenant may not name a node (spec.nodeName bypasses the scheduler and Kueue)",
         "reason": "Forbidden"},
    )


def _pod_rules(operations: Sequence[str]) -> list[dict[str, Any]]:
    return [{"apiGroups": [""], "apiVersions": ["v1"], "operations": list(operations), "resources": ["pods"]}]


def priority_validations(classes: Sequence[str]) -> tuple[dict[str, str], ...]:
    """CEL validation of the tenant-priority policy: ``priorityClassName`` unset, empty or one of ``classes``."""
    allowed = _cel_list(classes)
    return ({"expression": f"!has(object.spec.priorityClassName) || object.spec.priorityClassName == ''"
                           f" || object.spec.priorityClassName in {allowed}",
             "messageExpression": f"'priorityClassName ' + object.spec.priorityClassName + ' is not for tenant pods; "
                                  f"use one of {', '.join(classes)}'",
             "reason": "Forbidden"},)


def block_volume_validations(classes: Sequence[str]) -> tuple[dict[str, str], ...]:
    """CEL validation of the tenant-block-volumes policy: a claim's ``storageClassName`` unset or none of
    ``classes``."""
    return ({"expression": f"!has(object.spec.storageClassName) || !(object.spec.storageClassName in "
                           f"{_cel_list(classes)})",
             "messageExpression": "'StorageClass ' + object.spec.storageClassName + ' attaches block volumes over "
                                  "iSCSI, which the CSI driver refuses on nodes with in-transit "
                                  "encryption here: the volume would never attach; name no class (the default attaches "
                                  "paravirtualized)'",
             "reason": "Forbidden"},)


def policies(prefix: str, tenant_pools: Mapping[str, Sequence[str]], tenant_namespaces: Mapping[str, str],
             platform_namespaces: Iterable[str], tenant_priority_classes: Sequence[str] = (),
             tenant_groups: Iterable[str] = (), tenant_roles: Sequence[str] = (),
             tenant_ids: Mapping[str, TenantIds] = {},
             unattachable_classes: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Every guard object as a Kubernetes manifest (dict): the RDMA-privileges policy and binding, and per tenant a
    tenant-pools policy and binding.

    :param prefix: the stack's name prefix (object names ``<prefix>-...``).
    :param tenant_pools: tenant → the node pools its Kueue flavors cover.
    :param tenant_namespaces: tenant → its namespace.
    :param platform_namespaces: the platform add-ons' namespaces (privileged by design: GPU Operator, monitoring,
        the topology labeler); the RDMA-privileges policy leaves them, and the system namespaces, alone.
    :param tenant_priority_classes: the PriorityClasses tenant pods may name (none: no tenant-priority policy).
    :param tenant_groups: the RBAC Group names of the tenants' members; :param tenant_roles: the platform's tenant
        ClusterRoles — both for the RBAC policies (:func:`oke_rdma.guard_rbac.rbac_policies`), appended last.
    :param tenant_ids: tenant → its storage IDs and shared claims (:func:`oke_rdma.guard_ids.ids_policies`).
    :param unattachable_classes: StorageClasses whose volumes cannot attach to the stack's nodes (none: no
        tenant-block-volumes policy).
    """
    labels = {"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": prefix}
    exempt = sorted({*SYSTEM_NAMESPACES, *platform_namespaces})
    rdma = f"{prefix}-rdma-privileges"
    out: list[dict[str, Any]] = [
        {"apiVersion": API, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": rdma, "labels": labels},
         "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": _pod_rules(["CREATE", "UPDATE"])},
                  "variables": [dict(v) for v in RDMA_VARIABLES],
                  "validations": [dict(v) for v in RDMA_VALIDATIONS]}},
        {"apiVersion": API, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": rdma, "labels": labels},
         "spec": {"policyName": rdma, "validationActions": ["Deny"], "matchResources": {"namespaceSelector": {
             "matchExpressions": [
                 {"key": RDMA_LABEL, "operator": "NotIn", "values": ["true"]},
                 {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": exempt}]}}}},
    ]
    for tenant, pools in tenant_pools.items():
        name = f"{prefix}-tenant-pools-{tenant}"
        out.append({"apiVersion": API, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name,
                                                                                           "labels": labels},
                    "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": _pod_rules(["CREATE"])},
                             "variables": [dict(v) for v in pool_variables()],
                             "validations": [dict(v) for v in pool_validations(pools)]}})
        out.append({"apiVersion": API, "kind": "ValidatingAdmissionPolicyBinding",
                    "metadata": {"name": name, "labels": labels},
                    "spec": {"policyName": name, "validationActions": ["Deny"], "matchResources": {
                        "namespaceSelector": {"matchLabels": {
                            "kubernetes.io/metadata.name": tenant_namespaces[tenant]}}}}})
    if tenant_priority_classes:
        name = f"{prefix}-tenant-priority"
        out.append({"apiVersion": API, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name,
                                                                                           "labels": labels},
                    "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": _pod_rules(["CREATE"])},
                             "validations": [dict(v) for v in priority_validations(tenant_priority_classes)]}})
        out.append({"apiVersion": API, "kind": "ValidatingAdmissionPolicyBinding",
                    "metadata": {"name": name, "labels": labels},
                    "spec": {"policyName": name, "validationActions": ["Deny"], "matchResources": {
                        "namespaceSelector": {"matchExpressions": [
                            {"key": TENANT_LABEL, "operator": "Exists"}]}}}})
    if unattachable_classes and tenant_namespaces:
        name = f"{prefix}-tenant-block-volumes"
        out.append({"apiVersion": API, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name,
                                                                                           "labels": labels},
                    "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": [
                        {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                         "resources": ["persistentvolumeclaims"]}]},
                             "validations": [dict(v) for v in block_volume_validations(unattachable_classes)]}})
        out.append({"apiVersion": API, "kind": "ValidatingAdmissionPolicyBinding",
                    "metadata": {"name": name, "labels": labels},
                    "spec": {"policyName": name, "validationActions": ["Deny"], "matchResources": {
                        "namespaceSelector": {"matchExpressions": [
                            {"key": TENANT_LABEL, "operator": "Exists"}]}}}})
    return (out + rbac_policies(prefix, tenant_namespaces, tenant_groups, tenant_roles)
            + ids_policies(prefix, tenant_ids, tenant_namespaces)
            + (route_policies(prefix) + node_policies(prefix) + service_policies(
                prefix, [*exempt, "default", *tenant_namespaces.values()]) if tenant_namespaces else []))


def _selected_by_name(binding: Mapping[str, Any]) -> Optional[str]:
    """The one namespace a ValidatingAdmissionPolicyBinding selects by ``kubernetes.io/metadata.name``, or None
    when it selects by anything else (labels, expressions, or nothing)."""
    selector = binding["spec"].get("matchResources", {}).get("namespaceSelector", {})
    labels = selector.get("matchLabels", {})
    if set(selector) == {"matchLabels"} and set(labels) == {"kubernetes.io/metadata.name"}:
        return labels["kubernetes.io/metadata.name"]
    return None


class GuardArgs:
    """Inputs of :class:`Guard`.

    :param name_prefix: the stack's name prefix.
    :param provider: the explicit Kubernetes provider of the OKE cluster.
    :param tenant_pools: tenant → the node pools its Kueue flavors cover.
    :param tenant_namespaces: tenant → its namespace.
    :param platform_namespaces: the platform add-ons' namespaces (exempt from the RDMA-privileges policy).
    :param namespaces: tenant namespace name → its ``Namespace`` resource (their labels select the bindings). A
        policy whose binding selects one namespace by name (``tenant-pools-<tenant>``) waits for that namespace; the
        others select every tenant namespace by label and wait for them all: tenants + a few × tenants edges, not
        tenants².
    :param tenant_priority_classes: the PriorityClasses tenant pods may name (default none: no such policy).
    :param tenant_groups: the RBAC Group names of the tenants' members (default none).
    :param tenant_roles: the platform's tenant ClusterRole names (default none).
    :param tenant_ids: tenant → :class:`~oke_rdma.guard_ids.TenantIds` (default none).
    :param unattachable_classes: StorageClasses tenant claims may not name (default none: no such policy).
    """

    def __init__(self, *, name_prefix: str, provider: pulumi.ProviderResource,
                 tenant_pools: Mapping[str, Sequence[str]], tenant_namespaces: Mapping[str, str],
                 platform_namespaces: Iterable[str], namespaces: Optional[Mapping[str, pulumi.Resource]] = None,
                 tenant_priority_classes: Sequence[str] = (), tenant_groups: Iterable[str] = (),
                 tenant_roles: Sequence[str] = (), tenant_ids: Mapping[str, TenantIds] = {},
                 unattachable_classes: Sequence[str] = ()):
        self.tenant_ids = dict(tenant_ids)
        self.unattachable_classes = tuple(unattachable_classes)
        self.tenant_groups = tuple(tenant_groups)
        self.tenant_roles = tuple(tenant_roles)
        self.name_prefix = name_prefix
        self.provider = provider
        self.tenant_pools = dict(tenant_pools)
        self.tenant_namespaces = dict(tenant_namespaces)
        self.platform_namespaces = list(platform_namespaces)
        self.namespaces = dict(namespaces or {})
        self.tenant_priority_classes = list(tenant_priority_classes)


class Guard(pulumi.ComponentResource):
    """ValidatingAdmissionPolicies and their bindings (type ``oke-rdma:guard:Guard``); see the module docstring.

    Attributes: ``objects`` (manifest name/kind → the Pulumi resource). Raises nothing: names come from checked
    config.
    """

    def __init__(self, name: str, args: GuardArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:guard:Guard", name, None, opts)
        self.objects: dict[str, pulumi.CustomResource] = {}
        manifests = policies(args.name_prefix, args.tenant_pools, args.tenant_namespaces, args.platform_namespaces,
                             args.tenant_priority_classes, args.tenant_groups, args.tenant_roles, args.tenant_ids,
                             args.unattachable_classes)
        # A policy whose binding selects one namespace by name waits for it; the others select every tenant namespace
        # by label and wait for them all, as one entry (oke_rdma.depends).
        every = [all_of(args.namespaces.values())] if args.namespaces else []
        waits = {m["spec"]["policyName"]: [args.namespaces[named]] for m in manifests
                 if m["kind"] == "ValidatingAdmissionPolicyBinding"
                 and (named := _selected_by_name(m)) is not None and named in args.namespaces}
        for m in manifests:
            is_policy = m["kind"] == "ValidatingAdmissionPolicy"
            logical = f"{m['metadata']['name']}-{'policy' if is_policy else 'binding'}"
            deps = (list(waits.get(m["metadata"]["name"], every)) if is_policy
                    else [self.objects[f"{m['spec']['policyName']}-policy"]])
            resource_opts = pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=deps)
            if is_policy:
                self.objects[logical] = k8s.admissionregistration.v1.ValidatingAdmissionPolicy(
                    logical, metadata=m["metadata"], spec=m["spec"], opts=resource_opts)
            else:
                self.objects[logical] = k8s.admissionregistration.v1.ValidatingAdmissionPolicyBinding(
                    logical, metadata=m["metadata"], spec=m["spec"], opts=resource_opts)
        self.register_outputs({"policies": sorted(self.objects)})
