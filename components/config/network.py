"""Network config: the VCN, subnet CIDRs per role (default plan carved from ``vcnCidr``) and API exposure.

Source: OKE docs, "Network Resource Configuration" (contengnetworkconfig.htm).
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Optional

from pydantic import Field, field_validator

from ._base import _DNS_LABEL_RE, StrList, _cidr, _key, _Model

if TYPE_CHECKING:
    from .stack import StackConfig

class SubnetCidrs(_Model):
    """Per-role subnet CIDR overrides; an unset role gets the default plan carved from ``vcnCidr``."""

    control_plane: Optional[str] = None
    workers: Optional[str] = None
    pods: Optional[str] = None
    internal_load_balancers: Optional[str] = None
    public_load_balancers: Optional[str] = None
    storage: Optional[str] = None

    _check = field_validator("*")(lambda v: None if v is None else _cidr(v))


class ApiEndpoint(_Model):
    """Kubernetes API endpoint exposure. Private by default; ``allowedCidrs`` may reach TCP 6443."""

    public: bool = False
    allowed_cidrs: StrList = Field(default=())

    @field_validator("allowed_cidrs")
    @classmethod
    def _cidrs(cls, v: StrList) -> StrList:
        return tuple(_cidr(c) for c in v)


class Network(_Model):
    """The VCN (``vcnCidr``, an IPv4 CIDR from /8 to /20 for the default plan) and its exposure choices."""

    vcn_cidr: str = "10.0.0.0/16"
    dns_label: str = "okerdma"
    subnets: SubnetCidrs = SubnetCidrs()
    api_endpoint: ApiEndpoint = ApiEndpoint()
    public_load_balancers: bool = False

    _vcn = field_validator("vcn_cidr")(lambda v: _cidr(v))

    @field_validator("dns_label")
    @classmethod
    def _label(cls, v: str) -> str:
        if not _DNS_LABEL_RE.match(v):
            raise ValueError("must be 1-15 lowercase letters or digits starting with a letter, like okerdma")
        return v


SUBNET_ROLES = ("controlPlane", "workers", "pods", "internalLoadBalancers", "publicLoadBalancers", "storage")


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
    """The effective subnet CIDR per role: overrides from ``network.subnets``, the default plan elsewhere."""
    overrides = network.subnets.model_dump(by_alias=True)
    missing = [r for r in SUBNET_ROLES if overrides.get(r) is None]
    plan = default_subnet_plan(network.vcn_cidr) if missing else {}
    return {r: overrides.get(r) or plan[r] for r in SUBNET_ROLES}


def check_network(cfg: StackConfig) -> list[str]:
    problems: list[str] = []
    try:
        plan = subnet_plan(cfg.network)
    except ValueError as e:
        return [f"{_key(('network', 'vcnCidr'))}: {e}; use a /16 (or larger) VCN or give every "
                f"oke-rdma:network.subnets CIDR"]
    vcn = ipaddress.IPv4Network(cfg.network.vcn_cidr)
    nets = {role: ipaddress.IPv4Network(c) for role, c in plan.items()}
    for role, net in nets.items():
        if not net.subnet_of(vcn):
            problems.append(f"{_key(('network', 'subnets', role))}: {net} is not inside the VCN "
                            f"{vcn}; pick a CIDR inside oke-rdma:network.vcnCidr")
    roles = list(nets)
    for i, a in enumerate(roles):
        for b in roles[i + 1:]:
            if nets[a].overlaps(nets[b]):
                problems.append(f"{_key(('network', 'subnets', b))}: {nets[b]} overlaps the {a} subnet "
                                f"{nets[a]}; subnets of one VCN must not overlap")
    svc = ipaddress.IPv4Network(cfg.cluster.services_cidr)
    if svc.overlaps(vcn):
        problems.append(f"{_key(('cluster', 'servicesCidr'))}: {svc} overlaps the VCN {vcn}; "
                        f"Kubernetes service IPs must not collide with VCN addresses")
    api = cfg.network.api_endpoint
    if api.public and not api.allowed_cidrs:
        problems.append(f"{_key(('network', 'apiEndpoint', 'allowedCidrs'))}: a public API endpoint needs the "
                        f"client CIDRs allowed to reach TCP 6443; list them (never 0.0.0.0/0)")
    # Pod-IP capacity (VCN-native pod networking gives every pod a pod-subnet IP).
    pods = nets["pods"].num_addresses - 3  # OCI reserves the first two and the last address of every subnet
    demand = sum(p.size * p.max_pods_per_node for p in cfg.node_pools.values())
    if demand > pods:
        problems.append(f"{_key(('network', 'subnets', 'pods'))}: {nets['pods']} has {pods} usable IPs but the "
                        f"node pools need {demand} (sum of size × maxPodsPerNode); enlarge the pod subnet or "
                        f"lower maxPodsPerNode")
    return problems
