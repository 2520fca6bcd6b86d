"""Every IAM statement the platform needs, generated from the stack config, and the OCI policies holding them.

Statements, each least-privilege (never ``manage all-resources``; every ``any-user`` statement restricts
``request.principal.type``), grouped into one policy per purpose so that each can be ordered before what needs it:

==============================  ======================  =====================================================
policy ``<prefix>-...``          attached to             statements (feature)
==============================  ======================  =====================================================
``nodepool-launch``             compartmentId           node pools launch into the Compute Cluster (RDMA pools);
                                                        no cluster OCID in it, so node pools can wait for it
``cluster-principal``           compartmentId           the cluster principal manages ``file-family`` (FSS CSI
                                                        driver) and uses ``virtual-network-family`` (load
                                                        balancers), pinned to this cluster's OCID
``cluster-kms``                 iam.vaultCompartmentId  the cluster principal uses ``cluster.kmsKeyId`` (secrets
                                                        encryption) and ``imageVerificationKeyIds`` (image
                                                        signatures); must exist before the cluster
``fss-kms``                     iam.vaultCompartmentId  file systems (a dynamic group) use ``storage.fss.kmsKeyId``;
                                                        must exist before the file system
``objectstorage-kms``           iam.vaultCompartmentId  Object Storage uses ``storage.objectStorage.kmsKeyId``; must
                                                        exist before the weights bucket
``wi-<tenant>``                 compartmentId           the tenant's Workload Identity grants in the stack's
``wi-<tenant>-mapped``          the mapped compartment  compartment / in the compartment its namespace is mapped
``wi-<tenant>-tenancy``         iam.tenancyId           to / in the tenancy — each pinned to the workload's
                                                        cluster, namespace and service account
``wi-mappings``                 compartmentId           the deployer group may manage cluster-workload-mappings
``wi-<tenant>-bind``            the mapped compartment  the deployer group may bind workloads to that compartment
``cluster-users``               compartmentId           each tenant member's IAM group uses this cluster only
                                                        (kubeconfig; RBAC decides the rest: ``iam_access``)
==============================  ======================  =====================================================

A policy is attached to the compartment its statements name (or the root compartment for ``tenancy``): OCI only
lets a policy grant access in the compartment it is attached to and below it.

With ``iam.createPolicies: false`` no IAM resource is created (users often may not create policies); the exact
statements are still generated: :attr:`Iam.statement_texts` becomes the ``policyStatements`` stack output and
:attr:`Iam.policy_documents` (policy name → where to attach it and its statements) the ``iamPolicies`` output.

Sources: OKE docs "Using Compute Clusters to Provision Managed Nodes" (contengusingcomputeclusters.htm) and
oracle-quickstart/oci-hpc-oke (launch statement); OKE docs "Setting Up the FSS CSI Volume Plugin" and "Provisioning
PVCs on the File Storage Service" (``file-family``); "Policy Configuration for Cluster Creation and Deployment"
(contengpolicyconfig.htm) and "Network Resource Configuration" (``virtual-network-family``); "Encrypting Kubernetes
Secrets at Rest in Etcd" (contengencryptingdata.htm: the cluster key statement); IAM docs "Common Policies", "Let
File Storage encrypt and decrypt file systems" (the file systems' dynamic group and key statement); OKE docs
"Granting Workloads Access to OCI Resources" (contenggrantingworkloadaccesstoresources.htm: workload statements, the
workload mapping and its ``cluster-workload-mappings`` / ``CLUSTER_WORKLOAD_COMPARTMENT_BIND`` statements); Object
Storage docs "Using Your Own Keys in Vault for Server-Side Encryption" (``objectstorage-<region>`` uses the key).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

import pulumi
import pulumi_oci as oci

from oke_rdma.config.storage import Fss
from oke_rdma.config.tenants import Iam as IamConfig
from oke_rdma.config.workload_identity import WorkloadBinding
from oke_rdma.iam_access import POLICY_KEY as MEMBERS_POLICY, SOURCE as _DOC_MEMBERS, member_statement

#: The feature each statement serves (``PolicyStatement.feature``).
FEATURE_RDMA_POOLS = "rdma-node-pools"
FEATURE_FSS_CSI = "fss-csi"
FEATURE_LOAD_BALANCERS = "load-balancers"
FEATURE_CLUSTER_KMS = "cluster-secrets-encryption"
FEATURE_FSS_KMS = "fss-encryption"
FEATURE_OBJECT_STORAGE_KMS = "object-storage-encryption"
FEATURE_LUSTRE = "lustre-service"
FEATURE_WORKLOAD_IDENTITY = "workload-identity"
FEATURE_WORKLOAD_MAPPING = "workload-mapping"
FEATURE_TENANT_MEMBERS = "tenant-members"

_DOC_COMPUTE_CLUSTERS = ("OKE docs, 'Using Compute Clusters to Provision Managed Nodes' "
                         "(contengusingcomputeclusters.htm); oracle-quickstart/oci-hpc-oke")
_DOC_KMS = ("OKE docs, 'Encrypting Kubernetes Secrets at Rest in Etcd' (contengencryptingdata.htm) and "
            "'Enforcing the Use of Signed Images from Registry'")
_DOC_FSS_CSI = "OKE docs, 'Setting Up the FSS CSI Volume Plugin' / 'Provisioning PVCs on the File Storage Service'"
_DOC_LOAD_BALANCERS = ("OKE docs, 'Policy Configuration for Cluster Creation and Deployment' and "
                       "'Network Resource Configuration' (contengnetworkconfig.htm)")
_DOC_CLUSTER_KMS = "OKE docs, 'Encrypting Kubernetes Secrets at Rest in Etcd' (contengencryptingdata.htm)"
_DOC_FSS_KMS = ("OCI IAM docs, 'Common Policies': 'Let File Storage encrypt and decrypt file systems'; FSS docs, "
                "'Encrypting a File System'")
_DOC_OBJECT_STORAGE_KMS = "Object Storage docs, 'Using Your Own Keys in Vault for Server-Side Encryption'"
_DOC_LUSTRE = "File Storage with Lustre docs, 'Required IAM Policies' (the lustrefs service uses the VCN)"
_DOC_WORKLOADS = "OKE docs, 'Granting Workloads Access to OCI Resources' (contenggrantingworkloadaccesstoresources.htm)"

WORKLOAD_MAPPING_PERMISSIONS = "{CLUSTER_WORKLOAD_COMPARTMENT_BIND,CLUSTER_WORKLOAD_COMPARTMENT_UNBIND}"


@dataclass(frozen=True)
class IamInputs:
    """What the IAM statements depend on.

    :param compartment_id: the stack's compartment OCID (where the launch, cluster-principal and workload policies
        are attached).
    :param name_prefix: prefix of policy and dynamic group names (default ``okerdma``).
    :param freeform_tags: free-form tags on every policy and dynamic group (default none).
    :param iam: :class:`oke_rdma.config.Iam` (``createPolicies``, ``tenancyId``, ``deployerGroupId``,
        ``vaultCompartmentId``); default: create policies, nothing else set.
    :param rdma_pools: True when a node pool is placed in a Compute Cluster (the launch statement); default False.
    :param fss: :class:`oke_rdma.config.Fss` of the shared file system (``enabled``, ``kmsKeyId``); default None: no
        file system.
    :param cluster_kms_key_ids: Vault key OCIDs the cluster principal uses (secrets encryption, then image
        verification keys); default none.
    :param workload_bindings: the Workload Identity bindings (tenant, namespace, service account, grants; the weights
        bucket's grants included); default none.
    :param object_storage_previous_kms_key_ids: Vault keys the created bucket used before (their grants kept for
        the update that switches).
    :param object_storage_kms_key_id: the Vault key of the created weights bucket, and ``region`` (names the Object
        Storage service principal ``objectstorage-<region>``); default none.
    :param lustre: the stack has a File Storage with Lustre file system: its service places the file system's
        endpoints in the VCN (a root-compartment policy); default False.
    :param member_group_ids: OCIDs of the IAM groups ``tenants.<t>.members`` names: each may ``use clusters`` on
        this cluster only (:mod:`oke_rdma.iam_access`); default none.
    """

    compartment_id: str
    name_prefix: str = "okerdma"
    freeform_tags: Mapping[str, str] = field(default_factory=dict)
    iam: IamConfig = IamConfig()
    rdma_pools: bool = False
    fss: Optional[Fss] = None
    cluster_kms_key_ids: tuple[str, ...] = ()
    workload_bindings: tuple[WorkloadBinding, ...] = ()
    object_storage_kms_key_id: Optional[str] = None
    object_storage_previous_kms_key_ids: tuple[str, ...] = ()
    region: str = ""
    lustre: bool = False
    member_group_ids: tuple[str, ...] = ()

    @property
    def fss_enabled(self) -> bool:
        return self.fss is not None and self.fss.enabled


@dataclass(frozen=True)
class PolicyStatement:
    """One IAM policy statement with its provenance.

    :param name: a short stable identifier (``nodepool-launch``, ``cluster-file-family``, ``wi-research-trainer-0``).
    :param text: the statement; an ``Output[str]`` when it embeds a not-yet-known OCID (the cluster's).
    :param feature: the platform feature that needs it (``FEATURE_*``).
    :param source: the OCI document the statement follows.
    :param policy: the key of the policy holding it (the policy is named ``<namePrefix>-<policy>``).
    """

    name: str
    text: pulumi.Input[str]
    feature: str
    source: str
    policy: str


@dataclass(frozen=True)
class PolicySpec:
    """One OCI policy to create (or hand to an administrator).

    :param key: ``nodepool-launch``, ``cluster-principal``, ``wi-<tenant>``, ...; the policy name is
        ``<namePrefix>-<key>``.
    :param compartment_id: where it is attached; None only for a root-compartment policy whose tenancy OCID is not
        configured (possible only with ``iam.createPolicies: false``).
    :param description: what it is for.
    """

    key: str
    compartment_id: Optional[str]
    description: str


@dataclass(frozen=True)
class DynamicGroupSpec:
    """A dynamic group a statement names (created in the tenancy; ``compartment_id`` None when not configured)."""

    name: str
    compartment_id: Optional[str]
    matching_rule: str
    description: str


@dataclass
class IamPlan:
    """What :func:`iam_plan` returns: statements in a stable order, the policies holding them, dynamic groups."""

    statements: list[PolicyStatement] = field(default_factory=list)
    policies: dict[str, PolicySpec] = field(default_factory=dict)
    dynamic_groups: list[DynamicGroupSpec] = field(default_factory=list)

    def add(self, spec: PolicySpec, statement: PolicyStatement) -> None:
        self.policies.setdefault(spec.key, spec)
        self.statements.append(statement)


def _join(*parts: pulumi.Input[str]) -> pulumi.Input[str]:
    """Concatenate, staying a plain ``str`` when every part is one (string formatting only, no ``apply``)."""
    if all(isinstance(p, str) for p in parts):
        return "".join(parts)  # type: ignore[arg-type]
    return pulumi.Output.concat(*parts)


def _location(compartment_id: str) -> str:
    """``tenancy`` for a tenancy OCID (the root compartment), else ``compartment id <OCID>``."""
    return "tenancy" if compartment_id.startswith("ocid1.tenancy.") else f"compartment id {compartment_id}"


def workload_condition(binding: WorkloadBinding, cluster_id: pulumi.Input[str], extra: str = "") -> pulumi.Input[str]:
    """``where all {...}`` pinning a request to the workload ``binding`` names, in ``cluster_id``; ``extra`` holds
    the grant's own conditions (already rendered, comma-separated) appended inside the braces."""
    head = (f"where all {{request.principal.type = 'workload', request.principal.namespace = '{binding.namespace}', "
            f"request.principal.service_account = '{binding.service_account}', request.principal.cluster_id = '")
    return _join(head, cluster_id, "'" + (f", {extra}" if extra else "") + "}")


def _workload_statements(plan: IamPlan, config: IamInputs, cluster_id: pulumi.Input[str]) -> None:
    prefix = config.name_prefix
    bindings = config.workload_bindings
    namespaces = {b.tenant: b.namespace for b in bindings}
    mapped: dict[str, str] = {}  # tenant → mapped compartment
    for b in bindings:
        for i, grant in enumerate(b.grants):
            # OKE: "Allow any-user to <verb> <resource> in <location> where all {request.principal.type =
            # 'workload', request.principal.namespace = ..., request.principal.service_account = ...,
            # request.principal.cluster_id = ...}". The policy goes where the location is.
            if grant.in_root:
                key, attach = f"wi-{b.tenant}-tenancy", grant.compartment_id or config.iam.tenancy_id
                where = "the tenancy"
            elif grant.compartment_id == config.compartment_id:
                key, attach, where = f"wi-{b.tenant}", config.compartment_id, "the stack's compartment"
            else:
                key, attach, where = f"wi-{b.tenant}-mapped", grant.compartment_id, "its mapped compartment"
                mapped[b.tenant] = grant.compartment_id  # type: ignore[assignment]
            location = grant.location
            extra = ", ".join(c.render() for c in grant.conditions)
            text = _join(f"Allow any-user to {grant.action} in {location} ",
                         workload_condition(b, cluster_id, extra))
            plan.add(PolicySpec(key, attach, f"{prefix}: Workload Identity of namespace {b.namespace} in {where}"),
                     PolicyStatement(f"wi-{b.tenant}-{b.service_account}-{i}", text, FEATURE_WORKLOAD_IDENTITY,
                                     _DOC_WORKLOADS, key))
    if not mapped:
        return
    # A ClusterWorkloadMapping (namespace → other compartment) may only be created by a group that can manage
    # workload mappings in the cluster's compartment and bind workloads in the mapped one (OKE docs, "Granting
    # Workloads Access to OCI Resources in a Different Compartment").
    group = f"group id {config.iam.deployer_group_id}"
    plan.add(PolicySpec("wi-mappings", config.compartment_id,
                        f"{prefix}: the deployer group manages the cluster's workload mappings"),
             PolicyStatement("wi-manage-mappings",
                             f"Allow {group} to manage cluster-workload-mappings in compartment id "
                             f"{config.compartment_id}", FEATURE_WORKLOAD_MAPPING, _DOC_WORKLOADS, "wi-mappings"))
    for tenant, compartment in mapped.items():
        key = f"wi-{tenant}-bind"
        plan.add(PolicySpec(key, compartment, f"{prefix}: the deployer group maps namespace "
                                              f"{namespaces[tenant]} to this compartment"),
                 PolicyStatement(f"wi-{tenant}-bind", f"Allow {group} to {WORKLOAD_MAPPING_PERMISSIONS} in "
                                 f"compartment id {compartment}", FEATURE_WORKLOAD_MAPPING, _DOC_WORKLOADS, key))


def iam_plan(config: IamInputs, cluster_id: pulumi.Input[str]) -> IamPlan:
    """Every statement, policy and dynamic group the platform needs for ``config`` (a pure function).

    Statements that embed ``cluster_id`` are ``Output[str]`` when it is an Output (built with ``Output.concat``
    only), plain strings otherwise. Order: launch, cluster principal, cluster key, FSS key, Object Storage key, then
    Workload Identity tenant by tenant and the workload-mapping statements.
    """
    plan = IamPlan()
    prefix, comp = config.name_prefix, config.compartment_id
    scope = f"in compartment id {comp}"
    if config.rdma_pools:
        # RDMA node pools are placed in the Compute Cluster: OKE launches their instances on the node pool's behalf,
        # which needs COMPUTE_CLUSTER_LAUNCH_INSTANCE for the 'nodepool' principal. Oracle's quickstart form; it
        # names no cluster, so it can exist before the OKE cluster and node pools can depend on it.
        plan.add(PolicySpec("nodepool-launch", comp, f"{prefix}: OKE node pools launch RDMA instances into the "
                                                     f"Compute Cluster"),
                 PolicyStatement("nodepool-launch", f"Allow any-user to {{COMPUTE_CLUSTER_LAUNCH_INSTANCE}} {scope} "
                                 f"where request.principal.type = 'nodepool'", FEATURE_RDMA_POOLS,
                                 _DOC_COMPUTE_CLUSTERS, "nodepool-launch"))
    principal = _join("where all {request.principal.type = 'cluster', request.principal.id = '", cluster_id, "'}")
    fss = config.fss
    cluster_spec = PolicySpec("cluster-principal", comp, f"{prefix}: the OKE cluster principal "
                              + ("uses FSS (CSI driver) and " if config.fss_enabled else "uses ")
                              + "the VCN (load balancers)")
    if config.fss_enabled:
        # The FSS CSI driver runs as the cluster principal: it reads our file system and mount target for static
        # PVs and creates file systems/exports for dynamically provisioned ones. Only this cluster, only FSS.
        plan.add(cluster_spec, PolicyStatement("cluster-file-family",
                                               _join(f"Allow any-user to manage file-family {scope} ", principal),
                                               FEATURE_FSS_CSI, _DOC_FSS_CSI, "cluster-principal"))
    # Service type LoadBalancer: the cluster principal attaches load balancers to our subnets and NSGs and reads
    # VNICs/private IPs. 'use' (not 'manage'): it never creates or deletes network resources.
    plan.add(cluster_spec, PolicyStatement("cluster-virtual-network-family",
                                           _join(f"Allow any-user to use virtual-network-family {scope} ", principal),
                                           FEATURE_LOAD_BALANCERS, _DOC_LOAD_BALANCERS, "cluster-principal"))
    vault = config.iam.vault_compartment_id or comp
    for n, key_id in enumerate(config.cluster_kms_key_ids):
        # Kubernetes secrets encrypted at rest with our Vault key, and image signatures verified with the image
        # verification keys: the cluster principal uses each key. OKE checks it while creating the cluster, so the
        # statement cannot name the (future) cluster's OCID: it is pinned to the key and the 'cluster' principal
        # type instead, and the cluster and node pools must wait for this policy.
        plan.add(PolicySpec("cluster-kms", vault, f"{prefix}: the OKE cluster uses its Vault keys (secrets "
                                                  f"encryption, image signature verification)"),
                 PolicyStatement(f"cluster-kms-key-{n + 1}", f"Allow any-user to use keys in {_location(vault)} where "
                                 f"all {{request.principal.type = 'cluster', target.key.id = '{key_id}'}}",
                                 FEATURE_CLUSTER_KMS, _DOC_CLUSTER_KMS, "cluster-kms"))
    fss_keys = ((fss.kms_key_id,) if fss is not None and fss.kms_key_id else ()) + tuple(
        k for k in (fss.previous_kms_key_ids if fss is not None else ()) if k != fss.kms_key_id)
    if config.fss_enabled and fss_keys:
        # File systems encrypt with our Vault key as a resource principal matched by a dynamic group of the file
        # systems in our compartment; pinned to the one key. The file system must wait for this policy. A key it
        # used before (previousKmsKeyIds) keeps its grant for the update that switches: OCI checks the grant when
        # the file system uses the key, and the policy is updated before the file system switches.
        group = f"{prefix}-fss-file-systems"
        plan.dynamic_groups.append(DynamicGroupSpec(
            group, config.iam.tenancy_id,
            f"ALL {{resource.type = 'filesystem', resource.compartment.id = '{comp}'}}",
            f"{prefix}: file systems in the stack's compartment (they use the FSS Vault key)"))
        spec = PolicySpec("fss-kms", vault, f"{prefix}: file systems encrypt with the FSS Vault key")
        for n, key_id in enumerate(fss_keys):
            suffix = "" if n == 0 and fss.kms_key_id else f"-previous-{n if fss.kms_key_id else n + 1}"
            plan.add(spec, PolicyStatement(f"fss-kms-key{suffix}", f"Allow dynamic-group {group} to use keys in "
                                           f"{_location(vault)} where target.key.id = '{key_id}'", FEATURE_FSS_KMS,
                                           _DOC_FSS_KMS, "fss-kms"))
            if config.iam.deployer_group_id:
                # Whoever creates the file system with the key needs to use its key delegate (same doc).
                plan.add(spec, PolicyStatement(
                    f"fss-kms-key-delegate{suffix}", f"Allow group id {config.iam.deployer_group_id} to use "
                    f"key-delegate in {_location(vault)} where target.key.id = '{key_id}'", FEATURE_FSS_KMS,
                    _DOC_FSS_KMS, "fss-kms"))
    object_keys = ((config.object_storage_kms_key_id,) if config.object_storage_kms_key_id else ()) + tuple(
        k for k in config.object_storage_previous_kms_key_ids if k != config.object_storage_kms_key_id)
    for n, key_id in enumerate(object_keys):
        # Object Storage encrypts the bucket's objects with our key as its regional service principal; pinned to it
        # (and to a key the bucket used before, for the update that switches: previousKmsKeyIds).
        suffix = "" if n == 0 and config.object_storage_kms_key_id else (
            f"-previous-{n if config.object_storage_kms_key_id else n + 1}")
        plan.add(PolicySpec("objectstorage-kms", vault, f"{prefix}: Object Storage encrypts the weights bucket"),
                 PolicyStatement(f"objectstorage-kms-key{suffix}", f"Allow service objectstorage-{config.region} to "
                                 f"use keys in {_location(vault)} where target.key.id = '{key_id}'",
                                 FEATURE_OBJECT_STORAGE_KMS, _DOC_OBJECT_STORAGE_KMS, "objectstorage-kms"))
    if config.lustre:
        # The Lustre service creates the file system's endpoints in our subnet as the 'lustrefs' service principal;
        # OCI documents the grant at tenancy level, so it is attached to the root compartment.
        plan.add(PolicySpec("lustre-service", config.iam.tenancy_id, f"{prefix}: the Lustre service uses the VCN"),
                 PolicyStatement("lustre-service", "Allow service lustrefs to use virtual-network-family in tenancy",
                                 FEATURE_LUSTRE, _DOC_LUSTRE, "lustre-service"))
    _workload_statements(plan, config, cluster_id)
    for n, group in enumerate(config.member_group_ids):
        # Tenant members' IAM groups get a kubeconfig for this cluster only; RBAC decides the rest.
        plan.add(PolicySpec(MEMBERS_POLICY, comp, f"{prefix}: tenant members' IAM groups use this cluster"),
                 PolicyStatement(f"cluster-user-{n + 1}", member_statement(group, comp, cluster_id),
                                 FEATURE_TENANT_MEMBERS, _DOC_MEMBERS, MEMBERS_POLICY))
    return plan


#: OCI docs, "Policy Statements Limit per Compartment Hierarchy" (read 2026-12-01): at most 500 policy statements
#: from the root compartment down to any leaf compartment, a hard limit that cannot be raised.
MAX_STATEMENTS_PER_COMPARTMENT_PATH = 500


def statement_limit_problems(plan: IamPlan) -> list[str]:
    """The compartment paths this stack's own statements would fill beyond the hard limit.

    Statements attached to the root compartment (a tenancy OCID, or no compartment: the root, not configured) count on
    every path; each other compartment adds its own. Other stacks' and hand-written policies count too, so this is a
    necessary condition only (``make preflight`` cannot list them without policy-read rights).

    :returns: one line per compartment whose path would hold more than :data:`MAX_STATEMENTS_PER_COMPARTMENT_PATH`,
        naming ``oke-rdma:tenants`` (the Workload Identity grants are what grows) and the fix; empty when it fits.
    """
    per: dict[str, int] = {}
    for statement in plan.statements:
        where = plan.policies[statement.policy].compartment_id
        key = "root" if where is None or where.startswith("ocid1.tenancy.") else where
        per[key] = per.get(key, 0) + 1
    root = per.pop("root", 0)
    paths = per or {"root": 0}
    problems = []
    for compartment, n in sorted(paths.items()):
        total = root + n
        if total > MAX_STATEMENTS_PER_COMPARTMENT_PATH:
            problems.append(f"oke-rdma:tenants: the stack's IAM statements ({root} in the root compartment + {n} in "
                            f"{compartment}) exceed the {MAX_STATEMENTS_PER_COMPARTMENT_PATH} OCI allows from the "
                            f"root to any compartment (IAM 'Policy Statements Limit per Compartment Hierarchy', a "
                            f"hard limit); grant service accounts fewer statements, or point tenants' grants at their own "
                            f"compartments (each policy is attached where its statements point)")
    return problems


def policy_statements(config: IamInputs, cluster_id: pulumi.Input[str]) -> list[PolicyStatement]:
    """Every IAM statement the platform needs for ``config``, in a stable order (see :func:`iam_plan`)."""
    return iam_plan(config, cluster_id).statements


class IamArgs:
    """Inputs of :class:`Iam`.

    :param config: :class:`IamInputs`, what the statements depend on.
    :param cluster_id: the OKE cluster OCID (the cluster principal's and the workloads' cluster in conditions).
    :param compute_cluster_id: the Compute Cluster OCID when known before the node pools (an existing one); only
        named in the launch policy's description — the statement keeps Oracle's documented form, which has no
        Compute Cluster condition (a created Compute Cluster's OCID would also make the policy wait for it).
    """

    def __init__(self, config: IamInputs, cluster_id: pulumi.Input[str],
                 compute_cluster_id: Optional[pulumi.Input[str]] = None):
        if not isinstance(config, IamInputs):
            raise ValueError(f"IamArgs.config: expected oke_rdma.iam.IamInputs, got {type(config).__name__}")
        self.config = config
        self.cluster_id = cluster_id
        self.compute_cluster_id = compute_cluster_id


class Iam(pulumi.ComponentResource):
    """The platform's IAM policies and dynamic groups (type ``oke-rdma:iam:Iam``); see the module docstring.

    When ``iam.createPolicies`` is true: one ``oci.identity.Policy`` ``<prefix>-<key>`` per :class:`PolicySpec`
    and one ``oci.identity.DynamicGroup`` per :class:`DynamicGroupSpec` (the ``fss-kms`` policy waits for it).
    When false: no resource at all.

    Attributes (present in both cases unless said otherwise):

    * ``plan`` (:class:`IamPlan`), ``statement_records`` (list of :class:`PolicyStatement`);
    * ``statement_texts`` (``list[Input[str]]``: every statement; known ones stay known on a first preview) and
      ``statements`` (the same as one ``Output[list[str]]``);
    * ``policy_documents``: policy name → ``{"compartmentId", "description", "statements"}`` (for an admin);
    * ``dynamic_group_documents``: dynamic group name → ``{"compartmentId", "matchingRule"}``;
    * ``policies`` (key → ``Policy``), ``dynamic_groups`` (name → ``DynamicGroup``): empty when not created;
    * ``launch_policy``, ``cluster_policy``, ``cluster_kms_policy``, ``object_storage_kms_policy`` (``Policy`` or
      None; the weights bucket waits for the last);
    * ``fss_kms_dependencies``: what the file system must ``depends_on`` (the ``fss-kms`` policy and its dynamic
      group; empty when not created or not needed);
    * ``workload_mapping_dependencies``: tenant → what its ClusterWorkloadMapping must ``depends_on`` (the
      ``wi-mappings`` and ``wi-<tenant>-bind`` policies; empty lists when not created).

    Raises nothing: the config model has already been checked.
    """

    def __init__(self, name: str, args: IamArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:iam:Iam", name, None, opts)
        cfg = args.config
        prefix = cfg.name_prefix

        self.plan = iam_plan(cfg, args.cluster_id)
        self.statement_records = self.plan.statements
        self.statement_texts: list[pulumi.Input[str]] = [s.text for s in self.statement_records]
        self.statements: pulumi.Output[list[str]] = pulumi.Output.all(*self.statement_texts)
        self.policy_documents = {
            f"{prefix}-{key}": {"compartmentId": spec.compartment_id, "description": spec.description,
                                "statements": [s.text for s in self.statement_records if s.policy == key]}
            for key, spec in self.plan.policies.items()}
        self.dynamic_group_documents = {g.name: {"compartmentId": g.compartment_id, "matchingRule": g.matching_rule}
                                        for g in self.plan.dynamic_groups}
        self.policies: dict[str, oci.identity.Policy] = {}
        self.dynamic_groups: dict[str, oci.identity.DynamicGroup] = {}

        if cfg.iam.create_policies:
            for group in self.plan.dynamic_groups:
                self.dynamic_groups[group.name] = oci.identity.DynamicGroup(
                    group.name, oci.identity.DynamicGroupArgs(
                        compartment_id=group.compartment_id, name=group.name, description=group.description,
                        matching_rule=group.matching_rule, freeform_tags=cfg.freeform_tags),
                    pulumi.ResourceOptions(parent=self))
            for key, spec in self.plan.policies.items():
                if spec.compartment_id is None:
                    # Only the Lustre service grant gets here (the config requires iam.tenancyId for the others):
                    # without the tenancy OCID it is handed to an administrator, as with createPolicies: false.
                    pulumi.log.warn(f"policy {prefix}-{key} is not created: it belongs in the root compartment and "
                                    f"iam.tenancyId is not set; set it, or have an administrator apply the "
                                    f"statements listed under IAM statements", self)
                    continue
                description: pulumi.Input[str] = spec.description
                if key == "nodepool-launch" and args.compute_cluster_id is not None:
                    description = pulumi.Output.concat(f"{prefix}: OKE node pools launch RDMA instances into "
                                                       f"Compute Cluster ", args.compute_cluster_id)
                waits = list(self.dynamic_groups.values()) if key == "fss-kms" else []
                self.policies[key] = oci.identity.Policy(f"{prefix}-{key}", oci.identity.PolicyArgs(
                    compartment_id=spec.compartment_id, name=f"{prefix}-{key}", description=description,
                    statements=[s.text for s in self.statement_records if s.policy == key],
                    freeform_tags=cfg.freeform_tags), pulumi.ResourceOptions(parent=self, depends_on=waits))

        self.launch_policy: Optional[oci.identity.Policy] = self.policies.get("nodepool-launch")
        self.cluster_policy: Optional[oci.identity.Policy] = self.policies.get("cluster-principal")
        self.cluster_kms_policy: Optional[oci.identity.Policy] = self.policies.get("cluster-kms")
        self.object_storage_kms_policy: Optional[oci.identity.Policy] = self.policies.get("objectstorage-kms")
        self.fss_kms_dependencies: list[pulumi.Resource] = (
            [self.policies["fss-kms"], *self.dynamic_groups.values()] if "fss-kms" in self.policies else [])
        self.workload_mapping_dependencies: dict[str, list[pulumi.Resource]] = {
            tenant: [p for k, p in self.policies.items() if k in ("wi-mappings", f"wi-{tenant}-bind")]
            for tenant in dict.fromkeys(b.tenant for b in cfg.workload_bindings)}

        self.register_outputs({"statements": self.statements})
