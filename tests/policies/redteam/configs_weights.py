"""Config variants around the weights bucket (``storage.objectStorage``, ``tenants.<t>.weights``) the config model
must refuse with one line naming the key (exit 2), each beside a safe control that previews clean."""
from __future__ import annotations

from typing import Any

from tests.policies.redteam.configs import CONFIG_CASES, DATA, Edit

NAMESPACE = "axaxnpcrorw5"


def _weights(bucket: dict[str, Any] | None = None, **weights: str) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        cfg = doc["config"]
        cfg["oke-rdma:storage"]["objectStorage"] = {"enabled": True, **({"bucket": bucket} if bucket else {})}
        cfg["oke-rdma:tenants"]["research"]["weights"] = {"serviceAccount": "trainer", "access": "read", **weights}
    return edit


CONFIG_CASES.update({
    # the grant would be pinned to a ServiceAccount the tenant never declared (nothing creates it in its namespace)
    "weights_grant_to_undeclared_service_account": (
        "identity", "oke-rdma:tenants.research.weights.serviceAccount", _weights(serviceAccount="intruder"),
        _weights(serviceAccount="trainer")),
    # another tenant's ServiceAccount: research's bucket access through analytics' identity
    "weights_grant_to_another_tenants_service_account": (
        "identity", "oke-rdma:tenants.research.weights.serviceAccount", _weights(serviceAccount="gpu-metrics"),
        _weights(access="readWrite")),
    # an access level that would pass an OCI verb (manage objects: deletes every weight) through
    "weights_access_manage": (
        "data", "oke-rdma:tenants.research.weights.access", _weights(access="manage"), _weights(access="read")),
    # a brought bucket without its namespace: the outputs would silently name the stack tenancy's namespace
    "weights_brought_bucket_without_namespace": (
        "data", "oke-rdma:storage.objectStorage.bucket.namespace",
        _weights(bucket={"name": "team-weights", "compartmentId": DATA}),
        _weights(bucket={"namespace": NAMESPACE, "name": "team-weights", "compartmentId": DATA})),
})
