"""Deleting a claim never deletes protected storage: ``volume-reclaim-keeps-protected-storage`` (MANDATORY, stack).

A PersistentVolume's ``persistentVolumeReclaimPolicy`` says what happens to its storage when its claim is deleted:
``Retain`` keeps it, ``Delete`` has the volume's CSI driver delete the storage asset the volume names, ``Recycle``
scrubs it (``rm -rf`` of the volume's contents by a recycler pod; deprecated, still served for NFS and hostPath).
OCI's CSI drivers delete by the OCID the volume handle carries: the FSS driver the file system of
``<file system OCID>:<mount target IP>:<export path>`` (and its export), the Lustre driver the Lustre file system of
its handle, the block volume driver the volume. A static PersistentVolume written by a stack for storage it
``protect``s, with ``Delete`` (and the ``pv.kubernetes.io/provisioned-by`` annotation the external provisioner checks,
which any writer may set), therefore turns one ``kubectl delete pvc`` by a tenant into the deletion of the file
system ``protect`` keeps from Pulumi — or, with ``Recycle`` on its NFS export, into the erasure of its files.

The class "a Kubernetes path that deletes OCI storage" and where each member is handled:

===========================================================  ===================================================
member                                                       handled by
===========================================================  ===================================================
PersistentVolume ``Delete``/``Recycle`` (CSI, NFS, any       this rule
source), its ``*List`` items, objects a Helm release renders
``PersistentVolumePatch`` setting ``Delete``/``Recycle`` on  this rule (the live volume's storage cannot be
a live volume                                                seen: refused)
KServe ``LocalModelNodeGroup.spec.persistentVolumeSpec``     this rule (the volume its controller creates)
StorageClass ``reclaimPolicy: Delete``                       not a path: each claim gets a new file system or
                                                             volume the driver created and deletes (the FSS
                                                             driver deletes a mount target only when it created
                                                             it: ``isDeleteMountTarget`` tag)
VolumeSnapshotContent ``deletionPolicy: Delete``             catalogue: ``snapshot.storage.k8s.io`` is not placed,
                                                             so refused
OCI Service Operator / other controllers of OCI resources    catalogue: their API groups are not placed: refused
===========================================================  ===================================================

The rule: a PersistentVolume (or patch, list item, rendered object, KServe volume spec) whose reclaim policy is not
``Retain`` — ``Delete``, ``Recycle``, any other value, or unknown during preview — passes only when the storage it
names is the stack's own and unprotected: it reaches storage resources of this stack (a property dependency of the
volume on an ``oci:FileStorage`` file system, mount target or export, a Lustre file system, a block or boot volume;
or a literal OCID in its spec equal to one's ``id``), an export or mount target counting with the file systems it
exports, and none of them is ``protect``ed. Storage the stack does not declare, or cannot tell, may be protected
elsewhere and is refused (fail closed); a patch is always refused (it targets a live volume whose storage this stack
cannot see). An absent policy is ``Retain`` for a volume created by hand (Kubernetes docs "Persistent Volumes").

Sources (checked 2026-12-02): Kubernetes docs "Persistent Volumes" (Reclaiming: Retain, Delete, Recycle; a
manually created PersistentVolume defaults to Retain), "Change the Reclaim Policy of a PersistentVolume";
kubernetes-csi external-provisioner (deletes only volumes annotated ``pv.kubernetes.io/provisioned-by`` with its
driver); oracle/oci-cloud-controller-manager@1100ac3 ``pkg/csi/driver/fss_controller.go`` (``DeleteVolume``: the
file system OCID of the handle, its export; the mount target only with the ``isDeleteMountTarget`` tag),
``lustre_controller.go`` (``DeleteVolume``: the Lustre file system of the handle), ``bv_controller.go``.
"""
from __future__ import annotations

import re
from typing import Any, Iterable

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy

if __package__:  # imported as the package `policies.security`
    from ._objects import with_derived
    from ._rules import UNKNOWN, read
    from .pod_security import persistent_volume_spec
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import with_derived
    from _rules import UNKNOWN, read
    from pod_security import persistent_volume_spec

POLICY_NAME = "volume-reclaim-keeps-protected-storage"
FILE_SYSTEM = "oci:FileStorage/fileSystem:FileSystem"
MOUNT_TARGET = "oci:FileStorage/mountTarget:MountTarget"
EXPORT = "oci:FileStorage/export:Export"
LUSTRE = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"
#: OCI storage a PersistentVolume can name, and what deleting through it deletes.
STORAGE_TYPES = (FILE_SYSTEM, MOUNT_TARGET, EXPORT, LUSTRE, "oci:Core/volume:Volume",
                 "oci:Core/bootVolume:BootVolume")
_OCID = re.compile(r"ocid1\.[a-z0-9]+\.[a-z0-9-]*\.[a-z0-9-]*\.[a-z0-9]+", re.I)


def _deps(resource: Any) -> list[Any]:
    return [d for deps in (getattr(resource, "property_dependencies", None) or {}).values() for d in deps or []]


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif hasattr(value, "keys"):
        for key in list(value.keys()):
            yield from _strings(read(value, key))
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def reached_storage(resource: Any, spec: Any, resources: list[Any]) -> list[Any]:
    """The storage resources of the stack a volume names: its property dependencies and literal OCIDs, an export
    with its file system, a mount target with the file systems its exports serve."""
    storage = [r for r in resources if r.resource_type in STORAGE_TYPES]
    found = {d.urn: d for d in _deps(resource) if d.resource_type in STORAGE_TYPES}
    ocids = {m.group(0) for text in _strings(spec) for m in _OCID.finditer(text)}
    for r in storage:
        if isinstance(read(r.props, "id"), str) and read(r.props, "id") in ocids:
            found.setdefault(r.urn, r)
    by_urn = {r.urn: r for r in resources}
    for r in list(found.values()):
        if r.resource_type == EXPORT:
            for d in _deps(r):
                if d.resource_type == FILE_SYSTEM:
                    found.setdefault(d.urn, by_urn.get(d.urn, d))
        if r.resource_type == MOUNT_TARGET:
            for export in (e for e in resources if e.resource_type == EXPORT
                           and r.urn in {d.urn for d in _deps(e)}):
                for d in _deps(export):
                    if d.resource_type == FILE_SYSTEM:
                        found.setdefault(d.urn, by_urn.get(d.urn, d))
    return list(found.values())


def _protected(resource: Any) -> bool:
    return bool(getattr(getattr(resource, "opts", None), "protect", False))


def reclaim_problem(resource: Any, resources: list[Any]) -> str | None:
    """Why deleting the claim of the volume ``resource`` writes may delete or erase protected storage; None when it
    may not (its policy is Retain, or its storage is this stack's own and unprotected)."""
    spec = persistent_volume_spec(resource.resource_type, resource.props)
    if spec is None:
        return None
    policy = read(spec, "persistentVolumeReclaimPolicy")
    if policy is None or policy == "Retain":
        return None
    shown = "unknown during preview" if policy is UNKNOWN else repr(policy)
    if resource.resource_type.endswith("Patch"):
        return (f"sets persistentVolumeReclaimPolicy {shown} on a live PersistentVolume whose storage this stack "
                "cannot see: deleting its claim would delete or erase that storage")
    reached = reached_storage(resource, spec, resources)
    protected = [r for r in reached if _protected(r)]
    if protected:
        names = ", ".join(f"'{r.name}'" for r in protected)
        return (f"has persistentVolumeReclaimPolicy {shown} on storage this stack protects ({names}): deleting its "
                "claim makes the CSI driver delete it (or Recycle erase its files)")
    if not reached:
        return (f"has persistentVolumeReclaimPolicy {shown} on storage that is not a resource of this stack (or is "
                "unknown during preview): it may be protected elsewhere, and deleting the claim would delete it")
    return None


def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``volume-reclaim-keeps-protected-storage`` (see the module docstring)."""
    resources = list(args.resources)
    for r in with_derived(resources):
        problem = reclaim_problem(r, resources)
        if problem:
            report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}' {problem}. Set "
                             "persistentVolumeReclaimPolicy: Retain (delete storage with the resource that owns it).",
                             r.urn)


volume_reclaim_keeps_protected_storage = StackValidationPolicy(
    name=POLICY_NAME,
    description=("A PersistentVolume whose claim's deletion would delete or erase its storage (reclaim policy Delete "
                 "or Recycle) names only unprotected storage of this stack."),
    validate=validate,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Set persistentVolumeReclaimPolicy: Retain on static PersistentVolumes of shared or protected "
                       "storage; Delete only volumes of storage this stack declares unprotected. Source: Kubernetes "
                       "docs \"Persistent Volumes\" (Reclaiming); oci-cloud-controller-manager CSI DeleteVolume."),
    tags=["storage", "data", "kubernetes"],
)

POLICIES = [volume_reclaim_keeps_protected_storage]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: ("fails closed: an unknown reclaim policy counts as Delete; storage the volume names that is not a "
                  "resource of this stack (or is unknown) counts as protected; a patch's storage cannot be seen"),
}
