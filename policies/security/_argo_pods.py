"""Where Argo's custom resources keep pod fields (see ``_operator_pods`` for the class): Argo Workflows
(Workflow, WorkflowTemplate, ClusterWorkflowTemplate, CronWorkflow, WorkflowTaskSet), Argo Events (Sensor,
EventSource, EventBus; the objects Sensor triggers create) and Argo Rollouts (Rollout, Experiment, analysis jobs).

Sources (each read at the tag named, checked 2026-12-01):
argoproj/argo-workflows v4.1.2 ``pkg/apis/workflow/v1alpha1/workflow_types.go`` (WorkflowSpec: templates, volumes,
securityContext, hostNetwork, podSpecPatch, templateDefaults, executorPlugins[].spec.sidecar.container — the agent
pod's sidecars, ``workflow/controller/agent.go``; Template: container, script, containerSet, initContainers,
sidecars, volumes, securityContext, podSpecPatch, resource — action, mergeStrategy, manifest, manifestFrom —,
steps[][].inline, dag.tasks[].inline), ``container_set_template_types.go``, ``cron_workflow_types.go``
(``workflowSpec``), ``workflow/controller/workflowpod.go`` (the workflow's and the template's podSpecPatch both
apply; ``hostNetwork`` from the workflow), ``manifests/base/crds/minimal`` (ClusterWorkflowTemplate is
cluster-scoped; the minimal CRDs keep unknown fields, so the API server validates nothing in them);
argoproj/argo-events v1.9.11 ``pkg/apis/events/v1alpha1`` (``template.go``: Sensor/EventSource ``template`` —
container, volumes, securityContext; ``eventbus_types.go``, ``nats_eventbus.go``, ``jetstream_eventbus.go``,
``container_template.go``; ``sensor_types.go``: ``triggers[].template.k8s``/``argoWorkflow`` ``source`` — resource,
inline, file, url, configmap, git, s3 — ``operation``, ``parameters[].dest`` written from event data, trigger-level
``parameters`` written into the trigger template, ``dlqTrigger``);
argoproj/argo-rollouts v1.9.1 ``pkg/apis/rollouts/v1alpha1`` (Rollout ``template``, Experiment
``templates[].template``, ``analysis_types.go`` ``JobMetric`` — metrics[].provider.job.spec, a JobSpec).
"""
from __future__ import annotations

from typing import Any, Optional

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._pod_fields import (ARGO, Context, Found, Uninterpretable, as_list, as_map, at, copy_props,
                              created_object_pods, gather_containers, gather_volumes, parse_document, partial_pod,
                              pod_spec_patch, set_unknown, template_list)
    from ._rules import UNKNOWN
else:  # run by the Pulumi CLI from inside policies/security/
    from _pod_fields import (ARGO, Context, Found, Uninterpretable, as_list, as_map, at, copy_props,
                             created_object_pods, gather_containers, gather_volumes, parse_document, partial_pod,
                             pod_spec_patch, set_unknown, template_list)
    from _rules import UNKNOWN


# --- Argo Workflows -------------------------------------------------------------------------------------------------
def argo_template(t: Any, where: str, ctx: Context) -> Found:
    """One Argo ``Template``: the pod it runs (container/script/containerSet containers, sidecars, initContainers,
    volumes, securityContext), its ``podSpecPatch``, the object a ``resource`` template creates, and the templates
    inlined in its steps and DAG tasks."""
    if t is UNKNOWN:
        return [(where, UNKNOWN)]
    if not isinstance(t, dict):
        return []
    found: Found = []
    cset = t.get("containerSet")
    set_containers = UNKNOWN if cset is UNKNOWN else as_list(as_map(cset).get("containers"))
    pod = partial_pod(containers=gather_containers(t.get("container"), t.get("script"), set_containers,
                                                   as_list(t.get("sidecars"))),
                      initContainers=gather_containers(as_list(t.get("initContainers"))),
                      volumes=gather_volumes(t.get("volumes")), securityContext=t.get("securityContext"))
    if pod:
        found.append((where, pod))
    found += pod_spec_patch(t.get("podSpecPatch"), f"{where}.podSpecPatch", ARGO)
    resource = t.get("resource")
    if resource is UNKNOWN:
        found.append((f"{where}.resource", UNKNOWN))
    elif isinstance(resource, dict) and resource.get("action") not in ("get", "delete"):
        if resource.get("manifestFrom") is not None:
            found.append((f"{where}.resource", Uninterpretable(
                f"{where}.resource.manifestFrom reads the manifest from an artifact the pack cannot see")))
        elif resource.get("action") == "patch" and resource.get("mergeStrategy") == "json":
            found.append((f"{where}.resource", Uninterpretable(
                f"{where}.resource is a JSON patch, whose effect on the object cannot be judged alone")))
        elif resource.get("manifest") is not None:
            obj, problem = parse_document(resource.get("manifest"), ARGO, f"{where}.resource.manifest")
            found += ([(f"{where}.resource", Uninterpretable(problem))] if problem else
                      created_object_pods(obj, f"{where}.resource.manifest", ctx))
    steps = as_list(t.get("steps"))
    if steps is UNKNOWN:
        found.append((f"{where}.steps", UNKNOWN))
    for i, group in enumerate(steps if isinstance(steps, list) else []):
        group = as_list(group)
        for j, step in enumerate(group if isinstance(group, list) else [UNKNOWN]):
            if step is UNKNOWN or as_map(step).get("inline") is not None:
                found += argo_template(UNKNOWN if step is UNKNOWN else step["inline"],
                                       f"{where}.steps[{i}][{j}].inline", ctx)
    tasks = as_list(as_map(t.get("dag")).get("tasks")) if t.get("dag") is not UNKNOWN else UNKNOWN
    for i, task in enumerate(tasks if isinstance(tasks, list) else [UNKNOWN]):
        if task is UNKNOWN or as_map(task).get("inline") is not None:
            found += argo_template(UNKNOWN if task is UNKNOWN else task["inline"], f"{where}.dag.tasks[{i}].inline",
                                   ctx)
    return found


def argo_workflow_spec(ws: Any, where: str, ctx: Context) -> Found:
    """A ``WorkflowSpec`` (Workflow, WorkflowTemplate, ClusterWorkflowTemplate, CronWorkflow ``workflowSpec``): the
    fields every pod of the workflow gets (hostNetwork, securityContext, volumes, executor plugin sidecars, the
    workflow's podSpecPatch), ``templateDefaults`` and each template."""
    if ws is UNKNOWN:
        return [(where, UNKNOWN)]
    if not isinstance(ws, dict):
        return []
    plugins = as_list(ws.get("executorPlugins"))
    sidecars = [UNKNOWN] if plugins is UNKNOWN else [
        UNKNOWN if p is UNKNOWN else at(p, ("spec", "sidecar", "container")) for p in plugins]
    found: Found = []
    pod = partial_pod(hostNetwork=ws.get("hostNetwork"), securityContext=ws.get("securityContext"),
                      volumes=gather_volumes(ws.get("volumes")), containers=gather_containers(*sidecars))
    if pod:
        found.append((where, pod))
    found += pod_spec_patch(ws.get("podSpecPatch"), f"{where}.podSpecPatch", ARGO)
    found += argo_template(ws.get("templateDefaults"), f"{where}.templateDefaults", ctx)
    templates = as_list(ws.get("templates"))
    for i, t in enumerate(templates if isinstance(templates, list) else [UNKNOWN]):
        name = as_map(t).get("name")
        found += argo_template(t, f"{where}.templates[{name if isinstance(name, str) else i}]", ctx)
    return found


# --- Argo Events ------------------------------------------------------------------------------------------------
def argo_events_template(t: Any, where: str) -> Found:
    """A Sensor's or EventSource's pod ``template``: one container, volumes, the pod securityContext."""
    if t is UNKNOWN:
        return [(where, UNKNOWN)]
    t = as_map(t)
    pod = partial_pod(containers=gather_containers(t.get("container")), volumes=gather_volumes(t.get("volumes")),
                      securityContext=t.get("securityContext"))
    return [(where, pod)] if pod else []


def _trigger_object(trigger: Any, where: str, ctx: Context) -> Found:
    """The object a ``k8s`` or ``argoWorkflow`` trigger creates, with its event-data parameters made unknown."""
    if trigger is UNKNOWN:
        return [(where, UNKNOWN)]
    trigger = as_map(trigger)
    operation = trigger.get("operation")
    if operation not in (None, "", "create", "update", "patch", "submit"):
        return []  # delete, or acting on an existing workflow by name (resubmit, retry, resume, ...)
    source = trigger.get("source")
    if source is UNKNOWN:
        return [(where, UNKNOWN)]
    source = as_map(source)
    if source.get("resource") is not None:
        obj = source["resource"]
    elif source.get("inline") is not None:
        obj, problem = parse_document(source["inline"], "", f"{where}.source.inline")
        if problem:
            return [(where, Uninterpretable(problem))]
    else:
        kinds = [k for k in source if source.get(k) is not None] or ["none"]
        return [(where, Uninterpretable(f"{where}.source reads the object from {', '.join(kinds)}, which the pack "
                                        "cannot see"))]
    if obj is UNKNOWN:
        return [(where, UNKNOWN)]
    obj = copy_props(obj)  # the parameters are written into a copy
    params = as_list(trigger.get("parameters"))
    for p in params if isinstance(params, list) else [UNKNOWN]:
        problem = "its parameters are unknown" if p is UNKNOWN else set_unknown(obj, as_map(p).get("dest"))
        if problem:
            return [(where, Uninterpretable(f"{where}: {problem}"))]
    return created_object_pods(obj, f"{where}.source", ctx)


def sensor_trigger(trigger: Any, where: str, ctx: Context) -> Found:
    """A Sensor trigger: its template with the trigger-level parameters written in (from event data), then the
    objects its ``k8s`` and ``argoWorkflow`` parts create; its ``dlqTrigger`` likewise."""
    if trigger is UNKNOWN:
        return [(where, UNKNOWN)]
    trigger = as_map(trigger)
    template = trigger.get("template")
    if template is UNKNOWN:
        return [(where, UNKNOWN)]
    template = copy_props(as_map(template))
    params = as_list(trigger.get("parameters"))
    for p in params if isinstance(params, list) else [UNKNOWN]:
        problem = "its parameters are unknown" if p is UNKNOWN else set_unknown(template, as_map(p).get("dest"))
        if problem:
            return [(where, Uninterpretable(f"{where}: {problem}"))]
    found: Found = []
    for key in ("k8s", "argoWorkflow"):
        if template.get(key) is not None:
            found += _trigger_object(template[key], f"{where}.template.{key}", ctx)
    if trigger.get("dlqTrigger") is not None:
        found += sensor_trigger(trigger["dlqTrigger"], f"{where}.dlqTrigger", ctx)
    return found


def eventbus_pods(spec: dict) -> Found:
    """An EventBus's NATS (native) or JetStream pods: their container templates and pod securityContext."""
    found: Found = []
    for where, strategy in (("spec.nats.native", as_map(spec.get("nats")).get("native")),
                            ("spec.jetstream", spec.get("jetstream"))):
        if strategy is UNKNOWN:
            found.append((where, UNKNOWN))
        elif isinstance(strategy, dict):
            templates = (strategy.get(k) for k in ("containerTemplate", "metricsContainerTemplate",
                                                   "reloaderContainerTemplate"))
            found.append((where, partial_pod(securityContext=strategy.get("securityContext"),
                                             containers=gather_containers(*templates))))
    return found


def argo_pods(kind: str, spec: Any, ctx: Context) -> Optional[Found]:
    """Pod specs of an ``argoproj.io`` resource (Workflows, Events, Rollouts); None for a kind not known."""
    if kind in ("Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate"):
        return argo_workflow_spec(spec, "spec", ctx)
    if kind == "CronWorkflow":
        return argo_workflow_spec(spec.get("workflowSpec"), "spec.workflowSpec", ctx)
    if kind == "WorkflowTaskSet":
        tasks = spec.get("tasks")
        if tasks is UNKNOWN:
            return [("spec.tasks", UNKNOWN)]
        return [f for name, t in as_map(tasks).items() for f in argo_template(t, f"spec.tasks.{name}", ctx)]
    if kind in ("Sensor", "EventSource"):
        found = argo_events_template(spec.get("template"), "spec.template")
        triggers = as_list(spec.get("triggers")) if kind == "Sensor" else []
        for i, trigger in enumerate(triggers if isinstance(triggers, list) else [UNKNOWN]):
            found += sensor_trigger(trigger, f"spec.triggers[{i}]", ctx)
        return found
    if kind == "EventBus":
        return eventbus_pods(spec)
    if kind == "Rollout":
        return [("spec.template", as_map(spec.get("template")).get("spec") if spec.get("template") is not UNKNOWN
                 else UNKNOWN)] if spec.get("template") is not None else []
    if kind == "Experiment":
        return template_list(spec.get("templates"), "spec.templates", ("template", "spec"))
    if kind in ("AnalysisTemplate", "ClusterAnalysisTemplate", "AnalysisRun"):
        return template_list(spec.get("metrics"), "spec.metrics",
                              ("provider", "job", "spec", "template", "spec"), skip_missing=True)
    return None


