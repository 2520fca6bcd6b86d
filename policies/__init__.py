"""oke-rdma's two CrossGuard policy packs, each a directory the Pulumi CLI loads with ``--policy-pack DIR``:

* ``policies/security`` (pack ``oke-rdma-security``): identity, exposure, pod privilege and data — the pack an
  organisation applies to every stack;
* ``policies/placement`` (pack ``oke-rdma-placement``): RDMA placement in a Compute Cluster — per project.

The real command: ``pulumi preview --policy-pack policies/security --policy-pack policies/placement``.

Shared helpers are vendored, not imported across packs. ``pulumi policy publish`` uploads one pack directory (and
the CLI runs a pack with only that directory on ``sys.path``), so a pack cannot import ``../_rules.py``; a shared
helper package would have to be published to an index and pinned in each pack's ``requirements.txt``, which is heavy
for one module that changes together with the rules. So every pack directory holds its own copy of each file in
:data:`VENDORED`; the copy in ``policies/security/`` is the source, ``python -m policies.doc --write`` refreshes the
others, and ``tests/policies/test_policy_docs.py`` fails when a copy differs from the source.

For tests and ``offline/``: ``policies.security.pack`` / ``policies.placement.pack`` (``PACK_NAME``, ``POLICIES``,
``PACK_ENFORCEMENT_LEVEL``).
"""
from __future__ import annotations

from pathlib import Path

POLICIES_DIR = Path(__file__).resolve().parent
#: The pack directories, in the order the CLI is given them (``--policy-pack`` repeated).
PACK_DIRS: tuple[Path, ...] = (POLICIES_DIR / "security", POLICIES_DIR / "placement")
#: The pack whose copy of each vendored helper is the source.
SOURCE_PACK = POLICIES_DIR / "security"
#: Helper modules every pack carries its own identical copy of.
VENDORED: tuple[str, ...] = ("_rules.py", "_serve.py", "_gate.py", "_dispatch.py", "_user_data.py")
