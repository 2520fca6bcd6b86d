"""The benchmark machinery (bench/): synthetic stacks, the critical-path estimate, the fixed-cost probe, the
report and a one-run pass over the smallest stack. No timing is asserted anywhere."""

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench import critical_path as cp
from bench import run as bench_run
from bench import stacks
from bench.imports import sdk_names
from oke_rdma.config import ConfigError

ROOT = Path(__file__).resolve().parents[2]
CSV = cp.DURATIONS_CSV


# -- synthetic stacks ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pools,tenants", [(1, 2), (8, 50), (64, 200)])
def test_synthetic_stacks_have_the_sizes_asked_for_and_pass_the_config_model(tmp_path, pools, tenants):
    doc = stacks.synthetic_stack(stacks.load_base(), pools, tenants)
    cfg = doc["config"]
    assert len(cfg["oke-rdma:nodePools"]) == pools and len(cfg["oke-rdma:tenants"]) == tenants
    assert any(p.get("rdma") for p in cfg["oke-rdma:nodePools"].values())  # the RDMA path is always exercised
    path = stacks.write_stack(doc, tmp_path, f"bench-p{pools}-t{tenants}")
    stacks.check(path)  # raises ConfigError if invalid


def test_synthetic_stack_keeps_the_dev_pools_and_tenants_first():
    base = stacks.load_base()
    cfg = stacks.synthetic_stack(base, 3, 3)["config"]
    assert list(cfg["oke-rdma:nodePools"]) == ["gpu", "system", "gpu-003"]
    assert cfg["oke-rdma:nodePools"]["gpu-003"] == base["config"]["oke-rdma:nodePools"]["gpu"]
    assert list(cfg["oke-rdma:tenants"]) == ["research", "analytics", "team-003"]
    assert list(stacks.synthetic_stack(base, 1, 0)["config"]["oke-rdma:nodePools"]) == ["gpu"]


def test_pod_ip_demand_beyond_the_pod_subnet_widens_the_vcn_and_stays_valid(tmp_path):
    base = stacks.load_base()
    base["config"]["oke-rdma:network"]["vcnCidr"] = "10.0.0.0/17"
    doc = stacks.synthetic_stack(base, 140, 2)  # 139 × 2 nodes × 64 pods > the /18 pod subnet of a /17
    assert doc["config"]["oke-rdma:network"]["vcnCidr"] == "10.0.0.0/16"
    assert doc["x-bench-notes"]
    path = stacks.write_stack(doc, tmp_path, "wide")
    assert "x-bench-notes" not in path.read_text()
    stacks.check(path)


def test_pod_ip_demand_beyond_a_16_vcn_is_refused():
    with pytest.raises(ValueError, match="do not fit even a /16 VCN"):  # OCI's largest VCN CIDR block
        stacks.synthetic_stack(stacks.load_base(), 300, 2)  # 300 × 2 nodes × 64 pods > the /17 pod subnet of a /16


def test_a_stack_with_subnet_overrides_is_never_widened():
    base = stacks.load_base()
    base["config"]["oke-rdma:network"]["subnets"] = {"pods": "10.0.128.0/17"}
    with pytest.raises(ValueError, match="network.subnets"):
        stacks.synthetic_stack(base, 300, 2)


def test_a_stack_needs_a_node_pool():
    with pytest.raises(ValueError):
        stacks.synthetic_stack(stacks.load_base(), 0, 2)


def test_check_refuses_an_invalid_generated_stack(tmp_path):
    doc = stacks.synthetic_stack(stacks.load_base(), 1, 2)
    doc["config"]["oke-rdma:tenants"]["kube-system"] = {}
    with pytest.raises(ConfigError, match="system or platform namespace"):
        stacks.check(stacks.write_stack(doc, tmp_path, "bad"))


# -- creation-time table -----------------------------------------------------------------------------------------
def test_duration_table_rows_are_well_formed_and_sourced():
    rows = cp.load_durations()
    assert rows and all(r.source and 0 <= r.low_s <= r.high_s for r in rows)
    by = {(r.type, r.match): r for r in rows}
    assert by[("oci:ContainerEngine/cluster:Cluster", "")].low_s >= 7 * 60
    bm = by[("oci:ContainerEngine/nodePool:NodePool", "nodeShape^=BM.")]
    vm = by[("oci:ContainerEngine/nodePool:NodePool", "")]
    assert bm.low_s >= 15 * 60 and vm.high_s <= 8 * 60


def test_duration_rows_match_on_inputs_first_row_wins():
    rows = cp.load_durations()
    pick = lambda typ, inputs: next(r for r in rows if r.applies(typ, inputs))  # noqa: E731
    assert pick("oci:ContainerEngine/nodePool:NodePool", {"nodeShape": "BM.GPU.H100.8"}).match == "nodeShape^=BM."
    assert pick("oci:ContainerEngine/nodePool:NodePool", {"nodeShape": "VM.Standard.E5.Flex"}).match == ""
    assert pick("kubernetes:helm.sh/v3:Release", {"chart": "gpu-operator"}).match == "chart=gpu-operator"
    assert pick("kubernetes:core/v1:ConfigMap", {}).type == "kubernetes:*"


@pytest.mark.parametrize("row", ["t,,5,1,why", "t,,x,1,why", "t,,1,2,", "t,k~v,1,2,why"])
def test_malformed_duration_rows_are_refused(tmp_path, row):
    path = tmp_path / "d.csv"
    path.write_text("type,match,low_s,high_s,source\n" + row + "\n")
    with pytest.raises(ValueError):
        rows = cp.load_durations(path)
        rows[0].applies("t", {"k": "v"})


# -- the schedule --------------------------------------------------------------------------------------------
def res(name, typ="test:index:Thing", deps=(), parent=None, custom=True, provider=None, **inputs):
    return {"urn": f"urn:{name}", "name": name, "type": typ, "dependencies": [f"urn:{d}" for d in deps],
            "parent": f"urn:{parent}" if parent else None, "custom": custom,
            "provider": f"urn:{provider}::id" if provider else None, "inputs": inputs}


DUR = [cp.Duration("test:index:Slow", "", 100, 100, "test"), cp.Duration("test:index:Thing", "", 10, 10, "test"),
       cp.Duration("pulumi:providers:*", "", 0, 0, "test")]


def test_depending_on_a_component_waits_for_all_its_descendants():
    resources = [res("comp", "my:index:Comp", custom=False), res("sub", "my:index:Comp", parent="comp", custom=False),
                 res("slow", "test:index:Slow", parent="sub"), res("fast", parent="comp"),
                 res("after", deps=["comp"])]
    s = cp.schedule(resources, DUR)
    assert s.steps["urn:after"].start_s == 100 and s.total_s == 110
    assert [p.name for p in s.path if p.duration_s] == ["slow", "after"]


def test_a_child_waits_for_its_parents_registration():
    resources = [res("a", "test:index:Slow"), res("comp", "my:index:Comp", deps=["a"], custom=False),
                 res("child", parent="comp"), res("custom-parent"), res("grandchild", parent="custom-parent")]
    s = cp.schedule(resources, DUR)
    assert s.steps["urn:comp"].finish_s == 100  # a component takes no time but waits for its own dependencies
    assert s.steps["urn:child"].start_s == 100 and s.steps["urn:child"].via_kind == "parent"
    assert s.steps["urn:grandchild"].start_s == 10  # a custom parent must be created first


def test_a_kubernetes_object_waits_for_its_provider_and_so_for_the_cluster():
    resources = [res("cluster", "test:index:Slow"), res("k8s", "pulumi:providers:kubernetes", deps=["cluster"]),
                 res("ns", "kubernetes:core/v1:Namespace", provider="k8s")]
    step = cp.schedule(resources, DUR + [cp.Duration("kubernetes:*", "", 1, 1, "t")]).steps["urn:ns"]
    assert step.start_s == 100 and step.via_kind == "provider"


def test_a_dependency_cycle_is_refused():
    with pytest.raises(ValueError, match="cycle"):
        cp.schedule([res("a", deps=["b"]), res("b", deps=["a"])], DUR)


def test_types_without_a_duration_are_reported():
    assert cp.schedule([res("x", "test:index:Unknown")], DUR).unmatched_types == ["test:index:Unknown"]


POOL = "oci:ContainerEngine/nodePool:NodePool"


def _platform(gpu_dep: bool, with_system: bool = True):
    rs = [res("vcn", "oci:Core/vcn:Vcn"), res("oke", "oci:ContainerEngine/cluster:Cluster", deps=["vcn"]),
          res("k8s", "pulumi:providers:kubernetes", deps=["oke"]),
          res("gpu", POOL, deps=["oke"], nodeShape="BM.GPU.H100.8", nodeConfigDetails={"computeClusterId": "cc"})]
    pools = ["gpu"] if gpu_dep else []
    if with_system:
        rs.append(res("system", POOL, deps=["oke"], nodeShape="VM.Standard.E5.Flex"))
        pools.append("system")
    rs.append(res("kps", "kubernetes:helm.sh/v3:Release", deps=pools, provider="k8s",
                  chart="kube-prometheus-stack"))
    return rs


def test_platform_waiting_for_a_gpu_pool_is_a_serial_edge_the_design_adds():
    a = cp.analyse(_platform(gpu_dep=True))
    assert a.added_s > 0
    assert [e["waitsFor"] for e in a.extra_edges] == ["gpu"] and a.extra_edges[0]["costMin"] > 0
    assert [p.name for p in a.unavoidable.path][-1] == "gpu"  # the bare-metal pool ends last, in parallel


def test_platform_waiting_only_for_its_own_pool_is_the_unavoidable_chain():
    a = cp.analyse(_platform(gpu_dep=False))
    assert a.added_s == 0 and a.extra_edges == []


def test_with_only_gpu_pools_the_platform_must_wait_for_them():
    a = cp.analyse(_platform(gpu_dep=True, with_system=False))
    assert a.extra_edges == [] and a.design.path[-1].name == "kps"
    cats = [cp.category(p.type) for p in a.design.path if p.duration_s]
    assert cats == [cp.NETWORK, cp.CLUSTER, cp.NODE_POOL, cp.PLATFORM]


def test_dev_stack_critical_path_runs_network_cluster_node_pool(dev_plan_file):
    resources = json.loads(dev_plan_file[0].read_text())["resources"]
    assert all("custom" in r and "provider" in r for r in resources)
    assert any(r["provider"] for r in resources if r["type"] == "kubernetes:core/v1:Namespace")
    a = cp.analyse(resources)
    assert a.design.unmatched_types == []  # every resource type of the dev stack has a creation time
    cats = [cp.category(p.type) for p in a.design.path if p.duration_s]
    assert cats[0] == cp.NETWORK
    assert cats.index(cp.CLUSTER) < cats.index(cp.NODE_POOL)
    assert a.design_low_s <= a.design.total_s <= a.design_high_s
    assert a.unavoidable.total_s <= a.design.total_s
    assert bool(a.extra_edges) == (a.added_s > 0)
    doc = cp.to_dict(a)
    assert doc["criticalPath"][-1]["finishMin"] == doc["estimatedUpMin"]


# -- the fixed-cost probe ----------------------------------------------------------------------------------------
def test_sdk_names_come_from_code_not_strings(tmp_path):
    src = tmp_path / "c.py"
    src.write_text('import pulumi_oci as oci\nimport pulumi_kubernetes as k8s\n'
                   'x = oci.core.Vcn("a", oci.core.VcnArgs())\n'
                   'y = k8s.helm.v3.Release\nlabel = "oci.oraclecloud.com/x"\n')
    assert sdk_names([src]) == {("pulumi_oci.core", "Vcn"), ("pulumi_oci.core", "VcnArgs"),
                                ("pulumi_kubernetes.helm.v3", "Release")}


def test_importing_the_preview_module_leaves_the_garbage_collector_alone():
    import offline.preview  # noqa: F401  (only the command-line process turns the cyclic collector off)

    assert gc.isenabled()


# -- the report --------------------------------------------------------------------------------------------------
def test_benchmark_page_has_the_bench_markers_and_update_replaces_only_between_them(tmp_path):
    page = (ROOT / "docs" / "benchmark.md").read_text()
    assert bench_run.BEGIN in page and bench_run.END in page
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{bench_run.BEGIN}\nold\n{bench_run.END}\noutro\n")
    bench_run.update_readme("new table", readme)
    assert readme.read_text() == f"intro\n{bench_run.BEGIN}\nnew table\n{bench_run.END}\noutro\n"
    readme.write_text("no markers")
    with pytest.raises(ValueError):
        bench_run.update_readme("x", readme)


def test_growth_compares_consecutive_sizes_along_each_axis():
    def row(p, t, n, s):
        return bench_run.Row(f"p{p}t{t}", p, t, n, s, s, s, s, 100.0, 1.0, 1.0)
    rows = [row(32, 2, 300, 3.0), row(64, 2, 600, 7.0), row(32, 50, 350, 3.2)]
    g = bench_run.growth(rows, fixed_s=1.0)
    pools = [x for x in g if x["axis"] == "pools"]
    assert len(pools) == 1 and pools[0]["timeRatio"] == pytest.approx(7 / 3, abs=0.01)
    assert pools[0]["variableTimeRatio"] == 3.0 and pools[0]["closeToLinear"] is False
    assert [x["from"] for x in g if x["axis"] == "tenants"] == [2]


def test_one_run_of_the_smallest_stack_end_to_end(tmp_path):
    result = bench_run.run(runs=1, pools=[1], tenants=[2], include_dev=False, workdir=tmp_path, log=lambda m: None)
    (row,) = result["rows"]
    assert row["stack"] == "bench-p1-t2" and row["resources"] > 50 and row["peak_mb"] > 0 and len(row["walls"]) == 1
    assert row["property_nodes"] > 10 * row["resources"] and 0 < row["own_peak_mb"] <= row["peak_mb"] + 0.1  # rounded
    assert set(row["server_peak_mb"]) == {"security", "placement"} and row["servers_cpu_s"] > 0
    assert len(row["noop_walls"]) == 1 and 0 < row["noop_servers_cpu_s"]
    assert result["fixedCost"]["medianS"] > 0 and result["environment"]["cores"] >= 1
    assert set(result["environment"]["packages"]) >= {"pulumi", "pulumi_oci", "pulumi_kubernetes", "pulumi_policy"}
    assert result["criticalPaths"]["bench-p1-t2"]["typesWithoutDuration"] == []
    assert {t["target"].split(" ")[0] for t in result["targets"]} >= {"estimated"}
    text = bench_run.report(result)
    assert "bench-p1-t2" in text and "Import floor" in text and "No-op-pack floor" in text
    assert (tmp_path / "Pulumi.bench-p1-t2.yaml").exists() and (tmp_path / "bench-p1-t2.plan.json").exists()


def test_a_failing_preview_is_an_error_with_its_stderr(tmp_path):
    bad = tmp_path / "Pulumi.bad.yaml"
    bad.write_text("config: [1]\n")
    with pytest.raises(RuntimeError, match="exited 2"):
        bench_run.measure(bench_run.preview_cmd(bad, tmp_path / "p.json"), runs=1)


def test_importing_the_probe_module_leaves_the_garbage_collector_alone():
    import bench.imports  # noqa: F401

    assert gc.isenabled()


def test_the_dev_stack_is_measured_against_the_import_floor():
    """The floor target compares the dev preview (analyzer servers included) with the fixed-cost probe."""
    dev = bench_run.Row("dev", None, None, 120, 2.2, 2.1, 2.3, 2.2, 300.0, 40.0, 30.0, [2.2])
    [met] = [t for t in bench_run.targets([dev], [], None, 2.0) if "import floor" in t["target"]]
    assert met["met"] and met["value"].startswith("1.10×")
    slow = bench_run.Row("dev", None, None, 120, 2.5, 2.4, 2.6, 2.5, 300.0, 40.0, 30.0, [2.5])
    [missed] = [t for t in bench_run.targets([slow], [], None, 2.0) if "import floor" in t["target"]]
    assert not missed["met"] and missed["value"].startswith("1.25×")
    assert not [t for t in bench_run.targets([dev], [], None) if "import floor" in t["target"]]  # no probe, no row


def test_the_floor_probe_imports_the_analyzer_driver():
    text = (ROOT / "bench" / "imports.py").read_text()
    assert 'import_module("offline.analyzer")' in text and 'import_module("offline.preview")' in text


def test_the_floor_target_also_gives_the_cpu_ratio_and_the_imports_without_finalization():
    """The target is judged on wall time against the floor; its value adds the CPU-time ratio and the ratio
    against the same imports ended with os._exit (the preview's process skips the interpreter's finalization)."""
    dev = bench_run.Row("dev", None, None, 120, 2.2, 2.1, 2.3, 2.4, 300.0, 40.0, 30.0, [2.2])
    [row] = [t for t in bench_run.targets([dev], [], None, 2.0, 1.6, 1.6) if "import floor" in t["target"]]
    assert row["met"] and row["value"] == ("1.10× (2.20 s / 2.00 s); CPU 1.50× (2.40 s / 1.60 s); 1.38× the "
                                           "imports without finalization (1.60 s)")


def test_the_floor_probe_can_end_without_finalization():
    """``python -m bench.imports --exit-now`` imports the same and exits 0 through os._exit."""

    out = subprocess.run([sys.executable, "-m", "bench.imports", "--exit-now"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0 and out.stdout == "" and out.stderr == ""


def test_the_program_floor_runs_the_whole_dev_program_under_the_sdk_mocks(dev_plan_file):
    """``python -m bench.imports --program Pulumi.dev.yaml`` runs the dev program to its end under the SDK's own
    mocks: it registers as many resources as the offline preview's dev plan holds, and exits 0 through os._exit."""
    plan, _ = dev_plan_file
    out = subprocess.run([sys.executable, "-m", "bench.imports", "--program", "Pulumi.dev.yaml"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout == f"registered {len(json.loads(plan.read_text())['resources'])} resources\n"


def test_the_dev_target_names_the_program_floor():
    """The dev target's value gives the ratio to the program floor next to the import floor's; the target itself is
    still judged against the import floor."""
    dev = bench_run.Row("dev", None, None, 200, 2.2, 2.2, 2.2, 2.9, 200.0, 31.6, 31.6, [2.2])
    (judged, *_) = bench_run.targets([dev], [], None, 1.4, 1.3, 1.45, 1.9)
    assert judged["met"] is False and "1.16× the program floor (1.90 s" in judged["value"]
    assert "the floor allows 1.61 s" in judged["value"]


def _sized(p, t, nodes, servers, noop_servers, wall=5.0):
    return bench_run.Row(f"bench-p{p}-t{t}", p, t, 100 * p + t, wall, wall, wall, wall, 300.0, 1.0, 1.0, [wall],
                         property_nodes=nodes, own_peak_mb=250.0, server_peak_mb={"security": 90.0},
                         servers_cpu_s=servers, noop_servers_cpu_s=noop_servers, noop_median_s=wall / 2)


def test_a_rule_growing_faster_than_the_property_nodes_is_flagged():
    """Twice the pools, twice the property nodes: the rules' CPU (packs' servers above the no-op packs') at 4× is a
    quadratic rule; at 2.2× it is linear; a pair whose smaller rule work is tiny is listed without a verdict."""
    quadratic = bench_run.growth([_sized(32, 200, 1000, 3.0, 1.0), _sized(64, 200, 2000, 9.0, 1.0)], fixed_s=1.0)
    assert quadratic[0]["rulesCpuRatio"] == 4.0 and quadratic[0]["rulesLinear"] is False
    [verdict] = [t for t in bench_run.targets([], quadratic, None) if "no rule worse than linear" in t["target"]]
    assert verdict["met"] is False and "4.0× for 2.0× nodes" in verdict["value"]
    linear = bench_run.growth([_sized(32, 200, 1000, 3.0, 1.0), _sized(64, 200, 2000, 5.4, 1.0)], fixed_s=1.0)
    assert linear[0]["rulesLinear"] is True
    tiny = bench_run.growth([_sized(1, 2, 1000, 1.1, 1.0), _sized(2, 2, 2000, 1.9, 1.0)], fixed_s=1.0)
    assert tiny[0]["rulesLinear"] is None and not [t for t in bench_run.targets([], tiny, None)
                                                   if "no rule worse" in t["target"]]


def test_the_biggest_stack_is_judged_against_both_floors_and_in_memory():
    """64 × 200 against 6× the import floor, its packs' servers against 1.5× the no-op packs' (CPU time), and the
    peak memory of each of its processes against 600 MB."""
    big = _sized(64, 200, 10_000, 6.0, 4.5, wall=11.0)
    found = {t["target"]: t for t in bench_run.targets([big], [], None, 2.0, 2.0)}
    assert found["64 pools, 200 tenants ≤ 6 × the import floor"]["met"] is True
    assert found["64 pools, 200 tenants: the packs ≤ 1.5 × the no-op packs"]["value"].startswith(
        "servers' CPU 1.33× (6.00 s / 4.50 s)")
    assert found["64 pools, 200 tenants ≤ 600 MB peak, each process"]["met"] is True
    heavy = _sized(64, 200, 10_000, 9.0, 4.5, wall=13.0)
    heavy.server_peak_mb = {"security": 640.0}
    found = {t["target"]: t for t in bench_run.targets([heavy], [], None, 2.0, 2.0)}
    assert not any(t["met"] for t in found.values())


def test_property_nodes_count_every_value_of_inputs_and_outputs():
    from bench.measure import property_nodes

    assert property_nodes([{"inputs": {"a": [1, {"b": 2}]}, "outputs": {}}]) == 5 + 1


def test_a_policy_growing_faster_than_the_nodes_is_flagged_by_the_rules_case():
    """bench.rules: on twice the property nodes, a policy at 4× is flagged, one at 2× is linear, and one too cheap
    to time reliably is listed without a verdict."""
    from bench.rules import compare

    rows = {r["policy"]: r for r in compare({"quadratic": 0.1, "linear": 0.1, "cheap": 0.001},
                                            {"quadratic": 0.4, "linear": 0.2, "cheap": 0.004}, 2.0)}
    assert rows["quadratic"]["linear"] is False and rows["linear"]["linear"] is True
    assert rows["cheap"]["linear"] is None and rows["cheap"]["ratio"] == 4.0


def test_the_bench_compiles_the_sources_before_measuring_even_when_bytecode_writing_is_off(tmp_path, monkeypatch):
    """The measured processes load bytecode, not sources: ``compile_sources`` writes it for every source tree it
    names (here a copy), whatever ``PYTHONDONTWRITEBYTECODE`` says, and reports a file that does not compile."""
    import importlib.util

    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    for name in bench_run.COMPILED:
        target = tmp_path / name
        if name.endswith(".py"):
            target.write_text("X = 1\n")
        else:
            (target / "sub").mkdir(parents=True)
            (target / "sub" / "m.py").write_text("Y = 2\n")
    assert bench_run.compile_sources(tmp_path) is True
    assert Path(importlib.util.cache_from_source(str(tmp_path / "offline" / "sub" / "m.py"))).is_file()
    assert Path(importlib.util.cache_from_source(str(tmp_path / "__main__.py"))).is_file()
    (tmp_path / "policies" / "sub" / "broken.py").write_text("def (:\n")
    assert bench_run.compile_sources(tmp_path) is False
