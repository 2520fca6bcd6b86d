"""The offline mocks give a cluster's API endpoint (and its kubeconfig's server) an address of its control-plane
subnet, as OKE does, not a fixed one."""
from __future__ import annotations

import pytest

from offline.mocks import OciMocks


@pytest.mark.parametrize("cidr,address", [("10.40.0.0/28", "10.40.0.2"), ("172.16.8.0/29", "172.16.8.2")])
def test_the_endpoint_is_an_address_of_the_control_plane_subnet(cidr, address):
    mocks = OciMocks("uk-gov-london-1")
    mocks._computed("oci:Core/subnet:Subnet", "ocid1.subnet.cp", "cp", {"cidrBlock": cidr})
    out = mocks._computed("oci:ContainerEngine/cluster:Cluster", "ocid1.cluster.x", "oke",
                          {"endpointConfig": {"subnetId": "ocid1.subnet.cp"}})
    assert out["endpoints"][0]["privateEndpoint"] == f"{address}:6443"
    from types import SimpleNamespace
    kubeconfig, _ = mocks.call(SimpleNamespace(token="oci:ContainerEngine/getClusterKubeConfig:getClusterKubeConfig",
                                               args={"clusterId": "ocid1.cluster.x"}, provider=None))
    assert f"server: https://{address}:6443" in kubeconfig["content"]
