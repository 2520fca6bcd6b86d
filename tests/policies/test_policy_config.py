"""Per-rule policy config: each parameter changes the verdict, and bad values are refused like the Pulumi CLI does."""
from __future__ import annotations

import re

import pytest
from pulumi_policy import ResourceValidationArgs

from offline.policy_eval import PolicyConfigError, evaluate_packs, resolve_policy_config
from policies.placement import placement
from policies.security import network
from policies import PACK_DIRS
from tests.policies.test_policies import (POLICIES, API, API_STACK, CLUSTER, NODE_POOL, NSG_RULE, PLACEMENT, SL, U, cluster,
                                 endpoint_stack, pool, proxied, res, rule, urn)


def run_with(*resources, policy: str, **props):
    """Only ``policy`` (mandatory), configured with ``props``."""
    config = {"all": "disabled", policy: {"enforcementLevel": "mandatory", **props}}
    return evaluate_packs(PACK_DIRS, list(resources), [config] * len(PACK_DIRS))


def messages(report, policy):
    return [v.message for v in report.violations if v.policy == policy]


# --- allowedShapes ------------------------------------------------------------------------------------------------
def shaped(shape, cc_id="ocid1.computecluster.oc1..x"):
    return res(NODE_POOL, "gpu", {**pool(cc_id), "nodeShape": shape})


def test_default_allowed_shapes_are_oracles_rdma_list():
    assert resolve_policy_config(POLICIES)[PLACEMENT].properties == {"allowedShapes": list(
        placement.ORACLE_RDMA_SHAPES)}
    for shape in placement.ORACLE_RDMA_SHAPES:
        assert run_with(shaped(shape), policy=PLACEMENT).violations == []
    [m] = messages(run_with(shaped("BM.GPU.L40S.4"), policy=PLACEMENT), PLACEMENT)
    assert "nodeShape is 'BM.GPU.L40S.4', which is not a shape allowed in a Compute Cluster" in m


def test_allowed_shapes_parameter_changes_the_verdict():
    custom = {"allowedShapes": ["BM.GPU.L40S.4"]}
    assert run_with(shaped("BM.GPU.L40S.4"), policy=PLACEMENT, **custom).violations == []
    [m] = messages(run_with(shaped("BM.GPU.H100.8"), policy=PLACEMENT, **custom), PLACEMENT)
    assert "'BM.GPU.H100.8'" in m and "(BM.GPU.L40S.4)" in m


def test_shapes_outside_a_compute_cluster_are_not_checked():
    cpu = res(NODE_POOL, "cpu", {**pool(None), "nodeShape": "VM.Standard.E5.Flex"})
    assert run_with(cpu, policy=PLACEMENT).violations == []


def test_unknown_or_missing_shape_fails_closed():
    [m] = messages(run_with(shaped(U, cc_id=U), policy=PLACEMENT), PLACEMENT)
    assert "nodeShape is unknown during preview" in m
    no_shape = res(NODE_POOL, "gpu", {k: v for k, v in pool("cc").items() if k != "nodeShape"})
    [m] = messages(run_with(no_shape, policy=PLACEMENT), PLACEMENT)
    assert "nodeShape is not set" in m


@pytest.mark.parametrize("value, expected", [
    ([], "allowedShapes: [] should be non-empty"),
    (["BM.GPU.H100.8", "BM.GPU.H100.8"], "has non-unique elements"),
    ("BM.GPU.H100.8", "is not of type 'array'"),
    (["BM GPU"], "does not match"),
])
def test_bad_allowed_shapes_are_refused(value, expected):
    with pytest.raises(PolicyConfigError, match=re.escape(expected)) as e:
        resolve_policy_config(POLICIES, {PLACEMENT: {"allowedShapes": value}})
    assert all(p.startswith(f"{PLACEMENT}: ") for p in e.value.problems)


# --- allowedApiCidrs ----------------------------------------------------------------------------------------------
OFFICE = rule(source="203.0.113.0/24")


def test_without_allowed_cidrs_only_the_internet_is_refused():
    assert resolve_policy_config(POLICIES)[API].properties == {"allowedApiCidrs": []}
    assert run_with(res(NSG_RULE, "office", OFFICE), policy=API).violations == []


@pytest.mark.parametrize("allowed, ok", [
    (["10.0.0.0/16"], False),
    (["203.0.113.0/24"], True),
    (["203.0.0.0/16", "10.0.0.0/16"], True),  # a source inside a wider allowed range
    (["203.0.113.0/25"], False),  # the source is wider than the allowed range
    (["2001:db8::/32"], False),
])
def test_allowed_api_cidrs_change_the_resource_rule_verdict(allowed, ok):
    report = run_with(res(NSG_RULE, "office", OFFICE), policy=API, allowedApiCidrs=allowed)
    assert (report.violations == []) is ok
    if not ok:
        assert "from a source outside allowedApiCidrs" in report.violations[0].message


def test_allowed_api_cidrs_cover_security_lists_and_ignore_other_ports_and_nsg_sources():
    entry = {"protocol": "6", "source": "198.51.100.0/24", "tcpOptions": {"min": 6443.0, "max": 6443.0}}
    [m] = messages(run_with(res(SL, "cp", {"ingressSecurityRules": [entry]}), policy=API,
                            allowedApiCidrs=["10.0.0.0/8"]), API)
    assert "security list 'cp' ingressSecurityRules[0]" in m
    harmless = [rule(source="198.51.100.0/24", ports=(443, 443)), rule(source=U, source_type="NETWORK_SECURITY_GROUP"),
                rule(source="198.51.100.0/24", direction="EGRESS")]
    for props in harmless:
        assert run_with(res(NSG_RULE, "r", props), policy=API, allowedApiCidrs=["10.0.0.0/8"]).violations == []


def test_allowed_api_cidrs_with_an_unknown_source_fail_closed():
    [m] = messages(run_with(res(NSG_RULE, "r", rule(source=U)), policy=API, allowedApiCidrs=["10.0.0.0/8"]), API)
    assert "cannot be verified during preview because source is unknown" in m  # one message, not two


def test_internet_is_refused_whatever_the_allowed_cidrs():
    report = run_with(res(NSG_RULE, "r", rule()), policy=API, allowedApiCidrs=["0.0.0.0/0"])
    [m] = messages(report, API)
    assert "opens the Kubernetes API port (TCP 6443) to the internet" in m


def test_allowed_api_cidrs_change_the_stack_rule_verdict():
    stack = endpoint_stack(rule(source="203.0.113.0/24"))
    assert run_with(*stack, policy=API_STACK).violations == []
    [v] = run_with(*stack, policy=API_STACK, allowedApiCidrs=["10.0.0.0/16"]).violations
    assert v.urn == stack[1].urn and "has a public API endpoint: NSG rule 'cp-6443'" in v.message
    assert run_with(*stack, policy=API_STACK, allowedApiCidrs=["203.0.113.0/24"]).violations == []


@pytest.mark.parametrize("value", [["banana"], "10.0.0.0/8", [10], ["10.0.0.0"]])
def test_bad_allowed_api_cidrs_are_refused(value):
    with pytest.raises(PolicyConfigError, match=f"^{API}: allowedApiCidrs"):
        resolve_policy_config(POLICIES, {API: {"allowedApiCidrs": value}})


def test_a_cidr_the_schema_lets_through_but_ipaddress_refuses_fails_closed():
    args = ResourceValidationArgs(NSG_RULE, proxied(OFFICE), urn(NSG_RULE, "r"), "r", None, None,  # type: ignore
                                  {"allowedApiCidrs": ["999.0.0.0/8"]})
    found = []
    network.validate_kubernetes_api_not_public(args, lambda m, u=None: found.append(m))
    assert len(found) == 1 and "'999.0.0.0/8' is not a CIDR" in found[0]


def test_cluster_endpoint_checks_do_not_depend_on_allowed_cidrs():
    assert run_with(res(CLUSTER, "oke", cluster(public=False)), policy=API,
                    allowedApiCidrs=["10.0.0.0/8"]).violations == []
