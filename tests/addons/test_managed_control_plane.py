"""OKE's managed control plane: kube-prometheus-stack scrapes nothing OKE does not run in the cluster (etcd,
scheduler, controller manager; kube-proxy's localhost metrics), a user's value turning one back on is refused, and a
value switching off what another add-on relies on (the ServiceMonitor CRD, the operator, Prometheus' selection of
other releases' monitors) is refused naming both sides."""

from __future__ import annotations

import pytest

from oke_rdma.addons.kube_prometheus_stack import MANAGED_CONTROL_PLANE
from oke_rdma.config import ConfigError, load_stack_config
from offline.engine import run_program
from tests.stackcfg import dev_raw_config, load_dev_config, of_type

RELEASE = "kubernetes:helm.sh/v3:Release"


def _problems(**overrides) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(**overrides))
    return err.value.problems


def test_control_plane_scrapers_are_off_in_the_plan():
    run = run_program(dev_raw_config(), [], "dev", unknowns=False)
    kps = next(r for r in of_type(run.resources, RELEASE) if r.inputs["name"] == "kube-prometheus-stack")
    for component in ("kubeEtcd", "kubeControllerManager", "kubeScheduler", "kubeProxy"):
        assert kps.inputs["values"][component] == {"enabled": False}, component
    # what OKE does run in the cluster stays scraped: the chart's defaults are left alone
    for kept in ("kubelet", "kubeApiServer", "coreDns", "kubeStateMetrics"):
        assert kept not in kps.inputs["values"]


@pytest.mark.parametrize("component", sorted(MANAGED_CONTROL_PLANE))
def test_turning_a_control_plane_scraper_back_on_is_refused(component):
    lines = _problems(platform={"kubePrometheusStack": {"values": {component: {"enabled": True}}}})
    key = f"oke-rdma:platform.kubePrometheusStack.values.{component}.enabled"
    [line] = [p for p in lines if p.startswith(key)]
    assert "alerts fire forever" in line


def test_other_settings_of_those_sections_pass():
    cfg = load_dev_config(platform={"kubePrometheusStack": {"values": {"kubeProxy": {"enabled": False},
                                                                       "kubeEtcd": {"service": {"port": 2381}}}}})
    assert cfg.platform.kube_prometheus_stack.values["kubeEtcd"] == {"service": {"port": 2381}}


def test_a_non_boolean_enabled_is_refused():
    lines = _problems(platform={"kubePrometheusStack": {"values": {"kubeScheduler": {"enabled": "false"}}}})
    assert any(p.startswith("oke-rdma:platform.kubePrometheusStack.values.kubeScheduler.enabled: expected true or "
                            "false") for p in lines)


@pytest.mark.parametrize("values, key, says", [
    ({"crds": {"enabled": False}}, "crds.enabled", "installs no monitoring.coreos.com CRDs"),
    ({"prometheusOperator": {"enabled": False}}, "prometheusOperator.enabled", "runs no Prometheus operator"),
    ({"prometheus": {"prometheusSpec": {"serviceMonitorSelectorNilUsesHelmValues": True}}},
     "prometheus.prometheusSpec.serviceMonitorSelectorNilUsesHelmValues", "never be scraped"),
    ({"prometheus": {"prometheusSpec": {"ruleSelectorNilUsesHelmValues": True}}},
     "prometheus.prometheusSpec.ruleSelectorNilUsesHelmValues", "never be scraped"),
])
def test_switching_off_what_the_service_monitors_need_names_both_sides(values, key, says):
    lines = _problems(platform={"kubePrometheusStack": {"values": values}})
    [line] = [p for p in lines if p.startswith(f"oke-rdma:platform.kubePrometheusStack.values.{key}")]
    assert says in line and "GPU Operator's DCGM exporter ServiceMonitor" in line and "Kueue's metrics" in line


def test_without_service_monitors_those_values_are_allowed():
    """No add-on uses a ServiceMonitor: turning kube-prometheus-stack's CRDs off breaks nothing of the stack."""
    cfg = load_dev_config(platform={
        "kubePrometheusStack": {"values": {"crds": {"enabled": False}}},
        "gpuOperator": {"values": {"dcgmExporter": {"serviceMonitor": {"enabled": False}}}},
        "kueue": {"values": {"enablePrometheus": False}}})
    assert cfg.platform.kube_prometheus_stack.values["crds"] == {"enabled": False}


@pytest.mark.parametrize("platform, key", [
    ({"kubePrometheusStack": {"enabled": False}, "kueue": {"values": {"enablePrometheus": True}}},
     "oke-rdma:platform.kueue.values.enablePrometheus"),
    ({"kubePrometheusStack": {"enabled": False},
      "gpuOperator": {"values": {"dcgmExporter": {"serviceMonitor": {"enabled": True}}}}},
     "oke-rdma:platform.gpuOperator.values.dcgmExporter.serviceMonitor.enabled"),
])
def test_a_service_monitor_without_kube_prometheus_stack_is_refused(platform, key):
    [line] = [p for p in _problems(platform=platform) if p.startswith(key)]
    assert "platform.kubePrometheusStack is disabled" in line


def test_kube_prometheus_stack_disabled_alone_passes():
    cfg = load_dev_config(platform={"kubePrometheusStack": {"enabled": False}})
    assert not cfg.platform.kube_prometheus_stack.enabled


def test_turning_off_node_feature_discovery_with_gpu_pools_is_refused():
    [line] = [p for p in _problems(platform={"gpuOperator": {"values": {"nfd": {"enabled": False}}}})
              if p.startswith("oke-rdma:platform.gpuOperator.values.nfd.enabled")]
    assert "pci-10de.present" in line and "no device plugin" in line


def test_node_feature_discovery_off_without_gpu_pools_passes():
    cfg = load_dev_config(nodePools={"gpu": None}, computeCluster=None,
                          tenants={"research": {"rdma": False, "quota": None}, "analytics": {"quota": None}},
                          platform={"gpuOperator": {"values": {"nfd": {"enabled": False}}}})
    assert cfg.platform.gpu_operator.values["nfd"] == {"enabled": False}


def test_kueue_cert_manager_without_cert_manager_is_refused():
    [line] = [p for p in _problems(platform={"kueue": {"values": {"enableCertManager": True}}})
              if p.startswith("oke-rdma:platform.kueue.values.enableCertManager")]
    assert "installs no cert-manager" in line
