"""The platform's wall holds for every namespace it protects: no node-address path into a walled platform namespace.

The platform's own Cilium policy ``<prefix>-wall-platform`` (``oke_rdma.walls``) makes the pods of every namespace
that is not a tenant's — ``kube-system`` excepted — refuse connections from tenant pods, by the client's namespace
identity. A connection that arrives with a node's address (the ``host``/``remote-node`` identity) or a load
balancer's (``world``) carries no tenant identity, so the wall lets it through. ``tenant-services-inside-the-wall``
refuses the objects that open such a path into a *tenant* namespace; this rule refuses them in every namespace the
platform wall protects, in a stack that declares tenant namespaces (the wall then exists on its cluster):

* a ``NodePort`` or ``LoadBalancer`` Service with ``externalTrafficPolicy: Cluster`` (the default): every node
  forwards ``<node>:<nodePort>`` with the node's own address (kube-proxy, or Cilium's kube-proxy replacement, SNATs
  it), so any tenant pod reaches Prometheus or Grafana through any node;
* a ``LoadBalancer`` Service whose backend connections come from the load balancer's address (OCI's flexible load
  balancer, a proxy; a network load balancer without source preservation; another ``loadBalancerClass``): the
  tenant pod's connection to the load balancer's VCN address reaches the platform pod as ``world``
  (``tenant_pods.load_balancer_problems``);
* a container ``hostPort`` in a pod that is not host-networked: ``<node>:<hostPort>`` is forwarded to the pod by the
  node (the CNI ``portmap`` plugin's DNAT, which masquerades hairpin traffic; Cilium's hostPort support), so whether
  the client's identity survives depends on the node's data path — fail closed.

A ``hostNetwork`` pod is no Cilium endpoint at all: no wall selects it. It is node escape, refused outside the
node-agent namespaces by ``node-escape-only-in-node-agent-namespaces``; the node agents' own listeners are the
documented exception (docs/threat-model.md). ``kube-system`` is open to tenants by design (kube-dns), so nothing there
is a bypass. ExternalName Services are judged for tenants only: they move a tenant's traffic, not the wall.

Unknown values fail closed: an unknown namespace, Service type, traffic policy, annotations, ports or pod spec is a
violation.

Sources (checked 2026-12-03): Kubernetes docs "Service" (NodePort, LoadBalancer, ``externalTrafficPolicy``: with
Cluster the source address is replaced), "Virtual IPs and Service Proxies"; Cilium docs "Kubernetes without
kube-proxy" (SNAT of NodePort traffic with policy Cluster; hostPort support), "Policy Language" (entities ``host``,
``remote-node``, ``world``); CNI plugins docs "portmap" (DNAT, ``snat`` for hairpin); oracle/oci-cloud-controller-
manager ``load_balancer_spec.go`` (source preservation only for ``nlb`` with Local and ``is-preserve-source``).
"""
from __future__ import annotations

from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy

if __package__:  # imported as the package `policies.security`
    from ._objects import with_derived
    from ._pod_templates import is_cluster_scoped, pod_specs
    from ._pss import tenant_namespaces
    from ._rules import UNKNOWN, elements, read
    from .tenant_pods import SERVICE_TYPES, load_balancer_problems
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import with_derived
    from _pod_templates import is_cluster_scoped, pod_specs
    from _pss import tenant_namespaces
    from _rules import UNKNOWN, elements, read
    from tenant_pods import SERVICE_TYPES, load_balancer_problems

NAME = "platform-wall-no-node-paths"
#: Namespaces the platform wall leaves open to tenants (``oke_rdma.walls.OPEN_TO_TENANTS``; a test keeps them equal).
OPEN_TO_TENANTS = frozenset({"kube-system"})
_CONTAINERS = ("initContainers", "containers", "ephemeralContainers")


def service_paths(props: Any) -> list[str]:
    """Why a Service opens a node-address or load-balancer path past the platform wall ([] when it does not)."""
    spec = read(props, "spec")
    if spec is UNKNOWN:
        return ["its spec is unknown during preview"]
    kind = read(spec, "type", default="ClusterIP")
    if kind is UNKNOWN:
        return ["its type is unknown during preview"]
    if kind not in ("NodePort", "LoadBalancer"):
        return []
    policy = read(spec, "externalTrafficPolicy", default="Cluster")
    if policy != "Local":
        shown = "unknown" if policy is UNKNOWN else policy
        return [f"is a {kind} Service with externalTrafficPolicy {shown}: every node forwards <node>:<nodePort> "
                "with the node's own address, which the platform wall (it denies tenants' namespace identities) "
                "lets through, so any tenant pod reaches these pods; use ClusterIP, or externalTrafficPolicy: Local"]
    return load_balancer_problems(props, spec) if kind == "LoadBalancer" else []


def host_port_paths(spec: Any) -> list[str]:
    """Why a pod spec listens on its node's address (a ``hostPort`` outside ``hostNetwork``)."""
    if spec is UNKNOWN:
        return ["its pod spec is unknown during preview"]
    if read(spec, "hostNetwork") is True:
        return []  # node escape, judged by node-escape-only-in-node-agent-namespaces
    found = []
    for key in _CONTAINERS:
        containers = elements(read(spec, key))
        for i, c in enumerate(containers if containers is not UNKNOWN else [UNKNOWN]):
            ports = UNKNOWN if c is UNKNOWN else elements(read(c, "ports"))
            if ports is UNKNOWN:
                found.append(f"{key}[{i}] ports are unknown during preview")
                continue
            found += [f"{key}[{i}] hostPort {read(p, 'hostPort') if p is not UNKNOWN else 'unknown'}: the node "
                      "forwards <node>:<hostPort> to the pod, and a connection the node rewrites carries no tenant "
                      "identity for the platform wall to deny; use a ClusterIP Service"
                      for p in ports if p is UNKNOWN or read(p, "hostPort") not in (None, 0)]
    return found


def _validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    resources = with_derived(args.resources)
    tenants = tenant_namespaces(resources)
    if not tenants:
        return
    for r in resources:
        if is_cluster_scoped(r.resource_type):
            continue
        ns = read(r.props, "metadata", "namespace", default="default")
        if isinstance(ns, str) and (ns in tenants or ns in OPEN_TO_TENANTS):
            continue
        found = service_paths(r.props) if r.resource_type in SERVICE_TYPES else []
        for where, spec in pod_specs(r.resource_type, r.props):
            found += [f"{where + ': ' if where else ''}{p}" for p in host_port_paths(spec)]
        if found:
            where = "an unknown namespace" if ns is UNKNOWN or not isinstance(ns, str) else f"namespace {ns!r}"
            report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}' in {where}, which the platform wall "
                             f"protects from tenant pods, {'; '.join(found)}.", getattr(r, "urn", None))


POLICIES = [StackValidationPolicy(
    name=NAME,
    description=("In a stack with tenants, no object opens a node-address or load-balancer path into a namespace the "
                 "platform wall protects (every non-tenant namespace but kube-system): no NodePort or LoadBalancer "
                 "Service with externalTrafficPolicy Cluster, no LoadBalancer whose backend sees the load balancer's "
                 "address, no container hostPort."),
    validate=_validate, enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.HIGH,
    remediation_steps=("Expose platform services inside the cluster as ClusterIP; reach them from outside through a "
                       "network load balancer that keeps the client's address (oci.oraclecloud.com/load-balancer-type:"
                       " nlb, oci-network-load-balancer.oraclecloud.com/is-preserve-source: \"true\", "
                       "externalTrafficPolicy: Local). Source: docs/threat-model.md; Kubernetes docs \"Service\"; "
                       "Cilium docs \"Kubernetes without kube-proxy\"."),
    tags=["kubernetes", "tenancy", "isolation", "network"])]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    NAME: ("fails closed: an unknown namespace, Service spec, type, traffic policy, load-balancer annotations, ports or "
           "pod spec is a violation"),
}
