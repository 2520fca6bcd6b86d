"""Address-space arithmetic for the exposure rules: how much of the public internet a set of source CIDRs covers.

"Public" IPv4 space is everything outside the special-purpose blocks of the IANA IPv4 Special-Purpose Address
Registry that are not globally reachable (RFC 6890 and its updates; checked 2026-11-30): :data:`NON_PUBLIC_V4`.
Public IPv6 space is the global unicast block 2000::/3 (IANA IPv6 Address Space registry) without the documentation
prefix 2001:db8::/32. IPv6 prefixes that embed IPv4 addresses are read as the IPv4 space they carry, so
``::ffff:0.0.0.0/96`` (IPv4-mapped, RFC 4291 §2.5.5.2), ``64:ff9b::/96`` (NAT64 well-known prefix, RFC 6052) and
``2002::/16`` (6to4, RFC 3056) count as the whole IPv4 internet.

Sizes are compared with :data:`INTERNET_SCALE`: more public addresses than one /8 (IPv4) or one /16 (IPv6) in total
is "internet-scale" — the same bound ``_rules.INTERNET_WIDE_PREFIX`` puts on a single CIDR, now applied to a union,
so 119 public /8s (half of IPv4) or 256 /16s cannot pass where 0.0.0.0/1 would not.
"""
from __future__ import annotations

import ipaddress
from typing import Iterable, Optional, Union

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import embedded_v4
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import embedded_v4

Network = Union[ipaddress.IPv4Network, ipaddress.IPv6Network]

#: IPv4 blocks that are not public internet (IANA IPv4 Special-Purpose Address Registry, "Globally Reachable" =
#: False, plus multicast 224.0.0.0/4 and reserved 240.0.0.0/4). Pairwise disjoint.
NON_PUBLIC_V4 = tuple(ipaddress.IPv4Network(n) for n in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
    "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4",
    "240.0.0.0/4"))
PUBLIC_V6 = ipaddress.IPv6Network("2000::/3")
NON_PUBLIC_V6 = (ipaddress.IPv6Network("2001:db8::/32"),)
#: The most public addresses a union of sources may cover: one /8 of IPv4, one /16 of IPv6.
INTERNET_SCALE = {4: 2 ** 24, 6: 2 ** 112}
PUBLIC_V4_SIZE = 2 ** 32 - sum(n.num_addresses for n in NON_PUBLIC_V4)


def parse_cidr(text: object) -> Optional[Network]:
    """``text`` as a network (host bits allowed, as OCI accepts them), or None when it is not a CIDR string."""
    if not isinstance(text, str):
        return None
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        return None


def _overlap(a: Network, b: Network) -> int:
    """Addresses two CIDRs share (nested or disjoint: CIDRs never partly overlap)."""
    return min(a.num_addresses, b.num_addresses) if a.overlaps(b) else 0


def public_addresses(nets: Iterable[Network]) -> dict[int, int]:
    """How many distinct public addresses the union of ``nets`` covers, per IP version (4 and 6); IPv6 networks
    that embed IPv4 also count their IPv4 image."""
    v4: list[ipaddress.IPv4Network] = []
    v6: list[ipaddress.IPv6Network] = []
    for net in nets:
        if net.version == 4:
            v4.append(net)  # type: ignore[arg-type]
        else:
            v6.append(net)  # type: ignore[arg-type]
            v4.extend(embedded_v4(net))  # type: ignore[arg-type]
    size4 = sum(n.num_addresses - sum(_overlap(n, x) for x in NON_PUBLIC_V4)
                for n in ipaddress.collapse_addresses(v4))
    size6 = sum(_overlap(n, PUBLIC_V6) - sum(_overlap(n, x) for x in NON_PUBLIC_V6)
                for n in ipaddress.collapse_addresses(v6))
    return {4: size4, 6: size6}


def internet_scale(nets: Iterable[Network]) -> Optional[str]:
    """Why the union of ``nets`` is internet-scale (e.g. ``"1,996,488,704 public IPv4 addresses (54% of public
    IPv4)"``), or None when it covers at most :data:`INTERNET_SCALE` public addresses of each version."""
    sizes = public_addresses(nets)
    reasons = []
    if sizes[4] > INTERNET_SCALE[4]:
        reasons.append(f"{sizes[4]:,} public IPv4 addresses ({100 * sizes[4] / PUBLIC_V4_SIZE:.0f}% of public IPv4, "
                       "more than one /8)")
    if sizes[6] > INTERNET_SCALE[6]:
        reasons.append(f"2^{sizes[6].bit_length() - 1}+ public IPv6 addresses (more than one /16)")
    return " and ".join(reasons) or None
