"""The UID wall on shared storage: no pod lowers the privileged-port floor, and FSS exports and Lustre squash
exceptions trust only node addresses (a pod's own client claims any UID from a privileged port)."""
from __future__ import annotations

import json

import pytest

from offline.policy_eval import evaluate
from policies.security import uid_wall
from policies.security.pack import PACK_NAME, POLICIES
from tests.policies.test_policies import U, res

POD = "kubernetes:core/v1:Pod"
EXPORT, LUSTRE = "oci:FileStorage/export:Export", "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"
SUBNET, NODE_POOL = "oci:Core/subnet:Subnet", "oci:ContainerEngine/nodePool:NodePool"
WORKERS, PODS = "10.0.16.0/20", "10.0.128.0/17"


def _pod(*sysctls, deployment=False):
    spec = {"containers": [{"name": "c", "image": "i"}],
            "securityContext": {"sysctls": [{"name": n, "value": v} for n, v in sysctls]}}
    if deployment:
        return "kubernetes:apps/v1:Deployment", {"spec": {"template": {"spec": spec}}}
    return POD, {"spec": spec}


@pytest.mark.parametrize("sysctls, deployment", [
    ((("net.ipv4.ip_unprivileged_port_start", "0"),), False),
    ((("net.ipv4.ip_unprivileged_port_start", "80"),), True),
    ((("net.ipv4.ip_local_port_range", "100 65000"),), False),
    ((("net.ipv4.ip_unprivileged_port_start", U),), False),
    ((("net.ipv4.ip_unprivileged_port_start", "low"),), False),
    (((U, "0"),), False)])
def test_a_pod_lowering_the_privileged_port_floor_is_refused(sysctls, deployment):
    type_, props = _pod(*sysctls, deployment=deployment)
    assert floor_violations(res(type_, "w", props))


@pytest.mark.parametrize("sysctls", [(), (("net.ipv4.ip_unprivileged_port_start", "1024"),),
                                     (("net.ipv4.ip_local_port_range", "32768\t60999"),),
                                     (("net.ipv4.tcp_syncookies", "1"), ("kernel.shm_rmid_forced", "0"))])
def test_other_sysctls_and_the_default_floor_pass(sysctls):
    assert not floor_violations(res(*_pod(*sysctls)[:1], "w", _pod(*sysctls)[1]))


def test_a_pod_inside_a_pod_list_is_judged_too():
    """Items of a *List resource are pods the stack makes the cluster hold (``with_derived``)."""
    _, pod = _pod(("net.ipv4.ip_unprivileged_port_start", "0"))
    item = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "apps"}, **pod}
    assert floor_violations(res("kubernetes:core/v1:PodList", "l", {"items": [item]}))
    item["spec"]["securityContext"]["sysctls"] = []
    assert not floor_violations(res("kubernetes:core/v1:PodList", "l", {"items": [item]}))


def floor_violations(*resources):
    cfg = {"all": "disabled", uid_wall.PORT_FLOOR: {"enforcementLevel": "mandatory"}}
    report = evaluate(POLICIES, list(resources), PACK_NAME, policy_config=cfg)
    return [v.message for v in report.violations if v.policy == uid_wall.PORT_FLOOR]


def violations(*resources, config=None):
    cfg = {"all": "disabled", uid_wall.STORAGE_WALL: {"enforcementLevel": "mandatory", **(config or {})}}
    report = evaluate(POLICIES, list(resources), PACK_NAME, policy_config=cfg)
    return [v.message for v in report.violations if v.policy == uid_wall.STORAGE_WALL]


def _network(workers=WORKERS, pods=PODS):
    w = res(SUBNET, "workers", {"cidrBlock": workers, "id": "ocid1.subnet.oc1..workers"})
    p = res(SUBNET, "pods", {"cidrBlock": pods, "id": "ocid1.subnet.oc1..pods"})
    pool = res(NODE_POOL, "pool", {"nodeConfigDetails": {
        "placementConfigs": [{"subnetId": "ocid1.subnet.oc1..workers"}],
        "nodePoolPodNetworkOptionDetails": {"podSubnetIds": ["ocid1.subnet.oc1..pods"]}}})
    return [w, p, pool]


def _export(source, squash="ROOT"):
    return res(EXPORT, "e", {"path": "/shared", "exportOptions": [
        {"source": source, "access": "READ_WRITE", "identitySquash": squash, "requirePrivilegedSourcePort": True}]})


def _lustre(*exceptions):
    return res(LUSTRE, "l", {"rootSquashConfiguration": {"identitySquash": "ROOT", "squashUid": "65534",
                                                         "squashGid": "65534", "clientExceptions": list(exceptions)}})


def _storage_class(source, squash):
    return res("kubernetes:storage.k8s.io/v1:StorageClass", "sc", {"provisioner": "fss.csi.oraclecloud.com",
                                                                    "parameters": {"exportOptions": json.dumps([
                                                                        {"source": source, "identitySquash": squash}])}})


@pytest.mark.parametrize("resources", [
    [*_network(), _export(PODS)],                            # the pods subnet, root squashed: any non-root UID
    [*_network(), _export("10.0.128.0/24")],                  # part of it
    [*_network(), _export("10.0.0.0/16")],                    # the whole VCN
    [*_network(), _storage_class(PODS, "ROOT")],
    [*_network(), _export("10.0.64.0/18", "NONE")],           # root unsquashed for a range that is not a node subnet
    [_export("10.0.64.0/18", "NONE")],                        # no node pool: nothing proves the range is nodes
    [*_network(), _export("10.0.64.0/18", U)],               # squash unknown: may be NONE
    [*_network(), _export(U, "NONE")],
    [*_network(), _lustre("10.0.0.0/16")],
    [*_network(), _lustre(PODS)],
    [_lustre("10.0.10.0/24")],
    [*_network(), _lustre(U)],
    [*_network(workers=WORKERS, pods=WORKERS), _export(WORKERS, "NONE")]])  # pods share the workers subnet
def test_storage_trusting_pods_or_unproven_ranges_is_refused(resources):
    assert violations(*resources)


@pytest.mark.parametrize("resources", [
    [*_network(), _export(WORKERS)], [*_network(), _export(WORKERS, "NONE")],
    [*_network(), _export("10.0.16.0/24", "NONE")], [_export("10.0.10.5/32", "NONE")],
    [_export("10.0.64.0/18")],                                # root squashed, no pod subnet known to overlap
    [*_network(), _lustre(WORKERS, "10.0.10.5/32")], [_lustre("10.0.10.5/32")], [*_network(), _lustre()],
    [*_network(), _storage_class(WORKERS, "ROOT")]])
def test_storage_trusting_only_nodes_passes(resources):
    assert not violations(*resources)


def test_pool_subnets_brought_by_ocid_pass_unless_external_resources_fail():
    pool = res(NODE_POOL, "pool", {"nodeConfigDetails": {"placementConfigs": [{"subnetId": "ocid1.subnet.oc1..ext"}]}})
    assert not violations(pool, _export("10.0.16.0/20", "NONE"))
    assert violations(pool, _export("10.0.16.0/20", "NONE"), config={"externalResources": "fail"})


NSG, NSG_RULE = "oci:Core/networkSecurityGroup:NetworkSecurityGroup", \
    "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"


def _nsg_stack(rule):
    workers, pods = _network()[:2]
    pool = res(NODE_POOL, "pool", {"nodeConfigDetails": {
        "placementConfigs": [{"subnetId": "ocid1.subnet.oc1..workers"}],
        "nodePoolPodNetworkOptionDetails": {"podSubnetIds": ["ocid1.subnet.oc1..pods"],
                                            "podNsgIds": ["ocid1.networksecuritygroup.oc1..pods"]}}})
    storage = res(NSG, "storage", {"id": "ocid1.networksecuritygroup.oc1..storage"})
    pod_nsg = res(NSG, "pods-nsg", {"id": "ocid1.networksecuritygroup.oc1..pods"})
    mt = res("oci:FileStorage/mountTarget:MountTarget", "mt", {"nsgIds": ["ocid1.networksecuritygroup.oc1..storage"]})
    return [workers, pods, pool, storage, pod_nsg, mt, res(NSG_RULE, "r", rule)]


def _rule(direction, on, peer, peer_type="CIDR_BLOCK"):
    key = "source" if direction == "INGRESS" else "destination"
    return {"direction": direction, "protocol": "6", "networkSecurityGroupId": on, key: peer,
            f"{key}Type": peer_type, "tcpOptions": {"destinationPortRange": {"min": 2048, "max": 2050}}}


STORAGE_ID, PODS_ID = "ocid1.networksecuritygroup.oc1..storage", "ocid1.networksecuritygroup.oc1..pods"


@pytest.mark.parametrize("rule", [_rule("INGRESS", STORAGE_ID, PODS), _rule("INGRESS", STORAGE_ID, "10.0.0.0/16"),
                                  _rule("INGRESS", STORAGE_ID, PODS_ID, "NETWORK_SECURITY_GROUP"),
                                  _rule("EGRESS", PODS_ID, STORAGE_ID, "NETWORK_SECURITY_GROUP")])
def test_nsg_rules_letting_pods_reach_a_mount_target_are_refused(rule):
    assert any("NSG rule 'r'" in m for m in violations(*_nsg_stack(rule)))


@pytest.mark.parametrize("rule", [_rule("INGRESS", STORAGE_ID, WORKERS),
                                  _rule("EGRESS", PODS_ID, "0.0.0.0/0"),
                                  _rule("INGRESS", PODS_ID, WORKERS)])
def test_nsg_rules_admitting_only_the_nodes_pass(rule):
    assert not violations(*_nsg_stack(rule))


def test_an_update_of_the_dev_stack_passes_and_a_pods_rule_to_its_storage_nsg_is_refused():
    """On an update every existing resource shows its id, so the node pools' subnets and pod NSG are matched: the
    platform's own exports and NSGs pass, and one rule admitting the pods' NSG to the storage NSG is refused. (In a
    first preview the ids are unknown: the pool's subnets cannot be told apart and the node-subnet test passes, as for
    subnets brought by OCID.)"""
    import dataclasses

    from offline.engine import run_program
    from tests.stackcfg import dev_raw_config

    run = run_program(dev_raw_config(), [], "dev")
    dev = [dataclasses.replace(r, outputs={**r.outputs, "id": run.ids[r.urn]}) if run.ids.get(r.urn) else r
           for r in run.resources]
    assert uid_wall.node_and_pod_networks([_as_policy(r) for r in dev])[1]  # the pods subnet is found
    assert not violations(*dev)
    ids = {r.name: r.outputs.get("id") for r in dev if r.type == NSG}
    storage = next(v for k, v in ids.items() if k.endswith("-storage-nsg"))
    pods = next(v for k, v in ids.items() if k.endswith("-pods-nsg"))
    bad = res(NSG_RULE, "r", _rule("INGRESS", storage, pods, "NETWORK_SECURITY_GROUP"))
    assert any("NSG rule 'r' admits pods" in m for m in violations(*dev, bad))
    wide = res(EXPORT, "e", {"exportOptions": [{"source": "10.0.0.0/16", "identitySquash": "ROOT"}]})
    assert any("overlaps a pod subnet" in m for m in violations(*dev, wide))


def _as_policy(r):
    """An engine registration as the rules see it (``resource_type``, ``props``)."""
    from types import SimpleNamespace
    return SimpleNamespace(resource_type=r.type, props=r.outputs, urn=r.urn, name=r.name, property_dependencies={})
