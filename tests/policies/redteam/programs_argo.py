"""Red-team programs for pods that operators build from fields that are not a PodTemplateSpec: Argo Workflows
(container, script, volumes, hostNetwork, podSpecPatch strings, resource templates), Argo Events (Sensor pods and
the objects their triggers create), the Spark operator, Tekton, KServe, Flink and KEDA — declared directly, as a
``*Patch``, in a ConfigGroup, or rendered from Helm values. Registered in ``programs.CASES`` on import, like every
``programs_<area>.py``."""
from __future__ import annotations

import pulumi_kubernetes as k8s
import yaml

from tests.policies.redteam.programs import case, namespace, release

#: Images with their registry host written out (container-image-pinned refuses an implied one).
BUSYBOX, PYTHON, DIND = ("docker.io/library/busybox:1.37", "docker.io/library/python:3.13",
                         "docker.io/library/docker:27.3.1-dind")

ARGO = "argoproj.io/v1alpha1"
PRIV = {"privileged": True}
SAFE = {"runAsNonRoot": True, "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"}}


def cr(api_version: str, kind: str, spec: dict, ns: str | None = "apps", name: str = "w") -> None:
    """A custom resource in a namespace of the stack (``apps`` restricted, ``research`` a privileged GPU tenant)."""
    if ns:
        namespace(ns, "privileged" if ns == "research" else "restricted")
    meta = {"name": name, **({"namespace": ns} if ns else {})}
    k8s.apiextensions.CustomResource(name, api_version=api_version, kind=kind, metadata=meta, spec=spec)


def templates(container_security: dict, **template) -> dict:
    return {"entrypoint": "main", "templates": [{"name": "main", "container": {
        "image": BUSYBOX, "command": ["true"], "securityContext": container_security}, **template}]}


def workflow_doc(spec: dict) -> dict:
    return {"apiVersion": ARGO, "kind": "Workflow", "metadata": {"name": "w", "namespace": "apps"}, "spec": spec}


@case("pod", "rdma-pods-in-privileged-namespaces")
def argo_workflow_container_privileged(bad):
    cr(ARGO, "Workflow", templates(PRIV if bad else SAFE))


@case("pod", "rdma-pods-in-privileged-namespaces")
def argo_workflow_host_network(bad):
    cr(ARGO, "Workflow", {"hostNetwork": bad, **templates(SAFE)})


@case("pod", "rdma-pods-in-privileged-namespaces")
def argo_workflow_template_script_host_path(bad):
    volume = {"hostPath": {"path": "/data"}} if bad else {"emptyDir": {}}
    cr(ARGO, "WorkflowTemplate", {"templates": [{"name": "s", "script": {"image": PYTHON, "source": "print()",
                                                                        "securityContext": SAFE},
                                                 "volumes": [{"name": "d", **volume}]}]})


@case("pod", "node-escape-only-in-node-agent-namespaces")
def argo_workflow_pod_spec_patch_host_pid(bad):
    """A tenant may run RDMA pods, not take its node: a podSpecPatch string adding hostPID is read as a pod spec."""
    cr(ARGO, "Workflow", {"podSpecPatch": "hostPID: true" if bad else "hostNetwork: true", **templates(SAFE)},
       ns="research")


@case("pod", "rdma-pods-in-privileged-namespaces")
def argo_workflow_pod_spec_patch_privileged_from_a_parameter(bad):
    value = "{{workflow.parameters.privileged}}" if bad else "false"
    cr(ARGO, "Workflow", {"arguments": {"parameters": [{"name": "privileged", "value": "false"}]},
                          "podSpecPatch": f'{{"containers": [{{"name": "main", "securityContext": '
                                          f'{{"privileged": {value}}}}}]}}', **templates(SAFE)})


@case("pod", "node-escape-only-in-node-agent-namespaces")
def argo_cron_workflow_mounts_the_host_root(bad):
    path = "/" if bad else "/dev/infiniband"
    cr(ARGO, "CronWorkflow", {"schedules": ["0 * * * *"], "workflowSpec": {
        "volumes": [{"name": "h", "hostPath": {"path": path}}], **templates(SAFE)}}, ns="research")


@case("pod", "rdma-pods-in-privileged-namespaces")
def argo_cluster_workflow_template_beyond_the_rdma_envelope(bad):
    """Cluster-scoped: its pods run in the namespace of every Workflow that names it."""
    caps = {"add": ["IPC_LOCK"] + (["NET_RAW", "SYS_NICE"] if bad else [])}
    cr(ARGO, "ClusterWorkflowTemplate", templates({**PRIV, "capabilities": caps}), ns=None)


@case("pod", "rdma-pods-in-privileged-namespaces")
def argo_resource_template_creates_a_privileged_pod(bad):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "{{workflow.name}}-"},
           "spec": {"containers": [{"name": "c", "image": BUSYBOX, "securityContext": PRIV if bad else SAFE}]}}
    cr(ARGO, "Workflow", {"entrypoint": "r", "templates": [{"name": "r", "resource": {
        "action": "create", "manifest": yaml.safe_dump(pod)}}]})


@case("pod", "rdma-pods-in-privileged-namespaces")
def argo_steps_inline_template_sidecar_privileged(bad):
    inline = {"container": {"image": BUSYBOX, "securityContext": SAFE},
              "sidecars": [{"name": "dind", "image": DIND, "securityContext": PRIV if bad else SAFE}]}
    cr(ARGO, "Workflow", {"entrypoint": "s", "templates": [{"name": "s", "steps": [[{"name": "a",
                                                                                      "inline": inline}]]}]})


@case("pod", "rdma-pods-in-privileged-namespaces")
def argo_workflow_applied_from_a_config_group(bad):
    k8s.yaml.v2.ConfigGroup("wf", yaml=yaml.safe_dump(workflow_doc({"hostNetwork": bad, **templates(SAFE)})))
    namespace("apps", "restricted")


@case("pod", "rdma-pods-in-privileged-namespaces")
def argo_workflow_patch_adds_host_network(bad):
    namespace("apps", "restricted")
    k8s.apiextensions.CustomResourcePatch("wfp", api_version=ARGO, kind="Workflow",
                                          metadata={"name": "w", "namespace": "apps"},
                                          spec={"hostNetwork": bad})


@case("pod", "rdma-pods-in-privileged-namespaces")
def argo_workflow_rendered_from_helm_extra_objects(bad):
    release({"extraObjects": [workflow_doc(templates(PRIV if bad else SAFE))]})


@case("pod", "rdma-pods-in-privileged-namespaces")
def argo_sensor_trigger_creates_a_host_network_pod(bad):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "p-"},
           "spec": {"hostNetwork": bad, "containers": [{"name": "c", "image": BUSYBOX, "securityContext": SAFE}]}}
    cr(ARGO, "Sensor", {"dependencies": [{"name": "d", "eventSourceName": "webhook", "eventName": "e"}],
                        "triggers": [{"template": {"name": "t", "k8s": {"operation": "create",
                                                                        "source": {"resource": pod}}}}]})


@case("pod", "rdma-pods-in-privileged-namespaces")
def argo_sensor_trigger_parameter_sets_a_pod_field_from_event_data(bad):
    """The event's payload is written at ``dest``: at a pod field its value is chosen by whoever sends events."""
    dest = "spec.template.spec.containers.0.securityContext.privileged" if bad else "metadata.labels.run"
    container = {"name": "c", "image": BUSYBOX, "securityContext": SAFE}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"generateName": "j-"},
           "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [container]}}}}
    cr(ARGO, "Sensor", {"dependencies": [{"name": "d", "eventSourceName": "webhook", "eventName": "e"}],
                        "triggers": [{"template": {"name": "t", "k8s": {"source": {"resource": job}, "parameters": [
                            {"src": {"dependencyName": "d", "dataKey": "body.x"}, "dest": dest}]}}}]})


@case("pod", "rdma-pods-in-privileged-namespaces")
def argo_events_sensor_pod_privileged(bad):
    cr(ARGO, "Sensor", {"template": {"container": {"securityContext": PRIV if bad else SAFE}},
                        "dependencies": [{"name": "d", "eventSourceName": "webhook", "eventName": "e"}],
                        "triggers": [{"template": {"name": "log", "log": {}}}]})


@case("pod", "rdma-pods-in-privileged-namespaces")
def argoproj_kind_the_pack_cannot_read(bad):
    """An Argo CD Application deploys whatever its source holds; an AppProject creates no pods."""
    cr(ARGO, "Application" if bad else "AppProject", {"sourceRepos": ["*"]} if not bad else {
        "project": "default", "source": {"repoURL": "https://example.com/r.git", "path": "."},
        "destination": {"namespace": "apps", "server": "https://kubernetes.default.svc"}})


@case("pod", "rdma-pods-in-privileged-namespaces")
def spark_application_driver_privileged(bad):
    cr("sparkoperator.k8s.io/v1beta2", "SparkApplication", {
        "type": "Python", "mode": "cluster", "sparkVersion": "3.5.3", "mainApplicationFile": "local:///app.py",
        "driver": {"securityContext": PRIV if bad else SAFE}, "executor": {"instances": 1}})


@case("pod", "node-escape-only-in-node-agent-namespaces")
def spark_conf_mounts_etc_from_the_host(bad):
    path = "/etc" if bad else "/dev/infiniband"
    cr("sparkoperator.k8s.io/v1beta2", "SparkApplication", {
        "type": "Python", "sparkVersion": "3.5.3", "mainApplicationFile": "local:///app.py",
        "sparkConf": {"spark.kubernetes.executor.volumes.hostPath.h.options.path": path,
                      "spark.kubernetes.executor.volumes.hostPath.h.mount.path": "/host"},
        "driver": {}, "executor": {"instances": 2}}, ns="research")


@case("pod", "rdma-pods-in-privileged-namespaces")
def tekton_taskrun_pod_template_host_network(bad):
    cr("tekton.dev/v1", "TaskRun", {"podTemplate": {"hostNetwork": bad}, "taskSpec": {"steps": [
        {"name": "build", "image": BUSYBOX, "script": "true", "securityContext": SAFE}]}})


@case("pod", "rdma-pods-in-privileged-namespaces")
def tekton_step_template_adds_a_capability(bad):
    caps = {"add": ["NET_RAW"]} if bad else {"drop": ["ALL"]}
    cr("tekton.dev/v1", "Task", {"stepTemplate": {"securityContext": {"capabilities": caps}},
                                 "steps": [{"name": "s", "image": BUSYBOX, "script": "true"}]})


@case("pod", "rdma-pods-in-privileged-namespaces")
def kserve_predictor_model_privileged(bad):
    cr("serving.kserve.io/v1beta1", "InferenceService", {"predictor": {"model": {
        "modelFormat": {"name": "sklearn"}, "storageUri": "oci://bucket/model",
        "securityContext": PRIV if bad else SAFE}}})


@case("pod", "node-escape-only-in-node-agent-namespaces")
def flink_task_manager_template_mounts_the_host_root(bad):
    """Flink merges its own container into the pod template: the template's pod fields count without one."""
    path = "/" if bad else "/dev/infiniband"
    cr("flink.apache.org/v1beta1", "FlinkDeployment", {
        "image": "docker.io/library/flink:1.20", "flinkVersion": "v1_20", "serviceAccount": "flink",
        "taskManager": {"resource": {"cpu": 1, "memory": "2048m"},
                        "podTemplate": {"spec": {"volumes": [{"name": "h", "hostPath": {"path": path}}]}}}},
       ns="research")


@case("pod", "node-escape-only-in-node-agent-namespaces")
def keda_scaled_job_host_pid(bad):
    cr("keda.sh/v1alpha1", "ScaledJob", {"jobTargetRef": {"template": {"spec": {
        "hostPID": bad, "restartPolicy": "Never", "containers": [{"name": "c", "image": BUSYBOX}]}}},
        "triggers": [{"type": "cron", "metadata": {"timezone": "UTC", "start": "0 * * * *", "end": "5 * * * *",
                                                   "desiredReplicas": "1"}}]}, ns="research")


@case("pod", "rdma-pods-in-privileged-namespaces")
def tekton_trigger_template_creates_a_host_network_pipeline_run(bad):
    run = {"apiVersion": "tekton.dev/v1", "kind": "PipelineRun", "metadata": {"generateName": "ci-"},
           "spec": {"pipelineRef": {"name": "ci"}, "params": [{"name": "rev", "value": "$(tt.params.rev)"}],
                    "taskRunTemplate": {"podTemplate": {"hostNetwork": bad}}}}
    cr("triggers.tekton.dev/v1beta1", "TriggerTemplate", {"params": [{"name": "rev"}], "resourcetemplates": [run]})


@case("pod", "node-escape-only-in-node-agent-namespaces")
def kubeflow_pod_default_injects_the_host_root(bad):
    """A PodDefault's volumes are injected into every pod its selector matches in the namespace."""
    path = "/" if bad else "/dev/infiniband"
    cr("kubeflow.org/v1alpha1", "PodDefault", {"selector": {"matchLabels": {"rdma": "true"}}, "desc": "RDMA",
                                               "volumes": [{"name": "h", "hostPath": {"path": path}}]}, ns="research")
