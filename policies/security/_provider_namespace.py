"""The namespace a Kubernetes object without ``metadata.namespace`` lands in: its provider's default namespace.

pulumi-kubernetes resolves that namespace in three steps (pulumi_kubernetes 4.34.2, ``Provider`` docstring of its
``namespace`` input, checked 2026-12-03): 1. the object's ``metadata.namespace``; 2. the provider's ``namespace``
input; 3. the ``namespace`` of the kubeconfig context the provider uses (its ``context`` input, else the kubeconfig's
``current-context``); a context without one means ``default`` (client-go ``clientcmd``: an empty context namespace
is ``default``). A Helm ``Release`` without ``namespace`` and a ConfigGroup's objects likewise. The rules read
``metadata.namespace``, so a Role and RoleBinding sent to ``kube-system`` by their provider (or by their provider's
kubeconfig context) looked like a tenant's.

:func:`provider_namespace` is the one resolver of steps 2 and 3, and the offline engine uses it for the objects of
remote components. Step 3 reads the kubeconfig the provider was given as text (YAML or JSON, the inline form); what
it cannot read is unknown, and rules fail closed on an unknown namespace:

* a kubeconfig unknown during preview (an OKE cluster's generated kubeconfig on a first preview);
* a kubeconfig that is a file path (``kubeconfig="~/.kube/config"``): the file is on the deployer's machine, not in
  the props, and may differ between preview and update;
* a context the kubeconfig does not hold (the provider fails there too).

The fix for each is to set the provider's ``namespace`` input (or each object's ``metadata.namespace``).

Assumption, stated because no rule can see it: a provider without a ``kubeconfig`` input reads ``$KUBECONFIG`` or
``~/.kube/config`` on the deployer's machine (pulumi-kubernetes docs "Kubernetes provider", ``kubeconfig``: "If this
is not set, Pulumi will use the kubeconfig in the KUBECONFIG environment variable or ~/.kube/config"). Its context's
namespace is not in the engine's inputs; the pack assumes ``default`` there. The platform's own provider always
passes the cluster's kubeconfig (OKE's generated kubeconfig holds no context namespace).

:func:`namespace_aware` wraps a policy's ``validate`` so every rule sees the namespace the object really gets: the
engine hands rules the resource's provider with its inputs (``args.provider.props``, each stack resource's
``provider``), and an object without a namespace gets the provider's in the props the rule reads. Cluster-scoped kinds
(:data:`CLUSTER_SCOPED`) and objects that name a namespace are left as they are. An unknown provider namespace is
passed on as unknown (rules fail closed on it).
"""
from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, Callable, Optional

import yaml  # PyYAML: a dependency of the pulumi SDK, so present wherever the pack runs

from pulumi_policy import ResourceValidationPolicy, StackValidationPolicy
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, unknown_checking_proxy

if __package__:  # imported as the package `policies.security`
    from . import _yaml_bounded
    from ._gate import gate_of
    from ._rules import _SENTINELS, UNKNOWN, read
else:  # run by the Pulumi CLI from inside policies/security/
    import _yaml_bounded
    from _gate import gate_of
    from _rules import _SENTINELS, UNKNOWN, read

PROVIDER = "pulumi:providers:kubernetes"
#: Resources whose own top-level ``namespace`` input defaults to the provider's.
RELEASE_TYPES = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart")
#: Kinds that are cluster-scoped (no namespace applies): ``kubectl api-resources --namespaced=false`` of Kubernetes
#: v1.34 and the cluster-scoped kinds of the CRDs the platform installs (Kueue, Argo, Kubeflow...), checked
#: 2026-12-01.
CLUSTER_SCOPED = frozenset({
    "Namespace", "Node", "PersistentVolume", "ClusterRole", "ClusterRoleBinding", "StorageClass",
    "CustomResourceDefinition", "PriorityClass", "CSIDriver", "CSINode", "VolumeAttachment", "IngressClass",
    "RuntimeClass", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "APIService",
    "CertificateSigningRequest", "FlowSchema", "PriorityLevelConfiguration", "ComponentStatus", "VolumeSnapshotClass",
    "DeviceClass", "ClusterQueue", "ResourceFlavor", "Topology", "Cohort", "WorkloadPriorityClass",
    "ClusterWorkflowTemplate", "ClusterAnalysisTemplate", "ClusterTask", "ClusterServingRuntime",
    "ClusterStorageContainer", "ClusterTrainingRuntime", "ClusterInterceptor", "ClusterTriggerBinding",
    "GatewayClass", "ClusterIssuer",
})


#: Where a stack resource keeps the props this wrapper gave it: a server that hands every stack policy the same
#: ``PolicyResource`` objects (``_dispatch.analyze_stack``) rewrites each object's props once per call, not once per
#: policy (the rewrite of rewritten props is the same props). Objects made fresh for each policy never carry it.
NAMESPACED = "_oke_rdma_namespaced_props"
#: How an unknown namespace is written into props: the engine's own "unknown string" sentinel, which every reader of
#: props (``_rules.read``) takes for :data:`UNKNOWN`.
UNKNOWN_NAMESPACE = UNKNOWN_STRING_VALUE


#: The engine's wire form of a secret (``{<signature key>: <secret signature>, "value": ...}``) where props were not
#: unwrapped (pulumi_policy unwraps them; the offline engine's recorded inputs keep them).
_SECRET_KEY, _SECRET_SIG = "4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270"


def _unsecret(value: Any) -> Any:
    if isinstance(value, str) and value in _SENTINELS:
        return UNKNOWN
    if isinstance(value, Mapping) and read(value, _SECRET_KEY) == _SECRET_SIG:
        return _unsecret(read(value, "value"))
    return value


def kubeconfig_namespace(kubeconfig: Any, context: Any = None) -> Any:
    """The namespace of the kubeconfig context a provider uses (step 3 of the module docstring): ``kubeconfig`` is
    the provider's ``kubeconfig`` input (inline YAML or JSON text), ``context`` its ``context`` input (None: the
    kubeconfig's ``current-context``). Returns the context's namespace, ``default`` when the context sets none (or
    the kubeconfig names no context at all), and :data:`UNKNOWN` when it cannot be told: an unknown kubeconfig or
    context, a file path, text that is no kubeconfig, or a context the kubeconfig does not hold."""
    kubeconfig, context = _unsecret(kubeconfig), _unsecret(context)
    if kubeconfig is UNKNOWN or context is UNKNOWN:
        return UNKNOWN
    if kubeconfig is None or (isinstance(kubeconfig, str) and not kubeconfig.strip()):
        return "default"  # no kubeconfig input: the deployer's own kubeconfig (the stated assumption)
    if not isinstance(kubeconfig, str) or kubeconfig in _SENTINELS:
        return UNKNOWN
    if context is None or isinstance(context, str):
        return _context_namespace(kubeconfig, context)
    return _context_namespace.__wrapped__(kubeconfig, context)


@functools.lru_cache(maxsize=256)
def _context_namespace(kubeconfig: str, context: Any) -> Any:
    """:func:`kubeconfig_namespace` once its inputs are known text, memoized: every resource of every policy asks
    for its provider's namespace, and parsing the kubeconfig each time made the dev preview's security server take
    4.0-4.5 s of CPU instead of 0.7-0.9 s (2026-12-02, session 12). The answer is a string or :data:`UNKNOWN`."""
    try:
        parsed = _yaml_bounded.safe_load(kubeconfig)  # JSON is YAML; aliases may not multiply it (alias bombs)
    except yaml.YAMLError:
        return UNKNOWN
    if not isinstance(parsed, Mapping):
        return UNKNOWN  # a path (a YAML scalar), or no kubeconfig
    name = context if isinstance(context, str) and context else parsed.get("current-context")
    if name in (None, ""):
        return "default"
    contexts = parsed.get("contexts")
    found = [c for c in contexts if isinstance(c, Mapping) and c.get("name") == name] if isinstance(
        contexts, list) else []
    if len(found) != 1 or not isinstance(found[0].get("context", {}) or {}, Mapping):
        return UNKNOWN
    namespace = (found[0].get("context") or {}).get("namespace")
    if isinstance(namespace, str) and namespace in _SENTINELS:
        return UNKNOWN
    if namespace in (None, ""):
        return "default"
    return namespace if isinstance(namespace, str) else UNKNOWN


def namespace_from_inputs(props: Any) -> Any:
    """The default namespace a Kubernetes provider with these inputs gives objects naming none: its ``namespace``
    input, else its kubeconfig context's (:func:`kubeconfig_namespace`). A string or :data:`UNKNOWN`."""
    found = read(props, "namespace")
    if found is UNKNOWN or (isinstance(found, str) and found):
        return found
    return kubeconfig_namespace(read(props, "kubeconfig"), read(props, "context"))


def provider_namespace(provider: Any) -> Any:
    """The default namespace of a Kubernetes provider resource: a string or :data:`UNKNOWN`
    (:func:`namespace_from_inputs`), or None when ``provider`` is not a Kubernetes provider."""
    if provider is None or getattr(provider, "resource_type", None) != PROVIDER:
        return None
    return namespace_from_inputs(getattr(provider, "props", None))


def _target(props: Any) -> Any:
    try:
        return props["__target"] if not isinstance(props, dict) else props
    except KeyError:
        return props


def _kind(resource_type: str) -> str:
    return resource_type.rsplit(":", 1)[-1]


def with_provider_namespace(resource_type: str, props: Any, provider: Any) -> Any:
    """``props`` as the object is created: with the provider's default namespace where it names none (see the module
    docstring); ``props`` itself when nothing changes."""
    if not resource_type.startswith("kubernetes:") or not isinstance(props, Mapping):
        return props
    namespace = provider_namespace(provider)
    if namespace is None or namespace == "default":  # rules read an absent namespace as ``default``
        return props
    written = UNKNOWN_NAMESPACE if namespace is UNKNOWN else namespace  # an unknown one stays unknown in the props
    raw = _target(props)
    if not isinstance(raw, dict):
        return props
    if resource_type in RELEASE_TYPES:
        if read(props, "namespace") is not None:
            return props
        new = {**raw, "namespace": written}
    else:
        kind = _kind(resource_type)
        if kind in CLUSTER_SCOPED or kind.endswith("List") or (kind.endswith("Patch") and kind[:-5] in CLUSTER_SCOPED):
            return props
        meta = read(props, "metadata")
        if meta is UNKNOWN or read(props, "metadata", "namespace") is not None:
            return props
        raw_meta = _target(meta) if isinstance(meta, Mapping) else {}
        new = {**raw, "metadata": {**(raw_meta if isinstance(raw_meta, dict) else {}), "namespace": written}}
    return new if isinstance(props, dict) else unknown_checking_proxy(new)


def namespace_aware(policy: Any) -> Any:
    """``policy`` with its ``validate`` seeing each Kubernetes object in the namespace its provider puts it in. A
    resource policy's declaration of the types it examines (``_gate.TypeGate``) stays its outermost ``validate``: the
    namespace is computed only for the types the rule examines, and the server can still skip it for the others."""
    validate: Callable = policy.validate
    if isinstance(policy, ResourceValidationPolicy):
        gate = gate_of(policy)  # a declaration of the types it examines stays outermost (_gate.py)
        inner = gate.validate if gate is not None else validate

        @functools.wraps(inner)
        def resource_validate(args, report_violation):
            args.props = with_provider_namespace(args.resource_type, args.props, args.provider)
            return inner(args, report_violation)
        policy.validate = gate.around(resource_validate) if gate is not None else resource_validate
    elif isinstance(policy, StackValidationPolicy):
        @functools.wraps(validate)
        def stack_validate(args, report_violation):
            for r in args.resources:
                fields = vars(r)
                if fields.get(NAMESPACED) is not r.props:  # not yet done for these props (see NAMESPACED)
                    r.props = fields[NAMESPACED] = with_provider_namespace(r.resource_type, r.props, r.provider)
            return validate(args, report_violation)
        policy.validate = stack_validate
    return policy


def namespace_of(props: Any, provider: Optional[Any] = None) -> Any:
    """The namespace an object lands in: its ``metadata.namespace``, else its provider's, else ``default``."""
    found = read(props, "metadata", "namespace")
    if found is not None:
        return found
    from_provider = provider_namespace(provider)
    return "default" if from_provider is None else from_provider  # a string, or UNKNOWN (never truth-tested)
