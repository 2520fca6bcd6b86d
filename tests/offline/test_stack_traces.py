"""The offline engine registers resources without the SDK's stack traces and source positions, which nothing offline
reads; the SDK internal it replaces is checked, so the day the SDK moves it this fails instead of silently costing
time again."""

from __future__ import annotations

import pulumi
from pulumi.runtime import resource as sdk_resource

from offline import stack_traces
from offline.engine import run_program


def test_the_sdk_still_computes_stack_traces_where_the_replacement_expects():
    """pulumi.runtime.resource still has _get_stack_trace, and register_resource and read_resource call it by name."""
    assert stack_traces.check() == []


def test_an_sdk_that_stopped_calling_it_is_reported(monkeypatch):
    """The check above can fail: a register_resource that no longer calls _get_stack_trace() is named."""
    monkeypatch.setattr(sdk_resource, "register_resource", lambda *a, **k: None)
    assert stack_traces.check() == [
        "pulumi.runtime.resource.register_resource no longer calls _get_stack_trace()"]


def test_inside_the_context_no_stack_trace_is_computed_and_after_it_the_sdk_is_as_before():
    original = sdk_resource._get_stack_trace
    with stack_traces.without_stack_traces():
        assert len(sdk_resource._get_stack_trace().frames) == 0
    assert sdk_resource._get_stack_trace is original


def test_a_program_run_registers_without_stack_traces_and_restores_the_sdk():
    """During a run the SDK's stack-trace function is the empty one (seen from inside the program); after it, the
    SDK's own again."""
    seen = []

    def program():
        seen.append(sdk_resource._get_stack_trace)
        pulumi.CustomResource("test:index:Thing", "thing", {})

    original = sdk_resource._get_stack_trace
    run = run_program({}, [], "t", program=program)
    assert seen == [stack_traces._no_stack_trace]
    assert [r.name for r in run.resources if r.type == "test:index:Thing"] == ["thing"]
    assert sdk_resource._get_stack_trace is original
