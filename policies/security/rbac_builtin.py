"""The default ClusterRoles of Kubernetes, with the rules the RBAC grant model (``rbac_model``) judges, and the
aggregation labels they carry — so a binding to, or an aggregation of, a built-in role is judged like any other.

Source (checked 2026-12-01): kubernetes/kubernetes ``plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go``
(release 1.33: ``ClusterRoles()``, the ``system:aggregate-to-*`` roles and their labels) and Kubernetes docs "Using
RBAC Authorization" ("User-facing roles": cluster-admin, admin, edit, view; "Core component roles", "Other
component roles", "Roles for built-in controllers").
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from .rbac_model import RBAC_GROUP, READ, SAFE_NON_RESOURCE_URLS, Rule
else:  # run by the Pulumi CLI from inside policies/security/
    from rbac_model import RBAC_GROUP, READ, SAFE_NON_RESOURCE_URLS, Rule


def _r(groups: Iterable[str], resources: Iterable[str], verbs: Iterable[str]) -> Rule:
    return Rule(frozenset(groups), frozenset(resources), frozenset(verbs))


_ALL_WRITE = ("create", "update", "patch", "delete", "deletecollection")
_VIEW = [
    _r([""], ["pods", "pods/log", "pods/status", "configmaps", "endpoints", "persistentvolumeclaims",
              "replicationcontrollers", "services", "serviceaccounts", "events", "limitranges", "resourcequotas",
              "namespaces", "namespaces/status", "bindings"], READ),
    _r(["apps"], ["deployments", "statefulsets", "daemonsets", "replicasets", "controllerrevisions"], READ),
    _r(["batch"], ["jobs", "cronjobs"], READ),
    _r(["autoscaling", "policy", "networking.k8s.io", "discovery.k8s.io"], ["*"], READ),  # no Secrets here
]
_EDIT = _VIEW + [
    _r([""], ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"], READ),
    _r([""], ["serviceaccounts"], ["impersonate"]),
    _r([""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"], _ALL_WRITE),
    _r([""], ["pods/eviction", "serviceaccounts/token"], ["create"]),
    _r([""], ["replicationcontrollers", "serviceaccounts", "services", "persistentvolumeclaims", "configmaps",
              "secrets"], _ALL_WRITE),
    _r(["apps"], ["deployments", "statefulsets", "daemonsets", "replicasets"], _ALL_WRITE),
    _r(["batch"], ["jobs", "cronjobs"], _ALL_WRITE),
]
_ADMIN = _EDIT + [_r([RBAC_GROUP], ["roles", "rolebindings"], _ALL_WRITE + READ),
                  _r(["authorization.k8s.io"], ["localsubjectaccessreviews"], ["create"])]
_NODE = [_r([""], ["secrets", "configmaps", "persistentvolumes", "persistentvolumeclaims"], ["get"]),
         _r([""], ["pods"], ["get", "list", "watch", "create", "delete"]),
         _r([""], ["nodes"], ["create", "get", "list", "watch", "update", "patch"]),
         _r([""], ["nodes/status"], ["update", "patch"]), _r([""], ["serviceaccounts/token"], ["create"]),
         _r(["certificates.k8s.io"], ["certificatesigningrequests"], ["create", "get", "list", "watch"])]
#: Default ClusterRoles (bootstrappolicy ``policy.go``, release 1.33) with the rules the catalogue judges. A binding
#: to a ``system:`` role that is not here, or to ``system:controller:*`` (the controllers' own roles: the
#: aggregation controller holds ``escalate``, the ReplicaSet/Job/DaemonSet controllers create pods everywhere), is
#: refused as a role whose grants are not judged.
BUILT_IN_ROLES: dict[str, list[Rule]] = {
    "cluster-admin": [_r(["*"], ["*"], ["*"]), Rule(verbs=frozenset({"*"}), urls=frozenset({"*"}))],
    "admin": _ADMIN, "edit": _EDIT, "view": _VIEW,
    "system:aggregate-to-admin": _ADMIN, "system:aggregate-to-edit": _EDIT, "system:aggregate-to-view": _VIEW,
    "system:node": _NODE,
    "system:kube-controller-manager": [_r(["*"], ["*"], ["list", "watch"]),
                                       _r([""], ["secrets", "serviceaccounts"], ["create", "update"]),
                                       _r([""], ["serviceaccounts/token"], ["create"])],
    "system:kube-scheduler": [_r([""], ["pods", "nodes", "persistentvolumes"], READ),
                              _r([""], ["bindings", "pods/binding"], ["create"]),
                              _r([""], ["pods/status"], ["patch", "update"])],
    "system:kubelet-api-admin": [_r([""], ["nodes/proxy", "nodes/log", "nodes/stats", "nodes/metrics"], ["*"])],
    "system:persistent-volume-provisioner": [_r([""], ["persistentvolumes"], ["create", "delete", "get", "list",
                                                                               "watch"])],
    "system:volume-scheduler": [_r([""], ["persistentvolumes"], ["get", "list", "watch", "patch", "update"])],
    "system:node-problem-detector": [_r([""], ["nodes"], ["get"]), _r([""], ["nodes/status"], ["patch"]),
                                     _r(["", "events.k8s.io"], ["events"], ["create", "patch", "update"])],
    "system:certificates.k8s.io:certificatesigningrequests:nodeclient": [
        _r(["certificates.k8s.io"], ["certificatesigningrequests/nodeclient"], ["create"])],
    "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient": [
        _r(["certificates.k8s.io"], ["certificatesigningrequests/selfnodeclient"], ["create"])],
    **{f"system:certificates.k8s.io:{n}-approver": [_r(["certificates.k8s.io"], ["signers"], ["approve"])]
       for n in ("kube-apiserver-client", "kube-apiserver-client-kubelet", "kubelet-serving", "legacy-unknown")},
    "system:node-bootstrapper": [_r(["certificates.k8s.io"], ["certificatesigningrequests"],
                                    ["create", "get", "list", "watch"])],
    "system:discovery": [Rule(verbs=frozenset({"get"}), urls=frozenset(SAFE_NON_RESOURCE_URLS))],
    "system:public-info-viewer": [Rule(verbs=frozenset({"get"}), urls=frozenset({"/healthz", "/livez", "/readyz",
                                                                                  "/version", "/version/"}))],
    "system:monitoring": [Rule(verbs=frozenset({"get"}), urls=frozenset({"/metrics", "/metrics/slis", "/livez",
                                                                          "/readyz", "/healthz", "/livez/*",
                                                                          "/readyz/*", "/healthz/*"}))],
    "system:service-account-issuer-discovery": [Rule(verbs=frozenset({"get"}), urls=frozenset({
        "/.well-known/openid-configuration", "/.well-known/openid-configuration/", "/openid/v1/jwks",
        "/openid/v1/jwks/"}))],
    "system:basic-user": [_r(["authorization.k8s.io"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
                             ["create"]), _r(["authentication.k8s.io"], ["selfsubjectreviews"], ["create"])],
    "system:auth-delegator": [_r(["authentication.k8s.io"], ["tokenreviews"], ["create"]),
                              _r(["authorization.k8s.io"], ["subjectaccessreviews"], ["create"])],
    "system:heapster": [_r([""], ["events", "namespaces", "nodes", "pods"], READ),
                        _r(["apps"], ["deployments"], READ)],
    "system:kube-aggregator": [_r([""], ["services", "endpoints"], READ)],
    "system:kube-dns": [_r([""], ["endpoints", "services"], ["list", "watch"])],
    "system:node-proxier": [_r([""], ["services", "endpoints", "nodes"], READ),
                            _r(["discovery.k8s.io"], ["endpointslices"], READ)],
}
#: Which built-in roles carry which aggregation label (so an ``aggregationRule`` selecting the label collects them):
#: ``edit`` and ``system:aggregate-to-admin`` feed admin, ``view`` and ``system:aggregate-to-edit`` feed edit,
#: ``system:aggregate-to-view`` feeds view; every default role carries ``kubernetes.io/bootstrapping: rbac-defaults``.
BUILT_IN_LABELS: dict[str, dict[str, str]] = {
    "edit": {"rbac.authorization.k8s.io/aggregate-to-admin": "true"},
    "system:aggregate-to-admin": {"rbac.authorization.k8s.io/aggregate-to-admin": "true"},
    "view": {"rbac.authorization.k8s.io/aggregate-to-edit": "true"},
    "system:aggregate-to-edit": {"rbac.authorization.k8s.io/aggregate-to-edit": "true"},
    "system:aggregate-to-view": {"rbac.authorization.k8s.io/aggregate-to-view": "true"},
}


def built_in_role(name: Any) -> Optional[list[Rule]]:
    """The judged rules of a default ClusterRole, or None when ``name`` is not one this model knows."""
    return BUILT_IN_ROLES.get(name) if isinstance(name, str) else None


def built_in_labels(name: str) -> dict[str, str]:
    """The labels a default ClusterRole carries (every one has ``kubernetes.io/bootstrapping: rbac-defaults``)."""
    return {"kubernetes.io/bootstrapping": "rbac-defaults", **BUILT_IN_LABELS.get(name, {})}
