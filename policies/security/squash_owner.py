"""A squash identity never owns data: ``squash-identity-not-a-data-owner`` (MANDATORY, stack).

Root squash maps a client's root (``ROOT``) or every user (``ALL``) to one identity on the file system. When that
identity is root itself (UID 0 or GID 0) nothing is squashed; when it is the UID or GID that owns a tenant's data,
root on any client — any pod that runs as root, on any node that mounts the export — writes as that tenant, into the
tenant's ``2770`` directory. So the squash identity of

* an FSS export option (``oci:FileStorage/export:Export`` ``exportOptions[]`` with ``identitySquash`` ROOT or ALL:
  ``anonymousUid``/``anonymousGid``, 65534 when unset) and of the FSS CSI StorageClass's
  ``parameters.exportOptions``,
* a Lustre file system (``rootSquashConfiguration`` ROOT: ``squashUid``/``squashGid``)

must not be 0 nor an ID that owns tenant data in the stack: the ``okerdma.io/uid`` / ``okerdma.io/gid``
annotations oke-rdma writes on each tenant's shared claim (``fss-shared``, ``lustre-shared``: the IDs its directory
is owned by and its pods run as), and the ``runAsUser``, ``runAsGroup``, ``fsGroup`` and ``supplementalGroups`` of
every pod spec in the stack that mounts a PersistentVolumeClaim (it writes files the export then holds as those IDs).
Fail closed: an unknown squash ID (with squash on), export options or owner annotation is a violation.

Sources (checked 2026-12-02): FSS docs "Working with NFS Export Options" (identitySquash NONE | ROOT | ALL, squashed
users become anonymousUid/anonymousGid, default 65534); File Storage with Lustre docs "Creating a Lustre File
System" (squashUid/squashGid); pulumi_oci 5.5.0 ``filestorage/_inputs.py``, ``lustre/_inputs.py``; Kubernetes API
``PodSecurityContext``; oke_rdma ``volumes.py``/``lustre.py`` (the claim annotations).
"""
from __future__ import annotations

import json
from typing import Any, Iterator

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._pod_templates import pod_specs
    from ._rules import UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _pod_templates import pod_specs
    from _rules import UNKNOWN, elements, read

POLICY_NAME = "squash-identity-not-a-data-owner"
EXPORT = "oci:FileStorage/export:Export"
STORAGE_CLASS = "kubernetes:storage.k8s.io/v1:StorageClass"
LUSTRE = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"
PVC = "kubernetes:core/v1:PersistentVolumeClaim"
FSS_CSI_DRIVER = "fss.csi.oraclecloud.com"
ANONYMOUS_ID = 65534
UID_KEY, GID_KEY = "okerdma.io/uid", "okerdma.io/gid"


def _id(value: Any) -> Any:
    """An ID as an int; UNKNOWN for an unknown value; None when absent; the text itself when it is no number."""
    if value is UNKNOWN or value is None:
        return value
    if isinstance(value, bool):
        return repr(value)
    try:
        number = float(str(value).strip())
    except ValueError:
        return str(value)
    return int(number) if number.is_integer() else str(value)


def squash_identities(resource: Any) -> Iterator[tuple[str, Any, Any]]:
    """``(label, uid, gid)`` per squash a resource applies (UNKNOWN parts fail closed; uid/gid None: no squash)."""
    kind, props, name = resource.resource_type, resource.props, resource.name
    if kind == EXPORT:
        options = elements(read(props, "exportOptions"))
        if options is UNKNOWN:
            yield f"Export '{name}' exportOptions", UNKNOWN, UNKNOWN
            return
        for i, o in enumerate(options):
            squash = read(o, "identitySquash", default="ROOT")
            if squash is UNKNOWN or str(squash).upper() in ("ROOT", "ALL"):
                yield (f"Export '{name}' exportOptions[{i}]", UNKNOWN if squash is UNKNOWN else
                       _id(read(o, "anonymousUid", default=ANONYMOUS_ID)),
                       UNKNOWN if squash is UNKNOWN else _id(read(o, "anonymousGid", default=ANONYMOUS_ID)))
    elif kind == STORAGE_CLASS and read(props, "provisioner") == FSS_CSI_DRIVER:
        text = read(props, "parameters", "exportOptions")
        if text is UNKNOWN:
            yield f"StorageClass '{name}' parameters.exportOptions", UNKNOWN, UNKNOWN
            return
        try:
            entries = json.loads(text) if text else []
        except (TypeError, ValueError):
            entries = []  # the CSI driver refuses it; fss-export-no-internet-root names it
        for i, e in enumerate(entries if isinstance(entries, list) else []):
            if isinstance(e, dict) and str(e.get("identitySquash") or "ROOT").upper() in ("ROOT", "ALL"):
                yield (f"StorageClass '{name}' parameters.exportOptions[{i}]",
                       _id(e.get("anonymousUid", ANONYMOUS_ID)), _id(e.get("anonymousGid", ANONYMOUS_ID)))
    elif kind == LUSTRE:
        squash = read(props, "rootSquashConfiguration", "identitySquash")
        if squash is UNKNOWN or (isinstance(squash, str) and squash.upper() == "ROOT"):
            yield (f"Lustre file system '{name}' rootSquashConfiguration",
                   UNKNOWN if squash is UNKNOWN else _id(read(props, "rootSquashConfiguration", "squashUid",
                                                              default=ANONYMOUS_ID)),
                   UNKNOWN if squash is UNKNOWN else _id(read(props, "rootSquashConfiguration", "squashGid",
                                                              default=ANONYMOUS_ID)))


def _add(owners: dict[str, dict[Any, str]], kind: str, value: Any, who: str) -> None:
    value = _id(value)
    if value is not None:
        owners[kind].setdefault(value, who)


def data_owners(resources: list[Any]) -> dict[str, dict[Any, str]]:
    """``{"uid": {id: who}, "gid": {id: who}}``: the IDs that own tenant data in the stack (module docstring)."""
    owners: dict[str, dict[Any, str]] = {"uid": {}, "gid": {}}
    for r in resources:
        if r.resource_type == PVC:
            ns = read(r.props, "metadata", "namespace")
            who = f"claim '{read(r.props, 'metadata', 'name')}' in namespace '{ns}'"
            _add(owners, "uid", read(r.props, "metadata", "annotations", UID_KEY), who)
            _add(owners, "gid", read(r.props, "metadata", "annotations", GID_KEY), who)
            continue
        for where, spec in pod_specs(r.resource_type, r.props):
            volumes = elements(read(spec, "volumes"))
            if volumes is UNKNOWN or not any(read(v, "persistentVolumeClaim") is not None for v in volumes):
                continue
            who = f"{r.resource_type.rsplit(':', 1)[-1]} '{r.name}' ({where})"
            contexts = [read(spec, "securityContext")]
            for key in ("containers", "initContainers"):
                items = elements(read(spec, key))
                contexts += [] if items is UNKNOWN else [read(c, "securityContext") for c in items]
            for ctx in contexts:
                _add(owners, "uid", read(ctx, "runAsUser"), who)
                _add(owners, "gid", read(ctx, "runAsGroup"), who)
            pod_ctx = read(spec, "securityContext")
            _add(owners, "gid", read(pod_ctx, "fsGroup"), who)
            groups = elements(read(pod_ctx, "supplementalGroups"))
            for g in ([UNKNOWN] if groups is UNKNOWN else groups):
                _add(owners, "gid", g, who)
    return owners


def _problems(kind: str, value: Any, owners: dict[Any, str]) -> Iterator[str]:
    if value is UNKNOWN:
        yield f"its anonymous {kind.upper()} is unknown during preview"
    elif value == 0:
        yield f"it squashes to {kind.upper()} 0 (root): nothing is squashed"
    elif not isinstance(value, int):
        yield f"its anonymous {kind.upper()} {value!r} is not a number"
    elif value in owners:
        yield f"it squashes to {kind.upper()} {value}, which owns data ({owners[value]})"
    elif UNKNOWN in owners:
        yield f"an owner {kind.upper()} is unknown during preview ({owners[UNKNOWN]}), so it may be {value}"


def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``squash-identity-not-a-data-owner`` (see the module docstring)."""
    squashes = [(r, s) for r in args.resources if r.resource_type in (EXPORT, STORAGE_CLASS, LUSTRE)
                for s in squash_identities(r)]
    if not squashes:
        return
    owners = data_owners(args.resources)
    for resource, (label, uid, gid) in squashes:
        for why in [*_problems("uid", uid, owners["uid"]), *_problems("gid", gid, owners["gid"])]:
            report_violation(f"{label}: {why}; root on any client would act as that identity. Squash to an ID "
                             f"that owns nothing (65534, nobody).", resource.urn)


squash_identity_not_a_data_owner = StackValidationPolicy(
    name=POLICY_NAME,
    description=("The identity an FSS export or a Lustre file system squashes root (or every user) to is never root "
                 "nor an ID that owns tenant data in the stack."),
    validate=validate,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Leave anonymousUid/anonymousGid (squashUid/squashGid) at 65534 or set them to an ID no "
                       "tenant's directory or pod uses; give each tenant its own non-root UID/GID. Sources: FSS docs "
                       "Working with NFS Export Options; File Storage with Lustre docs Creating a Lustre File "
                       "System."),
    tags=["storage", "data"],
)

POLICIES = [squash_identity_not_a_data_owner]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: ("fails closed: an unknown squash setting, anonymous UID/GID or export options, or an unknown "
                  "owner ID of a tenant's claim or a claim-mounting pod, is a violation"),
}
