"""Red-team programs for protected data: the Vault key of a protected file system disabled or scheduled for deletion
by the same stack, a lifecycle rule deleting a protected bucket's old versions, and an export squashing root to a
tenant's UID. Registered into ``programs.CASES`` on import."""
from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci

from tests.policies.redteam.programs import C, case, vault_key


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


@case("data", "protected-data-keys-kept")
def protected_file_systems_vault_scheduled_for_deletion(bad):
    """The key's vault is in the stack (its managementEndpoint read from the vault) and is scheduled for deletion:
    the vault's computed endpoint must link them."""
    extra = {"time_of_deletion": "2027-01-01T00:00:00.000Z"} if bad else {}
    vault = oci.kms.Vault("vault", compartment_id=C, display_name="v", vault_type="DEFAULT", **extra)
    key = oci.kms.Key("key", compartment_id=C, display_name="fss", management_endpoint=vault.management_endpoint,
                      key_shape={"algorithm": "AES", "length": 32})
    _protected_fs(key)


@case("data", "protected-data-keys-kept")
def protected_file_systems_key_restored_from_a_backup(bad):
    """Restoring the key from a backup rolls it back: versions made since (which encrypted data) are lost."""
    extra = {"restore_from_object_store": {"destination": "BUCKET", "bucket": "backups", "namespace": "ns",
                                           "object": "key.backup"}, "restore_trigger": True} if bad else {}
    key = oci.kms.Key("key", compartment_id=C, display_name="fss", management_endpoint="https://vault-mgmt",
                      key_shape={"algorithm": "AES", "length": 32}, **extra)
    _protected_fs(key)


#: A key OCID of a vault the stack does not declare (another team's or tenancy's: the OCID does not say which).
OUTSIDE_KEY = "ocid1.key.oc1.sa-saopaulo-1.othervault.aaaaaaaaoutsidekey"


@case("data", "protected-data-keys-kept")
def protected_file_system_key_outside_the_stack(bad):
    """A protected file system encrypted with a key the stack does not declare nor the policy config lists: whoever
    holds it can disable it and the data is unreadable. The control declares the key."""
    key = vault_key()
    oci.filestorage.FileSystem("fs", compartment_id=C, availability_domain="AD-1",
                               kms_key_id=OUTSIDE_KEY if bad else key.id, opts=pulumi.ResourceOptions(protect=True))


@case("data", "protected-data-keys-kept")
def protected_bucket_key_outside_the_stack(bad):
    """The same for a protected, versioned bucket (Object Storage server-side encryption with a Vault key)."""
    key = vault_key()
    oci.objectstorage.Bucket("weights", compartment_id=C, namespace="ns", name="weights",
                             access_type="NoPublicAccess", versioning="Enabled",
                             kms_key_id=OUTSIDE_KEY if bad else key.id, opts=pulumi.ResourceOptions(protect=True))


@case("data", "protected-data-keys-kept")
def protected_lustre_key_outside_the_stack(bad):
    """The same for a protected Lustre file system."""
    key = vault_key()
    oci.lustre.FileStorageLustreFileSystem(
        "lustre", availability_domain="Uocm:US-ASHBURN-AD-1", compartment_id=C, capacity_in_gbs=31200,
        file_system_name="scratch", performance_tier="MBPS_PER_TB_125", subnet_id="ocid1.subnet.oc1..s",
        kms_key_id=OUTSIDE_KEY if bad else key.id,
        root_squash_configuration={"identity_squash": "ROOT", "squash_uid": "65534", "squash_gid": "65534"},
        opts=pulumi.ResourceOptions(protect=True))


@case("data", "bucket-lifecycle-keeps-protected-data")
def protected_buckets_old_versions_deleted_by_lifecycle(bad):
    """A lifecycle rule that deletes the previous versions of a protected, versioned bucket (what versioning keeps);
    the control moves them to Archive instead."""
    bucket = oci.objectstorage.Bucket("weights", compartment_id=C, namespace="ns", name="weights",
                                      access_type="NoPublicAccess", versioning="Enabled",
                                      kms_key_id=vault_key().id,
                                      opts=pulumi.ResourceOptions(protect=True))
    oci.objectstorage.ObjectLifecyclePolicy("lifecycle", namespace="ns", bucket=bucket.name, rules=[{
        "name": "old-versions", "action": "DELETE" if bad else "ARCHIVE", "target": "previous-object-versions",
        "is_enabled": True, "time_amount": "30", "time_unit": "DAYS"}])


@case("data", "squash-identity-not-a-data-owner")
def export_squashes_root_to_a_tenants_uid(bad):
    """An export squashes root to the UID a tenant's claim says its data is owned by, so root in any pod on any node
    writes as that tenant; the control keeps the anonymous ID 65534."""
    anonymous = "20001" if bad else "65534"
    oci.filestorage.Export("export", export_set_id="ocid1.exportset.oc1..aaaaset",
                           file_system_id="ocid1.filesystem.oc1..aaaafs", path="/shared", export_options=[{
                               "source": "10.0.0.0/16", "access": "READ_WRITE", "identity_squash": "ROOT",
                               "anonymous_uid": anonymous, "anonymous_gid": "65534",
                               "require_privileged_source_port": True}])
    k8s.core.v1.Namespace("ns-research", metadata={"name": "research", "labels": {
        "pod-security.kubernetes.io/enforce": "restricted"}})
    k8s.core.v1.PersistentVolumeClaim("claim", metadata={
        "name": "fss-shared", "namespace": "research", "annotations": {"okerdma.io/uid": "20001",
                                                                      "okerdma.io/gid": "20001"}},
        spec={"accessModes": ["ReadWriteMany"], "storageClassName": "", "volumeName": "research-fss",
              "resources": {"requests": {"storage": "1Mi"}}})
