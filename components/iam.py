"""The IAM policy statements the platform needs, and (optionally) the OCI policies holding them.

Two groups of statements, each least-privilege and scoped to the stack's compartment (never ``manage
all-resources``):

* **node pool launch** — OKE managed node pools may launch instances into the OCI Compute Cluster. Needed only when
  some node pool has ``rdma: true``. It must exist *before* those node pools are created, and it does not depend on
  the OKE cluster, so it lives in its own policy (:attr:`Iam.launch_policy`) that node pools ``depends_on``.
* **Vault keys** — with ``cluster.kmsKeyId`` or ``cluster.imageVerificationKeyIds``, OKE clusters
  (``request.principal.type = 'cluster'``) may use exactly those keys. OKE checks this when it creates the cluster,
  so it lives in its own policy (:attr:`Iam.kms_policy`) that names no cluster: the cluster and the node pools
  ``depends_on`` it.
* **cluster principal** — the OKE cluster itself (``request.principal.type = 'cluster'``, pinned to this cluster's
  OCID) manages File Storage for the FSS CSI driver (only when FSS is enabled) and uses the VCN for load balancers.

With ``iam.createPolicies: false`` nothing is created (users often may not create policies); :attr:`Iam.statements`
still carries the exact text for an administrator to apply, and becomes the ``policyStatements`` stack output.

Sources: OKE docs "Encrypting Kubernetes Secrets at Rest in Etcd" (contengencryptingdata.htm) for the key
statement; OKE docs "Using Compute Clusters to Provision Managed Nodes" (contengusingcomputeclusters.htm) and
oracle-quickstart/oci-hpc-oke for the launch statement; OKE docs "Setting Up the FSS CSI Volume Plugin" and
"Provisioning PVCs on the File Storage Service" for ``file-family``; OKE docs "Policy Configuration for Cluster
Creation and Deployment" and "Network Resource Configuration" for ``virtual-network-family``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import pulumi
import pulumi_oci as oci

from components.config import StackConfig

#: The feature each statement serves (``PolicyStatement.feature``).
FEATURE_RDMA_POOLS = "rdma-node-pools"
FEATURE_FSS_CSI = "fss-csi"
FEATURE_LOAD_BALANCERS = "load-balancers"
FEATURE_KMS_KEYS = "kms-keys"

_DOC_COMPUTE_CLUSTERS = ("OKE docs, 'Using Compute Clusters to Provision Managed Nodes' "
                         "(contengusingcomputeclusters.htm); oracle-quickstart/oci-hpc-oke")
_DOC_KMS = ("OKE docs, 'Encrypting Kubernetes Secrets at Rest in Etcd' (contengencryptingdata.htm) and "
            "'Enforcing the Use of Signed Images from Registry'")
_DOC_FSS_CSI = "OKE docs, 'Setting Up the FSS CSI Volume Plugin' / 'Provisioning PVCs on the File Storage Service'"
_DOC_LOAD_BALANCERS = ("OKE docs, 'Policy Configuration for Cluster Creation and Deployment' and "
                       "'Network Resource Configuration' (contengnetworkconfig.htm)")


@dataclass(frozen=True)
class PolicyStatement:
    """One IAM policy statement with its provenance.

    :param name: a short stable identifier (``nodepool-launch``, ``cluster-file-family``, ...).
    :param text: the statement; an ``Output[str]`` when it embeds a not-yet-known OCID (the cluster's).
    :param feature: the platform feature that needs it (``FEATURE_*``).
    :param source: the OCI document the statement follows.
    :param policy: which policy holds it when ``iam.createPolicies`` is true (``launch``, ``kms`` or ``cluster``).
    """

    name: str
    text: pulumi.Input[str]
    feature: str
    source: str
    policy: str


def _cluster_condition(cluster_id: pulumi.Input[str]) -> pulumi.Input[str]:
    """``where all {...}`` pinning the request to this cluster's principal (string formatting only)."""
    head = "where all {request.principal.type = 'cluster', request.principal.id = '"
    if isinstance(cluster_id, str):
        return f"{head}{cluster_id}'}}"
    return pulumi.Output.concat(head, cluster_id, "'}")


def _join(*parts: pulumi.Input[str]) -> pulumi.Input[str]:
    if all(isinstance(p, str) for p in parts):
        return "".join(parts)  # type: ignore[arg-type]
    return pulumi.Output.concat(*parts)


def policy_statements(config: StackConfig, cluster_id: pulumi.Input[str]) -> list[PolicyStatement]:
    """Every IAM statement the platform needs for ``config``, in a stable order.

    A pure function: no resource is created. Statements that embed ``cluster_id`` are ``Output[str]`` when
    ``cluster_id`` is an Output (built with ``Output.concat`` only), plain strings otherwise.

    :param config: the stack config (reads ``compartmentId``, ``nodePools.*.rdma``, ``storage.fss.enabled``).
    :param cluster_id: the OKE cluster OCID.
    :returns: the launch statement (only when a pool has ``rdma: true``), one key statement per Vault key of
        ``cluster.kmsKeyId`` / ``cluster.imageVerificationKeyIds``, then the cluster-principal statements
        (``file-family`` only when FSS is enabled, ``virtual-network-family`` always).
    """
    scope = f"in compartment id {config.compartment_id}"
    statements: list[PolicyStatement] = []
    if config.rdma_pools:
        # RDMA node pools are placed in the Compute Cluster: OKE launches their instances on the node pool's behalf,
        # which needs COMPUTE_CLUSTER_LAUNCH_INSTANCE for the 'nodepool' principal. Oracle's quickstart form; it
        # names no cluster, so it can exist before the OKE cluster and node pools can depend on it.
        statements.append(PolicyStatement(
            name="nodepool-launch",
            text=f"Allow any-user to {{COMPUTE_CLUSTER_LAUNCH_INSTANCE}} {scope} "
                 f"where request.principal.type = 'nodepool'",
            feature=FEATURE_RDMA_POOLS, source=_DOC_COMPUTE_CLUSTERS, policy="launch"))
    for n, key_id in enumerate(config.cluster.kms_key_ids):
        # OKE (as the 'cluster' principal) unwraps the etcd secrets key and verifies image signatures with these
        # keys. Pinned to each key; it names no cluster, so the cluster can be created after it. The key must be in
        # this compartment; for a key elsewhere an administrator applies the statement in the key's compartment.
        statements.append(PolicyStatement(
            name=f"cluster-use-key-{n + 1}",
            text=f"Allow any-user to use keys {scope} where all {{request.principal.type = 'cluster', "
                 f"target.key.id = '{key_id}'}}",
            feature=FEATURE_KMS_KEYS, source=_DOC_KMS, policy="kms"))
    condition = _cluster_condition(cluster_id)
    if config.storage.fss.enabled:
        # The FSS CSI driver runs as the cluster principal: it reads our file system and mount target for static
        # PVs and creates file systems/exports for dynamically provisioned ones. Only this cluster, only FSS.
        statements.append(PolicyStatement(
            name="cluster-file-family",
            text=_join(f"Allow any-user to manage file-family {scope} ", condition),
            feature=FEATURE_FSS_CSI, source=_DOC_FSS_CSI, policy="cluster"))
    # Service type LoadBalancer: the cluster principal attaches load balancers to our subnets and NSGs and reads
    # VNICs/private IPs. 'use' (not 'manage'): it never creates or deletes network resources.
    statements.append(PolicyStatement(
        name="cluster-virtual-network-family",
        text=_join(f"Allow any-user to use virtual-network-family {scope} ", condition),
        feature=FEATURE_LOAD_BALANCERS, source=_DOC_LOAD_BALANCERS, policy="cluster"))
    return statements


class IamArgs:
    """Inputs of :class:`Iam`.

    :param config: the stack config (reads ``iam.createPolicies``, ``compartmentId``, ``namePrefix``,
        ``freeformTags``, ``nodePools``, ``storage.fss.enabled``).
    :param cluster_id: the OKE cluster OCID (the cluster principal's id in the cluster statements).
    :param compute_cluster_id: the Compute Cluster OCID when known before the node pools (an existing one); only
        named in the launch policy's description — the statement keeps Oracle's documented form, which has no
        Compute Cluster condition (a created Compute Cluster's OCID would also make the policy wait for it).
    """

    def __init__(self, config: StackConfig, cluster_id: pulumi.Input[str],
                 compute_cluster_id: Optional[pulumi.Input[str]] = None):
        self.config = config
        self.cluster_id = cluster_id
        self.compute_cluster_id = compute_cluster_id


class Iam(pulumi.ComponentResource):
    """IAM policies for RDMA node pools, the FSS CSI driver and load balancers (type ``oke-rdma:iam:Iam``).

    When ``iam.createPolicies`` is true: ``<prefix>-nodepool-launch`` (only with an RDMA pool; independent of the
    cluster, so node pools can ``depends_on`` it) and ``<prefix>-cluster-principal``, both ``oci.identity.Policy``
    in ``compartmentId``. When false: no resource at all.

    With a Vault key in ``cluster`` also ``<prefix>-cluster-keys`` (independent of the cluster, so the cluster and node
    pools can ``depends_on`` it).

    Attributes: ``statement_records`` (list of :class:`PolicyStatement`), ``statements``
    (``Output[list[str]]``, every statement in either case), ``launch_policy`` (the launch ``Policy`` or None),
    ``kms_policy`` (the key-use ``Policy`` or None), ``cluster_policy`` (the cluster-principal ``Policy`` or None).

    Raises nothing: the config model has already been checked.
    """

    def __init__(self, name: str, args: IamArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:iam:Iam", name, None, opts)
        cfg = args.config
        prefix = cfg.name_prefix
        child = pulumi.ResourceOptions(parent=self)

        self.statement_records = policy_statements(cfg, args.cluster_id)
        self.statements: pulumi.Output[list[str]] = pulumi.Output.all(*[s.text for s in self.statement_records])
        self.launch_policy: Optional[oci.identity.Policy] = None
        self.kms_policy: Optional[oci.identity.Policy] = None
        self.cluster_policy: Optional[oci.identity.Policy] = None

        if cfg.iam.create_policies:
            launch = [s.text for s in self.statement_records if s.policy == "launch"]
            cluster = [s.text for s in self.statement_records if s.policy == "cluster"]
            keys = [s.text for s in self.statement_records if s.policy == "kms"]
            if keys:
                self.kms_policy = oci.identity.Policy(f"{prefix}-cluster-keys", oci.identity.PolicyArgs(
                    compartment_id=cfg.compartment_id, name=f"{prefix}-cluster-keys",
                    description=f"{prefix}: OKE clusters use the Vault keys of secrets encryption / image verification",
                    statements=keys, freeform_tags=cfg.freeform_tags), child)
            if launch:
                where = "the Compute Cluster"
                if args.compute_cluster_id is not None:
                    where = pulumi.Output.concat("Compute Cluster ", args.compute_cluster_id)
                self.launch_policy = oci.identity.Policy(f"{prefix}-nodepool-launch", oci.identity.PolicyArgs(
                    compartment_id=cfg.compartment_id, name=f"{prefix}-nodepool-launch",
                    description=_join(f"{prefix}: OKE node pools launch RDMA instances into ", where),
                    statements=launch, freeform_tags=cfg.freeform_tags), child)
            self.cluster_policy = oci.identity.Policy(f"{prefix}-cluster-principal", oci.identity.PolicyArgs(
                compartment_id=cfg.compartment_id, name=f"{prefix}-cluster-principal",
                description=f"{prefix}: the OKE cluster principal "
                            + ("uses FSS (CSI driver) and " if cfg.storage.fss.enabled else "uses ")
                            + "the VCN (load balancers)",
                statements=cluster, freeform_tags=cfg.freeform_tags), child)

        self.register_outputs({"statements": self.statements})
