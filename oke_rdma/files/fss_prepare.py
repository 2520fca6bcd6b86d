"""Create each tenant's directory on a shared file system (FSS or Lustre), owned by the tenant's UID/GID.

Run by the platform's preparation Job (``oke_rdma.preparation``) as root with the file system mounted at
``PREPARE_ROOT`` (default ``/fss``): FSS through the workers-only preparation export (``identitySquash: NONE``),
Lustre from a node whose address is a root-squash client exception. ``PREPARE_PLAN`` (JSON) lists
``{"path", "uid", "gid", "mode"}`` entries; ``path`` is relative to the file system's top directory (``""`` is the
top directory itself). Idempotent: existing directories keep their contents and get the owner and mode again. Exits non-zero (the Job retries) on any
error, naming the entry.
"""

import json
import os
import sys

def main() -> int:
    root = os.path.normpath(os.environ.get("PREPARE_ROOT", "/fss"))
    plan = json.loads(os.environ["PREPARE_PLAN"])
    for entry in plan:
        path = os.path.normpath(os.path.join(root, entry["path"]))
        if os.path.commonpath([root, path]) != root:
            print(f"refused: {entry['path']!r} leaves the file system", file=sys.stderr)
            return 2
        try:
            os.makedirs(path, exist_ok=True)
            os.chown(path, entry["uid"], entry["gid"])
            os.chmod(path, int(entry["mode"], 8))
        except OSError as err:
            print(f"{entry['path'] or '/'}: {err}", file=sys.stderr)
            return 1
        print(f"{entry['path'] or '/'}: owner {entry['uid']}:{entry['gid']} mode {entry['mode']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
