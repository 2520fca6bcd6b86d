"""Every path to a Kubernetes object is judged like the object: manifests a chart renders verbatim from Helm values,
exposure a chart creates from values, and server-side-apply ``*Patch`` resources on objects the stack does not own.

| rule                               | kind     | judges                                                              |
|------------------------------------|----------|---------------------------------------------------------------------|
| helm-values-manifests              | resource | each object a release's values make its chart render verbatim       |
|                                    |          | (``_objects``: ``extraManifests``, ``extraObjects`` ... at any      |
|                                    |          | depth), with the same per-object checks as a declared object        |
|                                    |          | (:data:`OBJECT_CHECKS`); an item that cannot be interpreted (a      |
|                                    |          | template action, YAML that does not parse, no apiVersion/kind, an   |
|                                    |          | unknown) is a violation                                             |
| helm-values-exposure               | resource | values that make a chart create something reachable from outside   |
|                                    |          | the cluster: an enabled Ingress (``*ingress*.enabled``) whose class |
|                                    |          | is not internal, a Gateway API route (``route.<name>.enabled``), a  |
|                                    |          | ``type: LoadBalancer`` (or ``serviceType``) service without OCI's   |
|                                    |          | internal annotation, ``externalIPs``; with the pinned charts'       |
|                                    |          | defaults that a switch turns on (:data:`CHART_EXPOSURE_DEFAULTS`)   |
| kubernetes-patch-judged-as-kind    | resource | a ``<Kind>Patch`` with the checks of ``<Kind>`` on what it sets; a  |
|                                    |          | ServicePatch that drops or falsifies the internal annotation, or    |
|                                    |          | makes a LoadBalancer without naming its load-balancer type (the     |
|                                    |          | live object's type annotation is not visible); a binding patch that |
|                                    |          | adds subjects to a role it does not name                            |
| custom-resource-exposure           | resource | KubeRay head/serve Services and head Ingresses, judged like declared|
|                                    |          | ones                                                                |

Pod specs and Namespaces reached by these paths (rendered workloads, rendered Namespaces, NamespacePatches that set
the ``enforce`` label, workload ``*Patch`` kinds) are judged by the pod and namespace stack rules themselves
(``rdma-pods-in-privileged-namespaces``, ``node-escape-only-in-node-agent-namespaces``,
``workload-namespace-declared``, ``privileged-namespace-purpose``), which read ``_objects.with_derived``.

NodePort services in values are not refused, like declared ones (``no-public-endpoints``): node ports are reachable
only where the nodes are, and worker subnets must be private (``node-subnets-private``). ``hostPort`` and
``hostNetwork`` in values are pod privilege (``helm-values-pod-security``).

Sources (checked 2026-12-01): Kubernetes docs "Server-Side Apply" (a patch sets only the fields it names; the other
fields keep their owners' values), "Service" (``type``, ``externalIPs``, ``loadBalancerClass``), "Ingress"
(``ingressClassName``, the deprecated ``kubernetes.io/ingress.class`` annotation), Gateway API "HTTPRoute"
(``parentRefs``); oracle/oci-cloud-controller-manager ``docs/load-balancer-annotations.md`` (internal
annotations); pulumi_kubernetes 4.34.2 ``*Patch`` resources; chart values: kube-prometheus-stack 87.2.1
``values.yaml`` (``prometheus.thanosServiceExternal.type: LoadBalancer``, ``*.ingress``, ``*.route.main``), kueue
0.18.2 ``values.yaml`` (``enableKueueViz``; ``kueueViz.backend.ingress.enabled: true`` and
``kueueViz.frontend.ingress.enabled: true`` with no class), grafana 12.7.1 ``values.yaml`` (``ingress``, ``route``).
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from . import public_endpoints, rbac, storage
    from ._objects import HELM_TYPES, OBJECT_HOOK_KEYS, object_type, plain, release_objects
    from ._pss import _flag
    from ._rules import UNKNOWN, read
    from .kubernetes import NAMESPACE, chart_name, namespace_problem
else:  # run by the Pulumi CLI from inside policies/security/
    import public_endpoints
    import rbac
    import storage
    from _objects import HELM_TYPES, OBJECT_HOOK_KEYS, object_type, plain, release_objects
    from _pss import _flag
    from _rules import UNKNOWN, read
    from kubernetes import NAMESPACE, chart_name, namespace_problem

#: The pack's per-object checks, by rule name: ``(resource type, props, config) → problems``. A rendered object and a
#: patch are held to every one of them, as the rule of that name holds a declared object.
OBJECT_CHECKS: dict[str, Callable[[str, Any, dict], Iterable[str]]] = {
    "kubernetes-rbac-no-escalation": lambda t, p, c: rbac.problems_of(t, p),
    "no-public-endpoints": lambda t, p, c: public_endpoints.problems_of(t, p, c),
    "namespace-pod-security-enforce": lambda t, p, c: [x for x in [namespace_problem(p)] if x] if t == NAMESPACE
    else [],
    "fss-export-no-internet-root": lambda t, p, c: storage.internet_root_findings(t, p, "it"),
}


def object_problems(resource_type: str, props: Any, config: dict) -> list[str]:
    """Every :data:`OBJECT_CHECKS` problem of one object, each prefixed with the rule that found it."""
    return [f"[{rule}] {problem}" for rule, check in OBJECT_CHECKS.items()
            for problem in check(resource_type, props, config)]


def _config(args: Any) -> dict:
    return dict(args.get_config() or {})


# --- helm-values-manifests --------------------------------------------------------------------------------------
def manifest_problems(release: Any, config: dict) -> list[str]:
    """Why the objects a release's values render are refused: each uninterpretable item, each object's problems."""
    found = []
    for derived, why in release_objects(release):
        if derived is None:
            found.append(f"{why}, so what it renders cannot be judged; declare the object as a resource of its own")
            continue
        found += [f"{derived.origin} ({derived.props['kind']} "
                  f"{read(derived.props, 'metadata', 'name', default='?')}) {p}"
                  for p in object_problems(derived.resource_type, derived.props, config)]
    return found


class _Release:
    def __init__(self, args: ResourceValidationArgs):
        self.props, self.name, self.urn, self.property_dependencies = args.props, args.name, args.urn, {}


def validate_helm_values_manifests(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``helm-values-manifests``: see the module docstring."""
    if args.resource_type not in HELM_TYPES:
        return
    problems = manifest_problems(_Release(args), _config(args))
    if problems:
        report_violation(f"Helm release '{args.name}' renders objects from its values that the pack refuses: "
                         f"{'; '.join(problems)}.", None)


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
_INGRESS_KEY = re.compile(r"ingress", re.IGNORECASE)
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
            props = {"spec": {"type": kind, "loadBalancerClass": None if lb_class == "" else lb_class},
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


# --- kubernetes-patch-judged-as-kind ----------------------------------------------------------------------------
def patched_kind(resource_type: str) -> Any:
    """``kubernetes:core/v1:ServicePatch`` → ``kubernetes:core/v1:Service``; None for a type that is no patch."""
    parts = resource_type.split(":")
    if len(parts) == 3 and parts[0] == "kubernetes" and parts[2].endswith("Patch") and len(parts[2]) > 5:
        return f"{parts[0]}:{parts[1]}:{parts[2][:-5]}"
    return None


def patch_problems(resource_type: str, props: Any, config: dict) -> list[str]:
    """Why a ``*Patch`` would make its object unsafe: the full kind's :data:`OBJECT_CHECKS` on what it sets (a
    NamespacePatch that leaves the enforce label alone is judged by the pod rules, not here), plus what only a
    patch can do — unset or falsify a Service's internal annotation, add subjects to a binding whose role it does
    not name."""
    kind = patched_kind(resource_type)
    if kind is None:
        return []
    found: list[str] = []
    for rule, check in OBJECT_CHECKS.items():
        if rule == "namespace-pod-security-enforce":
            continue  # the rule itself reads NamespacePatch (only when the patch sets the label)
        found += [f"[{rule}] {p}" for p in check(kind, props, config)]
    if kind == public_endpoints.SERVICE:
        annotations = read(props, "metadata", "annotations")
        if annotations is UNKNOWN:
            found.append("[no-public-endpoints] its annotations are unknown during preview, so it may unset the "
                         "Service's internal load-balancer annotation")
        elif hasattr(annotations, "keys"):
            for key in public_endpoints.INTERNAL_ANNOTATION.values():
                if key in list(annotations.keys()):
                    value = read(annotations, key)
                    if not (isinstance(value, str) and value in public_endpoints.PARSEBOOL_TRUE):
                        found.append(f"[no-public-endpoints] sets {key} to {value!r}: a LoadBalancer Service it "
                                     "patches becomes public; leave the annotation \"true\"")
            lb_type = read(annotations, public_endpoints.LB_TYPE_ANNOTATION)
            both = all(read(annotations, k) in public_endpoints.PARSEBOOL_TRUE
                       for k in public_endpoints.INTERNAL_ANNOTATION.values())
            if read(props, "spec", "type") == "LoadBalancer" and lb_type is None and not both:
                found.append("[no-public-endpoints] makes a Service it does not own a LoadBalancer without setting "
                             f"{public_endpoints.LB_TYPE_ANNOTATION}: the live Service's type annotation decides "
                             "which internal annotation counts; set the type annotation, or both internal "
                             "annotations")
            if lb_type is not None and read(props, "spec", "type") is None:
                found.append(f"[no-public-endpoints] switches the load-balancer type ({lb_type!r}) of a Service whose "
                             "internal annotation for that type it does not set; set spec.type and the annotation")
    if kind in rbac.BINDINGS:
        subjects = read(props, "subjects")
        if subjects is not None and read(props, "roleRef") is None:
            found.append("[kubernetes-rbac-no-escalation] adds subjects to a binding whose roleRef it does not name, "
                         "so the role they get cannot be judged; declare the binding with its roleRef")
    return found


def validate_patch_judged_as_kind(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``kubernetes-patch-judged-as-kind``: see the module docstring."""
    problems = patch_problems(args.resource_type, args.props, _config(args))
    if problems:
        report_violation(f"{args.resource_type.split(':')[-1]} '{args.name}' patches an object this stack does not "
                         f"own into one the pack refuses: {'; '.join(problems)}.", None)


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


_CLASSES = {"internalIngressClasses": {
    "type": "array", "uniqueItems": True, "default": [], "items": {"type": "string", "maxLength": 253},
    "description": "Ingress, Gateway and Service loadBalancerClass classes whose controller provisions internal "
                   "load balancers only"}}
_PUBLIC = {"allowPublicLoadBalancers": {"type": "boolean", "default": False,
                                        "description": "this stack serves the internet through load balancers"}}
_SRC = ("Kubernetes docs: Server-Side Apply; Service; Ingress; oracle/oci-cloud-controller-manager "
        "docs/load-balancer-annotations.md; Helm docs: Chart Template Guide (tpl)")

helm_values_manifests = ResourceValidationPolicy(
    name="helm-values-manifests",
    description=("Objects a Helm release's values make the chart render verbatim (extraManifests, extraObjects, "
                 "... at any depth) pass the same checks as declared objects (RBAC, exposure, Pod Security labels, "
                 "FSS exports); items the pack cannot interpret are refused."),
    validate=validate_helm_values_manifests,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Declare the object as a resource of its own (its rules then apply with their config), or "
                       "drop it from the values; write items as literal maps, not templates. Source: " + _SRC + "."),
    tags=["kubernetes", "helm", "rbac", "exposure"],
    config_schema=PolicyConfigSchema({**_CLASSES, **_PUBLIC}),
)

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

kubernetes_patch_judged_as_kind = ResourceValidationPolicy(
    name="kubernetes-patch-judged-as-kind",
    description=("A server-side-apply patch (ServicePatch, IngressPatch, ClusterRoleBindingPatch, ...) passes the "
                 "checks of the kind it patches on what it sets, and does not unset a Service's internal "
                 "annotation or add subjects to a binding it does not name the role of."),
    validate=validate_patch_judged_as_kind,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Patch only what is safe on the full kind (internal annotation \"true\", internal ingress "
                       "class, no escalating RBAC), or manage the object in this stack. Source: " + _SRC + "."),
    tags=["kubernetes", "exposure", "rbac"],
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

POLICIES = [helm_values_manifests, helm_values_exposure, kubernetes_patch_judged_as_kind,
            custom_resource_exposure_policy]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "helm-values-manifests": "fails closed: an unknown values object or hook item is a violation",
    "helm-values-exposure": ("fails closed: unknown values, an unknown ingress/route enabled flag, class, service "
                             "type (under a service key) or annotation is a violation"),
    "custom-resource-exposure": ("fails closed: an unknown spec, cluster spec, service type, annotation or ingress "
                                 "flag is a violation"),
    "kubernetes-patch-judged-as-kind": ("fails closed: unknown fields count as the full kind's rules count them; "
                                        "unknown annotations of a ServicePatch are a violation"),
}
