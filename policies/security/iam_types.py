"""Which IAM resource types create or change what the security pack's catalogue refuses or judges as a stack
resource — one table, so a grant that makes at run time what the preview would refuse is judged the same way.

The catalogue (``_catalogue.py``, rule ``resource-type-catalogued``) refuses a VTAP, a ZPR policy or a Management
Agent plugin as a resource, and judges a load balancer by ``no-public-endpoints``; a group or a workload granted
``manage vtaps``, ``manage zpr-family`` or ``manage load-balancers`` creates the same thing after the preview.
:data:`CATALOGUE_IAM_TYPES` maps every OCI entry of the catalogue that is refused for its own reason or judged by
named rules (and the modules reviewed below) to the IAM resource types whose grant creates or changes it;
:data:`FAMILY_MEMBERS` maps the aggregate types to those members. Three rules read the IAM types:

* ``iam-no-node-access`` (every subject): the types that reach a node's operating system (``node_access``);
* ``iam-no-identity-escalation`` (every subject): IAM's own types (``identity.IAM_RESOURCE_TYPES``);
* ``iam-no-run-time-undo`` (workload statements and groups outside ``adminGroups``): every other type here, from
  :data:`LEAST_VERB` (``manage`` unless listed: creation is a ``manage`` permission in every table read).

``tests/policies/test_iam_types.py`` checks that every such catalogue entry is mapped here or listed in
:data:`UNMAPPED` with a reason, and that every mapped type is judged by one of the three rules.

Modules the catalogue refuses only as "not reviewed" are not mapped, with three exceptions reviewed on
2026-12-02: Network Firewall (its policies decide what crosses the VCN, as NSGs do), Connector Hub
(``serviceconnectors`` copy logs, streams and objects to targets of the grantee's choice: data leaves), and Cloud
Guard (turning detectors, responders and targets off removes the tenancy's guards). The other not-reviewed
services (Data Science, Database, Functions, ...) are what tenant teams' groups administer for their own work; a
grant on them is not refused (threat model, "Left open").

Sources (read 2026-12-02): OCI IAM Policy Reference — "Details for the Core Services" (Networking types:
``vtaps``, ``capture-filters``, ``drgs``, ``drg-attachments``, ``cpes``, ``ipsec-connections``,
``cross-connects``, ``cross-connect-groups``, ``virtual-circuits``, ``public-ip-pools``, ``byoip-ranges``,
``byoasns``, ``vlans``; Compute and Block Volume types), "Details for Kubernetes Engine" (``cluster-family``:
``clusters``, ``cluster-node-pools``, ``cluster-pod-shapes``, ``cluster-virtualnode-pools``, ...), "Details for
Load Balancer" (``load-balancers``), "Details for Network Load Balancer" (``network-load-balancers``), "Network
Firewall IAM Policies" (``network-firewall-family``: ``network-firewall``, ``network-firewall-policy``), "Zero
Trust Packet Routing IAM Policies" (``zpr-family``: ``zpr-policy``; ``security-attribute-family``:
``zpr-security-attribute``), "Details for Management Agent" (``management-agents``: MGMT_AGENT_DEPLOY_PLUGIN_CREATE
at manage), "Details for Connector Hub" (``serviceconnectors``), "Cloud Guard Policies" (``cloud-guard-family``),
"Details for API Gateway" (``api-gateway-family``), "Details for Container Instances"
(``compute-container-family``), "Policies to Control Repository Access" (Container Registry: ``use repos`` pushes
images, so a tag the pack trusts can be re-pushed), "Details for File Storage with Lustre"
(``lustre-file-family``), "Details for Object Storage, Archive Storage, and Data Transfer", "Details for the File
Storage Service", "Details for IAM with Identity Domains".
"""
from __future__ import annotations

_NET = ("virtual-network-family",)
_DRG = ("drgs", "drg-attachments")
_DOMAINS = ("domains",)

#: catalogue key (exact token or module) -> the IAM resource types whose grant creates or changes it.
CATALOGUE_IAM_TYPES: dict[str, tuple[str, ...]] = {
    # --- Core: networks and exposure
    "oci:Core/networkSecurityGroup:NetworkSecurityGroup": ("network-security-groups",),
    "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule": ("network-security-groups",),
    "oci:Core/securityList:SecurityList": ("security-lists",),
    "oci:Core/defaultSecurityList:DefaultSecurityList": ("security-lists",),
    "oci:Core/subnet:Subnet": ("subnets",),
    "oci:Core/publicIp:PublicIp": ("public-ips",),
    "oci:Core/vnicAttachment:VnicAttachment": ("vnic-attachments", "vnics"),
    "oci:Core/routeTable:RouteTable": ("route-tables",),
    "oci:Core/defaultRouteTable:DefaultRouteTable": ("route-tables",),
    "oci:Core/vtap:Vtap": ("vtaps",),
    "oci:Core/captureFilter:CaptureFilter": ("capture-filters",),
    **{f"oci:Core/{t}": _DRG for t in (
        "drg:Drg", "drgAttachment:DrgAttachment", "drgAttachmentManagement:DrgAttachmentManagement",
        "drgAttachmentsList:DrgAttachmentsList", "drgRouteTable:DrgRouteTable",
        "defaultDrgRouteTable:DefaultDrgRouteTable", "drgRouteTableRouteRule:DrgRouteTableRouteRule",
        "drgRouteDistribution:DrgRouteDistribution", "drgRouteDistributionStatement:DrgRouteDistributionStatement",
        "drgNatPolicy:DrgNatPolicy", "drgNatPolicyDrgNatRule:DrgNatPolicyDrgNatRule")},
    "oci:Core/localPeeringGateway:LocalPeeringGateway": ("local-peering-gateways",),
    "oci:Core/remotePeeringConnection:RemotePeeringConnection": ("remote-peering-connections",),
    "oci:Core/ipsec:Ipsec": ("ipsec-connections",),
    "oci:Core/ipsecConnectionTunnelManagement:IpsecConnectionTunnelManagement": ("ipsec-connections",),
    "oci:Core/cpe:Cpe": ("cpes",),
    "oci:Core/virtualCircuit:VirtualCircuit": ("virtual-circuits",),
    "oci:Core/crossConnect:CrossConnect": ("cross-connects",),
    "oci:Core/crossConnectGroup:CrossConnectGroup": ("cross-connect-groups",),
    "oci:Core/publicIpPool:PublicIpPool": ("public-ip-pools", "byoip-ranges"),
    "oci:Core/publicIpPoolCapacity:PublicIpPoolCapacity": ("public-ip-pools", "byoip-ranges"),
    "oci:Core/byoasn:Byoasn": ("byoasns",),
    "oci:Core/vlan:Vlan": ("vlans",),
    # --- Core: compute and block volumes
    "oci:Core/instance:Instance": ("instances",),
    "oci:Core/instanceConfiguration:InstanceConfiguration": ("instance-configurations",),
    "oci:Core/instanceConsoleConnection:InstanceConsoleConnection": ("instance-console-connection",),
    "oci:Core/consoleHistory:ConsoleHistory": ("console-histories",),
    "oci:Core/image:Image": ("instance-images",),
    "oci:Core/bootVolume:BootVolume": ("volumes",),
    "oci:Core/bootVolumeBackup:BootVolumeBackup": ("boot-volume-backups",),
    "oci:Core/volume:Volume": ("volumes",),
    "oci:Core/volumeBackup:VolumeBackup": ("volume-backups",),
    "oci:Core/volumeGroup:VolumeGroup": ("volume-groups",),
    "oci:Core/volumeGroupBackup:VolumeGroupBackup": ("volume-group-backups",),
    "oci:Core/volumeAttachment:VolumeAttachment": ("volume-attachments",),
    "oci:Core/instancePool:InstancePool": ("instance-pools",),
    "oci:Core/instancePoolInstance:InstancePoolInstance": ("instance-pools",),
    "oci:Core/clusterNetwork:ClusterNetwork": ("cluster-networks",),
    "oci:Core/instanceMaintenanceEvent:InstanceMaintenanceEvent": ("instances",),
    # --- Identity (judged by iam-no-identity-escalation as IAM's own types)
    "oci:Identity/policy:Policy": ("policies",),
    "oci:Identity/group:Group": ("groups",),
    "oci:Identity/dynamicGroup:DynamicGroup": ("dynamic-groups",),
    "oci:Identity/userGroupMembership:UserGroupMembership": ("group-memberships",),
    "oci:Identity/idpGroupMapping:IdpGroupMapping": ("identity-providers",),
    "oci:Identity/tag:Tag": ("tag-namespaces",),
    "oci:Identity/tagNamespace:TagNamespace": ("tag-namespaces",),
    "oci:Identity/tagDefault:TagDefault": ("tag-defaults",),
    "oci:Identity/importStandardTagsManagement:ImportStandardTagsManagement": ("tag-namespaces",),
    "oci:Identity/networkSource:NetworkSource": ("network-sources",),
    "oci:Identity/authenticationPolicy:AuthenticationPolicy": ("authentication-policies",),
    **{f"oci:Identity/{t}": _DOMAINS for t in (
        "domainsGroup:DomainsGroup", "domainsGrant:DomainsGrant",
        "domainsDynamicResourceGroup:DomainsDynamicResourceGroup", "domainsAppRole:DomainsAppRole",
        "domainsCondition:DomainsCondition", "domainsRule:DomainsRule", "domainsPolicy:DomainsPolicy",
        "domainsNetworkPerimeter:DomainsNetworkPerimeter", "domainsMappedAttribute:DomainsMappedAttribute",
        "domainsSetting:DomainsSetting", "domainsIdentitySetting:DomainsIdentitySetting",
        "domainsAuthenticationFactorSetting:DomainsAuthenticationFactorSetting",
        "domainsKmsiSetting:DomainsKmsiSetting", "domainsPasswordPolicy:DomainsPasswordPolicy",
        "domainsAccountRecoverySetting:DomainsAccountRecoverySetting",
        "domainsSecurityQuestion:DomainsSecurityQuestion",
        "domainsSecurityQuestionSetting:DomainsSecurityQuestionSetting",
        "domainsSelfRegistrationProfile:DomainsSelfRegistrationProfile",
        "domainsApprovalWorkflow:DomainsApprovalWorkflow",
        "domainsApprovalWorkflowAssignment:DomainsApprovalWorkflowAssignment",
        "domainsApprovalWorkflowStep:DomainsApprovalWorkflowStep", "domainsMyRequest:DomainsMyRequest",
        "domainsCloudGate:DomainsCloudGate", "domainsCloudGateMapping:DomainsCloudGateMapping",
        "domainsCloudGateServer:DomainsCloudGateServer",
        "domainsIdentityProofingProvider:DomainsIdentityProofingProvider",
        "domainsIdentityProofingProviderTemplate:DomainsIdentityProofingProviderTemplate",
        "domainReplicationToRegion:DomainReplicationToRegion")},
    # the audit retention is a tenancy setting (Audit docs "Audit Log Retention": UpdateConfiguration on the tenancy)
    "oci:Audit": ("tenancies",),
    # --- Bastion, Logging, Kubernetes Engine
    "oci:Bastion/bastion:Bastion": ("bastion",),
    "oci:Bastion/session:Session": ("bastion-session",),
    "oci:Logging/unifiedAgentConfiguration:UnifiedAgentConfiguration": ("unified-configuration",),
    "oci:ContainerEngine/cluster:Cluster": ("clusters",),
    "oci:ContainerEngine/nodePool:NodePool": ("cluster-node-pools",),
    "oci:ContainerEngine/addon:Addon": ("clusters",),
    "oci:ContainerEngine/virtualNodePool:VirtualNodePool": ("cluster-virtualnode-pools",),
    "oci:ContainerEngine/containerInstance:ContainerInstance": ("compute-container-family",),
    # --- File Storage, Lustre, Object Storage
    "oci:FileStorage/export:Export": ("export-sets", "file-systems"),
    "oci:FileStorage/mountTarget:MountTarget": ("mount-targets",),
    "oci:FileStorage/fileSystem:FileSystem": ("file-systems",),
    "oci:FileStorage/snapshot:Snapshot": ("file-systems",),  # FILE_SYSTEM_CREATE_SNAPSHOT/DELETE_SNAPSHOT
    "oci:FileStorage/outboundConnector:OutboundConnector": ("outbound-connectors",),
    "oci:FileStorage/replication:Replication": ("replications",),
    "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem": ("lustre-file-family",),
    "oci:ObjectStorage/bucket:Bucket": ("buckets",),
    "oci:ObjectStorage/preauthrequest:Preauthrequest": ("buckets",),  # PAR_MANAGE is a permission of buckets
    "oci:ObjectStorage/replicationPolicy:ReplicationPolicy": ("buckets",),
    "oci:ObjectStorage/objectLifecyclePolicy:ObjectLifecyclePolicy": ("buckets",),
    # --- Registry, load balancers, gateways, databases
    "oci:Artifacts/containerRepository:ContainerRepository": ("repos",),
    "oci:LoadBalancer/loadBalancer:LoadBalancer": ("load-balancers",),
    "oci:NetworkLoadBalancer/networkLoadBalancer:NetworkLoadBalancer": ("network-load-balancers",),
    "oci:ApiGateway/gateway:Gateway": ("api-gateway-family",),
    "oci:Database/autonomousDatabase:AutonomousDatabase": ("autonomous-databases",),
    # --- modules refused as a whole
    "oci:OsManagementHub": ("osmh-family",),
    "oci:Zpr": ("zpr-family", "zpr-policy"),
    "oci:SecurityAttribute": ("security-attribute-family", "zpr-security-attribute"),
    "oci:ManagementAgent": ("management-agents",),
    # reviewed 2026-12-02 (module docstring)
    "oci:NetworkFirewall": ("network-firewall-family", "network-firewall", "network-firewall-policy"),
    "oci:Sch": ("serviceconnectors",),
    "oci:CloudGuard": ("cloud-guard-family",),
}

#: catalogue entries refused or judged for their own reason that no IAM grant of a group or workload recreates, with
#: why (the test requires every other such entry to be in :data:`CATALOGUE_IAM_TYPES`).
UNMAPPED: dict[str, str] = {
    "oci:Limits/quota:Quota": "quotas are written in the root compartment by the tenancy's administrators "
                              "(Compartment Quotas docs); a quota statement is judged where the stack writes it",
    "oci:Kms/generatedKey:GeneratedKey": "refused because the key material lands in the stack's state; a grant "
                                         "returns a data key only to the principal that asks, which is its purpose",
    "oci:Database/autonomousDatabaseWallet:AutonomousDatabaseWallet": "refused because the wallet lands in the "
                                                                      "stack's state; judged as autonomous-databases",
    "oci:Database/autonomousDatabaseSaasAdminUser:AutonomousDatabaseSaasAdminUser": "refused because the password "
                                                                                    "lands in the stack's state",
    "oci:ObjectStorage/storageObject:StorageObject": "judged for what it copies (object-copy-stays-in-the-platform); "
                                                     "a grant on objects is judged by iam-no-run-time-undo's object "
                                                     "rows (deletes) and the reads-across-tenants rule",
    "oci:ObjectStorage/privateEndpoint:PrivateEndpoint": "its IAM resource type was not found in the policy "
                                                         "reference read on 2026-12-02; all-resources covers it",
    "oci:Marketplace/publication:Publication": "its IAM resource type was not found in the policy reference read on "
                                               "2026-12-02; all-resources covers it",
    "oci:ResourceScheduler": "its IAM resource type was not found in the policy reference read on 2026-12-02; "
                             "stopping nodes is a denial of service, not a reach, and all-resources covers it",
}

#: aggregate type -> its members among the types above (the policy reference pages named in the module docstring).
FAMILY_MEMBERS: dict[str, frozenset[str]] = {
    "volume-family": frozenset({"volumes", "volume-attachments", "volume-backups", "boot-volume-backups",
                                "volume-groups", "volume-group-backups"}),
    "instance-family": frozenset({"instances", "instance-images", "instance-console-connection",
                                  "console-histories"}),
    "compute-management-family": frozenset({"instance-configurations", "instance-pools", "cluster-networks"}),
    "cluster-family": frozenset({"clusters", "cluster-node-pools", "cluster-virtualnode-pools"}),
    "network-firewall-family": frozenset({"network-firewall", "network-firewall-policy"}),
    "zpr-family": frozenset({"zpr-policy"}),
    "security-attribute-family": frozenset({"zpr-security-attribute"}),
    "database-family": frozenset({"autonomous-databases"}),
    "autonomous-database-family": frozenset({"autonomous-databases"}),
    "bastion-family": frozenset({"bastion", "bastion-session"}),
}

#: IAM type -> the least verb that creates or changes it, where it is not ``manage``: Container Registry's ``use
#: repos`` pushes (re-tags) images ("Policies to Control Repository Access").
LEAST_VERB: dict[str, str] = {"repos": "use"}


def iam_types() -> frozenset[str]:
    """Every IAM type of :data:`CATALOGUE_IAM_TYPES` (aggregates included)."""
    return frozenset(t for types in CATALOGUE_IAM_TYPES.values() for t in types)


def tokens_of(iam_type: str) -> list[str]:
    """The catalogue keys an IAM type creates or changes, in table order."""
    return [k for k, types in CATALOGUE_IAM_TYPES.items() if iam_type in types]
