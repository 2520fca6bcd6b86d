"""The pre-flight against the OCI SDK's real client classes, with the tenancy's answers served at the HTTP session
(``tests.preflight.fakeoci``): each check passes on a tenancy that fits the stack and reports one line naming the
key path and the fix when the tenancy does not."""

from __future__ import annotations

import json

import oci
import pytest

from oke_rdma.config import load_stack_config
from oke_rdma.preflight import run_checks
from oke_rdma.preflight.__main__ import main
from oke_rdma.preflight.clients import CredentialsError, OciClients
from tests.preflight.fakeoci import AD, GPU_IMAGE, RAW, SYSTEM_IMAGE, TENANCY, Tenancy, write_oci_config
from tests.stackcfg import ROOT, edited


@pytest.fixture
def tenancy(monkeypatch):
    fake = Tenancy()
    monkeypatch.setattr(oci._vendor.requests.Session, "request",
                        lambda self, method, url, params=None, **kw: fake.answer(method, url, params))
    return fake


@pytest.fixture
def clients(tmp_path):
    return OciClients.from_config_file(str(write_oci_config(tmp_path)), "DEFAULT", "sa-saopaulo-1")


def findings(clients, raw=RAW):
    found = run_checks(load_stack_config(raw), clients)
    return ([f.text for f in found if f.kind == "problem"], [f.text for f in found if f.kind == "note"])


def pool(raw, name, **values):
    for key, value in values.items():
        raw = edited(raw, "nodePools", (name, key), value)
    return raw


def test_a_tenancy_that_fits_the_dev_stack_has_no_problem(tenancy, clients):
    problems, notes = findings(clients)
    assert problems == []
    assert notes == [
        "the deployer's create permissions are checked only as far as reads show them (OCI has no dry run): a "
        "missing 'manage' grant still fails at pulumi up"]
    # every question was asked through the SDK, the limits in the stack's AD
    assert "GET /20160918/availabilityDomains" in tenancy.calls
    assert "GET /20190729/services/compute/limits/gpu-h100-count/resourceAvailability" in tenancy.calls


@pytest.mark.parametrize("state, ok", [("ACTIVE", True), ("DELETED", False)])
def test_the_compartment_is_an_active_one(tenancy, clients, state, ok):
    tenancy.compartments = {k: state for k in tenancy.compartments}
    problems, _ = findings(clients)
    assert problems == ([] if ok else [f"oke-rdma:compartmentId: the compartment is {state}, not ACTIVE; use an "
                                       f"ACTIVE compartment"])


def test_a_compartment_the_deployer_cannot_read_is_a_problem(tenancy, clients):
    tenancy.compartments = {}
    problems, _ = findings(clients)
    assert problems[0].startswith("oke-rdma:compartmentId: OCI refused to read the compartment (404 "
                                  "NotAuthorizedOrNotFound)")


def test_the_credentials_must_be_of_the_stacks_tenancy(tenancy, clients):
    raw = edited(RAW, "iam", ("tenancyId",), "ocid1.tenancy.oc1..aaaaaaaaanothertenancy")
    problems, _ = findings(clients, raw)
    assert problems == [f"oke-rdma:iam.tenancyId: the OCI credentials are for tenancy {TENANCY}, not "
                        f"ocid1.tenancy.oc1..aaaaaaaaanothertenancy; use credentials of that tenancy, or fix the OCID"]
    assert findings(clients, edited(RAW, "iam", ("tenancyId",), TENANCY))[0] == []


def test_an_ad_the_tenancy_does_not_have_is_a_problem(tenancy, clients):
    tenancy.ads = ["Abcd:SA-SAOPAULO-1-AD-1"]
    problems, _ = findings(clients)
    assert problems[0] == ("oke-rdma:availabilityDomains[0]: 'bxtG:SA-SAOPAULO-1-AD-1' is not an availability domain "
                           "of this tenancy in sa-saopaulo-1 (ListAvailabilityDomains: Abcd:SA-SAOPAULO-1-AD-1); use "
                           "those names")


def test_a_shape_not_offered_in_the_ad_is_a_problem(tenancy, clients):
    tenancy.shapes[AD] = ["VM.Standard.E5.Flex"]
    problems, _ = findings(clients)
    assert problems == ["oke-rdma:nodePools.gpu.shape: BM.GPU.H100.8 is not offered in bxtG:SA-SAOPAULO-1-AD-1 to "
                        "this compartment (Compute ListShapes); pick a shape listed there or another AD, or ask Oracle "
                        "for it"]


@pytest.mark.parametrize("available, ok", [(16, True), (15, False), (0, False)])
def test_gpu_limit_and_quota_must_hold_every_node(tenancy, clients, available, ok):
    tenancy.available[("compute", "gpu-h100-count", AD)] = available
    problems, _ = findings(clients)
    assert (problems == []) == ok
    if not ok:
        assert problems == [f"oke-rdma:nodePools.gpu.size: the pools need 16 of compute limit gpu-h100-count in "
                            f"bxtG:SA-SAOPAULO-1-AD-1 (gpu 16; nodes plus cycling surge), but only {available} are "
                            f"available (service limit or compartment quota, minus what is in use); ask for a limit "
                            f"increase or a quota change, or lower size"]


@pytest.mark.parametrize("available, ok", [(24, True), (23, False)])
def test_a_flex_pool_needs_its_ocpus_of_the_core_limit(tenancy, clients, available, ok):
    """The system pool: 3 nodes × 8 OCPUs of standard-e5-core-ad-count."""
    tenancy.available[("compute", "standard-e5-core-ad-count", AD)] = available
    problems, _ = findings(clients)
    assert (problems == []) == ok
    if not ok:
        assert problems == [f"oke-rdma:nodePools.system.size: the pools need 24 of compute limit standard-e5-core-ad-count "
                            f"in bxtG:SA-SAOPAULO-1-AD-1 (system 24; nodes plus cycling surge), but only {available} "
                            f"are available (service limit or compartment quota, minus what is in use); ask for a "
                            f"limit increase or a quota change, or lower size"]


def test_a_shape_without_a_known_limit_name_is_a_note(tenancy, clients):
    tenancy.shapes[AD].append("VM.Standard2.4")
    raw = edited(edited(pool(RAW, "system", shape="VM.Standard2.4"), "nodePools", ("system", "ocpus"), None,
                        delete=True), "nodePools", ("system", "memoryGb"), None, delete=True)
    problems, notes = findings(clients, raw)
    assert problems == []
    assert ("oke-rdma:nodePools.system.shape: the service limit of VM.Standard2.4 is not checked (ListShapes names no "
            "quota for it and oke-rdma knows no limit name); see `oci limits value list --service-name compute`") in notes


def test_the_quota_names_listshapes_gives_are_the_limits_checked(tenancy, clients):
    """OCI's own answer wins over the table: E5 Flex counts cores and memory; 3 nodes × 64 GB need 192 GB."""
    tenancy.shape_info["VM.Standard.E5.Flex"] = {"is_flexible": True,
                                                 "quota_names": ["standard-e5-core-ad-count", "standard-e5-memory-count"]}
    tenancy.limit_names["compute"] += ["standard-e5-memory-count"]
    tenancy.available[("compute", "standard-e5-memory-count", AD)] = 100
    problems, _ = findings(clients)
    assert problems == ["oke-rdma:nodePools.system.size: the pools need 192 of compute limit standard-e5-memory-count "
                        "in bxtG:SA-SAOPAULO-1-AD-1 (system 192; nodes plus cycling surge), but only 100 are available "
                        "(service limit or compartment quota, minus what is in use); ask for a limit increase or a "
                        "quota change, or lower size"]


def test_an_rdma_pool_of_a_shape_without_rdma_ports_is_a_problem(tenancy, clients):
    tenancy.shape_info["BM.GPU.H100.8"] = {"gpus": 8, "rdma_ports": 0}
    problems, _ = findings(clients)
    assert problems == ["oke-rdma:nodePools.gpu.rdma: ListShapes reports no RDMA ports for BM.GPU.H100.8, so its nodes "
                        "cannot join the Compute Cluster's RDMA network; use an RDMA shape or set rdma: false"]


def test_a_gpu_count_that_differs_from_oci_is_a_problem(tenancy, clients):
    tenancy.shape_info["BM.GPU.H100.8"] = {"gpus": 4, "rdma_ports": 16}
    problems, _ = findings(clients)
    assert problems == ["oke-rdma:nodePools.gpu.shape: OCI's ListShapes gives BM.GPU.H100.8 4 GPUs, oke-rdma's table 8 "
                        "(Kueue quotas count the table's); correct oke_rdma/facts/shapes.py"]


@pytest.mark.parametrize("info, ok", [
    ({"max_vnic_attachments": 256}, True),
    ({"max_vnic_attachments": 4}, True),     # 3 pod VNICs: 93 pods >= 64
    ({"max_vnic_attachments": 2}, False),    # 1 pod VNIC: 31 pods < 64
])
def test_max_pods_per_node_fits_the_vnics_listshapes_gives(tenancy, clients, info, ok):
    tenancy.shape_info["BM.GPU.H100.8"] = info
    problems, _ = findings(clients)
    assert (problems == []) == ok, problems
    if not ok:
        assert problems == ["oke-rdma:nodePools.gpu.maxPodsPerNode: OCI's ListShapes gives BM.GPU.H100.8 2 VNICs, so "
                            "a node carries at most 31 pods (VCN-native: 31 per secondary VNIC); set maxPodsPerNode to "
                            "at most 31"]


def test_a_flex_pools_vnics_follow_its_ocpus(tenancy, clients):
    """VM.Standard.E5.Flex at 8 OCPUs, 1 VNIC per OCPU: 8 VNICs, 110 pods; at 1 VNIC per 4 OCPUs: 2 VNICs, 31."""
    options = oci.core.models.ShapeMaxVnicAttachmentOptions
    tenancy.shape_info["VM.Standard.E5.Flex"] = {"is_flexible": True, "max_vnic_attachment_options":
                                                 options(min=2, max=24, default_per_ocpu=1.0)}
    raw = pool(RAW, "system", maxPodsPerNode=110)
    assert findings(clients, raw)[0] == []
    tenancy.shape_info["VM.Standard.E5.Flex"]["max_vnic_attachment_options"] = options(min=2, max=24,
                                                                                       default_per_ocpu=0.25)
    problems, _ = findings(clients, pool(RAW, "system", maxPodsPerNode=31))
    assert problems == []
    problems, _ = findings(clients, pool(RAW, "system", ocpus=16, memoryGb=128, maxPodsPerNode=110))
    assert problems == ["oke-rdma:nodePools.system.maxPodsPerNode: OCI's ListShapes gives VM.Standard.E5.Flex 4 VNICs, "
                        "so a node carries at most 93 pods (VCN-native: 31 per secondary VNIC); set maxPodsPerNode to "
                        "at most 93"]


def test_a_compartment_quota_below_the_limit_caps_what_is_available(tenancy, clients):
    tenancy.quota[("compute", "gpu-h100-count", AD)] = (24.0, 16.0)  # quota 24, 16 in use: 8 left
    problems, _ = findings(clients)
    assert len(problems) == 1 and "need 16 of compute limit gpu-h100-count" in problems[0]
    assert "but only 8 are available" in problems[0]


def test_a_limit_oci_reports_no_availability_for_is_a_note(tenancy, clients):
    del tenancy.available[("compute", "gpu-h100-count", AD)]
    problems, notes = findings(clients)
    assert problems == []
    assert ("oke-rdma:nodePools.gpu.size: OCI has no answer to read the availability of compute limit gpu-h100-count "
            "in bxtG:SA-SAOPAULO-1-AD-1 (404 NotFound); not checked") in notes


def test_a_node_cycle_surge_counts_against_the_limit(tenancy, clients):
    tenancy.available[("compute", "gpu-h100-count", AD)] = 16
    raw = pool(RAW, "gpu", cycling={"enabled": True, "maxSurge": "1", "maxUnavailable": "0"})
    problems, _ = findings(clients, raw)
    assert len(problems) == 1 and "need 24 of compute limit gpu-h100-count" in problems[0]


def test_a_limit_name_the_tenancy_does_not_list_is_a_note_not_a_pass(tenancy, clients):
    tenancy.limit_names["compute"] = ["compute-cluster-count"]
    problems, notes = findings(clients)
    assert problems == []
    assert ("oke-rdma:nodePools.gpu.shape: the tenancy has no compute limit named gpu-h100-count "
            "(ListLimitDefinitions), so BM.GPU.H100.8's limit is not checked") in notes


def test_no_room_for_the_compute_cluster_is_a_problem(tenancy, clients):
    tenancy.available[("compute", "compute-cluster-count", AD)] = 0
    problems, _ = findings(clients)
    assert problems == ["oke-rdma:computeCluster: no Compute Cluster can be created in bxtG:SA-SAOPAULO-1-AD-1: compute "
                        "limit compute-cluster-count has 0 available; ask for a limit increase or set existingId to "
                        "an ACTIVE Compute Cluster"]


@pytest.mark.parametrize("state, ad, expected", [
    ("ACTIVE", AD, []),
    ("DELETED", AD, ["oke-rdma:computeCluster.existingId: the Compute Cluster is DELETED, not ACTIVE (OKE places nodes "
                     "only in an ACTIVE one); use another, or remove existingId to create one"]),
    ("ACTIVE", "bxtG:SA-SAOPAULO-1-AD-9", ["oke-rdma:computeCluster.availabilityDomain: the Compute Cluster is in "
                                           "bxtG:SA-SAOPAULO-1-AD-9, not bxtG:SA-SAOPAULO-1-AD-1; set that AD"]),
])
def test_an_existing_compute_cluster_is_active_and_in_its_ad(tenancy, clients, state, ad, expected):
    cc_id = "ocid1.computecluster.oc1.sa-saopaulo-1.aaaaaaaaexisting"
    tenancy.compute_clusters[cc_id] = (state, ad)
    raw = edited(RAW, "computeCluster", ("existingId",), cc_id)
    problems, _ = findings(clients, raw)
    assert problems == expected


def test_a_version_oke_does_not_offer_in_the_region_is_a_problem(tenancy, clients):
    tenancy.cluster_versions = ["v1.36.1", "v1.37.1"]
    problems, _ = findings(clients)
    assert problems == ["oke-rdma:cluster.kubernetesVersion: OKE in sa-saopaulo-1 does not offer v1.35.2 "
                        "(GetClusterOptions: v1.36.1, v1.37.1); use one of those"]


def test_oke_s_list_differing_from_the_dated_table_is_a_note(tenancy, clients):
    """The table of offered versions goes stale as OKE adds and withdraws versions: the pre-flight says how."""
    tenancy.cluster_versions = ["v1.35.2", "v1.36.1", "v1.37.1"]
    problems, notes = findings(clients)
    assert problems == []
    [note] = [n for n in notes if "OKE_VERSIONS" in n]
    assert "offers v1.37.1, which the table lacks" in note and "no longer offers v1.34.2" in note


def test_oke_s_list_matching_the_table_gives_no_note(tenancy, clients):
    _, notes = findings(clients)
    assert not [n for n in notes if "OKE_VERSIONS" in n]


def test_the_cluster_version_must_be_offered_for_the_pools_that_run_it(tenancy, clients):
    tenancy.pool_versions = ["v1.36.1"]
    tenancy.sources = {SYSTEM_IMAGE: "Oracle-Linux-8.10-2026.10.30-0-OKE-1.35.2-900",
                       GPU_IMAGE: "Oracle-Linux-8.10-Gen2-GPU-2026.10.30-0-OKE-1.35.2-900"}
    problems, _ = findings(clients)
    assert problems == ["oke-rdma:cluster.kubernetesVersion: OKE does not offer v1.35.2 for node pools "
                        "(GetNodePoolOptions: v1.36.1), and gpu, system run the cluster's version; use one of those, "
                        "or set the pools' kubernetesVersion"]


def test_a_pool_version_oke_does_not_offer_for_node_pools_is_a_problem(tenancy, clients):
    tenancy.sources[GPU_IMAGE] = "Oracle-Linux-8.10-Gen2-GPU-2026.10.30-0-OKE-1.34.2-900"
    tenancy.pool_versions = ["v1.35.2"]
    problems, _ = findings(clients, pool(RAW, "gpu", kubernetesVersion="v1.34.2"))
    assert problems == ["oke-rdma:nodePools.gpu.kubernetesVersion: OKE does not offer v1.34.2 for node pools "
                        "(GetNodePoolOptions: v1.35.2); use one of those"]


@pytest.mark.parametrize("pool_name, image_name, expected", [
    ("gpu", "Oracle-Linux-8.10-2026.10.30-0-OKE-1.35.2-900",
     "is not a GPU image, but BM.GPU.H100.8 is a GPU shape; use an OKE GPU image (GetNodePoolOptions lists them "
     "with 'GPU' in the name)"),
    ("system", "Oracle-Linux-8.10-Gen2-GPU-2026.10.30-0-OKE-1.35.2-900",
     "is a GPU image, but VM.Standard.E5.Flex has no GPU; use an OKE image without 'GPU'"),
    ("gpu", "Oracle-Linux-8.10-Gen2-GPU-2026.10.30-0-OKE-1.34.2-900",
     "is built for Kubernetes v1.34.2, but the pool runs v1.35.2; use the OKE image of v1.35.2"),
    ("system", "Oracle-Linux-8.10-aarch64-2026.10.30-0-OKE-1.35.2-900",
     "does not match VM.Standard.E5.Flex's CPU; use an x86_64 OKE image"),
])
def test_an_oke_image_must_match_the_shape_and_version(tenancy, clients, pool_name, image_name, expected):
    image = GPU_IMAGE if pool_name == "gpu" else SYSTEM_IMAGE
    tenancy.sources[image] = image_name
    problems, _ = findings(clients)
    assert problems == [f"oke-rdma:nodePools.{pool_name}.imageId: {image_name} {expected}"]


def test_an_arm_shape_needs_an_aarch64_image(tenancy, clients):
    tenancy.shapes[AD].append("VM.Standard.A1.Flex")
    problems, _ = findings(clients, pool(RAW, "system", shape="VM.Standard.A1.Flex"))
    assert problems == ["oke-rdma:nodePools.system.imageId: Oracle-Linux-8.10-2026.10.30-0-OKE-1.35.2-900 does not "
                        "match VM.Standard.A1.Flex's CPU; use an aarch64 (Arm) OKE image"]


def test_an_a10_shape_is_x86_and_takes_an_x86_64_gpu_image(tenancy, clients):
    """VM.GPU.A10.2 runs on Intel Xeon: its x86_64 GPU image passes and an aarch64 one is refused ('.A10.' in the
    name is no Arm shape)."""
    tenancy.shapes[AD].append("VM.GPU.A10.2")
    raw = pool(RAW, "system", shape="VM.GPU.A10.2")
    for key in ("ocpus", "memoryGb"):
        raw = edited(raw, "nodePools", ("system", key), None, delete=True)
    tenancy.sources[SYSTEM_IMAGE] = "Oracle-Linux-8.10-Gen2-GPU-2026.10.30-0-OKE-1.35.2-900"
    problems, _ = findings(clients, raw)
    assert not [p for p in problems if "CPU" in p], problems
    tenancy.sources[SYSTEM_IMAGE] = "Oracle-Linux-8.10-aarch64-GPU-2026.10.30-0-OKE-1.35.2-900"
    problems, _ = findings(clients, raw)
    assert [p for p in problems if "CPU" in p] == [
        "oke-rdma:nodePools.system.imageId: Oracle-Linux-8.10-aarch64-GPU-2026.10.30-0-OKE-1.35.2-900 does not match "
        "VM.GPU.A10.2's CPU; use an x86_64 OKE image"]


def test_an_image_oke_does_not_list_must_exist_and_declare_the_shape(tenancy, clients):
    del tenancy.sources[GPU_IMAGE]
    problems, _ = findings(clients)
    assert problems == ["oke-rdma:nodePools.gpu.imageId: OCI refused to read the image (404 NotAuthorizedOrNotFound); "
                        "the deployer needs 'Allow group <deployer> to read instance-images in compartment id "
                        "ocid1.compartment.oc1..aaaaaaaa4m5xq2nq7d3jb6rkf2lq3v5wz7y6c4h2p8t1s9e0u3i5o7a2dfev' (or the "
                        "OCID is wrong)"]
    tenancy.images[GPU_IMAGE] = ("ubuntu-22.04-gpu-rdma-custom", ["BM.GPU.H100.8", "BM.GPU.H200.8"])
    problems, notes = findings(clients)
    assert problems == []
    assert ("oke-rdma:nodePools.gpu.imageId: ubuntu-22.04-gpu-rdma-custom is not an image OKE lists for node pools "
            "(GetNodePoolOptions); a custom image must be built from an OKE image of the pool's version, with the GPU "
            "driver for a GPU shape") in notes
    tenancy.images[GPU_IMAGE] = ("ubuntu-22.04-cpu", ["VM.Standard.E5.Flex"])
    problems, _ = findings(clients)
    assert problems == ["oke-rdma:nodePools.gpu.imageId: ubuntu-22.04-cpu does not list BM.GPU.H100.8 among its "
                        "compatible shapes (ListImageShapeCompatibilityEntries); use an image built for it"]


def test_no_room_for_a_mount_target_is_a_problem(tenancy, clients):
    tenancy.available[("filesystem", "mount-target-count", AD)] = 0
    problems, _ = findings(clients)
    assert problems == ["oke-rdma:storage.fss: no mount target can be created in bxtG:SA-SAOPAULO-1-AD-1: limit "
                        "mount-target-count has 0 available; ask for a limit increase or set storage.fss.enabled: "
                        "false"]


@pytest.mark.parametrize("available, ok", [(1, True), (0, False)])
def test_a_high_performance_tier_needs_its_mount_target_limit(tenancy, clients, available, ok):
    tenancy.limit_names["filesystem"].append("high-perf-mount-target-20gbps-count")
    tenancy.available[("filesystem", "high-perf-mount-target-20gbps-count", AD)] = available
    problems, _ = findings(clients, edited(RAW, "storage", ("fss", "throughputGbps"), 20))
    assert (problems == []) == ok
    if not ok:
        assert problems == ["oke-rdma:storage.fss.throughputGbps: no 20 Gbps mount target is available in "
                            "bxtG:SA-SAOPAULO-1-AD-1 (limit high-perf-mount-target-20gbps-count: 0 available); use "
                            "a lower tier or ask for a limit increase"]


def test_a_tier_without_a_limit_definition_is_a_note(tenancy, clients):
    problems, notes = findings(clients, edited(RAW, "storage", ("fss", "throughputGbps"), 40))
    assert problems == [] and any("40 Gbps high-performance mount target limit" in n for n in notes)


@pytest.mark.parametrize("path, at, grant", [
    (r"/clusters$", "oke-rdma:compartmentId", "manage cluster-family"),
    (r"/computeClusters$", "oke-rdma:compartmentId", "manage compute-clusters"),
    (r"/policies$", "oke-rdma:iam.createPolicies", "manage policies"),
])
def test_reads_the_deployer_is_refused_name_the_grant_it_needs(tenancy, clients, path, at, grant):
    tenancy.refused[path] = 404
    problems, _ = findings(clients)
    assert len(problems) == 1 and problems[0].startswith(f"{at}: OCI refused to list the compartment's")
    assert f"'Allow group <deployer> to {grant} in compartment id ocid1.compartment.oc1..aaaaaaaa4m5xq2" in problems[0]


# --- the command line -------------------------------------------------------------------------------------------
def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def stack_file(tmp_path, raw_edit=None):
    text = (ROOT / "Pulumi.dev.yaml").read_text()
    if raw_edit:
        text = text.replace(*raw_edit)
    path = tmp_path / "Pulumi.check.yaml"
    path.write_text(text)
    return str(path)


def test_cli_exit_0_when_the_tenancy_fits(tenancy, tmp_path, capsys):
    code, out, err = run(["--config-file", stack_file(tmp_path), "--oci-config", str(write_oci_config(tmp_path))],
                         capsys)
    assert code == 0 and err == ""
    assert out.splitlines()[-1].endswith("in sa-saopaulo-1: 0 problems, 1 note")
    assert all(line.startswith("note: ") for line in out.splitlines()[:-1])


def test_cli_exit_1_with_one_line_per_problem(tenancy, tmp_path, capsys):
    tenancy.shapes[AD] = []
    code, out, _ = run(["--config-file", stack_file(tmp_path), "--oci-config", str(write_oci_config(tmp_path))],
                       capsys)
    lines = out.splitlines()
    assert code == 1
    assert [line.split(":")[1].split(" ")[0] for line in lines if line.startswith("oke-rdma:")] == [
        "nodePools.gpu.shape", "nodePools.system.shape"]
    assert lines[-1].endswith("2 problems, 1 note") and "Traceback" not in out


def test_cli_exit_2_for_a_config_error_before_any_call(tenancy, tmp_path, capsys):
    path = stack_file(tmp_path, ("kubernetesVersion: v1.35.2", "kubernetesVersion: v1.99.1"))
    code, out, err = run(["--config-file", path], capsys)
    assert code == 2 and out == "" and tenancy.calls == []
    assert "oke-rdma:cluster.kubernetesVersion: OKE does not offer Kubernetes v1.99.1" in err


def test_cli_exit_2_without_oci_credentials(tenancy, tmp_path, capsys):
    code, _, err = run(["--config-file", stack_file(tmp_path), "--oci-config", str(tmp_path / "missing")], capsys)
    assert code == 2 and err.startswith(f"preflight: {tmp_path / 'missing'} [DEFAULT]: ConfigFileNotFound")
    assert len(err.splitlines()) == 1 and tenancy.calls == []


def test_cli_exit_2_when_oci_cannot_be_reached(tenancy, tmp_path, capsys, monkeypatch):
    """The SDK retries a failed call (3 attempts: RETRY_ATTEMPTS), then one line; the retry pauses are skipped."""
    monkeypatch.setattr(oci.retry.retry.time, "sleep", lambda seconds: None)
    tenancy.unreachable = True
    code, _, err = run(["--config-file", stack_file(tmp_path), "--oci-config", str(write_oci_config(tmp_path))],
                       capsys)
    assert code == 2 and err.startswith("preflight: cannot reach OCI to read the compartment: RequestException")
    assert len(err.splitlines()) == 1
    assert len(tenancy.calls) == 3 and all(c.startswith("GET /20160918/compartments/") for c in tenancy.calls)


def test_cli_exit_2_when_oci_does_not_accept_the_credentials(tenancy, tmp_path, capsys):
    tenancy.refused[r"/compartments/"] = 401
    code, out, err = run(["--config-file", stack_file(tmp_path), "--oci-config", str(write_oci_config(tmp_path))],
                         capsys)
    assert code == 2 and out == ""
    assert err.startswith("preflight: OCI did not accept the credentials to read the compartment (401 Error)")
    assert len(err.splitlines()) == 1


def test_cli_exit_2_for_a_missing_stack_file(tmp_path, capsys):
    code, _, err = run(["--config-file", str(tmp_path / "Pulumi.none.yaml")], capsys)
    assert code == 2 and err.startswith("preflight: ") and "Traceback" not in err


def test_cli_exit_2_for_an_unknown_option(capsys):
    code, _, err = run(["--bogus"], capsys)
    assert code == 2 and "unrecognized arguments: --bogus" in err


def test_cli_reads_the_oci_cli_environment_variables(tenancy, tmp_path, capsys, monkeypatch):
    """CI runners hold the key as OCI_CLI_KEY_CONTENT: --auth env signs with it."""
    key = (write_oci_config(tmp_path).parent / "key.pem").read_text()
    for var, value in {"OCI_CLI_USER": "ocid1.user.oc1..aaaaaaaauserfake", "OCI_CLI_TENANCY": TENANCY,
                       "OCI_CLI_FINGERPRINT": ":".join(["ab"] * 16), "OCI_CLI_KEY_CONTENT": key}.items():
        monkeypatch.setenv(var, value)
    code, out, _ = run(["--config-file", stack_file(tmp_path), "--auth", "env"], capsys)
    assert code == 0 and out.splitlines()[-1].endswith("0 problems, 1 note")


def test_the_environment_path_names_the_missing_variables():
    with pytest.raises(CredentialsError, match=r"^environment: OCI_CLI_FINGERPRINT, OCI_CLI_KEY_CONTENT \(or "
                                               r"OCI_CLI_KEY_FILE\) not set"):
        OciClients.from_environment("sa-saopaulo-1", {"OCI_CLI_USER": "u", "OCI_CLI_TENANCY": "t"})


def test_clients_refuse_a_profile_that_is_not_there(tmp_path):
    with pytest.raises(CredentialsError, match=r"\[nope\]: ProfileNotFound"):
        OciClients.from_config_file(str(write_oci_config(tmp_path)), "nope", "sa-saopaulo-1")


def test_the_instance_principal_path_fails_in_one_line_off_oci(monkeypatch):
    def no_metadata(*a, **k):
        raise oci.exceptions.ServiceError(404, "NotFound", {}, "no instance metadata here")
    monkeypatch.setattr(oci.auth.signers, "InstancePrincipalsSecurityTokenSigner", no_metadata)
    with pytest.raises(CredentialsError, match="^instance principal: ServiceError"):
        OciClients.from_instance_principal("sa-saopaulo-1")


def test_the_dev_stacks_raw_config_is_json():
    assert json.loads(RAW["oke-rdma:nodePools"])["gpu"]["rdma"] is True


def test_a_pool_that_gets_the_lustre_client_cannot_run_an_oke_platform_image(tenancy, clients):
    """OKE's images carry no Lustre client and boot UEK: the node-init step could never give such nodes a client."""
    raw = edited(RAW, "storage", ("lustre",), {"capacityGb": 31200, "tenants": ["research"]})  # research → gpu pool
    problems, _ = findings(clients, raw)
    assert problems == ["oke-rdma:nodePools.gpu.imageId: Oracle-Linux-8.10-Gen2-GPU-2026.10.30-0-OKE-1.35.2-900 is an "
                        "OKE platform image: it carries no Lustre client, and the node-init step of "
                        "storage.lustre.client cannot install one on it (Oracle Linux on UEK; the packages need Oracle "
                        "Linux 8 on RHCK or Ubuntu 22.04, x86_64), so its nodes would never mount Lustre; use an image "
                        "that carries the client or one of those systems, or leave the pool out of "
                        "storage.lustre.client.pools"]
    assert findings(clients, edited(raw, "storage", ("lustre", "client"), {"enabled": False}))[0] == []
    del tenancy.sources[GPU_IMAGE]
    tenancy.images[GPU_IMAGE] = ("ubuntu-22.04-gpu-lustre-custom", ["BM.GPU.H100.8"])
    assert findings(clients, raw)[0] == []  # a custom image may carry the client: the node decides at boot
