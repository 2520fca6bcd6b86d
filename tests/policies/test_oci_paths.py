"""OCI paths around the exposure, data and node rules: a route through a private IP, a secondary VNIC in a subnet
the stack does not create, a file-system clone, a quota unset and a node pool's SSH key are refused; gateways, stack
subnets, empty file systems and zero/set quotas pass."""
from __future__ import annotations

import math

import pytest

from policies.security import oci_paths
from policies.security._rules import UNKNOWN, _port_range
from tests.policies.test_policies import U, call_resource_rule, messages, res, run

C = "ocid1.compartment.oc1..aaaaaaaacomp"
RT, PIP = "oci:Core/routeTable:RouteTable", "oci:Core/privateIp:PrivateIp"


def _route(target, deps=None):
    return res(RT, "rt", {"compartmentId": C, "vcnId": "v", "routeRules": [
        {"destination": "0.0.0.0/0", "destinationType": "CIDR_BLOCK", "networkEntityId": target}]}, deps=deps)


def test_a_route_to_a_private_ip_is_refused_by_ocid_or_by_dependency_and_a_gateway_passes():
    assert messages(run(_route("ocid1.privateip.oc1..host"), policy="route-no-private-ip-hop"),
                    "route-no-private-ip-hop")
    ip = res(PIP, "fwd", {"vnicId": "ocid1.vnic.oc1..x"})
    assert messages(run(ip, _route(U, {"routeRules": [ip]}), policy="route-no-private-ip-hop"),
                    "route-no-private-ip-hop")
    assert messages(run(_route("ocid1.natgateway.oc1..nat"), policy="route-no-private-ip-hop"),
                    "route-no-private-ip-hop") == []


def test_a_vnic_in_a_subnet_of_the_stack_passes_and_one_elsewhere_is_refused():
    sub = res("oci:Core/subnet:Subnet", "s", {"vcnId": "v", "cidrBlock": "10.0.1.0/24"})
    att = "oci:Core/vnicAttachment:VnicAttachment"
    own = res(att, "a", {"instanceId": "i", "createVnicDetails": {"subnetId": U}}, deps={"createVnicDetails": [sub]})
    other = res(att, "a", {"instanceId": "i", "createVnicDetails": {"subnetId": "ocid1.subnet.oc1..partner"}})
    assert messages(run(sub, own, policy="vnic-in-stack-subnet"), "vnic-in-stack-subnet") == []
    [message] = messages(run(other, policy="vnic-in-stack-subnet"), "vnic-in-stack-subnet")
    assert "ocid1.subnet.oc1..partner" in message


@pytest.mark.parametrize("snapshot, refused", [("ocid1.snapshot.oc1..s", True), (U, True), (None, False)])
def test_a_file_system_clone_is_refused_and_an_empty_one_passes(snapshot, refused):
    props = {"compartmentId": C, **({"sourceSnapshotId": snapshot} if snapshot else {})}
    assert bool(call_resource_rule(oci_paths.validate_fs_not_cloned, oci_paths.FILE_SYSTEM, props)) is refused


@pytest.mark.parametrize("statement, refused", [
    ("unset compute-core quota gpu-a100-count in compartment lab", True),
    ("Unset compute-core quotas in tenancy", True),
    ("raise compute-core quota gpu-a100-count in compartment lab", True),
    ("zero compute-core quotas in compartment lab", False),
    ("set compute-core quota gpu-a100-count to 8 in compartment lab", False),
])
def test_a_quota_statement_that_may_raise_is_refused(statement, refused):
    found = call_resource_rule(oci_paths.validate_quota_only_lowers, oci_paths.QUOTA, {"statements": [statement]})
    assert bool(found) is refused


def test_a_node_pool_ssh_key_is_refused():
    assert call_resource_rule(oci_paths.validate_node_pool_no_ssh_key, oci_paths.NODE_POOL,
                              {"sshPublicKey": "ssh-ed25519 AAAA k"})
    assert call_resource_rule(oci_paths.validate_node_pool_no_ssh_key, oci_paths.NODE_POOL, {"name": "p"}) == []


@pytest.mark.parametrize("lo, hi", [(math.nan, math.nan), (22, math.inf), (-math.inf, 22)])
def test_a_non_finite_port_is_no_port(lo, hi):
    assert _port_range(lo, hi) is UNKNOWN
    assert _port_range(22, 22) == (22, 22)
