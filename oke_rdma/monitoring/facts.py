"""Monitoring facts: the metrics each exporter defines, the XIDs that take a GPU out of service, and where the
shipped rule files live. Every table names its source and when it was checked.

Sources (checked 2026-11-30):

* DCGM fields: NVIDIA dcgm-exporter ``etc/default-counters.csv`` and ``etc/dcp-metrics-included.csv``; the fields
  oke-rdma enables are listed in ``dcgm-metrics.csv`` beside this module (read by :func:`dcgm_metrics`).
* XIDs: NVIDIA "Xid Errors" and "Analyzing Xid Errors with the Xid Catalog"
  (https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html), immediate action RESET_GPU / RESTART_BM /
  CONTACT_SUPPORT on A100 and H100; application errors (13, 31, 43, 45, 68, 109) are excluded as the NVIDIA device
  plugin excludes them (k8s-device-plugin ``internal/rm/health.go``, ``ignoredXids``).
* node-exporter InfiniBand collector: prometheus/node_exporter ``collector/infiniband_linux.go`` (metric names
  ``node_infiniband_<name>``, labels ``device`` and ``port``).
* kube-state-metrics: ``docs/metrics`` of kubernetes/kube-state-metrics v2 (pod, node and namespace metrics).
"""

from __future__ import annotations

import csv
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
RULES_DIR = HERE / "rules"
DCGM_METRICS_CSV = HERE / "dcgm-metrics.csv"

#: XID → why the GPU must be reset (or the node rebooted) before it runs work again (NVIDIA Xid catalogue).
XID_NEEDS_RESET: dict[int, str] = {
    48: "double-bit ECC error",
    63: "ECC page retirement or row remapping recorded: reset to apply",
    64: "ECC page retirement or row remapping failed",
    74: "NVLink error",
    92: "high single-bit ECC error rate",
    94: "contained ECC error",
    95: "uncontained ECC error",
    119: "GSP RPC timeout",
    120: "GSP error",
    140: "unrecovered ECC error",
}
#: The XID of a GPU that has fallen off the PCIe bus: the node must be rebooted or replaced.
XID_FALLEN_OFF_BUS = 79
#: XIDs the NVIDIA device plugin treats as application errors and ignores (k8s-device-plugin health.go).
XID_APPLICATION_ERRORS = frozenset({13, 31, 43, 45, 68, 109})

#: Metrics of node-exporter's InfiniBand collector (node_exporter collector/infiniband_linux.go).
NODE_EXPORTER_INFINIBAND = frozenset(f"node_infiniband_{name}" for name in (
    "legacy_multicast_packets_received_total", "legacy_multicast_packets_transmitted_total",
    "legacy_data_received_bytes_total", "legacy_packets_received_total", "legacy_unicast_packets_received_total",
    "legacy_unicast_packets_transmitted_total", "legacy_data_transmitted_bytes_total",
    "legacy_packets_transmitted_total", "link_downed_total", "link_error_recovery_total",
    "multicast_packets_received_total", "multicast_packets_transmitted_total", "physical_state_id",
    "port_constraint_errors_received_total", "port_constraint_errors_transmitted_total",
    "port_data_received_bytes_total", "port_data_transmitted_bytes_total", "port_discards_received_total",
    "port_discards_transmitted_total", "port_errors_received_total", "port_packets_received_total",
    "port_packets_transmitted_total", "port_transmit_wait_total", "rate_bytes_per_second", "state_id",
    "unicast_packets_received_total", "unicast_packets_transmitted_total"))

#: kube-state-metrics series the rules and dashboards read (kube-state-metrics docs/metrics).
KUBE_STATE_METRICS = frozenset({
    "kube_pod_container_resource_requests", "kube_pod_status_phase", "kube_node_labels", "kube_namespace_labels",
    "kube_node_status_allocatable", "kube_node_status_capacity", "kube_node_status_condition",
    "kube_node_spec_taint", "kube_node_spec_unschedulable", "kube_node_info",
})
#: Series Prometheus itself adds to every scrape target (Prometheus docs, "Jobs and instances").
PROMETHEUS_SYNTHETIC = frozenset({"up"})


def dcgm_metrics() -> frozenset[str]:
    """The DCGM field names (= Prometheus metric names) oke-rdma's DCGM exporter emits (``dcgm-metrics.csv``)."""
    rows = csv.reader(line for line in DCGM_METRICS_CSV.read_text().splitlines()
                      if line.strip() and not line.lstrip().startswith("#"))
    return frozenset(row[0].strip() for row in rows)


def rule_files() -> list[Path]:
    """The shipped Prometheus rule files, sorted by name."""
    return sorted(RULES_DIR.glob("*.yaml"))


def rule_groups() -> list[dict]:
    """Every rule group of the shipped rule files (``{"name", "rules", "interval"?}``), in file order."""
    groups: list[dict] = []
    for path in rule_files():
        groups += yaml.safe_load(path.read_text())["groups"]
    return groups


def recorded_metrics() -> frozenset[str]:
    """The metric names the shipped recording rules define."""
    return frozenset(r["record"] for g in rule_groups() for r in g["rules"] if "record" in r)


def known_metrics() -> frozenset[str]:
    """Every metric a dashboard or rule may read: the exporters' and the recording rules'."""
    return (dcgm_metrics() | NODE_EXPORTER_INFINIBAND | KUBE_STATE_METRICS | PROMETHEUS_SYNTHETIC
            | recorded_metrics())
