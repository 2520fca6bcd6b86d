"""provider-options-keep-protected-data: deleteAllObjectVersions on an object of a protected bucket (or of a bucket
the stack does not declare or cannot tell), and isLockOverride on a protected file system or a snapshot of one, are
refused; the same options on unprotected data of the stack, and the options off, pass; unknowns fail closed."""
from __future__ import annotations

import pytest

from tests.policies.test_policies import U, messages, res, run

RULE = "provider-options-keep-protected-data"
BUCKET, OBJECT = "oci:ObjectStorage/bucket:Bucket", "oci:ObjectStorage/storageObject:StorageObject"
FS, SNAPSHOT = "oci:FileStorage/fileSystem:FileSystem", "oci:FileStorage/snapshot:Snapshot"


def bucket(protect=True, name="model-weights"):
    b = res(BUCKET, name, {"name": name, "namespace": "ns", "versioning": "Enabled"})
    b.protect = protect
    return b


def obj(flag=True, linked=None, bucket_name="model-weights"):
    props = {"bucket": bucket_name, "namespace": "ns", "object": "llama/model-00001.safetensors", "content": "x"}
    if flag is not None:
        props["deleteAllObjectVersions"] = flag
    return res(OBJECT, "o", props, deps={"bucket": [linked]} if linked else None)


def violations(*resources) -> list[str]:
    return messages(run(*resources, policy=RULE), RULE)


@pytest.mark.parametrize("flag", [True, U, "true"])
def test_deleting_every_version_in_a_protected_bucket_is_refused(flag):
    """The red team's input (true), an unknown value and text (not a boolean) alike."""
    b = bucket()
    [found] = violations(b, obj(flag, linked=b))
    assert "protected bucket 'model-weights'" in found and "every version" in found


def test_the_bucket_is_matched_by_name_and_an_undeclared_or_unknown_bucket_fails_closed():
    b = bucket()
    assert len(violations(b, obj(True))) == 1  # by its literal name and namespace
    assert any("does not declare" in m for m in violations(obj(True, bucket_name="elsewhere")))
    assert any("unknown during preview" in m for m in violations(b, obj(True, bucket_name=U)))


def test_the_flag_off_or_on_an_unprotected_bucket_passes():
    b, scratch = bucket(), bucket(protect=False, name="scratch")
    assert violations(b, obj(False, linked=b), obj(None, linked=b)) == []
    assert violations(scratch, obj(True, linked=scratch, bucket_name="scratch")) == []


def test_a_lock_override_on_a_protected_file_system_or_its_snapshot_is_refused():
    fs = res(FS, "shared", {"id": "ocid1.filesystem.oc1..fs", "isLockOverride": True})
    fs.protect = True
    snap = res(SNAPSHOT, "snap", {"name": "daily", "isLockOverride": True}, deps={"fileSystemId": [fs]})
    found = violations(fs, snap)
    assert len(found) == 2 and all("isLockOverride true" in m for m in found), found
    by_id = res(SNAPSHOT, "snap2", {"name": "d", "fileSystemId": "ocid1.filesystem.oc1..fs", "isLockOverride": U})
    assert len(violations(fs, by_id)) == 2
    assert any("does not declare" in m for m in violations(res(SNAPSHOT, "s", {
        "fileSystemId": "ocid1.filesystem.oc1..other", "isLockOverride": True})))


def test_a_lock_override_on_unprotected_data_or_no_override_passes():
    fs = res(FS, "scratch", {"id": "ocid1.filesystem.oc1..scratch", "isLockOverride": True})
    snap = res(SNAPSHOT, "snap", {"isLockOverride": True}, deps={"fileSystemId": [fs]})
    kept = res(FS, "kept", {"isLockOverride": False})
    kept.protect = True
    assert violations(fs, snap, kept) == []
