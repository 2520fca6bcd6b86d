"""``python -m offline.preview --fleet``: every stack of the example fleet previewed in rollout order (the landing
zone's outputs feeding its clusters), one table, the worst exit code; day two against the base plans
(``--previous-dir``): a Kubernetes version bump in the shared defaults, a node pool left on the old version, and a
cluster removed before it was decommissioned (exit 5). Two fleet previews in all, shared by the module."""

from __future__ import annotations

import json

import pytest
import yaml

from offline import preview
from offline.fleetpreview import SEVERITY, removed_rows, worst
from oke_rdma.facts.kubernetes import offered_versions, parse_version
from tests.fleet.fleetfiles import EXAMPLE, fleet_copy

ORDER = ["mgmt", "lz-ashburn", "gpu-ash-canary", "gpu-chi-canary", "gpu-ash-a", "gpu-chi-a"]


def _rows(text: str) -> dict[str, list[str]]:
    lines = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| stack")]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    return {r[0]: r for r in rows}


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The example fleet previewed once, its plans written to a directory (the base branch's plans)."""
    out = tmp_path_factory.mktemp("base")
    summary = out / "summary.md"
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = preview.main(["--fleet", str(EXAMPLE / "fleet.yaml"), "--json-dir", str(out / "plans"),
                             "--summary", str(summary)])
    return code, buf.getvalue(), out / "plans", summary


def _next_minor(version: str) -> str:
    major, minor, _ = parse_version(version)
    return next(v for v in offered_versions() if parse_version(v)[:2] == (major, minor + 1))


@pytest.fixture(scope="module")
def day_two(base, tmp_path_factory):
    """Against the base plans: the shared defaults' Kubernetes version one minor up with every moving pool's image of
    that version, gpu-ash-a's GPU pool pinned to the old version, gpu-chi-a removed from the fleet (not
    decommissioned)."""
    tmp = tmp_path_factory.mktemp("day2")
    path = fleet_copy(tmp, lambda d: d.update(clusters=[c for c in d["clusters"] if c["name"] != "gpu-chi-a"]))
    defaults = yaml.safe_load((tmp / "defaults.yaml").read_text())
    old = defaults["config"]["oke-rdma:cluster"]["kubernetesVersion"]
    new = _next_minor(old)
    defaults["config"]["oke-rdma:cluster"]["kubernetesVersion"] = new
    (tmp / "defaults.yaml").write_text(yaml.safe_dump(defaults))
    for stack in sorted((tmp / "stacks").glob("Pulumi.*.yaml")):  # OKE images are per version: each moving pool's
        doc = yaml.safe_load(stack.read_text())                     # image follows (else the update fails, 409)
        for name, pool in (doc["config"].get("oke-rdma:nodePools") or {}).items():
            pinned = stack.name == "Pulumi.gpu-ash-a.yaml" and name == "gpu"
            if pinned:
                pool["kubernetesVersion"] = old
            elif isinstance(pool.get("imageId"), str):
                pool["imageId"] = pool["imageId"][:-4] + "v" + new.replace(".", "")[-3:]
        stack.write_text(yaml.safe_dump(doc))
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = preview.main(["--fleet", str(path), "--previous-dir", str(base[2]), "--json-dir", str(tmp / "plans"),
                             "--fail-on-replace"])
    return code, out.getvalue(), err.getvalue(), old, new, tmp / "plans"


def test_example_fleet_previews_clean_in_rollout_order(base):
    """Exit 0; one row per stack, management, landing zone, then wave by wave; every resource created, no refusal;
    the table goes to the summary file too; each stack's plan and fleet.json are written."""
    code, text, plans, summary = base
    assert code == 0, text
    rows = _rows(text)
    assert list(rows) == ORDER
    assert [rows[s][1] for s in ORDER] == ["management", "landing-zones", "canary", "canary", "main", "main"]
    assert all(r[3] == "0" and int(r[4]) > 50 and r[5:8] == ["0", "0", "0"] and r[9] == "0" for r in rows.values())
    assert "| gpu-ash-a | main | git v1.4.0@3f1c2b7a9d8e | 0 |" in summary.read_text()
    assert json.loads((plans / "fleet.json").read_text())["gpu-chi-a"] == {
        "decommissioned": False, "kind": "cluster", "release": "git v1.4.0@3f1c2b7a9d8e", "wave": "main"}


def test_landing_zone_outputs_feed_its_clusters(base):
    """A cluster on the landing zone uses the landing zone's VCN (its plan's vcnId), through network.fromStack."""
    plans = base[2]
    zone = json.loads((plans / "lz-ashburn.json").read_text())["outputs"]["vcnId"]
    cluster = json.loads((plans / "gpu-ash-a.json").read_text())
    (oke,) = [r for r in cluster["resources"] if r["type"] == "oci:ContainerEngine/cluster:Cluster"]
    assert oke["inputs"]["vcnId"] == zone
    assert not any(r["type"] == "oci:Core/vcn:Vcn" for r in cluster["resources"])


def test_kubernetes_bump_previews_wave_by_wave(day_two):
    """The version bump in the shared defaults updates every stack in place, wave by wave: exit 0, no delete, and
    nothing replaced but the stateless readiness-gate Jobs (their kubectl image follows the version); node pools
    whose nodes keep the old version are named: the pinned one, and those updated without node cycling."""
    code, text, err, old, new, plans = day_two
    rows = _rows(text)
    assert list(rows) == ORDER  # the removed stack is listed after the fleet's
    for name in ORDER[:-1]:
        assert rows[name][3] == "0" and int(rows[name][5]) >= 2 and rows[name][7] == "0", rows[name]
    assert rows["gpu-ash-a"][8] == (f"okerdma-gpu-ash-a-gpu ({old} < {new}), okerdma-gpu-ash-a-system (existing "
                                    f"nodes stay on {old}: no node cycling)")
    assert rows["gpu-ash-canary"][8] == (f"okerdma-gpu-ash-canary-gpu (existing nodes stay on {old}: no node "
                                         f"cycling), okerdma-gpu-ash-canary-system (existing nodes stay on {old}: no "
                                         "node cycling)")


def test_bump_replaces_only_stateless_gate_jobs(day_two):
    """With --fail-on-replace the bump still exits 0 per stack: what it replaces are readiness-gate Jobs only."""
    code, text, err, old, new, plans = day_two
    replaced = {json.loads(p.read_text())["stack"]: sorted({c["type"] for c in json.loads(p.read_text())["changes"]
                                                            if c["op"] == "replace"})
                for p in plans.glob("*.json") if p.name != "fleet.json"}
    assert set(replaced) == set(ORDER[:-1])
    assert {t for types in replaced.values() for t in types} <= {"kubernetes:batch/v1:Job"}


def test_removing_a_cluster_that_is_not_decommissioned_exits_5(day_two, base):
    """gpu-chi-a removed without being decommissioned: every resource of its base plan deleted, the stateful ones
    named, exit 5 (the worst of the fleet)."""
    code, text, err, _, _, _ = day_two
    row = _rows(text)["gpu-chi-a"]
    base_count = sum(1 for r in json.loads((base[2] / "gpu-chi-a.json").read_text())["resources"] if r["custom"])
    assert code == 5 and row[3] == "5" and row[7] == str(base_count)
    assert "removed without being decommissioned" in row[10]
    assert "error: gpu-chi-a: oci:FileStorage/fileSystem:FileSystem" in err


def test_removing_a_decommissioned_cluster_is_clean(tmp_path):
    """A stack removed after its decommissioning was merged (fleet.json says so) is a clean deletion, exit 0."""
    (tmp_path / "fleet.json").write_text(json.dumps({
        "old": {"kind": "cluster", "wave": "main", "release": "r", "decommissioned": True},
        "kept": {"kind": "cluster", "wave": "main", "release": "r", "decommissioned": False}}))
    (tmp_path / "old.json").write_text(json.dumps({"resources": [
        {"urn": "u", "type": "oci:FileStorage/fileSystem:FileSystem", "name": "fs", "custom": True}]}))
    (row,) = removed_rows(tmp_path, {"kept"})
    assert (row.stack, row.code, row.counts, row.refusals) == ("old", 0, {"delete": 1}, [])
    (tmp_path / "fleet.json").unlink()  # no index: every removed stack counts as not decommissioned
    rows = removed_rows(tmp_path, {"kept"})
    assert [(r.stack, r.code) for r in rows] == [("old", 5)]


def test_worst_exit_code():
    """Worst first: program failure, config, unappliable plan, policy, destroys, clean."""
    assert SEVERITY == (3, 2, 4, 1, 5, 0)
    assert worst([0, 5, 1]) == 1 and worst([0, 5]) == 5 and worst([4, 2]) == 2 and worst([]) == 0
    assert worst([0, 120]) == 3


def test_invalid_fleet_exits_2_before_any_preview(tmp_path, capsys):
    """A fleet file problem is printed with its key path; nothing is previewed."""
    path = fleet_copy(tmp_path, lambda d: d["clusters"][0].update(wave="never"))
    assert preview.main(["--fleet", str(path)]) == 2
    err = capsys.readouterr().err
    assert "fleet.yaml: clusters[0].wave: 'never' is not a wave" in err


@pytest.mark.parametrize("argv, message", [
    (["--stack", "dev", "--previous-dir", "x"], "error: --previous-dir: only with --fleet"),
    (["--fleet", "fleet/fleet.yaml", "--stack", "dev", "--json", "p.json"], "error: --stack, --json: not with --fleet"),
])
def test_fleet_and_single_stack_flags_do_not_mix(argv, message, capsys):
    """A flag of the other mode would be ignored silently: it is refused (exit 2) before anything runs."""
    assert preview.main(argv) == 2
    assert capsys.readouterr().err.startswith(message)


def test_orchestration_order_landing_zone_feed_skip_and_release_note(tmp_path, monkeypatch):
    """With the per-stack preview replaced by a stand-in: stacks run in rollout order, a cluster gets its landing
    zone's plan as --stack-outputs, a cluster whose landing zone failed is skipped (counted as a failure), and a
    cluster pinning another release says it is previewed with this checkout's program."""
    from offline import fleetpreview
    from tests.fleet.fleetfiles import cluster

    calls = []

    def fake_main(argv):
        stack = argv[argv.index("--stack") + 1]
        calls.append((stack, argv))
        if stack == "lz-ashburn":
            return 3
        plan = argv[argv.index("--json") + 1]
        with open(plan, "w") as f:
            json.dump({"resources": [{"urn": "u", "type": "t", "name": "n", "custom": True}]}, f)
        return 0

    def edit(d):
        cluster(d, "gpu-chi-a")["release"] = {"git": {"url": "https://github.com/example/oke-rdma.git",
                                                      "ref": "v1.5.0-rc.1", "commit": "ab" * 20}}
    code, rows = fleetpreview.preview_fleet(fleet_copy(tmp_path, edit), fake_main)
    assert [c[0] for c in calls] == ["mgmt", "lz-ashburn", "gpu-chi-canary", "gpu-chi-a"]
    by = {r.stack: r for r in rows}
    assert by["gpu-ash-canary"].note == "skipped: landing zone lz-ashburn did not preview"
    assert by["gpu-ash-a"].code is None and code == 3
    assert by["gpu-chi-a"].note.startswith("pins git v1.5.0-rc.1@abababababab: previewed with this checkout's")
    assert by["gpu-chi-a"].counts == {"create": 1} and by["lz-ashburn"].code == 3
