"""NCCL settings per RDMA shape for the training Job's pods: which RDMA NICs NCCL uses (``NCCL_IB_HCA``, ``=`` meaning
exactly these) and the RoCE settings of OCI's cluster network. Without them NCCL picks HCAs itself, which on OCI's
bare metal GPU shapes includes the front-end NIC: it falls back to TCP or fails (docs/scheduling.md).

A copy of oke-rdma's ``oke_rdma/facts/nccl.py`` (``NCCL_ENV``, without its ``GPUS`` column; this project is built
only from the platform's outputs and does not import oke-rdma): ``tests/examples/test_nccl_values.py`` keeps the two
equal. Source there: Oracle's NCCL tests for OKE, oracle-quickstart/oci-hpc-oke ``manifests/nccl-tests/host-network/
mpi-operator/<shape>.yaml`` (read 2026-12-01). The one addition is :data:`EXTRA`.

:func:`nccl_env` answers for a shape: its settings, or ``{}`` and a one-line warning naming the shape (an RDMA shape
the table has no values for: AMD GPUs use RCCL; a shape newer than the table)."""

from __future__ import annotations

from typing import Optional

_ROCE = {"NCCL_IB_GID_INDEX": "3", "NCCL_IB_TC": "41", "NCCL_IB_SL": "0", "NCCL_IB_TIMEOUT": "22",
         "NCCL_IB_SPLIT_DATA_ON_QPS": "0"}

#: Shape → NCCL environment (the copy of ``oke_rdma.facts.nccl.NCCL_ENV`` without ``GPUS``).
NCCL_BY_SHAPE: dict[str, dict[str, str]] = {
    "BM.GPU.H100.8": {**_ROCE, "NCCL_CUMEM_ENABLE": "0", "NCCL_IB_HCA": (
        "=mlx5_0,mlx5_1,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8,mlx5_9,mlx5_10,mlx5_12,mlx5_13,mlx5_14,mlx5_15,"
        "mlx5_16,mlx5_17")},
    "BM.GPU.H200.8": {**_ROCE, "NCCL_CUMEM_ENABLE": "0",
                      "NCCL_IB_HCA": "=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11"},
    "BM.GPU.B200.8": {**_ROCE, "NCCL_CUMEM_ENABLE": "0",
                      "NCCL_IB_HCA": "=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11"},
    "BM.GPU.A100-v2.8": {**_ROCE, "NCCL_IB_QPS_PER_CONNECTION": "4", "NCCL_IB_HCA": (
        "=mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8,mlx5_14,mlx5_15,mlx5_16,mlx5_17,mlx5_9,mlx5_10,"
        "mlx5_11,mlx5_12")},
    "BM.GPU4.8": {**_ROCE, "NCCL_IB_QPS_PER_CONNECTION": "4", "NCCL_IB_HCA": (
        "=mlx5_0,mlx5_2,mlx5_6,mlx5_8,mlx5_10,mlx5_12,mlx5_14,mlx5_16,mlx5_1,mlx5_3,mlx5_7,mlx5_9,mlx5_11,mlx5_13,"
        "mlx5_15,mlx5_17")},
    "BM.GPU.GB200.4": {"NCCL_MNNVL_ENABLE": "1", "NCCL_CUMEM_ENABLE": "1", "NCCL_NET_PLUGIN": "sys",
                       "NCCL_NVLS_ENABLE": "1", "NCCL_IB_HCA": "mlx5_0,mlx5_1,mlx5_3,mlx5_4"},
}

#: Settings this Job adds to the table's, per shape: the H100 image's host interface for NCCL's bootstrap sockets
#: (the pods use hostNetwork; as the example set since its first version).
EXTRA: dict[str, dict[str, str]] = {"BM.GPU.H100.8": {"NCCL_SOCKET_IFNAME": "eth0"}}

#: Shapes whose values need more than environment variables, and what (one clause for the warning).
NEEDS: dict[str, str] = {
    "BM.GPU.GB200.4": "NCCL_MNNVL_ENABLE needs the pods in an NVIDIA IMEX ComputeDomain (DRA), which this Job does "
                      "not create: multi-node NVLink runs only inside one",
}


def nccl_env(shape: str) -> tuple[dict[str, str], Optional[str]]:
    """``(environment, warning)`` for the pods of an RDMA pool of ``shape``: the table's settings and :data:`EXTRA`;
    the warning (one line, or None) names a shape the table has no values for, or what a shape's values need besides
    (:data:`NEEDS`)."""
    if shape not in NCCL_BY_SHAPE:
        return {}, (f"RDMA pool shape {shape} has no NCCL settings in nccl_env.py (AMD GPUs use RCCL; a shape newer "
                    f"than the table): NCCL picks the HCAs itself, which may fall back to TCP; set NCCL_IB_HCA and "
                    f"the RoCE settings for it (oracle-quickstart/oci-hpc-oke manifests/nccl-tests)")
    env = {**NCCL_BY_SHAPE[shape], **EXTRA.get(shape, {})}
    return env, (f"RDMA pool shape {shape}: {NEEDS[shape]}" if shape in NEEDS else None)
