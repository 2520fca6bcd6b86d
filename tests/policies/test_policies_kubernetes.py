"""The Kubernetes rules (policies/security/kubernetes.py): pinned Helm releases, Pod Security enforce labels, RDMA-style pods
only in privileged namespaces — passing, failing and unknown cases, and a hand-written stack caught by the pack."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pytest

from offline.engine import run_program
from offline.policy_eval import evaluate, has_mandatory
from policies.security import kubernetes as kp
from policies.security.pack import PACK_NAME, POLICIES
from tests.policies.test_policies import U, messages, proxied, res, run

RELEASE, NS = "kubernetes:helm.sh/v3:Release", "kubernetes:core/v1:Namespace"
DEPLOYMENT, JOB, CRONJOB = "kubernetes:apps/v1:Deployment", "kubernetes:batch/v1:Job", "kubernetes:batch/v1:CronJob"
PINNED, PSA, RDMA = "helm-release-pinned", "namespace-pod-security-enforce", "rdma-pods-in-privileged-namespaces"


def test_rules_module_contract():
    assert {p.name for p in kp.POLICIES} == set(kp.UNKNOWN_BEHAVIOUR) == {PINNED, PSA, RDMA}
    for p in kp.POLICIES:
        assert p.description and p.remediation_steps and p.tags and p.severity
        assert p.enforcement_level.value == "mandatory"
    assert all(p in POLICIES for p in kp.POLICIES)


# --- helm-release-pinned ----------------------------------------------------------------------------------------
def release(chart="gpu-operator", version="v25.10.1", repo="https://helm.ngc.nvidia.com/nvidia") -> dict:
    props = {"chart": chart, "name": "r", "namespace": "ns"}
    if version is not None:
        props["version"] = version
    if repo is not None:
        props["repositoryOpts"] = {"repo": repo}
    return props


@pytest.mark.parametrize("props", [
    release(),
    release("oci://registry.k8s.io/kueue/charts/kueue", "0.18.2", None),
    release("kube-prometheus-stack", "87.2.1", "https://prometheus-community.github.io/helm-charts/"),
])
def test_pinned_release_passes(props):
    assert messages(run(res(RELEASE, "r", props), policy=PINNED), PINNED) == []


@pytest.mark.parametrize("props, expected", [
    (release(version="~25.10"), "is not an exact chart version"),
    (release(version=None), "None is not an exact chart version"),
    (release(version="latest"), "'latest' is not an exact chart version"),
    (release(repo="https://charts.example.com"), "https://charts.example.com is not in the allowed repositories"),
    (release(chart="./charts/mine", repo=None), "does not come from a repository"),
    (release(chart="oci://ghcr.io/someone/charts/kueue", repo=None), "oci://ghcr.io/someone/charts is not in"),
])
def test_unpinned_or_unlisted_release_fails(props, expected):
    [message] = messages(run(res(RELEASE, "r", props), policy=PINNED), PINNED)
    assert expected in message


@pytest.mark.parametrize("props, expected", [
    (release(version=U), "version is unknown during preview"),
    (release(repo=U), "repository is unknown during preview"),
    (release(chart=U), "repository is unknown during preview"),
])
def test_unknown_release_fields_fail_closed(props, expected):
    report = run(res(RELEASE, "r", props), policy=PINNED)
    [message] = messages(report, PINNED)
    assert expected in message and report.not_run == []
    assert kp.release_problems(proxied(props), kp.DEFAULT_ALLOWED_REPOSITORIES)


def test_allowed_repositories_are_configurable():
    props = release(repo="https://charts.example.com")
    config = {"all": "disabled", PINNED: {"enforcementLevel": "mandatory",
                                          "allowedRepositories": ["https://charts.example.com"]}}
    report = evaluate(POLICIES, [res(RELEASE, "r", props)], PACK_NAME, policy_config=config)
    assert report.violations == []
    assert kp.helm_release_pinned.config_schema.properties["allowedRepositories"]["default"] == \
        kp.DEFAULT_ALLOWED_REPOSITORIES


# --- namespace-pod-security-enforce -----------------------------------------------------------------------------
def namespace(name: str, level=None) -> dict:
    labels = {} if level is None else {kp.ENFORCE_LABEL: level}
    return {"metadata": {"name": name, "labels": labels}}


def test_namespace_with_enforce_label_passes():
    assert messages(run(res(NS, "a", namespace("a", "restricted")), policy=PSA), PSA) == []


@pytest.mark.parametrize("props, expected", [
    (namespace("a"), "has no pod-security.kubernetes.io/enforce label"),
    (namespace("a", "strict"), "is 'strict'"),
    ({"metadata": {"name": "a"}}, "has no pod-security.kubernetes.io/enforce label"),
    (namespace("a", U), "unknown during preview"),
    ({"metadata": {"name": "a", "labels": U}}, "unknown during preview"),
])
def test_namespace_without_valid_enforce_label_fails(props, expected):
    [message] = messages(run(res(NS, "a", props), policy=PSA), PSA)
    assert expected in message


# --- rdma-pods-in-privileged-namespaces --------------------------------------------------------------------------
def deployment(ns="research", host_network=True, privileged=False, caps=(), kind=DEPLOYMENT) -> dict:
    container = {"name": "c", "image": "x:1", "securityContext": {"privileged": privileged,
                                                                  "capabilities": {"add": list(caps)}}}
    pod = {"hostNetwork": host_network, "containers": [container]}
    if kind == CRONJOB:
        return {"metadata": {"namespace": ns}, "spec": {"jobTemplate": {"spec": {"template": {"spec": pod}}}}}
    return {"metadata": {"namespace": ns}, "spec": {"template": {"spec": pod}}}


def test_rdma_pod_in_privileged_namespace_passes():
    ns = res(NS, "research", namespace("research", "privileged"))
    for kind in (DEPLOYMENT, JOB, CRONJOB):
        report = run(ns, res(kind, "w", deployment(kind=kind, caps=["IPC_LOCK"], privileged=True)), policy=RDMA)
        assert report.violations == [], kind


def test_plain_pod_anywhere_passes():
    ns = res(NS, "analytics", namespace("analytics", "restricted"))
    assert run(ns, res(DEPLOYMENT, "w", deployment("analytics", host_network=False)), policy=RDMA).violations == []


@pytest.mark.parametrize("kwargs, expected", [
    ({"host_network": True}, "hostNetwork: true"),
    ({"host_network": False, "caps": ["CAP_IPC_LOCK"]}, "containers[c] adds IPC_LOCK"),
    ({"host_network": False, "privileged": True}, "containers[c] privileged: true"),
    ({"host_network": False, "kind": CRONJOB, "caps": ["IPC_LOCK"]}, "adds IPC_LOCK"),
])
def test_rdma_pod_in_restricted_namespace_fails(kwargs, expected):
    ns = res(NS, "analytics", namespace("analytics", "restricted"))
    kind = kwargs.get("kind", DEPLOYMENT)
    report = run(ns, res(kind, "w", deployment("analytics", **kwargs)), policy=RDMA)
    [message] = messages(report, RDMA)
    assert expected in message and "namespace 'analytics'" in message and "not privileged" in message
    assert report.violations[0].urn.endswith("::w") and has_mandatory(report)


def test_namespace_followed_through_the_property_dependency():
    """The workload's namespace name is unknown (an output of the Namespace): the rule follows the dependency."""
    restricted = res(NS, "team", namespace("team", "restricted"))
    workload = res(DEPLOYMENT, "w", deployment(U), deps={"metadata": [restricted]})
    [message] = messages(run(restricted, workload, policy=RDMA), RDMA)
    assert "not privileged" in message
    privileged = res(NS, "team", namespace("team", "privileged"))
    assert run(privileged, res(DEPLOYMENT, "w", deployment(U), deps={"metadata": [privileged]}),
               policy=RDMA).violations == []


@pytest.mark.parametrize("resources, expected", [
    (lambda: [res(DEPLOYMENT, "w", deployment(U))], "cannot be verified"),
    (lambda: [res(DEPLOYMENT, "w", deployment("elsewhere"))], "cannot be verified"),
    (lambda: [res(NS, "research", namespace("research", U)), res(DEPLOYMENT, "w", deployment())],
     "cannot be verified"),
    (lambda: [res(NS, "research", namespace("research", "restricted")),
              res(DEPLOYMENT, "w", {"metadata": {"namespace": "research"}, "spec": {"template": {"spec": U}}})],
     "may use hostNetwork, privileged containers or IPC_LOCK"),
    (lambda: [res(NS, "research", namespace("research", "restricted")),
              res(DEPLOYMENT, "w", {"metadata": {"namespace": "research"},
                                    "spec": {"template": {"spec": {"hostNetwork": U, "containers": []}}}})],
     "may use hostNetwork (unknown during preview)"),
])
def test_unknowns_fail_closed(resources, expected):
    report = run(*resources(), policy=RDMA)
    [message] = messages(report, RDMA)
    assert expected in message and report.not_run == []


def test_unknown_pod_spec_in_a_privileged_namespace_passes():
    ns = res(NS, "research", namespace("research", "privileged"))
    workload = res(DEPLOYMENT, "w", {"metadata": {"namespace": "research"}, "spec": {"template": {"spec": U}}})
    assert run(ns, workload, policy=RDMA).violations == []


def test_external_privileged_namespaces_from_policy_config():
    workload = res(DEPLOYMENT, "w", deployment("elsewhere"))
    config = {"all": "disabled", RDMA: {"enforcementLevel": "mandatory", "privilegedNamespaces": ["elsewhere"]}}
    assert evaluate(POLICIES, [workload], PACK_NAME, policy_config=config).violations == []


def test_pod_privileges_reads_proxied_props():
    spec = {"hostNetwork": False, "containers": [{"name": "a", "securityContext": {"capabilities": {"add": [U]}}}]}
    assert kp.pod_privileges(proxied(spec)) == ["containers[a] may add IPC_LOCK (its capabilities are unknown "
                                                "during preview)"]


# --- a hand-written stack (raw pulumi_kubernetes, no oke-rdma components) -----------------------------------------
def _hand_written(level: str, host_network: bool = True, pin: str = "2.20.2", unknowns: bool = False):
    def program():
        provider = k8s.Provider("k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        opts = pulumi.ResourceOptions(provider=provider)
        ns = k8s.core.v1.Namespace("team", metadata=k8s.meta.v1.ObjectMetaArgs(
            name="team", labels={kp.ENFORCE_LABEL: level}), opts=opts)
        k8s.core.v1.ResourceQuota("gpu", metadata=k8s.meta.v1.ObjectMetaArgs(name="gpu", namespace=ns.metadata.name),
                                  spec={"hard": {"requests.nvidia.com/gpu": "8"}}, opts=opts)  # a GPU tenant
        k8s.helm.v3.Release("keda", k8s.helm.v3.ReleaseArgs(
            chart="keda", version=pin, namespace=ns.metadata.name,
            repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo="https://kedacore.github.io/charts")), opts)
        k8s.apps.v1.Deployment("trainer", k8s.apps.v1.DeploymentInitArgs(
            metadata=k8s.meta.v1.ObjectMetaArgs(namespace=ns.metadata.name),
            spec=k8s.apps.v1.DeploymentSpecArgs(
                selector=k8s.meta.v1.LabelSelectorArgs(match_labels={"app": "t"}),
                template=k8s.core.v1.PodTemplateSpecArgs(
                    metadata=k8s.meta.v1.ObjectMetaArgs(labels={"app": "t"}),
                    spec=k8s.core.v1.PodSpecArgs(host_network=host_network, containers=[
                        k8s.core.v1.ContainerArgs(name="t", image="nvcr.io/nvidia/pytorch:25.03-py3")])))), opts)

    return run_program({}, [], "dev", program=program, unknowns=unknowns)


@pytest.mark.parametrize("unknowns", [False, True])
def test_hand_written_stack_host_network_in_restricted_namespace_is_a_violation(unknowns):
    """The must-fail input, in an update and in a first preview (the namespace comes from the Namespace's output,
    so the Deployment also has a property dependency on it)."""
    recorded = _hand_written("restricted", unknowns=unknowns)
    trainer = next(r for r in recorded.resources if r.name == "trainer")
    team = next(r for r in recorded.resources if r.name == "team")
    assert trainer.property_dependencies["metadata"] == [team.urn]
    report = evaluate(POLICIES, recorded.resources, PACK_NAME)
    [violation] = report.violations
    assert violation.policy == RDMA and violation.enforcement_level == "mandatory"
    assert "Deployment 'trainer' (hostNetwork: true) is in namespace" in violation.message
    assert "whose Pod Security enforce level is not privileged" in violation.message
    assert has_mandatory(report)


def test_hand_written_stack_passes_when_the_namespace_is_privileged():
    assert evaluate(POLICIES, _hand_written("privileged").resources, PACK_NAME).violations == []
    assert evaluate(POLICIES, _hand_written("restricted", host_network=False).resources, PACK_NAME).violations == []


def test_hand_written_stack_with_a_chart_range_is_a_violation():
    report = evaluate(POLICIES, _hand_written("privileged", pin="^2.20").resources, PACK_NAME)
    assert [v.policy for v in report.violations] == [PINNED]


# --- the namespace is metadata.namespace, not any Namespace metadata depends on ------------------------------------
def test_known_namespace_wins_over_a_label_dependency_on_a_privileged_namespace():
    privileged = res(NS, "rdma", namespace("rdma", "privileged"))
    restricted = res(NS, "team", namespace("team", "restricted"))
    sneaky = deployment("team")
    sneaky["metadata"]["labels"] = {"owner": "rdma"}
    [message] = messages(run(privileged, restricted, res(DEPLOYMENT, "w", sneaky, deps={"metadata": [privileged]}),
                             policy=RDMA), RDMA)
    assert "namespace 'team'" in message and "not privileged" in message
    legit = deployment("rdma")
    legit["metadata"]["labels"] = {"owner": "team"}
    assert run(privileged, restricted, res(DEPLOYMENT, "w", legit, deps={"metadata": [restricted]}),
               policy=RDMA).violations == []


def test_unknown_namespace_with_a_non_namespace_dependency_fails_closed():
    privileged = res(NS, "rdma", namespace("rdma", "privileged"))
    other = res("kubernetes:core/v1:ConfigMap", "cm", {"data": {"ns": "kube-system"}})
    workload = res(DEPLOYMENT, "w", deployment(U), deps={"metadata": [privileged, other]})
    [message] = messages(run(privileged, other, workload, policy=RDMA), RDMA)
    assert "cannot be verified" in message


# --- ALL includes IPC_LOCK; patches and custom-resource jobs are workloads too --------------------------------------
def test_capability_all_counts_as_ipc_lock():
    ns = res(NS, "analytics", namespace("analytics", "restricted"))
    [message] = messages(run(ns, res(DEPLOYMENT, "w", deployment("analytics", host_network=False, caps=["ALL"])),
                             policy=RDMA), RDMA)
    assert "containers[c] adds ALL (includes IPC_LOCK)" in message
    privileged = res(NS, "analytics", namespace("analytics", "privileged"))
    assert run(privileged, res(DEPLOYMENT, "w", deployment("analytics", host_network=False, caps=["ALL"])),
               policy=RDMA).violations == []


@pytest.mark.parametrize("kind", ["kubernetes:apps/v1:DeploymentPatch", "kubernetes:batch/v1:JobPatch",
                                  "kubernetes:apps/v1:DaemonSetPatch", "kubernetes:batch/v1:CronJobPatch"])
def test_patches_are_inspected(kind):
    ns = res(NS, "analytics", namespace("analytics", "restricted"))
    props = deployment("analytics", kind=CRONJOB if kind.endswith("CronJobPatch") else DEPLOYMENT)
    [message] = messages(run(ns, res(kind, "w", props), policy=RDMA), RDMA)
    assert "hostNetwork: true" in message and "not privileged" in message
    assert run(res(NS, "analytics", namespace("analytics", "privileged")), res(kind, "w", props),
               policy=RDMA).violations == []


POD = {"hostNetwork": True, "containers": [{"name": "c", "securityContext": {"privileged": True}}]}
CUSTOM = [
    ("kubernetes:kubeflow.org/v1:PyTorchJob", {"pytorchReplicaSpecs": {"Worker": {"template": {"spec": POD}}}},
     "pytorchReplicaSpecs.Worker: hostNetwork: true"),
    ("kubernetes:kubeflow.org/v2beta1:MPIJob", {"mpiReplicaSpecs": {"Launcher": {"template": {"spec": {}}},
                                                                    "Worker": {"template": {"spec": POD}}}},
     "mpiReplicaSpecs.Worker: containers[c] privileged: true"),
    ("kubernetes:kubeflow.org/v1:TFJob", {"tfReplicaSpecs": {"PS": {"template": {"spec": POD}}}},
     "tfReplicaSpecs.PS: hostNetwork"),
    ("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet",
     {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": {"spec": POD}}}}]},
     "replicatedJobs[0]: hostNetwork"),
    ("kubernetes:ray.io/v1:RayJob", {"rayClusterSpec": {"headGroupSpec": {"template": {"spec": {}}},
                                                        "workerGroupSpecs": [{"template": {"spec": POD}}]}},
     "workerGroupSpecs[0]: hostNetwork"),
    ("kubernetes:ray.io/v1:RayCluster", {"headGroupSpec": {"template": {"spec": POD}}}, "headGroupSpec: hostNetwork"),
]


@pytest.mark.parametrize("kind, spec, expected", CUSTOM)
def test_custom_resource_jobs_are_inspected(kind, spec, expected):
    props = {"apiVersion": kind.split(":")[1], "kind": kind.split(":")[2], "metadata": {"namespace": "analytics"},
             "spec": spec}
    [message] = messages(run(res(NS, "analytics", namespace("analytics", "restricted")), res(kind, "w", props),
                             policy=RDMA), RDMA)
    assert expected in message and "not privileged" in message
    assert run(res(NS, "analytics", namespace("analytics", "privileged")), res(kind, "w", props),
               policy=RDMA).violations == []


@pytest.mark.parametrize("spec", [U, {"pytorchReplicaSpecs": U},
                                  {"pytorchReplicaSpecs": {"Worker": {"template": {"spec": U}}}}])
def test_custom_resource_unknown_parts_fail_closed(spec):
    kind = "kubernetes:kubeflow.org/v1:PyTorchJob"
    props = {"metadata": {"namespace": "analytics"}, "spec": spec}
    [message] = messages(run(res(NS, "analytics", namespace("analytics", "restricted")), res(kind, "w", props),
                             policy=RDMA), RDMA)
    assert "unknown during preview" in message


def test_any_custom_resource_embedding_a_pod_spec_is_judged():
    """An operator's custom resource of a kind the pack does not name is still read: every map under spec with a
    containers list is a pod spec."""
    props = {"metadata": {"namespace": "analytics"}, "spec": {"template": {"spec": POD}}}
    [message] = messages(run(res(NS, "analytics", namespace("analytics", "restricted")),
                             res("kubernetes:example.com/v1:Widget", "w", props), policy=RDMA), RDMA)
    assert "spec.template.spec: hostNetwork: true" in message


def test_custom_resource_without_a_pod_spec_is_ignored():
    props = {"metadata": {"namespace": "analytics"}, "spec": {"template": {"replicas": 3, "hostNetwork": True}}}
    assert run(res(NS, "analytics", namespace("analytics", "restricted")),
               res("kubernetes:example.com/v1:Widget", "w", props), policy=RDMA).violations == []
