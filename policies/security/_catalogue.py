"""The security pack's catalogue of resource types, as data: every type a stack may declare is placed here as
judged (by named rules of this pack), harmless (with a reason and a source), or refused (with a reason and a
source). ``catalogue.py`` holds the rule that reads it (``resource-type-catalogued``); ``python -m policies.doc
--write`` renders it into ``docs/threat-model.md``; ``tests/policies/test_catalogue.py`` enumerates every resource
type of the installed ``pulumi_oci`` and ``pulumi_kubernetes`` SDKs and fails when one is not placed here.

How a type token is looked up (first match wins), in :data:`TYPES` then :data:`GROUPS`:

* the exact token (``oci:Core/vtap:Vtap``; ``pulumi:providers:oci``);
* Kubernetes: ``kubernetes:<group>:<Kind>`` with the API version dropped and a ``Patch``/``List`` suffix removed (a
  patch or list is judged as its kind by ``kubernetes-patch-or-list-judged-as-kind``), then
  ``kubernetes:<group>`` (the core group is ``core``; a custom resource's token is ``kubernetes:<group>/<version>:
  <Kind>``, so CRDs' groups sit here too);
* OCI: the module, ``oci:<Module>`` (``oci:Core``);
* a component package this repository ships (``oke-rdma:``).

A type placed nowhere is refused, as is a refused entry, unless the policy config lists it in ``allowedTypes``.
Rules listed for a judged type must be policies of this pack; a test checks each names the type (or its kind) in
the module that defines it. Entries were written on 2026-12-01 from the SDKs pulumi_oci 5.5.0 and
pulumi_kubernetes 4.34.2 and the sources named per entry. A judged Kubernetes kind is read by its rules at the API
versions OKE serves (OKE 1.31–1.34); older versions of those kinds are removed from the API server (Kubernetes docs
"Deprecated API Migration Guide"), which refuses them.
"""
from __future__ import annotations

JUDGED, HARMLESS, REFUSED = "judged", "harmless", "refused"


def judged(*rules: str, note: str = "") -> dict:
    return {"verdict": JUDGED, "rules": rules, "reason": note, "source": ""}


def harmless(reason: str, source: str) -> dict:
    return {"verdict": HARMLESS, "rules": (), "reason": reason, "source": source}


def refused(reason: str, source: str) -> dict:
    return {"verdict": REFUSED, "rules": (), "reason": reason, "source": source}


_NOT_REVIEWED = ("no rule of this pack judges this module's resources and they were not reviewed as harmless for "
                 "a GPU platform; a stack that needs one lists its type in allowedTypes after review")
_NET_DOCS = "OCI Networking docs"
_OSMH = "OS Management Hub docs \"Managing Instances\", \"Scheduled Jobs\""
_WORKLOADS = ("node-escape-only-in-node-agent-namespaces", "rdma-pods-in-privileged-namespaces",
              "workload-namespace-declared", "container-image-pinned")
_OPERATOR = ("node-escape-only-in-node-agent-namespaces", "workload-namespace-declared", "container-image-pinned")
_REMOVED = "the API server of every OKE release refuses it (Kubernetes docs \"Deprecated API Migration Guide\")"

#: Exact type tokens (and, for Kubernetes, ``kubernetes:<group>:<Kind>``).
TYPES: dict[str, dict] = {
    # --- the engine's own types -------------------------------------------------------------------------------
    "pulumi:pulumi:Stack": harmless("the root of every stack: holds outputs, creates nothing", "Pulumi docs "
                                    "\"Stacks\""),
    "pulumi:pulumi:StackReference": harmless("reads another stack's outputs; creates nothing",
                                             "Pulumi docs \"Stack references\""),
    "pulumi:providers:oci": harmless("a provider configuration (region, auth); every resource it serves is judged "
                                     "by its own type", "Pulumi docs \"Providers\""),
    "pulumi:providers:kubernetes": harmless("a provider configuration (kubeconfig, cluster); every object it "
                                            "serves is judged by its own type", "Pulumi docs \"Providers\""),
    "pulumi-python:dynamic:Resource": refused(
        "a dynamic provider runs the program's own Python code as a provider, with the program's credentials, at "
        "preview and up: what it creates is invisible to every rule", "Pulumi docs \"Dynamic Resource Providers\""),
    "pulumi-nodejs:dynamic:Resource": refused(
        "a dynamic provider runs the program's own JavaScript as a provider, with the program's credentials: what it "
        "creates is invisible to every rule", "Pulumi docs \"Dynamic Resource Providers\""),
    # --- Core: networks, exposure --------------------------------------------------------------------------
    "oci:Core/networkSecurityGroup:NetworkSecurityGroup": judged("oke-required-nsg-rules", "no-internet-ingress"),
    "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule": judged(
        "no-internet-ssh-or-all-ports", "no-internet-ingress", "network-rule-interpretable"),
    "oci:Core/securityList:SecurityList": judged("no-internet-ssh-or-all-ports", "no-internet-ingress",
                                                 "network-rule-interpretable"),
    "oci:Core/defaultSecurityList:DefaultSecurityList": judged("no-internet-ssh-or-all-ports", "no-internet-ingress",
                                                               "network-rule-interpretable"),
    "oci:Core/subnet:Subnet": judged("node-subnets-private"),
    "oci:Core/publicIp:PublicIp": judged("no-public-endpoints"),
    "oci:Core/instance:Instance": judged("no-public-endpoints", "instance-imds-v2-only",
                                         "node-cloud-init-keeps-node-closed"),
    "oci:Core/instanceConfiguration:InstanceConfiguration": judged("no-public-endpoints", "instance-imds-v2-only",
                                                                   "node-cloud-init-keeps-node-closed"),
    "oci:Core/vnicAttachment:VnicAttachment": judged("no-public-endpoints", "vnic-in-stack-subnet"),
    "oci:Core/vcn:Vcn": harmless("an address space; traffic into it is decided by gateways, route rules, security "
                                 "lists and NSGs, each judged", _NET_DOCS + " \"VCNs and Subnets\""),
    "oci:Core/routeTable:RouteTable": judged("route-no-private-ip-hop"),
    "oci:Core/defaultRouteTable:DefaultRouteTable": judged("route-no-private-ip-hop"),
    "oci:Core/routeTableAttachment:RouteTableAttachment": harmless("attaches a route table to a subnet",
                                                                   _NET_DOCS + " \"VCN Route Tables\""),
    "oci:Core/natGateway:NatGateway": harmless("egress only: no connection can be initiated from the internet",
                                               _NET_DOCS + " \"NAT Gateway\""),
    "oci:Core/serviceGateway:ServiceGateway": harmless("private access to Oracle services; no inbound path from the "
                                                       "internet", _NET_DOCS + " \"Service Gateway\""),
    "oci:Core/dhcpOptions:DhcpOptions": harmless("DNS settings of a subnet", _NET_DOCS + " \"DHCP Options\""),
    "oci:Core/defaultDhcpOptions:DefaultDhcpOptions": harmless("DNS settings of a subnet",
                                                               _NET_DOCS + " \"DHCP Options\""),
    "oci:Core/privateIp:PrivateIp": harmless("a private address of a VNIC in its own subnet",
                                             _NET_DOCS + " \"Private IP Addresses\""),
    "oci:Core/ipv6:Ipv6": harmless("an address of a VNIC; its subnet's rules decide what reaches it",
                                   _NET_DOCS + " \"IPv6 Addresses\""),
    "oci:Core/internetGateway:InternetGateway": harmless(
        "a path to the internet is used only through public IPs and security rules, each judged "
        "(no-public-endpoints, no-internet-ingress, node-subnets-private)", _NET_DOCS + " \"Internet Gateway\""),
    "oci:Core/computeCluster:ComputeCluster": harmless("an RDMA placement group; its node pools are judged "
                                                       "(placement pack)", "OCI Compute docs \"Compute Clusters\""),
    # --- Core: what mirrors, tunnels or peers traffic into a subnet --------------------------------------------
    "oci:Core/vtap:Vtap": refused("mirrors every packet of a VNIC, subnet or load balancer to a target the stack "
                                  "chooses: a tap into tenants' traffic", _NET_DOCS + " \"Virtual Test Access "
                                  "Points\""),
    "oci:Core/captureFilter:CaptureFilter": refused("selects the traffic a VTAP or flow log captures",
                                                    _NET_DOCS + " \"Capture Filters\""),
    "oci:Core/drg:Drg": refused("a router that joins VCNs, on-premises networks and other regions or tenancies to "
                                "this one", _NET_DOCS + " \"Dynamic Routing Gateways\""),
    "oci:Core/drgAttachment:DrgAttachment": refused("attaches a VCN (or IPSec, virtual circuit, remote peering) to a "
                                                    "DRG: another network reaches the subnets",
                                                    _NET_DOCS + " \"Dynamic Routing Gateways\""),
    "oci:Core/drgAttachmentManagement:DrgAttachmentManagement": refused("manages a DRG attachment", _NET_DOCS +
                                                                        " \"Dynamic Routing Gateways\""),
    "oci:Core/drgAttachmentsList:DrgAttachmentsList": refused("lists DRG attachments to manage them", _NET_DOCS),
    "oci:Core/drgRouteTable:DrgRouteTable": refused("routes between the networks a DRG joins", _NET_DOCS),
    "oci:Core/defaultDrgRouteTable:DefaultDrgRouteTable": refused("routes between the networks a DRG joins",
                                                                  _NET_DOCS),
    "oci:Core/drgRouteTableRouteRule:DrgRouteTableRouteRule": refused("a route between networks a DRG joins",
                                                                      _NET_DOCS),
    "oci:Core/drgRouteDistribution:DrgRouteDistribution": refused("imports routes of other networks", _NET_DOCS),
    "oci:Core/drgRouteDistributionStatement:DrgRouteDistributionStatement": refused("imports routes of other "
                                                                                    "networks", _NET_DOCS),
    "oci:Core/drgNatPolicy:DrgNatPolicy": refused("rewrites addresses of traffic between joined networks", _NET_DOCS),
    "oci:Core/drgNatPolicyDrgNatRule:DrgNatPolicyDrgNatRule": refused("rewrites addresses between joined networks",
                                                                      _NET_DOCS),
    "oci:Core/localPeeringGateway:LocalPeeringGateway": refused("peers another VCN with this one",
                                                                _NET_DOCS + " \"Local VCN Peering\""),
    "oci:Core/remotePeeringConnection:RemotePeeringConnection": refused(
        "peers a VCN of another region or tenancy", _NET_DOCS + " \"Remote VCN Peering\""),
    "oci:Core/ipsec:Ipsec": refused("an IPSec tunnel from another network", _NET_DOCS + " \"Site-to-Site VPN\""),
    "oci:Core/ipsecConnectionTunnelManagement:IpsecConnectionTunnelManagement": refused(
        "configures an IPSec tunnel (shared secret, routing)", _NET_DOCS + " \"Site-to-Site VPN\""),
    "oci:Core/cpe:Cpe": refused("the far end of an IPSec tunnel", _NET_DOCS + " \"Site-to-Site VPN\""),
    "oci:Core/virtualCircuit:VirtualCircuit": refused("a FastConnect circuit from another network",
                                                      _NET_DOCS + " \"FastConnect\""),
    "oci:Core/crossConnect:CrossConnect": refused("a FastConnect physical link", _NET_DOCS + " \"FastConnect\""),
    "oci:Core/crossConnectGroup:CrossConnectGroup": refused("FastConnect physical links", _NET_DOCS +
                                                            " \"FastConnect\""),
    "oci:Core/publicIpPool:PublicIpPool": refused("brings public addresses (BYOIP) to the tenancy",
                                                  _NET_DOCS + " \"BYOIP\""),
    "oci:Core/publicIpPoolCapacity:PublicIpPoolCapacity": refused("adds public addresses to a pool",
                                                                  _NET_DOCS + " \"BYOIP\""),
    "oci:Core/byoasn:Byoasn": refused("brings an autonomous system number (BGP)", _NET_DOCS + " \"BYOASN\""),
    "oci:Core/vlan:Vlan": refused("a layer-2 network (VMware solution); its security rules are not read",
                                  _NET_DOCS + " \"VLANs\""),
    "oci:Core/virtualNetwork:VirtualNetwork": harmless("the old name of a VCN", "pulumi_oci 5.5.0 core "
                                                       "VirtualNetwork (deprecated alias of Vcn)"),
    # --- Core: sessions and connections that reach a node --------------------------------------------------
    "oci:Core/instanceConsoleConnection:InstanceConsoleConnection": refused(
        "a serial console connection to an instance: a shell in maintenance mode, outside Kubernetes",
        "OCI Compute docs \"Troubleshooting Instances Using Instance Console Connections\""),
    "oci:Core/consoleHistory:ConsoleHistory": refused("captures an instance's serial console output (boot logs, "
                                                      "secrets printed there)", "OCI Compute docs \"Console History\""),
    "oci:Core/image:Image": refused("a custom image copied from an instance's boot disk (with its credentials)",
                                    "OCI Compute docs \"Managing Custom Images\""),
    "oci:Core/bootVolume:BootVolume": refused("a boot volume, possibly cloned from a node's", "OCI Block Volume "
                                              "docs \"Boot Volumes\""),
    "oci:Core/bootVolumeBackup:BootVolumeBackup": refused("a copy of a node's boot disk", "OCI Block Volume docs"),
    "oci:Core/volume:Volume": refused("a block volume, possibly cloned from another's data", "OCI Block Volume docs"),
    "oci:Core/volumeBackup:VolumeBackup": refused("a copy of a volume's data", "OCI Block Volume docs"),
    "oci:Core/volumeGroup:VolumeGroup": refused("groups volumes (clones, backups)", "OCI Block Volume docs"),
    "oci:Core/volumeGroupBackup:VolumeGroupBackup": refused("a copy of volumes' data", "OCI Block Volume docs"),
    "oci:Core/volumeAttachment:VolumeAttachment": refused("attaches a volume to an instance (a node's disk to "
                                                          "another instance)", "OCI Block Volume docs"),
    "oci:Core/instancePool:InstancePool": refused("self-managed instances from an instance configuration; not read "
                                                  "by the node rules", "OCI Compute docs \"Instance Pools\""),
    "oci:Core/instancePoolInstance:InstancePoolInstance": refused("attaches an instance to a pool",
                                                                  "OCI Compute docs \"Instance Pools\""),
    "oci:Core/clusterNetwork:ClusterNetwork": refused("self-managed RDMA instances; not read by the node rules",
                                                      "OCI Compute docs \"Cluster Networks\""),
    "oci:Core/instanceMaintenanceEvent:InstanceMaintenanceEvent": refused("reschedules an instance's maintenance",
                                                                          "OCI Compute docs"),
    # --- Identity: who matches a grant ---------------------------------------------------------------------
    "oci:Identity/policy:Policy": judged("iam-no-manage-all-resources", "iam-any-user-restricts-principal-type",
                                         "iam-workload-statement-scoped", "iam-no-identity-escalation",
                                         "iam-no-node-access", "iam-compute-cluster-launch-statement"),
    "oci:Identity/group:Group": judged("iam-no-admin-group-membership"),
    "oci:Identity/userGroupMembership:UserGroupMembership": judged("iam-no-admin-group-membership"),
    "oci:Identity/idpGroupMapping:IdpGroupMapping": judged("iam-no-admin-group-membership"),
    "oci:Identity/domainsGroup:DomainsGroup": judged("iam-no-admin-group-membership"),
    "oci:Identity/domainsGrant:DomainsGrant": judged("iam-no-admin-group-membership"),
    "oci:Identity/compartment:Compartment": harmless("a container for resources; grants to it are judged as "
                                                     "statements", "OCI IAM docs \"Managing Compartments\""),
    "oci:Identity/dynamicGroup:DynamicGroup": judged("iam-dynamic-group-pinned"),
    "oci:Identity/tag:Tag": refused("a tag key: a statement's condition on target.resource.tag matches whoever "
                                    "carries it", "OCI IAM docs \"Using Tags to Manage Access\""),
    "oci:Identity/tagNamespace:TagNamespace": refused("a tag namespace (conditions on tags match its keys)",
                                                      "OCI IAM docs \"Using Tags to Manage Access\""),
    "oci:Identity/tagDefault:TagDefault": refused(
        "tags every new resource of a compartment: a tag-conditioned grant then matches resources nobody tagged "
        "on purpose", "OCI docs \"Managing Tag Defaults\"; \"Using Tags to Manage Access\""),
    "oci:Identity/importStandardTagsManagement:ImportStandardTagsManagement": refused(
        "imports tag namespaces (conditions on tags match them)", "OCI docs \"Standard Tags\""),
    "oci:Identity/networkSource:NetworkSource": refused("an address set a statement's request.networkSource "
                                                        "condition matches", "OCI IAM docs \"Managing Network "
                                                        "Sources\""),
    "oci:Identity/authenticationPolicy:AuthenticationPolicy": refused(
        "the tenancy's password and network-source sign-in rules", "OCI IAM docs \"Managing Password Rules\""),
    "oci:Identity/domainsDynamicResourceGroup:DomainsDynamicResourceGroup": refused(
        "a domain's dynamic group: its matching rule decides which instances a grant covers",
        "OCI IAM docs \"Managing Dynamic Groups\" (identity domains)"),
    "oci:Identity/domainsAppRole:DomainsAppRole": refused("an application role a grant can give",
                                                          "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsCondition:DomainsCondition": refused("a condition of a domain's sign-on or membership rules",
                                                              "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsRule:DomainsRule": refused("a domain rule (sign-on, group membership)",
                                                    "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsPolicy:DomainsPolicy": refused("a domain's sign-on or password policy",
                                                        "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsNetworkPerimeter:DomainsNetworkPerimeter": refused(
        "the addresses a domain's sign-on rules trust", "OCI IAM docs \"Managing Network Perimeters\""),
    "oci:Identity/domainsMappedAttribute:DomainsMappedAttribute": refused(
        "maps outside attributes onto domain users (who is in which group)", "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsSetting:DomainsSetting": refused("a domain's settings (sign-in, trust, certificates)",
                                                          "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsIdentitySetting:DomainsIdentitySetting": refused("a domain's identity settings (who may "
                                                                          "change their primary email, ...)",
                                                                          "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsAuthenticationFactorSetting:DomainsAuthenticationFactorSetting": refused(
        "a domain's MFA factors", "OCI IAM docs \"Managing MFA\""),
    "oci:Identity/domainsKmsiSetting:DomainsKmsiSetting": refused("keep-me-signed-in settings",
                                                                  "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsPasswordPolicy:DomainsPasswordPolicy": refused("a domain's password rules",
                                                                        "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsAccountRecoverySetting:DomainsAccountRecoverySetting": refused(
        "how a domain's users recover accounts", "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsSecurityQuestion:DomainsSecurityQuestion": refused("account recovery questions",
                                                                            "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsSecurityQuestionSetting:DomainsSecurityQuestionSetting": refused(
        "account recovery questions", "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsSelfRegistrationProfile:DomainsSelfRegistrationProfile": refused(
        "lets anyone register as a domain user (and join its default groups)", "OCI IAM docs \"Self-Registration\""),
    "oci:Identity/domainsApprovalWorkflow:DomainsApprovalWorkflow": refused("approves access requests",
                                                                            "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsApprovalWorkflowAssignment:DomainsApprovalWorkflowAssignment": refused(
        "approves access requests", "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsApprovalWorkflowStep:DomainsApprovalWorkflowStep": refused(
        "approves access requests", "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsMyRequest:DomainsMyRequest": refused("requests access (a group) for the program's user",
                                                              "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsCloudGate:DomainsCloudGate": refused("an App Gateway that signs users into applications",
                                                              "OCI IAM docs \"App Gateway\""),
    "oci:Identity/domainsCloudGateMapping:DomainsCloudGateMapping": refused("App Gateway routing",
                                                                            "OCI IAM docs \"App Gateway\""),
    "oci:Identity/domainsCloudGateServer:DomainsCloudGateServer": refused("App Gateway servers",
                                                                          "OCI IAM docs \"App Gateway\""),
    "oci:Identity/domainsIdentityProofingProvider:DomainsIdentityProofingProvider": refused(
        "an outside identity-proofing service", "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsIdentityProofingProviderTemplate:DomainsIdentityProofingProviderTemplate": refused(
        "an outside identity-proofing service", "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainsNotificationSetting:DomainsNotificationSetting": harmless(
        "which emails a domain sends", "OCI IAM docs \"Identity Domains\""),
    "oci:Identity/domainReplicationToRegion:DomainReplicationToRegion": refused(
        "replicates a domain (its users and groups) to another region", "OCI IAM docs \"Identity Domains\""),
    # --- sessions and commands that reach a node (beyond Core) ---------------------------------------------
    "oci:Bastion/bastion:Bastion": judged("no-public-endpoints"),
    "oci:Bastion/session:Session": refused(
        "a managed SSH session or port forward into a node, outside Kubernetes' access control",
        "OCI Bastion docs \"Managing Sessions\""),
    "oci:Logging/unifiedAgentConfiguration:UnifiedAgentConfiguration": refused(
        "custom logs make the node agent read any file of a node (kubelet credentials, other tenants' data)",
        "OCI Logging docs \"Agent Management: Managing Agent Configurations\""),
    "oci:Logging/log:Log": harmless("a log in a log group", "OCI Logging docs"),
    "oci:Logging/logGroup:LogGroup": harmless("a log group", "OCI Logging docs"),
    "oci:Logging/logSavedSearch:LogSavedSearch": harmless("a saved search", "OCI Logging docs"),
    # --- OKE ---------------------------------------------------------------------------------------------
    "oci:ContainerEngine/cluster:Cluster": judged("kubernetes-api-not-public", "kubernetes-api-endpoint-restricted",
                                                   "cluster-oidc-prefixed", "cluster-add-ons-closed",
                                                   "tenant-walls-need-vcn-native-pods"),
    "oci:ContainerEngine/nodePool:NodePool": judged("node-pool-imds-v2-only", "node-pool-pv-encryption-in-transit",
                                                     "node-pool-no-ssh-key", "node-cloud-init-keeps-node-closed",
                                                     "tenant-walls-need-vcn-native-pods"),
    "oci:ContainerEngine/containerInstance:ContainerInstance": judged("no-public-endpoints", "container-image-pinned"),
    "oci:ContainerEngine/clusterWorkloadMapping:ClusterWorkloadMapping": harmless(
        "maps a namespace to a compartment for Workload Identity; grants there are judged as statements",
        "OKE docs \"Granting Workloads Access to OCI Resources\""),
    "oci:ContainerEngine/addon:Addon": refused("an OKE-managed add-on: what it installs is not visible to the pack",
                                               "OKE docs \"Cluster Add-ons\""),
    "oci:ContainerEngine/virtualNodePool:VirtualNodePool": refused("virtual nodes are not read by the node rules",
                                                                   "OKE docs \"Virtual Nodes\""),
    # --- data ----------------------------------------------------------------------------------------------
    "oci:FileStorage/export:Export": judged("fss-export-no-internet-root", "fss-export-no-internet",
                                            "fss-export-root-needs-privileged-port",
                                            "squash-identity-not-a-data-owner", "storage-trusts-only-node-addresses"),
    "oci:FileStorage/mountTarget:MountTarget": judged("nfs-rules-only-nfs-ports"),
    "oci:FileStorage/fileSystem:FileSystem": judged("fs-not-cloned", "provider-options-keep-protected-data"),
    "oci:Limits/quota:Quota": judged("quota-only-lowers"),
    "oci:FileStorage/exportSet:ExportSet": harmless("a mount target's export settings (sizes reported)",
                                                    "OCI File Storage docs"),
    "oci:FileStorage/snapshot:Snapshot": judged("provider-options-keep-protected-data",
                                                note="a read-only copy inside the same file system (OCI File "
                                                     "Storage docs \"Snapshots\"); its lock override is judged"),
    "oci:FileStorage/outboundConnector:OutboundConnector": refused("binds to an outside LDAP server for NFS "
                                                                   "identities", "OCI File Storage docs \"LDAP\""),
    "oci:FileStorage/replication:Replication": refused("copies a file system's data to another",
                                                       "OCI File Storage docs \"Replication\""),
    "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem": judged("lustre-root-squash",
                                                                                 "squash-identity-not-a-data-owner",
                                                                                 "storage-trusts-only-node-addresses"),
    "oci:ObjectStorage/bucket:Bucket": judged("no-public-endpoints", "bucket-protected-data-versioned",
                                              "bucket-protected-data-customer-key"),
    "oci:ObjectStorage/preauthrequest:Preauthrequest": judged("no-public-endpoints"),
    "oci:ObjectStorage/storageObject:StorageObject": judged(
        "object-copy-stays-in-the-platform", "provider-options-keep-protected-data",
        note="an upload is judged by its bucket; a copy (sourceUriDetails) is replication one object at a time"),
    "oci:ObjectStorage/namespaceMetadata:NamespaceMetadata": harmless("default compartments for S3/Swift",
                                                                      "OCI Object Storage docs"),
    "oci:ObjectStorage/replicationPolicy:ReplicationPolicy": refused("copies a bucket's objects to another bucket",
                                                                     "OCI Object Storage docs \"Replication\""),
    "oci:ObjectStorage/objectLifecyclePolicy:ObjectLifecyclePolicy": judged("bucket-lifecycle-keeps-protected-data"),
    "oci:ObjectStorage/privateEndpoint:PrivateEndpoint": refused("a path into Object Storage from a subnet",
                                                                 "OCI Object Storage docs \"Private Endpoints\""),
    "oci:Kms/generatedKey:GeneratedKey": judged("iam-no-static-credentials"),
    "oci:Kms/vault:Vault": harmless("holds keys; their use is granted by statements, judged",
                                    "OCI Vault docs \"Managing Vaults\""),
    "oci:Kms/key:Key": harmless("a master encryption key; its use is granted by statements, judged",
                                "OCI Vault docs \"Managing Keys\""),
    "oci:Kms/keyVersion:KeyVersion": harmless("a key's new version (rotation)", "OCI Vault docs \"Managing Keys\""),
    "oci:Vault/secret:Secret": harmless("a secret in a vault; its reads are granted by statements, judged",
                                        "OCI Vault docs \"Managing Secrets\""),
    "oci:Artifacts/containerRepository:ContainerRepository": judged("no-public-endpoints"),
    "oci:LoadBalancer/loadBalancer:LoadBalancer": judged("no-public-endpoints"),
    "oci:NetworkLoadBalancer/networkLoadBalancer:NetworkLoadBalancer": judged("no-public-endpoints"),
    "oci:ApiGateway/gateway:Gateway": judged("no-public-endpoints"),
    "oci:Database/autonomousDatabase:AutonomousDatabase": judged("no-public-endpoints"),
    "oci:Database/autonomousDatabaseWallet:AutonomousDatabaseWallet": judged("iam-no-static-credentials"),
    "oci:Database/autonomousDatabaseSaasAdminUser:AutonomousDatabaseSaasAdminUser": judged(
        "iam-no-static-credentials"),
    "oci:Marketplace/publication:Publication": judged("no-public-endpoints"),
    # --- Kubernetes: kinds (every API version; *Patch and *List as the kind) --------------------------------
    "kubernetes:core:Pod": judged(*_WORKLOADS),
    "kubernetes:core:PodTemplate": judged(*_WORKLOADS),
    "kubernetes:core:ReplicationController": judged(*_WORKLOADS),
    "kubernetes:apps:Deployment": judged(*_WORKLOADS),
    "kubernetes:apps:StatefulSet": judged(*_WORKLOADS),
    "kubernetes:apps:DaemonSet": judged(*_WORKLOADS),
    "kubernetes:apps:ReplicaSet": judged(*_WORKLOADS),
    "kubernetes:batch:Job": judged(*_WORKLOADS),
    "kubernetes:batch:CronJob": judged(*_WORKLOADS),
    "kubernetes:core:Namespace": judged("namespace-pod-security-enforce", "privileged-namespace-purpose",
                                        "injected-scheduling-judged-as-pod-specs"),
    "kubernetes:core:Service": judged("no-public-endpoints", "tenant-services-inside-the-wall",
                                      "platform-wall-no-node-paths"),
    "kubernetes:core:Secret": judged("iam-no-static-credentials"),
    "kubernetes:core:PersistentVolume": judged("node-escape-only-in-node-agent-namespaces",
                                               "volume-reclaim-keeps-protected-storage"),
    "kubernetes:core:ConfigMap": harmless("configuration data; who may write it is judged as RBAC",
                                          "Kubernetes docs \"ConfigMaps\""),
    "kubernetes:core:ServiceAccount": harmless("an identity; what it may do is judged as RBAC and IAM statements",
                                               "Kubernetes docs \"Service Accounts\""),
    "kubernetes:core:PersistentVolumeClaim": harmless("a claim on a volume the stack or a StorageClass provides",
                                                      "Kubernetes docs \"Persistent Volumes\""),
    "kubernetes:core:ResourceQuota": harmless("limits what a namespace may use", "Kubernetes docs \"Resource "
                                              "Quotas\""),
    "kubernetes:core:LimitRange": judged("pod-defaults-give-no-devices", note=(
        "its default and defaultRequest are written into every container that names none, extended resources "
        "(GPUs, MIG slices, RDMA devices) included (Kubernetes docs \"Limit Ranges\"); min, max and "
        "maxLimitRequestRatio only refuse pods")),
    "kubernetes:core:Event": harmless("a record; changes nothing", "Kubernetes docs \"Event\""),
    "kubernetes:events.k8s.io:Event": harmless("a record; changes nothing", "Kubernetes docs \"Event\""),
    "kubernetes:core:Endpoints": refused(
        "points a Service at any address (a node, the instance metadata endpoint, another namespace's pods): "
        "traffic sent to the Service goes there", "Kubernetes security advisory CVE-2021-25740"),
    "kubernetes:discovery.k8s.io:EndpointSlice": refused(
        "points a Service at any address, like Endpoints", "Kubernetes security advisory CVE-2021-25740"),
    "kubernetes:core:Node": refused("writes a node's labels and taints, which decide which tenants' pods land on it",
                                    "Kubernetes docs \"Assigning Pods to Nodes\""),
    "kubernetes:core:Binding": refused("binds a pod to a node of its choice, around the scheduler and its "
                                       "constraints", "Kubernetes API reference \"Binding\""),
    "kubernetes:rbac.authorization.k8s.io": judged("kubernetes-rbac-no-escalation"),
    "kubernetes:networking.k8s.io:Ingress": judged("no-public-endpoints"),
    "kubernetes:networking.k8s.io:IngressClass": harmless("names an ingress controller; Ingresses of it are judged",
                                                          "Kubernetes docs \"Ingress\""),
    "kubernetes:networking.k8s.io:NetworkPolicy": refused(
        "allows traffic that a namespace's default deny refuses (between tenants, from the internet)",
        "Kubernetes docs \"Network Policies\""),
    "kubernetes:networking.k8s.io:ServiceCIDR": refused("adds addresses Services are given (cluster networking)",
                                                        "Kubernetes docs \"Extend Service IP Ranges\""),
    "kubernetes:networking.k8s.io:IPAddress": refused("claims a Service address", "Kubernetes docs \"Extend Service "
                                                      "IP Ranges\""),
    "kubernetes:networking.k8s.io:ClusterCIDR": refused("pod address ranges of nodes", "Kubernetes API reference"),
    "kubernetes:storage.k8s.io:StorageClass": judged("nfs-rules-only-nfs-ports", "squash-identity-not-a-data-owner",
                                                     "storage-trusts-only-node-addresses",
                                                     note="storage classes of FSS are "
                                                     "read with their mount targets"),
    "kubernetes:storage.k8s.io:CSIDriver": refused("registers a CSI driver (its node plugin runs privileged)",
                                                   "Kubernetes docs \"CSI Driver\""),
    "kubernetes:storage.k8s.io:CSINode": refused("node registration of CSI drivers", "Kubernetes API reference"),
    "kubernetes:storage.k8s.io:CSIStorageCapacity": harmless("reports capacity to the scheduler",
                                                             "Kubernetes docs \"Storage Capacity\""),
    "kubernetes:storage.k8s.io:VolumeAttachment": refused("attaches a volume to a node directly",
                                                          "Kubernetes API reference \"VolumeAttachment\""),
    "kubernetes:storage.k8s.io:VolumeAttributesClass": harmless("volume performance settings",
                                                                "Kubernetes docs \"Volume Attributes Classes\""),
    "kubernetes:admissionregistration.k8s.io:ValidatingAdmissionPolicy": harmless(
        "can only refuse requests (CEL), never change or allow them", "Kubernetes docs \"Validating Admission "
        "Policy\""),
    "kubernetes:admissionregistration.k8s.io:ValidatingAdmissionPolicyBinding": harmless(
        "binds a validating policy (refusals only)", "Kubernetes docs \"Validating Admission Policy\""),
    "kubernetes:admissionregistration.k8s.io:MutatingAdmissionPolicy": refused(
        "rewrites every matching object (adds containers, privileges)", "Kubernetes docs \"Mutating Admission "
        "Policy\""),
    "kubernetes:admissionregistration.k8s.io:MutatingAdmissionPolicyBinding": refused(
        "binds a mutating policy", "Kubernetes docs \"Mutating Admission Policy\""),
    "kubernetes:admissionregistration.k8s.io:MutatingWebhookConfiguration": refused(
        "sends every matching object to a webhook that may rewrite it", "Kubernetes docs \"Dynamic Admission "
        "Control\""),
    "kubernetes:admissionregistration.k8s.io:ValidatingWebhookConfiguration": refused(
        "sends every matching object (Secrets too) to a webhook of the stack's choosing",
        "Kubernetes docs \"Dynamic Admission Control\""),
    "kubernetes:apiextensions.k8s.io:CustomResourceDefinition": harmless(
        "defines a kind; objects of its group are placed by group below (an unknown group is refused)",
        "Kubernetes docs \"Custom Resources\""),
    "kubernetes:apiregistration.k8s.io:APIService": refused(
        "routes a whole API group to a service of the stack's choosing (it sees every request of that group)",
        "Kubernetes docs \"Configure the Aggregation Layer\""),
    "kubernetes:certificates.k8s.io:CertificateSigningRequest": refused(
        "asks for a client certificate (a node's or a user's identity)", "Kubernetes docs \"Certificate Signing "
        "Requests\""),
    "kubernetes:certificates.k8s.io:ClusterTrustBundle": refused("adds trust anchors pods may read",
                                                                 "Kubernetes docs \"ClusterTrustBundles\""),
    "kubernetes:certificates.k8s.io:PodCertificateRequest": refused("asks for a pod certificate",
                                                                    "Kubernetes docs \"Certificates\""),
    "kubernetes:node.k8s.io:RuntimeClass": refused(
        "chooses the container runtime handler, and writes its overhead, tolerations and nodeSelector into every pod "
        "naming it (where a policy config allows it, injected-scheduling-judged-as-pod-specs and "
        "pod-defaults-give-no-devices still judge what it writes)", "Kubernetes docs \"Runtime Class\""),
    "kubernetes:scheduling.k8s.io:PriorityClass": judged("priority-class-never-preempts", note=(
        "a class that preempts evicts other tenants' pods; a non-preempting one only orders the queue")),
    "kubernetes:cilium.io:CiliumClusterwideNetworkPolicy": judged("cilium-policy-deny-only"),
    "kubernetes:cilium.io:CiliumNetworkPolicy": judged("cilium-policy-deny-only"),
    "kubernetes:policy:PodDisruptionBudget": harmless("limits voluntary evictions of its own pods",
                                                      "Kubernetes docs \"Disruptions\""),
    "kubernetes:policy:PodSecurityPolicy": harmless("removed in Kubernetes 1.25: " + _REMOVED,
                                                    "Kubernetes docs \"Pod Security Policies\""),
    "kubernetes:extensions": harmless("the extensions/v1beta1 API: " + _REMOVED, "Kubernetes docs \"Deprecated API "
                                      "Migration Guide\""),
    "kubernetes:autoscaling:HorizontalPodAutoscaler": harmless("scales a workload within its quota",
                                                               "Kubernetes docs \"Horizontal Pod Autoscaling\""),
    "kubernetes:coordination.k8s.io": harmless("leases for leader election", "Kubernetes docs \"Leases\""),
    "kubernetes:flowcontrol.apiserver.k8s.io": refused("API priority and fairness: can starve other clients' "
                                                       "requests", "Kubernetes docs \"API Priority and Fairness\""),
    "kubernetes:auditregistration.k8s.io": refused("sends audit events to a sink of the stack's choosing",
                                                   "Kubernetes docs \"Auditing\""),
    "kubernetes:settings.k8s.io": harmless("PodPreset, removed in Kubernetes 1.20: " + _REMOVED,
                                           "Kubernetes docs \"Deprecated API Migration Guide\""),
    "kubernetes:storagemigration.k8s.io": harmless("rewrites stored objects at their current version",
                                                   "Kubernetes docs \"Migrate Kubernetes Objects Using Storage "
                                                   "Version Migration\""),
    "kubernetes:lifecycle.k8s.io": refused("evicts pods", "Kubernetes API reference"),
    "kubernetes:meta": harmless("Status: a response type, never an object", "Kubernetes API reference"),
    "kubernetes:resource.k8s.io": refused("dynamic resource allocation: claims devices (GPUs) and writes which "
                                          "node offers them", "Kubernetes docs \"Dynamic Resource Allocation\""),
    "kubernetes:scheduling.k8s.io": refused("gang scheduling groups and workloads (alpha)",
                                            "Kubernetes docs \"Gang Scheduling\""),
    "kubernetes:apps:ControllerRevision": judged(*_WORKLOADS, note=(
        "a StatefulSet's or DaemonSet's history, and the template `kubectl rollout undo` applies: the controller "
        "adopts a revision its selector matches, so its data's pod template is judged as a workload's "
        "(Kubernetes API reference \"ControllerRevision\"; kubectl rollout undo)")),
    # --- Helm, manifests (components and releases) ---------------------------------------------------------
    "kubernetes:helm.sh:Release": judged("helm-release-pinned", "chart-repository-https", "container-image-pinned",
                                         "helm-values-pod-security", "helm-values-exposure", "helm-values-manifests",
                                         "grafana-sidecars-read-their-namespace"),
    "kubernetes:helm.sh/v4:Chart": judged("helm-release-pinned", "chart-repository-https", "container-image-pinned",
                                          "helm-values-pod-security", "helm-values-exposure", "helm-values-manifests",
                                          "grafana-sidecars-read-their-namespace"),
    "kubernetes:yaml/v2:ConfigFile": judged("kubernetes-manifest-source-pinned"),
    "kubernetes:yaml/v2:ConfigGroup": judged("kubernetes-manifest-source-pinned"),
    "kubernetes:kustomize/v2:Directory": judged("kubernetes-manifest-source-pinned"),
    **{token: refused(f"the Python-side {what} registers none of its inputs (chart, version, repository, files, "
                      f"directory): no rule can verify that its source is pinned; use {instead}",
                      "pulumi_kubernetes 4.34.2 (the component passes an empty property map)")
       for token, what, instead in (
           ("kubernetes:helm.sh/v3:Chart", "helm.sh/v3 Chart", "helm.sh/v3 Release or helm.sh/v4 Chart"),
           ("kubernetes:kustomize:Directory", "kustomize Directory (v1)", "kustomize/v2 Directory"),
           ("kubernetes:yaml:ConfigFile", "yaml ConfigFile (v1)", "yaml/v2 ConfigFile"),
           ("kubernetes:yaml:ConfigGroup", "yaml ConfigGroup (v1)", "yaml/v2 ConfigGroup"))},
}

#: Groups: OCI modules (``oci:<Module>``), Kubernetes API groups (``kubernetes:<group>``, custom resources' groups
#: included), component packages (``<package>:``).
GROUPS: dict[str, dict] = {
    **{f"{runtime}:": refused("a dynamic provider (any module or name) runs the program's own code as a provider: what "
                              "it creates is invisible to every rule", "Pulumi docs \"Dynamic Resource Providers\"")
       for runtime in ("pulumi-python", "pulumi-nodejs")},
    "oke-rdma:": harmless("components of this repository's program: a component registers nothing itself; every "
                          "resource it holds is judged by its own type", "docs/architecture.md \"The rooms\""),
    "kubernetes:kueue.x-k8s.io": judged("cluster-queues-select-one-namespace", "tenant-cohorts-hold-only-tenants",
                                        "tenant-quota-borrowed-only-while-idle",
                                        "tenant-queues-never-preempt-by-priority",
                                        "injected-scheduling-judged-as-pod-specs",
                                        note="they run no pods, but a ClusterQueue decides which namespaces take a "
                                        "pool's GPUs, a cohort who borrows them and its preemption who is evicted "
                                        "for them: judged by tenant_queues and tenant_borrowing (the other kinds — "
                                        "LocalQueue, ResourceFlavor, WorkloadPriorityClass, Topology — only take "
                                        "effect through a ClusterQueue; a ResourceFlavor's tolerations and nodeLabels, which Kueue writes into "
                                        "the pods it admits, are judged as a tenant pod's by injected_settings)"),
    "kubernetes:monitoring.coreos.com": judged(*_OPERATOR, "monitoring-data-stays-inside",
                                               note="embedded: Prometheus, Alertmanager, ThanosRuler "
                                               "and PrometheusAgent pod fields are read by the embedded pod-spec "
                                               "walker; rules and monitors run no pods; every address they send "
                                               "metrics or alerts to is judged"),
    **{f"kubernetes:{g}": refused(
        f"the {name} runs the containers its policy names, privileged, on every node; the pod rules do not read "
        f"this resource (the chart values that install the operator are judged)", source) for g, name, source in (
        ("nvidia.com", "NVIDIA GPU Operator", "NVIDIA GPU Operator docs \"ClusterPolicy\""),
        ("mellanox.com", "NVIDIA Network Operator", "NVIDIA Network Operator docs \"NicClusterPolicy\""))},
    **{f"kubernetes:{g}": judged(*_OPERATOR) for g in (
        "kubeflow.org", "trainer.kubeflow.org", "jobset.x-k8s.io", "keda.sh", "leaderworkerset.x-k8s.io",
        "batch.volcano.sh", "argoproj.io", "tekton.dev", "triggers.tekton.dev", "sparkoperator.k8s.io", "serving.kserve.io",
        "flink.apache.org")},
    "kubernetes:ray.io": judged(*_OPERATOR, "custom-resource-exposure"),
    "kubernetes:gateway.networking.k8s.io": judged("no-public-endpoints", "routes-attach-to-declared-gateways"),
    # --- OCI modules: reviewed as harmless for a GPU platform ---------------------------------------------------
    **{f"oci:{m}": harmless(reason, source) for m, reason, source in (
        ("Monitoring", "alarms and metric queries", "OCI Monitoring docs"),
        ("Ons", "notification topics and subscriptions", "OCI Notifications docs"),
        ("Budget", "budgets and alerts", "OCI Billing docs \"Budgets\""),
        ("Limits", "quotas that only lower what compartments may use", "OCI docs \"Compartment Quotas\""),
        ("HealthChecks", "probes of public endpoints from outside", "OCI Health Checks docs"),
        ("Optimizer", "Cloud Advisor recommendations", "OCI Cloud Advisor docs"),
        ("AnnouncementsService", "announcement subscriptions", "OCI Announcements docs"),
        ("ClusterPlacementGroups", "a placement constraint", "OCI docs \"Cluster Placement Groups\""),
    )},
    # --- OCI modules: the rest, refused until reviewed ---------------------------------------------------------
    "oci:OsManagementHub": refused(
        "installs packages, runs updates and reboots on managed instances (nodes), outside Kubernetes",
        _OSMH),
    "oci:Core": refused(_NOT_REVIEWED, "pulumi_oci 5.5.0 core"),
    "oci:Identity": refused("identity settings change who or what matches a grant; " + _NOT_REVIEWED,
                            "OCI IAM docs \"Identity Domains\""),
    **{f"oci:{m}": refused(_NOT_REVIEWED, "pulumi_oci 5.5.0") for m in (
        'Adm', 'AiDocument', 'AiLanguage', 'AiVision', 'Analytics', 'ApiGateway', 'Apm', 'ApmConfig', 'ApmSynthetics',
        'ApmTraces', 'AppMgmtControl', 'Artifacts', 'Autoscaling', 'Bastion', 'BigDataService', 'Blockchain',
        'CapacityManagement', 'CertificatesManagement', 'CloudBridge', 'CloudGuard', 'CloudMigrations', 'ComputeCloud',
        'ContainerEngine', 'DataCatalog', 'DataFlow', 'DataIntegration', 'DataLabellingService', 'DataSafe',
        'DataScience', 'Database', 'DatabaseManagement', 'DatabaseMigration', 'DatabaseTools', 'Dblm',
        'DelegateAccessControl', 'DemandSignal', 'Desktops', 'DevOps', 'DisasterRecovery', 'Dns', 'Email', 'Events',
        'FileStorage', 'FleetAppsManagement', 'FleetSoftwareUpdate', 'Functions', 'FusionApps', 'GenerativeAi',
        'GenericArtifactsContent', 'GoldenGate', 'IdentityDataPlane', 'Integration', 'Jms', 'Kms', 'LicenseManager',
        'LoadBalancer', 'LogAnalytics', 'Logging', 'Lustre', 'ManagementDashboard', 'Marketplace', 'MediaServices',
        'MeteringComputation', 'Mysql', 'NetworkFirewall', 'NetworkLoadBalancer', 'Nosql', 'ObjectStorage', 'Oce',
        'Ocvp', 'Oda', 'Opa', 'Opensearch', 'OperatorAccessControl', 'Opsi', 'OspGateway', 'Psql', 'Queue',
        'RecoveryMod', 'Redis', 'ResourceManager', 'Sch', 'ServiceCatalog', 'StackMonitoring', 'Streaming',
        'Tenantmanagercontrolplane', 'UsageProxy', 'Vault', 'Vbs', 'VisualBuilder', 'VnMonitoring',
        'VulnerabilityScanning', 'Waa', 'Waas', 'Waf', 'oci')},
    "oci:Zpr": refused("Zero Trust Packet Routing policies allow traffic between endpoints by security attribute, "
                       "over and above security lists and NSGs: a path into a subnet the exposure rules do not read",
                       "OCI docs \"Zero Trust Packet Routing\""),
    "oci:SecurityAttribute": refused("security attributes decide which endpoints a ZPR policy matches",
                                     "OCI docs \"Zero Trust Packet Routing: Security Attributes\""),
    "oci:ResourceScheduler": refused("stops and starts instances (nodes) on a schedule",
                                     "OCI docs \"Resource Scheduler\""),
    "oci:ManagementAgent": refused("deploys agent plugins that run on hosts (nodes)",
                                   "OCI docs \"Management Agent\""),
    "oci:Audit": refused("changes the tenancy's audit log retention", "OCI Audit docs \"Audit Log Retention\""),
}
