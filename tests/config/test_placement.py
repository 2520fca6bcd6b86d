"""Every placement mistake OCI would reject (or silently accept) is refused offline, exit 2 — plus the node pool and
cluster options around them, and a variant with three GPU pools and one CPU pool that previews clean."""

import json
from pathlib import Path

import pytest
import yaml

from oke_rdma.config import ConfigError, load_stack_config
from offline import preview
from tests.stackcfg import dev_config, edited, flannel, without_tenant_keys

ROOT = Path(__file__).resolve().parents[2]
VARIANT = ROOT / "tests" / "fixtures" / "Pulumi.dev-gpu.yaml"
RAW, _ = dev_config()
AD1, AD2 = "bxtG:SA-SAOPAULO-1-AD-1", "bxtG:SA-SAOPAULO-1-AD-2"
KEY = "ocid1.key.oc1.sa-saopaulo-1.dvsi563naaa5c.abuwcljrppxnq3f7bvh4kga4hvm6cewbylwzr3l44ikt6hzm7i27cjugc75a"


def problems(raw) -> list[str]:
    with pytest.raises(ConfigError) as e:
        load_stack_config(raw)
    return e.value.problems


def gpu(raw, key, value):
    return edited(raw, "nodePools", ("gpu", key), value)


def run_cli(tmp_path, edit, *extra):
    """The offline preview CLI in-process on the dev stack edited by ``edit(config)``."""
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    edit(doc["config"])
    path = tmp_path / "Pulumi.test.yaml"
    path.write_text(yaml.safe_dump(doc))
    return preview.main(["--config-file", str(path), *extra])


# --- the inputs the issue says must fail, through the CLI (exit 2, the key path on stderr) ------------------------
def _pool(cfg, **kv):
    cfg["oke-rdma:nodePools"]["gpu"].update(kv)


def _two_ads(cfg):
    cfg["oke-rdma:availabilityDomains"] = [AD1, AD2]
    _pool(cfg, availabilityDomains=[AD1, AD2])


def _ad2(cfg):
    cfg["oke-rdma:availabilityDomains"] = [AD1, AD2]
    _pool(cfg, availabilityDomains=[AD2])


@pytest.mark.parametrize("edit, expected", [
    (lambda c: _pool(c, faultDomains=["FAULT-DOMAIN-1"]), "oke-rdma:nodePools.gpu.faultDomains: must be empty"),
    (_ad2, "oke-rdma:nodePools.gpu.availabilityDomains: an RDMA pool has exactly one placement, in the Compute "
           f"Cluster's availability domain '{AD1}', got [{AD2}]"),
    (_two_ads, f"got [{AD1}, {AD2}]"),
    (lambda c: _pool(c, shape="VM.Standard.E5.Flex", ocpus=8, memoryGb=64),
     "oke-rdma:nodePools.gpu.shape: VM.Standard.E5.Flex is a VM shape; Compute Clusters hold bare metal"),
    (lambda c: c["oke-rdma:cluster"].update(type="BASIC_CLUSTER"),
     "oke-rdma:nodePools.gpu.rdma: a node pool in a Compute Cluster needs an ENHANCED_CLUSTER"),
    (lambda c: _pool(c, preemptible={}), "oke-rdma:nodePools.gpu.preemptible: a node pool in a Compute Cluster "
                                         "cannot be preemptible"),
    (lambda c: _pool(c, shape="BM.GPU.L40S.4"), "oke-rdma:nodePools.gpu.shape: BM.GPU.L40S.4 is not a shape Oracle "
                                                "lists"),
])
def test_placement_mistakes_exit_2(tmp_path, capsys, edit, expected):
    assert run_cli(tmp_path, edit) == 2
    err = capsys.readouterr()
    assert expected in err.err and "Traceback" not in err.err and err.out == ""


def test_each_placement_mistake_is_exactly_one_problem():
    assert problems(gpu(RAW, "faultDomains", ["FAULT-DOMAIN-1"])) == [
        "oke-rdma:nodePools.gpu.faultDomains: must be empty for a node pool in a Compute Cluster (OCI places nodes "
        "itself); remove it"]
    basic = edited(edited(RAW, "cluster", ("type",), "BASIC_CLUSTER"), "cluster", ("oidc",), None, delete=True)
    basic = without_tenant_keys(basic, "serviceAccounts", "members")  # Workload Identity, OIDC: enhanced only
    assert len(problems(basic)) == 1
    vm = gpu(gpu(gpu(RAW, "shape", "VM.Standard.E5.Flex"), "ocpus", 8), "memoryGb", 64)
    assert len(problems(vm)) == 1


def test_a_vm_shape_is_refused_even_with_the_override():
    raw = gpu(gpu(gpu(RAW, "shape", "VM.GPU.A10.1"), "allowUnlistedRdmaShape", True), "maxPodsPerNode", 31)
    assert problems(raw) == [
        "oke-rdma:nodePools.gpu.shape: VM.GPU.A10.1 is a VM shape; Compute Clusters hold bare metal instances only "
        "(BM.GPU.A100-v2.8, BM.GPU.B200.8, BM.GPU.B300.8, BM.GPU.B4.8, BM.GPU.GB200-v2.4, BM.GPU.GB200-v3.4, "
        "BM.GPU.GB200.4, BM.GPU.GB300.4, BM.GPU.H100.8, BM.GPU.H200.8, BM.GPU.RTXPRO.8, BM.GPU4.8, BM.HPC2.36, "
        "BM.Optimized3.36); pick one of those or set rdma: false"]  # no AMD shape: the platform refuses them


def test_unlisted_bare_metal_shape_with_the_override_previews_with_a_warning(tmp_path, capsys):
    """The config override passes the config gate with a warning; the policy pack is a second, independent gate
    (rdma-node-pool-placement's allowedShapes), so the shape must be allowed there too."""
    def edit(cfg):
        _pool(cfg, shape="BM.GPU.L40S.4", allowUnlistedRdmaShape=True, gpusPerNode=4, size=4)  # 16 GPUs
    assert run_cli(tmp_path, edit) == 1  # the pack's default allowedShapes is Oracle's list
    assert "BM.GPU.L40S.4" in capsys.readouterr().out
    policy = tmp_path / "policy.json"
    allowed = ["BM.GPU.H100.8", "BM.GPU.L40S.4"]
    policy.write_text(json.dumps({"rdma-node-pool-placement": {"allowedShapes": allowed}}))
    (tmp_path / "none.json").write_text("{}")
    assert run_cli(tmp_path, edit, "--policy-pack", "policies/security", "--policy-config", str(tmp_path / "none.json"),
                   "--policy-pack", "policies/placement", "--policy-config", str(policy)) == 0
    out = " ".join(capsys.readouterr().out.split())  # diagnostics wrap at the terminal's width
    assert "Diagnostics:" in out
    assert ("warning: oke-rdma:nodePools.gpu.allowUnlistedRdmaShape: BM.GPU.L40S.4 is not on Oracle's list of shapes "
            "for RDMA in Compute Clusters") in out


@pytest.mark.parametrize("pool, value, expected", [
    ("system", True, "has no effect because the pool is not an RDMA pool"),
    ("gpu", True, "has no effect because BM.GPU.H100.8 is on Oracle's list"),
])
def test_the_override_is_refused_where_it_does_nothing(pool, value, expected):
    raw = edited(RAW, "nodePools", (pool, "allowUnlistedRdmaShape"), value)
    assert problems(raw) == [f"oke-rdma:nodePools.{pool}.allowUnlistedRdmaShape: {expected}; remove it"]


def test_preemptible_is_fine_outside_the_compute_cluster():
    cfg = load_stack_config(edited(RAW, "nodePools", ("system", "preemptible"), {"preserveBootVolume": True}))
    assert cfg.node_pools["system"].preemptible.preserve_boot_volume is True


# --- pool names ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["GPU", "gpu_pool", "-gpu", "g" * 64, "gpu.a"])
def test_pool_names_must_be_label_values_and_object_names(name):
    raw = dict(RAW)
    pools = json.loads(raw["oke-rdma:nodePools"])
    pools[name] = pools.pop("gpu")
    raw["oke-rdma:nodePools"] = json.dumps(pools)
    shown = f'["{name}"]' if "." in name else f".{name}"  # a key with dots is a quoted index in a key path
    assert any(p.startswith(f"oke-rdma:nodePools{shown}: the pool name") and "okerdma.io/node-pool label value" in p and "DNS-1123 label" in p
               for p in problems(raw))


def test_a_pool_name_given_twice_exits_2(tmp_path, capsys):
    text = (ROOT / "Pulumi.dev.yaml").read_text()
    start = text.index("    gpu:\n")
    end = text.index("  oke-rdma:storage:")
    path = tmp_path / "Pulumi.dup.yaml"
    path.write_text(text[:end] + text[start:end] + text[end:])  # the gpu pool twice
    assert preview.main(["--config-file", str(path)]) == 2
    err = capsys.readouterr().err
    assert 'mapping key "gpu" already defined at line' in err and "keep one of them" in err
    assert "Traceback" not in err


# --- versions, eviction, cycling, IMDS, CNI, cluster options --------------------------------------------------------
def test_pool_version_defaults_to_the_cluster_and_respects_the_skew_policy():
    assert load_stack_config(RAW).node_pools["gpu"].kubernetes_version is None
    assert load_stack_config(gpu(RAW, "kubernetesVersion", "v1.33.1")).node_pools["gpu"].kubernetes_version
    assert problems(gpu(RAW, "kubernetesVersion", "v1.36.1")) == [
        "oke-rdma:nodePools.gpu.kubernetesVersion: v1.36.1 is newer than the cluster's v1.35.2; worker nodes must "
        "not run a newer Kubernetes than the control plane: use v1.35.2 or older, or remove it"]
    assert "more than 3 minor versions older" in problems(gpu(RAW, "kubernetesVersion", "v1.30.9"))[0]
    assert "must be an OKE Kubernetes version" in problems(gpu(RAW, "kubernetesVersion", "1.34"))[0]


@pytest.mark.parametrize("value, expected", [
    ({"graceDuration": "PT61M"}, "from PT0M to PT60M"),
    ({"graceDuration": "1h"}, "from PT0M to PT60M"),
    ({"forceDelete": True}, "unknown key; valid keys here: graceDuration, forceActionAfterGraceDuration"),
])
def test_eviction_settings_are_checked(value, expected):
    assert expected in problems(gpu(RAW, "eviction", value))[0]


@pytest.mark.parametrize("given, sent", [("PT0M", "PT0S"), ("PT0S", "PT0S"), ("PT00M", "PT0S"), ("PT05M", "PT5M"),
                                         ("PT30M", "PT30M"), ("PT60M", "PT60M")])
def test_eviction_grace_duration_is_held_in_the_form_oci_returns(given, sent):
    """OCI answers PT0S for a zero grace duration (and writes minutes without leading zeros): the program sends that
    form, so a refresh never shows a change to PT0M that nothing can apply."""
    cfg = load_stack_config(gpu(RAW, "eviction", {"graceDuration": given}))
    assert cfg.node_pools["gpu"].eviction.grace_duration == sent


@pytest.mark.parametrize("raw_edit, expected", [
    (lambda r: gpu(r, "cycling", {"enabled": True, "maxSurge": "0", "maxUnavailable": "0%"}),
     "oke-rdma:nodePools.gpu.cycling: maxSurge and maxUnavailable are both 0"),
    (lambda r: gpu(r, "cycling", {"enabled": True, "maxSurge": "3"}),
     "oke-rdma:nodePools.gpu.cycling.maxSurge: 3 nodes is more than the pool's size 2"),
    (lambda r: gpu(r, "cycling", {"maxSurge": "150%"}), "a percentage like \"25%\" (0-100%)"),
    (lambda r: gpu(r, "cycling", {"maxSurge": True}),
     "oke-rdma:nodePools.gpu.cycling.maxSurge: expected text, got the boolean true; quoting it is not enough, as text "
     "'true' is refused too: must be a node count like \"1\" or a percentage like \"25%\""),
    (lambda r: gpu(edited(r, "cluster", ("type",), "BASIC_CLUSTER"), "cycling", {"enabled": True}),
     "oke-rdma:nodePools.gpu.cycling.enabled: node cycling needs an ENHANCED_CLUSTER"),
])
def test_cycling_settings_are_checked(raw_edit, expected):
    assert any(expected in p for p in problems(raw_edit(RAW)))


def test_oidc_discovery_needs_an_enhanced_cluster():
    raw = edited(edited(RAW, "cluster", ("type",), "BASIC_CLUSTER"), "cluster", ("openIdConnectDiscovery",), True)
    raw = gpu(raw, "rdma", False)  # a basic cluster cannot host the RDMA pool either
    raw = without_tenant_keys(raw, "serviceAccounts", "quota", "members")  # nor Workload Identity, GPU quotas
    raw = edited(raw, "cluster", ("oidc",), None, delete=True)  # nor OIDC sign-in
    assert problems(raw) == [
        "oke-rdma:cluster.openIdConnectDiscovery: OIDC discovery needs an ENHANCED_CLUSTER (OKE docs, OpenID Connect "
        "Discovery); set cluster.type: ENHANCED_CLUSTER or remove it"]


def test_max_pods_per_node_is_refused_with_flannel():
    raw = edited(RAW, "cluster", ("cniType",), "FLANNEL_OVERLAY")
    raw = edited(raw, "platform", ("cilium", "enabled"), False)  # Cilium chains onto the VCN-native CNI only
    raw = {k: v for k, v in raw.items() if k != "oke-rdma:tenants"}  # flannel voids the tenants' walls
    assert sorted(problems(raw)) == [
        f"oke-rdma:nodePools.{name}.maxPodsPerNode: applies only to VCN-native pod networking (OCI_VCN_IP_NATIVE), "
        "but cluster.cniType is FLANNEL_OVERLAY; remove it" for name in ("gpu", "system")]
    for name in ("gpu", "system"):
        raw = edited(raw, "nodePools", (name, "maxPodsPerNode"), None, delete=True)
    assert load_stack_config(raw).cluster.cni_type == "FLANNEL_OVERLAY"


def test_flannel_is_refused_while_the_stack_has_tenants():
    """Flannel overlay sends pods out with their node's address: the exports and storage rules that admit only the
    workers, and Cilium's walls, then tell no tenant apart; refused with any tenant (shared storage or not)."""
    raw = flannel(RAW)
    assert load_stack_config(raw).cluster.cni_type == "FLANNEL_OVERLAY"  # no tenants: accepted
    for tenants in (RAW["oke-rdma:tenants"], json.dumps({"solo": {}})):
        found = problems({**raw, "oke-rdma:tenants": tenants})
        assert [p for p in found if p.startswith("oke-rdma:cluster.cniType:")] == [next(
            p for p in found if p.startswith("oke-rdma:cluster.cniType: FLANNEL_OVERLAY sends every pod out with its "
                                             "node's address"))], found
        assert any("set cluster.cniType OCI_VCN_IP_NATIVE" in p for p in found)


def test_cluster_keys_must_be_vault_key_ocids():
    cfg = load_stack_config(edited(edited(RAW, "cluster", ("kmsKeyId",), KEY), "cluster",
                                   ("imageVerificationKeyIds",), [KEY]))
    assert cfg.cluster.kms_key_ids == (KEY,)  # the same key for both: one statement
    assert problems(edited(RAW, "cluster", ("kmsKeyId",), "ocid1.vault.oc1..x"))[0].startswith(
        "oke-rdma:cluster.kmsKeyId: expected the OCID of a key (ocid1.key.…), got the OCID of a vault")
    assert "lists a key twice" in problems(edited(RAW, "cluster", ("imageVerificationKeyIds",), [KEY, KEY]))[0]
    assert problems(edited(RAW, "cluster", ("type",), "enhanced"))[0].startswith(
        "oke-rdma:cluster.type: expected one of 'ENHANCED_CLUSTER' or 'BASIC_CLUSTER', got the text 'enhanced'")


# --- three GPU pools (two RDMA, one plain GPU) and one CPU pool preview cleanly ---------------------------------------
def test_dev_variant_with_three_gpu_pools_and_one_cpu_pool_previews_clean(tmp_path, capsys):
    raw, _ = preview.read_stack_file(VARIANT)
    cfg = load_stack_config(raw)
    gpu_pools = {n for n, p in cfg.node_pools.items() if p.shape.split(".")[1].startswith("GPU")}
    assert gpu_pools == {"h100", "a100", "inference"} and set(cfg.rdma_pools) == {"h100", "a100"}
    assert set(cfg.node_pools) - gpu_pools == {"system"}
    plan = tmp_path / "plan.json"
    assert preview.main(["--config-file", str(VARIANT), "--json", str(plan)]) == 0
    out = capsys.readouterr().out
    # the variant's pools no tenant's GPU quota reaches are named as idle (its plain inference pool too, which no
    # tenant can use), its RDMA tenant shares GPU nodes, its older Kueue pin names the bugs it accepted, the KEDA
    # pin its unfixed one, and its two RDMA shapes in one Compute Cluster
    said = " ".join(out.split())  # diagnostics wrap at the terminal's width
    warnings = said.split("warning: ")[1:]
    assert "no violations" in out and warnings and all(
        "in no tenant's Kueue quota" in w or "shares GPU nodes" in w or "kueue 0.18.2 has kubernetes-sigs/kueue#" in w
        or "keda 2.20.2 has kedacore/keda#7700 (unfixed" in w
        or w.startswith("oke-rdma:nodePools.inference: a plain GPU pool")
        or w.startswith("oke-rdma:nodePools.h100.shape (BM.GPU.H100.8): RDMA pools of different shapes share")
        or w.startswith("oke-rdma:platform.gpuOperator.version: v25.10.1 is on") for w in warnings)
    # its two RDMA shapes share the stack's one Compute Cluster: OCI places them together only in some regions
    assert any("RDMA pools of different shapes share the one Compute Cluster with a100" in w for w in warnings)
    # its GPU Operator pin is on a line NVIDIA no longer supports: said, and accepted
    assert any("25.10.x line, which is end of support" in w for w in warnings)
    assert any(w.startswith("oke-rdma:nodePools.inference: a plain GPU pool") for w in warnings)
    doc = yaml.safe_load(plan.read_text())
    pools = {r["name"]: r["inputs"] for r in doc["resources"] if r["type"] == "oci:ContainerEngine/nodePool:NodePool"}
    assert set(pools) == {"okerdma-dev-system", "okerdma-dev-h100", "okerdma-dev-a100", "okerdma-dev-inference"}
    assert pools["okerdma-dev-a100"]["kubernetesVersion"] == "v1.34.2"
    assert pools["okerdma-dev-h100"]["kubernetesVersion"] == "v1.35.2"
    assert all("computeClusterId" in pools[f"okerdma-dev-{n}"]["nodeConfigDetails"] for n in ("h100", "a100"))
    assert "computeClusterId" not in pools["okerdma-dev-inference"]["nodeConfigDetails"]
    assert pools["okerdma-dev-inference"]["nodeConfigDetails"]["placementConfigs"][0]["preemptibleNodeConfig"] == {
        "preemptionAction": {"type": "TERMINATE", "isPreserveBootVolume": False}}


def test_an_unknown_shape_needs_gpus_per_node_for_the_tenants_gpu_quotas():
    raw = gpu(gpu(RAW, "shape", "BM.GPU3.8"), "allowUnlistedRdmaShape", True)
    assert problems(raw) == [
        "oke-rdma:nodePools.gpu.gpusPerNode: unset, and the GPUs per node of shape BM.GPU3.8 (did you mean "
        "BM.GPU4.8?) are unknown, so the GPU quotas it serves (tenants.analytics.quota.gpu, "
        "tenants.research.quota.gpu) cannot be checked; set it"]
    cfg = load_stack_config(gpu(gpu(raw, "gpusPerNode", 4), "size", 4))  # 4 × 4 GPUs: the 16 of the quota
    assert cfg.node_pools["gpu"].gpus == 4 and cfg.node_pools["system"].gpus is None
    assert load_stack_config(RAW).node_pools["gpu"].gpus == 8  # BM.GPU.H100.8 from the table
