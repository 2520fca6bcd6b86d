"""Running the GPU fleet: GPU sharing per node pool (``gpuSharing``), tenant isolation and the metering tariff, and
the per-GPU MIG tables. The cross-field rules that keep sharing inside a trust boundary, and the pools each tenant
reaches, are in ``oke_rdma.config.checks.fleet``.

* ``nodePools.<p>.gpuSharing``: ``{mode: exclusive}`` (default: one pod per GPU), ``{mode: timeSlicing, replicas: N}``
  (the NVIDIA device plugin advertises each GPU N times; pods share it with no memory or fault isolation) or
  ``{mode: mig, profile: 3g.40gb}`` (the MIG manager cuts every GPU into instances of that profile; each instance is
  one ``nvidia.com/gpu``). RDMA pools stay exclusive: a training rank owns its node's GPUs and RDMA NICs.
* ``tenants.<t>.isolation``: ``dedicated`` (default; never scheduled on a shared pool) or ``shared`` (may use the
  time-sliced or MIG pools, and the exclusive ones).
* ``metering``: ``pricePerGpuHour`` (per allocated GPU-hour), ``poolPrices`` (pool → its own price), ``currency``
  (ISO 4217) — read by ``python -m oke_rdma.usage``.

Sources (checked 2026-11-30): NVIDIA GPU Operator docs "Time-Slicing GPUs in Kubernetes" (``sharing.timeSlicing``
config, ``nvidia.com/device-plugin.config`` node label) and "GPU Operator with MIG" (``nvidia.com/mig.config``
node label, ``mig.strategy``); NVIDIA "Multi-Instance GPU User Guide", "Supported MIG Profiles" (profiles and
instance counts per GPU: A100-SXM4-40GB, A100-SXM4-80GB, H100-SXM5-80GB, H200-SXM5-141GB); OCI Compute docs "Compute
Shapes" (the GPU of each bare metal shape: BM.GPU4.8 = 8 × A100 40 GB, BM.GPU.A100-v2.8 = 8 × A100 80 GB,
BM.GPU.H100.8 = 8 × H100 80 GB, BM.GPU.H200.8 = 8 × H200 141 GB); GPU Operator v25.10.1
``assets/state-mig-manager/0400_configmap.yaml`` (mig-parted's ``all-<profile>`` configurations).
"""

from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import Field, field_validator

from ._base import _Model

EXCLUSIVE, TIME_SLICING, MIG = "exclusive", "timeSlicing", "mig"
#: Most replicas per time-sliced GPU oke-rdma accepts: a sanity bound of the project (the device plugin sets none);
#: past it a GPU's memory is split too thin to run anything.
MAX_TIME_SLICING_REPLICAS = 64

#: GPU model of each bare metal shape that supports MIG (OCI Compute Shapes).
MIG_GPU_OF_SHAPE = {
    "BM.GPU4.8": "A100-SXM4-40GB",
    "BM.GPU.A100-v2.8": "A100-SXM4-80GB",
    "BM.GPU.H100.8": "H100-SXM5-80GB",
    "BM.GPU.H200.8": "H200-SXM5-141GB",
}
#: GPU model → MIG profile → instances of it one GPU holds (NVIDIA MIG User Guide, "Supported MIG Profiles").
MIG_PROFILES: dict[str, dict[str, int]] = {
    "A100-SXM4-40GB": {"1g.5gb": 7, "1g.10gb": 4, "2g.10gb": 3, "3g.20gb": 2, "4g.20gb": 1, "7g.40gb": 1},
    "A100-SXM4-80GB": {"1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1},
    "H100-SXM5-80GB": {"1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1},
    "H200-SXM5-141GB": {"1g.18gb": 7, "1g.35gb": 4, "2g.35gb": 3, "3g.71gb": 2, "4g.71gb": 1, "7g.141gb": 1},
}
_CURRENCY_RE = re.compile(r"^[A-Z]{3}$")


class GpuSharing(_Model):
    """How a pool's GPUs are shared: ``mode`` exclusive | timeSlicing (with ``replicas``, 2..64) | mig (with
    ``profile``, a MIG profile of the pool's GPU such as ``3g.40gb``)."""

    mode: Literal["exclusive", "timeSlicing", "mig"] = Field(EXCLUSIVE, description=(
        "`exclusive` (one pod per GPU), `timeSlicing` (GPUs shared in time, `replicas` pods each) or `mig` "
        "(GPUs partitioned by the MIG `profile`)."))
    replicas: Optional[int] = Field(default=None, ge=2, le=MAX_TIME_SLICING_REPLICAS, description=(
        "Pods per GPU with `timeSlicing` (the device plugin advertises each GPU this many times)."))
    profile: Optional[str] = Field(None, description=(
        "The MIG profile with `mig`, one the shape's GPU supports (e.g. `1g.10gb` on H100, `1g.18gb` on H200); "
        "the nodes are labelled `nvidia.com/mig.config=all-<profile>`."))

    @property
    def shared(self) -> bool:
        """True unless ``exclusive``: pods of different owners may share one physical GPU."""
        return self.mode != EXCLUSIVE

    @property
    def label(self) -> str:
        """The ``okerdma.io/gpu-sharing`` node label value: ``exclusive``, ``time-slicing`` or ``mig``."""
        return {EXCLUSIVE: "exclusive", TIME_SLICING: "time-slicing", MIG: "mig"}[self.mode]


class Metering(_Model):
    """The tariff of the usage report: ``pricePerGpuHour`` (≥ 0, per allocated GPU-hour), ``poolPrices`` (node pool
    → its price per GPU-hour), ``currency`` (ISO 4217 code, default USD)."""

    price_per_gpu_hour: float = Field(default=0.0, ge=0, le=1_000_000, description=(
        "Price of one GPU-hour in the usage report (`currency`)."))
    pool_prices: dict[str, float] = Field(default_factory=dict, description=(
        "Price per GPU-hour by node pool name, overriding `pricePerGpuHour` for that pool."))
    currency: str = Field("USD", description="ISO 4217 currency code of the prices.")

    @field_validator("currency")
    @classmethod
    def _currency(cls, v: str) -> str:
        if not _CURRENCY_RE.match(v):
            raise ValueError(f"expected an ISO 4217 currency code like USD or EUR, got {v!r}")
        return v

    @field_validator("pool_prices")
    @classmethod
    def _prices(cls, v: dict[str, float]) -> dict[str, float]:
        for pool, price in v.items():
            if not 0 <= price <= 1_000_000:
                raise ValueError(f"expected prices from 0 to 1000000 per GPU-hour, got {price} for pool {pool!r}")
        return v


def mig_instances(shape: str, profile: str) -> Optional[int]:
    """MIG instances of ``profile`` one GPU of ``shape`` holds; None when the shape or profile is not MIG-capable."""
    return MIG_PROFILES.get(MIG_GPU_OF_SHAPE.get(shape, ""), {}).get(profile)
