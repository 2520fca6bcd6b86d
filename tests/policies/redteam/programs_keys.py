"""Red-team programs for protected data: the Vault key of a protected file system disabled or scheduled for deletion
by the same stack, and a lifecycle rule deleting a protected bucket's old versions. Registered into
``programs.CASES`` on import."""
from __future__ import annotations

import pulumi
import pulumi_oci as oci

from tests.policies.redteam.programs import C, case


def _protected_fs(key: oci.kms.Key) -> None:
    oci.filestorage.FileSystem("fs", compartment_id=C, availability_domain="AD-1", kms_key_id=key.id,
                               opts=pulumi.ResourceOptions(protect=True))


@case("data", "protected-data-keys-kept")
def protected_file_systems_key_disabled(bad):
    key = oci.kms.Key("key", compartment_id=C, display_name="fss", management_endpoint="https://vault-mgmt",
                      key_shape={"algorithm": "AES", "length": 32}, desired_state="DISABLED" if bad else "ENABLED")
    _protected_fs(key)


@case("data", "protected-data-keys-kept")
def protected_file_systems_key_scheduled_for_deletion(bad):
    extra = {"time_of_deletion": "2027-01-01T00:00:00.000Z"} if bad else {}
    key = oci.kms.Key("key", compartment_id=C, display_name="fss", management_endpoint="https://vault-mgmt",
                      key_shape={"algorithm": "AES", "length": 32}, **extra)
    _protected_fs(key)


@case("data", "bucket-lifecycle-keeps-protected-data")
def protected_buckets_old_versions_deleted_by_lifecycle(bad):
    """A lifecycle rule that deletes the previous versions of a protected, versioned bucket (what versioning keeps);
    the control moves them to Archive instead."""
    bucket = oci.objectstorage.Bucket("weights", compartment_id=C, namespace="ns", name="weights",
                                      access_type="NoPublicAccess", versioning="Enabled",
                                      kms_key_id="ocid1.key.oc1..aaaaweights",
                                      opts=pulumi.ResourceOptions(protect=True))
    oci.objectstorage.ObjectLifecyclePolicy("lifecycle", namespace="ns", bucket=bucket.name, rules=[{
        "name": "old-versions", "action": "DELETE" if bad else "ARCHIVE", "target": "previous-object-versions",
        "is_enabled": True, "time_amount": "30", "time_unit": "DAYS"}])
