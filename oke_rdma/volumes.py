"""The Kubernetes side of shared storage: the FSS StorageClass and one static RWX volume per tenant that asked.

* ``StorageClass`` ``<prefix>-fss`` (provisioner ``fss.csi.oraclecloud.com``) for *dynamic* provisioning: every PVC of
  this class gets a new file system, exported through **our** mount target (``mountTargetOcid``) — a mount target the
  CSI driver would create itself carries no NSG of ours. Parameters: ``availabilityDomain`` (the full AD name: the
  driver matches it by suffix against the tenancy's ADs), ``mountTargetOcid``, ``compartmentOcid``,
  ``exportOptions`` (JSON: the workers CIDR, ``READ_WRITE``, our ``identitySquash`` and
  ``requirePrivilegedSourcePort``; without it FSS opens the export to 0.0.0.0/0 with no squash),
  ``encryptInTransit`` and ``kmsKeyOcid`` (from ``storage.fss``). No ``exportPath``: the driver then exports each new
  file system at ``/<volume name>``; a fixed path would collide on the second claim (export paths of one mount
  target must differ and not nest). ``reclaimPolicy: Retain`` so deleting a claim never deletes its file system.
* Per tenant with ``sharedStorage``: a ``PersistentVolume`` ``<prefix>-<namespace>-fss`` (cluster-scoped, so the
  stack's prefix and the tenant's namespace — both unique — make the name unique and stable) with
  ``csi.driver: fss.csi.oraclecloud.com`` and ``volumeHandle: <file system OCID>:<mount target IP>:<export path>``.
  The handle always names the export path itself: the driver mounts ``<mount target IP>:<path>`` verbatim and its
  controller looks an export up by exactly that path (``ValidateVolumeCapabilities``: "ExportPath mis-match"), and
  FSS documents an export path as a name for the file system, "unrelated to any path within the file system" (FSS
  docs "Paths in File Systems") — nowhere that a client may mount a directory below it. A tenant's ``subPath`` is
  therefore a directory the tenant's pods mount with ``volumeMounts[].subPath`` (Kubernetes bind-mounts it from the
  volume), named on the claim. ``ReadWriteMany``, ``Retain``, ``storageClassName: ""`` (a static volume, never
  matched to a dynamic class), ``volumeAttributes.encryptInTransit: "true"`` with in-transit TLS, and a
  ``claimRef`` to its claim; and a ``PersistentVolumeClaim`` ``fss-shared`` in the tenant's namespace with
  ``volumeName`` set to that volume — bound both ways, so no other claim can take the volume and the claim takes
  no other volume. ``capacity`` is written on the volume only (mutable: a larger value is an in-place update); the
  claim requests the nominal :data:`~oke_rdma.preparation.STATIC_CLAIM_REQUEST` (a static claim cannot be resized,
  so its request never follows the capacity). The claim's annotations ``okerdma.io/sub-path``, ``okerdma.io/uid``, ``okerdma.io/gid`` say
  which directory is the tenant's and which non-root IDs its pods run as (``securityContext.runAsUser`` /
  ``runAsGroup``): root is squashed to 65534 on the export, so only the owner can write.
* Squash-safe preparation (``storage.fss.prepareDirectories``, default on): a ``Namespace`` ``oke-rdma-storage``
  (Pod Security ``baseline``: the Job runs as root with the CHOWN, DAC_OVERRIDE and FOWNER capabilities), a
  ``PersistentVolume`` ``<prefix>-fss-prepare`` of the **preparation export** (``oke_rdma.storage``: workers subnet
  only, ``identitySquash: NONE``) bound to a claim there, and a one-off ``Job`` ``fss-prepare-<hash>`` that runs
  ``oke_rdma/files/fss_prepare.py``: each tenant's ``subPath`` directory owned by its UID:GID, mode ``2770``
  (setgid: files keep the tenant's group), and, when a tenant shares the export's top directory, that directory
  mode ``1777`` (every sharing tenant may create, only an owner may delete). ``<hash>`` is a digest of the plan and
  the script, so a new tenant or ID gives a new Job; every tenant's claim waits for it, so no pod mounts a directory
  before it exists with its owner.

Every resource uses the explicit Kubernetes provider of the cluster and depends on what it needs (the claim on its
namespace). Sources: OKE docs "Provisioning PVCs on the File Storage Service" (static PV volumeHandle, StorageClass
parameters, in-transit encryption); oracle/oci-cloud-controller-manager ``pkg/csi/driver/fss_controller.go`` and
``fss_node.go`` (parameter parsing, default export path, how the handle is mounted); Kubernetes docs "Persistent
Volumes" (reserving a PersistentVolume with ``claimRef``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from oke_rdma.config import Fss, SharedStorage
from oke_rdma.config.storage import PREPARATION_NAMESPACE
from oke_rdma.facts.storage import fss_storage_class
from oke_rdma.preparation import (PREPARE_SCRIPT, SHARED_TOP_MODE, STATIC_CLAIM_IGNORE,  # noqa: F401 - re-exported
                                  STATIC_CLAIM_REQUEST, TENANT_DIR_MODE, preparation_job, preparation_job_name,
                                  preparation_namespace, tenant_directory)

FSS_CSI_DRIVER = "fss.csi.oraclecloud.com"
#: The claim every tenant that asked for shared storage gets in its namespace.
CLAIM_NAME = "fss-shared"


PREPARATION_CLAIM = "fss-prepare"
ANNOTATION_PREFIX = "okerdma.io"


def volume_handle(file_system_id: str, mount_target_ip: str, path: str) -> str:
    """The FSS CSI static volume handle ``<file system OCID>:<mount target IP>:<path>``."""
    return f"{file_system_id}:{mount_target_ip}:{path}"


def export_options_json(cidrs: Sequence[str], identity_squash: str, privileged_port: bool) -> str:
    """The StorageClass ``exportOptions`` parameter: one FSS ClientOptions entry per client CIDR, as JSON."""
    return json.dumps([{"source": c, "requirePrivilegedSourcePort": privileged_port, "access": "READ_WRITE",
                        "identitySquash": identity_squash} for c in cidrs], separators=(",", ":"))


@dataclass(frozen=True)
class TenantShare:
    """A tenant's share of the file system: its ``namespace`` (where the claim goes), its
    :class:`oke_rdma.config.SharedStorage` (``subPath`` below the export, ``capacity`` like ``1Ti``) and the
    non-root ``uid``/``gid`` its directory belongs to and its pods write as
    (``oke_rdma.config.checks.storage.tenant_ids``)."""

    namespace: str
    storage: SharedStorage
    uid: int
    gid: int


def preparation_plan(shares: Mapping[str, TenantShare]) -> list[dict[str, Any]]:
    """What the preparation Job does: ``[{path, uid, gid, mode}]`` (``path`` relative to the file system's top
    directory, ``""`` for the top itself), tenants in the given order; the top directory first when some tenant has
    no ``subPath``."""
    plan: list[dict[str, Any]] = []
    if any(share.storage.sub_path is None for share in shares.values()):
        plan.append({"path": "", "uid": 0, "gid": 0, "mode": SHARED_TOP_MODE})
    for share in shares.values():
        if share.storage.sub_path is not None:
            plan.append(tenant_directory(share.storage.sub_path, share.uid, share.gid))
    return plan


class SharedVolumesArgs:
    """Inputs of :class:`SharedVolumes`.

    :param compartment_id: the compartment of file systems the StorageClass provisions.
    :param fss: the file system's config (:class:`oke_rdma.config.Fss`: export options, ``inTransitTls``,
        ``kmsKeyId``).
    :param shares: tenant → :class:`TenantShare` (only tenants that asked for shared storage).
    :param provider: the explicit Kubernetes provider of the OKE cluster.
    :param namespaces: namespace name → the ``Namespace`` resource (``Platform.namespaces``); claims depend on theirs.
    :param file_system_id: / :param mount_target_id: / :param mount_target_ip: / :param export_path: the FSS
        outputs (``Storage`` attributes).
    :param availability_domain: the AD of the file system and mount target (full name).
    :param client_cidrs: the export's client CIDRs (the workers subnet), for the StorageClass export options.
    :param name_prefix: prefix of the StorageClass and volume names (default ``okerdma``).
    :param preparation_export_path: the preparation export's path (``Storage.preparation_export_path``), or None
        when directories are not prepared by the platform.
    :param preparation_depends_on: what the preparation volume waits for (the preparation ``Export``).
    :raises ValueError: a share whose namespace is not in ``namespaces``, naming it.
    """

    def __init__(self, compartment_id: str, fss: Fss, shares: Mapping[str, TenantShare],
                 provider: pulumi.ProviderResource, namespaces: Mapping[str, pulumi.Resource],
                 file_system_id: pulumi.Input[str], mount_target_id: pulumi.Input[str],
                 mount_target_ip: pulumi.Input[str], export_path: pulumi.Input[str], availability_domain: str,
                 client_cidrs: Sequence[pulumi.Input[str]], *, name_prefix: str = "okerdma",
                 preparation_export_path: Optional[pulumi.Input[str]] = None,
                 preparation_depends_on: Sequence[pulumi.Resource] = ()):
        missing = [f"shares[{t!r}].namespace {s.namespace!r}" for t, s in shares.items() if s.namespace not in namespaces]
        if missing:
            raise ValueError(f"SharedVolumesArgs: {', '.join(missing)} not in namespaces; create the namespace first "
                             f"(Platform.namespaces)")
        self.compartment_id = compartment_id
        self.fss = fss
        self.shares = dict(shares)
        self.name_prefix = name_prefix
        self.provider = provider
        self.namespaces = namespaces
        self.file_system_id = file_system_id
        self.mount_target_id = mount_target_id
        self.mount_target_ip = mount_target_ip
        self.export_path = export_path
        self.availability_domain = availability_domain
        self.client_cidrs = list(client_cidrs)
        self.preparation_export_path = preparation_export_path
        self.preparation_depends_on = list(preparation_depends_on)


class SharedVolumes(pulumi.ComponentResource):
    """The FSS StorageClass and the per-tenant static volume and claim (type ``oke-rdma:volumes:SharedVolumes``).

    See the module docstring for what is built and why. Attributes: ``storage_class`` (the ``StorageClass``),
    ``storage_class_name`` (str), ``volumes`` / ``claims`` (tenant → ``PersistentVolume`` /
    ``PersistentVolumeClaim``), ``claim_names`` (tenant → claim name), ``volume_handles`` (tenant →
    ``Output[str]``), ``preparation_job`` (the ``Job`` or None), ``preparation_namespace`` (the ``oke-rdma-storage``
    ``Namespace`` or None; Lustre's preparation reuses it), ``preparation_plan`` (see :func:`preparation_plan`).

    """

    def __init__(self, name: str, args: SharedVolumesArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:volumes:SharedVolumes", name, None, opts)
        fss = args.fss
        prefix = args.name_prefix
        labels = {"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": prefix}

        def k8s_opts(depends_on: Optional[list[pulumi.Resource]] = None) -> pulumi.ResourceOptions:
            return pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=depends_on)

        parameters: dict[str, pulumi.Input[str]] = {
            "availabilityDomain": args.availability_domain,
            "compartmentOcid": args.compartment_id,
            "mountTargetOcid": args.mount_target_id,
            "exportOptions": pulumi.Output.all(*args.client_cidrs).apply(
                lambda cidrs: export_options_json(cidrs, fss.identity_squash, fss.require_privileged_source_port)),
            "encryptInTransit": "true" if fss.in_transit_tls else "false",
        }
        if fss.kms_key_id:
            parameters["kmsKeyOcid"] = fss.kms_key_id
        self.storage_class_name = fss_storage_class(prefix)
        self.storage_class = k8s.storage.v1.StorageClass(self.storage_class_name, k8s.storage.v1.StorageClassInitArgs(
            metadata=k8s.meta.v1.ObjectMetaArgs(name=self.storage_class_name, labels=labels),
            provisioner=FSS_CSI_DRIVER, parameters=parameters, reclaim_policy="Retain",
            volume_binding_mode="Immediate"), k8s_opts())

        self.preparation_plan = preparation_plan(args.shares)
        self.preparation_job: Optional[k8s.batch.v1.Job] = None
        self.preparation_namespace: Optional[k8s.core.v1.Namespace] = None
        if args.preparation_export_path is not None and self.preparation_plan:
            self.preparation_job = self._preparation(args, labels)
        claim_deps: list[pulumi.Resource] = [self.preparation_job] if self.preparation_job else []

        self.volumes: dict[str, k8s.core.v1.PersistentVolume] = {}
        self.claims: dict[str, k8s.core.v1.PersistentVolumeClaim] = {}
        self.claim_names: dict[str, str] = {}
        self.volume_handles: dict[str, pulumi.Output[str]] = {}
        for tenant, share in args.shares.items():
            ns = share.namespace
            pv_name = f"{prefix}-{ns}-fss"
            sub_path = share.storage.sub_path
            handle = pulumi.Output.all(args.file_system_id, args.mount_target_ip, args.export_path).apply(
                lambda v: volume_handle(v[0], v[1], v[2]))
            capacity = share.storage.capacity
            attributes = {"encryptInTransit": "true"} if fss.in_transit_tls else None
            volume = k8s.core.v1.PersistentVolume(pv_name, k8s.core.v1.PersistentVolumeInitArgs(
                metadata=k8s.meta.v1.ObjectMetaArgs(name=pv_name, labels={**labels, "okerdma.io/tenant": tenant}),
                spec=k8s.core.v1.PersistentVolumeSpecArgs(
                    capacity={"storage": capacity}, access_modes=["ReadWriteMany"], volume_mode="Filesystem",
                    persistent_volume_reclaim_policy="Retain", storage_class_name="",
                    claim_ref=k8s.core.v1.ObjectReferenceArgs(namespace=ns, name=CLAIM_NAME),
                    csi=k8s.core.v1.CSIPersistentVolumeSourceArgs(driver=FSS_CSI_DRIVER, volume_handle=handle,
                                                                   volume_attributes=attributes))),
                k8s_opts())
            claim = k8s.core.v1.PersistentVolumeClaim(f"{prefix}-{ns}-{CLAIM_NAME}",
                k8s.core.v1.PersistentVolumeClaimInitArgs(
                    metadata=k8s.meta.v1.ObjectMetaArgs(name=CLAIM_NAME, namespace=ns, labels=labels, annotations={
                        f"{ANNOTATION_PREFIX}/sub-path": sub_path or "", f"{ANNOTATION_PREFIX}/uid": str(share.uid),
                        f"{ANNOTATION_PREFIX}/gid": str(share.gid)}),
                    spec=k8s.core.v1.PersistentVolumeClaimSpecArgs(
                        access_modes=["ReadWriteMany"], storage_class_name="", volume_name=pv_name,
                        resources=k8s.core.v1.VolumeResourceRequirementsArgs(
                            requests={"storage": STATIC_CLAIM_REQUEST}))),
                pulumi.ResourceOptions.merge(k8s_opts([args.namespaces[ns], volume, *claim_deps]),
                                             pulumi.ResourceOptions(ignore_changes=list(STATIC_CLAIM_IGNORE))))
            self.volumes[tenant], self.claims[tenant] = volume, claim
            self.claim_names[tenant] = CLAIM_NAME
            self.volume_handles[tenant] = handle

        self.register_outputs({"storageClass": self.storage_class_name, "claims": self.claim_names,
                               "volumeHandles": self.volume_handles})

    def _preparation(self, args: SharedVolumesArgs, labels: dict[str, str]) -> k8s.batch.v1.Job:
        """The preparation namespace, volume, claim and one-off Job (see the module docstring and
        :mod:`oke_rdma.preparation`)."""
        prefix = args.name_prefix
        fss = args.fss
        opts = pulumi.ResourceOptions(parent=self, provider=args.provider)
        self.preparation_namespace = namespace = preparation_namespace(prefix, labels, opts)
        pv_name = f"{prefix}-fss-prepare"
        handle = pulumi.Output.all(args.file_system_id, args.mount_target_ip, args.preparation_export_path).apply(
            lambda v: volume_handle(v[0], v[1], v[2]))
        attributes = {"encryptInTransit": "true"} if fss.in_transit_tls else None
        volume = k8s.core.v1.PersistentVolume(pv_name, k8s.core.v1.PersistentVolumeInitArgs(
            metadata=k8s.meta.v1.ObjectMetaArgs(name=pv_name, labels=labels),
            spec=k8s.core.v1.PersistentVolumeSpecArgs(
                capacity={"storage": "1Gi"}, access_modes=["ReadWriteMany"], volume_mode="Filesystem",
                persistent_volume_reclaim_policy="Retain", storage_class_name="",
                claim_ref=k8s.core.v1.ObjectReferenceArgs(namespace=PREPARATION_NAMESPACE, name=PREPARATION_CLAIM),
                csi=k8s.core.v1.CSIPersistentVolumeSourceArgs(driver=FSS_CSI_DRIVER, volume_handle=handle,
                                                               volume_attributes=attributes))),
            pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=args.preparation_depends_on))
        claim = k8s.core.v1.PersistentVolumeClaim(f"{prefix}-{PREPARATION_CLAIM}",
            k8s.core.v1.PersistentVolumeClaimInitArgs(
                metadata=k8s.meta.v1.ObjectMetaArgs(name=PREPARATION_CLAIM, namespace=namespace.metadata.name,
                                                    labels=labels),
                spec=k8s.core.v1.PersistentVolumeClaimSpecArgs(
                    access_modes=["ReadWriteMany"], storage_class_name="", volume_name=pv_name,
                    resources=k8s.core.v1.VolumeResourceRequirementsArgs(requests={"storage": "1Gi"}))),
            pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=[namespace, volume]))
        return preparation_job("fss", name_prefix=prefix, plan=self.preparation_plan, image=fss.preparation_image,
                               claim_name=claim.metadata.name, namespace=namespace.metadata.name, labels=labels,
                               parent=self, provider=args.provider, depends_on=[claim])
