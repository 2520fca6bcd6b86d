"""Rules of the ``network`` section that read other keys of the stack config, and values derived from the whole
:class:`~oke_rdma.config.stack.StackConfig`. The section's models and single-key rules are in
``oke_rdma.config.network``, which imports nothing back."""

from __future__ import annotations

import ipaddress
import math
from typing import Callable, Optional

from ...facts.storage import LUSTRE_SUBNET_IPS_PER_BLOCK, lustre_subnet_ips
from .._base import _key
from ..compute import NodePool
from ..network import (DEFAULT_MAX_SURGE, MIN_CONTROL_PLANE_PREFIX, MOUNT_TARGET_IPS, NSG_ROLES, OCI_RESERVED_IPS,
                       SUBNET_ROLES, VCN_PREFIX_RANGE, subnet_plan)
from ..stack import StackConfig


def vcn_native(cfg: StackConfig) -> bool:
    """True with VCN-native pod networking (every pod takes an IP of the pod subnet)."""
    return cfg.cluster.cni_type == "OCI_VCN_IP_NATIVE"


def required_subnet_roles(cfg: StackConfig) -> tuple[str, ...]:
    """The subnet roles the stack uses: control plane, workers, internal load balancers, pods (VCN-native pod
    networking) and storage (FSS enabled, or a Lustre file system). ``publicLoadBalancers`` is never required."""
    roles = ["controlPlane", "workers", "internalLoadBalancers"]
    if vcn_native(cfg):
        roles.append("pods")
    if cfg.storage.fss.enabled or cfg.storage.lustre is not None:
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
    if "storage" in roles:
        parts = storage_ip_demands(cfg)
        if parts:
            demands.append(("storage", sum(n for n, _ in parts), " + ".join(how for _, how in parts)))
    return demands


def storage_ip_demands(cfg: StackConfig) -> list[tuple[int, str]]:
    """``(IPs, what takes them)`` in the storage subnet: the FSS mount target's 3 (``storage.fss.enabled``) and the
    Lustre file system's upper bound (``storage.lustre``: :func:`~oke_rdma.facts.storage.lustre_subnet_ips`)."""
    parts = []
    if cfg.storage.fss.enabled:
        parts.append((MOUNT_TARGET_IPS, f"the FSS mount target's {MOUNT_TARGET_IPS}"))
    lustre = cfg.storage.lustre
    if lustre is not None:
        n = lustre_subnet_ips(lustre.capacity_gb)
        parts.append((n, f"the Lustre file system's {n} (up to {LUSTRE_SUBNET_IPS_PER_BLOCK} per started 100 TB of "
                         f"storage.lustre.capacityGb {lustre.capacity_gb}, OCI's sizing figure)"))
    return parts


def smallest_prefix(ips: int) -> Optional[int]:
    """The longest prefix length (smallest subnet) OCI accepts whose usable addresses hold ``ips``, or None when not
    even a /16 does."""
    low, high = VCN_PREFIX_RANGE
    return next((p for p in range(high, low - 1, -1) if 2 ** (32 - p) - OCI_RESERVED_IPS >= ips), None)


def cidr_problems(cfg: StackConfig, nets: dict[str, ipaddress.IPv4Network], key: Callable[[str], str],
                  vcn: Optional[ipaddress.IPv4Network] = None,
                  same_subnet: Optional[Callable[[str, str], bool]] = None,
                  given: Optional[Callable[[str], bool]] = None) -> list[str]:
    """The CIDR-planning rules on subnet CIDRs ``nets`` (role → network), each message starting with ``key(role)``:
    inside ``vcn`` (when known), no overlaps, the services CIDR outside the VCN (or, with no VCN CIDR, outside every
    subnet), worker-IP and pod-IP capacity with cycle headroom, room for the FSS mount target and the Lustre file system
    in the storage subnet (:func:`storage_ip_demands`), a control-plane subnet of /29 or larger.

    :param same_subnet: ``(role a, role b) -> True`` when both roles are served by one subnet (a brought network may
        give one subnet OCID for several roles, which OKE allows): such roles do not overlap each other, and their
        IP demands add up in the one subnet.
    :param given: ``role -> True`` when the user set the role's CIDR (False: the default plan's); two overlapping
        subnets are reported on the key the user set. None: every CIDR was given (a brought network).
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
                # name the key the user set: a default-plan subnet overlapping an override is the override's fault
                blamed, other = (a, b) if given is not None and given(a) and not given(b) else (b, a)
                whose = (f"{key(other)}" if given is None or given(other)
                         else f"the default plan's {other} subnet; {key(other)} is not set")
                problems.append(f"{key(blamed)}: {nets[blamed]} overlaps the {other} subnet {nets[other]} ({whose}); "
                                f"subnets of one VCN must not overlap: pick a CIDR outside it")
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
            prefix = smallest_prefix(need)
            fix = (f"use a /{prefix} or larger" if prefix is not None else
                   "no single subnet holds them: lower storage.lustre.capacityGb")
            problems.append(f"{key('storage')}: {net} has {have} usable IPs (OCI reserves {OCI_RESERVED_IPS}) but the "
                            f"storage subnet needs {need}: {how}; {fix}")
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
                   "storage": "the FSS mount target (storage.fss.enabled) and the Lustre file system "
                              "(storage.lustre) live there"}.get(role, "OKE needs it")
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
        overrides = net.subnets.model_dump(by_alias=True)
        problems += cidr_problems(cfg, nets, lambda role: _key(("network", "subnets", role)),
                                  vcn=ipaddress.IPv4Network(net.vcn_cidr),
                                  given=lambda role: overrides.get(role) is not None)
    if api.public_subnet and net.brought:
        problems.append(f"{_key(('network', 'apiEndpoint', 'publicSubnet'))}: has no effect on a brought network "
                        f"(its control-plane subnet is yours); remove it")
    if api.public and not api.allowed_cidrs and net.creates_nsgs:
        problems.append(f"{_key(('network', 'apiEndpoint', 'allowedCidrs'))}: a public API endpoint needs the "
                        f"client CIDRs allowed to reach TCP 6443; list them (never 0.0.0.0/0)")
    return problems
