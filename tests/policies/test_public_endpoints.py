"""Resources that face the internet: load balancers, network load balancers, LoadBalancer Services, Ingresses and
Gateways, public IPs, VNICs that get one, Service externalIPs and bastions."""
from __future__ import annotations

import pytest

from policies.security.public_endpoints import service_problems
from tests.policies.test_policies import U, messages, res, run

RULE = "no-public-endpoints"
LB, NLB = "oci:LoadBalancer/loadBalancer:LoadBalancer", "oci:NetworkLoadBalancer/networkLoadBalancer:NetworkLoadBalancer"
SVC = "kubernetes:core/v1:Service"
INTERNAL_LB = {"service.beta.kubernetes.io/oci-load-balancer-internal": "true"}
NLB_TYPE = {"oci.oraclecloud.com/load-balancer-type": "nlb"}
INTERNAL_NLB = {**NLB_TYPE, "oci-network-load-balancer.oraclecloud.com/internal": "true"}


def service(annotations=None, type_="LoadBalancer", **spec):
    return {"metadata": {"name": "s", "annotations": annotations or {}}, "spec": {"type": type_, **spec}}


def found(type_, props, config=None):
    return messages(run(res(type_, "x", props), policy=RULE), RULE)


@pytest.mark.parametrize("type_, props", [
    (LB, {"isPrivate": False, "shape": "flexible"}), (LB, {"shape": "flexible"}), (NLB, {"isPrivate": False}),
    (NLB, {}), (LB, {"isPrivate": U}),
    (SVC, service()), (SVC, service(INTERNAL_NLB | {"oci.oraclecloud.com/load-balancer-type": "lb"})),
    (SVC, service({**NLB_TYPE, **INTERNAL_LB})),  # the LB annotation does nothing for a network load balancer
    (SVC, service({"service.beta.kubernetes.io/oci-load-balancer-internal": "yes"})),  # ParseBool refuses "yes"
    (SVC, service({"oci.oraclecloud.com/load-balancer-type": "alb"})),
    (SVC, service(type_=U)), (SVC, service(type_="ClusterIP", externalIPs=["203.0.113.9"])),
    (SVC, service(INTERNAL_LB, loadBalancerClass="example.com/public-lb")),
    ("kubernetes:networking.k8s.io/v1:Ingress", {"spec": {"ingressClassName": "nginx"}}),
    ("kubernetes:networking.k8s.io/v1:Ingress", {"spec": {}}),
    ("kubernetes:gateway.networking.k8s.io/v1:Gateway", {"spec": {"gatewayClassName": "public"}}),
    ("oci:Core/publicIp:PublicIp", {"lifetime": "RESERVED", "compartmentId": "c"}),
    ("oci:Core/instance:Instance", {"createVnicDetails": {"assignPublicIp": "true", "subnetId": "s"}}),
    ("oci:Core/instance:Instance", {"createVnicDetails": {"subnetId": "s"}}),
    ("oci:Core/vnicAttachment:VnicAttachment", {"createVnicDetails": {"assignPublicIp": True}}),
    ("oci:Core/instanceConfiguration:InstanceConfiguration",
     {"instanceDetails": {"launchDetails": {"createVnicDetails": {"assignPublicIp": U}}}}),
    ("oci:Bastion/bastion:Bastion", {"clientCidrBlockAllowLists": ["0.0.0.0/0"]}),
    ("oci:Bastion/bastion:Bastion", {"clientCidrBlockAllowLists": [f"{i}.0.0.0/8" for i in (11, 12)]}),
    ("oci:Bastion/bastion:Bastion", {"clientCidrBlockAllowLists": ["::ffff:0.0.0.0/96"]}),
    ("oci:ObjectStorage/bucket:Bucket", {"accessType": "ObjectRead"}),
    ("oci:ObjectStorage/bucket:Bucket", {"accessType": "ObjectReadWithoutList"}),
    ("oci:ObjectStorage/bucket:Bucket", {"accessType": U}),
    ("oci:ObjectStorage/preauthrequest:Preauthrequest", {"accessType": "ObjectRead", "bucket": "b"}),
    ("oci:ApiGateway/gateway:Gateway", {"endpointType": "PUBLIC"}), ("oci:ApiGateway/gateway:Gateway", {}),
    ("oci:Database/autonomousDatabase:AutonomousDatabase", {"dbName": "db"}),
    ("oci:Database/autonomousDatabase:AutonomousDatabase", {"isAccessControlEnabled": True, "whitelistedIps": ["0.0.0.0/0"]}),
    ("oci:Database/autonomousDatabase:AutonomousDatabase", {"isAccessControlEnabled": False, "whitelistedIps": ["198.51.100.0/24"]}),
    ("oci:Database/autonomousDatabase:AutonomousDatabase", {"isAccessControlEnabled": True, "whitelistedIps": [f"{i}.0.0.0/8" for i in (11, 12)]}),
])
def test_internet_facing_resources_are_refused(type_, props):
    assert len(found(type_, props)) == 1


@pytest.mark.parametrize("type_, props", [
    (LB, {"isPrivate": True}), (NLB, {"isPrivate": True}),
    (SVC, service(INTERNAL_LB)), (SVC, service({"service.beta.kubernetes.io/oci-load-balancer-internal": "T"})),
    (SVC, service(INTERNAL_NLB)), (SVC, service(type_="ClusterIP")), (SVC, service(type_="NodePort")),
    ("oci:Core/instance:Instance", {"createVnicDetails": {"assignPublicIp": "false"}}),
    ("oci:Core/vnicAttachment:VnicAttachment", {"createVnicDetails": {"assignPublicIp": False}}),
    ("oci:Bastion/bastion:Bastion", {"clientCidrBlockAllowLists": ["198.51.100.0/24", "10.0.0.0/8"]}),
    ("oci:ObjectStorage/bucket:Bucket", {"accessType": "NoPublicAccess"}), ("oci:ObjectStorage/bucket:Bucket", {}),
    ("oci:ApiGateway/gateway:Gateway", {"endpointType": "PRIVATE"}),
    ("oci:Database/autonomousDatabase:AutonomousDatabase", {"subnetId": "ocid1.subnet.oc1..s"}),
    ("oci:Database/autonomousDatabase:AutonomousDatabase", {"isAccessControlEnabled": True, "whitelistedIps": ["198.51.100.0/24", "ocid1.vcn.oc1..v"]}),
])
def test_private_resources_pass(type_, props):
    assert found(type_, props) == []


def test_policy_config_allows_public_load_balancers_and_internal_ingress_classes():
    assert service_problems(service(), True) == []
    from policies.security.public_endpoints import problems_of
    ingress = {"spec": {"ingressClassName": "oci-internal"}}
    assert list(problems_of("kubernetes:networking.k8s.io/v1:Ingress", ingress,
                            {"internalIngressClasses": ["oci-internal"]})) == []
    assert list(problems_of(LB, {"isPrivate": False}, {"allowPublicLoadBalancers": True})) == []


@pytest.mark.parametrize("type_, props, bad", [
    ("oci:Core/instance:Instance", {"instanceOptions": {"areLegacyImdsEndpointsDisabled": True}}, False),
    ("oci:Core/instance:Instance", {}, True),
    ("oci:Core/instance:Instance", {"instanceOptions": {"areLegacyImdsEndpointsDisabled": U}}, True),
    ("oci:Core/instanceConfiguration:InstanceConfiguration",
     {"instanceDetails": {"launchDetails": {"instanceOptions": {"areLegacyImdsEndpointsDisabled": False}}}}, True),
])
def test_plain_instances_serve_metadata_over_imds_v2_only(type_, props, bad):
    assert bool(messages(run(res(type_, "vm", props), policy="instance-imds-v2-only"),
                         "instance-imds-v2-only")) is bad
