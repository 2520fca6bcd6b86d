"""A store switched from one Vault key to another against the previous plan, in the same update that drops the old
key's grant: what ``pulumi up`` would do, and the two-step procedure that keeps the store working.

The grant (an IAM statement pinned to ``target.key.id``) is updated before the store that depends on it, and OCI
evaluates it when the store uses the key (OCI IAM docs, "Policy Reference" and the services' Vault pages: the grant
must exist while the service uses the key; checked 2026-12-02). Until the store has switched to the new key it still
uses the old one, whose grant is already gone: writes (or, for a file system, mounts) can fail in between. The
program cannot see the key the store had (it knows only the config), so the offline preview says it with
``--previous``; the fix is ``previousKmsKeyIds`` (the old key's grant kept for the update that switches), removed in
the next update (docs/operations.md, "Rotating a key"). A new key *version* (rotation in Vault) changes no OCID and
needs none of this.
"""

from __future__ import annotations

import json
from typing import Any, Optional

#: (config key, path to the store's key, path to its previousKmsKeyIds, what uses the key).
STORES = (
    ("oke-rdma:storage", ("fss", "kmsKeyId"), ("fss", "previousKmsKeyIds"), "the file system"),
    ("oke-rdma:storage", ("objectStorage", "kmsKeyId"), ("objectStorage", "previousKmsKeyIds"), "the weights bucket"),
    ("oke-rdma:cluster", ("kmsKeyId",), ("previousKmsKeyIds",), "the cluster (Kubernetes secrets)"),
)


def _get(config: dict, key: str, path: tuple[str, ...]) -> Any:
    node: Any = config.get(key)
    if isinstance(node, str):
        try:
            node = json.loads(node)
        except ValueError:
            return None
    for part in path:
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def kms_changes(previous: Optional[dict], config: dict[str, Any]) -> list[str]:
    """One warning line per store whose ``kmsKeyId`` was key A in ``previous`` (a plan) and is now another (or none)
    while A is not in the store's ``previousKmsKeyIds``: the update drops A's grant while the store still uses A.
    ``config`` is the stack's raw config (values as JSON text or decoded). Nothing without ``previous``."""
    if not previous or not isinstance(previous.get("config"), dict):
        return []
    out = []
    for key, path, kept_path, what in STORES:
        old, new = _get(previous["config"], key, path), _get(config, key, path)
        kept = _get(config, key, kept_path) or []
        if not isinstance(old, str) or old == new or (isinstance(kept, list) and old in kept):
            continue
        at = f"{key}.{'.'.join(path)}"
        keep = f"{key}.{'.'.join(kept_path)}"
        out.append(f"{at}: changes from {old} to {new or 'Oracle-managed keys'}, and this update drops the old key's "
                   f"grant before {what} has switched (OCI checks the grant when {what} uses the key): add "
                   f"{old} to {keep} for this update and remove it in the next (docs/operations.md, \"Rotating a "
                   f"key\"); a new key version in Vault needs no config change")
    return out
