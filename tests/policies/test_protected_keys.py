"""The Vault key of a protected store (file system, Lustre, bucket) cannot be disabled or scheduled for deletion in
the same stack, nor its versions or vault; an unprotected store's key is not this rule's business."""
from __future__ import annotations

import pytest

from tests.policies.test_policies import U, messages, res, run

RULE = "protected-data-keys-kept"
KEY_ID = "ocid1.key.oc1..aaaaprotected"


def stack(protect: bool = True, key: dict | None = None, extra=(), store="oci:FileStorage/fileSystem:FileSystem"):
    k = res("oci:Kms/key:Key", "key", {"id": KEY_ID, "displayName": "fss", "managementEndpoint": "https://v-mgmt",
                                       **(key or {})})
    fs = res(store, "fs", {"kmsKeyId": U}, deps={"kmsKeyId": [k]})
    fs.protect = protect
    return [k, fs, *extra]


@pytest.mark.parametrize("key, extra", [
    ({"desiredState": "DISABLED"}, ()), ({"timeOfDeletion": "2027-01-01T00:00:00Z"}, ()), ({"desiredState": U}, ()),
    ({}, (res("oci:Kms/keyVersion:KeyVersion", "v1", {"keyId": KEY_ID, "timeOfDeletion": "2027-01-01T00:00:00Z"}),)),
    ({}, (res("oci:Kms/vault:Vault", "vault", {"managementEndpoint": "https://v-mgmt",
                                               "timeOfDeletion": "2027-01-01T00:00:00Z"}),)),
])
def test_a_protected_stores_key_disabled_or_scheduled_for_deletion_is_refused(key, extra):
    assert messages(run(*stack(key=key, extra=extra), policy=RULE), RULE)


@pytest.mark.parametrize("store", ["oci:ObjectStorage/bucket:Bucket",
                                   "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"])
def test_buckets_and_lustre_are_protected_stores_too(store):
    assert messages(run(*stack(key={"desiredState": "DISABLED"}, store=store), policy=RULE), RULE)


def test_an_enabled_key_or_an_unprotected_store_passes():
    assert messages(run(*stack(key={"desiredState": "ENABLED"}), policy=RULE), RULE) == []
    assert messages(run(*stack(protect=False, key={"desiredState": "DISABLED"}), policy=RULE), RULE) == []


SCHEDULED = {"timeOfDeletion": "2027-01-01T00:00:00Z"}


@pytest.mark.parametrize("key, extra", [
    ({"restoreTrigger": True}, ()), ({"restoreFromObjectStore": {"bucket": "b", "namespace": "n", "object": "o"}}, ()),
    ({}, (res("oci:Kms/vault:Vault", "vault", {"managementEndpoint": "https://v-mgmt", "restoreTrigger": True}),)),
    # the vault's endpoint is unknown: the key's literal endpoint cannot rule it out, so it is judged as its vault
    ({}, (res("oci:Kms/vault:Vault", "vault", {"managementEndpoint": U, **SCHEDULED}),)),
    ({}, (res("oci:Kms/vault:Vault", "vault", SCHEDULED),)),
    # a key version whose key cannot be told
    ({}, (res("oci:Kms/keyVersion:KeyVersion", "v1", {"keyId": U, **SCHEDULED}),)),
])
def test_restores_and_vaults_or_versions_that_may_hold_the_key_are_refused(key, extra):
    """Restoring the key or its vault from a backup rolls it back; a scheduled vault or version the policy cannot
    tell apart from the key's own is judged as the key's own."""
    assert messages(run(*stack(key=key, extra=extra), policy=RULE), RULE)


def test_the_vault_named_by_the_keys_endpoint_dependency_is_its_vault():
    """A key whose managementEndpoint comes from a scheduled vault (the dependency, whatever the value) is refused."""
    vault = res("oci:Kms/vault:Vault", "vault", {"managementEndpoint": "https://other", **SCHEDULED})
    k = res("oci:Kms/key:Key", "key", {"id": KEY_ID, "managementEndpoint": U}, deps={"managementEndpoint": [vault]})
    fs = res("oci:FileStorage/fileSystem:FileSystem", "fs", {"kmsKeyId": U}, deps={"kmsKeyId": [k]})
    fs.protect = True
    assert messages(run(vault, k, fs, policy=RULE), RULE)


def test_a_version_of_a_protected_stores_literal_key_is_refused():
    """A store naming a key OCID the stack does not declare: a key version of that OCID scheduled for deletion."""
    fs = res("oci:FileStorage/fileSystem:FileSystem", "fs", {"kmsKeyId": KEY_ID})
    fs.protect = True
    version = res("oci:Kms/keyVersion:KeyVersion", "v1", {"keyId": KEY_ID, **SCHEDULED})
    assert messages(run(fs, version, policy=RULE), RULE)
    other = res("oci:Kms/keyVersion:KeyVersion", "v1", {"keyId": "ocid1.key.oc1..other", **SCHEDULED})
    assert messages(run(fs, other, policy=RULE), RULE) == []


def test_another_vault_or_version_scheduled_for_deletion_passes():
    """A vault whose known endpoint is not the key's, and a version of another key, are not the key's."""
    extra = (res("oci:Kms/vault:Vault", "old", {"managementEndpoint": "https://old-mgmt", **SCHEDULED}),
             res("oci:Kms/keyVersion:KeyVersion", "v1", {"keyId": "ocid1.key.oc1..other", **SCHEDULED}),
             res("oci:Kms/vault:Vault", "kept", {"managementEndpoint": "https://v-mgmt", "restoreTrigger": False}))
    assert messages(run(*stack(key={"desiredState": "ENABLED"}, extra=extra), policy=RULE), RULE) == []
