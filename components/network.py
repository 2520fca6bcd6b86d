"""The VCN for OKE with VCN-native pod networking, RDMA node pools and FSS.

Builds: a VCN with its default security list locked down (no rules), a NAT gateway and a service gateway ("All
<region> Services In Oracle Services Network") for the private subnets, an internet gateway and a public route table
only when something is public, one subnet per role (control plane, workers, pods, internal load balancers, storage,
and public load balancers when enabled) and one stateful NSG per role holding exactly the rules OKE and FSS need.

Sources: OKE docs "Network Resource Configuration" (contengnetworkconfig.htm) for the OKE ports, including TCP 12250
(worker → control plane; without it nodes never register); FSS docs "Security rules for File Storage" for the NFS
ports; the OKE Terraform module's named rule maps for the one-rule-one-reason layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import pulumi
import pulumi_oci as oci

from components.config import StackConfig, subnet_plan

TCP, UDP, ICMP, ALL = "6", "17", "1", "all"
ANYWHERE = "0.0.0.0/0"

#: NSG roles; the load balancer NSG serves both the internal and the public load balancer subnets.
NSG_ROLES = ("controlPlane", "workers", "pods", "loadBalancers", "storage")


@dataclass(frozen=True)
class Rule:
    """One named, stateful NSG rule.

    ``peer`` is an NSG role, ``"services"`` (the Oracle Services Network) or a CIDR. ``ports`` is a destination
    port range (``None`` = all ports of the protocol); ``source_ports`` a source port range; ``icmp`` a (type, code).
    """

    name: str
    nsg: str
    direction: str  # INGRESS or EGRESS
    protocol: str
    peer: str
    description: str
    ports: Optional[tuple[int, int]] = None
    source_ports: Optional[tuple[int, int]] = None
    icmp: Optional[tuple[int, int]] = None


def _pair(nsg: str, peer: str, name: str, why: str, protocol: str, **kw) -> list[Rule]:
    """An egress rule on ``nsg`` and the matching ingress rule on ``peer`` (both NSGs of ours)."""
    return [Rule(f"{name}-out", nsg, "EGRESS", protocol, peer, why, **kw),
            Rule(f"{name}-in", peer, "INGRESS", protocol, nsg, why, **kw)]


def oke_rules(allowed_api_cidrs: tuple[str, ...], in_transit_tls: bool = False) -> list[Rule]:
    """Every NSG rule of the platform (DESIGN.md §3), each named and explained.

    :param allowed_api_cidrs: client CIDRs that may reach the API endpoint on TCP 6443
        (``network.apiEndpoint.allowedCidrs``).
    :param in_transit_tls: ``storage.fss.inTransitTls``: also open TCP 2051 (NFS over TLS) to the mount target
        (FSS docs, "Using In-transit TLS Encryption").
    """
    nfs_tcp, nfs_udp = [(111, 111), (2048, 2050)], [(111, 111), (2048, 2048)]
    if in_transit_tls:
        nfs_tcp.append((2051, 2051))
    rules: list[Rule] = []
    for src in ("workers", "pods"):
        rules += _pair(src, "controlPlane", f"{src}-api", f"{src} reach the Kubernetes API", TCP, ports=(6443, 6443))
        rules += _pair(src, "controlPlane", f"{src}-proxymux", f"{src} reach the OKE control plane proxymux "
                       "(without it nodes never register)", TCP, ports=(12250, 12250))
        rules.append(Rule(f"{src}-osn", src, "EGRESS", TCP, "services",
                          f"{src} reach OCI services (OCIR, Object Storage, OKE) through the service gateway"))
        rules.append(Rule(f"{src}-registries", src, "EGRESS", TCP, ANYWHERE,
                          f"{src} pull images and charts over HTTPS through the NAT gateway", ports=(443, 443)))
        for port_range in nfs_tcp:
            rules += _pair(src, "storage", f"{src}-nfs-tcp-{port_range[0]}", f"{src} mount FSS (NFS, portmapper)",
                           TCP, ports=port_range)
            rules.append(Rule(f"{src}-nfs-tcp-{port_range[0]}-reply", "storage", "EGRESS", TCP, src,
                              "FSS mount target answers NFS clients from its source ports", source_ports=port_range))
        for port_range in nfs_udp:
            rules += _pair(src, "storage", f"{src}-nfs-udp-{port_range[0]}", f"{src} mount FSS (NFS over UDP)",
                           UDP, ports=port_range)
        rules.append(Rule(f"{src}-nfs-udp-111-reply", "storage", "EGRESS", UDP, src,
                          "FSS mount target answers portmapper queries from UDP 111", source_ports=(111, 111)))
    rules += _pair("workers", "controlPlane", "workers-api-icmp", "path MTU discovery between nodes and the API",
                   ICMP, icmp=(3, 4))
    rules += _pair("controlPlane", "workers", "api-workers", "the control plane reaches kubelets (logs, exec, "
                   "port-forward) and node webhooks", TCP)
    rules += _pair("controlPlane", "workers", "api-workers-icmp", "path MTU discovery from the control plane",
                   ICMP, icmp=(3, 4))
    rules += _pair("controlPlane", "pods", "api-pods", "the control plane calls admission webhooks served by pods "
                   "(Kueue, GPU Operator, KEDA, Prometheus operator)", TCP)
    rules.append(Rule("api-osn", "controlPlane", "EGRESS", TCP, "services",
                      "the OKE control plane reaches OCI services", ports=(443, 443)))
    for a, b in (("workers", "workers"), ("pods", "pods"), ("workers", "pods"), ("pods", "workers")):
        rules += _pair(a, b, f"{a}-{b}", f"{a} and {b} talk freely (pod networking, NCCL, DNS)", ALL)
    rules += _pair("loadBalancers", "workers", "lb-nodeports", "load balancers reach Service NodePorts", TCP,
                   ports=(30000, 32767))
    rules += _pair("loadBalancers", "workers", "lb-health", "load balancers check kube-proxy health", TCP,
                   ports=(10256, 10256))
    rules.append(Rule("icmp-mtu", "workers", "INGRESS", ICMP, ANYWHERE,
                      "path MTU discovery (ICMP 3/4 'fragmentation needed') from anywhere", icmp=(3, 4)))
    for i, cidr in enumerate(allowed_api_cidrs):
        rules.append(Rule(f"clients-api-{i}", "controlPlane", "INGRESS", TCP, cidr,
                          f"kubectl and CI from {cidr} (network.apiEndpoint.allowedCidrs)", ports=(6443, 6443)))
    return rules


def _range(args_type, ports: Optional[tuple[int, int]]):
    return args_type(min=ports[0], max=ports[1]) if ports else None


class NetworkArgs:
    """Inputs of :class:`Network`: the whole stack config (the network reads ``network``, ``compartmentId``,
    ``namePrefix``, ``freeformTags`` and ``region``)."""

    def __init__(self, config: StackConfig):
        self.config = config


class Network(pulumi.ComponentResource):
    """VCN, gateways, route tables, subnets and NSGs for OKE (type ``oke-rdma:network:Network``).

    Attributes: ``vcn``, ``subnet_ids`` (role → OCID output), ``subnet_cidrs`` (role → CIDR), ``nsg_ids``
    (role → OCID output), ``services_cidr_block`` (the Oracle Services Network label), ``rules`` (the NSG rules).
    """

    def __init__(self, name: str, args: NetworkArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:network:Network", name, None, opts)
        cfg = args.config
        net = cfg.network
        prefix, tags, comp = cfg.name_prefix, cfg.freeform_tags, cfg.compartment_id
        child = pulumi.ResourceOptions(parent=self)

        self.vcn = oci.core.Vcn(f"{prefix}-vcn", oci.core.VcnArgs(
            compartment_id=comp, cidr_blocks=[net.vcn_cidr], display_name=f"{prefix}-vcn",
            dns_label=net.dns_label, freeform_tags=tags), child)
        # The default security list is attached to every subnet that names none: keep it empty, NSGs do the work.
        oci.core.DefaultSecurityList(f"{prefix}-default-security-list", oci.core.DefaultSecurityListArgs(
            manage_default_resource_id=self.vcn.default_security_list_id, compartment_id=comp,
            display_name=f"{prefix}-default-locked", ingress_security_rules=[], egress_security_rules=[],
            freeform_tags=tags), child)

        services = oci.core.get_services_output(filters=[oci.core.GetServicesFilterArgs(
            name="name", values=["All .* Services In Oracle Services Network"], regex=True)], opts=pulumi.InvokeOutputOptions(parent=self))
        service = services.services.apply(lambda s: s[0])
        self.services_cidr_block = service.cidr_block

        nat = oci.core.NatGateway(f"{prefix}-nat", oci.core.NatGatewayArgs(
            compartment_id=comp, vcn_id=self.vcn.id, display_name=f"{prefix}-nat", freeform_tags=tags), child)
        sgw = oci.core.ServiceGateway(f"{prefix}-sgw", oci.core.ServiceGatewayArgs(
            compartment_id=comp, vcn_id=self.vcn.id, display_name=f"{prefix}-sgw", freeform_tags=tags,
            services=[oci.core.ServiceGatewayServiceArgs(service_id=service.id)]), child)
        private_rt = oci.core.RouteTable(f"{prefix}-private-rt", oci.core.RouteTableArgs(
            compartment_id=comp, vcn_id=self.vcn.id, display_name=f"{prefix}-private", freeform_tags=tags,
            route_rules=[
                oci.core.RouteTableRouteRuleArgs(destination=ANYWHERE, destination_type="CIDR_BLOCK",
                                                 network_entity_id=nat.id, description="internet egress via NAT"),
                oci.core.RouteTableRouteRuleArgs(destination=self.services_cidr_block,
                                                 destination_type="SERVICE_CIDR_BLOCK", network_entity_id=sgw.id,
                                                 description="Oracle Services Network via the service gateway"),
            ]), child)

        public_roles = {"publicLoadBalancers"} if net.public_load_balancers else set()
        if net.api_endpoint.public:
            public_roles.add("controlPlane")
        public_rt = None
        if public_roles:
            igw = oci.core.InternetGateway(f"{prefix}-igw", oci.core.InternetGatewayArgs(
                compartment_id=comp, vcn_id=self.vcn.id, display_name=f"{prefix}-igw", enabled=True,
                freeform_tags=tags), child)
            # A route table cannot target both an internet gateway and a service gateway: this one has only the IGW.
            public_rt = oci.core.RouteTable(f"{prefix}-public-rt", oci.core.RouteTableArgs(
                compartment_id=comp, vcn_id=self.vcn.id, display_name=f"{prefix}-public", freeform_tags=tags,
                route_rules=[oci.core.RouteTableRouteRuleArgs(
                    destination=ANYWHERE, destination_type="CIDR_BLOCK", network_entity_id=igw.id,
                    description="internet via the internet gateway")]), child)

        plan = subnet_plan(net)
        roles = [r for r in plan if r != "publicLoadBalancers" or net.public_load_balancers]
        labels = {"controlPlane": "cp", "workers": "workers", "pods": "pods", "internalLoadBalancers": "intlb",
                  "publicLoadBalancers": "publb", "storage": "storage"}
        self.subnet_cidrs = {r: plan[r] for r in roles}
        self.subnet_ids: dict[str, pulumi.Output[str]] = {}
        for role in roles:
            public = role in public_roles
            subnet = oci.core.Subnet(f"{prefix}-{labels[role]}", oci.core.SubnetArgs(
                compartment_id=comp, vcn_id=self.vcn.id, cidr_block=plan[role], display_name=f"{prefix}-{role}",
                dns_label=labels[role], prohibit_public_ip_on_vnic=not public,
                prohibit_internet_ingress=not public,
                route_table_id=(public_rt.id if public and public_rt else private_rt.id),
                freeform_tags=tags), child)
            self.subnet_ids[role] = subnet.id

        self.nsg_ids: dict[str, pulumi.Output[str]] = {}
        for role in NSG_ROLES:
            nsg = oci.core.NetworkSecurityGroup(f"{prefix}-{role}-nsg", oci.core.NetworkSecurityGroupArgs(
                compartment_id=comp, vcn_id=self.vcn.id, display_name=f"{prefix}-{role}", freeform_tags=tags), child)
            self.nsg_ids[role] = nsg.id

        self.rules = oke_rules(net.api_endpoint.allowed_cidrs, cfg.storage.fss.in_transit_tls)
        for rule in self.rules:
            self._rule(prefix, rule, child)

        self.register_outputs({"vcnId": self.vcn.id, "subnetIds": self.subnet_ids, "nsgIds": self.nsg_ids})

    def _rule(self, prefix: str, rule: Rule, opts: pulumi.ResourceOptions) -> None:
        if rule.peer in self.nsg_ids:
            peer, peer_type = self.nsg_ids[rule.peer], "NETWORK_SECURITY_GROUP"
        elif rule.peer == "services":
            peer, peer_type = self.services_cidr_block, "SERVICE_CIDR_BLOCK"
        else:
            peer, peer_type = rule.peer, "CIDR_BLOCK"
        tcp = udp = icmp = None
        if rule.protocol == TCP and (rule.ports or rule.source_ports):
            tcp = oci.core.NetworkSecurityGroupSecurityRuleTcpOptionsArgs(
                destination_port_range=_range(oci.core.NetworkSecurityGroupSecurityRuleTcpOptionsDestinationPortRangeArgs,
                                              rule.ports),
                source_port_range=_range(oci.core.NetworkSecurityGroupSecurityRuleTcpOptionsSourcePortRangeArgs,
                                         rule.source_ports))
        if rule.protocol == UDP and (rule.ports or rule.source_ports):
            udp = oci.core.NetworkSecurityGroupSecurityRuleUdpOptionsArgs(
                destination_port_range=_range(oci.core.NetworkSecurityGroupSecurityRuleUdpOptionsDestinationPortRangeArgs,
                                              rule.ports),
                source_port_range=_range(oci.core.NetworkSecurityGroupSecurityRuleUdpOptionsSourcePortRangeArgs,
                                         rule.source_ports))
        if rule.icmp:
            icmp = oci.core.NetworkSecurityGroupSecurityRuleIcmpOptionsArgs(type=rule.icmp[0], code=rule.icmp[1])
        ingress = rule.direction == "INGRESS"
        oci.core.NetworkSecurityGroupSecurityRule(f"{prefix}-{rule.nsg}-{rule.name}",
            oci.core.NetworkSecurityGroupSecurityRuleArgs(
                network_security_group_id=self.nsg_ids[rule.nsg], direction=rule.direction, protocol=rule.protocol,
                source=peer if ingress else None, source_type=peer_type if ingress else None,
                destination=None if ingress else peer, destination_type=None if ingress else peer_type,
                stateless=False, description=rule.description, tcp_options=tcp, udp_options=udp,
                icmp_options=icmp), opts)
