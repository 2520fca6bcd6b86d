"""File Storage with Lustre data-exposure rule: root on a client is never root on the file system for clients the
stack cannot name.

* ``lustre-root-squash`` (MANDATORY): an ``oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem``
  whose ``rootSquashConfiguration.identitySquash`` is NONE or squashes root to UID or GID 0 (every client's root owns every file, including other
  tenants' checkpoints), or whose ``clientExceptions`` (clients exempt from the squash) include an internet-wide range
  (``_rules.internet_wide``), or a non-CIDR value. A file system with no root squash configuration counts as NONE.

Sources: File Storage with Lustre docs "Creating a Lustre File System" (root squash: NONE or ROOT, squash UID/GID,
client exceptions); OCI SDK ``lustre_file_storage.models.RootSquashConfiguration``; property names from pulumi_oci
5.5.0 ``lustre/_inputs.py`` (``rootSquashConfiguration.identitySquash``, ``clientExceptions``) — checked 2026-11-30.
"""
from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import Any, Iterator

from pulumi_policy import (EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy,
                           Severity)

if __package__:  # imported as the package `policies` (tests, offline/)
    from . import _rules as R
    from ._gate import examines
else:  # run by the Pulumi CLI from inside the pack directory
    import _rules as R
    from _gate import examines

UNKNOWN = R.UNKNOWN
LUSTRE_FILE_SYSTEM = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"


def root_squash_problems(props: Any) -> Iterator[str]:
    """Why a Lustre file system lets a client's root act as root on it (nothing when it does not)."""
    squash = R.read(props, "rootSquashConfiguration", "identitySquash")
    if squash is UNKNOWN:
        yield "its rootSquashConfiguration.identitySquash is unknown during preview; set it to ROOT"
    elif squash is None or str(squash).upper() != "ROOT":
        yield (f"its rootSquashConfiguration.identitySquash is {squash or 'unset (no squash)'}: root on any client "
               "owns every file of every tenant; set it to ROOT")
    else:
        for key in ("squashUid", "squashGid"):
            value = R.read(props, "rootSquashConfiguration", key)
            if value is UNKNOWN:
                yield f"its rootSquashConfiguration.{key} is unknown during preview; set it (65534, nobody)"
            elif value is not None and str(value).strip() in ("0", "0.0"):
                yield (f"its rootSquashConfiguration.{key} is 0: root is squashed to root, which is no squash; set "
                       "it to an unprivileged ID such as 65534 (nobody)")
    exceptions = R.read(props, "rootSquashConfiguration", "clientExceptions", default=[])
    if exceptions is UNKNOWN:
        yield "its root-squash clientExceptions are unknown during preview; give literal client CIDRs"
        return
    if not isinstance(exceptions, Sequence) or isinstance(exceptions, str):
        yield f"its root-squash clientExceptions {exceptions!r} is not a list of CIDRs; give a list of client CIDRs"
        return
    items = [R.read(exceptions, i) for i in range(len(exceptions))]
    for cidr in items:
        if cidr is UNKNOWN:
            yield "a root-squash client exception is unknown during preview; give literal client CIDRs"
            continue
        try:
            ipaddress.ip_network(str(cidr).strip(), strict=False)
        except ValueError:
            yield f"its root-squash client exception {cidr!r} is not a CIDR; list client CIDRs only"
            continue
        if R.internet_wide(cidr) is True:
            yield (f"its root-squash client exception {cidr} is internet-wide: root from any such host owns the "
                   "file system; list only the administration hosts' CIDRs")


def validate_root_squash(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``lustre-root-squash``."""
    if args.resource_type != LUSTRE_FILE_SYSTEM:
        return
    for problem in root_squash_problems(args.props):
        report_violation(f"Lustre file system '{args.name}': {problem}.", None)


lustre_root_squash = ResourceValidationPolicy(
    name="lustre-root-squash",
    description="A Lustre file system squashes root (identitySquash ROOT) and exempts no internet-wide client.",
    validate=validate_root_squash,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Set rootSquashConfiguration.identitySquash to ROOT (squashUid/squashGid 65534), and list in "
                       "clientExceptions only the CIDRs of hosts that administer the file system. Source: File "
                       "Storage with Lustre docs, Creating a Lustre File System."),
    tags=["storage", "security", "data"],
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(lustre_root_squash, LUSTRE_FILE_SYSTEM)

POLICIES = [lustre_root_squash]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "lustre-root-squash": "fails closed: an unknown squash setting or client exception is a violation",
}
