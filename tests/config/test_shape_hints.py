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


# --- an unknown GPU shape in the stack config -------------------------------------------------------------------
_IMG = "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaa7u2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4j6k8lgpub"


def _pool_problems(**pool) -> list[str]:
    from oke_rdma.config import ConfigError, load_stack_config
    from tests.stackcfg import dev_raw_config
    try:
        load_stack_config(dev_raw_config(nodePools={"extra": {"size": 1, "imageId": _IMG, **pool}}))
    except ConfigError as e:
        return e.problems
    return []


def test_an_unknown_gpu_shape_in_a_pool_is_refused_with_the_shapes_of_its_gpu_model():
    """BM.GPU.A100.8 (no such shape) is refused on the pool's shape key even with gpusPerNode, naming the A100
    shapes and the override key."""
    (p,) = _pool_problems(shape="BM.GPU.A100.8", gpusPerNode=8)
    assert p.startswith("oke-rdma:nodePools.extra.shape: BM.GPU.A100.8 (did you mean BM.GPU.A100-v2.8 or "
                        "BM.GPU.B4.8 or BM.GPU4.8?) is not a GPU shape oke-rdma knows")
    assert "oke-rdma:nodePools.extra.allowUnknownShape: true with gpusPerNode" in p


def test_an_unknown_gpu_shape_is_accepted_when_the_pool_says_it_knows_better():
    """allowUnknownShape with gpusPerNode accepts a shape newer than the table; without gpusPerNode it is asked for;
    on a known shape the override is refused as having no effect."""
    assert _pool_problems(shape="BM.GPU.X900.8", gpusPerNode=8, allowUnknownShape=True) == []
    (p,) = _pool_problems(shape="BM.GPU.X900.8", allowUnknownShape=True)
    assert p.startswith("oke-rdma:nodePools.extra.gpusPerNode: required with allowUnknownShape")
    (p,) = _pool_problems(shape="VM.GPU.A10.2", allowUnknownShape=True)
    assert p.startswith("oke-rdma:nodePools.extra.allowUnknownShape: has no effect because VM.GPU.A10.2 is a shape")


def test_an_unknown_shape_without_a_gpu_model_lists_the_known_gpu_shapes():
    """A GPU shape name that spells no known model gets the list of known GPU shapes."""
    (p,) = _pool_problems(shape="BM.GPU.Zeta.8", gpusPerNode=8)
    assert "(known GPU shapes: BM.GPU.A100-v2.8," in p
