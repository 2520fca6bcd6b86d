"""Every cause of a non-zero exit the preview finds once the program has run is in the report (its Diagnostics when
no other block shows it) and among the JSON plan's ``diagnostics``, as well as on stderr: a reader of the job
summary (stdout) or of the plan alone learns why the preview failed. A clean preview adds no error to either."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from offline import preview

#: A file system (protected with ``rw:protect``) whose availability domain replaces it, and a bucket made public with
#: ``rw:public`` (the security pack's mandatory public-bucket rule).
PROGRAM = '''
import pulumi, pulumi_oci as oci
cfg = pulumi.Config()
C = "ocid1.compartment.oc1..c"
oci.filestorage.FileSystem("fs", availability_domain=cfg.get("ad") or "AD-1", compartment_id=C,
                           opts=pulumi.ResourceOptions(protect=cfg.get_bool("protect") or False))
oci.objectstorage.Bucket("b", compartment_id=C, namespace="ns", name="data",
                         access_type="ObjectRead" if cfg.get_bool("public") else "NoPublicAccess")
'''


def _preview(tmp: Path, name: str, *extra: str, **config: str) -> tuple[int, str, str, dict | None]:
    (tmp / "__main__.py").write_text(PROGRAM)
    (tmp / "Pulumi.yaml").write_text("name: rw\nruntime: python\n")
    stack_file = tmp / f"{name}.yaml"
    stack_file.write_text("config:\n  oci:region: sa-saopaulo-1\n" + "".join(f"  rw:{k}: {v!r}\n" if isinstance(
        v, str) else f"  rw:{k}: {json.dumps(v)}\n" for k, v in config.items()))
    plan = tmp / f"{name}.json"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = preview.main(["--program", str(tmp), "--stack", "dev", "--config-file", str(stack_file),
                             "--json", str(plan), *extra])
    return code, out.getvalue(), err.getvalue(), json.loads(plan.read_text()) if plan.exists() else None


def _errors(plan: dict) -> list[str]:
    return [d["message"] for d in plan["diagnostics"] if d["severity"] == "error"]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The state every case changes: the file system in AD-1 (protected in ``protected.json``), a private bucket."""
    tmp = tmp_path_factory.mktemp("exit-causes")
    for name, config in (("plain", {}), ("protected", {"protect": True})):
        code, _, err, _ = _preview(tmp, name, **config)
        assert code == 0, err
    return tmp


def test_a_clean_preview_has_no_error_in_the_report_or_the_plan(base, tmp_path):
    """Exit 0: no error line in the report, none among the plan's diagnostics, nothing on stderr."""
    code, out, err, plan = _preview(tmp_path, "same", "--previous", str(base / "plain.json"))
    assert code == preview.EXIT_OK and err == ""
    assert "error:" not in out and _errors(plan) == []


def test_a_mandatory_violation_is_named_in_the_plans_diagnostics_and_on_stderr(base, tmp_path):
    """Exit 1: the report's Policies block shows the finding; the plan's diagnostics and stderr name the rule and
    the resource."""
    code, out, err, plan = _preview(tmp_path, "public", "--previous", str(base / "plain.json"), public=True)
    assert code == preview.EXIT_POLICY
    assert "[mandatory]" in out and "oci:ObjectStorage/bucket:Bucket: b" in out
    named = [m for m in _errors(plan) if m.startswith("mandatory policy violation: ")]
    assert named and all("on oci:ObjectStorage/bucket:Bucket b" in m for m in named)
    assert "error: mandatory policy violation: " in err


def test_a_protected_resource_replaced_is_in_the_report_and_the_plans_diagnostics(base, tmp_path):
    """Exit 4: the report's error line and the plan's diagnostics both name the protected resource."""
    code, out, err, plan = _preview(tmp_path, "moved", "--previous", str(base / "protected.json"), ad="AD-2",
                                    protect=True)
    assert code == preview.EXIT_PLAN
    assert "error: unable to replace oci:FileStorage/fileSystem:FileSystem fs" in out
    assert any("oci:FileStorage/fileSystem:FileSystem fs is protected and would be replaced" in m
               for m in _errors(plan))
    assert "is protected and would be replaced" in err


def test_fail_on_replace_says_in_the_report_and_the_plan_what_fails_the_preview(base, tmp_path):
    """Exit 5: the report's Diagnostics carry the --fail-on-replace verdict beside the Stateful block, and so does
    the plan; without the flag the same replacement exits 0 with no such error."""
    code, out, err, plan = _preview(tmp_path, "moved", "--previous", str(base / "plain.json"), "--fail-on-replace",
                                    ad="AD-2")
    assert code == preview.EXIT_DESTROYS
    verdict = "--fail-on-replace: oci:FileStorage/fileSystem:FileSystem fs would be replaced: it loses"
    assert verdict in " ".join(out[out.index("\nDiagnostics:"):].split())
    assert any(m.startswith(verdict) for m in _errors(plan))
    assert f"error: {verdict}" in err
    code, out, _, plan = _preview(tmp_path, "moved-allowed", "--previous", str(base / "plain.json"), ad="AD-2")
    assert code == preview.EXIT_OK and "--fail-on-replace" not in out and _errors(plan) == []


def test_a_plan_that_cannot_be_written_is_said_in_the_report(base, tmp_path, monkeypatch):
    """The plan file failing between the argument check and the write (the directory gone, the disk full) exits 2
    with the reason in the report's Diagnostics, not only on stderr."""
    def full(doc, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(preview, "write_plan", full)
    code, out, err, plan = _preview(tmp_path, "full")
    assert code == preview.EXIT_CONFIG and plan is None
    said = " ".join(out[out.index("\nDiagnostics:"):].split())
    assert "error: --json " in said and "No space left on device; the plan was not written" in said
    assert "No space left on device" in err


def test_an_unwritable_timings_file_is_refused_before_the_run(tmp_path, capsys):
    """--timings-json naming a directory that does not exist is an unusable argument (exit 2) before anything is
    declared, as --json is, not a failure after the report; a writable path is accepted."""
    code = preview.main(["--stack", "dev", "--timings-json", str(tmp_path / "missing" / "t.json")])
    assert code == preview.EXIT_CONFIG
    assert "error: --timings-json " in capsys.readouterr().err
    assert preview.json_target_problem(tmp_path / "t.json") is None


def test_the_causes_are_added_to_the_plan_once():
    """A cause the run's diagnostics already hold (an image or CRD refusal) is not added to the plan again."""
    doc = {"diagnostics": [{"severity": "error", "message": "a"}]}
    preview.with_causes(doc, ["error: a", "error: b", "error: b"])
    assert doc["diagnostics"] == [{"severity": "error", "message": "a"}, {"severity": "error", "message": "b"}]
