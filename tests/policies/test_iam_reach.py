"""IAM grants that undo the other rules at run time: an any-user statement of a tenancy-wide principal type
(instance, resource) must pin the principal or its compartment; a workload statement, or a group outside the policy
config's adminGroups, never gets a grant that changes the network's exposure, Vault keys, buckets' access and
versions, or File Storage exports — by type, family, all-resources or permission list. Reads, uses below the write
verb, bucket-pinned object grants and requests pinned to harmless permissions pass."""
from __future__ import annotations

import pytest
from pulumi_policy import ResourceValidationArgs

from oke_rdma.facts import iam as facts
from policies.security import iam_reach
from tests.policies.test_policies import call_resource_rule, proxied, urn

POLICY = "oci:Identity/policy:Policy"
C = "ocid1.compartment.oc1..aaaaaaaacomp"
WL = ("request.principal.type = 'workload', request.principal.namespace = 'ml', "
      "request.principal.service_account = 'sa', request.principal.cluster_id = 'ocid1.cluster.oc1..k'")


def pinned(*statements) -> list[str]:
    return call_resource_rule(iam_reach.validate_principal_type_pinned, POLICY,
                              {"compartmentId": C, "description": "d", "statements": list(statements)})


def undo(*statements, admins=None) -> list[str]:
    found: list[str] = []
    args = ResourceValidationArgs(POLICY, proxied({"compartmentId": C, "description": "d",
                                                   "statements": list(statements)}),
                                  urn(POLICY, "r"), "r", None, None,  # type: ignore[arg-type]
                                  {"adminGroups": admins} if admins is not None else None)
    iam_reach.validate_no_run_time_undo(args, lambda message, u=None: found.append(message))
    return found


@pytest.mark.parametrize("statement", [
    "Allow any-user to read objects in tenancy where request.principal.type = 'instance'",
    "Allow any-user to use secret-family in compartment id " + C + " where all {request.principal.type = 'resource',"
    " request.principal.compartment.id != 'x'}",
    "Allow any-user to read buckets in tenancy where any {request.principal.type = 'instance', "
    "request.principal.type = 'resource'}",
])
def test_a_tenancy_wide_principal_type_without_a_pin_is_refused(statement):
    (message,) = pinned(statement)
    assert "statements[0]" in message and "request.principal.compartment.id" in message


@pytest.mark.parametrize("statement", [
    "Allow any-user to read objects in tenancy where all {request.principal.type = 'instance', "
    f"request.principal.compartment.id = '{C}'}}",
    "Allow any-user to read objects in tenancy where all {request.principal.type = 'instance', "
    "request.principal.id = 'ocid1.instance.oc1..one'}",
    f"Allow any-user to read objects in tenancy where all {{{WL}}}",
    "Allow dynamic-group nodes to read objects in tenancy",
    "Allow any-user to {COMPUTE_CLUSTER_LAUNCH_INSTANCE} in tenancy where request.principal.type = 'nodepool'",
])
def test_a_pinned_or_narrow_principal_passes(statement):
    assert pinned(statement) == []


@pytest.mark.parametrize("statement", [
    f"Allow any-user to manage object-family in tenancy where all {{{WL}}}",
    f"Allow any-user to manage network-security-groups in compartment id {C} where all {{{WL}}}",
    f"Allow any-user to use buckets in compartment id {C} where all {{{WL}}}",
    f"Allow group Analysts to manage virtual-network-family in compartment id {C}",
    "Allow group Analysts to manage keys in tenancy",
    f"Allow group id ocid1.group.oc1..x to manage file-family in compartment id {C}",
    f"Allow dynamic-group batch to manage export-sets in compartment id {C}",
    "Allow group Analysts to use all-resources in tenancy",
    f"Allow group Analysts to {{EXPORT_UPDATE}} in compartment id {C}",
    f"Allow group Analysts to manage objects in compartment id {C} where request.permission = 'OBJECT_DELETE'",
])
def test_a_grant_that_changes_exposure_keys_or_data_is_refused(statement):
    (message,) = undo(statement)
    assert "statements[0]" in message and "adminGroups" in message


@pytest.mark.parametrize("statement", [
    f"Allow any-user to read objects in compartment id {C} where all {{{WL}}}",
    f"Allow any-user to manage objects in compartment id {C} where all {{{WL}, target.bucket.name = 'mine'}}",
    f"Allow group Analysts to use virtual-network-family in compartment id {C}",
    "Allow group Analysts to use keys in tenancy",
    f"Allow group Analysts to manage objects in compartment id {C} where request.permission = 'OBJECT_CREATE'",
    "Allow any-user to manage file-family in tenancy where all {request.principal.type = 'cluster', "
    "request.principal.id = 'ocid1.cluster.oc1..k'}",
    "Allow service objectstorage-us-ashburn-1 to manage keys in tenancy",
])
def test_reads_uses_pinned_and_service_grants_pass(statement):
    assert undo(statement) == []


def test_groups_listed_in_admin_groups_may_administer_and_others_may_not():
    text = f"Allow group NetAdmins to manage virtual-network-family in compartment id {C}"
    assert undo(text, admins=["netadmins"]) == []
    assert undo(f"Allow group id ocid1.group.oc1..adm to manage keys in tenancy", admins=["ocid1.group.oc1..adm"]) == []
    assert len(undo(text, admins=["other"])) == 1


def test_the_program_and_the_pack_hold_the_same_least_verbs():
    assert facts.RUN_TIME_UNDO_TYPES == {t: least for t, (least, _, _) in iam_reach.REACH_TYPES.items()}
