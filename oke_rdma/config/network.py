"""Network config: the VCN this stack creates (subnet plan carved from ``vcnCidr``, per-role overrides), or a network
brought from elsewhere (``existing`` OCIDs, or another stack's outputs through ``fromStack``), API exposure, and the
CIDR-planning rules checked before anything is declared.

Sources: OKE docs "Network Resource Configuration" (contengnetworkconfig.htm: subnets per role, pod subnet sizing for
VCN-native pod networking); OCI Networking docs "VCNs and Subnets" (a VCN CIDR block and a subnet are /16 to /30; OCI
reserves the first two and the last address of every subnet); FSS docs "Managing Mount Targets" (a mount target takes three private IPs of its subnet); OKE docs
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
#: Prefix lengths OCI accepts for a VCN CIDR block and for a subnet: /16 (65,536 addresses) to /30 (OCI Networking
#: docs, "VCNs and Subnets": "allowable VCN size range is /16 to /30"; a subnet lies inside one VCN CIDR block).
VCN_PREFIX_RANGE = (16, 30)
#: Largest VCN the default subnet plan needs no overrides for (``default_subnet_plan`` carves /p+8 blocks).
MAX_PLAN_PREFIX = 20
#: Shortest prefix an ``apiEndpoint.allowedCidrs`` entry may have. A /8 is the largest block IANA allocates to a
#: Regional Internet Registry (IANA "IPv4 Address Space Registry"); anything broader spans several registries'
#: unrelated networks, so admitting it is effectively admitting the internet to the Kubernetes API.
MIN_API_CLIENT_PREFIX = 8
#: Largest prefix length the control-plane (API endpoint) subnet may have.
MIN_CONTROL_PLANE_PREFIX = 29
#: OKE node cycling's default maximum surge: extra nodes a pool runs at once while its nodes are replaced.
DEFAULT_MAX_SURGE = 1
#: Stack outputs ``network.fromStack`` reads (the outputs this program exports, so one stack can feed another).
FROM_STACK_OUTPUTS = ("vcnId", "subnetIds", "subnetCidrs", "nsgIds")


def _oci_cidr(value: str, what: str) -> str:
    """An IPv4 CIDR (no host bits) of a size OCI accepts for a VCN or subnet (/16 to /30, "VCNs and Subnets")."""
    cidr = _cidr(value)
    low, high = VCN_PREFIX_RANGE
    prefix = ipaddress.IPv4Network(cidr).prefixlen
    if not low <= prefix <= high:
        raise ValueError(f"expected a {what} CIDR from /{low} to /{high} (OCI's allowed sizes, Networking docs \"VCNs "
                         f"and Subnets\"), got {cidr}; use a prefix from /{low} to /{high}")
    return cidr


class _SubnetRoles(_Model):
    """One optional value per subnet role (the keys of ``SUBNET_ROLES``); subclasses say what the value is."""

    control_plane: Optional[str] = Field(None, description=(
        "control-plane subnet (Kubernetes API endpoint); /29 or larger."))
    workers: Optional[str] = Field(None, description="worker node subnet.")
    pods: Optional[str] = Field(None, description="pod subnet (VCN-native pod networking).")
    internal_load_balancers: Optional[str] = Field(None, description="internal load balancer subnet.")
    public_load_balancers: Optional[str] = Field(None, description=(
        "public load balancer subnet (only with `network.publicLoadBalancers`)."))
    storage: Optional[str] = Field(None, description="storage subnet (FSS mount target).")


class SubnetCidrs(_SubnetRoles):
    """Per-role subnet CIDRs (each /16 to /30): overrides of the default plan, or the CIDRs of brought subnets."""

    _check = field_validator("*")(lambda v: None if v is None else _oci_cidr(v, "subnet"))


class SubnetIds(_SubnetRoles):
    """Per-role subnet OCIDs of a brought network."""

    _check = field_validator("*")(lambda v: None if v is None else _ocid("subnet", v))


class NsgIds(_Model):
    """Per-role NSG OCIDs of a brought network."""

    control_plane: Optional[str] = Field(None, description="NSG of the Kubernetes API endpoint.")
    workers: Optional[str] = Field(None, description="NSG of the worker nodes.")
    pods: Optional[str] = Field(None, description="NSG of the pods (VCN-native pod networking).")
    load_balancers: Optional[str] = Field(None, description=(
        "NSG of the internal and public load balancers (optional)."))
    storage: Optional[str] = Field(None, description="NSG of the FSS mount target.")

    _check = field_validator("*")(lambda v: None if v is None else _ocid("networksecuritygroup", v))


class ExistingNetwork(_Model):
    """A network created elsewhere: the VCN, a subnet per role with its CIDR, and optionally an NSG per role.

    Without ``nsgIds`` this stack creates its NSGs (with every rule) inside the given VCN, as the OKE Terraform
    module does; with ``nsgIds`` it creates no network resource at all.
    """

    vcn_id: str = Field(description="OCID of the brought VCN, in `oci:region`.")
    subnet_ids: SubnetIds = Field(description=(
        "Subnet OCID per role: `controlPlane`, `workers`, `internalLoadBalancers`, `pods` (VCN-native), `storage`"
        " (FSS) required, `publicLoadBalancers` optional; one subnet may serve several roles (same OCID and CIDR;"
        " their IP demands add up)."))
    subnet_cidrs: SubnetCidrs = Field(SubnetCidrs(), description=(
        "The CIDR of each subnet in `subnetIds` (and of no other): the CIDR checks and the FSS export need them."))
    nsg_ids: Optional[NsgIds] = Field(None, description=(
        "NSG OCID per role (`controlPlane`, `workers`, `pods`, `storage`; `loadBalancers` optional); omit to "
        "create this stack's NSGs in the VCN."))

    _vcn = field_validator("vcn_id")(lambda v: _ocid("vcn", v))


class FromStack(_Model):
    """A network read from another stack's outputs (``vcnId``, ``subnetIds``, ``subnetCidrs``, ``nsgIds``) through
    ``pulumi.StackReference``; ``createNsgs: true`` creates this stack's NSGs in that VCN instead of using
    ``nsgIds``."""

    stack: str = Field(description=(
        "Stack whose outputs `vcnId`, `subnetIds`, `subnetCidrs`, `nsgIds` give the network "
        "(`org/project/stack`)."))
    create_nsgs: bool = Field(False, description=(
        "Create this stack's NSGs in that VCN instead of using its `nsgIds`."))

    @field_validator("stack")
    @classmethod
    def _stack(cls, v: str) -> str:
        parts = v.split("/")
        if not 1 <= len(parts) <= 3 or not all(parts):
            raise ValueError(f"must be a stack name like org/oke-rdma-network/prod, got {v!r}")
        return v


class ApiEndpoint(_Model):
    """Kubernetes API endpoint exposure. Private by default; ``allowedCidrs`` may reach TCP 6443 (each a network
    with no host bits, listed once, no broader than /8: see :data:`MIN_API_CLIENT_PREFIX`)."""

    public: bool = Field(False, description="Give the Kubernetes API endpoint a public IP (in a public subnet).")
    allowed_cidrs: StrList = Field(default=(), description=(
        "Client CIDRs allowed to reach TCP 6443; required when public; networks with no host bits, none broader "
        "than /8 (the largest block IANA allocates to one registry)."))

    @field_validator("allowed_cidrs")
    @classmethod
    def _cidrs(cls, v: StrList) -> StrList:
        cidrs = tuple(_cidr(c) for c in v)
        twice = sorted({c for c in cidrs if cidrs.count(c) > 1})
        if twice:
            raise ValueError(f"lists {', '.join(twice)} twice; keep one")
        # The policy pack (kubernetes-api-not-public) checks the NSG rules too; this refuses them before any exists.
        broad = [c for c in cidrs if ipaddress.IPv4Network(c).prefixlen < MIN_API_CLIENT_PREFIX]
        if broad:
            verb = "is" if len(broad) == 1 else "are"
            raise ValueError(f"{', '.join(broad)} {verb} broader than /{MIN_API_CLIENT_PREFIX} (the largest block IANA "
                             f"allocates to one registry), effectively the internet: anyone there could reach the "
                             f"Kubernetes API on TCP 6443; list only your client networks (VPN, bastion, CI egress)")
        return cidrs


class Network(_Model):
    """The VCN (``vcnCidr``, an IPv4 CIDR from /16 to /30 — OCI's VCN sizes —, /20 or larger for the default plan)
    and its exposure choices, or a brought network (``existing`` or ``fromStack``)."""

    vcn_cidr: str = Field("10.0.0.0/16", description=(
        "VCN CIDR, /16 to /30 (OCI Networking docs \"VCNs and Subnets\"); the default subnet plan needs a /20 or "
        "larger (a smaller VCN needs every used subnet in `subnets`)."))
    dns_label: str = Field("okerdma", description=(
        "VCN DNS label: 1-15 lowercase letters or digits, starting with a letter."))
    subnets: SubnetCidrs = Field(SubnetCidrs(), description=(
        "Per-role subnet CIDR overrides of the default plan (each /16 to /30, inside the VCN, not overlapping)."))
    api_endpoint: ApiEndpoint = Field(ApiEndpoint(), description=(
        "Kubernetes API endpoint exposure (private by default)."))
    public_load_balancers: bool = Field(False, description=(
        "Create the public load balancer subnet (and an internet gateway)."))
    existing: Optional[ExistingNetwork] = Field(None, description=(
        "Bring an existing VCN of `oci:region` (with its subnets and optionally NSGs); excludes `fromStack`, "
        "`vcnCidr`, `dnsLabel`, `subnets`, `publicLoadBalancers`."))
    from_stack: Optional[FromStack] = Field(None, description=(
        "Read the network from another stack's outputs through `pulumi.StackReference`."))

    _vcn = field_validator("vcn_cidr")(lambda v: _oci_cidr(v, "VCN"))

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
    """The default subnet CIDR per role carved from ``vcn_cidr`` (an IPv4 CIDR from /16 to /20).

    For a VCN of prefix /p: pods get the upper half (/p+1, every pod takes a VCN IP); workers the second /p+4;
    the first /p+4 is cut into /p+8 blocks for internal load balancers, public load balancers and storage, and
    the control plane gets a /28 at the start. For 10.0.0.0/16 that is 10.0.0.0/28, 10.0.16.0/20, 10.0.128.0/17,
    10.0.1.0/24, 10.0.2.0/24, 10.0.3.0/24.

    :raises ValueError: if the VCN is smaller than /20.
    """
    vcn = ipaddress.IPv4Network(vcn_cidr)
    p = vcn.prefixlen
    if p > MAX_PLAN_PREFIX:
        raise ValueError(f"is smaller than /{MAX_PLAN_PREFIX}, too small for the default subnet plan")
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
    default plan elsewhere. ``publicLoadBalancers`` is left out when ``network.publicLoadBalancers`` is false and no
    override names it, so a VCN smaller than /20 works when every other role is given. For a brought network: the
    ``existing.subnetCidrs`` given (``fromStack``: empty, the CIDRs are read from the other stack at deploy time).

    :raises ValueError: if a role needs the default plan and the VCN is smaller than /20.
    """
    if network.existing is not None:
        given = network.existing.subnet_cidrs.model_dump(by_alias=True)
        return {r: c for r, c in given.items() if c is not None}
    if network.from_stack is not None:
        return {}
    overrides = network.subnets.model_dump(by_alias=True)
    roles = [r for r in SUBNET_ROLES if r != "publicLoadBalancers" or network.public_load_balancers
             or overrides.get(r) is not None]
    missing = [r for r in roles if overrides.get(r) is None]
    plan = default_subnet_plan(network.vcn_cidr) if missing else {}
    return {r: overrides.get(r) or plan[r] for r in roles}


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


def node_ip_demand(cfg: StackConfig) -> int:
    """Worker-subnet IPs the node pools can take: Σ (size + cycle headroom), one primary VNIC IP per node."""
    return sum(p.size + cycle_headroom_nodes(p) for p in cfg.node_pools.values())


def pod_ip_demand(cfg: StackConfig) -> int:
    """Pod-subnet IPs the node pools can take: Σ (size + cycle headroom) × maxPodsPerNode (OKE reserves
    maxPodsPerNode IPs per node with VCN-native pod networking)."""
    return sum((p.size + cycle_headroom_nodes(p)) * p.max_pods_per_node for p in cfg.node_pools.values())


def usable_ips(net: ipaddress.IPv4Network) -> int:
    """Addresses of a subnet OCI can hand out (all but the first two and the last)."""
    return max(net.num_addresses - OCI_RESERVED_IPS, 0)


_HEADROOM = (f"headroom for a rolling node cycle: cycling.maxSurge when node cycling is enabled, else OKE's default "
             f"maxSurge of {DEFAULT_MAX_SURGE}")


def _ip_demands(cfg: StackConfig, roles: list[str]) -> list[tuple[str, int, str]]:
    """``(role, IPs needed, how)`` for the roles of ``roles`` that take IPs the config can count."""
    pools = cfg.node_pools.items()
    demands = []
    if "workers" in roles:
        detail = " + ".join(f"{name} ({p.size}+{cycle_headroom_nodes(p)})" for name, p in pools)
        demands.append(("workers", node_ip_demand(cfg), f"worker nodes Σ (size + {_HEADROOM}) = {detail}"))
    if "pods" in roles and vcn_native(cfg):
        detail = " + ".join(f"{name} ({p.size}+{cycle_headroom_nodes(p)}) × {p.max_pods_per_node}" for name, p in pools)
        demands.append(("pods", pod_ip_demand(cfg), f"pod IPs Σ (size + {_HEADROOM}) × maxPodsPerNode = {detail}"))
    if "storage" in roles and cfg.storage.fss.enabled:
        demands.append(("storage", MOUNT_TARGET_IPS, f"the FSS mount target's {MOUNT_TARGET_IPS}"))
    return demands


def cidr_problems(cfg: StackConfig, nets: dict[str, ipaddress.IPv4Network], key: Callable[[str], str],
                  vcn: Optional[ipaddress.IPv4Network] = None,
                  same_subnet: Optional[Callable[[str, str], bool]] = None) -> list[str]:
    """The CIDR-planning rules on subnet CIDRs ``nets`` (role → network), each message starting with ``key(role)``:
    inside ``vcn`` (when known), no overlaps, the services CIDR outside the VCN (or, with no VCN CIDR, outside every
    subnet), worker-IP and pod-IP capacity with cycle headroom, room for the mount target, a control-plane subnet of
    /29 or larger.

    :param same_subnet: ``(role a, role b) -> True`` when both roles are served by one subnet (a brought network may
        give one subnet OCID for several roles, which OKE allows): such roles do not overlap each other, and their
        IP demands add up in the one subnet.
    """
    problems: list[str] = []
    if vcn is not None:
        for role, net in nets.items():
            if not net.subnet_of(vcn):
                problems.append(f"{key(role)}: {net} is not inside the VCN {vcn}; pick a CIDR inside "
                                f"oke-rdma:network.vcnCidr")
    roles = list(nets)

    def shared(a: str, b: str) -> bool:
        return same_subnet is not None and nets[a] == nets[b] and same_subnet(a, b)

    groups: list[list[str]] = []
    for role in roles:
        group = next((g for g in groups if shared(g[0], role)), None)
        if group is None:
            groups.append([role])
        else:
            group.append(role)
    for i, a in enumerate(roles):
        for b in roles[i + 1:]:
            if nets[a].overlaps(nets[b]) and not shared(a, b):
                problems.append(f"{key(b)}: {nets[b]} overlaps the {a} subnet {nets[a]}; subnets of one VCN "
                                f"must not overlap")
    svc = ipaddress.IPv4Network(cfg.cluster.services_cidr)
    svc_key = _key(("cluster", "servicesCidr"))
    if vcn is not None and svc.overlaps(vcn):
        problems.append(f"{svc_key}: {svc} overlaps the VCN {vcn}; Kubernetes service IPs must not collide with VCN "
                        f"addresses")
    elif vcn is None:
        problems += [f"{svc_key}: {svc} overlaps the {g[0]} subnet {nets[g[0]]}; Kubernetes service IPs must not "
                     f"collide with VCN addresses" for g in groups if svc.overlaps(nets[g[0]])]
    for group in groups:
        net = nets[group[0]]
        have = usable_ips(net)
        demands = _ip_demands(cfg, group)
        need = sum(n for _, n, _ in demands)
        if need <= have or not demands:
            continue
        if len(demands) > 1:
            parts = "; ".join(f"{role}: {n} ({how})" for role, n, how in demands)
            problems.append(f"{key(group[0])}: {net} serves the {', '.join(group)} roles and has {have} usable IPs "
                            f"(OCI reserves {OCI_RESERVED_IPS}) but they need {need} together: {parts}; give the "
                            f"roles separate subnets or a larger one")
            continue
        role, _, how = demands[0]
        if role == "pods":
            detail = how.split(" = ", 1)[1]
            problems.append(f"{key('pods')}: {net} has {have} usable IPs but the node pools "
                            f"need {need}: Σ (size + {_HEADROOM}) × maxPodsPerNode "
                            f"= {detail}; enlarge the pod subnet or lower maxPodsPerNode, the pool sizes or "
                            f"cycling.maxSurge")
        elif role == "workers":
            detail = how.split(" = ", 1)[1]
            problems.append(f"{key('workers')}: {net} has {have} usable IPs (OCI reserves {OCI_RESERVED_IPS}) but the "
                            f"node pools need {need}, one per node: Σ (size + {_HEADROOM}) = {detail}; enlarge the "
                            f"workers subnet or lower the pool sizes or cycling.maxSurge")
        else:
            problems.append(f"{key('storage')}: {net} has {have} usable IPs but an FSS mount target takes "
                            f"{MOUNT_TARGET_IPS}; use a /29 or larger")
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
    first_role: dict[str, str] = {}
    for role in SUBNET_ROLES:
        ocid, cidr = ids.get(role), cidrs.get(role)
        other = first_role.setdefault(ocid, role) if ocid is not None else role
        if other != role and cidr is not None and cidrs.get(other) is not None and \
                ipaddress.IPv4Network(cidr) != ipaddress.IPv4Network(cidrs[other]):
            # One subnet may serve several roles (OKE allows it), but it has one CIDR.
            problems.append(f"{_key(at + ('subnetCidrs', role))}: {cidr} differs from {cidrs[other]}, the CIDR given "
                            f"for the same subnet ({ocid}) as {other}; a subnet has one CIDR: give the same one")
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

    ``fromStack`` CIDRs are known only at deploy time: ``oke_rdma.network`` runs :func:`cidr_problems` on them
    then (same messages, keyed ``oke-rdma:network.fromStack.stack``).
    """
    net = cfg.network
    api = net.api_endpoint
    problems: list[str] = []
    if net.brought:
        problems += _brought_problems(cfg)
        nets = {role: ipaddress.IPv4Network(c) for role, c in subnet_plan(net).items()}
        ids = net.existing.subnet_ids.model_dump(by_alias=True) if net.existing is not None else {}
        problems += cidr_problems(cfg, nets, lambda role: _key(("network", "existing", "subnetCidrs", role)),
                                  same_subnet=lambda a, b: ids.get(a) is not None and ids.get(a) == ids.get(b))
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
