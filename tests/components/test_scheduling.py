"""Kueue objects (Topology, ResourceFlavor, ClusterQueue, LocalQueue), their dependency edges, the quota split, the
RDMA topology labeler, and the NCCL all-reduce example."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s
import pytest
import yaml

from oke_rdma.compute import node_labels
from oke_rdma.config import GPUS_PER_SHAPE, RDMA_TOPOLOGY_LEVELS
from oke_rdma.adapter import flavor_quotas
from oke_rdma.scheduling import POOL_LABEL, FlavorQuota, local_queue_name
from tests.crddeps import crd_dependency_problems
from tests.stackcfg import dev_raw_config, load_dev_config, of_type, one
from offline.engine import run_program
from offline.policy_eval import evaluate_packs
from policies import PACK_DIRS

ROOT = Path(__file__).resolve().parents[2]
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"
RELEASE = "kubernetes:helm.sh/v3:Release"
EXAMPLE = ROOT / "examples" / "nccl-allreduce" / "nccl-allreduce.yaml"


def _run(unknowns: bool = False, **overrides):
    return run_program(dev_raw_config(**overrides), [], "dev", unknowns=unknowns)


@pytest.fixture(scope="module")
def dev():
    return _run()


def _release(run, name: str):
    return next(r for r in of_type(run.resources, RELEASE) if r.inputs["name"] == name)


def test_topology_levels_and_flavor(dev):
    topo = one(dev.resources, KUEUE + "Topology")
    assert topo.inputs["metadata"]["name"] == "okerdma-dev-rdma"
    assert [lv["nodeLabel"] for lv in topo.inputs["spec"]["levels"]] == list(RDMA_TOPOLOGY_LEVELS)
    assert RDMA_TOPOLOGY_LEVELS[-1] == "kubernetes.io/hostname"
    flavor = one(dev.resources, KUEUE + "ResourceFlavor")
    assert flavor.inputs["metadata"]["name"] == "okerdma-dev-gpu"
    assert flavor.inputs["spec"]["topologyName"] == "okerdma-dev-rdma"
    assert flavor.inputs["spec"]["nodeLabels"] == {POOL_LABEL: "gpu"}
    assert topo.urn in flavor.dependencies


def test_flavor_selects_a_label_the_pool_really_carries(dev):
    """The flavor's nodeLabels are among the initial labels the node pool is created with."""
    pool = next(r for r in dev.resources if r.type == "oci:ContainerEngine/nodePool:NodePool"
                and r.name == "okerdma-dev-gpu")
    labels = {entry["key"]: entry["value"] for entry in pool.inputs["initialNodeLabels"]}
    flavor = one(dev.resources, KUEUE + "ResourceFlavor")
    for key, value in flavor.inputs["spec"]["nodeLabels"].items():
        assert labels.get(key) == value


def test_cluster_queues_per_tenant_in_one_cohort(dev):
    cqs = {r.inputs["metadata"]["name"]: r.inputs["spec"] for r in of_type(dev.resources, KUEUE + "ClusterQueue")}
    assert set(cqs) == {"okerdma-dev-research", "okerdma-dev-analytics"}
    research = cqs["okerdma-dev-research"]
    assert research["cohortName"] == "okerdma-dev" == cqs["okerdma-dev-analytics"]["cohortName"]
    assert research["namespaceSelector"] == {"matchLabels": {"kubernetes.io/metadata.name": "research"}}
    assert research["preemption"] == {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"}
    [group] = research["resourceGroups"]
    assert group["coveredResources"] == ["cpu", "memory", "nvidia.com/gpu"]
    [flavor] = group["flavors"]
    assert flavor["name"] == "okerdma-dev-gpu"
    assert {r["name"]: r["nominalQuota"] for r in flavor["resources"]} == {
        "cpu": "300000m", "memory": f"{3000 * 1024}Mi", "nvidia.com/gpu": "16"}
    analytics_gpu = next(r for r in cqs["okerdma-dev-analytics"]["resourceGroups"][0]["flavors"][0]["resources"]
                         if r["name"] == "nvidia.com/gpu")
    assert analytics_gpu == {"name": "nvidia.com/gpu", "nominalQuota": "4", "borrowingLimit": "4"}


def test_local_queue_per_tenant_namespace(dev):
    lqs = {r.inputs["metadata"]["namespace"]: r for r in of_type(dev.resources, KUEUE + "LocalQueue")}
    assert set(lqs) == {"research", "analytics"}
    namespaces = {r.inputs["metadata"]["name"]: r.urn for r in of_type(dev.resources, "kubernetes:core/v1:Namespace")}
    cqs = {r.inputs["metadata"]["name"]: r.urn for r in of_type(dev.resources, KUEUE + "ClusterQueue")}
    for ns, lq in lqs.items():
        assert lq.inputs["metadata"]["name"] == local_queue_name(ns)
        assert lq.inputs["spec"] == {"clusterQueue": f"okerdma-dev-{ns}"}
        assert namespaces[ns] in lq.dependencies and cqs[f"okerdma-dev-{ns}"] in lq.dependencies
    assert {t: {k: v[k] for k in ("namespace", "localQueue", "clusterQueue")} for t, v in dev.outputs["tenants"].items()} == {
        t: {"namespace": t, "localQueue": t, "clusterQueue": f"okerdma-dev-{t}"} for t in ("research", "analytics")}


def assert_kueue_objects_wait_for_kueue(run) -> None:
    """Every kueue.x-k8s.io custom resource lists the Kueue release among its dependencies."""
    kueue = _release(run, "kueue")
    for r in run.resources:
        if r.type.startswith("kubernetes:kueue.x-k8s.io/"):
            assert kueue.urn in r.dependencies, f"{r.name} does not depend on the Kueue release"


def test_every_custom_resource_depends_on_the_release_of_its_crd(dev):
    custom = [r for r in dev.resources if r.type.startswith(KUEUE)]
    assert len(custom) == 6  # Topology, 1 ResourceFlavor, 2 ClusterQueues, 2 LocalQueues
    assert_kueue_objects_wait_for_kueue(dev)
    assert crd_dependency_problems(dev.resources) == []


def test_a_resource_flavor_without_the_kueue_dependency_is_caught():
    """The must-fail input: a ResourceFlavor registered without depends_on the Kueue release."""
    def program():
        provider = k8s.Provider("k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
        opts = pulumi.ResourceOptions(provider=provider)
        release = k8s.helm.v3.Release("kueue", k8s.helm.v3.ReleaseArgs(
            name="kueue", chart="oci://registry.k8s.io/kueue/charts/kueue", version="0.18.2"), opts)
        k8s.apiextensions.CustomResource("good", api_version="kueue.x-k8s.io/v1beta2", kind="ResourceFlavor",
                                         spec={}, opts=pulumi.ResourceOptions(provider=provider, depends_on=[release]))
        k8s.apiextensions.CustomResource("bad", api_version="kueue.x-k8s.io/v1beta2", kind="ResourceFlavor",
                                         spec={}, opts=opts)

    run = run_program({}, [], "dev", program=program)
    problems = crd_dependency_problems(run.resources)
    assert problems == ["bad (kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor): does not depend on the release "
                        "'kueue'"]
    with pytest.raises(AssertionError, match="bad does not depend on the Kueue release"):
        assert_kueue_objects_wait_for_kueue(run)


def test_first_preview_keeps_the_edges():
    run = _run(unknowns=True)
    assert len([r for r in run.resources if r.type.startswith(KUEUE)]) == 6
    assert crd_dependency_problems(run.resources) == []


def test_no_kueue_no_scheduling_objects():
    run = _run(platform={"kueue": {"enabled": False}})
    assert not [r for r in run.resources if r.type.startswith(KUEUE)]
    assert not of_type(run.resources, "oke-rdma:scheduling:Scheduling")
    assert {v["localQueue"] for v in run.outputs["tenants"].values()} == {None}
    assert "topology" not in run.outputs


def test_custom_topology_levels():
    run = _run(platform={"kueue": {"topologyLevels": ["oci.oraclecloud.com/rdma.local_block_id",
                                                      "kubernetes.io/hostname"]}})
    topo = one(run.resources, KUEUE + "Topology")
    assert [lv["nodeLabel"] for lv in topo.inputs["spec"]["levels"]] == [
        "oci.oraclecloud.com/rdma.local_block_id", "kubernetes.io/hostname"]


# --- quota split ---------------------------------------------------------------------------------------------------
def _two_pools():
    return load_dev_config(nodePools={"gpu2": {"shape": "BM.GPU.A100-v2.8", "size": 1, "rdma": True,
                                               "imageId": "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaa7u2b4n6m8q1w3e5r"}},
                           tenants={"research": {"quota": {"gpu": 20, "gpuBorrowingLimit": 3, "cpu": 10,
                                                           "memoryGb": 3}}})


def test_quota_fills_pools_in_order_and_cpu_memory_follow_gpu_shares():
    cfg = _two_pools()
    q = flavor_quotas(cfg, "research")
    assert q == {"gpu": FlavorQuota(gpu=16, gpu_borrowing_limit=0, cpu_millis=8000, memory_mi=2457),
                 "gpu2": FlavorQuota(gpu=4, gpu_borrowing_limit=3, cpu_millis=2000, memory_mi=615)}
    assert sum(v.memory_mi for v in q.values()) == 3 * 1024
    zero_gpu = flavor_quotas(load_dev_config(tenants={"analytics": {"quota": {"gpu": 0, "gpuBorrowingLimit": 0,
                                                                              "cpu": 4, "memoryGb": 8}}}),
                             "analytics")
    assert zero_gpu == {"gpu": FlavorQuota(gpu=0, gpu_borrowing_limit=0, cpu_millis=4000, memory_mi=8192)}


def test_gpus_per_shape_covers_the_rdma_shapes():
    from oke_rdma.config import RDMA_SHAPES
    from oke_rdma.facts.shapes import SHAPES
    assert {s for s in RDMA_SHAPES if SHAPES[s].gpu_vendor != "AMD"} <= set(GPUS_PER_SHAPE)  # AMD: amd.com/gpu
    assert GPUS_PER_SHAPE["BM.GPU.H100.8"] == 8 and GPUS_PER_SHAPE["BM.GPU.GB200.4"] == 4


# --- the topology labeler ------------------------------------------------------------------------------------------
def test_labeler_off_by_default(dev):
    assert not [d for d in of_type(dev.resources, "kubernetes:apps/v1:DaemonSet") if "labeler" in d.name]


def test_labeler_daemonset_least_privilege():
    run = _run(platform={"kueue": {"topologyLabeler": {"enabled": True}}})
    ns = one(run.resources, "kubernetes:core/v1:Namespace", "okerdma-dev-ns-oke-rdma-topology")
    assert ns.inputs["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"
    role = one(run.resources, "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "okerdma-dev-labeler-role")
    assert role.inputs["rules"] == [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "patch"]}]
    ds = one(run.resources, "kubernetes:apps/v1:DaemonSet", "okerdma-dev-labeler")
    pod = ds.inputs["spec"]["template"]["spec"]
    assert pod["hostNetwork"] is True and pod["serviceAccountName"] == "rdma-topology-labeler"
    [container] = pod["containers"]
    assert container["image"] == "docker.io/library/python:3.14.6-slim-trixie"
    assert container["securityContext"] == {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                            "runAsNonRoot": True, "runAsUser": 65534,
                                            "capabilities": {"drop": ["ALL"]}}
    term = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term == [{"matchExpressions": [{"key": POOL_LABEL, "operator": "In", "values": ["gpu"]}]}]
    assert ns.urn in ds.dependencies
    report = evaluate_packs(PACK_DIRS, run.resources)
    assert report.violations == []  # hostNetwork in a privileged namespace passes the pack


def _labeler_module():
    spec = importlib.util.spec_from_file_location("labeler", ROOT / "oke_rdma" / "files" /
                                                  "rdma_topology_labeler.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_labeler_adds_only_missing_labels():
    labeler = _labeler_module()
    topology = {"customerHPCIslandId": "ocid1.hpcisland.oc1.iad.aaa", "customerNetworkBlock": "ocid1.nb.x",
                "customerLocalBlock": "ocid1.lb.y", "customerHostId": "ocid1.host.z"}
    current = {"oci.oraclecloud.com/rdma.local_block_id": "4tjxbt4s6ua"}  # set by OKE: kept
    add = labeler.missing_labels(current, topology)
    assert set(add) == {"oci.oraclecloud.com/rdma.hpc_island_id", "oci.oraclecloud.com/rdma.network_block_id",
                        "oci.oraclecloud.com/rdma.host_id"}
    assert all(len(v) == 16 and v.isalnum() for v in add.values())
    assert add["oci.oraclecloud.com/rdma.network_block_id"] == labeler.label_value("ocid1.nb.x")
    assert labeler.missing_labels({}, {}) == {}
    assert set(RDMA_TOPOLOGY_LEVELS[:-1]) <= set(labeler.LABELS.values())


def test_compute_labels_every_pool_with_the_flavor_label():
    cfg = load_dev_config()
    for name, pool in cfg.rdma_pools.items():
        assert node_labels(pool, name, True)[POOL_LABEL] == name


# --- the example RDMA job ------------------------------------------------------------------------------------------
def test_nccl_allreduce_example_essentials():
    cfg = load_dev_config()
    docs = {d["kind"]: d for d in yaml.safe_load_all(EXAMPLE.read_text())}
    job = docs["Job"]
    ns = job["metadata"]["namespace"]
    tenant = next(t for t in cfg.tenants if cfg.tenant_namespace(t) == ns)
    assert cfg.tenants[tenant].rdma, "the example must run in a tenant allowed RDMA pods"
    assert job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == local_queue_name(tenant)
    assert all(d["metadata"]["namespace"] == ns for d in docs.values())
    template = job["spec"]["template"]
    level = template["metadata"]["annotations"]["kueue.x-k8s.io/podset-required-topology"]
    assert level in cfg.platform.kueue.topology_levels[:-1]  # an RDMA level, not the hostname
    assert job["spec"]["parallelism"] == job["spec"]["completions"] == 2
    pod = template["spec"]
    [c] = pod["containers"]
    gpus = c["resources"]["limits"]["nvidia.com/gpu"]
    shape = cfg.node_pools[next(iter(cfg.rdma_pools))].shape
    assert gpus == c["resources"]["requests"]["nvidia.com/gpu"] == GPUS_PER_SHAPE[shape]
    assert 2 * gpus <= cfg.tenants[tenant].quota.gpu + cfg.tenants[tenant].quota.gpu_borrowing_limit
    assert pod["hostNetwork"] is True and "IPC_LOCK" in c["securityContext"]["capabilities"]["add"]
    mounts = {m["mountPath"] for m in c["volumeMounts"]}
    assert {"/dev/infiniband", "/dev/shm"} <= mounts
    assert {"path": "/dev/infiniband"} in [v.get("hostPath") for v in pod["volumes"]]
    assert ":" in c["image"] and not c["image"].endswith(":latest")


def test_dev_preview_json_shows_the_objects_and_edges(dev_plan_file):
    import json

    plan = json.loads(dev_plan_file[0].read_text())
    by_name = {r["name"]: r for r in plan["resources"]}
    kueue = by_name["okerdma-dev-kueue"]["urn"]
    kinds = sorted(r["type"].rsplit(":", 1)[1] for r in plan["resources"] if r["type"].startswith(KUEUE))
    assert kinds == ["ClusterQueue", "ClusterQueue", "LocalQueue", "LocalQueue", "ResourceFlavor", "Topology"]
    assert all(kueue in r["dependencies"] for r in plan["resources"] if r["type"].startswith(KUEUE))
    assert by_name["okerdma-dev-kube-prometheus-stack"]["urn"] in by_name["okerdma-dev-gpu-operator"]["dependencies"]
    assert by_name["okerdma-dev-ns-research"]["inputs"]["metadata"]["labels"][
        "pod-security.kubernetes.io/enforce"] == "privileged"
    assert by_name["okerdma-dev-quota-research"]["inputs"]["spec"]["hard"] == {"requests.nvidia.com/gpu": "16"}


def test_scheduling_builds_from_its_own_args_without_the_stack_config():
    """Another program builds the Kueue objects from typed Args alone: one RDMA pool, one shared pool, one tenant,
    no ``oke-rdma:`` config; the flavors, the ClusterQueue's quotas and the LocalQueue follow the Args."""
    from oke_rdma.scheduling import FlavorPool, Scheduling, SchedulingArgs, TenantQueue

    def program():
        provider = k8s.Provider("k8s", kubeconfig="{}")
        release = k8s.helm.v3.Release("kueue", chart="kueue", version="0.18.2", namespace="kueue-system",
                                      opts=pulumi.ResourceOptions(provider=provider))
        namespaces = {n: k8s.core.v1.Namespace(n, metadata={"name": n}, opts=pulumi.ResourceOptions(provider=provider))
                      for n in ("kueue-system", "team-a")}
        Scheduling("lib", SchedulingArgs(
            name_prefix="lib", provider=provider, kueue_release=release, namespaces=namespaces,
            kueue_namespace="kueue-system", kubernetes_version="v1.34.1",
            topology_levels=("oci.oraclecloud.com/rdma.network_block_id", "kubernetes.io/hostname"),
            pools={"h100": FlavorPool(rdma=True, gpu=True), "a10": FlavorPool(rdma=False, gpu=True)},
            tenants={"a": TenantQueue(namespace="team-a", quotas={
                "h100": FlavorQuota(gpu=8, gpu_borrowing_limit=0, cpu_millis=100000, memory_mi=1024),
                "a10": FlavorQuota(gpu=2, gpu_borrowing_limit=2, cpu_millis=1000, memory_mi=512)})}))

    run = run_program({}, [], "lib", program=program)
    flavors = {r.inputs["metadata"]["name"]: r.inputs["spec"] for r in of_type(run.resources, KUEUE + "ResourceFlavor")}
    assert flavors["lib-h100"]["topologyName"] == "lib-rdma" and "topologyName" not in flavors["lib-a10"]
    (topology,) = of_type(run.resources, KUEUE + "Topology")
    assert [lv["nodeLabel"] for lv in topology.inputs["spec"]["levels"]][-1] == "kubernetes.io/hostname"
    (cq,) = of_type(run.resources, KUEUE + "ClusterQueue")
    quotas = {f["name"]: {r["name"]: r for r in f["resources"]} for f in cq.inputs["spec"]["resourceGroups"][0]["flavors"]}
    assert quotas["lib-a10"]["nvidia.com/gpu"] == {"name": "nvidia.com/gpu", "nominalQuota": "2", "borrowingLimit": "2"}
    assert quotas["lib-h100"]["cpu"]["nominalQuota"] == "100000m"
    (lq,) = of_type(run.resources, KUEUE + "LocalQueue")
    assert lq.inputs["metadata"]["namespace"] == "team-a" and lq.inputs["spec"] == {"clusterQueue": "lib-a"}


@pytest.mark.parametrize("change, message", [
    ({"topology_levels": ("oci.oraclecloud.com/rdma.network_block_id",)}, "SchedulingArgs.topology_levels: "),
    ({"kueue_namespace": "elsewhere"}, "SchedulingArgs.kueue_namespace: namespace 'elsewhere'"),
    ({"tenants": {"a": "team-b"}}, "SchedulingArgs.tenants.a.namespace: namespace 'team-b'"),
    ({"tenants": {"a": "team-a", "pool": "l40s"}}, "SchedulingArgs.tenants.a.quotas: pools ['l40s']"),
])
def test_scheduling_args_refuse_what_kueue_cannot_use_with_one_line(change, message):
    """Args a library user gets wrong are refused before anything is declared, naming the argument."""
    from oke_rdma.scheduling import FlavorPool, SchedulingArgs, TenantQueue
    tenants = change.pop("tenants", {"a": "team-a"})
    pool = tenants.pop("pool", "h100")
    quota = FlavorQuota(gpu=8, gpu_borrowing_limit=0, cpu_millis=1000, memory_mi=1024)
    kwargs = dict(name_prefix="lib", provider=None, kueue_release=None,
                  namespaces={"kueue-system": None, "team-a": None}, kueue_namespace="kueue-system",
                  kubernetes_version="v1.34.1",
                  topology_levels=("oci.oraclecloud.com/rdma.network_block_id", "kubernetes.io/hostname"),
                  pools={"h100": FlavorPool(rdma=True, gpu=True)},
                  tenants={t: TenantQueue(namespace=ns, quotas={pool: quota}) for t, ns in tenants.items()})
    with pytest.raises(ValueError) as err:
        SchedulingArgs(**{**kwargs, **change})
    assert str(err.value).startswith(message) and "\n" not in str(err.value), str(err.value)


def _inert_flavor_run(l40s_cpu_millis: int):
    """Three pools and two tenants: ``a`` has a quota on h100, ``b`` on a10, and l40s has ``l40s_cpu_millis`` of
    ``b``'s CPU quota (0: nobody's quota)."""
    from oke_rdma.scheduling import FlavorPool, Scheduling, SchedulingArgs, TenantQueue
    zero = FlavorQuota(gpu=0, gpu_borrowing_limit=0, cpu_millis=0, memory_mi=0)

    def program():
        provider = k8s.Provider("k8s", kubeconfig="{}")
        release = k8s.helm.v3.Release("kueue", chart="kueue", version="0.18.2", namespace="kueue-system",
                                      opts=pulumi.ResourceOptions(provider=provider))
        namespaces = {n: k8s.core.v1.Namespace(n, metadata={"name": n}, opts=pulumi.ResourceOptions(provider=provider))
                      for n in ("kueue-system", "team-a", "team-b")}
        Scheduling("lib", SchedulingArgs(
            name_prefix="lib", provider=provider, kueue_release=release, namespaces=namespaces,
            kueue_namespace="kueue-system", kubernetes_version="v1.34.1",
            topology_levels=("oci.oraclecloud.com/rdma.network_block_id", "kubernetes.io/hostname"),
            pools={p: FlavorPool(rdma=True, gpu=True) for p in ("h100", "a10", "l40s")},
            tenants={"a": TenantQueue(namespace="team-a", quotas={
                         "h100": FlavorQuota(gpu=8, gpu_borrowing_limit=0, cpu_millis=1000, memory_mi=512),
                         "a10": zero, "l40s": zero}),
                     "b": TenantQueue(namespace="team-b", quotas={
                         "h100": zero, "a10": FlavorQuota(gpu=2, gpu_borrowing_limit=0, cpu_millis=0, memory_mi=0),
                         "l40s": FlavorQuota(gpu=0, gpu_borrowing_limit=0, cpu_millis=l40s_cpu_millis,
                                             memory_mi=0)})}))

    run = run_program({}, [], "lib", program=program)
    flavors = {r.urn: r.inputs["metadata"]["name"] for r in of_type(run.resources, KUEUE + "ResourceFlavor")}
    assert sorted(flavors.values()) == ["lib-a10", "lib-h100", "lib-l40s"]  # every pool keeps its flavor
    listed, waits = {}, {}
    for cq in of_type(run.resources, KUEUE + "ClusterQueue"):
        name = cq.inputs["metadata"]["name"]
        listed[name] = [f["name"] for g in cq.inputs["spec"]["resourceGroups"] for f in g["flavors"]]
        waits[name] = sorted(flavors[d] for d in cq.dependencies if d in flavors)
    return listed, waits


def test_a_flavor_no_tenant_has_quota_on_is_listed_by_no_cluster_queue():
    """Kueue admits nothing on a flavor where the cohort holds no nominal quota, so no ClusterQueue lists it (nor
    waits for it); a flavor another tenant has quota on stays listed with zeros: its idle quota can be borrowed."""
    listed, waits = _inert_flavor_run(0)
    assert listed == {"lib-a": ["lib-h100", "lib-a10"], "lib-b": ["lib-h100", "lib-a10"]}
    assert waits == {q: sorted(fs) for q, fs in listed.items()}


def test_a_flavor_with_some_tenants_quota_is_listed_by_every_eligible_cluster_queue():
    """The same pools once one tenant has a CPU quota on l40s: the flavor is back in both ClusterQueues."""
    listed, waits = _inert_flavor_run(4000)
    assert listed == {"lib-a": ["lib-h100", "lib-a10", "lib-l40s"], "lib-b": ["lib-h100", "lib-a10", "lib-l40s"]}
    assert waits == {q: sorted(fs) for q, fs in listed.items()}
