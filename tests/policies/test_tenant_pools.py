"""Where a tenant's GPU pods may land (tenant-pods-scheduled-by-the-platform, ``_tenant_pools``): the set of pools a
pod spec reaches — nodeSelector on any label AND one required node-affinity term, every operator, against the pools
the stack declares — must be within its tenant's Kueue pools, or the pod is refused; what cannot be bounded is
refused too."""
from __future__ import annotations

import base64

import pytest

from policies.security import tenant_pods
from policies.security._gpu_pods import asks_for_gpus, device_resources
from policies.security._node_selection import Requirement, branches, pin, unmet
from tests.policies.test_policies import NODE_POOL, U, res
from tests.policies.test_tenant_isolation import tenant, violations

KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"
POOL = "okerdma.io/node-pool"
IMG = "nvcr.io/nvidia/pytorch:25.01-py3"
TOLERATE = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def queue(ns, *flavors):
    return res(KUEUE + "ClusterQueue", f"cq-{ns}", {"metadata": {"name": ns}, "spec": {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}},
        "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [{"name": f} for f in flavors]}]}})


def flavor(pool):
    return res(KUEUE + "ResourceFlavor", f"rf-{pool}", {"metadata": {"name": pool},
                                                         "spec": {"nodeLabels": {POOL: pool}}})


def node_pool(pool, shape, user_data=None):
    meta = {"nodeMetadata": {"user_data": user_data}} if user_data else {}
    return res(NODE_POOL, f"np-{pool}", {"nodeShape": shape, "initialNodeLabels": [{"key": POOL, "value": pool}],
                                         **meta})


STACK = [tenant("analytics"), tenant("research"), flavor("gpu"), flavor("shared"), queue("research", "gpu"),
         queue("analytics", "shared")]
POOLS = [node_pool("gpu", "BM.GPU.H100.8"), node_pool("shared", "VM.GPU.A10.2")]


def spec(resources=None, **extra):
    return {"containers": [{"name": "c", "image": IMG, "resources": {"limits": resources or {"nvidia.com/gpu": 1}}}],
            "tolerations": TOLERATE, **extra}


def pod(s, ns="analytics", labels=None):
    return res("kubernetes:core/v1:Pod", "w", {"metadata": {"name": "w", "namespace": ns, **(
        {"labels": labels} if labels else {})}, "spec": s})


def required(*terms):
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


def expr(op, *values, key=POOL):
    return {"key": key, "operator": op, **({"values": list(values)} if values else {})}


def refused(*resources):
    return violations(tenant_pods.SCHEDULING, *STACK, *resources)


# --- every way of selecting nodes -----------------------------------------------------------------------------------
@pytest.mark.parametrize("s", [
    spec(affinity=required({"matchExpressions": [expr("NotIn", "shared", "system")]})),
    spec(affinity=required({"matchExpressions": [expr("Exists")]})),
    spec(affinity=required({"matchExpressions": [expr("DoesNotExist")]})),
    spec(affinity=required({"matchExpressions": [expr("Gt", "0")]})),
    spec(affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "preference": {"matchExpressions": [expr("In", "shared")]}}]}}),
    spec(nodeSelector={"node.kubernetes.io/instance-type": "BM.GPU.H100.8"}),
    spec(nodeSelector={"okerdma.io/role": "gpu"}),
    spec(),
    spec(affinity=required({"matchExpressions": [expr("In", "shared")]}, {"matchExpressions": [expr("In", "gpu")]})),
    spec(nodeSelector={POOL: "gpu"}),
    spec(affinity=required({"matchExpressions": [expr("In", "shared", "gpu")]})),
    spec(nodeSelector=U),
    spec(nodeSelector={POOL: U}),
    spec(affinity=required(U)),
], ids=["notin-own", "exists", "does-not-exist", "gt", "preferred-only", "instance-type", "other-label",
        "no-selection", "or-of-terms", "selector-other-pool", "in-with-another-pool", "unknown-selector",
        "unknown-pool", "unknown-term"])
def test_a_gpu_pod_that_may_land_beyond_its_pools_is_refused(s):
    assert refused(pod(s))


@pytest.mark.parametrize("s", [
    spec(nodeSelector={POOL: "shared"}),
    spec(affinity=required({"matchExpressions": [expr("In", "shared")]})),
    spec(nodeSelector={POOL: "shared"}, affinity=required({"matchExpressions": [expr("NotIn", "gpu")]})),
    spec(affinity=required({"matchExpressions": [expr("In", "shared", "gpu"), expr("NotIn", "gpu")]})),
    spec(affinity=required({"matchExpressions": [expr("In", "shared")]}, {})),
    spec(nodeSelector={POOL: "shared"}, affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
            expr("In", "shared")]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 100, "preference": {"matchExpressions": [expr("In", "gpu")]}}]}}),
], ids=["selector", "required-in", "selector-and-notin", "in-less-notin", "empty-term-matches-nothing",
        "required-own-preferred-other"])
def test_a_gpu_pod_bounded_to_its_pools_passes(s):
    assert refused(pod(s)) == []


# --- the pools' declared labels -------------------------------------------------------------------------------------
def test_a_pool_label_pin_narrowed_by_the_instance_type_the_pools_declare():
    """In [shared, gpu] with the A10 shape: the H100 pool's nodes never match, so only shared is reached."""
    s = spec(affinity=required({"matchExpressions": [
        expr("In", "shared", "gpu"), expr("In", "VM.GPU.A10.2", key="node.kubernetes.io/instance-type")]}))
    assert refused(*POOLS, pod(s)) == []
    s["affinity"] = required({"matchExpressions": [
        expr("In", "shared", "gpu"), expr("In", "BM.GPU.H100.8", key="node.kubernetes.io/instance-type")]})
    assert refused(*POOLS, pod(s))


def test_an_instance_type_selector_alone_is_refused_even_when_only_own_pools_have_that_shape():
    """Nodes the stack does not declare (another stack's pool, a node joined by hand) may have the shape too."""
    s = spec(nodeSelector={"node.kubernetes.io/instance-type": "VM.GPU.A10.2"})
    found = refused(*POOLS, pod(s))
    assert found and "nodes the stack does not declare" in found[0] and "pool gpu" not in found[0]


@pytest.mark.parametrize("user_data", [
    base64.b64encode(b"#!/bin/bash\noke bootstrap --kubelet-extra-args '--node-labels=x=y'\n").decode(),
    base64.b64encode(b"#include\nhttps://example.com/boot\n").decode(), U])
def test_a_pool_whose_labels_cloud_init_may_change_is_never_ruled_out(user_data):
    s = spec(affinity=required({"matchExpressions": [
        expr("In", "shared", "gpu"), expr("In", "VM.GPU.A10.2", key="node.kubernetes.io/instance-type")]}))
    assert refused(node_pool("gpu", "BM.GPU.H100.8", user_data), node_pool("shared", "VM.GPU.A10.2"), pod(s))


# --- GPU-class devices ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("resources, extra", [
    ({"nvidia.com/mig-1g.10gb": 1}, {}), ({"nvidia.com/gpu.shared": 1}, {}), ({"example.com/renamed-gpu": 1}, {}),
    ({"cpu": "1"}, {"resourceClaims": [{"name": "g", "resourceClaimTemplateName": "gpus"}]}),
    ({"cpu": "1"}, {}),
], ids=["mig", "time-sliced", "renamed", "dra-claim", "toleration-only"])
def test_every_gpu_class_pod_is_judged(resources, extra):
    assert refused(pod(spec(resources, nodeSelector={POOL: "gpu"}, **extra)))


@pytest.mark.parametrize("resources", [{"cpu": "1", "memory": "1Gi", "hugepages-2Mi": "1Gi"}, {"nvidia.com/gpu": "0"}],
                         ids=["native", "zero"])
def test_a_pod_without_devices_or_the_gpu_toleration_is_not_a_gpu_pod(resources):
    s = {"containers": [{"name": "c", "image": IMG, "resources": {"limits": resources}}],
         "nodeSelector": {POOL: "gpu"}}
    assert refused(pod(s)) == []


def test_device_resources_names_what_the_pod_takes():
    assert device_resources({"initContainers": [{"resources": {"requests": {"nvidia.com/mig-3g.40gb": "1"}}}],
                             "containers": []}) == ["nvidia.com/mig-3g.40gb"]
    assert asks_for_gpus({"containers": [{"resources": {"limits": U}}]})
    assert not asks_for_gpus({"containers": [{"resources": {"limits": {"cpu": "2"}}}]})


# --- pod templates, queues, unknown pools --------------------------------------------------------------------------
@pytest.mark.parametrize("type_, props", [
    ("kubernetes:apps/v1:Deployment", {"spec": {"template": {"spec": spec()}}}),
    ("kubernetes:batch/v1:Job", {"spec": {"template": {"spec": spec()}}}),
    ("kubernetes:kubeflow.org/v1:PyTorchJob", {"spec": {"pytorchReplicaSpecs": {"Worker": {"template": {
        "spec": spec()}}}}}),
    ("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet", {"spec": {"replicatedJobs": [{"name": "w", "template": {
        "spec": {"template": {"spec": spec()}}}}]}}),
], ids=["deployment", "job", "pytorchjob", "jobset"])
def test_unbounded_gpu_pod_templates_are_refused_unless_queued(type_, props):
    meta = {"name": "w", "namespace": "analytics"}
    assert refused(res(type_, "w", {"metadata": meta, **props}))
    queued = {"metadata": {**meta, "labels": {"kueue.x-k8s.io/queue-name": "analytics"}}}
    assert refused(res(type_, "w", {**props, **queued})) == []


def test_a_queued_pod_pinning_another_tenants_pool_is_refused():
    """Kueue would never admit it there, but the pin says what it wants: refused as before."""
    assert refused(pod(spec(nodeSelector={POOL: "gpu"}), labels={"kueue.x-k8s.io/queue-name": "analytics"}))


def test_a_gpu_pod_of_a_namespace_no_queue_selects_is_refused():
    found = violations(tenant_pods.SCHEDULING, tenant("analytics"), pod(spec(nodeSelector={POOL: "shared"})))
    assert found and "no ClusterQueue of the stack selects this namespace" in found[0]


def test_the_research_tenant_on_its_dedicated_pool_passes():
    assert refused(pod(spec(nodeSelector={POOL: "gpu"}), ns="research")) == []


# --- the selection reader --------------------------------------------------------------------------------------------
def test_branches_and_the_pool_pin():
    s = {"nodeSelector": {"a": "1"}, **{"affinity": required({"matchExpressions": [expr("In", "x", "y")]},
                                                             {"matchExpressions": [expr("Exists")]}, {})}}
    found = branches(s)
    assert len(found) == 2  # the empty third term matches nothing
    assert pin(found[0], POOL) == frozenset({"x", "y"}) and pin(found[1], POOL) is None
    assert all(Requirement("a", "In", ("1",)) in b.requirements for b in found)


@pytest.mark.parametrize("requirement, labels, expected", [
    (Requirement("k", "Gt", ("3",)), {"k": "2"}, True), (Requirement("k", "Gt", ("3",)), {"k": "4"}, False),
    (Requirement("k", "Lt", ("3",)), {"k": "x"}, True), (Requirement("k", "DoesNotExist"), {"k": "v"}, True),
    (Requirement("k", "In", ("v",)), {}, False), (Requirement("k", "NotIn", ("v",)), {"k": "v"}, True),
    (Requirement("k", "Exists"), {"k": "v"}, False), (Requirement("k", "In", ("v",)), U, False),
], ids=["gt-below", "gt-above", "lt-not-integer", "does-not-exist-set", "absent-proves-nothing", "notin-value",
        "exists-set", "unknown-labels"])
def test_a_requirement_is_unmet_only_on_a_known_label(requirement, labels, expected):
    from policies.security._rules import UNKNOWN
    assert unmet(requirement, UNKNOWN if labels == U else labels) is expected


# --- Kubeflow Trainer: a TrainJob's pods are its runtime's -----------------------------------------------------------
TRAINER = "kubernetes:trainer.kubeflow.org/v1alpha1:"


def runtime(pod_spec, kind="TrainingRuntime"):
    meta = {"name": "rt", **({"namespace": "analytics"} if kind == "TrainingRuntime" else {})}
    return res(TRAINER + kind, "rt", {"metadata": meta, "spec": {"template": {"spec": {"replicatedJobs": [
        {"name": "node", "template": {"spec": {"template": {"spec": pod_spec}}}}]}}}})


def trainjob(queued=False, kind="TrainingRuntime", name="rt", overrides=None):
    meta = {"name": "tj", "namespace": "analytics",
            **({"labels": {"kueue.x-k8s.io/queue-name": "analytics"}} if queued else {})}
    spec = {"runtimeRef": {"apiGroup": "trainer.kubeflow.org", "kind": kind, "name": name}}
    if overrides:
        spec["podTemplateOverrides"] = [{"targetJobs": [{"name": "node"}], "spec": overrides}]
    return res(TRAINER + "TrainJob", "tj", {"metadata": meta, "spec": spec})


@pytest.mark.parametrize("resources", [
    [runtime(spec()), trainjob()],
    [runtime(spec(), "ClusterTrainingRuntime"), trainjob(kind="ClusterTrainingRuntime")],
    [trainjob(name="made-elsewhere")],
    [runtime(spec()), trainjob(queued=True, overrides={"nodeSelector": {POOL: "gpu"}})],
    [runtime(spec(nodeSelector={POOL: "shared"})), trainjob(overrides={"nodeSelector": {POOL: "gpu"}})],
    [runtime(spec(nodeSelector={POOL: "gpu"}))],
], ids=["runtime-unpinned", "cluster-runtime-unpinned", "runtime-elsewhere", "queued-override-other-pool",
        "override-moves-to-other-pool", "runtime-pins-other-pool"])
def test_a_trainjob_whose_pods_may_leave_its_pools_is_refused(resources):
    assert refused(*resources)


@pytest.mark.parametrize("resources", [
    [runtime(spec()), trainjob(queued=True)],
    [trainjob(queued=True, name="made-elsewhere")],
    [runtime(spec(nodeSelector={POOL: "shared"})), trainjob()],
    [runtime(spec())],
], ids=["queued", "queued-runtime-elsewhere", "runtime-pins-own-pool", "runtime-alone-is-a-template"])
def test_a_trainjob_placed_by_kueue_or_on_its_pools_passes(resources):
    assert refused(*resources) == []
