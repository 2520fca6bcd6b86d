"""A node pool updated in place on a node property (cloud-init for local NVMe, labels, image, ...) says what happens
to the nodes it has: without node cycling they keep the old value until replaced; with it they are replaced."""

from __future__ import annotations

from tests.offline.plans import dev_plan


def _nvme(config: dict) -> None:
    config["oke-rdma:nodePools"]["gpu"]["localNvme"] = {"enabled": True}


def _cycling(config: dict) -> None:
    config["oke-rdma:nodePools"]["gpu"]["cycling"] = {"enabled": True, "maxSurge": "1", "maxUnavailable": "0"}


def test_a_node_property_change_without_cycling_warns_that_existing_nodes_keep_the_old_one(tmp_path, capsys,
                                                                                          dev_plan_file):
    (tmp_path / "base.json").write_text(dev_plan_file[0].read_text())
    code, _ = dev_plan(tmp_path, "nvme.json", _nvme, "--previous", str(tmp_path / "base.json"))
    out = capsys.readouterr().out
    assert code == 0, out
    assert "Node pools updated in place" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("okerdma-dev-gpu:"))
    assert "nodeMetadata" in line and "existing nodes keep the old value" in line and "cycling.enabled" in line


def test_with_node_cycling_the_existing_nodes_are_replaced_and_an_unrelated_change_says_nothing(tmp_path, capsys):
    code, _ = dev_plan(tmp_path, "base.json", _cycling)
    assert code == 0
    capsys.readouterr()
    code, _ = dev_plan(tmp_path, "nvme.json", lambda c: (_cycling(c), _nvme(c)), "--previous",
                       str(tmp_path / "base.json"))
    out = capsys.readouterr().out
    assert code == 0, out
    line = next(x for x in out.splitlines() if x.strip().startswith("okerdma-dev-gpu:"))
    assert "node cycling replaces the existing nodes" in line
    capsys.readouterr()
    code, _ = dev_plan(tmp_path, "size.json", lambda c: (_cycling(c), c["oke-rdma:nodePools"]["gpu"].update(size=3)),
                       "--previous", str(tmp_path / "base.json"))
    assert code == 0 and "Node pools updated in place" not in capsys.readouterr().out
