"""Exposure through paths other than a declared Service or Ingress: Helm values that make a chart create something
reachable from outside the cluster, and operator custom resources that make the operator create it.

| rule                       | kind     | judges                                                                      |
|----------------------------|----------|-----------------------------------------------------------------------------|
| helm-values-exposure       | resource | an enabled Ingress (``*ingress*.enabled``) whose class is not internal, a   |
|                            |          | Gateway API route (``route.<name>.enabled``), a ``type: LoadBalancer`` (or  |
|                            |          | ``serviceType``) service without OCI's internal annotation, ``externalIPs``,|
|                            |          | anywhere in a release's values; with the pinned charts' defaults that a     |
|                            |          | switch turns on (:data:`CHART_EXPOSURE_DEFAULTS`). Objects rendered         |
|                            |          | verbatim are judged as objects (``object_paths``)                           |
| custom-resource-exposure   | resource | KubeRay head and serve Services and head Ingresses                          |

Each is judged with the checks of a declared Service or Ingress (``public_endpoints.service_problems``, the
``internalIngressClasses`` list). NodePort services in values are not refused, like declared ones
(``no-public-endpoints``): node ports are reachable only where the nodes are, and worker subnets must be private
(``node-subnets-private``). ``hostPort`` and ``hostNetwork`` in values are pod privilege (``helm-values-pod-security``).

Sources (checked 2026-12-01): Kubernetes docs "Service" (``type``, ``externalIPs``, ``loadBalancerClass``), "Ingress"
(``ingressClassName``, the deprecated ``kubernetes.io/ingress.class`` annotation), Gateway API "HTTPRoute"
(``parentRefs``); oracle/oci-cloud-controller-manager ``docs/load-balancer-annotations.md``; chart values:
kube-prometheus-stack 87.2.1 ``values.yaml`` (``prometheus.thanosServiceExternal.type: LoadBalancer``,
``*.ingress``, ``*.route.main``), kueue 0.18.2 ``values.yaml`` (``enableKueueViz``;
``kueueViz.backend.ingress.enabled: true`` and ``kueueViz.frontend.ingress.enabled: true`` with no class), grafana
12.7.1 ``values.yaml`` (``ingress``, ``route``); ray-project/kuberay ``ray-operator/apis/ray/v1`` and
``controllers/ray/common/ingress.go`` at v1.7.0.
"""
from __future__ import annotations

import re
from typing import Any

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from . import public_endpoints
    from ._objects import HELM_TYPES, OBJECT_HOOK_KEYS, object_type, plain
    from ._pss import _flag
    from ._rules import UNKNOWN, read
    from .kubernetes import chart_name
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/security/
    import public_endpoints
    from _objects import HELM_TYPES, OBJECT_HOOK_KEYS, object_type, plain
    from _pss import _flag
    from _rules import UNKNOWN, read
    from kubernetes import chart_name

    from _gate import examines

def _config(args: Any) -> dict:
    return dict(args.get_config() or {})


_CLASSES = {"internalIngressClasses": {
    "type": "array", "uniqueItems": True, "default": [], "items": {"type": "string", "maxLength": 253},
    "description": "Ingress, Gateway and Service loadBalancerClass classes whose controller provisions internal "
                   "load balancers only"}}
_PUBLIC = {"allowPublicLoadBalancers": {"type": "boolean", "default": False,
                                        "description": "this stack serves the internet through load balancers"}}
_SRC = ("Kubernetes docs: Server-Side Apply; Service; Ingress; oracle/oci-cloud-controller-manager "
        "docs/load-balancer-annotations.md; Helm docs: Chart Template Guide (tpl)")


# --- helm-values-exposure ---------------------------------------------------------------------------------------
#: Chart → (the values switch, the chart defaults it turns on that expose something), read in the pinned chart's
#: values.yaml (see the module docstring; checked 2026-12-01). Merged under the release's values when the switch is
#: on (or unknown), so enabling the component without overriding its default is judged.
CHART_EXPOSURE_DEFAULTS: dict[str, tuple[tuple[tuple[str, ...], dict], ...]] = {
    "kube-prometheus-stack": ((("prometheus", "thanosServiceExternal", "enabled"),
                               {"prometheus": {"thanosServiceExternal": {"type": "LoadBalancer"}}}),),
    "kueue": ((("enableKueueViz",), {"kueueViz": {"backend": {"ingress": {"enabled": True}},
                                                  "frontend": {"ingress": {"enabled": True}}}}),),
}
#: A values key that configures an Ingress (``ingress``, ``thanosIngress``, ``ingressPerReplica``, ``ingressGrpc``);
#: not an IngressClass (``ingressClassResource``) nor a network policy's ``ingress`` rules (those have no ``enabled``).
_INGRESS_KEY = re.compile(r"ingress(?!class)", re.IGNORECASE)
_ROUTE_KEY = re.compile(r"^(route|routes|httpRoute|grpcRoute|gatewayRoute)$", re.IGNORECASE)
_INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"


def _merge_under(defaults: Any, values: Any) -> Any:
    """``values`` over ``defaults`` (maps merge key by key, as Helm merges values)."""
    if isinstance(defaults, dict) and isinstance(values, dict):
        out = dict(defaults)
        for k, v in values.items():
            out[k] = _merge_under(defaults.get(k), v) if k in defaults else v
        return out
    return defaults if values is None else values


def effective_values(chart: Any, values: Any) -> Any:
    """A release's values with :data:`CHART_EXPOSURE_DEFAULTS` of its chart merged under them where switched on."""
    for switch, defaults in CHART_EXPOSURE_DEFAULTS.get(chart, ()):
        on = _flag(read(values, *switch)) if values is not UNKNOWN else UNKNOWN
        if on is not False:
            values = _merge_under(defaults, values if isinstance(values, dict) else {})
    return values


def _enabled(node: Any) -> Any:
    return _flag(node.get("enabled")) if isinstance(node, dict) and "enabled" in node else False


def _ingress_problem(node: dict, where: str, internal: set) -> list[str]:
    cls = node.get("ingressClassName", node.get("className"))
    annotations = node.get("annotations")
    if cls in (None, "") and isinstance(annotations, dict):
        cls = annotations.get(_INGRESS_CLASS_ANNOTATION)
    if not isinstance(cls, str) or cls not in internal:
        shown = "unknown" if cls is UNKNOWN else ("the cluster's default class" if cls in (None, "") else repr(cls))
        return [f"{where} enables an Ingress with {shown}, which is not listed in internalIngressClasses, so the load "
                "balancer its controller exposes cannot be verified internal; set enabled: false or an internal "
                "ingressClassName"]
    return []


def exposure_problems(values: Any, config: dict, path: str = "values") -> list[str]:
    """What in a values tree makes a chart expose something (see the module docstring)."""
    values = plain(values)
    if values is UNKNOWN:
        return [f"{path} is unknown during preview, so what the chart exposes cannot be judged"]
    internal = set(config.get("internalIngressClasses") or [])
    allow_lbs = bool(config.get("allowPublicLoadBalancers"))
    found: list[str] = []

    def walk(node: Any, where: str, key: str) -> None:
        if isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, f"{where}[{i}]", key)
            return
        if not isinstance(node, dict) or (object_type(node) is not None and isinstance(node.get("metadata"), dict)):
            return  # a whole object rendered verbatim is judged as that object (helm-values-manifests)
        if _INGRESS_KEY.search(key) and "enabled" in node and _enabled(node) is not False:
            found.extend(_ingress_problem(node, where, internal))
        if _ROUTE_KEY.match(key):
            routes = [(where, node)] if "enabled" in node else [(f"{where}.{k}", v) for k, v in node.items()
                                                                 if isinstance(v, dict)]
            found.extend(f"{w} enables a Gateway API route: whether it is reachable from the internet is decided by "
                         "the Gateway it attaches to, which values do not show; declare the route as a resource "
                         "attached to a Gateway of this stack" for w, r in routes if _enabled(r) is not False)
        kind = node.get("type") if "type" in node else node.get("serviceType")
        if kind == "LoadBalancer" or (kind is UNKNOWN and re.search(r"service", key, re.IGNORECASE)):
            annotations = node.get("annotations", node.get("serviceAnnotations", {}))
            lb_class = node.get("loadBalancerClass")
            props = {"spec": {"type": kind, "loadBalancerClass": None if lb_class == "" else lb_class,
                              **{k: node[k] for k in ("ipFamilyPolicy", "ipFamilies", "loadBalancerIP") if k in node}},
                     "metadata": {"annotations": annotations if annotations is not None else {}}}
            found.extend(f"{where} {p}" for p in public_endpoints.service_problems(
                props, allow_lbs, config.get("internalIngressClasses") or []))
        ips = node.get("externalIPs")
        if ips is UNKNOWN or (isinstance(ips, list) and ips):
            found.append(f"{where}.externalIPs makes nodes accept traffic for addresses they do not own "
                         "(CVE-2020-8554); remove it")
        for k, v in node.items():
            if k not in ("annotations", "serviceAnnotations", "labels") and k not in OBJECT_HOOK_KEYS:
                walk(v, f"{where}.{k}", str(k))

    walk(values, path, "")
    return found


def validate_helm_values_exposure(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``helm-values-exposure``: see the module docstring."""
    if args.resource_type not in HELM_TYPES:
        return
    values = effective_values(chart_name(args.props), plain(read(args.props, "values", default={})))
    problems = exposure_problems(values, _config(args))
    if problems:
        report_violation(f"Helm release '{args.name}' {'; '.join(problems)}.", None)


# --- custom-resource-exposure -----------------------------------------------------------------------------------
RAY_GROUP = "ray.io"


def _ray_clusters(kind: str, spec: Any) -> list[tuple[str, Any]]:
    """(where, RayClusterSpec) of a KubeRay resource (kuberay ``ray-operator/apis/ray/v1`` at v1.7.0)."""
    path = {"RayCluster": (), "RayJob": ("rayClusterSpec",), "RayService": ("rayClusterConfig",),
            "RayCronJob": ("jobTemplate", "rayClusterSpec")}.get(kind)
    if path is None:
        return []
    cluster = read(spec, *path) if path else spec
    return [] if cluster is None else [(".".join(("spec",) + path), cluster)]


def custom_resource_exposure(resource_type: str, props: Any, config: dict) -> list[str]:
    """What a KubeRay resource makes the operator expose: the head Service (``headGroupSpec.serviceType`` with the
    cluster's ``headServiceAnnotations``, or a whole ``headGroupSpec.headService``), RayService's ``serveService``,
    and the head Ingress (``headGroupSpec.enableIngress``; its class is the resource's
    ``kubernetes.io/ingress.class`` annotation, kuberay ``controllers/ray/common/ingress.go``), each judged like a
    declared Service or Ingress."""
    parts = resource_type.split(":")
    if len(parts) != 3 or parts[1].split("/")[0] != RAY_GROUP:
        return []
    spec = read(props, "spec")
    if spec is UNKNOWN:
        return ["its spec is unknown during preview, so the Services and Ingress it makes cannot be judged"]
    allow_lbs, classes = bool(config.get("allowPublicLoadBalancers")), config.get("internalIngressClasses") or []
    found: list[str] = []
    services = [("spec.serveService", read(spec, "serveService"))] if parts[2] == "RayService" else []
    for where, cluster in _ray_clusters(parts[2], spec):
        if cluster is UNKNOWN:
            found.append(f"{where} is unknown during preview")
            continue
        head = read(cluster, "headGroupSpec")
        kind = read(head, "serviceType")
        if kind is not None:
            services.append((f"{where}.headGroupSpec.serviceType", {"spec": {"type": kind}, "metadata": {
                "annotations": read(cluster, "headServiceAnnotations", default={})}}))
        services.append((f"{where}.headGroupSpec.headService", read(head, "headService")))
        enabled = _flag(read(head, "enableIngress"))
        if enabled is not False:
            cls = read(props, "metadata", "annotations", "kubernetes.io/ingress.class")
            if not isinstance(cls, str) or cls not in classes:
                found.append(f"{where}.headGroupSpec.enableIngress makes the operator create an Ingress of class "
                             f"{'unknown' if cls is UNKNOWN else repr(cls)} (the resource's kubernetes.io/"
                             "ingress.class annotation), which is not listed in internalIngressClasses")
    for where, service in services:
        if service is not None:
            found += [f"{where} {p}" for p in public_endpoints.service_problems(plain(service), allow_lbs, classes)]
    return found


def validate_custom_resource_exposure(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``custom-resource-exposure``: see :func:`custom_resource_exposure`."""
    problems = custom_resource_exposure(args.resource_type, args.props, _config(args))
    if problems:
        report_violation(f"{args.resource_type.split(':')[-1]} '{args.name}' {'; '.join(problems)}.", None)


helm_values_exposure = ResourceValidationPolicy(
    name="helm-values-exposure",
    description=("Helm values create nothing reachable from the internet: no enabled Ingress of a class not listed "
                 "internal, no Gateway API route, no LoadBalancer service without OCI's internal annotation, no "
                 "externalIPs (chart defaults a values switch turns on included)."),
    validate=validate_helm_values_exposure,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Set the component's ingress/route enabled: false or an internal ingressClassName, annotate "
                       "LoadBalancer services service.beta.kubernetes.io/oci-load-balancer-internal: \"true\" (or use "
                       "ClusterIP). Source: " + _SRC + "; chart values.yaml of the pinned charts."),
    tags=["kubernetes", "helm", "exposure"],
    config_schema=PolicyConfigSchema({**_CLASSES, **_PUBLIC}),
)

custom_resource_exposure_policy = ResourceValidationPolicy(
    name="custom-resource-exposure",
    description=("Operator custom resources make nothing reachable from the internet: KubeRay head and serve "
                 "Services carry OCI's internal annotation, head Ingresses use an internal class."),
    validate=validate_custom_resource_exposure,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Use serviceType ClusterIP (or annotate the head Service internal through "
                       "headServiceAnnotations), leave enableIngress off or annotate the resource with an internal "
                       "kubernetes.io/ingress.class. Source: ray-project/kuberay ray-operator/apis/ray/v1 and "
                       "controllers/ray/common/ingress.go at v1.7.0; " + _SRC + "."),
    tags=["kubernetes", "exposure"],
    config_schema=PolicyConfigSchema({**_CLASSES, **_PUBLIC}),
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(helm_values_exposure, *HELM_TYPES)

POLICIES = [helm_values_exposure, custom_resource_exposure_policy]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "helm-values-exposure": ("fails closed: unknown values, an unknown ingress/route enabled flag, class, service "
                             "type (under a service key) or annotation is a violation"),
    "custom-resource-exposure": ("fails closed: an unknown spec, cluster spec, service type, annotation or ingress "
                                 "flag is a violation"),
}
