"""The ``fail``/``required`` checks in the templates of the charts oke-rdma installs, that values a user can set
through ``platform.<key>.values`` reach, as data.

Helm runs a chart's templates only at install or upgrade: a ``{{ fail }}`` in them (Cilium's
``templates/validate.yaml``...) passes the offline preview and stops ``pulumi up`` halfway (the releases before it are
installed, the rest not). Each row here is one such check, read in the chart's templates at the versions listed in
``read_at``, with the chart's defaults (its ``values.yaml`` at that version) written into the predicate: ``fails``
gets the release's final values (oke-rdma's, with the user's ``platform.<key>.values`` merged over) and says whether
the template would fail. The config check (:func:`oke_rdma.config.checks.platform.check_platform`) refuses such
values with one line naming the key path (the first of ``paths`` the user set), the chart's reason and the fix.

Rows apply only to the chart versions they were read at: another version's templates are not known here.
Checks the product's own values already decide are left out (Cilium's ``kubeProxyReplacement`` and ``ipam.mode``:
``oke_rdma.addons.cilium.PINNED`` refuses any change of them; the GPU Operator's ``driver.enabled``: only false is
accepted), and so are checks on the cluster's API that hold on every OKE version oke-rdma accepts (the GPU Operator's
``gpuCluster.deployCR`` needs the ``resource.k8s.io`` DeviceClass API: GA since Kubernetes 1.34).

Charts read without a template check a user can reach (checked 2026-12-02): kueue 0.19.2 (``charts/kueue``, the
pin 0.19.7 is not stored), keda 2.20.2, flux2 2.18.3, pulumi-kubernetes-operator 2.9.0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

CHECKED = "checked 2026-12-02"

_MISSING = object()


def value(values: Any, path: str, default: Any = None) -> Any:
    """``values`` at dotted ``path``, else ``default`` (the chart's own default there)."""
    cur = values
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return default
        cur = cur[part]
    return cur


def truthy(v: Any) -> bool:
    """Go template truth: false, 0, nil, and empty strings, lists and maps are false; anything else is true."""
    return not (v is None or v is False or v == 0 or (isinstance(v, (str, list, dict)) and len(v) == 0))


def _int(v: Any) -> int:
    """Sprig's ``int``: a number or numeric string to an integer, anything else 0."""
    try:
        return int(float(v)) if not isinstance(v, bool) else int(v)
    except (TypeError, ValueError):
        return 0


@dataclass(frozen=True)
class TemplateCheck:
    """One ``fail``/``required`` of a chart's templates.

    :param addon: the add-on key (``platform.<addon>``).
    :param read_at: the chart versions whose templates hold this check as written (read there).
    :param paths: the value paths (dotted, below ``values``) the check reads; the message names the first one the
        user set (else the first).
    :param fails: ``final values -> bool``: True when the template would fail (the chart's defaults inside).
    :param says: what the chart requires, in one clause.
    :param fix: what to set instead.
    :param source: the template file and line, the chart version and when it was read.
    """

    addon: str
    read_at: tuple[str, ...]
    paths: tuple[str, ...]
    fails: Callable[[dict[str, Any]], bool]
    says: str
    fix: str
    source: str

    def __post_init__(self) -> None:
        if not self.paths or not self.read_at or CHECKED.split()[0] not in self.source:
            raise ValueError(f"{self.addon} {self.paths}: a check names its paths, the versions read and a dated "
                             f"source")


_CILIUM = ("1.20.0",)
_CILIUM_SRC = "cilium chart 1.20.0 (cilium/charts cilium-1.20.0.tgz) templates/{}; " + CHECKED


def _cilium(paths: tuple[str, ...], fails: Callable[[dict[str, Any]], bool], says: str, fix: str,
            where: str = "validate.yaml") -> TemplateCheck:
    return TemplateCheck("cilium", _CILIUM, paths, fails, says, fix, _CILIUM_SRC.format(where))


def _l7_frontends(v: dict[str, Any]) -> bool:
    return (truthy(value(v, "ingressController.enabled", False)) or truthy(value(v, "gatewayAPI.enabled", False))
            or value(v, "loadBalancer.l7.backend", "disabled") == "envoy")


def _service_monitors(v: dict[str, Any]) -> bool:
    pairs = (("prometheus", False), ("operator.prometheus", True), ("envoy.prometheus", True),
             ("hubble.relay.prometheus", False))
    return any(truthy(value(v, f"{p}.enabled", on)) and truthy(value(v, f"{p}.serviceMonitor.enabled", False))
               for p, on in pairs)


_TRAFFIC_POLICIES = ("Cluster", "Local")
#: Cilium values removed in earlier releases that validate.yaml refuses by name (1.15, 1.16, 1.18).
_CILIUM_REMOVED = ("enableCiliumEndpointSlice", "ciliumEndpointSlice.sliceMode", "encryption.keyFile",
                   "encryption.mountPath", "encryption.secretName", "encryption.interface", "proxy.prometheus.enabled",
                   "proxy.prometheus.port", "endpointStatus", "remoteNodeIdentity", "containerRuntime.integration",
                   "etcd.managed", "tunnel", "clustermesh.apiserver.tls.ca.cert", "clustermesh.apiserver.tls.ca.key",
                   "enableK8sEventHandover", "enableCnpStatusUpdates")
_CLUSTER_NAME = re.compile(r"^([a-z0-9][-a-z0-9]*)?[a-z0-9]$")


def _cluster_name_bad(v: dict[str, Any]) -> bool:
    name = value(v, "cluster.name", "default")
    if not isinstance(name, str) or name == "" or len(name) > 32 or not _CLUSTER_NAME.match(name):
        return True
    return name == "default" and _int(value(v, "cluster.id", 0)) != 0


def _backoff_env(v: dict[str, Any]) -> bool:
    env = value(v, "extraEnv", [])
    return truthy(value(v, "k8sClientExponentialBackoff.enabled", True)) and isinstance(env, list) and any(
        isinstance(e, dict) and e.get("name") in ("KUBE_CLIENT_BACKOFF_BASE", "KUBE_CLIENT_BACKOFF_DURATION")
        for e in env)


CHECKS: tuple[TemplateCheck, ...] = (
    _cilium(("gatewayAPI.enabled", "ingressController.enabled", "loadBalancer.l7.backend", "l7Proxy"),
            lambda v: _l7_frontends(v) and "l7Proxy" in v and not truthy(v["l7Proxy"]),
            "the Ingress controller, the Gateway API controller and the Envoy L7 load balancer need l7Proxy: true, "
            "which oke-rdma sets false (Layer 7 policy is limited under CNI chaining; its policies are Layer 3/4)",
            "remove it: expose services through an OCI load balancer (Service type LoadBalancer) instead"),
    _cilium(("gatewayAPI.externalTrafficPolicy", "gatewayAPI.enabled"),
            lambda v: truthy(value(v, "gatewayAPI.enabled", False))
            and value(v, "gatewayAPI.externalTrafficPolicy", "Cluster") not in _TRAFFIC_POLICIES,
            "the Gateway API controller needs externalTrafficPolicy Cluster or Local", "set Cluster or Local"),
    _cilium(("ingressController.service.externalTrafficPolicy", "ingressController.service.type",
             "ingressController.enabled"),
            lambda v: truthy(value(v, "ingressController.enabled", False))
            and value(v, "ingressController.service.type", "LoadBalancer") in ("LoadBalancer", "NodePort")
            and value(v, "ingressController.service.externalTrafficPolicy", "Cluster") not in _TRAFFIC_POLICIES,
            "an Ingress service of type LoadBalancer or NodePort needs externalTrafficPolicy Cluster or Local",
            "set Cluster or Local"),
    _cilium(("hubble.ui.enabled", "hubble.relay.enabled"),
            lambda v: truthy(value(v, "hubble.ui.enabled", False))
            and not truthy(value(v, "hubble.ui.standalone.enabled", False))
            and not truthy(value(v, "hubble.relay.enabled", False)),
            "Hubble UI needs hubble.relay.enabled: true", "set hubble.relay.enabled: true as well"),
    _cilium(("hubble.ui.standalone.tls.certsVolume", "hubble.ui.standalone.enabled"),
            lambda v: truthy(value(v, "hubble.ui.enabled", False))
            and truthy(value(v, "hubble.ui.standalone.enabled", False))
            and truthy(value(v, "hubble.relay.tls.server.enabled", False))
            and not truthy(value(v, "hubble.ui.standalone.tls.certsVolume", {})),
            "a standalone Hubble UI with Relay server TLS needs hubble.ui.standalone.tls.certsVolume",
            "give the volume holding the client certificates"),
    _cilium(("hubble.relay.enabled", "hubble.enabled"),
            lambda v: truthy(value(v, "hubble.relay.enabled", False)) and not truthy(value(v, "hubble.enabled", True)),
            "Hubble Relay needs hubble.enabled: true", "keep hubble.enabled true"),
    _cilium(("prometheus.serviceMonitor.enabled", "operator.prometheus.serviceMonitor.enabled",
             "envoy.prometheus.serviceMonitor.enabled", "hubble.relay.prometheus.serviceMonitor.enabled",
             "prometheus.serviceMonitor.trustCRDsExist"),
            _service_monitors,
            "a ServiceMonitor needs the monitoring.coreos.com/v1 CRDs, and Cilium is installed before "
            "kube-prometheus-stack brings them (every release waits for the CNI): without trustCRDsExist the chart "
            "fails, with it the ServiceMonitor's kind does not exist yet",
            "remove it (scrape Cilium with a ServiceMonitor created after kube-prometheus-stack)"),
    _cilium(("hubble.tls.auto.certManagerIssuerRef", "hubble.tls.auto.method"),
            lambda v: truthy(value(v, "hubble.enabled", True)) and truthy(value(v, "hubble.tls.enabled", True))
            and truthy(value(v, "hubble.tls.auto.enabled", True))
            and value(v, "hubble.tls.auto.method", "helm") == "certmanager"
            and not truthy(value(v, "hubble.tls.auto.certManagerIssuerRef", {})),
            "Hubble TLS from cert-manager needs hubble.tls.auto.certManagerIssuerRef", "name the issuer"),
    _cilium(("hubble.redact.http.headers.allow", "hubble.redact.http.headers.deny"),
            lambda v: truthy(value(v, "hubble.redact.http.headers.allow", []))
            and truthy(value(v, "hubble.redact.http.headers.deny", [])),
            "only one of hubble.redact.http.headers.allow and deny may be set", "keep one of the two lists"),
    _cilium(("clustermesh.apiserver.tls.auto.certManagerIssuerRef", "clustermesh.apiserver.tls.auto.method"),
            lambda v: truthy(value(v, "clustermesh.useAPIServer", False))
            and truthy(value(v, "clustermesh.apiserver.tls.auto.enabled", True))
            and value(v, "clustermesh.apiserver.tls.auto.method", "helm") == "certmanager"
            and not truthy(value(v, "clustermesh.apiserver.tls.auto.certManagerIssuerRef", {})),
            "ClusterMesh TLS from cert-manager needs clustermesh.apiserver.tls.auto.certManagerIssuerRef",
            "name the issuer"),
    _cilium(("authentication.mutual.spire.enabled", "authentication.enabled"),
            lambda v: truthy(value(v, "authentication.mutual.spire.enabled", False))
            and not truthy(value(v, "authentication.enabled", False)),
            "the SPIRE integration needs authentication.enabled: true", "set authentication.enabled: true as well"),
    _cilium(("disableEndpointCRD", "ciliumEndpointSlice.enabled"),
            lambda v: truthy(value(v, "ciliumEndpointSlice.enabled", False))
            and value(v, "disableEndpointCRD", False) is True,
            "CiliumEndpointSlices need disableEndpointCRD: false", "remove disableEndpointCRD"),
    _cilium(("cluster.name", "cluster.id"), _cluster_name_bad,
            "the cluster name must be 1-32 lower case alphanumerics and '-', starting and ending alphanumeric, and "
            "not 'default' with a cluster.id other than 0", "choose such a name"),
    _cilium(("clustermesh.apiserver.kvstoremesh.kvstoreMode",),
            lambda v: value(v, "clustermesh.apiserver.kvstoremesh.kvstoreMode", "internal") not in
            ("internal", "external"),
            "kvstoreMode must be internal or external", "set internal"),
    _cilium(("clustermesh.maxConnectedClusters",),
            lambda v: _int(value(v, "clustermesh.maxConnectedClusters", 255)) not in (255, 511),
            "max-connected-clusters must be 255 or 511", "set 255"),
    _cilium(("envoy.baseID",), lambda v: not 0 <= _int(value(v, "envoy.baseID", 0)) <= 4294967295,
            "envoy.baseID must be an integer from 0 to 4294967295", "remove it"),
    _cilium(("extraEnv", "k8sClientExponentialBackoff.enabled"), _backoff_env,
            "extraEnv may not set KUBE_CLIENT_BACKOFF_BASE or KUBE_CLIENT_BACKOFF_DURATION while "
            "k8sClientExponentialBackoff.enabled (the chart's default) sets them",
            "set the backoff through k8sClientExponentialBackoff instead"),
    _cilium(("dnsProxy.proxyPort", "standaloneDnsProxy.enabled"),
            lambda v: truthy(value(v, "standaloneDnsProxy.enabled", False))
            and _int(value(v, "dnsProxy.proxyPort", 0)) == 0,
            "the standalone DNS proxy needs a non-zero dnsProxy.proxyPort", "set dnsProxy.proxyPort (e.g. 10094)"),
    _cilium(("bpf.tproxy", "bpf.datapathMode"),
            lambda v: truthy(value(v, "bpf.tproxy"))
            and value(v, "bpf.datapathMode", "veth") in ("netkit", "netkit-l2"),
            "bpf.tproxy cannot be enabled with the netkit datapath", "keep bpf.datapathMode veth"),
    _cilium(("k8sServiceHost", "k8sServiceHostRef"),
            lambda v: truthy(value(v, "k8sServiceHostRef.name")) and truthy(value(v, "k8sServiceHostRef.key"))
            and truthy(value(v, "k8sServiceHost", "")),
            "only one of k8sServiceHostRef and k8sServiceHost may be set", "keep one"),
    _cilium(("operator.removeNodeTaints", "operator.setNodeTaints"),
            lambda v: truthy(value(v, "operator.setNodeTaints")) and not truthy(value(v, "operator.removeNodeTaints",
                                                                                      True)),
            "operator.setNodeTaints needs operator.removeNodeTaints: true (and oke-rdma's agent-not-ready taint is "
            "only ever removed by it)", "remove both", "cilium-configmap.yaml"),
    _cilium(("ipv6NativeRoutingCIDR", "ipv6.enabled", "enableIPv6Masquerade"),
            lambda v: truthy(value(v, "ipv6.enabled", False)) and truthy(value(v, "enableIPv6Masquerade", True))
            and not truthy(value(v, "ipMasqAgent.enabled", False)) and not truthy(value(v, "ipv6NativeRoutingCIDR", ""))
            and not truthy(value(v, "nativeRoutingCIDRFromClusterPool", False)),
            "IPv6 with native routing (oke-rdma's routingMode) and IPv6 masquerading (the chart's default) needs "
            "ipv6NativeRoutingCIDR", "set ipv6NativeRoutingCIDR, or keep ipv6.enabled false (OKE's VCN-native pod "
            "networking here is IPv4)", "cilium-configmap.yaml"),
    _cilium(("aksbyocni.enabled",), lambda v: truthy(value(v, "aksbyocni.enabled", False)),
            "aksbyocni needs routingMode tunnel, and oke-rdma routes natively (Azure's bring-your-own-CNI mode has no "
            "place on OKE)", "remove it", "cilium-configmap.yaml"),
    _cilium(tuple(_CILIUM_REMOVED),
            lambda v: any(truthy(value(v, p)) for p in _CILIUM_REMOVED),
            "the value was removed from the chart (1.15, 1.16 or 1.18) and validate.yaml refuses it by name",
            "remove it (Cilium docs 'Upgrade notes', Helm options)"),
    TemplateCheck(
        "gpuOperator", ("v26.7.0",), ("gpuCluster.deployCR", "clusterPolicy.deployCR"),
        lambda v: truthy(value(v, "clusterPolicy.deployCR", True)) and truthy(value(v, "gpuCluster.deployCR", False)),
        "clusterPolicy.deployCR (the chart's default) and gpuCluster.deployCR cannot both be true: only one CR can "
        "exist", "keep gpuCluster.deployCR false (oke-rdma configures the ClusterPolicy)",
        f"gpu-operator v26.7.0 deployments/gpu-operator/templates/validations.yaml; {CHECKED}"),
    TemplateCheck(
        "gpuOperator", ("v26.7.0",), ("cdi.nriPluginEnabled", "cdi.enabled", "toolkit.enabled"),
        lambda v: value(v, "cdi.nriPluginEnabled", False) is True
        and (value(v, "cdi.enabled", True) is False or value(v, "toolkit.enabled", True) is False),
        "the NRI plugin needs CDI and the Container Toolkit enabled", "keep cdi.enabled and toolkit.enabled true",
        f"gpu-operator v26.7.0 deployments/gpu-operator/templates/validations.yaml; {CHECKED}"),
    TemplateCheck(
        "gpuOperator", ("v26.7.0",), ("devicePlugin.config.create", "devicePlugin.config.name",
                                      "devicePlugin.config.data"),
        lambda v: truthy(value(v, "devicePlugin.config.create", False))
        and (not truthy(value(v, "devicePlugin.config.name", "")) or not truthy(value(v, "devicePlugin.config.data",
                                                                                          {}))),
        "devicePlugin.config.create needs a non-empty devicePlugin.config.name and data",
        "give both, or let oke-rdma write them (nodePools.<pool>.gpuSharing)",
        f"gpu-operator v26.7.0 deployments/gpu-operator/templates/validations.yaml; {CHECKED}"),
    TemplateCheck(
        "kubePrometheusStack", ("88.5.3",),
        ("grafana.operator.matchLabels", "grafana.operator.dashboardsConfigMapRefEnabled"),
        lambda v: truthy(value(v, "grafana.operator.dashboardsConfigMapRefEnabled", False))
        and truthy(value(v, "grafana.defaultDashboardsEnabled", True))
        and not truthy(value(v, "grafana.operator.matchLabels", {})),
        "grafana.operator.dashboardsConfigMapRefEnabled needs grafana.operator.matchLabels", "set the labels",
        f"kube-prometheus-stack 88.5.3 templates/grafana/dashboards-1.14/*.yaml; {CHECKED}"),
    TemplateCheck(
        "kubePrometheusStack", ("88.5.3",), ("grafana.operator.folderUID", "grafana.operator.folderRef",
                                             "grafana.operator.folder"),
        lambda v: truthy(value(v, "grafana.operator.dashboardsConfigMapRefEnabled", False))
        and truthy(value(v, "grafana.defaultDashboardsEnabled", True))
        and sum(truthy(value(v, f"grafana.operator.{k}", d)) for k, d in
                (("folder", "General"), ("folderUID", None), ("folderRef", None))) != 1,
        "exactly one of grafana.operator.folder (default 'General'), folderUID and folderRef must be set",
        "set the others to null",
        f"kube-prometheus-stack 88.5.3 templates/_helpers.tpl (kube-prometheus-stack.grafana.operator.folder); "
        f"{CHECKED}"),
    TemplateCheck(
        "kubePrometheusStack", ("88.5.3",), ("thanosRuler.thanosRulerSpec.extraEnv",
                                             "thanosRuler.thanosRulerSpec.containers"),
        lambda v: truthy(value(v, "thanosRuler.enabled", False))
        and truthy(value(v, "thanosRuler.thanosRulerSpec.extraEnv", []))
        and any(isinstance(c, dict) and c.get("name") == "thanos-ruler"
                for c in (value(v, "thanosRuler.thanosRulerSpec.containers", []) or [])),
        "thanosRuler.thanosRulerSpec.extraEnv cannot be used with a thanos-ruler entry in containers",
        "put the variables in that container's env",
        f"kube-prometheus-stack 88.5.3 templates/thanos-ruler/ruler.yaml; {CHECKED}"),
    TemplateCheck(
        "jobset", ("0.12.0",), ("prometheus.enable",),
        lambda v: truthy(value(v, "prometheus.enable", False)),
        "its ServiceMonitor needs the monitoring.coreos.com/v1 ServiceMonitor API at render time, and the JobSet "
        "release does not wait for kube-prometheus-stack (installed in parallel, or without it)",
        "remove it", f"kubernetes-sigs/jobset v0.12.0 charts/jobset/templates/prometheus/monitor.yaml; {CHECKED}"),
    TemplateCheck(
        "trainer", ("2.3.0",), ("dataCache.runtimes.torchDistributedWithCache.enabled", "dataCache.enabled"),
        lambda v: truthy(value(v, "dataCache.runtimes.torchDistributedWithCache.enabled", False))
        and not truthy(value(v, "dataCache.enabled", False)),
        "the torch-distributed-with-cache runtime needs dataCache.enabled: true",
        "set dataCache.enabled: true as well (it installs LeaderWorkerSet and a ClusterRole), or remove it",
        f"kubeflow/trainer v2.3.0 charts/kubeflow-trainer/templates/runtimes/_runtimes.tpl; {CHECKED}"),
    TemplateCheck(
        "kuberay", ("1.7.0",), ("reconcileConcurrency",),
        lambda v: "reconcileConcurrency" in v and not re.match(r"^[1-9][0-9]*$", str(v["reconcileConcurrency"])),
        "reconcileConcurrency must be a positive integer", "set a whole number from 1",
        f"ray-project/kuberay v1.7.0 helm-chart/kuberay-operator/templates/_helpers.tpl (validateConfig); {CHECKED}"),
    TemplateCheck(
        "kuberay", ("1.7.0",), ("kubeClient.qps",),
        lambda v: isinstance(v.get("kubeClient"), dict) and "qps" in v["kubeClient"]
        and not re.match(r"^[0-9]+(\.[0-9]+)?$", str(v["kubeClient"]["qps"])),
        "kubeClient.qps must be a non-negative number", "set a number like 100",
        f"ray-project/kuberay v1.7.0 helm-chart/kuberay-operator/templates/_helpers.tpl (validateConfig); {CHECKED}"),
    TemplateCheck(
        "kuberay", ("1.7.0",), ("kubeClient.burst",),
        lambda v: isinstance(v.get("kubeClient"), dict) and "burst" in v["kubeClient"]
        and not re.match(r"^[0-9]+$", str(v["kubeClient"]["burst"])),
        "kubeClient.burst must be a non-negative integer", "set a whole number like 200",
        f"ray-project/kuberay v1.7.0 helm-chart/kuberay-operator/templates/_helpers.tpl (validateConfig); {CHECKED}"),
)


def checks_of(addon: str, version: str) -> tuple[TemplateCheck, ...]:
    """The checks of ``addon`` read at chart ``version`` (``()`` when none, or the version was not read)."""
    return tuple(c for c in CHECKS if c.addon == addon and version in c.read_at)
