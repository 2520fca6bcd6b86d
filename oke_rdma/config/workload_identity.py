"""Workload Identity bindings: a tenant's Kubernetes service accounts and the OCI access each one is granted.

A tenant declares, per service account, what it may do in OCI as *grants*: the tail of an OCI policy statement,
``<verb> <resource-type> in <location> [where <condition>]``::

    tenants:
      research:
        serviceAccounts:
          trainer:
            allow:
              - read objects in compartment id ocid1.compartment.oc1..aaaa... where target.bucket.name = 'datasets'

The program turns each grant into ``Allow any-user to <verb> <resource-type> in <location> where all
{request.principal.type = 'workload', request.principal.namespace = '<tenant namespace>',
request.principal.service_account = '<service account>', request.principal.cluster_id = '<cluster OCID>', ...}``.
The namespace is always the tenant's own (there is no namespace key to get wrong) and the service account is the
map key, so the Kubernetes ServiceAccount and the policy condition come from the same object.

Grammar of a grant (case-insensitive keywords, any run of spaces between words)::

    grant     := verb resource "in" location [ "where" condition ]
    verb      := "inspect" | "read" | "use" | "manage"
    resource  := a resource-type or family name: [a-z][a-z0-9-]*   (objects, object-family, secret-bundles, ...)
    location  := "tenancy" | "compartment id" OCID                 (a compartment or tenancy OCID; no names)
    condition := leaf | "all" "{" leaf { "," leaf } "}"
    leaf      := variable ("=" | "!=") "'" value "'"             (variable: target.* or request.* but not
                                                                 request.principal.*, which the program sets)

Refused: permission lists (``{OBJECT_READ}``), ``manage all-resources`` and ``use all-resources``, ``use`` or
``manage`` of an IAM administration resource type (:data:`IAM_ADMIN_RESOURCE_TYPES`: policies, dynamic groups,
groups, users, identity domains, ...: with those a workload could grant itself anything; ``inspect`` and ``read``
stay allowed), compartment names (relative to where a policy is attached, hence ambiguous), ``any {...}``
conditions (they cannot be AND-ed with the workload condition without weakening it).

Sources: OKE docs "Granting Workloads Access to OCI Resources" (contenggrantingworkloadaccesstoresources.htm: the
statement form, enhanced clusters only, cross-compartment access through a workload mapping); IAM docs "Policy
Syntax", "Verbs", "Locations", "Conditions", "Policy Reference" (IAM has no family type, ``all-resources`` covers
IAM's types too) and "Details for IAM with/without Identity Domains" (IAM's resource types).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any, Optional

from pydantic import Field, field_validator, model_validator

from ..facts.iam import (ALL_RESOURCE_TYPES, IAM_RESOURCE_TYPES, NODE_ACCESS_FAMILIES, NODE_ACCESS_TYPES,
                         PORT_FORWARDING_SESSION_TYPES, VERBS)  # noqa: F401 - VERBS re-exported
from ._base import StrList, _Model


#: IAM's own resource types (``oke_rdma.facts.iam``; work requests excepted): ``use``/``manage`` of any of them lets
#: the holder change who may do what (write policies, join groups or dynamic groups, create users, credentials or
#: identity providers, apply the tags that tag-based policies test, move compartments), so a workload could grant
#: itself anything.
IAM_ADMIN_RESOURCE_TYPES = IAM_RESOURCE_TYPES - {"work-requests"}
#: Kubernetes ServiceAccount names are DNS-1123 subdomains (at most 253 characters).
_SA_NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_RESOURCE_RE = re.compile(r"^[a-z][a-z0-9-]*$")
_LOCATION_OCID_RE = re.compile(r"^ocid1\.(compartment|tenancy)\.oc[0-9]+\.[a-z0-9-]*\.[a-z0-9]+$")
_VARIABLE_RE = re.compile(r"^(request|target)\.[a-z0-9_.-]+$")
_LEAF_RE = re.compile(r"^(?P<var>[^\s=!']+)\s*(?P<op>!=|=)\s*'(?P<value>[^']*)'$")
_GRANT_RE = re.compile(r"^(?P<verb>\S+)\s+(?P<resource>\S+)\s+in\s+(?P<location>.+?)(?:\s+where\s+(?P<where>.+))?$",
                       re.IGNORECASE | re.DOTALL)
_EXAMPLE = "e.g. 'read objects in compartment id ocid1.compartment.oc1..<id>'"


@dataclass(frozen=True)
class Condition:
    """One ``variable op 'value'`` test of a policy ``where`` clause."""

    variable: str
    operator: str  # "=" or "!="
    value: str
    #: True for an IAM pattern (``/value/``, ``*`` a wildcard: IAM docs "Conditions"); only generated grants use one.
    pattern: bool = False

    def render(self) -> str:
        if self.pattern:
            return f"{self.variable} {self.operator} /{self.value}/"
        return f"{self.variable} {self.operator} '{self.value}'"


@dataclass(frozen=True)
class Grant:
    """A parsed grant: what one service account may do (see the module docstring for the grammar).

    ``compartment_id`` is the location's OCID (a compartment or tenancy OCID), None for ``tenancy``.
    ``permissions``: a generated grant (never a user's: :func:`parse_grant` refuses lists) may name permissions
    instead of a verb and resource type (IAM docs "Policy Syntax"); ``verb`` and ``resource`` are then empty.
    """

    verb: str
    resource: str
    compartment_id: Optional[str]
    conditions: tuple[Condition, ...] = ()
    permissions: tuple[str, ...] = ()

    @property
    def action(self) -> str:
        """What the statement allows: ``<verb> <resource-type>`` or ``{PERMISSION, ...}``."""
        return "{" + ", ".join(self.permissions) + "}" if self.permissions else f"{self.verb} {self.resource}"

    @property
    def location(self) -> str:
        """The statement's location: ``tenancy`` (also for the tenancy's own OCID) or ``compartment id <OCID>``."""
        return "tenancy" if self.in_root else f"compartment id {self.compartment_id}"

    @property
    def in_root(self) -> bool:
        """True when the location is the whole tenancy (``tenancy`` or the tenancy's own OCID)."""
        return self.compartment_id is None or self.compartment_id.startswith("ocid1.tenancy.")

    def render(self) -> str:
        """The canonical text of the grant (lowercase verb, single spaces)."""
        where = ""
        if self.conditions:
            inner = ", ".join(c.render() for c in self.conditions)
            where = f" where all {{{inner}}}" if len(self.conditions) > 1 else f" where {inner}"
        return f"{self.action} in {self.location}{where}"


def _parse_conditions(text: str) -> tuple[Condition, ...]:
    text = text.strip()
    quantifier = re.match(r"^(all|any)\s*\{(?P<body>.*)\}$", text, re.IGNORECASE | re.DOTALL)
    if quantifier and quantifier.group(1).lower() == "any":
        raise ValueError("'any {...}' conditions cannot be combined with the workload condition without "
                         "weakening it; write one grant per alternative")
    parts = [p.strip() for p in quantifier.group("body").split(",")] if quantifier else [text]
    conditions = []
    for part in parts:
        leaf = _LEAF_RE.match(part)
        if not leaf:
            raise ValueError(f"condition {part!r} must read <variable> = '<value>' (or !=), e.g. "
                             f"target.bucket.name = 'datasets'")
        var = leaf.group("var").lower()
        if not _VARIABLE_RE.match(var):
            raise ValueError(f"condition variable {var!r} must be a request.* or target.* variable")
        if var.startswith("request.principal."):
            raise ValueError(f"condition variable {var!r} is set by the program (type, namespace, service "
                             f"account and cluster of the workload); remove it")
        conditions.append(Condition(var, leaf.group("op"), leaf.group("value")))
    return tuple(conditions)


def parse_grant(text: str) -> Grant:
    """Parse one grant, ``<verb> <resource-type> in <location> [where <condition>]``.

    :returns: the :class:`Grant`.
    :raises ValueError: with what is wrong and how to write it instead: not that shape, a permission list, an
        unknown verb, ``manage``/``use all-resources``, ``use``/``manage`` of an IAM administration resource type
        (:data:`IAM_ADMIN_RESOURCE_TYPES`), a malformed resource type, a location that is not ``tenancy`` or
        ``compartment id <compartment or tenancy OCID>``, or a condition outside the grammar.
    """
    match = _GRANT_RE.match(" ".join(text.split()))
    if text.strip().startswith("{"):
        raise ValueError("permission lists ({...}) are not accepted; use a verb (inspect, read, use, manage) and a "
                         f"resource type, {_EXAMPLE}")
    if not match:
        raise ValueError(f"must read '<verb> <resource-type> in <location> [where <condition>]', {_EXAMPLE}")
    verb, resource = match.group("verb").lower(), match.group("resource").lower()
    if verb not in VERBS:
        raise ValueError(f"{verb!r} is not an OCI verb; use one of {', '.join(VERBS)}")
    if not _RESOURCE_RE.match(resource):
        raise ValueError(f"{resource!r} is not an OCI resource-type name (lowercase words joined by '-', like "
                         f"objects or object-family)")
    if resource not in ALL_RESOURCE_TYPES:
        close = difflib.get_close_matches(resource, sorted(ALL_RESOURCE_TYPES), n=2, cutoff=0.75)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise ValueError(f"{resource!r} is not an OCI resource type or family oke-rdma knows (IAM Policy Reference; "
                         f"oke_rdma/facts/iam.py); {hint}use the name from the service's 'Details for <service>' "
                         f"policy reference page, like objects, buckets or object-family")
    if verb == "manage" and resource == "all-resources":
        raise ValueError("'manage all-resources' gives the workload full control of everything in the location; "
                         "name the resource types it needs (e.g. 'manage objects')")
    if verb == "use" and resource == "all-resources":
        raise ValueError("'use all-resources' includes 'use' of IAM's resource types (users, groups, "
                         "dynamic-groups, ...), with which a workload could widen its own access; name the resource "
                         "types it needs (e.g. 'use buckets')")
    if verb in ("use", "manage") and resource in IAM_ADMIN_RESOURCE_TYPES:
        raise ValueError(f"'{verb} {resource}' administers IAM: with it a workload could write policies or change "
                         f"group, user or dynamic-group membership and so grant itself anything; grant IAM "
                         f"administration to people, not workloads ('inspect {resource}' or 'read {resource}' is "
                         f"allowed)")
    location = match.group("location")
    words = location.split()
    if [w.lower() for w in words] == ["tenancy"]:
        compartment_id = None
    elif len(words) == 3 and [w.lower() for w in words[:2]] == ["compartment", "id"]:
        if not _LOCATION_OCID_RE.match(words[2]):
            raise ValueError(f"{words[2]!r} is not a compartment or tenancy OCID (ocid1.compartment.oc1..<id> or "
                             f"ocid1.tenancy.oc1..<id>)")
        compartment_id = words[2]
    elif words and words[0].lower() == "compartment":
        raise ValueError(f"name the compartment by OCID ('compartment id ocid1.compartment.oc1..<id>'), not "
                         f"{location!r}: a compartment name depends on where the policy is attached")
    else:
        raise ValueError(f"location {location!r} must be 'tenancy' or 'compartment id <compartment OCID>'")
    where = match.group("where")
    conditions = _parse_conditions(where) if where else ()
    reaches = node_access(verb, resource, conditions)
    if reaches:
        raise ValueError(f"'{verb} {resource}' reaches the nodes' operating system: {'; '.join(reaches)}; a workload "
                         f"is never given a way onto the GPU nodes (its pods already run there under Pod Security): "
                         f"grant 'read {resource}', or narrow it with where request.permission = '<a permission "
                         f"that does not reach the node>'")
    return Grant(verb, resource, compartment_id, conditions)


def node_access(verb: str, resource: str, conditions: tuple[Condition, ...]) -> list[str]:
    """What a grant ``<verb> <resource> ... where all {conditions}`` lets a workload do to compute instances (run
    commands, open a shell, copy disks, change what the nodes boot), [] when nothing.

    Judged as ``policies/security/node_access.py`` judges a statement, from the same tables
    (:data:`~oke_rdma.facts.iam.NODE_ACCESS_TYPES`, :data:`~oke_rdma.facts.iam.NODE_ACCESS_FAMILIES`): a family
    stands for its members and ``all-resources`` for every one; a condition exempts a member only when it pins
    ``request.permission`` (``=``) to permissions none of which reaches the node, or pins
    ``target.bastion-session.type`` to port forwarding. Every location counts (policies inherit down the
    compartment tree, which a preview cannot see).

    :returns: one short reason per effect, e.g. ``"use instance-agent-commands runs commands on the instances ..."``.
    """
    pins: dict[str, set[str]] = {}
    for c in conditions:
        if c.operator == "=" and not c.pattern:
            pins[c.variable] = pins[c.variable] & {c.value} if c.variable in pins else {c.value}
    members = NODE_ACCESS_FAMILIES.get(resource, frozenset({resource}) & NODE_ACCESS_TYPES.keys())
    found: dict[str, list[str]] = {}
    for member in sorted(members):
        least, perms, what = NODE_ACCESS_TYPES[member]
        if VERBS.index(verb) < VERBS.index(least):
            continue
        pinned = pins.get("request.permission")
        if perms is not None and pinned is not None and not {p.upper() for p in pinned} & perms:
            continue
        sessions = pins.get("target.bastion-session.type")
        if member == "bastion-session" and sessions is not None and {t.lower() for t in sessions} <= \
                PORT_FORWARDING_SESSION_TYPES:
            continue
        found.setdefault(what, []).append(f"{least} {member}")
    return [f"{' and '.join(m)} {what}" for what, m in found.items()]


class ServiceAccount(_Model):
    """A Kubernetes ServiceAccount in its tenant's namespace and the OCI access its pods get (``allow``: grants)."""

    allow: StrList = Field((), description=(
        "Grants `<verb> <resource-type> in <tenancy | compartment id OCID> [where ...]`, each a statement pinned "
        "to this cluster, namespace and service account; no `use`/`manage` of IAM's resource types. May be empty "
        "only for the tenant's `weights.serviceAccount`."))

    @model_validator(mode="before")
    @classmethod
    def _no_namespace(cls, data: Any) -> Any:
        if isinstance(data, dict) and "namespace" in data:
            raise ValueError("a service account lives in its tenant's namespace; declare it under the tenant that "
                             "owns that namespace (tenants.<tenant>.serviceAccounts) and remove namespace")
        return data

    @field_validator("allow")
    @classmethod
    def _grants(cls, v: StrList) -> StrList:
        # An empty list is judged with the rest of the tenant (checks.workload_identity): a ServiceAccount whose only
        # access is the weights bucket (tenants.<t>.weights) lists no grant of its own.
        for i, text in enumerate(v):
            try:
                parse_grant(text)
            except ValueError as e:
                raise ValueError(f"allow[{i}] {text!r}: {e}") from None
        return v

    @property
    def grants(self) -> tuple[Grant, ...]:
        """The parsed grants, in config order."""
        return tuple(parse_grant(t) for t in self.allow)


def valid_service_account_name(name: str) -> bool:
    """True for a Kubernetes ServiceAccount name (a DNS-1123 subdomain, at most 253 characters)."""
    return len(name) <= 253 and bool(_SA_NAME_RE.match(name))


@dataclass(frozen=True)
class WorkloadBinding:
    """One service account of one tenant and its grants: the single source of the ServiceAccount's namespace and
    name and of the policy condition naming them.

    ``mapped_compartment_id`` is the compartment (other than the stack's) its grants reach, which OKE needs a
    ``ClusterWorkloadMapping`` for; None when every grant stays in the stack's compartment or the tenancy.
    """

    tenant: str
    namespace: str
    service_account: str
    grants: tuple[Grant, ...]
    mapped_compartment_id: Optional[str]
