"""The analyzer driver (offline/analyzer.py, offline.policy_eval.evaluate_packs): a policy pack judged by its own
pulumi_policy server over gRPC — levels, unknowns, secrets, options, providers, attribution, config, failures —
and the preview's --policy-pack / --policy-config handling, with a small pack written into a temporary directory."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from offline import analyzer, prestart
from offline.policy_eval import (EngineResource, PolicyConfigError, PolicyRuntimeError, evaluate_packs,
                                 has_mandatory, start_analyzers)
from offline.preview import main

ROOT = Path(__file__).resolve().parents[2]
U = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
SECRET = "4dabf18193072939515e22adb298388d"
THING = "test:index:Thing"

PACK_MAIN = '''
import json
from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, PolicyPack, ResourceValidationPolicy, Severity,
                           StackValidationPolicy)

def reads_value(args, report):
    if args.resource_type == "test:index:Thing" and "value" in args.props:
        report(f"value={args.props['value']}", "urn:ignored")

def look(args, report):
    if args.resource_type == "test:index:Thing" and args.name == "seen":
        report(json.dumps({"value": args.props["value"], "protect": args.opts.protect, "parent": args.opts.parent,
                           "ignore": list(args.opts.ignore_changes), "dbr": args.opts.delete_before_replace,
                           "provider": [args.provider.resource_type, args.provider.name, dict(args.provider.props)]
                           if args.provider else None,
                           "config": dict(args.get_config()), "tags": dict(args.stack_tags)}, sort_keys=True))

def crash(args, report):
    if args.resource_type == "test:index:Thing" and args.name == "boom":
        raise KeyError("no such key")

def stack_rule(args, report):
    for r in args.resources:
        if r.resource_type == "test:index:Thing":
            report(f"saw {r.name} parent={r.parent.name if r.parent else None} deps={[d.name for d in r.dependencies]}",
                   r.urn if r.name != "elsewhere" else "urn:pulumi:dev::proj::test:index:Thing::not-in-stack")

PolicyPack(name="toy-pack", enforcement_level=EnforcementLevel.ADVISORY, policies=[
    ResourceValidationPolicy(name="res", description="Resource rule.", validate=reads_value, severity=Severity.LOW),
    ResourceValidationPolicy(name="look", description="Look.", validate=look, config_schema=PolicyConfigSchema({
        "names": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}, "default": ["a"]}})),
    ResourceValidationPolicy(name="crash", description="Crash.", validate=crash),
    ResourceValidationPolicy(name="na", description="NA.", validate=lambda a, r: a.not_applicable("no things")),
    StackValidationPolicy(name="stk", description="Stack rule.", validate=stack_rule,
                          enforcement_level=EnforcementLevel.MANDATORY),
])
'''


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> Path:
    pack = tmp_path_factory.mktemp("toy-pack")
    (pack / "PulumiPolicy.yaml").write_text("runtime: python\nversion: 1.2.3\ndescription: toy\n")
    (pack / "__main__.py").write_text(PACK_MAIN)
    return pack


def thing(name: str, inputs: dict | None = None, **kw) -> EngineResource:
    return EngineResource(urn=f"urn:pulumi:dev::proj::{THING}::{name}", type=THING, name=name,
                          inputs=inputs or {}, outputs=kw.pop("outputs", inputs or {}), **kw)


def run(toy: Path, *resources: EngineResource, config: dict | None = None, **kw):
    return evaluate_packs([toy], list(resources), [config] if config is not None else (), **kw)


def test_levels_messages_and_attribution_come_from_the_server(toy):
    report = run(toy, thing("a", {"value": 1}))
    assert [(p.name, p.version) for p in report.packs] == [("toy-pack", "1.2.3")]  # version: PulumiPolicy.yaml
    res = [v for v in report.violations if v.policy == "res"]
    assert [(v.pack, v.enforcement_level, v.severity, v.policy_type, v.message, v.urn) for v in res] == [
        ("toy-pack", "advisory", "low", "resource", "Resource rule.\nvalue=1.0", thing("a").urn)]  # URN pinned;
    # 1.0: numbers reach a pack through a protobuf Struct, as doubles
    [stk] = [v for v in report.violations if v.policy == "stk"]
    assert (stk.enforcement_level, stk.policy_type, stk.urn) == ("mandatory", "stack", thing("a").urn)
    assert has_mandatory(report)
    assert ("na", thing("a").urn, "no things") in {(n.policy, n.urn, n.reason) for n in report.not_applicable}


def test_a_stack_violation_naming_a_resource_outside_the_stack_is_stack_wide(toy):
    [v] = [v for v in run(toy, thing("elsewhere")).violations if v.policy == "stk"]
    assert v.urn == ""


def test_unknown_values_are_advisory_not_run_entries(toy):
    report = run(toy, thing("a", {"value": U}), config={"all": "mandatory"})
    assert not [v for v in report.violations if v.policy == "res"]
    [nr] = [n for n in report.not_run if n.policy == "res"]
    assert (nr.pack, nr.urn, nr.enforcement_level) == ("toy-pack", thing("a").urn, "advisory")
    assert nr.reason == "string value at .value can't be known during preview"
    assert nr.message == "can't run policy 'res' from policy pack 'toy-pack@v0.0.1' during preview: " + nr.reason


def test_secrets_options_provider_config_and_tags_reach_the_rule(toy):
    prov = EngineResource(urn="urn:pulumi:dev::proj::pulumi:providers:oci::oci", type="pulumi:providers:oci",
                          name="oci", inputs={"region": "sa-saopaulo-1"})
    seen = thing("seen", {"value": {SECRET: "1b47061264138c4ac30d75fd1eb44270", "value": "s3cret"}, "__x": 1},
                 protect=True, parent=prov.urn, ignore_changes=["x"], delete_before_replace=True,
                 provider=f"{prov.urn}::id-1")
    report = run(toy, prov, seen, config={"look": {"enforcementLevel": "mandatory", "names": ["b"]}},
                 stack_tags={"team": "ml"})
    [v] = [v for v in report.violations if v.policy == "look"]
    assert json.loads(v.message.split("\n", 1)[1]) == {
        "value": "s3cret", "protect": True, "parent": prov.urn, "ignore": ["x"], "dbr": True,
        "provider": ["pulumi:providers:oci", "oci", {"region": "sa-saopaulo-1"}], "config": {"names": ["b"]},
        "tags": {"team": "ml"}}


def test_disabled_and_remediate_levels(toy):
    report = run(toy, thing("a", {"value": 1}), config={"res": "disabled", "stk": "remediate"})
    assert not [v for v in report.violations if v.policy == "res"]
    assert {v.enforcement_level for v in report.violations if v.policy == "stk"} == {"mandatory"}


def test_config_is_validated_against_what_the_server_reports(toy):
    with pytest.raises(PolicyConfigError) as err:
        run(toy, thing("a"), config={"look": {"names": ["ok", "bad\n"]}})
    assert [(p.name, line) for p, line in err.value.by_pack] == [
        ("toy-pack", "look: names.1: 'bad\\n' does not match '^[a-z]+$' (Go regexp: $ is the end of the text)")]
    with pytest.raises(PolicyConfigError) as err:
        run(toy, thing("a"), config={"ghost": {"x": 1}})
    assert err.value.problems == ["configuring policy pack: entry 'ghost' has properties but no enforcementLevel, and "
                                  "it is not a policy of this pack (invalid enforcement level \"\")"]


def test_config_that_changes_nothing_is_warned_about(toy):
    report = run(toy, thing("a"), config={"all": {"enforcementLevel": "advisory", "names": ["a"]}, "typo": "advisory",
                                         "look": {"nmaes": ["a"]}})
    assert [w.split(":")[0] for w in report.config_warnings] == [
        "policy config 'all'", "policy config names 'typo', which is not a policy of this pack (ignored); the pack has",
        "policy config 'look'"]
    assert [p.name for p, _ in report.config_warnings_by_pack] == ["toy-pack"] * 3


def test_a_rule_that_raises_fails_the_evaluation_naming_the_pack_and_resource(toy):
    with pytest.raises(PolicyRuntimeError, match=r"Analyze of urn:pulumi:dev::proj::test:index:Thing::boom failed"):
        run(toy, thing("boom"))


def test_a_pack_that_does_not_start_is_an_error_with_its_stderr(tmp_path):
    (tmp_path / "PulumiPolicy.yaml").write_text("runtime: python\n")
    (tmp_path / "__main__.py").write_text("raise SystemExit('this pack refuses to start')\n")
    with pytest.raises(analyzer.PolicyPackError, match="failed to start .*this pack refuses to start"):
        evaluate_packs([tmp_path], [thing("a")])


def test_servers_are_reused_only_when_healthy_and_stopped_at_shutdown(toy):
    with start_analyzers([toy]) as first:
        evaluate_packs([toy], [thing("a")], analyzers=first)
        process = first.processes[0]
    with start_analyzers([toy]) as second:
        assert second.processes[0] is process  # reused: Configure resets its state on every use
        process.failed = True
    assert process.process.poll() is not None  # a failed server is stopped, never pooled
    with start_analyzers([toy]) as third:
        evaluate_packs([toy], [thing("a")], analyzers=third)
        pid = third.processes[0].process
    analyzer.shutdown()
    assert pid.poll() is not None


def test_a_pooled_server_that_no_longer_answers_is_replaced_by_a_fresh_one(toy):
    """A server kept from an earlier preview whose port no longer answers (its process still alive) is replaced at
    the next preview's first call: the preview gets its findings from a fresh server, the old one is stopped, and
    no failed server goes back to the pool."""
    import grpc
    from pulumi.runtime.proto import analyzer_pb2_grpc

    with start_analyzers([toy]) as first:
        evaluate_packs([toy], [thing("a")], analyzers=first)
        stale = first.processes[0]
    nowhere = prestart.free_address()  # nothing listens there: "connection refused", as from a server gone
    stale._channel.close()
    stale._channel = grpc.insecure_channel(nowhere)
    stale._stub = analyzer_pb2_grpc.AnalyzerStub(stale._channel)
    with start_analyzers([toy]) as second:
        assert second.processes[0] is stale and stale.reused
        report = evaluate_packs([toy], [thing("a", {"value": 2})], analyzers=second)
        fresh = second.processes[0]
    assert fresh is not stale and not fresh.reused and stale.process.poll() is not None
    assert [v.policy for v in report.violations] == [v.policy for v in run(toy, thing("a", {"value": 2})).violations]
    assert analyzer._POOL[toy.resolve()] == [fresh]


def test_a_fresh_server_that_fails_its_handshake_is_not_pooled(toy):
    """A server whose handshake fails is marked failed: it is stopped when the preview ends, never kept for the
    next one (where it would fail again)."""
    import grpc
    from pulumi.runtime.proto import analyzer_pb2_grpc

    analyzer.shutdown()  # no pooled server: this one is started for this preview
    with start_analyzers([toy]) as first:
        process = first.processes[0]
        assert not process.reused
        process.stub()
        process._channel.close()
        process._channel = grpc.insecure_channel(prestart.free_address())
        process._stub = analyzer_pb2_grpc.AnalyzerStub(process._channel)
        with pytest.raises(PolicyRuntimeError, match="Handshake failed"):
            evaluate_packs([toy], [thing("a")], analyzers=first)
    assert process.failed and process.process.poll() is not None
    assert process not in analyzer._POOL.get(toy.resolve(), [])


def test_a_server_that_died_says_how_in_the_error(toy):
    """A call to a server that was killed fails with a message naming how its process ended and its last output."""
    analyzer.shutdown()
    with start_analyzers([toy]) as first:
        process = first.processes[0]
        process.stub()
        process.process.kill()
        process.process.wait(10)
        with pytest.raises(PolicyRuntimeError, match=r"failed: .*\(its server exited with signal SIGKILL: "):
            evaluate_packs([toy], [thing("a")], analyzers=first)
    assert process.failed


def test_prestart_reads_the_packs_like_argparse_and_hands_them_over(toy):
    assert prestart.pack_dirs(["--stack", "dev"]) == list(prestart.DEFAULT_PACKS)
    assert prestart.pack_dirs(["--policy-pack", str(toy), f"--policy-pack={toy}"]) == [toy.resolve()] * 2
    assert prestart.pack_dirs(["-h"]) is None
    prestart.spawn(["--policy-pack", str(toy)])
    spawned = prestart._spawned[2][0][0]
    assert prestart.claim([ROOT / "policies" / "security"]) is None and spawned.wait(10) is not None  # not ours
    prestart.spawn(["--policy-pack", str(toy)])
    with start_analyzers([toy]) as adopted:
        assert adopted.processes[0].process is prestart_process(adopted)
        assert evaluate_packs([toy], [thing("a", {"value": 2})], analyzers=adopted).violations
    prestart.spawn(["--policy-pack", str(toy / "missing")])
    assert prestart._spawned is None  # nothing spawned for a directory that is no pack


def prestart_process(analyzers):
    return analyzers.processes[0].process


# --- the preview's flags ------------------------------------------------------------------------------------------
def test_preview_refuses_a_directory_that_is_no_pack_before_the_program_runs(tmp_path, capsys):
    assert main(["--stack", "dev", "--policy-pack", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (f"error: --policy-pack {tmp_path}: has no PulumiPolicy.yaml; a policy pack "
                                       "directory holds one\n")


def test_preview_wants_one_policy_config_per_pack(tmp_path, capsys):
    config = tmp_path / "c.json"
    config.write_text("{}")
    assert main(["--stack", "dev", "--policy-config", str(config)]) == 2
    assert capsys.readouterr().err == ('error: the number of "--policy-config" flags must match the number of '
                                       '"--policy-pack" flags (1 for 2: one config file per pack, in the same '
                                       'order)\n')


def test_preview_runs_only_the_packs_it_is_given(toy, capsys):
    assert main(["--stack", "dev", "--policy-pack", str(toy)]) == 0  # the toy rules look at test:index:Thing only
    out = capsys.readouterr().out
    assert f"✅ toy-pack@v1.2.3 (local: {toy})" in out and "oke-rdma-security" not in out


def test_preview_reports_a_crashing_rule_in_one_line_with_exit_3(tmp_path, capsys):
    (tmp_path / "PulumiPolicy.yaml").write_text("runtime: python\n")
    (tmp_path / "__main__.py").write_text(textwrap.dedent('''
        from pulumi_policy import PolicyPack, ResourceValidationPolicy
        def boom(args, report):
            raise ValueError("broken rule")
        PolicyPack(name="broken", policies=[ResourceValidationPolicy(name="b", description="d", validate=boom)])
    '''))
    assert main(["--stack", "dev", "--policy-pack", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert err.startswith(f"error: policy pack {tmp_path}: Analyze of urn:pulumi:dev::oke-rdma::pulumi:pulumi:Stack")
    assert "broken rule" in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_go_pattern_semantics_refuse_a_trailing_newline_in_the_real_packs_config(tmp_path, capsys):
    security, placement = tmp_path / "security.json", tmp_path / "placement.json"
    security.write_text(json.dumps({"helm-release-pinned": {"allowedRepositories": [
        "https://kedacore.github.io/charts\n"]}}))
    placement.write_text("{}")
    code = main(["--stack", "dev", "--policy-pack", "policies/security", "--policy-config", str(security),
                 "--policy-pack", "policies/placement", "--policy-config", str(placement)])
    err = capsys.readouterr().err
    assert code == 2 and "helm-release-pinned: allowedRepositories.0: 'https://kedacore.github.io/charts\\n' does " \
                         "not match" in err and err.startswith("error: validating policy config: oke-rdma-security")


def _processes_marked(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")
def test_no_server_outlives_a_preview_whose_program_calls_os_exit(tmp_path):
    """os._exit ends the preview without atexit: the servers it spawned at start stop with it (PR_SET_PDEATHSIG)."""
    import os
    import subprocess
    import sys
    import time
    import uuid

    marker = f"OKE_RDMA_ANALYZER_TEST={uuid.uuid4()}"
    program = tmp_path / "exits.py"
    program.write_text("import os\nos._exit(7)\n")
    done = subprocess.run([sys.executable, "-m", "offline.preview", "--program", str(program)], cwd=ROOT,
                          env={**os.environ, marker.split("=")[0]: marker.split("=")[1]}, capture_output=True,
                          timeout=300)
    assert done.returncode == 7
    deadline = time.monotonic() + 20
    while _processes_marked(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_marked(marker) == []


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("ending", ["os._exit", "SIGKILL"])
def test_no_pack_server_outlives_a_process_that_started_it_after_loading_grpc(tmp_path, ending):
    """A process that previews many times (the tests, a script) starts the packs' servers with gRPC loaded, where
    PR_SET_PDEATHSIG cannot be used; ended without atexit (os._exit) or killed, its servers still stop: they end
    when their standard input, a pipe only it held, closes."""
    import os
    import subprocess
    import sys
    import time
    import uuid

    marker = f"OKE_RDMA_ANALYZER_TEST={uuid.uuid4()}"
    script = tmp_path / "starts.py"
    script.write_text(textwrap.dedent(f"""
        import os, signal, sys
        sys.path.insert(0, {str(ROOT)!r})
        import grpc  # loaded before the servers start, as in a test process
        from offline.analyzer import start_analyzers
        analyzers = start_analyzers({[str(d) for d in prestart.DEFAULT_PACKS]!r})
        for process in analyzers.processes:
            process.stub()  # both servers are up and serving
        print("up", flush=True)
        if {ending!r} == "SIGKILL":
            os.kill(os.getpid(), signal.SIGKILL)
        os._exit(0)
    """))
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, marker.split("=")[0]: marker.split("=")[1]})
    assert "up" in done.stdout, done.stderr
    deadline = time.monotonic() + 20
    while _processes_marked(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_marked(marker) == []


@pytest.mark.parametrize("yaml_text, main_py, expected", [
    ("runtime: nodejs\n", True, "PulumiPolicy.yaml runtime is 'nodejs'; the offline preview runs Python packs only"),
    ("runtime:\n  name: python\n", False, "has no __main__.py (what `python -m pulumi.policy` runs in a Python pack)"),
    ("runtime: [\n", True, "PulumiPolicy.yaml cannot be read"),
])
def test_preview_refuses_a_pack_it_cannot_run_like_the_cli(tmp_path, capsys, yaml_text, main_py, expected):
    (tmp_path / "PulumiPolicy.yaml").write_text(yaml_text)
    if main_py:
        (tmp_path / "__main__.py").write_text("")
    assert main(["--stack", "dev", "--policy-pack", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --policy-pack {tmp_path}: {expected}") and len(err.splitlines()) == 1


def test_a_config_schema_the_cli_cannot_use_is_refused_in_one_line():
    from pulumi.runtime.proto import analyzer_pb2

    from offline.policy_config import policy_specs

    info = analyzer_pb2.AnalyzerInfo(name="p", policies=[analyzer_pb2.PolicyInfo(
        name="x", enforcementLevel=analyzer_pb2.MANDATORY,
        configSchema=analyzer_pb2.PolicyConfigSchema(properties=analyzer._struct({"enforcementLevel": {}})))])
    with pytest.raises(PolicyConfigError, match="policy 'x' reports a config schema the CLI cannot use"):
        policy_specs(info)


def test_pack_servers_run_nicer_than_the_preview_and_still_judge(toy):
    """The analyzer servers are spawned at a lower CPU priority than the preview process (they take what the
    program leaves of the machine) and answer exactly as before."""
    import os

    with start_analyzers([toy]) as started:
        pid = started.processes[0].process.pid
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, os.getpriority(os.PRIO_PROCESS, 0)
                                                           + prestart.SERVER_NICENESS)
        nice = run(toy, thing("a", {"value": 2}), analyzers=started)
    assert nice.violations == run(toy, thing("a", {"value": 2})).violations  # same answer as a fresh server
    assert nice.violations != run(toy, thing("a", {"value": 1})).violations


def test_lowering_the_priority_of_a_finished_process_is_harmless():
    """A server that already exited (or any pid that is gone) is skipped without an error."""
    import subprocess
    import sys

    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    prestart.lower_priority(done.pid)  # reaped: no such process any more
