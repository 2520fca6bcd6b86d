"""Render a fleet to disk (``python -m oke_rdma.fleet render``): check, resolve, render, validate, then write or
compare (``--check``). Exit codes: 0 written or fresh, 1 stale or a rendered object invalid, 2 the fleet invalid."""

from __future__ import annotations

import sys
from pathlib import Path

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


def render_command(fleet_path: Path, check: bool = False) -> int:
    """Render the fleet at ``fleet_path`` into ``<its directory>/rendered`` (or, with ``check``, compare); see the
    module docstring for the exit codes. Problems are printed to stderr, one line each."""
    try:
        fleet = load_fleet(fleet_path)
        stacks = resolve(fleet)
    except FleetError as e:
        count = f"{len(e.problems)} problem" + ("s" if len(e.problems) != 1 else "")
        print(f"error: {fleet_path}: invalid fleet ({count}):", file=sys.stderr)
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
    if check:
        if stale:
            shown = ", ".join(stale[:5]) + (" ..." if len(stale) > 5 else "")
            print(f"error: {out} is stale ({len(stale)} files: {shown}); "
                  f"run python -m oke_rdma.fleet render --fleet {fleet_path}", file=sys.stderr)
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

