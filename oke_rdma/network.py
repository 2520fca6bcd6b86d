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

import ipaddress
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence

import pulumi
import pulumi_oci as oci

from oke_rdma.config.network import FROM_STACK_OUTPUTS, NSG_ROLES, SUBNET_ROLES
from oke_rdma.config.network import Network as NetworkConfig
from oke_rdma.config.network import subnet_plan
from oke_rdma.schema import ConfigError, _key

TCP, UDP, ICMP, ALL = "6", "17", "1", "all"
ANYWHERE = "0.0.0.0/0"


def stack_output(ref: pulumi.StackReference, name: str) -> pulumi.Output[Any]:
    """``ref.get_output(name)`` without its eager coroutines: secret only when the other stack marks ``name`` secret.

    The SDK's ``get_output`` builds ``Output(value.resources(), value.future(), value.is_known(), ...)``: three
    coroutines created at once and awaited one after the other, so when the reference fails (a stack that does not
    exist, outputs the preview was not given) the first raises and the others are never awaited — a
    ``RuntimeWarning: coroutine 'Output.future' was never awaited`` for every output read (pulumi 3.x
    ``pulumi/stack_reference.py``; read 2026-12-02). Chained applies create nothing until they run.
    """
    value = pulumi.Output.unsecret(ref.outputs.apply(lambda outputs: (outputs or {}).get(name)))
    return pulumi.Output.all(value, ref.secret_output_names).apply(
        lambda v: pulumi.Output.secret(v[0]) if name in (v[1] or []) else v[0])


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


#: The subnets whose hosts may reach the FSS mount target: the nodes only. The FSS CSI driver mounts on the node
#: (its node plugin, host network), so pods never need NFS themselves; and NFS over AUTH_SYS believes the UID a
#: client sends from a privileged source port, which a pod can have (Pod Security baseline admits root pods and the
#: sysctl ``net.ipv4.ip_unprivileged_port_start``; containerd 2.0's CRI lowers that floor for every pod by default,
#: containerd/containerd#9348; checked 2026-12-02). docs/threat-model.md, "The UID wall on shared storage".
NFS_CLIENT_ROLES = ("workers",)


def oke_rules(allowed_api_cidrs: tuple[str, ...], in_transit_tls: bool = False) -> list[Rule]:
    """Every NSG rule of the platform (docs/architecture.md, "What OCI and Kubernetes require"), named, explained.

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
        rules += _pair(src, "controlPlane", f"{src}-proxymux", f"{src} reach the OKE control plane on 12250 "
                       + ("(proxymux: without it nodes never register)" if src == "workers" else
                          "(proxymux; OKE requires it from the pod subnet with VCN-native pod networking)"),
                       TCP, ports=(12250, 12250))
        rules.append(Rule(f"{src}-osn", src, "EGRESS", TCP, "services",
                          f"{src} reach OCI services (OCIR, Object Storage, OKE) through the service gateway"))
        rules.append(Rule(f"{src}-registries", src, "EGRESS", TCP, ANYWHERE,
                          "nodes pull container images (nvcr.io, registry.k8s.io, quay.io) over HTTPS through the NAT "
                          "gateway" if src == "workers" else "pods reach HTTPS endpoints (model hubs, package "
                          "indexes) through the NAT gateway", ports=(443, 443)))
        if src not in NFS_CLIENT_ROLES:
            continue
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
        rules += _pair(a, b, f"{a}-{b}", (f"{a} talk to each other freely" if a == b else
                                          f"{a} reach {b} freely") + " (pod networking, NCCL, DNS)", ALL)
    rules += _pair("loadBalancers", "workers", "lb-nodeports", "load balancers reach Service NodePorts", TCP,
                   ports=(30000, 32767))
    # UDP Services (a network load balancer forwarding UDP, e.g. DNS or QUIC ingress) reach the same NodePort range
    # over UDP (OKE docs "Network Resource Configuration", load balancer and worker security rules: TCP/UDP
    # 30000-32767; checked 2026-12-01).
    rules += _pair("loadBalancers", "workers", "lb-nodeports-udp", "load balancers reach UDP Service NodePorts", UDP,
                   ports=(30000, 32767))
    rules += _pair("loadBalancers", "workers", "lb-health", "load balancers check kube-proxy health", TCP,
                   ports=(10256, 10256))
    rules.append(Rule("icmp-mtu", "workers", "INGRESS", ICMP, ANYWHERE,
                      "path MTU discovery (ICMP 3/4 'fragmentation needed') from anywhere", icmp=(3, 4)))
    for i, cidr in enumerate(allowed_api_cidrs):
        rules.append(Rule(f"clients-api-{i}", "controlPlane", "INGRESS", TCP, cidr,
                          f"kubectl and CI from {cidr} (network.apiEndpoint.allowedCidrs)", ports=(6443, 6443)))
    return rules


#: OCI docs, "Network Security Groups" (read 2026-12-01): an NSG holds at most 120 security rules, ingress and egress
#: together; a 121st is refused by the API (at ``pulumi up``, after the other resources were created).
MAX_RULES_PER_NSG = 120


def nsg_rule_limit_problems(rules: Sequence[Rule], extra: Optional[Mapping[str, int]] = None) -> list[str]:
    """The NSGs whose rules would exceed :data:`MAX_RULES_PER_NSG`, one line each naming the key that adds them.

    :param rules: the rules of :func:`oke_rules` (each counted on its own NSG, ``Rule.nsg``).
    :param extra: role → rules other components add to that NSG (the Lustre file system's LNet rules on the workers').
    :returns: ``network.apiEndpoint.allowedCidrs: ...`` for the control-plane NSG (the only NSG a config list grows),
        a general line for any other; empty when every NSG fits.
    """
    counts: dict[str, int] = dict(extra or {})
    for rule in rules:
        counts[rule.nsg] = counts.get(rule.nsg, 0) + 1
    problems = []
    for role, n in sorted(counts.items()):
        if n <= MAX_RULES_PER_NSG:
            continue
        if role == "controlPlane":
            clients = sum(1 for r in rules if r.name.startswith("clients-api-"))
            room = MAX_RULES_PER_NSG - (n - clients)
            problems.append(f"{_key(('network', 'apiEndpoint', 'allowedCidrs'))}: {clients} CIDRs make {n} rules in the "
                            f"control-plane NSG, more than the {MAX_RULES_PER_NSG} an NSG holds (OCI 'Network Security "
                            f"Groups'); list at most {room} CIDRs (aggregate neighbouring ones into wider prefixes)")
        else:
            problems.append(f"{_key(('network',))}: the {role} NSG would hold {n} rules, more than the "
                            f"{MAX_RULES_PER_NSG} an NSG holds (OCI 'Network Security Groups'); report this stack")
    return problems


CLIENTS = "allowed-client-cidr"  # stands for each allowedCidrs entry in the docs/networking.md table


def rule_table_markdown() -> str:
    """The NSG rule table of docs/networking.md (one Markdown row per rule of :func:`oke_rules`), ending with a newline.

    ``python -m oke_rdma.docs --write`` (``make docs``) writes it there; ``tests/components/test_docs.py`` fails when
    the page's copy differs from this.
    """
    names = {TCP: "TCP", UDP: "UDP", ICMP: "ICMP", ALL: "all"}
    lines = ["| NSG | direction | protocol | ports | peer | rule | why |", "|---|---|---|---|---|---|---|"]
    for r in oke_rules((CLIENTS,)):
        if r.icmp:
            ports = f"type {r.icmp[0]} code {r.icmp[1]}"
        elif r.source_ports:
            ports = f"from {r.source_ports[0]}" + (f"-{r.source_ports[1]}" if r.source_ports[1] != r.source_ports[0]
                                                 else "")
        elif r.ports:
            ports = str(r.ports[0]) + (f"-{r.ports[1]}" if r.ports[1] != r.ports[0] else "")
        else:
            ports = "all"
        peer = {"services": "Oracle Services Network", ANYWHERE: "0.0.0.0/0",
                CLIENTS: "each `network.apiEndpoint.allowedCidrs` entry"}.get(r.peer, r.peer)
        peer = f"{'from' if r.direction == 'INGRESS' else 'to'} {peer}"
        why = r.description.replace(f"{CLIENTS} (network.apiEndpoint.allowedCidrs)",
                                    "each network.apiEndpoint.allowedCidrs entry")
        name = r.name.replace("clients-api-0", "clients-api-<i>")
        lines.append(f"| {r.nsg} | {r.direction.lower()} | {names[r.protocol]} | {ports} | {peer} | `{name}` | {why} |")
    return "\n".join(lines) + "\n"


def _range(args_type, ports: Optional[tuple[int, int]]):
    return args_type(min=ports[0], max=ports[1]) if ports else None


#: The subnet and NSG roles a cluster with VCN-native pod networking and no FSS uses (the default of what a brought
#: network must provide).
DEFAULT_SUBNET_ROLES = ("controlPlane", "workers", "internalLoadBalancers", "pods")
DEFAULT_NSG_ROLES = ("controlPlane", "workers", "pods")

#: ``(subnet CIDRs by role, key of a role's output for messages) -> problems``: a check of a brought network's CIDRs.
CidrCheck = Callable[[dict[str, ipaddress.IPv4Network], Callable[[str], str]], list[str]]


class NetworkArgs:
    """Inputs of :class:`Network`.

    :param compartment_id: OCID of the compartment every resource goes into.
    :param network: the network's config (:class:`oke_rdma.config.Network`, the ``oke-rdma:network`` model: VCN CIDR
        and DNS label, per-role subnet CIDRs, API endpoint exposure, public load balancers; or ``existing`` /
        ``fromStack``). Default: a new private 10.0.0.0/16 VCN with the default subnet plan.
    :param name_prefix: prefix of every logical and display name (default ``okerdma``).
    :param freeform_tags: free-form tags on every OCI resource (default none).
    :param nfs_in_transit_tls: also open TCP 2051 (NFS over TLS) to the storage NSG (default False).
    :param subnet_roles: the subnet roles a ``fromStack`` network must export (default :data:`DEFAULT_SUBNET_ROLES`).
    :param nsg_roles: the NSG roles a ``fromStack`` network without ``createNsgs`` must export (default
        :data:`DEFAULT_NSG_ROLES`).
    :param cidr_check: more rules for a ``fromStack`` network's subnet CIDRs (the stack program passes its
        CIDR-planning rules: capacity and overlaps with the services CIDR); default none.
    :raises ValueError: a role no network has, or a network that is not a :class:`oke_rdma.config.Network`.
    """

    def __init__(self, compartment_id: str, network: Optional[NetworkConfig] = None, *, name_prefix: str = "okerdma",
                 freeform_tags: Optional[Mapping[str, str]] = None, nfs_in_transit_tls: bool = False,
                 subnet_roles: Sequence[str] = DEFAULT_SUBNET_ROLES, nsg_roles: Sequence[str] = DEFAULT_NSG_ROLES,
                 cidr_check: Optional[CidrCheck] = None):
        network = NetworkConfig() if network is None else network
        if not isinstance(network, NetworkConfig):
            raise ValueError(f"NetworkArgs.network: expected an oke_rdma.config.Network (build it with "
                             f"Network.model_validate({{...}})), got {type(network).__name__}")
        unknown = [r for r in subnet_roles if r not in SUBNET_ROLES] + [r for r in nsg_roles if r not in NSG_ROLES]
        if unknown:
            raise ValueError(f"NetworkArgs: unknown roles {unknown}; subnet roles are {list(SUBNET_ROLES)}, NSG roles "
                             f"{list(NSG_ROLES)}")
        self.compartment_id = compartment_id
        self.network = network
        self.name_prefix = name_prefix
        self.freeform_tags = dict(freeform_tags or {})
        self.nfs_in_transit_tls = nfs_in_transit_tls
        self.subnet_roles = tuple(r for r in SUBNET_ROLES if r in subnet_roles)
        self.nsg_roles = tuple(r for r in NSG_ROLES if r in nsg_roles)
        self.cidr_check = cidr_check


def checked_stack_outputs(args: NetworkArgs, outputs: Any) -> dict[str, Any]:
    """Validate the outputs of the stack ``network.fromStack`` names (see :data:`FROM_STACK_OUTPUTS`) and run the
    CIDR rules of ``args.cidr_check`` on its ``subnetCidrs``.

    :param outputs: the referenced stack's outputs (``{"vcnId": str, "subnetIds": {role: OCID}, "subnetCidrs":
        {role: CIDR}, "nsgIds": {role: OCID}}``); ``nsgIds`` is read only without ``createNsgs``.
    :returns: ``outputs`` unchanged.
    :raises ConfigError: one line per missing or malformed output and per CIDR problem, each naming
        ``oke-rdma:network.fromStack.stack`` and the output.
    """
    name = args.network.from_stack.stack
    where = f"{_key(('network', 'fromStack', 'stack'))}: stack {name!r}"
    outputs = outputs if isinstance(outputs, dict) else {}
    problems: list[str] = []
    if not isinstance(outputs.get("vcnId"), str) or not outputs["vcnId"].startswith("ocid1.vcn."):
        problems.append(f"{where} has no vcnId output holding a VCN OCID; export vcnId from it")
    wanted = [("subnetIds", role) for role in args.subnet_roles]
    wanted += [("subnetCidrs", role) for role in args.subnet_roles]
    if not args.network.from_stack.create_nsgs:
        wanted += [("nsgIds", role) for role in args.nsg_roles]
    for output, role in wanted:
        value = (outputs.get(output) or {}).get(role) if isinstance(outputs.get(output), dict) else None
        if not isinstance(value, str) or not value:
            fix = (" (or set network.fromStack.createNsgs: true to create the NSGs in its VCN)"
                   if output == "nsgIds" else "")
            problems.append(f"{where} output {output} has no {role} entry; export it from that stack{fix}")
    if problems:
        raise ConfigError(problems)
    nets: dict[str, ipaddress.IPv4Network] = {}
    for role, cidr in outputs["subnetCidrs"].items():
        try:
            nets[role] = ipaddress.IPv4Network(cidr)
        except (ValueError, TypeError):
            problems.append(f"{where} output subnetCidrs.{role} is {cidr!r}, not an IPv4 CIDR block")
    if args.cidr_check is not None:
        problems += args.cidr_check({r: n for r, n in nets.items() if r in args.subnet_roles},
                                    lambda role: f"{where} output subnetCidrs.{role}")
    if problems:
        raise ConfigError(problems)
    return outputs


class Network(pulumi.ComponentResource):
    """VCN, gateways, route tables, subnets and NSGs for OKE (type ``oke-rdma:network:Network``), or a brought
    network wired in.

    Three sources (``oke_rdma.config.Network``):

    * created (default): VCN, default security list emptied, NAT + service gateway, an internet gateway and public
      route table only when something is public, a subnet per role, an NSG per role with :func:`oke_rules`;
    * ``network.existing``: the given VCN, subnets (CIDRs from ``subnetCidrs``) and NSGs; without ``nsgIds`` this
      component creates its NSGs and rules inside the given VCN (and nothing else);
    * ``network.fromStack``: the same read from another stack's outputs through ``pulumi.StackReference``
      (:func:`checked_stack_outputs` validates them when they arrive: a missing output or a CIDR problem is a
      :class:`ConfigError` naming the stack and the output).

    Attributes: ``vcn`` (the ``oci.core.Vcn``, None when brought), ``vcn_id``, ``subnet_ids`` (role → OCID
    output), ``subnet_cidrs`` (role → CIDR, an output with ``fromStack``), ``nsg_ids`` (role → OCID output),
    ``services_cidr_block`` (the Oracle Services Network label, None when nothing here needs it), ``rules`` (the
    NSG rules this stack creates; empty when the NSGs are brought), ``stack_reference`` (or None).
    """

    def __init__(self, name: str, args: NetworkArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:network:Network", name, None, opts)
        net = args.network
        child = pulumi.ResourceOptions(parent=self)
        self.vcn: Optional[oci.core.Vcn] = None
        self.stack_reference: Optional[pulumi.StackReference] = None
        self.services_cidr_block: Optional[pulumi.Output[str]] = None
        self.rules: list[Rule] = []
        self.nsg_ids: dict[str, pulumi.Output[str]] = {}
        self._service: Optional[pulumi.Output[Any]] = None

        if net.existing is not None:
            ex = net.existing
            self.vcn_id: pulumi.Output[str] = pulumi.Output.from_input(ex.vcn_id)
            ids = {r: v for r, v in ex.subnet_ids.model_dump(by_alias=True).items() if v is not None}
            self.subnet_ids = {r: pulumi.Output.from_input(v) for r, v in ids.items()}
            self.subnet_cidrs: dict[str, Any] = subnet_plan(net)
            if ex.nsg_ids is not None:
                self.nsg_ids = {r: pulumi.Output.from_input(v)
                                for r, v in ex.nsg_ids.model_dump(by_alias=True).items() if v is not None}
        elif net.from_stack is not None:
            self.stack_reference = pulumi.StackReference(f"{args.name_prefix}-network-stack",
                                                         stack_name=net.from_stack.stack, opts=child)
            ref = self.stack_reference  # read output by output: only the ones the other stack marks secret stay secret
            outputs = pulumi.Output.all(**{k: stack_output(ref, k) for k in FROM_STACK_OUTPUTS}).apply(
                lambda o: checked_stack_outputs(args, o))
            self.vcn_id = outputs.apply(lambda o: o["vcnId"])
            roles = args.subnet_roles
            self.subnet_ids = {r: outputs.apply(lambda o, r=r: o["subnetIds"][r]) for r in roles}
            self.subnet_cidrs = {r: outputs.apply(lambda o, r=r: o["subnetCidrs"][r]) for r in roles}
            if not net.from_stack.create_nsgs:
                self.nsg_ids = {r: outputs.apply(lambda o, r=r: o["nsgIds"][r]) for r in args.nsg_roles}
        else:
            self._create(args, child)

        if net.creates_nsgs:
            self._nsgs(args, child)

        self.register_outputs({"vcnId": self.vcn_id, "subnetIds": self.subnet_ids, "subnetCidrs": self.subnet_cidrs,
                               "nsgIds": self.nsg_ids})

    def _services(self) -> pulumi.Output[Any]:
        """The "All <region> Services In Oracle Services Network" service (one invoke per component)."""
        if self._service is None:
            services = oci.core.get_services_output(filters=[oci.core.GetServicesFilterArgs(
                name="name", values=["All .* Services In Oracle Services Network"], regex=True)],
                opts=pulumi.InvokeOutputOptions(parent=self))
            self._service = services.services.apply(lambda s: s[0])
            self.services_cidr_block = self._service.cidr_block
        return self._service

    def _create(self, args: NetworkArgs, child: pulumi.ResourceOptions) -> None:
        net = args.network
        prefix, tags, comp = args.name_prefix, args.freeform_tags, args.compartment_id
        self.vcn = oci.core.Vcn(f"{prefix}-vcn", oci.core.VcnArgs(
            compartment_id=comp, cidr_blocks=[net.vcn_cidr], display_name=f"{prefix}-vcn",
            dns_label=net.dns_label, freeform_tags=tags), child)
        self.vcn_id = self.vcn.id
        # The default security list is attached to every subnet that names none: keep it empty, NSGs do the work.
        oci.core.DefaultSecurityList(f"{prefix}-default-security-list", oci.core.DefaultSecurityListArgs(
            manage_default_resource_id=self.vcn.default_security_list_id, compartment_id=comp,
            display_name=f"{prefix}-default-locked", ingress_security_rules=[], egress_security_rules=[],
            freeform_tags=tags), child)

        service = self._services()
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
        if net.api_endpoint.public or net.api_endpoint.public_subnet:
            # A public IP needs a subnet that allows them, and a subnet's prohibitPublicIpOnVnic is immutable, so a
            # subnet made public up front lets the endpoint's public IP be switched in place later (OKE API
            # UpdateClusterEndpointConfig: isPublicIpEnabled, "if set to true on a private subnet, the cluster update
            # will fail"; oci-go-sdk containerengine UpdateClusterEndpointConfigDetails, checked 2026-12-01).
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
        self.subnet_ids = {}
        for role in roles:
            public = role in public_roles
            subnet = oci.core.Subnet(f"{prefix}-{labels[role]}", oci.core.SubnetArgs(
                compartment_id=comp, vcn_id=self.vcn.id, cidr_block=plan[role], display_name=f"{prefix}-{role}",
                dns_label=labels[role], prohibit_public_ip_on_vnic=not public,
                prohibit_internet_ingress=not public,
                route_table_id=(public_rt.id if public and public_rt else private_rt.id),
                freeform_tags=tags), child)
            self.subnet_ids[role] = subnet.id

    def _nsgs(self, args: NetworkArgs, child: pulumi.ResourceOptions) -> None:
        """One stateful NSG per role in the VCN (created or brought) and every rule of :func:`oke_rules`."""
        prefix, tags, comp = args.name_prefix, args.freeform_tags, args.compartment_id
        self._services()
        for role in NSG_ROLES:
            nsg = oci.core.NetworkSecurityGroup(f"{prefix}-{role}-nsg", oci.core.NetworkSecurityGroupArgs(
                compartment_id=comp, vcn_id=self.vcn_id, display_name=f"{prefix}-{role}", freeform_tags=tags), child)
            self.nsg_ids[role] = nsg.id

        self.rules = oke_rules(args.network.api_endpoint.allowed_cidrs, args.nfs_in_transit_tls)
        for rule in self.rules:
            self._rule(prefix, rule, child)

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
