"""GPU sharing by effect in the stack config: a pool declared exclusive whose device plugin or MIG manager would
share its GPUs — through the values merged over the program's — is refused with the key path, and so is a
configuration the check cannot read."""

from __future__ import annotations

import pytest

from oke_rdma.config import ConfigError
from oke_rdma.config.checks.gpu_sharing import pool_verdicts
from tests.stackcfg import load_dev_config

IMAGE = "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaa7u2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4j6k8lgpub"
TIME_SLICED = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"
MPS = ("version: v1\nsharing:\n  mps:\n    renameByDefault: true\n    resources:\n    - name: nvidia.com/gpu\n"
       "      replicas: 2\n")


def operator_values(values: dict) -> dict:
    return {"gpuOperator": {"values": values}}


def problems(**overrides) -> list[str]:
    with pytest.raises(ConfigError) as e:
        load_dev_config(**overrides)
    return e.value.problems


def test_the_dev_pools_are_exclusive_by_effect():
    """The dev stack's GPU pool uses the device plugin's exclusive default config: nothing shared, all readable."""
    verdicts = pool_verdicts(load_dev_config())
    assert set(verdicts) == {"gpu"}
    assert verdicts["gpu"].shared is False, verdicts["gpu"].why


def test_a_declared_time_sliced_pool_is_shared_by_effect():
    """A pool with gpuSharing timeSlicing gets a label naming a config that time-slices: shared by effect too."""
    cfg = load_dev_config(nodePools={"shared": {"shape": "BM.GPU.A100-v2.8", "size": 1, "imageId": IMAGE,
                                                "gpuSharing": {"mode": "timeSlicing", "replicas": 4}}})
    verdicts = pool_verdicts(cfg)
    assert verdicts["shared"].shared is True and "4 pods per GPU" in verdicts["shared"].why
    assert verdicts["gpu"].shared is False


@pytest.mark.parametrize("values, needle", [
    # the default config (nodes without a label) redefined to time-slice
    ({"devicePlugin": {"config": {"data": {"exclusive": TIME_SLICED}}}}, "time-slicing, 4 pods per GPU"),
    # MPS, renamed by default: still shared
    ({"devicePlugin": {"config": {"data": {"exclusive": MPS}}}}, "MPS, 2 pods per GPU"),
    # a new config made the default of every unlabelled node
    ({"devicePlugin": {"config": {"default": "all-shared", "data": {"all-shared": TIME_SLICED}}}},
     "the default config 'all-shared'"),
])
def test_an_exclusive_pool_whose_default_config_shares_is_refused(values, needle):
    """An override of the device plugin's configs that makes the unlabelled (exclusive) RDMA pool share its GPUs is
    refused on the pool's gpuSharing.mode."""
    found = [p for p in problems(platform=operator_values(values)) if "gpuSharing.mode: exclusive, but" in p]
    assert found and found[0].startswith("oke-rdma:nodePools.gpu.gpuSharing.mode:"), found
    assert needle in found[0]


@pytest.mark.parametrize("values, needle", [
    ({"devicePlugin": {"config": {"create": False}}}, "cannot be read"),  # an existing ConfigMap, out of sight
    ({"devicePlugin": {"config": {"name": "theirs", "create": False}}}, "ConfigMap 'theirs'"),
    ({"devicePlugin": {"config": {"default": "missing"}}}, "lacks"),
    ({"devicePlugin": {"config": {"data": {"exclusive": "version: v2\n"}}}}, "version 'v2'"),
    ({"devicePlugin": {"config": {"data": {"exclusive": "sharing: {timeSlicing: {resources: [{name: x}]}}"}}}},
     "replicas is None"),
    ({"devicePlugin": {"config": {"data": {"exclusive": "sharing: [oops"}}}}, "not YAML"),
    ({"migManager": {"config": {"name": "custom-mig", "create": False}}}, "custom mig-parted config"),
])
def test_an_unreadable_sharing_configuration_is_refused(values, needle):
    """A device-plugin or MIG configuration the check cannot read (a ConfigMap the stack does not create, a default
    it lacks, a file the device plugin refuses, a custom MIG config out of sight) is refused, naming the values."""
    found = [p for p in problems(platform=operator_values(values)) if "cannot be read" in p]
    assert found and found[0].startswith("oke-rdma:platform.gpuOperator.values:"), found
    assert needle in found[0]


def test_a_custom_mig_config_that_turns_mig_on_by_default_is_refused():
    """A custom mig-parted config whose ``all-disabled`` turns MIG on partitions every unlabelled MIG-capable node."""
    text = "version: v1\nmig-configs:\n  all-disabled:\n  - devices: all\n    mig-enabled: true\n"
    values = {"migManager": {"config": {"name": "custom-mig", "create": True, "data": {"config.yaml": text}}}}
    found = problems(platform=operator_values(values))
    assert any(p.startswith("oke-rdma:nodePools.gpu.gpuSharing.mode: exclusive, but the default MIG config "
                            "'all-disabled' of the custom mig-parted config") for p in found), found


def test_harmless_overrides_pass():
    """An extra config no node selects, a custom MIG config that keeps MIG off, and the device plugin off (OKE's own
    plugin, no sharing) all keep the exclusive pool exclusive."""
    off = "version: v1\nmig-configs:\n  all-disabled:\n  - devices: all\n    mig-enabled: false\n"
    for values in ({"devicePlugin": {"config": {"data": {"spare": TIME_SLICED}}}},
                   {"migManager": {"config": {"name": "custom-mig", "create": True, "data": {"config.yaml": off}}}},
                   {"devicePlugin": {"enabled": False}}):
        cfg = load_dev_config(platform=operator_values(values))
        assert pool_verdicts(cfg)["gpu"].shared is False, values
