"""Resources that face the internet: load balancers, network load balancers, the Kubernetes objects that create them,
bastions, public IPs and VNICs that get one.

``no-public-endpoints`` (resource) refuses:

| resource type (engine token)                             | public when                                            |
|----------------------------------------------------------|--------------------------------------------------------|
| ``oci:LoadBalancer/loadBalancer:LoadBalancer``           | ``isPrivate`` is not literally true (OCI's default is  |
| ``oci:NetworkLoadBalancer/networkLoadBalancer:...``      | public), or it gets a global IPv6 address (``_lb_ipv6``)|
| ``kubernetes:core/v1:Service`` ``type: LoadBalancer``    | the OCI cloud controller's internal annotation for its |
|                                                          | load-balancer type is not true (see below), or an IPv6 |
|                                                          | family or address gives it a global IPv6 (``_lb_ipv6``)|
| ``kubernetes:core/v1:Service`` with ``externalIPs``      | always (the node answers for addresses it does not own;|
|                                                          | Kubernetes CVE-2020-8554)                              |
| ``kubernetes:networking.k8s.io/v1:Ingress``,             | its class is not listed in ``internalIngressClasses``  |
| ``kubernetes:gateway.networking.k8s.io/v1:Gateway``      | (the controller's Service decides the exposure), or it |
|                                                          | re-points its Service: ``spec.infrastructure``,        |
|                                                          | ``spec.addresses`` (``_gateway``)                      |
| ``kubernetes:gateway.networking.k8s.io/v1:GatewayClass`` | listed internal with a ``spec.parametersRef``          |
| ``oci:Core/publicIp:PublicIp``                           | always (a reserved or ephemeral public IP)             |
| ``oci:Core/instance:Instance``, ``oci:Core/vnicAttach..``| ``createVnicDetails.assignPublicIp`` is not literally  |
| ``oci:Core/instanceConfiguration:InstanceConfiguration`` | false (OCI assigns one in a public subnet when unset)  |
| ``oci:Bastion/bastion:Bastion``                          | its ``clientCidrBlockAllowLists`` is internet-wide or  |
|                                                          | their union is internet-scale (``_addresses``)         |
| ``oci:ObjectStorage/bucket:Bucket``                      | ``accessType`` is not ``NoPublicAccess`` (the default) |
| ``oci:ObjectStorage/preauthrequest:Preauthrequest``      | always (a bearer URL usable from the internet)         |
| ``oci:ApiGateway/gateway:Gateway``                       | ``endpointType`` is not ``PRIVATE``                    |
| ``oci:Database/autonomousDatabase:AutonomousDatabase``   | no ``subnetId`` (public endpoint) and no access control|
|                                                          | list, or one that is internet-wide / internet-scale    |
| ``oci:Artifacts/containerRepository:ContainerRepository``| ``isPublic`` is not false or unset (a public repository|
|                                                          | serves its images to anyone, unauthenticated)          |
| ``oci:ContainerEngine/containerInstance:...``            | a ``vnics[].isPublicIpAssigned`` is not literally false|
| ``oci:Marketplace/publication:Publication``              | ``listingType`` is not ``PRIVATE`` (a COMMUNITY listing|
|                                                          | offers the image to every tenancy)                     |

Kubernetes Services: OCI's cloud controller manager provisions a load balancer, or a network load balancer when
``oci.oraclecloud.com/load-balancer-type: "nlb"``; it is internal only when
``service.beta.kubernetes.io/oci-load-balancer-internal`` (load balancer) or
``oci-network-load-balancer.oraclecloud.com/internal`` (network load balancer) parses as true with Go's
``strconv.ParseBool`` (1, t, T, TRUE, true, True). The other type's annotation does nothing. Any other
load-balancer type is refused (its exposure cannot be judged), and so is a ``spec.loadBalancerClass`` (another
controller provisions the load balancer) not listed in ``internalIngressClasses``. The public API endpoint is judged by
``kubernetes-api-not-public``; node subnets by ``node-subnets-private``.

Config: ``allowPublicLoadBalancers`` (a stack that serves the internet through load balancers on purpose; their
listener ports are then ``no-internet-ingress``'s ``publicListenerPorts``), ``internalIngressClasses``.

Sources (checked 2026-11-30): oracle/oci-cloud-controller-manager ``docs/load-balancer-annotations.md`` and
``pkg/cloudprovider/providers/oci/load_balancer_util.go`` (annotation names, ParseBool); OKE docs "Configuring Load
Balancers and Network Load Balancers" ("Creating Internal Load Balancers"); OCI API reference "CreateLoadBalancerDetails"
/ "CreateNetworkLoadBalancerDetails" (``isPrivate`` defaults to false), "CreateVnicDetails" (``assignPublicIp``),
"Bastion" (``clientCidrBlockAllowList``); Object Storage docs "Public Buckets" (``accessType`` NoPublicAccess,
ObjectRead, ObjectReadWithoutList) and "Pre-Authenticated Requests"; API Gateway docs "Creating an API Gateway"
(``endpointType`` PUBLIC/PRIVATE); Autonomous Database docs "Configure Network Access with Private Endpoints" and
"... with Access Control Rules (ACLs)" (``subnetId``, ``isAccessControlEnabled``, ``whitelistedIps``); Kubernetes docs "Service" (externalIPs), "Ingress", Gateway API;
pulumi_oci 5.5.0 (property names; ``Instance`` takes ``assignPublicIp`` as a string). Checked 2026-12-01: Container
Registry docs "Overview of Container Registry" and OCI API "CreateContainerRepositoryDetails" (``isPublic``, false by
default: a public repository allows unauthenticated pulls); OCI API "CreateContainerVnicDetails"
(``isPublicIpAssigned``, no documented default, so only false passes); pulumi_oci 5.5.0
``artifacts/container_repository.py``, ``containerengine/container_instance.py``; OCI API
"CreatePublicationDetails" (``listingType`` COMMUNITY, PARTNER, PRIVATE) and Marketplace docs "Community
Applications" (a community listing is available to every OCI tenancy), pulumi_oci 5.5.0 ``marketplace/publication.py``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Iterable

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from . import _addresses as A
    from . import _gateway
    from . import _lb_ipv6
    from . import _rules as R
else:  # run by the Pulumi CLI from inside policies/security/
    import _addresses as A
    import _gateway
    import _lb_ipv6
    import _rules as R

UNKNOWN = R.UNKNOWN
LOAD_BALANCER = "oci:LoadBalancer/loadBalancer:LoadBalancer"
NETWORK_LOAD_BALANCER = "oci:NetworkLoadBalancer/networkLoadBalancer:NetworkLoadBalancer"
SERVICE = "kubernetes:core/v1:Service"
INGRESS_TYPES = ("kubernetes:networking.k8s.io/v1:Ingress", "kubernetes:networking.k8s.io/v1beta1:Ingress",
                 "kubernetes:extensions/v1beta1:Ingress")
GATEWAY_TYPES = ("kubernetes:gateway.networking.k8s.io/v1:Gateway",
                 "kubernetes:gateway.networking.k8s.io/v1beta1:Gateway")
PUBLIC_IP = "oci:Core/publicIp:PublicIp"
BUCKET = "oci:ObjectStorage/bucket:Bucket"
API_GATEWAY = "oci:ApiGateway/gateway:Gateway"
AUTONOMOUS_DB = "oci:Database/autonomousDatabase:AutonomousDatabase"
PREAUTH_REQUEST = "oci:ObjectStorage/preauthrequest:Preauthrequest"
BASTION = "oci:Bastion/bastion:Bastion"
CONTAINER_REPOSITORY = "oci:Artifacts/containerRepository:ContainerRepository"
CONTAINER_INSTANCE = "oci:ContainerEngine/containerInstance:ContainerInstance"
MARKETPLACE_PUBLICATION = "oci:Marketplace/publication:Publication"
#: Resource type → path of its CreateVnicDetails.
VNIC_DETAILS = {
    "oci:Core/instance:Instance": ("createVnicDetails",),
    "oci:Core/vnicAttachment:VnicAttachment": ("createVnicDetails",),
    "oci:Core/instanceConfiguration:InstanceConfiguration": ("instanceDetails", "launchDetails", "createVnicDetails"),
}
LB_TYPE_ANNOTATION = _gateway.LB_TYPE_ANNOTATION
lb_ipv6_patch_problems = _lb_ipv6.patch_problems
INTERNAL_ANNOTATION = _gateway.INTERNAL_ANNOTATION
PARSEBOOL_TRUE = _gateway.PARSEBOOL_TRUE


def read_class(props: Any) -> Any:
    """A Service's ``spec.loadBalancerClass`` (None when unset)."""
    return R.read(props, "spec", "loadBalancerClass")


def service_problems(props: Any, allow_public_lbs: bool, internal_classes: Iterable[str] = ()) -> list[str]:
    """Why a Service faces the internet (or may), [] when it does not. ``internal_classes``: load balancer classes
    whose controllers provision internal load balancers only."""
    internal_classes = set(internal_classes)
    problems = []
    external_ips = R.elements(R.read(props, "spec", "externalIPs"))
    if external_ips is UNKNOWN or external_ips:
        problems.append("sets spec.externalIPs: nodes then accept traffic for addresses they do not own "
                        "(CVE-2020-8554); use a Service of type ClusterIP or an internal load balancer")
    kind = R.read(props, "spec", "type")
    if kind is UNKNOWN:
        return problems + ["its spec.type is unknown during preview; set it literally"]
    if kind != "LoadBalancer" or allow_public_lbs:
        return problems
    problems += _lb_ipv6.service_problems(props)  # whichever controller: an IPv6 family is an IPv6 frontend
    lb_class = read_class(props)
    if lb_class is not None:  # another controller than OCI's provisions it (Kubernetes docs "Service": loadBalancerClass)
        if lb_class is UNKNOWN or lb_class not in internal_classes:
            return problems + [f"is type LoadBalancer with spec.loadBalancerClass {lb_class!r}: another controller "
                               "than OCI's cloud controller provisions it, so whether it is internal cannot be judged; "
                               "list the class in internalIngressClasses if its load balancers are internal"]
        return problems
    annotations = R.read(props, "metadata", "annotations", default={})
    if annotations is UNKNOWN:
        return problems + ["is type LoadBalancer and its annotations are unknown during preview, so it may be public"]
    lb_type = R.read(annotations, LB_TYPE_ANNOTATION, default="lb")
    if lb_type is UNKNOWN or lb_type not in INTERNAL_ANNOTATION:
        return problems + [f"is type LoadBalancer with {LB_TYPE_ANNOTATION}: {lb_type!r}, which is not 'lb' or "
                           "'nlb', so whether it is internal cannot be judged"]
    key = INTERNAL_ANNOTATION[lb_type]
    value = R.read(annotations, key)
    if value is UNKNOWN:
        return problems + [f"is type LoadBalancer and its {key} annotation is unknown during preview"]
    if not (isinstance(value, str) and value in PARSEBOOL_TRUE):
        shown = "missing" if value is None else repr(value)
        problems.append(f"is type LoadBalancer ({'network load balancer' if lb_type == 'nlb' else 'load balancer'})"
                        f" and its {key} annotation is {shown}, so OCI provisions a public one; annotate it "
                        f"{key}: \"true\"")
    return problems


def _public_vnic(details: Any) -> Any:
    """True / UNKNOWN when the VNIC gets (or may get) a public IP; False only for a literal false."""
    value = R.read(details, "assignPublicIp")
    if value is UNKNOWN:
        return UNKNOWN
    return not (value is False or (isinstance(value, str) and value.strip().lower() == "false"))


#: Where an instance configuration declares VNICs (OCI API "InstanceConfigurationLaunchInstanceDetails",
#: "InstanceConfigurationAttachVnicDetails", "ComputeInstanceOptions"): the primary VNIC of its launch details and
#: every secondary VNIC (``secondaryVnics[].createVnicDetails``), both at the top of ``instanceDetails`` and in each
#: of its ``options`` (instance type ``instance_options``).
def _items(value: Any) -> Any:
    """The items of a list (``[]`` when absent), or :data:`UNKNOWN` when unknown or not a list."""
    if value is None:
        return []
    if value is UNKNOWN or isinstance(value, str) or not isinstance(value, Sequence):
        return UNKNOWN
    return R.elements(value)


def vnic_details(resource_type: str, props: Any) -> list[tuple[str, Any]]:
    """(path, CreateVnicDetails) of every VNIC a resource declares; a list that cannot be read yields
    (path, :data:`UNKNOWN`) so that it is refused."""
    if resource_type != "oci:Core/instanceConfiguration:InstanceConfiguration":
        return [(".".join(VNIC_DETAILS[resource_type]), R.read(props, *VNIC_DETAILS[resource_type], default={}))]
    found: list[tuple[str, Any]] = []
    options = _items(R.read(props, "instanceDetails", "options"))
    roots = [("instanceDetails", R.read(props, "instanceDetails", default={}), options == [])]
    if options is UNKNOWN:
        found.append(("instanceDetails.options", UNKNOWN))
    else:
        roots += [(f"instanceDetails.options[{i}]", item, True) for i, item in enumerate(options)]
    for base, root, launches in roots:
        if launches or R.read(root, "launchDetails") is not None:  # the top level launches unless options do
            found.append((f"{base}.launchDetails.createVnicDetails",
                          R.read(root, "launchDetails", "createVnicDetails", default={})))
        secondary = _items(R.read(root, "secondaryVnics"))
        if secondary is UNKNOWN:
            found.append((f"{base}.secondaryVnics", UNKNOWN))
            continue
        found += [(f"{base}.secondaryVnics[{i}].createVnicDetails", R.read(vnic, "createVnicDetails", default={}))
                  for i, vnic in enumerate(secondary)]
    return found


def _vnic_problems(where: str, details: Any) -> Iterable[str]:
    """A VNIC that gets (or may get) a public IPv4 address, or an IPv6 address (OCI's IPv6 addresses are globally
    routable: GUA from Oracle or BYOIPv6, OCI docs "IPv6 Addresses")."""
    public = _public_vnic(details)
    if public is UNKNOWN:
        yield f"{where}.assignPublicIp is unknown during preview; set it to the literal false"
    elif public:
        yield (f"may get a public IP: {where}.assignPublicIp is not false (OCI assigns one in a public subnet when it "
               "is unset); set assignPublicIp to false")
    if details is UNKNOWN:
        return
    ipv6 = R.read(details, "assignIpv6ip")
    pairs = R.read(details, "ipv6addressIpv6subnetCidrPairDetails")
    if ipv6 is UNKNOWN or pairs is UNKNOWN:
        yield f"{where} IPv6 assignment is unknown during preview; leave assignIpv6ip false"
    elif (ipv6 is not None and ipv6 is not False) or (pairs is not None and pairs != [] and R.elements(pairs) != []):
        yield (f"gets an IPv6 address ({where}.assignIpv6ip / ipv6addressIpv6subnetCidrPairDetails): OCI's IPv6 "
               "addresses are globally routable; leave assignIpv6ip false")


def _autonomous_db_problems(props: Any) -> Iterable[str]:
    """An Autonomous Database without a private endpoint (``subnetId``) listens on a public endpoint; only an
    access control list (``isAccessControlEnabled`` with ``whitelistedIps``) narrower than internet-scale limits it."""
    subnet = R.read(props, "subnetId")
    if subnet is UNKNOWN or (isinstance(subnet, str) and subnet):
        return  # a private endpoint in the VCN (an unknown subnet OCID still means one)
    acl_on = R.read(props, "isAccessControlEnabled")
    entries = R.elements(R.read(props, "whitelistedIps"))
    if acl_on is UNKNOWN or entries is UNKNOWN or any(e is UNKNOWN for e in entries):
        yield "has a public endpoint whose access control list is unknown during preview"
        return
    if acl_on is not True or not entries:
        yield ("has a public endpoint open to every IP address (no subnetId, no access control list); give it a "
               "private endpoint (subnetId) or an access control list of client networks")
        return
    nets = [A.parse_cidr(e) for e in entries if isinstance(e, str) and not e.startswith("ocid1.")]
    wide = [str(n) for n in nets if n is not None and R.internet_wide(str(n)) is True]
    scale = A.internet_scale(n for n in nets if n is not None)
    if wide or scale:
        yield (f"has a public endpoint whose access control list admits the internet "
               f"({', '.join(wide) if wide else scale}); list only client networks or VCNs")


def _published_problems(resource_type: str, props: Any) -> Iterable[str]:
    """Container repositories that serve images to anyone, container instances with a public IP and Marketplace
    publications listed outside the tenancy."""
    if resource_type == CONTAINER_REPOSITORY:
        public = R.read(props, "isPublic")
        if public is UNKNOWN:
            yield "has isPublic unknown during preview; set it to the literal false"
        elif public is not None and public is not False:
            yield (f"has isPublic {public!r}: anyone on the internet may pull its images without signing in; set "
                   "isPublic: false and let nodes pull with instance principals")
    elif resource_type == CONTAINER_INSTANCE:
        vnics = R.elements(R.read(props, "vnics"))
        if vnics is UNKNOWN:
            yield "has vnics unknown during preview; list them with isPublicIpAssigned: false"
            return
        for i, vnic in enumerate(vnics):
            value = R.read(vnic, "isPublicIpAssigned")
            if value is UNKNOWN:
                yield f"vnics[{i}].isPublicIpAssigned is unknown during preview; set it to the literal false"
            elif value is not False:
                yield (f"vnics[{i}] may get a public IP (isPublicIpAssigned is {value!r}, only false is private); "
                       "set isPublicIpAssigned: false")
    elif resource_type == MARKETPLACE_PUBLICATION:
        listing = R.read(props, "listingType")
        if listing != "PRIVATE":
            shown = "unknown during preview" if listing is UNKNOWN else repr(listing)
            yield (f"has listingType {shown}: a COMMUNITY or PARTNER listing publishes its image to other "
                   "tenancies; use PRIVATE, or share images through a reviewed process")


def problems_of(resource_type: str, props: Any, config: dict) -> Iterable[str]:
    """Why one resource faces the internet (see the module table)."""
    yield from _published_problems(resource_type, props)
    allow_lbs = bool(config.get("allowPublicLoadBalancers"))
    if resource_type in (LOAD_BALANCER, NETWORK_LOAD_BALANCER):
        private = R.read(props, "isPrivate")
        if private is UNKNOWN:
            yield "its isPrivate is unknown during preview; set it to the literal true"
        elif private is not True and not allow_lbs:
            yield "is public (isPrivate is not true; OCI's default is a public IP); set isPrivate: true"
        if not allow_lbs:
            yield from _lb_ipv6.oci_load_balancer_problems(resource_type, props)
    elif resource_type == SERVICE:
        yield from service_problems(props, allow_lbs, config.get("internalIngressClasses") or [])
    elif resource_type in INGRESS_TYPES or resource_type in GATEWAY_TYPES:
        key = "ingressClassName" if resource_type in INGRESS_TYPES else "gatewayClassName"
        cls = R.read(props, "spec", key)
        internal = config.get("internalIngressClasses") or []
        if cls is UNKNOWN or not R.member(cls, internal):
            shown = "unknown" if cls is UNKNOWN else repr(cls)
            yield (f"uses class {shown} (spec.{key}), which is not listed in internalIngressClasses, so the load "
                   "balancer its controller exposes cannot be verified internal; use an internal class or list it")
        elif resource_type in GATEWAY_TYPES:
            yield from _gateway.gateway_problems(props)
    elif resource_type in _gateway.GATEWAY_CLASS_TYPES:
        yield from _gateway.gateway_class_problems(props, config.get("internalIngressClasses") or [])
    elif resource_type == BUCKET:
        access = R.read(props, "accessType", default="NoPublicAccess")
        if access != "NoPublicAccess":
            shown = "unknown during preview" if access is UNKNOWN else repr(access)
            yield (f"has accessType {shown}: anyone on the internet may read (ObjectRead: and list) its objects; set "
                   "accessType: NoPublicAccess")
    elif resource_type == API_GATEWAY:
        kind = R.read(props, "endpointType")
        if kind != "PRIVATE":
            yield (f"has endpointType {'unknown during preview' if kind is UNKNOWN else repr(kind)}: a PUBLIC gateway "
                   "gets a public IP; set endpointType: PRIVATE")
    elif resource_type == AUTONOMOUS_DB:
        yield from _autonomous_db_problems(props)
    elif resource_type == PREAUTH_REQUEST:
        yield ("is a pre-authenticated request: a bearer URL that lets anyone holding it reach the bucket's data from "
               "the internet; grant access through IAM (Workload Identity) instead")
    elif resource_type == PUBLIC_IP:
        yield "is a public IP address; reach private resources through the OCI Bastion service or a VPN instead"
    elif resource_type in VNIC_DETAILS:
        for where, details in vnic_details(resource_type, props):
            yield from _vnic_problems(where, details)
    elif resource_type == BASTION:
        cidrs = R.elements(R.read(props, "clientCidrBlockAllowLists"))
        if cidrs is UNKNOWN or any(c is UNKNOWN for c in cidrs):
            yield "its clientCidrBlockAllowLists is unknown during preview; list the client CIDRs literally"
            return
        nets = [A.parse_cidr(c) for c in cidrs]
        bad = [c for c, n in zip(cidrs, nets) if n is None]
        if bad:
            yield f"clientCidrBlockAllowLists entries {bad} are not CIDRs"
        wide = [c for c in cidrs if R.internet_wide(c) is True]
        scale = A.internet_scale(n for n in nets if n is not None)
        if wide or scale:
            yield (f"admits the internet to its sessions (clientCidrBlockAllowLists {', '.join(wide) if wide else ''}"
                   f"{'' if wide else 'together cover ' + str(scale)}); list only the administrators' networks")


def validate_no_public_endpoints(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``no-public-endpoints``: see the module docstring. Unknowns fail closed."""
    kind = args.resource_type.split(":")[-1]
    for problem in problems_of(args.resource_type, args.props, args.get_config() or {}):
        report_violation(f"{kind} '{args.name}' {problem}.", None)


no_public_endpoints = ResourceValidationPolicy(
    name="no-public-endpoints",
    description=("Nothing faces the internet: load balancers and network load balancers are private, Kubernetes "
                 "Services of type LoadBalancer carry OCI's internal annotation, Ingresses/Gateways use an internal "
                 "class, no public IPs or VNICs with one, no Service externalIPs, bastions admit only known "
                 "networks, no public buckets, pre-authenticated requests, container repositories or Marketplace "
                 "listings, no public API gateways, container instances or open Autonomous Database endpoints."),
    validate=validate_no_public_endpoints,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Set isPrivate: true; annotate LoadBalancer Services service.beta.kubernetes.io/"
                       "oci-load-balancer-internal: \"true\" (or oci-network-load-balancer.oraclecloud.com/internal: "
                       "\"true\" with load-balancer-type nlb); set assignPublicIp: false; reach nodes through the "
                       "OCI Bastion service with a narrow client list. A stack that serves the internet on purpose "
                       "sets allowPublicLoadBalancers. Source: oracle/oci-cloud-controller-manager "
                       "docs/load-balancer-annotations.md; OKE docs: Configuring Load Balancers and Network Load "
                       "Balancers; OCI API: CreateVnicDetails."),
    tags=["network", "security", "exposure"],
    config_schema=PolicyConfigSchema(properties={
        "allowPublicLoadBalancers": {"type": "boolean", "default": False,
                                     "description": "this stack serves the internet through load balancers"},
        "internalIngressClasses": {"type": "array", "uniqueItems": True, "default": [],
                                   "items": {"type": "string", "maxLength": 253},
                                   "description": ("Ingress, Gateway and Service loadBalancerClass classes whose "
                                                   "controller provisions internal load balancers only")}}),
)

POLICIES = [no_public_endpoints]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "no-public-endpoints": ("fails closed: an unknown isPrivate, Service type or annotation, ingress class, "
                            "assignPublicIp, bastion client list, bucket accessType, container repository "
                            "isPublic, container instance isPublicIpAssigned or publication listingType is a "
                            "violation"),
}
