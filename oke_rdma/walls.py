"""The tenants' network walls: one CiliumClusterwideNetworkPolicy per tenant and one for the platform's namespaces,
enforced by Cilium (``platform.cilium``, :mod:`oke_rdma.addons.cilium`).

A ``CiliumClusterwideNetworkPolicy`` is cluster-scoped: nothing in a tenant's namespace can delete or edit it (a
tenant's roles are namespaced). Each policy only *denies* (``ingressDeny``/``egressDeny``) and sets
``enableDefaultDeny: {ingress: false, egress: false}``, so it adds a wall without switching the selected pods to
default-deny: what is not walled off keeps flowing (DNS, the API server, load balancers, the platform's scrapes), and
a deny rule wins over any allow rule of any other policy (Cilium docs "Deny Policies"), so a tenant's own
NetworkPolicy cannot open the wall.

* ``<prefix>-wall-<tenant>``: the pods of the tenant's namespace refuse connections from pods of every namespace
  labelled ``okerdma.io/tenant`` (every tenant's, present and future) other than its own and those of the tenants in
  ``tenants.<t>.network.allowFrom``; they may not reach the instance metadata endpoint ``169.254.169.254`` (the
  node's identity: its instance principal, its metadata). OKE Workload Identity does not use it: the SDK exchanges
  the pod's service-account token at the cluster's proxymux, ``https://$KUBERNETES_SERVICE_HOST:12250
  /resourcePrincipalSessionTokens``, and reads the region from ``OCI_RESOURCE_PRINCIPAL_REGION``.
* ``<prefix>-wall-platform``: the pods of every namespace that is not a tenant's — the platform's add-on namespaces
  (monitoring, the GPU Operator, Kueue, KEDA, Cilium, ...), the storage jobs', ``default`` and any created later —
  refuse connections from tenant pods (a tenant's pod reaching Prometheus, Grafana or a controller's metrics).
  The platform still reaches tenants (Prometheus scrapes them; Kueue and the operators talk to the API server, not to
  pods); ``kube-system`` is left open (tenant pods need kube-dns).

What pod policy cannot stop: a pod with ``hostNetwork: true`` (RDMA training pods) is not a Cilium endpoint, it
speaks with its node's address and identity; RoCE traffic goes from the RDMA NICs straight to the peer's, never
through the veth where Cilium's programs run. RDMA tenants are separated by node pools instead (docs/tenants.md,
"Isolation").

The objects are plain dicts (:func:`policies`) so tests validate them against the CRD and the offline preview reads
the walls back from what is declared (:mod:`offline.reachability`). Every policy waits for a readiness gate that
dry-runs the kind (cilium-operator registers the CRDs when it starts, after Helm has returned).

Sources (checked 2026-12-01): Cilium docs "Policy Language" (``endpointSelector``, ``fromEndpoints`` with
``matchExpressions``, the ``io.kubernetes.pod.namespace`` and ``io.cilium.k8s.namespace.labels.<key>`` endpoint
labels, ``toCIDR``), "Deny Policies" (deny takes precedence over allow), the CRD's ``enableDefaultDeny`` ("default is
true for each traffic direction that has rules" — deny rules included); OCI docs "Getting Instance Metadata" (IMDS
listens on 169.254.169.254); OCI SDK OKE workload identity providers (proxymux port 12250,
``/resourcePrincipalSessionTokens``, service-account token) and OKE docs "Granting Workloads Access to OCI Resources"
(``OCI_RESOURCE_PRINCIPAL_REGION``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from oke_rdma.depends import all_of
from oke_rdma.readiness import ApiGate, ApiGateArgs, Probe

API_VERSION = "cilium.io/v2"
KIND = "CiliumClusterwideNetworkPolicy"
PLURAL = "ciliumclusterwidenetworkpolicies"
#: The tenant label the platform sets on every tenant namespace (oke_rdma.guard.TENANT_LABEL).
TENANT_LABEL = "okerdma.io/tenant"
#: Cilium endpoint labels: the pod's namespace, and a label of the pod's namespace (Cilium docs "Policy Language").
NAMESPACE_KEY = "k8s:io.kubernetes.pod.namespace"
NAMESPACE_LABEL_PREFIX = "k8s:io.cilium.k8s.namespace.labels."
#: The instance metadata endpoint (OCI docs "Getting Instance Metadata").
METADATA_CIDR = "169.254.169.254/32"


@dataclass(frozen=True)
class TenantWall:
    """One tenant's wall: ``namespace``; ``allow_from``, the namespaces of the tenants allowed in; ``rdma``, its pods
    may use hostNetwork (which no pod policy walls off)."""

    namespace: str
    allow_from: tuple[str, ...] = ()
    rdma: bool = False


def _labels(prefix: str) -> dict[str, str]:
    return {"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": prefix,
            "app.kubernetes.io/component": "network-wall"}


def tenant_policy(prefix: str, tenant: str, wall: TenantWall) -> dict[str, Any]:
    """The CiliumClusterwideNetworkPolicy of ``tenant``: ingress from other tenants' pods (except ``allow_from``)
    and egress to the instance metadata endpoint denied; no default-deny."""
    kept = sorted({wall.namespace, *wall.allow_from})
    return {
        "apiVersion": API_VERSION, "kind": KIND,
        "metadata": {"name": f"{prefix}-wall-{tenant}", "labels": {**_labels(prefix), TENANT_LABEL: tenant}},
        "spec": {
            "description": (f"oke-rdma: pods of tenant {tenant} refuse other tenants' pods"
                            + (f" except {', '.join(wall.allow_from)}" if wall.allow_from else "")
                            + " and never reach the instance metadata endpoint"),
            "endpointSelector": {"matchLabels": {NAMESPACE_KEY: wall.namespace}},
            "enableDefaultDeny": {"ingress": False, "egress": False},
            "ingressDeny": [{"fromEndpoints": [{"matchExpressions": [
                {"key": NAMESPACE_LABEL_PREFIX + TENANT_LABEL, "operator": "Exists"},
                {"key": NAMESPACE_KEY, "operator": "NotIn", "values": kept}]}]}],
            "egressDeny": [{"toCIDR": [METADATA_CIDR]}],
        },
    }


#: Namespaces the platform's wall leaves open to tenants: kube-system runs kube-dns, which every pod needs.
OPEN_TO_TENANTS = ("kube-system",)


def platform_policy(prefix: str) -> dict[str, Any]:
    """The CiliumClusterwideNetworkPolicy of every namespace that is not a tenant's (no ``okerdma.io/tenant`` label)
    except ``kube-system``: the platform's add-on namespaces, the storage jobs' namespace, ``default`` and any
    namespace created later outside the tenants. Ingress from any tenant's pods is denied."""
    return {
        "apiVersion": API_VERSION, "kind": KIND,
        "metadata": {"name": f"{prefix}-wall-platform", "labels": _labels(prefix)},
        "spec": {
            "description": "oke-rdma: pods outside the tenants' namespaces (kube-system excepted) refuse tenants' pods",
            "endpointSelector": {"matchExpressions": [
                {"key": NAMESPACE_LABEL_PREFIX + TENANT_LABEL, "operator": "DoesNotExist"},
                {"key": NAMESPACE_KEY, "operator": "NotIn", "values": list(OPEN_TO_TENANTS)}]},
            "enableDefaultDeny": {"ingress": False, "egress": False},
            "ingressDeny": [{"fromEndpoints": [{"matchExpressions": [
                {"key": NAMESPACE_LABEL_PREFIX + TENANT_LABEL, "operator": "Exists"}]}]}],
        },
    }


def policies(prefix: str, walls: Mapping[str, TenantWall]) -> list[dict[str, Any]]:
    """Every wall as a manifest (dict): one per tenant (in ``walls`` order), then the platform's."""
    return [*(tenant_policy(prefix, tenant, wall) for tenant, wall in walls.items()), platform_policy(prefix)]


#: The readiness gate's probe: a throw-away policy that selects nothing real.
PROBE = Probe(API_VERSION, KIND, PLURAL, namespaced=False,
              spec={"endpointSelector": {"matchLabels": {"okerdma.io/readiness-probe": "true"}},
                    "ingressDeny": [{"fromEntities": ["world"]}]})


def shared_nodes_text(pools: Mapping[str, Sequence[str]]) -> str:
    """``pool gpu with a, b; pools h100, h200 with c``: pool → the other tenants on it, pools with the same tenants
    named together (sorted), so the warning grows with pools + tenants, not pools × tenants."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for pool, others in sorted(pools.items()):
        groups.setdefault(tuple(sorted(others)), []).append(pool)
    return "; ".join(f"{'pool' if len(ps) == 1 else 'pools'} {', '.join(ps)} with {', '.join(o)}"
                     for o, ps in groups.items())


class WallsArgs:
    """Inputs of :class:`Walls`.

    :param name_prefix: the stack's name prefix.
    :param provider: the explicit Kubernetes provider of the cluster.
    :param walls: tenant → :class:`TenantWall`.
    :param engine: the Cilium Helm release, or None when ``platform.cilium`` is off (then nothing is created).
    :param engine_namespace: Cilium's ``Namespace`` resource (the readiness gate runs there).
    :param kubectl_version: the cluster's Kubernetes version (the gate's kubectl image tag).
    :param namespaces: tenant namespace name → its ``Namespace`` resource. Each tenant's wall waits for the
        namespaces its spec names (its own and its ``allow_from``), the platform's wall for every tenant namespace
        (it selects them all by the tenant label): tenants + allowFrom + tenants edges, not tenants².
    :param shared_nodes: RDMA tenant → GPU pool → the other tenants whose flavors cover that pool too: their pods
        may share nodes with the RDMA tenant's hostNetwork pods, which no pod policy walls off (warned about).
    """

    def __init__(self, *, name_prefix: str, provider: pulumi.ProviderResource, walls: Mapping[str, TenantWall],
                 engine: Optional[pulumi.Resource],
                 engine_namespace: Optional[k8s.core.v1.Namespace], kubectl_version: str,
                 namespaces: Optional[Mapping[str, pulumi.Resource]] = None,
                 shared_nodes: Optional[Mapping[str, Mapping[str, Sequence[str]]]] = None):
        self.name_prefix = name_prefix
        self.provider = provider
        self.walls = dict(walls)
        self.engine = engine
        self.engine_namespace = engine_namespace
        self.kubectl_version = kubectl_version
        self.namespaces = dict(namespaces or {})
        self.shared_nodes = {t: {p: list(o) for p, o in pools.items() if o}
                             for t, pools in (shared_nodes or {}).items()}


class Walls(pulumi.ComponentResource):
    """The tenants' and the platform's CiliumClusterwideNetworkPolicies (type ``oke-rdma:walls:Walls``); see the
    module docstring.

    Without an engine (``platform.cilium.enabled: false``) nothing is created and, when more than one tenant shares
    the cluster, a warning says every tenant's pods reach every other's. Attributes: ``policies`` (name → resource),
    ``gate`` (the readiness gate, or None). Raises nothing: names come from checked config.
    """

    def __init__(self, name: str, args: WallsArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:walls:Walls", name, None, opts)
        self.policies: dict[str, pulumi.CustomResource] = {}
        self.gate: Optional[ApiGate] = None
        for tenant, pools in sorted(args.shared_nodes.items()):
            if pools:
                shared = shared_nodes_text(pools)
                pulumi.log.warn(
                    f"tenant {tenant} runs RDMA pods with hostNetwork and shares GPU nodes ({shared}): hostNetwork "
                    f"and RoCE traffic bypass every pod policy, so on a shared node its pods see the node's network "
                    f"as the others' pods do; give it pools of its own with tenants.{tenant}.nodePools and isolation: "
                    f"dedicated (docs/tenants.md, Isolation)",
                    resource=self)
        if args.engine is None or args.engine_namespace is None:
            if len(args.walls) > 1:
                pulumi.log.warn(
                    f"platform.cilium.enabled is false: no network policy is enforced, so the pods of the "
                    f"{len(args.walls)} tenants ({', '.join(sorted(args.walls))}) reach each other's pods and the "
                    f"platform's on every port, and the instance metadata endpoint; enable platform.cilium to "
                    f"wall them off (docs/tenants.md, Isolation). If Cilium ran on this cluster, new pods stay in "
                    f"ContainerCreating until /etc/cni/net.d/05-cilium.conflist is removed from every node "
                    f"(docs/operations.md, Turning Cilium off)", resource=self)
            self.register_outputs({"policies": []})
            return
        rdma = sorted(t for t, w in args.walls.items() if w.rdma)
        if rdma:
            pulumi.log.info(
                f"tenants {', '.join(rdma)} run RDMA pods with hostNetwork: their traffic (and all RoCE traffic) "
                f"bypasses the Cilium walls, which only cover pod networking; only separate node pools keep them "
                f"apart (docs/tenants.md, Isolation)", resource=self)
        self.gate = ApiGate(f"{name}-gate", ApiGateArgs(
            args.engine, args.engine_namespace, [PROBE], args.provider, args.kubectl_version, args.name_prefix),
            pulumi.ResourceOptions(parent=self))
        # Each tenant's wall waits for the namespaces it names (its own, its allowFrom tenants'); the platform's wall
        # selects every tenant namespace by label, so it waits for them all, as one entry (oke_rdma.depends).
        every = [all_of(args.namespaces.values())] if args.namespaces else []
        waits: dict[str, list[pulumi.Resource]] = {}
        for tenant, wall in args.walls.items():
            named = dict.fromkeys((wall.namespace, *wall.allow_from))
            waits[f"{args.name_prefix}-wall-{tenant}"] = [args.namespaces[ns] for ns in named if ns in args.namespaces]
        for manifest in policies(args.name_prefix, args.walls):
            logical = manifest["metadata"]["name"]
            self.policies[logical] = k8s.apiextensions.CustomResource(
                logical, api_version=API_VERSION, kind=KIND, metadata=manifest["metadata"], spec=manifest["spec"],
                opts=pulumi.ResourceOptions(parent=self, provider=args.provider,
                                            depends_on=[args.engine, self.gate.job, *waits.get(logical, every)]))
        self.register_outputs({"policies": sorted(self.policies)})
