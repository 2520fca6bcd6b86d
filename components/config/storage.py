"""File Storage config: file system, mount target tier and export options.

Source: FSS docs, "Managing Mount Targets" (performance tiers), "Working with NFS Export Options".
"""

from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import field_validator

from ._base import _Model, _ocid

#: Mount target throughput tiers in Gbps (FSS docs, "Managing Mount Targets": 1 is the default tier).
FSS_THROUGHPUT_TIERS = (1, 20, 40, 80)


class Fss(_Model):
    """File Storage: one file system, a mount target (``throughputGbps`` ∈ 1/20/40/80) and one export."""

    enabled: bool = True
    availability_domain: Optional[str] = None
    throughput_gbps: int = 1
    export_path: str = "/shared"
    identity_squash: Literal["ROOT", "ALL", "NONE"] = "ROOT"
    require_privileged_source_port: bool = True
    protect: bool = True
    kms_key_id: Optional[str] = None

    _kms = field_validator("kms_key_id")(lambda v: None if v is None else _ocid("key", v))

    @field_validator("throughput_gbps")
    @classmethod
    def _tier(cls, v: int) -> int:
        if v not in FSS_THROUGHPUT_TIERS:
            raise ValueError(f"must be one of {', '.join(map(str, FSS_THROUGHPUT_TIERS))} (Gbps), got {v}")
        return v

    @field_validator("export_path")
    @classmethod
    def _path(cls, v: str) -> str:
        if not re.match(r"^/[A-Za-z0-9._/-]*$", v) or "//" in v or v == "/":
            raise ValueError(f"must be an absolute path below / like /shared, got {v!r}")
        return v


class Storage(_Model):
    """Shared storage settings."""

    fss: Fss = Fss()
