"""GPU fleet monitoring: Prometheus alert and metering rules, Grafana dashboards, the DCGM exporter's metrics list,
and the component that provisions them in the cluster (see docs/monitoring.md and docs/metering.md).

Import the component from ``oke_rdma.monitoring.component``; this package's ``facts`` and ``dashboards`` need no
Pulumi runtime.
"""
