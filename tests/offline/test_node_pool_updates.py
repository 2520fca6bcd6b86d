"""A node pool updated in place on a node property (cloud-init for local NVMe, labels, image, ...) says what happens
to the nodes it has: without node cycling they keep the old value until replaced; with it they are replaced."""

from __future__ import annotations

from tests.offline.plans import dev_plan


def _nvme(config: dict) -> None:
    config["oke-rdma:nodePools"]["gpu"]["localNvme"] = {"enabled": True}


def _cycling(config: dict) -> None:
    config["oke-rdma:nodePools"]["gpu"]["cycling"] = {"enabled": True, "maxSurge": "1", "maxUnavailable": "0"}


def test_a_node_property_change_without_cycling_warns_that_existing_nodes_keep_the_old_one(tmp_path, capsys,
                                                                                          dev_plan_file):
    (tmp_path / "base.json").write_text(dev_plan_file[0].read_text())
    code, _ = dev_plan(tmp_path, "nvme.json", _nvme, "--previous", str(tmp_path / "base.json"))
    out = capsys.readouterr().out
    assert code == 0, out
    assert "Node pools updated in place" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("okerdma-dev-gpu:"))
    assert "nodeMetadata" in line and "existing nodes keep the old value" in line and "cycling.enabled" in line


def test_with_node_cycling_the_existing_nodes_are_replaced_and_an_unrelated_change_says_nothing(tmp_path, capsys):
    code, _ = dev_plan(tmp_path, "base.json", _cycling)
    assert code == 0
    capsys.readouterr()
    code, _ = dev_plan(tmp_path, "nvme.json", lambda c: (_cycling(c), _nvme(c)), "--previous",
                       str(tmp_path / "base.json"))
    out = capsys.readouterr().out
    assert code == 0, out
    line = next(x for x in out.splitlines() if x.strip().startswith("okerdma-dev-gpu:"))
    assert "node cycling replaces the existing nodes" in line
    capsys.readouterr()
    code, _ = dev_plan(tmp_path, "size.json", lambda c: (_cycling(c), c["oke-rdma:nodePools"]["gpu"].update(size=3)),
                       "--previous", str(tmp_path / "base.json"))
    assert code == 0 and "Node pools updated in place" not in capsys.readouterr().out


def _pool_version(version: str, image_suffix: str = ""):
    def edit(config: dict) -> None:
        pool = config["oke-rdma:nodePools"]["gpu"]
        pool["kubernetesVersion"] = version
        if image_suffix:
            pool["imageId"] = pool["imageId"][:-len(image_suffix)] + image_suffix
    return edit


def test_a_pool_moving_to_another_kubernetes_version_with_the_same_image_is_refused_in_diagnostics(tmp_path, capsys):
    """OKE images are per Kubernetes version: a version change that keeps imageId fails with 409, so the preview
    reports an error naming nodePools.<pool>.imageId in the report's Diagnostics (not above the report) and exits 4;
    changing the image too says nothing."""
    code, _ = dev_plan(tmp_path, "base.json", _pool_version("v1.34.2"))
    assert code == 0
    capsys.readouterr()
    code, _ = dev_plan(tmp_path, "up.json", _pool_version("v1.35.2"), "--previous", str(tmp_path / "base.json"))
    captured = capsys.readouterr()
    assert code == 4, captured.err
    diagnostics = captured.out.split("\nDiagnostics:\n", 1)[1]
    assert "error: oke-rdma:nodePools.gpu.imageId: the pool moves to Kubernetes v1.35.2" in diagnostics
    assert "--node-pool-option-id all --node-pool-k8s-version" in " ".join(diagnostics.split())
    assert captured.out.index("Diagnostics:") > captured.out.index("Changes (")
    code, _ = dev_plan(tmp_path, "image.json", _pool_version("v1.35.2", "v135"), "--previous",
                       str(tmp_path / "base.json"))
    captured = capsys.readouterr()
    assert code == 0 and "keeps image" not in captured.err + captured.out, captured.err


def test_a_hand_written_pool_without_the_pool_label_is_named_by_its_resource():
    """A pool the program did not label (a hand-written one) is named by its resource name; a version change together
    with its image, or a change of another kind, gives no warning."""
    from offline.node_images import image_version_warnings
    from offline.replacement import Change
    urn = "urn:pulumi:s::p::oci:ContainerEngine/nodePool:NodePool::np"
    inputs = {urn: {"kubernetesVersion": "v1.35.2", "nodeSourceDetails": {"imageId": "ocid1.image.oc1..old"}}}

    def warn(op, *changed):
        return image_version_warnings([Change(urn, "oci:ContainerEngine/nodePool:NodePool", "np", op,
                                              changed=changed)], inputs)
    found = warn("update", "kubernetesVersion")
    assert len(found) == 1 and found[0].startswith("node pool np: nodeSourceDetails.imageId: the pool moves to "
                                                   "Kubernetes v1.35.2 but keeps image ocid1.image.oc1..old")
    assert warn("update", "kubernetesVersion", "nodeSourceDetails.imageId") == []
    assert warn("update", "nodeMetadata") == [] and warn("replace", "kubernetesVersion") == []


def test_the_image_error_also_offers_pinning_the_pool_to_upgrade_the_control_plane_first():
    """Both ways out are named: the image of the new version, and the pool pinned at the version it runs
    (docs/operations.md, step 1 of a minor upgrade); a change with its image gives no error."""
    from offline.node_images import image_version_warnings
    from offline.replacement import Change
    urn = "urn:pulumi:s::p::oci:ContainerEngine/nodePool:NodePool::okerdma-x-gpu"
    inputs = {urn: {"kubernetesVersion": "v1.36.1", "nodeSourceDetails": {"imageId": "ocid1.image.oc1..old"},
                    "initialNodeLabels": [{"key": "okerdma.io/node-pool", "value": "gpu"}]}}
    [found] = image_version_warnings([Change(urn, "oci:ContainerEngine/nodePool:NodePool", "okerdma-x-gpu", "update",
                                             changed=("kubernetesVersion",))], inputs)
    assert found.startswith("oke-rdma:nodePools.gpu.imageId: the pool moves to Kubernetes v1.36.1 but keeps image")
    assert "set the image for v1.36.1" in found
    assert found.endswith("or, to upgrade the control plane first, pin nodePools.gpu.kubernetesVersion at the version "
                          "the pool runs now (docs/operations.md, \"Kubernetes minor upgrade\", step 1)")
    assert image_version_warnings([Change(urn, "oci:ContainerEngine/nodePool:NodePool", "okerdma-x-gpu", "update",
                                          changed=("kubernetesVersion", "nodeSourceDetails.imageId"))], inputs) == []
