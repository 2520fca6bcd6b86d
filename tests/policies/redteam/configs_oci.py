"""Stack-config variants for the data class: an unsquashed FSS export that lets clients use unprivileged source
ports. Registered into ``configs.CONFIG_CASES`` on import."""
from __future__ import annotations

from typing import Any

from tests.policies.redteam.configs import CONFIG_CASES


def _fss(privileged: bool):
    def edit(doc: dict[str, Any]) -> None:
        fss = doc["config"].setdefault("oke-rdma:storage", {}).setdefault("fss", {})
        fss.update({"identitySquash": "NONE", "requirePrivilegedSourcePort": privileged})
        for tenant in doc["config"].get("oke-rdma:tenants", {}).values():  # NONE is refused while tenants share it
            tenant.pop("sharedStorage", None)
    return edit


CONFIG_CASES["fss_unsquashed_root_on_unprivileged_ports"] = (
    "data", "oke-rdma:storage.fss.requirePrivilegedSourcePort", _fss(False), _fss(True))
