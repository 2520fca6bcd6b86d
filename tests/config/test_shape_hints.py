"""Messages about shapes and ADs point at the fix: a shape written in the wrong case or as a GPU model alone gets a
did-you-mean, a list of RDMA shapes offers only shapes the platform schedules (no AMD), and an AD of another region
says which region it belongs to."""
from __future__ import annotations

import pytest

from oke_rdma.config import ConfigError
from oke_rdma.config.checks.compute import rdma_shapes_offered
from oke_rdma.facts.shapes import SHAPES, did_you_mean_shape
from tests.stackcfg import load_dev_config


def problems(**overrides) -> list[str]:
    with pytest.raises(ConfigError) as e:
        load_dev_config(**overrides)
    return e.value.problems


@pytest.mark.parametrize("written,meant", [
    ("bm.gpu.a100-v2.8", "BM.GPU.A100-v2.8"), ("BM.GPU.h100.8", "BM.GPU.H100.8"), ("A100", "BM.GPU.A100-v2.8"),
    ("h200", "BM.GPU.H200.8"), ("vm.standard.e5.flex", "VM.Standard.E5.Flex")])
def test_a_shape_in_the_wrong_case_or_a_gpu_model_alone_gets_a_did_you_mean(written, meant):
    assert did_you_mean_shape(written) == f" (did you mean {meant}?)"
    (line,) = [p for p in problems(nodePools={"gpu": {"shape": written}}) if "nodePools.gpu.shape" in p]
    assert f"did you mean {meant}?" in line


def test_an_unrelated_name_gets_no_guess():
    assert did_you_mean_shape("BM.Standard.E5.192") == "" and did_you_mean_shape("E5") == ""


def test_rdma_shape_lists_offer_no_amd_shape():
    """AMD shapes are refused elsewhere (the platform schedules nvidia.com/gpu): a message never offers one."""
    amd = {n for n, s in SHAPES.items() if s.gpu_vendor == "AMD"}
    assert amd and not amd & set(rdma_shapes_offered()) and "BM.GPU.H100.8" in rdma_shapes_offered()
    (line,) = [p for p in problems(nodePools={"gpu": {"shape": "BM.GPU.H100.16"}}) if "nodePools.gpu.shape" in p]
    assert "MI300X" not in line and "MI355X" not in line


def test_a_compute_cluster_ad_of_another_region_names_that_region():
    cfg = load_dev_config()
    prefix = cfg.availability_domains[0].split(":")[0]
    (line,) = [p for p in problems(computeCluster={"availabilityDomain": f"{prefix}:UK-LONDON-1-AD-1"})
               if p.startswith("oke-rdma:computeCluster.availabilityDomain")]
    assert f"it is an AD of region uk-london-1, not of oci:region {cfg.region}" in line
