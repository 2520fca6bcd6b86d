"""Data does not leave a protected bucket through an object copy: ``object-copy-stays-in-the-platform`` (MANDATORY,
stack).

An ``oci:ObjectStorage/storageObject:StorageObject`` with ``sourceUriDetails`` is not an upload but a server-side
copy (OCI's CopyObject): Object Storage reads the source object (any region, any namespace the caller may read) and
writes it into the destination bucket — the same effect as the ``ReplicationPolicy`` the catalogue refuses, one
object at a time. The class "a resource that copies or moves a protected store's data elsewhere" and where each
member is handled:

==================================================================  ===========================================
member (pulumi_oci 5.5.0)                                          handled by
==================================================================  ===========================================
``objectstorage.StorageObject`` ``source_uri_details`` (copy)       this rule
``objectstorage.ReplicationPolicy`` (bucket replication)           catalogue: refused
``objectstorage.Preauthrequest`` (a bearer URL to objects)         ``no-public-endpoints``: refused always
``filestorage.Replication`` (file system to another)               catalogue: refused
``filestorage.FileSystem`` ``source_snapshot_id`` (clone)           ``fs-not-cloned``
``lustre.FileStorageObjectStorageLink`` (Lustre ↔ bucket sync)      catalogue: refused (``oci:Lustre`` module)
``core`` volume/boot-volume backups, clones, cross-region copies    catalogue: refused (``oci:Core`` module)
Data Transfer (appliances, disks)                                  no pulumi_oci resource (the SDK has none)
Service Connector Hub, Data Flow, Data Integration, GoldenGate     catalogue: refused (their modules)
==================================================================  ===========================================

The rule: a copy must land in a bucket this stack declares (a property dependency on ``bucket`` to an
``oci:ObjectStorage/bucket:Bucket`` of the stack, else its literal ``namespace`` and ``bucket`` equal to one's), so
the destination is judged by the bucket rules; and a copy whose source is a protected bucket of the stack (``protect``;
linked through ``sourceUriDetails``' dependency or its literal namespace and bucket) must land in a protected bucket.
Fail closed: an unknown destination, or an unknown source without a dependency, is refused. A ``StorageObject``
without ``sourceUriDetails`` (``content`` or ``source``: an upload from the program) is judged by its bucket.

Sources (checked 2026-12-02): pulumi_oci 5.5.0 ``objectstorage/storage_object.py`` (``source_uri_details``:
region, namespace, bucket, object — "Details of the source URI of the object in the cloud"),
``objectstorage/replication_policy.py``, ``lustre/file_storage_object_storage_link.py``; OCI Object Storage docs
"Copying Objects" (copies between regions and namespaces), "Replication"; pulumi_oci has no Data Transfer module
(the ``resource_modules`` table of pulumi_oci 5.5.0).
"""
from __future__ import annotations

from typing import Any, Optional

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import UNKNOWN, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, read

POLICY_NAME = "object-copy-stays-in-the-platform"
BUCKET = "oci:ObjectStorage/bucket:Bucket"
STORAGE_OBJECT = "oci:ObjectStorage/storageObject:StorageObject"


def _bucket(resources: list[Any], deps: list[Any], namespace: Any, name: Any) -> Any:
    """The stack's bucket named by ``deps`` or the literal ``namespace``/``name``; None when it is not the stack's,
    UNKNOWN when the name cannot be read."""
    linked = [d for d in deps if d.resource_type == BUCKET]
    if linked:
        return linked[0]
    if not isinstance(name, str) or not isinstance(namespace, str):
        return UNKNOWN
    for r in resources:
        if r.resource_type == BUCKET and read(r.props, "name") == name and read(r.props, "namespace") == namespace:
            return r
    return None


def _protected(bucket: Any) -> bool:
    return bucket not in (None, UNKNOWN) and bool(getattr(bucket.opts, "protect", False))


def copy_problem(obj: Any, resources: list[Any]) -> Optional[str]:
    """Why the object copy ``obj`` may take data out of the platform's protected buckets, or None."""
    source = read(obj.props, "sourceUriDetails")
    if source is None:
        return None  # an upload, judged by its bucket
    deps = obj.property_dependencies or {}
    dest = _bucket(resources, deps.get("bucket", []), read(obj.props, "namespace"), read(obj.props, "bucket"))
    where = f"bucket {read(obj.props, 'bucket')!r} of namespace {read(obj.props, 'namespace')!r}"
    if dest is UNKNOWN:
        return "copies an object into a bucket unknown during preview (from no bucket of this stack)"
    if dest is None:
        return (f"copies an object into {where}, which this stack does not declare: the copy lands where no rule "
                "judges who reads it")
    if source is UNKNOWN:
        src: Any = UNKNOWN
    else:
        src = _bucket(resources, deps.get("sourceUriDetails", []), read(source, "namespace"), read(source, "bucket"))
    if (src is UNKNOWN or _protected(src)) and not _protected(dest):
        shown = "an unknown source" if src is UNKNOWN else f"the protected bucket '{src.name}'"
        return f"copies an object from {shown} into the unprotected bucket '{dest.name}'"
    return None


def validate_object_copies(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Refuse object copies that take protected data out (see the module docstring)."""
    for obj in args.resources:
        if obj.resource_type != STORAGE_OBJECT:
            continue
        problem = copy_problem(obj, args.resources)
        if problem:
            report_violation(f"StorageObject '{obj.name}' (sourceUriDetails) {problem}: a server-side copy is "
                             "replication one object at a time. Copy into a protected bucket this stack declares, or "
                             "upload with content/source instead.", obj.urn)


object_copy_stays_in_the_platform = StackValidationPolicy(
    name=POLICY_NAME,
    description="An object copy (StorageObject sourceUriDetails) lands in a bucket of this stack, and a copy from a "
                "protected bucket in a protected bucket.",
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps="Point the StorageObject's namespace/bucket at a protected bucket this stack declares, or drop "
                      "sourceUriDetails.",
    tags=["data"],
    validate=validate_object_copies,
)

POLICIES = [object_copy_stays_in_the_platform]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: "fails closed: an unknown destination bucket, or an unknown source without a dependency, is refused",
}
