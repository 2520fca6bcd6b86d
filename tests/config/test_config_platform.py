"""Platform and tenant-quota config: the inputs that must fail (exit 2 with the key path and the fix) and the
device-plugin rule (exactly one plugin advertises nvidia.com/gpu on a GPU node)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from oke_rdma.compute import node_labels
from oke_rdma.config import ConfigError, load_stack_config
from tests.stackcfg import dev_raw_config, load_dev_config

IMAGE = "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaa7u2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4j6k8lgpub"
from tests import inprocess

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = "oci.oraclecloud.com/disable-gpu-device-plugin"
PLUGIN_KEY = f'"{PLUGIN}"'  # a key with dots is quoted in a key path


def problems(**overrides) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(**overrides))
    return err.value.problems


def preview_exit(tmp_path: Path, platform: dict) -> subprocess.CompletedProcess:
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    doc["config"]["oke-rdma:platform"] = json.loads(json.dumps(doc["config"]["oke-rdma:platform"]))
    for release, values in platform.items():
        doc["config"]["oke-rdma:platform"].setdefault(release, {}).update(values)
    path = tmp_path / "Pulumi.test.yaml"
    path.write_text(yaml.safe_dump(doc))
    return inprocess.preview("--config-file", str(path))


def test_gpu_operator_driver_enabled_exits_2_with_the_reason(tmp_path):
    out = preview_exit(tmp_path, {"gpuOperator": {"values": {"driver": {"enabled": True}}}})
    assert out.returncode == 2, out.stdout + out.stderr
    assert ("oke-rdma:platform.gpuOperator.values.driver.enabled: OKE GPU images ship the NVIDIA driver (and OFED), "
            "a driver container would conflict with it; remove it or set false") in out.stderr
    assert "Traceback" not in out.stderr


def test_topology_levels_without_hostname_exit_2(tmp_path):
    levels = ["oci.oraclecloud.com/rdma.hpc_island_id", "oci.oraclecloud.com/rdma.local_block_id"]
    out = preview_exit(tmp_path, {"kueue": {"topologyLevels": levels}})
    assert out.returncode == 2, out.stdout + out.stderr
    assert "oke-rdma:platform.kueue.topologyLevels: must end with kubernetes.io/hostname" in out.stderr
    assert "append kubernetes.io/hostname" in out.stderr


def test_topology_level_rules():
    assert problems(platform={"kueue": {"topologyLevels": ["kubernetes.io/hostname", "a/b"]}})[0].startswith(
        "oke-rdma:platform.kueue.topologyLevels: must end with kubernetes.io/hostname")
    assert "lists a label twice" in problems(platform={"kueue": {"topologyLevels": [
        "a/b", "a/b", "kubernetes.io/hostname"]}})[0]
    assert "must be Kubernetes label keys" in problems(platform={"kueue": {"topologyLevels": [
        "not a label", "kubernetes.io/hostname"]}})[0]
    assert "must end with" in problems(platform={"kueue": {"topologyLevels": []}})[0]
    only_host = load_dev_config(platform={"kueue": {"topologyLevels": ["kubernetes.io/hostname"]}})
    assert only_host.platform.kueue.topology_levels == ("kubernetes.io/hostname",)


def test_device_plugin_off_while_nothing_advertises_gpus():
    found = problems(platform={"gpuOperator": {"values": {"devicePlugin": {"enabled": False}}}},
                     nodePools={"gpu": {"labels": {PLUGIN: "true"}}})
    assert found == [f"oke-rdma:nodePools.gpu.labels[{PLUGIN_KEY}]: disables OKE's device plugin but the GPU Operator's "
                     "device plugin is off, so nothing advertises nvidia.com/gpu on these nodes; remove the label "
                     "or enable platform.gpuOperator (values.devicePlugin.enabled)"]
    assert problems(platform={"gpuOperator": {"enabled": False}}, nodePools={"gpu": {"labels": {PLUGIN: "true"}}})


def test_device_plugin_on_while_the_oke_plugin_is_forced_on():
    found = problems(nodePools={"gpu": {"labels": {PLUGIN: "false"}}})
    assert len(found) == 1 and found[0].startswith(f"oke-rdma:nodePools.gpu.labels[{PLUGIN_KEY}]: keeps OKE's device "
                                                   "plugin on while the GPU Operator runs its own")


def test_the_disable_label_follows_the_operators_device_plugin():
    on = load_dev_config()
    assert on.platform.operator_device_plugin
    assert node_labels(on.node_pools["gpu"], "gpu", on.platform.operator_device_plugin)[PLUGIN] == "true"
    off = load_dev_config(platform={"gpuOperator": {"values": {"devicePlugin": {"enabled": False}}}})
    assert not off.platform.operator_device_plugin  # OKE's plugin advertises the GPUs: no disable label
    assert PLUGIN not in node_labels(off.node_pools["gpu"], "gpu", off.platform.operator_device_plugin)
    assert not load_dev_config(platform={"gpuOperator": {"enabled": False}}).platform.operator_device_plugin
    assert node_labels(on.node_pools["system"], "system", True).get(PLUGIN) is None  # not a GPU shape


def test_tenant_gpu_quota_above_what_the_pools_offer():
    """The key that is wrong is named: the nominal quota when it alone is too large, the borrowing limit when only
    it takes the quota past the pools (with the largest value that fits)."""
    found = problems(tenants={"research": {"quota": {"gpu": 17}}})
    assert found == ["oke-rdma:tenants.research.quota.gpu: 17 GPUs is more than the 16 GPUs the "
                     "RDMA pools can ever offer (gpu: 2 × BM.GPU.H100.8); lower it or grow the pools"]
    assert problems(tenants={"analytics": {"quota": {"gpu": 10, "gpuBorrowingLimit": 7}}})[0].startswith(
        "oke-rdma:tenants.analytics.quota.gpuBorrowingLimit: 7 borrowable on top of 10 nominal GPUs is more than the "
        "16 GPUs")
    assert "lower it to at most 6" in problems(tenants={"analytics": {"quota": {"gpu": 10, "gpuBorrowingLimit": 7}}})[0]
    assert problems(tenants={"analytics": {"quota": {"gpu": 17, "gpuBorrowingLimit": 7}}})[0].startswith(
        "oke-rdma:tenants.analytics.quota.gpu: 17 GPUs (+7 borrowable) is more than the 16")
    assert load_dev_config(tenants={"research": {"quota": {"gpu": 16}}}).tenants["research"].quota.gpu == 16
    assert problems(tenants={"research": {"quota": {"gpu": -1}}})[0].startswith(
        "oke-rdma:tenants.research.quota.gpu: expected a number at least 0, got the number -1")
    assert "unknown key" in problems(tenants={"research": {"quota": {"gpus": 1}}})[0]


def test_a_gpu_quota_no_pool_can_hold_names_each_pool_the_tenant_cannot_use_and_why():
    """A pool the tenant's flavors do not cover is named with the reason: a plain (exclusive, non-RDMA) GPU pool, a
    pool another dedicated tenant owns, a shared pool of a dedicated tenant, a pool its own nodePools leaves out."""
    plain = {"infer": {"shape": "VM.GPU.A10.2", "size": 2, "imageId": IMAGE, "gpuSharing": {"mode": "exclusive"}}}
    found = problems(nodePools=plain, tenants={"analytics": {"isolation": "shared", "quota": {"gpu": 40}}})
    line = next(p for p in found if p.startswith("oke-rdma:tenants.analytics.quota.gpu:"))
    assert "infer (2 × VM.GPU.A10.2) is a plain GPU pool (gpuSharing.mode exclusive, not RDMA)" in line
    assert "share it (nodePools.infer.gpuSharing.mode timeSlicing or mig)" in line
    shared = {"infer": {**plain["infer"], "gpuSharing": {"mode": "timeSlicing", "replicas": 2}}}
    found = problems(nodePools=shared, tenants={"research": {"quota": {"gpu": 17}}})
    assert "infer (2 × VM.GPU.A10.2) is shared and tenant research is dedicated" in found[0], found
    owned = problems(tenants={"research": {"nodePools": ["gpu"]}, "analytics": {"quota": {"gpu": 1}}})
    assert any("gpu (2 × BM.GPU.H100.8) is dedicated to tenant research" in p for p in owned), owned


def test_a_pool_whose_gpu_count_is_unknown_is_named_by_its_gpus_per_node_key():
    """An RDMA pool on a shape oke-rdma does not know (allowed as unlisted) has no GPU count: the problem is named
    at its gpusPerNode key, not at the tenant's quota."""
    found = problems(nodePools={"gpu": {"shape": "BM.GPU.X9.8", "allowUnlistedRdmaShape": True}})
    (line,) = [p for p in found if "gpusPerNode" in p.split(":", 2)[1]]
    assert line.startswith("oke-rdma:nodePools.gpu.gpusPerNode: unset"), found
    assert "tenants.research.quota.gpu" in line or "tenants.analytics.quota.gpu" in line
    # with allowUnknownShape the pool's own rule names the key: one line, not a second one from the quota check
    found = problems(nodePools={"gpu": {"shape": "BM.GPU.X9.8", "allowUnlistedRdmaShape": True,
                                        "allowUnknownShape": True}})
    assert len([p for p in found if "gpusPerNode" in p.split(":", 2)[1]]) == 1, found


def test_prometheus_storage_rules():
    assert problems(platform={"kubePrometheusStack": {"retentionSizeGb": 95}})[0].startswith(
        "oke-rdma:platform.kubePrometheusStack.retentionSizeGb: 95 GB does not fit in the 100 GB volume")
    assert problems(platform={"kubePrometheusStack": {"storageGb": 20}})[0].startswith(
        "oke-rdma:platform.kubePrometheusStack.storageGb: expected a number from 50 to 32768, got the number 20")
    assert "Prometheus duration" in problems(platform={"kubePrometheusStack": {"retention": "two weeks"}})[0]


def test_grafana_password_is_a_secret_field_and_never_echoed():
    from oke_rdma.config import KubePrometheusStackRelease
    extra = KubePrometheusStackRelease.model_fields["grafana_admin_password"].json_schema_extra
    assert extra == {"secret": True}
    found = problems(platform={"kubePrometheusStack": {"grafanaAdminPassword": "short-pw"}})
    assert found == ["oke-rdma:platform.kubePrometheusStack.grafanaAdminPassword: expected a password of at least 12 "
                     "characters, got a shorter one (not shown); choose a longer one and set it with pulumi config "
                     "set --path --secret"]
    assert not any("short-pw" in p for p in found)


def test_labeler_image_and_namespace_rules():
    assert "pinned by tag or digest" in problems(platform={"kueue": {"topologyLabeler": {
        "image": "docker.io/library/python:latest"}}})[0]
    assert "pinned by tag or digest" in problems(platform={"kueue": {"topologyLabeler": {"image": "python"}}})[0]
    found = problems(platform={"kueue": {"topologyLabeler": {"enabled": True}}},
                     tenants={"research": {"namespace": "oke-rdma-topology"}})
    assert found == ["oke-rdma:tenants.research.namespace: 'oke-rdma-topology' is a system or platform namespace; "
                     "give the tenant its own"]


def test_topology_with_more_levels_than_kueue_accepts_exit_2(tmp_path):
    """Kueue's Topology holds at most 16 levels (its CRD's maxItems): 17 are refused naming the key, 16 pass."""
    levels = [f"example.com/tier-{i}" for i in range(16)] + ["kubernetes.io/hostname"]
    out = preview_exit(tmp_path, {"kueue": {"topologyLevels": levels}})
    assert out.returncode == 2, out.stdout + out.stderr
    assert "oke-rdma:platform.kueue.topologyLevels: lists 17 levels; a Kueue Topology holds at most 16" in out.stderr
    sixteen = load_dev_config(platform={"kueue": {"topologyLevels": levels[1:]}})
    assert len(sixteen.platform.kueue.topology_levels) == 16


def test_topology_level_with_a_prefix_longer_than_a_dns_subdomain_is_refused():
    """A label key's prefix is a DNS subdomain (at most 253 characters): a longer one is no label key."""
    long_prefix = ".".join(["a" * 63] * 4) + ".bc"  # 257 characters
    assert "must be Kubernetes label keys" in problems(platform={"kueue": {"topologyLevels": [
        f"{long_prefix}/tier", "kubernetes.io/hostname"]}})[0]
    fits = ".".join(["a" * 63] * 3) + ".example.com"  # 203 characters
    ok = load_dev_config(platform={"kueue": {"topologyLevels": [f"{fits}/tier", "kubernetes.io/hostname"]}})
    assert ok.platform.kueue.topology_levels[0] == f"{fits}/tier"
