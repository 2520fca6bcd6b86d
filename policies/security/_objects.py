"""Kubernetes objects that reach the cluster by a path other than a declared resource of their own kind, presented to
the rules as if declared: objects a Helm chart renders verbatim from its values, and ``NamespacePatch`` resources
that set a namespace's Pod Security level.

Class "values a chart renders as whole Kubernetes objects": a chart template that ranges over a values key and
writes each item (a map, or a YAML string, both passed through Helm's ``tpl``) as a manifest. Members at the versions
oke-rdma pins (:data:`CHART_OBJECT_HOOKS`, each read in the chart's templates, checked 2026-12-01); the same hook is
matched under any of :data:`OBJECT_HOOK_KEYS` anywhere in any chart's values (a sub-chart's values sit under its name,
``grafana.extraObjects``), and a map anywhere in values that is itself an object (``apiVersion``, ``kind`` and
``metadata``) is judged too. Items are parsed, not rendered: a string that still holds a template action
(``{{ ... }}``), YAML that does not parse, or an item that is no object cannot be interpreted and is refused by the
rule that reads them (``helm-values-manifests``).

Sources: Helm docs "Chart Template Guide" (``tpl``, ``toYaml``, ``range`` over maps and lists), "Named Templates";
Kubernetes docs "Objects In Kubernetes" (``apiVersion``, ``kind``, ``metadata``), "Server-Side Apply"; pulumi_kubernetes
4.34.2 type tokens ``kubernetes:<group>/<version>:<Kind>`` (core group ``core/v1``) and ``*Patch`` resources.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

import yaml  # PyYAML: a dependency of the pulumi SDK, so present wherever the pack runs

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from . import _yaml_bounded
    from ._plain import OBJECT_HOOK_KEYS, Derived, _unproxied, object_type, plain  # noqa: F401 (re-exported)
    from ._rules import UNKNOWN, elements, read
    from ._values_pods import values_namespaces, values_pods
else:  # run by the Pulumi CLI from inside policies/security/
    import _yaml_bounded
    from _plain import OBJECT_HOOK_KEYS, Derived, _unproxied, object_type, plain  # noqa: F401 (re-exported)
    from _rules import UNKNOWN, elements, read
    from _values_pods import values_namespaces, values_pods

HELM_TYPES = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart")
NAMESPACE = "kubernetes:core/v1:Namespace"
NAMESPACE_PATCH = "kubernetes:core/v1:NamespacePatch"
ENFORCE_LABEL = "pod-security.kubernetes.io/enforce"
HELM_CHART_V4 = "kubernetes:helm.sh/v4:Chart"


def inputs_hidden(resource_type: str, props: Any) -> bool:
    """Whether ``props`` are a ``helm.sh/v4:Chart`` as ``pulumi preview`` shows it to policy packs: without its inputs.
    pulumi-kubernetes constructs the Chart in the provider (``Construct``), which registers the component with no
    input properties (``ctx.RegisterComponentResource``: the Go SDK registers ``nil`` props) and the engine sends no
    goal for the program's own registration of a remote component (pulumi ``pkg/resource/deploy/source_eval.go``,
    ``RegisterResource`` with ``remote``); so ``Analyze`` gets no ``chart``, ``version``, ``repositoryOpts`` or
    ``values``, and ``AnalyzeStack`` only its output ``resources`` (pulumi-kubernetes
    ``provider/pkg/provider/helm/v4/chart.go``, pulumi ``sdk/go/pulumi/context.go``; pulumi/pulumi-kubernetes#2144;
    checked 2026-12-02). Its rendered objects are registered with their inputs, so rules judge them."""
    return resource_type == HELM_CHART_V4 and read(props, "chart") is None

#: Chart → values keys its templates render as whole objects, with the template that does it (each read at the
#: version oke-rdma pins, checked 2026-12-01). Charts with none at the pinned version: the node-feature-discovery
#: sub-chart of gpu-operator, kueue 0.18.2/0.19.2 (0.19.3-0.19.7: no such value among CHANGELOG-0.19.md's Helm
#: entries, checked 2026-12-02), jobset 0.12.0, kuberay-operator 1.7.0, kubeflow-trainer 2.3.0
#: (gpu-operator gained one in 26.x; kube-prometheus-stack 88.5.3 keeps templates/extra-objects.yaml).
CHART_OBJECT_HOOKS: dict[str, tuple[tuple[str, str], ...]] = {
    "kube-prometheus-stack": (
        ("extraManifests", "kube-prometheus-stack 87.2.1 templates/extra-objects.yaml (a list or a map of maps or "
                           "strings, each through tpl)"),
        ("grafana.extraObjects", "grafana 12.7.1 (sub-chart) templates/extra-manifests.yaml"),
        ("kube-state-metrics.extraManifests", "kube-state-metrics 7.5.1 (sub-chart) templates/extra-manifests.yaml"),
        ("prometheus-node-exporter.extraManifests", "prometheus-node-exporter 4.55.0 (sub-chart) "
                                                    "templates/extra-manifests.yaml (strings through tpl)")),
    "keda": (("extraObjects", "keda 2.20.2 templates/extensibility/extra-manifests.yaml"),),
    "gpu-operator": (("extraObjects", "gpu-operator v26.3.0+ templates/extra-objects.yaml (each through tpl; none "
                                      "in v25.10.1)"),),
    "grafana": (("extraObjects", "grafana 12.7.1 templates/extra-manifests.yaml"),),
    "kube-state-metrics": (("extraManifests", "kube-state-metrics 7.5.1 templates/extra-manifests.yaml"),),
    "prometheus-node-exporter": (("extraManifests", "prometheus-node-exporter 4.55.0 "
                                                    "templates/extra-manifests.yaml"),),
}
_TEMPLATE = "{{"


def _templated(value: Any) -> bool:
    if isinstance(value, str):
        return _TEMPLATE in value
    if isinstance(value, dict):
        return any(_templated(k) or _templated(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_templated(v) for v in value)
    return False


def _unknown_inside(value: Any) -> bool:
    if value is UNKNOWN:
        return True
    if isinstance(value, dict):
        return any(_unknown_inside(v) for v in value.values())
    return isinstance(value, list) and any(_unknown_inside(v) for v in value)


#: (where in values, the object or None, why it cannot be interpreted or None)
Rendered = tuple[str, Optional[dict], Optional[str]]


def _one_object(obj: Any, where: str) -> list[Rendered]:
    if not isinstance(obj, dict) or object_type(obj) is None:
        return [(where, None, "is not a Kubernetes object (a map with apiVersion and kind)")]
    if read(obj, "kind").endswith("List") and isinstance(obj.get("items"), list):  # kind: List (v1) of objects
        found: list[Rendered] = []
        for i, item in enumerate(obj["items"]):
            found += _one_object(item, f"{where}.items[{i}]")
        return found
    return [(where, obj, None)]


def _hook_item(item: Any, where: str) -> list[Rendered]:
    if item is None:
        return []
    if _unknown_inside(item):
        return [(where, None, "is unknown during preview")]
    if _templated(item):
        return [(where, None, "holds a template action ({{ ... }}) the chart renders with tpl, so the object it "
                              "becomes cannot be known before Helm renders it")]
    if isinstance(item, str):
        try:
            docs = [d for d in _yaml_bounded.safe_load_all(item) if d is not None]
        except yaml.YAMLError as e:
            return [(where, None, f"is not valid YAML ({' '.join(str(e).split())[:120]})")]
        found: list[Rendered] = []
        for i, doc in enumerate(docs):
            found += _one_object(doc, where if len(docs) == 1 else f"{where}#{i}")
        return found
    return _one_object(item, where)


def hook_objects(value: Any, where: str) -> list[Rendered]:
    """The objects one hook value renders: a list (each item), a map (each value, as Helm's ``range`` iterates a
    map), or one YAML string; an unknown value cannot be interpreted."""
    value = plain(value)
    if value is UNKNOWN:
        return [(where, None, "is unknown during preview")]
    if value is None or value == "" or value == [] or value == {}:
        return []
    if isinstance(value, list):
        items = [(f"{where}[{i}]", v) for i, v in enumerate(value)]
    elif isinstance(value, dict):
        items = [(f"{where}.{k}", v) for k, v in value.items()]
    elif isinstance(value, str):
        items = [(where, value)]
    else:
        return [(where, None, f"is a {type(value).__name__}, not a list, map or YAML string of objects")]
    found: list[Rendered] = []
    for w, item in items:
        found += _hook_item(item, w)
    return found


def rendered_objects(values: Any, path: str = "values") -> list[Rendered]:
    """Every object a release's values make a chart render verbatim: values under :data:`OBJECT_HOOK_KEYS` at any
    depth, and any map that is itself an object (``apiVersion``, ``kind``, ``metadata``). An unknown ``values``
    cannot be interpreted."""
    values = plain(values)
    if values is UNKNOWN:
        return [(path, None, "is unknown during preview")]
    found: list[Rendered] = []

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if object_type(node) is not None and isinstance(node.get("metadata"), dict):
                found.extend(_hook_item(node, where))
                return
            for k, v in node.items():
                if k in OBJECT_HOOK_KEYS:
                    found.extend(hook_objects(v, f"{where}.{k}"))
                else:
                    walk(v, f"{where}.{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{where}[{i}]")

    walk(values, path)
    return found


def release_objects(release: Any) -> list[tuple[Derived, None] | tuple[None, str]]:
    """A Helm release's rendered objects as :class:`Derived` resources (their namespace defaults to the release's,
    as Helm installs them), or, for what cannot be interpreted, the reason as ``"<where> <why>"``."""
    namespace = read(release.props, "namespace")
    deps = list(getattr(release, "property_dependencies", {}).get("namespace", []))
    out: list = []
    for where, obj, problem in rendered_objects(read(release.props, "values", default={})):
        if obj is None:
            out.append((None, f"{where} {problem}"))
            continue
        props = dict(obj)
        meta = dict(props.get("metadata") or {}) if isinstance(props.get("metadata"), dict) else {}
        if meta.get("namespace") is None and props.get("kind") != "Namespace" and namespace is not None:
            meta["namespace"] = namespace
        props["metadata"] = meta
        name = meta.get("name") if isinstance(meta.get("name"), str) else "?"
        out.append((Derived(object_type(obj), props, release.urn, f"{release.name} {where} ({obj['kind']} {name})",
                            {"metadata": deps}, origin=where), None))
    return out


def listed_kind(resource_type: str) -> Optional[str]:
    """``kubernetes:core/v1:PodList`` → ``kubernetes:core/v1:Pod`` (pulumi_kubernetes declares every built-in kind's
    ``*List`` as a resource whose ``items`` are whole objects); None for any other type."""
    parts = resource_type.split(":")
    if len(parts) == 3 and parts[0] == "kubernetes" and parts[2].endswith("List") and len(parts[2]) > 4 \
            and parts[1].split("/")[0] not in ("helm.sh", "yaml", "kustomize"):
        return f"{parts[0]}:{parts[1]}:{parts[2][:-4]}"
    return None


def list_items(kind: str, props: Any) -> list[tuple[str, Any]]:
    """(where, plain item) of a ``*List`` resource's ``items``; one UNKNOWN entry when the list is unknown."""
    items = plain(read(props, "items"))
    if items is UNKNOWN:
        return [("items", UNKNOWN)]
    return [(f"items[{i}]", item) for i, item in enumerate(items if isinstance(items, list) else [])]


def sets_enforce_label(props: Any) -> bool:
    """Does a NamespacePatch set (or blank) the Pod Security ``enforce`` label? An unknown label map may."""
    labels = read(props, "metadata", "labels")
    if labels is UNKNOWN:
        return True
    return hasattr(labels, "keys") and ENFORCE_LABEL in list(labels.keys())


def derived_resources(resources: Iterable[Any]) -> list[Derived]:
    """What the stack makes the cluster hold besides its declared objects: each Helm release's rendered objects, the
    pod-spec-shaped maps of its values
    (``_values_pods``, one ``HelmValues`` resource per namespace its pods land in), the items of each ``*List``
    resource (``PodList``, ``NamespaceList``, ...), and each ``NamespacePatch`` that sets the ``enforce`` label presented as the ``Namespace`` it relabels (a patch that
    leaves the label alone does not change the namespace's level, so it is not presented)."""
    found: list[Derived] = []
    for r in resources:
        if r.resource_type in HELM_TYPES:
            found += [d for d, _ in release_objects(r) if d is not None]
            found += values_pods(r, values_namespaces(read(r.props, "values", default={})))
        elif listed_kind(r.resource_type) is not None:
            kind = listed_kind(r.resource_type)
            found += [Derived(kind, item, r.urn, f"{r.name} {where}", dict(r.property_dependencies), origin=where)
                      for where, item in list_items(kind, r.props) if isinstance(item, dict)]
        elif r.resource_type == NAMESPACE_PATCH and sets_enforce_label(r.props):
            found.append(Derived(NAMESPACE, r.props, r.urn, r.name, dict(r.property_dependencies),
                                 origin="NamespacePatch"))
    return found


def with_derived(resources: Iterable[Any]) -> list[Any]:
    """The stack's resources followed by :func:`derived_resources` — what the pod and namespace stack rules judge."""
    resources = list(resources)
    return resources + derived_resources(resources)
