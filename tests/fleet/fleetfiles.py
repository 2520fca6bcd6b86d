"""A copy of the example fleet (fleet/) in a temporary directory, edited per test."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Callable, Optional

import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "fleet"


def example_doc() -> dict[str, Any]:
    return yaml.safe_load((EXAMPLE / "fleet.yaml").read_text())


def fleet_copy(tmp: Path, edit: Optional[Callable[[dict[str, Any]], Any]] = None) -> Path:
    """fleet.yaml, defaults.yaml and stacks/ copied into ``tmp`` (not rendered/), fleet.yaml edited by ``edit``."""
    shutil.copy(EXAMPLE / "defaults.yaml", tmp / "defaults.yaml")
    shutil.copytree(EXAMPLE / "stacks", tmp / "stacks", dirs_exist_ok=True)
    doc = example_doc()
    if edit:
        edit(doc)
    path = tmp / "fleet.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def cluster(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in doc["clusters"] if c["name"] == name)
