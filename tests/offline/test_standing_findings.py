"""A --previous report prints what is new: a warning, an advisory finding or a not-checked note the previous plan
already had, word for word, is counted on one line that says where to read it (--details, the JSON plan); a new or
changed one is printed. Errors and mandatory findings are always printed, and the JSON plan keeps everything."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import yaml

from offline import preview
from offline.report import _policy_lines, diagnostics_block

ROOT = Path(__file__).resolve().parents[2]
URN = "urn:pulumi:dev::oke-rdma::pulumi:pulumi:Stack::oke-rdma-dev"


def _run(diagnostics=(), advisories=()):
    return SimpleNamespace(diagnostics=list(diagnostics), advisories=list(advisories), stack_urn=URN, resources=[],
                           analyzed_resources=lambda: [])


def _plan(diagnostics=(), violations=(), not_checked=()):
    return {"diagnostics": [{"severity": s, "message": m} for s, m in diagnostics],
            "policyViolations": [{"policy": p, "enforcementLevel": level, "urn": "u", "message": m}
                                 for p, level, m in violations], "notChecked": list(not_checked)}


def test_a_warning_the_previous_plan_had_is_counted_and_a_new_or_changed_one_printed():
    run = _run([("warning", "standing"), ("warning", "quota 20 of 16"), ("warning", "new")])
    lines = diagnostics_block(run, "dev", 100, previous_plan=_plan([("warning", "standing"),
                                                                     ("warning", "quota 18 of 16")]))
    assert "    warning: new" in lines and "    warning: quota 20 of 16" in lines
    assert "    warning: standing" not in lines
    assert "    (1 warning unchanged since the previous plan: --details, or the JSON plan)" in lines


def test_an_error_is_printed_even_when_the_previous_plan_had_it():
    run = _run([("error", "refused"), ("warning", "standing")])
    lines = diagnostics_block(run, "dev", 100, previous_plan=_plan([("error", "refused"), ("warning", "standing")]))
    assert "    error: refused" in lines and "    warning: standing" not in lines


def test_without_a_previous_plan_every_warning_is_printed():
    run = _run([("warning", "standing")])
    assert "    warning: standing" in diagnostics_block(run, "dev", 100)
    assert "    warning: standing" in diagnostics_block(run, "dev", 100, previous_plan={"resources": []})


def _report(*violations):
    pack = SimpleNamespace(name="sec", version="1", path="policies/security")
    return SimpleNamespace(packs=[pack], not_run=[], violations=[
        SimpleNamespace(pack="sec", policy=p, enforcement_level=level, urn="u", message=m) for p, level, m in violations])


def test_an_advisory_finding_the_previous_plan_had_is_counted_a_mandatory_one_always_printed():
    report = _report(("old-advice", "advisory", "same text"), ("hard-rule", "mandatory", "same text"),
                     ("new-advice", "advisory", "new text"))
    previous = _plan(violations=[("old-advice", "advisory", "same text"), ("hard-rule", "mandatory", "same text")])
    text = "\n".join(_policy_lines(_run(), report, previous))
    assert "old-advice" not in text and "[mandatory]  hard-rule" in text and "[advisory]  new-advice" in text
    assert "(1 advisory finding unchanged since the previous plan: --details, or the JSON plan)" in text
    assert "[advisory]  old-advice" in "\n".join(_policy_lines(_run(), report))  # no previous plan: all


def test_a_not_checked_note_the_previous_plan_had_is_counted():
    text = "\n".join(_policy_lines(_run(advisories=["a chart", "a new chart"]), _report(),
                                   _plan(not_checked=["a chart"])))
    assert "Not checked offline (2):" in text and "[advisory]  a new chart" in text
    assert "[advisory]  a chart\n" not in text + "\n" and "(1 note unchanged since the previous plan" in text


def test_a_one_key_change_of_the_dev_stack_folds_its_standing_warnings_and_shows_a_new_one(tmp_path, capsys,
                                                                                         dev_plan_file):
    """The dev stack's standing warnings are counted; the FSS cost warning the change brings is printed; the JSON
    plan holds every warning, and --details prints them all."""
    old = json.loads(dev_plan_file[0].read_text())
    standing = [d["message"] for d in old["diagnostics"] if d["severity"] == "warning"]
    assert standing, "the dev stack has standing warnings to fold"
    (tmp_path / "old.json").write_text(dev_plan_file[0].read_text())
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    doc["config"]["oke-rdma:storage"]["fss"]["throughputGbps"] = 20
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump(doc))
    args = ["--config-file", str(tmp_path / "Pulumi.dev.yaml"), "--previous", str(tmp_path / "old.json")]
    assert preview.main([*args, "--json", str(tmp_path / "new.json")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"({len(standing)} warning{'s' if len(standing) != 1 else ''} unchanged since the previous plan" in out
    assert all(" ".join(m.split()) not in out for m in standing)
    assert "20 Gbps is a high-performance tier" in out  # new with this change
    plan = json.loads((tmp_path / "new.json").read_text())
    assert set(standing) <= {d["message"] for d in plan["diagnostics"]}
    assert preview.main([*args, "--details"]) == 0
    details = " ".join(capsys.readouterr().out.split())
    assert all(" ".join(m.split()) in details for m in standing)
