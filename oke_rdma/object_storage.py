"""The Object Storage bucket for model weights and checkpoints (``storage.objectStorage``), created or brought.

Created: one bucket ``<prefix>-weights`` (or ``storage.objectStorage.name``) in the stack's compartment and the
tenancy's Object Storage namespace (read with ``oci.objectstorage.get_namespace``), with

* ``accessType: NoPublicAccess`` — only authenticated, authorised callers (the security pack's
  ``no-public-endpoints`` refuses any other value);
* ``versioning: Enabled`` — an overwrite or delete keeps the previous version, so a job that writes a checkpoint
  under an existing name never destroys the one before it (Object Storage docs "Object Storage Versioning");
* ``storageTier: Standard`` (immutable after create) and ``autoTiering: Disabled``: weights are read at job start,
  an Infrequent Access or Archive object would be slow or need a restore first;
* ``kmsKeyId`` when ``storage.objectStorage.kmsKeyId`` is set (the bucket waits for the ``objectstorage-kms``
  policy that lets Object Storage use the key), ``objectEventsEnabled`` from config;
* ``protect`` unless ``storage.objectStorage.protect: false`` (it holds the only copy of trained weights).

No lifecycle rule is declared: retention of old versions and of uncommitted multipart uploads (a writer without
OBJECT_DELETE cannot abort its failed uploads) is the owner's choice (docs/storage.md).

Brought (``storage.objectStorage.bucket``): nothing is created; the component reports the bucket's namespace and
name. The tenants' grants (``oke_rdma.iam`` through the Workload Identity bindings) apply either way.

Sources (checked 2026-12-01): pulumi_oci 5.5.0 ``objectstorage.Bucket`` (``accessType``, ``versioning``,
``storageTier``, ``autoTiering``, ``kmsKeyId``, ``objectEventsEnabled``) and ``objectstorage.get_namespace``; Object
Storage docs "Object Storage Buckets", "Object Storage Versioning", "Using Your Own Keys in Vault for Server-Side
Encryption".
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_oci as oci

from oke_rdma.config.object_storage import ObjectStorage


class WeightsBucketArgs:
    """Inputs of :class:`WeightsBucket`.

    :param config: :class:`oke_rdma.config.object_storage.ObjectStorage` (``oke-rdma:storage.objectStorage``).
    :param bucket_name: the bucket's name (the stack passes
        ``oke_rdma.config.checks.object_storage.weights_bucket_name``).
    :param compartment_id: the compartment of a created bucket (the stack's).
    :param region: the stack's region (``oci:region``), reported with the bucket.
    :param freeform_tags: free-form tags on the bucket (default none).
    :param depends_on: what the created bucket waits for (the ``objectstorage-kms`` policy when ``kmsKeyId`` is set).
    :raises ValueError: ``config`` is not an ``ObjectStorage``, or an enabled config has no bucket name.
    """

    def __init__(self, config: ObjectStorage, bucket_name: str, compartment_id: str, region: str, *,
                 freeform_tags: Optional[Mapping[str, str]] = None, depends_on: Sequence[pulumi.Resource] = ()):
        if not isinstance(config, ObjectStorage):
            raise ValueError(f"WeightsBucketArgs.config: expected an oke_rdma.config.object_storage.ObjectStorage, "
                             f"got {type(config).__name__}")
        if config.enabled and not bucket_name:
            raise ValueError("WeightsBucketArgs.bucket_name: empty")
        self.config = config
        self.bucket_name = bucket_name
        self.compartment_id = compartment_id
        self.region = region
        self.freeform_tags = dict(freeform_tags or {})
        self.depends_on = list(depends_on)


class WeightsBucket(pulumi.ComponentResource):
    """The weights bucket (type ``oke-rdma:object_storage:WeightsBucket``); see the module docstring.

    Attributes: ``bucket`` (the created ``oci.objectstorage.Bucket``, None when brought or off), ``namespace`` and
    ``name`` (``Output[str]``, None when off), ``region`` (str), ``brought`` (bool), ``outputs`` (the
    ``weightsBucket`` stack output ``{namespace, name, region}``, or None when off).
    """

    def __init__(self, name: str, args: WeightsBucketArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:object_storage:WeightsBucket", name, None, opts)
        cfg = args.config
        self.bucket: Optional[oci.objectstorage.Bucket] = None
        self.namespace: Optional[pulumi.Output[str]] = None
        self.name: Optional[pulumi.Output[str]] = None
        self.region = args.region
        self.brought = cfg.brought
        self.outputs: Optional[dict[str, pulumi.Input[str]]] = None
        if not cfg.enabled:
            self.register_outputs({})
            return
        if cfg.bucket is not None:
            self.namespace = pulumi.Output.from_input(cfg.bucket.namespace)
            self.name = pulumi.Output.from_input(cfg.bucket.name)
            pulumi.log.info(f"bucket {cfg.bucket.name} (namespace {cfg.bucket.namespace}) is brought "
                            f"(storage.objectStorage.bucket): oke-rdma grants tenants access to it but does not manage "
                            f"it; its access type, versioning and encryption are its owner's", self)
        else:
            namespace = oci.objectstorage.get_namespace_output(
                compartment_id=args.compartment_id, opts=pulumi.InvokeOutputOptions(parent=self)).namespace
            self.bucket = oci.objectstorage.Bucket(args.bucket_name, oci.objectstorage.BucketArgs(
                compartment_id=args.compartment_id, namespace=namespace, name=args.bucket_name,
                access_type="NoPublicAccess", versioning="Enabled", storage_tier="Standard", auto_tiering="Disabled",
                kms_key_id=cfg.kms_key_id, object_events_enabled=cfg.object_events_enabled,
                freeform_tags=args.freeform_tags),
                pulumi.ResourceOptions(parent=self, protect=cfg.protect, depends_on=args.depends_on))
            if cfg.protect:
                pulumi.log.info(f"bucket {args.bucket_name} is protected: pulumi destroy stops at it (and keeps its "
                                f"objects) until storage.objectStorage.protect is false and pulumi up has run",
                                self.bucket)
            else:
                pulumi.log.warn(f"bucket {args.bucket_name} is NOT protected (storage.objectStorage.protect: false): "
                                f"pulumi destroy deletes it (OCI refuses while it holds objects or versions)",
                                self.bucket)
            self.namespace = self.bucket.namespace
            self.name = self.bucket.name
        self.outputs = {"namespace": self.namespace, "name": self.name, "region": self.region}
        self.register_outputs({"namespace": self.namespace, "name": self.name, "region": self.region})
