"""The in-cluster platform: namespaces with Pod Security Admission labels and the pinned Helm releases.

Every Kubernetes resource here takes the explicit provider handed in (``PlatformArgs.provider``, built by the cluster
component from the OKE kubeconfig) — nothing uses the ambient kubeconfig — and is parented to the component.

Namespaces are our own resources (releases use ``create_namespace=False``), one per enabled release namespace and
one per tenant, each labelled for Pod Security Admission (``enforce``, ``audit`` and ``warn`` at the same level):

=========================================  ============  ======================================================
namespace                                  level         why
=========================================  ============  ======================================================
GPU Operator (``gpu-operator``)            privileged    device plugin, DCGM exporter, container toolkit and
                                                         validator pods mount host paths, run privileged and
                                                         use the host's devices
kube-prometheus-stack (``monitoring``)     privileged    node-exporter uses hostNetwork, hostPID and hostPath
                                                         mounts of /proc, /sys and /
tenant with ``rdma: true``                 privileged    RDMA training pods use hostNetwork, the IPC_LOCK
                                                         capability and the ``/dev/infiniband`` hostPath
Kueue, KEDA, tenant with ``rdma: false``   restricted    their charts and ordinary workloads run as non-root
                                                         with dropped capabilities and RuntimeDefault seccomp
RDMA topology labeler (when enabled)       privileged    hostNetwork, to read this host's instance metadata
=========================================  ============  ======================================================

Each tenant namespace also gets a ``ResourceQuota`` capping ``requests.nvidia.com/gpu`` at the tenant's GPU quota
plus its borrowing limit (zero without a quota), so pods that bypass Kueue cannot take GPUs either.

``platform.<release>.values`` are deep-merged over the values below (:func:`merge_values`).

Releases (exact chart versions from ``platform.*.version``; a disabled one is skipped):

* ``kube-prometheus-stack`` (prometheus-community) — installed first: its CRDs (``ServiceMonitor``, ...) are used by
  the others. ``*SelectorNilUsesHelmValues: false`` so Prometheus picks up every ServiceMonitor/PodMonitor/Probe/
  PrometheusRule in the cluster, not only the chart's own. Prometheus keeps ``retention`` (and at most
  ``retentionSizeGb``) on a ``storageGb`` block volume of ``storageClass``. Grafana's admin password, when given,
  is a Pulumi secret written into a Kubernetes Secret the chart reads (``grafana.admin.existingSecret``) — it is
  never in Helm values; without one, Grafana generates a random password instead of the chart's known default.
* ``gpu-operator`` (NVIDIA NGC) — ``depends_on`` kube-prometheus-stack (its DCGM exporter ``ServiceMonitor``; the
  ServiceMonitor is turned off when kube-prometheus-stack is disabled). ``driver.enabled: false`` because OKE GPU
  images ship the NVIDIA driver (and OFED); CDI on; the device plugin on; daemon sets tolerate the
  ``nvidia.com/gpu`` taint of GPU nodes. OKE runs its own NVIDIA device plugin on GPU nodes unless the node carries
  the label ``oci.oraclecloud.com/disable-gpu-device-plugin=true``: the compute component labels GPU pools with it,
  so only the operator's device plugin runs (two plugins would advertise ``nvidia.com/gpu`` twice).
* ``kueue`` (``oci://registry.k8s.io/kueue/charts/kueue``, an OCI chart: no repository) — Kueue objects
  (Topology, ResourceFlavor, ClusterQueue, LocalQueue) must ``depends_on`` :attr:`Platform.releases` ``["kueue"]``
  (see ``oke_rdma.scheduling``). With kube-prometheus-stack, its metrics ``ServiceMonitor`` is on and the
  release waits for kube-prometheus-stack (the CRD).
* ``keda`` (kedacore). Its CRDs are too large for client-side ``kubectl apply`` (the last-applied annotation
  exceeds 256 KiB); Helm creates them without that annotation, so the Helm release is safe.

Sources: Kubernetes docs "Pod Security Standards" and "Pod Security Admission"; NVIDIA GPU Operator docs
"Installing the NVIDIA GPU Operator" (pre-installed drivers, CDI); OKE docs "Running Applications on GPU-based
Nodes" (disabling the OKE device plugin); Kueue and KEDA installation docs; kube-prometheus-stack chart README.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from oke_rdma.config import StackConfig

PRIVILEGED, RESTRICTED = "privileged", "restricted"
PSA_MODES = ("enforce", "audit", "warn")
GPU_TAINT_KEY = "nvidia.com/gpu"
GPU_RESOURCE = "nvidia.com/gpu"
GRAFANA_SECRET = "grafana-admin"


@dataclass(frozen=True)
class ReleaseSpec:
    """How one platform release is installed: chart, repository (None for an OCI chart) and PSA level needed."""

    key: str  # the ``platform.<key>`` config key
    release_name: str  # the Helm release name in the cluster
    chart: str
    repo: Optional[str]
    pod_security: str


RELEASES = (
    ReleaseSpec("kubePrometheusStack", "kube-prometheus-stack", "kube-prometheus-stack",
                "https://prometheus-community.github.io/helm-charts", PRIVILEGED),
    ReleaseSpec("gpuOperator", "gpu-operator", "gpu-operator", "https://helm.ngc.nvidia.com/nvidia", PRIVILEGED),
    ReleaseSpec("kueue", "kueue", "oci://registry.k8s.io/kueue/charts/kueue", None, RESTRICTED),
    ReleaseSpec("keda", "keda", "keda", "https://kedacore.github.io/charts", RESTRICTED),
)
_CONFIG_FIELD = {"kubePrometheusStack": "kube_prometheus_stack", "gpuOperator": "gpu_operator", "kueue": "kueue",
                 "keda": "keda"}


def pod_security_labels(level: str) -> dict[str, str]:
    """The Pod Security Admission labels enforcing, auditing and warning at ``level``."""
    return {f"pod-security.kubernetes.io/{mode}": level for mode in PSA_MODES}


def namespace_levels(config: StackConfig) -> dict[str, str]:
    """Namespace name → Pod Security level, for every enabled release namespace and every tenant namespace.

    ``privileged`` for the GPU Operator and kube-prometheus-stack namespaces and for tenants with ``rdma: true``;
    ``restricted`` elsewhere (see the module docstring). A namespace shared by two releases takes the laxer level
    either needs.
    """
    levels: dict[str, str] = {}
    for spec in RELEASES:
        release = getattr(config.platform, _CONFIG_FIELD[spec.key])
        if release.enabled and levels.get(release.namespace) != PRIVILEGED:
            levels[release.namespace] = spec.pod_security
    labeler = config.platform.kueue.topology_labeler
    if config.platform.kueue.enabled and labeler.enabled:
        levels[labeler.namespace] = PRIVILEGED
    for tenant, t in config.tenants.items():
        levels[config.tenant_namespace(tenant)] = PRIVILEGED if t.rdma else RESTRICTED
    return levels


def merge_values(ours: Any, theirs: Any) -> Any:
    """Deep-merge Helm values: maps merge key by key, anything else in ``theirs`` (lists included) replaces ours."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return {**ours, **{k: merge_values(ours.get(k), v) for k, v in theirs.items()}}
    return theirs


def release_values(key: str, config: StackConfig) -> dict[str, Any]:
    """The Helm values oke-rdma sets for release ``key`` (everything else is the chart's default)."""
    if key == "kubePrometheusStack":
        kps = config.platform.kube_prometheus_stack
        spec: dict[str, Any] = {
            "serviceMonitorSelectorNilUsesHelmValues": False, "podMonitorSelectorNilUsesHelmValues": False,
            "ruleSelectorNilUsesHelmValues": False, "probeSelectorNilUsesHelmValues": False,
            "retention": kps.retention,
            "storageSpec": {"volumeClaimTemplate": {"spec": {
                "storageClassName": kps.storage_class, "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": f"{kps.storage_gb}Gi"}}}}}}
        if kps.retention_size_gb is not None:
            spec["retentionSize"] = f"{kps.retention_size_gb}GB"
        grafana: dict[str, Any] = (
            {"admin": {"existingSecret": GRAFANA_SECRET, "userKey": "admin-user", "passwordKey": "admin-password"}}
            if kps.grafana_admin_password is not None else {"adminPassword": ""})  # "": the chart generates one
        return {"prometheus": {"prometheusSpec": spec}, "grafana": grafana}
    if key == "gpuOperator":
        toleration = {"key": GPU_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}
        monitoring = config.platform.kube_prometheus_stack.enabled
        return {
            "driver": {"enabled": False},  # OKE GPU images ship the NVIDIA driver
            "cdi": {"enabled": True},
            "devicePlugin": {"enabled": True},
            "dcgmExporter": {"serviceMonitor": {"enabled": monitoring}},
            "daemonsets": {"tolerations": [toleration]},
            "node-feature-discovery": {"worker": {"tolerations": [toleration]}},
        }
    if key == "kueue":
        return {"enablePrometheus": config.platform.kube_prometheus_stack.enabled}
    return {}


def helm_values(key: str, config: StackConfig) -> dict[str, Any]:
    """The values a release is installed with: :func:`release_values` with ``platform.<key>.values`` merged over."""
    return merge_values(release_values(key, config), getattr(config.platform, _CONFIG_FIELD[key]).values)


def gpu_quota(config: StackConfig, tenant: str) -> int:
    """The most GPUs tenant ``tenant``'s namespace may request: nominal quota plus borrowing limit."""
    q = config.tenants[tenant].quota
    return q.gpu + q.gpu_borrowing_limit


class PlatformArgs:
    """Inputs of :class:`Platform`.

    :param config: the stack config (reads ``platform``, ``tenants``, ``namePrefix``).
    :param provider: the explicit Kubernetes provider of the OKE cluster; every resource here uses it.
    :param depends_on: what every Helm release waits for — the node pools: a release waits for its pods to be
        ready, and they have no node to run on before the pools exist.
    """

    def __init__(self, config: StackConfig, provider: pulumi.ProviderResource,
                 depends_on: Sequence[pulumi.Resource] = ()):
        self.config = config
        self.provider = provider
        self.depends_on = list(depends_on)


class Platform(pulumi.ComponentResource):
    """Namespaces and pinned Helm releases on the OKE cluster (type ``oke-rdma:platform:Platform``).

    Logical names are deterministic: ``<prefix>-ns-<namespace>`` and ``<prefix>-<release name>``; Helm release names
    and namespace names are set explicitly (no auto-naming suffix). Each release ``depends_on`` its namespace and
    uses ``create_namespace=False``; the GPU Operator also ``depends_on`` kube-prometheus-stack.

    Attributes: ``namespaces`` (namespace name → ``Namespace``), ``releases`` (``kubePrometheusStack``,
    ``gpuOperator``, ``kueue``, ``keda`` → ``Release``, enabled ones only), ``tenant_namespaces`` (tenant →
    namespace name), ``pod_security`` (namespace name → PSA level), ``resource_quotas`` (tenant →
    ``ResourceQuota``), ``grafana_secret`` (the ``Secret`` holding Grafana's admin password, or None).

    Raises nothing: the config model has already checked names, versions and tenant namespaces.
    """

    def __init__(self, name: str, args: PlatformArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:platform:Platform", name, None, opts)
        cfg = args.config
        prefix = cfg.name_prefix

        def k8s_opts(depends_on: Optional[list[pulumi.Resource]] = None) -> pulumi.ResourceOptions:
            return pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=depends_on)

        self.pod_security = namespace_levels(cfg)
        self.namespaces: dict[str, k8s.core.v1.Namespace] = {}
        for ns, level in self.pod_security.items():
            self.namespaces[ns] = k8s.core.v1.Namespace(f"{prefix}-ns-{ns}", k8s.core.v1.NamespaceInitArgs(
                metadata=k8s.meta.v1.ObjectMetaArgs(
                    name=ns, labels={**pod_security_labels(level), "app.kubernetes.io/managed-by": "pulumi",
                                     "app.kubernetes.io/part-of": prefix})), k8s_opts())
        self.tenant_namespaces = {tenant: cfg.tenant_namespace(tenant) for tenant in cfg.tenants}
        self.resource_quotas: dict[str, k8s.core.v1.ResourceQuota] = {}
        for tenant, ns_name in self.tenant_namespaces.items():
            ns = self.namespaces[ns_name]
            self.resource_quotas[tenant] = k8s.core.v1.ResourceQuota(
                f"{prefix}-quota-{ns_name}", k8s.core.v1.ResourceQuotaInitArgs(
                    metadata=k8s.meta.v1.ObjectMetaArgs(name="gpu", namespace=ns.metadata.name),
                    spec=k8s.core.v1.ResourceQuotaSpecArgs(
                        hard={f"requests.{GPU_RESOURCE}": str(gpu_quota(cfg, tenant))})),
                k8s_opts())

        kps = cfg.platform.kube_prometheus_stack
        self.grafana_secret: Optional[k8s.core.v1.Secret] = None
        if kps.enabled and kps.grafana_admin_password is not None:
            # A Pulumi secret end to end: the Secret's data is secret in state, and Helm values only name the Secret.
            self.grafana_secret = k8s.core.v1.Secret(f"{prefix}-{GRAFANA_SECRET}", k8s.core.v1.SecretInitArgs(
                metadata=k8s.meta.v1.ObjectMetaArgs(name=GRAFANA_SECRET,
                                                    namespace=self.namespaces[kps.namespace].metadata.name),
                type="Opaque",
                string_data=pulumi.Output.secret({"admin-user": "admin",
                                                  "admin-password": kps.grafana_admin_password})),
                k8s_opts())

        self.releases: dict[str, k8s.helm.v3.Release] = {}
        for spec in RELEASES:
            release = getattr(cfg.platform, _CONFIG_FIELD[spec.key])
            if not release.enabled:
                continue
            ns = self.namespaces[release.namespace]
            deps: list[pulumi.Resource] = [ns, *args.depends_on]
            if spec.key in ("gpuOperator", "kueue") and "kubePrometheusStack" in self.releases:
                deps.append(self.releases["kubePrometheusStack"])  # ServiceMonitor CRD
            if spec.key == "kubePrometheusStack" and self.grafana_secret is not None:
                deps.append(self.grafana_secret)
            repo = k8s.helm.v3.RepositoryOptsArgs(repo=spec.repo) if spec.repo else None
            self.releases[spec.key] = k8s.helm.v3.Release(f"{prefix}-{spec.release_name}", k8s.helm.v3.ReleaseArgs(
                name=spec.release_name, chart=spec.chart, version=release.version, repository_opts=repo,
                namespace=ns.metadata.name, create_namespace=False, values=helm_values(spec.key, cfg)),
                k8s_opts(deps))

        self.register_outputs({"namespaces": {n: ns.metadata.name for n, ns in self.namespaces.items()},
                               "releases": {k: r.version for k, r in self.releases.items()},
                               "tenantNamespaces": self.tenant_namespaces,
                               "gpuQuotas": {t: gpu_quota(cfg, t) for t in self.tenant_namespaces}})
