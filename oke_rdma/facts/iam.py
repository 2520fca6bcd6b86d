"""IAM policy vocabulary: verbs, aggregate resource types (families) and individual resource types.

Sources (checked 2026-11-30; ``lustre-file-family`` 2026-12-01): IAM docs "Policy Syntax" and "Verbs" (the four verbs), "Resource-Types" (the
aggregate types: ``all-resources`` and the ``*-family`` types), and each service's "Details for <service>" page
of the IAM "Policy Reference" for the individual types: Core Services (Compute, Compute Management, Block Volume,
Networking), Kubernetes Engine, Object Storage, File Storage, Vault/Key Management and Secrets, Logging,
Monitoring, Notifications, Streaming, Queue, Functions, Container Registry and Artifacts, Data Science,
Generative AI, Database, Load Balancer, Certificates, and IAM itself (with and without Identity Domains).

Scope: the services a workload on a GPU training cluster reaches. A grant naming a resource type of another
service is refused by the config check (it cannot tell a typo, ``object`` for ``objects``, from a real type it
does not list); the message says to check the service's policy reference page and add the type here.
"""

#: The policy verbs, least to most access (IAM docs "Verbs").
VERBS = ("inspect", "read", "use", "manage")

#: Aggregate resource types (IAM docs "Resource-Types").
FAMILIES = frozenset({
    "all-resources", "cluster-family", "compute-management-family", "instance-family", "object-family",
    "virtual-network-family", "volume-family", "file-family", "database-family", "autonomous-database-family",
    "dns", "email-family", "functions-family", "stream-family", "secret-family", "logging-family", "ons-family",
    "repos", "generic-artifacts", "data-science-family", "generative-ai-family", "certificate-authority-family",
    "leaf-certificate-family", "nosql-family", "mysql-family", "bastion-family", "queue-family",
    "data-catalog-family", "data-flow-family", "ai-service-language-family", "ai-service-vision-family",
    "ai-service-speech-family", "ai-service-document-family", "data-labeling-family", "devops-family",
    "apm-domains", "cloud-guard-family", "opensearch-family", "log-analytics-family",
    # File Storage with Lustre (Policy Reference "Details for File Storage with Lustre"; the family was missing,
    # so a tenant grant on Lustre was refused; checked 2026-12-01)
    "lustre-file-family",
    # Core Services (Compute), OS Management Hub (node access, below)
    "instance-agent-family", "instance-agent-command-execution-family", "osmh-family",
    # what the security pack's catalogue refuses or judges (policies/security/iam_types.py; read 2026-12-02): API
    # Gateway, Container Instances, Network Firewall, Zero Trust Packet Routing and security attributes
    "api-gateway-family", "compute-container-family", "network-firewall-family", "zpr-family",
    "security-attribute-family",
})

#: IAM's own resource types (IAM docs "Details for IAM with Identity Domains" and "... without Identity Domains").
IAM_RESOURCE_TYPES = frozenset({
    "policies", "dynamic-groups", "groups", "group-memberships", "users", "credentials", "domains", "domain",
    "identity-providers", "network-sources", "authentication-policies", "oauth2-clients", "compartments",
    "tenancies", "tag-namespaces", "tag-defaults", "tagnamespaces", "tagrules", "service-principal",
    # listed as IAM resource types (2024-06-06 revision, checked 2026-12-01) without a permission table: what
    # use/manage of them allows cannot be judged, so they are treated as IAM-changing (fail closed)
    "authentication", "tasdomain",
    "work-requests",
})

#: Individual resource types of the services listed in the module docstring (Policy Reference).
RESOURCE_TYPES = frozenset({
    # Compute, Compute Management
    "instances", "instance-images", "instance-console-connection", "console-histories", "app-catalog-listing",
    "instance-agent-plugins", "instance-agent-command-family", "instance-agent-commands", "dedicated-vm-hosts",
    "compute-clusters", "compute-capacity-reports", "compute-capacity-reservations", "compute-image-capability-schema",
    "compute-global-image-capability-schema", "compute-gpu-memory-clusters", "compute-gpu-memory-fabrics",
    "compute-capacity-topologies",
    # Bastion ("Bastion IAM Policies"); OS Management Hub and OS Management (their policy references)
    "bastion", "bastion-session", "osmh-managed-instances", "osmh-managed-instance-group",
    "osmh-managed-instance-groups", "osmh-scheduled-jobs", "osmh-software-sources", "osmh-lifecycle-environments",
    "osmh-lifecycle-stages", "osmh-profiles", "osmh-management-station", "osmh-work-requests", "osmh-entitlements",
    "osmh-events", "osms-managed-instances", "osms-managed-instance-groups", "osms-scheduled-jobs",
    "osms-software-sources", "osms-events",
    "instance-configurations", "instance-pools", "cluster-networks",
    # Block Volume
    "volumes", "volume-attachments", "volume-backups", "boot-volume-backups", "backup-policies",
    "backup-policy-assignments", "volume-groups", "volume-group-backups",
    # Networking
    "vcns", "subnets", "route-tables", "network-security-groups", "security-lists", "dhcp-options", "private-ips",
    "public-ips", "ipv6s", "internet-gateways", "nat-gateways", "service-gateways", "local-peering-gateways",
    "remote-peering-connections", "drgs", "drg-attachments", "vnics", "vnic-attachments", "vlans", "byoip-ranges",
    "public-ip-pools", "vtaps", "capture-filters", "load-balancers", "network-load-balancers", "network-firewalls",
    "network-firewall-policies",
    # Kubernetes Engine
    "clusters", "cluster-node-pools", "cluster-virtualnode-pools", "cluster-workload-mappings",
    "cluster-work-requests",
    # Object Storage, File Storage
    "objectstorage-namespaces", "buckets", "objects", "file-systems", "mount-targets", "export-sets",
    "outbound-connectors", "replications", "filesystem-snapshot-policies",
    # Vault, Key Management, Secrets, Certificates
    "vaults", "keys", "key-delegate", "hsm-clusters", "secrets", "secret-bundles", "certificates",
    "certificate-authorities", "certificate-bundles", "certificate-authority-bundles", "certificate-associations",
    # Logging, Monitoring, Notifications, Streaming, Queue, Functions, Events, Tagging use
    "log-groups", "log-content", "unified-configuration", "metrics", "alarms", "ons-topics", "ons-subscriptions",
    "streams", "stream-push", "stream-pull", "stream-pools", "connect-harnesses", "queues", "queue-push",
    "queue-pull", "fn-app", "fn-function", "fn-invocation", "cloudevents-rules",
    # Container Registry, Artifacts, DevOps
    "repos", "generic-artifacts", "artifact-repositories", "devops-projects", "devops-repositories",
    "devops-build-pipelines", "devops-deploy-pipelines", "devops-connections",
    # Data Science, Generative AI
    "data-science-projects", "data-science-models", "data-science-model-deployments", "data-science-jobs",
    "data-science-job-runs", "data-science-notebook-sessions", "data-science-pipelines",
    "data-science-pipeline-runs", "data-science-model-version-sets", "data-science-private-endpoint",
    "generative-ai-model", "generative-ai-endpoint", "generative-ai-dedicated-ai-cluster",
    "generative-ai-work-request", "generative-ai-chat", "generative-ai-text-generate", "generative-ai-text-embed",
    "generative-ai-text-summarize", "generative-ai-agent",
    # Database
    "autonomous-databases", "autonomous-backups", "databases", "db-systems", "db-nodes", "db-homes", "backups",
    "mysql-instances", "mysql-backups", "nosql-tables", "nosql-rows", "nosql-indexes", "postgres-db-systems",
    "opensearch-clusters",
    # what the security pack's catalogue refuses or judges (policies/security/iam_types.py; read 2026-12-02):
    # Networking (Site-to-Site VPN, FastConnect, BYOASN), Network Firewall's and ZPR's individual types, Management
    # Agent, Connector Hub
    "cpes", "ipsec-connections", "cross-connects", "cross-connect-groups", "virtual-circuits", "byoasns",
    "network-firewall", "network-firewall-policy", "zpr-policy", "zpr-security-attribute", "management-agents",
    "management-agent-install-keys", "serviceconnectors",
})

#: Every resource-type name a grant may use: families, IAM's types and the individual types above.
ALL_RESOURCE_TYPES = FAMILIES | IAM_RESOURCE_TYPES | RESOURCE_TYPES

# --- node access: grants that reach the operating system of compute instances (the cluster's GPU nodes) -------------
# Sources (checked 2026-12-01): IAM "Details for the Core Services" (verb tables, revision 2025-01-23:
# instance-agent-commands, instances, instance-console-connection, volumes, instance-pools, cluster-networks), "Details
# for Kubernetes Engine" (2024-08-13: clusters, cluster-node-pools), "Details for Logging" (2024-06-06:
# unified-configuration), "Bastion IAM Policies", OS Management Hub "Resource Types, Variables, and Permissions"
# and OS Management "Policy Reference" (types only: their verb tables were not read, so use/manage count), Compute docs
# "Running Commands on an Instance" and "Troubleshooting Instances Using Instance Console Connections", OKE docs "About
# Access Control and Kubernetes Engine" and "Setting Up a Bastion for Cluster Access". What each one gives:
# policies/security/node_access.py, which holds the same tables (a test keeps them equal).

#: resource type -> (least verb that reaches the nodes, the permissions that do — None when the permission table was
#: not read —, what it gives).
NODE_ACCESS_TYPES: dict[str, tuple[str, frozenset[str] | None, str]] = {
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
#: aggregate type -> its members that are node-access types.
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
#: Bastion session types that are a network path, not a shell (OCI API "CreateSessionTargetResourceDetails").
PORT_FORWARDING_SESSION_TYPES = frozenset({"port_forwarding", "dynamic_port_forwarding"})

# --- run-time undo: grants that change the network's exposure, Vault keys, buckets' access and versions, or File
# Storage exports and snapshots — what the pack's other rules judge as stack resources. Sources (read 2026-12-02): IAM
# "Details for the Core Services", "Details for the Vault Service", "Details for Object Storage, Archive Storage, and
# Data Transfer", "Details for the File Storage Service". policies/security/iam_reach.py holds the same table with
# the write permissions and what each gives (a test keeps the least verbs equal).
_NETWORK_WRITE_TYPES = ("virtual-network-family", "network-security-groups", "security-lists", "route-tables",
                        "internet-gateways", "nat-gateways", "public-ips", "private-ips", "vnics", "vnic-attachments",
                        "subnets", "vcns", "drgs", "drg-attachments", "local-peering-gateways",
                        "remote-peering-connections", "ipsec-connections", "cross-connects", "service-gateways")
#: resource type -> the least verb with which a grant changes what the type protects.
RUN_TIME_UNDO_TYPES: dict[str, str] = {
    **{t: "manage" for t in _NETWORK_WRITE_TYPES},
    **{t: "manage" for t in ("keys", "vaults", "kms-family", "vault-family")},
    "buckets": "use", "objects": "manage", "object-family": "use",
    **{t: "manage" for t in ("file-family", "file-systems", "export-sets", "mount-targets")},
    # what creates at run time a type the security pack's catalogue refuses or judges (policies/security/iam_types.py
    # maps each catalogue entry to its IAM types; read 2026-12-02): ``manage`` creates, ``use repos`` pushes images
    **{t: "manage" for t in (
        "api-gateway-family", "autonomous-databases", "bastion", "boot-volume-backups", "byoasns", "byoip-ranges",
        "capture-filters", "cloud-guard-family", "compute-container-family", "console-histories", "cpes",
        "cross-connect-groups", "instance-configurations", "instance-images", "load-balancers", "lustre-file-family",
        "network-firewall", "network-firewall-family", "network-firewall-policy", "network-load-balancers",
        "outbound-connectors", "public-ip-pools", "replications", "security-attribute-family", "serviceconnectors",
        "virtual-circuits", "vlans", "volume-attachments", "volume-backups", "volume-group-backups", "volume-groups",
        "vtaps", "zpr-family", "zpr-policy", "zpr-security-attribute")},
    "repos": "use",
}
#: aggregate type -> its members among the types above (policies/security/iam_types.py FAMILY_MEMBERS, the same
#: sources), so a grant of the family is judged as each member.
RUN_TIME_UNDO_FAMILIES: dict[str, frozenset[str]] = {
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
#: Families that include Vault secret contents (``secret-bundles``): ``all-resources`` and ``secret-family`` (IAM
#: "Details for the Vault Service", read 2026-12-02). ``read`` of one reads every secret it covers.
SECRET_CONTENT_TYPES = frozenset({"all-resources", "secret-family", "secret-bundles"})
