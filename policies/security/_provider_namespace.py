"""The namespace a Kubernetes object without ``metadata.namespace`` lands in: its provider's default namespace.

pulumi-kubernetes creates a namespaced object that names no namespace in the namespace its provider was given
(``kubernetes.Provider(namespace=...)``; only when the provider has none, ``default``) — pulumi-kubernetes docs,
Provider resource, ``namespace`` input: "If present, the default namespace to use. This flag is ignored for
cluster-scoped resources" (v4.34.2, checked 2026-12-01); a Helm ``Release`` without ``namespace`` and a ConfigGroup's
objects likewise. The rules read ``metadata.namespace`` and assume ``default`` when it is absent, so a Role and
RoleBinding sent to ``kube-system`` by their provider looked like a tenant's.

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

from pulumi_policy import ResourceValidationPolicy, StackValidationPolicy
from pulumi_policy.proxy import unknown_checking_proxy

if __package__:  # imported as the package `policies.security`
    from ._gate import gate_of
    from ._rules import UNKNOWN, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _gate import gate_of
    from _rules import UNKNOWN, read

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


def provider_namespace(provider: Any) -> Any:
    """The default namespace of a Kubernetes provider resource: a string, :data:`UNKNOWN`, or None (none set, or
    not a Kubernetes provider)."""
    if provider is None or getattr(provider, "resource_type", None) != PROVIDER:
        return None
    found = read(getattr(provider, "props", None), "namespace")
    return found if found is UNKNOWN or (isinstance(found, str) and found) else None


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
    if namespace is None:
        return props
    raw = _target(props)
    if not isinstance(raw, dict):
        return props
    if resource_type in RELEASE_TYPES:
        if read(props, "namespace") is not None:
            return props
        new = {**raw, "namespace": namespace if namespace is not UNKNOWN else raw.get("namespace")}
    else:
        kind = _kind(resource_type)
        if kind in CLUSTER_SCOPED or kind.endswith("List") or (kind.endswith("Patch") and kind[:-5] in CLUSTER_SCOPED):
            return props
        meta = read(props, "metadata")
        if meta is UNKNOWN or read(props, "metadata", "namespace") is not None:
            return props
        raw_meta = _target(meta) if isinstance(meta, Mapping) else {}
        if namespace is UNKNOWN:
            return props
        new = {**raw, "metadata": {**(raw_meta if isinstance(raw_meta, dict) else {}), "namespace": namespace}}
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
