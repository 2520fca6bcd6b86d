"""GPU/RDMA shapes, the Kubernetes versions OKE offers, pods per node and IAM names: what the facts tables say is
accepted, what OCI would refuse is refused, and the placement pack's default shape list is the program's."""

from __future__ import annotations

import pytest

from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.facts import iam, kubernetes, shapes
from policies.placement import placement
from tests.stackcfg import dev_config, edited

RAW, _ = dev_config()


def problems(raw: dict[str, str]) -> list[str]:
    try:
        load_stack_config(raw)
    except ConfigError as e:
        return e.problems
    return []


def pool(raw, name, **values):
    for key, value in values.items():
        raw = edited(raw, "nodePools", (name, key), value)
    return raw


# --- shapes -----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, gpus", [("BM.GPU.H200.8", 8), ("BM.GPU.B200.8", 8), ("BM.GPU.H100.8", 8),
                                         ("BM.GPU.A100-v2.8", 8), ("BM.GPU4.8", 8), ("BM.GPU.B4.8", 8)])
def test_an_rdma_pool_of_an_eight_gpu_compute_cluster_shape_is_accepted_without_the_override(shape, gpus):
    cfg = load_stack_config(pool(RAW, "gpu", shape=shape))
    assert cfg.node_pools["gpu"].rdma and cfg.node_pools["gpu"].gpus == gpus


@pytest.mark.parametrize("shape", ["BM.GPU.GB200.4", "BM.GPU.GB200-v2.4", "BM.GPU.GB300.4"])
def test_four_gpu_grace_blackwell_shapes_count_four_gpus_per_node(shape):
    """The dev tenants' GPU quota (16) is checked against the table's count: 2 nodes × 4 GPUs do not hold it."""
    found = problems(pool(RAW, "gpu", shape=shape))
    assert found and all("quota" in p or "GPU" in p for p in found)
    cfg = load_stack_config(pool(RAW, "gpu", shape=shape, size=4))
    assert cfg.node_pools["gpu"].gpus == 4


def test_an_amd_gpu_shape_is_refused_because_the_platform_schedules_nvidia_gpus():
    """MI300X is a Compute Cluster shape, but its GPUs are amd.com/gpu: no device plugin or quota would see them."""
    found = problems(pool(RAW, "gpu", shape="BM.GPU.MI300X.8", gpusPerNode=8))
    assert found == ["oke-rdma:nodePools.gpu.shape: BM.GPU.MI300X.8 has AMD MI300X 192GB GPUs (amd.com/gpu), but "
                     "oke-rdma's platform schedules NVIDIA GPUs only (NVIDIA GPU Operator, Kueue quotas in "
                     "nvidia.com/gpu); use an NVIDIA shape"]


def test_the_override_has_no_effect_on_a_listed_shape():
    assert problems(pool(RAW, "gpu", shape="BM.GPU.H200.8", allowUnlistedRdmaShape=True)) == [
        "oke-rdma:nodePools.gpu.allowUnlistedRdmaShape: has no effect because BM.GPU.H200.8 is on Oracle's list; "
        "remove it"]


def test_a_gpus_per_node_that_contradicts_the_table_is_refused():
    found = problems(pool(RAW, "gpu", shape="BM.GPU.H200.8", gpusPerNode=4))
    assert found == ["oke-rdma:nodePools.gpu.gpusPerNode: BM.GPU.H200.8 has 8 GPUs per node (OCI Compute Shapes), "
                     "got 4; remove gpusPerNode (it is only for shapes oke-rdma does not know): the tenants' GPU "
                     "quotas are checked against the real count"]


@pytest.mark.parametrize("shape", ["BM.Standard.E5.192", "BM.GPU.L40S.4", "BM.DenseIO.E5.128"])
def test_a_bare_metal_shape_not_in_the_table_still_needs_the_override(shape):
    found = problems(pool(RAW, "gpu", shape=shape))
    assert any(p.startswith(f"oke-rdma:nodePools.gpu.shape: {shape} is not a shape Oracle lists for RDMA") for p in found)


def test_the_shape_table_is_consistent():
    for name, shape in shapes.SHAPES.items():
        assert shape.name == name and (name.startswith("BM.") or not shape.compute_cluster)
        assert (shape.gpus > 0) == (shape.gpu_vendor is not None)
        assert shape.limit is None or shape.limit.endswith("-count")
    assert shapes.SHAPES["BM.GPU.MI300X.8"].gpu_vendor == "AMD"
    assert "BM.GPU.MI300X.8" not in shapes.NVIDIA_GPUS_PER_SHAPE  # amd.com/gpu, not nvidia.com/gpu
    assert {"BM.GPU.H200.8", "BM.GPU.B200.8", "BM.GPU.GB200.4", "BM.GPU.MI300X.8"} <= shapes.COMPUTE_CLUSTER_SHAPES


def test_the_placement_packs_default_shapes_are_the_programs_compute_cluster_shapes():
    """The pack is published alone (it cannot import oke_rdma), so it keeps a copy; this ties the two."""
    assert sorted(placement.ORACLE_RDMA_SHAPES) == sorted(shapes.COMPUTE_CLUSTER_SHAPES)
    assert len(set(placement.ORACLE_RDMA_SHAPES)) == len(placement.ORACLE_RDMA_SHAPES)


def test_the_placement_pack_does_not_import_the_program():
    text = (placement.__file__ and open(placement.__file__).read())
    assert "oke_rdma" not in text.replace("oke_rdma.facts.shapes.COMPUTE_CLUSTER_SHAPES", "")


# --- Kubernetes versions ------------------------------------------------------------------------------------------
def test_a_version_oke_does_not_offer_is_refused_with_the_offered_ones_the_pins_support():
    """The suggestion leaves out v1.36.1, offered by OKE but outside the KEDA pin's tested range."""
    found = [p for p in problems(edited(RAW, "cluster", ("kubernetesVersion",), "v1.99.1"))
             if p.startswith("oke-rdma:cluster.")]  # the add-ons' Kubernetes ranges refuse it too
    assert found == ["oke-rdma:cluster.kubernetesVersion: OKE does not offer Kubernetes v1.99.1; use one it offers "
                     "that the pinned add-ons support: v1.34.2, v1.35.2 (OKE's list as of 2026-12-01; `oci ce "
                     "cluster-options get --cluster-option-id all` shows today's)"]


@pytest.mark.parametrize("version", ["v1.34.5", "v1.35.0", "v1.30.1", "v1.37.0"])
def test_a_version_between_or_beside_the_offered_ones_is_refused(version):
    found = problems(edited(RAW, "cluster", ("kubernetesVersion",), version))
    assert any(p.startswith(f"oke-rdma:cluster.kubernetesVersion: OKE does not offer Kubernetes {version};")
               for p in found)


@pytest.mark.parametrize("version", kubernetes.offered_versions())
def test_every_offered_version_is_accepted_for_the_cluster(version):
    """With today's add-on pins (the GPU Operator's and KEDA's tested ranges decide: KEDA 2.20 is tested up to 1.35,
    so it is left off on v1.36)."""
    raw = edited(RAW, "platform", ("gpuOperator", "version"), "v26.7.0")
    if version >= "v1.36":
        raw = edited(raw, "platform", ("keda", "enabled"), False)
    assert load_stack_config(edited(raw, "cluster", ("kubernetesVersion",), version)).cluster.kubernetes_version == version


@pytest.mark.parametrize("version", ["v1.33.1", "v1.34.1", "v1.33.10"])
def test_a_withdrawn_version_is_known_but_not_offered(version):
    """OKE withdrew it: not offered (a new cluster on it is refused by the preview), but an existing cluster's config
    still loads (the program warns)."""
    assert not kubernetes.is_offered(version) and kubernetes.withdrawn(version) is not None
    assert version not in kubernetes.offered_versions()
    cfg = load_stack_config(edited(edited(RAW, "cluster", ("kubernetesVersion",), version), "platform",
                                   ("gpuOperator", "version"), "v25.10.1"))
    assert cfg.cluster.kubernetes_version == version
    assert "no longer offers" in kubernetes.withdrawal_notice(version)


def test_every_oke_version_row_records_when_it_was_seen_and_its_source():
    for version, row in kubernetes.OKE_VERSIONS.items():
        assert row.version == version and row.first_seen <= row.last_seen <= kubernetes.CHECKED
        assert row.withdrawn is None or row.last_seen < row.withdrawn, version
        assert "@" in row.source, version  # the commit read


def test_a_pool_version_must_be_offered_and_within_the_skew():
    newest = edited(edited(edited(RAW, "cluster", ("kubernetesVersion",), "v1.36.1"), "platform",
                           ("gpuOperator", "version"), "v26.7.0"), "platform", ("keda", "enabled"), False)
    assert load_stack_config(pool(newest, "gpu", kubernetesVersion="v1.34.2"))  # two minor versions older
    found = problems(pool(RAW, "gpu", kubernetesVersion="v1.34.0"))
    assert found == ["oke-rdma:nodePools.gpu.kubernetesVersion: OKE does not offer Kubernetes v1.34.0; use one it "
                     "offers that the pinned add-ons support: v1.34.2, v1.35.2 (OKE's list as of 2026-12-01; `oci "
                     "ce cluster-options get --cluster-option-id all` shows today's)"]
    assert kubernetes.skew_problem("v1.36.1", "v1.32.9") == "more than 3 minor versions older"
    assert kubernetes.skew_problem("v1.27.2", "v1.24.1") == "more than 2 minor versions older"
    assert kubernetes.skew_problem("v1.34.1", "v1.34.2") == "newer"


# --- pods per node ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ocpus, pods, ok", [(1, 31, True), (1, 32, False), (2, 31, True), (2, 40, False),
                                             (3, 62, True), (3, 63, False), (5, 110, True), (24, 110, True)])
def test_max_pods_per_node_of_a_flex_pool_follows_its_vnics(ocpus, pods, ok):
    """VNICs of a Flex VM: 2 at 1 OCPU, then one per OCPU; pods use the secondary VNICs, 31 IPs each, 110 at most."""
    raw = pool(RAW, "system", ocpus=ocpus, memoryGb=ocpus * 8, maxPodsPerNode=pods)
    found = [p for p in problems(raw) if "maxPodsPerNode" in p]
    assert (found == []) == ok, found
    if not ok:
        assert found[0].startswith(f"oke-rdma:nodePools.system.maxPodsPerNode: {pods} pods per node do not fit:")


@pytest.mark.parametrize("shape, pods, ok", [("BM.GPU.H100.8", 110, True), ("BM.GPU.H200.8", 110, True),
                                             ("BM.Standard.E5.192", 110, True), ("VM.Standard2.4", 93, True),
                                             ("VM.Standard2.4", 94, False), ("VM.Standard2.1", 32, False),
                                             ("VM.GPU.A10.1", 64, True), ("VM.Standard.E2.1.Micro", 32, False)])
def test_max_pods_per_node_of_fixed_shapes(shape, pods, ok):
    raw = pool(RAW, "system", shape=shape, maxPodsPerNode=pods)
    raw = edited(raw, "nodePools", ("system", "ocpus"), None, delete=True)
    raw = edited(raw, "nodePools", ("system", "memoryGb"), None, delete=True)
    found = [p for p in problems(raw) if "maxPodsPerNode" in p]
    assert (found == []) == ok, found


def test_flannel_pools_are_not_held_to_vnics():
    raw = edited(pool(RAW, "system", ocpus=1, memoryGb=8), "cluster", ("cniType",), "FLANNEL_OVERLAY")
    assert not any("pods per node do not fit" in p for p in problems(raw))


# --- IAM names --------------------------------------------------------------------------------------------------
def grant(text: str) -> list[str]:
    return problems(edited(RAW, "tenants", ("research", "serviceAccounts", "trainer", "allow"), [text]))


C = "compartment id ocid1.compartment.oc1..aaaaaaaa4m5xq2nq7d3jb6rkf2lq3v5wz7y6c4h2p8t1s9e0u3i5o7a2dfev"


@pytest.mark.parametrize("text", [f"read objects in {C}", f"read object-family in {C}", f"use secret-bundles in {C} where target.secret.name = 'hf-token'",
                                  f"read repos in {C}", f"use stream-push in {C}", f"inspect policies in {C}",
                                  f"read metrics in {C}", f"use generative-ai-family in {C}", f"read buckets in {C}",
                                  f"read objectstorage-namespaces in {C}"])
def test_grants_with_resource_types_oci_has_are_accepted(text):
    assert grant(text) == []


@pytest.mark.parametrize("text, hint", [(f"read object in {C}", "did you mean objects?"),
                                        (f"read bucket in {C}", "did you mean buckets?"),
                                        (f"use secret-bundle in {C}", "did you mean secret-bundles"),
                                        (f"manage gpu-clusters in {C}", "")])
def test_a_grant_with_a_resource_type_oci_does_not_have_is_refused(text, hint):
    [found] = grant(text)
    assert found.startswith("oke-rdma:tenants.research.serviceAccounts.trainer.allow[0]")
    assert "is not an OCI resource type or family oke-rdma knows" in found and hint in found


def test_the_iam_vocabulary_is_consistent():
    assert iam.VERBS == ("inspect", "read", "use", "manage")
    assert all(t == t.lower() and " " not in t for t in iam.ALL_RESOURCE_TYPES)
    assert "all-resources" in iam.FAMILIES and iam.IAM_RESOURCE_TYPES <= iam.ALL_RESOURCE_TYPES


@pytest.mark.parametrize("typo, meant", [("BM.GPU.A100-v2", "BM.GPU.A100-v2.8"), ("BM.GPU.H10.8", "BM.GPU.H100.8"),
                                         ("BM.GPU4", "BM.GPU4.8")])
def test_a_shape_typo_is_refused_with_the_closest_known_shape(typo, meant):
    """A shape oke-rdma's table does not know but that is close to one it does gets a did-you-mean."""
    found = problems(pool(RAW, "gpu", shape=typo))
    assert any(p.startswith(f"oke-rdma:nodePools.gpu.shape: {typo} (did you mean {meant}?) is not a shape")
               for p in found), found


def test_no_suggestion_for_a_known_or_far_away_shape():
    """A known shape, or a name close to none, gets no did-you-mean (no claim without a close match)."""
    assert shapes.did_you_mean_shape("BM.GPU.H100.8") == "" and shapes.did_you_mean_shape("foo") == ""
    assert shapes.closest_shape("VM.Standard.E5.Flx") == "VM.Standard.E5.Flex"
    assert shapes.closest_shape("BM.Standard.E5.192") is None  # a real shape the table lacks: no false match


# --- CPU architecture: a fact per shape, never read from the name ----------------------------------------------------
#: Every shape of the table with its architecture as OCI's Compute Shapes tables give it (Processor column), written
#: out here by hand so a row that changes must change both.
EXPECTED_ARCH = {
    "BM.GPU4.8": "x86_64", "BM.GPU.B4.8": "x86_64", "BM.GPU.A100-v2.8": "x86_64", "BM.GPU.H100.8": "x86_64",
    "BM.GPU.H200.8": "x86_64", "BM.GPU.B200.8": "x86_64", "BM.GPU.B300.8": "x86_64", "BM.GPU.MI300X.8": "x86_64",
    "BM.GPU.MI355X.8": "x86_64", "BM.GPU.MI355X-v1.8": "x86_64", "BM.GPU.RTXPRO.8": "x86_64",
    "BM.GPU.L40S.4": "x86_64", "BM.GPU.L40S-NC.4": "x86_64", "BM.HPC2.36": "x86_64", "BM.Optimized3.36": "x86_64",
    "VM.GPU.A10.1": "x86_64", "VM.GPU.A10.2": "x86_64", "VM.GPU2.1": "x86_64", "VM.GPU3.1": "x86_64",
    "VM.GPU3.2": "x86_64", "VM.GPU3.4": "x86_64",
    "BM.GPU.GB200.4": "aarch64", "BM.GPU.GB200-v2.4": "aarch64", "BM.GPU.GB200-v3.4": "aarch64",
    "BM.GPU.GB300.4": "aarch64",
    "VM.Standard.E3.Flex": "x86_64", "VM.Standard.E4.Flex": "x86_64", "VM.Standard.E5.Flex": "x86_64",
    "VM.Standard3.Flex": "x86_64", "VM.Optimized3.Flex": "x86_64",
    "VM.Standard.A1.Flex": "aarch64", "VM.Standard.A2.Flex": "aarch64",
}


def test_every_shape_oke_rdma_knows_has_its_cpu_architecture_in_the_table():
    """Each shape of the GPU/RDMA table and of the Flex table has a CPU_ARCH row, and no row names an unknown shape."""
    known = set(shapes.SHAPES) | set(shapes.FLEX_SHAPE_LIMITS)
    assert set(shapes.CPU_ARCH) == known == set(EXPECTED_ARCH)


@pytest.mark.parametrize("shape", sorted(EXPECTED_ARCH))
def test_each_shape_has_the_architecture_and_vcpus_per_ocpu_oci_lists(shape):
    """x86 shapes (the A10s too, despite '.A10.' in the name) count 2 vCPUs per OCPU, Arm shapes 1."""
    assert shapes.cpu_arch(shape) == EXPECTED_ARCH[shape]
    assert shapes.vcpus_per_ocpu(shape) == (1 if EXPECTED_ARCH[shape] == "aarch64" else 2)


@pytest.mark.parametrize("shape", ["VM.GPU.A10.3", "BM.Standard.A9.999", "VM.Standard.E9.Flex", "BM.GPU.GB999.4", ""])
def test_a_shape_the_table_does_not_know_has_no_architecture_rather_than_a_guess(shape):
    """Names that look Arm or x86 but are not in the table give None, not a guess from the pattern."""
    assert shapes.cpu_arch(shape) is None and shapes.vcpus_per_ocpu(shape) is None


@pytest.mark.parametrize("shape", sorted(shapes.SHAPES))
def test_each_shape_row_is_consistent_with_its_facts(shape):
    """GPU shapes name a vendor and model, CPU shapes neither; a Compute Cluster shape is bare metal; a row says when it
    was checked."""
    row = shapes.SHAPES[shape]
    assert (row.gpus > 0) == (row.gpu_vendor is not None) == (row.gpu_model is not None)
    assert not row.compute_cluster or shape.startswith("BM.")
    assert row.checked >= "2026-11-30"


@pytest.mark.parametrize("shape, nvidia", [("BM.GPU.H100.8", True), ("VM.GPU.A10.2", True), ("BM.GPU.GB200.4", True),
                                           ("BM.GPU.MI300X.8", False), ("BM.GPU.MI355X.8", False),
                                           ("BM.HPC2.36", False), ("VM.Standard.A1.Flex", False)])
def test_only_nvidia_shapes_of_the_table_are_gpu_shapes_for_the_gpu_operator(shape, nvidia):
    """The GPU vendor comes from the table: AMD MI300X/MI355X nodes get no NVIDIA device-plugin or sharing labels."""
    from oke_rdma.config.platform import is_gpu_shape

    assert is_gpu_shape(shape) is nvidia
