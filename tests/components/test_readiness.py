"""Readiness gates: every custom resource waits for a Job that dry-runs its kind through the API server and the
webhooks, and that Job waits for the release installing the CRDs; the Job's RBAC and Pod are least-privilege."""

from __future__ import annotations

import pytest
import yaml

from oke_rdma.readiness import BACKOFF_LIMIT, Probe, probe_manifest
from offline.engine import run_program
from tests.crddeps import crd_dependency_problems, gate_problems
from tests.stackcfg import dev_raw_config, of_type, one

JOB = "kubernetes:batch/v1:Job"
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"
RELEASE = "kubernetes:helm.sh/v3:Release"
GATE = "okerdma-dev-kueue-gate-job"


def _run(**overrides):
    return run_program(dev_raw_config(**overrides), [], "dev", unknowns=False)


@pytest.fixture(scope="module")
def dev():
    return _run()


def _kueue_release(run):
    return next(r for r in of_type(run.resources, RELEASE) if r.inputs["name"] == "kueue")


def test_every_kueue_resource_depends_on_the_gate_which_depends_on_the_release(dev):
    gate = one(dev.resources, JOB, GATE)
    assert _kueue_release(dev).urn in gate.dependencies
    crs = [r for r in dev.resources if r.type.startswith(KUEUE)]
    assert {r.type.split(":")[-1] for r in crs} == {"Topology", "ResourceFlavor", "ClusterQueue", "LocalQueue"}
    for r in crs:
        assert gate.urn in r.dependencies, r.name


def test_every_custom_resource_in_the_plan_has_a_gate_probing_its_kind(dev):
    """The class: any custom resource (any release's group) waits for a gate that dry-runs exactly its kind."""
    assert crd_dependency_problems(dev.resources) == []
    assert gate_problems(dev.resources) == []


def test_the_gate_check_fails_for_a_resource_without_a_gate(dev):
    """The check itself can fail: strip the gate from one ClusterQueue's dependencies."""
    import dataclasses
    gate = one(dev.resources, JOB, GATE)
    cq = next(r for r in dev.resources if r.type == KUEUE + "ClusterQueue")
    stripped = dataclasses.replace(cq, dependencies=[d for d in cq.dependencies if d != gate.urn])
    resources = [stripped if r is cq else r for r in dev.resources]
    [line] = gate_problems(resources)
    assert cq.name in line and "ClusterQueue" in line


def test_probe_dry_runs_each_created_kind_server_side(dev):
    cm = one(dev.resources, "kubernetes:core/v1:ConfigMap", "okerdma-dev-kueue-gate-probe")
    docs = list(yaml.safe_load_all(cm.inputs["data"]["probe.yaml"]))
    assert {(d["apiVersion"], d["kind"]) for d in docs} == {
        ("kueue.x-k8s.io/v1beta2", k) for k in ("Topology", "ResourceFlavor", "ClusterQueue", "LocalQueue")}
    lq = next(d for d in docs if d["kind"] == "LocalQueue")
    assert lq["metadata"] == {"generateName": "okerdma-dev-readiness-probe-", "namespace": "kueue-system"}
    job = one(dev.resources, JOB, GATE)
    spec = job.inputs["spec"]
    assert spec["backoffLimit"] == BACKOFF_LIMIT and spec["activeDeadlineSeconds"] > 0
    pod = spec["template"]["spec"]
    assert pod["restartPolicy"] == "Never"
    [c] = pod["containers"]
    assert c["image"] == "registry.k8s.io/kubectl:v1.35.2"  # the cluster's version
    assert c["args"][:2] == ["create", "--dry-run=server"] and "/probe/probe.yaml" in c["args"]
    assert job.inputs["metadata"]["namespace"] == "kueue-system"


def test_probe_pod_meets_restricted_pod_security(dev):
    pod = one(dev.resources, JOB, GATE).inputs["spec"]["template"]["spec"]
    [c] = pod["containers"]
    sc = c["securityContext"]
    assert sc["runAsNonRoot"] is True and sc["runAsUser"] != 0 and sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"] == {"drop": ["ALL"]} and sc["readOnlyRootFilesystem"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert not pod.get("hostNetwork")


def test_probe_rbac_is_create_only_on_the_probed_resources(dev):
    roles = {r.name: r.inputs["rules"] for r in of_type(dev.resources, "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole")
             if r.name.startswith("okerdma-dev-kueue-gate")}
    assert roles == {
        "okerdma-dev-kueue-gate-cluster-role": [{"apiGroups": ["kueue.x-k8s.io"], "verbs": ["create"],
                                                 "resources": ["clusterqueues", "resourceflavors", "topologies"]}],
        "okerdma-dev-kueue-gate-namespace-role": [{"apiGroups": ["kueue.x-k8s.io"], "verbs": ["create"],
                                                   "resources": ["localqueues"]}]}
    binding = one(dev.resources, "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding", "okerdma-dev-kueue-gate-binding")
    assert binding.inputs["metadata"]["namespace"] == "kueue-system"  # namespaced kinds only there


def test_no_kueue_gate_without_kueue():
    run = _run(platform={"kueue": {"enabled": False}})
    assert not [r for r in of_type(run.resources, JOB) if "kueue-gate" in r.name]
    assert gate_problems(run.resources) == []  # the PrometheusRule keeps its own gate


def test_the_prometheus_rule_waits_for_a_gate_on_kube_prometheus_stack():
    """The monitoring component's PrometheusRule (a custom resource behind the operator's admission webhook) waits
    for a gate Job probing PrometheusRule; without kube-prometheus-stack there is neither."""
    run = _run()
    (gate,) = [r for r in of_type(run.resources, JOB) if "monitoring-gate" in r.name]
    rule = one(run.resources, "kubernetes:monitoring.coreos.com/v1:PrometheusRule")
    assert gate.urn in rule.dependencies
    off = _run(platform={"kubePrometheusStack": {"enabled": False}})
    assert not [r for r in of_type(off.resources, JOB) if "monitoring-gate" in r.name]


def test_gate_probes_only_what_is_created():
    """Without tenants there are no queues: the gate probes Topology and ResourceFlavor only."""
    run = _run(tenants=None)
    cm = one(run.resources, "kubernetes:core/v1:ConfigMap", "okerdma-dev-kueue-gate-probe")
    kinds = {d["kind"] for d in yaml.safe_load_all(cm.inputs["data"]["probe.yaml"])}
    assert kinds == {"Topology", "ResourceFlavor"}
    assert gate_problems(run.resources) == []


def test_probe_manifest_namespaces_only_namespaced_kinds():
    text = probe_manifest([Probe("g.io/v1", "A", "as", False, {"x": 1}), Probe("g.io/v1", "B", "bs", True)], "n", "ns")
    a, b = yaml.safe_load_all(text)
    assert a["metadata"] == {"generateName": "n-"} and a["spec"] == {"x": 1}
    assert b["metadata"] == {"generateName": "n-", "namespace": "ns"}


def test_the_prod_stack_plan_has_no_ungated_custom_resource():
    """The production stack (more add-ons on) keeps the class: every custom resource waits for a gate."""
    from offline.stackfile import read_stack_file
    from pathlib import Path
    raw, secrets = read_stack_file(Path(__file__).resolve().parents[2] / "Pulumi.prod.yaml")
    run = run_program(raw, secrets, "prod", unknowns=False)
    assert [r for r in run.resources if r.type.startswith("kubernetes:kueue.x-k8s.io/")]
    assert gate_problems(run.resources) == []
