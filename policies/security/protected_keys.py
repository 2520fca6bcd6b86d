"""Protected data stays protected: the keys that encrypt it are not disabled or scheduled for deletion by the same
stack.

* ``protected-data-keys-kept`` (MANDATORY, stack): a store the stack protects (``protect``: an FSS file system, a
  Lustre file system, a bucket) encrypted with a Vault key of this stack (``kmsKeyId``: followed through its property
  dependency, else matched by id) may not have that key with ``desiredState: DISABLED`` or a ``timeOfDeletion``, a
  ``KeyVersion`` of it with a ``timeOfDeletion``, or its Vault with a ``timeOfDeletion``: a disabled or deleted key
  makes the data unreadable for good — ``protect`` stops the store's deletion, not its key's. Unknown values of
  those settings fail closed.

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

from pulumi_policy import (EnforcementLevel, ReportViolation, Severity, StackValidationArgs,
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


def _linked(store: Any, prop: str, candidates: list[Any]) -> list[Any]:
    deps = [d for d in (store.property_dependencies or {}).get(prop, []) if d.resource_type == KEY]
    if deps:
        return deps
    value = read(store.props, prop)
    return [k for k in candidates if value not in (None, UNKNOWN) and read(k.props, "id") == value]


def key_threats(key: Any, resources: list[Any]) -> Iterator[str]:
    """What disables or deletes ``key`` (or its versions or vault) in the stack."""
    state = read(key.props, "desiredState")
    if state is UNKNOWN or (isinstance(state, str) and state.upper() == "DISABLED"):
        yield f"key '{key.name}' has desiredState {'unknown during preview' if state is UNKNOWN else state}"
    if read(key.props, "timeOfDeletion") is not None:
        yield f"key '{key.name}' sets timeOfDeletion (scheduled for deletion)"
    key_id, vault_endpoint = read(key.props, "id"), read(key.props, "managementEndpoint")
    for r in resources:
        if r.resource_type == KEY_VERSION and read(r.props, "timeOfDeletion") is not None and (
                key in (r.property_dependencies or {}).get("keyId", []) or read(r.props, "keyId") == key_id):
            yield f"key version '{r.name}' sets timeOfDeletion"
        if r.resource_type == VAULT and read(r.props, "timeOfDeletion") is not None and (
                r in (key.property_dependencies or {}).get("managementEndpoint", [])
                or (vault_endpoint not in (None, UNKNOWN) and read(r.props, "managementEndpoint") == vault_endpoint)):
            yield f"its vault '{r.name}' sets timeOfDeletion (deleting a vault deletes its keys)"


def validate_keys_kept(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Refuse disabling or deleting the key of a protected store (see the module docstring)."""
    keys = [r for r in args.resources if r.resource_type == KEY]
    for store in args.resources:
        prop = STORES.get(store.resource_type)
        if prop is None or not getattr(store.opts, "protect", False):
            continue
        for key in _linked(store, prop, keys):
            for threat in key_threats(key, args.resources):
                report_violation(f"{store.resource_type.rsplit(':', 1)[1]} '{store.name}' is protected but {threat}: "
                                 f"its data becomes unreadable for good. Keep the key enabled and unscheduled (protect "
                                 f"the key and its vault too).", store.urn)


protected_data_keys_kept = StackValidationPolicy(
    name=POLICY_NAME,
    description="The Vault key of a protected file system, Lustre file system or bucket is not disabled or "
                "scheduled for deletion (nor its versions or vault).",
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps="Remove desiredState: DISABLED and timeOfDeletion from the key, its versions and its vault.",
    tags=["data"],
    validate=validate_keys_kept,
)

POLICIES = [protected_data_keys_kept]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: "fails closed: an unknown desiredState of a protected store's key is a violation; an unknown "
                 "kmsKeyId is followed through its property dependency",
}
