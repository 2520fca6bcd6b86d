"""The fact tables against transcriptions of their sources, one test per table for the class of error each one had
(a wrong limit name, a wrong maximum, a wrong VNIC count, a missing shape, a missing IAM family, a missing protocol),
and every table recording when each row was last verified."""

from __future__ import annotations

import re

import pytest

from oke_rdma.facts import charts, compat, crds, iam, images, kubernetes, shapes

#: GPU shapes Oracle runs on OKE, transcribed from oracle-quickstart/oci-hpc-oke@61d210a (2026-08-20):
#: docs/worker-node-images.md (the images' shape lists) and terraform/via-provider-nccl-rccl-configmap.tf (the shapes
#: with RDMA NCCL/RCCL parameters, NCCL_IB_HCA over their RDMA NICs).
QUICKSTART_GPU_SHAPES = {
    "BM.GPU4.8", "BM.GPU.B4.8", "BM.GPU.A100-v2.8", "BM.GPU.L40S.4", "BM.GPU.H100.8", "BM.GPU.H200.8",
    "BM.GPU.B200.8", "BM.GPU.B300.8", "BM.GPU.GB200.4", "BM.GPU.GB200-v2.4", "BM.GPU.GB200-v3.4", "BM.GPU.GB300.4",
    "BM.GPU.MI300X.8", "BM.GPU.MI355X.8", "BM.GPU.MI355X-v1.8", "BM.GPU.RTXPRO.8", "VM.GPU.A10.1", "VM.GPU.A10.2",
}
QUICKSTART_RDMA_SHAPES = {
    "BM.GPU.A100-v2.8", "BM.GPU.B4.8", "BM.GPU.H100.8", "BM.GPU.H200.8", "BM.GPU.B200.8", "BM.GPU.B300.8",
    "BM.GPU.RTXPRO.8", "BM.GPU.MI300X.8", "BM.GPU.MI355X.8", "BM.GPU.MI355X-v1.8",
}
#: Rows of OCI's Compute Shapes tables as corrected on 2026-12-01 (shape → column → value).
COMPUTE_SHAPES_ROWS = {"BM.GPU.GB200.4": {"max_vnics": 512}}
FLEX_ROWS = {"VM.Standard.E4.Flex": (114, 1760), "VM.Standard.E5.Flex": (94, 1049), "VM.Standard.E3.Flex": (114, 1776)}
#: Compute limit names confirmed against OCI's limits list (OCI docs "Compute Limits"; the E5 per-AD core limit as
#: corrected on 2026-12-01, the GPU names as the Limits API reports them: oke_rdma/facts/shapes.py).
CONFIRMED_LIMITS = {"standard-e5-core-ad-count", "gpu-h100-count", "gpu-a100-v2-count", "gpu-b200-count",
                    "gpu-a10-count", "gpu3-count"}
#: The limit names the tables carried that the Limits API does not have.
NOT_LIMITS = {"standard-e5-core-count"}


def test_every_gpu_shape_oracle_runs_on_oke_is_in_the_table():
    assert sorted(QUICKSTART_GPU_SHAPES - set(shapes.SHAPES)) == []


def test_every_shape_oracle_runs_with_rdma_joins_a_compute_cluster():
    assert sorted(s for s in QUICKSTART_RDMA_SHAPES if not shapes.SHAPES[s].compute_cluster) == []


@pytest.mark.parametrize("shape, column, value", [(s, c, v) for s, cols in COMPUTE_SHAPES_ROWS.items()
                                                  for c, v in cols.items()])
def test_shape_rows_match_the_compute_shapes_table(shape, column, value):
    assert getattr(shapes.SHAPES[shape], column) == value


@pytest.mark.parametrize("shape, bounds", FLEX_ROWS.items())
def test_flex_bounds_match_the_compute_shapes_table(shape, bounds):
    assert shapes.FLEX_SHAPE_LIMITS[shape] == bounds


def test_limit_names_are_oci_limit_names():
    """Every limit name is shaped like OCI's (``<family>-core[-ad]-count``, ``gpu-...-count``); none is a name the
    Limits API does not have; the confirmed ones are used where they apply."""
    names = set(shapes.FLEX_CORE_LIMITS.values()) | {s.limit for s in shapes.SHAPES.values() if s.limit}
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*-count", n) for n in names), names
    assert names & NOT_LIMITS == set()
    assert shapes.FLEX_CORE_LIMITS["VM.Standard.E5.Flex"] in CONFIRMED_LIMITS


def test_every_service_the_platform_uses_has_its_iam_family():
    """The class of the missing lustre-file-family: each OCI service the program creates resources in has its
    aggregate type, so a tenant grant on it is not refused (IAM Policy Reference)."""
    used = {"cluster-family", "instance-family", "virtual-network-family", "file-family", "lustre-file-family",
            "object-family", "volume-family", "compute-management-family"}
    assert sorted(used - iam.FAMILIES) == []


def test_a_tenant_grant_on_lustre_is_accepted():
    from tests.stackcfg import load_dev_config
    cfg = load_dev_config(tenants={"research": {"serviceAccounts": {"trainer": {"allow": [
        "read lustre-file-family in compartment id ocid1.compartment.oc1..aaaaaaaa2q7w9e4r6t8y1u3i5o7p9a2s4d6f8g1h3j5k7"
        "l9z2x4cdata"]}}}})
    assert "lustre-file-family" in cfg.tenants["research"].service_accounts["trainer"].allow[0]


def test_every_fact_table_records_when_each_row_was_verified():
    iso = re.compile(r"20[0-9]{2}-[01][0-9]-[0-3][0-9]")
    assert all(iso.fullmatch(s.checked) for s in shapes.SHAPES.values())
    assert all(iso.fullmatch(r.last_seen) and iso.fullmatch(r.first_seen) for r in kubernetes.OKE_VERSIONS.values())
    assert all("checked 20" in e.source for f in charts.CHARTS.values() for e in (*f.requirements, *f.kubernetes))
    assert all("checked 20" in r.source for r in crds.CRD_LIFECYCLE.values())
    assert all("checked 20" in r.source for r in compat.KUEUE_DRIVES)
    assert iso.fullmatch(images.CHECKED) and iso.fullmatch(kubernetes.CHECKED)


def test_the_stacks_and_new_stacks_run_an_offered_version():
    import yaml
    from pathlib import Path
    from oke_rdma.new_stack import DEFAULT_KUBERNETES_VERSION
    root = Path(__file__).resolve().parents[2]
    for stack in ("Pulumi.dev.yaml", "Pulumi.prod.yaml"):
        version = yaml.safe_load((root / stack).read_text())["config"]["oke-rdma:cluster"]["kubernetesVersion"]
        assert kubernetes.is_offered(version), stack
    assert kubernetes.is_offered(DEFAULT_KUBERNETES_VERSION)
