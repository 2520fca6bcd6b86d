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

from oke_rdma import yamlsafe

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


#: NVIDIA GPU generation of each GPU model the shape facts name (``oke_rdma.facts.shapes``: the longest key that
#: starts ``gpu_model``). NVIDIA's architecture pages: P100 Pascal, V100 Volta, A10/A100 Ampere, L40S Ada Lovelace,
#: H100/H200 Hopper (NVLink4), B200/B300, GB200/GB300 and RTX PRO 6000 Blackwell (NVLink5 on the SXM/NVL parts) —
#: checked 2026-12-02.
GPU_GENERATIONS: dict[str, str] = {
    "P100": "Pascal", "V100": "Volta", "A10": "Ampere", "A100": "Ampere", "L40S": "Ada", "H100": "Hopper",
    "H200": "Hopper", "B200": "Blackwell", "B300": "Blackwell", "GB200": "Blackwell", "GB300": "Blackwell",
    "RTX PRO 6000 Blackwell": "Blackwell",
}

_LEGACY_NVLINK_ZERO_ON_HOPPER = (
    "DataDog/datadog-agent#55966 (2026-09-07: 'Legacy NVLink error FieldValues report success with zero on Hopper'; "
    "nvidia-smi reads per-link counters, the DL error field values count); NVIDIA/DCGM#173 (named by the bug "
    "hunt, not read here); checked 2026-12-02")
_NVLINK5_ONLY = ("NVIDIA/go-dcgm pkg/dcgm const.go (fields 1200-1219, 1404-1419: 'NVLink5+ only ... Not supported "
                 "on NVLink4 and earlier'); DCGM dcgmi Nvlink.cpp reads them only from DCGM_CHIP_ARCH_BLACKWELL; "
                 "checked 2026-12-02")
#: DCGM fields dcgm-exporter lists but that never move on a GPU generation (read 0 or N/A): field → {generation:
#: source}. A rule or panel reading only such fields is silent on that generation's nodes.
DCGM_SILENT: dict[str, dict[str, str]] = {
    **{f"DCGM_FI_DEV_NVLINK_{name}_ERROR_COUNT_TOTAL": {"Hopper": _LEGACY_NVLINK_ZERO_ON_HOPPER}
       for name in ("CRC_FLIT", "CRC_DATA", "REPLAY", "RECOVERY")},
}
#: Field-name prefixes silent on whole generations (the NVLink5 counters before Blackwell).
DCGM_SILENT_PREFIXES: dict[str, dict[str, str]] = {
    "DCGM_FI_DEV_NVLINK_COUNT_": {g: _NVLINK5_ONLY for g in ("Pascal", "Volta", "Ampere", "Ada", "Hopper")},
}
#: Field groups that cannot be watched together: with both in the list, both read N/A (on GB200, DCGM 4.4.1):
#: ``(fields or prefixes of one side, of the other, source)``.
DCGM_EXCLUSIVE: tuple[tuple[tuple[str, ...], tuple[str, ...], str], ...] = (
    (("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",), ("DCGM_FI_DEV_NVLINK_COUNT_",),
     "NVIDIA/dcgm-exporter#581 and NVIDIA/DCGM#265 (open; GB200, DCGM 4.4.1: dcgmi dmon -e 310,1200,... all N/A); "
     "checked 2026-12-02"),
)


def gpu_generation(model: str) -> str | None:
    """``"H100 80GB"`` → ``"Hopper"`` (:data:`GPU_GENERATIONS`; None for a model not recorded)."""
    for key in sorted(GPU_GENERATIONS, key=len, reverse=True):
        if model == key or model.startswith(key + " "):
            return GPU_GENERATIONS[key]
    return None


def silent_on(field: str, generation: str) -> str | None:
    """The source saying DCGM ``field`` never moves on ``generation`` (None: nothing recorded)."""
    if generation in DCGM_SILENT.get(field, {}):
        return DCGM_SILENT[field][generation]
    for prefix, gens in DCGM_SILENT_PREFIXES.items():
        if field.startswith(prefix) and generation in gens:
            return gens[generation]
    return None


def exclusive_conflicts(fields: frozenset[str]) -> list[str]:
    """One line per :data:`DCGM_EXCLUSIVE` group both of whose sides are in ``fields``."""
    def hits(side: tuple[str, ...]) -> list[str]:
        return sorted(f for f in fields if any(f == s or (s.endswith("_") and f.startswith(s)) for s in side))
    out = []
    for one, other, source in DCGM_EXCLUSIVE:
        a, b = hits(one), hits(other)
        if a and b:
            out.append(f"{', '.join(a)} and {', '.join(b)} cannot be watched together (both read N/A): {source}")
    return out


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
        groups += yamlsafe.load(path.read_text())["groups"]
    return groups


def recorded_metrics() -> frozenset[str]:
    """The metric names the shipped recording rules define."""
    return frozenset(r["record"] for g in rule_groups() for r in g["rules"] if "record" in r)


def known_metrics() -> frozenset[str]:
    """Every metric a dashboard or rule may read: the exporters' and the recording rules'."""
    return (dcgm_metrics() | NODE_EXPORTER_INFINIBAND | KUBE_STATE_METRICS | PROMETHEUS_SYNTHETIC
            | recorded_metrics())
