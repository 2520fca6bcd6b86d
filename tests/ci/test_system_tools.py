"""Tests that need a system tool skip with one line naming it on a machine without it, and fail in CI (CI=true)."""

from __future__ import annotations

import pytest

from tests import systemtools

MISSING = "no-such-tool-okerdma"


def test_a_missing_tool_skips_with_its_name_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception) as info:
        systemtools.require(MISSING)
    assert str(info.value).startswith(f"{MISSING} is missing: install") and "\n" not in str(info.value)


def test_a_missing_tool_fails_in_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception) as info:
        systemtools.require(MISSING)
    assert MISSING in str(info.value) and "CI=true" in str(info.value)


def test_a_present_tool_is_returned(monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert systemtools.require("python3").endswith("python3")
