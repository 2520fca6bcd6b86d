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


def _kubeconfig(namespace=None, current="c", fmt="json", extra_contexts=()):
    import json

    import yaml
    ctx = {"cluster": "k", "user": "u", **({"namespace": namespace} if namespace is not None else {})}
    doc = {"apiVersion": "v1", "kind": "Config", "current-context": current,
           "clusters": [{"name": "k", "cluster": {"server": "https://10.0.0.10:6443"}}],
           "users": [{"name": "u", "user": {"token": "x"}}],
           "contexts": [{"name": "c", "context": ctx}, *extra_contexts]}
    return json.dumps(doc) if fmt == "json" else yaml.safe_dump(doc)


def _kc_provider(kubeconfig, **inputs):
    props = {"kubeconfig": kubeconfig, **inputs}
    return PolicyProviderResource("pulumi:providers:kubernetes", unknown_checking_proxy(props),
                                  "urn:pulumi:s::p::pulumi:providers:kubernetes::k", "k")


def test_an_object_without_namespace_lands_in_the_kubeconfig_contexts_namespace():
    """Without a provider namespace, the current context's namespace of an inline kubeconfig (JSON or YAML) is the
    object's; a Helm release without namespace goes there too."""
    for fmt in ("json", "yaml"):
        provider = _kc_provider(_kubeconfig("kube-system", fmt=fmt))
        seen = with_provider_namespace(ROLE, {"metadata": {"name": "r"}}, provider)
        assert seen["metadata"]["namespace"] == "kube-system"
        release = with_provider_namespace("kubernetes:helm.sh/v3:Release", {"chart": "x"}, provider)
        assert release["namespace"] == "kube-system"


def test_the_providers_context_input_picks_the_context_and_its_namespace_input_wins():
    other = {"name": "admin", "context": {"cluster": "k", "user": "u", "namespace": "kube-system"}}
    kubeconfig = _kubeconfig("apps", extra_contexts=[other])
    assert namespace_of({"metadata": {"name": "r"}}, _kc_provider(kubeconfig)) == "apps"
    assert namespace_of({"metadata": {"name": "r"}}, _kc_provider(kubeconfig, context="admin")) == "kube-system"
    assert namespace_of({"metadata": {"name": "r"}}, _kc_provider(kubeconfig, context="admin",
                                                                 namespace="apps")) == "apps"


def test_a_context_without_namespace_or_no_kubeconfig_input_means_default():
    """A context naming no namespace is ``default`` (client-go); a provider without a kubeconfig input reads the
    deployer's own kubeconfig, which no rule sees: the stated assumption is ``default``."""
    props = {"metadata": {"name": "r"}}
    assert with_provider_namespace(ROLE, props, _kc_provider(_kubeconfig())) is props
    assert namespace_of(props, _kc_provider(_kubeconfig())) == "default"
    assert namespace_of(props, _kc_provider(None)) == "default"


def test_a_kubeconfig_the_pack_cannot_read_makes_the_namespace_unknown():
    """An unknown kubeconfig, a file path, a context the kubeconfig lacks and a secret-wrapped unknown all give an
    unknown namespace, written into the props as the engine's unknown sentinel so rules fail closed on it."""
    from policies.security._rules import UNKNOWN, read
    from tests.policies.test_policies import SECRET_SIG, U

    for kubeconfig, inputs in ((U, {}), ("~/.kube/config", {}), ("/home/ci/kubeconfig.yaml", {}),
                               (_kubeconfig("apps"), {"context": "missing"}), (_kubeconfig("apps"), {"context": U}),
                               ({**SECRET_SIG, "value": U}, {}), (":\n- not: [yaml", {})):
        provider = _kc_provider(kubeconfig, **inputs)
        assert namespace_of({"metadata": {"name": "r"}}, provider) is UNKNOWN, kubeconfig
        seen = with_provider_namespace(ROLE, unknown_checking_proxy({"metadata": {"name": "r"}}), provider)
        assert read(seen, "metadata", "namespace") is UNKNOWN
    wrapped = _kc_provider({**SECRET_SIG, "value": _kubeconfig("kube-system")})
    assert namespace_of({"metadata": {"name": "r"}}, wrapped) == "kube-system"


def test_a_kubeconfig_is_parsed_once_and_an_alias_bomb_is_an_unknown_namespace():
    """Every resource of every policy asks for its provider's namespace: the same kubeconfig text is parsed once
    (memoized), and a kubeconfig whose aliases would multiply it past the bounded reader's limit is a namespace that
    cannot be told (unknown), never a hang."""
    from policies.security import _provider_namespace as pn

    text = ("apiVersion: v1\nkind: Config\ncurrent-context: a\ncontexts:\n- name: a\n  context: {namespace: kube-system}"
            "\n- name: b\n  context: {}\n")
    pn._context_namespace.cache_clear()
    for _ in range(50):
        assert pn.kubeconfig_namespace(text) == "kube-system" and pn.kubeconfig_namespace(text, "b") == "default"
    info = pn._context_namespace.cache_info()
    assert info.misses == 2 and info.hits == 98
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(9)) + "current-context: a\n"
    assert pn.kubeconfig_namespace(bomb) is pn.UNKNOWN
