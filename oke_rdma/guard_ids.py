"""The admission guard's storage-identity half: ``<prefix>-tenant-ids-<tenant>``, one ValidatingAdmissionPolicy per
tenant with a shared claim (``fss-shared``, ``lustre-shared``), bound to the tenant's namespace.

Every tenant's static volume mounts the whole export or file system (``oke_rdma.volumes``: FSS cannot mount a
directory below an export path), so the owner of each tenant directory (``2770``, its UID:GID) is the only wall
between tenants, and Pod Security ``restricted`` admits any non-zero UID. A pod that mounts one of the tenant's shared
claims must therefore run as the tenant's IDs (``tenants.<t>.sharedStorage.uid``/``gid``, or the derived ones):

* every container (init and ephemeral too) that mounts the claim's volume runs as the tenant's UID — its own ``securityContext.runAsUser``, else
  the pod's; unset is refused, since the image's ``USER`` (any UID, another tenant's too) would apply;
* the same for ``runAsGroup`` and the tenant's GID (unset: the image's group);
* ``fsGroup`` unset or the tenant's GID, and ``supplementalGroups`` only the tenant's GID.

Checked on CREATE and UPDATE of pods and of ``pods/ephemeralcontainers``; ``failurePolicy: Fail``. What the guard
cannot see: the groups an image's ``/etc/group`` adds for the UID (Kubernetes ``supplementalGroupsPolicy: Strict``
drops them where the runtime supports it; docs/threat-model.md).

And ``<prefix>-tenant-routes``, bound to every tenant namespace (label ``okerdma.io/tenant``): a Gateway API route
(``httproutes``, ``grpcroutes``, ``tcproutes``, ``tlsroutes``, ``udproutes``, any version) names backends — in
``rules[].backendRefs`` and in ``requestMirror`` filters of a rule or a backend — only in its own namespace: the shared
gateway would otherwise carry the tenant's traffic past the Cilium walls (the security pack's
``tenant-references-inside-the-wall`` at deploy time).

And ``<prefix>-tenant-nodes``, bound to every tenant namespace: a tenant's pod (CREATE) may not pick its node by
name — ``spec.nodeName`` (skips the scheduler), ``nodeSelector`` or node affinity (required or preferred) on a per-node
label (:data:`PER_NODE_LABELS`), node affinity ``matchFields`` (``metadata.name``) — the pack's
``tenant-pods-scheduled-by-the-platform`` at deploy time.

Sources (checked 2026-12-02): Kubernetes API ``PodSecurityContext``/``SecurityContext`` (``runAsUser``,
``runAsGroup``, ``fsGroup``, ``supplementalGroups``; a container's value overrides the pod's), docs "Configure a
Security Context" (without ``runAsUser`` the image's user applies; ``supplementalGroupsPolicy``), "Validating
Admission Policy" (subresource rules), "Pod Security Standards" (restricted: ``runAsNonRoot``, any non-zero UID),
"Assigning Pods to Nodes" (``nodeName``, node affinity, ``matchFields``); Gateway API reference v1.3 (``BackendObjectReference.namespace``,
``HTTPRequestMirrorFilter``).
"""
from __future__ import annotations

import json
from typing import Any, Mapping, NamedTuple, Sequence

API = "admissionregistration.k8s.io/v1"
_CONTAINERS = ("object.spec.containers"
               " + (has(object.spec.initContainers) ? object.spec.initContainers : [])"
               " + (has(object.spec.ephemeralContainers) ? object.spec.ephemeralContainers : [])")


class TenantIds(NamedTuple):
    """A tenant's storage identity: ``uid``, ``gid`` (ints) and the names of its shared claims."""
    uid: int
    gid: int
    claims: Sequence[str]


def ids_variables(claims: Sequence[str]) -> tuple[dict[str, str], ...]:
    """CEL variables: ``containers``, ``sharedVolumes`` (names of the pod's volumes of ``claims``), ``mountsShared``."""
    names = "[" + ", ".join(json.dumps(c) for c in claims) + "]"
    return ({"name": "containers", "expression": _CONTAINERS},
            {"name": "sharedVolumes", "expression": "has(object.spec.volumes) ? object.spec.volumes.filter(v, "
                                                    f"has(v.persistentVolumeClaim) && v.persistentVolumeClaim.claimName "
                                                    f"in {names}).map(v, v.name) : []"},
            {"name": "mountsShared", "expression": "size(variables.sharedVolumes) > 0"})


def _each_container(field: str, value: int) -> str:
    """Every container mounting a shared volume has ``field`` == ``value``: its own, else the pod's (unset: refused)."""
    own = f"(has(c.securityContext) && has(c.securityContext.{field}))"
    pod = (f"(has(object.spec.securityContext) && has(object.spec.securityContext.{field}) && "
           f"object.spec.securityContext.{field} == {value})")
    mounts = "(has(c.volumeMounts) && c.volumeMounts.exists(m, m.name in variables.sharedVolumes))"
    return (f"!variables.mountsShared || variables.containers.all(c, !{mounts} || "
            f"({own} ? c.securityContext.{field} == {value} : {pod}))")


def ids_validations(uid: int, gid: int) -> tuple[dict[str, str], ...]:
    """CEL validations of the tenant-ids policy for a tenant whose storage IDs are ``uid``:``gid``."""
    pod = "object.spec.securityContext"
    return (
        {"expression": _each_container("runAsUser", uid), "reason": "Forbidden",
         "message": f"pods mounting this tenant's shared storage run as its UID {uid} (runAsUser on the pod or "
                    "every container): the directory owner is the only wall between tenants"},
        {"expression": _each_container("runAsGroup", gid), "reason": "Forbidden",
         "message": f"pods mounting this tenant's shared storage run as its GID {gid} (runAsGroup on the pod or "
                    "every container)"},
        {"expression": f"!variables.mountsShared || !has({pod}) || !has({pod}.fsGroup) || {pod}.fsGroup == {gid}",
         "reason": "Forbidden", "message": f"pods mounting this tenant's shared storage use fsGroup {gid} or none"},
        {"expression": f"!variables.mountsShared || !has({pod}) || !has({pod}.supplementalGroups) || "
                       f"{pod}.supplementalGroups.all(g, g == {gid})",
         "reason": "Forbidden", "message": f"pods mounting this tenant's shared storage add no group but {gid}"},
    )


#: Node labels whose value names one node: ``kubernetes.io/hostname`` (Kubernetes "Well-Known Labels") and the ones
#: OKE writes (the pack's ``tenant_pods.PER_NODE_LABELS``; not verified from a primary source on 2026-12-02).
PER_NODE_LABELS = ("kubernetes.io/hostname", "hostname", "displayName", "internal_addr")


def _term_by_name(term: str) -> str:
    keys = "[" + ", ".join(json.dumps(k) for k in PER_NODE_LABELS) + "]"
    return (f"(has({term}.matchFields) && size({term}.matchFields) > 0) || (has({term}.matchExpressions) && "
            f"{term}.matchExpressions.exists(e, e.key in {keys}))")


def node_validations() -> tuple[dict[str, str], ...]:
    """CEL validations of the tenant-nodes policy: no node picked by name."""
    keys = "[" + ", ".join(json.dumps(k) for k in PER_NODE_LABELS) + "]"
    aff = "object.spec.affinity.nodeAffinity"
    required = f"{aff}.requiredDuringSchedulingIgnoredDuringExecution"
    preferred = f"{aff}.preferredDuringSchedulingIgnoredDuringExecution"
    return (
        {"expression": "!has(object.spec.nodeName) || object.spec.nodeName == ''", "reason": "Forbidden",
         "message": "a tenant's pods may not name a node (spec.nodeName skips the scheduler and Kueue)"},
        {"expression": f"!has(object.spec.nodeSelector) || !{keys}.exists(k, k in object.spec.nodeSelector)",
         "reason": "Forbidden", "message": "a tenant's pods may not select a node by name (nodeSelector on a per-node "
                                           "label)"},
        {"expression": f"!has(object.spec.affinity) || !has({aff}) || ((!has({required}) || "
                       f"!has({required}.nodeSelectorTerms) || !{required}.nodeSelectorTerms.exists(t, "
                       f"{_term_by_name('t')})) && (!has({preferred}) || !{preferred}.exists(p, "
                       f"has(p.preference) && ({_term_by_name('p.preference')}))))",
         "reason": "Forbidden", "message": "a tenant's pods may not pick a node by name (node affinity on a per-node "
                                           "label or matchFields)"},
    )


def node_policies(prefix: str) -> list[dict[str, Any]]:
    """The tenant-nodes policy and its binding (every namespace labelled ``okerdma.io/tenant``), CREATE only."""
    labels = {"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": prefix}
    name = f"{prefix}-tenant-nodes"
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]
    return [{"apiVersion": API, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name, "labels": labels},
             "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": rules},
                      "validations": [dict(v) for v in node_validations()]}},
            {"apiVersion": API, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name,
                                                                                         "labels": labels},
             "spec": {"policyName": name, "validationActions": ["Deny"], "matchResources": {"namespaceSelector": {
                 "matchExpressions": [{"key": "okerdma.io/tenant", "operator": "Exists"}]}}}}]


ROUTE_RESOURCES = ("httproutes", "grpcroutes", "tcproutes", "tlsroutes", "udproutes")


def _mirrors_home(node: str) -> str:
    return (f"(!has({node}.filters) || {node}.filters.all(f, !has(f.requestMirror) || "
            "!has(f.requestMirror.backendRef) || !has(f.requestMirror.backendRef.namespace) || "
            "f.requestMirror.backendRef.namespace == object.metadata.namespace))")


def route_validations() -> tuple[dict[str, str], ...]:
    """CEL validation of the tenant-routes policy: every backend ref and mirror in the route's own namespace."""
    return ({"expression": "!has(object.spec.rules) || object.spec.rules.all(r, "
                           "(!has(r.backendRefs) || r.backendRefs.all(b, (!has(b.namespace) || "
                           f"b.namespace == object.metadata.namespace) && {_mirrors_home('b')})) && "
                           f"{_mirrors_home('r')})",
             "reason": "Forbidden",
             "message": "a tenant's routes name backends only in its own namespace (the shared gateway would carry "
                        "the traffic past the Cilium walls)"},)


def route_policies(prefix: str) -> list[dict[str, Any]]:
    """The tenant-routes policy and its binding (every namespace labelled ``okerdma.io/tenant``)."""
    labels = {"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": prefix}
    name = f"{prefix}-tenant-routes"
    rules = [{"apiGroups": ["gateway.networking.k8s.io"], "apiVersions": ["*"], "operations": ["CREATE", "UPDATE"],
              "resources": list(ROUTE_RESOURCES)}]
    return [{"apiVersion": API, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name, "labels": labels},
             "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": rules},
                      "validations": [dict(v) for v in route_validations()]}},
            {"apiVersion": API, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name,
                                                                                         "labels": labels},
             "spec": {"policyName": name, "validationActions": ["Deny"], "matchResources": {"namespaceSelector": {
                 "matchExpressions": [{"key": "okerdma.io/tenant", "operator": "Exists"}]}}}}]


def ids_policies(prefix: str, tenant_ids: Mapping[str, TenantIds],
                 tenant_namespaces: Mapping[str, str]) -> list[dict[str, Any]]:
    """One policy and binding per tenant with shared claims, in the shape :func:`oke_rdma.guard.policies` returns."""
    labels = {"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": prefix}
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
              "resources": ["pods", "pods/ephemeralcontainers"]}]
    out: list[dict[str, Any]] = []
    for tenant, ids in sorted(tenant_ids.items()):
        if not ids.claims:
            continue
        name = f"{prefix}-tenant-ids-{tenant}"
        out.append({"apiVersion": API, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name,
                                                                                           "labels": labels},
                    "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": rules},
                             "variables": [dict(v) for v in ids_variables(ids.claims)],
                             "validations": [dict(v) for v in ids_validations(ids.uid, ids.gid)]}})
        out.append({"apiVersion": API, "kind": "ValidatingAdmissionPolicyBinding",
                    "metadata": {"name": name, "labels": labels},
                    "spec": {"policyName": name, "validationActions": ["Deny"], "matchResources": {
                        "namespaceSelector": {"matchLabels": {
                            "kubernetes.io/metadata.name": tenant_namespaces[tenant]}}}}})
    return out
