"""Red-team programs for protected data: the Vault key of a protected file system disabled or scheduled for deletion
by the same stack. Registered into ``programs.CASES`` on import."""
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
