"""Where pod specs sit in the custom resources of the job operators (Kubeflow Trainer TrainJob patches at each API
version, KubeRay submitter and cron jobs, any other operator resource), and how a cluster-scoped training runtime is
judged: against the RDMA envelope, not a namespace."""
from __future__ import annotations

import pytest

from policies.security._pod_templates import is_cluster_scoped, pod_specs, without_rdma_envelope
from policies.security._rules import UNKNOWN
from tests.policies.test_policies import messages, res, run

TRAINER = "kubernetes:trainer.kubeflow.org/v1alpha1:"
RAY = "kubernetes:ray.io/v1:"
RDMA, ESCAPE, DECLARED = ("rdma-pods-in-privileged-namespaces", "node-escape-only-in-node-agent-namespaces",
                          "workload-namespace-declared")
ROOT = {"volumes": [{"name": "root", "hostPath": {"path": "/"}}]}
RDMA_SPEC = {"hostNetwork": True, "volumes": [{"name": "ib", "hostPath": {"path": "/dev/infiniband/uverbs0"}}],
             "containers": [{"name": "c", "securityContext": {"privileged": True,
                                                              "capabilities": {"add": ["CAP_IPC_LOCK"]}}}]}


def runtime_patch(spec):
    return {"manager": "x", "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
        {"name": "node", "template": {"spec": {"template": {"spec": spec}}}}]}}}}


@pytest.mark.parametrize("spec, where", [
    ({"runtimePatches": [runtime_patch(ROOT)]}, "runtimePatches[0].replicatedJobs[0]"),  # v2.2+ (2.3.0 pinned)
    ({"podTemplateOverrides": [{"targetJobs": [{"name": "node"}], "spec": ROOT}]}, "podTemplateOverrides[0]"),  # v2.1
    ({"podSpecOverrides": [{"targetJobs": [{"name": "node"}], **ROOT}]}, "podSpecOverrides[0]"),  # v2.0
])
def test_trainjob_patches_at_every_api_version_are_pod_specs(spec, where):
    found = pod_specs(TRAINER + "TrainJob", {"spec": spec})
    assert [w for w, _ in found] == [where] and found[0][1]["volumes"] == ROOT["volumes"]


def test_trainjob_without_patches_has_no_pod_spec_and_unknown_patches_fail_closed():
    assert pod_specs(TRAINER + "TrainJob", {"spec": {"runtimeRef": {"name": "torch"}}}) == []
    assert pod_specs(TRAINER + "TrainJob", {"spec": {"runtimePatches": UNKNOWN}}) == [("runtimePatches[*].replicatedJobs[*]", UNKNOWN)]


def test_kuberay_submitter_and_cron_jobs_are_pod_specs():
    job = {"submitterPodTemplate": {"spec": ROOT}, "rayClusterSpec": {"headGroupSpec": {"template": {"spec": ROOT}},
                                                                      "workerGroupSpecs": [{"template": {"spec": ROOT}}]}}
    assert [w for w, _ in pod_specs(RAY + "RayJob", {"spec": job})] == [
        "submitterPodTemplate", "headGroupSpec", "workerGroupSpecs[0]"]
    assert [w for w, _ in pod_specs(RAY + "RayCronJob", {"spec": {"jobTemplate": job}})] == [
        "jobTemplate.submitterPodTemplate", "jobTemplate.headGroupSpec", "jobTemplate.workerGroupSpecs[0]"]
    assert pod_specs(RAY + "RayCronJob", {"spec": {"jobTemplate": UNKNOWN}}) == [("jobTemplate", UNKNOWN)]


def test_any_operator_resource_with_a_containers_list_is_a_pod_spec():
    spec = {"replicas": 1, "containers": [{"name": "c"}], "hostNetwork": True}
    assert pod_specs("kubernetes:monitoring.coreos.com/v1:Prometheus", {"spec": spec}) == [("spec", spec)]
    nested = {"stages": [{"pod": {"containers": [], "hostPID": True}}]}
    assert [w for w, _ in pod_specs("kubernetes:example.com/v1:Pipeline", {"spec": nested})] == [
        "spec.stages[0].pod"]
    assert pod_specs("kubernetes:example.com/v1:Pipeline", {"spec": {"replicas": 2}}) == []
    assert pod_specs("kubernetes:helm.sh/v3:Release", {"spec": spec}) == []  # values are judged elsewhere


def test_without_rdma_envelope_keeps_everything_beyond_it():
    spec = {**RDMA_SPEC, "hostPID": True, "volumes": RDMA_SPEC["volumes"] + ROOT["volumes"]}
    stripped = without_rdma_envelope(spec)
    assert "hostNetwork" not in stripped and stripped["hostPID"] is True and stripped["volumes"] == ROOT["volumes"]
    assert stripped["containers"][0]["securityContext"] == {"capabilities": {"add": []}}
    assert without_rdma_envelope(UNKNOWN) is UNKNOWN


def test_only_cluster_training_runtimes_are_cluster_scoped():
    assert is_cluster_scoped(TRAINER + "ClusterTrainingRuntime")
    assert is_cluster_scoped("kubernetes:trainer.kubeflow.org/v1beta1:ClusterTrainingRuntime")
    assert not is_cluster_scoped(TRAINER + "TrainingRuntime") and not is_cluster_scoped("kubernetes:core/v1:Pod")


def cluster_runtime(spec):
    return res(TRAINER + "ClusterTrainingRuntime", "ctr", {"metadata": {"name": "torch"}, "spec": {"template": {
        "spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": spec}}}}]}}}})


def found(policy, *resources):
    return messages(run(*resources, policy=policy), policy)


def test_a_cluster_training_runtime_may_ask_for_the_rdma_envelope_and_nothing_more():
    assert found(RDMA, cluster_runtime(RDMA_SPEC)) == [] and found(ESCAPE, cluster_runtime(RDMA_SPEC)) == []
    assert found(DECLARED, cluster_runtime(RDMA_SPEC)) == []  # cluster-scoped: no namespace to declare
    [message] = found(RDMA, cluster_runtime({**RDMA_SPEC, "hostIPC": False, "containers": [
        {"name": "c", "ports": [{"containerPort": 1, "hostPort": 1}]}]}))
    assert "cluster-scoped" in message and "hostPort" in message
    [message] = found(ESCAPE, cluster_runtime({**RDMA_SPEC, **ROOT}))
    assert "cluster-scoped" in message and "host path /" in message


def test_node_agent_namespaces_do_not_exempt_a_cluster_training_runtime():
    """A ClusterTrainingRuntime has no namespace; node escape in it is refused even beside node-agent namespaces."""
    ns = res("kubernetes:core/v1:Namespace", "ns", {"metadata": {"name": "default", "labels": {
        "pod-security.kubernetes.io/enforce": "privileged"}}})
    assert found(ESCAPE, ns, cluster_runtime({"hostPID": True, "containers": []}))


def test_mpi_jobs_and_kueue_workloads_are_pod_specs():
    """MPI Operator v2beta1 ``mpiReplicaSpecs`` (Launcher, Worker) and a Kueue ``Workload``'s ``podSets[].template``
    (kubeflow/mpi-operator ``v2beta1``; kueue ``v1beta2``) are read like the other job kinds."""
    mpi = {"mpiReplicaSpecs": {"Launcher": {"template": {"spec": ROOT}}, "Worker": {"template": {"spec": RDMA_SPEC}}}}
    assert [w for w, _ in pod_specs("kubernetes:kubeflow.org/v2beta1:MPIJob", {"spec": mpi})] == [
        "mpiReplicaSpecs.Launcher", "mpiReplicaSpecs.Worker"]
    workload = {"podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [], **ROOT}}}]}
    assert [w for w, _ in pod_specs("kubernetes:kueue.x-k8s.io/v1beta2:Workload", {"spec": workload})] == [
        "spec.podSets[0].template.spec"]


@pytest.mark.parametrize("resource_type", [
    "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", "kubernetes:kueue.x-k8s.io/v1beta1:LocalQueue",
    "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor", "kubernetes:kueue.x-k8s.io/v1beta2:Topology",
    "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueuePatch", "kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPriorityClass",
    "kubernetes:monitoring.coreos.com/v1:PrometheusRule", "kubernetes:monitoring.coreos.com/v1:ServiceMonitor",
])
def test_add_on_kinds_that_hold_no_pods_are_not_scanned(resource_type):
    """Kueue's queues, flavors and topologies and the Prometheus operator's rules and monitors never create pods:
    their specs are not walked for pod fields, even a spec with a ``containers`` list (the generic scan's cue)."""
    spec = {"resourceGroups": [{"flavors": [{"name": f"gpu-{i}"} for i in range(64)]}], "containers": [], **ROOT}
    assert pod_specs(resource_type, {"spec": spec}) == []


@pytest.mark.parametrize("resource_type", [
    "kubernetes:kueue.x-k8s.io/v1beta2:SomeFutureKind", "kubernetes:monitoring.coreos.com/v1:Prometheus",
    "kubernetes:monitoring.coreos.com/v1:Alertmanager", "kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPatch",
])
def test_other_kinds_of_those_groups_are_still_scanned(resource_type):
    """A kind of the same groups that runs pods (Prometheus, Alertmanager), holds a pod template (Workload) or is
    not listed (a later release's) keeps the generic scan: fail closed."""
    assert [w for w, _ in pod_specs(resource_type, {"spec": {"template": {"spec": {"containers": [], **ROOT}}}})] \
        == ["spec.template.spec"]
