"""Print the oke-rdma-placement policy config (``--policy-pack-config``) a stack's config implies.

``python -m offline.placement_config --stack gov-lon > placement.json`` writes ``allowedOutsideComputeCluster`` of
``rdma-shape-in-compute-cluster`` for the stack's pools declared ``rdma: false`` on an RDMA-capable shape
(:func:`oke_rdma.placement_allowances.placement_policy_config`); pass it to the Pulumi CLI with ``--policy-pack
policies/placement --policy-pack-config placement.json``. The offline preview derives the same config by itself
when no ``--policy-config`` is given. Exit 0, or 2 for a stack file or config it refuses (one line per problem).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable, Optional

from offline.stackfile import StackFileError, read_stack_file

PROJECT_DIR = Path(__file__).resolve().parent.parent


def export_main(argv: Optional[list[str]], prog: str, doc: str, derive: Callable[[Any], Optional[dict]]) -> int:
    """Print ``derive(stack config)`` (a pack's policy config, ``{}`` when it implies nothing) for
    ``Pulumi.<stack>.yaml`` as JSON; exit 2 with one line per problem for a stack file or config it refuses."""
    parser = argparse.ArgumentParser(prog=prog, description=" ".join(doc.split("\n\n")[0].split()))
    parser.add_argument("--stack", default="dev", help="stack name; reads Pulumi.<stack>.yaml (default: dev)")
    parser.add_argument("--config-file", type=Path, default=None, help="the stack file (default: Pulumi.<stack>.yaml)")
    args = parser.parse_args(argv)
    from oke_rdma.config import ConfigError, load_stack_config

    path = args.config_file or PROJECT_DIR / f"Pulumi.{args.stack}.yaml"
    try:
        raw, secret_keys = read_stack_file(path)
        config = load_stack_config(raw, secret_keys)
    except ConfigError as e:
        print(f"error: {path.name}: invalid stack configuration:", file=sys.stderr)
        for problem in e.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    except (OSError, StackFileError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(derive(config) or {}, indent=2))
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    """Print the placement pack's policy config for ``Pulumi.<stack>.yaml`` as JSON (``{}`` when nothing is
    implied)."""
    from oke_rdma.placement_allowances import placement_policy_config

    return export_main(argv, "python -m offline.placement_config", __doc__, placement_policy_config)


if __name__ == "__main__":
    sys.exit(main())
