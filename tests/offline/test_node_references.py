"""A change that removes something the existing nodes of a node pool still reference is named under "Node pools
updated in place", with the consequence and the fix (cycle first, or keep the old object until then); a placement
change says existing nodes stay where they are."""
from __future__ import annotations

from types import SimpleNamespace

from offline.node_references import dangling_references
from offline.replacement import Change
from offline.report import node_pool_block

POOL = "urn:pulumi:s::oke-rdma::oci:ContainerEngine/nodePool:NodePool::eval"
GPU_OP = "urn:pulumi:s::oke-rdma::kubernetes:helm.sh/v3:Release::gpu-operator"
NSG = "urn:pulumi:s::oke-rdma::oci:Core/networkSecurityGroup:NetworkSecurityGroup::old-nsg"
NODEPOOL = "oci:ContainerEngine/nodePool:NodePool"


def _pool(label: str, nsgs=("ocid1.nsg.a",), fds=("FAULT-DOMAIN-1",)) -> dict:
    return {"initialNodeLabels": [{"key": "nvidia.com/device-plugin.config", "value": label}],
            "nodeConfigDetails": {"nsgIds": list(nsgs), "placementConfigs": [{"faultDomains": list(fds)}]}}


def _release(*configs: str) -> dict:
    return {"values": {"devicePlugin": {"config": {"data": {c: "..." for c in configs}}}}}


def _plan(old_label, new_label, old_configs, new_configs, release_changed):
    changes = [Change(POOL, NODEPOOL, "eval", "update", changed=("initialNodeLabels[0].value",)),
               Change(GPU_OP, "kubernetes:helm.sh/v3:Release", "gpu-operator", "update", changed=release_changed)]
    before = {POOL: _pool(old_label), GPU_OP: _release(*old_configs)}
    now = {POOL: _pool(new_label), GPU_OP: _release(*new_configs)}
    return changes, before, now


def test_a_removed_device_plugin_config_old_nodes_still_name_is_said_with_its_fix():
    """Replicas 4 → 2: the old nodes keep time-slicing-4, which the release's config map loses."""
    changes, before, now = _plan("time-slicing-4", "time-slicing-2", ["time-slicing-4"], ["time-slicing-2"],
                                 ("values.devicePlugin.config.data.time-slicing-2",
                                  "values.devicePlugin.config.data.time-slicing-4"))
    (ref,) = dangling_references(changes[0], changes, before, now, {})
    assert "nvidia.com/device-plugin.config=time-slicing-4" in ref and "data.time-slicing-4" in ref
    run = SimpleNamespace(resources=[SimpleNamespace(urn=u, inputs=i) for u, i in now.items()])
    block = node_pool_block(changes, run, {"resources": [{"urn": u, "inputs": i} for u, i in before.items()]})
    assert any("cycle the pool first" in line for line in block)


def test_a_config_kept_alongside_the_new_one_is_not_named():
    """The old config kept until the nodes are cycled: nothing dangles."""
    changes, before, now = _plan("time-slicing-4", "time-slicing-2", ["time-slicing-4"],
                                 ["time-slicing-4", "time-slicing-2"], ("values.devicePlugin.config.data.time-slicing-2",))
    assert dangling_references(changes[0], changes, before, now, {}) == []


def test_an_nsg_the_old_nodes_sit_in_that_the_plan_deletes_is_named():
    """Nodes moved to another NSG while the old one is deleted: its VNICs are still the old nodes'."""
    changes = [Change(POOL, NODEPOOL, "eval", "update", changed=("nodeConfigDetails.nsgIds[0]",)),
               Change(NSG, "oci:Core/networkSecurityGroup:NetworkSecurityGroup", "old-nsg", "delete")]
    before, now = {POOL: _pool("x", nsgs=["ocid1.nsg.old"])}, {POOL: _pool("x", nsgs=["ocid1.nsg.new"])}
    (ref,) = dangling_references(changes[0], changes, before, now, {NSG: "ocid1.nsg.old"})
    assert "NSG old-nsg" in ref and "refuses to delete" in ref
    assert dangling_references(changes[0], changes, before, now, {NSG: "ocid1.nsg.other"}) == []


def test_a_fault_domain_change_is_listed_as_applying_to_new_nodes_only():
    """placementConfigs (fault domains, ADs) reach new nodes only: listed with that consequence."""
    changes = [Change(POOL, NODEPOOL, "eval", "update", changed=("nodeConfigDetails.placementConfigs[0].faultDomains",))]
    run = SimpleNamespace(resources=[SimpleNamespace(urn=POOL, inputs=_pool("x", fds=["FAULT-DOMAIN-2"]))])
    block = node_pool_block(changes, run)
    assert any("existing nodes stay in their fault domains" in line for line in block), block
