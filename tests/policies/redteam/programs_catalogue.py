"""Red-team programs for types nobody judges (the closed catalogue): traffic mirrored or peered into a subnet,
sessions onto a node, settings that change who matches a grant, code nobody can judge, types of other providers and
of unreviewed API groups. Each control declares a catalogued harmless type in place of the unsafe one. Registered
into ``programs.CASES`` on import, like every ``programs_<area>.py``."""
from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci
from pulumi.dynamic import CreateResult, Resource, ResourceProvider

from tests.policies.redteam.programs import C, case, namespace

VCN = "ocid1.vcn.oc1..aaaaaaaaredteamvcn"
INSTANCE = "ocid1.instance.oc1..aaaaaaaaredteamnode"
RULE = "resource-type-catalogued"


def _control() -> None:
    """A catalogued harmless resource: a log group."""
    oci.logging.LogGroup("control", compartment_id=C, display_name="red team control")


@case("network", RULE)
def vtap_mirrors_a_subnets_traffic(bad):
    if bad:
        oci.core.Vtap("tap", compartment_id=C, vcn_id=VCN, source_id="ocid1.subnet.oc1..aaaaaaaagpu",
                      source_type="SUBNET", target_id="ocid1.networkloadbalancer.oc1..aaaacollector",
                      target_type="NETWORK_LOAD_BALANCER", capture_filter_id="ocid1.capturefilter.oc1..aaaa")
    else:
        _control()


@case("network", RULE)
def drg_attachment_joins_another_network(bad):
    if bad:
        oci.core.DrgAttachment("join", drg_id="ocid1.drg.oc1..aaaaaaaaelsewhere", network_details={
            "id": VCN, "type": "VCN"})
    else:
        _control()


@case("network", RULE)
def local_peering_gateway_into_the_vcn(bad):
    if bad:
        oci.core.LocalPeeringGateway("lpg", compartment_id=C, vcn_id=VCN,
                                     peer_id="ocid1.localpeeringgateway.oc1..aaaaaaaaother")
    else:
        _control()


@case("network", RULE)
def endpoints_point_a_service_at_the_metadata_service(bad):
    namespace("apps", "restricted")
    if bad:
        k8s.core.v1.Endpoints("imds", metadata={"name": "imds", "namespace": "apps"}, subsets=[{
            "addresses": [{"ip": "169.254.169.254"}], "ports": [{"port": 80}]}])
    else:
        k8s.core.v1.ConfigMap("imds", metadata={"name": "imds", "namespace": "apps"}, data={"a": "b"})


@case("identity", RULE)
def bastion_session_onto_a_gpu_node(bad):
    if bad:
        oci.bastion.Session("ssh", bastion_id="ocid1.bastion.oc1..aaaaaaaabastion", key_details={
            "public_key_content": "ssh-ed25519 AAAAC3Nza redteam"}, target_resource_details={
            "session_type": "MANAGED_SSH", "target_resource_id": INSTANCE,
            "target_resource_operating_system_user_name": "opc"})
    else:
        _control()


@case("identity", RULE)
def console_connection_to_a_node(bad):
    if bad:
        oci.core.InstanceConsoleConnection("console", instance_id=INSTANCE, public_key="ssh-ed25519 AAAAC3Nza redteam")
    else:
        _control()


@case("identity", RULE)
def os_management_hub_installs_a_package_on_nodes(bad):
    if bad:
        oci.osmanagementhub.ManagedInstanceInstallPackagesManagement(
            "install", managed_instance_id=INSTANCE, package_names=["netcat"])
    else:
        _control()


@case("identity", RULE)
def tag_default_makes_new_resources_match_a_tag_conditioned_grant(bad):
    if bad:
        oci.identity.TagDefault("default", compartment_id=C, tag_definition_id="ocid1.tagdefinition.oc1..aaaaadmin",
                                value="platform-admin")
    else:
        _control()


@case("identity", RULE)
def identity_domain_dynamic_group_matches_every_instance(bad):
    if bad:
        oci.identity.DomainsDynamicResourceGroup(
            "everything", idcs_endpoint="https://idcs-0123456789abcdef.identity.oraclecloud.com",
            schemas=["urn:ietf:params:scim:schemas:oracle:idcs:DynamicResourceGroup"], display_name="all",
            matching_rule="ANY {instance.compartment.id = '" + C + "'}")
    else:
        _control()


class _Provider(ResourceProvider):
    def create(self, props):
        return CreateResult("x", props)


class _Anything(Resource):
    """A dynamic resource (type ``pulumi-python:dynamic:Resource``)."""


@case("supply-chain", RULE)
def dynamic_provider_runs_code_nobody_judges(bad):
    if bad:
        _Anything(_Provider(), "anything", {"payload": "creates whatever its code says"})
    else:
        _control()


@case("supply-chain", RULE)
def a_resource_of_another_provider(bad):
    if bad:
        pulumi.CustomResource("random:index/randomPassword:RandomPassword", "pw", {"length": 16})
    else:
        _control()


@case("pod", RULE)
def custom_resource_of_an_unreviewed_api_group(bad):
    """A mutating policy engine's resource: it rewrites pods after every rule judged them."""
    if bad:
        k8s.apiextensions.CustomResource("mutate", api_version="kyverno.io/v1", kind="ClusterPolicy",
                                         metadata={"name": "add-privileged"}, spec={"rules": []})
    else:
        k8s.apiextensions.CustomResource("queue", api_version="kueue.x-k8s.io/v1beta2", kind="ResourceFlavor",
                                         metadata={"name": "default"}, spec={})
