"""``python -m oke_rdma.fleet render [--fleet fleet/fleet.yaml] [--check]``: check the fleet file, resolve every
stack's config through the product's config model, render the operator's and Flux's objects into
``<fleet dir>/rendered/``, validate them offline (:mod:`oke_rdma.fleet.validate`) and write them. ``--check``
writes nothing and fails when the rendered directory is stale (what a test and CI run, like ``make docs``).

``python -m oke_rdma.fleet new-cluster ...``: a new cluster's stack file and entry (:mod:`.newcluster`).

Exit codes: 0 written (or fresh), 1 stale (``--check``) or a rendered object fails validation, 2 the fleet file or a
stack's config is invalid (one line per problem naming the key path and the fix).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from .load import FleetError
from .newcluster import main as new_cluster
from .write import render_command


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["new-cluster"]:
        try:
            return new_cluster(argv[1:])
        except FleetError as e:
            print("error: the fleet is invalid as it is; fix it first:", file=sys.stderr)
            for p in e.problems:
                print(f"  {p}", file=sys.stderr)
            return 2
    parser = argparse.ArgumentParser(prog="python -m oke_rdma.fleet", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    cmd = sub.add_parser("render", help="render, validate and write <fleet dir>/rendered")
    # Listed for --help; its own parser (newcluster.main) reads its arguments, dispatched above.
    sub.add_parser("new-cluster", add_help=False,
                   help="a new cluster's stack file and fleet entry (new-cluster --help for its flags)")
    cmd.add_argument("--fleet", type=Path, default=Path("fleet/fleet.yaml"), help="the fleet file")
    cmd.add_argument("--check", action="store_true", help="write nothing; exit 1 if the rendered files are stale")
    args = parser.parse_args(argv)
    return render_command(args.fleet, args.check)


if __name__ == "__main__":
    sys.exit(main())
