"""The Kubernetes side of shared storage: the FSS StorageClass and one static RWX volume per tenant that asked.

* ``StorageClass`` ``<prefix>-fss`` (provisioner ``fss.csi.oraclecloud.com``) for *dynamic* provisioning: every PVC of
  this class gets a new file system, exported through **our** mount target (``mountTargetOcid``) — a mount target the
  CSI driver would create itself carries no NSG of ours. Parameters: ``availabilityDomain`` (the full AD name: the
  driver matches it by suffix against the tenancy's ADs), ``mountTargetOcid``, ``compartmentOcid``,
  ``exportOptions`` (JSON: the workers and pods CIDRs, ``READ_WRITE``, our ``identitySquash`` and
  ``requirePrivilegedSourcePort``; without it FSS opens the export to 0.0.0.0/0 with no squash),
  ``encryptInTransit`` and ``kmsKeyOcid`` (from ``storage.fss``). No ``exportPath``: the driver then exports each new
  file system at ``/<volume name>``; a fixed path would collide on the second claim (export paths of one mount
  target must differ and not nest). ``reclaimPolicy: Retain`` so deleting a claim never deletes its file system.
* Per tenant with ``sharedStorage``: a ``PersistentVolume`` ``<prefix>-<namespace>-fss`` (cluster-scoped, so the
  stack's prefix and the tenant's namespace — both unique — make the name unique and stable) with
  ``csi.driver: fss.csi.oraclecloud.com`` and ``volumeHandle: <file system OCID>:<mount target IP>:<path>``, where
  ``<path>`` is the export path, or ``<export path>/<subPath>`` for a tenant with a ``subPath`` (the driver mounts
  ``<mount target IP>:<path>`` verbatim, so a sub-path is expressed in the handle; the directory must already exist
  on the file system). ``ReadWriteMany``, ``Retain``, ``storageClassName: ""`` (a static volume, never matched to a
  dynamic class), ``volumeAttributes.encryptInTransit: "true"`` with in-transit TLS, and a ``claimRef`` to its
  claim; and a ``PersistentVolumeClaim`` ``fss-shared`` in the tenant's namespace with ``volumeName`` set to that
  volume — bound both ways, so no other claim can take the volume and the claim takes no other volume.

Every resource uses the explicit Kubernetes provider of the cluster and depends on what it needs (the claim on its
namespace). Sources: OKE docs "Provisioning PVCs on the File Storage Service" (static PV volumeHandle, StorageClass
parameters, in-transit encryption); oracle/oci-cloud-controller-manager ``pkg/csi/driver/fss_controller.go`` and
``fss_node.go`` (parameter parsing, default export path, how the handle is mounted); Kubernetes docs "Persistent
Volumes" (reserving a PersistentVolume with ``claimRef``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from oke_rdma.config import Fss, SharedStorage

FSS_CSI_DRIVER = "fss.csi.oraclecloud.com"
#: The claim every tenant that asked for shared storage gets in its namespace.
CLAIM_NAME = "fss-shared"


def volume_path(export_path: str, sub_path: Optional[str]) -> str:
    """The NFS path a tenant's volume mounts: the export path, or ``<export path>/<subPath>``."""
    return f"{export_path}/{sub_path}" if sub_path else export_path


def volume_handle(file_system_id: str, mount_target_ip: str, path: str) -> str:
    """The FSS CSI static volume handle ``<file system OCID>:<mount target IP>:<path>``."""
    return f"{file_system_id}:{mount_target_ip}:{path}"


def export_options_json(cidrs: Sequence[str], identity_squash: str, privileged_port: bool) -> str:
    """The StorageClass ``exportOptions`` parameter: one FSS ClientOptions entry per client CIDR, as JSON."""
    return json.dumps([{"source": c, "requirePrivilegedSourcePort": privileged_port, "access": "READ_WRITE",
                        "identitySquash": identity_squash} for c in cidrs], separators=(",", ":"))


@dataclass(frozen=True)
class TenantShare:
    """A tenant's share of the file system: its ``namespace`` (where the claim goes) and its
    :class:`oke_rdma.config.SharedStorage` (``subPath`` below the export, ``capacity`` like ``1Ti``)."""

    namespace: str
    storage: SharedStorage


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
    :param client_cidrs: the export's client CIDRs (workers, pods), for the StorageClass export options.
    :param name_prefix: prefix of the StorageClass and volume names (default ``okerdma``).
    :raises ValueError: a share whose namespace is not in ``namespaces``, naming it.
    """

    def __init__(self, compartment_id: str, fss: Fss, shares: Mapping[str, TenantShare],
                 provider: pulumi.ProviderResource, namespaces: Mapping[str, pulumi.Resource],
                 file_system_id: pulumi.Input[str], mount_target_id: pulumi.Input[str],
                 mount_target_ip: pulumi.Input[str], export_path: pulumi.Input[str], availability_domain: str,
                 client_cidrs: Sequence[pulumi.Input[str]], *, name_prefix: str = "okerdma"):
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


class SharedVolumes(pulumi.ComponentResource):
    """The FSS StorageClass and the per-tenant static volume and claim (type ``oke-rdma:volumes:SharedVolumes``).

    See the module docstring for what is built and why. Attributes: ``storage_class`` (the ``StorageClass``),
    ``storage_class_name`` (str), ``volumes`` / ``claims`` (tenant → ``PersistentVolume`` /
    ``PersistentVolumeClaim``), ``claim_names`` (tenant → claim name), ``volume_handles`` (tenant →
    ``Output[str]``).

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
        self.storage_class_name = f"{prefix}-fss"
        self.storage_class = k8s.storage.v1.StorageClass(self.storage_class_name, k8s.storage.v1.StorageClassInitArgs(
            metadata=k8s.meta.v1.ObjectMetaArgs(name=self.storage_class_name, labels=labels),
            provisioner=FSS_CSI_DRIVER, parameters=parameters, reclaim_policy="Retain",
            volume_binding_mode="Immediate"), k8s_opts())

        self.volumes: dict[str, k8s.core.v1.PersistentVolume] = {}
        self.claims: dict[str, k8s.core.v1.PersistentVolumeClaim] = {}
        self.claim_names: dict[str, str] = {}
        self.volume_handles: dict[str, pulumi.Output[str]] = {}
        for tenant, share in args.shares.items():
            ns = share.namespace
            pv_name = f"{prefix}-{ns}-fss"
            sub_path = share.storage.sub_path
            handle = pulumi.Output.all(args.file_system_id, args.mount_target_ip, args.export_path).apply(
                lambda v, sp=sub_path: volume_handle(v[0], v[1], volume_path(v[2], sp)))
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
                    metadata=k8s.meta.v1.ObjectMetaArgs(name=CLAIM_NAME, namespace=ns, labels=labels),
                    spec=k8s.core.v1.PersistentVolumeClaimSpecArgs(
                        access_modes=["ReadWriteMany"], storage_class_name="", volume_name=pv_name,
                        resources=k8s.core.v1.VolumeResourceRequirementsArgs(requests={"storage": capacity}))),
                k8s_opts([args.namespaces[ns], volume]))
            self.volumes[tenant], self.claims[tenant] = volume, claim
            self.claim_names[tenant] = CLAIM_NAME
            self.volume_handles[tenant] = handle

        self.register_outputs({"storageClass": self.storage_class_name, "claims": self.claim_names,
                               "volumeHandles": self.volume_handles})
