"""OCI File Storage (FSS) for shared model weights, datasets and checkpoints.

Builds one file system, one mount target in the storage subnet behind the storage NSG, and one NFS export open only
to the workers and pods subnets. The Kubernetes side (FSS CSI driver ``fss.csi.oraclecloud.com``, a static RWX PV
with ``volumeHandle: <file system OCID>:<mount target IP>:<export path>``, or a StorageClass naming our
``mountTargetOcid`` so no CSI-created mount target ends up without our NSG) consumes :attr:`Storage.file_system_id`,
:attr:`Storage.mount_target_id`, :attr:`Storage.mount_target_ip` and :attr:`Storage.export_path`.

Sources: FSS docs "Managing File Systems", "Managing Mount Targets" (performance tiers), "Working with NFS Export
Options", "Security rules for File Storage"; OKE docs "Provisioning PVCs on the File Storage Service".
"""

from __future__ import annotations

from typing import Optional

import pulumi
import pulumi_oci as oci

from components.config import StackConfig

#: The subnets whose clients may mount the export (nodes, and pods with VCN-native pod networking).
CLIENT_ROLES = ("workers", "pods")


def fss_availability_domain(config: StackConfig) -> str:
    """The AD of the file system and mount target: ``storage.fss.availabilityDomain``, else the Compute Cluster's
    AD (RDMA nodes read checkpoints there), else the first of ``availabilityDomains``."""
    fss = config.storage.fss
    if fss.availability_domain:
        return fss.availability_domain
    if config.compute_cluster is not None:
        return config.compute_cluster.availability_domain
    return config.availability_domains[0]


class StorageArgs:
    """Inputs of :class:`Storage`.

    :param config: the stack config (reads ``storage.fss``, ``compartmentId``, ``namePrefix``, ``freeformTags``,
        ``availabilityDomains``, ``computeCluster``).
    :param subnet_ids: subnet OCID per role; uses ``storage``.
    :param subnet_cidrs: subnet CIDR per role; uses ``workers`` and ``pods`` (the export's only clients).
    :param nsg_ids: NSG OCID per role; uses ``storage`` (holds the NFS rules, see ``components.network``).
    """

    def __init__(self, config: StackConfig, subnet_ids: dict[str, pulumi.Input[str]], subnet_cidrs: dict[str, str],
                 nsg_ids: dict[str, pulumi.Input[str]]):
        self.config = config
        self.subnet_ids = subnet_ids
        self.subnet_cidrs = subnet_cidrs
        self.nsg_ids = nsg_ids


class Storage(pulumi.ComponentResource):
    """An FSS file system, mount target and export (type ``oke-rdma:storage:Storage``).

    Built only when ``storage.fss.enabled``; otherwise nothing is created and every attribute is None.

    * ``FileSystem`` ``<prefix>-fss`` in :func:`fss_availability_domain`, ``protect``-ed unless
      ``storage.fss.protect: false`` (it holds user data; ``pulumi destroy`` refuses to delete it).
    * ``MountTarget`` ``<prefix>-fss-mt`` in the storage subnet with the storage NSG, ``requested_throughput`` =
      ``storage.fss.throughputGbps`` (Gbps, sent as a string: pulumi-oci types it ``str``). OCI creates mount targets
      at 1 Gbps and, per the provider docs, accepts only 1 on create, so a higher tier is applied as an update of an
      existing mount target. The 20/40/80 Gbps tiers carry a capacity entitlement (20/40/80 TB) and a 30-day
      billing commitment, and a mount target must be set back to 1 Gbps before it can be deleted (FSS docs,
      "Managing Mount Targets", performance tiers).
    * ``Export`` of ``storage.fss.exportPath`` on the mount target's export set, with one export option per client
      CIDR — exactly the workers and pods subnets — ``READ_WRITE``, ``identitySquash`` and
      ``requirePrivilegedSourcePort`` from config (FSS docs, "Working with NFS Export Options"; never 0.0.0.0/0).

    Attributes: ``file_system`` / ``mount_target`` / ``export`` (the resources), ``file_system_id``,
    ``mount_target_id``, ``mount_target_ip`` (``Output[str]``, the mount target's private IP, read with
    ``oci.core.get_private_ip_output``; unknown on a first preview, when the SDK skips the invoke),
    ``export_path`` (``Output[str]``), ``availability_domain`` (str).

    :raises KeyError: if ``subnet_ids``/``nsg_ids`` lack ``storage`` or ``subnet_cidrs`` lacks ``workers``/``pods``
        (a wiring bug, not a config error).
    """

    def __init__(self, name: str, args: StorageArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:storage:Storage", name, None, opts)
        cfg = args.config
        fss = cfg.storage.fss
        prefix, tags, comp = cfg.name_prefix, cfg.freeform_tags, cfg.compartment_id

        self.file_system: Optional[oci.filestorage.FileSystem] = None
        self.mount_target: Optional[oci.filestorage.MountTarget] = None
        self.export: Optional[oci.filestorage.Export] = None
        self.file_system_id: Optional[pulumi.Output[str]] = None
        self.mount_target_id: Optional[pulumi.Output[str]] = None
        self.mount_target_ip: Optional[pulumi.Output[str]] = None
        self.export_path: Optional[pulumi.Output[str]] = None
        self.availability_domain: Optional[str] = None

        if not fss.enabled:
            self.register_outputs({})
            return

        child = pulumi.ResourceOptions(parent=self)
        ad = self.availability_domain = fss_availability_domain(cfg)

        self.file_system = oci.filestorage.FileSystem(f"{prefix}-fss", oci.filestorage.FileSystemArgs(
            availability_domain=ad, compartment_id=comp, display_name=f"{prefix}-fss", freeform_tags=tags),
            pulumi.ResourceOptions(parent=self, protect=fss.protect))

        self.mount_target = oci.filestorage.MountTarget(f"{prefix}-fss-mt", oci.filestorage.MountTargetArgs(
            availability_domain=ad, compartment_id=comp, subnet_id=args.subnet_ids["storage"],
            nsg_ids=[args.nsg_ids["storage"]], display_name=f"{prefix}-fss-mt",
            requested_throughput=str(fss.throughput_gbps), freeform_tags=tags), child)

        options = [oci.filestorage.ExportExportOptionArgs(
            source=args.subnet_cidrs[role], access="READ_WRITE", identity_squash=fss.identity_squash,
            require_privileged_source_port=fss.require_privileged_source_port) for role in CLIENT_ROLES]
        self.export = oci.filestorage.Export(f"{prefix}-fss-export", oci.filestorage.ExportArgs(
            export_set_id=self.mount_target.export_set_id, file_system_id=self.file_system.id, path=fss.export_path,
            export_options=options), child)

        # private_ip_ids is unknown until the mount target exists; the SDK then skips the invoke (result unknown).
        private_ip = oci.core.get_private_ip_output(private_ip_id=self.mount_target.private_ip_ids[0],
                                                    opts=pulumi.InvokeOutputOptions(parent=self))
        self.file_system_id = self.file_system.id
        self.mount_target_id = self.mount_target.id
        self.mount_target_ip = private_ip.ip_address
        self.export_path = self.export.path

        self.register_outputs({"fileSystemId": self.file_system_id, "mountTargetId": self.mount_target_id,
                               "mountTargetIp": self.mount_target_ip, "exportPath": self.export_path})
