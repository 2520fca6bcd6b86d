"""Every documented pool kind (plain, RDMA, MIG, time-sliced, MPS) on every shape family: what the config check
accepts, the policy packs accept too on the policy config the stack implies (the preview's default), so a stack the
config passes is never stopped by a pack; a pool written by hand (not from ``nodePools``) is still refused."""

from __future__ import annotations

import json

import pytest

from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.config.fleet import MIG_GPU_OF_SHAPE, MIG_PROFILES
from oke_rdma.placement_allowances import ALLOWANCE_KEY, SHAPE_POLICY, placement_policy_config
from offline.engine import run_program
from offline.policy_eval import EngineResource, evaluate_packs
from policies import PACK_DIRS
from policies.placement import completeness
from tests.stackcfg import dev_raw_config

IMAGE = "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaa7u2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4j6k8lgpub"
#: One shape per family: NVIDIA RDMA bare metal (H100, A100 80 GB, A100 40 GB, GB200), NVIDIA without RDMA
#: (A10 VM, L40S bare metal), AMD RDMA (MI300X), CPU RDMA (HPC2).
SHAPES = ("BM.GPU.H100.8", "BM.GPU.A100-v2.8", "BM.GPU4.8", "BM.GPU.GB200.4", "VM.GPU.A10.2", "BM.GPU.L40S.4",
          "BM.GPU.MI300X.8", "BM.HPC2.36")
MPS = ("version: v1\nsharing:\n  mps:\n    renameByDefault: true\n    resources:\n    - name: nvidia.com/gpu\n"
       "      replicas: 2\n")


def _mig_profile(shape: str) -> str:
    gpu = MIG_GPU_OF_SHAPE.get(shape)
    return list(MIG_PROFILES[gpu])[0] if gpu else "1g.10gb"


def kind(name: str, shape: str) -> tuple[dict, dict]:
    """(the pool, other config overrides) of pool kind ``name`` on ``shape``."""
    pool = {"shape": shape, "size": 1, "imageId": IMAGE}
    if name == "rdma":
        return {**pool, "rdma": True}, {}
    if name == "mig":
        return {**pool, "gpuSharing": {"mode": "mig", "profile": _mig_profile(shape)}}, {}
    if name == "time-sliced":
        return {**pool, "gpuSharing": {"mode": "timeSlicing", "replicas": 4}}, {}
    if name == "mps":  # oke-rdma has no MPS mode: only through the GPU Operator's values, which the check refuses
        return pool, {"platform": {"gpuOperator": {"values": {"devicePlugin": {"config": {"data": {"exclusive": MPS}}}}}}}
    return pool, {}


KINDS = ("plain", "rdma", "mig", "time-sliced", "mps")


def _accepted() -> dict[str, dict]:
    out = {}
    for shape in SHAPES:
        for k in KINDS:
            pool, other = kind(k, shape)
            try:
                load_stack_config(dev_raw_config(nodePools={"extra": pool}, **other))
            except ConfigError:
                continue
            out[f"{k}-{shape.split('.', 1)[1].lower().replace('.', '-')}"[:30]] = pool
    return out


ACCEPTED = _accepted()


def test_the_walk_covers_accepted_and_refused_members_of_every_kind():
    """Each kind is accepted on some shape (the implication is not vacuous) and MPS is refused everywhere."""
    for k in ("plain", "rdma", "mig", "time-sliced"):
        assert any(name.startswith(k + "-") for name in ACCEPTED), k
    assert not any(name.startswith("mps-") for name in ACCEPTED)
    assert {"mig-gpu-a100-v2-8", "time-sliced-gpu-h100-8", "plain-gpu-l40s-4", "rdma-hpc2-36"} <= set(ACCEPTED)


@pytest.fixture(scope="module")
def walked():
    """One program run with every accepted pool at once (the config accepts them together too)."""
    raw = dev_raw_config(nodePools=ACCEPTED)
    config = load_stack_config(raw)
    return config, run_program(raw, [], "dev")


def test_config_accepted_pools_pass_both_packs_on_the_implied_policy_config(walked):
    """config-accept ⇒ packs-accept: no mandatory violation with the policy config the stack implies."""
    config, run = walked
    derived = placement_policy_config(config)
    configs = [derived if d.name == "placement" else None for d in PACK_DIRS]
    report = evaluate_packs(PACK_DIRS, run.resources, configs)
    assert report.mandatory == [], [v.message for v in report.mandatory]


def test_the_implied_allowance_is_exactly_the_non_rdma_pools_on_rdma_shapes(walked):
    """Listed: MIG/time-sliced/plain pools on Compute Cluster shapes; not listed: RDMA pools, non-RDMA shapes."""
    config, _ = walked
    names = set(placement_policy_config(config)[SHAPE_POLICY][ALLOWANCE_KEY])
    assert {"okerdma-dev-mig-gpu-a100-v2-8", "okerdma-dev-time-sliced-gpu-h100-8", "okerdma-dev-plain-gpu4-8"} <= names
    pools = {n.removeprefix("okerdma-dev-") for n in names}
    assert not any(p.startswith("rdma-") or "l40s" in p or "a10-2" in p for p in pools)
    assert "okerdma-dev-gpu" not in names  # the dev stack's RDMA pool


def test_without_the_implied_config_the_pack_refuses_and_names_the_key(walked):
    """On the pack's defaults the non-RDMA A100 pool is refused, and the message names the key to set."""
    _, run = walked
    report = evaluate_packs(PACK_DIRS, run.resources)
    refused = [v for v in report.mandatory if v.policy == SHAPE_POLICY]
    assert any("okerdma-dev-mig-gpu-a100-v2-8" in v.message for v in refused)
    assert all(ALLOWANCE_KEY in v.message and "rdma: false" in v.message for v in refused)


def test_the_dev_stack_implies_no_policy_config():
    """A stack whose RDMA-capable pools are all RDMA implies nothing: the packs run on their defaults."""
    assert placement_policy_config(load_stack_config(dev_raw_config())) is None


def test_a_hand_written_pool_is_not_allowed_by_the_implied_config(walked):
    """Fail closed: a node pool the stack config does not declare stays refused outside a Compute Cluster."""
    config, _ = walked
    derived = placement_policy_config(config)
    hand = EngineResource(urn="urn:pulumi:dev::oke-rdma::oci:ContainerEngine/nodePool:NodePool::hand-a100",
                          type="oci:ContainerEngine/nodePool:NodePool", name="hand-a100",
                          inputs={"nodeShape": "BM.GPU.A100-v2.8", "nodeConfigDetails": {"size": 1}})
    placement = [d for d in PACK_DIRS if d.name == "placement"]
    report = evaluate_packs(placement, [hand], [derived])
    assert [v.policy for v in report.mandatory] == [SHAPE_POLICY]


def test_the_allowance_names_match_the_placement_pack():
    """The program's copy of the rule name and config key equals the pack's."""
    assert SHAPE_POLICY == completeness.SHAPE_POLICY
    schema = completeness.rdma_shape_in_compute_cluster.config_schema.properties
    assert ALLOWANCE_KEY in schema
    assert json.dumps(schema[ALLOWANCE_KEY]["default"]) == "[]"
