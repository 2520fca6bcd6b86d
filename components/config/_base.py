"""Shared pieces of the config models: the strict base model, field validators, key paths and ConfigError."""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Any

import pulumi
from pydantic import BaseModel, ConfigDict, Strict
from pydantic.alias_generators import to_camel

NAMESPACE = "oke-rdma"

#: A YAML/JSON list of strings, held as an immutable tuple (lax only for list → tuple; items stay strict str).
StrList = Annotated[tuple[Annotated[str, Strict()], ...], Strict(False)]

#: ``ocid1.<type>.<realm>.[region][.future use].<unique>`` (OCI docs "Resource Identifiers"); Vault keys use the
#: future-use part (``ocid1.key.oc1.iad.dvsi563naaa5c.abuw...``).
_OCID_RE = r"^ocid1\.{kind}\.oc[0-9]+\.[a-z0-9-]*(?:\.[a-z0-9]+)?\.[a-z0-9]+$"
_REGION_RE = re.compile(r"^[a-z]{2}-[a-z]+-[0-9]$")
_AD_RE = re.compile(r"^[A-Za-z0-9]{4}:[A-Z]{2}-[A-Z]+-[0-9]-AD-[1-3]$")
_FD_RE = re.compile(r"^FAULT-DOMAIN-[1-3]$")
_K8S_VERSION_RE = re.compile(r"^v1\.[0-9]+\.[0-9]+$")
_EXACT_VERSION_RE = re.compile(r"^v?[0-9]+\.[0-9]+\.[0-9]+$")
_DNS_LABEL_RE = re.compile(r"^[a-z][a-z0-9]{0,14}$")
_K8S_NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_PREFIX_RE = re.compile(r"^[a-z][a-z0-9-]{0,23}$")


class ConfigError(pulumi.RunError):
    """Invalid stack configuration: one line per problem, each ``<key path>: <what is wrong>; <fix>``.

    A subclass of :class:`pulumi.RunError`, so ``pulumi preview`` prints it without a traceback; the offline
    preview prints the same lines and exits 2.
    """

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("invalid stack configuration:\n" + "\n".join(f"  {p}" for p in problems))


def _ocid(kind: str, value: str) -> str:
    if not re.match(_OCID_RE.format(kind=re.escape(kind)), value):
        raise ValueError(f"must be an OCID of a {kind} (ocid1.{kind}.oc1..<id>), got {value!r}")
    return value


def _cidr(value: str) -> str:
    try:
        net = ipaddress.IPv4Network(value, strict=True)
    except ValueError as e:
        raise ValueError(f"must be an IPv4 CIDR block with no host bits set, like 10.0.0.0/16 ({e})") from None
    return str(net)


def _k8s_name(v: str) -> str:
    if not _K8S_NAME_RE.match(v):
        raise ValueError(f"must be a Kubernetes name (lowercase letters, digits and '-', at most 63), got {v!r}")
    return v


class _Model(BaseModel):
    """Base of every config object: camelCase keys, strict types, unknown keys refused, immutable."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=False, extra="forbid", strict=True,
                              frozen=True)


def _key(loc: tuple[Any, ...]) -> str:
    """``('nodePools', 'gpu', 'size')`` → ``oke-rdma:nodePools.gpu.size`` (``oci:region`` for the region)."""
    if loc and loc[0] == "region":
        return "oci:region"
    path = ".".join(str(p) for p in loc)
    return f"{NAMESPACE}:{path}" if path else NAMESPACE
