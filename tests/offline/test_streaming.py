"""The packs judge registrations while the program runs (offline/streaming.py): the report is the one judging the
finished resource list gives, whatever order the registrations arrived in; a stream closed early stops at once; the
command-line preview exits with its code after printing everything and, with --timings, says where the time went."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from offline.analyzer import start_analyzers
from offline.policy_eval import EngineResource, evaluate_packs
from offline.streaming import AnalysisStream
from tests.offline.test_analyzer import PACK_MAIN, thing

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> Path:
    pack = tmp_path_factory.mktemp("toy-pack")
    (pack / "PulumiPolicy.yaml").write_text("runtime: python\nversion: 1.2.3\ndescription: toy\n")
    (pack / "__main__.py").write_text(PACK_MAIN)
    return pack


def _facts(report):
    return (sorted((v.policy, v.urn, v.message, v.policy_type) for v in report.violations),
            sorted((n.policy, n.urn) for n in report.not_run), sorted((n.policy, n.urn) for n in report.not_applicable))


def _streamed(toy: Path, submitted, finished, config=None):
    with start_analyzers([toy]) as analyzers, AnalysisStream(analyzers, [toy], [config] if config else ()) as s:
        for r in submitted:
            s.submit(r)
        return s.finish(finished)


PROV = EngineResource(urn="urn:pulumi:dev::proj::pulumi:providers:oci::oci", type="pulumi:providers:oci",
                      name="oci", inputs={"region": "sa-saopaulo-1"})
SEEN = thing("seen", {"value": 1}, provider=f"{PROV.urn}::id-1", parent=PROV.urn)
RESOURCES = [PROV, SEEN, thing("a", {"value": 2}), thing("b", {"value": "x"})]
CONFIG = {"look": "mandatory"}


def test_streamed_registrations_give_the_report_of_the_finished_list(toy):
    expected = evaluate_packs([toy], RESOURCES, [CONFIG])
    got = _streamed(toy, RESOURCES, RESOURCES, CONFIG)
    assert _facts(got) == _facts(expected) and [p.name for p in got.packs] == ["toy-pack"]
    [look] = [v for v in got.violations if v.policy == "look"]
    assert json.loads(look.message.split("\n", 1)[1])["provider"] == ["pulumi:providers:oci", "oci",
                                                                      {"region": "sa-saopaulo-1"}]


@pytest.mark.parametrize("submitted", [
    [SEEN, PROV, *RESOURCES[2:]],  # the provider recorded after its user: the user is analysed again
    RESOURCES[1:],  # one registration never streamed
    [*RESOURCES, thing("extra", {"value": 9})],  # one streamed that the finished list does not hold
    list(reversed(RESOURCES)),
    [],
])
def test_registrations_streamed_differently_are_reconciled_with_the_finished_list(toy, submitted):
    assert _facts(_streamed(toy, submitted, RESOURCES, CONFIG)) == _facts(evaluate_packs([toy], RESOURCES, [CONFIG]))


def test_a_changed_registration_at_the_same_place_is_analysed_again(toy):
    before = thing("a", {"value": 1})
    after = thing("a", {"value": 5})
    report = _streamed(toy, [before], [after])
    assert [v.message for v in report.violations if v.policy == "res"] == ["Resource rule.\nvalue=5.0"]


def test_closing_a_stream_whose_server_is_still_starting_returns_at_once(tmp_path):
    """A pack whose server never prints its port (here: it sleeps) is stopped when the stream closes, instead of
    holding the preview for the start timeout."""
    pack = tmp_path / "slow"
    pack.mkdir()
    (pack / "PulumiPolicy.yaml").write_text("runtime: python\n")
    (pack / "__main__.py").write_text("import time\ntime.sleep(600)\n")
    analyzers = start_analyzers([pack])
    try:
        stream = AnalysisStream(analyzers, [pack])
        stream.submit(thing("a"))
        start = time.monotonic()
        stream.close()
        assert time.monotonic() - start < 60  # far below the 120 s start timeout
        assert analyzers.processes[0].process.poll() is not None
    finally:
        analyzers.close()


def test_the_command_line_preview_prints_everything_and_its_timings(tmp_path, dev_plan_file):
    """``--timings``: each phase, the CPU time, and one Analyze per analysed resource (the stack and every
    resource of the plan) for each pack; the report (piped, so block-buffered) and the plan are the ones an
    in-process preview gives, although the process ends with os._exit."""
    plan = tmp_path / "plan.json"
    out = subprocess.run([sys.executable, "-m", "offline.preview", "--stack", "dev", "--json", str(plan),
                          "--timings"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    doc = json.loads(plan.read_text())
    in_process_plan, in_process_report = dev_plan_file  # tests/conftest.py: the same preview, in-process
    assert out.stdout == in_process_report
    assert in_process_plan.read_text() == plan.read_text()
    lines = [line for line in out.stderr.splitlines() if line.startswith("timings: ")]
    assert lines[0].startswith("timings: imports ") and " program " in lines[0] and " policies " in lines[0]
    assert any(line.startswith("timings: CPU ") for line in lines)
    for pack in ("security", "placement"):
        assert f"timings: pack {pack} Analyze: {len(doc['resources']) + 1} calls" in "\n".join(lines)
        assert f"timings: pack {pack} AnalyzeStack: 1 call" in "\n".join(lines)


def test_the_command_line_preview_keeps_its_exit_code(tmp_path):
    """A mandatory violation still exits 1 through the fast exit (a hand-written stack with an open export)."""
    program = tmp_path / "__main__.py"
    program.write_text("import pulumi_oci as oci\n"
                       "oci.identity.Policy('too-broad', compartment_id='ocid1.compartment.oc1..c', description='d',"
                       " statements=['Allow group ml-admins to manage all-resources in tenancy'])\n")
    (tmp_path / "Pulumi.test.yaml").write_text("config:\n  oci:region: sa-saopaulo-1\n")
    out = subprocess.run([sys.executable, "-m", "offline.preview", "--program", str(program), "--config-file",
                          str(tmp_path / "Pulumi.test.yaml")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 1, out.stdout[-2000:] + out.stderr
    assert "mandatory" in out.stdout



OVERLAP_PACK = '''
import threading, time
from pulumi_policy import EnforcementLevel, PolicyPack, ResourceValidationPolicy

running = [0]
lock = threading.Lock()

def rule(args, report_violation):
    with lock:
        running[0] += 1
        seen = running[0]
    time.sleep(0.2)
    with lock:
        running[0] -= 1
    report_violation(f"{args.name} overlapped {seen}")

PolicyPack(name="overlap", enforcement_level=EnforcementLevel.ADVISORY, policies=[
    ResourceValidationPolicy(name="overlap", description="Concurrent calls.", validate=rule),
])
'''


def test_a_pack_gets_several_analyze_calls_at_once_and_answers_stay_in_registration_order(tmp_path):
    """Registrations are not held back one round trip each: up to IN_FLIGHT Analyze calls reach a pack's server
    together (pulumi-policy serves them on its thread pool), and the report keeps registration order."""
    from offline.streaming import IN_FLIGHT

    pack = tmp_path / "overlap"
    pack.mkdir()
    (pack / "PulumiPolicy.yaml").write_text("runtime: python\nversion: 0.0.1\n")
    (pack / "__main__.py").write_text(OVERLAP_PACK)
    resources = [thing(f"r{i}", {"value": i}) for i in range(2 * IN_FLIGHT)]
    report = _streamed(pack, resources, resources)
    names = [v.message.split("\n", 1)[1].split()[0] for v in report.violations]
    overlaps = [int(v.message.rsplit(" ", 1)[1]) for v in report.violations]
    assert names == [r.name for r in resources]
    assert 1 < max(overlaps) <= IN_FLIGHT
