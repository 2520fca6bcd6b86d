"""File Storage facts: mount target throughput tiers (FSS docs "Managing Mount Targets", "Mount Target
Performance" and "Updating Mount Target Performance"; checked 2026-11-30).

A mount target is created at 1 Gbps; the high-performance tiers are 20, 40 and 80 Gbps, each with a capacity
entitlement of as many TB, billed for at least 30 days once upgraded. High-performance mount targets count against
their own per-AD service limits (the Limits API's ``filesystem`` service; the pre-flight checks them).
"""

#: Mount target throughput tiers in Gbps (1 is the default tier).
FSS_THROUGHPUT_TIERS = (1, 20, 40, 80)
#: Capacity entitlement (TB) that comes with each high-performance tier.
FSS_CAPACITY_ENTITLEMENT_TB = {20: 20, 40: 40, 80: 80}
#: Minimum billing commitment of a high-performance mount target, in days.
FSS_HIGH_PERFORMANCE_COMMITMENT_DAYS = 30
#: The Limits API service of File Storage, and the per-AD limit counting mount targets.
FSS_LIMIT_SERVICE = "filesystem"
FSS_MOUNT_TARGET_LIMIT = "mount-target-count"

#: Private IP addresses a File Storage with Lustre file system takes in its subnet: "between 43 to 60 IP addresses
#: per 100TB depending on the performance tier selected" (Oracle Architecture Center, "Deploy Lustre File Systems" /
#: "About Configuring Lustre Connectivity",
#: https://docs.oracle.com/en/solutions/deploy-lustre-file-systems/configuring-lustre-connectivity.html, checked
#: 2026-12-01). Which tier takes how many is not stated, nor the count below 100 TB: the upper figure is used for every
#: tier, per started 100 TB (a file system's address count cannot shrink as its capacity grows, so a smaller one needs
#: no more than a 100 TB one).
LUSTRE_SUBNET_IPS_PER_BLOCK = 60
#: The capacity block the figure above is given for: 100 TB, in GB (the service counts capacity in thousands of GB).
LUSTRE_SUBNET_BLOCK_GB = 100_000


def lustre_subnet_ips(capacity_gb: int) -> int:
    """Upper bound of the private IPs a Lustre file system of ``capacity_gb`` GB takes in its subnet:
    :data:`LUSTRE_SUBNET_IPS_PER_BLOCK` per started :data:`LUSTRE_SUBNET_BLOCK_GB` (31200 GB → 60, 166400 GB → 120).

    :raises ValueError: for a capacity that is not a positive whole number of GB.
    """
    if isinstance(capacity_gb, bool) or not isinstance(capacity_gb, int) or capacity_gb <= 0:
        raise ValueError(f"capacity_gb must be a positive whole number of GB, got {capacity_gb!r}")
    return -(-capacity_gb // LUSTRE_SUBNET_BLOCK_GB) * LUSTRE_SUBNET_IPS_PER_BLOCK

# --- Object Storage (checked 2026-12-01) ------------------------------------------------------------------------
# Sources: Object Storage docs "Object Storage Buckets" and "Object Names" (a bucket name: letters, digits, '-', '_'
# and '.', at most 255 characters, unique in the namespace); pulumi_oci 5.5.0 ``objectstorage/bucket.py`` (``name``
# characters; ``accessType`` NoPublicAccess by default; ``versioning`` Enabled/Disabled on create; ``storageTier``
# immutable; ``autoTiering`` Disabled by default); IAM docs "Details for Object Storage, Archive Storage, and Data
# Transfer" (resource types, the permissions of each verb, ``target.bucket.name`` and ``target.object.name`` with
# string or pattern values), "Conditions" (patterns /x*/; matching is case-insensitive), "Common Policies" ("Let users
# download objects from Object Storage buckets": read buckets + read objects); Object Storage docs "Using Your Own
# Keys in Vault for Server-Side Encryption" (``Allow service objectstorage-<region> to use keys ... where
# target.key.id = ...``).

#: A bucket name: letters, digits, '-', '_' and '.'; 1-255 characters.
BUCKET_NAME_PATTERN = r"^[A-Za-z0-9._-]{1,255}$"
#: Permissions each verb on ``objects`` holds (cumulative): ``use`` adds only OBJECT_OVERWRITE, so it cannot create a
#: new object; ``manage`` adds OBJECT_CREATE and, with it, OBJECT_DELETE and OBJECT_VERSION_DELETE.
OBJECT_PERMISSIONS_BY_VERB = {
    "inspect": ("OBJECT_INSPECT",),
    "read": ("OBJECT_INSPECT", "OBJECT_READ"),
    "use": ("OBJECT_INSPECT", "OBJECT_READ", "OBJECT_OVERWRITE"),
    "manage": ("OBJECT_INSPECT", "OBJECT_READ", "OBJECT_OVERWRITE", "OBJECT_CREATE", "OBJECT_DELETE",
               "OBJECT_RESTORE", "OBJECT_UPDATE_TIER", "OBJECT_VERSION_DELETE"),
}
#: What a checkpoint writer needs beyond ``read objects``: PutObject and the multipart upload calls need OBJECT_CREATE
#: for a new object name and OBJECT_OVERWRITE for an existing one. Nothing that deletes (OBJECT_DELETE,
#: OBJECT_VERSION_DELETE; AbortMultipartUpload needs OBJECT_DELETE), restores or re-tiers.
CHECKPOINT_WRITE_PERMISSIONS = ("OBJECT_CREATE", "OBJECT_OVERWRITE")
#: The Object Storage service principal of a region, which must ``use`` a bucket's Vault key.
OBJECT_STORAGE_SERVICE = "objectstorage-{region}"

#: StorageClasses every OKE cluster has: ``oci-bv`` (CSI block volumes; the default class from Kubernetes 1.24) and
#: ``oci`` (the deprecated FlexVolume plugin). Source: OKE docs "Provisioning PVCs on the Block Volume Service"
#: ("Two storage classes are defined by default, oci-bv for the CSI volume plugin and oci for the FlexVolume
#: plugin"), checked 2026-12-01. ``oci-bv-encrypted`` and FSS classes are not built in: a cluster has them only when
#: someone creates them.
OKE_BUILTIN_STORAGE_CLASSES = ("oci-bv", "oci")

# --- Block volumes and in-transit encryption (checked 2026-12-02) ------------------------------------------------
# Sources: oracle/oci-cloud-controller-manager pkg/csi/driver/bv_controller.go (snapshot of 2026-06-17, commit
# 1100ac36): the StorageClass parameter ``attachment-type`` takes ``iscsi`` or ``paravirtualized`` (anything else is
# refused at provisioning), a class without it attaches over iSCSI; ControllerPublishVolume reads the node's
# instance (getAttachmentOptions: ``LaunchOptions.IsPvEncryptionInTransitEnabled``) and refuses the attachment ("node
# ... has in transit encryption enabled, but attachment type is not paravirtualized") unless the class says
# ``paravirtualized``; it then attaches with in-transit encryption. OKE docs "Provisioning PVCs on the Block Volume
# Service" (the built-in ``oci-bv`` and ``oci`` classes name no attachment type; in-transit encryption needs a class
# with ``attachment-type: paravirtualized`` and node pools with ``isPvEncryptionInTransitEnabled``);
# oracle-quickstart/oci-kubernetes-monitoring#118 (the same refusal met with ``oci-bv``). The FlexVolume class
# ``oci`` attaches over iSCSI too (its plugin logs in to the iSCSI target; it has no attachment-type parameter).

#: The Block Volume CSI driver's provisioner name.
BLOCK_VOLUME_PROVISIONER = "blockvolume.csi.oraclecloud.com"
#: The StorageClass parameter choosing how the driver attaches a volume, and its values.
ATTACHMENT_TYPE_PARAMETER, ISCSI, PARAVIRTUALIZED = "attachment-type", "iscsi", "paravirtualized"
#: How each built-in class attaches its volumes: none names an attachment type, so every one is iSCSI.
OKE_BUILTIN_ATTACHMENT = {"oci-bv": ISCSI, "oci": ISCSI}
#: The block-volume StorageClass every stack creates (``oke_rdma.platform``): CSI block volumes attached
#: paravirtualized, so they attach to nodes with in-transit encryption (the node pools' default); volumes are
#: created in the consuming pod's availability domain (``WaitForFirstConsumer``). It is the cluster's default
#: class (the newest default wins when several are marked: Kubernetes docs "Storage Classes", default
#: StorageClass), so a claim that names no class gets it. Prometheus' volume uses it by default.
BLOCK_VOLUME_CLASS = "oke-rdma-bv"


def block_volume_attachment(name: str) -> str | None:
    """How the class ``name`` attaches block volumes (:data:`ISCSI` or :data:`PARAVIRTUALIZED`); None for a class
    that provisions no block volume (the stack's File Storage class)."""
    if name == BLOCK_VOLUME_CLASS:
        return PARAVIRTUALIZED
    return OKE_BUILTIN_ATTACHMENT.get(name)


def fss_storage_class(name_prefix: str) -> str:
    """The name of the File Storage StorageClass the stack declares (``oke_rdma.volumes``) when ``storage.fss`` is
    enabled: ``<namePrefix>-fss``."""
    return f"{name_prefix}-fss"
