"""A tenant's Workload Identity grants given to the namespace's default ServiceAccount."""
from __future__ import annotations

from tests.policies.redteam.configs import CONFIG_CASES


def _rename(to: str):
    def edit(doc):
        tenant = doc["config"]["oke-rdma:tenants"]["research"]
        tenant["serviceAccounts"] = {to: tenant["serviceAccounts"].pop("trainer")}
        if "weights" in tenant:
            tenant["weights"]["serviceAccount"] = to
    return edit


CONFIG_CASES["workload_identity_default_service_account"] = (
    "identity", "oke-rdma:tenants.research.serviceAccounts.default", _rename("default"), _rename("loader"))
