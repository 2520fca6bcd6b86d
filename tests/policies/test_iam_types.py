"""One table (``policies/security/iam_types.py``) maps what the catalogue refuses or judges as a stack resource to
the IAM resource types whose grant creates it at run time; every such type is judged by iam-no-run-time-undo (groups
outside adminGroups, workloads), iam-no-node-access or iam-no-identity-escalation (every subject)."""
from __future__ import annotations

import pytest

from oke_rdma.facts import iam as facts
from policies.security import _catalogue, identity, iam_reach, iam_types, node_access
from tests.policies.test_iam_reach import undo

NOT_REVIEWED = _catalogue._NOT_REVIEWED
ENTRIES = {k: v for d in (_catalogue.TYPES, _catalogue.GROUPS) for k, v in d.items()
           if k.startswith("oci:") and v["verdict"] != _catalogue.HARMLESS}
JUDGED_TYPES = sorted(t for t in iam_types.iam_types()
                      if t not in node_access.NODE_ACCESS_TYPES and t not in node_access.NODE_ACCESS_FAMILIES
                      and t not in identity.IAM_RESOURCE_TYPES)


def node(statement: str) -> list[str]:
    return node_access.node_access(node_access.parse_statement(statement))


def test_every_refused_or_judged_oci_entry_maps_to_iam_types_or_says_why_not():
    own_reason = {k for k, v in ENTRIES.items() if NOT_REVIEWED not in v["reason"]}
    mapped, unmapped = set(iam_types.CATALOGUE_IAM_TYPES), set(iam_types.UNMAPPED)
    assert own_reason - mapped - unmapped == set()
    assert mapped & unmapped == set()
    assert (mapped | unmapped) <= set(ENTRIES)  # no stale key
    assert all(reason.strip() for reason in iam_types.UNMAPPED.values())


def test_every_mapped_iam_type_is_judged_by_one_rule_and_known_to_the_config():
    judged = (set(iam_reach.REACH_TYPES) | set(node_access.NODE_ACCESS_TYPES) | set(node_access.NODE_ACCESS_FAMILIES)
              | identity.IAM_RESOURCE_TYPES)
    assert iam_types.iam_types() - judged == set()
    assert iam_types.iam_types() <= facts.ALL_RESOURCE_TYPES
    assert set(iam_types.FAMILY_MEMBERS) <= facts.ALL_RESOURCE_TYPES


@pytest.mark.parametrize("iam_type", JUDGED_TYPES)
def test_a_group_granted_a_catalogue_type_at_its_write_verb_is_refused_and_read_passes(iam_type):
    least = iam_reach.REACH_TYPES[iam_type][0]
    [message] = undo(f"Allow group research-team to {least} {iam_type} in tenancy")
    assert iam_type in message
    assert undo(f"Allow group research-team to read {iam_type} in tenancy") == []
    assert undo(f"Allow group NetAdmins to manage {iam_type} in tenancy", admins=["netadmins"]) == []


@pytest.mark.parametrize("statement,token", [
    ("Allow group g to manage vtaps in tenancy", "oci:Core/vtap:Vtap"),
    ("Allow group g to manage zpr-family in tenancy", "oci:Zpr"),
    ("Allow group g to manage network-firewall-family in tenancy", "oci:NetworkFirewall"),
    ("Allow group g to manage load-balancers in compartment id ocid1.compartment.oc1..p", "no-public-endpoints"),
    ("Allow group g to manage serviceconnectors in tenancy", "oci:Sch"),
    ("Allow group g to manage cloud-guard-family in tenancy", "oci:CloudGuard"),
    ("Allow group g to manage compute-management-family in tenancy", "instance-configurations"),
    ("Allow group g to use repos in tenancy", "oci:Artifacts/containerRepository"),
    ("Allow any-user to manage network-load-balancers in tenancy where all {request.principal.type = 'workload',"
     " request.principal.namespace = 'ml', request.principal.service_account = 'sa', "
     "request.principal.cluster_id = 'ocid1.cluster.oc1..k'}", "no-public-endpoints"),
])
def test_the_message_names_what_the_catalogue_says_about_it(statement, token):
    [message] = undo(statement)
    assert token in message


@pytest.mark.parametrize("statement", [
    "Allow group g to manage management-agents in tenancy",
    "Allow group g to manage cluster-virtualnode-pools in tenancy",
    "Allow group g to manage cluster-family in tenancy",
    "Allow group g to {MGMT_AGENT_DEPLOY_PLUGIN_CREATE} in tenancy",
])
def test_management_agent_plugins_and_virtual_node_pools_are_node_access(statement):
    assert node(statement)


@pytest.mark.parametrize("statement", [
    "Allow group g to use management-agents in tenancy",
    "Allow group g to read cluster-virtualnode-pools in tenancy",
    "Allow group g to manage management-agents in tenancy where request.permission = 'MGMT_AGENT_UPDATE'",
])
def test_below_the_write_verb_or_narrowed_management_agent_grants_are_not_node_access(statement):
    assert node(statement) == []


@pytest.mark.parametrize("statement", [
    "Allow group research-team to read secret-bundles in tenancy",
    "Allow group research-team to read secret-family in tenancy",
    "Allow group research-team to read objects in tenancy",
    "Allow group research-team to read object-family in tenancy",
    "Allow group research-team to read all-resources in tenancy",
])
def test_a_group_reading_every_tenants_secrets_or_objects_in_tenancy_is_refused(statement):
    assert undo(statement)


@pytest.mark.parametrize("statement", [
    "Allow group research-team to read secret-bundles in tenancy where target.secret.name = 'research-token'",
    "Allow group research-team to read objects in tenancy where target.bucket.name = 'research-data'",
    "Allow group research-team to read objects in compartment id ocid1.compartment.oc1..research",
    "Allow group research-team to read secrets in tenancy",
    "Allow group research-team to inspect all-resources in tenancy",
])
def test_pinned_compartment_scoped_or_metadata_reads_pass(statement):
    assert undo(statement) == []
    assert undo(statement.replace("read objects in tenancy", "read objects in tenancy"), admins=["x"]) == []


def test_read_all_resources_for_an_admin_group_passes():
    assert undo("Allow group Auditors to read all-resources in tenancy", admins=["auditors"]) == []


def test_the_program_and_the_pack_hold_the_same_families():
    assert facts.RUN_TIME_UNDO_FAMILIES == iam_types.FAMILY_MEMBERS


@pytest.mark.parametrize("statement", [
    "Allow group research-team to manage zpr-policies in tenancy",
    "Allow group research-team to manage virtual-node-pools in tenancy",
    "Allow group research-team to use made-up-things in compartment id ocid1.compartment.oc1..p",
])
def test_a_group_using_or_managing_a_type_no_reference_page_lists_is_refused(statement):
    [message] = undo(statement)
    assert "names a resource type no policy reference page" in message


def test_a_read_of_an_unknown_type_and_an_administrators_grant_pass():
    assert undo("Allow group research-team to read zpr-policies in tenancy") == []
    assert undo("Allow group research-team to manage zpr-policies in tenancy", admins=["research-team"]) == []


def test_the_program_and_the_pack_know_the_same_resource_types():
    from policies.security import iam_vocabulary
    assert iam_vocabulary.KNOWN_RESOURCE_TYPES == facts.ALL_RESOURCE_TYPES
