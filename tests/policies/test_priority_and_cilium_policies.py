"""Types the closed catalogue judges rather than refuses, because the platform declares them: a PriorityClass must
never preempt nor be the cluster's default; a Cilium policy may only deny, with default-deny kept off."""
from __future__ import annotations

import pytest

from oke_rdma.tenant_defaults import manifests
from oke_rdma.walls import TenantWall, policies
from policies.security.cilium_policies import validate_cilium_policy
from policies.security.priority import PRIORITY_CLASS, validate_priority_class
from tests.policies.test_policies import U, call_resource_rule

CCNP = "kubernetes:cilium.io/v2:CiliumClusterwideNetworkPolicy"
CNP = "kubernetes:cilium.io/v2:CiliumNetworkPolicy"
OFF = {"ingress": False, "egress": False}


def test_the_platforms_own_priority_classes_and_walls_pass():
    classes = [m for m in manifests("p", {"a": "a"}) if m["kind"] == "PriorityClass"]
    assert classes and all(call_resource_rule(validate_priority_class, PRIORITY_CLASS, c) == [] for c in classes)
    walls = policies("p", {"a": TenantWall("a", ()), "b": TenantWall("b", ("a",))})
    assert walls and all(call_resource_rule(validate_cilium_policy, CCNP, w) == [] for w in walls)


@pytest.mark.parametrize("props", [
    {"value": 1000},  # preemptionPolicy defaults to PreemptLowerPriority
    {"value": 1000, "preemptionPolicy": "PreemptLowerPriority"},
    {"value": 1, "preemptionPolicy": "Never", "globalDefault": True},
    {"value": 1, "preemptionPolicy": U},
    {"value": 1, "preemptionPolicy": "Never", "globalDefault": U},
])
def test_a_priority_class_that_preempts_or_is_the_default_is_refused(props):
    assert len(call_resource_rule(validate_priority_class, PRIORITY_CLASS, props)) == 1


@pytest.mark.parametrize("spec", [
    {"endpointSelector": {}, "ingress": [{"fromEntities": ["world"]}], "enableDefaultDeny": OFF},
    {"endpointSelector": {}, "egress": [{"toCIDR": ["0.0.0.0/0"]}], "enableDefaultDeny": OFF},
    {"endpointSelector": {}, "ingressDeny": [{"fromEntities": ["world"]}]},  # default-deny would turn on
    {"endpointSelector": {}, "ingressDeny": [], "enableDefaultDeny": {"ingress": True, "egress": False}},
    {"endpointSelector": {}, "ingress": U, "enableDefaultDeny": OFF},
])
def test_a_cilium_policy_that_allows_or_turns_default_deny_on_is_refused(spec):
    assert call_resource_rule(validate_cilium_policy, CCNP, {"spec": spec})
    assert call_resource_rule(validate_cilium_policy, CNP, {"metadata": {"namespace": "t"}, "spec": spec})


def test_every_spec_of_a_multi_spec_policy_is_read():
    deny = {"endpointSelector": {}, "egressDeny": [{"toCIDR": ["169.254.169.254/32"]}], "enableDefaultDeny": OFF}
    allow = {"endpointSelector": {}, "ingress": [{"fromEntities": ["all"]}], "enableDefaultDeny": OFF}
    assert call_resource_rule(validate_cilium_policy, CCNP, {"specs": [deny]}) == []
    assert call_resource_rule(validate_cilium_policy, CCNP, {"specs": [deny, allow]})
    assert call_resource_rule(validate_cilium_policy, CCNP, {"specs": U})
    assert call_resource_rule(validate_cilium_policy, CCNP, {}) == ["CiliumClusterwideNetworkPolicy: it has no spec; "
                                                                    "a stack's Cilium policies may only deny "
                                                                    "(ingressDeny, egressDeny) with enableDefaultDeny "
                                                                    "{ingress: false, egress: false}"]
