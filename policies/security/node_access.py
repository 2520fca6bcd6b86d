"""Node access through IAM: grants that run code on, open a shell into, or copy the disks of compute instances (the
cluster's GPU worker nodes), or change what those nodes boot and run — without any IAM administration.

OCI lets a principal reach an instance's operating system through several services, each gated by its own resource
type and verb (OCI IAM "Details for the Core Services", "Details for Kubernetes Engine", "Bastion IAM Policies",
OS Management Hub "Resource Types, Variables, and Permissions", OS Management "Policy Reference", "Details for
Logging"; the verb tables were read on 2026-12-01 from the policy reference pages, Core, Kubernetes Engine and
Logging revisions of 2025-01-23, 2024-08-13 and 2024-06-06):

* **Run Command** — ``use instance-agent-commands`` holds INSTANCE_AGENT_COMMAND_CREATE (CreateInstanceAgentCommand):
  a script the Oracle Cloud Agent runs on the node; any local process reads the node's instance-principal
  credentials from the metadata service. ``instance-agent-command-family`` covers ``instance-agent-commands``. The
  node side (``instance-agent-command-execution-family``, granted to the instances' dynamic group in Compute docs
  "Running Commands on an Instance") is what turns Run Command on for the instances the subject matches.
* **The instance itself** — ``use instances`` holds INSTANCE_UPDATE (UpdateInstance: replace the boot volume from
  any image, ``sourceDetails``; turn on agent plugins such as Run Command and Bastion, ``agentConfig``) and
  INSTANCE_CREATE_IMAGE (CreateImage: a copy of the boot disk, with the kubelet's client certificate). ``user_data``
  and ``ssh_authorized_keys`` cannot change after launch (OCI API "UpdateInstanceDetails"), so metadata is no path.
* **The serial console** — ``manage instance-console-connection`` holds INSTANCE_CONSOLE_CONNECTION_CREATE; with a
  reboot the console boots "into a bash shell in maintenance mode" (Compute docs "Troubleshooting Instances Using
  Instance Console Connections").
* **The disks** — ``use volumes`` (VOLUME_UPDATE, VOLUME_WRITE) is what CreateBootVolumeBackup, CreateVolumeBackup
  and AttachVolume need on the source volume: a copy of a node's boot volume, or the volume attached elsewhere.
* **The node pool** — ``manage cluster-node-pools`` holds CLUSTER_NODE_POOL_CREATE/UPDATE (UpdateNodePool: the
  nodes' image, cloud-init ``nodeMetadata.user_data`` and ``sshPublicKey``: every new node runs what it says).
* **The cluster** — ``manage clusters`` holds CLUSTER_MANAGE (``AdministerK8s``: OKE authorises a Kubernetes
  request when IAM *or* RBAC allows it, OKE docs "About Access Control and Kubernetes Engine"), CLUSTER_JOIN
  (JoinCluster: an instance joins as a node and is handed pods and their secrets) and CLUSTER_UPDATE.
  ``use clusters`` (CLUSTER_USE, CreateKubeconfig) is not a member: it authenticates, and Kubernetes RBAC (judged
  by ``kubernetes-rbac-no-escalation``) decides what the user may do.
* **Instance pools and cluster networks** — ``manage instance-pools`` holds INSTANCE_POOL_UPDATE and ``manage
  cluster-networks`` CLUSTER_NETWORK_UPDATE: both point pools at another instance configuration (OCI API
  "UpdateInstancePoolDetails", "UpdateClusterNetworkInstancePoolDetails" ``instanceConfigurationId``), so every
  instance they launch — self-managed RDMA nodes in a cluster network — runs its image and cloud-init. An instance
  configuration itself only changes its name and tags ("UpdateInstanceConfigurationDetails").
* **Custom logs** — ``use unified-configuration`` holds UNIFIED_AGENT_CONFIG_UPDATE (``manage``: CREATE) ("Details
  for Logging"): the agent configuration names the files the Oracle Cloud Agent on the targeted instances reads and
  ships to Logging, so any file of a node (the kubelet's keys, Secrets mounted into pods) can be read.
* **Bastion managed SSH** — ``manage bastion-session`` creates sessions; a managed-SSH session has the agent's
  Bastion plugin install the session key for an OS user. A condition pinning ``target.bastion-session.type`` to a
  port-forwarding type narrows it to a network path (OKE docs "Setting Up a Bastion for Cluster Access", "Setting
  up IAM policies to limit the use of bastions").
* **Management Agent plugins** — ``manage management-agents`` holds MGMT_AGENT_DEPLOY_PLUGIN_CREATE
  (DeployPlugins): plugins run on the hosts the agents are installed on ("Details for Management Agent", read
  2026-12-02; the catalogue refuses ``oci:ManagementAgent`` for the same reason).
* **Virtual node pools** — ``manage cluster-virtualnode-pools`` adds virtual nodes to the cluster with pod subnets
  and NSGs of the grantee's choice, as a node pool does ("Details for Kubernetes Engine", read 2026-12-02; its
  permission table was not read, so no ``request.permission`` pin exempts it).
* **OS management** — OS Management Hub (``osmh-*``) and OS Management (``osms-*``) install packages and attach
  software sources on registered instances, as root. Their verb tables were not read: ``use`` and ``manage`` are
  refused (fail closed).

Families expand to their members (``instance-family``, ``compute-management-family``, ``cluster-family``,
``volume-family``, ``logging-family``, ``bastion-family``, ``osmh-family``), and ``all-resources`` to every member; a ``{PERMISSION}`` list is judged by its permissions.
Every subject counts (a group, a dynamic group, ``any-user``, a service). Every location counts: a policy in a
parent compartment or the tenancy reaches the nodes' compartment by inheritance (IAM "Policy Inheritance"), and a
preview cannot see the compartment tree, so the pack refuses these grants wherever they point. A ``where`` clause
exempts a statement only when it pins ``request.permission`` to permissions none of which is listed here (e.g.
``use instances where request.permission = 'INSTANCE_POWER_ACTIONS'``), or pins a bastion session to port
forwarding.

Not members, with why: ``manage instance-images`` (CreateImage also needs ``use instances`` on the node; a new image
has a new OCID no node pool names), ``use compute-clusters``/``{COMPUTE_CLUSTER_LAUNCH_INSTANCE}`` (an instance
beside the nodes on the RDMA fabric is network adjacency, not access), ``manage instances`` beyond ``use``
(LaunchInstance starts a new instance; it joins the cluster only with CLUSTER_JOIN, listed), Resource Manager jobs
and DevOps deployments (they act with their own principal's grants, which are judged where they are written),
``use clusters`` (above).

| rule                 | kind     | checks                                                                           |
|----------------------|----------|----------------------------------------------------------------------------------|
| iam-no-node-access   | resource | no statement of an ``oci:Identity/policy:Policy`` grants a member above, through |
|                      |          | its type, a family, ``all-resources`` or a permission list                       |
"""
from __future__ import annotations

from typing import Optional

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy, Severity

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from .iam import (POLICY, Condition, Group, Leaf, Statement, StatementSyntaxError, _known_statements,
                      _leave_unknowns_to_engine, parse_statement)
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/security/
    from iam import (POLICY, Condition, Group, Leaf, Statement, StatementSyntaxError, _known_statements,
                     _leave_unknowns_to_engine, parse_statement)
    from _gate import examines

VERBS = ("inspect", "read", "use", "manage")

#: resource type -> (least verb that gives node access, the permissions of that verb and above that give it — None
#: when the service's permission table was not read, so no ``request.permission`` pin exempts it —, what it gives).
#: Sources and dates: the module docstring. ``oke_rdma.facts.iam.NODE_ACCESS_TYPES`` holds the same table (a test
#: keeps them equal) for the config's Workload Identity grants.
NODE_ACCESS_TYPES: dict[str, tuple[str, Optional[frozenset[str]], str]] = {
    "instance-agent-commands": ("use", frozenset({"INSTANCE_AGENT_COMMAND_CREATE"}),
                                "runs commands on the instances through the Oracle Cloud Agent (Run Command, as its "
                                "ocarun user), which read the node's instance-principal credentials"),
    "instance-agent-command-execution-family": ("use", None,
                                                "turns Run Command on for the instances the subject matches (the "
                                                "agent fetches and runs the commands queued for them)"),
    "instances": ("use", frozenset({"INSTANCE_UPDATE", "INSTANCE_CREATE_IMAGE"}),
                  "replaces an instance's boot volume or turns on its agent plugins (UpdateInstance), or copies its "
                  "boot disk with the kubelet's credentials (CreateImage)"),
    "instance-console-connection": ("manage", frozenset({"INSTANCE_CONSOLE_CONNECTION_CREATE"}),
                                    "opens the serial console, where a reboot gives a maintenance-mode root shell"),
    "volumes": ("use", frozenset({"VOLUME_UPDATE", "VOLUME_WRITE"}),
                "backs up, clones or attaches elsewhere a node's boot and data volumes (kubelet credentials, "
                "cached weights)"),
    "cluster-node-pools": ("manage", frozenset({"CLUSTER_NODE_POOL_CREATE", "CLUSTER_NODE_POOL_UPDATE"}),
                           "changes the nodes' image, cloud-init and SSH key, or adds a pool that runs its own"),
    "clusters": ("manage", frozenset({"CLUSTER_MANAGE", "CLUSTER_JOIN", "CLUSTER_UPDATE"}),
                 "administers Kubernetes through IAM (AdministerK8s: privileged pods on every node), joins "
                 "instances as nodes, or changes the cluster's options"),
    "instance-pools": ("manage", frozenset({"INSTANCE_POOL_UPDATE"}),
                       "points an instance pool at another instance configuration (image, cloud-init): every "
                       "instance it launches runs it"),
    "cluster-networks": ("manage", frozenset({"CLUSTER_NETWORK_UPDATE"}),
                         "points a cluster network's pools (RDMA nodes outside OKE node pools) at another instance "
                         "configuration"),
    "unified-configuration": ("use", frozenset({"UNIFIED_AGENT_CONFIG_UPDATE", "UNIFIED_AGENT_CONFIG_CREATE"}),
                              "points the agent's custom-log collection at any file of the instances it targets (the "
                              "kubelet's keys, pods' mounted Secrets) and ships it to Logging"),
    "bastion-session": ("manage", frozenset({"BASTION_SESSION_CREATE"}),
                        "opens managed SSH sessions to instances (the agent's Bastion plugin installs the key)"),
    "management-agents": ("manage", frozenset({"MGMT_AGENT_DEPLOY_PLUGIN_CREATE", "MGMT_AGENT_CREATE"}),
                          "deploys Management Agent plugins, which run on the hosts the agents are installed on"),
    "cluster-virtualnode-pools": ("manage", None,
                                  "adds virtual nodes to the cluster, with the pod subnets and NSGs of the "
                                  "grantee's choice, outside the node pools the stack declares"),
    **{t: ("use", None, "installs packages and software sources on registered instances, as root (OS Management "
                        "Hub)")
       for t in ("osmh-managed-instances", "osmh-managed-instance-group", "osmh-managed-instance-groups",
                 "osmh-scheduled-jobs", "osmh-software-sources", "osmh-lifecycle-environments",
                 "osmh-lifecycle-stages", "osmh-profiles")},
    **{t: ("use", None, "installs packages and software sources on registered instances, as root (OS Management)")
       for t in ("osms-managed-instances", "osms-managed-instance-groups", "osms-scheduled-jobs",
                 "osms-software-sources")},
}
#: aggregate type -> its members that are node-access types (IAM "Details for the Core Services": instance-family
#: covers instances, instance-console-connection, ...; "Details for Kubernetes Engine": cluster-family; Bastion:
#: bastion-family; OS Management Hub: osmh-family).
NODE_ACCESS_FAMILIES: dict[str, frozenset[str]] = {
    "instance-family": frozenset({"instances", "instance-console-connection"}),
    "instance-agent-command-family": frozenset({"instance-agent-commands"}),
    "volume-family": frozenset({"volumes"}),
    "compute-management-family": frozenset({"instance-pools", "cluster-networks"}),
    "logging-family": frozenset({"unified-configuration"}),
    "cluster-family": frozenset({"clusters", "cluster-node-pools", "cluster-virtualnode-pools"}),
    "bastion-family": frozenset({"bastion-session"}),
    "osmh-family": frozenset(t for t in NODE_ACCESS_TYPES if t.startswith("osmh-")),
    "all-resources": frozenset(NODE_ACCESS_TYPES),
}
#: Every permission listed in NODE_ACCESS_TYPES: one of them in a ``{PERMISSION}`` list is node access.
NODE_ACCESS_PERMISSIONS = frozenset(p for _, perms, _ in NODE_ACCESS_TYPES.values() if perms for p in perms)
#: Bastion session types that are a network path, not a shell (OCI API "CreateSessionTargetResourceDetails").
PORT_FORWARDING_SESSION_TYPES = frozenset({"port_forwarding", "dynamic_port_forwarding"})
_DOC = ("OCI IAM docs: Details for the Core Services, Details for Kubernetes Engine, Bastion IAM Policies, OS "
        "Management Hub policy reference; Compute docs: Running Commands on an Instance")


def pinned_values(condition: Optional[Condition], variable: str) -> Optional[frozenset[str]]:
    """The values ``condition`` pins ``variable`` to with ``=`` for every request it admits, or None when it does
    not pin it (``!=`` and ``/pattern/`` never pin; ``all {...}``: the intersection of the members that pin it;
    ``any {...}``: the union, when every member pins it)."""
    if condition is None:
        return None
    if isinstance(condition, Leaf):
        if condition.variable == variable and condition.operator == "=" and not condition.pattern:
            return frozenset({condition.value})
        return None
    assert isinstance(condition, Group)
    sets = [pinned_values(c, variable) for c in condition.items]
    if condition.quantifier == "all":
        known = [s for s in sets if s is not None]
        return frozenset.intersection(*known) if known else None
    return frozenset().union(*sets) if sets and all(s is not None for s in sets) else None  # type: ignore[arg-type]


def exempt(member: str, condition: Optional[Condition]) -> bool:
    """Does the ``where`` clause narrow a grant of ``member`` to requests that give no node access?"""
    perms = NODE_ACCESS_TYPES[member][1]
    pinned = pinned_values(condition, "request.permission")
    if perms is not None and pinned is not None and not {p.upper() for p in pinned} & perms:
        return True
    if member == "bastion-session":
        types = pinned_values(condition, "target.bastion-session.type")
        return types is not None and {t.lower() for t in types} <= PORT_FORWARDING_SESSION_TYPES
    return False


def members_of(resource: str) -> frozenset[str]:
    """The node-access types a resource-type name covers: itself, a family's members, or every one."""
    return NODE_ACCESS_FAMILIES.get(resource, frozenset({resource} & NODE_ACCESS_TYPES.keys()))


def node_access(st: Statement) -> list[str]:
    """What one parsed statement lets its subject do to instances, [] when nothing (see the module docstring)."""
    found = []
    if st.verb in VERBS and st.resource:
        granted: dict[str, list[str]] = {}  # what it gives -> the members that give it (one finding per effect)
        for member in sorted(members_of(st.resource)):
            least, _, what = NODE_ACCESS_TYPES[member]
            if VERBS.index(st.verb) >= VERBS.index(least) and not exempt(member, st.condition):
                granted.setdefault(what, []).append(f"{least} {member}")
        for what, members in granted.items():
            via = "" if members == [f"{st.verb} {st.resource}"] else f" (it includes {', '.join(members)})"
            found.append(f"'{st.verb} {st.resource}'{via} {what}")
    for perm in st.permissions:
        if perm in NODE_ACCESS_PERMISSIONS:
            member = next(t for t, (_, perms, _) in NODE_ACCESS_TYPES.items() if perms and perm in perms)
            found.append(f"permission {perm} ({member}) {NODE_ACCESS_TYPES[member][2]}")
    return found


def validate_no_node_access(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``iam-no-node-access`` on ``oci:Identity/policy:Policy``: see the module docstring. Unparseable
    statements are refused by ``iam-no-identity-escalation``; unknown ones are left to the engine (not run)."""
    if args.resource_type != POLICY:
        return
    known, unknown = _known_statements(args.props)
    for i, text in known:
        try:
            findings = node_access(parse_statement(text))
        except StatementSyntaxError:
            continue
        if findings:
            report_violation(f"Policy '{args.name}' statements[{i}] {'; '.join(findings)}: {text!r}. A platform "
                             "stack grants no one a way onto the GPU nodes: reach them through Kubernetes (RBAC), "
                             "or narrow the grant with where request.permission = '<a permission not listed>'; "
                             "node access for operators belongs to a reviewed break-glass policy.", None)
    _leave_unknowns_to_engine(args.props, unknown)


iam_no_node_access = ResourceValidationPolicy(
    name="iam-no-node-access",
    description=("No IAM statement lets a principal run code on, open a shell into or copy the disks of compute "
                 "instances, or change what the cluster's nodes boot: Run Command, UpdateInstance/CreateImage, "
                 "console connections, volume copies, node-pool and cluster administration, Bastion managed SSH, "
                 "OS management."),
    validate=validate_no_node_access,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Remove the grant, or grant read/inspect, or narrow it with where request.permission = "
                       "'<permission>' to permissions that do not reach the node (e.g. INSTANCE_POWER_ACTIONS); a "
                       "bastion session grant may be pinned to target.bastion-session.type = 'port_forwarding'. "
                       f"Source: {_DOC}."),
    tags=["iam", "least-privilege", "node-access"],
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(iam_no_node_access, POLICY)

POLICIES = [iam_no_node_access]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "iam-no-node-access": ("engine note: can't run on a statement unknown at preview; the known statements are "
                           "checked, all of them at pulumi up; an unparseable statement is refused by "
                           "iam-no-identity-escalation"),
}
