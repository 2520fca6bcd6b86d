"""The constraints ledger: for every resource type the program can declare and every add-on it installs, the rules
their documentation states, where each is stated, when it bites and how oke-rdma holds it.

``docs/constraints.md`` is generated from :data:`LEDGER` (``python -m oke_rdma.docs --write``, ``make docs``), with
the coverage figure (rows held by a check / rows). ``tests/components/test_constraints.py`` fails when a plan of the
dev or prod stack (or a variant with the optional features on) declares a type without a section, when an add-on of
the registry has none, or when a row names a check or a test that does not exist.

Shape: ``LEDGER`` maps a section — a Pulumi type token (``oci:Core/vcn:Vcn``) or ``addon:<registry key>`` — to a
tuple of :class:`Constraint`. A row's ``held`` is one of :data:`HOLDS`; ``check`` names what holds it:

- ``config``/``args``/``construction``/``preview``/``warning``/``preflight``: ``<module>:<attribute>`` (dotted
  attributes allowed: ``Class.method``), importable;
- ``pack``: the name of a policy of ``policies/security`` or ``policies/placement``;
- ``none``: no check; ``reason`` says why (and what holds it instead, if anything).

``test`` is ``tests/<path>.py::<test function>`` (the test that shows the check refusing or the construction
holding); ``source`` a key of :data:`SOURCES` (title or URL, and the date it was read for this product).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

#: How a row is held. ``config``: the stack config check (exit 2, one line naming the key); ``args``: a
#: component's Args refuse it (library users); ``construction``: the program never sets the value otherwise;
#: ``preview``: the offline preview's replacement / refusal model (exit 4/5 or a named replacement); ``pack``: a
#: CrossGuard policy; ``warning``: a preview warning; ``preflight``: ``make preflight`` asks the tenancy; ``none``.
HOLDS = ("config", "args", "construction", "preview", "pack", "warning", "preflight", "none")
#: When a rule bites.
BITES = ("create", "update", "delete", "runtime", "upgrade")

#: Sources: key → (title or URL, or repository path at a version; the date it was read for this product).
SOURCES: dict[str, tuple[str, str]] = {
    "vcn": ("OCI docs, Networking: 'VCNs and Subnets' (docs.oracle.com/iaas/Content/Network/Tasks/VCNs.htm)",
            "2026-11-30"),
    "nsg": ("OCI docs, Networking: 'Network Security Groups' (Content/Network/Concepts/networksecuritygroups.htm): "
            "at most 120 security rules per NSG, ingress and egress together; a VNIC in at most 5 NSGs",
            "2026-12-01"),
    "nsg-api": ("OCI API reference, AddNetworkSecurityGroupSecurityRulesDetails (up to 25 rules per call; the "
                "provider adds one rule per resource)", "2026-12-01"),
    "security-rules": ("OCI docs, Networking: 'Security Rules' (stateful vs stateless; Content/Network/Concepts/"
                       "securityrules.htm)", "2026-11-30"),
    "gateways": ("OCI docs, Networking: 'NAT Gateway', 'Service Gateway', 'Internet Gateway', 'VCN Route Tables'",
                 "2026-11-30"),
    "oke-net": ("OKE docs, 'Network Resource Configuration for Cluster Creation and Deployment' "
                "(contengnetworkconfig.htm), 'Using the OCI VCN-Native Pod Networking CNI plugin'", "2026-11-30"),
    "oke-cluster": ("OKE docs, 'Creating a Cluster', 'Enhanced Clusters and Basic Clusters', 'Kubernetes Versions "
                    "and Kubernetes Engine'; OCI API CreateClusterDetails / UpdateClusterDetails", "2026-11-30"),
    "oke-pools": ("OKE docs, 'Creating a Managed Node Pool', 'Node Pool Cycling', 'Using Compute Clusters to "
                  "Provision Managed Nodes'; OCI API CreateNodePoolDetails / UpdateNodePoolDetails", "2026-11-30"),
    "oke-wi": ("OKE docs, 'Granting Workloads Access to OCI Resources' (contenggrantingworkloadaccesstoresources.htm)",
               "2026-11-30"),
    "compute-clusters": ("OCI docs, Compute: 'Compute Clusters'; OCI API CreateComputeClusterDetails", "2026-11-30"),
    "shapes": ("OCI docs, Compute: 'Compute Shapes' (oke_rdma/facts/shapes.py)", "2026-11-30"),
    "fss": ("OCI docs, File Storage: 'Managing Mount Targets', 'Mount Target Performance', 'Working with NFS Export "
            "Options', 'Using In-transit TLS Encryption'", "2026-11-30"),
    "lustre": ("OCI docs, 'File Storage with Lustre' (capacity steps, performance tiers, root squash, LNet ports)",
               "2026-11-30"),
    "bucket": ("OCI docs, Object Storage: 'Managing Buckets', 'Object Versioning', 'Using Your Own Keys'",
               "2026-11-30"),
    "iam": ("OCI docs, IAM: 'Policy Syntax', 'Verbs', 'Resource-Types', 'Managing Dynamic Groups' "
            "(oke_rdma/facts/iam.py)", "2026-11-30"),
    "iam-limit": ("OCI docs, IAM: 'Policy Statements Limit per Compartment Hierarchy' (policy-limits-compartment-"
                  "hierarchy.htm): at most 500 statements from the root compartment to any leaf, a hard limit",
                  "2026-12-01"),
    "tf-oci": ("terraform-provider-oci v8.28.0 internal/service/*/*_resource.go: ForceNew fields "
               "(offline/oci_force_new.json)", "2026-11-30"),
    "k8s-api": ("Kubernetes API reference (field descriptions in the kubernetes Python client 35.0.0; "
                "offline/k8s_immutable.json) and the Kubernetes docs of each kind", "2026-11-30"),
    "k8s-names": ("Kubernetes docs, 'Object Names and IDs' (DNS-1123 labels and subdomains), 'Labels and Selectors'",
                  "2026-11-30"),
    "k8s-pss": ("Kubernetes docs, 'Pod Security Standards', 'Pod Security Admission'", "2026-11-30"),
    "k8s-quota": ("Kubernetes docs, 'Resource Quotas' (a quota on requests refuses pods without requests)",
                  "2026-11-30"),
    "k8s-pv": ("Kubernetes docs, 'Persistent Volumes' (binding, claimRef, expansion, reclaim policy)", "2026-11-30"),
    "oke-bv": ("OKE docs, 'Provisioning PVCs on the Block Volume Service' (the built-in StorageClasses oci-bv and oci)",
               "2026-12-01"),
    "k8s-rbac": ("Kubernetes docs, 'Using RBAC Authorization' (escalate, bind, aggregation)", "2026-11-30"),
    "k8s-vap": ("Kubernetes docs, 'Validating Admission Policy' (paramKind, matchConstraints, CEL cost)", "2026-11-30"),
    "k8s-crd": ("Kubernetes docs, 'Extend the Kubernetes API with CustomResourceDefinitions' (storage versions, "
                "conversion)", "2026-11-30"),
    "pulumi-k8s": ("pulumi-kubernetes 4.34.2 docs: Helm Release resource, yaml/v2 ConfigGroup, Provider "
                   "(diffConfig replaces)", "2026-11-30"),
    "kueue": ("Kueue docs and CRDs at the pinned version (ClusterQueue, LocalQueue, ResourceFlavor, Topology; "
              "x-kubernetes-validations)", "2026-11-30"),
    "gpu-operator": ("NVIDIA GPU Operator docs and chart at the pinned version (oke_rdma/addons/gpu_operator.py)",
                     "2026-11-30"),
    "prom-operator-storage": ("prometheus-operator Documentation/platform/storage.md 'Resizing volumes' (claims of "
                              "an operator-owned StatefulSet are not expanded); prometheus-operator#2357; "
                              "zacheryph/k8s-gitops#3409", "2026-12-02"),
    "oke-oidc-update": ("oracle/terraform-provider-oci#2231 (open): changing a cluster's OIDC issuer and client ID "
                        "fails with 'Invalid OidcAuthnConfig.CaCertificate' without a CA certificate", "2026-12-02"),
    "kps": ("prometheus-community/helm-charts kube-prometheus-stack at the pinned version (values, UPGRADE notes)",
            "2026-11-30"),
    "keda": ("keda.sh docs 'Kubernetes Compatibility', kedacore/charts at the pinned version", "2026-11-30"),
    "operators": ("kubeflow/trainer, kubernetes-sigs/jobset, ray-project/kuberay, kubeflow/mpi-operator: charts and "
                  "manifests at the pinned versions (oke_rdma/addons/)", "2026-11-30"),
    "prometheus-rules": ("Prometheus docs, 'Alerting rules', 'Unit testing for rules' (promtool)", "2026-11-30"),
    "cilium": ("Cilium 1.20.0 docs and chart (values.schema.json), its OKE chaining guide and issues (oke_rdma/addons/"
               "cilium.py)", "2026-12-01"),
    "pko": ("pulumi/pulumi-kubernetes-operator v2.9.0: the Stack CRD and its release notes (docs/fleet.md)",
            "2026-12-01"),
    "flux": ("fluxcd/flux2 v2.8.5: the Kustomization and GitRepository CRDs (docs/fleet.md)", "2026-12-01"),
    "pulumi": ("Pulumi docs, resource options (protect, retainOnDelete, deleteBeforeReplace, replaceOnChanges)",
               "2026-11-30"),
    "oci-bv-csi": ("oracle/oci-cloud-controller-manager pkg/csi/driver/bv_controller.go (ControllerPublishVolume, "
                   "getAttachmentOptions: a node with in-transit encryption takes paravirtualized attachments only); "
                   "OKE docs 'Provisioning PVCs on the Block Volume Service'; "
                   "oracle-quickstart/oci-kubernetes-monitoring#118", "2026-12-02"),
    "chart-templates": ("the pinned charts' templates (Cilium 1.20.0 validate.yaml, GPU Operator v26.7.0 "
                        "validations.yaml, kube-prometheus-stack 88.5.3, KubeRay 1.7.0, JobSet 0.12.0, Trainer "
                        "2.3.0): oke_rdma/facts/chart_templates.py", "2026-12-02"),
}


@dataclass(frozen=True)
class Constraint:
    """One documented rule of a declared type or an installed add-on, and how oke-rdma holds it.

    :param rule: the constraint, in one line.
    :param source: a key of :data:`SOURCES`.
    :param bites: when it bites, a subset of :data:`BITES`.
    :param held: one of :data:`HOLDS`.
    :param check: what holds it (see the module docstring); None with ``held="none"``.
    :param test: ``tests/<path>.py::<test>``; None with ``held="none"``.
    :param reason: with ``held="none"``, why not, and what the user is told instead.
    """

    rule: str
    source: str
    bites: tuple[str, ...]
    held: str
    check: Optional[str] = None
    test: Optional[str] = None
    reason: Optional[str] = None

    @property
    def checked(self) -> bool:
        return self.held != "none"


def _c(rule: str, source: str, bites: str, held: str, check: Optional[str] = None, test: Optional[str] = None,
       reason: Optional[str] = None) -> Constraint:
    return Constraint(rule, source, tuple(bites.split(",")), held, check, test, reason)


# Test files most rows point at.
_CFG = "tests/config/test_config.py::"
_LIM = "tests/config/test_config_limits.py::"
_NET = "tests/components/test_network.py::"
_PLC = "tests/config/test_placement.py::"
_CAS = "tests/offline/test_cascade.py::"
_STA = "tests/offline/test_state.py::"
_NOD = "tests/offline/test_no_decrease.py::"
_REP = "tests/offline/test_replacement.py::"
_OKEN = "tests/policies/test_oke_network_policies.py::"
_STO = "tests/components/test_storage.py::"
_SHP = "tests/config/test_facts_shapes.py::"
_FORCE_NEW = "preview:offline.immutable:force_new"
_K8S_FORCE_NEW = "preview:offline.immutable:kubernetes_force_new"
_API_IMMUTABLE = "preview:offline.immutable:api_immutable"

LEDGER: dict[str, tuple[Constraint, ...]] = {
    "oci:Core/vcn:Vcn": (
        _c("A VCN CIDR block is /16 to /30 and of private space the stack plans from", "vcn", "create", "config",
           "oke_rdma.config.network:_oci_cidr", _LIM + "test_vcn_outside_16_to_30_is_refused"),
        _c("The VCN DNS label is 1-15 letters and digits starting with a letter, and cannot change (replaces the "
           "VCN and everything in it)", "vcn", "create,update", "preview", _FORCE_NEW,
           _CAS + "test_replacing_the_vcn_dns_label_cascades_to_everything_in_the_vcn"),
        _c("Subnets of one VCN must not overlap and must lie inside the VCN", "vcn", "create,update", "config",
           "oke_rdma.config.checks.network:check_network", "tests/config/test_network_byo.py::"
           "test_overlapping_subnets_are_both_named"),
        _c("Its default security list is created with permissive rules unless the stack manages it",
           "security-rules", "create", "construction", "oke_rdma.network:Network",
           _NET + "test_default_security_list_is_locked_down"),
    ),
    "oci:Core/defaultSecurityList:DefaultSecurityList": (
        _c("Managing the default security list replaces all its rules; no rule may stay open", "security-rules",
           "create,update", "construction", "oke_rdma.network:Network",
           _NET + "test_default_security_list_is_locked_down"),
        _c("Any security list rule open to the internet on SSH or all ports is unsafe", "security-rules",
           "create,update", "pack", "no-internet-ssh-or-all-ports", _OKEN + "test_internet_ingress_security_lists"),
    ),
    "oci:Core/subnet:Subnet": (
        _c("A subnet is /16 to /30; OCI keeps its first two and its last address", "vcn", "create", "config",
           "oke_rdma.config.network:_oci_cidr", _LIM + "test_subnet_smaller_than_30_is_refused_before_any_resource"),
        _c("The worker subnet holds one IP per node plus the node-cycling surge", "oke-net", "create,update",
           "config", "oke_rdma.config.checks.network:check_network", _LIM +
           "test_worker_subnet_capacity_counts_cycle_headroom"),
        _c("With VCN-native pod networking the pod subnet holds maxPodsPerNode IPs per node (plus surge)", "oke-net",
           "create,update,runtime", "config", "oke_rdma.config.checks.network:check_network",
           "tests/config/test_network_byo.py::test_pod_subnet_too_small_for_an_rdma_pool_shows_needed_and_available"),
        _c("The storage subnet holds the mount target's 3 IPs and the Lustre file system's addresses",
           "lustre", "create", "config", "oke_rdma.config.checks.network:check_network",
           "tests/config/test_storage_subnet_capacity.py::"
           "test_a_storage_subnet_without_room_for_mount_target_and_lustre_is_refused"),
        _c("Worker and pod subnets are private (prohibitPublicIpOnVnic)", "oke-net", "create", "pack",
           "node-subnets-private", _OKEN + "test_node_subnets_private"),
        _c("A brought subnet must be of the stack's region", "vcn", "create", "config",
           "oke_rdma.config.checks.oci_facts:check_ocid_regions",
           _LIM + "test_brought_network_ocids_of_another_region_are_refused"),
        _c("cidrBlock, dnsLabel, availabilityDomain, vcnId cannot change in place (ForceNew)", "tf-oci", "update",
           "preview", _FORCE_NEW, "tests/offline/test_private_ips.py::"
           "test_a_replaced_subnet_replaces_the_mount_target_and_its_ip_is_unknown"),
    ),
    "oci:Core/natGateway:NatGateway": (
        _c("Private subnets reach the internet only through a NAT gateway on their route table", "gateways",
           "runtime", "construction", "oke_rdma.network:Network",
           _NET + "test_private_route_table_targets_nat_and_service_gateway"),
    ),
    "oci:Core/serviceGateway:ServiceGateway": (
        _c("OKE nodes reach OCIR/Object Storage/OKE through 'All <region> Services In Oracle Services Network'",
           "oke-net", "runtime", "construction", "oke_rdma.network:Network",
           _NET + "test_private_route_table_targets_nat_and_service_gateway"),
    ),
    "oci:Core/internetGateway:InternetGateway": (
        _c("An internet gateway is created only when something is public (API endpoint or load balancers)",
           "gateways", "create", "construction", "oke_rdma.network:Network",
           _NET + "test_public_endpoint_and_load_balancers_get_an_internet_gateway"),
        _c("Nothing but the declared public endpoints is reachable from the internet", "security-rules", "runtime",
           "pack", "no-internet-ingress", _OKEN + "test_internet_ingress_fails"),
    ),
    "oci:Core/routeTable:RouteTable": (
        _c("Every allowed client has a way back: private subnets route 0.0.0.0/0 to the NAT gateway and the OSN "
           "CIDR to the service gateway", "gateways", "runtime", "construction", "oke_rdma.network:Network",
           _NET + "test_private_route_table_targets_nat_and_service_gateway"),
    ),
    "oci:Core/networkSecurityGroup:NetworkSecurityGroup": (
        _c("An NSG holds at most 120 security rules (ingress and egress together)", "nsg", "create,update",
           "config", "oke_rdma.network:nsg_rule_limit_problems",
           "tests/components/test_constraints.py::test_more_api_client_cidrs_than_an_nsg_holds_exit_2"),
        _c("A VNIC is in at most 5 NSGs: OKE attaches one NSG per role to each VNIC", "nsg", "create",
           "construction", "oke_rdma.network:Network",
           "tests/components/test_constraints.py::test_every_declared_nsg_stays_within_its_rule_limit"),
        _c("OKE needs its control-plane, worker and pod rules (6443, 12250, kubelet, ICMP 3/4)", "oke-net",
           "create,runtime", "pack", "oke-required-nsg-rules",
           _OKEN + "test_control_plane_nsg_without_12250_is_refused_naming_12250"),
    ),
    "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule": (
        _c("Rules are stateful: the reply is allowed; a stateless rule needs its reverse rule", "security-rules",
           "runtime", "construction", "oke_rdma.network:oke_rules",
           "tests/components/test_network_rules.py::test_every_row_of_the_design_table_is_an_nsg_rule_exactly_once"),
        _c("A rule the pack cannot interpret (protocol, ports, source type) is refused, not passed", "security-rules",
           "create,update", "pack", "network-rule-interpretable",
           "tests/offline/test_policy_conformance.py::test_a_protocol_given_as_a_map_is_judged_not_a_crash"),
        _c("No internet ingress on SSH or all ports; the API endpoint only from allowedCidrs", "security-rules",
           "runtime", "pack", "kubernetes-api-endpoint-restricted",
           "tests/offline/test_cli.py::"
           "test_public_api_endpoint_open_to_the_internet_exits_2_and_outside_the_policy_cidrs_exits_1"),
        _c("Every rule field is ForceNew: a changed rule is deleted and created (a brief gap)", "tf-oci", "update",
           "preview", _FORCE_NEW, _REP + "test_every_force_new_entry_is_an_input_of_pulumi_oci"),
    ),
    "oci:ContainerEngine/cluster:Cluster": (
        _c("A change of the OIDC sign-in configuration is refused by OCI without a CA certificate", "oke-oidc-update",
           "update", "preview", "preview:offline.stuck_updates:STUCK_UPDATES",
           "tests/offline/test_stuck_updates.py::test_an_oidc_change_without_a_ca_certificate_is_refused"),
        _c("kubernetesVersion must be one OKE offers in the region", "oke-cluster", "create,upgrade", "config",
           "oke_rdma.config.checks.oci_facts:check_kubernetes_versions",
           _SHP + "test_a_version_oke_does_not_offer_is_refused_with_the_offered_ones_the_pins_support"),
        _c("A patch OKE no longer offers cannot create a cluster or node pool", "oke-cluster", "create", "preview",
           "offline.versions:withdrawn_creations",
           "tests/offline/test_withdrawn_versions.py::test_a_new_cluster_on_a_withdrawn_version_is_refused"),
        _c("The control plane is upgraded one minor version at a time and never downgraded", "oke-cluster",
           "upgrade", "preview", "preview:offline.immutable:ONE_MINOR_AT_A_TIME",
           _NOD + "test_a_skipped_minor_version_against_the_previous_plan_is_refused_with_the_step_to_take"),
        _c("Workload Identity, OIDC discovery and Compute Cluster pools need an ENHANCED cluster", "oke-cluster",
           "create", "config", "oke_rdma.config.checks.compute:check_pools",
           _PLC + "test_oidc_discovery_needs_an_enhanced_cluster"),
        _c("kmsKeyId, CNI type, VCN, endpoint subnet, pods/services CIDRs cannot change (replace the cluster)",
           "tf-oci", "update", "preview", _FORCE_NEW,
           _CAS + "test_an_immutable_cluster_change_replaces_the_pools_the_provider_and_every_kubernetes_object"),
        _c("The API endpoint is private unless configured, and public only to allowedCidrs", "oke-net", "runtime",
           "pack", "kubernetes-api-not-public",
           "tests/offline/test_cli.py::"
           "test_public_api_endpoint_open_to_the_internet_exits_2_and_outside_the_policy_cidrs_exits_1"),
        _c("The cluster principal needs its Vault key policy before the cluster uses the key", "oke-cluster",
           "create", "construction", "oke_rdma.cluster:Cluster",
           "tests/components/test_cluster_pools.py::test_key_policy_exists_before_the_cluster_and_every_node_pool"),
        _c("A basic cluster may become enhanced; an enhanced cluster never becomes basic", "oke-cluster", "update",
           "preview", "preview:offline.immutable:UPDATE_VALUES",
           "tests/offline/test_no_decrease.py::test_an_enhanced_cluster_made_basic_against_the_previous_plan_is_refused"),
        _c("Vault keys are regional: a key of another region is refused by OKE", "oke-cluster", "create", "config",
           "oke_rdma.config.checks.oci_facts:check_ocid_regions",
           "tests/config/test_facts.py::test_a_vault_key_of_another_region_is_refused"),
    ),
    "oci:ContainerEngine/nodePool:NodePool": (
        _c("A pool's version is offered by OKE, never newer than the control plane, within the skew policy",
           "oke-pools", "create,upgrade", "config", "oke_rdma.config.checks.compute:check_pools",
           _PLC + "test_pool_version_defaults_to_the_cluster_and_respects_the_skew_policy"),
        _c("An RDMA pool joins one Compute Cluster in its AD, with one placement config and no fault domains",
           "oke-pools", "create", "config", "oke_rdma.config.checks.compute:check_pools",
           _CFG + "test_rdma_pool_with_fault_domain_names_the_key"),
        _c("Flex shapes need OCPUs and memory inside the shape's bounds", "shapes", "create", "config",
           "oke_rdma.config.checks.compute:check_pools", _LIM + "test_flex_sizes_outside_the_shape_bounds_are_refused"),
        _c("maxPodsPerNode fits the shape's VNICs (31 IPs per secondary VNIC, 110 at most)", "oke-net", "create",
           "config", "oke_rdma.config.checks.oci_facts:check_pods_per_node",
           _SHP + "test_max_pods_per_node_of_fixed_shapes"),
        _c("Initial node labels must be valid and not owned by the kubelet or the program", "oke-pools", "create",
           "config", "oke_rdma.config.checks.compute:check_pools",
           _LIM + "test_labels_the_program_or_the_kubelet_own_are_refused"),
        _c("Images are regional and must match the shape and version", "oke-pools", "create", "config",
           "oke_rdma.config.checks.oci_facts:check_image_regions",
           "tests/config/test_config_errors.py::test_image_of_another_region_and_old_style_region_keys"),
        _c("Existing nodes keep the old image/version/cloud-init until cycled", "oke-pools", "update", "warning",
           "offline.replacement:Planner",
           "tests/offline/test_node_pool_updates.py::"
           "test_a_node_property_change_without_cycling_warns_that_existing_nodes_keep_the_old_one"),
        _c("A change that removes what existing nodes still reference (a device-plugin config their label names, an "
           "NSG their VNICs sit in) leaves them pointing at nothing until cycled", "oke-pools", "update", "warning",
           "offline.node_references:dangling_references",
           "tests/offline/test_node_references.py::"
           "test_a_removed_device_plugin_config_old_nodes_still_name_is_said_with_its_fix"),
        _c("A pool's image matches its Kubernetes version: a version change keeping imageId fails (409)",
           "oke-pools", "upgrade", "preview", "offline.node_images:image_version_warnings",
           "tests/offline/test_node_pool_updates.py::"
           "test_a_pool_moving_to_another_kubernetes_version_with_the_same_image_is_refused_in_diagnostics"),
        _c("Moving a pool to another Compute Cluster replaces it", "oke-pools", "update", "preview", _FORCE_NEW,
           _CAS + "test_moving_the_compute_cluster_replaces_the_rdma_pool_that_runs_in_it"),
        _c("OKE images keep their built-in root partition whatever the boot volume size: the pool's cloud-init "
           "grows the root file system (oci-growfs, growpart) before OKE's bootstrap, on every pool", "oke-pools",
           "create,runtime", "construction", "oke_rdma.compute:node_metadata",
           "tests/components/test_node_init_growfs.py::test_every_pool_gets_the_script_with_cilium_on_or_off"),
        _c("Node metadata endpoint: IMDSv2 only (legacy endpoint off)", "oke-pools", "create", "pack",
           "node-pool-imds-v2-only", "tests/policies/test_policies_node_pool.py::"
           "test_imds_rule_fails_open_endpoints_and_unknowns"),
        _c("GPU and core service limits hold every node and the cycling surge", "shapes", "create,update",
           "preflight", "oke_rdma.preflight.compute_checks:ComputeChecks.limits",
           "tests/preflight/test_preflight.py::test_gpu_limit_and_quota_must_hold_every_node"),
        _c("Node maxima per pool and per cluster (basic and enhanced clusters differ; raised on request)",
           "oke-pools", "create,update", "none",
           reason="the values are tenancy service limits on OKE's 'Kubernetes Engine Limits' page, not read here and "
                  "raisable per tenancy; make preflight does not ask for them yet, so a pool beyond them fails at "
                  "pulumi up"),
        _c("A preemptible node in a Compute Cluster is refused; outside it, allowed", "oke-pools", "create", "config",
           "oke_rdma.config.checks.compute:check_pools", _PLC + "test_preemptible_is_fine_outside_the_compute_cluster"),
    ),
    "oci:ContainerEngine/clusterWorkloadMapping:ClusterWorkloadMapping": (
        _c("One mapped compartment per namespace; the mapping needs the deployer group's statements", "oke-wi",
           "create", "config", "oke_rdma.config.checks.workload_identity:check_workload_identity",
           "tests/components/test_workload_identity.py::test_one_mapped_compartment_per_namespace"),
        _c("The mapping is created after its policies", "oke-wi", "create", "construction",
           "oke_rdma.workload_identity:WorkloadIdentity", "tests/components/test_workload_identity.py::"
           "test_the_mapped_namespace_gets_a_workload_mapping_after_its_policies"),
    ),
    "oci:Core/computeCluster:ComputeCluster": (
        _c("A Compute Cluster lives in one AD; every pool placed in it uses that AD", "compute-clusters", "create",
           "config", "oke_rdma.config.checks.compute:check_pools",
           _CFG + "test_an_existing_compute_cluster_still_names_its_availability_domain"),
        _c("Only RDMA bare-metal shapes are placed in a Compute Cluster", "compute-clusters", "create", "config",
           "oke_rdma.config.checks.compute:check_pools", _PLC + "test_a_vm_shape_is_refused_even_with_the_override"),
        _c("Pools of different shapes in one Compute Cluster must be in the same network block, which not every "
           "region offers (terraform-oci-oke PR #1007); a pool that fails to launch is replaced to move it out",
           "compute-clusters", "create", "warning", "oke_rdma.config.checks.compute:compute_cluster_warnings",
           "tests/config/test_compute_cluster_members.py::test_rdma_pools_of_different_shapes_in_the_one_compute_"
           "cluster_are_warned_about"),
        _c("availabilityDomain and compartment cannot change (replaces it and its pools)", "tf-oci", "update",
           "preview", _FORCE_NEW, _REP + "test_compute_cluster_change_is_a_loud_replace"),
        _c("The tenancy has room for the cluster's nodes (capacity, limits)", "compute-clusters", "create",
           "preflight", "oke_rdma.preflight.compute_checks:ComputeChecks.compute_cluster",
           "tests/preflight/test_preflight.py::test_no_room_for_the_compute_cluster_is_a_problem"),
    ),
    "oci:FileStorage/fileSystem:FileSystem": (
        _c("Shared data is protected: a replacement or delete of the file system is refused", "pulumi",
           "update,delete", "preview", "offline.replacement:protected_destroyed",
           _STA + "test_a_protected_file_system_that_would_be_replaced_fails_the_preview"),
        _c("The file system's AD and compartment cannot change in place", "tf-oci", "update", "preview", _FORCE_NEW,
           _CAS + "test_a_replaced_file_system_takes_its_export_and_the_volumes_naming_it"),
        _c("A customer key needs the FSS key policy before the file system", "fss", "create", "construction",
           "oke_rdma.iam:Iam", "tests/components/test_workload_identity.py::"
           "test_fss_key_policy_comes_before_the_file_system"),
    ),
    "oci:FileStorage/mountTarget:MountTarget": (
        _c("A mount target is created at 1 Gbps; a higher tier is an update afterwards, with a 30-day commitment",
           "fss", "create,update", "warning", "oke_rdma.storage:high_performance_notice",
           _STO + "test_high_tier_is_created_at_1_gbps_and_warns"),
        _c("The tier is one of 1, 20, 40, 80 Gbps", "fss", "create", "config",
           "oke_rdma.config.checks.storage:check_storage", _STO + "test_throughput_10_exits_2_listing_the_tiers"),
        _c("Its subnet has 3 free IPs", "fss", "create", "config", "oke_rdma.config.checks.network:check_network",
           "tests/config/test_storage_subnet_capacity.py::test_fss_alone_still_needs_only_the_mount_targets_three"),
        _c("The tenancy has room for another mount target", "fss", "create", "preflight",
           "oke_rdma.preflight.checks:Preflight.mount_target",
           "tests/preflight/test_preflight.py::test_no_room_for_a_mount_target_is_a_problem"),
    ),
    "oci:FileStorage/export:Export": (
        _c("Export options list every client CIDR; without them FSS exports to everyone with root", "fss",
           "create,runtime", "pack", "fss-export-no-internet-root",
           "tests/policies/test_storage_policies.py::test_export_without_options_gets_the_fss_default_and_fails"),
        _c("Unsquashed root on unprivileged ports lets any node user act as root", "fss", "runtime", "config",
           "oke_rdma.config.checks.storage:check_storage",
           "tests/config/test_fss_privileged_port.py::test_unsquashed_root_on_unprivileged_ports_is_refused_with_its_key_path"),
        _c("Squash-all with tenant directories makes every tenant one owner", "fss", "runtime", "config",
           "oke_rdma.config.checks.storage:check_storage",
           "tests/components/test_volume_preparation.py::test_squash_all_with_tenant_storage_is_refused"),
    ),
    "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem": (
        _c("Capacity is 31,200 GB then steps of 10,400 (to 41,600) or 41,600 GB", "lustre", "create,update",
           "config", "oke_rdma.config.lustre:valid_capacities_gb",
           "tests/components/test_lustre.py::test_capacities_the_service_refuses_name_the_nearest_valid_ones"),
        _c("Capacity only grows", "lustre", "update", "preview", "preview:offline.immutable:NO_DECREASE",
           _NOD + "test_a_lowered_value_is_named_with_its_reason"),
        _c("Root is squashed except for listed client CIDRs", "lustre", "runtime", "pack", "lustre-root-squash",
           "tests/policies/test_lustre_policy.py::test_unsquashed_root_open_exceptions_and_unknowns_are_refused"),
        _c("LNet (TCP 988) both ways between the file system, the workers and itself", "lustre", "runtime",
           "construction", "oke_rdma.lustre:LustreStorage",
           "tests/components/test_lustre.py::test_lnet_rules_both_ways_between_the_file_system_the_workers_and_itself"),
        _c("The lustrefs service needs a root-compartment policy to use the VCN", "lustre", "create", "construction",
           "oke_rdma.iam:Iam", "tests/components/test_iam.py::"
           "test_lustre_gets_its_service_grant_in_the_root_compartment_and_needs_the_tenancy_to_create_it"),
        _c("Nodes need the Lustre client (OKE images carry none); a pool given it cannot run an OKE platform image",
           "lustre", "runtime", "preflight", "oke_rdma.preflight.checks:Preflight.versions_and_images",
           "tests/preflight/test_preflight.py::"
           "test_a_pool_that_gets_the_lustre_client_cannot_run_an_oke_platform_image"),
    ),
    "oci:ObjectStorage/bucket:Bucket": (
        _c("A bucket holding protected data is versioned", "bucket", "delete,runtime", "pack",
           "bucket-protected-data-versioned",
           "tests/policies/test_bucket_policies.py::test_protected_buckets_without_versioning_are_refused"),
        _c("A bucket is private (no ObjectRead / ObjectReadWithoutList)", "bucket", "runtime", "pack",
           "no-public-endpoints",
           "tests/components/test_weights_bucket.py::test_prod_bucket_passes_the_public_exposure_rule"),
        _c("Bucket names are unique in the namespace: a replacement must delete first or rename", "bucket",
           "update", "preview", "preview:offline.immutable:UNIQUE_NAMES",
           "tests/offline/test_cascade.py::test_the_option_delete_before_replace_is_honoured"),
        _c("Versioning, once enabled, can be suspended but never disabled (update values Enabled, Suspended)",
           "bucket", "update", "preview", "preview:offline.immutable:UPDATE_VALUES",
           "tests/offline/test_no_decrease.py::test_a_one_way_setting_moved_back_is_refused_with_the_way_that_works"),
        _c("A customer key needs the Object Storage service principal's key policy", "bucket", "create",
           "construction", "oke_rdma.iam:Iam",
           "tests/components/test_weights_bucket.py::test_created_bucket_with_key_in_dev_region"),
    ),
    "oci:Identity/policy:Policy": (
        _c("At most 500 statements from the root compartment to any leaf (a hard limit)", "iam-limit", "create",
           "config", "oke_rdma.iam:statement_limit_problems",
           "tests/components/test_constraints.py::test_more_statements_than_a_compartment_path_holds_exit_2"),
        _c("Statements parse: verb, resource type, location, conditions of the IAM vocabulary", "iam", "create",
           "config", "oke_rdma.config.checks.workload_identity:check_workload_identity",
           _SHP + "test_a_grant_with_a_resource_type_oci_does_not_have_is_refused"),
        _c("No manage all-resources; no identity administration; no node access from workloads", "iam", "runtime",
           "pack", "iam-no-manage-all-resources", "tests/components/test_iam.py::test_never_manage_all_resources"),
        _c("A tenant's workload grant never reaches the platform's keys, every secret, or the weights bucket beyond "
           "tenants.<t>.weights", "iam", "runtime", "config",
           "oke_rdma.config.checks.workload_identity:platform_reach_problems",
           "tests/config/test_platform_reach.py::"
           "test_a_grant_reaching_the_platforms_keys_secrets_or_weights_is_refused_naming_it"),
        _c("A policy is attached where its statements point (tenancy statements in the root)", "iam", "create",
           "construction", "oke_rdma.iam:Iam",
           "tests/components/test_workload_identity.py::test_policies_are_attached_where_their_statements_point"),
        _c("Policy names are unique in a compartment and cannot move compartments in place", "iam", "update",
           "preview", "preview:offline.immutable:UNIQUE_NAMES", _REP + "test_compare_cases"),
    ),
    "oci:Identity/dynamicGroup:DynamicGroup": (
        _c("Dynamic groups live in the root compartment (needs iam.tenancyId)", "iam", "create", "config",
           "oke_rdma.config.checks.workload_identity:check_workload_identity",
           "tests/components/test_workload_identity.py::"
           "test_tenancy_grants_and_fss_key_need_the_tenancy_when_policies_are_created"),
        _c("Matching rules pin their members to ids or compartments", "iam", "create,runtime", "pack",
           "iam-dynamic-group-pinned",
           "tests/policies/test_iam_principals.py::"
           "test_a_matching_rule_that_admits_unpinned_principals_or_cannot_be_read_is_refused"),
    ),
    "kubernetes:core/v1:Namespace": (
        _c("Names are DNS-1123 labels; default, kube-system, kube-public, kube-node-lease are reserved", "k8s-names",
           "create", "config", "oke_rdma.config.checks.platform:check_platform",
           _LIM + "test_a_platform_release_in_a_reserved_namespace_is_refused"),
        _c("Every namespace enforces a Pod Security level; privileged only for node agents", "k8s-pss", "runtime",
           "pack", "namespace-pod-security-enforce",
           "tests/components/test_platform.py::test_pod_security_labels_per_namespace"),
        _c("A namespace holding custom objects with finalizers never finishes deleting once their controller is gone",
           "k8s-crd", "delete", "construction", "oke_rdma.platform:Platform",
           "tests/components/test_platform.py::"
           "test_tenant_namespaces_wait_for_every_addon_whose_objects_or_finalizers_they_hold"),
        _c("Deleting a namespace deletes everything in it (stateful)", "k8s-api", "delete", "preview",
           "preview:offline.immutable:STATEFUL",
           _STA + "test_the_stateful_class_covers_every_kind_of_resource_that_holds_data_or_nodes"),
    ),
    "kubernetes:core/v1:ResourceQuota": (
        _c("A tenant's GPU quota never exceeds what its pools can offer", "k8s-quota", "runtime", "config",
           "oke_rdma.config.checks.tenants:check_quotas",
           "tests/config/test_config_platform.py::test_tenant_gpu_quota_above_what_the_pools_offer"),
        _c("A quota on requests refuses pods that set none: the tenant's LimitRange gives default requests",
           "k8s-quota", "runtime", "construction", "oke_rdma.tenant_defaults:manifests",
           "tests/components/test_tenant_defaults.py::test_limit_range_sets_requests_only"),
        _c("No pod at a system priority in a tenant namespace (pods: 0 at system-node-critical and "
           "system-cluster-critical)", "k8s-quota", "runtime", "construction", "oke_rdma.tenant_defaults:manifests",
           "tests/components/test_tenant_defaults.py::test_system_priority_quota_admits_no_pod_at_a_system_priority"),
    ),
    "kubernetes:core/v1:LimitRange": (
        _c("Default requests only (a default limit would cap containers that set only requests)", "k8s-quota",
           "runtime", "construction", "oke_rdma.tenant_defaults:manifests",
           "tests/components/test_tenant_defaults.py::test_limit_range_sets_requests_only"),
        _c("Objects are valid core/v1 (no unknown fields)", "k8s-api", "create", "construction",
           "oke_rdma.tenant_defaults:manifests",
           "tests/components/test_tenant_defaults.py::test_schema_validation_catches_a_malformed_limit_range"),
    ),
    "kubernetes:scheduling.k8s.io/v1:PriorityClass": (
        _c("Names starting with system- are reserved; a tenant class never preempts (preemptionPolicy: Never) and "
           "stays below the system classes", "k8s-api", "create,runtime", "construction",
           "oke_rdma.tenant_defaults:priority_class_names",
           "tests/components/test_tenant_defaults.py::test_priority_classes_stay_below_the_system_ones_and_none_is_global"),
        _c("value and preemptionPolicy are immutable", "k8s-api", "update", "preview", _API_IMMUTABLE,
           _CAS + "test_changes_the_api_server_refuses_are_refused_unless_declared_replace_on_changes"),
    ),
    "kubernetes:cilium.io/v2:CiliumClusterwideNetworkPolicy": (
        _c("Valid against Cilium's CRD at the pinned version (unknown fields refused)", "cilium", "create",
           "construction", "oke_rdma.walls:policies",
           "tests/components/test_walls.py::test_every_declared_policy_is_valid_against_the_crd"),
        _c("A policy with deny rules turns default-deny on unless it says otherwise (it would cut DNS and scrapes)",
           "cilium", "runtime", "construction", "oke_rdma.walls:tenant_policy",
           "tests/components/test_walls.py::test_a_default_deny_policy_without_an_allow_denies"),
        _c("Created only after cilium-operator registers its CRDs (after Helm returns)", "cilium", "create",
           "construction", "oke_rdma.walls:Walls",
           "tests/components/test_walls.py::test_policies_wait_for_cilium_and_a_gate_that_dry_runs_them"),
        _c("hostNetwork pods and RoCE traffic bypass pod policy", "cilium", "runtime", "warning",
           "oke_rdma.walls:Walls",
           "tests/components/test_walls.py::test_an_rdma_tenant_sharing_gpu_nodes_is_warned_about"),
    ),
    "kubernetes:core/v1:ConfigMap": (
        _c("At most 1 MiB of data (the dashboards are the large ones); names, labels and annotations within the API "
           "server's limits", "k8s-names", "create,update", "construction", "oke_rdma.monitoring.dashboards:fleet_dashboard",
           "tests/components/test_constraints.py::"
           "test_every_kubernetes_object_of_the_plans_meets_the_api_servers_name_label_and_size_limits"),
        _c("An immutable ConfigMap cannot be made mutable or changed", "k8s-api", "update", "preview", _API_IMMUTABLE,
           _CAS + "test_changes_the_api_server_refuses_are_refused_unless_declared_replace_on_changes"),
    ),
    "kubernetes:core/v1:ServiceAccount": (
        _c("A Workload Identity ServiceAccount is a DNS-1123 subdomain in its tenant's namespace", "oke-wi",
           "create", "config", "oke_rdma.config.checks.workload_identity:check_workload_identity",
           "tests/components/test_workload_identity.py::test_service_account_must_be_a_kubernetes_name"),
    ),
    "kubernetes:core/v1:PersistentVolume": (
        _c("A PV's source (CSI driver, volumeHandle) is immutable after creation", "k8s-pv", "update", "preview",
           _K8S_FORCE_NEW, _CAS + "test_a_replaced_file_system_takes_its_export_and_the_volumes_naming_it"),
        _c("Static PV and claim are bound both ways (claimRef and volumeName)", "k8s-pv", "runtime", "construction",
           "oke_rdma.volumes:SharedVolumes", "tests/components/test_volumes.py::test_each_volume_and_claim_are_bound_both_ways"),
        _c("A Retain volume whose claim is deleted stays Released until its claimRef is cleared", "k8s-pv", "delete",
           "none", reason="a replaced tenant claim leaves its static volume Released; the program replaces volume and "
                          "claim together, but a claim deleted by hand needs kubectl patch (not modelled offline)"),
        _c("The FSS volume handle is <file system OCID>:<mount target IP>:<export path>", "fss", "runtime",
           "construction", "oke_rdma.volumes:volume_handle", "tests/components/test_volumes.py::"
           "test_volume_handle_is_file_system_ocid_mount_target_ip_and_export_path"),
    ),
    "kubernetes:core/v1:PersistentVolumeClaim": (
        _c("A claim names a StorageClass the cluster has (the stack's own or OKE's oci-bv/oci), or it never binds",
           "oke-bv", "create", "config", "oke_rdma.config.checks.storage_classes:check_storage_classes",
           "tests/config/test_storage_classes.py::test_prometheus_on_a_class_nobody_creates_is_refused_naming_the_key"),
        _c("A block volume attaches to a node with in-transit encryption only through a class with attachment-type "
           "paravirtualized (OKE's oci-bv and oci attach over iSCSI)", "oci-bv-csi", "runtime", "config",
           "oke_rdma.config.checks.storage_classes:check_storage_classes",
           "tests/config/test_storage_classes.py::test_an_iscsi_class_is_refused_while_pools_encrypt_in_transit"),
        _c("A claim's request only grows, and only if its class allows expansion", "k8s-pv", "update", "preview",
           "preview:offline.immutable:resize_refused",
           _NOD + "test_a_grown_claim_is_refused_unless_its_class_allows_volume_expansion"),
        _c("storageClassName, volumeName, accessModes are immutable", "k8s-api", "update", "preview",
           _K8S_FORCE_NEW, _CAS + "test_fields_pulumi_kubernetes_replaces_on_are_delete_before_replace_for_named_objects"),
    ),
    "kubernetes:storage.k8s.io/v1:StorageClass": (
        _c("provisioner and parameters are immutable", "k8s-api", "update", "preview", _K8S_FORCE_NEW,
           _CAS + "test_fields_pulumi_kubernetes_replaces_on_are_delete_before_replace_for_named_objects"),
        _c("The FSS class names this stack's mount target and export options", "fss", "runtime", "construction",
           "oke_rdma.volumes:SharedVolumes", "tests/components/test_volumes.py::test_storage_class_references_our_mount_target"),
    ),
    "kubernetes:apps/v1:DaemonSet": (
        _c("spec.selector is immutable", "k8s-api", "update", "preview", _K8S_FORCE_NEW,
           _CAS + "test_fields_pulumi_kubernetes_replaces_on_are_delete_before_replace_for_named_objects"),
        _c("Node agents run only in node-agent namespaces with the least RBAC they need", "k8s-pss", "runtime",
           "pack", "node-escape-only-in-node-agent-namespaces",
           "tests/components/test_scheduling.py::test_labeler_daemonset_least_privilege"),
    ),
    "kubernetes:apps/v1:Deployment": (
        _c("spec.selector is immutable", "k8s-api", "update", "preview", _K8S_FORCE_NEW,
           _CAS + "test_fields_pulumi_kubernetes_replaces_on_are_delete_before_replace_for_named_objects"),
        _c("Pods meet their namespace's Pod Security level", "k8s-pss", "create,runtime", "pack",
           "namespace-pod-security-enforce", "tests/policies/test_pod_security.py::"
           "test_every_baseline_control_needs_a_privileged_namespace"),
    ),
    "kubernetes:batch/v1:Job": (
        _c("A Job's pod template, completions, completionMode, podFailurePolicy are immutable", "k8s-api", "update",
           "preview", _K8S_FORCE_NEW, _CAS + "test_changes_the_api_server_refuses_are_refused_unless_declared_replace_on_changes"),
        _c("A preparation Job runs as restricted pods with a pinned image", "k8s-pss", "runtime", "args",
           "oke_rdma.lustre:LustreArgs",
           "tests/components/test_lustre_preparation.py::test_the_preparation_image_must_be_pinned"),
    ),
    "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole": (
        _c("A role cannot grant what its creator lacks (escalate); the packs refuse escalation verbs", "k8s-rbac",
           "create,runtime", "pack", "kubernetes-rbac-no-escalation",
           "tests/policies/test_rbac.py::test_rbac_that_escalates_is_refused_with_the_reason"),
        _c("Aggregated roles take rules from every matching label", "k8s-rbac", "runtime", "construction",
           "oke_rdma.addons.mpi_operator:ADDON",
           "tests/addons/test_mpi_operator.py::test_the_user_roles_aggregate_into_the_built_in_roles_not_kubeflows"),
    ),
    "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding": (
        _c("roleRef is immutable", "k8s-api", "update", "preview", _K8S_FORCE_NEW,
           _CAS + "test_fields_pulumi_kubernetes_replaces_on_are_delete_before_replace_for_named_objects"),
        _c("No cluster-wide secret read or escalation bound to a workload subject", "k8s-rbac", "runtime", "pack",
           "kubernetes-rbac-no-escalation",
           "tests/addons/test_mpi_operator.py::test_no_rbac_object_reads_secrets_cluster_wide_and_the_pack_agrees"),
    ),
    "kubernetes:rbac.authorization.k8s.io/v1:Role": (
        _c("A Role in a namespace grants only there; cross-namespace grants are judged", "k8s-rbac", "runtime",
           "pack", "kubernetes-rbac-no-escalation",
           "tests/policies/test_rbac_cross_namespace.py::"
           "test_a_stack_role_granting_a_tenant_power_to_another_namespaces_account_is_refused"),
    ),
    "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding": (
        _c("roleRef is immutable", "k8s-api", "update", "preview", _K8S_FORCE_NEW,
           _CAS + "test_fields_pulumi_kubernetes_replaces_on_are_delete_before_replace_for_named_objects"),
    ),
    "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy": (
        _c("Objects are valid admissionregistration.k8s.io/v1 (no unknown fields)", "k8s-vap", "create",
           "construction", "oke_rdma.guard:Guard", "tests/components/test_guard.py::"
           "test_objects_validate_against_the_kubernetes_schema"),
        _c("The policy refuses every RDMA privilege outside RDMA tenants", "k8s-vap", "runtime", "construction",
           "oke_rdma.guard:policies", "tests/components/test_guard.py::test_rdma_privileges_policy_denies_each_rdma_privilege"),
    ),
    "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding": (
        _c("A binding must exist after its policy (an unbound policy enforces nothing)", "k8s-vap", "create",
           "construction", "oke_rdma.guard:Guard", "tests/components/test_fleet.py::test_guard_bindings_wait_for_their_policies"),
        _c("validationActions is a list of Deny/Warn/Audit", "k8s-vap", "create", "construction", "oke_rdma.guard:Guard",
           "tests/components/test_guard.py::test_schema_validation_catches_a_malformed_binding"),
    ),
    "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition": (
        _c("Replacing a CRD deletes every object of its kinds", "k8s-crd", "update,delete", "preview",
           "preview:offline.immutable:STATEFUL",
           _STA + "test_the_gate_names_a_replaced_custom_resource_definition_and_passes_an_updated_one"),
        _c("Custom objects wait until their CRD is served", "k8s-crd", "create", "construction",
           "oke_rdma.readiness:ApiGate",
           "tests/components/test_readiness.py::test_every_custom_resource_in_the_plan_has_a_gate_probing_its_kind"),
    ),
    "kubernetes:helm.sh/v3:Release": (
        _c("Every chart is pinned to an exact version from its repository", "pulumi-k8s", "create,upgrade", "pack",
           "helm-release-pinned", "tests/components/test_platform.py::test_releases_pinned_to_config_versions"),
        _c("A new name or namespace replaces the release", "pulumi-k8s", "update", "preview",
           "preview:offline.immutable:HELM_RELEASE_FORCE_NEW",
           _CAS + "test_a_helm_release_is_replaced_on_a_new_name_or_namespace_and_updated_otherwise"),
        _c("A replaced release (new name or namespace) is installed while the old one owns the chart's cluster-scoped "
           "objects; Helm refuses to adopt them", "pulumi-k8s", "update", "preview",
           "preview:offline.immutable:release_takeover_conflict", "tests/offline/test_cascade.py::"
           "test_moving_an_addon_to_another_namespace_is_refused_with_the_two_steps"),
        _c("The chart version fits the cluster's Kubernetes version and the other add-ons", "kueue",
           "create,upgrade", "config", "oke_rdma.config.checks.platform:check_chart_compatibility",
           "tests/config/test_chart_compatibility.py::test_kubernetes_older_than_kueue_supports_names_both_sides"),
        _c("Helm never upgrades a chart's crds/ on upgrade: a bump of such a chart is refused until its CRDs are "
           "applied (crdsApplied); a value that stops a chart's own CRD upgrade is refused", "pulumi-k8s", "upgrade",
           "preview", "oke_rdma.config.checks.crds:check_crd_lifecycle",
           "tests/offline/test_addon_upgrades.py::test_a_crds_dir_chart_bump_is_refused_until_its_crds_are_applied"),
        _c("An add-on Kueue drives is at least the version that Kueue release supports", "kueue", "create,upgrade",
           "config", "oke_rdma.config.checks.compat:check_addon_compatibility",
           "tests/config/test_addon_compat.py::test_an_operator_older_than_kueue_drives_is_refused_naming_both"),
        _c("An add-on compiled against another's API is not paired with a version of it past an API change that "
           "add-on was not built for (Kueue 0.18-0.19 with Trainer 2.3)", "kueue", "create,upgrade,runtime",
           "config", "oke_rdma.config.checks.compat:check_partner_api_breaks",
           "tests/config/test_addon_compat.py::test_trainer_2_3_beside_a_kueue_built_against_trainer_2_2_is_refused_"
           "naming_both_and_the_way_out"),
        _c("A pinned version carries no known quota or isolation bug the stack's settings trigger (availability "
           "bugs warn), naming the fixed release", "kueue", "create,upgrade,runtime", "config",
           "oke_rdma.config.checks.known_bugs:check_known_bugs",
           "tests/config/test_known_bugs.py::test_the_previous_kueue_pin_is_refused_naming_each_bug_and_its_fix"),
        _c("The chart's own template checks (fail/required) pass with the release's final values", "chart-templates",
           "create,upgrade", "config", "oke_rdma.config.checks.platform:template_problems",
           "tests/config/test_chart_templates.py::test_gateway_api_on_ciliums_pinned_l7_proxy_is_refused_at_the_users_key"),
    ),
    "kubernetes:yaml/v2:ConfigGroup": (
        _c("A vendored manifest is the pinned file, byte for byte", "operators", "create,upgrade", "config",
           "oke_rdma.addons.mpi_operator:ADDON", "tests/addons/test_mpi_operator.py::test_an_edited_manifest_is_refused"),
        _c("Objects inside are judged like declared ones (a List is expanded)", "pulumi-k8s", "create", "pack",
           "helm-values-manifests",
           "tests/offline/test_remote.py::test_lists_are_expanded_into_their_items_as_the_provider_does"),
    ),
    "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue": (
        _c("Quotas name flavors the cluster has; GPU quota needs CPU and memory quota", "kueue", "runtime", "config",
           "oke_rdma.config.checks.fleet:check_fleet",
           "tests/config/test_config_fleet.py::test_a_gpu_quota_without_cpu_or_memory_is_refused"),
        _c("Created only after Kueue serves its CRDs", "kueue", "create", "construction", "oke_rdma.readiness:ApiGate",
           "tests/components/test_readiness.py::test_every_kueue_resource_depends_on_the_gate_which_depends_on_the_release"),
    ),
    "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue": (
        _c("spec.clusterQueue is immutable", "kueue", "update", "preview", _API_IMMUTABLE,
           _CAS + "test_changes_the_api_server_refuses_are_refused_unless_declared_replace_on_changes"),
        _c("One LocalQueue per tenant namespace", "kueue", "runtime", "construction", "oke_rdma.scheduling:Scheduling",
           "tests/components/test_scheduling.py::test_local_queue_per_tenant_namespace"),
    ),
    "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor": (
        _c("A flavor selects a label its pool really carries", "kueue", "runtime", "construction",
           "oke_rdma.scheduling:Scheduling",
           "tests/components/test_scheduling.py::test_flavor_selects_a_label_the_pool_really_carries"),
        _c("A flavor with a topology cannot change its node labels in place", "kueue", "update", "preview",
           _API_IMMUTABLE, _CAS + "test_a_flavor_without_topology_may_change_its_node_labels_in_place"),
    ),
    "kubernetes:kueue.x-k8s.io/v1beta2:Topology": (
        _c("Levels end with kubernetes.io/hostname and are distinct", "kueue", "create", "config",
           "oke_rdma.config.checks.platform:check_platform",
           "tests/config/test_config_platform.py::test_topology_levels_without_hostname_exit_2"),
        _c("At most 16 levels (the CRD's spec.levels maxItems), each a label key", "kueue", "create", "config",
           "oke_rdma.addons.kueue:KueueRelease",
           "tests/config/test_config_platform.py::test_topology_with_more_levels_than_kueue_accepts_exit_2"),
        _c("Levels are immutable: a change replaces the topology (delete before replace)", "kueue", "update",
           "preview", _API_IMMUTABLE, _STA + "test_a_kueue_topology_change_replaces_the_topology_delete_before_replace"),
    ),
    "kubernetes:monitoring.coreos.com/v1:PrometheusRule": (
        _c("Rules are valid PromQL and pass their unit tests", "prometheus-rules", "create,runtime", "construction",
           "oke_rdma.monitoring.component:Monitoring",
           "tests/components/test_fleet.py::test_prometheus_rule_holds_every_shipped_group_and_matches_the_crd"),
        _c("Needs kube-prometheus-stack's CRD served first", "kps", "create", "construction",
           "oke_rdma.readiness:ApiGate",
           "tests/components/test_readiness.py::test_the_prometheus_rule_waits_for_a_gate_on_kube_prometheus_stack"),
    ),
    "pulumi:providers:kubernetes": (
        _c("A new kubeconfig or cluster replaces the provider and every object it manages", "pulumi-k8s", "update",
           "preview", "offline.replacement:kubernetes_provider_replaces",
           _CAS + "test_kubernetes_provider_replacement_follows_pulumi_kubernetes_diffconfig"),
        _c("Every Kubernetes object uses the explicit provider", "pulumi-k8s", "create", "construction",
           "oke_rdma.cluster:Cluster", "tests/components/test_stack.py::test_every_kubernetes_resource_uses_the_explicit_provider"),
    ),
    "addon:gpuOperator": (
        _c("The OKE image's own GPU driver is used: driver.enabled stays false", "gpu-operator", "runtime", "config",
           "oke_rdma.config.checks.platform:check_platform",
           _LIM + "test_driver_enabled_true_is_refused_and_false_passes"),
        _c("CDI stays on (OKE runs CRI-O: without CDI the toolkit falls back to its OCI prestart hook), its NRI "
           "plugin stays off and the MIG strategy stays single (the quotas count nvidia.com/gpu only)",
           "gpu-operator", "runtime", "config", "oke_rdma.addons.gpu_operator:checks",
           _LIM + "test_gpu_operator_values_the_platform_depends_on_are_refused_when_moved"),
        _c("One device plugin per GPU node (OKE's or the operator's)", "gpu-operator", "runtime", "config",
           "oke_rdma.config.checks.platform:check_platform",
           "tests/config/test_config_platform.py::test_device_plugin_on_while_the_oke_plugin_is_forced_on"),
        _c("MIG profiles exist in the pinned MIG manager's config", "gpu-operator", "runtime", "config",
           "oke_rdma.config.checks.fleet:check_fleet",
           "tests/config/test_config_fleet.py::test_mig_profiles_exist_in_the_gpu_operators_mig_parted_configs"),
        _c("The device plugin's health check stays on", "gpu-operator", "runtime", "config",
           "oke_rdma.config.checks.platform:check_platform",
           "tests/components/test_health.py::test_turning_the_device_plugin_health_check_off_is_refused"),
        _c("GPU containers get no host RDMA, GDS or GDRCopy devices from the device plugin, whatever modules a node "
           "loads (MOFED_ENABLED/GDS_ENABLED/GDRCOPY_ENABLED set false; the operator's start script sets them true "
           "when unset and nvidia_fs/gdrdrv is loaded)", "gpu-operator", "runtime", "config",
           "oke_rdma.addons.gpu_operator:checks",
           "tests/addons/test_device_injection.py::test_turning_an_injection_flag_back_on_is_refused"),
        _c("A pool's GPUs are shared exactly as gpuSharing says, by what the device plugin and MIG manager do with "
           "the merged values (default config, ConfigMap, MIG config)", "gpu-operator", "runtime", "config",
           "oke_rdma.config.checks.gpu_sharing:check_gpu_sharing_effect",
           "tests/config/test_gpu_sharing_effect.py::test_an_exclusive_pool_whose_default_config_shares_is_refused"),
    ),
    "addon:kueue": (
        _c("The Kueue version serves kueue.x-k8s.io/v1beta2 and supports the cluster's Kubernetes", "kueue",
           "create,upgrade", "config", "oke_rdma.config.checks.platform:check_chart_compatibility",
           "tests/config/test_chart_compatibility.py::test_kueue_without_v1beta2_is_refused_naming_the_first_fitting_version"),
        _c("Kueue manages only tenant namespaces (the manager's namespace selector)", "kueue", "runtime", "config",
           "oke_rdma.addons.kueue:ADDON",
           "tests/addons/test_kueue_scope.py::test_a_user_configuration_that_widens_or_breaks_the_selector_is_refused"),
        _c("A GPU pool no tenant's ClusterQueue quota reaches is never used (Kueue admits nothing there)", "kueue",
           "runtime", "warning", "oke_rdma.adapter:idle_pool_warnings",
           "tests/config/test_idle_pools.py::test_a_pool_added_after_the_quotas_filled_the_first_is_named"),
        _c("A plain GPU pool (exclusive, not RDMA) is no tenant's: no flavor covers it and the guard refuses tenants' "
           "GPU pods there", "kueue", "runtime", "warning", "oke_rdma.adapter:idle_pool_warnings",
           "tests/config/test_idle_pools.py::test_a_plain_gpu_pool_no_tenant_can_use_is_named"),
        _c("A tenant's CPU or memory quota beyond what its pools' nodes hold admits jobs no node can run", "kueue",
           "runtime", "warning", "oke_rdma.config.checks.tenants:quota_capacity_warnings",
           "tests/config/test_quota_capacity.py::test_cpu_and_memory_quotas_beyond_the_pools_are_warned_naming_the_key"),
        _c("Tenants' nominal quotas on one shared pool (no Topology: no topology-aware admission) adding up to more "
           "GPUs, CPU or memory than it offers admit jobs no node can run", "kueue", "runtime", "warning",
           "oke_rdma.quota_sums:quota_sum_warnings",
           "tests/config/test_quota_sums.py::test_gpu_quotas_adding_up_beyond_a_shared_pool_are_warned_naming_the_keys"),
        _c("Integrations are enabled only for operators that run", "kueue", "runtime", "construction",
           "oke_rdma.addons.kueue:ADDON",
           "tests/addons/test_mpi_operator.py::test_each_operators_kueue_integrations_follow_its_enabled_flag"),
        _c("The manager starts only when every gate on (by default or set) has its required gates on "
           "(oke_rdma/facts/kueue_gates.py); TopologyAwareScheduling stays on while RDMA pools use the Topology",
           "kueue", "create,upgrade,runtime", "config", "oke_rdma.config.checks.kueue_gates:check_kueue_gates",
           "tests/config/test_kueue_gates.py::test_tas_off_is_refused_while_rdma_pools_exist_and_names_the_default_on_"
           "gates"),
        _c("A user's featureGates list keeps the platform's gates (merged by name, not replaced)", "kueue", "runtime",
           "construction", "oke_rdma.addons.kueue:ADDON",
           "tests/config/test_kueue_gates.py::test_a_user_gate_list_keeps_the_platform_s_own_gate"),
    ),
    "addon:kubePrometheusStack": (
        _c("OKE's managed control plane cannot be scraped: those scrapers stay off", "kps", "runtime", "config",
           "oke_rdma.config.checks.platform:check_addon_dependencies",
           "tests/addons/test_managed_control_plane.py::test_turning_a_control_plane_scraper_back_on_is_refused"),
        _c("The chart's kubeVersion floor holds", "kps", "create,upgrade", "config",
           "oke_rdma.config.checks.platform:check_chart_compatibility",
           "tests/config/test_chart_compatibility.py::test_kube_prometheus_stack_below_its_kube_version_is_refused"),
        _c("Grafana's admin password is a secret, never in values", "kps", "create", "config",
           "oke_rdma.config.checks.platform:check_platform",
           _LIM + "test_a_grafana_password_in_helm_values_is_refused_without_echoing_it"),
        _c("A raised Prometheus or Alertmanager storage size never reaches the existing claims (the operator's "
           "StatefulSet volumeClaimTemplates cannot change): the claims are grown by hand first", "prom-operator-storage",
           "update", "warning", "offline.stuck_updates:STUCK_UPDATES",
           "tests/offline/test_stuck_updates.py::test_a_grown_operator_owned_claim_template_needs_the_manual_resize"),
    ),
    "addon:keda": (
        _c("The KEDA release supports the cluster's Kubernetes (its published matrix)", "keda", "create,upgrade",
           "config", "oke_rdma.config.checks.platform:check_chart_compatibility",
           "tests/config/test_chart_compatibility.py::test_keda_outside_its_published_matrix_names_the_fitting_keda"),
    ),
    "addon:jobset": (
        _c("JobSet and Trainer install one JobSet controller, not two", "operators", "create", "construction",
           "oke_rdma.addons.trainer:ADDON",
           "tests/addons/test_training_operators.py::test_trainer_brings_its_own_jobset_unless_the_jobset_addon_runs_it"),
    ),
    "addon:kuberay": (
        _c("The operator is a pinned release in its own namespace, its kinds named to Kueue", "operators", "create",
           "construction", "oke_rdma.addons.kuberay:ADDON",
           "tests/addons/test_training_operators.py::test_each_operator_names_the_kueue_integrations_of_its_kinds"),
    ),
    "addon:trainer": (
        _c("The operator is a pinned release in its own namespace, its kinds named to Kueue", "operators", "create",
           "construction", "oke_rdma.addons.trainer:ADDON",
           "tests/addons/test_training_operators.py::test_an_enabled_operator_is_a_pinned_release_in_its_own_namespace"),
    ),
    "addon:mpiOperator": (
        _c("The controller reads Secrets only in the tenant namespaces it serves", "operators", "runtime",
           "construction", "oke_rdma.addons.mpi_operator:ADDON",
           "tests/addons/test_mpi_operator.py::test_one_controller_per_tenant_namespace_scoped_by_its_flags"),
        _c("No two add-ons install CRDs of one API group", "operators", "create", "construction",
           "oke_rdma.addons._registry:Registry",
           "tests/addons/test_mpi_operator.py::test_no_two_addons_install_crds_of_the_same_api_group"),
    ),
    "addon:cilium": (
        _c("Chaining on OKE's VCN-native CNI: generic-veth, native routing, no masquerading, kube-proxy kept",
           "cilium", "create,runtime", "config", "oke_rdma.addons.cilium:checks",
           "tests/addons/test_cilium.py::test_a_user_value_moving_what_chaining_needs_is_refused"),
        _c("Chaining needs the VCN-native CNI (not Flannel)", "cilium", "create", "config",
           "oke_rdma.addons.cilium:checks", "tests/addons/test_cilium.py::test_a_flannel_cluster_cannot_chain_cilium"),
        _c("Its pool must not overlap the VCN or services CIDR", "cilium", "runtime", "config",
           "oke_rdma.addons.cilium:overlaps_pool",
           "tests/addons/test_cilium.py::test_a_vcn_overlapping_ciliums_pool_is_refused"),
        _c("Pods started before the agent are not enforced: every other release waits for it", "cilium", "create",
           "construction", "oke_rdma.addons.cilium:ADDON",
           "tests/addons/test_cilium.py::test_every_other_release_waits_for_cilium"),
        _c("Values are those the pinned chart declares, with their types", "cilium", "create,upgrade", "construction",
           "oke_rdma.addons.cilium:values",
           "tests/addons/test_cilium.py::test_every_value_is_declared_by_the_pinned_chart_with_its_type"),
    ),
    "addon:pulumiOperator": (
        _c("A Stack's custom resource is valid for the pinned operator's CRD (unknown fields are dropped silently by "
           "the API server; CEL rules hold)", "pko", "create,update", "construction", "oke_rdma.fleet.validate:schema_problems",
           "tests/fleet/test_render.py::test_unknown_field_fails_the_check"),
        _c("A Stack destroys its resources on delete only when decommissioned (destroyOnFinalize)", "pko", "delete",
           "construction", "oke_rdma.fleet.render:render",
           "tests/fleet/test_render.py::test_stack_runs_the_pinned_release_with_refresh_and_no_destroy"),
        _c("The operator runs no policy packs: the workspace image adds them to every preview and up", "pko",
           "create,update", "construction", "oke_rdma.fleet.render:render",
           "tests/fleet/test_workspace.py::test_shim_adds_the_packs_to_preview_and_up"),
    ),
    "addon:flux": (
        _c("A wave starts only when the previous wave's Stacks are Ready (dependsOn and health checks)", "flux",
           "update", "construction", "oke_rdma.fleet.render:render",
           "tests/fleet/test_render.py::test_waves_depend_on_the_previous_and_check_their_own_stacks"),
        _c("Objects reference sources, service accounts and prerequisites that exist", "flux", "create",
           "construction", "oke_rdma.fleet.validate:reference_problems",
           "tests/fleet/test_render.py::test_broken_references_fail_the_check"),
    ),
}

#: Component types (``oke-rdma:<module>:<Class>``) and the stack are not resources of a provider: no ledger section.
NOT_PROVIDER_TYPES = ("oke-rdma:", "pulumi:pulumi:Stack")


def rows() -> list[tuple[str, Constraint]]:
    """Every row as ``(section, constraint)``, in ledger order."""
    return [(section, c) for section, cs in LEDGER.items() for c in cs]


def coverage() -> tuple[int, int]:
    """``(rows held by a check, rows)``."""
    all_rows = rows()
    return sum(c.checked for _, c in all_rows), len(all_rows)


def render_markdown() -> str:
    """The generated part of docs/constraints.md: the coverage figure, then one table per section."""
    checked, total = coverage()
    out = [f"**Coverage: {checked} of {total} rows held by a check ({100 * checked // total} %).** "
           "Unchecked rows and why:\n"]
    for section, c in rows():
        if not c.checked:
            out.append(f"- `{section}`: {c.rule} — {c.reason}")
    out.append("")
    out.append("Sources (with the date read):\n")
    for key, (title, read) in SOURCES.items():
        out.append(f"- `{key}`: {title} ({read})")
    for section, cs in LEDGER.items():
        out += ["", f"### `{section}`", "", "| constraint | source | bites | held by | check | test |",
                "|---|---|---|---|---|---|"]
        for c in cs:
            test = f"`{c.test.split('::')[1]}`" if c.test else "—"
            check = f"`{c.check}`" if c.check else (c.reason or "—")
            out.append(f"| {c.rule} | {c.source} | {', '.join(c.bites)} | {c.held} | {check} | {test} |")
    return "\n".join(out) + "\n"
