"""Every path to a Kubernetes object is judged like the object: manifests a chart renders verbatim from Helm values,
and server-side-apply ``*Patch`` resources on objects the stack does not own (exposure through values and operator
resources: ``exposure_paths``).

| rule                               | kind     | judges                                                              |
|------------------------------------|----------|---------------------------------------------------------------------|
| helm-values-manifests              | resource | each object a release's values make its chart render verbatim       |
|                                    |          | (``_objects``: ``extraManifests``, ``extraObjects`` ... at any      |
|                                    |          | depth), with the same per-object checks as a declared object        |
|                                    |          | (:data:`OBJECT_CHECKS`); an item that cannot be interpreted (a      |
|                                    |          | template action, YAML that does not parse, no apiVersion/kind, an   |
|                                    |          | unknown) is a violation                                             |
| kubernetes-patch-or-list-judged-as-kind | resource | a ``<Kind>Patch`` with the checks of ``<Kind>`` on what it    |
|                                    |          | sets; a ServicePatch that drops or falsifies the internal           |
|                                    |          | annotation, or makes a LoadBalancer without naming its load-balancer|
|                                    |          | type (the live object's type annotation is not visible); a binding  |
|                                    |          | patch that adds subjects to a role it does not name; each item of a |
|                                    |          | ``<Kind>List`` resource with the checks of ``<Kind>``               |

Pod specs and Namespaces reached by these paths (rendered workloads, rendered Namespaces, NamespacePatches that set
the ``enforce`` label, workload ``*Patch`` kinds) are judged by the pod and namespace stack rules themselves
(``rdma-pods-in-privileged-namespaces``, ``node-escape-only-in-node-agent-namespaces``,
``workload-namespace-declared``, ``privileged-namespace-purpose``), which read ``_objects.with_derived``.

Sources (checked 2026-12-01): Kubernetes docs "Server-Side Apply" (a patch sets only the fields it names; the other
fields keep their owners' values), "Service", "Ingress"; oracle/oci-cloud-controller-manager
``docs/load-balancer-annotations.md`` (internal annotations, the load-balancer type annotation); pulumi_kubernetes
4.34.2 ``*Patch`` resources; the charts' templates listed in ``_objects.CHART_OBJECT_HOOKS``.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from . import credentials, public_endpoints, rbac, storage
    from ._objects import HELM_TYPES, list_items, listed_kind, release_objects
    from ._rules import UNKNOWN, member, read
    from .exposure_paths import _CLASSES, _PUBLIC, _SRC, _config
    from .kubernetes import NAMESPACE, namespace_problem
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/security/
    import credentials
    import public_endpoints
    import rbac
    import storage
    from _objects import HELM_TYPES, list_items, listed_kind, release_objects
    from _rules import UNKNOWN, member, read
    from exposure_paths import _CLASSES, _PUBLIC, _SRC, _config
    from kubernetes import NAMESPACE, namespace_problem
    from _gate import examines

#: The pack's per-object checks, by rule name: ``(resource type, props, config) → problems``. A rendered object and a
#: patch are held to every one of them, as the rule of that name holds a declared object.
OBJECT_CHECKS: dict[str, Callable[[str, Any, dict], Iterable[str]]] = {
    "kubernetes-rbac-no-escalation": lambda t, p, c: rbac.problems_of(t, p),
    "no-public-endpoints": lambda t, p, c: public_endpoints.problems_of(t, p, c),
    "namespace-pod-security-enforce": lambda t, p, c: [x for x in [namespace_problem(p)] if x] if t == NAMESPACE
    else [],
    "fss-export-no-internet-root": lambda t, p, c: storage.internet_root_findings(t, p, "it"),
    "fss-export-root-needs-privileged-port": lambda t, p, c: storage.privileged_port_findings(t, p, "it"),
    "iam-no-static-credentials": lambda t, p, c: credentials.credential_findings(t, p),
}


def object_problems(resource_type: str, props: Any, config: dict) -> list[str]:
    """Every :data:`OBJECT_CHECKS` problem of one object, each prefixed with the rule that found it."""
    return [f"[{rule}] {problem}" for rule, check in OBJECT_CHECKS.items()
            for problem in check(resource_type, props, config)]


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


# --- kubernetes-patch-or-list-judged-as-kind -------------------------------------------------------------------
def _rbac_judges_itself(rule: str, kind: str) -> bool:
    """``kubernetes-rbac-no-escalation`` reads RBAC ``*Patch`` and ``*List`` kinds itself (``rbac_objects``), with
    the default bindings a patch without roleRef targets; judging them here too would only repeat it."""
    return rule == "kubernetes-rbac-no-escalation" and kind.split(":")[1].startswith("rbac.authorization.k8s.io/")


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
        if rule == "namespace-pod-security-enforce" or _rbac_judges_itself(rule, kind):
            continue  # these rules read the patch kinds themselves
        found += [f"[{rule}] {p}" for p in check(kind, props, config)]
    if kind == public_endpoints.SERVICE:
        found += [f"[no-public-endpoints] {p}" for p in public_endpoints.lb_ipv6_patch_problems(props)
                  if not (config.get("allowPublicLoadBalancers"))]
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
            both = all(member(read(annotations, k), public_endpoints.PARSEBOOL_TRUE)
                       for k in public_endpoints.INTERNAL_ANNOTATION.values())
            if read(props, "spec", "type") == "LoadBalancer" and lb_type is None and not both:
                found.append("[no-public-endpoints] makes a Service it does not own a LoadBalancer without setting "
                             f"{public_endpoints.LB_TYPE_ANNOTATION}: the live Service's type annotation decides "
                             "which internal annotation counts; set the type annotation, or both internal "
                             "annotations")
            if lb_type is not None and read(props, "spec", "type") is None:
                found.append(f"[no-public-endpoints] switches the load-balancer type ({lb_type!r}) of a Service whose "
                             "internal annotation for that type it does not set; set spec.type and the annotation")
    return found


def list_problems(resource_type: str, props: Any, config: dict) -> list[str]:
    """Why a ``*List`` resource (``items``: whole objects of the listed kind) holds an object the pack refuses:
    each item gets every :data:`OBJECT_CHECKS` of its kind; unknown items fail closed."""
    kind = listed_kind(resource_type)
    if kind is None:
        return []
    found: list[str] = []
    for where, item in list_items(kind, props):
        if item is UNKNOWN:
            found.append(f"{where} is unknown during preview")
            continue
        found += [f"{where} [{rule}] {p}" for rule, check in OBJECT_CHECKS.items()
                  if not _rbac_judges_itself(rule, kind) for p in check(kind, item, config)]
    return found


def validate_patch_judged_as_kind(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``kubernetes-patch-or-list-judged-as-kind``: see the module docstring."""
    config = _config(args)
    problems = patch_problems(args.resource_type, args.props, config)
    if problems:
        report_violation(f"{args.resource_type.split(':')[-1]} '{args.name}' patches an object this stack does not "
                         f"own into one the pack refuses: {'; '.join(problems)}.", None)
    problems = list_problems(args.resource_type, args.props, config)
    if problems:
        report_violation(f"{args.resource_type.split(':')[-1]} '{args.name}' holds objects the pack refuses: "
                         f"{'; '.join(problems)}.", None)


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

kubernetes_patch_or_list_judged_as_kind = ResourceValidationPolicy(
    name="kubernetes-patch-or-list-judged-as-kind",
    description=("A server-side-apply patch (ServicePatch, IngressPatch, ClusterRoleBindingPatch, ...) passes the "
                 "checks of the kind it patches on what it sets, and does not unset a Service's internal "
                 "annotation or add subjects to a binding it does not name the role of; each item of a *List "
                 "resource (ServiceList, ClusterRoleBindingList, ...) passes the checks of its kind."),
    validate=validate_patch_judged_as_kind,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Patch only what is safe on the full kind (internal annotation \"true\", internal ingress "
                       "class, no escalating RBAC), or manage the object in this stack. Source: " + _SRC + "."),
    tags=["kubernetes", "exposure", "rbac"],
    config_schema=PolicyConfigSchema({**_CLASSES, **_PUBLIC}),
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(helm_values_manifests, *HELM_TYPES)

POLICIES = [helm_values_manifests, kubernetes_patch_or_list_judged_as_kind]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "helm-values-manifests": "fails closed: an unknown values object or hook item is a violation",
    "kubernetes-patch-or-list-judged-as-kind": ("fails closed: unknown fields count as the full kind's rules count "
                                                "them; unknown annotations of a ServicePatch and unknown list items "
                                                "are violations"),
}
