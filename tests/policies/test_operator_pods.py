"""Operator custom resources whose pods are built from fields that are not a PodTemplateSpec — Argo Workflows, Argo
Events, Argo Rollouts, the Spark operator, Tekton, KServe, Flink, and the standard templates of KEDA, LeaderWorkerSet
and Volcano read without a ``containers`` key — are judged by the same pod rules as a Pod: a privilege in a tenant
namespace that does not allow it is refused, node escape is refused outside node-agent namespaces, a pod field the
pack cannot interpret is refused, and the same resource without the privilege passes."""
from __future__ import annotations

import pytest

from policies.security._pod_templates import is_cluster_scoped, pod_specs
from policies.security._rules import UNKNOWN
from tests.policies.test_policies import messages, res, run

PSA = "pod-security.kubernetes.io/enforce"
RDMA, ESCAPE, DECLARED = ("rdma-pods-in-privileged-namespaces", "node-escape-only-in-node-agent-namespaces",
                          "workload-namespace-declared")
WF = "kubernetes:argoproj.io/v1alpha1:"
SPARK = "kubernetes:sparkoperator.k8s.io/v1beta2:"
TEKTON = "kubernetes:tekton.dev/v1:"
KSERVE = "kubernetes:serving.kserve.io/v1beta1:"
KSERVE_A = "kubernetes:serving.kserve.io/v1alpha1:"
FLINK = "kubernetes:flink.apache.org/v1beta1:"
PRIV = {"privileged": True}
SAFE = {"runAsNonRoot": True, "allowPrivilegeEscalation": False}
HOST_ROOT = [{"name": "root", "hostPath": {"path": "/"}}]
EMPTY = [{"name": "scratch", "emptyDir": {}}]


def namespace(name: str, level: str):
    return res("kubernetes:core/v1:Namespace", f"ns-{name}", {"metadata": {"name": name, "labels": {PSA: level}}})


def cr(type_: str, spec, ns: str | None = "apps", name: str = "w"):
    meta = {"name": name, **({"namespace": ns} if ns else {})}
    return res(type_, name, {"metadata": meta, "spec": spec})


def found(policy, *resources):
    return messages(run(*resources, policy=policy), policy)


def wf_container(security):
    return {"templates": [{"name": "main", "container": {"image": "busybox", "securityContext": security}}]}


def spark(role_fields):
    return {"type": "Python", "sparkVersion": "3.5.3", "mainApplicationFile": "local:///app.py",
            "driver": role_fields, "executor": {"instances": 1}}


def task(step_security, **more):
    return {"steps": [{"name": "build", "image": "busybox", "securityContext": step_security}], **more}


def flink(**more):
    return {"image": "flink:1.20", "flinkVersion": "v1_20", **more}


#: (member, type, unsafe spec, safe spec, text the refusal names). Unsafe: a privileged container, a hostPath or
#: hostNetwork in the fields of the member's own shape, in namespace ``apps`` (restricted).
MEMBERS = [
    ("argo Workflow templates[].container", WF + "Workflow", wf_container(PRIV), wf_container(SAFE),
     "templates[main]"),
    ("argo Workflow spec.hostNetwork", WF + "Workflow", {"hostNetwork": True, **wf_container(SAFE)},
     {"hostNetwork": False, **wf_container(SAFE)}, "hostNetwork: true"),
    ("argo Workflow templates[].script + volumes", WF + "Workflow",
     {"templates": [{"name": "s", "script": {"image": "python", "source": "print(1)"}, "volumes": HOST_ROOT}]},
     {"templates": [{"name": "s", "script": {"image": "python", "source": "print(1)"}, "volumes": EMPTY}]},
     "hostPath /"),
    ("argo WorkflowTemplate containerSet", WF + "WorkflowTemplate",
     {"templates": [{"name": "set", "containerSet": {"containers": [{"name": "a", "securityContext": PRIV}]}}]},
     {"templates": [{"name": "set", "containerSet": {"containers": [{"name": "a", "securityContext": SAFE}]}}]},
     "containers[a] privileged"),
    ("argo CronWorkflow workflowSpec", WF + "CronWorkflow",
     {"schedules": ["0 * * * *"], "workflowSpec": {"volumes": HOST_ROOT, **wf_container(SAFE)}},
     {"schedules": ["0 * * * *"], "workflowSpec": {"volumes": EMPTY, **wf_container(SAFE)}}, "spec.workflowSpec"),
    ("argo initContainers and sidecars", WF + "Workflow",
     {"templates": [{"name": "m", "container": {"image": "x"}, "sidecars": [{"name": "dind", "securityContext": PRIV}],
                     "initContainers": [{"name": "i", "image": "x"}]}]},
     {"templates": [{"name": "m", "container": {"image": "x"}, "sidecars": [{"name": "dind", "image": "x"}],
                     "initContainers": [{"name": "i", "image": "x"}]}]}, "containers[dind] privileged"),
    ("argo templateDefaults securityContext", WF + "Workflow",
     {"templateDefaults": {"securityContext": {"seccompProfile": {"type": "Unconfined"}}}, **wf_container(SAFE)},
     {"templateDefaults": {"securityContext": {"seccompProfile": {"type": "RuntimeDefault"}}}, **wf_container(SAFE)},
     "templateDefaults"),
    ("argo podSpecPatch (JSON string)", WF + "Workflow",
     {"podSpecPatch": '{"hostNetwork": true}', **wf_container(SAFE)},
     {"podSpecPatch": '{"containers": [{"name": "main", "resources": {"limits": {"cpu": "1"}}}]}',
      **wf_container(SAFE)}, "spec.podSpecPatch"),
    ("argo template podSpecPatch (YAML string)", WF + "Workflow",
     {"templates": [{"name": "m", "container": {"image": "x"},
                     "podSpecPatch": "containers:\n- name: main\n  securityContext:\n    privileged: true\n"}]},
     {"templates": [{"name": "m", "container": {"image": "x"},
                     "podSpecPatch": "containers:\n- name: main\n  resources: {limits: {cpu: '1'}}\n"}]},
     "templates[m].podSpecPatch"),
    ("argo resource template manifest", WF + "Workflow",
     {"templates": [{"name": "r", "resource": {"action": "create", "manifest":
                                                 "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
                                                 "  hostNetwork: true\n  containers: [{name: c, image: x}]\n"}}]},
     {"templates": [{"name": "r", "resource": {"action": "create", "manifest":
                                                 "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
                                                 "  containers: [{name: c, image: x}]\n"}}]},
     "resource.manifest (Pod)"),
    ("argo steps inline template", WF + "Workflow",
     {"templates": [{"name": "s", "steps": [[{"name": "a", "inline": {"container": {
         "image": "x", "securityContext": PRIV}}}]]}]},
     {"templates": [{"name": "s", "steps": [[{"name": "a", "inline": {"container": {"image": "x"}}}]]}]},
     "steps[0][0].inline"),
    ("argo dag inline template", WF + "Workflow",
     {"templates": [{"name": "d", "dag": {"tasks": [{"name": "a", "inline": {"container": {"image": "x"},
                                                                             "volumes": HOST_ROOT}}]}}]},
     {"templates": [{"name": "d", "dag": {"tasks": [{"name": "a", "inline": {"container": {"image": "x"}}}]}}]},
     "dag.tasks[0].inline"),
    ("argo executor plugin sidecar", WF + "Workflow",
     {"executorPlugins": [{"metadata": {"name": "p"}, "spec": {"sidecar": {"container": {
         "name": "p", "securityContext": PRIV}}}}], **wf_container(SAFE)},
     {"executorPlugins": [{"metadata": {"name": "p"}, "spec": {"sidecar": {"container": {"name": "p"}}}}],
      **wf_container(SAFE)}, "containers[p] privileged"),
    ("argo WorkflowTaskSet tasks", WF + "WorkflowTaskSet", {"tasks": {"n1": {"container": {"securityContext": PRIV}}}},
     {"tasks": {"n1": {"http": {"url": "http://x"}}}}, "spec.tasks.n1"),
    ("argo-events Sensor template", WF + "Sensor", {"template": {"container": {"securityContext": PRIV}}},
     {"template": {"container": {"securityContext": SAFE}}}, "spec.template"),
    ("argo-events EventSource template volumes", WF + "EventSource", {"template": {"volumes": HOST_ROOT}},
     {"template": {"volumes": EMPTY}}, "hostPath /"),
    ("argo-events EventBus container template", WF + "EventBus",
     {"jetstream": {"version": "latest", "containerTemplate": {"securityContext": PRIV}}},
     {"jetstream": {"version": "latest", "containerTemplate": {"securityContext": SAFE}}}, "spec.jetstream"),
    ("argo-events Sensor k8s trigger object", WF + "Sensor",
     {"triggers": [{"template": {"name": "t", "k8s": {"operation": "create", "source": {"resource": {
         "apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "p-"},
         "spec": {"hostNetwork": True, "containers": [{"name": "c", "image": "x"}]}}}}}}]},
     {"triggers": [{"template": {"name": "t", "k8s": {"operation": "create", "source": {"resource": {
         "apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "p-"},
         "spec": {"containers": [{"name": "c", "image": "x"}]}}}}}}]}, "template.k8s.source (Pod)"),
    ("argo-events Sensor argoWorkflow trigger (inline)", WF + "Sensor",
     {"triggers": [{"template": {"name": "t", "argoWorkflow": {"operation": "submit", "source": {"inline":
         "apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {generateName: w-}\nspec:\n  hostNetwork: true\n"
         "  templates: [{name: m, container: {image: x}}]\n"}}}}]},
     {"triggers": [{"template": {"name": "t", "argoWorkflow": {"operation": "submit", "source": {"inline":
         "apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {generateName: w-}\nspec:\n"
         "  templates: [{name: m, container: {image: x}}]\n"}}}}]}, "argoWorkflow.source (Workflow)"),
    ("argo-rollouts Rollout template without containers", WF + "Rollout",
     {"template": {"spec": {"hostNetwork": True}}}, {"template": {"spec": {"containers": []}}}, "spec.template"),
    ("argo-rollouts AnalysisTemplate job", WF + "AnalysisTemplate",
     {"metrics": [{"name": "m", "provider": {"job": {"spec": {"template": {"spec": {"volumes": HOST_ROOT}}}}}}]},
     {"metrics": [{"name": "m", "provider": {"job": {"spec": {"template": {"spec": {"volumes": EMPTY}}}}}}]},
     "spec.metrics[0]"),
    ("spark SparkApplication driver securityContext", SPARK + "SparkApplication", spark({"securityContext": PRIV}),
     spark({"securityContext": SAFE}), "spark-kubernetes-driver"),
    ("spark SparkApplication hostNetwork", SPARK + "SparkApplication", spark({"hostNetwork": True}),
     spark({"hostNetwork": False}), "hostNetwork: true"),
    ("spark sparkConf hostPath volume", SPARK + "SparkApplication",
     {**spark({}), "sparkConf": {"spark.kubernetes.executor.volumes.hostPath.data.options.path": "/data"}},
     {**spark({}), "sparkConf": {"spark.kubernetes.executor.volumes.persistentVolumeClaim.data.options.claimName":
                                 "data"}}, "hostPath /data"),
    ("spark spec.volumes + sidecars", SPARK + "SparkApplication",
     {**spark({"sidecars": [{"name": "s", "securityContext": PRIV}]}), "volumes": HOST_ROOT},
     {**spark({"sidecars": [{"name": "s"}]}), "volumes": EMPTY}, "hostPath /"),
    ("spark ScheduledSparkApplication template", SPARK + "ScheduledSparkApplication",
     {"schedule": "@daily", "template": spark({"podSecurityContext": {"sysctls": [{"name": "kernel.msgmax",
                                                                                    "value": "1"}]}})},
     {"schedule": "@daily", "template": spark({"podSecurityContext": {"runAsNonRoot": True}})}, "kernel.msgmax"),
    ("spark SparkConnect server template", "kubernetes:sparkoperator.k8s.io/v1alpha1:SparkConnect",
     {"sparkVersion": "4.0.0", "server": {"template": {"spec": {"hostNetwork": True}}}, "executor": {}},
     {"sparkVersion": "4.0.0", "server": {"template": {"spec": {"containers": []}}}, "executor": {}},
     "spec.server.template"),
    ("tekton Task step securityContext", TEKTON + "Task", task(PRIV), task(SAFE), "containers[build] privileged"),
    ("tekton Task stepTemplate + sidecars", TEKTON + "Task",
     task(SAFE, stepTemplate={"securityContext": {"capabilities": {"add": ["NET_RAW", "SYS_TIME"]}}}),
     task(SAFE, stepTemplate={"securityContext": {"capabilities": {"add": ["NET_BIND_SERVICE"]}}}), "SYS_TIME"),
    ("tekton TaskRun podTemplate", TEKTON + "TaskRun",
     {"taskRef": {"name": "t"}, "podTemplate": {"hostNetwork": True}},
     {"taskRef": {"name": "t"}, "podTemplate": {"hostNetwork": False}}, "spec.podTemplate"),
    ("tekton PipelineRun taskRunTemplate", TEKTON + "PipelineRun",
     {"pipelineRef": {"name": "p"}, "taskRunTemplate": {"podTemplate": {"volumes": HOST_ROOT}}},
     {"pipelineRef": {"name": "p"}, "taskRunTemplate": {"podTemplate": {"volumes": EMPTY}}}, "taskRunTemplate"),
    ("tekton Pipeline embedded taskSpec", TEKTON + "Pipeline",
     {"tasks": [{"name": "a", "taskSpec": task(SAFE, sidecars=[{"name": "dind", "securityContext": PRIV}])}]},
     {"tasks": [{"name": "a", "taskSpec": task(SAFE, sidecars=[{"name": "dind"}])}]}, "tasks[0].taskSpec"),
    ("tekton v1beta1 PipelineRun taskPodTemplate", "kubernetes:tekton.dev/v1beta1:PipelineRun",
     {"pipelineRef": {"name": "p"}, "taskRunSpecs": [{"pipelineTaskName": "a", "taskPodTemplate": {
         "hostNetwork": True}}]},
     {"pipelineRef": {"name": "p"}, "taskRunSpecs": [{"pipelineTaskName": "a", "taskPodTemplate": {}}]},
     "taskPodTemplate"),
    ("tekton StepAction", "kubernetes:tekton.dev/v1beta1:StepAction", {"image": "x", "securityContext": PRIV},
     {"image": "x", "securityContext": SAFE}, "privileged"),
    ("tekton-triggers TriggerTemplate resourcetemplates", "kubernetes:triggers.tekton.dev/v1beta1:TriggerTemplate",
     {"params": [{"name": "rev"}], "resourcetemplates": [{"apiVersion": "tekton.dev/v1", "kind": "PipelineRun",
                                                          "metadata": {"generateName": "run-"}, "spec": {
         "pipelineRef": {"name": "p"}, "params": [{"name": "rev", "value": "$(tt.params.rev)"}],
         "taskRunTemplate": {"podTemplate": {"hostNetwork": True}}}}]},
     {"params": [{"name": "rev"}], "resourcetemplates": [{"apiVersion": "tekton.dev/v1", "kind": "PipelineRun",
                                                          "metadata": {"generateName": "run-"}, "spec": {
         "pipelineRef": {"name": "p"}, "params": [{"name": "rev", "value": "$(tt.params.rev)"}]}}]},
     "resourcetemplates[0] (PipelineRun)"),
    ("tekton-triggers EventListener pod", "kubernetes:triggers.tekton.dev/v1beta1:EventListener",
     {"serviceAccountName": "el", "resources": {"kubernetesResource": {"spec": {"template": {"spec": {
         "volumes": HOST_ROOT}}}}}},
     {"serviceAccountName": "el", "resources": {"kubernetesResource": {"spec": {"template": {"spec": {
         "volumes": EMPTY}}}}}}, "kubernetesResource"),
    ("kserve InferenceService predictor model container", KSERVE + "InferenceService",
     {"predictor": {"model": {"modelFormat": {"name": "sklearn"}, "securityContext": PRIV}}},
     {"predictor": {"model": {"modelFormat": {"name": "sklearn"}, "securityContext": SAFE}}}, "spec.predictor"),
    ("kserve InferenceService predictor pod fields", KSERVE + "InferenceService",
     {"predictor": {"hostNetwork": True, "sklearn": {"storageUri": "s3://m"}}},
     {"predictor": {"sklearn": {"storageUri": "s3://m"}}}, "hostNetwork: true"),
    ("kserve InferenceService explainer art", KSERVE + "InferenceService",
     {"predictor": {"sklearn": {}}, "explainer": {"art": {"type": "SquareAttack", "securityContext": PRIV}}},
     {"predictor": {"sklearn": {}}, "explainer": {"art": {"type": "SquareAttack"}}}, "spec.explainer"),
    ("kserve InferenceService workerSpec", KSERVE + "InferenceService",
     {"predictor": {"model": {"modelFormat": {"name": "huggingface"}}, "workerSpec": {"volumes": HOST_ROOT}}},
     {"predictor": {"model": {"modelFormat": {"name": "huggingface"}}, "workerSpec": {"volumes": EMPTY}}},
     "workerSpec"),
    ("kserve ServingRuntime workerSpec", KSERVE_A + "ServingRuntime",
     {"containers": [{"name": "kserve-container", "image": "x"}], "workerSpec": {"containers": [
         {"name": "w", "securityContext": PRIV}]}},
     {"containers": [{"name": "kserve-container", "image": "x"}], "workerSpec": {"containers": [{"name": "w"}]}},
     "spec.workerSpec"),
    ("flink FlinkDeployment taskManager podTemplate", FLINK + "FlinkDeployment",
     flink(taskManager={"podTemplate": {"spec": {"volumes": HOST_ROOT}}}),
     flink(taskManager={"podTemplate": {"spec": {"volumes": EMPTY}}}), "taskManager.podTemplate"),
    ("flink flinkConfiguration host network", FLINK + "FlinkDeployment",
     flink(flinkConfiguration={"kubernetes.hostnetwork.enabled": "true"}),
     flink(flinkConfiguration={"kubernetes.hostnetwork.enabled": "false"}), "flinkConfiguration"),
    ("flink FlinkBlueGreenDeployment", FLINK + "FlinkBlueGreenDeployment",
     {"template": {"spec": flink(podTemplate={"spec": {"hostNetwork": True}})}},
     {"template": {"spec": flink(podTemplate={"spec": {}})}}, "spec.template.spec.podTemplate"),
    ("keda ScaledJob without containers", "kubernetes:keda.sh/v1alpha1:ScaledJob",
     {"jobTargetRef": {"template": {"spec": {"hostNetwork": True}}}},
     {"jobTargetRef": {"template": {"spec": {"restartPolicy": "Never"}}}}, "jobTargetRef"),
    ("lws LeaderWorkerSet workerTemplate", "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet",
     {"leaderWorkerTemplate": {"size": 2, "workerTemplate": {"spec": {"volumes": HOST_ROOT}}}},
     {"leaderWorkerTemplate": {"size": 2, "workerTemplate": {"spec": {"volumes": EMPTY}}}}, "workerTemplate"),
    ("kubeflow PodDefault volumes", "kubernetes:kubeflow.org/v1alpha1:PodDefault",
     {"selector": {"matchLabels": {"a": "b"}}, "volumes": HOST_ROOT},
     {"selector": {"matchLabels": {"a": "b"}}, "volumes": EMPTY}, "hostPath /"),
    ("volcano Job tasks[].template", "kubernetes:batch.volcano.sh/v1alpha1:Job",
     {"tasks": [{"name": "t", "template": {"spec": {"hostNetwork": True}}}]},
     {"tasks": [{"name": "t", "template": {"spec": {"restartPolicy": "Never"}}}]}, "spec.tasks[0]"),
]


@pytest.mark.parametrize("member, type_, bad, good, where", MEMBERS, ids=[m[0] for m in MEMBERS])
def test_a_privilege_in_the_members_own_pod_fields_is_refused_in_a_restricted_namespace(member, type_, bad, good,
                                                                                        where):
    ns = namespace("apps", "restricted")
    [message] = found(RDMA, ns, cr(type_, bad))
    assert where in message and "'apps'" in message, message
    for policy in (RDMA, ESCAPE, DECLARED):
        assert found(policy, ns, cr(type_, good)) == [], (policy, member)


#: (member, type, node-escape spec, RDMA-envelope control) — judged in the privileged tenant namespace ``research``.
ESCAPES = [
    ("argo podSpecPatch hostPID", WF + "Workflow", {"podSpecPatch": "hostPID: true", **wf_container(SAFE)},
     {"podSpecPatch": "hostNetwork: true", **wf_container(PRIV)}),
    ("argo containerSet SYS_ADMIN", WF + "WorkflowTemplate",
     {"templates": [{"name": "s", "containerSet": {"containers": [{"name": "a", "securityContext": {
         "capabilities": {"add": ["SYS_ADMIN"]}}}]}}]},
     {"templates": [{"name": "s", "containerSet": {"containers": [{"name": "a", "securityContext": {
         "capabilities": {"add": ["IPC_LOCK"]}, **PRIV}}]}}]}),
    ("argo workflow volumes /var/lib/kubelet", WF + "CronWorkflow",
     {"workflowSpec": {"volumes": [{"name": "k", "hostPath": {"path": "/var/lib/kubelet"}}], **wf_container(SAFE)}},
     {"workflowSpec": {"volumes": [{"name": "ib", "hostPath": {"path": "/dev/infiniband"}}],
                       "hostNetwork": True, **wf_container(SAFE)}}),
    ("spark sparkConf host path /etc", SPARK + "SparkApplication",
     {**spark({}), "sparkConf": {"spark.kubernetes.driver.volumes.hostPath.e.options.path": "/etc"}},
     {**spark({}), "sparkConf": {"spark.kubernetes.driver.volumes.hostPath.ib.options.path": "/dev/infiniband"}}),
    ("tekton podTemplate hostPath /", TEKTON + "TaskRun", {"taskRef": {"name": "t"}, "podTemplate": {
        "volumes": HOST_ROOT}}, {"taskRef": {"name": "t"}, "podTemplate": {"hostNetwork": True}}),
    ("kserve workerSpec hostPID", KSERVE + "InferenceService",
     {"predictor": {"model": {"modelFormat": {"name": "x"}}, "workerSpec": {"hostPID": True}}},
     {"predictor": {"model": {"modelFormat": {"name": "x"}, "securityContext": PRIV}, "hostNetwork": True}}),
    ("flink jobManager podTemplate hostIPC", FLINK + "FlinkDeployment",
     flink(jobManager={"podTemplate": {"spec": {"hostIPC": True}}}),
     flink(jobManager={"podTemplate": {"spec": {"hostNetwork": True}}})),
]


@pytest.mark.parametrize("member, type_, bad, good", ESCAPES, ids=[m[0] for m in ESCAPES])
def test_node_escape_in_the_members_pod_fields_is_refused_in_a_tenant_namespace(member, type_, bad, good):
    ns = namespace("research", "privileged")
    [message] = found(ESCAPE, ns, cr(type_, bad, ns="research"))
    assert "'research'" in message and "take over its node" in message
    assert found(ESCAPE, ns, cr(type_, good, ns="research")) == []
    assert found(RDMA, ns, cr(type_, good, ns="research")) == []


#: (member, type, spec whose pod fields cannot be read, a control that can be, text of the reason)
UNREADABLE = [
    ("argo podSpecPatch that is not YAML", WF + "Workflow", {"podSpecPatch": "hostPID: [true",
                                                             **wf_container(SAFE)},
     {"podSpecPatch": "hostNetwork: false", **wf_container(SAFE)}, "not valid YAML"),
    ("argo podSpecPatch that is a list", WF + "Workflow", {"podSpecPatch": "[1, 2]", **wf_container(SAFE)},
     {"podSpecPatch": "{}", **wf_container(SAFE)}, "not a pod spec"),
    ("argo resource manifestFrom", WF + "Workflow",
     {"templates": [{"name": "r", "resource": {"action": "create", "manifestFrom": {"artifact": {"name": "m"}}}}]},
     {"templates": [{"name": "r", "resource": {"action": "delete", "manifestFrom": {"artifact": {"name": "m"}}}}]},
     "manifestFrom"),
    ("argo resource JSON patch", WF + "Workflow",
     {"templates": [{"name": "r", "resource": {
         "action": "patch", "mergeStrategy": "json",
         "manifest": '[{"op": "add", "path": "/spec/hostPID", "value": true}]'}}]},
     {"templates": [{"name": "r", "resource": {"action": "get", "mergeStrategy": "json", "manifest": "[]"}}]},
     "JSON patch"),
    ("argo resource manifest in another namespace", WF + "Workflow",
     {"templates": [{"name": "r", "resource": {"action": "create", "manifest":
                                                 "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: "
                                                 "kube-system}\nspec: {containers: [{name: c, image: x}]}\n"}}]},
     {"templates": [{"name": "r", "resource": {"action": "create", "manifest":
                                                 "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: "
                                                 "apps}\nspec: {containers: [{name: c, image: x}]}\n"}}]},
     "namespace 'kube-system'"),
    ("argo-events trigger source from a ConfigMap", WF + "Sensor",
     {"triggers": [{"template": {"name": "t", "k8s": {"source": {"configmap": {"name": "c", "key": "k"}}}}}]},
     {"triggers": [{"template": {"name": "t", "log": {}}}]}, "configmap"),
    ("argoproj.io kind the pack does not know", WF + "Application", {"source": {"repoURL": "https://x"}},
     None, "Application is not one the pack knows"),
    ("spark podTemplateFile", SPARK + "SparkApplication",
     {**spark({}), "sparkConf": {"spark.kubernetes.executor.podTemplateFile": "/opt/t.yaml"}},
     {**spark({}), "sparkConf": {"spark.executor.memory": "4g"}}, "podTemplateFile"),
    ("spark custom feature step", SPARK + "SparkApplication",
     {**spark({}), "sparkConf": {"spark.kubernetes.driver.pod.featureSteps": "com.x.Step"}}, None, "featureSteps"),
    ("spark sparkConfigMap", SPARK + "SparkApplication", {**spark({}), "sparkConfigMap": "spark-conf"}, None,
     "sparkConfigMap"),
    ("flink pod template file", FLINK + "FlinkDeployment",
     flink(flinkConfiguration={"kubernetes.pod-template-file.taskmanager": "/x.yaml"}), None, "pod-template-file"),
    ("tekton.dev kind the pack does not know", "kubernetes:tekton.dev/v1:Widget", {}, None, "Widget"),
]


@pytest.mark.parametrize("member, type_, bad, good, reason", UNREADABLE, ids=[m[0] for m in UNREADABLE])
def test_pod_fields_the_pack_cannot_interpret_are_refused(member, type_, bad, good, reason):
    restricted, tenant = namespace("apps", "restricted"), namespace("research", "privileged")
    [message] = found(RDMA, restricted, cr(type_, bad))
    assert "cannot be interpreted" in message and reason in message, message
    [message] = found(ESCAPE, tenant, cr(type_, bad, ns="research"))  # a privileged namespace does not let it pass
    assert reason in message
    if good is not None:
        assert found(RDMA, restricted, cr(type_, good)) == [] and found(ESCAPE, restricted, cr(type_, good)) == []


@pytest.mark.parametrize("type_, spec", [
    (WF + "ClusterWorkflowTemplate", {"templates": [{"name": "m", "container": {"image": "x", "securityContext": {
        **PRIV, "capabilities": {"add": ["IPC_LOCK"]}}}, "volumes": [{"name": "ib", "hostPath": {
            "path": "/dev/infiniband"}}]}], "hostNetwork": True}),
    (KSERVE_A + "ClusterServingRuntime", {"containers": [{"name": "c", "securityContext": PRIV}],
                                          "hostNetwork": True}),
    (KSERVE_A + "ClusterStorageContainer", {"container": {"name": "s", "securityContext": PRIV}}),
])
def test_cluster_scoped_members_may_ask_for_the_rdma_envelope_and_nothing_more(type_, spec):
    """A cluster-scoped template serves every namespace: judged against the RDMA envelope, not a namespace."""
    assert is_cluster_scoped(type_)
    resource = cr(type_, spec, ns=None)
    assert found(RDMA, resource) == [] and found(ESCAPE, resource) == [] and found(DECLARED, resource) == []
    beyond = cr(type_, {**spec, "volumes": HOST_ROOT} if "container" not in spec else {
        "container": {**spec["container"], "securityContext": {"capabilities": {"add": ["SYS_ADMIN"]}}}}, ns=None)
    assert any("cluster-scoped" in m for m in found(RDMA, beyond) + found(ESCAPE, beyond))


def test_workflow_parameters_are_values_chosen_at_run_time():
    """An Argo ``{{...}}`` or Tekton ``$(...)`` parameter is unknown: harmless in an image, refused at a host path or
    a privilege key, also inside a podSpecPatch or a resource manifest."""
    ns = namespace("apps", "restricted")
    image = {"templates": [{"name": "m", "container": {"image": "{{inputs.parameters.image}}"}}]}
    assert found(RDMA, ns, cr(WF + "Workflow", image)) == []
    path = {"templates": [{"name": "m", "container": {"image": "x"}, "volumes": [
        {"name": "d", "hostPath": {"path": "{{inputs.parameters.dir}}"}}]}]}
    assert found(ESCAPE, namespace("research", "privileged"), cr(WF + "Workflow", path, ns="research"))
    patch = {"podSpecPatch": '{"containers": [{"name": "main", "securityContext": {"privileged": '
                             '{{inputs.parameters.p}}}}]}', **wf_container(SAFE)}
    [message] = found(RDMA, ns, cr(WF + "Workflow", patch))
    assert "may be privileged" in message
    cpu = {"podSpecPatch": '{"containers": [{"name": "main", "resources": {"limits": {"cpu": '
                           '"{{inputs.parameters.cpu}}"}}}]}', **wf_container(SAFE)}
    assert found(RDMA, ns, cr(WF + "Workflow", cpu)) == []
    tekton = task(SAFE, volumes=[{"name": "d", "hostPath": {"path": "$(params.dir)"}}])
    assert found(RDMA, ns, cr(TEKTON + "Task", tekton))
    assert found(RDMA, ns, cr(TEKTON + "Task", task({**SAFE, "runAsUser": 1000}, params=[{"name": "img"}]))) == []


def test_sensor_parameters_written_from_event_data_make_their_destination_unknown():
    """``parameters[].dest`` is filled from the event: at a pod field it fails closed, at the name it does not."""
    ns = namespace("apps", "restricted")

    def sensor(dest):
        return {"triggers": [{"template": {"name": "t", "k8s": {"source": {"resource": {
            "apiVersion": "batch/v1", "kind": "Job", "metadata": {"generateName": "j-"},
            "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}}}},
            "parameters": [{"src": {"dependencyName": "d", "dataKey": "body.x"}, "dest": dest}]}}}]}

    [message] = found(RDMA, ns, cr(WF + "Sensor", sensor("spec.template.spec.hostNetwork")))
    assert "may use hostNetwork" in message
    assert found(RDMA, ns, cr(WF + "Sensor", sensor("spec.template.spec.containers.0.securityContext.privileged")))
    assert found(RDMA, ns, cr(WF + "Sensor", sensor("spec.template.spec.volumes.-1")))
    assert found(RDMA, ns, cr(WF + "Sensor", sensor("metadata.generateName"))) == []
    trigger_level = sensor("metadata.name")
    trigger_level["triggers"][0]["parameters"] = [{"src": {"dependencyName": "d"},
                                                   "dest": "k8s.source.resource.spec.template.spec.hostPID"}]
    assert found(ESCAPE, namespace("research", "privileged"), cr(WF + "Sensor", trigger_level, ns="research"))


def test_patch_list_and_rendered_paths_reach_the_same_reading():
    """A ``WorkflowPatch`` (server-side apply), the items of a ``WorkflowList`` and a Workflow rendered from Helm
    values are read like a declared Workflow."""
    ns = namespace("apps", "restricted")
    bad = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "w", "namespace": "apps"},
           "spec": {"podSpecPatch": "hostNetwork: true", **wf_container(SAFE)}}
    assert found(RDMA, ns, cr(WF + "WorkflowPatch", bad["spec"]))
    assert found(RDMA, ns, res(WF + "WorkflowList", "l", {"items": [bad]}))
    release = res("kubernetes:helm.sh/v3:Release", "r", {
        "chart": "keda", "version": "2.20.2", "namespace": "apps",
        "repositoryOpts": {"repo": "https://kedacore.github.io/charts"}, "values": {"extraObjects": [bad]}})
    assert found(RDMA, ns, release)
    good = {**bad, "spec": wf_container(SAFE)}
    assert found(RDMA, ns, res(WF + "WorkflowList", "l", {"items": [good]})) == []


def test_kserve_local_model_node_group_volume_is_judged_as_a_persistent_volume():
    """A LocalModelNodeGroup's ``persistentVolumeSpec`` is a PersistentVolume every node's model cache mounts."""
    def group(path):
        return cr(KSERVE_A + "LocalModelNodeGroup", {"storageLimit": "1Ti", "persistentVolumeSpec": {
            "hostPath": {"path": path}}, "persistentVolumeClaimSpec": {}}, ns=None)
    [message] = found(ESCAPE, group("/etc"))
    assert "LocalModelNodeGroup" in message and "/etc" in message
    assert found(ESCAPE, group("/mnt/models")) == []


def test_groups_under_k8s_io_are_read_unless_they_are_kubernetes_own():
    """``sparkoperator.k8s.io`` is an operator's group; a CustomResourceDefinition's schema is not a pod."""
    assert pod_specs(SPARK + "SparkApplication", {"spec": spark({"hostNetwork": True})})
    crd = {"spec": {"versions": [{"schema": {"openAPIV3Schema": {"properties": {"containers": {"type": "array"}}}}}]}}
    assert pod_specs("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition", crd) == []
    assert pod_specs(WF + "Workflow", {"spec": UNKNOWN}) == [("spec", UNKNOWN)]
    assert pod_specs(WF + "WorkflowEventBinding", {"spec": {"submit": {"workflowTemplateRef": {"name": "t"}}}}) == []


def test_objects_created_by_created_objects_stay_in_the_creators_namespace():
    """A Sensor in ``apps`` submits a Workflow without a namespace (it lands in ``apps``); that Workflow's resource
    template creating a Pod in ``apps`` is judged there, one in ``kube-system`` is refused."""
    def sensor(pod_ns):
        manifest = f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: {pod_ns}}}\nspec: {{containers: []}}\n"
        workflow = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"generateName": "w-"},
                    "spec": {"templates": [{"name": "r", "resource": {"action": "create", "manifest": manifest}}]}}
        return cr(WF + "Sensor", {"triggers": [{"template": {"name": "t", "argoWorkflow": {
            "source": {"resource": workflow}}}}]})
    ns = namespace("apps", "restricted")
    assert found(RDMA, ns, sensor("apps")) == []
    [message] = found(RDMA, ns, sensor("kube-system"))
    assert "namespace 'kube-system'" in message


OPERATOR_TYPES = sorted({m[1] for m in MEMBERS + ESCAPES + UNREADABLE} | {WF + "ClusterWorkflowTemplate",
                                                                         KSERVE_A + "LocalModelNodeGroup"})
SHAPE_KEYS = ["spec", "templates", "container", "script", "containerSet", "containers", "volumes", "hostPath",
              "path", "securityContext", "privileged", "podSpecPatch", "resource", "manifest", "action", "steps",
              "inline", "dag", "tasks", "triggers", "template", "k8s", "source", "parameters", "dest", "driver",
              "sparkConf", "podTemplate", "taskSpec", "predictor", "model", "workerSpec", "flinkConfiguration",
              "jobTargetRef", "workflowSpec", "metadata", "namespace", "hostNetwork", "executorPlugins", "sidecars"]


def test_operator_readers_report_or_pass_on_any_shape():
    """Whatever shape a program passes (strings for maps, lists of lists, parameters, unknowns), the operator
    readers and the rules never raise."""
    from hypothesis import HealthCheck, example, given, settings
    from hypothesis import strategies as st

    from policies.security.kubernetes import pod_privileges
    from policies.security.pod_security import pod_spec_escapes
    from tests.policies.test_policies import U

    leaves = st.one_of(st.none(), st.booleans(), st.integers(-1, 3), st.sampled_from(
        ["/", "x", "{{inputs.parameters.p}}", "$(params.p)", "hostPID: true", "[1", "-1", "a.0.b", U, UNKNOWN,
         "spark.kubernetes.driver.volumes.hostPath.x.options.path", "apiVersion: v1\nkind: Pod\nspec: {}\n"]))
    values = st.recursive(leaves, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(SHAPE_KEYS), inner, max_size=4)), max_leaves=14)

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.sampled_from(OPERATOR_TYPES), st.dictionaries(st.sampled_from(SHAPE_KEYS), values, max_size=4))
    @example(WF + "AnalysisTemplate", {"metadata": U})  # an unknown metadata: the namespace is unknown
    @example(WF + "AnalysisTemplate", {"metadata": {"namespace": 3}})
    @example(WF + "Workflow", {"metadata": {"namespace": UNKNOWN}})
    def check(type_, props):
        for _, spec in pod_specs(type_, props):
            pod_privileges(spec)
            pod_spec_escapes(spec)

    check()
