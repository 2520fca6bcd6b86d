"""How a Gateway (Gateway API) of an internal class can still get a public load balancer, for ``no-public-endpoints``.

A Gateway's class decides which controller builds its load balancer, and ``internalIngressClasses`` lists the classes
whose controllers build internal ones. What the Gateway itself, or its class, may add to that Service:

| where                                   | what it does                                   | judged                          |
|-----------------------------------------|------------------------------------------------|---------------------------------|
| Gateway ``spec.infrastructure.annotations`` | copied onto the generated Service (GEP-1867; | the OCI cloud controller's keys |
|                                         | Cilium honours it): OCI's internal annotation  | (:data:`OCI_PREFIXES`) may only |
|                                         | set false, the load-balancer type switched to  | set an internal annotation to a |
|                                         | ``nlb`` (whose internal annotation the class   | ParseBool true; any other OCI   |
|                                         | never set), a subnet, reserved IP or NSG       | key is refused                  |
| Gateway ``spec.infrastructure.labels``  | copied onto the Service: Kubernetes' and       | keys in the kubernetes.io,      |
|                                         | Cilium's labels change who serves it           | k8s.io, cilium.io, oraclecloud  |
|                                         | (``service.kubernetes.io/service-proxy-name``, | domains are refused             |
|                                         | LB-IPAM / BGP selectors)                       |                                 |
| Gateway ``spec.infrastructure.parametersRef`` | an implementation's config object that   | always refused: its content is  |
|                                         | shapes the Service (GEP-1867)                  | not judged here                 |
| Gateway ``spec.addresses``              | the address the load balancer asks for (Cilium | only literal private IPs pass   |
|                                         | sets it as the Service's load-balancer IP; a   |                                 |
|                                         | reserved public IP on OCI)                     |                                 |
| GatewayClass ``spec.parametersRef`` of  | a config object (Cilium                        | refused for a class listed in   |
| an internal class                       | ``CiliumGatewayClassConfig``: Service type,    | ``internalIngressClasses``      |
|                                         | annotations) applied to every Gateway of it    |                                 |

An unknown value is refused. Sources (checked 2026-12-02): Gateway API GEP-1867 "Per-Gateway Infrastructure" and the
v1.1 ``GatewayInfrastructure`` type (``labels``, ``annotations``, ``parametersRef``), ``GatewaySpec.addresses``
(``IPAddress``, ``Hostname``, ``NamedAddress``) and ``GatewayClassSpec.parametersRef``; Cilium docs "GatewayClass
Parameters Support" (``CiliumGatewayClassConfig``); oracle/oci-cloud-controller-manager
``docs/load-balancer-annotations.md`` (annotation prefixes).
"""
from __future__ import annotations

import ipaddress
from typing import Any, Iterable

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from . import _rules as R
else:  # run by the Pulumi CLI from inside policies/security/
    import _rules as R

UNKNOWN = R.UNKNOWN
GATEWAY_CLASS_TYPES = ("kubernetes:gateway.networking.k8s.io/v1:GatewayClass",
                       "kubernetes:gateway.networking.k8s.io/v1beta1:GatewayClass")
LB_TYPE_ANNOTATION = "oci.oraclecloud.com/load-balancer-type"
INTERNAL_ANNOTATION = {"lb": "service.beta.kubernetes.io/oci-load-balancer-internal",
                       "nlb": "oci-network-load-balancer.oraclecloud.com/internal"}
#: Go strconv.ParseBool's true spellings (the cloud controller parses the internal annotations with it).
PARSEBOOL_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
#: Annotation prefixes the OCI cloud controller manager reads on a Service.
OCI_PREFIXES = ("service.beta.kubernetes.io/oci-", "oci.oraclecloud.com/", "oci-network-load-balancer.oraclecloud.com/")
#: Label domains whose labels change how Kubernetes, Cilium or OCI serve a Service.
SYSTEM_LABEL_DOMAINS = ("kubernetes.io", "k8s.io", "cilium.io", "oraclecloud.com")


def _keys(mapping: Any) -> Any:
    """The keys of a proxied map, :data:`UNKNOWN` for an unknown map, None for something that is no map."""
    if mapping is UNKNOWN:
        return UNKNOWN
    return list(mapping.keys()) if hasattr(mapping, "keys") else None


def _system_label(key: str) -> bool:
    domain = key.split("/", 1)[0] if "/" in key else ""
    return any(domain == d or domain.endswith("." + d) for d in SYSTEM_LABEL_DOMAINS)


def _annotation_problems(annotations: Any) -> Iterable[str]:
    keys = _keys(annotations)
    if keys is UNKNOWN:
        yield "has spec.infrastructure.annotations unknown during preview; set them literally"
        return
    if keys is None:
        yield "has spec.infrastructure.annotations that is not a map"
        return
    for key in keys:
        if not isinstance(key, str) or not key.startswith(OCI_PREFIXES):
            continue
        value = R.read(annotations, key)
        if key in INTERNAL_ANNOTATION.values():
            if not (isinstance(value, str) and value in PARSEBOOL_TRUE):
                yield (f"sets spec.infrastructure.annotations {key}: {value!r} (copied onto its load balancer's "
                       "Service), so OCI provisions a public load balancer; remove it or set it \"true\"")
        else:
            yield (f"sets the OCI load-balancer annotation {key} in spec.infrastructure.annotations (copied onto its "
                   "Service, past its internal class's settings); leave OCI annotations to the class's reviewed "
                   "configuration")


def _address_problems(addresses: Any) -> Iterable[str]:
    items = R.elements(addresses)
    if items is UNKNOWN:
        yield "has spec.addresses unknown during preview; list private IP addresses literally or none"
        return
    for i, entry in enumerate(items):
        kind = R.read(entry, "type", default="IPAddress")
        value = R.read(entry, "value")
        try:
            private = (kind == "IPAddress" and isinstance(value, str)
                       and ipaddress.ip_address(value.strip()).is_private)
        except ValueError:
            private = False
        if not private:
            yield (f"asks in spec.addresses[{i}] for {kind!r} {value!r}, which is not a literal private IP address: "
                   "its load balancer may take a public one; request private addresses only, or none")


def gateway_problems(props: Any) -> Iterable[str]:
    """Why a Gateway of an internal class may still get a public load balancer (the module table)."""
    infra = R.read(props, "spec", "infrastructure")
    if infra is UNKNOWN:
        yield "has spec.infrastructure unknown during preview; set it literally"
    elif infra is not None:
        if R.read(infra, "annotations") is not None:
            yield from _annotation_problems(R.read(infra, "annotations"))
        labels = R.read(infra, "labels")
        keys = _keys(labels) if labels is not None else []
        if keys is UNKNOWN or keys is None:
            yield "has spec.infrastructure.labels unknown during preview or not a map; set them literally"
        else:
            for key in keys:
                if not isinstance(key, str) or _system_label(key):
                    yield (f"sets the label {key!r} in spec.infrastructure.labels (copied onto its Service), which "
                           "changes how Kubernetes, Cilium or OCI serve it; use labels of your own domain")
        if R.read(infra, "parametersRef") is not None:
            yield ("sets spec.infrastructure.parametersRef: a configuration object that shapes its load balancer's "
                   "Service, which no rule reads; remove it and keep the class's reviewed configuration")
    addresses = R.read(props, "spec", "addresses")
    if addresses is not None:
        yield from _address_problems(addresses)


def gateway_class_problems(props: Any, internal_classes: Iterable[str]) -> Iterable[str]:
    """Why a GatewayClass listed internal may hand its Gateways a public load balancer: a ``parametersRef``."""
    name = R.read(props, "metadata", "name")
    internal = name is UNKNOWN or R.member(name, list(internal_classes))
    ref = R.read(props, "spec", "parametersRef")
    if internal and ref is not None:
        kind = "unknown" if ref is UNKNOWN else repr(R.read(ref, "kind"))
        yield (f"is listed in internalIngressClasses but sets spec.parametersRef (kind {kind}), a configuration "
               "applied to every Gateway's Service (Cilium's CiliumGatewayClassConfig may set its type and "
               "annotations) that no rule reads; remove it, or drop the class from internalIngressClasses")
