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

from .load import FleetError, load_fleet
from .render import render
from .resolve import resolve
from .validate import crd_digest_problems, validate_files


def stale_files(out: Path, files: dict[str, str]) -> list[str]:
    """Relative paths under ``out`` that differ from ``files``: changed, missing or not rendered any more."""
    stale = [p for p, text in files.items() if not (out / p).is_file() or (out / p).read_text(encoding="utf-8") != text]
    if out.is_dir():
        stale += [p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()
                  and p.relative_to(out).as_posix() not in files]
    return sorted(stale)


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["new-cluster"]:
        from .newcluster import main as new_cluster
        try:
            return new_cluster(argv[1:])
        except FleetError as e:
            print("error: the fleet is invalid as it is; fix it first:", file=sys.stderr)
            for p in e.problems:
                print(f"  {p}", file=sys.stderr)
            return 2
    parser = argparse.ArgumentParser(prog="python -m oke_rdma.fleet", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    cmd = sub.add_parser("render", help="render, validate and write <fleet dir>/rendered")
    cmd.add_argument("--fleet", type=Path, default=Path("fleet/fleet.yaml"), help="the fleet file")
    cmd.add_argument("--check", action="store_true", help="write nothing; exit 1 if the rendered files are stale")
    args = parser.parse_args(argv)
    try:
        fleet = load_fleet(args.fleet)
        stacks = resolve(fleet)
    except FleetError as e:
        count = f"{len(e.problems)} problem" + ("s" if len(e.problems) != 1 else "")
        print(f"error: {args.fleet}: invalid fleet ({count}):", file=sys.stderr)
        for p in e.problems:
            print(f"  {p}", file=sys.stderr)
        return 2
    rendered = render(fleet, stacks)
    problems = crd_digest_problems() + validate_files(rendered.files)
    if problems:
        print(f"error: the rendered objects fail validation ({len(problems)}):", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    out = fleet.root / "rendered"
    stale = stale_files(out, rendered.files)
    if args.check:
        if stale:
            print(f"error: {out} is stale ({len(stale)} files: {', '.join(stale[:5])}{' ...' if len(stale) > 5 else ''}); "
                  f"run python -m oke_rdma.fleet render --fleet {args.fleet}", file=sys.stderr)
            return 1
        print(f"{out}: fresh ({len(rendered.files)} files, {len(rendered.objects())} objects valid)")
        return 0
    for rel in stale:
        path = out / rel
        if rel in rendered.files:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(rendered.files[rel], encoding="utf-8")
        else:
            path.unlink()
    print(f"{out}: {len(stale)} files written or removed; {len(rendered.files)} files, "
          f"{len(rendered.objects())} objects valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
