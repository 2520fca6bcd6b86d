"""Run one component alone under the offline mocks and look up what it registered."""

from __future__ import annotations

from typing import Callable, Optional

from oke_rdma.config import StackConfig, load_from_pulumi
from offline.engine import ProgramRun, run_program
from offline.policy_eval import EngineResource


def run_component(raw: dict[str, str], build: Callable[[StackConfig], None], *, unknowns: bool = False) -> ProgramRun:
    """Run ``build(config)`` as the whole program (preview=False unless ``unknowns``) and return the recording."""
    return run_program(raw, [], "test", unknowns=unknowns, program=lambda: build(load_from_pulumi()))


def of_type(run: ProgramRun, typ: str) -> list[EngineResource]:
    """Every recorded resource of type ``typ`` (registration order)."""
    return [r for r in run.resources if r.type == typ]


def named(run: ProgramRun, name: str) -> EngineResource:
    """The recorded resource called ``name``."""
    found: Optional[EngineResource] = next((r for r in run.resources if r.name == name), None)
    assert found is not None, f"no resource named {name}: {[r.name for r in run.resources]}"
    return found
