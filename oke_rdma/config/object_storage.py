"""Object Storage config: the stack's weights bucket (created or brought) and a tenant's access to it.

``storage.objectStorage`` holds model weights and checkpoints in one bucket per stack. Created by default when
enabled: private (``NoPublicAccess``), versioned, Standard tier, no auto-tiering, optionally encrypted with a Vault
key, ``protect``-ed. ``bucket: {namespace, name, compartmentId}`` brings an existing bucket instead: nothing is
created and the tenants' grants name it.

``tenants.<t>.weights: {serviceAccount, access}`` grants one of the tenant's Workload Identity ServiceAccounts
``read`` (weights: read the bucket and every object) or ``readWrite`` (also create and overwrite objects whose names
start with :func:`checkpoint_prefix`, never delete). The statements are generated (``oke_rdma.iam_weights``).

Sources (checked 2026-12-01): Object Storage docs "Object Storage Buckets", "Object Names", "Object Storage
Versioning"; pulumi_oci 5.5.0 ``objectstorage.Bucket``; IAM docs "Details for Object Storage, Archive Storage, and
Data Transfer" and "Conditions" (see ``oke_rdma.facts.storage``).
"""

from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from ..facts.storage import BUCKET_NAME_PATTERN
from ._base import _Model, _ocid

_BUCKET_NAME_RE = re.compile(BUCKET_NAME_PATTERN)
#: An Object Storage namespace: lowercase letters and digits (``oci os ns get``).
_NAMESPACE_RE = re.compile(r"^[a-z0-9]{1,64}$")
#: Object names a ``readWrite`` tenant may create start with ``<tenant>`` and this suffix. A tenant name (a DNS
#: label) never holds a '.', so no tenant's prefix is a prefix of another's, and the IAM pattern
#: ``/<tenant>.checkpoints*/`` needs no '/' inside it.
CHECKPOINT_SUFFIX = ".checkpoints/"


def checkpoint_prefix(tenant: str) -> str:
    """The object-name prefix tenant ``tenant`` writes checkpoints under: ``<tenant>.checkpoints/``."""
    return tenant + CHECKPOINT_SUFFIX


def _bucket_name(v: str) -> str:
    if not _BUCKET_NAME_RE.match(v):
        raise ValueError(f"expected a bucket name of 1-255 letters, digits, '-', '_' or '.' (Object Storage "
                         f"'Object Names'), got {v!r}")
    return v


class BroughtBucket(_Model):
    """An existing bucket the stack uses instead of creating one; every key is required (the grants name its
    compartment, the outputs its namespace). It must be in ``oci:region``."""

    namespace: str = Field(description="Object Storage namespace of the bucket (`oci os ns get`).")
    name: str = Field(description="Name of the existing bucket.")
    compartment_id: str = Field(description="OCID of the bucket's compartment (the grants are attached there).")

    _compartment = field_validator("compartment_id")(lambda v: _ocid("compartment", v, "tenancy"))
    _name = field_validator("name")(_bucket_name)

    @field_validator("namespace")
    @classmethod
    def _namespace(cls, v: str) -> str:
        if not _NAMESPACE_RE.match(v):
            raise ValueError(f"expected an Object Storage namespace (lowercase letters and digits, as `oci os ns "
                             f"get` prints it), got {v!r}")
        return v


class ObjectStorage(_Model):
    """The weights bucket (``storage.objectStorage``): off unless ``enabled``; created unless ``bucket`` is given."""

    enabled: bool = Field(False, description=(
        "Create (or bring with `bucket`) the weights and checkpoints bucket and grant `tenants.<t>.weights`."))
    name: Optional[str] = Field(None, description=(
        "Name of the created bucket (default `<namePrefix>-weights`); letters, digits, '-', '_', '.'."))
    kms_key_id: Optional[str] = Field(None, description=(
        "Vault key OCID encrypting the created bucket; the `<prefix>-objectstorage-kms` policy lets Object "
        "Storage use it."))
    protect: bool = Field(True, description="`protect` the created bucket against `pulumi destroy`.")
    object_events_enabled: bool = Field(False, description=(
        "Emit OCI Events for object changes in the created bucket (e.g. to start an evaluation when a checkpoint "
        "lands)."))
    bucket: Optional[BroughtBucket] = Field(None, description=(
        "An existing bucket `{namespace, name, compartmentId}` to use instead of creating one (not managed here)."))

    _kms = field_validator("kms_key_id")(lambda v: None if v is None else _ocid("key", v))
    _name = field_validator("name")(lambda v: None if v is None else _bucket_name(v))

    @model_validator(mode="after")
    def _brought_alone(self) -> "ObjectStorage":
        ignored = sorted(to_camel(k) for k in self.model_fields_set - {"enabled"})
        if not self.enabled and ignored:
            raise ValueError(f"{', '.join(ignored)} would be ignored: enabled is false (the default); set enabled: "
                             f"true or remove {', '.join(ignored)}")
        if self.bucket is not None:
            set_keys = [k for k, v in (("name", self.name), ("kmsKeyId", self.kms_key_id)) if v is not None]
            if set_keys:
                raise ValueError(f"{' and '.join(set_keys)} configure a bucket this stack creates, but `bucket` "
                                 f"brings an existing one; remove {' and '.join(set_keys)} (set them on the "
                                 f"existing bucket) or remove `bucket`")
        return self

    @property
    def brought(self) -> bool:
        """True when the bucket exists already (``bucket`` given): nothing is created."""
        return self.bucket is not None


class TenantWeights(_Model):
    """A tenant's access to the weights bucket (``tenants.<t>.weights``), through one of its ServiceAccounts."""

    service_account: str = Field(description=(
        "The tenant's Workload Identity ServiceAccount (a key of `tenants.<t>.serviceAccounts`) whose pods get the "
        "access."))
    access: Literal["read", "readWrite"] = Field("read", description=(
        "`read`: read the bucket and its objects; `readWrite`: also create and overwrite objects under "
        "`<tenant>.checkpoints/` (never delete)."))
