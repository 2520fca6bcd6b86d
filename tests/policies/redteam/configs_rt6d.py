"""Platform add-on values that make a platform component read tenant namespaces (pass 6): Grafana's datasource
sidecar searching every namespace (refused, exit 2); the control names the monitoring namespace."""
from __future__ import annotations

from .configs import CONFIG_CASES, _set

_DATASOURCES = ("oke-rdma:platform", "kubePrometheusStack", "values", "grafana", "sidecar", "datasources",
                "searchNamespace")

CONFIG_CASES["grafana_datasources_from_every_namespace"] = (
    "data", "oke-rdma:platform.kubePrometheusStack.values.grafana.sidecar.datasources.searchNamespace",
    _set(*_DATASOURCES, value="ALL"), _set(*_DATASOURCES, value="monitoring"))


def _flannel(doc: dict) -> None:
    """Flannel overlay as the config otherwise requires it: Cilium off, no VCN-native pod density."""
    cfg = doc["config"]
    cfg["oke-rdma:cluster"]["cniType"] = "FLANNEL_OVERLAY"
    cfg.setdefault("oke-rdma:platform", {})["cilium"] = {"enabled": False}
    for pool in cfg["oke-rdma:nodePools"].values():
        pool.pop("maxPodsPerNode", None)


CONFIG_CASES["flannel_with_shared_storage"] = (
    "data", "oke-rdma:cluster.cniType", _flannel, lambda doc: None)
