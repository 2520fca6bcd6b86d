"""Shared helpers for the oke-rdma policy rules: unknown-safe reads, three-valued logic, CIDR and port facts.

Reading props
    The engine hands every rule its props wrapped by ``pulumi_policy.proxy.unknown_checking_proxy``: reading an
    unknown value (a preview-time output such as a new NSG's OCID) raises ``UnknownValueError``, which the engine
    turns into an advisory "can't run policy ... during preview" note. A rule that reads props directly therefore
    *stops* at the first unknown. Rules that must fail closed read through :func:`read` / :func:`elements`
    instead: they return the :data:`UNKNOWN` marker rather than raising, and the rule decides what an unknown means.

Three-valued facts
    A fact about a security rule ("comes from the internet", "covers TCP 22") is ``True``, ``False`` or
    :data:`UNKNOWN`. :func:`all3` / :func:`any3` combine them with Kleene logic, so one *known* ``False`` (e.g. a
    literal private source CIDR) settles a verdict even when other fields are unknown, and only a verdict that stays
    ``UNKNOWN`` has to be reported as "cannot be verified during preview".

OCI facts used here (pulumi_oci 5.5.0 ``core/_inputs.py``; OCI Networking docs "Security Rules"): protocol numbers
are strings ("6" TCP, "17" UDP, "1" ICMP, "58" ICMPv6, "all") — a program may still pass a number (6), which every
rule reads through :func:`protocol_of` like its string form; a TCP/UDP rule without a destination port range
allows every port; NSG rules hold ports in ``tcpOptions.destinationPortRange {min, max}``, security-list rules in
``tcpOptions {min, max}``; ``sourceType`` is ``CIDR_BLOCK`` (the default), ``SERVICE_CIDR_BLOCK`` or (NSG only)
``NETWORK_SECURITY_GROUP``.
"""
from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from pulumi_policy import proxy as _proxy
from pulumi_policy.proxy import UnknownValueError


# --- resource type tokens (as the engine sees them) ---------------------------------------------------------------
NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"
CLUSTER = "oci:ContainerEngine/cluster:Cluster"
NSG = "oci:Core/networkSecurityGroup:NetworkSecurityGroup"
NSG_RULE = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"
SECURITY_LIST = "oci:Core/securityList:SecurityList"
DEFAULT_SECURITY_LIST = "oci:Core/defaultSecurityList:DefaultSecurityList"

# --- protocols and ports ------------------------------------------------------------------------------------------
TCP, UDP, ICMP, ICMPV6, ALL = "6", "17", "1", "58", "all"
PROTOCOL_NAMES = {TCP: "TCP", UDP: "UDP", ICMP: "ICMP", ICMPV6: "ICMPv6", ALL: "all protocols"}
MIN_PORT, MAX_PORT = 1, 65535
_PROTOCOL_ALIASES = {"all": ALL, "tcp": TCP, "udp": UDP, "icmp": ICMP, "icmpv6": ICMPV6}


def protocol_of(value: Any) -> Any:
    """A security rule's ``protocol`` in one canonical form: the IANA number as a decimal string ("6"), or
    :data:`ALL`. A number (``6``, or ``6.0`` as numbers come back from the engine) is its string form; "ALL" and
    protocol names ("TCP", "udp") are read as what they name, so no spelling slips past a rule. UNKNOWN and None
    pass through; anything else is returned as it is (it matches no rule's protocol test)."""
    if value is UNKNOWN or value is None or isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return str(int(value)) if float(value).is_integer() else str(value)
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return str(int(text))
        return _PROTOCOL_ALIASES.get(text.lower(), value)
    return value
SSH_PORT = 22
KUBERNETES_API_PORT = 6443

_SENTINELS = frozenset({
    _proxy.UNKNOWN_STRING_VALUE, _proxy.UNKNOWN_NUMBER_VALUE, _proxy.UNKNOWN_BOOLEAN_VALUE,
    _proxy.UNKNOWN_ARRAY_VALUE, _proxy.UNKNOWN_OBJECT_VALUE, _proxy.UNKNOWN_ASSET_VALUE,
    _proxy.UNKNOWN_ARCHIVE_VALUE,
})


class _Unknown:
    """The marker for "this value is unknown during preview". It has no truth value on purpose."""

    _instance: "_Unknown | None" = None

    def __new__(cls) -> "_Unknown":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        raise TypeError("UNKNOWN has no truth value; test it with `is UNKNOWN`")


UNKNOWN: Any = _Unknown()
_MISSING = object()


def member(value: Any, collection: Any) -> bool:
    """``value in collection`` for a set, frozenset or dict of plain keys, False when ``value`` cannot be hashed (a
    map or list where a program put one instead of a string): ``in`` on a set would raise ``TypeError`` there."""
    try:
        return value in collection
    except TypeError:
        return False


def read(obj: Any, *path: Any, default: Any = None) -> Any:
    """Follow ``path`` (dict keys / list indexes) through engine props without raising on unknowns.

    Returns ``default`` when a step is absent, ``None`` or the wrong shape, and :data:`UNKNOWN` when a step is an
    unknown value (or ``obj`` already is :data:`UNKNOWN`).
    """
    cur = obj
    for key in path:
        if cur is UNKNOWN:
            return UNKNOWN
        try:
            if isinstance(key, int):
                if isinstance(cur, str) or not isinstance(cur, Sequence):
                    return default
            elif not isinstance(cur, Mapping):
                return default
            cur = cur[key]
        except (KeyError, IndexError):
            return default
        except UnknownValueError:
            return UNKNOWN
        if isinstance(cur, str) and cur in _SENTINELS:
            return UNKNOWN
        if cur is None:
            return default
    return cur


def elements(seq: Any) -> Any:
    """The items of a proxied list, each item or :data:`UNKNOWN`; ``[]`` if absent; :data:`UNKNOWN` if unknown."""
    if seq is UNKNOWN:
        return UNKNOWN
    if seq is None or isinstance(seq, str) or not isinstance(seq, Sequence):
        return []
    return [read(seq, i) for i in range(len(seq))]


def is_set(obj: Any, *path: Any) -> bool:
    """True when the value at ``path`` is present and not null/empty-string; an unknown value counts as set."""
    value = read(obj, *path, default=_MISSING)
    return value is UNKNOWN or (value is not _MISSING and value != "")


def all3(*facts: Any) -> Any:
    """Kleene AND: False if any fact is False, else UNKNOWN if any is unknown, else True."""
    if any(f is False for f in facts):
        return False
    return UNKNOWN if any(f is UNKNOWN for f in facts) else True


def any3(*facts: Any) -> Any:
    """Kleene OR: True if any fact is True, else UNKNOWN if any is unknown, else False."""
    if any(f is True for f in facts):
        return True
    return UNKNOWN if any(f is UNKNOWN for f in facts) else False


#: The shortest prefix a source CIDR may have before the exposure rules treat it as the internet, per IP version.
#: An IPv4 /8 (16.7 M addresses, the largest block ever assigned to one organisation, and the size of 10.0.0.0/8)
#: is still a network; anything shorter spans many unrelated owners, and two /1s together *are* 0.0.0.0/0. For
#: IPv6, a /16 (the scale of a regional registry's allocation) is the bound, so 2000::/3 (all global unicast) is
#: internet-wide. A range wholly inside private address space (``fc00::/7``) never is.
INTERNET_WIDE_PREFIX = {4: 8, 6: 16}


def _bits(*spans: tuple[int, int]) -> tuple[int, ...]:
    """The IPv6 bit positions (0 = most significant) of spans ``(first, last)``, inclusive."""
    return tuple(b for first, last in spans for b in range(first, last + 1))


#: (IPv6 prefix, the bit positions of the IPv4 address it carries, XOR mask applied to those 32 bits) for every IPv6
#: prefix through which any IPv4 host can appear (IANA IPv6 Special-Purpose Address Registry, checked 2026-12-02):
#: IPv4-mapped ``::ffff:0:0/96`` (RFC 4291 §2.5.5.2), IPv4-compatible ``::/96`` (RFC 4291 §2.5.5.1, deprecated but
#: still a syntax), IPv4-translated ``::ffff:0:0:0/96`` (RFC 2765 SIIT), the NAT64 well-known prefix ``64:ff9b::/96``
#: (RFC 6052), the local-use NAT64 prefix ``64:ff9b:1::/48`` (RFC 8215) read in every RFC 6052 §2.2 layout an
#: operator may carve from it (/48, /56, /64, /96: the IPv4 bits skip the "u" octet, bits 64-71), 6to4 ``2002::/16``
#: (RFC 3056) and Teredo ``2001::/32`` (RFC 4380 §4: the client's public IPv4 address sits in the last 32 bits,
#: every bit inverted; any IPv4 host reaches the IPv6 internet through a public Teredo relay, so a Teredo range is the
#: IPv4 internet). A network containing one of these (``2000::/3``, ``::/0``) carries all of it.
EMBEDDED_V4 = (
    (ipaddress.IPv6Network("::ffff:0:0/96"), _bits((96, 127)), 0),
    (ipaddress.IPv6Network("::/96"), _bits((96, 127)), 0),
    (ipaddress.IPv6Network("::ffff:0:0:0/96"), _bits((96, 127)), 0),
    (ipaddress.IPv6Network("64:ff9b::/96"), _bits((96, 127)), 0),
    (ipaddress.IPv6Network("64:ff9b:1::/48"), _bits((48, 63), (72, 87)), 0),
    (ipaddress.IPv6Network("64:ff9b:1::/48"), _bits((56, 63), (72, 95)), 0),
    (ipaddress.IPv6Network("64:ff9b:1::/48"), _bits((72, 103)), 0),
    (ipaddress.IPv6Network("64:ff9b:1::/48"), _bits((96, 127)), 0),
    (ipaddress.IPv6Network("2002::/16"), _bits((16, 47)), 0),
    (ipaddress.IPv6Network("2001::/32"), _bits((96, 127)), 0xFFFFFFFF),
)


def embedded_v4(net: ipaddress.IPv6Network) -> list[ipaddress.IPv4Network]:
    """The IPv4 networks an IPv6 network carries through the prefixes of :data:`EMBEDDED_V4`: the IPv4 bits its
    prefix fixes, the others free (``2001::/32`` carries ``0.0.0.0/0``; ``::ffff:10.0.0.0/104`` carries
    ``10.0.0.0/8``)."""
    found = []
    for prefix, positions, mask in EMBEDDED_V4:
        if not net.overlaps(prefix):
            continue
        inner = net if net.prefixlen >= prefix.prefixlen else prefix  # the smaller of two overlapping CIDRs
        address = int(inner.network_address)
        value = 0
        for bit in positions:
            value = (value << 1) | ((address >> (127 - bit)) & 1)
        fixed = sum(1 for bit in positions if bit < inner.prefixlen)
        found.append(ipaddress.IPv4Network((value ^ mask, fixed), strict=False))
    return found


def _network(value: Any) -> Any:
    try:
        return ipaddress.ip_network(value.strip(), strict=False)
    except ValueError:  # an OCID (NSG source) or a service CIDR label such as "all-iad-services-in-oracle-..."
        return None


def internet_wide(value: Any) -> Any:
    """True for a source CIDR that is the internet or most of it: prefix /0, or shorter than
    :data:`INTERNET_WIDE_PREFIX` (IPv4 /7 and shorter, IPv6 /15 and shorter) and not wholly private, e.g.
    ``0.0.0.0/1``, ``128.0.0.0/1``, ``2000::/3``, and an IPv6 range carrying an internet-wide IPv4 range
    (``::ffff:0.0.0.0/96``, ``64:ff9b::/96``, Teredo ``2001::/32``: :func:`embedded_v4`). False for other CIDRs and for strings that are no CIDR (an NSG
    OCID, a service CIDR label); UNKNOWN passes. The exposure rules use this, so splitting 0.0.0.0/0 into
    0.0.0.0/1 + 128.0.0.0/1 does not get past them."""
    if value is UNKNOWN:
        return UNKNOWN
    if not isinstance(value, str):
        return False
    net = _network(value)
    if net is None:
        return False
    if net.version == 6 and any(v4.prefixlen < INTERNET_WIDE_PREFIX[4] for v4 in embedded_v4(net)):
        return True  # ::ffff:0.0.0.0/96, 64:ff9b::/96, 2002::/16, 2001::/32 ... and their supersets carry all of IPv4
    return net.prefixlen == 0 or (net.prefixlen < INTERNET_WIDE_PREFIX[net.version] and not net.is_private)


def internet_note(value: Any) -> str:
    """``", internet-wide (/1)"`` for an :func:`internet_wide` source that is not literally /0, else ``""``: the
    words a message adds so that a reader sees why 0.0.0.0/1 counts as the internet."""
    if internet_wide(value) is not True:
        return ""
    net = _network(value)
    return "" if net.prefixlen == 0 else f", internet-wide (/{net.prefixlen})"


def is_internet_cidr(value: Any) -> Any:
    """True for a CIDR with prefix length 0 (``0.0.0.0/0``, ``::/0``); False for any other string; UNKNOWN passes."""
    if value is UNKNOWN:
        return UNKNOWN
    if not isinstance(value, str):
        return False
    try:
        return ipaddress.ip_network(value.strip(), strict=False).prefixlen == 0
    except ValueError:  # an OCID (NSG source) or a service CIDR label such as "all-iad-services-in-oracle-..."
        return False


# --- a security rule, normalised from an NSG rule or a security-list entry -----------------------------------------
PortRange = tuple[int, int]  # inclusive; ``None`` in a rule means "no destination port range" = every port


@dataclass(frozen=True)
class IngressRule:
    """One security rule in engine terms; every field may be :data:`UNKNOWN`."""

    label: str
    direction: Any
    protocol: Any
    source: Any
    source_type: Any
    tcp_ports: Any
    udp_ports: Any


_PROP_NAMES = {"direction": "direction", "protocol": "protocol", "source": "source", "source_type": "sourceType",
               "tcp_ports": "tcpOptions", "udp_ports": "udpOptions"}


def _port_range(lo: Any, hi: Any) -> Any:
    if lo is UNKNOWN or hi is UNKNOWN:
        return UNKNOWN
    if lo is None and hi is None:
        return None
    try:  # int() refuses NaN (ValueError) and infinities (OverflowError): a non-finite port is no port
        return (int(lo if lo is not None else MIN_PORT), int(hi if hi is not None else MAX_PORT))
    except (TypeError, ValueError, OverflowError):  # not a number: no verdict can rest on it (network-rule-interpretable names it)
        return UNKNOWN


def _nsg_ports(options: Any) -> Any:
    rng = read(options, "destinationPortRange")
    return rng if rng is None or rng is UNKNOWN else _port_range(read(rng, "min"), read(rng, "max"))


def _security_list_ports(options: Any) -> Any:
    return options if options is None or options is UNKNOWN else _port_range(read(options, "min"),
                                                                            read(options, "max"))


def nsg_rule(props: Any, label: str) -> IngressRule:
    """Normalise ``oci:Core/networkSecurityGroupSecurityRule`` props (inputs or outputs)."""
    return IngressRule(label, read(props, "direction"), protocol_of(read(props, "protocol")), read(props, "source"),
                       read(props, "sourceType"), _nsg_ports(read(props, "tcpOptions")),
                       _nsg_ports(read(props, "udpOptions")))


def security_list_rules(props: Any, label: str) -> Any:
    """Normalise the ``ingressSecurityRules`` of a (default) security list; UNKNOWN if the list itself is unknown."""
    entries = elements(read(props, "ingressSecurityRules"))
    if entries is UNKNOWN:
        return UNKNOWN
    rules = []
    for i, entry in enumerate(entries):
        rules.append(IngressRule(
            f"{label} ingressSecurityRules[{i}]", "INGRESS", protocol_of(read(entry, "protocol")),
            read(entry, "source"),
            read(entry, "sourceType"), _security_list_ports(read(entry, "tcpOptions")),
            _security_list_ports(read(entry, "udpOptions"))))
    return rules


def from_internet(rule: IngressRule) -> Any:
    """Is this an ingress rule whose source is 0.0.0.0/0, ::/0 or another :func:`internet_wide` CIDR?"""
    ingress = UNKNOWN if rule.direction is UNKNOWN else rule.direction == "INGRESS"
    internet = internet_wide(rule.source)
    if internet is UNKNOWN and rule.source_type not in (None, UNKNOWN, "CIDR_BLOCK"):
        internet = False  # an NSG or service-CIDR source is never the internet, whatever its (unknown) value
    return all3(ingress, internet)


def _ports_for(rule: IngressRule, protocol: str) -> Any:
    return rule.tcp_ports if protocol == TCP else rule.udp_ports


def covers_port(rule: IngressRule, protocol: str, port: int) -> Any:
    """Does the rule allow ``protocol`` (TCP or UDP) traffic to destination ``port``?"""
    if rule.protocol is UNKNOWN:
        return UNKNOWN
    if rule.protocol == ALL:
        return True
    if rule.protocol != protocol:
        return False
    ports = _ports_for(rule, protocol)
    if ports is None or ports is UNKNOWN:
        return True if ports is None else UNKNOWN
    return ports[0] <= port <= ports[1]


def opens_all_ports(rule: IngressRule) -> Any:
    """Does the rule allow every protocol, or every TCP or UDP destination port?"""
    if rule.protocol is UNKNOWN:
        return UNKNOWN
    if rule.protocol == ALL:
        return True
    if rule.protocol not in (TCP, UDP):
        return False
    ports = _ports_for(rule, rule.protocol)
    if ports is None or ports is UNKNOWN:
        return True if ports is None else UNKNOWN
    return ports[0] <= MIN_PORT and ports[1] >= MAX_PORT


def unknown_props(rule: IngressRule) -> list[str]:
    """The engine property names of the rule's fields that are unknown, for messages."""
    return [_PROP_NAMES[f.name] for f in fields(rule) if getattr(rule, f.name) is UNKNOWN]


def describe(rule: IngressRule) -> str:
    """A short human description, e.g. ``INGRESS TCP 22 from 0.0.0.0/0`` (``?`` marks unknown parts)."""
    def show(value: Any) -> str:
        return "?" if value is UNKNOWN else str(value)

    proto = rule.protocol
    named = PROTOCOL_NAMES.get(proto) if isinstance(proto, str) else None  # a list or map is no key (and no protocol)
    text = "?" if proto is UNKNOWN else named or f"protocol {proto}"
    if proto in (TCP, UDP):
        ports = _ports_for(rule, proto)
        if ports is None:
            text += " all ports"
        elif ports is UNKNOWN:
            text += " ports ?"
        else:
            text += f" {ports[0]}" if ports[0] == ports[1] else f" {ports[0]}-{ports[1]}"
    return f"{show(rule.direction)} {text} from {show(rule.source)}{internet_note(rule.source)}"
