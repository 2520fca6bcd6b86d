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
