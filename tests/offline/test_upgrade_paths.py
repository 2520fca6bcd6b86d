"""The upgrade and teardown paths of docs/operations.md, each previewed with --previous against the dev stack's plan:
exactly the resources each step should update or replace, and nothing else."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
import yaml

from offline import preview
from offline.engine import OciMocks

ROOT = Path(__file__).resolve().parents[2]
POOL, CLUSTER = "oci:ContainerEngine/nodePool:NodePool", "oci:ContainerEngine/cluster:Cluster"
JOB, RELEASE = "kubernetes:batch/v1:Job", "kubernetes:helm.sh/v3:Release"
MT = "oci:FileStorage/mountTarget:MountTarget"


def _ready_for_1_36(cfg):
    """The add-ons of the dev stack that Kubernetes 1.36 allows: the GPU Operator on 26.7 (NVIDIA validates 1.33–1.37),
    KEDA off (2.20 is tested up to 1.35; no KEDA tested on 1.36 is recorded)."""
    cfg["oke-rdma:platform"]["gpuOperator"]["version"] = "v26.7.0"
    cfg["oke-rdma:platform"]["keda"]["enabled"] = False


def _plan(tmp_path: Path, name: str, edit=None, previous: Path | None = None) -> tuple[dict, str]:
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    _ready_for_1_36(doc["config"])
    if edit:
        edit(doc["config"])
    cfg = tmp_path / f"{name}.yaml"
    cfg.write_text(yaml.safe_dump(doc))
    out = tmp_path / f"{name}.json"
    args = ["--config-file", str(cfg), "--json", str(out)] + (["--previous", str(previous)] if previous else [])
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = preview.main(args)
    assert code == 0, buffer.getvalue()
    return json.loads(out.read_text()), buffer.getvalue()


def _changes(plan: dict) -> dict[tuple[str, str], dict]:
    """(type, name) → change, for every resource that is not unchanged."""
    return {(c["type"], c["name"]): c for c in plan["changes"] if c["op"] != "same"}


def _pin_pools(cfg, version="v1.35.2"):
    for pool in cfg["oke-rdma:nodePools"].values():
        pool["kubernetesVersion"] = version


def _control_plane(cfg):
    cfg["oke-rdma:cluster"]["kubernetesVersion"] = "v1.36.1"
    _pin_pools(cfg)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("upgrade")
    _plan(tmp, "base")
    return tmp


def test_minor_upgrade_step_1_control_plane_only(base):
    """Pools pinned at the old version, the control plane one minor up: the cluster is updated in place; the pools
    stay; the readiness gates' kubectl (the cluster's version) are replaced and probe again."""
    pinned, _ = _plan(base, "pinned", _pin_pools, base / "base.json")
    assert _changes(pinned) == {}  # pinning the pools at the version they run changes nothing
    new, out = _plan(base, "step1", _control_plane, base / "pinned.json")
    changes = _changes(new)
    gates = {(JOB, "okerdma-dev-kueue-gate-job"), (JOB, "okerdma-dev-monitoring-gate-job"),
             (JOB, "okerdma-dev-walls-gate-job")}
    assert set(changes) == {(CLUSTER, "okerdma-dev-oke")} | gates
    assert changes[(CLUSTER, "okerdma-dev-oke")]["op"] == "update"
    assert changes[(CLUSTER, "okerdma-dev-oke")]["changed"] == ["kubernetesVersion"]
    assert all(changes[gate]["op"] == "replace" for gate in gates)


def test_minor_upgrade_step_2_pools_within_the_skew(base):
    """Then the pools, each with an image of the new version (OKE images are per version): each node pool is updated
    in place (new nodes get the version and image; no pool is replaced)."""
    def images(cfg):
        for pool in cfg["oke-rdma:nodePools"].values():
            pool["imageId"] = pool["imageId"][:-4] + "v136"
    _plan(base, "step1b", _control_plane, base / "base.json")
    new, _ = _plan(base, "step2", lambda c: (_control_plane(c), _pin_pools(c, "v1.36.1"), images(c)),
                   base / "step1b.json")
    changes = _changes(new)
    assert set(changes) == {(POOL, "okerdma-dev-system"), (POOL, "okerdma-dev-gpu")}
    for change in changes.values():
        assert change["op"] == "update" and "kubernetesVersion" in change["changed"]
        assert all(p == "kubernetesVersion" or p.startswith("nodeSourceDetails") for p in change["changed"])


def test_minor_upgrade_rdma_pool_cycling_without_surge(base):
    """Node cycling on the RDMA pool with no surge (a Compute Cluster may have no spare host): one node at a time
    is taken down and replaced; the pool itself is updated, never replaced."""
    def cycling(cfg):
        cfg["oke-rdma:nodePools"]["gpu"]["cycling"] = {"enabled": True, "maxSurge": 0, "maxUnavailable": 1}
    new, _ = _plan(base, "cycling", cycling, base / "base.json")
    changes = _changes(new)
    assert set(changes) == {(POOL, "okerdma-dev-gpu")}
    assert changes[(POOL, "okerdma-dev-gpu")]["op"] == "update"
    gpu = next(r for r in new["resources"] if r["name"] == "okerdma-dev-gpu" and r["type"] == POOL)
    details = gpu["inputs"]["nodePoolCyclingDetails"]
    assert details["isNodeCyclingEnabled"] is True
    assert (details["maximumSurge"], details["maximumUnavailable"]) == ("0", "1")


@pytest.mark.parametrize("key, version, release", [
    # Kueue and kube-prometheus-stack from yesterday's pins to today's: tests/offline/test_addon_upgrades.py
    ("gpuOperator", "v26.7.1", "okerdma-dev-gpu-operator"),
])
def test_chart_upgrade_updates_only_its_release(base, key, version, release):
    """A chart version bump updates its Helm release in place and nothing else (the CRDs move as docs/operations.md
    says per chart; the custom resources and their gate are unchanged)."""
    def bump(cfg):
        cfg["oke-rdma:platform"][key]["version"] = version
    new, _ = _plan(base, f"chart-{key}", bump, base / "base.json")
    changes = _changes(new)
    assert set(changes) == {(RELEASE, release)}
    assert changes[(RELEASE, release)]["op"] == "update" and "version" in changes[(RELEASE, release)]["changed"]


def test_teardown_preparation_unprotects_and_downgrades(base, monkeypatch):
    """Before pulumi destroy: the mount target (running at 20 Gbps) goes back to 1 Gbps in place and the file system
    loses its protection; nothing is replaced or deleted by this step."""
    monkeypatch.setattr(OciMocks, "EXISTING_MOUNT_TARGETS", {"okerdma-dev-fss-mt": "20"})

    def high(cfg):
        cfg["oke-rdma:storage"]["fss"]["throughputGbps"] = 20
    _plan(base, "hp", high)

    def teardown(cfg):
        cfg["oke-rdma:storage"]["fss"]["throughputGbps"] = 1
        cfg["oke-rdma:storage"]["fss"]["protect"] = False
    new, out = _plan(base, "teardown", teardown, base / "hp.json")
    changes = _changes(new)
    assert set(changes) == {(MT, "okerdma-dev-fss-mt")}
    assert changes[(MT, "okerdma-dev-fss-mt")]["op"] == "update"
    assert changes[(MT, "okerdma-dev-fss-mt")]["changed"] == ["requestedThroughput"]
    old = json.loads((base / "hp.json").read_text())
    fs = [r["protect"] for plan in (old, new) for r in plan["resources"]
          if r["name"] == "okerdma-dev-fss" and r["type"] == "oci:FileStorage/fileSystem:FileSystem"]
    assert fs == [True, False]
    assert "is NOT protected" in out
