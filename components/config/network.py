"""Network config: the VCN this stack creates (subnet plan carved from ``vcnCidr``, per-role overrides), or a network
brought from elsewhere (``existing`` OCIDs, or another stack's outputs through ``fromStack``), API exposure, and the
CIDR-planning rules checked before anything is declared.

Sources: OKE docs "Network Resource Configuration" (contengnetworkconfig.htm: subnets per role, pod subnet sizing for
VCN-native pod networking); OCI Networking docs "VCNs and Subnets" (OCI reserves the first two and the last address
of every subnet); FSS docs "Managing Mount Targets" (a mount target takes three private IPs of its subnet); OKE docs
"Balancing Service Availability and Cost When Cycling Managed Nodes" (maxSurge defaults to 1).
"""

from __future__ import annotations

import ipaddress
import math
from typing import TYPE_CHECKING, Callable, Optional

from pydantic import Field, field_validator

from ._base import _DNS_LABEL_RE, StrList, _cidr, _key, _Model, _ocid

if TYPE_CHECKING:
    from .compute import NodePool
    from .stack import StackConfig

#: Subnet roles, in plan order. ``publicLoadBalancers`` exists only when ``network.publicLoadBalancers`` is true.
SUBNET_ROLES = ("controlPlane", "workers", "pods", "internalLoadBalancers", "publicLoadBalancers", "storage")
#: NSG roles; the load balancer NSG serves both load balancer subnets.
NSG_ROLES = ("controlPlane", "workers", "pods", "loadBalancers", "storage")
#: Addresses OCI reserves in every subnet (network address, default gateway, broadcast).
OCI_RESERVED_IPS = 3
#: Private IPs one FSS mount target takes in its subnet.
MOUNT_TARGET_IPS = 3
#: Largest prefix length the control-plane (API endpoint) subnet may have.
MIN_CONTROL_PLANE_PREFIX = 29
#: OKE node cycling's default maximum surge: extra nodes a pool runs at once while its nodes are replaced.
DEFAULT_MAX_SURGE = 1
#: Stack outputs ``network.fromStack`` reads (the outputs this program exports, so one stack can feed another).
FROM_STACK_OUTPUTS = ("vcnId", "subnetIds", "subnetCidrs", "nsgIds")


class SubnetCidrs(_Model):
    """Per-role subnet CIDRs: overrides of the default plan, or the CIDRs of brought subnets."""

    control_plane: Optional[str] = None
    workers: Optional[str] = None
    pods: Optional[str] = None
    internal_load_balancers: Optional[str] = None
    public_load_balancers: Optional[str] = None
    storage: Optional[str] = None

    _check = field_validator("*")(lambda v: None if v is None else _cidr(v))


class SubnetIds(_Model):
    """Per-role subnet OCIDs of a brought network."""

    control_plane: Optional[str] = None
    workers: Optional[str] = None
    pods: Optional[str] = None
    internal_load_balancers: Optional[str] = None
    public_load_balancers: Optional[str] = None
    storage: Optional[str] = None

    _check = field_validator("*")(lambda v: None if v is None else _ocid("subnet", v))


class NsgIds(_Model):
    """Per-role NSG OCIDs of a brought network."""

    control_plane: Optional[str] = None
    workers: Optional[str] = None
    pods: Optional[str] = None
    load_balancers: Optional[str] = None
    storage: Optional[str] = None

    _check = field_validator("*")(lambda v: None if v is None else _ocid("networksecuritygroup", v))


class ExistingNetwork(_Model):
    """A network created elsewhere: the VCN, a subnet per role with its CIDR, and optionally an NSG per role.

    Without ``nsgIds`` this stack creates its NSGs (with every rule) inside the given VCN, as the OKE Terraform
    module does; with ``nsgIds`` it creates no network resource at all.
    """

    vcn_id: str
    subnet_ids: SubnetIds
    subnet_cidrs: SubnetCidrs = SubnetCidrs()
    nsg_ids: Optional[NsgIds] = None

    _vcn = field_validator("vcn_id")(lambda v: _ocid("vcn", v))


class FromStack(_Model):
    """A network read from another stack's outputs (``vcnId``, ``subnetIds``, ``subnetCidrs``, ``nsgIds``) through
    ``pulumi.StackReference``; ``createNsgs: true`` creates this stack's NSGs in that VCN instead of using
    ``nsgIds``."""

    stack: str
    create_nsgs: bool = False

    @field_validator("stack")
    @classmethod
    def _stack(cls, v: str) -> str:
        parts = v.split("/")
        if not 1 <= len(parts) <= 3 or not all(parts):
            raise ValueError(f"must be a stack name like org/oke-rdma-network/prod, got {v!r}")
        return v


class ApiEndpoint(_Model):
    """Kubernetes API endpoint exposure. Private by default; ``allowedCidrs`` may reach TCP 6443."""

    public: bool = False
    allowed_cidrs: StrList = Field(default=())

    @field_validator("allowed_cidrs")
    @classmethod
    def _cidrs(cls, v: StrList) -> StrList:
        cidrs = tuple(_cidr(c) for c in v)  # 0.0.0.0/0 is left to the policy pack (kubernetes-api-not-public)
        twice = sorted({c for c in cidrs if cidrs.count(c) > 1})
        if twice:
            raise ValueError(f"lists {', '.join(twice)} twice; keep one")
        return cidrs


class Network(_Model):
    """The VCN (``vcnCidr``, an IPv4 CIDR from /8 to /20 for the default plan) and its exposure choices, or a
    brought network (``existing`` or ``fromStack``)."""

    vcn_cidr: str = "10.0.0.0/16"
    dns_label: str = "okerdma"
    subnets: SubnetCidrs = SubnetCidrs()
    api_endpoint: ApiEndpoint = ApiEndpoint()
    public_load_balancers: bool = False
    existing: Optional[ExistingNetwork] = None
    from_stack: Optional[FromStack] = None

    _vcn = field_validator("vcn_cidr")(lambda v: _cidr(v))

    @field_validator("dns_label")
    @classmethod
    def _label(cls, v: str) -> str:
        if not _DNS_LABEL_RE.match(v):
            raise ValueError("must be 1-15 lowercase letters or digits starting with a letter, like okerdma")
        return v

    @property
    def brought(self) -> bool:
        """True when the VCN and subnets come from ``existing`` or ``fromStack`` (this stack creates none)."""
        return self.existing is not None or self.from_stack is not None

    @property
    def creates_nsgs(self) -> bool:
        """True when this stack creates the NSGs (its own network, or a brought network without NSGs)."""
        if self.existing is not None:
            return self.existing.nsg_ids is None
        if self.from_stack is not None:
            return self.from_stack.create_nsgs
        return True


def default_subnet_plan(vcn_cidr: str) -> dict[str, str]:
    """The default subnet CIDR per role carved from ``vcn_cidr`` (an IPv4 CIDR from /8 to /20).

    For a VCN of prefix /p: pods get the upper half (/p+1, every pod takes a VCN IP); workers the second /p+4;
    the first /p+4 is cut into /p+8 blocks for internal load balancers, public load balancers and storage, and
    the control plane gets a /28 at the start. For 10.0.0.0/16 that is 10.0.0.0/28, 10.0.16.0/20, 10.0.128.0/17,
    10.0.1.0/24, 10.0.2.0/24, 10.0.3.0/24.

    :raises ValueError: if the VCN is smaller than /20.
    """
    vcn = ipaddress.IPv4Network(vcn_cidr)
    p = vcn.prefixlen
    if p > 20:
        raise ValueError("is smaller than /20, too small for the default subnet plan")
    lower, upper = vcn.subnets(new_prefix=p + 1)
    blocks = list(lower.subnets(new_prefix=p + 4))
    small = list(blocks[0].subnets(new_prefix=p + 8))
    control_plane = next(small[0].subnets(new_prefix=max(28, p + 8)))
    return {
        "controlPlane": str(control_plane),
        "workers": str(blocks[1]),
        "pods": str(upper),
        "internalLoadBalancers": str(small[1]),
        "publicLoadBalancers": str(small[2]),
        "storage": str(small[3]),
    }


def subnet_plan(network: Network) -> dict[str, str]:
    """The effective subnet CIDR per role of a network this stack creates: overrides from ``network.subnets``, the
    default plan elsewhere. For a brought network: the ``existing.subnetCidrs`` given (``fromStack``: empty, the
    CIDRs are read from the other stack at deploy time)."""
    if network.existing is not None:
        given = network.existing.subnet_cidrs.model_dump(by_alias=True)
        return {r: c for r, c in given.items() if c is not None}
    if network.from_stack is not None:
        return {}
    overrides = network.subnets.model_dump(by_alias=True)
    missing = [r for r in SUBNET_ROLES if overrides.get(r) is None]
    plan = default_subnet_plan(network.vcn_cidr) if missing else {}
    return {r: overrides.get(r) or plan[r] for r in SUBNET_ROLES}


def vcn_native(cfg: StackConfig) -> bool:
    """True with VCN-native pod networking (every pod takes an IP of the pod subnet)."""
    return cfg.cluster.cni_type == "OCI_VCN_IP_NATIVE"


def required_subnet_roles(cfg: StackConfig) -> tuple[str, ...]:
    """The subnet roles the stack uses: control plane, workers, internal load balancers, pods (VCN-native pod
    networking) and storage (FSS enabled). ``publicLoadBalancers`` is never required."""
    roles = ["controlPlane", "workers", "internalLoadBalancers"]
    if vcn_native(cfg):
        roles.append("pods")
    if cfg.storage.fss.enabled:
        roles.append("storage")
    return tuple(r for r in SUBNET_ROLES if r in roles)


def required_nsg_roles(cfg: StackConfig) -> tuple[str, ...]:
    """The NSG roles the stack attaches: control plane, workers, pods (VCN-native), storage (FSS enabled).
    ``loadBalancers`` is never required (load balancers get NSGs through Service annotations)."""
    roles = ["controlPlane", "workers"]
    if vcn_native(cfg):
        roles.append("pods")
    if cfg.storage.fss.enabled:
        roles.append("storage")
    return tuple(r for r in NSG_ROLES if r in roles)


def cycle_headroom_nodes(pool: NodePool) -> int:
    """Extra nodes pool ``pool`` runs at once during a rolling node cycle: its ``cycling.maxSurge`` (a node count, or
    a percentage of the pool rounded up, as OCI computes it) when node cycling is enabled, else OKE's default
    maxSurge (1); none for an empty pool."""
    if pool.size == 0:
        return 0
    if not pool.cycling.enabled:
        return DEFAULT_MAX_SURGE
    surge = pool.cycling.max_surge
    return math.ceil(pool.size * int(surge[:-1]) / 100) if surge.endswith("%") else int(surge)


def pod_ip_demand(cfg: StackConfig) -> int:
    """Pod-subnet IPs the node pools can take: Σ (size + cycle headroom) × maxPodsPerNode (OKE reserves
    maxPodsPerNode IPs per node with VCN-native pod networking)."""
    return sum((p.size + cycle_headroom_nodes(p)) * p.max_pods_per_node for p in cfg.node_pools.values())


def usable_ips(net: ipaddress.IPv4Network) -> int:
    """Addresses of a subnet OCI can hand out (all but the first two and the last)."""
    return max(net.num_addresses - OCI_RESERVED_IPS, 0)


def cidr_problems(cfg: StackConfig, nets: dict[str, ipaddress.IPv4Network], key: Callable[[str], str],
                  vcn: Optional[ipaddress.IPv4Network] = None) -> list[str]:
    """The CIDR-planning rules on subnet CIDRs ``nets`` (role → network), each message starting with ``key(role)``:
    inside ``vcn`` (when known), no overlaps, the services CIDR outside the VCN (or, with no VCN CIDR, outside every
    subnet), pod-IP capacity with cycle headroom, room for the mount target, a control-plane subnet of /29 or larger.
    """
    problems: list[str] = []
    if vcn is not None:
        for role, net in nets.items():
            if not net.subnet_of(vcn):
                problems.append(f"{key(role)}: {net} is not inside the VCN {vcn}; pick a CIDR inside "
                                f"oke-rdma:network.vcnCidr")
    roles = list(nets)
    for i, a in enumerate(roles):
        for b in roles[i + 1:]:
            if nets[a].overlaps(nets[b]):
                problems.append(f"{key(b)}: {nets[b]} overlaps the {a} subnet {nets[a]}; subnets of one VCN "
                                f"must not overlap")
    svc = ipaddress.IPv4Network(cfg.cluster.services_cidr)
    svc_key = _key(("cluster", "servicesCidr"))
    if vcn is not None and svc.overlaps(vcn):
        problems.append(f"{svc_key}: {svc} overlaps the VCN {vcn}; Kubernetes service IPs must not collide with VCN "
                        f"addresses")
    elif vcn is None:
        problems += [f"{svc_key}: {svc} overlaps the {role} subnet {net}; Kubernetes service IPs must not collide "
                     f"with VCN addresses" for role, net in nets.items() if svc.overlaps(net)]
    if "pods" in nets and vcn_native(cfg):
        have, need = usable_ips(nets["pods"]), pod_ip_demand(cfg)
        if need > have:
            detail = " + ".join(f"{name} ({p.size}+{cycle_headroom_nodes(p)}) × {p.max_pods_per_node}"
                                for name, p in cfg.node_pools.items())
            problems.append(f"{key('pods')}: {nets['pods']} has {have} usable IPs but the node pools "
                            f"need {need}: Σ (size + headroom for a rolling node cycle: cycling.maxSurge when node "
                            f"cycling is enabled, else OKE's default maxSurge of {DEFAULT_MAX_SURGE}) × maxPodsPerNode "
                            f"= {detail}; enlarge the pod subnet or lower maxPodsPerNode, the pool sizes or "
                            f"cycling.maxSurge")
    if "storage" in nets and cfg.storage.fss.enabled and usable_ips(nets["storage"]) < MOUNT_TARGET_IPS:
        problems.append(f"{key('storage')}: {nets['storage']} has "
                        f"{usable_ips(nets['storage'])} usable IPs but an FSS mount target takes {MOUNT_TARGET_IPS}; "
                        f"use a /29 or larger")
    if "controlPlane" in nets and nets["controlPlane"].prefixlen > MIN_CONTROL_PLANE_PREFIX:
        problems.append(f"{key('controlPlane')}: {nets['controlPlane']} is smaller than "
                        f"/{MIN_CONTROL_PLANE_PREFIX}; use a /{MIN_CONTROL_PLANE_PREFIX} or larger")
    return problems


def _brought_problems(cfg: StackConfig) -> list[str]:
    """Exclusivity of ``existing``/``fromStack`` with each other and with the keys of a created network, and the
    completeness of ``existing``."""
    net = cfg.network
    problems: list[str] = []
    if net.existing is not None and net.from_stack is not None:
        problems.append(f"{_key(('network', 'fromStack'))}: network.existing and network.fromStack both bring a "
                        f"network; keep one")
    source = "network.existing" if net.existing is not None else "network.fromStack"
    for field, alias in (("vcn_cidr", "vcnCidr"), ("dns_label", "dnsLabel"), ("subnets", "subnets"),
                         ("public_load_balancers", "publicLoadBalancers")):
        if field in net.model_fields_set:
            problems.append(f"{_key(('network', alias))}: applies only to a network this stack creates, and the "
                            f"network comes from {source}; remove it (set it in the stack that owns the network)")
    if net.api_endpoint.allowed_cidrs and not net.creates_nsgs:
        problems.append(f"{_key(('network', 'apiEndpoint', 'allowedCidrs'))}: this stack creates no NSG with "
                        f"{source} NSGs, so these CIDRs would be ignored; admit TCP 6443 from them in the "
                        f"control-plane NSG you bring, or let this stack create its NSGs (omit nsgIds / set "
                        f"createNsgs: true)")
    if net.existing is None:
        return problems
    at = ("network", "existing")
    ids = net.existing.subnet_ids.model_dump(by_alias=True)
    cidrs = net.existing.subnet_cidrs.model_dump(by_alias=True)
    for role in required_subnet_roles(cfg):
        if ids.get(role) is None:
            why = {"pods": "VCN-native pod networking gives every pod an IP of the pod subnet",
                   "storage": "the FSS mount target lives there (storage.fss.enabled)"}.get(role, "OKE needs it")
            problems.append(f"{_key(at + ('subnetIds', role))}: required ({why}); give the subnet OCID")
    for role in SUBNET_ROLES:
        if ids.get(role) is not None and cidrs.get(role) is None:
            problems.append(f"{_key(at + ('subnetCidrs', role))}: required for the given {role} subnet (the CIDR "
                            f"checks and the FSS export need it before anything is deployed); give its CIDR block")
        elif ids.get(role) is None and cidrs.get(role) is not None:
            problems.append(f"{_key(at + ('subnetCidrs', role))}: there is no {role} subnet in "
                            f"network.existing.subnetIds; remove it or add the subnet OCID")
    if net.existing.nsg_ids is not None:
        nsgs = net.existing.nsg_ids.model_dump(by_alias=True)
        for role in required_nsg_roles(cfg):
            if nsgs.get(role) is None:
                problems.append(f"{_key(at + ('nsgIds', role))}: required when nsgIds is given; give the {role} NSG "
                                f"OCID, or omit nsgIds to let this stack create its NSGs in the VCN")
    return problems


def check_network(cfg: StackConfig) -> list[str]:
    """Cross-field network rules (see :func:`cidr_problems` and the bring-your-own rules); one message per problem.

    ``fromStack`` CIDRs are known only at deploy time: ``components.network`` runs :func:`cidr_problems` on them
    then (same messages, keyed ``oke-rdma:network.fromStack.stack``).
    """
    net = cfg.network
    api = net.api_endpoint
    problems: list[str] = []
    if net.brought:
        problems += _brought_problems(cfg)
        nets = {role: ipaddress.IPv4Network(c) for role, c in subnet_plan(net).items()}
        problems += cidr_problems(cfg, nets, lambda role: _key(("network", "existing", "subnetCidrs", role)))
    else:
        try:
            plan = subnet_plan(net)
        except ValueError as e:
            return [f"{_key(('network', 'vcnCidr'))}: {e}; use a /16 (or larger) VCN or give every "
                    f"oke-rdma:network.subnets CIDR"]
        roles = [r for r in SUBNET_ROLES if r != "publicLoadBalancers" or net.public_load_balancers]
        nets = {role: ipaddress.IPv4Network(plan[role]) for role in roles}
        problems += cidr_problems(cfg, nets, lambda role: _key(("network", "subnets", role)),
                                  vcn=ipaddress.IPv4Network(net.vcn_cidr))
    if api.public and not api.allowed_cidrs and net.creates_nsgs:
        problems.append(f"{_key(('network', 'apiEndpoint', 'allowedCidrs'))}: a public API endpoint needs the "
                        f"client CIDRs allowed to reach TCP 6443; list them (never 0.0.0.0/0)")
    return problems
