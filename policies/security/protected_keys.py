"""Protected data stays protected: the keys that encrypt it are not disabled or scheduled for deletion by the same
stack.

* ``protected-data-keys-kept`` (MANDATORY, stack): a store the stack protects (``protect``: an FSS file system, a
  Lustre file system, a bucket) encrypted with a Vault key of this stack (``kmsKeyId``: followed through its property
  dependency, else matched by id) may not have that key with ``desiredState: DISABLED`` or a ``timeOfDeletion``, a
  ``KeyVersion`` of it with a ``timeOfDeletion``, or its Vault with a ``timeOfDeletion``, nor the key or its vault
  restored from a backup (``restoreFromFile``, ``restoreFromObjectStore``, ``restoreTrigger``: a restore rolls it
  back, versions made since are lost): a disabled or deleted key makes the data unreadable for good — ``protect``
  stops the store's deletion, not its key's. Unknown values of those settings fail closed; so does a key whose vault
  cannot be told (no ``managementEndpoint`` dependency, an endpoint no vault's known endpoint matches while some
  vault's is unknown): every vault of the stack is then judged as its vault, and a key version whose key cannot be
  told as one of its versions. Vault replicas (``oci:Kms/vaultVerification``) are copies in another region: deleting
  a replica leaves the primary's keys, so they are not judged here.

Lifecycle rules that delete a protected bucket's objects or old versions (``oci:ObjectStorage/objectLifecyclePolicy``)
are ``bucket-lifecycle-keeps-protected-data``'s (``bucket_lifecycle``); replication is refused for every bucket by the
catalogue (``resource-type-catalogued``).

Sources (checked 2026-12-01): OCI Vault docs "Managing Keys" (disabling a key makes data encrypted with it
unreadable; deleting a key deletes every version, after a 7–30 day pending period), "Managing Vaults" (deleting a
vault deletes its keys); pulumi_oci 5.5.0 ``kms/key.py`` (``desired_state``, ``time_of_deletion``),
``kms/vault.py``, ``kms/key_version.py``; Pulumi docs "protect" (stops a resource's deletion only).
"""
from __future__ import annotations

from typing import Any, Iterator

import re

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, Severity, StackValidationArgs,
                           StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import UNKNOWN, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, read

POLICY_NAME = "protected-data-keys-kept"
KEY, KEY_VERSION, VAULT = "oci:Kms/key:Key", "oci:Kms/keyVersion:KeyVersion", "oci:Kms/vault:Vault"
#: Protected store types and the property that names their key.
STORES = {"oci:FileStorage/fileSystem:FileSystem": "kmsKeyId", "oci:ObjectStorage/bucket:Bucket": "kmsKeyId",
          "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem": "kmsKeyId"}
#: Settings of a Key or a Vault that roll it back to a backup (pulumi_oci 5.5.0 ``kms/key.py``, ``kms/vault.py``:
#: ``restore_from_file``, ``restore_from_object_store``, ``restore_trigger``): versions made since the backup are lost.
RESTORE = ("restoreFromFile", "restoreFromObjectStore", "restoreTrigger")
#: A Vault key OCID: ``ocid1.key.<realm>.[region][.future use].<unique>`` (OCI docs "Resource Identifiers"; keys use
#: the future-use part). The pack's copy of ``oke_rdma.schema._OCID_RE`` for ``key`` (a test keeps them equal).
KEY_OCID = r"^ocid1\.key\.oc[0-9]+\.[a-z0-9-]*(?:\.[a-z0-9]+)?\.[a-z0-9]+$"
BROUGHT = "broughtKeys"


def _set(value: Any) -> bool:
    """A setting present: a value, or unknown during preview (fails closed). ``False`` is not set."""
    return value is UNKNOWN or (value is not None and value is not False and value != "")


def _linked(store: Any, prop: str, candidates: list[Any]) -> list[Any]:
    deps = [d for d in (store.property_dependencies or {}).get(prop, []) if d.resource_type == KEY]
    if deps:
        return deps
    value = read(store.props, prop)
    if value is UNKNOWN:  # computed elsewhere (an invoke, a stack reference): any key of the stack may be it
        return candidates
    return [k for k in candidates if value is not None and read(k.props, "id") == value]


def _own_threats(r: Any, label: str) -> Iterator[str]:
    if _set(read(r.props, "timeOfDeletion")):
        yield f"{label} sets timeOfDeletion (scheduled for deletion)"
    for name in RESTORE:
        if _set(read(r.props, name)):
            yield f"{label} sets {name} (a restore rolls it back to a backup: versions made since are lost)"


def _vaults_of(key: Any, vaults: list[Any]) -> tuple[list[Any], bool]:
    """The vaults ``key`` may be in, and whether that is certain (its managementEndpoint named one of them)."""
    deps = [d for d in (key.property_dependencies or {}).get("managementEndpoint", []) if d.resource_type == VAULT]
    if deps:
        return deps, True
    endpoint = read(key.props, "managementEndpoint")
    if isinstance(endpoint, str) and endpoint:
        matched = [v for v in vaults if read(v.props, "managementEndpoint") == endpoint]
        if matched or all(isinstance(read(v.props, "managementEndpoint"), str) for v in vaults):
            return matched, True  # every vault's endpoint is known: the key is in none of them or in these
    return vaults, False  # cannot tell: every vault of the stack may hold it (fails closed)


def key_threats(key: Any, resources: list[Any]) -> Iterator[str]:
    """What disables, deletes or rolls back ``key`` (or its versions or vault) in the stack."""
    state = read(key.props, "desiredState")
    if state is UNKNOWN or (isinstance(state, str) and state.upper() == "DISABLED"):
        yield f"key '{key.name}' has desiredState {'unknown during preview' if state is UNKNOWN else state}"
    yield from _own_threats(key, f"key '{key.name}'")
    key_id = read(key.props, "id")
    for r in resources:
        if r.resource_type != KEY_VERSION or not _set(read(r.props, "timeOfDeletion")):
            continue
        deps = [d for d in (r.property_dependencies or {}).get("keyId", []) if d.resource_type == KEY]
        value = read(r.props, "keyId")
        if key in deps or (value not in (None, UNKNOWN) and value == key_id) or (
                not deps and value in (None, UNKNOWN)):
            yield f"key version '{r.name}' sets timeOfDeletion"
    vaults, certain = _vaults_of(key, [r for r in resources if r.resource_type == VAULT])
    for vault in vaults:
        for threat in _own_threats(vault, f"its vault '{vault.name}'" if certain else
                                   f"vault '{vault.name}' (which may hold it: its managementEndpoint does not tell)"):
            yield threat + " — deleting a vault deletes its keys"


def _orphan_version_threats(value: Any, resources: list[Any]) -> Iterator[str]:
    """Key versions of a key the stack does not declare, named by the store's literal key OCID."""
    for r in resources:
        if (r.resource_type == KEY_VERSION and _set(read(r.props, "timeOfDeletion"))
                and value not in (None, UNKNOWN) and read(r.props, "keyId") == value):
            yield f"key version '{r.name}' of its key sets timeOfDeletion"


def key_outside(store: Any, prop: str, keys: list[Any], brought: set[str]) -> str | None:
    """Why the key of protected ``store`` is held outside the stack (None: a key of the stack, a listed key, or no
    key: Oracle-managed)."""
    if any(d.resource_type == KEY for d in (store.property_dependencies or {}).get(prop, [])):
        return None
    value = read(store.props, prop)
    if value is None or value == "":
        return None
    if value is UNKNOWN:
        return (f"its {prop} is unknown during preview and does not come from an oci:Kms/key:Key of this stack, so "
                f"whether the stack holds its key cannot be told")
    if isinstance(value, str) and (value in brought or any(read(k.props, "id") == value for k in keys)):
        return None
    return (f"its {prop} {value!r} is not an oci:Kms/key:Key of this stack nor listed in "
            f"{POLICY_NAME}.{BROUGHT}: whoever holds that key can disable or delete it")


def validate_keys_kept(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Refuse disabling, deleting or rolling back the key of a protected store, and a protected store encrypted
    with a key neither the stack's nor brought on purpose (see the module docstring)."""
    keys = [r for r in args.resources if r.resource_type == KEY]
    brought = {k for k in ((args.get_config() or {}).get(BROUGHT) or ()) if isinstance(k, str)}
    for store in args.resources:
        prop = STORES.get(store.resource_type)
        if prop is None or not getattr(store.opts, "protect", False):
            continue
        outside = key_outside(store, prop, keys, brought)
        if outside:
            report_violation(f"{store.resource_type.rsplit(':', 1)[1]} '{store.name}' is protected but {outside}, "
                             f"and its data becomes unreadable. Declare the key (oci.kms.Key) in this stack, or list "
                             f"its OCID in {POLICY_NAME}.{BROUGHT} (policy config) once the team holding it is known "
                             f"to keep it (docs/policy-config.md).", store.urn)
        linked = _linked(store, prop, keys)
        threats = [t for key in linked for t in key_threats(key, args.resources)]
        if not linked:
            threats = list(_orphan_version_threats(read(store.props, prop), args.resources))
        for threat in dict.fromkeys(threats):
            report_violation(f"{store.resource_type.rsplit(':', 1)[1]} '{store.name}' is protected but {threat}: "
                             f"its data becomes unreadable for good. Keep the key enabled and unscheduled (protect "
                             f"the key and its vault too).", store.urn)


protected_data_keys_kept = StackValidationPolicy(
    name=POLICY_NAME,
    description="The Vault key of a protected file system, Lustre file system or bucket is the stack's or "
                "listed in broughtKeys, and is not disabled or scheduled for deletion (nor its versions or vault).",
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps="Remove desiredState: DISABLED, timeOfDeletion and restore settings from the key, its "
                      "versions and its vault; declare a protected store's key in the stack or list it in "
                      "broughtKeys.",
    tags=["data"],
    validate=validate_keys_kept,
    config_schema=PolicyConfigSchema(properties={BROUGHT: {
        "type": "array", "uniqueItems": True, "default": [], "items": {"type": "string", "pattern": KEY_OCID},
        "description": "Vault key OCIDs a protected store may use although the stack does not declare them (keys "
                       "a security team's vault holds on purpose, e.g. the stack config's kmsKeyId values)"}}),
)

POLICIES = [protected_data_keys_kept]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: "fails closed: an unknown desiredState of a protected store's key is a violation; an unknown "
                 "kmsKeyId is followed through its property dependency, and without one it is a violation (whether "
                 "the stack holds the key cannot be told)",
}
