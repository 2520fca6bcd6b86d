"""GPU fleet monitoring: Prometheus alert and metering rules, Grafana dashboards, the DCGM exporter's metrics list,
and the component that provisions them in the cluster (see docs/monitoring.md and docs/metering.md)."""
