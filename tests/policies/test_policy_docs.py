"""The pack documents itself: the policy table of docs/policies.md is generated from it and every rule carries its
metadata."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ResourceValidationPolicy, Severity,
                           StackValidationPolicy)

from policies import doc
from policies.pack import POLICIES

ROOT = Path(__file__).resolve().parents[2]


def test_policy_table_is_generated_from_the_pack():
    page = (ROOT / "docs" / "policies.md").read_text(encoding="utf-8")
    assert doc.splice(page, doc.render_table(POLICIES)) == page, (
        "docs/policies.md's policy table is stale: run `python -m policies.doc --write` (make docs)")


def test_every_policy_has_complete_metadata():
    assert doc.metadata_problems(POLICIES) == []


def test_the_table_has_a_row_per_policy_with_every_column():
    table = doc.render_table(POLICIES).splitlines()
    assert len(table) == 2 + len(POLICIES)
    behaviour = doc.unknown_behaviour()
    for line, policy in zip(table[2:], POLICIES):
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        assert len(cells) == len(doc.COLUMNS), line
        assert cells[:4] == [f"`{policy.name}`", doc.kind(policy), policy.enforcement_level.value,
                             policy.severity.value]
        assert cells[4] == " ".join(policy.description.split()) and cells[6] == behaviour[policy.name]


def test_config_parameters_are_in_the_table():
    table = doc.render_table(POLICIES)
    row = next(line for line in table.splitlines() if "`rdma-node-pool-placement`" in line)
    assert '`allowedShapes` (array of string, default `["BM.GPU.H100.8"' in row
    row = next(line for line in table.splitlines() if "`kubernetes-api-not-public`" in line)
    assert "`allowedApiCidrs` (array of string, default `[]`)" in row


def test_every_rule_module_is_in_the_pack_and_explains_unknowns():
    modules = doc.rule_modules()
    assert {"placement", "network"} <= set(modules)
    in_pack = {p.name for p in POLICIES}
    for name, module in modules.items():
        assert {p.name for p in module.POLICIES} <= in_pack, name
        assert set(module.UNKNOWN_BEHAVIOUR) == {p.name for p in module.POLICIES}, name
        for sentence in module.UNKNOWN_BEHAVIOUR.values():
            assert sentence.startswith(("fails closed", "reads only inputs known at preview", "engine note")), sentence


def _bare(name="bare", **kw):
    return ResourceValidationPolicy(name=name, description=kw.pop("description", " "), validate=lambda a, r: None,
                                    **kw)


def test_metadata_problems_name_what_is_missing():
    complete = _bare("complete", description="d", severity=Severity.LOW, remediation_steps="fix it",
                     enforcement_level=EnforcementLevel.ADVISORY, tags=["t"],
                     config_schema=PolicyConfigSchema({"x": {"type": "string"}}))
    stack = StackValidationPolicy(name="s", description="d", validate=lambda a, r: None)
    module = SimpleNamespace(POLICIES=[complete, _bare(), stack], UNKNOWN_BEHAVIOUR={"complete": "fails closed: x",
                                                                                     "ghost": "reads only inputs"})
    orphan = SimpleNamespace(POLICIES=[_bare("orphan")])
    problems = doc.metadata_problems([complete, _bare(), stack], {"m": module, "o": orphan})
    assert problems == [
        "complete: config property 'x' needs a 'type' and a 'description'",
        "bare: missing description, severity, remediation_steps, enforcement_level, tags, UNKNOWN_BEHAVIOUR entry",
        "s: missing severity, remediation_steps, enforcement_level, tags, UNKNOWN_BEHAVIOUR entry",
        "policies/o.py exports POLICIES but no UNKNOWN_BEHAVIOUR",
        "orphan (policies/o.py) is not in policies.pack.POLICIES; add the module to policies/pack.py",
        "UNKNOWN_BEHAVIOUR names 'ghost', which is not a policy of the pack",
    ]


def test_splice_needs_the_markers_once():
    text = f"a\n{doc.BEGIN}\nold\n{doc.END}\nb\n"
    assert doc.splice(text, "new") == f"a\n{doc.BEGIN}\nnew\n{doc.END}\nb\n"
    for broken in ("no markers", f"{doc.END}\n{doc.BEGIN}", f"{doc.BEGIN}{doc.BEGIN}{doc.END}"):
        with pytest.raises(ValueError, match="must contain"):
            doc.splice(broken, "t")


def test_cells_escape_pipes_and_newlines():
    policy = _bare("p", description="a | b\nc", severity=Severity.LOW, remediation_steps="r",
                   enforcement_level=EnforcementLevel.MANDATORY, tags=["t"])
    row = doc.render_table([policy], {"p": "fails closed"}).splitlines()[2]
    assert "a \\| b c" in row and len(row.replace("\\|", "").split("|")) == len(doc.COLUMNS) + 2


def test_the_command_checks_and_writes(tmp_path):
    stale = tmp_path / "README.md"
    stale.write_text(f"# x\n{doc.BEGIN}\nold\n{doc.END}\n")

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "policies.doc", *args, "--readme", str(stale)], cwd=ROOT,
                              capture_output=True, text=True)
    out = cli("--check")
    assert out.returncode == 1 and "stale" in out.stderr
    assert cli("--write").returncode == 0 and cli("--check").returncode == 0
    assert doc.render_table(POLICIES) in stale.read_text()


def test_doc_module_imports_nothing_from_the_program_or_offline():
    text = (ROOT / "policies" / "doc.py").read_text()
    for banned in ("oke_rdma", "components", "offline"):
        assert f"import {banned}" not in text and f"from {banned}" not in text
