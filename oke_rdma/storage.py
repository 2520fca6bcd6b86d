"""OCI File Storage (FSS) for shared model weights, datasets and checkpoints.

Builds one file system (optionally encrypted with a Vault key), one mount target in the storage subnet behind the
storage NSG, and one NFS export open only to the workers subnet (the nodes: the CSI driver mounts there). The Kubernetes side (FSS CSI driver
``fss.csi.oraclecloud.com``: static RWX PVs with ``volumeHandle: <file system OCID>:<mount target IP>:<export
path>`` and a StorageClass naming our ``mountTargetOcid``) is :mod:`oke_rdma.volumes`; it consumes
:attr:`Storage.file_system_id`, :attr:`Storage.mount_target_id`, :attr:`Storage.mount_target_ip` and
:attr:`Storage.export_path`.

High-performance mount targets (``storage.fss.throughputGbps`` 20, 40 or 80). OCI accepts only 1 Gbps when a mount
target is created; a higher tier is an *upgrade* of an existing one. pulumi-oci 5.5.0 (terraform-provider-oci's
``oci_file_storage_mount_target``) does not do create-then-upgrade itself: its Create sends ``requestedThroughput``
as given in ``CreateMountTarget``, and only its Update turns a change of ``requestedThroughput`` into
``UpgradeShapeMountTarget`` (higher) or ``ScheduleDowngradeShapeMountTarget`` (lower, effective at the end of the
billing cycle). So this component asks OCI whether the mount target already exists (``getMountTargets`` by compartment,
AD and display name, state not DELETED/DELETING/FAILED): if it does not, it declares 1 Gbps (the create OCI accepts)
and warns that the next ``pulumi up`` upgrades it; if it does, it declares the configured tier and the provider
upgrades it. Every high tier carries a capacity entitlement (20/40/80 TB) billed in 30-day cycles from the upgrade,
and a high-performance mount target must be set back to 1 Gbps (and the downgrade take effect) before it can be
deleted: the preview says so as a warning.

Preparation export (squash-safe directories). With ``identitySquash: ROOT`` (the default) no client can create or
chown anything in the file system's root-owned top directory: root is mapped to the anonymous UID 65534. So when a
tenant asks for shared storage a second export of the same file system, ``<exportPath>-prepare``, is declared on the
same mount target for the **workers subnet only**, ``identitySquash: NONE``, privileged source port. Only the
platform's preparation Job mounts it (through a PersistentVolume bound to a claim in the platform's own
``oke-rdma-storage`` namespace: ``oke_rdma.volumes``): it creates each tenant's directory owned by the tenant's UID/GID.
Who else could reach it: a PersistentVolume is cluster-scoped (cluster administrators only); an inline ``nfs``
volume is forbidden by Pod Security ``restricted`` (every tenant without RDMA); pods' own NFS traffic comes from the
pods subnet, which this export does not list. Pods of ``privileged`` namespaces (RDMA tenants, the GPU Operator,
monitoring) could mount it — they can already act as root on their node, and over NFS AUTH_SYS a client chooses its
UID, so root squash never was a boundary against them. FSS allows several exports of one file system on a mount
target (FSS docs "Managing Mount Targets": "create as many exports in a mount target for a single file system as you
need"; checked 2026-11-30 — the OCI CLI's ``fs export`` reference still says one export set may not reference a
file system twice: if ``CreateExport`` refuses, set ``storage.fss.prepareDirectories: false`` and prepare the
directories as the docs page ``docs/operations.md`` shows).

Sources: FSS docs "Managing File Systems", "Managing Mount Targets" and "Updating Mount Target Performance"
(performance tiers, 30-day commitment, downgrade at the end of the cycle), "Working with NFS Export Options",
"Security rules for File Storage"; terraform-provider-oci ``file_storage_mount_target_resource.go`` (Create/Update).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Mapping, Optional

import pulumi
import pulumi_oci as oci

from oke_rdma.config import FSS_CAPACITY_ENTITLEMENT_TB, FSS_HIGH_PERFORMANCE_COMMITMENT_DAYS, Fss, StackConfig
from oke_rdma.facts.regions import parse_ad

#: The subnets whose clients may mount the export: the nodes only (the FSS CSI driver mounts on the node; a pod's
#: own NFS client could claim any UID from a privileged source port: ``oke_rdma.network.NFS_CLIENT_ROLES``).
CLIENT_ROLES = ("workers",)
#: Mount target lifecycle states that mean "it no longer exists" for the tier decision.
_GONE = ("DELETED", "DELETING", "FAILED")
#: OCI accepts only this tier (Gbps) in CreateMountTarget.
CREATE_THROUGHPUT_GBPS = 1
#: The subnet whose clients (the nodes: the FSS CSI driver mounts on the node) may use the preparation export.
PREPARATION_ROLE = "workers"
PREPARATION_SUFFIX = "-prepare"


def preparation_export_path(export_path: str) -> str:
    """The preparation export's path: ``<export path>-prepare`` (never nested with ``<export path>``: FSS docs
    "Paths in File Systems" — ``/shared`` and ``/shared-prepare`` are distinct element sequences)."""
    return export_path + PREPARATION_SUFFIX


def needs_preparation(config: StackConfig) -> bool:
    """True when FSS is on, ``storage.fss.prepareDirectories`` is true and some tenant asks for shared storage."""
    fss = config.storage.fss
    return fss.enabled and fss.prepare_directories and any(
        t.shared_storage is not None for t in config.tenants.values())


def fss_availability_domain(config: StackConfig) -> str:
    """The AD of the file system and mount target: ``storage.fss.availabilityDomain``, else the Compute Cluster's
    AD (RDMA nodes read checkpoints there), else the first of ``availabilityDomains``."""
    fss = config.storage.fss
    if fss.availability_domain:
        return fss.availability_domain
    if config.compute_cluster is not None:
        return config.compute_cluster.availability_domain
    return config.availability_domains[0]


def high_performance_notice(tier: int, mount_target: str) -> str:
    """The cost and deletion warning for a mount target at ``tier`` Gbps (empty for the standard 1 Gbps tier)."""
    if tier == CREATE_THROUGHPUT_GBPS:
        return ""
    return (f"mount target {mount_target}: {tier} Gbps is a high-performance tier: it carries a capacity entitlement "
            f"of {FSS_CAPACITY_ENTITLEMENT_TB[tier]} TB billed in {FSS_HIGH_PERFORMANCE_COMMITMENT_DAYS}-day cycles "
            f"from the upgrade, a lower tier takes effect only at the end of the billing cycle, and the mount target "
            f"must be downgraded to 1 Gbps (storage.fss.throughputGbps: 1, pulumi up, wait for the cycle to end) "
            f"before it can be deleted — pulumi destroy fails on it until then. Default limits per availability "
            f"domain: two 20 Gbps, one 40 Gbps and no 80 Gbps mount targets (request an increase first).")


def requested_throughput(tier: int, existing: list[Any]) -> str:
    """The ``requested_throughput`` (Gbps, as the string pulumi-oci takes) to declare for a mount target whose
    configured tier is ``tier``, given what ``getMountTargets`` found under its name: the tier itself if a live mount
    target exists (the provider upgrades it), else 1 (OCI refuses a higher tier on create)."""
    alive = [m for m in existing if getattr(m, "state", None) not in _GONE]
    return str(tier if alive else CREATE_THROUGHPUT_GBPS)


class StorageArgs:
    """Inputs of :class:`Storage`.

    :param compartment_id: OCID of the compartment of the file system and mount target.
    :param fss: the file system's config (:class:`oke_rdma.config.Fss`, the ``oke-rdma:storage.fss`` model:
        ``enabled``, ``exportPath``, ``throughputGbps``, ``kmsKeyId``, ``protect``, export options); with
        ``enabled: false`` nothing is created.
    :param availability_domain: the AD of the file system and mount target (``xxxx:REGION-AD-n``); the stack program
        passes :func:`fss_availability_domain`.
    :param subnet_ids: subnet OCID per role; uses ``storage``.
    :param subnet_cidrs: subnet CIDR per role (a string, or an output when the network is brought); uses
        ``workers`` (the export's only clients).
    :param nsg_ids: NSG OCID per role; uses ``storage`` (holds the NFS rules, see ``oke_rdma.network``).
    :param name_prefix: prefix of logical and display names (default ``okerdma``).
    :param freeform_tags: free-form tags on every resource (default none).
    :param file_system_depends_on: what the file system waits for: the IAM policy and dynamic group that let FSS use
        ``kmsKeyId`` (creating an encrypted file system fails until they exist).
    :param prepare_directories: declare the preparation export (the stack passes :func:`needs_preparation`: some
        tenant uses the shared storage and ``fss.prepareDirectories`` is on); default False.
    :raises ValueError: (with ``fss.enabled``) a malformed availability domain or a missing role, naming it.
    """

    def __init__(self, compartment_id: str, fss: Fss, availability_domain: str,
                 subnet_ids: Mapping[str, pulumi.Input[str]], subnet_cidrs: Mapping[str, pulumi.Input[str]],
                 nsg_ids: Mapping[str, pulumi.Input[str]], *, name_prefix: str = "okerdma",
                 freeform_tags: Optional[Mapping[str, str]] = None,
                 file_system_depends_on: Sequence[pulumi.Resource] = (), prepare_directories: bool = False):
        if not isinstance(fss, Fss):
            raise ValueError(f"StorageArgs.fss: expected an oke_rdma.config.Fss, got {type(fss).__name__}")
        if fss.enabled:
            problems = [] if parse_ad(availability_domain) is not None else [
                f"availability_domain {availability_domain!r} is not an availability domain name like "
                f"'bxtG:SA-SAOPAULO-1-AD-1' or 'Uocm:US-ASHBURN-AD-1' (oke_rdma.facts.regions)"]
            problems += [f"subnet_ids[{'storage'!r}] missing"] if "storage" not in subnet_ids else []
            problems += [f"nsg_ids[{'storage'!r}] missing"] if "storage" not in nsg_ids else []
            problems += [f"subnet_cidrs[{r!r}] missing" for r in CLIENT_ROLES if r not in subnet_cidrs]
            if problems:
                raise ValueError("StorageArgs: " + "; ".join(problems))
        self.compartment_id = compartment_id
        self.fss = fss
        self.availability_domain = availability_domain
        self.subnet_ids = dict(subnet_ids)
        self.subnet_cidrs = dict(subnet_cidrs)
        self.nsg_ids = dict(nsg_ids)
        self.name_prefix = name_prefix
        self.freeform_tags = dict(freeform_tags or {})
        self.file_system_depends_on = list(file_system_depends_on)
        self.prepare_directories = prepare_directories and fss.prepare_directories


class Storage(pulumi.ComponentResource):
    """An FSS file system, mount target and export (type ``oke-rdma:storage:Storage``).

    Built only when ``storage.fss.enabled``; otherwise nothing is created and every attribute is None.

    * ``FileSystem`` ``<prefix>-fss`` in :func:`fss_availability_domain`, encrypted with ``storage.fss.kmsKeyId``
      when set, ``protect``-ed unless ``storage.fss.protect: false`` (it holds user data; ``pulumi destroy`` refuses
      to delete it). The preview says which (an info or a warning diagnostic).
    * ``MountTarget`` ``<prefix>-fss-mt`` in the storage subnet with the storage NSG; ``requested_throughput`` per
      :func:`requested_throughput` (see the module docstring: 1 Gbps on create, the configured tier once it
      exists), with the cost warning of :func:`high_performance_notice` for 20/40/80 Gbps.
    * ``Export`` of ``storage.fss.exportPath`` on the mount target's export set, with one export option per client
      CIDR — exactly the workers subnet — ``READ_WRITE``, ``identitySquash`` and
      ``requirePrivilegedSourcePort`` from config (FSS docs, "Working with NFS Export Options"; never 0.0.0.0/0,
      which is also what FSS applies to an export declared without options).

    * with :func:`needs_preparation`: the preparation ``Export`` ``<prefix>-fss-prepare-export`` at
      :func:`preparation_export_path`, one option for the workers subnet only, ``identitySquash: NONE`` (see the
      module docstring).

    Attributes: ``file_system`` / ``mount_target`` / ``export`` (the resources), ``preparation_export`` (or None),
    ``preparation_export_path`` (``Output[str]`` or None), ``file_system_id``,
    ``mount_target_id``, ``mount_target_ip`` (``Output[str]``, the mount target's private IP, read with
    ``oci.core.get_private_ip_output``; unknown on a first preview, when the SDK skips the invoke),
    ``export_path`` (``Output[str]``), ``availability_domain`` (str), ``client_cidrs`` (the export's sources:
    the workers subnet), ``requested_throughput`` (``Output[str]``, Gbps).

    """

    def __init__(self, name: str, args: StorageArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:storage:Storage", name, None, opts)
        fss = args.fss
        prefix, tags, comp = args.name_prefix, args.freeform_tags, args.compartment_id

        self.file_system: Optional[oci.filestorage.FileSystem] = None
        self.mount_target: Optional[oci.filestorage.MountTarget] = None
        self.export: Optional[oci.filestorage.Export] = None
        self.file_system_id: Optional[pulumi.Output[str]] = None
        self.mount_target_id: Optional[pulumi.Output[str]] = None
        self.mount_target_ip: Optional[pulumi.Output[str]] = None
        self.export_path: Optional[pulumi.Output[str]] = None
        self.availability_domain: Optional[str] = None
        self.client_cidrs: list[pulumi.Input[str]] = []
        self.requested_throughput: Optional[pulumi.Output[str]] = None
        self.preparation_export: Optional[oci.filestorage.Export] = None
        self.preparation_export_path: Optional[pulumi.Output[str]] = None

        if not fss.enabled:
            self.register_outputs({})
            return

        child = pulumi.ResourceOptions(parent=self)
        ad = self.availability_domain = args.availability_domain
        fs_name, mt_name = f"{prefix}-fss", f"{prefix}-fss-mt"

        self.file_system = oci.filestorage.FileSystem(fs_name, oci.filestorage.FileSystemArgs(
            availability_domain=ad, compartment_id=comp, display_name=fs_name, kms_key_id=fss.kms_key_id,
            freeform_tags=tags), pulumi.ResourceOptions(parent=self, protect=fss.protect,
                                                        depends_on=args.file_system_depends_on))
        if fss.protect:
            pulumi.log.info(f"file system {fs_name} is protected: pulumi destroy stops at it (and keeps its data) "
                            f"until storage.fss.protect is false and pulumi up has run", self.file_system)
        else:
            pulumi.log.warn(f"file system {fs_name} is NOT protected (storage.fss.protect: false): pulumi destroy "
                            f"deletes it and every file on it", self.file_system)

        tier = fss.throughput_gbps
        if tier == CREATE_THROUGHPUT_GBPS:
            throughput: pulumi.Output[str] = pulumi.Output.from_input(str(tier))
        else:
            existing = oci.filestorage.get_mount_targets_output(
                compartment_id=comp, availability_domain=ad, display_name=mt_name,
                opts=pulumi.InvokeOutputOptions(parent=self))

            def decide(found: Optional[list[Any]]) -> str:
                value = requested_throughput(tier, list(found or []))
                if value != str(tier):
                    pulumi.log.warn(f"mount target {mt_name} does not exist yet: OCI creates mount targets at "
                                    f"{CREATE_THROUGHPUT_GBPS} Gbps only, so this update creates it at "
                                    f"{CREATE_THROUGHPUT_GBPS} Gbps and the next pulumi up upgrades it to {tier} Gbps",
                                    self)
                return value

            throughput = existing.mount_targets.apply(decide)
            pulumi.log.warn(high_performance_notice(tier, mt_name), self)
        self.requested_throughput = throughput

        self.mount_target = oci.filestorage.MountTarget(mt_name, oci.filestorage.MountTargetArgs(
            availability_domain=ad, compartment_id=comp, subnet_id=args.subnet_ids["storage"],
            nsg_ids=[args.nsg_ids["storage"]], display_name=mt_name, requested_throughput=throughput,
            freeform_tags=tags), child)

        self.client_cidrs = [args.subnet_cidrs[role] for role in CLIENT_ROLES]
        options = [oci.filestorage.ExportExportOptionArgs(
            source=cidr, access="READ_WRITE", identity_squash=fss.identity_squash,
            require_privileged_source_port=fss.require_privileged_source_port) for cidr in self.client_cidrs]
        self.export = oci.filestorage.Export(f"{prefix}-fss-export", oci.filestorage.ExportArgs(
            export_set_id=self.mount_target.export_set_id, file_system_id=self.file_system.id, path=fss.export_path,
            export_options=options), child)
        if args.prepare_directories:
            self.preparation_export = oci.filestorage.Export(f"{prefix}-fss-prepare-export", oci.filestorage.ExportArgs(
                export_set_id=self.mount_target.export_set_id, file_system_id=self.file_system.id,
                path=preparation_export_path(fss.export_path),
                export_options=[oci.filestorage.ExportExportOptionArgs(
                    source=args.subnet_cidrs[PREPARATION_ROLE], access="READ_WRITE", identity_squash="NONE",
                    require_privileged_source_port=True)]),
                pulumi.ResourceOptions(parent=self, depends_on=[self.export]))
            self.preparation_export_path = self.preparation_export.path

        # private_ip_ids is unknown until the mount target exists; the SDK then skips the invoke (result unknown).
        private_ip = oci.core.get_private_ip_output(private_ip_id=self.mount_target.private_ip_ids[0],
                                                    opts=pulumi.InvokeOutputOptions(parent=self))
        self.file_system_id = self.file_system.id
        self.mount_target_id = self.mount_target.id
        self.mount_target_ip = private_ip.ip_address
        self.export_path = self.export.path

        self.register_outputs({"fileSystemId": self.file_system_id, "mountTargetId": self.mount_target_id,
                               "mountTargetIp": self.mount_target_ip, "exportPath": self.export_path,
                               "requestedThroughput": throughput})
