"""Which cluster a Kubernetes object goes to, and stack rules judged one cluster at a time.

A stack may send Kubernetes objects to more than one cluster: an explicit ``kubernetes.Provider`` with another
kubeconfig, context or cluster (a management cluster, another stack's cluster) beside the stack's own. Namespaces
are per cluster: a ``research`` Namespace labelled privileged on this cluster says nothing about ``research`` on
another, and this platform's node-agent namespaces (``nodeAgentNamespaces``) are facts of this platform's cluster only.
Stack rules that look a namespace up among the stack's resources (its Pod Security label, whether a tenant owns it,
whether node agents live there) therefore look it up among the objects sent to the *same* cluster.

**The cluster of a provider** (:func:`cluster_key`) is what pulumi-kubernetes connects with (pulumi-kubernetes docs,
Provider resource inputs, v4.34.2, checked 2026-12-02): ``kubeconfig`` (the file's content or path; absent: the
ambient ``KUBECONFIG``/``~/.kube/config``), ``context`` (overrides the kubeconfig's current context), ``cluster``
(overrides the context's cluster), and ``renderYamlToDirectory`` (objects written to files, applied nowhere by
Pulumi). Two providers with the same values target the same cluster. ``clusterIdentifier`` is not used: it only
decides when the provider is replaced, and any provider may claim any value. A provider whose target is unknown in
this preview is a cluster of its own (fail closed: nothing declared through another provider is assumed to be there).
An object without a provider uses the default provider: the ambient kubeconfig.

**This stack's cluster** (:func:`views`): when every object goes to one cluster, that is it (a consumer stack that
deploys through one provider is judged as before). With several, it is the cluster of the provider whose
``kubeconfig`` is derived from an OKE cluster the stack declares (``oci:ContainerEngine/cluster:Cluster`` among the
provider's ``kubeconfig`` property dependencies: how ``oke_rdma.cluster`` builds its provider). Every other cluster
is *another cluster*: the stack sees only the namespaces it declares there, so a namespace listed in
``nodeAgentNamespaces`` counts as a node-agent namespace there only when the stack declares that Namespace on that
cluster (:func:`visible_platform_namespaces`); Kubernetes' own ``kube-system`` stays what it is on every cluster.

:func:`cluster_aware` wraps a stack policy's ``validate``: with one cluster it runs as it is; with several it runs
once per cluster on the resources that are not Kubernetes objects plus that cluster's objects, each finding reported
once, a finding on an object of another cluster naming where it goes.
"""
from __future__ import annotations

import contextvars
import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

from pulumi_policy import StackValidationPolicy

if __package__:  # imported as the package `policies.security`
    from ._rules import CLUSTER, UNKNOWN, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import CLUSTER, UNKNOWN, read

PROVIDER = "pulumi:providers:kubernetes"
NAMESPACE = "kubernetes:core/v1:Namespace"
#: The provider inputs that choose the cluster objects go to (see the module docstring).
TARGET_INPUTS = ("kubeconfig", "context", "cluster", "renderYamlToDirectory")
AMBIENT = ("ambient kubeconfig",)

_CURRENT: contextvars.ContextVar[Optional["ClusterView"]] = contextvars.ContextVar("okerdma_cluster", default=None)


def same_cluster_possible(a: tuple, b: tuple) -> bool:
    """Whether two cluster keys (:func:`cluster_key`) may be one cluster: equal, or either target unknown in this
    preview (fail closed: an unknown kubeconfig may well be this cluster's)."""
    return a == b or UNKNOWN_TARGET in (a[0], b[0])


UNKNOWN_TARGET = "provider with an unknown target"


def cluster_key(provider: Any) -> tuple:
    """The cluster a Kubernetes provider resource (``PolicyProviderResource``, or None for the default provider)
    sends objects to, as a comparable key (see the module docstring)."""
    if provider is None or getattr(provider, "resource_type", None) != PROVIDER:
        return AMBIENT
    values = [read(getattr(provider, "props", None), name) for name in TARGET_INPUTS]
    if any(v is UNKNOWN for v in values) or any(v is not None and not isinstance(v, str) for v in values):
        return (UNKNOWN_TARGET, getattr(provider, "urn", ""))
    if not any(values):
        return AMBIENT
    return ("target", *(v or "" for v in values))


@dataclass
class ClusterView:
    """One cluster's share of a stack: its key, the providers that reach it, its objects (URNs), whether it is this
    stack's own cluster, and the resources a stack rule sees when judging it."""

    key: tuple
    providers: list = field(default_factory=list)
    urns: set = field(default_factory=set)
    own: bool = True
    resources: list = field(default_factory=list)
    #: Every resource of the stack, all clusters (for a rule that compares objects across clusters whose target may
    #: be the same one: ``platform_objects``).
    everything: list = field(default_factory=list)

    @property
    def label(self) -> str:
        names = sorted({getattr(p, "name", "") for p in self.providers if p is not None})
        return f"provider {', '.join(repr(n) for n in names)}" if names else "the default provider (ambient kubeconfig)"


def _derived_from_own_cluster(provider: Any, by_urn: dict) -> bool:
    resource = by_urn.get(getattr(provider, "urn", None))
    deps = getattr(resource, "property_dependencies", None) or {}
    return any(getattr(d, "resource_type", None) == CLUSTER for d in deps.get("kubeconfig", []) or [])


def views(resources: Iterable[Any]) -> list[ClusterView]:
    """The stack's resources split by the cluster their Kubernetes objects go to (see the module docstring); one view
    (everything, this stack's cluster) when all objects go to one cluster or there are none. Linear: each provider's
    key is computed once (every resource carries its own copy of its provider)."""
    resources = list(resources)
    keys: dict = {}  # provider URN → its cluster key
    providers: dict[tuple, list] = {}
    of: list = []
    for r in resources:
        if not str(r.resource_type).startswith("kubernetes:"):
            of.append(None)
            continue
        ref = getattr(r.provider, "urn", None)
        key = keys.get(ref)
        if key is None:
            key = keys[ref] = cluster_key(r.provider)
            providers.setdefault(key, []).extend([r.provider] if r.provider is not None else [])
        of.append(key)
    if len(providers) <= 1:
        key = next(iter(providers), AMBIENT)
        return [ClusterView(key, providers=providers.get(key, []), resources=resources, own=True,
                            everything=resources)]
    by_key = {key: ClusterView(key, providers=found) for key, found in providers.items()}
    shared = [r for r, key in zip(resources, of) if key is None]
    for r, key in zip(resources, of):
        if key is not None:
            by_key[key].urns.add(r.urn)
            by_key[key].resources.append(r)
    by_urn = {r.urn: r for r in resources}
    out = []
    for key in sorted(by_key, key=repr):
        view = by_key[key]
        view.own = any(p is not None and _derived_from_own_cluster(p, by_urn) for p in view.providers)
        view.resources = shared + view.resources
        view.everything = resources
        out.append(view)
    return out


def current() -> Optional[ClusterView]:
    """The cluster a stack rule is judging now (None outside :func:`cluster_aware`, or with one cluster)."""
    return _CURRENT.get()


def declared_namespaces(resources: Iterable[Any]) -> set:
    """Names of the Namespaces among ``resources`` (known names only)."""
    names = (read(r.props, "metadata", "name") for r in resources if r.resource_type == NAMESPACE)
    return {n for n in names if isinstance(n, str)}


def visible_platform_namespaces(configured: Iterable[str], resources: Iterable[Any]) -> set:
    """``configured`` platform namespaces (e.g. ``nodeAgentNamespaces``) as they hold on the cluster being judged: all
    of them on this stack's cluster; on another cluster only those the stack declares there as Namespaces."""
    view = current()
    if view is None or view.own:
        return set(configured)
    return set(configured) & declared_namespaces(resources)


def cluster_aware(policy: Any) -> Any:
    """``policy`` (a stack policy) judging each cluster's objects with that cluster's namespaces (module docstring);
    any other policy is returned as it is."""
    if not isinstance(policy, StackValidationPolicy):
        return policy
    validate: Callable = policy.validate

    @functools.wraps(validate)
    def stack_validate(args, report_violation):
        split = views(args.resources)
        if len(split) == 1:
            return validate(args, report_violation)
        everything, seen = args.resources, set()
        try:
            for view in split:
                def once(message, urn=None, view=view):
                    if urn in view.urns and not view.own:
                        message = (f"{message} [This object goes to another cluster ({view.label}): it is judged "
                                   "against the namespaces this stack declares there, and this cluster's platform "
                                   "namespaces do not count there.]")
                    if (message, urn) not in seen:
                        seen.add((message, urn))
                        report_violation(message, urn)
                args.resources = view.resources
                token = _CURRENT.set(view)
                try:
                    validate(args, once)
                finally:
                    _CURRENT.reset(token)
        finally:
            args.resources = everything
    policy.validate = stack_validate
    return policy
