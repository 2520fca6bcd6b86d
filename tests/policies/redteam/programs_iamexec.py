"""IAM grants that reach the GPU nodes' operating system without any IAM administration: Run Command, the instance
API (boot-volume replacement, agent plugins, disk images), serial console connections, volume copies, node-pool and
cluster administration, joining nodes, Bastion managed SSH and OS management — by type, family or permission list,
for a group, a dynamic group or any-user. Each safe control keeps the grant's subject and location and reads
instead, or narrows the grant to what does not reach a node."""
from __future__ import annotations

from tests.policies.redteam.programs import C, case, statements

RULE = "iam-no-node-access"
WORKLOAD = ("where all {request.principal.type = 'workload', request.principal.namespace = 'research', "
            "request.principal.service_account = 'trainer', request.principal.cluster_id = "
            "'ocid1.cluster.oc1..aaaaaaaacluster'}")


def grant(subject: str, what: str, where: str = "") -> None:
    statements(f"Allow {subject} to {what} in compartment id {C}{' ' + where if where else ''}")


@case("identity", RULE)
def run_command_through_the_cloud_agent(bad):
    grant("group Ops", f"{'use' if bad else 'read'} instance-agent-command-family")


@case("identity", RULE)
def run_command_as_a_permission_list(bad):
    grant("group Ops", "{INSTANCE_AGENT_COMMAND_CREATE}" if bad else "{INSTANCE_AGENT_COMMAND_READ}")


@case("identity", RULE)
def run_command_turned_on_for_the_nodes(bad):
    grant("dynamic-group gpu-nodes", f"{'use' if bad else 'read'} instance-agent-command-execution-family")


@case("identity", RULE)
def instance_boot_volume_replaced_or_imaged(bad):
    permission = "INSTANCE_UPDATE" if bad else "INSTANCE_POWER_ACTIONS"
    grant("group Ops", "use instances", f"where request.permission = '{permission}'")


@case("identity", RULE)
def instance_family_managed(bad):
    grant("group Ops", f"{'manage' if bad else 'read'} instance-family")


@case("identity", RULE)
def serial_console_connection(bad):
    grant("group Ops", f"{'manage' if bad else 'read'} instance-console-connection")


@case("identity", RULE)
def node_boot_volumes_copied(bad):
    grant("group Ops", f"{'use' if bad else 'read'} volume-family")


@case("identity", RULE)
def node_pool_cloud_init_rewritten(bad):
    grant("group Ops", f"{'manage' if bad else 'read'} cluster-node-pools")


@case("identity", RULE)
def kubernetes_administered_through_iam(bad):
    grant("group Ops", f"{'manage' if bad else 'use'} clusters")


@case("identity", RULE)
def rogue_instances_join_the_cluster(bad):
    grant("dynamic-group extra-nodes", "{CLUSTER_JOIN}" if bad else "{CLUSTER_READ}")


@case("identity", RULE)
def bastion_managed_ssh_to_the_nodes(bad):
    kind = "managed_ssh" if bad else "port_forwarding"
    grant("group Ops", "manage bastion-session", f"where target.bastion-session.type = '{kind}'")


@case("identity", RULE)
def os_management_installs_packages(bad):
    grant("group Ops", f"{'manage' if bad else 'read'} osmh-managed-instances")


@case("identity", RULE)
def workload_runs_commands_on_its_own_nodes(bad):
    grant("any-user", f"{'use' if bad else 'read'} instance-agent-commands", WORKLOAD)


@case("identity", RULE)
def instance_pool_points_at_another_configuration(bad):
    grant("group Ops", f"{'manage' if bad else 'use'} compute-management-family")


@case("identity", RULE)
def custom_logs_read_node_files(bad):
    grant("group Ops", f"{'use' if bad else 'read'} unified-configuration")
