"""Red-team programs of the seventh pass's classes: where an object without a namespace lands (the kubeconfig
context of its provider), settings injected into pods the objects do not declare (Kueue flavors, namespace default
tolerations, RuntimeClasses), node-address paths into the platform's walled namespaces, and resources given outside
the tenancy's accounting (LimitRange defaults). Registered into ``programs.CASES`` on import."""
from __future__ import annotations

import json

import pulumi
import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import case, namespace

READ_SECRETS = [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list"]}]
USER = [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice@example.com"}]
REF = {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "secret-reader"}


def kubeconfig(contexts: dict[str, str], current: str) -> str:
    """An inline kubeconfig whose contexts (name → namespace) all reach one cluster."""
    return json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": current,
        "clusters": [{"name": "k", "cluster": {"server": "https://10.0.0.10:6443"}}],
        "users": [{"name": "u", "user": {"token": "x"}}],
        "contexts": [{"name": n, "context": {"cluster": "k", "user": "u", "namespace": ns}}
                     for n, ns in contexts.items()]})


def _secret_reader(opts: pulumi.ResourceOptions) -> None:
    k8s.rbac.v1.Role("reader", metadata={"name": "secret-reader"}, rules=READ_SECRETS, opts=opts)
    k8s.rbac.v1.RoleBinding("reader", metadata={"name": "secret-reader"}, role_ref=REF, subjects=USER, opts=opts)


# --- where an object without a namespace lands ---------------------------------------------------------------------

@case("identity", "kubernetes-rbac-no-escalation")
def role_lands_in_the_provider_contexts_named_by_its_context_input(bad):
    """The provider's ``context`` input (not the kubeconfig's current context) picks the context whose namespace
    the objects land in."""
    namespace("apps", "restricted")
    config = kubeconfig({"dev": "apps", "admin": "kube-system"}, current="dev")
    _secret_reader(pulumi.ResourceOptions(provider=k8s.Provider("k8s", kubeconfig=config,
                                                                context="admin" if bad else "dev")))


@case("identity", "kubernetes-rbac-no-escalation")
def kustomize_role_lands_in_the_kubeconfig_contexts_kube_system(bad):
    """A remote component's objects (yaml/v2 ConfigGroup) land where the provider's kubeconfig context says."""
    namespace("apps", "restricted")
    config = kubeconfig({"c": "kube-system" if bad else "apps"}, current="c")
    k8s.yaml.v2.ConfigGroup("rbac", objs=[
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "secret-reader"},
         "rules": READ_SECRETS},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "secret-reader"},
         "roleRef": REF, "subjects": USER}],
        opts=pulumi.ResourceOptions(provider=k8s.Provider("k8s", kubeconfig=config)))


@case("identity", "kubernetes-platform-objects-only-by-platform")
def role_with_a_kubeconfig_path_lands_in_an_unknown_namespace(bad):
    """A kubeconfig given as a file path: its context's namespace is not in the props, so the objects' namespace is
    unknown and judged fail-closed; naming the provider's namespace is the control."""
    namespace("apps", "restricted")
    inputs = {"kubeconfig": "/home/ci/.kube/config", **({} if bad else {"namespace": "apps"})}
    _secret_reader(pulumi.ResourceOptions(provider=k8s.Provider("k8s", **inputs)))
