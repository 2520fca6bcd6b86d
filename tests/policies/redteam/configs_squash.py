"""Root-squash variants of the dev stack: a Lustre file system that squashes root to the UID or GID a tenant owns its
data as (refused, exit 2); each control squashes to an ID no tenant uses."""
from __future__ import annotations

from typing import Any

from .configs import CONFIG_CASES, Edit


def _lustre(**squash: int) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        doc["config"].setdefault("oke-rdma:storage", {})["lustre"] = {
            "capacityGb": 31200, "tenants": ["research"], "client": {"enabled": False}, **squash}
    return edit


CONFIG_CASES.update({
    "lustre_squashes_root_to_a_tenants_uid": (
        "data", "oke-rdma:storage.lustre.squashUid", _lustre(squashUid=20001), _lustre(squashUid=65534)),
    "lustre_squashes_root_to_a_tenants_gid": (
        "data", "oke-rdma:storage.lustre.squashGid", _lustre(squashGid=20001), _lustre(squashGid=40000)),
})
