"""Where pod specs sit: in each built-in workload kind (and its server-side-apply ``*Patch``), in the custom resources
of the job operators oke-rdma installs, and in any other custom resource that embeds one; with the cluster-scoped
templates and the RDMA envelope the pod rules judge them against.

Sources (checked 2026-12-01): Kubernetes API reference (``PodTemplateSpec`` in workload kinds); pulumi_kubernetes
4.34.2 type tokens and ``*Patch`` resources; kubeflow/trainer ``pkg/apis/trainer/v1alpha1`` at v2.0.0, v2.1.0,
v2.3.0; kubeflow/training-operator ``*ReplicaSpecs``; kubernetes-sigs/jobset ``replicatedJobs``; ray-project/kuberay
``ray-operator/apis/ray/v1`` at v1.7.0.
"""
from __future__ import annotations

from typing import Any

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._objects import plain as _plain
    from ._operator_pods import CLUSTER_SCOPED as _OPERATOR_CLUSTER_SCOPED
    from ._operator_pods import Uninterpretable, operator_pod_specs
    from ._rules import UNKNOWN, elements, read
    from ._values_pods import VALUES_PODS
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import plain as _plain
    from _operator_pods import CLUSTER_SCOPED as _OPERATOR_CLUSTER_SCOPED
    from _operator_pods import Uninterpretable, operator_pod_specs
    from _rules import UNKNOWN, elements, read
    from _values_pods import VALUES_PODS

#: Workload type → path of its pod spec inside the object.
POD_SPEC_PATHS = {
    "kubernetes:core/v1:Pod": ("spec",),
    "kubernetes:core/v1:PodTemplate": ("template", "spec"),
    "kubernetes:core/v1:ReplicationController": ("spec", "template", "spec"),
    "kubernetes:apps/v1:Deployment": ("spec", "template", "spec"),
    "kubernetes:apps/v1:StatefulSet": ("spec", "template", "spec"),
    "kubernetes:apps/v1:DaemonSet": ("spec", "template", "spec"),
    "kubernetes:apps/v1:ReplicaSet": ("spec", "template", "spec"),
    "kubernetes:batch/v1:Job": ("spec", "template", "spec"),
    "kubernetes:batch/v1:CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}
# Server-side-apply patches of the same kinds (pulumi_kubernetes ``*Patch`` resources) change live pods too.
POD_SPEC_PATHS.update({f"{t}Patch": p for t, p in list(POD_SPEC_PATHS.items())})
#: Custom resources (``apiextensions.CustomResource`` registers as ``kubernetes:<group>/<version>:<kind>``) whose
#: pod templates this rule reads: Kubeflow training jobs (``spec.<x>ReplicaSpecs.<role>.template.spec``), JobSet
#: (``spec.replicatedJobs[].template.spec.template.spec``) and KubeRay (head and worker group templates).
KUBEFLOW_GROUP, JOBSET_GROUP, RAY_GROUP = "kubeflow.org", "jobset.x-k8s.io", "ray.io"
#: Kubeflow Trainer v2: (Cluster)TrainingRuntime holds a JobSet template
#: (``spec.template.spec.replicatedJobs[].template.spec.template.spec``; kubeflow/trainer 2.3.0 CRDs).
TRAINER_GROUP = "trainer.kubeflow.org"


#: Kubernetes' own API groups named with a dot (Kubernetes API reference v1.34, and the SIG projects' API groups:
#: Gateway API, CSI snapshots, metrics APIs; checked 2026-12-01): they hold no pod templates — the workload kinds are
#: in core/apps/batch, read above — and a CustomResourceDefinition's schema describes pod fields without setting
#: them. Every other group is an operator's, including ones under k8s.io (``sparkoperator.k8s.io``).
KUBERNETES_GROUPS = frozenset({
    "admissionregistration.k8s.io", "apiextensions.k8s.io", "apiregistration.k8s.io", "authentication.k8s.io",
    "authorization.k8s.io", "certificates.k8s.io", "coordination.k8s.io", "discovery.k8s.io", "events.k8s.io",
    "flowcontrol.apiserver.k8s.io", "internal.apiserver.k8s.io", "networking.k8s.io", "node.k8s.io",
    "rbac.authorization.k8s.io", "resource.k8s.io", "scheduling.k8s.io", "storage.k8s.io",
    "storagemigration.k8s.io", "gateway.networking.k8s.io", "snapshot.storage.k8s.io", "metrics.k8s.io",
    "custom.metrics.k8s.io", "external.metrics.k8s.io"})


#: Custom resource groups of add-ons the platform installs, with their kinds that hold no pod template: pods never
#: come from these objects, so the generic scan (:func:`embedded_pod_specs`, a walk of the whole ``spec``) is
#: skipped for them. A kind of these groups not listed here — Kueue's ``Workload`` (its ``podSets[].template``), the
#: Prometheus operator's ``Prometheus``/``Alertmanager``/``ThanosRuler``/``PrometheusAgent`` (they run pods), a kind
#: added by a later release — is still scanned (fail closed). Sources (checked 2026-12-01): kubernetes-sigs/kueue
#: ``config/components/crd/bases`` (one CRD per kind) and the Kueue docs "Concepts"; prometheus-operator API
#: reference (``monitoring.coreos.com`` v1 and v1alpha1). Without this, three pod rules walked every ClusterQueue's
#: ``resourceGroups`` (a flavor per node pool, in each tenant's queue): tenants × pools per stack rule.
NO_POD_KINDS_BY_GROUP = {
    "kueue.x-k8s.io": frozenset({"ClusterQueue", "LocalQueue", "ResourceFlavor", "Topology", "Cohort",
                                 "AdmissionCheck", "WorkloadPriorityClass", "ProvisioningRequestConfig",
                                 "MultiKueueCluster", "MultiKueueConfig"}),
    "monitoring.coreos.com": frozenset({"PrometheusRule", "ServiceMonitor", "PodMonitor", "Probe", "ScrapeConfig",
                                        "AlertmanagerConfig"}),
}


def holds_no_pods(group: str, kind: str) -> bool:
    """True for a kind (or its server-side-apply ``*Patch``) listed in :data:`NO_POD_KINDS_BY_GROUP`."""
    kinds = NO_POD_KINDS_BY_GROUP.get(group)
    if kinds is None:
        return False
    return kind in kinds or (kind.endswith("Patch") and kind[:-5] in kinds)


def canonical_type(resource_type: str) -> str:
    """The type token pulumi_kubernetes gives a built-in kind, also for the same object declared another way:
    ``apiextensions.CustomResource(api_version="v1", kind="Pod")`` registers ``kubernetes:v1:Pod``, the core group
    without its ``core/`` name; it is the same Pod to the API server."""
    parts = resource_type.split(":")
    if len(parts) == 3 and parts[0] == "kubernetes" and "/" not in parts[1] and parts[1].startswith("v"):
        return f"kubernetes:core/{parts[1]}:{parts[2]}"
    return resource_type

def _templates(items: Any, *path: str) -> list[tuple[str, Any]]:
    """(index label, pod spec at ``path``) of each element of a list; one UNKNOWN entry if the list is unknown."""
    items = elements(items)
    if items is UNKNOWN:
        return [("[*]", UNKNOWN)]
    return [(f"[{i}]", read(item, *path)) for i, item in enumerate(items)]


def pod_specs(resource_type: str, props: Any) -> list[tuple[str, Any]]:
    """The pod specs a workload creates, as (where, spec) pairs — ``where`` is "" for a built-in kind's one
    template, else the replica/group it belongs to; empty for a resource that is not a known workload. A part of
    the object that is unknown during preview yields an UNKNOWN spec (the caller fails closed)."""
    if resource_type == VALUES_PODS:  # a Helm release's values, read as (partial) pod specs (``_values_pods``)
        specs = read(props, "spec")
        return list(specs) if isinstance(specs, list) else [("values", UNKNOWN)]
    resource_type = canonical_type(resource_type)
    path = POD_SPEC_PATHS.get(resource_type)
    if path is not None:
        return [("", read(props, *path))]
    parts = resource_type.split(":")
    if len(parts) == 3 and parts[1].split("/")[0] == "apps" and parts[2] in CONTROLLER_REVISIONS:
        return controller_revision_specs(read(props, "data"))
    if len(parts) != 3 or parts[0] != "kubernetes":
        return []
    group, kind = parts[1].split("/")[0], parts[2]
    if holds_no_pods(group, kind):
        return []
    spec = read(props, "spec")
    if spec is UNKNOWN:
        return [("spec", UNKNOWN)]
    if group == KUBEFLOW_GROUP and kind.endswith("Job"):
        if not isinstance(spec, dict) and not hasattr(spec, "keys"):
            return []
        found = []
        for key in list(spec.keys()):
            if not key.endswith("ReplicaSpecs"):
                continue
            roles = read(spec, key)
            if roles is UNKNOWN or not (isinstance(roles, dict) or hasattr(roles, "keys")):
                found.append((key, UNKNOWN if roles is UNKNOWN else None))
                continue
            found += [(f"{key}.{role}", read(roles, role, "template", "spec")) for role in list(roles.keys())]
        return found
    if group == TRAINER_GROUP and kind in ("TrainingRuntime", "ClusterTrainingRuntime"):
        # A runtime's JobSet template: every TrainJob that names the runtime gets these pods.
        return [(f"template.replicatedJobs{i}", s) for i, s in
                _templates(read(spec, "template", "spec", "replicatedJobs"), "template", "spec", "template", "spec")]
    if group == TRAINER_GROUP and kind == "TrainJob":
        return trainjob_pod_specs(spec)
    if group == JOBSET_GROUP and kind == "JobSet":
        return [(f"replicatedJobs{i}", s) for i, s in
                _templates(read(spec, "replicatedJobs"), "template", "spec", "template", "spec")]
    if group == RAY_GROUP and kind in ("RayJob", "RayCluster", "RayService", "RayCronJob"):
        return ray_pod_specs(kind, spec)
    if group in ("helm.sh", "yaml", "kustomize") or "." not in group or group in KUBERNETES_GROUPS:
        return []
    found = operator_pod_specs(group, kind, props, pod_specs)
    return embedded_pod_specs(spec, "spec") if found is None else found


#: A DaemonSet's or StatefulSet's revision (and its server-side-apply patch): ``data`` holds the template patch the
#: controller and ``kubectl rollout undo`` apply (``{"spec": {"template": {..., "$patch": "replace"}}}``; kubernetes
#: ``pkg/controller/daemon/update.go`` ``getPatch``, ``pkg/controller/statefulset/stateful_set_utils.go``
#: ``getPatch``; checked 2026-12-02).
CONTROLLER_REVISIONS = ("ControllerRevision", "ControllerRevisionPatch")


def controller_revision_specs(data: Any) -> list[tuple[str, Any]]:
    """The pod spec a ControllerRevision's ``data`` restores; data of another shape cannot be interpreted (the
    controller of a kind the pack does not know may apply it)."""
    if data is None:
        return []
    if data is UNKNOWN:
        return [("data", UNKNOWN)]
    template = read(data, "spec", "template")
    if template is UNKNOWN:
        return [("data.spec.template", UNKNOWN)]
    spec = read(template, "spec") if hasattr(template, "keys") else None
    if spec is None:
        return [("data", Uninterpretable("data is not a DaemonSet's or StatefulSet's template (spec.template.spec), "
                                         "so what a rollback applies cannot be judged"))]
    return [("data.spec.template", spec)]


def trainjob_pod_specs(spec: Any) -> list[tuple[str, Any]]:
    """The (partial) pod specs a Kubeflow Trainer ``TrainJob`` merges into its runtime's pods: v2.2+
    ``runtimePatches[].trainingRuntimeSpec.template.spec.replicatedJobs[].template.spec.template.spec``
    (``PodSpecPatch``: volumes, containers' securityContext, the pod securityContext), v2.1
    ``podTemplateOverrides[].spec`` and v2.0 ``podSpecOverrides[]`` (kubeflow/trainer
    ``pkg/apis/trainer/v1alpha1/trainjob_types.go`` at v2.0.0, v2.1.0, v2.3.0; checked 2026-12-01)."""
    found: list[tuple[str, Any]] = []
    for i, patch in _templates(read(spec, "runtimePatches"), "trainingRuntimeSpec", "template", "spec"):
        if patch is None:
            continue
        found += [(f"runtimePatches{i}.replicatedJobs{j}", s) for j, s in
                  _templates(read(patch, "replicatedJobs"), "template", "spec", "template", "spec")]
    found += [(f"podTemplateOverrides{i}", s) for i, s in _templates(read(spec, "podTemplateOverrides"), "spec")]
    found += [(f"podSpecOverrides{i}", s) for i, s in _templates(read(spec, "podSpecOverrides"))]
    return [(w, s) for w, s in found if s is not None]


def ray_pod_specs(kind: str, spec: Any) -> list[tuple[str, Any]]:
    """KubeRay pod templates (ray-project/kuberay ``ray-operator/apis/ray/v1`` at v1.7.0; checked 2026-12-01): a
    RayCluster's head and worker groups, the cluster of a RayService (``rayClusterConfig``) or RayJob
    (``rayClusterSpec``, plus its ``submitterPodTemplate``), and a RayCronJob's ``jobTemplate`` (a RayJob spec)."""
    if kind == "RayCronJob":
        job = read(spec, "jobTemplate")
        if job is UNKNOWN:
            return [("jobTemplate", UNKNOWN)]
        return [(f"jobTemplate.{w}", s) for w, s in ray_pod_specs("RayJob", job)] if job is not None else []
    found: list[tuple[str, Any]] = []
    if kind == "RayJob":
        submitter = read(spec, "submitterPodTemplate", "spec")
        if submitter is not None:
            found.append(("submitterPodTemplate", submitter))
    cluster = {"RayJob": ("rayClusterSpec",), "RayService": ("rayClusterConfig",)}.get(kind, ())
    cluster_spec = read(spec, *cluster) if cluster else spec
    if cluster_spec is UNKNOWN:
        return found + [("rayCluster", UNKNOWN)]
    if cluster_spec is None:
        return found
    found.append(("headGroupSpec", read(cluster_spec, "headGroupSpec", "template", "spec")))
    return found + [(f"workerGroupSpecs{i}", s) for i, s in
                    _templates(read(cluster_spec, "workerGroupSpecs"), "template", "spec")]


def embedded_pod_specs(node: Any, where: str) -> list[tuple[str, Any]]:
    """Pod specs inside any other custom resource (an operator's CR that creates pods: Argo workflows, Spark
    applications, MPI jobs of other groups, ...): every map under ``spec`` with a ``containers`` list is read as
    a pod spec. An unknown ``containers`` list counts (fail closed)."""
    if node is UNKNOWN or node is None or isinstance(node, (str, int, float, bool)):
        return []
    if hasattr(node, "keys"):
        keys = list(node.keys())
        if "containers" in keys:
            return [(where, node)]
        found: list[tuple[str, Any]] = []
        for k in keys:
            found += embedded_pod_specs(read(node, k), f"{where}.{k}")
        return found
    items = elements(node)
    if items is UNKNOWN:
        return []
    found = []
    for i, item in enumerate(items):
        found += embedded_pod_specs(item, f"{where}[{i}]")
    return found


#: Pod-template kinds that are cluster-scoped: their pods run in the namespace of whatever references them (a
#: ``ClusterTrainingRuntime`` serves TrainJobs of every namespace), so no namespace's level can allow anything.
CLUSTER_SCOPED_TEMPLATES = frozenset({f"kubernetes:{TRAINER_GROUP}/v1alpha1:ClusterTrainingRuntime"} | {
    f"kubernetes:{group}/v1:{kind}" for group, kind in _OPERATOR_CLUSTER_SCOPED})


def is_cluster_scoped(resource_type: str) -> bool:
    """True for :data:`CLUSTER_SCOPED_TEMPLATES` at any API version."""
    parts = resource_type.split(":")
    kind = parts[2][:-5] if len(parts) == 3 and parts[2].endswith("Patch") else parts[-1]
    return len(parts) == 3 and any(t.split(":")[2] in (parts[2], kind) and t.split(":")[1].split("/")[0] ==
                                   parts[1].split("/")[0] for t in CLUSTER_SCOPED_TEMPLATES)


#: The host path RDMA pods mount (the InfiniBand/RoCE verbs devices).
RDMA_DEVICE_PATH = "/dev/infiniband"


def without_rdma_envelope(spec: Any) -> Any:
    """A copy of a pod spec without what the platform's RDMA tenants may ask for — ``hostNetwork``, privileged
    containers, IPC_LOCK, a hostPath under ``/dev/infiniband`` — so that :func:`pod_privileges` of the copy lists
    only what goes beyond that envelope."""
    if spec is UNKNOWN or isinstance(spec, Uninterpretable):
        return spec
    from_plain = _plain(spec)
    if not isinstance(from_plain, dict):
        return from_plain
    out = dict(from_plain)
    out.pop("hostNetwork", None)
    if isinstance(out.get("volumes"), list):
        out["volumes"] = [v for v in out["volumes"] if not (
            isinstance(v, dict) and isinstance(v.get("hostPath"), dict)
            and isinstance(v["hostPath"].get("path"), str)
            and (v["hostPath"]["path"].rstrip("/") == RDMA_DEVICE_PATH
                 or v["hostPath"]["path"].startswith(RDMA_DEVICE_PATH + "/")))]
    for kind in ("initContainers", "containers", "ephemeralContainers"):
        if not isinstance(out.get(kind), list):
            continue
        containers = []
        for c in out[kind]:
            if isinstance(c, dict) and isinstance(c.get("securityContext"), dict):
                ctx = dict(c["securityContext"])
                if ctx.get("privileged") is True:
                    ctx.pop("privileged")
                caps = ctx.get("capabilities")
                if isinstance(caps, dict) and isinstance(caps.get("add"), list):
                    ctx["capabilities"] = {**caps, "add": [a for a in caps["add"] if not (
                        isinstance(a, str) and a.upper().removeprefix("CAP_") == "IPC_LOCK")]}
                c = {**c, "securityContext": ctx}
            containers.append(c)
        out[kind] = containers
    return out


