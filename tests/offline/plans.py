"""Plan a variant of the dev stack in-process and read its JSON plan (shared by the --previous tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Optional

import yaml

from offline import preview

ROOT = Path(__file__).resolve().parents[2]


def dev_plan(tmp_path: Path, name: str, edit: Optional[Callable[[dict], Any]] = None,
             *extra: str) -> tuple[int, Optional[dict]]:
    """Preview ``Pulumi.dev.yaml`` after ``edit(config)`` (written as ``tmp_path/Pulumi.dev.yaml``, so the stack
    stays ``dev``) with ``--json tmp_path/name`` and ``extra`` flags; returns the exit code and the plan (None when
    the preview wrote none)."""
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    if edit:
        edit(doc["config"])
    cfg = tmp_path / "Pulumi.dev.yaml"
    cfg.write_text(yaml.safe_dump(doc))
    out = tmp_path / name
    code = preview.main(["--config-file", str(cfg), "--json", str(out), *extra])
    return code, json.loads(out.read_text()) if out.exists() else None
