"""Hand-written programs around a protected data bucket (weights, checkpoints): the unsafe variant keeps the bucket
from ``pulumi destroy`` but not its objects from an overwrite or delete (no versioning, no Vault key)."""
from __future__ import annotations

import pulumi
import pulumi_oci as oci

from tests.policies.redteam.programs import C, case, vault_key


@case("data", "bucket-protected-data-versioned")
def protected_weights_bucket_without_versioning(bad: bool) -> None:
    safe = {} if bad else {"versioning": "Enabled", "kms_key_id": vault_key().id}
    oci.objectstorage.Bucket("weights", compartment_id=C, namespace="axaxnpcrorw5", name="weights",
                             access_type="NoPublicAccess", **safe, opts=pulumi.ResourceOptions(protect=True))


@case("data", "provider-options-keep-protected-data")
def object_in_protected_bucket_deletes_every_version(bad: bool) -> None:
    """An object of the protected, versioned weights bucket with deleteAllObjectVersions: deleting or replacing it
    deletes every version of its key — the history versioning keeps. The control leaves the option off."""
    bucket = oci.objectstorage.Bucket("weights", compartment_id=C, namespace="axaxnpcrorw5", name="weights",
                                      access_type="NoPublicAccess", versioning="Enabled", kms_key_id=vault_key().id,
                                      opts=pulumi.ResourceOptions(protect=True))
    oci.objectstorage.StorageObject("shard", bucket=bucket.name, namespace="axaxnpcrorw5",
                                    object="llama/model-00001.safetensors", content="x",
                                    delete_all_object_versions=bad)
