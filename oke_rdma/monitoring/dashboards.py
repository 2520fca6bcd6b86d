"""Grafana dashboards of the GPU fleet, built with Grafana's own typed builders (grafana-foundation-sdk) and
provisioned as ConfigMaps that kube-prometheus-stack's Grafana dashboard sidecar loads.

* ``okerdma-gpu-fleet`` — per pool and node: GPUs allocated vs allocatable, utilisation, memory, power,
  temperature, XID errors, NVLink traffic and errors, RDMA NIC traffic, port state and errors.
* ``okerdma-gpu-tenants`` — per tenant (and namespace, pool): GPUs allocated and used, utilisation of what was
  allocated, GPU-hours over the dashboard's time range, the pods holding GPUs now.

Queries read only metrics the DCGM exporter list (``dcgm-metrics.csv``), node-exporter's InfiniBand collector,
kube-state-metrics or the shipped recording rules define (``tests/monitoring/test_dashboards.py`` checks it).

Sources (checked 2026-11-30): kube-prometheus-stack 87.2.1 ``values.yaml`` (``grafana.sidecar.dashboards``: label
``grafana_dashboard`` = ``"1"``, ``searchNamespace: ALL``; Prometheus datasource uid ``prometheus``); Grafana docs
"JSON model" and "Variables" (``$__range``, ``label_values``); grafana-foundation-sdk (Python) builders.
"""

from __future__ import annotations

import json
from typing import Any

from grafana_foundation_sdk.builders import dashboard as gd
from grafana_foundation_sdk.builders import prometheus as gp
from grafana_foundation_sdk.builders import stat as gstat
from grafana_foundation_sdk.builders import table as gtable
from grafana_foundation_sdk.builders import timeseries as gts
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import dashboard as dm

#: kube-prometheus-stack's Grafana sidecar loads every ConfigMap with this label (values.yaml, 87.2.1).
SIDECAR_LABEL = ("grafana_dashboard", "1")
#: The Prometheus datasource kube-prometheus-stack provisions (``grafana.sidecar.datasources.uid``).
DATASOURCE = dm.DataSourceRef(type_val="prometheus", uid="${datasource}")
RDMA_NICS = 'device=~"mlx5_.*"'


def _q(expr: str, legend: str, ref: str = "A", instant: bool = False) -> gp.Dataquery:
    query = gp.Dataquery().expr(expr).legend_format(legend).ref_id(ref)
    return query.instant() if instant else query.range()


def _series(title: str, unit: str, *queries: gp.Dataquery, description: str = "", w: int = 12) -> gts.Panel:
    panel = gts.Panel().title(title).unit(unit).datasource(DATASOURCE).height(8).span(w)
    if description:
        panel = panel.description(description)
    for q in queries:
        panel = panel.with_target(q)
    return panel


def _variables(*names: tuple[str, str, str]) -> list[Any]:
    out: list[Any] = [gd.DatasourceVariable("datasource").label("Data source").type("prometheus")]
    for name, label, query in names:
        out.append(gd.QueryVariable(name).label(label).datasource(DATASOURCE).query(query).multi(True)
                   .include_all(True).all_value(".*").refresh(dm.VariableRefresh.ON_TIME_RANGE_CHANGED))
    return out


def fleet_dashboard() -> dict[str, Any]:
    """The GPU fleet dashboard as Grafana dashboard JSON (a dict)."""
    node = 'Hostname=~"$node"'
    board = (gd.Dashboard("GPU fleet").uid("okerdma-gpu-fleet").tags(["oke-rdma", "gpu"]).refresh("1m")
             .time("now-6h", "now").timezone("utc")
             .description("GPU and RDMA health and load per pool and node (oke-rdma docs/monitoring.md)"))
    for v in _variables(("pool", "Pool", "label_values(node:okerdma_pool:info, pool)"),
                        ("node", "Node", 'label_values(node:okerdma_pool:info{pool=~"$pool"}, node)')):
        board = board.with_variable(v)
    board = board.with_row(gd.Row("Allocation"))
    board = board.with_panel(_series(
        "GPUs allocated / allocatable per pool", "short",
        _q('sum by (pool) (tenant_namespace_pool:okerdma_gpu_allocated:sum{pool=~"$pool"})', "{{pool}} allocated"),
        _q('pool:okerdma_gpu_allocatable:sum{pool=~"$pool"}', "{{pool}} allocatable", "B"),
        description="nvidia.com/gpu requested by Running pods vs what the device plugins offer (healthy GPUs)."))
    board = board.with_panel(
        gstat.Panel().title("Unhealthy GPUs").datasource(DATASOURCE).height(8).span(12)
        .description("Capacity minus allocatable nvidia.com/gpu: GPUs the device plugin marked unhealthy.")
        .with_target(_q('sum(kube_node_status_capacity{resource="nvidia_com_gpu"} '
                        '- kube_node_status_allocatable{resource="nvidia_com_gpu"})', "unhealthy", instant=True)))
    board = board.with_row(gd.Row("GPUs"))
    board = board.with_panel(_series(
        "GPU utilisation per node", "percent",
        _q(f"avg by (Hostname) (DCGM_FI_DEV_GPU_UTIL{{{node}}})", "{{Hostname}}")))
    board = board.with_panel(_series(
        "Compute engine / tensor activity", "percentunit",
        _q(f"avg by (Hostname) (DCGM_FI_PROF_GR_ENGINE_ACTIVE{{{node}}})", "{{Hostname}} engine"),
        _q(f"avg by (Hostname) (DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{{{node}}})", "{{Hostname}} tensor", "B")))
    board = board.with_panel(_series(
        "GPU memory used", "percentunit",
        _q(f"sum by (Hostname) (DCGM_FI_DEV_FB_USED{{{node}}}) / (sum by (Hostname) (DCGM_FI_DEV_FB_USED{{{node}}})"
           f" + sum by (Hostname) (DCGM_FI_DEV_FB_FREE{{{node}}}))", "{{Hostname}}")))
    board = board.with_panel(_series(
        "Power draw per node", "watt", _q(f"sum by (Hostname) (DCGM_FI_DEV_POWER_USAGE{{{node}}})", "{{Hostname}}")))
    board = board.with_panel(_series(
        "Hottest GPU and memory temperature", "celsius",
        _q(f"max by (Hostname) (DCGM_FI_DEV_GPU_TEMP{{{node}}})", "{{Hostname}} GPU"),
        _q(f"max by (Hostname) (DCGM_FI_DEV_MEMORY_TEMP{{{node}}})", "{{Hostname}} memory", "B")))
    board = board.with_panel(
        gtable.Panel().title("Last XID per GPU").datasource(DATASOURCE).height(8).span(12)
        .description("Non-zero DCGM_FI_DEV_XID_ERRORS; see the NVIDIA Xid catalogue and docs/monitoring.md.")
        .with_target(_q(f"DCGM_FI_DEV_XID_ERRORS{{{node}}} > 0", "{{Hostname}} GPU {{gpu}}", instant=True)))
    board = board.with_row(gd.Row("NVLink and RDMA"))
    board = board.with_panel(_series(
        "NVLink traffic per node", "short",
        _q(f"sum by (Hostname) (rate(DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL{{{node}}}[5m]))", "{{Hostname}}")))
    board = board.with_panel(_series(
        "NVLink errors (1h)", "short",
        # Hopper and later count NVLink errors in the DL counters; the *_COUNT_TOTAL fields stay 0 there and count on
        # Ampere (oke_rdma.monitoring.facts.DCGM_SILENT)
        _q(f"sum by (Hostname) (increase(DCGM_FI_DEV_NVLINK_ERROR_DL_CRC{{{node}}}[1h]))", "{{Hostname}} CRC"),
        _q(f"sum by (Hostname) (increase(DCGM_FI_DEV_NVLINK_ERROR_DL_RECOVERY{{{node}}}[1h]))",
           "{{Hostname}} recovery", "B"),
        _q(f"sum by (Hostname) (increase(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL{{{node}}}[1h])"
           f" + increase(DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL{{{node}}}[1h]))", "{{Hostname}} CRC (A100)",
           "C"),
        _q(f"sum by (Hostname) (increase(DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL{{{node}}}[1h]))",
           "{{Hostname}} recovery (A100)", "D")))
    pool_node = 'pool=~"$pool", node=~"$node"'
    board = board.with_panel(_series(
        "RDMA NIC traffic per node", "Bps",
        _q(f"node_pool:okerdma_rdma_receive_bytes:rate5m{{{pool_node}}}", "{{node}} rx"),
        _q(f"node_pool:okerdma_rdma_transmit_bytes:rate5m{{{pool_node}}}", "{{node}} tx", "B"),
        description="node-exporter InfiniBand collector, RoCE NICs (mlx5_*), mapped to nodes and pools."))
    board = board.with_panel(_series(
        "RDMA NIC traffic per pool", "Bps",
        _q(f"sum by (pool) (node_pool:okerdma_rdma_receive_bytes:rate5m{{pool=~\"$pool\"}})", "{{pool}} rx"),
        _q(f"sum by (pool) (node_pool:okerdma_rdma_transmit_bytes:rate5m{{pool=~\"$pool\"}})", "{{pool}} tx",
           "B")))
    board = board.with_panel(_series(
        "RDMA ports not ACTIVE / errors (15m)", "short",
        _q(f"count by (instance) (node_infiniband_state_id{{{RDMA_NICS}}} != 4)", "{{instance}} not active"),
        _q(f"sum by (instance) (increase(node_infiniband_port_errors_received_total{{{RDMA_NICS}}}[15m])"
           f" + increase(node_infiniband_link_downed_total{{{RDMA_NICS}}}[15m]))", "{{instance}} errors", "B")))
    return _json(board)


def tenants_dashboard() -> dict[str, Any]:
    """The per-tenant GPU usage dashboard as Grafana dashboard JSON (a dict)."""
    sel = 'tenant=~"$tenant", pool=~"$pool"'
    board = (gd.Dashboard("GPU usage by tenant").uid("okerdma-gpu-tenants").tags(["oke-rdma", "gpu", "metering"])
             .refresh("5m").time("now-7d", "now").timezone("utc")
             .description("GPUs allocated and used per tenant, namespace and pool (oke-rdma docs/metering.md)"))
    for v in _variables(("tenant", "Tenant", "label_values(namespace:okerdma_tenant:info, tenant)"),
                        ("pool", "Pool", "label_values(node:okerdma_pool:info, pool)")):
        board = board.with_variable(v)
    board = board.with_panel(_series(
        "GPUs allocated per tenant", "short",
        _q(f"sum by (tenant) (tenant_namespace_pool:okerdma_gpu_allocated:sum{{{sel}}})", "{{tenant}}")))
    board = board.with_panel(_series(
        "GPUs used per tenant", "short",
        _q(f"sum by (tenant) (tenant_namespace_pool:okerdma_gpu_used:sum{{{sel}}})", "{{tenant}}"),
        description="Allocated GPUs weighted by compute-engine activity (DCGM_FI_PROF_GR_ENGINE_ACTIVE)."))
    board = board.with_panel(_series(
        "Utilisation of allocated GPUs", "percentunit",
        _q(f"sum by (tenant) (tenant_namespace_pool:okerdma_gpu_used:sum{{{sel}}}) / "
           f"sum by (tenant) (tenant_namespace_pool:okerdma_gpu_allocated:sum{{{sel}}})", "{{tenant}}")))
    board = board.with_panel(
        gtable.Panel().title("GPU-hours in the time range").datasource(DATASOURCE).height(8).span(12)
        .description("Sum of one-minute samples of the metering rules over the dashboard's range, in hours.")
        .with_target(_q(f"sum by (tenant, pool) (sum_over_time(tenant_namespace_pool:okerdma_gpu_allocated:sum"
                        f"{{{sel}}}[$__range:1m])) / 60", "{{tenant}} {{pool}} allocated", instant=True))
        .with_target(_q(f"sum by (tenant, pool) (sum_over_time(tenant_namespace_pool:okerdma_gpu_used:sum"
                        f"{{{sel}}}[$__range:1m])) / 60", "{{tenant}} {{pool}} used", "B", instant=True)))
    board = board.with_panel(
        gtable.Panel().title("Pods holding GPUs now").datasource(DATASOURCE).height(10).span(24)
        .with_target(_q("topk(50, namespace_pod_node:okerdma_gpu_allocated:sum * on (namespace) group_left (tenant)"
                        ' namespace:okerdma_tenant:info{tenant=~"$tenant"})', "{{namespace}}/{{pod}}",
                        instant=True)))
    return _json(board)


def _json(board: gd.Dashboard) -> dict[str, Any]:
    """The built dashboard as plain JSON, panels numbered 1.. in layout order (Grafana links panels by id)."""
    data = json.loads(json.dumps(board.build(), cls=JSONEncoder))
    for number, panel in enumerate(data["panels"], start=1):
        panel["id"] = number
    return data


def dashboards() -> dict[str, dict[str, Any]]:
    """ConfigMap file name → dashboard JSON, for every shipped dashboard."""
    return {"okerdma-gpu-fleet.json": fleet_dashboard(), "okerdma-gpu-tenants.json": tenants_dashboard()}
