"""OCI File Storage with Lustre: the file system, its network security group, and a static volume per tenant.

* ``lustre.FileStorageLustreFileSystem`` ``<prefix>-lustre`` in the storage subnet and the AD of the GPU nodes, with
  the tier, capacity, root squash, Vault key and tags of ``storage.lustre``; ``protect`` on by default (it holds
  data: ``pulumi destroy`` and a replacement stop at it).
* An NSG ``<prefix>-lustre`` on the file system and the LNet rules both sides need: TCP from source ports 512-1023 to
  port 988, ingress and egress, between the file system's NSG and itself (the Lustre servers talk to each other) and
  between it and the workers' NSG (the Lustre client runs in the node's kernel: pods reach it through the node, so the
  workers' NSG is the client side, and LNet connects in both directions). All rules stateful.
* Per tenant listed in ``storage.lustre.tenants``: a ``PersistentVolume`` ``<prefix>-<namespace>-lustre`` of the OKE
  Lustre CSI driver (``lustre.csi.oraclecloud.com``, ``volumeHandle: <MGS address>@<LNet>:/<file system name>``,
  ``fsType: lustre``, ``volumeAttributes.setupLnet: "true"`` so the driver configures LNet on the node before it
  mounts), ``ReadWriteMany``, ``Retain``, reserved for the tenant's claim ``lustre-shared`` (``claimRef``/
  ``volumeName``). The volume carries the file system's capacity (``capacityGb`` in GB, updated in place when it
  grows); the claim requests the fixed nominal :data:`~oke_rdma.preparation.STATIC_CLAIM_REQUEST`, so growing the
  file system never asks the API server to resize a static claim. With ``client.enabled`` (default) the volume's node affinity requires the node label
  ``okerdma.io/lustre-client: "true"``, which a node registers with only when its Lustre client works
  (``oke_rdma.node_init``): a pod that mounts the volume is scheduled only where the mount can succeed.
* With ``prepareDirectories`` (default on): each listed tenant's directory ``/<tenant>``, owned by its UID/GID
  (``tenant_ids``), mode ``2770``, created by the one-off preparation Job of :mod:`oke_rdma.preparation` (the
  same as FSS's) in the namespace ``oke-rdma-storage`` (FSS's when it has one, else created here) through a volume
  ``<prefix>-lustre-prepare`` of the file system reserved for the claim ``lustre-prepare`` there; the Job tolerates
  the GPU nodes' ``nvidia.com/gpu`` taint (the client pools are often GPU pools) and lands, through the volume's
  node affinity, on a node with the client. It runs as root, so the workers subnet must be a root-squash client
  exception (checked in config). Every tenant claim waits for it and carries the annotations
  ``okerdma.io/sub-path``, ``okerdma.io/uid`` and ``okerdma.io/gid`` as FSS's claims do.

Sources (checked 2026-11-30): File Storage with Lustre docs "Required VCN Security Rules" (LNet over TCP 988, source
ports 512-1023, both directions, client and file-system sides) and "Increasing File System Capacity"; OKE docs
"Provisioning PVCs on the File Storage with Lustre Service" (the ``lustre.csi.oraclecloud.com`` driver, the static PV
volume handle ``<MGS IP>@<LNet>:/<fs name>``; the worker nodes need the Lustre client installed); pulumi_oci 5.5.0
``lustre.FileStorageLustreFileSystem`` (``management_service_address`` and ``lnet`` outputs). Checked 2026-12-01:
the same OKE page as published in oracle/oci-cloud-controller-manager@1100ac3 docs/pvcs-with-lustre-using-csi.md
(``fsType: lustre``; ``setupLnet: "true"`` "strongly recommended"), and that repository's
pkg/csi/driver/lustre_node.go (``setupLnet`` makes the node plugin load ``lnet`` and add the node's interface).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci

from oke_rdma.addons.gpu_operator import GPU_TAINT_KEY
from oke_rdma.config.lustre import Lustre
from oke_rdma.config.storage import PREPARATION_NAMESPACE
from oke_rdma.node_init import LUSTRE_CLIENT_LABEL
from oke_rdma.preparation import (STATIC_CLAIM_IGNORE, STATIC_CLAIM_REQUEST, preparation_job, preparation_namespace,
                                  tenant_directory)

LUSTRE_CSI_DRIVER = "lustre.csi.oraclecloud.com"
#: The claim each tenant that asked for the Lustre file system gets in its namespace.
CLAIM_NAME = "lustre-shared"
#: The platform's claim of the file system in the preparation namespace.
PREPARATION_CLAIM = "lustre-prepare"
#: Where the preparation Job mounts the file system.
PREPARATION_MOUNT = "/lustre"
ANNOTATION_PREFIX = "okerdma.io"
#: LNet's TCP port and the reserved source ports its connections come from ("Required VCN Security Rules").
LNET_PORT, LNET_SOURCE_PORTS = 988, (512, 1023)
#: LNet rules the file system adds to its clients' (the workers') NSG: ingress and egress with the Lustre NSG.
LNET_RULES_ON_CLIENT_NSG = 2


def client_exceptions(configured: Sequence[str], workers_cidr: Optional[str]) -> Optional[list[str]]:
    """The file system's root-squash client exceptions: ``configured``, plus ``workers_cidr`` when given and no
    configured CIDR already contains it (None when the list is empty: no exception)."""
    out = list(configured)
    if workers_cidr is not None:
        workers = ipaddress.ip_network(workers_cidr)
        if not any(workers.version == ipaddress.ip_network(c).version and workers.subnet_of(ipaddress.ip_network(c))
                   for c in out):
            out.append(workers_cidr)
    return out or None


def volume_handle(mgs_address: str, lnet: str, file_system_name: str) -> str:
    """The Lustre CSI static volume handle ``<MGS address>@<LNet>:/<file system name>``."""
    return f"{mgs_address}@{lnet}:/{file_system_name}"


@dataclass
class LustreArgs:
    """Inputs of :class:`LustreStorage`.

    :param config: ``storage.lustre``.
    :param name_prefix: prefix of every name; :param compartment_id: the compartment OCID.
    :param availability_domain: full AD name of the file system (the GPU nodes' AD).
    :param vcn_id: / :param subnet_id: the VCN and the subnet the file system's addresses come from.
    :param client_nsg_id: the NSG of the Lustre clients (the workers').
    :param freeform_tags: tags on every OCI resource.
    :param provider: the cluster's explicit Kubernetes provider; None = no Kubernetes objects.
    :param tenant_namespaces: tenant name → namespace, for the tenants in ``config.tenants``.
    :param namespaces: namespace name → its ``Namespace`` resource (claims depend on theirs).
    :param tenant_ids: tenant name → ``(uid, gid)`` owning its directory (``oke_rdma.config.checks.storage.tenant_ids``);
        every tenant of ``config.tenants`` when ``config.prepareDirectories``.
    :param preparation_namespace: the ``oke-rdma-storage`` Namespace when FSS already created it, else None (created
        here when directories are prepared).
    :param workers_cidr: the workers subnet's CIDR: a root-squash client exception while directories are prepared
        under ``rootSquash: ROOT`` (:func:`client_exceptions`).
    :raises ValueError: directories to prepare for a tenant without ``tenant_ids``, naming it.
    """

    config: Lustre
    name_prefix: str
    compartment_id: str
    availability_domain: str
    vcn_id: pulumi.Input[str]
    subnet_id: pulumi.Input[str]
    client_nsg_id: pulumi.Input[str]
    freeform_tags: Mapping[str, str] = field(default_factory=dict)
    provider: Optional[pulumi.ProviderResource] = None
    tenant_namespaces: Mapping[str, str] = field(default_factory=dict)
    namespaces: Mapping[str, pulumi.Resource] = field(default_factory=dict)
    depends_on: Sequence[pulumi.Resource] = ()
    tenant_ids: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    preparation_namespace: Optional[pulumi.Resource] = None
    workers_cidr: Optional[pulumi.Input[str]] = None

    def __post_init__(self) -> None:
        missing = [t for t in self.config.tenants if t not in self.tenant_ids]
        if self.provider is not None and self.config.prepare_directories and missing:
            raise ValueError(f"LustreArgs: tenant_ids has no (uid, gid) for tenants {missing}; give each tenant of "
                             f"config.tenants its IDs, or set config.prepare_directories false")
        if self.provider is not None and self.config.prepare_directories and self.config.tenants and \
                self.config.root_squash == "ROOT" and self.workers_cidr is None:
            raise ValueError("LustreArgs: workers_cidr is needed to prepare the tenants' directories under root "
                             "squash (the preparation Job's node must be a client exception); pass the workers "
                             "subnet's CIDR, or set config.prepare_directories false")


class LustreStorage(pulumi.ComponentResource):
    """A File Storage with Lustre file system with its NSG and per-tenant volumes (``oke-rdma:lustre:LustreStorage``).

    Attributes: ``file_system_id``, ``nsg_id``, ``volume_handle`` (Output[str]), ``claim_names`` (tenant → claim),
    ``sub_paths`` (tenant → its directory on the file system, with ``prepareDirectories``), ``preparation_job``
    (the ``Job`` or None), ``preparation_plan`` (``[{path, uid, gid, mode}]``).
    """

    def __init__(self, name: str, args: LustreArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:lustre:LustreStorage", name, None, opts)
        cfg, prefix = args.config, args.name_prefix
        child = pulumi.ResourceOptions(parent=self)
        nsg = oci.core.NetworkSecurityGroup(f"{prefix}-lustre", oci.core.NetworkSecurityGroupArgs(
            compartment_id=args.compartment_id, vcn_id=args.vcn_id, display_name=f"{prefix}-lustre",
            freeform_tags=dict(args.freeform_tags)), child)
        self.nsg_id = nsg.id
        # (NSG the rule sits on, its name, the peer NSG, the peer's name, why): ingress and egress each
        # (LNET_RULES_ON_CLIENT_NSG of them on the workers' NSG).
        sides = [(nsg.id, "lustre", nsg.id, "lustre", "the Lustre servers talk to each other"),
                 (nsg.id, "lustre", args.client_nsg_id, "workers", "Lustre clients on the worker nodes"),
                 (args.client_nsg_id, "workers", nsg.id, "lustre", "the Lustre file system")]
        for nsg_id, side, peer_nsg, peer, why in sides:
            for ingress in (True, False):
                tcp = oci.core.NetworkSecurityGroupSecurityRuleTcpOptionsArgs(
                    source_port_range=oci.core.NetworkSecurityGroupSecurityRuleTcpOptionsSourcePortRangeArgs(
                        min=LNET_SOURCE_PORTS[0], max=LNET_SOURCE_PORTS[1]),
                    destination_port_range=oci.core.NetworkSecurityGroupSecurityRuleTcpOptionsDestinationPortRangeArgs(
                        min=LNET_PORT, max=LNET_PORT))
                oci.core.NetworkSecurityGroupSecurityRule(
                    f"{prefix}-{side}-lnet-{'from' if ingress else 'to'}-{peer}",
                    oci.core.NetworkSecurityGroupSecurityRuleArgs(
                        network_security_group_id=nsg_id, direction="INGRESS" if ingress else "EGRESS",
                        protocol="6", stateless=False,
                        source=peer_nsg if ingress else None,
                        source_type="NETWORK_SECURITY_GROUP" if ingress else None,
                        destination=None if ingress else peer_nsg,
                        destination_type=None if ingress else "NETWORK_SECURITY_GROUP",
                        description=f"LNet (TCP {LNET_PORT} from ports {LNET_SOURCE_PORTS[0]}-{LNET_SOURCE_PORTS[1]}) "
                                    f"{'from' if ingress else 'to'} {why}",
                        tcp_options=tcp), child)

        self.preparation_plan = [tenant_directory(t, *args.tenant_ids[t]) for t in cfg.tenants] \
            if cfg.prepare_directories and args.provider is not None else []
        exceptions: pulumi.Input = client_exceptions(cfg.client_exceptions, None)
        if self.preparation_plan and cfg.root_squash == "ROOT":
            # The preparation Job runs as root on a worker node: like FSS's unsquashed preparation export for the
            # workers subnet, root on the workers' Lustre mounts is not squashed (docs/storage.md says what it means).
            exceptions = pulumi.Output.from_input(args.workers_cidr).apply(
                lambda w: client_exceptions(cfg.client_exceptions, w))
            pulumi.log.info(f"Lustre file system {prefix}-lustre: the workers subnet is a root-squash client exception "
                            f"so the preparation Job can create the tenants' directories (root on the worker nodes' "
                            f"Lustre mounts is not squashed); storage.lustre.prepareDirectories: false keeps root "
                            f"squashed everywhere (create the directories by hand: docs/storage.md)")
        file_system = oci.lustre.FileStorageLustreFileSystem(f"{prefix}-lustre", oci.lustre
            .FileStorageLustreFileSystemArgs(
                availability_domain=args.availability_domain, compartment_id=args.compartment_id,
                capacity_in_gbs=cfg.capacity_gb, performance_tier=f"MBPS_PER_TB_{cfg.performance_tier}",
                file_system_name=cfg.file_system_name, display_name=f"{prefix}-lustre", subnet_id=args.subnet_id,
                nsg_ids=[nsg.id], kms_key_id=cfg.kms_key_id, freeform_tags=dict(args.freeform_tags),
                root_squash_configuration=oci.lustre.FileStorageLustreFileSystemRootSquashConfigurationArgs(
                    identity_squash=cfg.root_squash, squash_uid=str(cfg.squash_uid), squash_gid=str(cfg.squash_gid),
                    client_exceptions=exceptions)),
            pulumi.ResourceOptions(parent=self, protect=cfg.protect, depends_on=list(args.depends_on)))
        if cfg.protect:
            pulumi.log.info(f"Lustre file system {prefix}-lustre is protected: pulumi destroy stops at it (and keeps "
                            f"its data) until storage.lustre.protect is false and pulumi up has run", file_system)
        else:
            pulumi.log.warn(f"Lustre file system {prefix}-lustre is NOT protected (storage.lustre.protect: false): "
                            f"pulumi destroy deletes it and every file on it", file_system)
        self.file_system_id = file_system.id
        self.volume_handle = pulumi.Output.all(file_system.management_service_address, file_system.lnet).apply(
            lambda a: volume_handle(a[0], a[1] or "tcp", cfg.file_system_name))

        self.claim_names: dict[str, str] = {}
        self.sub_paths: dict[str, str] = {}
        self.preparation_job: Optional[k8s.batch.v1.Job] = None
        if args.provider is not None:
            k8s_opts = pulumi.ResourceOptions(parent=self, provider=args.provider)
            node_affinity = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": LUSTRE_CLIENT_LABEL, "operator": "In", "values": ["true"]}]}]}} if cfg.client.enabled else None

            def volume_spec(namespace: str, claim: str) -> dict:
                spec = {
                    "capacity": {"storage": f"{cfg.capacity_gb}G"}, "accessModes": ["ReadWriteMany"],
                    "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "",
                    "claimRef": {"namespace": namespace, "name": claim},
                    "csi": {"driver": LUSTRE_CSI_DRIVER, "volumeHandle": self.volume_handle, "fsType": "lustre",
                            "volumeAttributes": {"setupLnet": "true"}}}
                if node_affinity:
                    spec["nodeAffinity"] = node_affinity
                return spec

            if self.preparation_plan:
                self.preparation_job = self._preparation(args, volume_spec, k8s_opts)
            claim_deps = [self.preparation_job] if self.preparation_job else []
            for tenant in cfg.tenants:
                namespace = args.tenant_namespaces[tenant]
                pv_name = f"{prefix}-{namespace}-lustre"
                k8s.core.v1.PersistentVolume(pv_name, metadata={"name": pv_name},
                                             spec=volume_spec(namespace, CLAIM_NAME), opts=k8s_opts)
                deps = [args.namespaces[namespace]] if namespace in args.namespaces else []
                metadata: dict = {"name": CLAIM_NAME, "namespace": namespace}
                if self.preparation_plan:
                    uid, gid = args.tenant_ids[tenant]
                    self.sub_paths[tenant] = tenant
                    metadata["annotations"] = {f"{ANNOTATION_PREFIX}/sub-path": tenant,
                                               f"{ANNOTATION_PREFIX}/uid": str(uid),
                                               f"{ANNOTATION_PREFIX}/gid": str(gid)}
                k8s.core.v1.PersistentVolumeClaim(f"{prefix}-{namespace}-{CLAIM_NAME}", metadata=metadata, spec={
                    "accessModes": ["ReadWriteMany"], "storageClassName": "", "volumeName": pv_name,
                    "resources": {"requests": {"storage": STATIC_CLAIM_REQUEST}}},
                    opts=pulumi.ResourceOptions.merge(k8s_opts, pulumi.ResourceOptions(
                        depends_on=deps + claim_deps, ignore_changes=list(STATIC_CLAIM_IGNORE))))
                self.claim_names[tenant] = CLAIM_NAME

        self.register_outputs({"fileSystemId": self.file_system_id, "nsgId": self.nsg_id,
                               "volumeHandle": self.volume_handle})

    def _preparation(self, args: LustreArgs, volume_spec, k8s_opts: pulumi.ResourceOptions) -> k8s.batch.v1.Job:
        """The preparation volume and claim of the file system and the shared preparation Job (module docstring)."""
        prefix = args.name_prefix
        labels = {"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": prefix}
        namespace = args.preparation_namespace or preparation_namespace(prefix, labels, k8s_opts)
        pv_name = f"{prefix}-lustre-prepare"
        volume = k8s.core.v1.PersistentVolume(pv_name, metadata={"name": pv_name, "labels": labels},
                                              spec=volume_spec(PREPARATION_NAMESPACE, PREPARATION_CLAIM),
                                              opts=k8s_opts)
        claim = k8s.core.v1.PersistentVolumeClaim(f"{prefix}-{PREPARATION_CLAIM}", metadata={
            "name": PREPARATION_CLAIM, "namespace": PREPARATION_NAMESPACE, "labels": labels}, spec={
            "accessModes": ["ReadWriteMany"], "storageClassName": "", "volumeName": pv_name,
            "resources": {"requests": {"storage": STATIC_CLAIM_REQUEST}}},
            opts=pulumi.ResourceOptions.merge(k8s_opts, pulumi.ResourceOptions(
                depends_on=[namespace, volume], ignore_changes=list(STATIC_CLAIM_IGNORE))))
        return preparation_job("lustre", name_prefix=prefix, plan=self.preparation_plan,
                               image=args.config.preparation_image, claim_name=PREPARATION_CLAIM,
                               namespace=PREPARATION_NAMESPACE, labels=labels, parent=self, provider=args.provider,
                               depends_on=[claim], mount_path=PREPARATION_MOUNT,
                               tolerations=[{"key": GPU_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}])
