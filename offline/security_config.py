"""Print the oke-rdma-security policy config (``--policy-pack-config``) a stack's config implies.

``python -m offline.security_config --stack prod > security.json`` writes ``broughtKeys`` of
``protected-data-keys-kept``: the stack config's own ``kmsKeyId`` values (cluster, File Storage, Lustre, Object
Storage), the Vault keys it brings from a vault it does not manage
(:func:`oke_rdma.brought_keys.security_policy_config`); pass it to the Pulumi CLI with ``--policy-pack
policies/security --policy-pack-config security.json``. The offline preview derives the same config by itself when no
``--policy-config`` is given. Exit 0, or 2 for a stack file or config it refuses (one line per problem).
"""
from __future__ import annotations

import sys
from typing import Optional

from offline.placement_config import export_main


def main(argv: Optional[list[str]] = None) -> int:
    """Print the security pack's policy config for ``Pulumi.<stack>.yaml`` as JSON (``{}`` when nothing is
    implied)."""
    from oke_rdma.brought_keys import security_policy_config

    return export_main(argv, "python -m offline.security_config", __doc__, security_policy_config)


if __name__ == "__main__":
    sys.exit(main())
