"""Replacements cascade as the engine plans them: unknown outputs of a replaced resource reach immutable inputs, a
replaced Kubernetes provider replaces every object it manages, named Kubernetes objects are deleted before they are
replaced, and changes the API server refuses in place are refused."""

import json
from pathlib import Path

import pytest

from offline import preview
from tests.offline.plans import dev_plan as plan_variant
from offline.replacement import Planner, compare, kubernetes_provider_replaces

ROOT = Path(__file__).resolve().parents[2]
KMS = "ocid1.key.oc1.sa-saopaulo-1.aaaaaaaaexamplekey00000000000000000000000000000000000000000"


run = plan_variant


@pytest.fixture(scope="module")
def dev_plan(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dev")
    code, doc = run(tmp, "old.json")
    assert code == 0
    return tmp / "old.json", doc


@pytest.mark.parametrize("key, value", [("kmsKeyId", KMS), ("cniType", "FLANNEL_OVERLAY")])
def test_an_immutable_cluster_change_replaces_the_pools_the_provider_and_every_kubernetes_object(
        tmp_path, capsys, dev_plan, key, value):
    old_path, old = dev_plan
    capsys.readouterr()

    def edit(cfg):
        cfg["oke-rdma:cluster"][key] = value
        if key == "cniType":  # pod density is a VCN-native setting, and Cilium chains onto the VCN-native CNI
            for pool in cfg["oke-rdma:nodePools"].values():
                pool.pop("maxPodsPerNode", None)
            cfg["oke-rdma:platform"]["cilium"] = {"enabled": False}
            cfg.pop("oke-rdma:tenants", None)  # flannel voids the tenants' walls: refused with tenants
    code, new = run(tmp_path, "new.json", edit, "--previous", str(old_path))
    out = capsys.readouterr().out
    ops = {c["urn"]: c for c in new["changes"]}
    k8s = [r["urn"] for r in new["resources"] if r["type"].startswith("kubernetes:")]
    pools = [r["urn"] for r in new["resources"] if r["type"] == "oci:ContainerEngine/nodePool:NodePool"]
    provider = next(r["urn"] for r in new["resources"] if r["type"] == "pulumi:providers:kubernetes")
    assert k8s and len(pools) == 2
    assert all(ops[u]["op"] == "replace" for u in [*k8s, *pools, provider])
    assert all(ops[u]["causedBy"] == ["okerdma-dev-oke is replaced"] for u in pools)
    assert ops[provider]["causedBy"] == ["okerdma-dev-oke is replaced"]
    assert "clusterIdentifier" in ops[provider]["replaceBecause"]
    assert all(ops[u]["causedBy"] == ["okerdma-dev-k8s is replaced"] for u in k8s)
    count = sum(c["op"] == "replace" for c in new["changes"])
    assert f"+- {count} to replace" in out and f"Replacements ({count})" in out
    assert "  because okerdma-dev-oke is replaced (" in out and "  because okerdma-dev-k8s is replaced (" in out
    assert code == 0  # a cascade alone is no error ...
    code, _ = run(tmp_path, "gate.json", edit, "--previous", str(old_path), "--fail-on-replace")
    assert code == preview.EXIT_DESTROYS == 5  # ... unless the reviewer gates destruction
    assert "error: --fail-on-replace: oci:ContainerEngine/cluster:Cluster okerdma-dev-oke would be replaced" in \
        capsys.readouterr().err


def test_an_updatable_change_cascades_nothing_and_passes_the_gate(tmp_path, capsys, dev_plan):
    old_path, _ = dev_plan

    def edit(cfg):
        cfg["oke-rdma:nodePools"]["gpu"]["size"] = 4
    code, new = run(tmp_path, "new.json", edit, "--previous", str(old_path), "--fail-on-replace")
    assert code == 0
    assert {c["name"]: c["op"] for c in new["changes"] if c["op"] != "same"} == {"okerdma-dev-gpu": "update"}


def test_replacing_the_vcn_dns_label_cascades_to_everything_in_the_vcn(tmp_path, capsys, dev_plan):
    """A case the cascade rule covers without naming it: the VCN's id feeds every subnet, NSG, gateway and the
    cluster, all of which hold vcnId (immutable)."""
    old_path, _ = dev_plan

    def edit(cfg):
        cfg["oke-rdma:network"]["dnsLabel"] = "otherlabel"
    code, new = run(tmp_path, "new.json", edit, "--previous", str(old_path))
    ops = {c["name"]: c for c in new["changes"]}
    assert ops["okerdma-dev-vcn"]["op"] == "replace"
    subnets = [c for c in new["changes"] if c["type"] == "oci:Core/subnet:Subnet"]
    assert subnets and all(c["op"] == "replace" and c["causedBy"] == ["okerdma-dev-vcn is replaced"]
                           for c in subnets)
    assert ops["okerdma-dev-oke"]["op"] == "replace"  # through vcnId and the subnets
    assert ops["okerdma-dev-k8s"]["op"] == "replace"


def _provider(**inputs):
    return {"kubeconfig": "[secret]", **inputs}


@pytest.mark.parametrize("old, new, replaces", [
    (_provider(clusterIdentifier="a"), _provider(clusterIdentifier="a", kubeconfig="[unknown]"), []),  # same id
    (_provider(clusterIdentifier="a"), _provider(clusterIdentifier="[unknown]", kubeconfig="[unknown]"),
     ["clusterIdentifier", "kubeconfig"]),
    (_provider(clusterIdentifier="a"), _provider(clusterIdentifier="b"), ["clusterIdentifier"]),
    (_provider(), _provider(clusterIdentifier="a"), []),  # onboarding the identifier replaces nothing
    (_provider(), _provider(kubeconfig="[unknown]"), ["kubeconfig"]),
    (_provider(context="a"), _provider(context="[unknown]"), ["context"]),
    (_provider(), _provider(renderYamlToDirectory="out"), ["renderYamlToDirectory"]),
    (_provider(), _provider(enableServerSideApply="false"), []),
    ({"kubeconfig": "clusters: [{name: a, cluster: {server: https://a}}]\ncurrent-context: c\n"
                    "contexts: [{name: c, context: {cluster: a}}]"},
     {"kubeconfig": "clusters: [{name: a, cluster: {server: https://b}}]\ncurrent-context: c\n"
                    "contexts: [{name: c, context: {cluster: a}}]"}, ["kubeconfig"]),  # another active cluster
])
def test_kubernetes_provider_replacement_follows_pulumi_kubernetes_diffconfig(old, new, replaces):
    assert kubernetes_provider_replaces(old, new) == replaces


def _k8s(kind, spec, name="x", api="v1", roc=()):
    group = api if "/" in api else f"core/{api}"
    return {"urn": f"urn:pulumi:s::p::kubernetes:{group}:{kind}::{name}", "type": f"kubernetes:{group}:{kind}",
            "name": name, "inputs": {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": "n"},
                                     **spec}, "replaceOnChanges": list(roc)}


@pytest.mark.parametrize("kind, api, old, new", [
    ("Service", "v1", {"spec": {"clusterIP": "10.0.0.1"}}, {"spec": {"clusterIP": "10.0.0.2"}}),
    ("Job", "batch/v1", {"spec": {"template": {"a": 1}}}, {"spec": {"template": {"a": 2}}}),
    ("Deployment", "apps/v1", {"spec": {"selector": {"matchLabels": {"a": "1"}}}},
     {"spec": {"selector": {"matchLabels": {"a": "2"}}}}),
    ("PersistentVolumeClaim", "v1", {"spec": {"storageClassName": "a"}}, {"spec": {"storageClassName": "b"}}),
    ("StorageClass", "storage.k8s.io/v1", {"parameters": {"a": "1"}}, {"parameters": {"a": "2"}}),
    ("RoleBinding", "rbac.authorization.k8s.io/v1", {"roleRef": {"name": "a"}}, {"roleRef": {"name": "b"}}),
    ("ConfigMap", "v1", {"data": {"a": "1"}}, {"data": {"a": "2"}}),  # immutable unless enableConfigMapMutable
    ("Secret", "v1", {"stringData": {"a": "1"}}, {"stringData": {"a": "2"}}),
])
def test_fields_pulumi_kubernetes_replaces_on_are_delete_before_replace_for_named_objects(kind, api, old, new):
    [change] = compare({"resources": [_k8s(kind, old, api=api)]}, {"resources": [_k8s(kind, new, api=api)]})
    assert change.op == "replace" and change.delete_before_replace


@pytest.mark.parametrize("kind, api, old, new", [
    ("PersistentVolumeClaim", "v1", {"spec": {"volumeMode": "Filesystem"}}, {"spec": {"volumeMode": "Block"}}),
    ("StorageClass", "storage.k8s.io/v1", {"reclaimPolicy": "Retain"}, {"reclaimPolicy": "Delete"}),
    ("Topology", "kueue.x-k8s.io/v1beta2", {"spec": {"levels": [{"nodeLabel": "a"}]}},
     {"spec": {"levels": [{"nodeLabel": "b"}]}}),
    ("ResourceFlavor", "kueue.x-k8s.io/v1beta2", {"spec": {"topologyName": "t", "nodeLabels": {"a": "1"}}},
     {"spec": {"topologyName": "t", "nodeLabels": {"a": "2"}}}),
    ("LocalQueue", "kueue.x-k8s.io/v1beta2", {"spec": {"clusterQueue": "a"}}, {"spec": {"clusterQueue": "b"}}),
])
def test_changes_the_api_server_refuses_are_refused_unless_declared_replace_on_changes(kind, api, old, new):
    [change] = compare({"resources": [_k8s(kind, old, api=api)]}, {"resources": [_k8s(kind, new, api=api)]})
    assert change.op == "update" and change.refused and "immutable" in change.refused[0]
    path = change.changed[0]
    [change] = compare({"resources": [_k8s(kind, old, api=api, roc=[path])]},
                       {"resources": [_k8s(kind, new, api=api, roc=[path])]})
    assert change.op == "replace" and not change.refused


def test_a_renamed_object_is_replaced_created_before_the_old_one_is_deleted():
    old = _k8s("Namespace", {"metadata": {"name": "a"}})
    new = _k8s("Namespace", {"metadata": {"name": "b"}})
    [change] = compare({"resources": [old]}, {"resources": [new]})
    assert change.op == "replace" and change.replace_because == ("metadata.name",)
    assert not change.delete_before_replace  # two names can exist at once


def test_a_flavor_without_topology_may_change_its_node_labels_in_place():
    old = _k8s("ResourceFlavor", {"spec": {"nodeLabels": {"a": "1"}}}, api="kueue.x-k8s.io/v1beta2")
    new = _k8s("ResourceFlavor", {"spec": {"nodeLabels": {"a": "2"}}}, api="kueue.x-k8s.io/v1beta2")
    [change] = compare({"resources": [old]}, {"resources": [new]})
    assert change.op == "update" and not change.refused


def test_a_resource_whose_provider_is_replaced_is_replaced():
    prov = "urn:pulumi:s::p::pulumi:providers:kubernetes::k"
    before = {"resources": [{"urn": prov, "type": "pulumi:providers:kubernetes", "name": "k",
                             "inputs": {"clusterIdentifier": "a"}},
                            {**_k8s("ConfigMap", {"data": {"a": "1"}}), "provider": f"{prov}::id"}]}
    planner = Planner(before)
    assert planner.decide(prov, "pulumi:providers:kubernetes", True, {"clusterIdentifier": "b"},
                          property_dependencies={}, provider=None).op == "replace"
    cm = before["resources"][1]
    change = planner.decide(cm["urn"], cm["type"], True, cm["inputs"], property_dependencies={},
                            provider=f"{prov}::04da6b54-80e4-46f7-96ec-b56ff0331ba9")
    assert (change.op, change.replace_because, change.caused_by) == ("replace", ("provider",), ("k is replaced",))


def test_the_option_delete_before_replace_is_honoured():
    res = {"urn": "urn:pulumi:s::p::oci:Core/vcn:Vcn::v", "type": "oci:Core/vcn:Vcn", "name": "v",
           "inputs": {"dnsLabel": "a"}}
    planner = Planner({"resources": [res]})
    change = planner.decide(res["urn"], res["type"], True, {"dnsLabel": "b"}, property_dependencies={},
                            provider=None, delete_before_replace=True)
    assert change.op == "replace" and change.delete_before_replace


def test_moving_the_compute_cluster_replaces_the_rdma_pool_that_runs_in_it(tmp_path, capsys, dev_plan):
    """The Compute Cluster's id reaches the GPU pool's immutable nodeConfigDetails.computeClusterId."""
    old_path, old = dev_plan
    doc = json.loads(old_path.read_text())
    cc = next(r for r in doc["resources"] if r["type"] == "oci:Core/computeCluster:ComputeCluster")
    cc["inputs"]["availabilityDomain"] = "bxtG:SA-SAOPAULO-1-AD-2"  # the state holds it elsewhere
    (tmp_path / "prev.json").write_text(json.dumps(doc))
    code, new = run(tmp_path, "new.json", None, "--previous", str(tmp_path / "prev.json"))
    ops = {c["name"]: c for c in new["changes"]}
    assert ops["okerdma-dev-compute-cluster"]["op"] == "replace"
    assert ops["okerdma-dev-gpu"]["op"] == "replace"
    assert ops["okerdma-dev-gpu"]["causedBy"] == ["okerdma-dev-compute-cluster is replaced"]
    assert ops["okerdma-dev-system"]["op"] == "same"  # not in the Compute Cluster: untouched


def test_a_replaced_file_system_takes_its_export_and_the_volumes_naming_it(tmp_path, capsys, dev_plan):
    old_path, _ = dev_plan
    doc = json.loads(old_path.read_text())
    for r in doc["resources"]:
        r["protect"] = False
        if r["type"] == "oci:FileStorage/fileSystem:FileSystem":
            r["inputs"]["availabilityDomain"] = "bxtG:SA-SAOPAULO-1-AD-2"
    (tmp_path / "prev.json").write_text(json.dumps(doc))
    code, new = run(tmp_path, "new.json", None, "--previous", str(tmp_path / "prev.json"))
    assert code == 0
    by_type: dict = {}
    for c in new["changes"]:
        by_type.setdefault(c["type"], []).append(c)
    exports = by_type["oci:FileStorage/export:Export"]  # the tenants' export and the preparation export
    assert len(exports) == 2
    assert all(e["op"] == "replace" and e["causedBy"] == ["okerdma-dev-fss is replaced"] for e in exports)
    volumes = by_type["kubernetes:core/v1:PersistentVolume"]
    assert volumes and all(v["op"] == "replace" and v["deleteBeforeReplace"] for v in volumes)
    assert all(any(p.startswith("spec.csi") for p in v["replaceBecause"]) for v in volumes)


def test_an_unknown_value_without_property_dependencies_is_blamed_on_a_replaced_dependency():
    """A value passed through an invoke (the kubeconfig read from the cluster) carries no property dependency."""
    cluster = {"urn": "urn:pulumi:s::p::oci:ContainerEngine/cluster:Cluster::c",
               "type": "oci:ContainerEngine/cluster:Cluster", "name": "c", "inputs": {"kmsKeyId": "a"}}
    prov = {"urn": "urn:pulumi:s::p::pulumi:providers:kubernetes::k", "type": "pulumi:providers:kubernetes",
            "name": "k", "inputs": {"kubeconfig": "[secret]"}}
    planner = Planner({"resources": [cluster, prov]})
    planner.decide(cluster["urn"], cluster["type"], True, {"kmsKeyId": "b"}, property_dependencies={},
                   provider=None)
    change = planner.decide(prov["urn"], prov["type"], True, {"kubeconfig": "[unknown]"},
                            property_dependencies={"kubeconfig": []}, provider=None, dependencies=[cluster["urn"]])
    assert change.op == "replace" and change.caused_by == ("c is replaced",)


def test_a_helm_release_is_replaced_on_a_new_name_or_namespace_and_updated_otherwise():
    def rel(**inputs):
        return {"urn": "urn:pulumi:s::p::kubernetes:helm.sh/v3:Release::r", "type": "kubernetes:helm.sh/v3:Release",
                "name": "r", "inputs": {"name": "kueue", "namespace": "kueue-system", "version": "0.18.2", **inputs}}
    [change] = compare({"resources": [rel()]}, {"resources": [rel(namespace="other")]})
    assert change.op == "replace" and not change.delete_before_replace
    [change] = compare({"resources": [rel()]}, {"resources": [rel(version="0.18.3")]})
    assert change.op == "update" and change.refused == ()


@pytest.mark.parametrize("moved", [{"namespace": "kueue"}, {"name": "kueue-2"}, {"name": "k2", "namespace": "k2"}])
def test_a_helm_release_replaced_while_the_old_one_owns_its_cluster_scoped_objects_is_refused(moved):
    """A new namespace keeps the names of the chart's ClusterRoles and webhooks, a new name keeps its templated CRDs:
    installed before the old release is gone, Helm refuses to adopt them. Deleted first, it passes."""
    def rel(**inputs):
        return {"urn": "urn:pulumi:s::p::kubernetes:helm.sh/v3:Release::r", "type": "kubernetes:helm.sh/v3:Release",
                "name": "r", "inputs": {"name": "kueue", "namespace": "kueue-system", "version": "0.18.2", **inputs}}
    [change] = compare({"resources": [rel()]}, {"resources": [rel(**moved)]})
    assert change.op == "replace" and len(change.refused) == 1
    assert "cannot be imported into the current release" in change.refused[0]
    assert "disable the add-on" in change.refused[0]
    dbr = rel(**moved) | {"deleteBeforeReplace": True}
    [change] = compare({"resources": [rel()]}, {"resources": [dbr]})
    assert change.op == "replace" and change.delete_before_replace and change.refused == ()


def test_moving_an_addon_to_another_namespace_is_refused_with_the_two_steps(tmp_path, capsys, dev_plan):
    """Through the preview: platform.keda.namespace changed against the dev plan exits 4 naming the release."""
    old_path, _ = dev_plan

    def move(cfg):
        cfg["oke-rdma:platform"].setdefault("keda", {})["namespace"] = "keda-system"
    code, new = run(tmp_path, "new.json", move, "--previous", str(old_path))
    assert code == preview.EXIT_PLAN
    err = capsys.readouterr().err
    assert "cannot be imported into the current release" in err and "keda" in err


def test_a_new_name_prefix_deletes_every_resource_and_the_protected_file_system_stops_it(tmp_path, capsys,
                                                                                       dev_plan):
    """Every URN changes: the engine deletes the old resources and creates new ones (no aliases)."""
    old_path, old = dev_plan

    def rename(cfg):
        cfg["oke-rdma:namePrefix"] = "okerdma-dev2"
    code, new = run(tmp_path, "new.json", rename, "--previous", str(old_path))
    ops = {c["urn"]: c["op"] for c in new["changes"]}
    assert all(ops[r["urn"]] == "delete" for r in old["resources"])
    assert code == preview.EXIT_PLAN
    assert "error: oci:FileStorage/fileSystem:FileSystem okerdma-dev-fss is protected and would be deleted" in \
        capsys.readouterr().err


def test_ignore_changes_keeps_the_old_value_of_those_paths():
    res = {"urn": "urn:pulumi:s::p::oci:ContainerEngine/nodePool:NodePool::n",
           "type": "oci:ContainerEngine/nodePool:NodePool", "name": "n",
           "inputs": {"nodeConfigDetails": {"size": 2}, "compartmentId": "a"}}
    planner = Planner({"resources": [res]})
    change = planner.decide(res["urn"], res["type"], True, {"nodeConfigDetails": {"size": 5}, "compartmentId": "b"},
                            property_dependencies={}, provider=None,
                            ignore_changes=["nodeConfigDetails.size", "compartmentId"])
    assert change.op == "same"
    planner = Planner({"resources": [res]})
    change = planner.decide(res["urn"], res["type"], True, {"nodeConfigDetails": {"size": 5}, "compartmentId": "a"},
                            property_dependencies={}, provider=None, ignore_changes=["nodeConfigDetails.nodes"])
    assert change.op == "update"


ENGINE_OPTIONS = '''
import pulumi, pulumi_oci as oci
cfg = pulumi.Config()
C = "ocid1.compartment.oc1..c"
fs = oci.filestorage.FileSystem("fs", availability_domain=cfg.get("ad") or "AD-1", compartment_id=C)
def mt(name, **opts):
    oci.filestorage.MountTarget(name, availability_domain="AD-1", compartment_id=C, subnet_id="ocid1.subnet.a",
                                opts=pulumi.ResourceOptions(**opts))
mt("with", replace_with=[fs])
mt("deleted-with", deleted_with=fs)
mt("trigger", replacement_trigger=cfg.get("trigger") or "v1")
mt("plain")
'''


@pytest.mark.parametrize("ad, trigger, replaced", [
    ("AD-2", "v1", {"fs", "with", "deleted-with"}),
    ("AD-1", "v2", {"trigger"}),
    ("AD-1", "v1", set()),
])
def test_replace_with_deleted_with_and_a_replacement_trigger_replace_as_the_engine_does(tmp_path, capsys, ad,
                                                                                     trigger, replaced):
    """The engine's own replacement options: replaceWith and deletedWith follow the named resource's replacement
    ("because fs is replaced"); a changed replacementTrigger replaces; the same trigger and a plain dependent do
    not."""
    (tmp_path / "__main__.py").write_text(ENGINE_OPTIONS)
    (tmp_path / "Pulumi.yaml").write_text("name: rw\nruntime: python\n")
    (tmp_path / "Pulumi.a.yaml").write_text("config:\n  oci:region: sa-saopaulo-1\n")
    (tmp_path / "Pulumi.b.yaml").write_text(f"config:\n  oci:region: sa-saopaulo-1\n  rw:ad: {ad}\n"
                                            f"  rw:trigger: {trigger}\n")
    base = ["--program", str(tmp_path), "--stack", "dev"]
    assert preview.main([*base, "--config-file", str(tmp_path / "Pulumi.a.yaml"), "--json",
                         str(tmp_path / "a.json")]) == 0
    assert preview.main([*base, "--config-file", str(tmp_path / "Pulumi.b.yaml"), "--json", str(tmp_path / "b.json"),
                         "--previous", str(tmp_path / "a.json")]) == 0
    changes = {c["name"]: c for c in json.loads((tmp_path / "b.json").read_text())["changes"]}
    assert {n for n, c in changes.items() if c["op"] == "replace"} == replaced
    for name in {"with", "deleted-with"} & replaced:
        assert changes[name]["causedBy"] == ["fs is replaced"]
    if "trigger" in replaced:
        assert changes["trigger"]["replaceBecause"] == ["replacementTrigger"]


@pytest.mark.parametrize("old, new, fires", [
    ("v1", "v2", True), ("v1", "v1", False), (None, "v1", False), ("v1", None, False), ("v1", "[unknown]", True),
    ({"a": ["[unknown]"]}, {"a": ["x"]}, True), ({"a": 1}, {"a": 1}, False),
])
def test_a_replacement_trigger_fires_as_pulumi_should_trigger_replace_does(old, new, fires):
    from offline.replacement import _trigger_fires

    assert _trigger_fires(old, new) is fires
