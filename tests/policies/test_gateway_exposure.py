"""A Gateway of an internal class cannot re-point the load balancer its controller creates: infrastructure
annotations and labels copied onto the Service, an infrastructure parametersRef, requested addresses, and a
parametersRef on an internal GatewayClass are judged by ``no-public-endpoints``."""
from __future__ import annotations

import pytest

from policies.security.public_endpoints import GATEWAY_TYPES, problems_of
from policies.security._gateway import GATEWAY_CLASS_TYPES
from tests.policies.test_policies import proxied

CONFIG = {"internalIngressClasses": ["cilium"]}
INTERNAL = "service.beta.kubernetes.io/oci-load-balancer-internal"


def gateway(**spec):
    return list(problems_of(GATEWAY_TYPES[0], proxied({"spec": {"gatewayClassName": "cilium", **spec}}), CONFIG))


@pytest.mark.parametrize("spec", [
    {"infrastructure": {"annotations": {INTERNAL: "false"}}},
    {"infrastructure": {"annotations": {INTERNAL: "yes"}}},  # not a ParseBool true
    {"infrastructure": {"annotations": {"oci.oraclecloud.com/load-balancer-type": "nlb"}}},
    {"infrastructure": {"annotations": {"service.beta.kubernetes.io/oci-load-balancer-subnet1": "ocid1.subnet.x"}}},
    {"infrastructure": {"labels": {"service.kubernetes.io/service-proxy-name": "none"}}},
    {"infrastructure": {"labels": {"lbipam.cilium.io/sharing-key": "public"}}},
    {"infrastructure": {"parametersRef": {"group": "", "kind": "ConfigMap", "name": "lb"}}},
    {"infrastructure": {"annotations": ["not", "a", "map"]}},
    {"addresses": [{"type": "IPAddress", "value": "129.146.10.10"}]},
    {"addresses": [{"type": "NamedAddress", "value": "reserved-public"}]},
    {"addresses": [{"value": "not-an-ip"}]},
])
def test_a_gateway_that_re_points_its_load_balancer_is_refused(spec):
    assert gateway(**spec)


@pytest.mark.parametrize("spec", [
    {},
    {"infrastructure": {"annotations": {INTERNAL: "true", "example.com/team": "ml"}}},
    {"infrastructure": {"labels": {"example.com/team": "ml"}}},
    {"addresses": [{"type": "IPAddress", "value": "10.0.4.10"}]},
])
def test_a_gateway_that_keeps_its_class_settings_passes(spec):
    assert gateway(**spec) == []


def test_an_internal_gateway_class_with_parameters_is_refused():
    ref = {"group": "cilium.io", "kind": "CiliumGatewayClassConfig", "name": "public"}
    props = {"metadata": {"name": "cilium"}, "spec": {"controllerName": "io.cilium/gateway-controller",
                                                      "parametersRef": ref}}
    assert list(problems_of(GATEWAY_CLASS_TYPES[0], proxied(props), CONFIG))
    props["metadata"]["name"] = "other"  # its Gateways are refused for their class anyway
    assert list(problems_of(GATEWAY_CLASS_TYPES[0], proxied(props), CONFIG)) == []
    del props["spec"]["parametersRef"]
    props["metadata"]["name"] = "cilium"
    assert list(problems_of(GATEWAY_CLASS_TYPES[0], proxied(props), CONFIG)) == []
