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
from typing import Optional

from pydantic import Field, field_validator

from ._base import _DNS_LABEL_RE, StrList, _cidr, _Model, _ocid


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
#: The most public IPv4 addresses ``apiEndpoint.allowedCidrs`` may cover *together*: one /8. Many /8s are each "a
#: network", but 119 public /8s are half the internet; the union is measured after removing the blocks that are not
#: public (:data:`NON_PUBLIC_V4`), so private ranges (10/8, 172.16/12, 192.168/16, 100.64/10) never count.
MAX_API_CLIENT_PUBLIC_ADDRESSES = 2 ** 24
#: IPv4 blocks that are not public internet: IANA IPv4 Special-Purpose Address Registry entries that are not
#: globally reachable (RFC 6890 and updates), multicast 224/4 and reserved 240/4 (checked 2026-11-30). Disjoint.
NON_PUBLIC_V4 = tuple(ipaddress.IPv4Network(n) for n in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
    "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4",
    "240.0.0.0/4"))


def public_ipv4_addresses(cidrs: "list[str] | tuple[str, ...]") -> int:
    """How many distinct public IPv4 addresses the union of ``cidrs`` (IPv4 CIDR strings) covers."""
    nets = ipaddress.collapse_addresses(ipaddress.IPv4Network(c, strict=False) for c in cidrs)
    return sum(n.num_addresses - sum(min(n.num_addresses, x.num_addresses) for x in NON_PUBLIC_V4 if n.overlaps(x))
               for n in nets)


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
    storage: Optional[str] = Field(None, description=(
        "storage subnet (FSS mount target: 3 IPs; Lustre file system: up to 60 IPs per started 100 TB, "
        "docs/storage.md)."))


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
    with no host bits, listed once, no broader than /8: see :data:`MIN_API_CLIENT_PREFIX`; together no more than
    one /8 of public addresses: :data:`MAX_API_CLIENT_PUBLIC_ADDRESSES`)."""

    public: bool = Field(False, description=(
        "Give the Kubernetes API endpoint a public IP (in a public subnet). Turning it on later replaces the "
        "control-plane subnet and the cluster, unless the stack was created with `publicSubnet: true`."))
    public_subnet: bool = Field(False, description=(
        "Create the control-plane subnet public (public IPs allowed, internet route) while the endpoint stays "
        "private: `public` then switches in place (OKE UpdateClusterEndpointConfig). Created networks only; set it "
        "when the stack is created (changing it replaces the subnet and the cluster)."))
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
        public = public_ipv4_addresses(cidrs)
        if public > MAX_API_CLIENT_PUBLIC_ADDRESSES:
            raise ValueError(f"these {len(cidrs)} CIDR(s) together cover {public:,} public IPv4 addresses, more than "
                             f"one /8 ({MAX_API_CLIENT_PUBLIC_ADDRESSES:,}): each is a network, but their union is "
                             f"internet-scale; list only your client networks (VPN, bastion, CI egress)")
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
