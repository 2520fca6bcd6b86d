"""The plan is deterministic: the same program and config give byte-identical text and JSON whatever the Python
hash seed, with resources in topological order (ties by URN)."""

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from offline.engine import OciMocks, topological
from offline.policy_eval import EngineResource

ROOT = Path(__file__).resolve().parents[2]


def _preview(tmp_path: Path, seed: str, previous: Path | None = None) -> tuple[str, bytes]:
    out = tmp_path / f"plan-{seed}.json"
    args = ["--stack", "dev", "--json", str(out)] + (["--previous", str(previous)] if previous else [])
    env = {**os.environ, "PYTHONHASHSEED": seed}
    env.pop("COLUMNS", None)
    done = subprocess.run([sys.executable, "-m", "offline.preview", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout, out.read_bytes()


def test_two_runs_with_different_hash_seeds_give_identical_bytes(tmp_path):
    text_a, json_a = _preview(tmp_path, "1")
    text_b, json_b = _preview(tmp_path, "4242")
    assert text_a == text_b and json_a == json_b
    text_c, json_c = _preview(tmp_path, "7", previous=tmp_path / "plan-1.json")
    text_d, json_d = _preview(tmp_path, "99", previous=tmp_path / "plan-1.json")
    assert text_c == text_d and json_c == json_d
    doc = json.loads(json_a)
    position = {r["urn"]: i for i, r in enumerate(doc["resources"])}
    for r in doc["resources"]:  # every resource after what it needs
        needs = [r["parent"], *r["dependencies"], *(u for us in r["propertyDependencies"].values() for u in us)]
        assert all(position[n] < position[r["urn"]] for n in needs if n in position), r["urn"]
        assert "outputs" in r and "propertyDependencies" in r
    cluster = next(r for r in doc["resources"] if r["type"] == "oci:ContainerEngine/cluster:Cluster")
    assert cluster["outputs"]["endpoints"] and cluster["propertyDependencies"]["vcnId"]


def test_topological_order_breaks_ties_by_urn_and_keeps_a_cycle_whole():
    a, b, c = (EngineResource(urn=f"urn:{n}", type="t", name=n) for n in "abc")
    c.dependencies = ["urn:b"]
    assert [r.name for r in topological([c, b, a])] == ["a", "b", "c"]
    a.dependencies, b.dependencies = ["urn:b"], ["urn:a"]
    assert sorted(r.name for r in topological([c, b, a])) == ["a", "b", "c"]


def test_the_planned_operation_is_per_thread():
    """Registrations arrive from the SDK's thread pool: one thread's planned operation never answers another's."""
    mocks = OciMocks("us-ashburn-1")
    mocks._pending.value = ("create", None)
    seen = []
    thread = threading.Thread(target=lambda: seen.append(getattr(mocks._pending, "value", None)))
    thread.start()
    thread.join()
    assert seen == [None]


def test_policy_findings_are_ordered_by_pack_policy_and_plan_position_not_by_analysis_order():
    from types import SimpleNamespace

    from offline.plan import ordered_violations

    a, b = (EngineResource(urn=f"urn:{n}", type="t", name=n) for n in "ab")
    b.dependencies = ["urn:a"]
    found = [SimpleNamespace(pack="p", policy="x", urn="urn:b", message="m"),
             SimpleNamespace(pack="p", policy="x", urn="urn:a", message="m"),
             SimpleNamespace(pack="p", policy="x", urn="", message="stack-wide"),
             SimpleNamespace(pack="o", policy="z", urn="urn:b", message="m")]
    shown = ordered_violations(found, topological([b, a]))
    assert [(v.pack, v.urn) for v in shown] == [("o", "urn:b"), ("p", ""), ("p", "urn:a"), ("p", "urn:b")]


def test_a_prod_cascade_against_a_previous_plan_is_byte_identical_across_hash_seeds(tmp_path):
    """The prod stack with a new VCN DNS label against its own plan: a cascade through the VCN, subnets, cluster,
    provider and every Kubernetes object, stopped by the protected Lustre file system (exit 4). The plan, the text
    and the errors are the same bytes whatever the hash seed."""
    import yaml

    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    base = tmp_path / "base.json"
    done = subprocess.run([sys.executable, "-m", "offline.preview", "--stack", "prod", "--json", str(base)], cwd=ROOT,
                          env=env | {"PYTHONHASHSEED": "3"}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    doc = yaml.safe_load((ROOT / "Pulumi.prod.yaml").read_text())
    doc["config"]["oke-rdma:network"]["dnsLabel"] = "otherlabel"
    (tmp_path / "Pulumi.prod.yaml").write_text(yaml.safe_dump(doc))
    runs = []
    for seed in ("5", "6"):
        out = tmp_path / f"cascade-{seed}.json"
        done = subprocess.run([sys.executable, "-m", "offline.preview", "--config-file",
                               str(tmp_path / "Pulumi.prod.yaml"), "--previous", str(base), "--json", str(out),
                               "--details"], cwd=ROOT, env=env | {"PYTHONHASHSEED": seed}, capture_output=True,
                              text=True, timeout=300)
        runs.append((done.returncode, done.stdout, done.stderr, out.read_bytes()))
    assert runs[0] == runs[1]
    assert runs[0][0] == 4 and sum(c["op"] == "replace" for c in json.loads(runs[0][3])["changes"]) > 100


def test_messages_logged_in_apply_callbacks_come_out_in_one_order_whatever_order_they_ran_in():
    """Messages of no resource logged from ``apply`` callbacks (which run as outputs resolve, in any order) are
    ordered by severity and text, after those the program logged itself (kept as logged); a resource's messages
    follow in registration order."""
    import pulumi

    from offline.engine import run_program

    def program(order):
        def run():
            pulumi.log.warn("top-level second")
            for name in order:
                pulumi.Output.from_input(name).apply(lambda n: pulumi.log.warn(f"from apply {n}"))
            pulumi.log.info("top-level after")
        return run

    first = run_program({}, [], "t", program=program(["b", "a", "c"])).diagnostics
    second = run_program({}, [], "t", program=program(["c", "a", "b"])).diagnostics
    assert first == second
    messages = [m for _, m in first]
    assert messages.index("top-level second") < messages.index("top-level after") < messages.index("from apply a")
    assert [m for m in messages if m.startswith("from apply")] == ["from apply a", "from apply b", "from apply c"]


def test_messages_of_resources_follow_the_order_they_are_given_not_the_order_they_were_logged():
    """A resource's messages come in the order of the resources handed in (the run hands in the plan's topological
    order), whatever order the SDK's threads logged them in."""
    import logging

    from offline.engine import _DiagnosticsHandler

    def ordered(logged):
        handler = _DiagnosticsHandler()
        for urn, message in logged:
            handler.emit(logging.LogRecord("x", logging.WARNING, "", 0, message, None, None))
            handler.records[-1] = (*handler.records[-1][:2], urn, False)
        plan = [EngineResource(urn="urn:a", type="t", name="a", inputs={}),
                EngineResource(urn="urn:b", type="t", name="b", inputs={})]
        return [m for _, m in handler.in_order(plan)]

    assert ordered([("urn:b", "of b"), ("urn:a", "of a")]) == ordered([("urn:a", "of a"), ("urn:b", "of b")]) == [
        "of a", "of b"]
