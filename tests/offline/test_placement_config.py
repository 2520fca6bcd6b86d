"""The placement pack's policy config implied by the stack config: printed by ``offline.placement_config`` for the
Pulumi CLI, and used by the offline preview when no ``--policy-config`` is given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from offline.placement_config import main
from tests.inprocess import preview, run_main

ROOT = Path(__file__).resolve().parents[2]
IMAGE = "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaa7u2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4j6k8lgpub"


@pytest.fixture(scope="module")
def mig_stack(tmp_path_factory) -> Path:
    """The dev stack plus a MIG pool on BM.GPU.A100-v2.8 declared rdma: false."""
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    doc["config"]["oke-rdma:nodePools"]["mig"] = {"shape": "BM.GPU.A100-v2.8", "size": 1, "imageId": IMAGE,
                                                  "rdma": False, "gpuSharing": {"mode": "mig", "profile": "1g.10gb"}}
    path = tmp_path_factory.mktemp("mig") / "Pulumi.mig.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_the_command_prints_the_non_rdma_pools_on_rdma_shapes(mig_stack):
    """The MIG A100 pool is listed under the rule's allowedOutsideComputeCluster."""
    code, out, err = run_main(main, ["--config-file", str(mig_stack)])
    assert code == 0, err
    assert json.loads(out) == {"rdma-shape-in-compute-cluster": {"allowedOutsideComputeCluster": ["okerdma-dev-mig"]}}


def test_the_command_prints_nothing_for_the_dev_stack():
    """Every RDMA-capable pool of dev is RDMA: an empty policy config."""
    code, out, err = run_main(main, ["--stack", "dev"])
    assert (code, json.loads(out)) == (0, {}), err


def test_the_command_refuses_a_missing_stack_file(tmp_path):
    """A stack file that does not exist: exit 2, one line."""
    code, _, err = run_main(main, ["--config-file", str(tmp_path / "Pulumi.none.yaml")])
    assert code == 2 and err.startswith("error: ") and "Traceback" not in err


def test_the_preview_uses_the_implied_config_and_says_so(mig_stack):
    """Without --policy-config the MIG pool on an RDMA shape previews clean, with an info line naming it."""
    out = preview("--config-file", mig_stack, "--stack", "dev", "--details")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "allowedOutsideComputeCluster [okerdma-dev-mig]" in " ".join(out.stdout.split())


def test_the_preview_with_an_own_policy_config_derives_nothing_and_names_the_key(mig_stack, tmp_path):
    """A policy config of the user's own is taken as it is: the pool is refused with the key to set."""
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    out = preview("--config-file", mig_stack, "--stack", "dev", "--policy-config", empty, "--policy-config", empty)
    text = " ".join(out.stdout.split())
    assert out.returncode != 0
    assert "okerdma-dev-mig" in text and "allowedOutsideComputeCluster" in text and "rdma: false" in text
