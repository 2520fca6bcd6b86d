"""The UID wall on shared storage: NFS (FSS) and Lustre believe the UID a client sends, so only the nodes may be
clients, and no pod may prove what only a node's root can.

Why (the class): NFS over AUTH_SYS, and Lustre without Kerberos, take the UID and GID a client puts in each request.
The one proof the server asks for is a source port below 1024 (FSS ``requirePrivilegedSourcePort``; LNet's reserved
ports 512-1023), which says "root on the client host" only while nobody but root can bind such a port. A pod can:

* with ``net.ipv4.ip_unprivileged_port_start`` lowered — a sysctl Pod Security *baseline and restricted* admit (PSS
  "Sysctls" safe set; Kubernetes docs "Using sysctls in a Kubernetes Cluster": safe since 1.22), and one containerd 2.0's
  CRI sets to 0 for every pod by default (containerd/containerd#9348, release note in #11502; CRI-O leaves 1024 unless
  ``default_sysctls`` says otherwise, cri-o/cri-o#10050); kernel commit 4548b683b781 "Introduce a sysctl that modifies
  the value of PROT_SOCK" (the local port range may not go below it, so ``ip_local_port_range`` follows the floor);
* running as UID 0, which baseline admits (its default capabilities include NET_BIND_SERVICE);
* adding NET_BIND_SERVICE, which even restricted admits.

So a pod whose packets reach the mount target claims any tenant's UID. The wall is therefore *where the packets come
from*: the FSS CSI driver and the Lustre client mount on the node (node plugin, host network), so exports, squash
exceptions and the storage NSGs admit the node subnets only, never a pod subnet (oke_rdma.network.NFS_CLIENT_ROLES).
Refusing the sysctl alone would leave root pods and the runtime default; narrowing alone is the wall, and the sysctl
rule is kept as a second line for clusters whose storage admits pods by a path this stack does not declare.

| rule                                | kind     | judges                                                             |
|-------------------------------------|----------|--------------------------------------------------------------------|
| pods-keep-the-privileged-port-floor | stack    | no pod spec (Helm-rendered too) sets ``net.ipv4.ip_unprivileged_port_start`` below     |
|                                     |          | 1024, nor ``net.ipv4.ip_local_port_range`` starting below 1024     |
| storage-trusts-only-node-addresses  | stack    | no storage NSG rule admits a pod subnet or the pods' NSG (nor a    |
|                                     |          | pods' NSG rule sends to a storage NSG); no FSS export option       |
|                                     |          | (Export, FSS StorageClass) has a source that                       |
|                                     |          | overlaps a pod subnet of the stack (any squash: AUTH_SYS); a       |
|                                     |          | source with root unsquashed (identitySquash NONE, squash to ID 0)  |
|                                     |          | and every Lustre ``rootSquashConfiguration.clientExceptions`` entry |
|                                     |          | is one host (/32, /128) or lies inside a node subnet of the stack  |
|                                     |          | and overlaps no pod subnet                                         |

Node and pod subnets: a node pool's ``nodeConfigDetails.placementConfigs[].subnetId`` and
``nodePoolPodNetworkOptionDetails.podSubnetIds``, matched to the stack's subnets by OCID (``node_subnets``). When a
pool's subnets cannot be matched — brought by OCID, or created in this very preview, whose ids are unknown until they
exist (the engine shows a resource's id from its first update on) — their CIDRs cannot be read: such a stack passes
the "inside a node subnet" test and is not compared with pod subnets unless the policy config sets
``externalResources: "fail"``; a stack with no node pool at all has no node subnet, so only single hosts may be
unsquashed. Pods' NSGs: ``podNsgIds`` by OCID likewise.

Sources (checked 2026-12-02): Kubernetes docs "Pod Security Standards" (baseline: capabilities, Sysctls), "Using
sysctls in a Kubernetes Cluster"; FSS docs "Working with NFS Export Options"; OCI Lustre docs "Root Squash"; OKE docs
"Provisioning PVCs on the File Storage Service" (mount target reachable from the worker nodes); the issues above.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, Severity, StackValidationArgs,
                           StackValidationPolicy)

if __package__:  # imported as the package `policies.security`
    from . import _rules as R
    from ._objects import with_derived
    from ._storage_subnets import _net, _overlaps, subnet_findings
    from ._pod_templates import pod_specs
    from .lustre import LUSTRE_FILE_SYSTEM
    from .node_subnets import SUBNET, _pool_subnet_ids
    from .oke_network import _EXTERNAL, _id
    from .storage import _links, _options_of, storage_nsgs
else:  # run by the Pulumi CLI from inside policies/security/
    import _rules as R
    from _objects import with_derived
    from _storage_subnets import _net, _overlaps, subnet_findings
    from _pod_templates import pod_specs
    from lustre import LUSTRE_FILE_SYSTEM
    from node_subnets import SUBNET, _pool_subnet_ids
    from oke_network import _EXTERNAL, _id
    from storage import _links, _options_of, storage_nsgs

UNKNOWN = R.UNKNOWN
PORT_FLOOR, STORAGE_WALL = "pods-keep-the-privileged-port-floor", "storage-trusts-only-node-addresses"
#: Linux's default first unprivileged port (kernel ``PROT_SOCK``; ip-sysctl.rst ``ip_unprivileged_port_start``).
PRIVILEGED_PORTS_END = 1024
#: Sysctls that let an unprivileged process own a port below 1024, and how to read the first port of each value.
PORT_SYSCTLS = ("net.ipv4.ip_unprivileged_port_start", "net.ipv4.ip_local_port_range")


def _first_port(value: Any) -> Any:
    """The first port a port sysctl's value names (``"0"``, ``"1024 65535"``), or UNKNOWN when it cannot be read."""
    if value is UNKNOWN:
        return UNKNOWN
    try:
        return int(str(value).replace("\t", " ").split()[0])
    except (ValueError, IndexError):
        return UNKNOWN


def port_floor_problems(spec: Any) -> list[str]:
    """Why a pod spec lets a non-root process bind a privileged port through a sysctl (unknown parts fail closed)."""
    if spec is UNKNOWN:
        return ["its pod spec is unknown during preview"]
    sysctls = R.elements(R.read(spec, "securityContext", "sysctls"))
    if sysctls is UNKNOWN:
        return ["its securityContext.sysctls are unknown during preview"]
    found = []
    for i, s in enumerate(sysctls):
        name = UNKNOWN if s is UNKNOWN else R.read(s, "name")
        if name is UNKNOWN:
            found.append(f"securityContext.sysctls[{i}] is unknown during preview")
            continue
        if name not in PORT_SYSCTLS:
            continue
        first = _first_port(R.read(s, "value"))
        if first is UNKNOWN or first < PRIVILEGED_PORTS_END:
            found.append(f"securityContext.sysctls sets {name}={R.read(s, 'value')!s}: a non-root process then binds "
                         "ports below 1024, the proof of root NFS and Lustre servers ask for, and claims any UID on "
                         "shared storage it reaches")
    return found


def validate_port_floor(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Every pod spec of the stack, Helm releases' rendered objects and ``*List`` items included (``with_derived``)."""
    for r in with_derived(args.resources):
        for where, spec in pod_specs(r.resource_type, r.props):
            for problem in port_floor_problems(spec):
                report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}'{' ' + where if where else ''}: "
                                 f"{problem}. Leave the privileged ports to root.", getattr(r, "urn", None))


# --- storage sources ----------------------------------------------------------------------------------------------
def _inside(net: Any, nets: Iterable[Any]) -> bool:
    return any(n.version == net.version and net.subnet_of(n) for n in nets)


def node_and_pod_networks(resources: list[Any]) -> tuple[list[Any], list[Any], bool, bool]:
    """(node subnet networks, pod subnet networks, some pool's subnets are external or unreadable, a node pool
    exists) of the stack: subnets matched to the node pools' subnet OCIDs. A subnet whose CIDR is unknown makes the
    pod side unreadable (returned as the third flag, fail closed by the caller)."""
    subnets = {i: s for s in resources if s.resource_type == SUBNET and (i := _id(s))}
    nodes, pods, unreadable, pools = [], [], False, False
    for pool in (r for r in resources if r.resource_type == R.NODE_POOL):
        pools = True
        for ids, out in zip(_pool_subnet_ids(pool), (nodes, pods)):
            if ids is UNKNOWN:
                unreadable = True
                continue
            for i in ids:
                subnet = subnets.get(i) if isinstance(i, str) else None
                net = UNKNOWN if subnet is None else _net(R.read(subnet.props, "cidrBlock"))
                if net is UNKNOWN:
                    unreadable = True
                else:
                    out.append(net)
    return nodes, pods, unreadable, pools


def _root_source_problem(source: Any, nodes: list, pods: list, unverifiable: bool) -> Optional[str]:
    net = _net(source)
    if net is UNKNOWN:
        return "is unknown during preview or not a CIDR"
    if _overlaps(net, pods):
        return "overlaps a pod subnet"
    if net.num_addresses == 1 or _inside(net, nodes) or unverifiable:
        return None
    return "is neither one host nor inside a node subnet of this stack"


def pod_nsgs(resources: list[Any]) -> set:
    """URNs of the NSGs node pools give their pods (``nodePoolPodNetworkOptionDetails.podNsgIds``, by OCID)."""
    ids = set()
    for pool in (r for r in resources if r.resource_type == R.NODE_POOL):
        found = R.elements(R.read(pool.props, "nodeConfigDetails", "nodePoolPodNetworkOptionDetails", "podNsgIds"))
        ids.update(i for i in (found if found is not UNKNOWN else []) or [] if isinstance(i, str))
    return {r.urn for r in resources if r.resource_type == R.NSG and _id(r) in ids}


def nsg_findings(resources: list[Any], pods: list[Any]) -> Iterable[tuple[str, Any]]:
    """NSG rules that let pods reach a mount target: an INGRESS rule of a storage NSG (``storage.storage_nsgs``)
    whose source is a CIDR overlapping a pod subnet or a pods' NSG, and an EGRESS rule of a pods' NSG whose
    destination is a storage NSG."""
    nsgs, pod_groups = storage_nsgs(resources), pod_nsgs(resources)

    def is_pod_nsg(rule: Any, prop: str) -> bool:
        deps = {d.urn for d in rule.property_dependencies.get(prop, [])}
        value = R.read(rule.props, prop)
        return bool(deps & pod_groups) or any(_id(r) == value for r in resources if r.urn in pod_groups)

    for rule in (r for r in resources if r.resource_type == R.NSG_RULE):
        direction = R.read(rule.props, "direction")
        on = _links(rule, "networkSecurityGroupId", nsgs)
        if on and direction == "INGRESS":
            net = _net(R.read(rule.props, "source"))
            if (net is not UNKNOWN and _overlaps(net, pods)) or is_pod_nsg(rule, "source"):
                yield (f"NSG rule '{rule.name}' admits pods to storage NSG '{on[0].name}' (mount target "
                       f"'{on[1].name}'): a pod's own NFS client sends any UID from a privileged port. Admit the "
                       "workers only."), rule.urn
        elif direction == "EGRESS" and is_pod_nsg(rule, "networkSecurityGroupId"):
            to = _links(rule, "destination", nsgs)
            if to:
                yield (f"NSG rule '{rule.name}' sends pods to storage NSG '{to[0].name}' (mount target "
                       f"'{to[1].name}'): only the nodes mount NFS. Remove it."), rule.urn


def validate_storage_wall(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    external_fails = (args.get_config() or {}).get("externalResources", "pass") == "fail"
    resources = list(args.resources)
    nodes, pods, unreadable, _ = node_and_pod_networks(resources)
    unverifiable = unreadable and not external_fails
    for message, urn in nsg_findings(resources, pods):
        report_violation(message, urn)
    for message, urn in subnet_findings(resources, pods, external_fails):
        report_violation(message + ".", urn)
    for r in resources:
        if r.resource_type == LUSTRE_FILE_SYSTEM:
            exceptions = R.elements(R.read(r.props, "rootSquashConfiguration", "clientExceptions"))
            for i, cidr in enumerate(exceptions if exceptions is not UNKNOWN else [UNKNOWN]):
                problem = _root_source_problem(cidr, nodes, pods, unverifiable)
                if problem:
                    report_violation(
                        f"Lustre file system '{r.name}' rootSquashConfiguration.clientExceptions[{i}] "
                        f"({cidr if isinstance(cidr, str) else 'unknown'}) {problem}: root on every client there "
                        "is root on every file, and a pod binds the reserved LNet ports as easily as root does. "
                        "Exempt only the nodes that administer the file system (their /32s, or the workers subnet).",
                        r.urn)
            continue
        options, _owner = _options_of(r.resource_type, r.props, r.name)
        if options is None:
            continue
        if options is UNKNOWN:
            report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}': its export options are unknown during "
                             "preview, so whether pods reach it cannot be judged; declare them as a literal list.",
                             r.urn)
            continue
        for label, source, squash in options:
            net = _net(source)
            if net is not UNKNOWN and _overlaps(net, pods):
                report_violation(f"{label} admits {source}, which overlaps a pod subnet: a pod's own NFS client "
                                 "(root pods, NET_BIND_SERVICE, or ip_unprivileged_port_start lowered, which Pod "
                                 "Security and containerd 2.0 allow) sends any UID from a privileged port. List the "
                                 "node (workers) subnets only; the CSI driver mounts on the node.", r.urn)
                continue
            if squash is UNKNOWN or squash == "NONE":
                problem = _root_source_problem(source, nodes, pods, unverifiable)
                if problem:
                    report_violation(f"{label} leaves root unsquashed{' (squash unknown)' if squash is UNKNOWN else ''}"
                                     f" for {source if isinstance(source, str) else 'an unknown source'}, which "
                                     f"{problem}. Unsquash root only for the node subnet (or hosts) that prepare "
                                     "directories; squash root (identitySquash ROOT) for everyone else.", r.urn)


POLICIES = [
    StackValidationPolicy(
        name=PORT_FLOOR,
        description=("No pod lowers the privileged-port floor (net.ipv4.ip_unprivileged_port_start, or "
                     "ip_local_port_range, below 1024): a privileged port is what NFS and Lustre take as proof of root."),
        validate=validate_port_floor, enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.HIGH,
        remediation_steps=("Remove the sysctl and listen on a port from 1024 up (a Service maps 80/443 to it). "
                           "Source: docs/threat-model.md, 'The UID wall on shared storage'; Kubernetes docs 'Using "
                           "sysctls in a Kubernetes Cluster'."),
        tags=["kubernetes", "storage", "tenancy"]),
    StackValidationPolicy(
        name=STORAGE_WALL,
        description=("Shared storage trusts only nodes: no FSS export admits a pod subnet, and root is unsquashed "
                     "(identitySquash NONE, Lustre clientExceptions) only for hosts or node subnets."),
        validate=validate_storage_wall, enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.HIGH,
        remediation_steps=("List the workers subnet as the export's source and in the storage NSG, never the pods "
                           "subnet; squash root everywhere but the preparation export. Source: docs/threat-model.md, "
                           "'The UID wall on shared storage'; FSS docs 'Working with NFS Export Options'."),
        tags=["oci", "storage", "tenancy"],
        config_schema=PolicyConfigSchema(properties=dict(_EXTERNAL))),
]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    PORT_FLOOR: "fails closed: an unknown pod spec, sysctl list, name or port value is a violation",
    STORAGE_WALL: ("fails closed: unknown export options, sources or squash exceptions are violations; pool subnets "
                   "whose CIDRs cannot be read (brought by OCID) pass the node-subnet test unless externalResources "
                   "is 'fail'"),
}
