"""Every IAM resource-type name the security pack knows: families, IAM's own types and the individual types of the
services a GPU platform reaches — the same set as the program's ``oke_rdma.facts.iam.ALL_RESOURCE_TYPES`` (its
module docstring names the policy reference pages and dates; a test keeps the two equal).

``iam-no-run-time-undo`` refuses a group's or a workload's ``use``/``manage`` of a name outside this set: a misspelt
or undocumented name (``zpr-policies`` for ``zpr-policy``, ``virtual-node-pools`` for ``cluster-virtualnode-pools``)
cannot be judged against the tables of what a type creates, so it fails closed, as the config check does for a
tenant's grant.
"""
from __future__ import annotations

KNOWN_RESOURCE_TYPES = frozenset({
    "ai-service-document-family", "ai-service-language-family", "ai-service-speech-family",
    "ai-service-vision-family", "alarms", "all-resources", "api-gateway-family", "apm-domains",
    "app-catalog-listing", "artifact-repositories", "authentication", "authentication-policies",
    "autonomous-backups", "autonomous-database-family", "autonomous-databases", "backup-policies",
    "backup-policy-assignments", "backups", "bastion", "bastion-family", "bastion-session", "boot-volume-backups",
    "buckets", "byoasns", "byoip-ranges", "capture-filters", "certificate-associations",
    "certificate-authorities", "certificate-authority-bundles", "certificate-authority-family",
    "certificate-bundles", "certificates", "cloud-guard-family", "cloudevents-rules", "cluster-family",
    "cluster-networks", "cluster-node-pools", "cluster-virtualnode-pools", "cluster-work-requests",
    "cluster-workload-mappings", "clusters", "compartments", "compute-capacity-reports",
    "compute-capacity-reservations", "compute-capacity-topologies", "compute-clusters",
    "compute-container-family", "compute-global-image-capability-schema", "compute-gpu-memory-clusters",
    "compute-gpu-memory-fabrics", "compute-image-capability-schema", "compute-management-family",
    "connect-harnesses", "console-histories", "cpes", "credentials", "cross-connect-groups", "cross-connects",
    "data-catalog-family", "data-flow-family", "data-labeling-family", "data-science-family",
    "data-science-job-runs", "data-science-jobs", "data-science-model-deployments",
    "data-science-model-version-sets", "data-science-models", "data-science-notebook-sessions",
    "data-science-pipeline-runs", "data-science-pipelines", "data-science-private-endpoint",
    "data-science-projects", "database-family", "databases", "db-homes", "db-nodes", "db-systems",
    "dedicated-vm-hosts", "devops-build-pipelines", "devops-connections", "devops-deploy-pipelines",
    "devops-family", "devops-projects", "devops-repositories", "dhcp-options", "dns", "domain", "domains",
    "drg-attachments", "drgs", "dynamic-groups", "email-family", "export-sets", "file-family", "file-systems",
    "filesystem-snapshot-policies", "fn-app", "fn-function", "fn-invocation", "functions-family",
    "generative-ai-agent", "generative-ai-chat", "generative-ai-dedicated-ai-cluster", "generative-ai-endpoint",
    "generative-ai-family", "generative-ai-model", "generative-ai-text-embed", "generative-ai-text-generate",
    "generative-ai-text-summarize", "generative-ai-work-request", "generic-artifacts", "group-memberships",
    "groups", "hsm-clusters", "identity-providers", "instance-agent-command-execution-family",
    "instance-agent-command-family", "instance-agent-commands", "instance-agent-family", "instance-agent-plugins",
    "instance-configurations", "instance-console-connection", "instance-family", "instance-images",
    "instance-pools", "instances", "internet-gateways", "ipsec-connections", "ipv6s", "key-delegate", "keys",
    "leaf-certificate-family", "load-balancers", "local-peering-gateways", "log-analytics-family", "log-content",
    "log-groups", "logging-family", "lustre-file-family", "management-agent-install-keys", "management-agents",
    "metrics", "mount-targets", "mysql-backups", "mysql-family", "mysql-instances", "nat-gateways",
    "network-firewall", "network-firewall-family", "network-firewall-policies", "network-firewall-policy",
    "network-firewalls", "network-load-balancers", "network-security-groups", "network-sources", "nosql-family",
    "nosql-indexes", "nosql-rows", "nosql-tables", "oauth2-clients", "object-family", "objects",
    "objectstorage-namespaces", "ons-family", "ons-subscriptions", "ons-topics", "opensearch-clusters",
    "opensearch-family", "osmh-entitlements", "osmh-events", "osmh-family", "osmh-lifecycle-environments",
    "osmh-lifecycle-stages", "osmh-managed-instance-group", "osmh-managed-instance-groups",
    "osmh-managed-instances", "osmh-management-station", "osmh-profiles", "osmh-scheduled-jobs",
    "osmh-software-sources", "osmh-work-requests", "osms-events", "osms-managed-instance-groups",
    "osms-managed-instances", "osms-scheduled-jobs", "osms-software-sources", "outbound-connectors", "policies",
    "postgres-db-systems", "private-ips", "public-ip-pools", "public-ips", "queue-family", "queue-pull",
    "queue-push", "queues", "remote-peering-connections", "replications", "repos", "route-tables",
    "secret-bundles", "secret-family", "secrets", "security-attribute-family", "security-lists",
    "service-gateways", "service-principal", "serviceconnectors", "stream-family", "stream-pools", "stream-pull",
    "stream-push", "streams", "subnets", "tag-defaults", "tag-namespaces", "tagnamespaces", "tagrules",
    "tasdomain", "tenancies", "unified-configuration", "users", "vaults", "vcns", "virtual-circuits",
    "virtual-network-family", "vlans", "vnic-attachments", "vnics", "volume-attachments", "volume-backups",
    "volume-family", "volume-group-backups", "volume-groups", "volumes", "vtaps", "work-requests", "zpr-family",
    "zpr-policy", "zpr-security-attribute",
})
