"""Red-team programs for data leaving the platform: a server-side object copy out of a protected bucket, and the
Prometheus operator's custom resources sending metrics or alerts to outside URLs. Registered into
``programs.CASES`` on import."""
from __future__ import annotations

import pulumi
import pulumi_oci as oci

from tests.policies.redteam.programs import C, case


@case("data", "object-copy-stays-in-the-platform")
def storage_object_copies_a_protected_buckets_object_out(bad):
    """A StorageObject whose sourceUriDetails copies an object of the protected weights bucket into a bucket of
    another namespace; the control uploads a README into the protected bucket itself."""
    weights = oci.objectstorage.Bucket("weights", compartment_id=C, namespace="platformns", name="weights",
                                       access_type="NoPublicAccess", versioning="Enabled",
                                       kms_key_id="ocid1.key.oc1..aaaaweights",
                                       opts=pulumi.ResourceOptions(protect=True))
    if bad:
        oci.objectstorage.StorageObject("o", namespace="outsidens", bucket="loot", object="model.safetensors",
                                        source_uri_details={"region": "us-ashburn-1", "namespace": "platformns",
                                                            "bucket": weights.name, "object": "model.safetensors"})
    else:
        oci.objectstorage.StorageObject("o", namespace="platformns", bucket=weights.name, object="README",
                                        content="weights")
