"""Pod privilege reached through any path: Helm values, workload pod specs, and the namespaces they land in.

The Pod Security Standards (Kubernetes docs "Pod Security Standards", checked 2026-11-30) define what each level
forbids. *Baseline* forbids host namespaces (``hostNetwork``, ``hostPID``, ``hostIPC``), ``privileged``
containers, capabilities beyond ``_pss.BASELINE_CAPABILITIES``, ``hostPath`` volumes and ``hostPort``s; *restricted*
further forbids ``allowPrivilegeEscalation: true`` and running as UID 0. A subset of these is *node escape*: a
container with the host's PID or IPC namespace, ``SYS_ADMIN``-class capabilities (``_pss.NODE_ESCAPE_CAPABILITIES``,
see ``capabilities(7)``), or the host's root, ``/etc``, ``/proc``, ``/sys``, kubelet or container-runtime
directories mounted — every host path outside ``_pss.HARMLESS_HOST_PATHS``, deny by default — controls the node. RDMA training pods need ``privileged``,
``hostNetwork``, ``IPC_LOCK`` and ``/dev/infiniband``, none of which is listed there; node agents (the GPU Operator,
the Prometheus node exporter) need node escape and run in their own namespaces: only those the config names
(``nodeAgentNamespaces``), never a tenant's (``_pss.tenant_namespaces``: a GPU ResourceQuota, a Kueue LocalQueue or
the ``okerdma.io/tenant`` label). A release of a node-agent chart (``_pss.NODE_AGENT_CHARTS``, by chart name from
any repository) is node escape itself — its chart's defaults take the node — so it goes only to such a namespace;
where it lands never becomes one (nor does its release name or ``createNamespace``).

| rule                                   | kind  | checks                                                               |
|----------------------------------------|-------|----------------------------------------------------------------------|
| helm-values-pod-security               | stack | the well-known privilege settings anywhere in a Helm release's values|
|                                        |       | fit the Pod Security level of the release's namespace (objects the   |
|                                        |       | chart renders verbatim are judged as objects: ``object_paths``;      |
|                                        |       | exposure through values: ``helm-values-exposure``)                   |
| node-escape-only-in-node-agent-namespaces | stack | host PID/IPC, SYS_ADMIN-class capabilities and node-escape host   |
|                                        |       | paths, in workloads or Helm values, only in ``nodeAgentNamespaces``  |
|                                        |       | (never a tenant's); a node-agent chart's release only there too      |
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
    from ._pss import (_capability_findings, _flag, _host_path_finding, is_node_agent_chart,  # noqa: F401
                       node_agent_namespaces, node_escape_path)  # node_escape_path: re-exported
    from ._helm_values import hidden_inputs, values_findings, values_namespaces  # noqa: F401 (re-exported)
    from ._objects import inputs_hidden, with_derived
    from ._operator_pods import Uninterpretable
    from ._values_pods import VALUES_PODS, values_pod_specs
    from .kubernetes import (ENFORCE_LABEL, HELM_CHART_V4, HELM_RELEASE, NAMESPACE, chart_name, is_cluster_scoped,
                             pod_specs)
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, elements, read
    from _pss import NODE_ESCAPE_NAMESPACES
    from _pss import (_capability_findings, _flag, _host_path_finding, is_node_agent_chart,  # noqa: F401
                      node_agent_namespaces, node_escape_path)  # node_escape_path: re-exported
    from _helm_values import hidden_inputs, values_findings, values_namespaces  # noqa: F401 (re-exported)
    from _objects import inputs_hidden, with_derived
    from _operator_pods import Uninterpretable
    from _values_pods import VALUES_PODS, values_pod_specs
    from kubernetes import (ENFORCE_LABEL, HELM_CHART_V4, HELM_RELEASE, NAMESPACE, chart_name, is_cluster_scoped,
                            pod_specs)

DEFAULT_NODE_AGENT_NAMESPACES = list(NODE_ESCAPE_NAMESPACES)


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


def _level_of(name: str, namespaces: list[Any]) -> Any:
    """The ``enforce`` label of the stack's Namespace ``name`` (UNKNOWN when its Namespaces disagree),
    :data:`NOT_DECLARED` when the stack has none."""
    levels = {read(n.props, "metadata", "labels", ENFORCE_LABEL) for n in namespaces
              if read(n.props, "metadata", "name") == name}
    if not levels:
        return NOT_DECLARED
    return levels.pop() if len(levels) == 1 else UNKNOWN


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
        unplaced = [s.reason for _, s in values_pod_specs(read(release.props, "values", default={}))
                    if isinstance(s, Uninterpretable)]
        if unplaced:
            report_violation(f"Helm release '{release.name}': {'; '.join(unplaced)}. Give the value the shape "
                             "Kubernetes gives the pod field (a list of volumes or tolerations, a map, a string).",
                             release.urn)
        findings = [f for f in values_findings(read(release.props, "values", default={})) if f[0] != "escape"]
        if not findings:
            continue
        targets = [namespace_level(release, namespaces)]
        # namespaceOverride renders the chart's pods in another namespace: judged at that namespace's level too
        for moved in values_namespaces(read(release.props, "values", default={})) - {targets[0][1]}:
            targets.append((UNKNOWN, "<unknown>") if moved is UNKNOWN else (_level_of(moved, namespaces), moved))
        for level, ns in targets:
            if level == NOT_DECLARED and ns in external:
                level = "privileged"
            allowed = _ALLOWED_BY_LEVEL.get(level, set()) if isinstance(level, str) else set()  # unknown: nothing
            bad = [text for kind, text in findings if kind not in allowed]
            if bad:
                shown = {NOT_DECLARED: "not declared by this stack", None: "unlabelled"}.get(
                    level, "unknown" if level is UNKNOWN else repr(level))
                report_violation(f"Helm release '{release.name}' in namespace '{ns}' (Pod Security level {shown}) "
                                 f"sets {'; '.join(bad)}. Drop these values, or install the release into a namespace "
                                 "whose level allows them (privileged only for RDMA tenants and node agents).",
                                 release.urn)


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
    resources = with_derived(args.resources)
    agents = node_agent_namespaces(args.get_config(), resources)
    namespaces = [r for r in resources if r.resource_type == NAMESPACE]
    for r in resources:
        if r.resource_type == VALUES_PODS:
            continue  # a release's values: judged with the release below (values_findings, namespaceOverride)
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
            chart = chart_name(r.props)
            if is_node_agent_chart(chart) or read(r.props, "chart") is UNKNOWN:
                # What the chart renders by default takes the node (node exporter: hostPID, hostPath /; the GPU
                # Operator's privileged host-path DaemonSets) whatever the values say.
                escapes.insert(0, f"its chart {chart if is_node_agent_chart(chart) else '(unknown during preview)'} "
                                  "is a node agent's (its pods take the node by default)")
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
        if r.resource_type in (HELM_RELEASE, HELM_CHART_V4):
            moved = values_namespaces(read(r.props, "values", default={})) - {ns}
            outside = sorted("<unknown>" if m is UNKNOWN else m for m in moved if m is UNKNOWN or m not in agents)
            if outside:  # namespaceOverride renders the chart's pods there, not in the release's namespace
                allowed_in = ", ".join(sorted(agents)) or "no namespace"
                report_violation(f"{kind} '{r.name}' renders its pods into namespace(s) {', '.join(outside)} "
                                 f"(namespaceOverride in its values), where they can take over their node "
                                 f"({'; '.join(escapes)}); only node agents in {allowed_in} may. Drop "
                                 "namespaceOverride or point it at a node-agent namespace.", r.urn)
                continue
        if ns in agents:
            continue
        report_violation(f"{kind} '{r.name}' in namespace '{ns}' can take over its node ({'; '.join(escapes)}). "
                         f"Only node agents in {', '.join(sorted(agents)) or 'no namespace'} may (nodeAgentNamespaces; "
                         "never a tenant's); drop these settings (RDMA pods need hostNetwork, IPC_LOCK and "
                         "/dev/infiniband, none of them), or install the node agent into a node-agent namespace.",
                         r.urn)


def validate_namespace_declared(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``workload-namespace-declared``: see the module docstring."""
    external = set((args.get_config() or {}).get("externalNamespaces") or [])
    resources = with_derived(args.resources)
    namespaces = [r for r in resources if r.resource_type == NAMESPACE]
    for r in resources:
        if r.resource_type == VALUES_PODS or is_cluster_scoped(r.resource_type) or inputs_hidden(
                r.resource_type, r.props) or (
                r.resource_type not in (HELM_RELEASE, HELM_CHART_V4) and not pod_specs(r.resource_type, r.props)):
            continue  # a v4 Chart as pulumi preview shows it names no namespace: helm-release-pinned refuses it
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
                 "kubelet and runtime directories), in workloads or Helm values, and releases of node-agent charts "
                 "(GPU Operator, kube-prometheus-stack, node exporter, ...) appear only in the configured node-agent "
                 "namespaces, never in a tenant's."),
    validate=validate_node_escape,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Remove hostPID/hostIPC, the capability or the host mount; node agents (GPU Operator, node "
                       "exporter) run in the namespaces listed in nodeAgentNamespaces. Source: " + _PSS + "."),
    tags=["kubernetes", "pod-security", "node-escape"],
    config_schema=PolicyConfigSchema({"nodeAgentNamespaces": {
        "type": "array", "uniqueItems": True, "default": DEFAULT_NODE_AGENT_NAMESPACES, "items": _NS_NAME,
        "description": ("Namespaces of node agents that may use host PID/IPC, SYS_ADMIN or node-escape host paths "
                        "(the only ones: a release of a node-agent chart elsewhere is refused, and a tenant "
                        "namespace never is one)")}}),
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
