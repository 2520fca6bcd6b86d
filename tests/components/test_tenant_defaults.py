"""What each tenant namespace gets besides its quota and queues, under mocks (preview=False): default container
requests (never a default limit, never a GPU), the tenants' PriorityClasses (all below the system classes, none a
global default) and a quota that admits no pod at a system priority; every object valid for every Kubernetes minor OKE offers."""

from __future__ import annotations

import copy

import kubernetes_validate
import pytest

from oke_rdma.tenant_defaults import (DEFAULT_REQUEST, SYSTEM_PRIORITY_CLASSES, TENANT_PRIORITIES, manifests,
                                      priority_class_names)
from tests.k8s_schemas import SCHEMA_VERSIONS, validate_all  # noqa: E402,F401

MANIFESTS = manifests("okerdma-dev", {"research": "research", "analytics": "analytics"})
#: Kubernetes docs "Pod Priority and Preemption": user-defined classes may not exceed one billion; the system
#: classes are 2000000000 and 2000001000.
MAX_USER_PRIORITY = 1_000_000_000


@pytest.mark.parametrize("obj", MANIFESTS, ids=lambda o: f"{o['kind']}/{o['metadata'].get('namespace', '')}"
                                                         f"/{o['metadata']['name']}")
def test_objects_validate_against_the_kubernetes_schema(obj):
    validate_all(obj)


def test_schema_validation_catches_a_malformed_limit_range():
    bad = copy.deepcopy(next(o for o in MANIFESTS if o["kind"] == "LimitRange"))
    bad["spec"]["limits"][0]["defaultRequests"] = bad["spec"]["limits"][0].pop("defaultRequest")
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, SCHEMA_VERSIONS[-1], strict=True)


def test_priority_classes_stay_below_the_system_ones_and_none_is_global():
    classes = [o for o in MANIFESTS if o["kind"] == "PriorityClass"]
    assert [c["metadata"]["name"] for c in classes] == priority_class_names("okerdma-dev") == [
        "okerdma-dev-tenant-low", "okerdma-dev-tenant-normal", "okerdma-dev-tenant-high"]
    assert all(0 < c["value"] <= MAX_USER_PRIORITY and not c["globalDefault"] for c in classes)
    # A tenant's "high" never evicts another tenant's running pod: only Kueue preempts, by quota.
    assert all(c["preemptionPolicy"] == "Never" for c in classes)
    assert [c["value"] for c in classes] == sorted(TENANT_PRIORITIES.values())


def test_limit_range_sets_requests_only():
    """A default limit would cap (or refuse) training containers that state only requests; a default GPU request
    would hand GPUs to every pod."""
    for lr in (o for o in MANIFESTS if o["kind"] == "LimitRange"):
        (limit,) = lr["spec"]["limits"]
        assert limit == {"type": "Container", "defaultRequest": DEFAULT_REQUEST}
        assert "nvidia.com/gpu" not in limit["defaultRequest"]


def test_system_priority_quota_admits_no_pod_at_a_system_priority():
    quotas = [o for o in MANIFESTS if o["kind"] == "ResourceQuota"]
    assert {q["metadata"]["namespace"] for q in quotas} == {"research", "analytics"}
    for q in quotas:
        assert q["spec"]["hard"] == {"pods": "0"}
        assert q["spec"]["scopeSelector"]["matchExpressions"] == [
            {"scopeName": "PriorityClass", "operator": "In", "values": list(SYSTEM_PRIORITY_CLASSES)}]


@pytest.fixture(scope="module")
def dev(dev_run):
    return dev_run


def test_the_dev_stack_declares_them_in_each_tenant_namespace_after_it(dev):
    namespaces = {r.inputs["metadata"]["name"]: r.urn for r in dev.resources
                  if r.type == "kubernetes:core/v1:Namespace"}
    limits = [r for r in dev.resources if r.type == "kubernetes:core/v1:LimitRange"]
    assert sorted(r.inputs["metadata"]["namespace"] for r in limits) == ["analytics", "research"]
    for r in limits:
        assert namespaces[r.inputs["metadata"]["namespace"]] in r.dependencies
    quotas = [r for r in dev.resources if r.type == "kubernetes:core/v1:ResourceQuota"
              and r.inputs["metadata"]["name"] == "system-priority"]
    assert len(quotas) == 2
    classes = sorted(r.inputs["metadata"]["name"] for r in dev.resources
                     if r.type == "kubernetes:scheduling.k8s.io/v1:PriorityClass")
    assert classes == sorted(priority_class_names("okerdma-dev"))
