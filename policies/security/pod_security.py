"""Pod privilege reached through any path: Helm values, workload pod specs, and the namespaces they land in.

The Pod Security Standards (Kubernetes docs "Pod Security Standards", checked 2026-11-30) define what each level
forbids. *Baseline* forbids host namespaces (``hostNetwork``, ``hostPID``, ``hostIPC``), ``privileged``
containers, capabilities beyond ``_pss.BASELINE_CAPABILITIES``, ``hostPath`` volumes and ``hostPort``s; *restricted*
further forbids ``allowPrivilegeEscalation: true`` and running as UID 0. A subset of these is *node escape*: a
container with the host's PID or IPC namespace, ``SYS_ADMIN``-class capabilities (``_pss.NODE_ESCAPE_CAPABILITIES``,
see ``capabilities(7)``), or the host's root, ``/etc``, ``/proc``, ``/sys``, kubelet or container-runtime
directories mounted (``_pss.NODE_ESCAPE_PATHS``) controls the node. RDMA training pods need ``privileged``,
``hostNetwork``, ``IPC_LOCK`` and ``/dev/infiniband``, none of which is listed there; node agents (the GPU Operator,
the Prometheus node exporter) need node escape and run in their own namespaces (``nodeAgentNamespaces``, and the
namespace of any release of a node-agent chart, ``_pss.NODE_AGENT_CHARTS``).

| rule                                   | kind  | checks                                                               |
|----------------------------------------|-------|----------------------------------------------------------------------|
| helm-values-pod-security               | stack | the well-known privilege settings anywhere in a Helm release's values|
|                                        |       | fit the Pod Security level of the release's namespace (objects the   |
|                                        |       | chart renders verbatim are judged as objects: ``object_paths``;      |
|                                        |       | exposure through values: ``helm-values-exposure``)                   |
| node-escape-only-in-node-agent-namespaces | stack | host PID/IPC, SYS_ADMIN-class capabilities and node-escape host   |
|                                        |       | paths, in workloads or Helm values, only in ``nodeAgentNamespaces``  |
| workload-namespace-declared            | stack | every workload and Helm release goes to a Namespace of this stack    |
|                                        |       | (whose Pod Security level the stack declares) or to                  |
|                                        |       | ``externalNamespaces``                                               |

A Helm chart is a template: the pack cannot render it, so it judges the values a release passes (values files and
post renderers, which change the manifests where the pack cannot see, are refused by ``helm-values-pod-security``) (a chart's own
defaults are the chart's, pinned by ``helm-release-pinned``). Keys are matched wherever they sit in the values tree
(``controller.hostNetwork``, ``node-exporter.hostPID``, ``containerSecurityContext.privileged``,
``daemonsets.securityContext.capabilities.add``, ``extraVolumes[].hostPath.path`` ...).

Unknown values: unknown values at one of these keys, an unknown ``values`` object, or an unknown namespace fail
closed.

Sources (checked 2026-11-30): Kubernetes docs "Pod Security Standards" (baseline and restricted controls, the baseline
capability list), "Pod Security Admission", "Volumes" (hostPath: "presents many security risks");
``capabilities(7)``; Helm docs "Values Files"; pulumi_kubernetes 4.34.2 ``helm.sh/v3:Release`` (``values``,
``namespace``) and ``helm.sh/v4:Chart``.
"""
from __future__ import annotations

from typing import Any, Iterable

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, Severity, StackValidationArgs,
                           StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import UNKNOWN, elements, read
    from ._pss import NODE_ESCAPE_NAMESPACES
    from ._pss import (BASELINE_SYSCTLS, Finding, _capability_findings, _flag, _host_path_finding,
                       node_agent_namespaces, node_escape_path)
    from ._objects import OBJECT_HOOK_KEYS, object_type, with_derived
    from ._operator_pods import Uninterpretable
    from .kubernetes import (ENFORCE_LABEL, HELM_CHART_V4, HELM_RELEASE, NAMESPACE, chart_name, is_cluster_scoped,
                             pod_specs)
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, elements, read
    from _pss import NODE_ESCAPE_NAMESPACES
    from _pss import (BASELINE_SYSCTLS, Finding, _capability_findings, _flag, _host_path_finding,
                      node_agent_namespaces, node_escape_path)
    from _objects import OBJECT_HOOK_KEYS, object_type, with_derived
    from _operator_pods import Uninterpretable
    from kubernetes import (ENFORCE_LABEL, HELM_CHART_V4, HELM_RELEASE, NAMESPACE, chart_name, is_cluster_scoped,
                            pod_specs)

DEFAULT_NODE_AGENT_NAMESPACES = list(NODE_ESCAPE_NAMESPACES)


def values_findings(values: Any, path: str = "values") -> list[Finding]:
    """Privilege settings anywhere in a Helm values tree (see the module docstring)."""
    if values is UNKNOWN:
        return [("escape", f"{path} is unknown during preview, so its privilege settings cannot be judged")]
    found: list[Finding] = []
    if isinstance(values, (list, tuple)) or (hasattr(values, "__len__") and hasattr(values, "__getitem__")
                                             and not isinstance(values, (str, dict)) and not hasattr(values, "keys")):
        for i, item in enumerate(elements(values)):
            found += values_findings(item, f"{path}[{i}]")
        return found
    if not hasattr(values, "keys"):
        return found
    if object_type(values) is not None and read(values, "metadata") is not None:
        return found  # a whole object rendered verbatim: judged as that object (``_objects.with_derived``)
    for key in list(values.keys()):
        value = read(values, key)
        where = f"{path}.{key}"
        if key in OBJECT_HOOK_KEYS:
            continue  # objects rendered verbatim: judged as those objects, in their own namespaces
        if key in ("hostNetwork", "hostPID", "hostIPC", "privileged"):
            flag = _flag(value)
            kind = "escape" if key in ("hostPID", "hostIPC") else "baseline"
            if flag is UNKNOWN:
                found.append((kind, f"{where} is unknown during preview"))
            elif flag:
                found.append((kind, f"{where}: true"))
        elif key == "allowPrivilegeEscalation" and _flag(value) is not False:
            found.append(("restricted", f"{where}: {value!r}"))
        elif key == "runAsUser" and (value is UNKNOWN or value == 0):
            found.append(("restricted", f"{where}: {'unknown' if value is UNKNOWN else 0}"))
        elif key == "hostPort" and value not in (None, 0):
            found.append(("baseline", f"{where}: {value!r}"))
        elif key in ("seccompProfile", "appArmorProfile") and (value is UNKNOWN or read(value, "type") in (
                UNKNOWN, "Unconfined")):
            found.append(("baseline", f"{where}.type: Unconfined or unknown"))
        elif key == "procMount" and value not in (None, "Default"):
            found.append(("baseline", f"{where}: {value!r}"))
        elif key == "hostProcess" and _flag(value) is not False:
            found.append(("baseline", f"{where}: {value!r}"))
        elif key == "sysctls" and path.endswith("ecurityContext"):
            items = elements(value)
            names = ["unknown"] if items is UNKNOWN else [read(x, "name") for x in items]
            found += [("baseline", f"{where} {n}") for n in names if n not in BASELINE_SYSCTLS]
            continue
        elif key == "add" and path.endswith(".capabilities"):
            found += _capability_findings(value, where)
            continue
        elif key == "hostPath":
            inner = read(value, "path") if hasattr(value, "keys") else value
            if inner is not None and (inner is UNKNOWN or isinstance(inner, str)):
                found.append(_host_path_finding(inner, where))
                continue
        if value is UNKNOWN or isinstance(value, (str, int, float, bool)) or value is None:
            continue
        found += values_findings(value, where)
    return found


def pod_spec_escapes(spec: Any) -> list[str]:
    """Node-escape settings of a pod spec: host PID/IPC, node-escape capabilities, node-escape hostPath volumes."""
    if spec is UNKNOWN:
        return ["its pod spec is unknown during preview"]
    if isinstance(spec, Uninterpretable):
        return [f"its pod fields cannot be interpreted: {spec.reason}"]
    found = [f"{k}: true" if _flag(read(spec, k)) is True else f"{k} unknown during preview"
             for k in ("hostPID", "hostIPC") if _flag(read(spec, k)) is not False]
    for kind in ("initContainers", "containers", "ephemeralContainers"):
        containers = elements(read(spec, kind))
        if containers is UNKNOWN:
            found.append(f"{kind} unknown during preview")
            continue
        for i, c in enumerate(containers):
            name = read(c, "name")
            where = f"{kind}[{name if isinstance(name, str) else i}]"
            found += [t for k, t in _capability_findings(read(c, "securityContext", "capabilities", "add"), where)
                      if k == "escape"]
    volumes = elements(read(spec, "volumes"))
    if volumes is UNKNOWN:
        found.append("volumes unknown during preview")
    else:
        for i, v in enumerate(volumes):
            host = read(v, "hostPath")
            if host is not None:
                kind, text = _host_path_finding(read(host, "path"), f"volumes[{i}]")
                if kind == "escape":
                    found.append(text)
    return found


# --- namespaces -------------------------------------------------------------------------------------------------
def target_namespace(resource: Any) -> tuple[Any, list[Any]]:
    """(namespace name or UNKNOWN, the stack Namespaces it may be) of a workload or Helm release."""
    is_release = resource.resource_type in (HELM_RELEASE, HELM_CHART_V4)
    path, dep = (("namespace",), "namespace") if is_release else (("metadata", "namespace"), "metadata")
    name = read(resource.props, *path, default="default")
    return name, [d for d in resource.property_dependencies.get(dep, []) if d.resource_type == NAMESPACE]


#: The level :func:`namespace_level` returns for a namespace that is not a Namespace of the stack.
NOT_DECLARED = "<not declared>"


def namespace_level(resource: Any, namespaces: list[Any]) -> tuple[Any, str]:
    """(the ``enforce`` label of the resource's namespace — None when unlabelled, UNKNOWN when unknown,
    :data:`NOT_DECLARED` when it is not a Namespace of the stack —, the namespace name)."""
    name, deps = target_namespace(resource)
    if name is UNKNOWN:
        if deps:  # the unknown name can only be one of these Namespaces' names
            levels = {read(d.props, "metadata", "labels", ENFORCE_LABEL) for d in deps}
            names = {read(d.props, "metadata", "name") for d in deps}
            only = next(iter(names)) if len(names) == 1 else None
            shown = only if isinstance(only, str) else "<unknown>"
            return (levels.pop() if len(levels) == 1 else UNKNOWN), shown
        return UNKNOWN, "<unknown>"
    matches = [n for n in namespaces if read(n.props, "metadata", "name") == name]
    if not matches:
        return NOT_DECLARED, str(name)
    levels = {read(n.props, "metadata", "labels", ENFORCE_LABEL) for n in matches}
    return (levels.pop() if len(levels) == 1 else UNKNOWN), str(name)


def hidden_inputs(props: Any) -> list[str]:
    """Inputs of a Helm release/chart that change its manifests where the pack cannot see: values files (assets;
    ``valueYamlFiles``) and post renderers (``postrender`` of helm.sh/v3 Release, ``postRenderer`` of helm.sh/v4
    Chart: a program that rewrites the rendered manifests)."""
    found = []
    files = elements(read(props, "valueYamlFiles"))
    if files is UNKNOWN or files:
        found.append("takes values from valueYamlFiles")
    for key in ("postrender", "postRenderer"):
        value = read(props, key)
        if value is UNKNOWN or value not in (None, "", {}):
            found.append(f"sets {key}")
    return found


_ALLOWED_BY_LEVEL = {"privileged": {"baseline", "restricted"}, "baseline": {"restricted"}, "restricted": set()}


def _releases(resources: list[Any]) -> Iterable[Any]:
    return (r for r in resources if r.resource_type in (HELM_RELEASE, HELM_CHART_V4))


def validate_helm_values(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``helm-values-pod-security``: baseline findings need a privileged namespace, restricted findings a
    baseline or privileged one. Namespaces outside the stack are looked
    up in ``privilegedNamespaces`` (their level is then privileged); otherwise fail closed."""
    config = args.get_config() or {}
    external = set(config.get("privilegedNamespaces") or [])
    namespaces = [r for r in with_derived(args.resources) if r.resource_type == NAMESPACE]
    for release in _releases(args.resources):
        hidden = hidden_inputs(release.props)
        if hidden:
            report_violation(f"Helm release '{release.name}' {'; '.join(hidden)}, which the pack cannot read, so "
                             "its pod settings cannot be judged. Pass the values inline (values) and drop the post "
                             "renderer.", release.urn)
        findings = [f for f in values_findings(read(release.props, "values", default={})) if f[0] != "escape"]
        if not findings:
            continue
        level, ns = namespace_level(release, namespaces)
        if level == NOT_DECLARED and ns in external:
            level = "privileged"
        allowed = _ALLOWED_BY_LEVEL.get(level, set()) if isinstance(level, str) else set()  # unknown: nothing
        bad = [text for kind, text in findings if kind not in allowed]
        if bad:
            shown = {NOT_DECLARED: "not declared by this stack", None: "unlabelled"}.get(
                level, "unknown" if level is UNKNOWN else repr(level))
            report_violation(f"Helm release '{release.name}' in namespace '{ns}' (Pod Security level {shown}) sets "
                             f"{'; '.join(bad)}. Drop these values, or install the release into a namespace whose "
                             "level allows them (privileged only for RDMA tenants and node agents).", release.urn)


PERSISTENT_VOLUME = "kubernetes:core/v1:PersistentVolume"


def persistent_volume_escapes(props: Any) -> list[str]:
    """Node-escape host paths of a PersistentVolume (``spec.hostPath.path``, ``spec.local.path``): any pod whose
    claim binds it mounts the node's directory without a hostPath volume in its own spec."""
    found = []
    for kind in ("hostPath", "local"):
        source = read(props, "spec", kind)
        if source is not None:
            escape, text = _host_path_finding(read(source, "path"), f"spec.{kind}")
            if escape == "escape":
                found.append(text)
    return found


def persistent_volume_spec(resource_type: str, props: Any) -> Any:
    """The PersistentVolume spec a resource creates: a PersistentVolume's (or its ``*Patch``'s, which can set the
    host path) ``spec``, and a KServe ``LocalModelNodeGroup``'s ``spec.persistentVolumeSpec`` (cluster-scoped: the
    volume every node's model cache mounts; kserve/kserve v0.20.0 ``local_model_node_group_types.go``, checked
    2026-12-01); None for any other resource."""
    if resource_type in (PERSISTENT_VOLUME, PERSISTENT_VOLUME + "Patch"):
        return read(props, "spec")
    parts = resource_type.split(":")
    if len(parts) == 3 and parts[1].split("/")[0] == "serving.kserve.io" and parts[2] in (
            "LocalModelNodeGroup", "LocalModelNodeGroupPatch"):
        return read(props, "spec", "persistentVolumeSpec")
    return None


def validate_node_escape(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``node-escape-only-in-node-agent-namespaces``: see the module docstring. A PersistentVolume is
    cluster-scoped, so a node-escape host path in one is refused wherever its claims live."""
    agents = set((args.get_config() or {}).get("nodeAgentNamespaces") or DEFAULT_NODE_AGENT_NAMESPACES)
    agents |= node_agent_namespaces(args.resources, (HELM_RELEASE, HELM_CHART_V4), chart_name)
    resources = with_derived(args.resources)
    namespaces = [r for r in resources if r.resource_type == NAMESPACE]
    for r in resources:
        pv_spec = persistent_volume_spec(r.resource_type, r.props)
        if pv_spec is not None:
            escapes = persistent_volume_escapes({"spec": pv_spec})
            if escapes:
                what = "PersistentVolume" if "PersistentVolume" in r.resource_type else r.resource_type.split(":")[-1]
                report_violation(f"{what} '{r.name}' exposes the node to any pod that claims it "
                                 f"({'; '.join(escapes)}); use a CSI volume (FSS, block volume) instead.", r.urn)
            continue
        if r.resource_type in (HELM_RELEASE, HELM_CHART_V4):
            escapes = [t for k, t in values_findings(read(r.props, "values", default={})) if k == "escape"]
        else:
            escapes = [f"{where}: {e}" if where else e for where, spec in pod_specs(r.resource_type, r.props)
                       for e in pod_spec_escapes(spec)]
        if not escapes:
            continue
        kind = r.resource_type.split(":")[-1]
        if is_cluster_scoped(r.resource_type):
            report_violation(f"{kind} '{r.name}' is cluster-scoped, so its pods run in the namespace of every job that "
                             f"names it, and it can take over their nodes ({'; '.join(escapes)}). Drop these settings "
                             "(RDMA pods need hostNetwork, IPC_LOCK and /dev/infiniband, none of them).", r.urn)
            continue
        _, ns = namespace_level(r, namespaces)
        if ns in agents:
            continue
        report_violation(f"{kind} '{r.name}' in namespace '{ns}' can take over its node ({'; '.join(escapes)}). "
                         f"Only node agents in {', '.join(sorted(agents))} may; drop these settings (RDMA pods need "
                         "hostNetwork, IPC_LOCK and /dev/infiniband, none of them).", r.urn)


def validate_namespace_declared(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``workload-namespace-declared``: see the module docstring."""
    external = set((args.get_config() or {}).get("externalNamespaces") or [])
    resources = with_derived(args.resources)
    namespaces = [r for r in resources if r.resource_type == NAMESPACE]
    for r in resources:
        if is_cluster_scoped(r.resource_type) or (
                r.resource_type not in (HELM_RELEASE, HELM_CHART_V4) and not pod_specs(r.resource_type, r.props)):
            continue
        level, ns = namespace_level(r, namespaces)
        if level == NOT_DECLARED and ns not in external:
            report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}' goes to namespace '{ns}', which this "
                             "stack does not declare, so its Pod Security level is unknown to the pack. Manage the "
                             "Namespace (with a pod-security.kubernetes.io/enforce label) in this stack, or list it "
                             "in externalNamespaces.", r.urn)
        elif level is UNKNOWN and ns == "<unknown>":
            report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}': its namespace is unknown during preview "
                             "and depends on no Namespace of this stack.", r.urn)


_PSS = "Kubernetes docs: Pod Security Standards; Pod Security Admission; Volumes (hostPath); capabilities(7)"
_NS_NAME = {"type": "string", "maxLength": 63, "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"}

helm_values_pod_security = StackValidationPolicy(
    name="helm-values-pod-security",
    description=("Privilege settings anywhere in a Helm release's values (hostNetwork, privileged, capabilities, "
                 "hostPath, hostPort, allowPrivilegeEscalation, runAsUser 0) fit "
                 "the Pod Security level of the release's namespace."),
    validate=validate_helm_values,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Remove the setting from the release's values, or install the release into a namespace "
                       "labelled for it (privileged only for RDMA tenants and node agents). Source: " + _PSS + "."),
    tags=["kubernetes", "helm", "pod-security"],
    config_schema=PolicyConfigSchema({"privilegedNamespaces": {
        "type": "array", "uniqueItems": True, "default": [], "items": _NS_NAME,
        "description": "Namespaces managed outside this stack that are labelled enforce: privileged."}}),
)

node_escape_only_in_node_agent_namespaces = StackValidationPolicy(
    name="node-escape-only-in-node-agent-namespaces",
    description=("Host PID/IPC, SYS_ADMIN-class capabilities and node-escape hostPath mounts (/, /etc, /proc, /sys, "
                 "kubelet and runtime directories), in workloads or Helm values, appear only in node-agent "
                 "namespaces."),
    validate=validate_node_escape,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Remove hostPID/hostIPC, the capability or the host mount; node agents (GPU Operator, node "
                       "exporter) run in the namespaces listed in nodeAgentNamespaces. Source: " + _PSS + "."),
    tags=["kubernetes", "pod-security", "node-escape"],
    config_schema=PolicyConfigSchema({"nodeAgentNamespaces": {
        "type": "array", "uniqueItems": True, "default": DEFAULT_NODE_AGENT_NAMESPACES, "items": _NS_NAME,
        "description": "Namespaces of node agents that may use host PID/IPC, SYS_ADMIN or node-escape host paths"}}),
)

workload_namespace_declared = StackValidationPolicy(
    name="workload-namespace-declared",
    description=("Every workload and Helm release goes to a Namespace this stack declares (with its Pod Security "
                 "level) or to a listed external namespace."),
    validate=validate_namespace_declared,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Create the namespace in this stack with a pod-security.kubernetes.io/enforce label, or list "
                       "it in externalNamespaces when another stack manages it. Source: " + _PSS + "."),
    tags=["kubernetes", "pod-security"],
    config_schema=PolicyConfigSchema({"externalNamespaces": {
        "type": "array", "uniqueItems": True, "default": [], "items": _NS_NAME,
        "description": "Namespaces managed (and labelled) by another stack"}}),
)

POLICIES = [helm_values_pod_security, node_escape_only_in_node_agent_namespaces, workload_namespace_declared]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "helm-values-pod-security": ("fails closed: an unknown values object or an unknown value at a privilege key is "
                                 "a finding; an unknown namespace level allows nothing"),
    "node-escape-only-in-node-agent-namespaces": ("fails closed: unknown pod specs, host paths, capabilities or "
                                                  "values are node-escape findings"),
    "workload-namespace-declared": ("fails closed: an unknown namespace that depends on no Namespace of the stack "
                                    "is a violation"),
}
