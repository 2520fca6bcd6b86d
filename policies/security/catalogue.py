"""The closed catalogue: every resource type a stack declares is judged by a named rule, listed as harmless with a
reason and a source, or refused.

* ``resource-type-catalogued`` (MANDATORY): a resource whose type the catalogue (``_catalogue.py``, data) refuses, or
  does not place at all — a type of another provider, a newer SDK's type, a custom resource of an API group nobody
  reviewed, a dynamic provider's resource — is a violation, unless the policy config lists the type in
  ``allowedTypes`` (exact tokens or ``fnmatch`` patterns such as ``"kubernetes:example.com/*"``).

Why a closed set: every other rule of the pack judges the types it knows; a type nobody looked at would pass all of
them. A tap on tenants' traffic (VTAP), a peering into a subnet (DRG attachments, local and remote peering, IPSec,
FastConnect), a session onto a node (Bastion sessions, console connections, OS Management Hub jobs), a tag default
that makes a tag-conditioned grant match new resources, or a dynamic provider that runs arbitrary code were all
such types. The catalogue is built from the installed SDKs (``tests/policies/test_catalogue.py`` fails when a type
of them is not placed), and rendered in ``docs/threat-model.md`` by ``python -m policies.doc --write``.

The rule reads only the resource's type token, so unknown values never matter to it.
"""
from __future__ import annotations

import fnmatch
import re
from functools import lru_cache
from typing import Any, Optional

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from . import credentials
    from ._catalogue import GROUPS, HARMLESS, JUDGED, REFUSED, TYPES, judged
else:  # run by the Pulumi CLI from inside policies/security/
    import credentials
    from _catalogue import GROUPS, HARMLESS, JUDGED, REFUSED, TYPES, judged

POLICY_NAME = "resource-type-catalogued"

#: Types ``iam-no-static-credentials`` refuses whatever their properties, from its own table (one source).
_CREDENTIAL_TYPES = (set(credentials.STATIC_CREDENTIALS) | {credentials.GENERATED_KEY, credentials.DOMAIN,
                                                            credentials.USER_CAPABILITIES, credentials.DOMAINS_APP})
#: The whole catalogue, exact entries first: TYPES, plus the credential types judged by iam-no-static-credentials.
ENTRIES: dict[str, dict] = {**{t: judged("iam-no-static-credentials") for t in sorted(_CREDENTIAL_TYPES)}, **TYPES}
_API_VERSION = re.compile(r"^v\d+((alpha|beta)\d+)?$")


def kubernetes_keys(token: str) -> list[str]:
    """Catalogue keys of a Kubernetes token, most specific first: ``kubernetes:apps/v1:DeploymentPatch`` →
    ``[..., "kubernetes:apps:DeploymentPatch", "kubernetes:apps:Deployment", "kubernetes:apps"]``; a bare version
    (``kubernetes:v1:Pod``, as ``CustomResource(api_version="v1")`` registers) is the core group."""
    parts = token.split(":")
    if len(parts) != 3:
        return []
    group_version, kind = parts[1], parts[2]
    group = group_version.split("/")[0] if "/" in group_version else group_version
    if _API_VERSION.match(group):
        group = "core"
    keys = [f"kubernetes:{group}:{kind}"]
    for suffix in ("Patch", "List"):
        if kind.endswith(suffix) and len(kind) > len(suffix):
            keys.append(f"kubernetes:{group}:{kind[:-len(suffix)]}")
    return keys + [f"kubernetes:{group}"]


@lru_cache(maxsize=4096)
def place(token: str) -> tuple[Optional[str], Optional[dict]]:
    """(catalogue key, entry) that places ``token``, or (None, None) when nothing does."""
    if token in ENTRIES:
        return token, ENTRIES[token]
    keys: list[str] = []
    if token.startswith("kubernetes:"):
        keys = kubernetes_keys(token)
    elif token.startswith("oci:") and "/" in token:
        keys = [token.split("/")[0]]
    package = token.split(":")[0] + ":"
    keys.append(package)
    for key in keys:
        entry = ENTRIES.get(key) or GROUPS.get(key)
        if entry is not None:
            return key, entry
    return None, None


def verdict(token: str, allowed: tuple[str, ...] = ()) -> Optional[str]:
    """Why ``token`` is refused (None when it is judged, harmless or allowed by ``allowed`` patterns)."""
    key, entry = place(token)
    if entry is not None and entry["verdict"] in (JUDGED, HARMLESS):
        return None
    if any(fnmatch.fnmatchcase(token, pattern) for pattern in allowed):
        return None
    if entry is None:
        return (f"its type {token} is in no entry of the pack's catalogue: no rule judges it (another provider's "
                f"type, a newer SDK's type or a custom resource of an API group nobody reviewed)")
    return f"its type {token} is refused by the catalogue ({key}): {entry['reason']} (source: {entry['source']})"


def validate_type_catalogued(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Refuse a resource whose type the catalogue refuses or does not place (see the module docstring)."""
    allowed = tuple(p for p in ((args.get_config() or {}).get("allowedTypes") or ()) if isinstance(p, str))
    problem = verdict(args.resource_type, allowed)
    if problem:
        report_violation(
            f"Resource '{args.name}': {problem}. Remove it, or after review list the type in this rule's policy "
            f"config: {{\"{POLICY_NAME}\": {{\"allowedTypes\": [\"{args.resource_type}\"]}}}}.", None)


resource_type_catalogued = ResourceValidationPolicy(
    name=POLICY_NAME,
    description="Every resource type is judged by a named rule, catalogued as harmless, or refused (closed "
                "catalogue).",
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("A type nobody judges passes every other rule. Remove the resource, or review it and list its "
                       "type (or a pattern) in allowedTypes. The catalogue with each type's reason and source: "
                       "docs/threat-model.md, section \"The catalogue\"."),
    tags=["supply-chain", "exposure", "identity", "node-access"],
    validate=validate_type_catalogued,
    config_schema=PolicyConfigSchema(properties={"allowedTypes": {
        "type": "array", "items": {"type": "string", "minLength": 1}, "default": [],
        "description": "Type tokens (or fnmatch patterns) accepted although the catalogue refuses or does not "
                       "place them, e.g. \"kubernetes:example.com/*\" for the custom resources of a reviewed "
                       "operator."}}),
)

POLICIES = [resource_type_catalogued]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: "reads only inputs known at preview: the resource's type token, which is always known",
}


def rows() -> list[tuple[str, str, str, str]]:
    """The catalogue as table rows (key, verdict, rules or reason, source), exact entries first, then groups."""
    out = []
    for key, entry in list(ENTRIES.items()) + list(GROUPS.items()):
        what = ", ".join(f"`{r}`" for r in entry["rules"]) if entry["verdict"] == JUDGED else entry["reason"]
        if entry["verdict"] == JUDGED and entry["reason"]:
            what += f" ({entry['reason']})"
        out.append((key, entry["verdict"], what, entry["source"]))
    return out


__all__ = ["HARMLESS", "JUDGED", "REFUSED", "ENTRIES", "place", "verdict", "kubernetes_keys", "rows", "POLICIES"]
