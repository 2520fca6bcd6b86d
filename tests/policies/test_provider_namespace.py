"""A Kubernetes object without metadata.namespace is judged in its provider's default namespace
(policies/security/_provider_namespace.py); cluster-scoped kinds and objects naming a namespace are left alone."""
from __future__ import annotations

from pulumi_policy import PolicyProviderResource
from pulumi_policy.proxy import unknown_checking_proxy

from policies.security._provider_namespace import namespace_of, with_provider_namespace

ROLE = "kubernetes:rbac.authorization.k8s.io/v1:Role"


def _provider(namespace=None, typ="pulumi:providers:kubernetes"):
    props = {"kubeconfig": "{}", **({"namespace": namespace} if namespace is not None else {})}
    return PolicyProviderResource(typ, unknown_checking_proxy(props), "urn:pulumi:s::p::" + typ + "::k", "k")


def test_an_object_without_namespace_gets_its_providers():
    props = unknown_checking_proxy({"metadata": {"name": "r"}, "rules": []})
    seen = with_provider_namespace(ROLE, props, _provider("kube-system"))
    assert seen["metadata"]["namespace"] == "kube-system" and seen["metadata"]["name"] == "r"
    assert namespace_of(props, _provider("kube-system")) == "kube-system"
    release = with_provider_namespace("kubernetes:helm.sh/v3:Release", {"chart": "x"}, _provider("kube-system"))
    assert release["namespace"] == "kube-system"


def test_named_namespaces_cluster_scoped_kinds_and_providers_without_one_are_left_alone():
    named = {"metadata": {"name": "r", "namespace": "apps"}}
    assert with_provider_namespace(ROLE, named, _provider("kube-system")) is named
    cluster = {"metadata": {"name": "c"}}
    assert with_provider_namespace("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", cluster,
                                   _provider("kube-system")) is cluster
    assert with_provider_namespace(ROLE, cluster, _provider()) is cluster
    assert with_provider_namespace(ROLE, cluster, _provider("x", "pulumi:providers:oci")) is cluster
    assert namespace_of(cluster, _provider()) == "default" and namespace_of(cluster) == "default"


def test_an_unknown_provider_namespace_is_the_objects_namespace_and_never_truth_tested():
    """A provider whose namespace is unknown on a first preview puts an object naming none in an unknown namespace:
    namespace_of answers UNKNOWN (rules fail closed on it) instead of raising."""
    from policies.security._rules import UNKNOWN
    from tests.policies.test_policies import U

    assert namespace_of({"metadata": {"name": "r"}}, _provider(U)) is UNKNOWN
    assert namespace_of({"metadata": {"name": "r", "namespace": "apps"}}, _provider(U)) == "apps"
