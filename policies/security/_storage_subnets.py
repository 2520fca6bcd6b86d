"""Where shared storage sits, for ``storage-trusts-only-node-addresses``: a storage endpoint is reachable by every
address its subnet's security lists admit, whatever its NSGs, export options or squash exceptions say.

A storage endpoint — an FSS mount target, a Lustre file system (``subnetId``) — is refused when:

* its subnet hosts a node pool's workers or pods (``placementConfigs[].subnetId``, ``podSubnetIds``): pods are there,
  or reach their nodes' subnet by the rules VCN-native pod networking needs;
* its subnet overlaps a pod subnet of the stack (it sits among the pods: every pod of every tenant reaches it and
  speaks as any UID; Lustre has no per-export source list to narrow that), or
* a security list of its subnet (``securityListIds``) admits a source overlapping a pod subnet on the storage ports
  (FSS: TCP 111, 2048-2050 and UDP 111, 2048; Lustre: TCP 988), or with protocol "all": OCI allows traffic that any
  security list of the subnet or any NSG of the VNIC allows, so a security list admitting pods bypasses narrow NSGs.

The subnet and its security lists are matched by property dependency or known OCID. A storage subnet the stack does
not declare, or whose CIDR or rules are unknown, is left to the stack's other checks (the same limit as the node
subnets' CIDRs: ``uid_wall.node_and_pod_networks``) unless the policy config sets ``externalResources: "fail"``.

Sources (checked 2026-12-02): OCI Networking docs "Security Rules" ("a packet is allowed if any rule in any of the
relevant lists and groups allows it"); FSS docs "Configuring VCN Security Rules for File Storage" (ports); OCI File
Storage with Lustre docs "Security rules" (TCP 988); OCI API "CreateLustreFileSystemDetails" and
"CreateMountTargetDetails" (``subnetId``).
"""
from __future__ import annotations

import ipaddress
from typing import Any, Iterable

if __package__:  # imported as the package `policies.security`
    from . import _rules as R
    from .lustre import LUSTRE_FILE_SYSTEM
    from .node_subnets import SUBNET, _pool_subnet_ids
    from .oke_network import _id, _linked
    from .storage import MOUNT_TARGET
else:  # run by the Pulumi CLI from inside policies/security/
    import _rules as R
    from lustre import LUSTRE_FILE_SYSTEM
    from node_subnets import SUBNET, _pool_subnet_ids
    from oke_network import _id, _linked
    from storage import MOUNT_TARGET

UNKNOWN = R.UNKNOWN
#: Storage endpoint type → (what it is, the (protocol, port) pairs its clients reach it on).
STORAGE_ENDPOINTS = {
    MOUNT_TARGET: ("mount target", ((R.TCP, 111), (R.TCP, 2048), (R.TCP, 2049), (R.TCP, 2050), (R.UDP, 111),
                                    (R.UDP, 2048))),
    LUSTRE_FILE_SYSTEM: ("Lustre file system", ((R.TCP, 988),)),
}


def _net(text: Any) -> Any:
    """``text`` as a network (host bits allowed, as OCI accepts them), or UNKNOWN when it is not a CIDR string
    (fail closed: the callers treat it as possibly overlapping). Shared with ``uid_wall``."""
    if not isinstance(text, str):
        return UNKNOWN
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        return UNKNOWN


def _overlaps(net: Any, nets: Iterable[Any]) -> bool:
    return any(n.version == net.version and n.overlaps(net) for n in nets)


def _admits_pods(rule: R.IngressRule, pods: list, ports: Iterable[tuple[str, int]]) -> Any:
    """True/False/UNKNOWN for "this ingress rule admits a pod subnet on a storage port"."""
    if rule.source_type not in (None, "CIDR_BLOCK") and rule.source_type is not UNKNOWN:
        return False  # a service CIDR label
    net = UNKNOWN if rule.source is UNKNOWN else _net(rule.source)
    if net is UNKNOWN:
        return UNKNOWN if rule.source is UNKNOWN else False
    if not _overlaps(net, pods):
        return False
    return R.any3(*(R.covers_port(rule, proto, port) for proto, port in ports))


def pool_subnets(resources: list[Any], subnets: list[Any]) -> set:
    """URNs of the subnets that host a node pool's workers or pods: the pool's ``nodeConfigDetails`` dependencies
    (known before the subnets' OCIDs are) and the subnets whose known OCID a pool names."""
    hosted = set()
    for pool in (r for r in resources if r.resource_type == R.NODE_POOL):
        hosted |= {d.urn for d in pool.property_dependencies.get("nodeConfigDetails", []) if d.resource_type == SUBNET}
        ids = [i for group in _pool_subnet_ids(pool) if group is not UNKNOWN for i in group if isinstance(i, str)]
        hosted |= {x.urn for x in subnets if _id(x) is not None and _id(x) in ids}
    return hosted


def subnet_findings(resources: list[Any], pods: list[Any], strict: bool) -> Iterable[tuple[str, Any]]:
    """(message, urn) for every storage endpoint whose subnet holds pods or admits them (the module docstring).
    ``strict``: a subnet or rule that cannot be read is a violation (``externalResources: "fail"``)."""
    subnets = [r for r in resources if r.resource_type == SUBNET]
    lists = [r for r in resources if r.resource_type == R.SECURITY_LIST]
    hosted = pool_subnets(resources, subnets)
    for r in resources:
        if r.resource_type not in STORAGE_ENDPOINTS:
            continue
        what, ports = STORAGE_ENDPOINTS[r.resource_type]
        label = f"{what} '{r.name}'"
        subnet_id = R.read(r.props, "subnetId")
        found = _linked(r, "subnetId", subnet_id, subnets)
        if not found:
            if strict:
                yield (f"{label}: its subnet (subnetId) is not declared in this stack, so whether pods reach it "
                       "cannot be judged; declare the storage subnet here"), r.urn
            continue
        subnet = found[0]
        if subnet.urn in hosted:
            yield (f"{label} sits in subnet '{subnet.name}', which hosts a node pool's workers or pods: every "
                   "tenant's pod reaches it directly (VCN-native pods, and the rules that let pods reach their "
                   "nodes) and claims any UID. Place storage in its own subnet that admits the workers only"), r.urn
            continue
        net = _net(R.read(subnet.props, "cidrBlock"))
        if net is UNKNOWN:
            if strict:
                yield f"{label}: its subnet '{subnet.name}' has a CIDR unknown during preview", r.urn
        elif pods and _overlaps(net, pods):
            yield (f"{label} sits in subnet '{subnet.name}' ({net}), which overlaps a pod subnet: every tenant's pod "
                   "reaches it directly and claims any UID. Place storage in its own subnet that admits the "
                   "workers only"), r.urn
            continue
        if not pods:
            continue
        ids = R.elements(R.read(subnet.props, "securityListIds"))
        linked = {x.urn for x in _linked(subnet, "securityListIds", None, lists)}
        linked |= {x.urn for x in lists if ids is not UNKNOWN and _id(x) is not None and _id(x) in ids}
        for sl in (x for x in lists if x.urn in linked):
            rules = R.security_list_rules(sl.props, sl.name)
            if rules is UNKNOWN:
                yield (f"{label}: the ingress rules of security list '{sl.name}' of its subnet '{subnet.name}' are "
                       "unknown during preview, so whether pods reach it cannot be judged"), r.urn
                continue
            for rule in rules:
                verdict = _admits_pods(rule, pods, ports)
                if verdict is True or verdict is UNKNOWN:
                    how = "admits" if verdict is True else "may admit (unknown during preview)"
                    yield (f"{label}: security list '{sl.name}' of its subnet '{subnet.name}' {how} a pod subnet "
                           f"({rule.source if isinstance(rule.source, str) else 'unknown source'}) on its storage "
                           "ports, past its NSGs and export options: every tenant's pod claims any UID there. Admit "
                           "the workers subnet only"), r.urn
