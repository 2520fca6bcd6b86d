"""Pods that operators build from fields that are not a ``PodTemplateSpec``: where each operator's custom resources
keep the pod settings (containers, volumes, the pod security context, ``hostNetwork``, pod spec patches, objects the
resource creates), gathered into partial pod specs that the pod rules judge like any other.

Class: a custom resource whose controller creates pods from pod fields in its own shape — one container
(``template.container``), containers under other names (``steps``, ``sidecars``, ``containerSet``), pod-level fields
beside them (``volumes``, ``securityContext``, ``hostNetwork``, Tekton's ``podTemplate``), a pod spec patch written as
a string (Argo ``podSpecPatch``), configuration keys that become pod fields (Spark ``sparkConf`` volumes), and
objects the resource makes its controller create (Argo ``resource`` templates, Argo Events triggers). Each extractor
returns ``(where, partial pod spec)`` pairs; the pod spec holds only pod fields with their Kubernetes names, so
``pod_privileges``/``pod_spec_escapes`` judge them unchanged. Several partial specs of one pod are judged one by one:
the checks are per field, so their union is what the merged pod holds (a field set in any part reaches the pod).

Fail closed: a pod field the pack cannot interpret becomes :class:`Uninterpretable` (the pod rules refuse it with
its reason): a pod spec patch that is not YAML, a manifest read from an artifact, ConfigMap, file, URL or git, a
Spark pod template file or custom feature step, a kind of one of :data:`WORKLOAD_GROUPS` the pack does not know.
Workflow parameters (Argo ``{{...}}``, Tekton ``$(...)``) are values chosen at run time: a string holding one is
unknown (so a parameter at a privilege key fails closed, one in an image name does not matter).

Sources (each read at the tag named, checked 2026-12-01; Argo's in ``_argo_pods``):
kubeflow/spark-operator v2.5.2 ``api/v1beta2/sparkapplication_types.go`` (SparkPodSpec: template, securityContext,
podSecurityContext, hostNetwork, sidecars, initContainers; spec.volumes, sparkConf, sparkConfigMap),
``api/v1alpha1/sparkconnect_types.go``, ``pkg/common/spark.go`` (``spark.kubernetes.{driver,executor}.volumes.``,
``.podTemplateFile``), Apache Spark PR 30206/35345 (``spark.kubernetes.{driver,executor}.pod.featureSteps``: classes
that rewrite the pod);
tektoncd/pipeline v1.15.0 ``pkg/apis/pipeline/v1`` and ``v1beta1`` (TaskSpec steps, sidecars, stepTemplate,
volumes; TaskRun/PipelineRun podTemplate, taskRunTemplate, taskRunSpecs[].podTemplate/taskPodTemplate; Pipeline
tasks[]/finally[].taskSpec and nested pipelineSpec; StepAction), ``pkg/apis/pipeline/pod/template.go``;
tektoncd/triggers v0.37.0 ``pkg/apis/triggers/v1beta1``
(TriggerTemplate ``resourcetemplates``, Trigger ``template.spec``, EventListener ``triggers[].template.spec``,
``resources.kubernetesResource`` — a ``duckv1.WithPodSpec`` — and ``resources.customResource``);
kserve/kserve v0.20.0 ``pkg/apis/serving`` (InferenceService predictor/transformer/explainer: an inline PodSpec plus
framework and model containers, workerSpec; ServingRuntime and ClusterServingRuntime pod spec and workerSpec;
ClusterStorageContainer ``container``, cluster-scoped);
apache/flink-kubernetes-operator release-1.15.0 (FlinkDeployment ``podTemplate``, ``jobManager.podTemplate``,
``taskManager.podTemplate``, ``flinkConfiguration``; FlinkBlueGreenDeployment ``template.spec``;
``FlinkConfigBuilder.java`` sets ``kubernetes.pod-template-file.*`` from the podTemplate fields);
kedacore/keda ScaledJob ``jobTargetRef`` (a JobSpec), Kubeflow ``PodDefault`` ``volumes`` (injected into pods),
kubernetes-sigs/lws LeaderWorkerSet
``leaderWorkerTemplate.{leaderTemplate,workerTemplate}``, volcano-sh Job ``tasks[].template``.
"""
from __future__ import annotations

import re
from typing import Any, Optional

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._argo_pods import argo_pods
    from ._objects import plain
    from ._pod_fields import (ARGO, TEKTON, Context, Found, Recurse, Uninterpretable, as_list, as_map, at,
                              created_object_pods, gather_containers, gather_volumes, partial_pod,
                              runtime_parameters, template_list)
    from ._rules import UNKNOWN
else:  # run by the Pulumi CLI from inside policies/security/
    from _argo_pods import argo_pods
    from _objects import plain
    from _pod_fields import (ARGO, TEKTON, Context, Found, Recurse, Uninterpretable, as_list, as_map, at,
                             created_object_pods, gather_containers, gather_volumes, partial_pod, runtime_parameters,
                             template_list)
    from _rules import UNKNOWN

__all__ = ["Uninterpretable", "operator_pod_specs", "CLUSTER_SCOPED", "WORKLOAD_GROUPS"]

SPARK, KSERVE, FLINK = "sparkoperator.k8s.io", "serving.kserve.io", "flink.apache.org"
TRIGGERS = "triggers.tekton.dev"
#: Kinds of each workload group that hold no pod fields (configuration, bookkeeping the controller writes, or a
#: reference to a template judged where it is declared).
NO_POD_KINDS = {
    ARGO: frozenset({"WorkflowEventBinding", "WorkflowTaskResult", "WorkflowArtifactGCTask", "AppProject"}),
    TEKTON: frozenset({"CustomRun", "Run", "VerificationPolicy"}),
    SPARK: frozenset(),
    KSERVE: frozenset({"TrainedModel", "InferenceGraph", "LocalModelCache", "LocalModelNamespaceCache",
                       "LocalModelNode", "LocalModelNodeGroup"}),  # LocalModelNodeGroup: its PV spec, see pod_security
    FLINK: frozenset({"FlinkSessionJob", "FlinkStateSnapshot"}),
    TRIGGERS: frozenset({"TriggerBinding", "ClusterTriggerBinding", "Interceptor", "ClusterInterceptor"}),
}
#: Groups whose every kind is known here: any other kind of them is refused (its pod fields cannot be read).
WORKLOAD_GROUPS = frozenset(NO_POD_KINDS)
#: Cluster-scoped kinds among these: their pods run in the namespace of whatever names them.
CLUSTER_SCOPED = frozenset({(ARGO, "ClusterWorkflowTemplate"), (ARGO, "ClusterAnalysisTemplate"),
                            (KSERVE, "ClusterServingRuntime"), (KSERVE, "ClusterStorageContainer"),
                            (TEKTON, "ClusterTask")})


# --- Spark operator ---------------------------------------------------------------------------------------------
_SPARK_HOST_PATH = re.compile(r"^spark\.kubernetes\.(driver|executor)\.volumes\.hostPath\.([^.]+)\.options\.path$")
_SPARK_UNREADABLE = re.compile(r"^spark\.kubernetes\.(driver|executor)\.(podTemplateFile|pod\.featureSteps)$")


def spark_conf(conf: Any, where: str) -> tuple[dict, Found]:
    """({role: hostPath volumes sparkConf gives it}, refusals): ``spark.kubernetes.<role>.volumes.hostPath.<name>
    .options.path`` mounts a host path; a pod template file or custom feature step rewrites the pod unseen."""
    volumes: dict = {"driver": [], "executor": []}
    if conf is UNKNOWN:
        return volumes, [(f"{where}.sparkConf", UNKNOWN)]
    refused: Found = []
    for key, value in as_map(conf).items():
        host = _SPARK_HOST_PATH.match(str(key))
        if host:
            volumes[host.group(1)].append({"name": host.group(2), "hostPath": {"path": value}})
        elif _SPARK_UNREADABLE.match(str(key)):
            refused.append((f"{where}.sparkConf", Uninterpretable(
                f"{where}.sparkConf sets {key}, which changes the pod where the pack cannot see")))
    return volumes, refused


def spark_application(spec: Any, where: str) -> Found:
    """A SparkApplication spec (also a ScheduledSparkApplication's ``template``): the driver's and executors' pods —
    hostNetwork, podSecurityContext, the Spark container's securityContext, sidecars, initContainers, the
    application's volumes and sparkConf host paths — and each role's pod ``template``."""
    if spec is UNKNOWN:
        return [(where, UNKNOWN)]
    spec = as_map(spec)
    conf_volumes, found = spark_conf(spec.get("sparkConf"), where)
    if spec.get("sparkConfigMap") is not None:
        found.append((f"{where}.sparkConfigMap", Uninterpretable(
            f"{where}.sparkConfigMap adds Spark configuration from a ConfigMap the pack does not read (it can mount "
            "host paths); put it in sparkConf")))
    for role in ("driver", "executor"):
        pod = spec.get(role)
        if pod is UNKNOWN:
            found.append((f"{where}.{role}", UNKNOWN))
            continue
        pod = as_map(pod)
        main = {"name": f"spark-kubernetes-{role}", "securityContext": pod.get("securityContext")}
        found.append((f"{where}.{role}", partial_pod(
            hostNetwork=pod.get("hostNetwork"), securityContext=pod.get("podSecurityContext"),
            volumes=gather_volumes(spec.get("volumes"), conf_volumes[role]),
            containers=gather_containers(main, as_list(pod.get("sidecars"))),
            initContainers=gather_containers(as_list(pod.get("initContainers"))))))
        if pod.get("template") is not None:
            found.append((f"{where}.{role}.template", at(pod, ("template", "spec"))))
    return found


def spark_pods(kind: str, spec: Any) -> Optional[Found]:
    if kind == "SparkApplication":
        return spark_application(spec, "spec")
    if kind == "ScheduledSparkApplication":
        return spark_application(spec.get("template"), "spec.template")
    if kind == "SparkConnect":
        conf_volumes, found = spark_conf(spec.get("sparkConf"), "spec")
        for role, conf_role in (("server", "driver"), ("executor", "executor")):
            template = at(spec, (role, "template", "spec"))
            if template is not None:
                found.append((f"spec.{role}.template", template))
            if conf_volumes[conf_role]:
                found.append((f"spec.sparkConf ({role})", {"volumes": conf_volumes[conf_role]}))
        return found
    return None


# --- Tekton -----------------------------------------------------------------------------------------------------
def tekton_task_spec(ts: Any, where: str, ctx: Context) -> Found:
    """A TaskSpec: its steps, the stepTemplate merged into each, sidecars and volumes form one pod."""
    if ts is UNKNOWN:
        return [(where, UNKNOWN)]
    ts = as_map(ts)
    if ts.get("apiVersion") is not None or ts.get("kind") is not None:  # a custom task run by another controller
        return created_object_pods({"apiVersion": ts.get("apiVersion"), "kind": ts.get("kind"), "metadata": {},
                        "spec": ts.get("spec")}, where, ctx)
    pod = partial_pod(containers=gather_containers(as_list(ts.get("steps")), ts.get("stepTemplate"),
                                                   as_list(ts.get("sidecars"))),
                      volumes=gather_volumes(ts.get("volumes")))
    return [(where, pod)] if pod else []


def tekton_pipeline_spec(ps: Any, where: str, ctx: Context) -> Found:
    if ps is UNKNOWN:
        return [(where, UNKNOWN)]
    found: Found = []
    for part in ("tasks", "finally"):
        tasks = as_list(as_map(ps).get(part))
        for i, task in enumerate(tasks if isinstance(tasks, list) else [UNKNOWN]):
            if task is UNKNOWN:
                found.append((f"{where}.{part}[*]", UNKNOWN))
                continue
            if as_map(task).get("taskSpec") is not None:
                found += tekton_task_spec(task["taskSpec"], f"{where}.{part}[{i}].taskSpec", ctx)
            if as_map(task).get("pipelineSpec") is not None:
                found += tekton_pipeline_spec(task["pipelineSpec"], f"{where}.{part}[{i}].pipelineSpec", ctx)
    return found


def tekton_pods(kind: str, spec: Any, ctx: Context) -> Optional[Found]:
    """Pod specs of a ``tekton.dev`` resource; a ``podTemplate`` holds pod fields under their own names."""
    found: Found = []
    if kind in ("Task", "ClusterTask"):
        return tekton_task_spec(spec, "spec", ctx)
    if kind == "StepAction":
        return [("spec", {"containers": [spec]})]
    if kind == "Pipeline":
        return tekton_pipeline_spec(spec, "spec", ctx)
    if kind == "TaskRun":
        if spec.get("taskSpec") is not None:
            found += tekton_task_spec(spec["taskSpec"], "spec.taskSpec", ctx)
        if spec.get("podTemplate") is not None:
            found.append(("spec.podTemplate", spec["podTemplate"]))
        return found
    if kind == "PipelineRun":
        if spec.get("pipelineSpec") is not None:
            found += tekton_pipeline_spec(spec["pipelineSpec"], "spec.pipelineSpec", ctx)
        for path in (("podTemplate",), ("taskRunTemplate", "podTemplate")):
            if at(spec, path) is not None:
                found.append(("spec." + ".".join(path), at(spec, path)))
        runs = as_list(spec.get("taskRunSpecs"))
        for i, run in enumerate(runs if isinstance(runs, list) else [UNKNOWN]):
            for key in ("podTemplate", "taskPodTemplate"):
                value = UNKNOWN if run is UNKNOWN else as_map(run).get(key)
                if value is not None:
                    found.append((f"spec.taskRunSpecs[{i}].{key}", value))
        return found
    return None


def _resource_templates(templates: Any, where: str, ctx: Context) -> Found:
    """The objects a Tekton Triggers template creates (``resourcetemplates[]``, with ``$(tt.params.x)`` unknown)."""
    templates = as_list(templates)
    if templates is UNKNOWN:
        return [(f"{where}[*]", UNKNOWN)]
    found: Found = []
    for i, obj in enumerate(templates):
        found += created_object_pods(obj, f"{where}[{i}]", ctx)
    return found


def tekton_triggers_pods(kind: str, spec: Any, ctx: Context) -> Optional[Found]:
    """Tekton Triggers: a TriggerTemplate's, a Trigger's and an EventListener's inline ``resourcetemplates``, and
    the EventListener's own pod (``resources.kubernetesResource.spec.template.spec``, containers optional) or the
    custom resource it runs as (``resources.customResource``)."""
    if kind == "TriggerTemplate":
        return _resource_templates(spec.get("resourcetemplates"), "spec.resourcetemplates", ctx)
    if kind == "Trigger":
        return _resource_templates(at(spec, ("template", "spec", "resourcetemplates")),
                                   "spec.template.spec.resourcetemplates", ctx)
    if kind == "EventListener":
        found: Found = []
        pod = at(spec, ("resources", "kubernetesResource", "spec", "template"))
        if pod is not None:
            found.append(("spec.resources.kubernetesResource", at(pod, ("spec",)) if pod is not UNKNOWN else UNKNOWN))
        custom = at(spec, ("resources", "customResource"))
        if custom is not None:
            found += created_object_pods(custom, "spec.resources.customResource", ctx)
        triggers = as_list(spec.get("triggers"))
        for i, trigger in enumerate(triggers if isinstance(triggers, list) else [UNKNOWN]):
            found += _resource_templates(UNKNOWN if trigger is UNKNOWN else at(trigger, (
                "template", "spec", "resourcetemplates")), f"spec.triggers[{i}].template.spec.resourcetemplates", ctx)
        return found
    return None


# --- KServe -----------------------------------------------------------------------------------------------------
#: The container-shaped fields of an InferenceService component besides its ``containers`` list.
KSERVE_CONTAINERS = {"predictor": ("sklearn", "xgboost", "tensorflow", "pytorch", "triton", "onnx", "huggingface",
                                   "pmml", "lightgbm", "paddle", "model"),
                     "explainer": ("art",), "transformer": ()}


def kserve_pods(kind: str, spec: Any) -> Optional[Found]:
    found: Found = []
    if kind == "InferenceService":
        for component, extra in KSERVE_CONTAINERS.items():
            part = spec.get(component)
            if part is UNKNOWN:
                found.append((f"spec.{component}", UNKNOWN))
            elif isinstance(part, dict):
                found.append((f"spec.{component}", {**part, "containers": gather_containers(
                    as_list(part.get("containers")), *(part.get(k) for k in extra))}))
                if part.get("workerSpec") is not None:
                    found.append((f"spec.{component}.workerSpec", part["workerSpec"]))
        return found
    if kind in ("ServingRuntime", "ClusterServingRuntime"):
        found.append(("spec", spec))
        if spec.get("workerSpec") is not None:
            found.append(("spec.workerSpec", spec["workerSpec"]))
        return found
    if kind == "ClusterStorageContainer":  # injected as the storage initializer of every matching model server
        return [("spec.container", {"initContainers": gather_containers(spec.get("container"))})]
    return None


# --- Flink ------------------------------------------------------------------------------------------------------
def _flatten(node: Any, prefix: str = "") -> dict:
    if not isinstance(node, dict):
        return {prefix: node} if prefix else {}
    out: dict = {}
    for k, v in node.items():
        out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    return out


def flink_deployment(spec: Any, where: str) -> Found:
    """A FlinkDeployment spec: the shared, JobManager and TaskManager pod templates (containers may be left out: the
    operator merges its own), and ``flinkConfiguration`` keys that change the pods."""
    if spec is UNKNOWN:
        return [(where, UNKNOWN)]
    spec = as_map(spec)
    found: Found = [(f"{where}.{'.'.join(p)}", at(spec, p + ("spec",))) for p in (
        ("podTemplate",), ("jobManager", "podTemplate"), ("taskManager", "podTemplate")) if at(spec, p) is not None]
    conf = spec.get("flinkConfiguration")
    if conf is UNKNOWN:
        return found + [(f"{where}.flinkConfiguration", UNKNOWN)]
    for key, value in _flatten(conf).items():
        if key == "kubernetes.hostnetwork.enabled":
            text = str(value).strip().lower() if value is not UNKNOWN else None
            if text not in ("false", "0", "no", "off", ""):
                found.append((f"{where}.flinkConfiguration", {"hostNetwork": UNKNOWN if text is None else True}))
        elif key.startswith("kubernetes.pod-template-file"):
            found.append((f"{where}.flinkConfiguration", Uninterpretable(
                f"{where}.flinkConfiguration sets {key}, a pod template file the pack cannot see; use podTemplate")))
    return found


def flink_pods(kind: str, spec: Any) -> Optional[Found]:
    if kind == "FlinkDeployment":
        return flink_deployment(spec, "spec")
    if kind == "FlinkBlueGreenDeployment":
        return flink_deployment(at(spec, ("template", "spec")), "spec.template.spec")
    return None


# --- entry point ------------------------------------------------------------------------------------------------
#: Groups whose standard pod templates are read at their paths (the generic scan needs a ``containers`` key; these
#: are read even without one); their other kinds fall back to the generic scan.
STANDARD_GROUPS = frozenset({"keda.sh", "leaderworkerset.x-k8s.io", "batch.volcano.sh", "kubeflow.org"})


def standard_pods(group: str, kind: str, spec: Any) -> Optional[Found]:
    if (group, kind) == ("keda.sh", "ScaledJob"):
        value = at(spec, ("jobTargetRef", "template", "spec"))
        return [("spec.jobTargetRef.template", value)] if value is not None else []
    if (group, kind) == ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"):
        lwt = at(spec, ("leaderWorkerTemplate",))
        if lwt is UNKNOWN:
            return [("spec.leaderWorkerTemplate", UNKNOWN)]
        return [(f"spec.leaderWorkerTemplate.{t}", at(lwt, (t, "spec"))) for t in ("leaderTemplate",
                                                                                       "workerTemplate")
                if at(lwt, (t,)) is not None]
    if (group, kind) == ("kubeflow.org", "PodDefault"):
        # volumes its admission webhook injects into every pod its selector matches in the namespace (kubeflow/kubeflow
        # components/admission-webhook/pkg/apis/settings/v1alpha1/poddefault_types.go @1a2780c8, checked 2026-12-01)
        return [("spec.volumes", {"volumes": spec.get("volumes")})] if spec.get("volumes") is not None else []
    if (group, kind) == ("batch.volcano.sh", "Job"):
        return template_list(spec.get("tasks"), "spec.tasks", ("template", "spec"))
    return None


def object_namespace(props: Any) -> Any:
    """The namespace a namespaced object's ``metadata.namespace`` puts it in: the text, ``default`` when absent or
    empty, :data:`UNKNOWN` when it (or ``metadata``) is unknown or not text (nothing can be concluded from it)."""
    found = at(props, ("metadata", "namespace"))
    if found is None or found == "":
        return "default"
    return found if isinstance(found, str) else UNKNOWN


def operator_pod_specs(group: str, kind: str, props: Any, recurse: Recurse) -> Optional[Found]:
    """The pod specs of a custom resource of a known operator (``group``/``kind``, a ``*Patch`` read as its kind);
    None when ``group`` is not one this module reads (the caller falls back to its generic scan). A kind of one of
    :data:`WORKLOAD_GROUPS` the module does not know is refused. A spec unknown as a whole yields UNKNOWN."""
    if group not in WORKLOAD_GROUPS and group not in STANDARD_GROUPS:
        return None
    props = plain(props)
    spec = at(props, ("spec",))
    if spec is UNKNOWN:
        return [("spec", UNKNOWN)]
    spec = runtime_parameters(as_map(spec), group)
    if kind.endswith("List") and len(kind) > 4:
        return []  # a ``*List``'s items are judged as their own kind (``_objects.derived_resources``)
    base = kind[:-5] if kind.endswith("Patch") and len(kind) > 5 else kind
    if group not in WORKLOAD_GROUPS:
        return standard_pods(group, base, spec)
    if base in NO_POD_KINDS[group]:
        return []
    if group == KSERVE and base in ("LLMInferenceService", "LLMInferenceServiceConfig"):
        return None  # inline PodSpecs with containers (template, worker, prefill): read by the generic scan
    namespace = None if (group, base) in CLUSTER_SCOPED else object_namespace(props)
    ctx = Context(group, namespace, recurse)
    readers = {ARGO: lambda: argo_pods(base, spec, ctx), SPARK: lambda: spark_pods(base, spec),
               TEKTON: lambda: tekton_pods(base, spec, ctx), KSERVE: lambda: kserve_pods(base, spec),
               FLINK: lambda: flink_pods(base, spec), TRIGGERS: lambda: tekton_triggers_pods(base, spec, ctx)}
    found = readers[group]()
    if found is None:
        return [("", Uninterpretable(
            f"{group} kind {base} is not one the pack knows, so the pods its controller creates cannot be read"))]
    return found
