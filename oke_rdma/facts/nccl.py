"""NCCL settings for the all-reduce smoke test (``examples/nccl-allreduce/``), per RDMA shape: which RDMA NICs NCCL
uses (``NCCL_IB_HCA``, the ``=`` prefix meaning exactly these) and the RoCE settings of OCI's cluster network.

Source: Oracle's NCCL tests for OKE, oracle-quickstart/oci-hpc-oke ``manifests/nccl-tests/host-network/mpi-operator/
<shape>.yaml`` (H100/H200 at commit 4197ced, A100-v2/B200/GPU4.8 at d1b0a34, GB200.4 at 4197ced; read 2026-12-01).
Common to the 8-GPU shapes there: ``NCCL_IB_GID_INDEX=3``, ``NCCL_IB_TC=41``, ``NCCL_IB_SL=0``,
``NCCL_IB_TIMEOUT=22``, ``NCCL_IB_SPLIT_DATA_ON_QPS=0`` (:data:`ROCE`). GB200 uses NVLink across nodes (MNNVL,
a DRA ComputeDomain) and only four NICs, with none of the RoCE settings.

Shapes of :data:`oke_rdma.config.RDMA_SHAPES` not listed here have no values transcribed: :data:`NOT_TRANSCRIBED`
says why for each (no NVIDIA GPU, or Oracle's file not read yet).
"""

from __future__ import annotations

#: The RoCE settings Oracle's 8-GPU NCCL tests share.
ROCE = {"NCCL_IB_GID_INDEX": "3", "NCCL_IB_TC": "41", "NCCL_IB_SL": "0", "NCCL_IB_TIMEOUT": "22",
        "NCCL_IB_SPLIT_DATA_ON_QPS": "0"}

#: Shape → the NCCL environment of its smoke test (GPUs per node in ``GPUS``, not an NCCL variable).
NCCL_ENV: dict[str, dict[str, str]] = {
    "BM.GPU.H100.8": {"GPUS": "8", **ROCE, "NCCL_CUMEM_ENABLE": "0", "NCCL_IB_HCA": (
        "=mlx5_0,mlx5_1,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8,mlx5_9,mlx5_10,mlx5_12,mlx5_13,mlx5_14,mlx5_15,"
        "mlx5_16,mlx5_17")},
    "BM.GPU.H200.8": {"GPUS": "8", **ROCE, "NCCL_CUMEM_ENABLE": "0",
                      "NCCL_IB_HCA": "=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11"},
    "BM.GPU.B200.8": {"GPUS": "8", **ROCE, "NCCL_CUMEM_ENABLE": "0",
                      "NCCL_IB_HCA": "=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11"},
    "BM.GPU.A100-v2.8": {"GPUS": "8", **ROCE, "NCCL_IB_QPS_PER_CONNECTION": "4", "NCCL_IB_HCA": (
        "=mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8,mlx5_14,mlx5_15,mlx5_16,mlx5_17,mlx5_9,mlx5_10,"
        "mlx5_11,mlx5_12")},
    "BM.GPU4.8": {"GPUS": "8", **ROCE, "NCCL_IB_QPS_PER_CONNECTION": "4", "NCCL_IB_HCA": (
        "=mlx5_0,mlx5_2,mlx5_6,mlx5_8,mlx5_10,mlx5_12,mlx5_14,mlx5_16,mlx5_1,mlx5_3,mlx5_7,mlx5_9,mlx5_11,mlx5_13,"
        "mlx5_15,mlx5_17")},
    "BM.GPU.GB200.4": {"GPUS": "4", "NCCL_MNNVL_ENABLE": "1", "NCCL_CUMEM_ENABLE": "1", "NCCL_NET_PLUGIN": "sys",
                       "NCCL_NVLS_ENABLE": "1", "NCCL_IB_HCA": "mlx5_0,mlx5_1,mlx5_3,mlx5_4"},
}

#: RDMA shapes without values here, and why.
NOT_TRANSCRIBED: dict[str, str] = {
    "BM.GPU.MI300X.8": "AMD GPUs: RCCL, not NCCL; the smoke test's image is CUDA-only",
    "BM.HPC2.36": "no GPU", "BM.Optimized3.36": "no GPU",
    "BM.GPU.B4.8": "Oracle publishes BM.GPU.B4.8.yaml there; not transcribed yet",
    "BM.GPU.GB200-v2.4": "Oracle publishes BM.GPU.GB200-v2.4.yaml there; not transcribed yet",
    "BM.GPU.GB200-v3.4": "Oracle publishes BM.GPU.GB200-v3.4.yaml there; not transcribed yet",
    "BM.GPU.GB300.4": "Oracle publishes BM.GPU.GB300.4.yaml there; not transcribed yet",
    "BM.GPU.MI355X.8": "AMD GPUs: RCCL, not NCCL; the smoke test's image is CUDA-only",
    "BM.GPU.MI355X-v1.8": "AMD GPUs: RCCL, not NCCL; the smoke test's image is CUDA-only",
    "BM.GPU.B300.8": "added to the shape table on 2026-12-01; its NCCL values are not transcribed yet",
    "BM.GPU.RTXPRO.8": "added to the shape table on 2026-12-01; its NCCL values are not transcribed yet",
}


def render_table() -> str:
    """The Markdown table of :data:`NCCL_ENV` (docs/scheduling.md ``nccl-values``), then the shapes without values."""
    lines = ["| shape | GPUs | `NCCL_IB_HCA` | other settings |", "|---|---|---|---|"]
    for shape, env in NCCL_ENV.items():
        other = ", ".join(f"`{k}={v}`" for k, v in env.items() if k not in ("GPUS", "NCCL_IB_HCA"))
        lines.append(f"| {shape} | {env['GPUS']} | `{env['NCCL_IB_HCA']}` | {other} |")
    for shape, why in NOT_TRANSCRIBED.items():
        lines.append(f"| {shape} | | — | {why} |")
    return "\n".join(lines) + "\n"
