"""Kubernetes rules for any stack that deploys onto the platform: pinned Helm charts, Pod Security labels on
namespaces, and RDMA-style pods only in namespaces labelled ``privileged``.

Sources: Helm docs "Charts" (SemVer 2 chart versions; without a version Helm installs the latest) and "OCI-based
registries"; Kubernetes docs "Pod Security Admission" (``pod-security.kubernetes.io/enforce`` ∈ privileged,
baseline, restricted) and "Pod Security Standards" (hostNetwork, privileged containers and added capabilities
beyond the baseline set — IPC_LOCK among them — are allowed only at ``privileged``). Property names follow
pulumi_kubernetes 4.34.2 (``helm.sh/v3:Release`` ``chart``/``version``/``repositoryOpts.repo``; core and apps
objects in their Kubernetes JSON form).

| rule                                  | kind     | unknown during preview                  | behaviour        |
|---------------------------------------|----------|-----------------------------------------|------------------|
| helm-release-pinned                   | resource | chart, version, repositoryOpts.repo     | fail closed      |
| namespace-pod-security-enforce        | resource | metadata / its labels / the enforce one | fail closed      |
| rdma-pods-in-privileged-namespaces    | stack    | the pod template's fields               | fail closed      |
|                                       |          | the workload's namespace name           | followed (1)     |
|                                       |          | the namespace's enforce label           | fail closed      |

(1) a known ``metadata.namespace`` is matched by name against the stack's Namespaces (whatever else ``metadata``
depends on); an unknown one is followed through ``metadata``'s property dependency only when every resource it
depends on is a Namespace (then they all must be privileged); else fail closed.

Workloads: the built-in pod-template kinds and their ``*Patch`` variants, and custom resources of known job kinds —
Kubeflow ``kubeflow.org`` jobs (``spec.*ReplicaSpecs.<role>.template.spec``), JobSet (``spec.replicatedJobs[]
.template.spec.template.spec``) and KubeRay RayJob/RayCluster/RayService (head and worker group templates); operators'
own pod shapes (Argo, Spark, Tekton, KServe, Flink, ...) gathered as partial pod specs by ``_operator_pods``.
``capabilities.add: [ALL]`` includes IPC_LOCK.
"""
from __future__ import annotations

import re
from typing import Any, Optional

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._objects import NAMESPACE_PATCH, inputs_hidden, sets_enforce_label, with_derived
    from ._pod_templates import (CLUSTER_SCOPED_TEMPLATES, JOBSET_GROUP, KUBEFLOW_GROUP,  # noqa: F401 (re-exported)
                                 POD_SPEC_PATHS, RAY_GROUP, RDMA_DEVICE_PATH, TRAINER_GROUP, canonical_type,
                                 is_cluster_scoped, pod_specs, without_rdma_envelope)
    from ._operator_pods import Uninterpretable
    from ._pss import BASELINE_CAPABILITIES, context_privileges
    from ._rules import UNKNOWN, elements, read
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import NAMESPACE_PATCH, inputs_hidden, sets_enforce_label, with_derived
    from _pod_templates import (CLUSTER_SCOPED_TEMPLATES, JOBSET_GROUP, KUBEFLOW_GROUP,  # noqa: F401 (re-exported)
                                POD_SPEC_PATHS, RAY_GROUP, RDMA_DEVICE_PATH, TRAINER_GROUP, canonical_type,
                                is_cluster_scoped, pod_specs, without_rdma_envelope)
    from _operator_pods import Uninterpretable
    from _pss import BASELINE_CAPABILITIES, context_privileges
    from _rules import UNKNOWN, elements, read
    from _gate import examines

HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
HELM_CHART_V4 = "kubernetes:helm.sh/v4:Chart"
NAMESPACE = "kubernetes:core/v1:Namespace"
ENFORCE_LABEL = "pod-security.kubernetes.io/enforce"
PSA_LEVELS = ("privileged", "baseline", "restricted")
#: Capabilities that include IPC_LOCK.
IPC_LOCK_CAPABILITIES = ("IPC_LOCK", "ALL")
#: The repositories of the charts oke-rdma installs (the default allow-list; a test ties it to the add-on registry).
DEFAULT_ALLOWED_REPOSITORIES = [
    "https://prometheus-community.github.io/helm-charts",
    "https://helm.ngc.nvidia.com/nvidia",
    "oci://registry.k8s.io/kueue/charts",
    "https://kedacore.github.io/charts",
    "oci://registry.k8s.io/jobset/charts",
    "oci://ghcr.io/kubeflow/charts",
    "https://ray-project.github.io/kuberay-helm",
    "oci://ghcr.io/pulumi/helm-charts",
    "https://fluxcd-community.github.io/helm-charts",
    "https://helm.cilium.io",
]
#: A chart name (Helm docs "Chart Best Practices": lower case letters and numbers, words separated by dashes);
#: anything else beside ``repositoryOpts.repo`` is a local path or an alias, which Helm resolves without the repo.
_CHART_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")
_EXACT_VERSION = re.compile(r"^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")


# --- helm-release-pinned ----------------------------------------------------------------------------------------
def chart_name(props: Any) -> Any:
    """The chart's name: the last path element of an ``oci://`` or URL chart (without a ``.tgz`` version suffix), or
    the bare ``chart``; None when unknown or not a string."""
    chart = read(props, "chart")
    if not isinstance(chart, str):
        return None
    name = chart.rstrip("/").rsplit("/", 1)[-1]
    return re.sub(r"-v?[0-9][0-9A-Za-z.+-]*\.tgz$", "", name)


def chart_repository(props: Any) -> Any:
    """Where a release's chart comes from: the OCI registry path of an ``oci://`` chart, the directory of a chart
    URL, or ``repositoryOpts.repo`` for a bare chart name; None for a local chart path or archive or a repository
    alias, even beside an allowed ``repositoryOpts.repo``; UNKNOWN if unknown."""
    chart = read(props, "chart")
    if chart is UNKNOWN:
        return UNKNOWN
    if isinstance(chart, str) and "://" in chart:
        return chart.rsplit("/", 1)[0]
    if not (isinstance(chart, str) and _CHART_NAME.match(chart)):
        return None  # a local path (./c, /abs, c.tgz) or a repo/alias: the repository does not decide what installs
    repo = read(props, "repositoryOpts", "repo")
    return repo.rstrip("/") if isinstance(repo, str) else repo


def release_problems(props: Any, allowed: list[str]) -> list[str]:
    """Why a Helm release / v4 Chart is not pinned to an exact version from an allow-listed repository."""
    problems = []
    version = read(props, "version")
    if version is UNKNOWN:
        problems.append("its version is unknown during preview, so it cannot be verified as pinned; set a literal "
                        "exact version")
    elif not isinstance(version, str) or not _EXACT_VERSION.match(version):
        problems.append(f"its version {version!r} is not an exact chart version (Helm installs the newest match "
                        f"of a range, or the latest without one); pin it, e.g. 1.2.3")
    repo = chart_repository(props)
    allowed_set = {a.rstrip("/") for a in allowed}
    if repo is UNKNOWN:
        problems.append("its chart repository is unknown during preview; set chart and repositoryOpts.repo to "
                        "literal values")
    elif repo is None:
        problems.append("its chart does not come from a repository (a local path or a repository alias cannot be "
                        "verified); set repositoryOpts.repo, or use an oci:// chart reference")
    elif repo not in allowed_set:
        problems.append(f"its chart repository {repo} is not in the allowed repositories "
                        f"({', '.join(sorted(allowed_set))}); use an allowed one or add it to the policy's "
                        f"allowedRepositories")
    return problems


def validate_helm_release_pinned(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``helm-release-pinned`` on ``helm.sh/v3:Release`` and ``helm.sh/v4:Chart`` inputs: an exact
    chart version from a repository in ``allowedRepositories``. Unknowns fail closed."""
    if args.resource_type not in (HELM_RELEASE, HELM_CHART_V4):
        return
    if inputs_hidden(args.resource_type, args.props):
        report_violation(f"Chart '{args.name}' (helm.sh/v4) reaches the policy packs without its inputs: "
                         "pulumi-kubernetes registers this component with none (its chart, version, repository and "
                         "values stay inside the provider), so no rule can verify that its chart is pinned or where "
                         "it comes from. Install it as a helm.sh/v3 Release, whose inputs the packs read (its "
                         "rendered objects are judged either way).", None)
        return
    allowed = list(args.get_config().get("allowedRepositories") or DEFAULT_ALLOWED_REPOSITORIES)
    for problem in release_problems(args.props, allowed):
        report_violation(f"Helm release '{args.name}': {problem}.", None)


# --- namespace-pod-security-enforce -----------------------------------------------------------------------------
def namespace_problem(props: Any) -> Optional[str]:
    """Why a Namespace does not carry a valid Pod Security ``enforce`` label (None when it does)."""
    level = read(props, "metadata", "labels", ENFORCE_LABEL)
    if level is UNKNOWN:
        return (f"its {ENFORCE_LABEL} label is unknown during preview; set it to a literal level "
                f"({', '.join(PSA_LEVELS)})")
    if level is None:
        return (f"it has no {ENFORCE_LABEL} label, so Pod Security Admission applies the cluster default; label it "
                f"restricted (or privileged only where RDMA pods run)")
    if level not in PSA_LEVELS:
        return f"its {ENFORCE_LABEL} label is {level!r}; use one of {', '.join(PSA_LEVELS)}"
    return None


def validate_namespace_pod_security(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``namespace-pod-security-enforce``: every Namespace carries ``pod-security.kubernetes.io/
    enforce`` with a valid level; a ``NamespacePatch`` (server-side apply to a namespace the stack does not own) that
    sets the label — or blanks it, which removes the level — is held to the same. Unknowns fail closed."""
    if args.resource_type == NAMESPACE_PATCH:
        if not sets_enforce_label(args.props):
            return  # the patch leaves the namespace's level as it is
    elif args.resource_type != NAMESPACE:
        return
    problem = namespace_problem(args.props)
    if problem:
        report_violation(f"{args.resource_type.split(':')[-1]} '{args.name}': {problem}.", None)


# --- rdma-pods-in-privileged-namespaces -------------------------------------------------------------------------
def pod_privileges(pod_spec: Any) -> list[str]:
    """What a pod spec asks for that Pod Security baseline forbids, so only ``privileged`` namespaces allow:
    host namespaces (hostNetwork, hostPID, hostIPC), privileged containers, capabilities beyond
    :data:`BASELINE_CAPABILITIES` (IPC_LOCK among them), hostPath volumes, hostPorts and the security-context
    controls of :func:`context_privileges` — each as a short description; unknown fields are listed as "may ..."
    (fail closed)."""
    if pod_spec is UNKNOWN:
        return ["may use hostNetwork, privileged containers or IPC_LOCK (its pod spec is unknown during preview)"]
    if isinstance(pod_spec, Uninterpretable):
        return [f"its pod fields cannot be interpreted: {pod_spec.reason}"]
    found = []
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        value = read(pod_spec, key)
        if value is True:
            found.append(f"{key}: true")
        elif value is UNKNOWN:
            found.append(f"may use {key} (unknown during preview)")
    found += context_privileges(read(pod_spec, "securityContext"), "")
    volumes = elements(read(pod_spec, "volumes"))
    if volumes is UNKNOWN:
        found.append("may mount hostPath volumes (its volumes are unknown during preview)")
    else:
        found += [f"volumes[{i}] hostPath {read(v, 'hostPath', 'path')}" for i, v in enumerate(volumes)
                  if v is UNKNOWN or read(v, "hostPath") is not None]
    for kind in ("initContainers", "containers", "ephemeralContainers"):
        containers = elements(read(pod_spec, kind))
        if containers is UNKNOWN:
            found.append(f"may run privileged {kind} (the list is unknown during preview)")
            continue
        for i, c in enumerate(containers):
            name = read(c, "name")
            label = f"{kind}[{name if isinstance(name, str) else i}]"
            if c is UNKNOWN:
                found.append(f"{label} is unknown during preview")
                continue
            found += context_privileges(read(c, "securityContext"), f"{label} ")
            privileged = read(c, "securityContext", "privileged")
            if privileged is True:
                found.append(f"{label} privileged: true")
            elif privileged is UNKNOWN:
                found.append(f"{label} may be privileged (unknown during preview)")
            added = elements(read(c, "securityContext", "capabilities", "add"))
            if added is UNKNOWN or any(a is UNKNOWN for a in added):
                found.append(f"{label} may add IPC_LOCK (its capabilities are unknown during preview)")
            else:
                for cap in (a.upper().removeprefix("CAP_") if isinstance(a, str) else repr(a) for a in added):
                    if cap not in BASELINE_CAPABILITIES:
                        found.append(f"{label} adds {cap}" + (" (includes IPC_LOCK)" if cap == "ALL" else ""))
            ports = elements(read(c, "ports"))
            if ports is UNKNOWN:
                found.append(f"{label} may use hostPort (its ports are unknown during preview)")
            else:
                found += [f"{label} hostPort {read(p, 'hostPort')}" for p in ports
                          if p is UNKNOWN or read(p, "hostPort") not in (None, 0)]
    return found


def _namespace_level(workload: Any, namespaces: list[Any], external: list[str]) -> tuple[Any, str]:
    """(True / False / UNKNOWN "the workload's namespace is labelled privileged", its name for messages)."""
    name = read(workload.props, "metadata", "namespace", default="default")
    if name is UNKNOWN:
        # The name is an output not known yet. Follow ``metadata``'s property dependency only when every resource
        # it depends on is a Namespace: then the unknown name can only come from one of them (a label or
        # annotation that depends on a Namespace must not choose the namespace the workload runs in).
        deps = workload.property_dependencies.get("metadata", [])
        matches = deps if deps and all(d.resource_type == NAMESPACE for d in deps) else []
    else:  # a known name: the stack's Namespace of that name, whatever else metadata depends on
        matches = [n for n in namespaces if isinstance(name, str) and read(n.props, "metadata", "name") == name]
    shown = name if isinstance(name, str) else "<unknown>"
    if not matches:
        if name is UNKNOWN:
            return UNKNOWN, shown
        return (True if name in external else UNKNOWN), shown
    levels = [read(n.props, "metadata", "labels", ENFORCE_LABEL) for n in matches]
    if any(level is UNKNOWN for level in levels):
        return UNKNOWN, shown
    return all(level == "privileged" for level in levels), shown


def validate_rdma_pods_in_privileged_namespaces(args: StackValidationArgs,
                                                report_violation: ReportViolation) -> None:
    """Stack rule ``rdma-pods-in-privileged-namespaces``: a pod template (Pod, Deployment, StatefulSet, DaemonSet,
    ReplicaSet, Job, CronJob, ...) with hostNetwork, a privileged container or IPC_LOCK runs only in a namespace
    whose ``pod-security.kubernetes.io/enforce`` label is ``privileged``. The namespace is followed through the
    workload's ``metadata`` property dependency or found by name among the stack's Namespaces; a namespace managed
    elsewhere must be listed in ``privilegedNamespaces``. Anything it cannot verify fails closed."""
    external = list(args.get_config().get("privilegedNamespaces") or [])
    resources = with_derived(args.resources)
    namespaces = [r for r in resources if r.resource_type == NAMESPACE]
    for workload in resources:
        kind = workload.resource_type.split(':')[-1]
        if kind == "HelmValues":
            continue  # a release's values: their Pod Security settings are helm-values-pod-security's
        if is_cluster_scoped(workload.resource_type):
            beyond = [f"{where}: {ask}" if where else ask for where, spec in
                      pod_specs(workload.resource_type, workload.props)
                      for ask in pod_privileges(without_rdma_envelope(spec))]
            if beyond:
                report_violation(f"{kind} '{workload.name}' is cluster-scoped: its pods run in the namespace of every "
                                 f"job that names it, so it may ask for at most what RDMA tenants need (hostNetwork, "
                                 f"privileged, IPC_LOCK, hostPath {RDMA_DEVICE_PATH}); it also sets "
                                 f"{'; '.join(beyond)}. Drop these settings.", workload.urn)
            continue
        asks = [f"{where}: {ask}" if where else ask
                for where, spec in pod_specs(workload.resource_type, workload.props) for ask in pod_privileges(spec)]
        if not asks:
            continue
        privileged, ns = _namespace_level(workload, namespaces, external)
        if privileged is True:
            continue
        what = "; ".join(asks)
        if privileged is False:
            report_violation(f"{workload.resource_type.split(':')[-1]} '{workload.name}' ({what}) is in namespace "
                             f"'{ns}', whose Pod Security enforce level is not privileged; run it in a tenant "
                             f"namespace allowed RDMA pods (labelled privileged), or drop these settings.",
                             workload.urn)
        else:
            report_violation(f"{workload.resource_type.split(':')[-1]} '{workload.name}' ({what}) is in namespace "
                             f"'{ns}', whose Pod Security level cannot be verified (not a Namespace of this stack, "
                             f"or unknown during preview); manage the namespace in this stack, or list it in the "
                             f"policy's privilegedNamespaces if it is labelled privileged elsewhere.", workload.urn)


_PSA_DOC = "Kubernetes docs: Pod Security Standards; Pod Security Admission"

helm_release_pinned = ResourceValidationPolicy(
    name="helm-release-pinned",
    description="A Helm release pins an exact chart version from an allow-listed repository.",
    validate=validate_helm_release_pinned,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Set version to an exact chart version (1.2.3, no range, never empty) and take the chart from "
                       "an allowed repository (repositoryOpts.repo, or an oci:// chart reference); extend the "
                       "policy's allowedRepositories to allow another. Source: Helm docs: Charts; OCI-based "
                       "registries."),
    tags=["kubernetes", "helm", "supply-chain"],
    config_schema=PolicyConfigSchema({"allowedRepositories": {
        "type": "array", "uniqueItems": True, "default": DEFAULT_ALLOWED_REPOSITORIES,
        "items": {"type": "string", "pattern": r"^(https://|oci://)[^\s/]+(/\S*)?$"},
        "description": "Chart repositories (https:// repository URLs or oci:// registry paths) releases may use."}}),
)

namespace_pod_security_enforce = ResourceValidationPolicy(
    name="namespace-pod-security-enforce",
    description="Every namespace carries a Pod Security Admission enforce label.",
    validate=validate_namespace_pod_security,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Label the namespace pod-security.kubernetes.io/enforce: restricted (baseline or privileged "
                       f"only where the workloads need it; privileged for RDMA pods). Source: {_PSA_DOC}."),
    tags=["kubernetes", "pod-security"],
)

rdma_pods_in_privileged_namespaces = StackValidationPolicy(
    name="rdma-pods-in-privileged-namespaces",
    description=("Pods with what Pod Security baseline forbids (host namespaces, privileged containers, added "
                 "capabilities such as IPC_LOCK, hostPath volumes, hostPorts) run only in namespaces labelled "
                 "privileged."),
    validate=validate_rdma_pods_in_privileged_namespaces,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Deploy RDMA workloads into a tenant namespace allowed RDMA pods (pod-security.kubernetes.io/"
                       "enforce: privileged), managed in this stack or listed in the policy's privilegedNamespaces; "
                       f"everything else runs without hostNetwork, privileged or IPC_LOCK. Source: {_PSA_DOC}."),
    tags=["kubernetes", "pod-security", "rdma"],
    config_schema=PolicyConfigSchema({"privilegedNamespaces": {
        "type": "array", "uniqueItems": True, "default": [],
        # a namespace name is an RFC 1123 DNS label (Kubernetes docs: Namespaces)
        "items": {"type": "string", "maxLength": 63, "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
        "description": "Namespaces managed outside this stack that are labelled enforce: privileged."}}),
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(helm_release_pinned, HELM_RELEASE, HELM_CHART_V4)
examines(namespace_pod_security_enforce, NAMESPACE, NAMESPACE_PATCH)

POLICIES = [helm_release_pinned, namespace_pod_security_enforce, rdma_pods_in_privileged_namespaces]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "helm-release-pinned": "fails closed: an unknown chart, version or repository is a violation.",
    "namespace-pod-security-enforce": "fails closed: an unknown enforce label is a violation.",
    "rdma-pods-in-privileged-namespaces": ("fails closed: an unknown pod spec field, namespace or enforce label is a "
                                           "violation (an unknown namespace is followed through a property "
                                           "dependency only onto Namespaces)."),
}
