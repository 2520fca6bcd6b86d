"""Values the service only raises (a Lustre file system's capacity, a cluster's or node pool's Kubernetes version):
an update that lowers one is refused with the reason (exit 4), never previewed as a clean update."""

from __future__ import annotations

import json

import pytest

from offline.immutable import lowered
from tests.inprocess import preview
from tests.offline.test_cli import stack_file

LUSTRE = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"
CLUSTER, POOL = "oci:ContainerEngine/cluster:Cluster", "oci:ContainerEngine/nodePool:NodePool"


@pytest.mark.parametrize("typ,path,old,new", [
    (LUSTRE, "capacityInGbs", 52000, 41600),
    (CLUSTER, "kubernetesVersion", "v1.34.1", "v1.33.10"),
    (POOL, "kubernetesVersion", "v1.34.1", "v1.34.0"),
])
def test_a_lowered_value_is_named_with_its_reason(typ, path, old, new):
    (found,) = lowered(typ, {path: old}, {path: new})
    assert found[0] == path and f"{old} -> {new}" in found[1]


@pytest.mark.parametrize("typ,path,old,new", [
    (LUSTRE, "capacityInGbs", 41600, 52000),
    (CLUSTER, "kubernetesVersion", "v1.33.10", "v1.34.1"),
    (CLUSTER, "kubernetesVersion", "v1.34.1", "[unknown]"),
    ("oci:Core/vcn:Vcn", "cidrBlocks", 2, 1),
])
def test_raised_unknown_or_unrelated_values_pass(typ, path, old, new):
    assert lowered(typ, {path: old}, {path: new}) == []


def test_a_kubernetes_downgrade_against_the_previous_plan_is_refused(tmp_path, dev_plan_file):
    plan = tmp_path / "plan.json"
    plan.write_text(dev_plan_file[0].read_text())

    def downgrade(config):
        config["oke-rdma:cluster"]["kubernetesVersion"] = "v1.33.10"
        for pool in config["oke-rdma:nodePools"].values():
            pool.pop("kubernetesVersion", None)
    path = stack_file(tmp_path, downgrade).rename(tmp_path / "Pulumi.dev.yaml")  # the stack name comes from it
    out = preview("--config-file", str(path), "--previous", str(plan))
    assert out.returncode == 4, out.stdout[-3000:] + out.stderr
    assert "never downgrades" in out.stdout + out.stderr


PVC = "kubernetes:core/v1:PersistentVolumeClaim"
STORAGE = "spec.resources.requests.storage"


def _claim(size) -> dict:
    return {"spec": {"resources": {"requests": {"storage": size}}}}


@pytest.mark.parametrize("old,new", [
    ("500Gi", "400Gi"), ("1Ti", "1000Gi"), ("0.1Ti", "100Gi"), ("2G", "1.9G"), ("107374182400", "99Gi"),
    ("1Gi", "1000Mi"), ("1Gi", 1000000000),
])
def test_a_lowered_storage_request_is_refused_comparing_quantities_by_value(old, new):
    (found,) = lowered(PVC, _claim(old), _claim(new))
    assert found[0] == STORAGE and f"{old} -> {new}" in found[1]
    assert "field can not be less than previous value" in found[1]


@pytest.mark.parametrize("old,new", [
    ("100Gi", "107374182400"), ("107374182400", "100Gi"), ("100Gi", "0.1Ti"), ("1Gi", "1024Mi"), ("500Gi", "1Ti"),
    ("1Ti", "[unknown]"), ("[secret]", "1Ti"),
])
def test_an_equal_raised_or_unseen_storage_request_passes(old, new):
    assert lowered(PVC, _claim(old), _claim(new)) == []


@pytest.mark.parametrize("bad", ["500GB", "lots", "", True, {"a": 1}])
def test_a_storage_request_that_is_no_quantity_is_refused_not_passed(bad):
    (found,) = lowered(PVC, _claim("500Gi"), _claim(bad))
    assert found[0] == STORAGE and "is not a Kubernetes quantity" in found[1]


def _capacity(size: str):
    def edit(config):
        config["oke-rdma:tenants"]["analytics"]["sharedStorage"]["capacity"] = size
    return edit


@pytest.mark.parametrize("before,size", [
    (None, "400Gi"), (None, "1Ti"), ("0.5Ti", "500Gi"), ("536870912000", "500Gi"), ("0.25Ti", "2Ti"),
])
def test_a_tenant_share_resized_against_the_previous_plan_never_touches_its_claim(tmp_path, capsys, before, size,
                                                                                    dev_plan_file):
    """The dev plan as state (its analytics claim's request rewritten to ``before`` when given, as an older program
    wrote it: the capacity), the analytics tenant's shared-storage capacity set to ``size``, lower or higher: the
    size lives on the static volume (its capacity is mutable) and the claim keeps its request (ignoreChanges), so
    no claim is asked to shrink or to resize (both refused by the API server for a static claim): exit 0."""
    from tests.offline.plans import dev_plan

    previous = tmp_path / "before.json"
    doc = json.loads(dev_plan_file[0].read_text())
    if before is not None:
        [old] = [r for r in doc["resources"] if r["type"] == PVC and r["name"].endswith("analytics-fss-shared")]
        old["inputs"]["spec"]["resources"]["requests"]["storage"] = before
    previous.write_text(json.dumps(doc))
    capsys.readouterr()
    got, plan = dev_plan(tmp_path, "after.json", _capacity(size), "--previous", str(previous))
    err = capsys.readouterr().err
    assert got == 0, err
    claim = next(c for c in plan["changes"] if c["type"] == PVC and c["name"].endswith("analytics-fss-shared"))
    assert claim["op"] == "same" and not claim["refused"]
    volume = next(c for c in plan["changes"] if c["name"] == "okerdma-dev-analytics-fss")
    if size == "500Gi":  # dev's own capacity: nothing to do
        assert volume["op"] == "same"
    else:
        assert volume["op"] == "update" and volume["changed"] == ["spec.capacity.storage"]


@pytest.mark.parametrize("ignore,refused", [([], True), ([STORAGE], False), (["spec.resources"], False)])
def test_a_lowered_request_under_ignore_changes_keeps_its_old_value_and_passes(ignore, refused):
    """The engine keeps the old value of an ``ignoreChanges`` path before it diffs: nothing is lowered then."""
    from offline.replacement import Planner

    urn = f"urn:pulumi:dev::p::{PVC}::data"
    planner = Planner({"resources": [{"urn": urn, "type": PVC, "name": "data", "id": "ns/data",
                                      "inputs": _claim("500Gi")}]})
    change = planner.decide(urn, PVC, True, _claim("400Gi"), property_dependencies={}, provider=None,
                            ignore_changes=ignore)
    assert bool(change.refused) is refused


@pytest.mark.parametrize("old, new, refused", [
    ("v1.34.1", "v1.36.1", True),    # skips v1.35
    ("v1.33.10", "v1.36.1", True),
    ("v1.34.1", "v1.35.2", False),   # the next minor
    ("v1.34.1", "v1.34.2", False),   # a patch
    ("v1.34.1", "[unknown]", False),
])
def test_a_control_plane_is_upgraded_one_minor_version_at_a_time(old, new, refused):
    """An HA control plane upgraded from 1.n straight to 1.n+2 would run API servers two minors apart (Kubernetes
    version skew policy): refused with the step to take; node pools may jump (kubelets lag up to three minors)."""
    found = lowered(CLUSTER, {"kubernetesVersion": old}, {"kubernetesVersion": new})
    assert bool(found) == refused, found
    if refused:
        assert "one minor version at a time" in found[0][1] and "cluster.kubernetesVersion" in found[0][1]
    assert lowered(POOL, {"kubernetesVersion": old}, {"kubernetesVersion": new}) == []


def test_a_skipped_minor_version_against_the_previous_plan_is_refused_with_the_step_to_take(tmp_path):
    """v1.34.2 -> v1.36.1 with --previous: exit 4 naming the config key and the next step, never the advice to
    replace the cluster (replaceOnChanges), which would destroy it. (Both plans with the add-ons 1.36 allows: the GPU
    Operator 26.7, KEDA off.)"""
    def version(v):
        def edit(config):
            config["oke-rdma:cluster"]["kubernetesVersion"] = v
            config["oke-rdma:platform"]["gpuOperator"]["version"] = "v26.7.0"
            config["oke-rdma:platform"]["keda"]["enabled"] = False
        return edit
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    base = stack_file(tmp_path / "old", version("v1.34.2")).rename(tmp_path / "old" / "Pulumi.dev.yaml")
    plan = tmp_path / "plan.json"
    assert preview("--config-file", str(base), "--json", str(plan)).returncode == 0
    path = stack_file(tmp_path / "new", version("v1.36.1")).rename(tmp_path / "new" / "Pulumi.dev.yaml")
    out = preview("--config-file", str(path), "--previous", str(plan))
    assert out.returncode == 4, out.stdout[-3000:] + out.stderr
    text = out.stdout + out.stderr
    assert "v1.34.2 -> v1.36.1: a control plane is upgraded one minor version at a time" in text
    cluster_lines = [line for line in text.splitlines() if "okerdma-dev-oke:" in line and line.startswith("error:")]
    assert cluster_lines and not any("replaceOnChanges" in line for line in cluster_lines), cluster_lines


CLASS = {"metadata": {"name": "fss-dyn"}, "provisioner": "fss.csi.oraclecloud.com"}


def _dynamic(size, cls="fss-dyn") -> dict:
    return {"spec": {"storageClassName": cls, "resources": {"requests": {"storage": size}}}}


@pytest.mark.parametrize("old, new, classes, refused", [
    (_claim("500Gi") | {"spec": {"storageClassName": "", "resources": {"requests": {"storage": "500Gi"}}}},
     {"spec": {"storageClassName": "", "resources": {"requests": {"storage": "1Ti"}}}}, {}, "statically provisioned"),
    (_dynamic("500Gi"), _dynamic("1Ti"), {"fss-dyn": CLASS}, "does not set allowVolumeExpansion"),
    (_dynamic("500Gi"), _dynamic("1Ti"), {"fss-dyn": CLASS | {"allowVolumeExpansion": False}},
     "does not set allowVolumeExpansion"),
    (_dynamic("500Gi"), _dynamic("1Ti"), {"fss-dyn": CLASS | {"allowVolumeExpansion": True}}, None),
    (_dynamic("500Gi"), _dynamic("1Ti"), {}, None),  # a class the cluster provides: not judged offline
    (_dynamic("500Gi"), _dynamic("500Gi"), {"fss-dyn": CLASS}, None),
    (_dynamic("500Gi"), _dynamic("400Gi"), {"fss-dyn": CLASS}, None),  # lowering: NO_DECREASE's case
])
def test_a_grown_claim_is_refused_unless_its_class_allows_volume_expansion(old, new, classes, refused):
    from offline.immutable import resize_refused

    found = resize_refused(PVC, old, new, classes)
    assert (found[0][1] if found else None) is None if refused is None else refused in found[0][1]


def test_a_grown_claim_declared_replace_on_changes_is_a_replacement_and_the_class_is_read_from_the_plan():
    from offline.replacement import compare

    urn, cls_urn = f"urn:pulumi:dev::p::{PVC}::data", "urn:pulumi:dev::p::kubernetes:storage.k8s.io/v1:StorageClass::c"
    sc = {"urn": cls_urn, "type": "kubernetes:storage.k8s.io/v1:StorageClass", "name": "c", "inputs": CLASS}
    old = {"urn": urn, "type": PVC, "name": "data", "inputs": _dynamic("500Gi")}
    [_, change] = compare({"resources": [sc, old]}, {"resources": [sc, old | {"inputs": _dynamic("1Ti")}]})
    assert change.op == "update" and "allowVolumeExpansion" in change.refused[0]
    expandable = sc | {"inputs": CLASS | {"allowVolumeExpansion": True}}
    [_, change] = compare({"resources": [sc, old]}, {"resources": [expandable, old | {"inputs": _dynamic("1Ti")}]})
    assert change.op == "update" and not change.refused
    [_, change] = compare({"resources": [sc, old]}, {"resources": [sc, old | {"inputs": _dynamic("1Ti"),
                                                                              "replaceOnChanges": [STORAGE]}]})
    assert change.op == "replace" and not change.refused


BUCKET = "oci:ObjectStorage/bucket:Bucket"


@pytest.mark.parametrize("typ,path,old,new", [
    (CLUSTER, "type", "ENHANCED_CLUSTER", "BASIC_CLUSTER"),
    (BUCKET, "versioning", "Enabled", "Disabled"),
    (BUCKET, "versioning", "Suspended", "Disabled"),
])
def test_a_one_way_setting_moved_back_is_refused_with_the_way_that_works(typ, path, old, new):
    """Settings the service changes only one way (an enhanced cluster stays enhanced; versioning once on is
    suspended, never disabled): the update is refused by the API, so the preview names it."""
    (found,) = lowered(typ, {path: old}, {path: new})
    assert found[0] == path and f"{old} -> {new}" in found[1]


@pytest.mark.parametrize("typ,path,old,new", [
    (CLUSTER, "type", "BASIC_CLUSTER", "ENHANCED_CLUSTER"),
    (BUCKET, "versioning", "Enabled", "Suspended"),
    (BUCKET, "versioning", "Suspended", "Enabled"),
    (BUCKET, "versioning", "Disabled", "[unknown]"),
])
def test_a_one_way_setting_moved_forward_or_unseen_passes(typ, path, old, new):
    assert lowered(typ, {path: old}, {path: new}) == []


def test_an_enhanced_cluster_made_basic_against_the_previous_plan_is_refused(tmp_path, dev_plan_file):
    """Through the preview: dev (enhanced) planned again as a basic cluster, with what a basic cluster cannot have
    (Workload Identity, the Compute Cluster pool) removed, exits 4 naming the setting."""
    plan = dev_plan_file[0]

    def basic(config):
        config["oke-rdma:cluster"]["type"] = "BASIC_CLUSTER"
        config.pop("oke-rdma:computeCluster", None)
        config["oke-rdma:nodePools"] = {k: v for k, v in config["oke-rdma:nodePools"].items() if not v.get("rdma")}
        for tenant in config["oke-rdma:tenants"].values():
            for key in ("serviceAccounts", "weights", "quota"):
                tenant.pop(key, None)
        config["oke-rdma:cluster"].pop("openIdConnectDiscovery", None)
        config["oke-rdma:cluster"].pop("oidc", None)  # OIDC sign-in needs an enhanced cluster too
        for tenant in config["oke-rdma:tenants"].values():
            tenant.pop("members", None)
    path = stack_file(tmp_path, basic).rename(tmp_path / "Pulumi.dev.yaml")
    out = preview("--config-file", str(path), "--previous", str(plan))
    assert out.returncode == 4, out.stdout[-3000:] + out.stderr
    assert "ENHANCED_CLUSTER -> BASIC_CLUSTER" in out.stdout + out.stderr
