"""Principal sets and targets wider than they read: a dynamic group's matching rule must pin its members to ids or
compartments (resource.type, tags and != never do); a grant pinned by name or id to a bucket the stack protects may
not delete its objects or versions, change its access or mint pre-authenticated requests, whatever the name's case;
an any-user statement of any resource-principal type but workload, cluster and nodepool pins the principal; a bucket
pin does not narrow bucket administration."""
from __future__ import annotations

import pytest

from policies.security import iam_principals
from tests.policies.test_iam_reach import WL, pinned, undo
from tests.policies.test_policies import U, call_resource_rule, messages, res, run

DG = "oci:Identity/dynamicGroup:DynamicGroup"
C = "ocid1.compartment.oc1..aaaaaaaacomp"
KEPT = "iam-protected-bucket-kept"


def dynamic_group(rule) -> list[str]:
    return call_resource_rule(iam_principals.validate_dynamic_group_pinned, DG,
                              {"compartmentId": "ocid1.tenancy.oc1..t", "name": "g", "description": "d",
                               "matchingRule": rule})


@pytest.mark.parametrize("rule", [
    "ANY {resource.type = 'instance'}",
    "resource.type = 'fnfunc'",
    "ALL {resource.type = 'datasciencejob', tag.team.owner.value = 'ml'}",
    "ALL {instance.compartment.id != 'ocid1.compartment.oc1..other'}",
    f"ANY {{instance.compartment.id = '{C}', resource.type = 'apigateway'}}",
    "ALL {instance.compartment.id = /ocid1.compartment.*/}",
    "tag.team.owner.value",
    "ALL {instance.id = 'ocid1.instance.oc1..a'} trailing",
    U,
])
def test_a_matching_rule_that_admits_unpinned_principals_or_cannot_be_read_is_refused(rule):
    (message,) = dynamic_group(rule)
    assert message.startswith("DynamicGroup 'r' ") and "compartment" in message


@pytest.mark.parametrize("rule", [
    f"ALL {{resource.type = 'filesystem', resource.compartment.id = '{C}'}}",
    f"instance.compartment.id = '{C}'",
    f"Any {{instance.id = 'ocid1.instance.oc1..a', All {{resource.type = 'fnfunc', resource.compartment.id = '{C}'}}}}",
    f"ALL {{resource.id = 'ocid1.fnfunc.oc1..f', tag.team.owner.value = 'ml'}}",
])
def test_a_matching_rule_pinned_to_ids_or_compartments_passes(rule):
    assert dynamic_group(rule) == []


def protected_stack(statement: str, protect: bool = True, name="model-weights"):
    bucket = res("oci:ObjectStorage/bucket:Bucket", "weights",
                 {"compartmentId": C, "namespace": "ns", "name": name, "versioning": "Enabled"},
                 {"compartmentId": C, "namespace": "ns", "name": name, "versioning": "Enabled",
                  "id": "ocid1.bucket.oc1..weights"} if name is not U else None)
    bucket.protect = protect
    policy = res("oci:Identity/policy:Policy", "p", {"compartmentId": C, "description": "d",
                                                      "statements": [statement]})
    return bucket, policy


@pytest.mark.parametrize("statement", [
    f"Allow any-user to manage objects in compartment id {C} where all {{{WL}, target.bucket.name = 'model-weights'}}",
    f"Allow group Data to manage objects in compartment id {C} where target.bucket.name = 'MODEL-WEIGHTS'",
    f"Allow group Data to use buckets in compartment id {C} where target.bucket.name = 'Model-Weights'",
    f"Allow group Data to {{OBJECT_VERSION_DELETE}} in compartment id {C} where target.bucket.name = 'model-weights'",
    f"Allow group Data to manage object-family in tenancy where target.bucket.id = 'ocid1.bucket.oc1..weights'",
])
def test_a_destructive_grant_pinned_to_the_protected_bucket_is_refused(statement):
    got = messages(run(*protected_stack(statement), policy=KEPT), KEPT)
    assert len(got) == 1 and "protected bucket" in got[0], got


@pytest.mark.parametrize("statement, protect", [
    (f"Allow group Data to manage objects in compartment id {C} where target.bucket.name = 'scratch'", True),
    (f"Allow group Data to read objects in compartment id {C} where target.bucket.name = 'MODEL-WEIGHTS'", True),
    (f"Allow group Data to {{OBJECT_CREATE, OBJECT_OVERWRITE}} in compartment id {C} where all "
     "{target.bucket.name = 'model-weights', target.object.name = /research.checkpoints*/}", True),
    (f"Allow group Data to manage objects in compartment id {C} where all {{target.bucket.name = 'model-weights', "
     "request.permission = 'OBJECT_READ'}", True),
    (f"Allow group Data to manage objects in compartment id {C} where target.bucket.name = 'model-weights'", False),
    (f"Allow service objectstorage-sa-saopaulo-1 to manage objects in compartment id {C} where "
     "target.bucket.name = 'model-weights'", True),
])
def test_reads_other_buckets_and_unprotected_ones_pass(statement, protect):
    assert messages(run(*protected_stack(statement, protect), policy=KEPT), KEPT) == []


def test_a_destructive_named_grant_beside_a_protected_bucket_of_unknown_name_is_refused():
    statement = f"Allow group Data to manage objects in compartment id {C} where target.bucket.name = 'scratch'"
    got = messages(run(*protected_stack(statement, name=U), policy=KEPT), KEPT)
    assert len(got) == 1 and "unknown during preview" in got[0], got


def test_admin_groups_listed_in_the_rule_config_may_manage_the_protected_bucket():
    from offline.policy_eval import evaluate_packs
    from policies import PACK_DIRS
    statement = (f"Allow group DataAdmins to manage objects in compartment id {C} where "
                 "target.bucket.name = 'model-weights'")
    config = {"all": "disabled", KEPT: {"enforcementLevel": "mandatory", "adminGroups": ["dataadmins"]}}
    report = evaluate_packs(PACK_DIRS, list(protected_stack(statement)), [config] * len(PACK_DIRS))
    assert messages(report, KEPT) == []


@pytest.mark.parametrize("kind", ["fnfunc", "datasciencejob", "dataflowrun", "user", "someday-new-type"])
def test_any_user_of_every_resource_principal_type_must_be_pinned(kind):
    statement = (f"Allow any-user to read objects in compartment id {C} where all {{request.principal.type = '{kind}', "
                 "target.bucket.name = 'model-weights'}")
    (message,) = pinned(statement)
    assert f"every '{kind}' principal" in message
    assert pinned(statement.replace("}", ", request.principal.id = 'ocid1.fnfunc.oc1..f'}")) == []


def test_okes_own_principal_types_are_left_to_their_rules():
    assert pinned(f"Allow any-user to use keys in compartment id {C} where all {{request.principal.type = 'cluster', "
                  "target.key.id = 'ocid1.key.oc1..k'}") == []


@pytest.mark.parametrize("statement", [
    f"Allow group Research to manage buckets in compartment id {C} where target.bucket.name = 'research-scratch'",
    f"Allow group Research to use buckets in compartment id {C} where target.bucket.name = 'research-scratch'",
    f"Allow any-user to use object-family in compartment id {C} where all {{{WL}, target.bucket.name = 'mine'}}",
])
def test_a_bucket_pin_does_not_narrow_bucket_administration(statement):
    (message,) = undo(statement)
    assert "statements[0]" in message


@pytest.mark.parametrize("statement", [
    f"Allow group Research to read buckets in compartment id {C} where target.bucket.name = 'research-scratch'",
    f"Allow group Research to use buckets in compartment id {C} where all {{target.bucket.name = 'research-scratch', "
    "request.permission = 'BUCKET_READ'}",
    f"Allow group Research to manage objects in compartment id {C} where target.bucket.name = 'research-scratch'",
])
def test_bucket_reads_and_a_named_buckets_objects_pass(statement):
    assert undo(statement) == []


def test_a_bucket_outside_the_stack_listed_in_protected_buckets_is_protected_too():
    from offline.policy_eval import evaluate_packs
    from policies import PACK_DIRS
    statement = (f"Allow group Data to manage objects in compartment id {C} where "
                 "target.bucket.name = 'Brought-Weights'")
    stack = [res("oci:Identity/policy:Policy", "p", {"compartmentId": C, "description": "d",
                                                     "statements": [statement]})]
    config = {"all": "disabled", KEPT: {"enforcementLevel": "mandatory", "protectedBuckets": ["brought-weights"]}}
    got = messages(evaluate_packs(PACK_DIRS, stack, [config] * len(PACK_DIRS)), KEPT)
    assert len(got) == 1 and "'brought-weights'" in got[0], got
    config[KEPT]["protectedBuckets"] = ["other"]
    assert messages(evaluate_packs(PACK_DIRS, stack, [config] * len(PACK_DIRS)), KEPT) == []
