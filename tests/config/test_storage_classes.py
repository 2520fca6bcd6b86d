"""A StorageClass the config names must exist in the cluster: the stack's File Storage class (with storage.fss on) or
one OKE creates (oci-bv, oci); any other is refused naming the key, as the claim would never bind."""
from __future__ import annotations

import pytest

from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.config.checks.storage_classes import check_storage_classes
from tests.stackcfg import dev_raw_config, load_dev_config

KPS = "oke-rdma:platform.kubePrometheusStack"


def problems(**overrides) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(**overrides))
    return err.value.problems


def test_prometheus_on_a_class_nobody_creates_is_refused_naming_the_key():
    found = problems(platform={"kubePrometheusStack": {"storageClass": "gp2"}})
    assert any(p.startswith(f"{KPS}.storageClass: StorageClass 'gp2' does not exist in the cluster") and "oci-bv" in p
               for p in found), found


@pytest.mark.parametrize("name", ["oci-bv", "oci"])
def test_prometheus_on_a_class_oke_creates_passes(name):
    cfg = load_dev_config(platform={"kubePrometheusStack": {"storageClass": name}})
    assert cfg.platform.kube_prometheus_stack.storage_class == name and check_storage_classes(cfg) == []


def test_the_stacks_own_file_storage_class_passes_only_while_file_storage_is_on():
    cfg = load_dev_config(platform={"kubePrometheusStack": {"storageClass": "okerdma-dev-fss"}})
    assert check_storage_classes(cfg) == []
    off = problems(platform={"kubePrometheusStack": {"storageClass": "okerdma-dev-fss"}},
                   storage={"fss": {"enabled": False}})
    assert any(p.startswith(f"{KPS}.storageClass: StorageClass 'okerdma-dev-fss' does not exist") for p in off), off


def test_a_class_named_deep_in_a_charts_values_is_refused_with_its_path():
    values = {"grafana": {"persistence": {"enabled": True, "storageClassName": "standard"}},
              "alertmanager": {"alertmanagerSpec": {"storage": {"volumeClaimTemplate": {
                  "spec": {"storageClassName": "oci-bv-encrypted"}}}}}}
    found = problems(platform={"kubePrometheusStack": {"values": values}})
    assert any(p.startswith(f"{KPS}.values.grafana.persistence.storageClassName: StorageClass 'standard'")
               for p in found), found
    assert any(p.startswith(f"{KPS}.values.alertmanager.alertmanagerSpec.storage.volumeClaimTemplate.spec."
                            "storageClassName: StorageClass 'oci-bv-encrypted'") for p in found), found


def test_no_class_spelled_empty_or_dash_and_known_classes_in_values_pass():
    values = {"grafana": {"persistence": {"storageClassName": "-"}},
              "prometheus": {"prometheusSpec": {"storageSpec": {"volumeClaimTemplate": {
                  "spec": {"storageClassName": ""}}}}},
              "extra": [{"storageClass": "oci-bv"}]}
    cfg = load_dev_config(platform={"kubePrometheusStack": {"values": values}})
    assert check_storage_classes(cfg) == []
