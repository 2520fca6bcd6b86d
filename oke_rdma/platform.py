"""The in-cluster platform: namespaces with Pod Security Admission labels and the pinned add-ons (Helm releases and
vendored release manifests).

Every Kubernetes resource here takes the explicit provider handed in (``PlatformArgs.provider``, built by the cluster
component from the OKE kubeconfig) — nothing uses the ambient kubeconfig — and is parented to the component.

The add-ons come from a registry (:data:`oke_rdma.addons.REGISTRY`, one module per add-on): each enabled add-on gets
its namespace and a ``helm.sh/v3:Release`` of its pinned chart with its values (``platform.<key>.values`` deep-merged
over the ones the add-on sets), waiting for its namespace, for what the add-on prepares (e.g. the Secret Grafana
reads), for the enabled add-ons it names in ``after`` and for ``PlatformArgs.depends_on``. An add-on installed from
a vendored release manifest (``AddOn.manifest``, e.g. the MPI Operator) is a ``yaml/v2:ConfigGroup`` of the objects
the add-on renders (``objs``: the pack judges each one), waiting for the same things and for the tenant namespaces
(its per-tenant objects live there).

Namespaces are our own resources (releases use ``create_namespace=False``), one per enabled add-on namespace (and
extra namespace its config asks for) and one per tenant, each labelled for Pod Security Admission (``enforce``,
``audit`` and ``warn`` at the same level): the add-on's level (see each module of ``oke_rdma.addons``), ``privileged``
for a tenant with ``rdma: true`` (RDMA training pods use hostNetwork, the IPC_LOCK capability and the
``/dev/infiniband`` hostPath), ``restricted`` for other tenants. A namespace two add-ons share takes the laxer level.

Tenant namespaces are created after (and so destroyed before) every add-on whose custom resources or finalizers
their objects carry: Kueue's ``kueue.x-k8s.io/resource-in-use`` on Workloads, KEDA's ``finalizer.keda.sh``... A
namespace deleted after its operator is stuck Terminating (oracle-quickstart/oci-hpc-oke#251,
GoogleCloudPlatform/cluster-toolkit#5091).

Each tenant namespace also gets a ``ResourceQuota`` capping ``requests.nvidia.com/gpu`` at the tenant's GPU quota
plus its borrowing limit (zero without a quota), so pods that bypass Kueue cannot take GPUs either.

Sources: Kubernetes docs "Pod Security Standards" and "Pod Security Admission", "Resource Quotas" (extended
resources as ``requests.<name>``); pulumi_kubernetes 4.34 ``helm.sh/v3:Release`` — checked 2026-11-30.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from oke_rdma.addons import (PRIVILEGED, REGISTRY, RESTRICTED, Registry, enabled_releases, merge_values,
                             platform_model)
from oke_rdma.addons import namespace_levels as addon_namespace_levels
from oke_rdma.addons.gpu_operator import GPU_RESOURCE
from oke_rdma.addons.kueue import TENANT_LABEL
from oke_rdma.facts.storage import ATTACHMENT_TYPE_PARAMETER, BLOCK_VOLUME_PROVISIONER, PARAVIRTUALIZED

__all__ = ["PRIVILEGED", "RESTRICTED", "PSA_MODES", "GPU_RESOURCE", "TenantNamespace", "PlatformArgs", "Platform",
           "pod_security_labels", "namespace_levels", "merge_values"]

PSA_MODES = ("enforce", "audit", "warn")


@dataclass(frozen=True)
class TenantNamespace:
    """A tenant's namespace as the platform creates it.

    :param namespace: the Kubernetes namespace name.
    :param rdma: True for RDMA training pods (Pod Security ``privileged``), else ``restricted``.
    :param gpu_quota: the most ``nvidia.com/gpu`` its pods may request (count, >= 0): nominal quota plus borrowing
        limit.
    :param labels: extra namespace labels (e.g. ``okerdma.io/tenant``, which the metering rules join on).
    """

    namespace: str
    rdma: bool = False
    gpu_quota: int = 0
    labels: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.gpu_quota, bool) or not isinstance(self.gpu_quota, int) or self.gpu_quota < 0:
            raise ValueError(f"tenant namespace {self.namespace!r}: gpu_quota must be a count >= 0, "
                             f"got {self.gpu_quota!r}")


def pod_security_labels(level: str) -> dict[str, str]:
    """The Pod Security Admission labels enforcing, auditing and warning at ``level``."""
    return {f"pod-security.kubernetes.io/{mode}": level for mode in PSA_MODES}


def namespace_levels(platform: Any, tenants: Mapping[str, TenantNamespace],
                     addons: Registry = REGISTRY) -> dict[str, str]:
    """Namespace name → Pod Security level, for every enabled add-on namespace (and extra namespace its config asks
    for) and every tenant namespace: the add-on's level, ``privileged`` for RDMA tenants, ``restricted`` for other
    tenants."""
    levels = addon_namespace_levels(platform, addons)
    for t in tenants.values():
        levels[t.namespace] = PRIVILEGED if t.rdma else RESTRICTED
    return levels


#: Kinds a manifest's object may leave without a namespace (cluster-scoped). Source: ``kubectl api-resources
#: --namespaced=false`` of Kubernetes v1.34 — checked 2026-12-01.
_CLUSTER_SCOPED_KINDS = frozenset({"Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding",
                                   "PriorityClass", "StorageClass", "PersistentVolume", "IngressClass",
                                   "RuntimeClass", "MutatingWebhookConfiguration",
                                   "ValidatingWebhookConfiguration", "APIService"})


def _names_class(values: Any, name: str) -> bool:
    """True when Helm ``values`` name StorageClass ``name`` (a ``storageClassName``/``storageClass`` string)."""
    if isinstance(values, dict):
        return any((k in ("storageClassName", "storageClass") and v == name) or _names_class(v, name)
                   for k, v in values.items())
    return isinstance(values, list) and any(_names_class(v, name) for v in values)


def _namespaced(obj: dict[str, Any], namespace: str) -> dict[str, Any]:
    """``obj`` with ``metadata.namespace`` set to ``namespace`` when it is a namespaced object without one (the
    provider would otherwise put it in its default namespace)."""
    meta = obj.setdefault("metadata", {})
    if obj.get("kind") not in _CLUSTER_SCOPED_KINDS and not meta.get("namespace"):
        meta["namespace"] = namespace
    return obj


def _serves(obj: dict[str, Any], addon: Any, tenant_of: Mapping[str, str]) -> Optional[str]:
    """The tenant namespace a manifest add-on's object serves: its own namespace when that is a tenant's, else what
    the add-on's ``tenant_scope`` says (None: the add-on's own object)."""
    ns = (obj.get("metadata") or {}).get("namespace")
    if ns in tenant_of:
        return ns
    scoped = addon.tenant_scope(obj) if addon.tenant_scope else None
    return scoped if scoped in tenant_of else None


class PlatformArgs:
    """Inputs of :class:`Platform`.

    :param name_prefix: prefix of every logical name (``<prefix>-ns-<namespace>``, ``<prefix>-<release name>``).
    :param platform: the add-ons' config: a model with one field per add-on of ``addons``
        (:data:`oke_rdma.config.Platform`, or :func:`oke_rdma.addons.platform_model` of another registry); default
        every add-on's defaults.
    :param tenants: tenant name → :class:`TenantNamespace` (default none).
    :param provider: the explicit Kubernetes provider of the OKE cluster; every resource here uses it.
    :param depends_on: what every Helm release waits for — the node pools its pods run on (a release waits for its
        pods to be ready, and they have no node before the pools exist).
    :param addons: the add-on registry (default :data:`oke_rdma.addons.REGISTRY`).
    :param block_volume_class: the name of the block-volume StorageClass to create (volumes attached
        paravirtualized, so they attach to nodes with in-transit encryption; the cluster's default class), or None
        for none (:data:`oke_rdma.facts.storage.BLOCK_VOLUME_CLASS`).
    """

    def __init__(self, *, provider: pulumi.ProviderResource, name_prefix: str, platform: Optional[Any] = None,
                 tenants: Optional[Mapping[str, TenantNamespace]] = None, depends_on: Sequence[pulumi.Resource] = (),
                 addons: Registry = REGISTRY, block_volume_class: Optional[str] = None):
        if platform is None:
            platform = platform_model(addons)()
        missing = [a.key for a in addons if not hasattr(platform, a.field)]
        if missing:
            raise ValueError(f"PlatformArgs: platform has no config for the add-ons {missing} of the registry; build "
                             f"it with oke_rdma.addons.platform_model(addons)")
        self.provider = provider
        self.name_prefix = name_prefix
        self.platform = platform
        self.tenants = dict(tenants or {})
        self.depends_on = list(depends_on)
        self.addons = addons
        self.block_volume_class = block_volume_class


class Platform(pulumi.ComponentResource):
    """Namespaces and pinned Helm releases on the OKE cluster (type ``oke-rdma:platform:Platform``).

    Logical names are deterministic: ``<prefix>-ns-<namespace>`` and ``<prefix>-<release name>``; Helm release names
    and namespace names are set explicitly (no auto-naming suffix).

    Attributes: ``namespaces`` (namespace name → ``Namespace``), ``releases`` (add-on key → ``Release``, enabled Helm
    add-ons only, in install order), ``manifests`` (add-on key → ``ConfigGroup``, enabled manifest add-ons), ``tenant_namespaces`` (tenant → namespace name), ``pod_security`` (namespace name → PSA
    level), ``resource_quotas`` (tenant → ``ResourceQuota``), ``prepared`` (add-on key → the resources it created
    before its release, e.g. the Secret Grafana reads), ``finalizing`` (the add-on keys every tenant namespace waits
    for: those with CRDs or finalizers, so ``pulumi destroy`` empties the namespace while their operators run),
    ``manifest_tenant_parts`` (add-on key → the ``ConfigGroup`` of a manifest add-on's per-tenant objects, applied
    after the tenant namespaces).

    Raises nothing for a config the stack config accepted (names, versions and tenant namespaces are checked there).
    """

    def __init__(self, name: str, args: PlatformArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:platform:Platform", name, None, opts)
        prefix = args.name_prefix

        def k8s_opts(depends_on: Optional[list[pulumi.Resource]] = None) -> pulumi.ResourceOptions:
            return pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=depends_on)

        self.pod_security = namespace_levels(args.platform, args.tenants, args.addons)
        extra_labels = {t.namespace: dict(t.labels) for t in args.tenants.values()}
        self.namespaces: dict[str, k8s.core.v1.Namespace] = {}
        # Tenant namespaces carry their tenant's name: Kueue manages jobs only there (oke_rdma.addons.kueue).
        tenant_of = {t.namespace: tenant for tenant, t in args.tenants.items()}

        def namespace(ns: str, depends_on: Optional[list[pulumi.Resource]] = None) -> k8s.core.v1.Namespace:
            tenant_label = {TENANT_LABEL: tenant_of[ns]} if ns in tenant_of else {}
            return k8s.core.v1.Namespace(f"{prefix}-ns-{ns}", k8s.core.v1.NamespaceInitArgs(
                metadata=k8s.meta.v1.ObjectMetaArgs(
                    name=ns, labels={**extra_labels.get(ns, {}), **pod_security_labels(self.pod_security[ns]),
                                     "app.kubernetes.io/managed-by": "pulumi",
                                     "app.kubernetes.io/part-of": prefix, **tenant_label})), k8s_opts(depends_on))

        # The add-ons' namespaces first; the tenants' after the add-ons (below).
        for ns in self.pod_security:
            if ns not in tenant_of:
                self.namespaces[ns] = namespace(ns)
        self.tenant_namespaces = {tenant: t.namespace for tenant, t in args.tenants.items()}

        # The block-volume class: paravirtualized attachments, the only ones the CSI driver makes to a node with
        # in-transit encryption (oke_rdma.facts.storage); the cluster's default, so class-less claims get it.
        self.block_volume_class: Optional[k8s.storage.v1.StorageClass] = None
        if args.block_volume_class:
            self.block_volume_class = k8s.storage.v1.StorageClass(
                f"{prefix}-storageclass-{args.block_volume_class}", k8s.storage.v1.StorageClassInitArgs(
                    metadata=k8s.meta.v1.ObjectMetaArgs(
                        name=args.block_volume_class,
                        annotations={"storageclass.kubernetes.io/is-default-class": "true"},
                        labels={"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": prefix}),
                    provisioner=BLOCK_VOLUME_PROVISIONER,
                    parameters={ATTACHMENT_TYPE_PARAMETER: PARAVIRTUALIZED},
                    reclaim_policy="Delete", volume_binding_mode="WaitForFirstConsumer",
                    allow_volume_expansion=True), k8s_opts())

        enabled = enabled_releases(args.platform, args.addons)
        context = args.addons.context(args.platform, [t.namespace for t in args.tenants.values()])
        self.prepared: dict[str, list[pulumi.Resource]] = {}
        self.releases: dict[str, k8s.helm.v3.Release] = {}
        self.manifests: dict[str, k8s.yaml.v2.ConfigGroup] = {}
        installed: dict[str, pulumi.Resource] = {}
        tenant_parts: dict[str, list[dict[str, Any]]] = {}
        for key, release in enabled.items():
            addon = args.addons[key]
            ns = self.namespaces[release.namespace]
            prepared = list(addon.prepare(release, ns.metadata.name, prefix, k8s_opts()) if addon.prepare else ())
            if prepared:
                self.prepared[key] = prepared
            # The network's policy engine first (AddOn.cni): pods started before it are not enforced.
            engines = [] if addon.cni else [installed[k] for k in installed if args.addons[k].cni]
            deps: list[pulumi.Resource] = [ns, *args.depends_on, *prepared, *engines,
                                           *(installed[k] for k in addon.after if k in installed)]
            if addon.manifest is not None:
                objs = [_namespaced(o, release.namespace) for o in addon.manifest(release, context)]
                own = [o for o in objs if _serves(o, addon, tenant_of) is None]
                tenant_parts[key] = [o for o in objs if _serves(o, addon, tenant_of) is not None]
                installed[key] = self.manifests[key] = k8s.yaml.v2.ConfigGroup(
                    f"{prefix}-{addon.release_name}", k8s.yaml.v2.ConfigGroupArgs(objs=own), k8s_opts(deps))
                continue
            repo = k8s.helm.v3.RepositoryOptsArgs(repo=addon.repository) if addon.repository else None
            values = addon.helm_values(release, context)
            if self.block_volume_class is not None and _names_class(values, args.block_volume_class):
                deps.append(self.block_volume_class)  # its claims bind once the class exists
            self.releases[key] = k8s.helm.v3.Release(f"{prefix}-{addon.release_name}", k8s.helm.v3.ReleaseArgs(
                name=addon.release_name, chart=addon.chart, version=release.version, repository_opts=repo,
                namespace=ns.metadata.name, create_namespace=False, values=values),
                k8s_opts(deps))
            installed[key] = self.releases[key]

        # A tenant namespace waits for every add-on whose custom objects or finalizers its objects carry (Kueue's
        # Workloads, KEDA's ScaledObjects...): created after them, `pulumi destroy` deletes it first, while their
        # operators still remove the finalizers (oke_rdma.addons.AddOn.finalizers). O(tenants x add-ons) edges.
        self.finalizing = [k for k in installed if args.addons[k].crds or args.addons[k].finalizers]
        holders = [installed[k] for k in self.finalizing]
        for ns in sorted(tenant_of):
            self.namespaces[ns] = namespace(ns, holders)
        self.resource_quotas: dict[str, k8s.core.v1.ResourceQuota] = {}
        for tenant, t in args.tenants.items():
            ns = self.namespaces[t.namespace]
            self.resource_quotas[tenant] = k8s.core.v1.ResourceQuota(
                f"{prefix}-quota-{t.namespace}", k8s.core.v1.ResourceQuotaInitArgs(
                    metadata=k8s.meta.v1.ObjectMetaArgs(name="gpu", namespace=ns.metadata.name),
                    spec=k8s.core.v1.ResourceQuotaSpecArgs(hard={f"requests.{GPU_RESOURCE}": str(t.gpu_quota)})),
                k8s_opts())
        # A manifest add-on's per-tenant objects (a controller per tenant namespace, its Role there) after the tenant
        # namespaces; the same resource prefix keeps their names (and URNs) those of the add-on's own group.
        tenant_nss = [self.namespaces[ns] for ns in sorted(tenant_of)]
        self.manifest_tenant_parts: dict[str, k8s.yaml.v2.ConfigGroup] = {}
        for key, objs in tenant_parts.items():
            if objs:
                name = f"{prefix}-{args.addons[key].release_name}"
                self.manifest_tenant_parts[key] = k8s.yaml.v2.ConfigGroup(
                    f"{name}-tenants", k8s.yaml.v2.ConfigGroupArgs(objs=objs, resource_prefix=name),
                    k8s_opts([self.manifests[key], *tenant_nss]))

        self.register_outputs({"namespaces": {n: ns.metadata.name for n, ns in self.namespaces.items()},
                               "releases": {k: r.version for k, r in self.releases.items()},
                               "manifests": {k: getattr(args.platform, args.addons[k].field).version
                                             for k in self.manifests},
                               "tenantNamespaces": self.tenant_namespaces,
                               "gpuQuotas": {t: v.gpu_quota for t, v in args.tenants.items()}})
