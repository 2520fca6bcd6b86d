"""The security pack's policy config a stack's own config implies: the Vault keys it brings from outside.

A stack may encrypt its protected stores with keys of a vault it does not manage (the prod stack's cluster, file
system and bucket keys live in the security team's vault: ``Pulumi.prod.yaml``). The security pack's
``protected-data-keys-kept`` refuses a protected store whose ``kmsKeyId`` is neither an ``oci:Kms/key:Key`` of the
stack nor listed in its policy config's ``broughtKeys`` (docs/policies.md): whoever holds such a key can make the
data unreadable, so bringing one is a decision kept in the reviewed stack config and the policy config, never in
the program's resources.

:func:`security_policy_config` writes that policy config from the reviewed stack config: the stack's own
``kmsKeyId`` values (``cluster.kmsKeyId``, ``storage.fss.kmsKeyId``, ``storage.lustre.kmsKeyId``,
``storage.objectStorage.kmsKeyId``), each already validated as a key OCID by the config model. A key written into a
program by hand is never listed, so the rule still refuses it (fails closed). The offline preview uses it when no
``--policy-config`` is given; for the Pulumi CLI, ``python -m offline.security_config --stack <stack> >
security.json`` and pass ``--policy-pack policies/security --policy-pack-config security.json``
(docs/policy-config.md).

Source: policies/security/protected_keys.py (``broughtKeys``; read 2026-12-02).
"""
from __future__ import annotations

from typing import Any, Optional

#: The security pack's rule and its config property (policies/security/protected_keys.py; a test keeps them equal).
KEYS_POLICY = "protected-data-keys-kept"
BROUGHT_KEY = "broughtKeys"


def brought_key_ids(config: Any) -> list[str]:
    """The Vault key OCIDs ``config`` (a :class:`~oke_rdma.config.StackConfig`) sets as ``kmsKeyId``, sorted, each
    once."""
    storage = config.storage
    found = [config.cluster.kms_key_id, storage.fss.kms_key_id, storage.object_storage.kms_key_id,
             storage.lustre.kms_key_id if storage.lustre is not None else None]
    return sorted({k for k in found if k})


def security_policy_config(config: Any) -> Optional[dict[str, Any]]:
    """The security pack's ``--policy-pack-config`` content ``config`` implies, or None when it implies nothing
    (every rule keeps its defaults)."""
    keys = brought_key_ids(config)
    return {KEYS_POLICY: {BROUGHT_KEY: keys}} if keys else None
