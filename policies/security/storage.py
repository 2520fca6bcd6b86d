"""File Storage (NFS) exposure rules: exports not open to the internet, and NFS security rules on NFS ports only.

Sources: FSS docs "Working with NFS Export Options" (an export's options; an export created without options gets the
default entry source 0.0.0.0/0, READ_WRITE, identitySquash NONE, no privileged port), "Security rules for File
Storage" (TCP 111, 2048-2050 and UDP 111, 2048 to the mount target; TCP 2051 for in-transit TLS), OKE docs
"Provisioning PVCs on the File Storage Service" and oracle/oci-cloud-controller-manager ``fss_controller.go`` (the
CSI driver's StorageClass parameter ``exportOptions``, a JSON list of the same ClientOptions). Property names checked
against pulumi_oci 5.5.0 (``filestorage/_inputs.py``: ``exportOptions[].source``, ``identitySquash`` — ROOT when
unset) and pulumi_kubernetes 4.34.2 (``StorageClass.parameters``).

Rules and levels:

* ``fss-export-no-internet-root`` (MANDATORY): an export option — of an ``oci:FileStorage/export:Export`` or of the
  ``exportOptions`` of a ``fss.csi.oraclecloud.com`` StorageClass — whose source is 0.0.0.0/0, ::/0 or another
  internet-wide range (``_rules.internet_wide``: IPv4 shorter than /8, e.g. 0.0.0.0/1) with ``identitySquash: NONE``: any host that reaches the mount target acts as root on every file. An export or an FSS
  StorageClass with *no* export options counts, because FSS then applies exactly that default.
* ``fss-export-no-internet`` (ADVISORY): the same open source with ``ROOT`` or ``ALL`` squash. Root is squashed, but
  every other uid reads and writes everything from any network that reaches the mount target (peered VCNs, VPN,
  FastConnect); NSGs then are the only guard. Advisory because it is a deliberate choice some shared read-mostly
  datasets make; narrow it to the client subnets unless you mean it.
* ``fss-export-root-needs-privileged-port`` (MANDATORY): an export option (of an Export or an FSS StorageClass)
  that leaves root unsquashed (``identitySquash: NONE``, or a squash to ``anonymousUid`` 0) must keep
  ``requirePrivilegedSourcePort`` true (unset counts as true: pulumi_oci 5.5.0 ``ExportExportOptionArgs`` and OCI API
  "ClientOptions" default it to true for an explicit option). NFS over AUTH_SYS believes the UID a client sends;
  with unprivileged source ports allowed, any non-root process on any client host claims UID 0 and is root on every
  file. An export with no options (FSS's default entry: 0.0.0.0/0, NONE, any port) is refused by
  ``fss-export-no-internet-root``.
  Limit: a source port below 1024 only proves root on the client, and a pod may bind one (``NET_BIND_SERVICE``, or
  a runtime that lowers ``net.ipv4.ip_unprivileged_port_start``), so NSGs that admit only the nodes stay the guard.
* ``nfs-rules-only-nfs-ports`` (MANDATORY, stack): the NFS rules of every mount target in the stack use NFS ports
  only. "NFS rules" are identified structurally, so the rule works on any stack: the *storage NSGs* are the NSGs in a
  mount target's ``nsgIds`` (linked through the mount target's property dependencies on ``nsgIds``, or by comparing
  known OCIDs with the NSGs' ``id``); their rules are the NSG rules whose ``networkSecurityGroupId`` is such an NSG
  (property dependency or id). Checked: every INGRESS rule of a storage NSG (destination ports), every EGRESS rule of
  a storage NSG that has a source port range (a reply rule: source ports), and every EGRESS rule of another NSG
  whose destination is a storage NSG (clients → mount target: destination ports). ICMP is allowed (path MTU). NFS
  ports: TCP 111, 2048-2050 (and 2051, NFS over TLS), UDP 111 and 2048. Egress rules of a storage NSG without a
  source port range (connections the mount target opens itself: LDAP or Kerberos for ID mapping) are not judged.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

from pulumi_policy import (EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy,
                           Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies` (tests, offline/)
    from . import _rules as R
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/ (the pack directory is on sys.path)
    import _rules as R
    from _gate import examines

UNKNOWN = R.UNKNOWN
EXPORT = "oci:FileStorage/export:Export"
MOUNT_TARGET = "oci:FileStorage/mountTarget:MountTarget"
STORAGE_CLASS = "kubernetes:storage.k8s.io/v1:StorageClass"
FSS_CSI_DRIVER = "fss.csi.oraclecloud.com"
#: What FSS applies to an export created without export options.
FSS_DEFAULT_OPTION = {"source": "0.0.0.0/0", "access": "READ_WRITE", "identitySquash": "NONE",
                      "requirePrivilegedSourcePort": False}
#: NFS destination ports of the mount target, per protocol (TCP 2051 only matters with in-transit TLS).
NFS_PORTS = {R.TCP: ((111, 111), (2048, 2050), (2051, 2051)), R.UDP: ((111, 111), (2048, 2048))}
NFS_PORTS_TEXT = "TCP 111, 2048-2050 and UDP 111, 2048 (TCP 2051 with in-transit TLS)"


# --- export options ----------------------------------------------------------------------------------------------
def _options_of(resource_type: str, props: Any, name: str) -> tuple[Any, str]:
    """The export options a resource declares — a list of ``(label, source, identitySquash)`` — or UNKNOWN, or None
    when the resource is not an FSS export; and the owner's label for messages."""
    if resource_type == EXPORT:
        owner = f"Export '{name}'"
        raw = R.elements(R.read(props, "exportOptions"))
        if raw is UNKNOWN:
            return UNKNOWN, owner
        if not raw:
            return [(f"{owner} (no exportOptions: FSS applies its default)", FSS_DEFAULT_OPTION["source"],
                     FSS_DEFAULT_OPTION["identitySquash"])], owner
        return [(f"{owner} exportOptions[{i}]", R.read(o, "source"),
                 effective_squash(R.read(o, "identitySquash", default="ROOT"), R.read(o, "anonymousUid"),
                                  R.read(o, "anonymousGid")))
                for i, o in enumerate(raw)], owner
    if resource_type == STORAGE_CLASS:
        owner = f"StorageClass '{name}'"
        provisioner = R.read(props, "provisioner")
        if provisioner != FSS_CSI_DRIVER:
            return (UNKNOWN if provisioner is UNKNOWN else None), owner
        text = R.read(props, "parameters", "exportOptions")
        if text is UNKNOWN:
            return UNKNOWN, owner
        if not text:
            return [(f"{owner} (no parameters.exportOptions: FSS applies its default)",
                     FSS_DEFAULT_OPTION["source"], FSS_DEFAULT_OPTION["identitySquash"])], owner
        try:
            entries = json.loads(text)
        except (TypeError, ValueError):
            entries = None
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            return [(f"{owner} parameters.exportOptions (not a JSON list of options: the CSI driver refuses it)",
                     UNKNOWN, UNKNOWN)], owner
        return [(f"{owner} parameters.exportOptions[{i}]", e.get("source"),
                 effective_squash(e.get("identitySquash") or "ROOT", e.get("anonymousUid"), e.get("anonymousGid")))
                for i, e in enumerate(entries)], owner
    return None, ""


def effective_squash(squash: Any, anonymous_uid: Any, anonymous_gid: Any = None) -> Any:
    """What an export option's squash really does: ROOT or ALL that maps to ``anonymousUid`` 0 or ``anonymousGid`` 0
    leaves every client root as root, or in root's group (group 0 owns system files and, on many images, writable
    ones), so it counts as NONE (FSS docs, "Working with NFS Export Options": squashed users become
    anonymousUid/anonymousGid; the Lustre rule refuses a squash GID 0 alike). An unknown anonymous UID or GID with
    squash on is UNKNOWN (fail closed)."""
    if squash is UNKNOWN or str(squash).upper() not in ("ROOT", "ALL"):
        return squash
    if anonymous_uid is UNKNOWN or anonymous_gid is UNKNOWN:
        return UNKNOWN
    if any(v is not None and str(v).strip() in ("0", "0.0") for v in (anonymous_uid, anonymous_gid)):
        return "NONE"
    return squash


def _squash_none(squash: Any) -> Any:
    return UNKNOWN if squash is UNKNOWN else squash == "NONE"


def internet_root_findings(resource_type: str, props: Any, name: str) -> Iterable[str]:
    """Messages for ``fss-export-no-internet-root``: options open to 0.0.0.0/0 or ::/0 with identitySquash NONE
    (Kleene over source and squash; an unknown verdict fails closed)."""
    options, owner = _options_of(resource_type, props, name)
    if options is None:
        return
    if options is UNKNOWN:
        yield (f"{owner}: its export options are unknown during preview, so it may export to 0.0.0.0/0 with "
               "identitySquash NONE; declare them as a literal list")
        return
    for label, source, squash in options:
        verdict = R.all3(R.internet_wide(source), _squash_none(squash))
        if verdict is True:
            yield (f"{label} exports to {source}{R.internet_note(source)} with identitySquash NONE: any host that reaches the mount target "
                   "is root on every file. List only the client subnets (workers, pods) as sources and squash "
                   "root (identitySquash ROOT)")
        elif verdict is UNKNOWN:
            unknown = [k for k, v in (("source", source), ("identitySquash", squash)) if v is UNKNOWN]
            yield (f"{label} may export to 0.0.0.0/0 with identitySquash NONE and cannot be verified during "
                   f"preview because {' and '.join(unknown)} is unknown; give them literal values")


def internet_findings(resource_type: str, props: Any, name: str) -> Iterable[str]:
    """Messages for ``fss-export-no-internet``: options open to 0.0.0.0/0 or ::/0 whose squash is ROOT or ALL (the
    NONE case and unknown squash belong to ``fss-export-no-internet-root``)."""
    options, _ = _options_of(resource_type, props, name)
    if options is None or options is UNKNOWN:
        return
    for label, source, squash in options:
        if squash is UNKNOWN or squash == "NONE":
            continue
        internet = R.internet_wide(source)
        if internet is True:
            yield (f"{label} exports to {source}{R.internet_note(source)} (identitySquash {squash}): every non-root uid of any host that "
                   "reaches the mount target can read and write; list the client subnets instead")
        elif internet is UNKNOWN:
            yield f"{label} has a source unknown during preview; it may be 0.0.0.0/0"


def validate_export_no_internet_root(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``fss-export-no-internet-root`` (see :func:`internet_root_findings`)."""
    for message in internet_root_findings(args.resource_type, args.props, args.name):
        report_violation(message, None)


def validate_export_no_internet(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``fss-export-no-internet`` (see :func:`internet_findings`)."""
    for message in internet_findings(args.resource_type, args.props, args.name):
        report_violation(message, None)


# --- unsquashed root without a privileged source port ------------------------------------------------------------
def _raw_options(resource_type: str, props: Any, name: str) -> Any:
    """``(label, option)`` pairs of an Export or an FSS StorageClass (``option`` a mapping, or UNKNOWN); None when the
    resource is neither, or its options are not a JSON list. Both that and no options at all (FSS's default entry,
    0.0.0.0/0 with NONE) are refused by ``fss-export-no-internet-root``."""
    if resource_type == EXPORT:
        raw, owner = R.elements(R.read(props, "exportOptions")), f"Export '{name}'"
    elif resource_type == STORAGE_CLASS and R.read(props, "provisioner") == FSS_CSI_DRIVER:
        owner, text = f"StorageClass '{name}'", R.read(props, "parameters", "exportOptions")
        try:
            raw = UNKNOWN if text is UNKNOWN else (json.loads(text) if text else [])
        except (TypeError, ValueError):
            return None
        if raw is not UNKNOWN and (not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw)):
            return None
    else:
        return None
    if raw is UNKNOWN:
        return [(f"{owner} exportOptions", UNKNOWN)]
    return [(f"{owner} exportOptions[{i}]", o) for i, o in enumerate(raw)]


def privileged_port_findings(resource_type: str, props: Any, name: str) -> Iterable[str]:
    """Messages for ``fss-export-root-needs-privileged-port`` (see the module docstring); unknowns fail closed."""
    for label, option in _raw_options(resource_type, props, name) or []:
        if option is UNKNOWN:
            yield f"{label} are unknown during preview, so root may be unsquashed on unprivileged ports"
            continue
        squash = effective_squash(R.read(option, "identitySquash", default="ROOT"), R.read(option, "anonymousUid"),
                                  R.read(option, "anonymousGid"))
        port = R.read(option, "requirePrivilegedSourcePort", default=True)
        if port is True or squash in ("ROOT", "ALL"):
            continue
        if squash not in (UNKNOWN, "NONE"):
            yield (f"{label} has identitySquash {squash!r}, which is not ROOT, ALL or NONE, and no privileged source "
                   "port; give identitySquash ROOT")
        elif squash is UNKNOWN or port is UNKNOWN:
            yield (f"{label} may leave root unsquashed without a privileged source port: identitySquash or "
                   "requirePrivilegedSourcePort is unknown during preview; give them literal values")
        else:
            yield (f"{label} leaves root unsquashed (identitySquash NONE) without requirePrivilegedSourcePort: any "
                   "non-root process on a client host can claim UID 0 over NFS and own every file. Set "
                   "requirePrivilegedSourcePort: true, or squash root (identitySquash ROOT)")


def validate_root_needs_privileged_port(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``fss-export-root-needs-privileged-port`` (see :func:`privileged_port_findings`)."""
    for message in privileged_port_findings(args.resource_type, args.props, args.name):
        report_violation(message, None)


# --- NFS security rules ------------------------------------------------------------------------------------------
def _id_matches(resource: Any, ocid: Any) -> bool:
    value = R.read(resource.props, "id")
    return isinstance(ocid, str) and isinstance(value, str) and value == ocid


def storage_nsgs(resources: list[Any]) -> dict[str, tuple[Any, Any]]:
    """Storage NSGs of the stack: NSG URN → (NSG, the mount target it protects). Linked through the mount target's
    property dependencies on ``nsgIds``, or by matching known OCIDs in ``nsgIds`` with the NSGs' ``id``."""
    nsgs = [r for r in resources if r.resource_type == R.NSG]
    found: dict[str, tuple[Any, Any]] = {}
    for mt in (r for r in resources if r.resource_type == MOUNT_TARGET):
        for dep in mt.property_dependencies.get("nsgIds", []):
            if dep.resource_type == R.NSG:
                found.setdefault(dep.urn, (dep, mt))
        ids = R.elements(R.read(mt.props, "nsgIds"))
        for ocid in ([] if ids is UNKNOWN else ids):
            for nsg in nsgs:
                if _id_matches(nsg, ocid):
                    found.setdefault(nsg.urn, (nsg, mt))
    return found


def _links(rule: Any, prop: str, nsgs: dict[str, tuple[Any, Any]]) -> Any:
    """The (NSG, mount target) that ``rule``'s ``prop`` points at, if it is a storage NSG; else None."""
    for dep in rule.property_dependencies.get(prop, []):
        if dep.urn in nsgs:
            return nsgs[dep.urn]
    value = R.read(rule.props, prop)
    return next((pair for pair in nsgs.values() if _id_matches(pair[0], value)), None)


def _range(options: Any, key: str) -> Any:
    rng = R.read(options, key)
    if rng is None or rng is UNKNOWN:
        return rng
    lo, hi = R.read(rng, "min"), R.read(rng, "max")
    if lo is UNKNOWN or hi is UNKNOWN:
        return UNKNOWN
    return (int(lo if lo is not None else R.MIN_PORT), int(hi if hi is not None else R.MAX_PORT))


def _within_nfs(protocol: Any, ports: Any) -> Any:
    """True if ``ports`` (None = every port) of ``protocol`` lies inside one NFS port range."""
    if protocol is UNKNOWN or ports is UNKNOWN:
        return UNKNOWN
    if protocol == R.ICMP:
        return True
    if protocol not in NFS_PORTS or ports is None:
        return False
    return any(lo <= ports[0] and ports[1] <= hi for lo, hi in NFS_PORTS[protocol])


def _describe(protocol: Any, ports: Any, which: str) -> str:
    if protocol is UNKNOWN:
        return "an unknown protocol"
    name = R.PROTOCOL_NAMES.get(protocol, f"protocol {protocol}")
    if protocol == R.ALL:
        return "all protocols and ports"
    if ports is None:
        return f"{name}, every {which} port"
    if ports is UNKNOWN:
        return f"{name}, {which} ports unknown"
    return f"{name} {which} port{'' if ports[0] == ports[1] else 's'} " + (
        str(ports[0]) if ports[0] == ports[1] else f"{ports[0]}-{ports[1]}")


def nfs_rule_findings(resources: list[Any]) -> Iterable[tuple[str, str]]:
    """(message, URN) for ``nfs-rules-only-nfs-ports`` (see the module docstring for what is checked)."""
    nsgs = storage_nsgs(resources)
    if not nsgs:
        return
    for rule in (r for r in resources if r.resource_type == R.NSG_RULE):
        direction, protocol = R.read(rule.props, "direction"), R.protocol_of(R.read(rule.props, "protocol"))
        options = R.read(rule.props, "tcpOptions" if protocol == R.TCP else "udpOptions")
        on = _links(rule, "networkSecurityGroupId", nsgs)
        to = None if on else _links(rule, "destination", nsgs)
        if on and direction == "EGRESS":
            ports, which = _range(options, "sourcePortRange"), "source"
            if ports is None and protocol != R.ALL:
                continue  # a connection the mount target opens itself (LDAP/Kerberos for ID mapping): not NFS
            where = f"is a reply rule of storage NSG '{on[0].name}' (mount target '{on[1].name}')"
        elif on and direction in ("INGRESS", UNKNOWN):
            ports, which = _range(options, "destinationPortRange"), "destination"
            where = f"admits traffic to storage NSG '{on[0].name}' (mount target '{on[1].name}')"
        elif to and direction == "EGRESS":
            ports, which = _range(options, "destinationPortRange"), "destination"
            where = f"sends NFS clients to storage NSG '{to[0].name}' (mount target '{to[1].name}')"
        else:
            continue
        verdict = _within_nfs(protocol, ports)
        if verdict is False:
            yield (f"NSG rule '{rule.name}' {where} on {_describe(protocol, ports, which)}, which are not NFS "
                   f"ports. A mount target needs {NFS_PORTS_TEXT}; replace this rule with rules for those ports "
                   "(and open nothing else to the storage NSG)."), rule.urn
        elif verdict is UNKNOWN:
            yield (f"NSG rule '{rule.name}' {where}, and its protocol or ports are unknown during preview, so it "
                   f"cannot be checked against the NFS ports ({NFS_PORTS_TEXT}); give them literal values."), rule.urn


def validate_nfs_rules(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``nfs-rules-only-nfs-ports`` (see :func:`nfs_rule_findings`)."""
    for message, urn in nfs_rule_findings(list(args.resources)):
        report_violation(message, urn)


_FSS_DOC = "FSS docs: Working with NFS Export Options; Security Rules for File Storage"

fss_export_no_internet_root = ResourceValidationPolicy(
    name="fss-export-no-internet-root",
    description="No FSS export (or FSS StorageClass) is open to 0.0.0.0/0, ::/0 or another internet-wide CIDR "
                "(IPv4 shorter than /8) with identitySquash NONE.",
    validate=validate_export_no_internet_root,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Give every export explicit exportOptions whose sources are the client subnets (the workers "
                       "CIDR: the nodes mount) with identitySquash ROOT (or ALL), READ_WRITE and requirePrivilegedSourcePort "
                       "true; for a fss.csi.oraclecloud.com StorageClass put the same list, as JSON, in "
                       f"parameters.exportOptions. Source: {_FSS_DOC}."),
    tags=["storage", "security"],
)

fss_export_no_internet = ResourceValidationPolicy(
    name="fss-export-no-internet",
    description="No FSS export (or FSS StorageClass) is open to 0.0.0.0/0, ::/0 or another internet-wide CIDR, "
                "even with root squashed.",
    validate=validate_export_no_internet,
    enforcement_level=EnforcementLevel.ADVISORY,
    severity=Severity.HIGH,
    remediation_steps=("Replace the 0.0.0.0/0 source with the client subnets' CIDRs (one export option per "
                       f"subnet). Source: {_FSS_DOC}."),
    tags=["storage", "security"],
)

fss_export_root_needs_privileged_port = ResourceValidationPolicy(
    name="fss-export-root-needs-privileged-port",
    description="An FSS export option (or FSS StorageClass option) that leaves root unsquashed requires clients to "
                "use a privileged source port.",
    validate=validate_root_needs_privileged_port,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Set requirePrivilegedSourcePort: true on every option with identitySquash NONE (or squash "
                       "root with ROOT), and keep such options to the few hosts that must act as root. Source: "
                       f"{_FSS_DOC}; OCI API: ClientOptions."),
    tags=["storage", "security"],
)

nfs_rules_only_nfs_ports = StackValidationPolicy(
    name="nfs-rules-only-nfs-ports",
    description=f"The NSG rules of a mount target's NSGs use NFS ports only ({NFS_PORTS_TEXT}).",
    validate=validate_nfs_rules,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("On the NSG attached to the mount target, admit from the client NSGs or subnets exactly TCP "
                       "111, 2048-2050 and UDP 111, 2048 (plus TCP 2051 for in-transit TLS), answer from those "
                       "source ports, and nothing else — in particular not the NodePort range 30000-32767, which "
                       f"belongs on the workers' NSG. Source: {_FSS_DOC}."),
    tags=["storage", "network", "security"],
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(fss_export_no_internet_root, EXPORT, STORAGE_CLASS)
examines(fss_export_no_internet, EXPORT, STORAGE_CLASS)
examines(fss_export_root_needs_privileged_port, EXPORT, STORAGE_CLASS)

POLICIES = [fss_export_no_internet_root, fss_export_no_internet, nfs_rules_only_nfs_ports,
            fss_export_root_needs_privileged_port]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "fss-export-no-internet-root": ("fails closed: unknown exportOptions, or an option whose source or "
                                    "identitySquash is unknown and could be 0.0.0.0/0 with NONE, is a violation."),
    "fss-export-no-internet": ("reads only inputs known at preview: options whose squash is unknown are left to "
                               "fss-export-no-internet-root; an unknown source is reported as unverifiable."),
    "fss-export-root-needs-privileged-port": ("fails closed: unknown exportOptions, or an option whose squash could "
                                              "be NONE with requirePrivilegedSourcePort unknown, is a violation."),
    "nfs-rules-only-nfs-ports": ("fails closed: a storage NSG rule whose protocol or ports are unknown is a "
                                 "violation; NSGs are linked to mount targets through property dependencies, so "
                                 "unknown OCIDs do not hide them."),
}
