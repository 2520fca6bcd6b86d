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
  ``volumeName``). With ``client.enabled`` (default) the volume's node affinity requires the node label
  ``okerdma.io/lustre-client: "true"``, which a node registers with only when its Lustre client works
  (``oke_rdma.node_init``): a pod that mounts the volume is scheduled only where the mount can succeed.

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

from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci

from oke_rdma.config.lustre import Lustre
from oke_rdma.node_init import LUSTRE_CLIENT_LABEL

LUSTRE_CSI_DRIVER = "lustre.csi.oraclecloud.com"
#: The claim each tenant that asked for the Lustre file system gets in its namespace.
CLAIM_NAME = "lustre-shared"
#: LNet's TCP port and the reserved source ports its connections come from ("Required VCN Security Rules").
LNET_PORT, LNET_SOURCE_PORTS = 988, (512, 1023)


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


class LustreStorage(pulumi.ComponentResource):
    """A File Storage with Lustre file system with its NSG and per-tenant volumes (``oke-rdma:lustre:LustreStorage``).

    Attributes: ``file_system_id``, ``nsg_id``, ``volume_handle`` (Output[str]), ``claim_names`` (tenant → claim).
    """

    def __init__(self, name: str, args: LustreArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:lustre:LustreStorage", name, None, opts)
        cfg, prefix = args.config, args.name_prefix
        child = pulumi.ResourceOptions(parent=self)
        nsg = oci.core.NetworkSecurityGroup(f"{prefix}-lustre", oci.core.NetworkSecurityGroupArgs(
            compartment_id=args.compartment_id, vcn_id=args.vcn_id, display_name=f"{prefix}-lustre",
            freeform_tags=dict(args.freeform_tags)), child)
        self.nsg_id = nsg.id
        # (NSG the rule sits on, its name, the peer NSG, the peer's name, why): ingress and egress each.
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

        file_system = oci.lustre.FileStorageLustreFileSystem(f"{prefix}-lustre", oci.lustre
            .FileStorageLustreFileSystemArgs(
                availability_domain=args.availability_domain, compartment_id=args.compartment_id,
                capacity_in_gbs=cfg.capacity_gb, performance_tier=f"MBPS_PER_TB_{cfg.performance_tier}",
                file_system_name=cfg.file_system_name, display_name=f"{prefix}-lustre", subnet_id=args.subnet_id,
                nsg_ids=[nsg.id], kms_key_id=cfg.kms_key_id, freeform_tags=dict(args.freeform_tags),
                root_squash_configuration=oci.lustre.FileStorageLustreFileSystemRootSquashConfigurationArgs(
                    identity_squash=cfg.root_squash, squash_uid=str(cfg.squash_uid), squash_gid=str(cfg.squash_gid),
                    client_exceptions=list(cfg.client_exceptions) or None)),
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
        if args.provider is not None:
            k8s_opts = pulumi.ResourceOptions(parent=self, provider=args.provider)
            for tenant in cfg.tenants:
                namespace = args.tenant_namespaces[tenant]
                pv_name = f"{prefix}-{namespace}-lustre"
                spec = {
                    "capacity": {"storage": f"{cfg.capacity_gb}G"}, "accessModes": ["ReadWriteMany"],
                    "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "",
                    "claimRef": {"namespace": namespace, "name": CLAIM_NAME},
                    "csi": {"driver": LUSTRE_CSI_DRIVER, "volumeHandle": self.volume_handle, "fsType": "lustre",
                            "volumeAttributes": {"setupLnet": "true"}}}
                if cfg.client.enabled:
                    spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                        {"key": LUSTRE_CLIENT_LABEL, "operator": "In", "values": ["true"]}]}]}}
                k8s.core.v1.PersistentVolume(pv_name, metadata={"name": pv_name}, spec=spec, opts=k8s_opts)
                deps = [args.namespaces[namespace]] if namespace in args.namespaces else []
                k8s.core.v1.PersistentVolumeClaim(f"{prefix}-{namespace}-{CLAIM_NAME}", metadata={
                    "name": CLAIM_NAME, "namespace": namespace}, spec={
                    "accessModes": ["ReadWriteMany"], "storageClassName": "", "volumeName": pv_name,
                    "resources": {"requests": {"storage": f"{cfg.capacity_gb}G"}}},
                    opts=pulumi.ResourceOptions.merge(k8s_opts, pulumi.ResourceOptions(depends_on=deps)))
                self.claim_names[tenant] = CLAIM_NAME

        self.register_outputs({"fileSystemId": self.file_system_id, "nsgId": self.nsg_id,
                               "volumeHandle": self.volume_handle})
