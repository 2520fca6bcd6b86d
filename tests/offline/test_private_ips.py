"""--previous and the mount target's private IP: an existing private IP keeps its address when its subnet's CIDR
changes (the persistent volumes naming it stay as they are); a replaced subnet replaces the mount target, whose new
IP is unknown, and the volumes follow. The address comes from the previous plan's ``privateIps`` (or, for a plan
written without them, from the subnet CIDR that plan declared)."""

from __future__ import annotations

import json

import pytest

from offline.replacement import check_plan
from tests.offline.plans import dev_plan

PV = "kubernetes:core/v1:PersistentVolume"
MT = "oci:FileStorage/mountTarget:MountTarget"


def _network(**values):
    def edit(config):
        config["oke-rdma:network"].update(values)
    return edit


def _addresses(plan: dict) -> set[str]:
    """The mount target address each persistent volume's CSI volume handle names (``<fs>:<ip>:<path>``), or
    ``[unknown]`` for a handle that is unknown as a whole."""
    handles = [r["inputs"]["spec"]["csi"]["volumeHandle"] for r in plan["resources"] if r["type"] == PV]
    return {h.split(":")[1] if h != "[unknown]" else h for h in handles}


def _change(plan: dict, typ: str) -> list[dict]:
    return [c for c in plan["changes"] if c["type"] == typ]


@pytest.fixture(scope="module")
def before(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("before")
    code, plan = dev_plan(tmp, "before.json")
    assert code == 0
    return tmp / "before.json", plan


def test_a_vcn_cidr_change_keeps_the_mount_target_ip_and_the_volumes(tmp_path, before):
    """vcnCidr 10.0.0.0/16 → 10.1.0.0/16 updates the subnets in place: the mount target and its private IP exist,
    so the volumes keep naming the previous address and are not replaced; the plan keeps the address."""
    path, old = before
    assert old["privateIps"] and _addresses(old) == set(old["privateIps"].values()) == {"10.0.3.10"}
    code, new = dev_plan(tmp_path, "after.json", _network(vcnCidr="10.1.0.0/16"), "--previous", str(path))
    assert code == 0
    storage = next(c for c in _change(new, "oci:Core/subnet:Subnet") if c["name"].endswith("-storage"))
    assert (storage["op"], storage["changed"]) == ("update", ["cidrBlock"])
    assert [c["op"] for c in _change(new, MT)] == ["same"]
    assert {c["op"] for c in _change(new, PV)} == {"same"}
    assert _addresses(new) == {"10.0.3.10"} and new["privateIps"] == old["privateIps"]

    again, third = dev_plan(tmp_path, "third.json", _network(vcnCidr="10.1.0.0/16"), "--previous",
                            str(tmp_path / "after.json"))
    assert again == 0 and {c["op"] for c in third["changes"]} == {"same"}  # chained: still the same address
    assert _addresses(third) == {"10.0.3.10"}


def test_a_replaced_subnet_replaces_the_mount_target_and_its_ip_is_unknown(tmp_path, before):
    """A new dnsLabel replaces the VCN, so its subnets and the mount target: the new private IP is unknown until it
    exists, nothing is recorded for it, and every volume naming it is replaced."""
    path, _ = before
    code, new = dev_plan(tmp_path, "after.json", _network(vcnCidr="10.1.0.0/16", dnsLabel="okerdmadev2"),
                         "--previous", str(path))
    assert code == 0
    [mt] = _change(new, MT)
    assert mt["op"] == "replace" and mt["replaceBecause"] == ["subnetId"]
    assert {c["op"] for c in _change(new, PV)} == {"replace"}
    assert new["privateIps"] == {}
    assert _addresses(new) == {"[unknown]"}


def test_a_plan_without_private_ips_answers_from_its_subnet_cidr(tmp_path, before):
    """A previous plan written before plans recorded ``privateIps``: the address is the one the offline engine gave
    the mount target from the storage subnet's CIDR in that plan."""
    path, old = before
    doc = json.loads(path.read_text())
    del doc["privateIps"]
    legacy = tmp_path / "legacy.json"
    legacy.write_text(json.dumps(doc))
    code, new = dev_plan(tmp_path, "after.json", _network(vcnCidr="10.1.0.0/16"), "--previous", str(legacy))
    assert code == 0 and {c["op"] for c in _change(new, PV)} == {"same"}
    assert new["privateIps"] == old["privateIps"]


@pytest.mark.parametrize("value,message", [
    ([], "privateIps: expected an object"),
    ({"ocid1.privateip.oc1..x": "10.0.3.300"}, "privateIps.ocid1.privateip.oc1..x: expected an IP address"),
    ({"ocid1.privateip.oc1..x": 10}, "privateIps.ocid1.privateip.oc1..x: expected an IP address, got a number"),
])
def test_a_malformed_private_ips_entry_is_refused(value, message):
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        check_plan({"resources": [], "privateIps": value})


def test_a_malformed_private_ips_entry_exits_2_before_the_program_runs(tmp_path, capsys, before):
    path, _ = before
    doc = json.loads(path.read_text())
    doc["privateIps"] = {"ocid1.privateip.oc1..x": "[secret]"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    capsys.readouterr()
    code, _ = dev_plan(tmp_path, "after.json", None, "--previous", str(bad))
    assert code == 2
    assert "privateIps.ocid1.privateip.oc1..x: expected an IP address" in capsys.readouterr().err
