"""Growing storage is an in-place update end to end: a larger Lustre capacity updates the file system and the
volumes' capacity, a larger tenant share updates its volume, and no claim bound to a static volume is asked to
resize (the API server refuses that), including claims created by an earlier version whose request was the size."""

from __future__ import annotations

import copy
import json

import pytest

from tests.offline.plans import dev_plan

LUSTRE = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"
PV, PVC = "kubernetes:core/v1:PersistentVolume", "kubernetes:core/v1:PersistentVolumeClaim"


def _lustre(capacity: int):
    def edit(config: dict) -> None:
        config.setdefault("oke-rdma:storage", {})["lustre"] = {"capacityGb": capacity, "tenants": ["research"]}
    return edit


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The dev stack with a 31,200 GB Lustre file system for research: its plan, as the state later runs start from."""
    tmp = tmp_path_factory.mktemp("growth")
    code, plan = dev_plan(tmp, "base.json", _lustre(31200))
    assert code == 0 and plan is not None
    return tmp, plan


def _changes(plan: dict) -> dict[str, dict]:
    return {c["name"]: c for c in plan["changes"] if c["op"] != "same"}


def test_growing_lustre_updates_the_file_system_and_its_volumes_in_place(base, capsys):
    tmp, _ = base
    code, plan = dev_plan(tmp, "grown.json", _lustre(41600), "--previous", str(tmp / "base.json"))
    out = capsys.readouterr().out
    assert code == 0, out
    changed = _changes(plan)
    assert {c["op"] for c in changed.values()} == {"update"}, changed
    fs = next(c for c in changed.values() if c["type"] == LUSTRE)
    assert fs["changed"] == ["capacityInGbs"]
    volumes = [c for c in changed.values() if c["type"] == PV]
    assert volumes and all(c["changed"] == ["spec.capacity.storage"] for c in volumes)
    assert not [c for c in changed.values() if c["type"] == PVC]  # the claims' nominal request never moves
    assert "error:" not in out


def test_growing_a_tenant_share_updates_only_its_volume(base, capsys):
    tmp, _ = base

    def grow(config: dict) -> None:
        _lustre(31200)(config)
        config["oke-rdma:tenants"]["analytics"]["sharedStorage"]["capacity"] = "2Ti"

    code, plan = dev_plan(tmp, "share.json", grow, "--previous", str(tmp / "base.json"))
    assert code == 0, capsys.readouterr().out
    changed = _changes(plan)
    assert list(changed) == ["okerdma-dev-analytics-fss"] and changed["okerdma-dev-analytics-fss"]["op"] == "update"


def test_a_claim_created_with_the_size_as_its_request_is_left_alone(base, capsys):
    """A stack deployed before claims asked for a nominal size (request = the capacity): its claims keep their
    request (ignoreChanges), so neither the new nominal value (a decrease) nor a growth is sent to the API server."""
    tmp, plan = base
    old = copy.deepcopy(plan)
    claims = [r for r in old["resources"] if r["type"] == PVC and r["name"].endswith(("-shared", "-lustre-prepare"))]
    assert claims
    for r in claims:
        r["inputs"]["spec"]["resources"]["requests"]["storage"] = "500Gi"
        r["ignoreChanges"] = []
    (tmp / "old.json").write_text(json.dumps(old))
    code, grown = dev_plan(tmp, "old-grown.json", _lustre(41600), "--previous", str(tmp / "old.json"))
    out = capsys.readouterr().out
    assert code == 0, out
    assert not [c for c in _changes(grown).values() if c["type"] == PVC]


def test_shrinking_lustre_is_still_refused(base, capsys):
    """The control: OCI never shrinks a Lustre file system, so a lower capacity stays a refused change (exit 4)."""
    tmp, _ = base
    code, grown = dev_plan(tmp, "up.json", _lustre(41600), "--previous", str(tmp / "base.json"))
    assert code == 0
    code, _ = dev_plan(tmp, "down.json", _lustre(31200), "--previous", str(tmp / "up.json"))
    assert code == 4
    assert "capacityInGbs" in capsys.readouterr().out
