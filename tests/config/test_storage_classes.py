"""A StorageClass the config names must exist in the cluster: the stack's own (its paravirtualized block-volume class
oke-rdma-bv; its File Storage class with storage.fss on) or one OKE creates (oci-bv, oci); any other is refused naming
the key, as the claim would never bind. A block-volume class must also attach to the nodes: OKE's iSCSI classes are
refused while a node pool encrypts volume traffic in transit (the CSI driver refuses that attachment)."""
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


#: Every dev pool with in-transit encryption off.
NO_IN_TRANSIT = {"system": {"isPvEncryptionInTransitEnabled": False}, "gpu": {"isPvEncryptionInTransitEnabled": False}}


@pytest.mark.parametrize("name", ["oci-bv", "oci"])
def test_prometheus_on_a_class_oke_creates_passes_where_no_pool_encrypts_in_transit(name):
    cfg = load_dev_config(platform={"kubePrometheusStack": {"storageClass": name}}, nodePools=NO_IN_TRANSIT)
    assert cfg.platform.kube_prometheus_stack.storage_class == name and check_storage_classes(cfg) == []


@pytest.mark.parametrize("name", ["oci-bv", "oci"])
def test_an_iscsi_class_is_refused_while_pools_encrypt_in_transit(name):
    """The dev stack's pools keep their default isPvEncryptionInTransitEnabled: true; Prometheus on OKE's oci-bv
    (or the FlexVolume oci) would never attach. One line naming the key, the pools and the class to use."""
    found = problems(platform={"kubePrometheusStack": {"storageClass": name}})
    [line] = [p for p in found if p.startswith(f"{KPS}.storageClass:")]
    assert f"StorageClass '{name}' attaches block volumes over iSCSI" in line
    assert "node pools gpu, system" in line and "use 'oke-rdma-bv'" in line


def test_one_encrypting_pool_is_enough_to_refuse_an_iscsi_class():
    """A pod with a block volume may land on any pool: a single pool with in-transit encryption refuses oci-bv."""
    found = problems(platform={"kubePrometheusStack": {"storageClass": "oci-bv"}},
                     nodePools={"gpu": {"isPvEncryptionInTransitEnabled": False}})
    [line] = [p for p in found if p.startswith(f"{KPS}.storageClass:")]
    assert "(node pools system:" in line


def test_the_default_class_is_the_stacks_paravirtualized_one_and_passes():
    """Unmodified, Prometheus' volume uses oke-rdma-bv, which attaches to nodes with in-transit encryption."""
    cfg = load_dev_config()
    assert cfg.platform.kube_prometheus_stack.storage_class == "oke-rdma-bv"
    assert all(p.is_pv_encryption_in_transit_enabled for p in cfg.node_pools.values())
    assert check_storage_classes(cfg) == []


def test_an_iscsi_class_in_a_charts_values_is_refused_with_its_path():
    """Grafana's or Alertmanager's persistence on oci-bv meets the same refusal, at the value's path."""
    values = {"grafana": {"persistence": {"enabled": True, "storageClassName": "oci-bv"}},
              "alertmanager": {"alertmanagerSpec": {"storage": {"volumeClaimTemplate": {
                  "spec": {"storageClassName": "oke-rdma-bv"}}}}}}
    found = problems(platform={"kubePrometheusStack": {"values": values}})
    lines = [p for p in found if p.startswith(f"{KPS}.values.")]
    assert len(lines) == 1 and lines[0].startswith(f"{KPS}.values.grafana.persistence.storageClassName: "
                                                   "StorageClass 'oci-bv' attaches block volumes over iSCSI")


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
    cfg = load_dev_config(platform={"kubePrometheusStack": {"values": values}}, nodePools=NO_IN_TRANSIT)
    assert check_storage_classes(cfg) == []
