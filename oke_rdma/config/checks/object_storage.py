"""Rules of ``storage.objectStorage`` and ``tenants.<t>.weights`` that read other keys of the stack config, and the
values derived from them (the bucket's name and compartment). The models are in ``oke_rdma.config.object_storage``."""

from __future__ import annotations

from typing import Optional

from ...facts.storage import CHECKPOINT_WRITE_PERMISSIONS
from .._base import _key
from ..object_storage import checkpoint_prefix
from ..stack import StackConfig
from ..workload_identity import Condition, Grant

#: The created bucket's default name is ``<namePrefix>`` and this suffix.
DEFAULT_BUCKET_SUFFIX = "-weights"


def weights_bucket_name(cfg: StackConfig) -> str:
    """The bucket's name: the brought bucket's, else ``storage.objectStorage.name``, else ``<namePrefix>-weights``."""
    obj = cfg.storage.object_storage
    if obj.bucket is not None:
        return obj.bucket.name
    return obj.name or cfg.name_prefix + DEFAULT_BUCKET_SUFFIX


def weights_compartment(cfg: StackConfig) -> Optional[str]:
    """The compartment of the bucket (the brought bucket's, else the stack's ``compartmentId``); None when
    ``storage.objectStorage`` is off."""
    obj = cfg.storage.object_storage
    if not obj.enabled:
        return None
    return obj.bucket.compartment_id if obj.bucket is not None else cfg.compartment_id


def weights_service_account(cfg: StackConfig, tenant: str) -> Optional[str]:
    """The ServiceAccount of tenant ``tenant`` that ``tenants.<t>.weights`` names, or None."""
    weights = cfg.tenants[tenant].weights
    return weights.service_account if weights is not None else None


def weights_grants(cfg: StackConfig, tenant: str) -> tuple[Grant, ...]:
    """The grants ``tenants.<tenant>.weights`` adds to its ServiceAccount, every one in the bucket's compartment and
    pinned to the bucket by ``target.bucket.name`` (empty without ``weights`` or with the bucket off):

    * ``read buckets`` and ``read objects`` (IAM "Common Policies", "Let users download objects from Object Storage
      buckets"): GetBucket/HeadBucket, ListObjects, GetObject/HeadObject of the bucket alone;
    * with ``readWrite``, ``{OBJECT_CREATE, OBJECT_OVERWRITE}`` for object names matching ``/<tenant>.checkpoints*/``
      (``target.object.name``): PutObject and multipart uploads under :func:`checkpoint_prefix` only. Not ``manage
      objects`` (it holds OBJECT_DELETE and OBJECT_VERSION_DELETE: a job could erase every weight) nor ``use objects``
      (OBJECT_OVERWRITE alone cannot create an object). With the bucket's versioning an overwrite keeps the previous
      version. Never ``manage buckets``.

    Sources: ``oke_rdma.facts.storage`` (IAM docs "Details for Object Storage ...", "Conditions").
    """
    weights = cfg.tenants[tenant].weights
    compartment = weights_compartment(cfg)
    if weights is None or compartment is None:
        return ()
    bucket = Condition("target.bucket.name", "=", weights_bucket_name(cfg))
    grants = (Grant("read", "buckets", compartment, (bucket,)), Grant("read", "objects", compartment, (bucket,)))
    if weights.access == "readWrite":
        prefix = Condition("target.object.name", "=", checkpoint_prefix(tenant).rstrip("/") + "*", pattern=True)
        grants += (Grant("", "", compartment, (bucket, prefix), permissions=CHECKPOINT_WRITE_PERMISSIONS),)
    return grants


def check_object_storage(cfg: StackConfig) -> list[str]:
    """``tenants.<t>.weights`` needs ``storage.objectStorage.enabled`` and names a ServiceAccount the tenant declares
    in ``tenants.<t>.serviceAccounts`` (the statements pin the grant to it; an undeclared one would exist in no
    namespace and be granted nothing usable)."""
    problems: list[str] = []
    enabled = cfg.storage.object_storage.enabled
    for name, tenant in cfg.tenants.items():
        if tenant.weights is None:
            continue
        at = ("tenants", name, "weights")
        if not enabled:
            problems.append(f"{_key(at)}: asks for the weights bucket but storage.objectStorage.enabled is false; "
                            f"set oke-rdma:storage.objectStorage.enabled: true or remove weights")
        sa = tenant.weights.service_account
        if sa not in tenant.service_accounts:
            declared = ", ".join(sorted(tenant.service_accounts)) or "none"
            problems.append(f"{_key(at + ('serviceAccount',))}: {sa!r} is not a ServiceAccount of tenant {name!r} "
                            f"(declared: {declared}); declare it as tenants.{name}.serviceAccounts.{sa} (its "
                            f"`allow` may be empty) or name a declared one")
    return problems
