"""Provider options never erase what protection and versioning keep: ``provider-options-keep-protected-data``
(MANDATORY, stack).

``protect`` stops Pulumi from deleting a resource, and a versioned bucket keeps every object's previous versions; a
few provider inputs tell the provider to go further when it deletes or replaces a resource, and so erase exactly that
history. The class "an option of the provider that deletes beyond the resource itself, set on protected data", in
pulumi_oci 5.5.0 (every ``delete*``, ``*override*``, ``preserve*``, ``purge*`` input of the ObjectStorage, FileStorage,
Lustre and Core storage resources read), and where each member is handled:

=================================================================  ==================================================
member                                                             handled by
=================================================================  ==================================================
``objectstorage.StorageObject`` ``delete_all_object_versions``      this rule: refused in a protected bucket, a bucket
(on delete or replace, every version of the key is deleted)        the stack does not declare, or one it cannot tell
``filestorage.FileSystem`` ``is_lock_override`` on a protected     this rule: a delete overrides the resource's
file system                                                        delete lock, the guard that outlives ``protect``
``filestorage.Snapshot`` ``is_lock_override`` on a snapshot of a   this rule (a snapshot is the file system's
protected file system                                              history, as versions are a bucket's)
``objectstorage.ReplicationPolicy``                                catalogue: refused (replication at all)
``delete_object_in_destination_bucket``
``objectstorage.ObjectLifecyclePolicy`` DELETE rules                ``bucket-lifecycle-keeps-protected-data``
``objectstorage.Bucket`` ``versioning`` Suspended                  ``bucket-protected-data-versioned``
``core.Volume`` ``block_volume_replicas_deletion``,                catalogue: block volumes and volume groups are
``core.VolumeGroup`` ``preserve_volume_replica``                   refused
``core.Instance`` ``preserve_boot_volume``,                        not protected data: an instance's disks (nodes
``preserve_data_volumes_created_at_launch``                        are rebuilt from images)
=================================================================  ==================================================

A value that is not a literal boolean (unknown during preview, text) counts as set (fail closed). A StorageObject's
bucket is followed through its ``bucket`` property dependency, else matched by its literal ``namespace`` and
``bucket``; a snapshot's file system through ``fileSystemId`` (dependency, else the file system's known ``id``).

Sources (checked 2026-12-02): pulumi_oci 5.5.0 ``objectstorage/storage_object.py`` (``delete_all_object_versions``:
"a boolean to delete all object versions for an object in a bucket that has or ever had versioning enabled"),
``filestorage/file_system.py`` and ``snapshot.py`` (``is_lock_override``, ``locks``),
``objectstorage/replication_policy.py``, ``core/volume.py``, ``core/volume_group.py``, ``core/instance.py``; OCI docs
"Resource Locking" (a delete lock stops deletion unless the request overrides it), Object Storage docs "Object
Versioning".
"""
from __future__ import annotations

from typing import Any, Optional

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy

if __package__:  # imported as the package `policies.security`
    from ._rules import UNKNOWN, read
    from .object_copies import _bucket
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, read
    from object_copies import _bucket

POLICY_NAME = "provider-options-keep-protected-data"
STORAGE_OBJECT = "oci:ObjectStorage/storageObject:StorageObject"
FILE_SYSTEM = "oci:FileStorage/fileSystem:FileSystem"
SNAPSHOT = "oci:FileStorage/snapshot:Snapshot"


def _set(value: Any) -> Optional[str]:
    """How an erasing flag reads: None when off (absent or literally false), else how it is set."""
    if value is None or value is False:
        return None
    if value is True:
        return "true"
    return "unknown during preview" if value is UNKNOWN else f"{value!r} (not a boolean)"


def _protected(resource: Any) -> bool:
    return bool(getattr(getattr(resource, "opts", None), "protect", False))


def object_problem(obj: Any, resources: list[Any]) -> Optional[str]:
    flag = _set(read(obj.props, "deleteAllObjectVersions"))
    if flag is None:
        return None
    deps = (obj.property_dependencies or {}).get("bucket", [])
    bucket = _bucket(resources, deps, read(obj.props, "namespace"), read(obj.props, "bucket"))
    what = f"deleteAllObjectVersions {flag}: deleting or replacing it deletes every version of its key"
    if bucket is UNKNOWN:
        return f"has {what}, in a bucket unknown during preview"
    if bucket is None:
        return (f"has {what}, in bucket {read(obj.props, 'bucket')!r}, which this stack does not declare (it may be "
                "a protected one)")
    if _protected(bucket):
        return f"has {what}, in the protected bucket '{bucket.name}', the versions that keep its data"
    return None


def _file_system_of(snapshot: Any, resources: list[Any]) -> Any:
    linked = [d for d in (snapshot.property_dependencies or {}).get("fileSystemId", [])
              if d.resource_type == FILE_SYSTEM]
    if linked:
        by_urn = {r.urn: r for r in resources}
        return by_urn.get(linked[0].urn, linked[0])
    ocid = read(snapshot.props, "fileSystemId")
    if not isinstance(ocid, str):
        return UNKNOWN
    return next((r for r in resources if r.resource_type == FILE_SYSTEM and read(r.props, "id") == ocid), None)


def lock_problem(resource: Any, resources: list[Any]) -> Optional[str]:
    flag = _set(read(resource.props, "isLockOverride"))
    if flag is None:
        return None
    what = f"isLockOverride {flag}: its deletion overrides the delete lock"
    if resource.resource_type == FILE_SYSTEM:
        return f"has {what} of a file system this stack protects" if _protected(resource) else None
    fs = _file_system_of(resource, resources)
    if fs is UNKNOWN:
        return f"has {what}, on a snapshot of a file system unknown during preview"
    if fs is None:
        return f"has {what}, on a snapshot of a file system this stack does not declare (it may be a protected one)"
    return f"has {what}, on a snapshot of the protected file system '{fs.name}'" if _protected(fs) else None


def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``provider-options-keep-protected-data`` (see the module docstring)."""
    resources = list(args.resources)
    for r in resources:
        if r.resource_type == STORAGE_OBJECT:
            problem = object_problem(r, resources)
            fix = "remove deleteAllObjectVersions (a deleted object leaves its versions, which lifecycle rules age)"
        elif r.resource_type in (FILE_SYSTEM, SNAPSHOT):
            problem = lock_problem(r, resources)
            fix = "remove isLockOverride (remove the lock itself, reviewed, when the data is really to go)"
        else:
            continue
        if problem:
            report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}' {problem}; {fix}.", r.urn)


provider_options_keep_protected_data = StackValidationPolicy(
    name=POLICY_NAME,
    description=("No provider option erases what protection and versioning keep: deleteAllObjectVersions on an object "
                 "of a protected (or unknown) bucket, isLockOverride on a protected file system or its snapshots."),
    validate=validate,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Remove deleteAllObjectVersions from objects of protected buckets and isLockOverride from "
                       "protected file systems and their snapshots. Source: pulumi_oci StorageObject, FileSystem, "
                       "Snapshot; OCI docs \"Resource Locking\", \"Object Versioning\"."),
    tags=["storage", "data"],
)

POLICIES = [provider_options_keep_protected_data]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: ("fails closed: an unknown or non-boolean flag counts as set; an unknown bucket or file system, or "
                  "one this stack does not declare, counts as protected"),
}
