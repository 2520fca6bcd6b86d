"""IAM grants that reach the nodes' operating system — Run Command, UpdateInstance/CreateImage, serial console
connections, volume copies, node-pool and cluster administration, Bastion managed SSH, OS management — are refused
by type, family, all-resources or permission list, for any subject and in any location; reads, and grants a
``where`` clause narrows to requests that do not reach a node, pass. The config refuses the same grants for a
workload, judged from the same tables."""
from __future__ import annotations

import pytest
from pulumi_policy import EnforcementLevel

from oke_rdma.config.workload_identity import _parse_conditions, node_access as grant_node_access, parse_grant
from oke_rdma.facts import iam as facts
from policies.security import node_access
from policies.security.iam import parse_statement
from tests.policies.test_policies import U, call_resource_rule, messages, res, run

POLICY = "oci:Identity/policy:Policy"
RULE = "iam-no-node-access"
C = "ocid1.compartment.oc1..aaaaaaaacomp"
WL = ("where all {request.principal.type = 'workload', request.principal.namespace = 'ml', "
      "request.principal.service_account = 'sa', request.principal.cluster_id = 'ocid1.cluster.oc1..k'}")


def findings(*statements) -> list[str]:
    return call_resource_rule(node_access.validate_no_node_access, POLICY,
                              {"compartmentId": C, "description": "d", "statements": list(statements)})


@pytest.mark.parametrize("statement", [
    # Run Command (the reproduced gap) and its node side
    "Allow group Ops to use instance-agent-command-family in compartment id " + C,
    "Allow group Ops to manage instance-agent-command-family in tenancy",
    "Allow group Ops to use instance-agent-commands in compartment Workers",
    "Allow group Ops to {INSTANCE_AGENT_COMMAND_CREATE} in tenancy",
    "Allow dynamic-group nodes to use instance-agent-command-execution-family in compartment id " + C
    + " where request.instance.id = target.instance.id",
    # the instance itself: boot-volume replacement, agent plugins, disk images
    "Allow group Ops to use instances in compartment id " + C,
    "Allow group Ops to use instance-family in tenancy",
    "Allow group Ops to manage instance-family in tenancy",
    "Allow group Ops to {INSTANCE_UPDATE} in tenancy",
    "Allow group Ops to {INSTANCE_READ, INSTANCE_CREATE_IMAGE} in tenancy",
    "Allow group Ops to use instances in tenancy where request.permission = 'INSTANCE_UPDATE'",
    "Allow group Ops to use instances in tenancy where any {request.permission = 'INSTANCE_POWER_ACTIONS', "
    "request.permission = 'INSTANCE_CREATE_IMAGE'}",
    "Allow group Ops to use instances in tenancy where request.permission != 'INSTANCE_UPDATE'",
    # serial console
    "Allow group Ops to manage instance-console-connection in compartment id " + C,
    "Allow group Ops to {INSTANCE_CONSOLE_CONNECTION_CREATE} in tenancy",
    # disks
    "Allow group Ops to use volumes in compartment id " + C,
    "Allow group Ops to use volume-family in tenancy",
    # node pools and the cluster
    "Allow group Ops to manage cluster-node-pools in compartment id " + C,
    "Allow group Ops to manage cluster-node-pools in tenancy where target.nodepool.id = 'ocid1.nodepool.oc1..a'",
    "Allow group Ops to manage clusters in compartment id " + C,
    "Allow group Ops to manage cluster-family in tenancy",
    "Allow dynamic-group extra-nodes to {CLUSTER_JOIN} in compartment id " + C,
    "Allow group Ops to {CLUSTER_NODE_POOL_UPDATE} in tenancy",
    # instance pools and cluster networks pointed at another configuration; custom logs reading node files
    "Allow group Ops to manage compute-management-family in compartment id " + C,
    "Allow group Ops to manage instance-pools in tenancy",
    "Allow group Ops to {CLUSTER_NETWORK_UPDATE} in tenancy",
    "Allow group Ops to use unified-configuration in compartment id " + C,
    "Allow group Ops to manage logging-family in tenancy",
    # Bastion managed SSH
    "Allow group Ops to manage bastion-session in compartment id " + C,
    "Allow group Ops to manage bastion-family in tenancy",
    "Allow group Ops to manage bastion-session in tenancy where target.bastion-session.type = 'managed_ssh'",
    "Allow group Ops to manage bastion-session in tenancy where all {target.resource.ocid = "
    "'ocid1.instance.oc1..n', target.bastion-session.username = 'opc'}",
    # OS management
    "Allow group Ops to manage osmh-managed-instances in tenancy",
    "Allow group Ops to use osmh-family in compartment id " + C,
    "Allow dynamic-group nodes to use osms-managed-instances in compartment id " + C,
    "Allow group Ops to manage osms-scheduled-jobs in tenancy",
    # everything, and every kind of subject
    "Allow group Ops to use all-resources in compartment id " + C,
    "Allow any-user to use instance-agent-command-family in compartment id " + C
    + " where request.principal.type = 'workload'",
    "Allow any-group to manage instance-console-connection in tenancy",
    "Allow any-user to manage cluster-node-pools in compartment id " + C + " " + WL,
    "Allow service devops to use instance-agent-command-family in compartment id " + C,
    "Allow group 'Default'/'Ops' to use instance-agent-command-family in tenancy",
    "Allow group id ocid1.group.oc1..aaaaaaaaops to use instance-agent-command-family in tenancy",
])
def test_grants_that_reach_the_nodes_are_refused(statement):
    [message] = findings(statement)
    assert "statements[0]" in message and statement in message


@pytest.mark.parametrize("statement", [
    "Allow group Ops to read instance-agent-command-family in compartment id " + C,
    "Allow group Ops to inspect instance-agent-commands in tenancy",
    "Allow group Ops to read instance-family in tenancy",
    "Allow group Ops to use instances in tenancy where request.permission = 'INSTANCE_POWER_ACTIONS'",
    "Allow group Ops to use instances in tenancy where any {request.permission = 'INSTANCE_POWER_ACTIONS', "
    "request.permission = 'INSTANCE_READ'}",
    "Allow group Ops to use instance-console-connection in tenancy",
    "Allow group Ops to read volume-family in tenancy",
    "Allow group Ops to use cluster-node-pools in tenancy",
    "Allow group Ops to use clusters in compartment id " + C,
    "Allow group Ops to use cluster-family in tenancy",
    "Allow group Ops to manage cluster-workload-mappings in compartment id " + C,
    "Allow group Ops to manage instance-images in tenancy",
    "Allow group Ops to manage bastion in tenancy",
    "Allow group Ops to manage bastion-session in tenancy where all {target.bastion.ocid = 'ocid1.bastion.oc1..b', "
    "target.bastion-session.type = 'port_forwarding'}",
    "Allow group Ops to read osmh-family in tenancy",
    "Allow group Ops to manage instance-configurations in tenancy",
    "Allow group Ops to use compute-management-family in tenancy",
    "Allow group Ops to read logging-family in tenancy",
    "Allow group Ops to manage log-groups in tenancy",
    "Allow any-user to {COMPUTE_CLUSTER_LAUNCH_INSTANCE} in compartment id " + C
    + " where request.principal.type = 'nodepool'",
    "Allow any-user to use virtual-network-family in compartment id " + C + " where request.principal.type = "
    "'cluster'",
    "Allow group Ops to read all-resources in tenancy",
])
def test_reads_and_narrowed_grants_pass(statement):
    assert findings(statement) == []


@pytest.mark.parametrize("member", sorted(node_access.NODE_ACCESS_TYPES))
def test_every_member_is_refused_from_its_least_verb_and_not_below(member):
    least = node_access.NODE_ACCESS_TYPES[member][0]
    below = node_access.VERBS[node_access.VERBS.index(least) - 1]
    assert findings(f"Allow group Ops to {least} {member} in tenancy")
    assert findings(f"Allow group Ops to {below} {member} in tenancy") == []


@pytest.mark.parametrize("permission", sorted(node_access.NODE_ACCESS_PERMISSIONS))
def test_every_node_access_permission_in_a_list_is_refused(permission):
    [message] = findings(f"Allow group Ops to {{INSTANCE_READ, {permission}}} in tenancy")
    assert permission in message


def test_a_family_names_the_members_it_includes():
    [message] = findings("Allow group Ops to manage instance-family in tenancy")
    assert "use instances" in message and "manage instance-console-connection" in message


def test_each_offending_statement_is_reported_by_index_and_safe_ones_are_not():
    found = findings("Allow group Ops to read instances in tenancy",
                     "Allow group Ops to use instance-agent-command-family in tenancy",
                     "Allow group Ops to manage objects in tenancy",
                     "Allow group Ops to manage cluster-node-pools in tenancy")
    assert [m.split()[2] for m in found] == ["statements[1]", "statements[3]"]


def test_the_rule_is_in_the_security_pack_and_mandatory():
    report = run(res(POLICY, "p", {"compartmentId": C, "description": "d", "statements": [
        "Allow group Ops to use instance-agent-command-family in compartment id " + C]}), policy=RULE)
    [message] = messages(report, RULE)
    assert "Run Command" in message
    assert [v.pack for v in report.violations if v.policy == RULE] == ["oke-rdma-security"]
    assert node_access.iam_no_node_access.enforcement_level == EnforcementLevel.MANDATORY


def test_unknown_statements_are_left_to_the_engine_after_the_known_ones_are_checked():
    report = run(res(POLICY, "p", {"compartmentId": C, "description": "d", "statements": [
        "Allow group Ops to use instances in tenancy", U]}), policy=RULE)
    assert len(messages(report, RULE)) == 1


def test_the_program_and_the_pack_hold_the_same_tables():
    assert facts.NODE_ACCESS_TYPES == node_access.NODE_ACCESS_TYPES
    assert facts.NODE_ACCESS_FAMILIES == node_access.NODE_ACCESS_FAMILIES
    assert facts.PORT_FORWARDING_SESSION_TYPES == node_access.PORT_FORWARDING_SESSION_TYPES
    assert set(facts.NODE_ACCESS_TYPES) | set(facts.NODE_ACCESS_FAMILIES) <= facts.ALL_RESOURCE_TYPES


GRANTS = [f"{verb} {resource} in tenancy{where}"
          for verb in node_access.VERBS
          for resource in sorted(set(node_access.NODE_ACCESS_TYPES) | set(node_access.NODE_ACCESS_FAMILIES)
                                 | {"objects", "instance-images", "bastion"})
          for where in ("", " where request.permission = 'INSTANCE_POWER_ACTIONS'",
                        " where request.permission = 'INSTANCE_UPDATE'",
                        " where target.bastion-session.type = 'port_forwarding'")]


@pytest.mark.parametrize("grant", GRANTS)
def test_the_config_and_the_pack_judge_every_grant_alike(grant):
    statement = parse_statement(f"Allow any-user to {grant}")
    verb, resource = grant.split()[:2]
    where = grant.split(" where ")[1] if " where " in grant else ""
    conditions = _parse_conditions(where) if where else ()
    assert bool(grant_node_access(verb, resource, conditions)) == bool(node_access.node_access(statement))


@pytest.mark.parametrize("grant", [
    "use instance-agent-command-family in compartment id " + C,
    "use instances in tenancy",
    "manage instance-console-connection in tenancy",
    "use volume-family in compartment id " + C,
    "manage cluster-node-pools in compartment id " + C,
    "manage clusters in tenancy where target.cluster.id = 'ocid1.cluster.oc1..k'",
    "manage bastion-session in tenancy",
    "use osmh-managed-instances in tenancy",
    "use instance-agent-command-execution-family in tenancy",
])
def test_a_workload_grant_that_reaches_the_nodes_is_refused_by_the_config(grant):
    with pytest.raises(ValueError, match="reaches the nodes' operating system"):
        parse_grant(grant)


@pytest.mark.parametrize("grant", [
    "read instance-agent-command-family in compartment id " + C,
    "use instances in tenancy where request.permission = 'INSTANCE_POWER_ACTIONS'",
    "manage bastion-session in tenancy where target.bastion-session.type = 'port_forwarding'",
    "use clusters in compartment id " + C,
    "read osmh-family in tenancy",
])
def test_a_workload_grant_that_does_not_reach_the_nodes_passes_the_config(grant):
    assert parse_grant(grant).render()
