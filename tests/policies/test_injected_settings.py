"""Settings objects write into pods they do not declare are judged as if the pod spec held them
(policies/security/injected_settings.py): tolerations and node selectors from Kueue flavors, RuntimeClasses and a
tenant namespace's admission annotations; devices from LimitRange defaults and RuntimeClass overhead."""
from __future__ import annotations

import json

import pytest

from policies.security.injected_settings import DEVICES, SCHEDULING
from tests.policies.test_policies import U, messages, res, run

NS = "kubernetes:core/v1:Namespace"
QUOTA = "kubernetes:core/v1:ResourceQuota"
EVERY_TAINT = [{"operator": "Exists"}]
GPU_TAINT = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def tenant(name="research", annotations=None):
    meta = {"name": name, "labels": {"okerdma.io/tenant": name}, **({"annotations": annotations} if annotations
                                                                     else {})}
    return [res(NS, f"ns-{name}", {"metadata": meta}),
            res(QUOTA, f"q-{name}", {"metadata": {"name": "gpu", "namespace": name},
                                     "spec": {"hard": {"requests.nvidia.com/gpu": "8"}}})]


def flavor(spec, version="v1beta2", patch=False):
    kind = "ResourceFlavorPatch" if patch else "ResourceFlavor"
    return res(f"kubernetes:kueue.x-k8s.io/{version}:{kind}", "rf", {"apiVersion": f"kueue.x-k8s.io/{version}",
                                                                       "kind": kind, "metadata": {"name": "gpu"},
                                                                       "spec": spec})


def runtime_class(props):
    return res("kubernetes:node.k8s.io/v1:RuntimeClass", "rc", {"metadata": {"name": "kata"}, "handler": "kata",
                                                                  **props})


def limit_range(limits, ns="apps"):
    return res("kubernetes:core/v1:LimitRange", "lr", {"metadata": {"name": "defaults", "namespace": ns},
                                                       "spec": {"limits": limits}})


# --- injected-scheduling-judged-as-pod-specs --------------------------------------------------------------------

@pytest.mark.parametrize("made", [
    lambda t: flavor({"nodeLabels": {"okerdma.io/node-pool": "gpu"}, "tolerations": t}),
    lambda t: flavor({"tolerations": t}, version="v1beta1"),
    lambda t: flavor({"tolerations": t}, patch=True),
    lambda t: runtime_class({"scheduling": {"tolerations": t}}),
])
def test_a_flavor_or_runtime_class_tolerating_every_taint_is_refused_and_the_gpu_taint_passes(made):
    """Kueue writes a flavor's tolerations (RuntimeClass: its scheduling tolerations) into the pods: tolerating
    every taint is refused as it is in a tenant pod spec; the GPU taint with its key passes."""
    [found] = messages(run(*tenant(), made(EVERY_TAINT), policy=SCHEDULING), SCHEDULING)
    assert "tolerates every taint" in found
    assert messages(run(*tenant(), made(GPU_TAINT), policy=SCHEDULING), SCHEDULING) == []


def test_a_flavor_or_runtime_class_picking_one_node_by_name_is_refused():
    for made in (flavor({"nodeLabels": {"kubernetes.io/hostname": "10.0.16.5"}}),
                 runtime_class({"scheduling": {"nodeSelector": {"kubernetes.io/hostname": "10.0.16.5"}}})):
        [found] = messages(run(*tenant(), made, policy=SCHEDULING), SCHEDULING)
        assert "picks one node by name" in found


def test_unknown_flavor_settings_fail_closed():
    for spec in (U, {"tolerations": U}, {"nodeLabels": U}, {"tolerations": [U]}):
        assert messages(run(*tenant(), flavor(spec), policy=SCHEDULING), SCHEDULING), spec


def test_a_stack_without_tenants_leaves_flavors_alone():
    assert messages(run(flavor({"tolerations": EVERY_TAINT}), policy=SCHEDULING), SCHEDULING) == []


@pytest.mark.parametrize("annotations, refused", [
    ({"scheduler.alpha.kubernetes.io/defaultTolerations": json.dumps(EVERY_TAINT)}, "tolerates every taint"),
    ({"scheduler.alpha.kubernetes.io/node-selector": "okerdma.io/node-pool=gpu,kubernetes.io/hostname=n1"},
     "picks one node by name"),
    ({"scheduler.alpha.kubernetes.io/defaultTolerations": "not json"}, "no JSON list"),
    ({"scheduler.alpha.kubernetes.io/node-selector": "no-equals-sign"}, "key=value"),
    ({"scheduler.alpha.kubernetes.io/defaultTolerations": U}, "unknown"),
])
def test_a_tenant_namespaces_admission_annotations_are_judged_as_its_pods(annotations, refused):
    [found] = messages(run(*tenant(annotations=annotations), policy=SCHEDULING), SCHEDULING)
    assert refused in found


def test_safe_namespace_annotations_pass_and_non_tenant_namespaces_are_not_judged():
    safe = {"scheduler.alpha.kubernetes.io/defaultTolerations": json.dumps(GPU_TAINT),
            "scheduler.alpha.kubernetes.io/node-selector": "okerdma.io/node-pool=gpu"}
    assert messages(run(*tenant(annotations=safe), policy=SCHEDULING), SCHEDULING) == []
    other = res(NS, "ns-apps", {"metadata": {"name": "apps", "annotations": {
        "scheduler.alpha.kubernetes.io/defaultTolerations": json.dumps(EVERY_TAINT)}}})
    assert messages(run(*tenant(), other, policy=SCHEDULING), SCHEDULING) == []


# --- pod-defaults-give-no-devices ----------------------------------------------------------------------------

@pytest.mark.parametrize("resource", ["nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "rdma/rdma_shared_device_a",
                                      "nvidia.com/gpu.shared", "example.com/fpga"])
@pytest.mark.parametrize("key", ["default", "defaultRequest"])
def test_a_limit_range_defaulting_any_extended_resource_is_refused(resource, key):
    """In any namespace — a tenant's too — a default of an extended resource gives every container a device its
    spec never asked for."""
    for ns in ("apps", "research"):
        lr = limit_range([{"type": "Container", key: {"cpu": "1", resource: "1"}}], ns=ns)
        [found] = messages(run(*tenant(), lr, policy=DEVICES), DEVICES)
        assert resource in found and f".{key} gives" in found


def test_limit_ranges_of_cpu_memory_and_bounds_pass():
    lr = limit_range([{"type": "Container", "default": {"cpu": "2", "memory": "8Gi", "ephemeral-storage": "1Gi",
                                                        "hugepages-2Mi": "0", "nvidia.com/gpu": "0"},
                       "defaultRequest": {"cpu": "1"}, "max": {"nvidia.com/gpu": "8"},
                       "maxLimitRequestRatio": {"cpu": "4"}},
                      {"type": "PersistentVolumeClaim", "max": {"storage": "1Ti"}}])
    assert messages(run(lr, policy=DEVICES), DEVICES) == []


def test_unknown_limit_ranges_fail_closed():
    for limits in (U, [U], [{"type": "Container", "default": U}],
                   [{"type": "Container", "default": {"nvidia.com/gpu": U}}]):
        assert messages(run(limit_range(limits), policy=DEVICES), DEVICES), limits


def test_a_runtime_class_overhead_of_a_device_is_refused_and_cpu_overhead_passes():
    bad = runtime_class({"overhead": {"podFixed": {"cpu": "250m", "nvidia.com/gpu": "1"}}})
    [found] = messages(run(bad, policy=DEVICES), DEVICES)
    assert "overhead.podFixed adds nvidia.com/gpu" in found
    good = runtime_class({"overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}}})
    assert messages(run(good, policy=DEVICES), DEVICES) == []


def test_limit_ranges_in_a_list_or_rendered_from_helm_values_are_judged():
    item = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "d", "namespace": "apps"},
            "spec": {"limits": [{"type": "Container", "default": {"nvidia.com/gpu": "1"}}]}}
    listed = res("kubernetes:core/v1:LimitRangeList", "lrs", {"items": [item]})
    assert messages(run(listed, policy=DEVICES), DEVICES)
    release = res("kubernetes:helm.sh/v3:Release", "kps", {
        "chart": "kube-prometheus-stack", "version": "87.2.1", "namespace": "monitoring",
        "repositoryOpts": {"repo": "https://prometheus-community.github.io/helm-charts"},
        "values": {"extraManifests": [item]}})
    assert messages(run(release, policy=DEVICES), DEVICES)
