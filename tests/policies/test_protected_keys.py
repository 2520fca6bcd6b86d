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
