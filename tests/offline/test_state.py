"""With --previous the run starts from the previous plan's state: lookups find what it holds, resources keep their
ids, and replacing or deleting a protected resource is an error as in pulumi preview."""

import json
from pathlib import Path

import pytest

from offline import preview
from tests.offline.plans import dev_plan as plan_variant

ROOT = Path(__file__).resolve().parents[2]
FS = "oci:FileStorage/fileSystem:FileSystem"
MT = "oci:FileStorage/mountTarget:MountTarget"


run = plan_variant


@pytest.fixture(scope="module")
def dev_plan(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dev")
    code, doc = run(tmp, "old.json")
    assert code == 0
    return tmp / "old.json", doc


def test_a_throughput_upgrade_of_an_existing_mount_target_is_an_update_with_the_commitment_warning(
        tmp_path, capsys, dev_plan):
    old_path, old = dev_plan
    capsys.readouterr()

    def faster(cfg):
        cfg["oke-rdma:storage"]["fss"]["throughputGbps"] = 20
    code, new = run(tmp_path, "new.json", faster, "--previous", str(old_path))
    out = capsys.readouterr().out
    assert code == 0
    mt = next(c for c in new["changes"] if c["type"] == MT)
    assert (mt["op"], mt["changed"]) == ("update", ["requestedThroughput"])
    res = next(r for r in new["resources"] if r["type"] == MT)
    assert res["inputs"]["requestedThroughput"] == "20"
    assert res["id"] == next(r for r in old["resources"] if r["type"] == MT)["id"]  # it keeps its id
    assert "does not exist yet" not in out
    assert "20 Gbps is a high-performance tier" in out and "billed in 30-day cycles" in out


def test_without_a_previous_plan_the_mount_target_is_created_at_1_gbps_first(tmp_path, capsys):
    def faster(cfg):
        cfg["oke-rdma:storage"]["fss"]["throughputGbps"] = 20
    code, new = run(tmp_path, "new.json", faster)
    assert code == 0 and "does not exist yet" in capsys.readouterr().out
    assert next(r for r in new["resources"] if r["type"] == MT)["inputs"]["requestedThroughput"] == "1"


def test_existing_resources_keep_their_previous_ids(tmp_path, capsys, dev_plan):
    old_path, old = dev_plan
    doc = json.loads(old_path.read_text())
    for r in doc["resources"]:
        if r["type"] == "oci:Core/vcn:Vcn":
            r["id"] = "ocid1.vcn.oc1.sa-saopaulo-1.aaaaaaaareallyimportedvcn"
    (tmp_path / "prev.json").write_text(json.dumps(doc))
    code, new = run(tmp_path, "new.json", None, "--previous", str(tmp_path / "prev.json"))
    assert code == 0
    assert new["outputs"]["vcnId"] == "ocid1.vcn.oc1.sa-saopaulo-1.aaaaaaaareallyimportedvcn"
    vcn = next(c for c in new["changes"] if c["type"] == "oci:Core/vcn:Vcn")
    assert vcn["op"] == "same"
    assert next(r for r in new["resources"] if r["type"] == "oci:Core/vcn:Vcn")["id"] == new["outputs"]["vcnId"]


def test_a_protected_file_system_that_would_be_replaced_fails_the_preview(tmp_path, capsys, dev_plan):
    old_path, _ = dev_plan
    doc = json.loads(old_path.read_text())
    fs = next(r for r in doc["resources"] if r["type"] == FS)
    assert fs["protect"] is True
    fs["inputs"]["availabilityDomain"] = "bxtG:SA-SAOPAULO-1-AD-2"  # the state holds it in another AD
    (tmp_path / "prev.json").write_text(json.dumps(doc))
    capsys.readouterr()
    code, new = run(tmp_path, "new.json", None, "--previous", str(tmp_path / "prev.json"))
    out = capsys.readouterr()
    assert code == preview.EXIT_PLAN == 4
    change = next(c for c in new["changes"] if c["type"] == FS)
    assert change["op"] == "replace" and change["protect"] is True
    assert f"error: unable to replace {FS} okerdma-dev-fss" in out.out
    assert f"pulumi state unprotect '{fs['urn']}'" in " ".join(out.out.split())
    assert f"error: {FS} okerdma-dev-fss is protected and would be replaced" in out.err
    assert f"pulumi state unprotect '{fs['urn']}'" in out.err


def test_deleting_a_protected_file_system_fails_the_preview_and_an_unprotected_one_passes(tmp_path, capsys,
                                                                                          dev_plan):
    old_path, _ = dev_plan

    def no_fss(cfg):
        cfg["oke-rdma:storage"]["fss"]["enabled"] = False
        for tenant in cfg["oke-rdma:tenants"].values():
            tenant.pop("sharedStorage", None)
    code, new = run(tmp_path, "new.json", no_fss, "--previous", str(old_path))
    assert code == 4
    assert next(c for c in new["changes"] if c["type"] == FS)["op"] == "delete"
    doc = json.loads(old_path.read_text())
    for r in doc["resources"]:
        r["protect"] = False
    (tmp_path / "prev.json").write_text(json.dumps(doc))
    code, _ = run(tmp_path, "new2.json", no_fss, "--previous", str(tmp_path / "prev.json"))
    assert code == 0
    code, _ = run(tmp_path, "new3.json", no_fss, "--previous", str(tmp_path / "prev.json"), "--fail-on-replace")
    assert code == 5 and "the file system: all data stored on it" in capsys.readouterr().err


def test_a_kueue_topology_change_replaces_the_topology_delete_before_replace(tmp_path, capsys, dev_plan):
    old_path, _ = dev_plan

    def levels(cfg):
        cfg["oke-rdma:platform"].setdefault("kueue", {})["topologyLevels"] = [
            "oci.oraclecloud.com/rdma.hpc_island_id", "kubernetes.io/hostname"]
    code, new = run(tmp_path, "new.json", levels, "--previous", str(old_path))
    assert code == 0, capsys.readouterr().err
    topo = next(c for c in new["changes"] if c["type"] == "kubernetes:kueue.x-k8s.io/v1beta2:Topology")
    assert topo["op"] == "replace" and topo["deleteBeforeReplace"] and topo["replaceBecause"][0].startswith(
        "spec.levels")


def test_unprotecting_and_replacing_in_one_update_is_allowed_as_the_engine_allows_it():
    from offline.replacement import Planner

    res = {"urn": "urn:pulumi:s::p::oci:FileStorage/fileSystem:FileSystem::fs", "type": FS, "name": "fs",
           "inputs": {"availabilityDomain": "AD-1"}, "protect": True}
    for program_protects, blocked in ((True, True), (False, False)):
        change = Planner({"resources": [res]}).decide(res["urn"], FS, True, {"availabilityDomain": "AD-2"},
                                                      property_dependencies={}, provider=None,
                                                      protect=program_protects)
        assert change.op == "replace" and change.protect is blocked


def test_the_stateful_class_covers_every_kind_of_resource_that_holds_data_or_nodes():
    from offline.immutable import STATEFUL

    named = {"oci:ContainerEngine/cluster:Cluster", "oci:ContainerEngine/nodePool:NodePool",
             "oci:Core/computeCluster:ComputeCluster", "oci:FileStorage/fileSystem:FileSystem",
             "oci:FileStorage/mountTarget:MountTarget", "oci:Core/vcn:Vcn", "oci:Core/subnet:Subnet"}
    assert named <= set(STATEFUL)
    # members the list above did not name: other data stores and what a replacement of them takes along
    assert {"oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem",
            "kubernetes:core/v1:PersistentVolumeClaim", "kubernetes:core/v1:Namespace"} <= set(STATEFUL)
    assert all(reason.strip() for reason in STATEFUL.values())


def test_every_stateful_type_is_a_real_type_of_its_provider_and_the_crd_the_prod_stack_declares_is_one():
    """Each STATEFUL entry names a type pulumi_oci / pulumi_kubernetes declares (a misspelt token would never match
    a plan), and the data-holding kinds beyond the cluster and storage are members: a CustomResourceDefinition (its
    custom objects), a Vault key (what it encrypts), block volumes, instances, databases."""
    import re

    import pulumi_kubernetes
    import pulumi_oci

    from offline.immutable import STATEFUL

    declared = set()
    for package in (pulumi_oci, pulumi_kubernetes):
        for f in Path(package.__file__).parent.rglob("*.py"):
            declared |= {m.decode() for m in re.findall(rb"'((?:oci|kubernetes):[\w.]+/\w+:\w+)'", f.read_bytes())}
    assert {t for t in STATEFUL if not t.startswith("pulumi:")} <= declared
    assert {"kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition", "oci:Kms/key:Key",
            "oci:Core/volume:Volume", "oci:Core/instance:Instance",
            "oci:Database/autonomousDatabase:AutonomousDatabase"} <= set(STATEFUL)


def test_the_gate_names_a_replaced_custom_resource_definition_and_passes_an_updated_one():
    from offline.replacement import compare, stateful_destroyed

    crd = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"
    old = {"urn": "urn:pulumi:s::p::" + crd + "::c", "type": crd, "name": "c",
           "inputs": {"metadata": {"name": "flavors.example.com"}, "spec": {"group": "example.com"}}}
    renamed = old | {"inputs": {"metadata": {"name": "flavors2.example.com"}, "spec": {"group": "example.com"}}}
    relabelled = old | {"inputs": {"metadata": {"name": "flavors.example.com", "labels": {"a": "b"}},
                                   "spec": {"group": "example.com"}}}
    [(change, reason)] = stateful_destroyed(compare({"resources": [old]}, {"resources": [renamed]}))
    assert change.op == "replace" and "custom object" in reason
    assert stateful_destroyed(compare({"resources": [old]}, {"resources": [relabelled]})) == []


RETAINED = '''
import pulumi, pulumi_oci as oci
cfg = pulumi.Config()
oci.filestorage.FileSystem("fs", availability_domain=cfg.get("ad") or "AD-1", compartment_id="ocid1.compartment.oc1..c",
                           opts=pulumi.ResourceOptions(retain_on_delete=cfg.get_bool("retain")))
if not cfg.get_bool("drop"):
    oci.objectstorage.Bucket("b", name="b", namespace="ns", compartment_id="ocid1.compartment.oc1..c",
                             opts=pulumi.ResourceOptions(retain_on_delete=cfg.get_bool("retain")))
'''


@pytest.mark.parametrize("retain", [True, False])
def test_a_retained_resource_replaced_or_deleted_is_left_in_the_cloud_and_passes_the_gate(tmp_path, capsys, retain):
    """retainOnDelete: the engine only removes the old resource from the state, so a replaced file system and a
    deleted bucket keep their data: the plan says so and --fail-on-replace passes; without it the gate fails."""
    from offline import preview

    program = tmp_path / "__main__.py"
    program.write_text(RETAINED)
    flag = f"  oke-rdma:retain: \"{str(retain).lower()}\"\n"
    (tmp_path / "Pulumi.a.yaml").write_text("config:\n  oci:region: sa-saopaulo-1\n" + flag)
    (tmp_path / "Pulumi.b.yaml").write_text("config:\n  oci:region: sa-saopaulo-1\n  oke-rdma:ad: AD-2\n"
                                            "  oke-rdma:drop: \"true\"\n" + flag)
    base = ["--program", str(program), "--stack", "dev"]
    assert preview.main([*base, "--config-file", str(tmp_path / "Pulumi.a.yaml"), "--json",
                         str(tmp_path / "a.json")]) == 0
    assert json.loads((tmp_path / "a.json").read_text())["resources"][0]["retainOnDelete"] is retain
    capsys.readouterr()
    code = preview.main([*base, "--config-file", str(tmp_path / "Pulumi.b.yaml"), "--json", str(tmp_path / "b.json"),
                         "--previous", str(tmp_path / "a.json"), "--fail-on-replace"])
    out = capsys.readouterr()
    changes = {c["name"]: c for c in json.loads((tmp_path / "b.json").read_text())["changes"]}
    assert (changes["fs"]["op"], changes["b"]["op"]) == ("replace", "delete")
    assert changes["fs"]["retained"] is changes["b"]["retained"] is retain
    if retain:
        assert code == 0, out.err
        assert "Retained, not destroyed (2)" in out.out and "Stateful resources destroyed" not in out.out
    else:
        assert code == preview.EXIT_DESTROYS
        assert "Stateful resources destroyed (2)" in out.out and "Retained" not in out.out


ALIASED = '''
import pulumi, pulumi_oci as oci, pulumi_kubernetes as k8s
cfg = pulumi.Config()
CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "ns"}, "data": {"a": "b"}}
if cfg.get_bool("moved"):
    class Store(pulumi.ComponentResource):
        def __init__(self, name, opts=None):
            super().__init__("oke-rdma:test:Store", name, None, opts)
            oci.filestorage.FileSystem("fs2", availability_domain="AD-1", compartment_id="ocid1.compartment.oc1..c",
                opts=pulumi.ResourceOptions(parent=self, protect=True,
                                            aliases=[pulumi.Alias(name="fs", parent=pulumi.ROOT_STACK_RESOURCE)]))
    Store("store")
    k8s.yaml.v2.ConfigGroup("cg2", objs=[CM], resource_prefix="cg",
                            opts=pulumi.ResourceOptions(aliases=[pulumi.Alias(name="cg")]))
else:
    oci.filestorage.FileSystem("fs", availability_domain="AD-1", compartment_id="ocid1.compartment.oc1..c",
                               opts=pulumi.ResourceOptions(protect=True))
    k8s.yaml.v2.ConfigGroup("cg", objs=[CM])
'''


def test_a_resource_moved_under_an_alias_is_the_same_resource_not_a_delete_and_a_create(tmp_path, capsys):
    """A protected file system moved into a component with an alias to its old name, and a ConfigGroup renamed
    with an alias and its old resourcePrefix (its objects keep their names and inherit the alias): the engine resolves
    the aliases, so nothing is created or deleted, the file system keeps its id, and the protection check does not
    fire."""
    from offline import preview

    (tmp_path / "__main__.py").write_text(ALIASED)
    (tmp_path / "Pulumi.yaml").write_text("name: al\nruntime: python\n")
    (tmp_path / "Pulumi.a.yaml").write_text("config:\n  oci:region: sa-saopaulo-1\n")
    (tmp_path / "Pulumi.b.yaml").write_text("config:\n  oci:region: sa-saopaulo-1\n  al:moved: \"true\"\n")
    base = ["--program", str(tmp_path), "--stack", "dev"]
    assert preview.main([*base, "--config-file", str(tmp_path / "Pulumi.a.yaml"), "--json",
                         str(tmp_path / "a.json")]) == 0
    capsys.readouterr()
    code = preview.main([*base, "--config-file", str(tmp_path / "Pulumi.b.yaml"), "--json", str(tmp_path / "b.json"),
                         "--previous", str(tmp_path / "a.json"), "--fail-on-replace"])
    err = capsys.readouterr().err
    assert code == 0, err
    before = {r["name"]: r for r in json.loads((tmp_path / "a.json").read_text())["resources"]}
    after = json.loads((tmp_path / "b.json").read_text())
    ops = {c["name"]: c["op"] for c in after["changes"]}
    # the component's own inputs changed (resourcePrefix is new): the engine diffs a component's inputs too
    assert ops == {"store": "create", "fs2": "same", "cg2": "update", "cg:ns/x": "same"}
    assert next(r["id"] for r in after["resources"] if r["name"] == "fs2") == before["fs"]["id"]


def test_without_the_alias_the_move_is_a_create_and_a_delete_the_protection_stops():
    from offline.replacement import Planner

    fs = {"urn": "urn:pulumi:dev::al::oci:FileStorage/fileSystem:FileSystem::fs", "type": FS, "name": "fs",
          "inputs": {"availabilityDomain": "AD-1"}, "protect": True}
    new = "urn:pulumi:dev::al::test:index:Store$oci:FileStorage/fileSystem:FileSystem::fs2"
    for aliases, ops in (([], ["create", "delete"]), ([fs["urn"]], ["same"])):
        planner = Planner({"resources": [fs]})
        change = planner.decide(new, FS, True, {"availabilityDomain": "AD-1"}, property_dependencies={},
                                provider=None, protect=True, aliases=aliases)
        assert [change.op, *(c.op for c in planner.deletions([new]))] == ops
