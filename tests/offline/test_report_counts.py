"""A --previous report's counts count what is listed under them: ``Config changed (N)`` the changed values listed
(with the keys they belong to when those differ), ``Outputs changed (N)`` the changed output values listed; and a
warning of the previous plan that this run no longer gives is said to be resolved, not left to vanish."""

from __future__ import annotations

import re
from types import SimpleNamespace

from offline.config_diff import UNSET
from offline.report import diagnostics_block
from offline.report_changes import config_block


def _listed(lines: list[str]) -> int:
    return sum(1 for line in lines[1:] if re.match(r"^    \S", line))


def test_a_new_map_counts_its_listed_values_and_names_the_key_count():
    changed = [("nodePools.eval", UNSET, {"shape": "VM.GPU.A10.2", "size": 2, "bootVolumeGb": 200})]
    lines = config_block(changed, 120)
    assert lines[0] == "Config changed (3 values in 1 key):" and _listed(lines) == 3


def test_as_many_values_as_keys_is_one_number():
    changed = [("network.apiEndpoint.public", False, True), ("nodePools.gpu.size", 2, 3)]
    lines = config_block(changed, 120)
    assert lines[0] == "Config changed (2):" and _listed(lines) == 2


def _run(*warnings: str):
    return SimpleNamespace(diagnostics=[("warning", w) for w in warnings], stack_urn="urn:pulumi:dev::oke-rdma::x")


def test_warnings_the_change_resolves_are_counted_and_named():
    previous = {"diagnostics": [{"severity": "warning", "message": "pool gpu2 is idle: set tenants.speech.nodePools"},
                                {"severity": "warning", "message": "still here"}]}
    lines = diagnostics_block(_run("still here"), "dev", 120, previous_plan=previous)
    assert "    (1 warning of the previous plan resolved:)" in lines
    assert "      resolved: pool gpu2 is idle: set tenants.speech.nodePools" in lines
    assert any("1 warning unchanged" in line for line in lines)


def test_no_resolved_line_when_every_previous_warning_remains_or_without_a_previous_plan():
    previous = {"diagnostics": [{"severity": "warning", "message": "still here"}]}
    assert not any("resolved" in line for line in diagnostics_block(_run("still here", "new"), "dev", 120,
                                                                       previous_plan=previous))
    assert not any("resolved" in line for line in diagnostics_block(_run("new"), "dev", 120))
