"""Shared-storage variants of the dev stack (pass 4): the tenants' export leaving root unsquashed (refused, exit 2);
the control squashes root, as the dev stack does."""
from __future__ import annotations

from .configs import CONFIG_CASES, _set

CONFIG_CASES["tenant_export_leaves_root_unsquashed"] = (
    "data", "oke-rdma:storage.fss.identitySquash",
    _set("oke-rdma:storage", "fss", "identitySquash", value="NONE"),
    _set("oke-rdma:storage", "fss", "identitySquash", value="ROOT"))
