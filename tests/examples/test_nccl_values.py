"""The NCCL smoke test has values for every RDMA shape oke-rdma knows, or says why not; the example manifests carry
the H100 row exactly."""

from __future__ import annotations

from pathlib import Path

from oke_rdma.config import RDMA_SHAPES
from oke_rdma.facts.nccl import NCCL_ENV, NOT_TRANSCRIBED

ROOT = Path(__file__).resolve().parents[2]


def test_every_rdma_shape_has_nccl_values_or_a_reason():
    assert set(NCCL_ENV) | set(NOT_TRANSCRIBED) == set(RDMA_SHAPES)
    assert not set(NCCL_ENV) & set(NOT_TRANSCRIBED)
    for shape, env in NCCL_ENV.items():
        assert env["NCCL_IB_HCA"].lstrip("=").startswith("mlx5_") and env["GPUS"] in ("4", "8"), shape


def test_the_examples_use_the_h100_row():
    hca = NCCL_ENV["BM.GPU.H100.8"]["NCCL_IB_HCA"]
    for name in ("nccl-allreduce.yaml", "nccl-allreduce-mpijob.yaml", "nccl-allreduce-trainjob.yaml"):
        assert hca in (ROOT / "examples" / "nccl-allreduce" / name).read_text(), name


# -- the training-job example's copy -------------------------------------------------------------------------------
def _example_nccl():
    import importlib.util
    spec = importlib.util.spec_from_file_location("training_job_nccl_env",
                                                  ROOT / "examples" / "training-job" / "nccl_env.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_training_job_copy_equals_the_facts_without_the_gpu_column():
    example = _example_nccl()
    assert example.NCCL_BY_SHAPE == {s: {k: v for k, v in env.items() if k != "GPUS"} for s, env in NCCL_ENV.items()}
    assert set(example.EXTRA) <= set(NCCL_ENV) and set(example.NEEDS) <= set(NCCL_ENV)


def test_every_rdma_shape_gets_the_facts_or_a_one_line_warning():
    example = _example_nccl()
    for shape in sorted(RDMA_SHAPES):
        env, warning = example.nccl_env(shape)
        if shape in NCCL_ENV:
            assert env["NCCL_IB_HCA"] == NCCL_ENV[shape]["NCCL_IB_HCA"], shape
            assert warning is None or shape in example.NEEDS, shape
        else:
            assert env == {} and warning and shape in warning and "\n" not in warning, shape
