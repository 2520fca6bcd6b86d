"""Objects the platform owns are written only by the platform's own components, whatever path the write takes.

| rule                                       | kind  | judges                                                       |
|--------------------------------------------|-------|--------------------------------------------------------------|
| kubernetes-platform-objects-only-by-platform | stack | every Kubernetes object a stack writes — declared, a ``*Patch``|
|                                            |       | (judged as its base kind, :func:`base_kind`), an item of a   |
|                                            |       | ``*List``, an object a Helm release renders from its values, |
|                                            |       | a ConfigGroup's or ConfigFile's object (children of their    |
|                                            |       | own type) — by a resource outside the platform's components  |
|                                            |       | (``oke-rdma:*`` in its URN's parent type chain)  |

A write is refused when it lands on an object the tenancy model says the platform owns:

* a ``*Patch`` of a platform-owned kind (``tenancy.PLATFORM_OWNED``: a patch targets a live object the stack did not
  create, and every live object of these kinds is a wall, a guard, a limit or the cluster's): the guard's
  ValidatingAdmissionPolicyBinding set to Audit, a Cilium wall emptied, a tenant's quota raised, a CRD given a
  conversion webhook, a PriorityClass, a Node's labels. The kinds of ``tenancy.PATCH_JUDGED_BY_EFFECT`` are judged
  by the rules named there (RBAC by effect, Pod Security labels), except that a NamespacePatch never writes the
  tenancy labels (``okerdma.io/*``: which tenant a namespace is, its isolation);
* any object in the cluster's own namespaces (``tenancy.CLUSTER_NAMESPACES``: kube-system's ``coredns-custom``, ...);
* a control object (``tenancy.CONTROL_KINDS``: ConfigMaps, Secrets, Leases, ServiceAccounts, and every platform-owned
  kind) in an add-on's namespace (``tenancy.ADDON_NAMESPACES``: Kueue's leader-election Lease) unless the stack
  declares that Namespace itself (it installs the add-on);
* a CustomResourceDefinition of an API group the platform's add-ons install (``tenancy.ADDON_CRD_GROUPS``): patched,
  or declared by a stack that does not declare that add-on's namespace itself (installing the add-on);
* the same object (kind, namespace, name) as one a platform component of the same stack declares, through any
  provider that may reach the same cluster (the same target, or a provider whose kubeconfig is unknown during the
  preview: ``_clusters.same_cluster_possible``): the message names the owner;
* an object of a platform-owned kind *declared* (not patched) under a name the platform gives its own objects
  (``tenancy.PLATFORM_OBJECT_NAMES``: ``<namePrefix>-*`` — the admission guard's ``<prefix>-tenant-priority``
  binding, the walls, queues, flavors, priority classes, tenant roles —, in any namespace; a tenant's ``gpu`` and
  ``system-priority`` quotas, ``defaults`` LimitRange and LocalQueue in a namespace the stack does not declare
  itself; the ``oke-rdma-bv`` class, the GPU rules, the MPI Operator's roles unless the stack installs it): the
  platform may live in another
  stack, where this rule cannot see its objects, and a declaration applied over the live object rewrites it (an
  Audit binding over the guard's Deny one). The platform stacks' prefixes are the policy config
  ``platformNamePrefixes`` (default ``okerdma``, which covers every prefix starting ``okerdma-``). A declared object
  of such a kind whose name is unknown during preview may be one of them and is refused.

An unknown namespace or name of an object the rule must place fails closed; an unknown label map of a NamespacePatch
may hold the tenancy labels and is refused.

Sources (checked 2026-12-02): Kubernetes docs "Server-Side Apply" (a patch takes ownership of the fields it sets on
a live object; an apply of a new manager's fields onto an existing object succeeds where no other manager owns them,
and with force where one does), "Namespaces", "Leases", "Versions in CustomResourceDefinitions" (webhook conversion); pulumi_kubernetes
4.34.2 (every built-in kind has a ``<Kind>Patch`` resource, ``CustomResourcePatch`` registers
``kubernetes:<apiVersion>:<Kind>Patch``; a declared object is applied server-side and takes over a live one); OKE docs
"Configuring DNS Servers for Kubernetes Clusters" (``kube-system/coredns-custom``).
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

import fnmatch

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, Severity, StackValidationArgs,
                           StackValidationPolicy)

if __package__:  # imported as the package `policies.security`
    from . import tenancy
    from ._clusters import cluster_key, current, same_cluster_possible
    from ._objects import derived_resources
    from ._provider_namespace import CLUSTER_SCOPED
    from ._rules import UNKNOWN, read
else:  # run by the Pulumi CLI from inside policies/security/
    import tenancy
    from _clusters import cluster_key, current, same_cluster_possible
    from _objects import derived_resources
    from _provider_namespace import CLUSTER_SCOPED
    from _rules import UNKNOWN, read

RULE = "kubernetes-platform-objects-only-by-platform"
NAMESPACE = ("", "Namespace")
CRD = ("apiextensions.k8s.io", "CustomResourceDefinition")


def base_kind(resource_type: str) -> Optional[tuple[str, str, str, bool]]:
    """The Kubernetes object a resource type writes: ``(apiGroup, kind, type token of the kind, is a patch)``.

    ``kubernetes:core/v1:ResourceQuotaPatch`` → ``("", "ResourceQuota", "kubernetes:core/v1:ResourceQuota", True)``;
    ``kubernetes:cilium.io/v2:CiliumClusterwideNetworkPolicyPatch`` → ``("cilium.io", ...)``. None for a type that
    writes no single object (Helm, yaml, kustomize, ``*List``, providers, anything not ``kubernetes:``). The one
    mapping every rule of this module reads."""
    parts = resource_type.split(":")
    if len(parts) != 3 or parts[0] != "kubernetes" or "/" not in parts[1]:
        return None
    group = parts[1].rsplit("/", 1)[0]
    if group in ("helm.sh", "yaml", "kustomize") or parts[2].endswith("List") and parts[2] != "List":
        return None
    kind, patch = parts[2], False
    if kind.endswith("Patch") and len(kind) > 5:
        kind, patch = kind[:-5], True
    group = "" if group == "core" else group
    return group, kind, f"kubernetes:{parts[1]}:{kind}", patch


def platform_written(urn: str) -> bool:
    """Whether a resource's URN has one of the platform's components in its parent type chain."""
    parts = str(urn).split("::")
    chain = parts[2].split("$")[:-1] if len(parts) >= 4 else []
    return any(t.startswith(tenancy.PLATFORM_COMPONENT_PREFIX) for t in chain)


def _owner_component(urn: str) -> str:
    parts = str(urn).split("::")
    chain = parts[2].split("$")[:-1] if len(parts) >= 4 else []
    found = [t for t in chain if t.startswith(tenancy.PLATFORM_COMPONENT_PREFIX)]
    return found[-1] if found else "the platform"


def _crd_group(props: Any, name: Any) -> Any:
    group = read(props, "spec", "group")
    if isinstance(group, str):
        return group
    if isinstance(name, str) and "." in name:  # <plural>.<group>
        return name.split(".", 1)[1]
    return UNKNOWN if group is UNKNOWN or name is UNKNOWN else None


def _addon_group(group: Any) -> tuple[str, ...] | None:
    """The add-on namespaces whose add-on installs CRDs of API ``group`` (most specific group first), or None."""
    if not isinstance(group, str):
        return None
    for g in sorted(tenancy.ADDON_CRD_GROUPS, key=len, reverse=True):
        if group == g or group.endswith("." + g):
            return tenancy.ADDON_CRD_GROUPS[g]
    return None


def write_problems(resource_type: str, props: Any, declared_namespaces: set[str]) -> list[str]:
    """Why one write (by a resource outside the platform) lands on an object the platform owns; [] when it does not.

    :param resource_type: the writing resource's type (a kind or its ``*Patch``).
    :param props: the object's inputs (``metadata``, ``spec``, ...).
    :param declared_namespaces: the Namespaces the stack itself declares (not patches)."""
    kind_of = base_kind(resource_type)
    if kind_of is None:
        return []
    group, kind, _, patch = kind_of
    name, namespace = read(props, "metadata", "name"), read(props, "metadata", "namespace")
    shown = f"{kind} {namespace + '/' if isinstance(namespace, str) and kind not in CLUSTER_SCOPED else ''}" \
            f"{name if isinstance(name, str) else '<unknown name>'}"
    owned = tenancy.owned_kind(group, kind)
    found: list[str] = []
    if patch and owned is not None:
        if (group, kind) == NAMESPACE:
            labels = read(props, "metadata", "labels")
            if labels is UNKNOWN:
                found.append(f"patches {shown} with labels unknown during preview: they may set the tenancy labels "
                             f"({tenancy.PLATFORM_LABEL_PREFIX}*) the walls and the guard select tenants by")
            elif hasattr(labels, "keys"):
                keys = sorted(k for k in list(labels.keys()) if str(k).startswith(tenancy.PLATFORM_LABEL_PREFIX))
                if keys:
                    found.append(f"patches {shown}'s tenancy labels ({', '.join(keys)}): the walls, the guard, Kueue "
                                 "and metering select tenants by them, and only the platform sets them")
        elif (group, kind) not in tenancy.PATCH_JUDGED_BY_EFFECT:
            found.append(f"patches {shown}, which the platform owns ({owned[4]})")
    if (group, kind) == CRD:
        crd_group = _crd_group(props, name)
        if crd_group is UNKNOWN:
            found.append(f"writes {shown} whose API group is unknown during preview: it may be an add-on's")
        elif _addon_group(crd_group) is not None and (patch or not set(_addon_group(crd_group)) & declared_namespaces):
            found.append(f"{'patches' if patch else 'writes'} {shown}, the API of an add-on the platform installs "
                         f"({crd_group}; a stack installing that add-on itself declares its namespace, "
                         f"{' or '.join(_addon_group(crd_group))}): its schema and conversion webhook decide what "
                         "every stored object of that kind becomes")
    if kind in CLUSTER_SCOPED:
        return found
    if namespace is UNKNOWN:
        if (group, kind) in tenancy.CONTROL_KINDS or owned is not None:
            found.append(f"writes {shown} in a namespace unknown during preview: it may be the cluster's or an "
                         "add-on's")
        return found
    if namespace in tenancy.CLUSTER_NAMESPACES:
        found.append(f"writes {shown} in {namespace}, a namespace of the cluster itself (CoreDNS, kube-proxy, the "
                     "CNI, the nodes' leases)")
    elif namespace in tenancy.ADDON_NAMESPACES and namespace not in declared_namespaces and \
            ((group, kind) in tenancy.CONTROL_KINDS or owned is not None) and not found:
        found.append(f"writes {shown} in {namespace}, the namespace of a platform add-on whose controllers it "
                     "steers (configuration, credentials, leader election), which this stack does not declare")
    return found


def _identity(resource_type: str, props: Any) -> Optional[tuple[str, str, Any, Any]]:
    kind_of = base_kind(resource_type)
    if kind_of is None:
        return None
    name, namespace = read(props, "metadata", "name"), read(props, "metadata", "namespace")
    if not isinstance(name, str):
        return None
    return kind_of[0], kind_of[1], None if kind_of[1] in CLUSTER_SCOPED else namespace, name


def platform_name(group: str, kind: str, name: str, prefixes: Iterable[str], namespace: Any = None,
                  declared_namespaces: frozenset = frozenset()) -> Optional[str]:
    """What the platform keeps under ``name`` for a ``kind`` of API ``group`` in ``namespace``
    (``tenancy.PLATFORM_OBJECT_NAMES``, ``{prefix}`` each of ``prefixes``), or None when the platform gives no object
    of that kind that name there — or the name is the stack's own: a fixed name of a namespaced kind in a namespace
    the stack declares, an add-on's name where the stack declares the add-on's namespace."""
    for g, k, pattern, what, addon in tenancy.PLATFORM_OBJECT_NAMES:
        if g not in ("*", group) or k not in ("*", kind):
            continue
        if addon and addon in declared_namespaces:
            continue  # the stack installs that add-on itself
        if "{prefix}" not in pattern and kind not in CLUSTER_SCOPED and namespace in declared_namespaces:
            continue  # the stack's own tenant namespace
        if "{namespace}" in pattern and not isinstance(namespace, str):
            continue
        pattern = pattern.replace("{namespace}", namespace if isinstance(namespace, str) else "")
        for prefix in (prefixes if "{prefix}" in pattern else ("",)):
            if fnmatch.fnmatchcase(name, pattern.replace("{prefix}", prefix)):
                return what
    return None


def _writes(resources: list[Any]) -> list[Any]:
    return resources + [d for d in derived_resources(resources) if d.origin != "NamespacePatch"]


def name_problem(resource_type: str, props: Any, prefixes: Iterable[str],
                 declared_namespaces: frozenset[str] = frozenset()) -> Optional[str]:
    """Why a declared object (not a patch) of a platform-owned kind takes a name the platform gives its own objects
    (or may: its name is unknown during preview); None otherwise. ``declared_namespaces``: the Namespaces the stack
    declares (see :func:`platform_name`)."""
    kind_of = base_kind(resource_type)
    if kind_of is None or kind_of[3] or tenancy.owned_kind(kind_of[0], kind_of[1]) is None:
        return None
    group, kind = kind_of[0], kind_of[1]
    name, namespace = read(props, "metadata", "name"), read(props, "metadata", "namespace")
    where = f" in {namespace}" if isinstance(namespace, str) and kind not in CLUSTER_SCOPED else ""
    if name is UNKNOWN:
        return (f"declares a {kind}{where} whose name is unknown during preview: it may be the name of one the "
                "platform declares (its guard, walls, queues, quotas), and a declaration is applied over the live "
                "object; set the name literally")
    if not isinstance(name, str):
        return None
    what = platform_name(group, kind, name, prefixes, namespace, declared_namespaces)
    if what is None:
        return None
    return (f"declares {kind} {name}{where}, a name the platform gives its own objects ({what}): applied "
            "server-side over the platform's live object it rewrites it (an Audit binding over the guard's Deny "
            "one); name your object otherwise, or change the platform's through its config")


def problems(resources: Iterable[Any], prefixes: Iterable[str] = tenancy.DEFAULT_PLATFORM_NAME_PREFIXES,
             everything: Optional[Iterable[Any]] = None) -> list[tuple[Any, str]]:
    """(resource, why) for each write of a platform-owned object by something outside the platform's components.

    :param resources: the resources judged (one cluster's, under ``_clusters.cluster_aware``).
    :param prefixes: the platform stacks' ``namePrefix`` values (policy config ``platformNamePrefixes``).
    :param everything: every resource of the stack, all clusters (default ``resources``): the platform's objects are
        looked up there, on every cluster that may be the judged object's."""
    resources = list(resources)
    prefixes = tuple(prefixes)
    writes = _writes(resources)
    declared_namespaces = {read(r.props, "metadata", "name") for r in resources
                           if r.resource_type == "kubernetes:core/v1:Namespace" and not platform_written(r.urn)}
    declared_namespaces = {n for n in declared_namespaces if isinstance(n, str)}
    all_namespaces = {read(r.props, "metadata", "name") for r in resources
                      if r.resource_type == "kubernetes:core/v1:Namespace"}
    platform_objects: dict[tuple, list[tuple[tuple, str]]] = {}
    for r in _writes(list(everything)) if everything is not None else writes:
        if platform_written(r.urn):
            key = _identity(r.resource_type, r.props)
            if key is not None:
                platform_objects.setdefault(key, []).append((cluster_key(getattr(r, "provider", None)), r.urn))
    found: list[tuple[Any, str]] = []
    for r in writes:
        if platform_written(r.urn):
            continue
        why = write_problems(r.resource_type, r.props, declared_namespaces)
        key = _identity(r.resource_type, r.props)
        here = cluster_key(getattr(r, "provider", None))
        owners = [urn for where, urn in platform_objects.get(key, []) if same_cluster_possible(here, where)]
        if owners:
            why.append(f"writes {key[1]} {(key[2] + '/') if key[2] else ''}{key[3]}, which "
                       f"{_owner_component(owners[0])} declares in this stack")
        else:
            named = name_problem(r.resource_type, r.props, prefixes, frozenset(all_namespaces))
            if named:
                why.append(named)
        found += [(r, w) for w in why]
    return found


PREFIXES_SCHEMA = {
    "type": "array", "default": list(tenancy.DEFAULT_PLATFORM_NAME_PREFIXES),
    "items": {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
    "description": ("namePrefix values of the organisation's oke-rdma platform stacks: objects of a platform-owned "
                    "kind named <prefix>-* (and the platform's fixed names) are the platform's, whichever stack "
                    "declares them")}


def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``kubernetes-platform-objects-only-by-platform``: see the module docstring."""
    config = args.get_config() or {}
    prefixes = config.get("platformNamePrefixes")
    prefixes = tenancy.DEFAULT_PLATFORM_NAME_PREFIXES if prefixes is None else tuple(prefixes)
    view = current()
    for r, why in problems(args.resources, prefixes, view.everything if view is not None else None):
        report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}' {why}; only the platform's components "
                         "(oke-rdma:*) write it.", getattr(r, "urn", None))


platform_objects_only_by_platform = StackValidationPolicy(
    name=RULE,
    description=("Objects the platform owns (its walls, admission guard and bindings, tenants' quotas and tenancy "
                 "labels, priority classes, add-ons' CRDs, leader-election Leases and configuration, kube-system) "
                 "are written only by the platform's components: a *Patch of a platform-owned kind, a write in "
                 "kube-system or in an add-on's namespace, an add-on's CRD, an object a platform component "
                 "declares, or an object declared under a name the platform gives its own (<namePrefix>-*, a "
                 "tenant's gpu quota, ...) is refused for any other resource."),
    validate=validate,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Change the object through the platform's config (docs/configuration.md) so its component "
                       "writes it; write your own objects in your own namespace. Source: Kubernetes docs "
                       "\"Server-Side Apply\"; oke-rdma docs/tenants.md."),
    tags=["kubernetes", "tenancy", "isolation"],
    config_schema=PolicyConfigSchema(properties={"platformNamePrefixes": PREFIXES_SCHEMA}),
)

POLICIES = [platform_objects_only_by_platform]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    RULE: ("fails closed: an unknown namespace of a control object, an unknown CRD group, an unknown label map of "
           "a NamespacePatch and an unknown name of a declared platform-owned kind are violations; a platform "
           "object declared through a provider whose target is unknown counts as on the same cluster"),
}
