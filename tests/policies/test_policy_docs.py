"""The packs document themselves: docs/policies.md's tables are generated from them, every rule carries its metadata,
and every pack's vendored helper copy is identical to its source."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ResourceValidationPolicy, Severity,
                           StackValidationPolicy)

from policies import PACK_DIRS, SOURCE_PACK, VENDORED, doc

ROOT = Path(__file__).resolve().parents[2]
PACK_IDS = [d.name for d in PACK_DIRS]


def test_docs_policy_tables_are_generated_from_the_packs():
    page = (ROOT / "docs" / "policies.md").read_text(encoding="utf-8")
    block, problems = doc.render_packs()
    assert problems == []
    assert doc.splice(page, block) == page, (
        "docs/policies.md's policy tables are stale: run `python -m policies.doc --write` (make policy-docs)")


def test_one_section_per_pack_in_cli_order():
    block, _ = doc.render_packs()
    heads = [line for line in block.splitlines() if line.startswith("### ")]
    assert heads == [f"### `{doc.pack_module(d).PACK_NAME}` (`policies/{d.name}`, version 0.2.0)" for d in PACK_DIRS]


@pytest.mark.parametrize("pack_dir", PACK_DIRS, ids=PACK_IDS)
def test_every_policy_has_complete_metadata(pack_dir):
    assert doc.metadata_problems(doc.pack_module(pack_dir).POLICIES, doc.rule_modules(pack_dir)) == []


@pytest.mark.parametrize("pack_dir", PACK_DIRS, ids=PACK_IDS)
def test_the_table_has_a_row_per_policy_with_every_column(pack_dir):
    policies, modules = doc.pack_module(pack_dir).POLICIES, doc.rule_modules(pack_dir)
    behaviour = doc.unknown_behaviour(modules)
    table = doc.render_table(policies, behaviour).splitlines()
    assert len(table) == 2 + len(policies)
    for line, policy in zip(table[2:], policies):
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        assert len(cells) == len(doc.COLUMNS), line
        assert cells[:4] == [f"`{policy.name}`", doc.kind(policy), policy.enforcement_level.value,
                             policy.severity.value]
        assert cells[4] == " ".join(policy.description.split()) and cells[6] == behaviour[policy.name]


def test_config_parameters_are_in_the_table():
    table, _ = doc.render_packs()
    row = next(line for line in table.splitlines() if "`rdma-node-pool-placement`" in line)
    assert '`allowedShapes` (array of string, default `["BM.GPU.H100.8"' in row
    row = next(line for line in table.splitlines() if "`kubernetes-api-not-public`" in line)
    assert "`allowedApiCidrs` (array of string, default `[]`)" in row


@pytest.mark.parametrize("pack_dir", PACK_DIRS, ids=PACK_IDS)
def test_every_rule_module_is_in_its_pack_and_explains_unknowns(pack_dir):
    modules = doc.rule_modules(pack_dir)
    assert modules and all(name.startswith(f"policies/{pack_dir.name}/") for name in modules)
    in_pack = {p.name for p in doc.pack_module(pack_dir).POLICIES}
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
    problems = doc.metadata_problems([complete, _bare(), stack], {"policies/x/m.py": module, "policies/x/o.py": orphan},
                                     "policies/x/pack.py")
    assert problems == [
        "complete: config property 'x' needs a 'type' and a 'description'",
        "bare: missing description, severity, remediation_steps, enforcement_level, tags, UNKNOWN_BEHAVIOUR entry",
        "s: missing severity, remediation_steps, enforcement_level, tags, UNKNOWN_BEHAVIOUR entry",
        "policies/x/o.py exports POLICIES but no UNKNOWN_BEHAVIOUR",
        "orphan (policies/x/o.py) is not in the pack's POLICIES; add the module to policies/x/pack.py",
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
    stale = tmp_path / "policies.md"
    stale.write_text(f"# x\n{doc.BEGIN}\nold\n{doc.END}\n")

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "policies.doc", *args, "--docs", str(stale)], cwd=ROOT,
                              capture_output=True, text=True)
    out = cli("--check")
    assert out.returncode == 1 and "stale" in out.stderr
    assert cli("--write").returncode == 0 and cli("--check").returncode == 0
    assert doc.render_packs()[0] in stale.read_text()


@pytest.mark.parametrize("name", VENDORED)
def test_vendored_helpers_are_identical_in_every_pack(name):
    """Each pack is published on its own, so it carries its own copy of a shared helper; the copies never drift."""
    source = (SOURCE_PACK / name).read_bytes()
    for pack_dir in PACK_DIRS:
        assert (pack_dir / name).read_bytes() == source, (
            f"policies/{pack_dir.name}/{name} differs from policies/{SOURCE_PACK.name}/{name}: run "
            "`python -m policies.doc --write`")
    assert doc.vendored_problems() == []


def test_a_drifted_vendored_copy_is_reported_and_refreshed(tmp_path):
    """A copy that differs from its source is named by --check and rewritten by --write (run on a scratch tree)."""
    import shutil

    for pack_dir in PACK_DIRS:
        shutil.copytree(pack_dir, tmp_path / pack_dir.name)
    dirs = [tmp_path / d.name for d in PACK_DIRS]
    drifted = next(d for d in dirs if d.name != SOURCE_PACK.name) / VENDORED[0]
    drifted.write_text(drifted.read_text() + "\n# local edit\n")
    original = doc.SOURCE_PACK
    doc.SOURCE_PACK = tmp_path / SOURCE_PACK.name
    try:
        [problem] = doc.vendored_problems(dirs)
        assert problem.startswith(f"policies/{drifted.parent.name}/{VENDORED[0]} differs from")
        assert doc.sync_vendored(dirs) == [drifted] and doc.vendored_problems(dirs) == []
    finally:
        doc.SOURCE_PACK = original


def test_doc_module_imports_nothing_from_the_program_or_offline():
    text = (ROOT / "policies" / "doc.py").read_text()
    for banned in ("oke_rdma", "components", "offline"):
        assert f"import {banned}" not in text and f"from {banned}" not in text


def test_a_rule_module_outside_both_packs_is_reported(tmp_path):
    """A module in policies/ itself would be loaded by neither pack: the docs check names it."""
    for name in ("__init__.py", "doc.py", "exposure.py"):
        (tmp_path / name).write_text("")
    (tmp_path / "security").mkdir()
    assert doc.stray_modules(tmp_path, [tmp_path / "security"]) == [
        "policies/exposure.py is in no pack; move it into one of policies/security (with its tests' imports)"]
    assert doc.stray_modules() == []
