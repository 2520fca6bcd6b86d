"""Data rules for Object Storage buckets a stack declares as data to keep (``protect``): weights, checkpoints,
datasets. Public access is ``no-public-endpoints``'s (``public_endpoints``); these judge what protects the objects
themselves.

* ``bucket-protected-data-versioned`` (MANDATORY): an ``oci:ObjectStorage/bucket:Bucket`` declared with the
  ``protect`` resource option must have ``versioning: Enabled``. ``protect`` keeps ``pulumi destroy`` from deleting
  the bucket, but any principal allowed to overwrite or delete objects (a training job with a write grant, a
  mistaken ``oci os object bulk-delete``) destroys them for good without versioning; with it the previous version
  stays (Object Storage docs "Object Storage Versioning"). Unset (OCI's default ``Disabled``), ``Disabled``,
  ``Suspended`` and unknown values are refused.
* ``bucket-protected-data-customer-key`` (ADVISORY): the same bucket without ``kmsKeyId`` is encrypted with
  Oracle-managed keys; a Vault key lets the owner audit and revoke access to the data (Object Storage docs "Using
  Your Own Keys in Vault for Server-Side Encryption"). Advisory: Oracle-managed encryption is on regardless. An
  unknown ``kmsKeyId`` (a key created in the same update) is reported too (fail closed).

Buckets without ``protect`` (scratch, logs) are not judged. Sources (checked 2026-12-01): Object Storage docs
"Object Storage Versioning" (``Enabled``/``Suspended``; a bucket is created ``Disabled``), "Using Your Own Keys in
Vault for Server-Side Encryption"; pulumi_oci 5.5.0 ``objectstorage.Bucket`` (``versioning``, ``kmsKeyId``);
pulumi_policy ``PolicyResourceOptions.protect``.
"""
from __future__ import annotations

from typing import Any, Iterator

from pulumi_policy import (EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy,
                           Severity)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from . import _rules as R
    from ._gate import examines
else:  # run by the Pulumi CLI from inside the pack directory
    import _rules as R
    from _gate import examines

UNKNOWN = R.UNKNOWN
BUCKET = "oci:ObjectStorage/bucket:Bucket"


def _protected(args: ResourceValidationArgs) -> bool:
    return args.resource_type == BUCKET and bool(getattr(args.opts, "protect", False))


def versioning_problems(props: Any) -> Iterator[str]:
    """Why a protected bucket's objects are not versioned (nothing when ``versioning`` is ``Enabled``)."""
    versioning = R.read(props, "versioning")
    if versioning is UNKNOWN:
        yield "its versioning is unknown during preview; set it to the literal Enabled"
    elif not isinstance(versioning, str) or versioning.strip().lower() != "enabled":
        shown = ("unset (OCI creates buckets with Disabled)" if versioning is None else repr(versioning)
                 if isinstance(versioning, str) else "not a text value")
        yield (f"is protected (it holds data to keep) but its versioning is {shown}: an overwrite or delete by any "
               "principal allowed to write destroys objects for good; set versioning: Enabled")


def key_problems(props: Any) -> Iterator[str]:
    """Why a protected bucket is encrypted with Oracle-managed keys (nothing with a ``kmsKeyId``)."""
    key = R.read(props, "kmsKeyId")
    if key is UNKNOWN:
        yield ("has a kmsKeyId unknown during preview, so whether a Vault key encrypts it cannot be told; it is "
               "judged at pulumi up, when the key's OCID is known")
    elif not (isinstance(key, str) and key.strip()):
        yield ("is protected (it holds data to keep) but has no kmsKeyId: its objects are encrypted with "
               "Oracle-managed keys; set kmsKeyId to a Vault key (and let objectstorage-<region> use it)")


def validate_versioned(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``bucket-protected-data-versioned``."""
    if _protected(args):
        for problem in versioning_problems(args.props):
            report_violation(f"Bucket '{args.name}' {problem}.", None)


def validate_customer_key(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``bucket-protected-data-customer-key``."""
    if _protected(args):
        for problem in key_problems(args.props):
            report_violation(f"Bucket '{args.name}' {problem}.", None)


bucket_protected_data_versioned = ResourceValidationPolicy(
    name="bucket-protected-data-versioned",
    description="An Object Storage bucket declared protected (data to keep) has versioning Enabled.",
    validate=validate_versioned,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Set versioning: Enabled on the bucket (a created bucket may set it on create; an existing one "
                       "is updated in place), and manage old versions with a lifecycle rule. Source: Object Storage "
                       "docs, Object Storage Versioning."),
    tags=["storage", "data"],
)

bucket_protected_data_customer_key = ResourceValidationPolicy(
    name="bucket-protected-data-customer-key",
    description="An Object Storage bucket declared protected (data to keep) is encrypted with a Vault key.",
    validate=validate_customer_key,
    enforcement_level=EnforcementLevel.ADVISORY,
    severity=Severity.LOW,
    remediation_steps=("Set kmsKeyId to a Vault key and allow the Object Storage service to use it: Allow service "
                       "objectstorage-<region> to use keys in compartment id <vault compartment> where target.key.id "
                       "= '<key>'. Source: Object Storage docs, Using Your Own Keys in Vault for Server-Side "
                       "Encryption."),
    tags=["storage", "data"],
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(bucket_protected_data_versioned, BUCKET)
examines(bucket_protected_data_customer_key, BUCKET)

POLICIES = [bucket_protected_data_versioned, bucket_protected_data_customer_key]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "bucket-protected-data-versioned": "fails closed: an unknown versioning is a violation",
    "bucket-protected-data-customer-key": ("fails closed: an unknown kmsKeyId (a key created in the same update) is "
                                           "reported, advisory"),
}
