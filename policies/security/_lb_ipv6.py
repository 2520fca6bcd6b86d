"""IPv6 addresses on load balancers the stack calls private: the class of ``no-public-endpoints`` that reads a load
balancer's IP version, not only its ``isPrivate``.

OCI's IPv6 addresses are drawn from the subnet's IPv6 prefixes; an Oracle-allocated GUA or BYOIPv6 prefix is globally
routable, so ``isPrivate: true`` (a VCN-local IPv4 address) says nothing about the IPv6 address next to it (OCI
Networking docs "IPv6 Addresses"; the same reason VNIC details that ask for IPv6 are refused, ``_vnic_problems``).
Only a unique local address (``fc00::/7``, RFC 4193; OCI VCNs take them as ``ipv6privateCidrBlocks``) stays inside
the networks that route it. Every way an IPv6 address lands on a load balancer:

* ``oci:NetworkLoadBalancer/networkLoadBalancer:NetworkLoadBalancer``: ``nlbIpVersion`` ``IPV4_AND_IPV6`` or
  ``IPV6``; ``assignedIpv6``; ``subnetIpv6cidr``; a ``reservedIps[].id`` that is an IPv6 OCID;
* ``oci:LoadBalancer/loadBalancer:LoadBalancer``: ``ipMode`` ``IPV6``; ``ipv6subnetCidr``; an IPv6 ``reservedIps[].id``;
* ``kubernetes:core/v1:Service`` ``type: LoadBalancer`` (OCI's cloud controller manager): ``spec.ipFamilyPolicy``
  ``RequireDualStack`` or ``PreferDualStack`` (dual-stack when the subnet has an IPv6 prefix), ``SingleStack`` with
  ``ipFamilies[0]`` ``IPv6``; the annotation ``oci-network-load-balancer.oraclecloud.com/assigned-ipv6``; an IPv6
  ``spec.loadBalancerIP``;
* the same Service in Helm values, KubeRay head and serve Services, a ``ServicePatch`` that sets these keys on a
  Service it does not own without making it something other than a LoadBalancer.

Passes: IPv4 only, or an IPv6 address the stack pins to a literal ULA prefix or address (``subnetIpv6cidr`` /
``ipv6subnetCidr`` / ``assignedIpv6`` / the annotation, all inside ``fc00::/7``) with nothing else that asks for a
global one. A stack that serves the internet on purpose sets ``allowPublicLoadBalancers``. A value OCI or Kubernetes
does not define (another ``nlbIpVersion``, ``ipMode``, family or policy) or one unknown during preview is refused.
An unset ``ipFamilyPolicy`` is ``SingleStack`` (the API server's default) in the cluster's first family, IPv4 on
OKE (cluster ``options.ipFamilies``: ``[]``, ``[IPv4]`` or ``[IPv4, IPv6]``, IPv4 first).

Sources (checked 2026-12-03): pulumi_oci 5.5.0 ``networkloadbalancer/network_load_balancer.py`` (``nlbIpVersion``,
``assignedIpv6``, ``subnetIpv6cidr``, ``reservedIps``: "reserved public ip, reserved private IP and reserved IPv6"),
``loadbalancer/load_balancer.py`` (``ipMode`` IPV4/IPV6, ``ipv6subnetCidr``), ``core/vcn.py``
(``ipv6privateCidrBlocks``: ULA or private IPv6 blocks), ``containerengine/_inputs.py`` (``ClusterOptions.ipFamilies``);
oracle/oci-cloud-controller-manager ``pkg/cloudprovider/providers/oci/load_balancer.go`` (``getLbEndpointIpVersion``:
the endpoint's versions from ``ipFamilyPolicy`` and ``ipFamilies``, PreferDualStack dual when the subnet has an IPv6
block; flexible LBs take dual-stack but not IPv6 alone) and ``load_balancer_spec.go``
(``oci-network-load-balancer.oraclecloud.com/assigned-ipv6``); Kubernetes docs "IPv4/IPv6 dual-stack" (Service
``ipFamilyPolicy`` SingleStack default, PreferDualStack, RequireDualStack); RFC 4193.
"""
from __future__ import annotations

import ipaddress
from typing import Any, Iterable

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from . import _rules as R
else:  # run by the Pulumi CLI from inside policies/security/
    import _rules as R

UNKNOWN = R.UNKNOWN
LOAD_BALANCER = "oci:LoadBalancer/loadBalancer:LoadBalancer"
NETWORK_LOAD_BALANCER = "oci:NetworkLoadBalancer/networkLoadBalancer:NetworkLoadBalancer"
ULA = ipaddress.ip_network("fc00::/7")
#: NLB ``nlbIpVersion`` → whether it asks for IPv6 (OCI API "CreateNetworkLoadBalancerDetails").
NLB_VERSIONS = {"IPV4": False, "IPV4_AND_IPV6": True, "IPV6": True}
#: LB ``ipMode`` → whether it asks for IPv6 (OCI API "CreateLoadBalancerDetails").
LB_MODES = {"IPV4": False, "IPV6": True}
ASSIGNED_IPV6 = "oci-network-load-balancer.oraclecloud.com/assigned-ipv6"
FAMILIES = ("IPv4", "IPv6")
POLICIES = ("SingleStack", "PreferDualStack", "RequireDualStack")
FIX = "keep it IPv4 only, or pin its IPv6 to a unique local (fc00::/7) prefix"


def _ula(value: Any) -> Any:
    """True for a literal address or prefix inside fc00::/7, False for any other, UNKNOWN when unknown."""
    if value is UNKNOWN:
        return UNKNOWN
    if not isinstance(value, str):
        return False
    try:
        net = ipaddress.ip_network(value.strip(), strict=False)
    except ValueError:
        return False
    return net.version == 6 and net.subnet_of(ULA)


def _pinned(where: str, values: dict[str, Any]) -> Iterable[str]:
    """Why the IPv6 pins that are set do not keep the address unique local."""
    for key, value in values.items():
        if value is None or value == "":
            continue
        ula = _ula(value)
        if ula is UNKNOWN:
            yield f"{where}{key} is unknown during preview, so whether its IPv6 address is global cannot be judged"
        elif not ula:
            yield (f"gets a globally routable IPv6 address ({where}{key} {value!r} is not inside fc00::/7: OCI's IPv6 "
                   f"addresses are global unless unique local); {FIX}")


def _reserved(props: Any) -> Iterable[str]:
    items = R.elements(R.read(props, "reservedIps"))
    if items is UNKNOWN:
        yield "its reservedIps are unknown during preview, so whether one is an IPv6 address cannot be judged"
        return
    for i, item in enumerate(items or []):
        ocid = R.read(item, "id")
        if ocid is UNKNOWN:
            yield (f"reservedIps[{i}].id is unknown during preview, so whether it is a reserved IPv6 address cannot "
                   "be judged; give the reserved IP's OCID literally")
        elif isinstance(ocid, str) and ocid.startswith("ocid1.ipv6."):
            yield (f"takes the reserved IPv6 address {ocid} (reservedIps[{i}]): OCI's IPv6 addresses are globally "
                   f"routable; {FIX}")


def oci_load_balancer_problems(resource_type: str, props: Any) -> list[str]:
    """Why an OCI load balancer or network load balancer has (or may have) a globally routable IPv6 address."""
    found: list[str] = []
    if resource_type == NETWORK_LOAD_BALANCER:
        key, table = "nlbIpVersion", NLB_VERSIONS
        pins = {"subnetIpv6cidr": R.read(props, "subnetIpv6cidr"), "assignedIpv6": R.read(props, "assignedIpv6")}
    elif resource_type == LOAD_BALANCER:
        key, table = "ipMode", LB_MODES
        pins = {"ipv6subnetCidr": R.read(props, "ipv6subnetCidr")}
    else:
        return []
    version = R.read(props, key)
    pinned = [p for p in pins.values() if p is not None and p != ""]
    if version is UNKNOWN:
        found.append(f"its {key} is unknown during preview, so whether it gets an IPv6 address cannot be judged; "
                     "set it literally")
    elif version is not None and version not in table:
        found.append(f"has {key} {version!r}, which OCI does not define ({', '.join(table)}), so its IP version "
                     "cannot be judged")
    elif table.get(version) and not pinned:
        found.append(f"gets a globally routable IPv6 address ({key} {version}: OCI draws it from the subnet's IPv6 "
                     f"prefix, global unless unique local; isPrivate concerns IPv4 only); {FIX}")
    found += _pinned("", pins)
    found += _reserved(props)
    return found


def _families(props: Any) -> Any:
    """The IP families a LoadBalancer Service's endpoint may get (a set), or a problem string."""
    policy = R.read(props, "spec", "ipFamilyPolicy")
    families = R.read(props, "spec", "ipFamilies")
    if policy is UNKNOWN or families is UNKNOWN:
        return ("its spec.ipFamilyPolicy or spec.ipFamilies is unknown during preview, so its IP version cannot be "
                "judged")
    items = [] if families is None else R.elements(families)
    if items is UNKNOWN or isinstance(families, str) or any(f not in FAMILIES for f in items):
        shown = families if items is UNKNOWN else list(items)
        return (f"has spec.ipFamilies {shown!r}: only a list of IPv4 and IPv6 is defined, so its IP version cannot be "
                "judged")
    if policy is not None and policy not in POLICIES:
        return f"has spec.ipFamilyPolicy {policy!r}, which Kubernetes does not define ({', '.join(POLICIES)})"
    if policy in ("PreferDualStack", "RequireDualStack"):
        return set(FAMILIES)  # dual-stack wherever the load balancer's subnet has an IPv6 prefix
    return {items[0] if items else "IPv4"}  # SingleStack (the default) in the first family, IPv4 on OKE


def service_problems(props: Any) -> list[str]:
    """Why a Service of type LoadBalancer gets (or may get) a globally routable IPv6 address through OCI's cloud
    controller manager; [] for an IPv4-only one or one pinned to a unique local address."""
    families = _families(props)
    if isinstance(families, str):
        return [families]
    found: list[str] = []
    annotations = R.read(props, "metadata", "annotations", default={})
    assigned = UNKNOWN if annotations is UNKNOWN else R.read(annotations, ASSIGNED_IPV6)
    lb_ip = R.read(props, "spec", "loadBalancerIP")
    if lb_ip is UNKNOWN or (isinstance(lb_ip, str) and ":" in lb_ip):
        found.append(f"asks for spec.loadBalancerIP {'unknown during preview' if lb_ip is UNKNOWN else repr(lb_ip)}, "
                     f"an IPv6 address its load balancer would take; {FIX}")
    if "IPv6" in families or (assigned is not None and assigned != ""):
        if assigned is None or assigned == "":
            shown = R.read(props, "spec", "ipFamilyPolicy") or "SingleStack"
            listed = list(R.elements(R.read(props, "spec", "ipFamilies")) or [])
            found.append(f"may get a globally routable IPv6 address (spec.ipFamilyPolicy {shown} with "
                         f"ipFamilies {listed}: OCI's cloud controller gives its load "
                         "balancer the subnet's IPv6 prefix, global unless unique local, whatever the internal "
                         f"annotation says); make it SingleStack IPv4, or pin {ASSIGNED_IPV6} to a unique local "
                         "address")
        else:
            found += _pinned("annotation ", {ASSIGNED_IPV6: assigned})
    return found


def patch_problems(props: Any) -> list[str]:
    """Why a ServicePatch may give a Service it does not own an IPv6 load-balancer address: it sets the IP family
    keys or the assigned-IPv6 annotation and leaves ``spec.type`` to the live Service (a patch that sets the type is
    judged as the kind)."""
    if R.read(props, "spec", "type") is not None:
        return []  # a patch that sets the type is judged as a Service (the kind's own checks)
    touched = any(R.read(props, "spec", k) is not None for k in ("ipFamilyPolicy", "ipFamilies", "loadBalancerIP"))
    annotations = R.read(props, "metadata", "annotations")
    touched = touched or (annotations is not UNKNOWN and R.read(annotations, ASSIGNED_IPV6) is not None)
    return service_problems(props) if touched else []
