"""The network component under mocks (preview=False: every value asserted is a concrete recorded value)."""

from oke_rdma.adapter import network_args
from oke_rdma.network import NSG_ROLES, Network, oke_rules
from tests.componenttest import named, of_type, run_component
from tests.stackcfg import dev_config, edited

RAW, _ = dev_config()
NSG_RULE = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"


def build(cfg):
    Network("net", network_args(cfg))



def test_private_by_default():
    run = run_component(RAW, build)
    subnets = {r.inputs["dnsLabel"]: r.inputs for r in of_type(run, "oci:Core/subnet:Subnet")}
    assert set(subnets) == {"cp", "workers", "pods", "intlb", "storage"}  # no public LB subnet by default
    assert all(s["prohibitPublicIpOnVnic"] for s in subnets.values())
    assert subnets["pods"]["cidrBlock"] == "10.0.128.0/17"
    assert not of_type(run, "oci:Core/internetGateway:InternetGateway")
    assert len(of_type(run, "oci:Core/natGateway:NatGateway")) == 1
    assert len(of_type(run, "oci:Core/serviceGateway:ServiceGateway")) == 1
    assert {r.name for r in of_type(run, "oci:Core/networkSecurityGroup:NetworkSecurityGroup")} == {
        f"okerdma-dev-{role}-nsg" for role in NSG_ROLES}


def test_private_route_table_targets_nat_and_service_gateway():
    run = run_component(RAW, build)
    (rt,) = of_type(run, "oci:Core/routeTable:RouteTable")
    rules = {r["destinationType"]: r for r in rt.inputs["routeRules"]}
    assert rules["CIDR_BLOCK"]["destination"] == "0.0.0.0/0"
    assert rules["CIDR_BLOCK"]["networkEntityId"].startswith("ocid1.natgateway.")
    assert rules["SERVICE_CIDR_BLOCK"]["destination"] == "all-gru-services-in-oracle-services-network"
    assert rules["SERVICE_CIDR_BLOCK"]["networkEntityId"].startswith("ocid1.servicegateway.")


def test_default_security_list_is_locked_down():
    run = run_component(RAW, build)
    (dsl,) = of_type(run, "oci:Core/defaultSecurityList:DefaultSecurityList")
    assert dsl.inputs["manageDefaultResourceId"].startswith("ocid1.securitylist.")
    assert dsl.inputs.get("ingressSecurityRules", []) == [] and dsl.inputs.get("egressSecurityRules", []) == []


def test_the_oke_ports_are_open_between_the_right_nsgs():
    run = run_component(RAW, build)
    ids = {role: run.ids[named(run, f"okerdma-dev-{role}-nsg").urn] for role in NSG_ROLES}
    by_name = {r.name: r.inputs for r in of_type(run, NSG_RULE)}
    proxymux = by_name["okerdma-dev-controlPlane-workers-proxymux-in"]
    assert proxymux["direction"] == "INGRESS" and proxymux["protocol"] == "6"
    assert proxymux["tcpOptions"]["destinationPortRange"] == {"min": 12250, "max": 12250}
    assert proxymux["sourceType"] == "NETWORK_SECURITY_GROUP"
    api = by_name["okerdma-dev-controlPlane-clients-api-0"]
    assert api["source"] == "10.0.0.0/16" and api["tcpOptions"]["destinationPortRange"] == {"min": 6443, "max": 6443}
    nfs = by_name["okerdma-dev-storage-workers-nfs-tcp-2048-in"]
    assert nfs["tcpOptions"]["destinationPortRange"] == {"min": 2048, "max": 2050}
    # only the nodes reach NFS (the CSI driver mounts there); a pod's own NFS client could claim any UID
    assert not [n for n in by_name if "-pods-nfs-" in n]
    reply = by_name["okerdma-dev-storage-workers-nfs-udp-111-reply"]
    assert reply["direction"] == "EGRESS" and reply["udpOptions"]["sourcePortRange"] == {"min": 111, "max": 111}
    assert all(not r["stateless"] for r in by_name.values())
    assert all(r.get("description") for r in by_name.values())
    # every rule is attached to the NSG its name says
    for name, rule in by_name.items():
        role = name.split("-")[2]
        assert rule["networkSecurityGroupId"] == ids[role], name


def test_no_rule_opens_anything_but_icmp_and_https_egress_to_the_internet():
    for rule in oke_rules(("10.0.0.0/16",)):
        if rule.peer == "0.0.0.0/0":
            assert (rule.direction, rule.protocol, rule.icmp) == ("INGRESS", "1", (3, 4)) or \
                (rule.direction, rule.protocol, rule.ports) == ("EGRESS", "6", (443, 443)), rule


def test_public_endpoint_and_load_balancers_get_an_internet_gateway():
    raw = edited(RAW, "network", ("apiEndpoint",), {"public": True, "allowedCidrs": ["203.0.113.0/24"]})
    raw = edited(raw, "network", ("publicLoadBalancers",), True)
    run = run_component(raw, build)
    assert len(of_type(run, "oci:Core/internetGateway:InternetGateway")) == 1
    public_rt = named(run, "okerdma-dev-public-rt")
    assert [r["destinationType"] for r in public_rt.inputs["routeRules"]] == ["CIDR_BLOCK"]  # never the SGW
    subnets = {r.inputs["dnsLabel"]: r.inputs for r in of_type(run, "oci:Core/subnet:Subnet")}
    assert not subnets["publb"]["prohibitPublicIpOnVnic"] and not subnets["cp"]["prohibitPublicIpOnVnic"]
    assert subnets["workers"]["prohibitPublicIpOnVnic"]


def test_first_preview_with_unknown_ids_registers_everything():
    known = run_component(RAW, build)
    unknown = run_component(RAW, build, unknowns=True)
    assert sorted(r.name for r in unknown.resources) == sorted(r.name for r in known.resources)
    (rt,) = of_type(unknown, "oci:Core/routeTable:RouteTable")
    assert rt.inputs["routeRules"][0]["networkEntityId"] == "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
