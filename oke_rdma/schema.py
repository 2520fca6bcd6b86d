"""The strict base of every config model: the base model, field validators, key paths and :class:`ConfigError`.

A leaf module (it imports nothing from ``oke_rdma``), so both the stack config package (``oke_rdma.config``) and the
add-on registry (``oke_rdma.addons``), whose add-on modules hold their own config models, build on it without an
import circle.
"""

from __future__ import annotations

import ipaddress
import json
import re
from typing import Annotated, Any, Optional

import pulumi
from pydantic import BaseModel, ConfigDict, Strict
from pydantic.alias_generators import to_camel

NAMESPACE = "oke-rdma"

#: A YAML/JSON list of strings, held as an immutable tuple (lax only for list → tuple; items stay strict str).
StrList = Annotated[tuple[Annotated[str, Strict()], ...], Strict(False)]

#: ``ocid1.<type>.<realm>.[region][.future use].<unique>`` (OCI docs "Resource Identifiers"); Vault keys use the
#: future-use part (``ocid1.key.oc1.iad.dvsi563naaa5c.abuw...``).
_OCID_RE = r"^ocid1\.{kind}\.oc[0-9]+\.[a-z0-9-]*(?:\.[a-z0-9]+)?\.[a-z0-9]+$"
_FD_RE = re.compile(r"^FAULT-DOMAIN-[1-3]$")
_K8S_VERSION_RE = re.compile(r"^v1\.[0-9]+\.[0-9]+$")
_EXACT_VERSION_RE = re.compile(r"^v?[0-9]+\.[0-9]+\.[0-9]+$")
_DNS_LABEL_RE = re.compile(r"^[a-z][a-z0-9]{0,14}$")
_K8S_NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_PREFIX_RE = re.compile(r"^[a-z]([a-z0-9-]{0,22}[a-z0-9])?$")


class ConfigError(pulumi.RunError):
    """Invalid stack configuration: one line per problem, each ``<key path>: <what is wrong>; <fix>``.

    A subclass of :class:`pulumi.RunError`, so ``pulumi preview`` prints it without a traceback; the offline
    preview prints the same lines and exits 2.
    """

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("invalid stack configuration:\n" + "\n".join(f"  {p}" for p in problems))


#: Any OCID: ``ocid1.<resource type>.<realm>.[region][.future use].<unique id>`` (OCI docs, "Resource Identifiers").
_ANY_OCID_RE = re.compile(r"^ocid1\.(?P<kind>[a-z0-9]+)\.(?P<realm>oc[0-9]+)\.(?P<region>[a-z0-9-]*)\.(?:[a-z0-9-]*\.)?"
                          r"[a-z0-9]+$")
#: What the offline preview stands in for a ``secure:`` value it cannot decrypt (``offline.stackfile`` uses the same).
SECRET_PLACEHOLDER = "offline-placeholder-secret"
#: Namespaces Kubernetes creates and runs itself (Kubernetes docs "Namespaces": initial namespaces); neither a tenant
#: nor a platform release may take one.
RESERVED_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})


def _ocid(kind: str, value: str, *also: str) -> str:
    """Check ``value`` is the OCID of a ``kind`` (or of one of ``also``); a wrong kind is named in the error."""
    kinds = (kind, *also)
    m = _ANY_OCID_RE.match(value)
    wanted = " or ".join(_a(k) for k in kinds)
    if m and m["kind"] in kinds and re.match(_OCID_RE.format(kind=re.escape(m["kind"])), value):
        return value
    if m and m["kind"] not in kinds:
        raise ValueError(f"expected the OCID of {wanted} (ocid1.{kind}.…), got the OCID of {_a(m['kind'])}; "
                         f"copy the OCID of the {kind} from the OCI console or `oci` CLI")
    lower = value.lower()
    if lower != value and ((m := _ANY_OCID_RE.match(lower)) and m["kind"] in kinds
                           and re.match(_OCID_RE.format(kind=re.escape(m["kind"])), lower)):
        at = next(i for i, (a, b) in enumerate(zip(value, lower)) if a != b)
        raise ValueError(f"OCIDs are all lower case ({ocid_example(kind)}), and {value!r} has {value[at]!r} at "
                         f"character {at + 1}; copy the "
                         f"OCID of the {kind} again from the OCI console or `oci` CLI (lower case, it reads "
                         f"{lower!r})")
    raise ValueError(f"expected the OCID of {wanted} ({ocid_example(kind)}), got {value!r}; "
                     f"copy the OCID of the {kind} from the OCI console or `oci` CLI")


#: OCID kinds without a region part (``ocid1.<kind>.<realm>..<unique id>``): identity's, which are tenancy-wide (OCI
#: docs "Resource Identifiers"); every other kind names its region.
GLOBAL_OCID_KINDS = frozenset({"tenancy", "compartment", "group", "user", "dynamicgroup", "policy", "domain",
                               "tagnamespace"})
#: Stands for the stack's realm in a message; the loader puts the realm of ``oci:region`` there when it knows it.
REALM_MARK = "<realm>"


def ocid_example(kind: str) -> str:
    """The shape of a ``kind`` OCID for a message: ``ocid1.key.<realm>.<region>.<unique id>`` or, for a tenancy-wide
    kind, ``ocid1.group.<realm>..<unique id>`` (:data:`REALM_MARK` is replaced by the stack's realm)."""
    region = "" if kind in GLOBAL_OCID_KINDS else "<region>"
    return f"ocid1.{kind}.{REALM_MARK}.{region}.<unique id>"


def _a(word: str) -> str:
    """``word`` with its indefinite article by sound: ``an image``, ``an unknown``, but ``a user`` (a ``u`` said
    "you")."""
    vowel = word[:1] in "aeio" or word.startswith(("un", "ul", "um", "up", "us"))
    return ("an " if vowel and not word.startswith(("use", "usa", "uni", "uti")) else "a ") + word


def ocid_region(value: str) -> str:
    """The region part of an OCID (``sa-saopaulo-1``, an old-style region key like ``iad``, or ``""``)."""
    m = _ANY_OCID_RE.match(value)
    return m["region"] if m else ""


def _cidr(value: str) -> str:
    try:
        net = ipaddress.IPv4Network(value, strict=True)
    except ValueError as e:
        raise ValueError(f"expected an IPv4 CIDR block with no host bits set like 10.0.0.0/16, got {value!r} ({e}); "
                         f"write the network address and prefix length") from None
    return str(net)


#: The rule of a DNS-1123 label (Kubernetes docs "Object Names and IDs", RFC 1123 label names; checked 2026-12-02):
#: what a namespace, a label value the program sets from a name, and a name that must fit both must be.
DNS_LABEL_RULE = ("a DNS-1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit, "
                  "at most 63 characters")


def suggest_k8s_name(v: str, limit: int = 63) -> str:
    """A DNS-1123 label close to ``v`` to suggest in a message: lower case, every run of other characters (``_``,
    ``.``, spaces, ...) one ``-``, no ``-`` at either end, cut to ``limit`` characters (``vision`` when nothing is
    left)."""
    name = re.sub(r"[^a-z0-9]+", "-", v.lower()).strip("-")[:limit].strip("-")
    return name or "vision"


def k8s_label_problem(v: str, limit: int = 63) -> Optional[str]:
    """None when ``v`` is a DNS-1123 label of at most ``limit`` characters; else what is wrong with it, the rule
    (:data:`DNS_LABEL_RULE`) and a suggested name: ``... is 70 characters; it must be a DNS-1123 label: ...; rename it,
    e.g. to 'vision-team'``."""
    if _K8S_NAME_RE.match(v) and len(v) <= limit:
        return None
    rule = DNS_LABEL_RULE if limit == 63 else DNS_LABEL_RULE.replace("at most 63", f"at most {limit}")
    long = len(v) > limit and re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", v)
    what = f" is {len(v)} characters, more than {limit}" if long else ""
    return f"{v!r}{what}: it must be {rule}; rename it, e.g. to {suggest_k8s_name(v, limit)!r}"


def _k8s_name(v: str) -> str:
    problem = k8s_label_problem(v)
    if problem:
        raise ValueError(f"expected a Kubernetes name: {problem}")
    return v


_LABEL_NAME_RE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")
_DNS_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


#: A fully qualified image reference pinned by tag or digest: ``registry[:port]/repository:tag`` or ``@sha256:<64 hex>``.
_PINNED_IMAGE_RE = re.compile(r"^[a-z0-9.-]+(:[0-9]+)?/[a-z0-9._/-]+(:[A-Za-z0-9._-]+|@sha256:[a-f0-9]{64})$")


def _pinned_image(v: str) -> str:
    """``v`` when it is a fully qualified image pinned by tag (not ``latest``) or digest; else ValueError."""
    if not _PINNED_IMAGE_RE.match(v) or v.endswith(":latest"):
        raise ValueError(f"must be a fully qualified image pinned by tag or digest (registry/repository:tag, "
                         f"not latest), got {v!r}")
    return v


def _k8s_labels(labels: dict[str, str]) -> dict[str, str]:
    """Kubernetes label syntax ("Labels and Selectors"): key ``[prefix/]name`` — prefix a DNS subdomain of at most
    253 characters, name at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric; value empty or
    the same form as a name."""
    for key, value in labels.items():
        prefix, _, name = key.rpartition("/")
        if not name or not _LABEL_NAME_RE.match(name) or (
                "/" in key and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN_RE.match(prefix))):
            raise ValueError(f"expected label keys like okerdma.io/role ([DNS subdomain/]name, name at most 63 "
                             f"letters, digits, '-', '_' or '.'), got {key!r}; rename the label")
        if not _LABEL_NAME_RE.match(value):
            raise ValueError(f"expected label values of at most 63 letters, digits, '-', '_' or '.', starting and "
                             f"ending with a letter or digit, got {value!r} for {key!r}; change the value")
    return labels


class _Model(BaseModel):
    """Base of every config object: camelCase keys, strict types, unknown keys refused, immutable."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=False, extra="forbid", strict=True,
                              frozen=True)


def _key(loc: tuple[Any, ...]) -> str:
    """A config key path as users type it in ``pulumi config set --path`` (Pulumi docs "Configuration", structured
    configuration; checked 2026-12-01): ``('nodePools', 'gpu', 'size')`` → ``oke-rdma:nodePools.gpu.size``, a list
    item by its index in brackets (``('tenants', 't', 'serviceAccounts', 'sa', 'allow', 0)`` →
    ``oke-rdma:tenants.t.serviceAccounts.sa.allow[0]``), a key holding characters other than letters, digits, ``_``,
    ``-`` and ``/`` as a quoted index (``oke-rdma:nodePools.gpu.labels["okerdma.io/role"]``); ``oci:region`` for
    the region. The one notation of every config problem, the offline preview's and the program's."""
    if loc and loc[0] == "region":
        return "oci:region"
    if not loc:
        return NAMESPACE
    text = f"{NAMESPACE}:{_part(loc[0])}"
    for part in loc[1:]:
        if isinstance(part, int) and not isinstance(part, bool):
            text += f"[{part}]"
        else:
            shown = _part(part)
            text += f"[{shown}]" if shown.startswith('"') else f".{shown}"
    return text


def _part(part: Any) -> str:
    """One map key of a path as text: bare when it holds only letters, digits, ``_``, ``-`` and ``/``, else
    JSON-quoted (dots, spaces, brackets, quotes, control characters)."""
    text = str(part)
    return text if re.fullmatch(r"[A-Za-z0-9_/-]+", text) else json.dumps(text)


def shown_key(full_key: str) -> str:
    """A raw ``ns:name`` config key as printed in a problem: quoted when it holds spaces or control characters."""
    return full_key if full_key.isprintable() and not any(c.isspace() for c in full_key) else json.dumps(full_key)
