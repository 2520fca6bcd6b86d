"""How the Helm charts oke-rdma pins compose each container image from their values, as data, and the image a chart
WILL render from a release's values (:func:`rendered_images`).

Charts spell an image in their own way: Cilium's ``override`` replaces everything and its ``digest`` counts only
with ``useDigest``; the prometheus-community and Grafana charts pin by ``sha`` (not ``digest``) and let
``global.imageRegistry`` replace every registry; KEDA's ``global.image.registry`` does the same under another name;
the GPU Operator takes ``repository``/``image``/``version`` and uses ``image`` verbatim when ``repository`` and
``version`` are empty. A reader that guesses the spelling judges an image the chart never pulls. Each
:class:`Slot` here is one image of one chart, read in that chart's templates at the versions listed, with the keys
its template reads, the chart's defaults of those keys (a key left out of ``defaults`` is not recorded here), the
global registry keys read before the slot's own, the source and the date it was verified.

Judging (:func:`rendered_images`): the chart's defaults are the reviewed content of the pinned chart (its version
and repository are held by ``helm-release-pinned``), so a slot is judged only when the release's values move it (a
key it reads set to another value than the chart's default, or a global registry set). Its image is then composed
exactly as the template does, defaults filled in; a key the template reads that holds a value of another type than
the template handles (a map, a list, a number where a string belongs) or a default this table does not record
fails closed, as a problem. Every other key of the values tree is left to the generic reader.

This file has two identical copies: ``oke_rdma/facts/chart_images.py`` (read by the config check) and
``policies/security/_chart_images.py`` (the security pack is published alone); a test keeps them equal. It imports
only the standard library.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Optional

CHECKED = "2026-12-02"

#: The keys each template spelling reads in the image's values map.
SCHEME_KEYS: dict[str, tuple[str, ...]] = {
    # cilium "cilium.image": override wins; else repository[:tag][@digest when useDigest]
    "cilium": ("override", "repository", "tag", "digest", "useDigest"),
    # cilium "cilium.operator.image": override wins; else repository-generic<suffix>[:tag][@genericDigest when useDigest]
    "cilium-operator": ("override", "repository", "suffix", "tag", "genericDigest", "useDigest"),
    # prometheus-community / grafana: <registry>/<repository>:<tag>[@sha256:<sha>]
    "sha256": ("registry", "repository", "tag", "sha"),
    # kube-state-metrics: <registry>/<repository>:<tag>[@<sha>] (sha written whole, sha256: included)
    "sha": ("registry", "repository", "tag", "sha"),
    # prometheus-node-exporter: <registry>/<repository>:<tag>[-distroless][@<digest>]; image.sha makes it fail
    "digest": ("registry", "repository", "tag", "distroless", "digest", "sha"),
    # keda: [<registry>/]<repository>:<tag> (no pin key: a digest goes in the tag)
    "registry": ("registry", "repository", "tag"),
    # kueue: <repository>:<tag>
    "repo-tag": ("repository", "tag"),
    # NVIDIA GPU Operator: <repository>/<image>:<version>, @<version> when it starts sha256:, <image> verbatim when
    # repository and version are both empty
    "nvidia": ("repository", "image", "version"),
}
_BOOLS = {"useDigest", "distroless"}


@dataclass(frozen=True)
class Slot:
    """One image of a chart.

    :param at: the dotted values path of the image's map (``operator.image``, ``grafana.sidecar.image``).
    :param scheme: the template spelling (a key of :data:`SCHEME_KEYS`).
    :param defaults: the chart's defaults of the keys the template reads (a key left out: not recorded here).
    :param registries: global registry paths the template reads before the slot's own ``registry`` (the first set
        one wins; a sub-chart's own ``global`` is listed beside the parent's, since Helm copies the parent's
        globals into it: both are judged).
    :param sha_when: the path whose value decides whether the pin is appended, where the template tests another key
        than the slot's own (kube-prometheus-stack's busybox tests ``upgradeJob.image.sha``).
    :param source: the template and values file read, and when.
    """

    at: str
    scheme: str
    defaults: Mapping[str, Any]
    source: str
    registries: tuple[str, ...] = ()
    sha_when: str = ""

    def __post_init__(self) -> None:
        if self.scheme not in SCHEME_KEYS or CHECKED not in self.source:
            raise ValueError(f"{self.at}: an unknown scheme or a source without the date {CHECKED}")


@dataclass(frozen=True)
class ChartImages:
    """The images of one chart at the versions read: ``chart`` (its name), ``repository`` (the repository URL, or
    the OCI registry path of an ``oci://`` chart), ``versions`` and ``slots``."""

    chart: str
    repository: str
    versions: tuple[str, ...]
    slots: tuple[Slot, ...] = field(default=())


_CILIUM = ("cilium chart: install/kubernetes/cilium/templates/_helpers.tpl \"cilium.image\" and cilium-operator/"
           "_helpers.tpl \"cilium.operator.image\" (cilium/cilium), image keys checked against the 1.20.0 "
           "values.schema.json (tests/fixtures/charts); ")
_KEDA = "keda 2.20.2 (kedacore/charts cbb9bb8) templates/{manager,metrics-server,webhooks}/deployment.yaml, values.yaml; "
_GPU = ("gpu-operator v26.7.0 (NVIDIA/gpu-operator tag v26.7.0) internal/image/image.go ImagePath, "
        "deployments/gpu-operator/templates/_helpers.tpl, values.yaml (operator, validator and node status exporter "
        "default to the chart's appVersion, the release's own version); ")
_KUEUE = ("kueue charts/kueue templates/manager/manager.yaml and kueueviz/*-deployment.yaml at v0.19.2 (the pin "
          "0.19.7 is not stored; the released chart's default repository is rewritten at release, not recorded); ")


_SUB_GLOBAL = ("global.imageRegistry", "{sub}.global.imageRegistry")


def _nv(at: str, repository: str, image: str, version: Optional[str]) -> Slot:
    defaults = {"repository": repository, "image": image}
    if version is not None:
        defaults["version"] = version
    return Slot(at, "nvidia", defaults, _GPU + CHECKED)


def _cilium(at: str, defaults: Optional[Mapping[str, Any]] = None) -> Slot:
    return Slot(at, "cilium", defaults or {"override": None}, _CILIUM + CHECKED)


#: kube-prometheus-stack's images, its sub-charts' included (values under ``grafana.``, ``kube-state-metrics.``,
#: ``prometheus-node-exporter.``): (values path, registry, repository, template file, spelling, global registries,
#: the path that decides the pin). The templates read the same keys at 87.2.1 and 88.5.3 (compared); only the
#: default tags differ (:data:`_KPS_TAGS`).
_KPS_IMAGES: tuple[tuple[str, str, str, str, str, tuple[str, ...], str], ...] = (
    ("prometheusOperator.image", "quay.io", "prometheus-operator/prometheus-operator",
     "templates/prometheus-operator/deployment.yaml", "sha256", ("global.imageRegistry",), ""),
    ("prometheusOperator.prometheusConfigReloader.image", "quay.io", "prometheus-operator/prometheus-config-reloader",
     "templates/prometheus-operator/deployment.yaml", "sha256", ("global.imageRegistry",), ""),
    ("prometheusOperator.thanosImage", "quay.io", "thanos/thanos",
     "templates/prometheus-operator/deployment.yaml (--thanos-default-base-image)", "sha256",
     ("global.imageRegistry",), ""),
    ("prometheusOperator.admissionWebhooks.deployment.image", "quay.io", "prometheus-operator/admission-webhook",
     "templates/prometheus-operator/admission-webhooks/deployment/deployment.yaml", "sha256",
     ("global.imageRegistry",), ""),
    ("prometheusOperator.admissionWebhooks.patch.image", "ghcr.io", "jkroepke/kube-webhook-certgen",
     "templates/prometheus-operator/admission-webhooks/job-patch/job-*.yaml", "sha256", ("global.imageRegistry",), ""),
    ("prometheus.prometheusSpec.image", "quay.io", "prometheus/prometheus", "templates/prometheus/prometheus.yaml",
     "sha256", ("global.imageRegistry",), ""),
    ("alertmanager.alertmanagerSpec.image", "quay.io", "prometheus/alertmanager",
     "templates/alertmanager/alertmanager.yaml", "sha256", ("global.imageRegistry",), ""),
    ("thanosRuler.thanosRulerSpec.image", "quay.io", "thanos/thanos", "templates/thanos-ruler/ruler.yaml", "sha256",
     ("global.imageRegistry",), ""),
    # the busybox pin is appended only when upgradeJob.image.sha is set, not busybox.sha
    ("crds.upgradeJob.image.busybox", "docker.io", "busybox", "charts/crds/templates/upgrade/job.yaml", "sha256",
     ("global.imageRegistry",), "crds.upgradeJob.image.sha"),
    # default tag: the cluster's Kubernetes version
    ("crds.upgradeJob.image.kubectl", "registry.k8s.io", "kubectl", "charts/crds/templates/upgrade/job.yaml", "sha256",
     ("global.imageRegistry",), ""),
    ("grafana.image", "docker.io", "grafana/grafana", "grafana chart templates/_pod.tpl", "sha256", _SUB_GLOBAL, ""),
    ("grafana.sidecar.image", "quay.io", "kiwigrid/k8s-sidecar", "grafana chart templates/_pod.tpl", "sha256",
     _SUB_GLOBAL, ""),
    ("grafana.downloadDashboardsImage", "docker.io", "curlimages/curl", "grafana chart templates/_pod.tpl", "sha256",
     _SUB_GLOBAL, ""),
    ("grafana.initChownData.image", "docker.io", "library/busybox", "grafana chart templates/_pod.tpl", "sha256",
     _SUB_GLOBAL, ""),
    ("grafana.imageRenderer.image", "docker.io", "grafana/grafana-image-renderer",
     "grafana chart templates/image-renderer-deployment.yaml", "sha256", _SUB_GLOBAL, ""),
    ("kube-state-metrics.image", "registry.k8s.io", "kube-state-metrics/kube-state-metrics",
     "kube-state-metrics templates/_helpers.tpl", "sha", _SUB_GLOBAL, ""),
    ("kube-state-metrics.kubeRBACProxy.image", "quay.io", "brancz/kube-rbac-proxy",
     "kube-state-metrics templates/_helpers.tpl", "sha", _SUB_GLOBAL, ""),
    ("prometheus-node-exporter.image", "quay.io", "prometheus/node-exporter",
     "prometheus-node-exporter templates/_helpers.tpl", "digest", _SUB_GLOBAL, ""),
    ("prometheus-node-exporter.kubeRBACProxy.image", "quay.io", "brancz/kube-rbac-proxy",
     "prometheus-node-exporter templates/daemonset.yaml", "sha256", _SUB_GLOBAL, ""),
    ("prometheus-node-exporter.permissionInitContainer.image", "quay.io", "prometheus/busybox",
     "prometheus-node-exporter templates/daemonset.yaml", "sha256", _SUB_GLOBAL, ""),
)
#: Per kube-prometheus-stack version: where it was read (its sub-charts' versions) and the default tags that differ
#: from ``latest`` (an empty tag in values.yaml that the template fills from an appVersion is written filled).
_KPS_TAGS: dict[str, tuple[str, dict[str, str]]] = {
    "88.5.3": ("kube-prometheus-stack 88.5.3 (prometheus-community/helm-charts tag kube-prometheus-stack-88.5.3; "
               "appVersion v0.93.1) with grafana 12.11.1 (grafana-community/helm-charts tag grafana-12.11.1), "
               "kube-state-metrics 8.4.0 and prometheus-node-exporter 4.56.1 (their tags); ", {
                   "prometheusOperator.image": "v0.93.1", "prometheusOperator.prometheusConfigReloader.image": "v0.93.1",
                   "prometheusOperator.thanosImage": "v0.42.4",
                   "prometheusOperator.admissionWebhooks.deployment.image": "v0.93.1",
                   "prometheusOperator.admissionWebhooks.patch.image": "1.8.7",
                   "prometheus.prometheusSpec.image": "v3.14.0-distroless",
                   "alertmanager.alertmanagerSpec.image": "v0.34.0", "thanosRuler.thanosRulerSpec.image": "v0.42.4",
                   "crds.upgradeJob.image.kubectl": "v1.34.0", "grafana.image": "13.2.0",
                   "grafana.sidecar.image": "2.10.1", "grafana.downloadDashboardsImage": "8.21.0",
                   "grafana.initChownData.image": "1.38.0", "kube-state-metrics.image": "v2.20.0",
                   "kube-state-metrics.kubeRBACProxy.image": "v0.22.1", "prometheus-node-exporter.image": "v1.12.1",
                   "prometheus-node-exporter.kubeRBACProxy.image": "v0.22.1"}),
    "87.2.1": ("kube-prometheus-stack 87.2.1 (prometheus-community/helm-charts tag kube-prometheus-stack-87.2.1; "
               "appVersion v0.92.0) with grafana 12.7.1, kube-state-metrics 7.5.1 and prometheus-node-exporter "
               "4.55.0 (their tags); ", {
                   "prometheusOperator.image": "v0.92.0", "prometheusOperator.prometheusConfigReloader.image": "v0.92.0",
                   "prometheusOperator.thanosImage": "v0.41.0",
                   "prometheusOperator.admissionWebhooks.deployment.image": "v0.92.0",
                   "prometheusOperator.admissionWebhooks.patch.image": "1.8.4",
                   "prometheus.prometheusSpec.image": "v3.12.0-distroless",
                   "alertmanager.alertmanagerSpec.image": "v0.33.0", "thanosRuler.thanosRulerSpec.image": "v0.41.0",
                   "crds.upgradeJob.image.kubectl": "v1.34.0", "grafana.image": "13.1.0",
                   "grafana.sidecar.image": "2.8.0", "grafana.downloadDashboardsImage": "8.21.0",
                   "grafana.initChownData.image": "1.38.0", "kube-state-metrics.image": "v2.19.1",
                   "kube-state-metrics.kubeRBACProxy.image": "v0.22.0", "prometheus-node-exporter.image": "v1.11.1",
                   "prometheus-node-exporter.kubeRBACProxy.image": "v0.22.0"}),
}


def _kps(version: str) -> ChartImages:
    read_at, tags = _KPS_TAGS[version]
    slots = []
    for at, registry, repository, template, scheme, registries, sha_when in _KPS_IMAGES:
        defaults: dict[str, Any] = {"registry": registry, "repository": repository, "tag": tags.get(at, "latest"),
                                    "sha": ""}
        if scheme == "digest":
            defaults.update(distroless=False, digest="")
        sub = at.split(".")[0]
        regs = tuple(r.format(sub=sub) for r in registries)
        slots.append(Slot(at, scheme, defaults, f"{read_at}{template}; {CHECKED}", regs, sha_when))
    return ChartImages("kube-prometheus-stack", "https://prometheus-community.github.io/helm-charts", (version,),
                       tuple(slots))


#: The charts the platform pins, with every image their templates compose from values.
CHARTS: tuple[ChartImages, ...] = (
    ChartImages("cilium", "https://helm.cilium.io", ("1.20.0",), (
        # the agent and operator: the chart's default pulls by digest (oke_rdma/addons/cilium.py PINNED keeps
        # useDigest true); the default repository, tag and digest are the release's and are not recorded here
        _cilium("image", {"override": None, "useDigest": True}),
        Slot("operator.image", "cilium-operator", {"override": None, "useDigest": True, "suffix": ""},
             _CILIUM + CHECKED),
        *(_cilium(at) for at in (
            "envoy.image", "hubble.relay.image", "hubble.ui.backend.image", "hubble.ui.frontend.image",
            "certgen.image", "clustermesh.apiserver.image", "preflight.image", "preflight.envoy.image",
            "nodeinit.image", "standaloneDnsProxy.image", "encryption.ztunnel.image",
            "authentication.mutual.spire.install.agent.image", "authentication.mutual.spire.install.server.image",
            "authentication.mutual.spire.install.initImage")),
    )),
    _kps("88.5.3"),
    _kps("87.2.1"),
    ChartImages("keda", "https://kedacore.github.io/charts", ("2.20.2",), tuple(
        Slot(f"image.{name}", "registry", {"registry": "ghcr.io", "repository": repo, "tag": "2.20.2"}, _KEDA + CHECKED,
             ("global.image.registry",))
        for name, repo in (("keda", "kedacore/keda"), ("metricsApiServer", "kedacore/keda-metrics-apiserver"),
                           ("webhooks", "kedacore/keda-admission-webhooks")))),
    ChartImages("gpu-operator", "https://helm.ngc.nvidia.com/nvidia", ("v26.7.0",), (
        _nv("operator", "nvcr.io/nvidia", "gpu-operator", "v26.7.0"),
        _nv("validator", "nvcr.io/nvidia", "gpu-operator", "v26.7.0"),
        _nv("nodeStatusExporter", "nvcr.io/nvidia", "gpu-operator", "v26.7.0"),
        _nv("driver", "nvcr.io/nvidia", "driver", "595.91.07"),
        _nv("driver.manager", "nvcr.io/nvidia/cloud-native", "k8s-driver-manager", "v0.12.0"),
        _nv("toolkit", "nvcr.io/nvidia/k8s", "container-toolkit", "v1.20.0"),
        _nv("devicePlugin", "nvcr.io/nvidia", "k8s-device-plugin", "v0.20.0"),
        _nv("dcgm", "nvcr.io/nvidia/cloud-native", "dcgm", "4.6.0-1-ubuntu24.04"),
        _nv("dcgmExporter", "nvcr.io/nvidia/k8s", "dcgm-exporter", "4.6.0-4.8.3-distroless"),
        _nv("gfd", "nvcr.io/nvidia", "k8s-device-plugin", "v0.20.0"),
        _nv("migManager", "nvcr.io/nvidia/cloud-native", "k8s-mig-manager", "v0.15.0"),
        _nv("gds", "nvcr.io/nvidia/cloud-native", "nvidia-fs", "2.29.4"),
        _nv("gdrcopy", "nvcr.io/nvidia/cloud-native", "gdrdrv", "v2.6"),
        _nv("vgpuManager", "", "vgpu-manager", ""),
        _nv("vgpuManager.driverManager", "nvcr.io/nvidia/cloud-native", "k8s-driver-manager", "v0.12.0"),
        _nv("vgpuDeviceManager", "nvcr.io/nvidia/cloud-native", "vgpu-device-manager", "v0.5.0"),
        _nv("vfioManager", "nvcr.io/nvidia/cloud-native", "k8s-driver-manager", "v0.12.0"),
        _nv("vfioManager.driverManager", "nvcr.io/nvidia/cloud-native", "k8s-driver-manager", "v0.12.0"),
        _nv("sandboxDevicePlugin", "nvcr.io/nvidia", "kubevirt-gpu-device-plugin", "v1.6.0"),
        _nv("kataSandboxDevicePlugin", "nvcr.io/nvidia/cloud-native", "nvidia-sandbox-device-plugin", "v0.0.5"),
        _nv("ccManager", "nvcr.io/nvidia/cloud-native", "k8s-cc-manager", "v0.4.3"),
        _nv("draDriver", "nvcr.io/nvidia", "dra-driver-nvidia-gpu", "v0.5.0"),
    )),
    ChartImages("kueue", "oci://registry.k8s.io/kueue/charts", ("0.19.7",), tuple(
        Slot(at, "repo-tag", {}, _KUEUE + CHECKED) for at in (
            "controllerManager.manager.image", "kueueViz.backend.image", "kueueViz.frontend.image"))),
)


#: Charts the platform pins whose image spelling is not recorded yet (the generic reader judges their values):
#: chart name -> why. A test keeps every pinned Helm add-on in :data:`CHARTS` or here.
NOT_READ: dict[str, str] = {
    "flux2": "not read yet (the controllers' image maps are repository/tag; " + CHECKED + ")",
    "jobset": "not read yet (" + CHECKED + ")",
    "kuberay-operator": "not read yet (" + CHECKED + ")",
    "kubeflow-trainer": "not read yet (" + CHECKED + ")",
    "pulumi-kubernetes-operator": "not read yet (" + CHECKED + ")",
}


def chart_images(chart: Any, repository: Any, version: Any) -> Optional[ChartImages]:
    """The recorded images of a chart named ``chart`` from ``repository`` (URL, or OCI registry path) at exactly
    ``version``, or None: another chart, repository or version is not known here."""
    if not all(isinstance(v, str) for v in (chart, repository, version)):
        return None
    for entry in CHARTS:
        if entry.chart == chart and entry.repository == repository.rstrip("/") and version in entry.versions:
            return entry
    return None


_MISSING = object()


def _at(values: Any, path: str) -> Any:
    cur = values
    for part in path.split("."):
        if not isinstance(cur, Mapping) or part not in cur:
            return _MISSING
        cur = cur[part]
    return cur


def _set(v: Any) -> bool:
    """Go template truth of a value a template tests (``if .x``, ``default``)."""
    return v is not _MISSING and not (v is None or v is False or v == "" or v == 0 or v == {} or v == [])


def docker_hub_path(ref: str) -> str:
    """``docker.io/<name>`` → ``docker.io/library/<name>`` (distribution/reference normalize.go: Docker Hub's
    one-component names are Official Images)."""
    host, _, rest = ref.partition("/")
    if host in ("docker.io", "index.docker.io") and rest and "/" not in rest:
        return f"{host}/library/{rest}"
    return ref


class Refused(str):
    """A problem with a slot's values (not an image reference): shown as is."""


def _compose(slot: Slot, node: Mapping, values: Any) -> str:
    """The reference the slot's template prints; raises :class:`ValueError` with the reason it cannot be known."""
    keys = SCHEME_KEYS[slot.scheme]

    def get(key: str) -> Any:
        v = node.get(key, _MISSING)
        if v is _MISSING:
            if key not in slot.defaults:
                raise ValueError(f"the chart's default {slot.at}.{key} is not recorded for this version; set "
                                 f"{slot.at}.{', '.join(k for k in keys if k != 'override')} "
                                 f"explicitly")
            v = slot.defaults[key]
        return v

    for key in keys:
        v = node.get(key, _MISSING)
        if v is _MISSING or v is None:
            continue
        want = bool if key in _BOOLS else str
        if not isinstance(v, want):
            raise ValueError(f"{slot.at}.{key} is {type(v).__name__} {v!r}, which the chart's template does not "
                             f"read as a{' boolean' if want is bool else ' string'}; write it as one")
    s = slot.scheme
    if s in ("cilium", "cilium-operator"):
        override = get("override")
        if _set(override):
            return override
        use = get("useDigest")
        digest_key = "genericDigest" if s == "cilium-operator" else "digest"
        if s == "cilium-operator":
            for cloud in ("eni.enabled", "azure.enabled", "alibabacloud.enabled"):
                if _set(_at(values, cloud)):
                    raise ValueError(f"{cloud} picks another operator image and digest than the generic one this "
                                     f"table records; remove it (OKE runs the generic operator)")
        repo = get("repository")
        tag = get("tag")
        suffix = f"-generic{get('suffix') or ''}" if s == "cilium-operator" else ""
        ref = f"{repo or ''}{suffix}{':' + tag if _set(tag) else ''}"
        return ref + (f"@{get(digest_key) or ''}" if _set(use) else "")
    if s == "nvidia":
        repo, image, version = get("repository") or "", get("image") or "", get("version") or ""
        if not repo and not version:
            return image
        return f"{repo}/{image}{'@' if version.startswith('sha256:') else ':'}{version}"
    if s == "repo-tag":
        return f"{get('repository') or ''}:{get('tag') or ''}"
    registry = next((r for r in (_at(values, p) for p in slot.registries) if _set(r)), None)
    if registry is not None and not isinstance(registry, str):
        raise ValueError(f"a global image registry is {type(registry).__name__} {registry!r}; write a host name")
    registry = registry or get("registry") or ""
    repo, tag = get("repository") or "", get("tag") or ""
    if s == "registry":
        return f"{registry + '/' if registry else ''}{repo}:{tag}"
    ref = docker_hub_path(f"{registry}/{repo}:{tag}")
    if s == "digest":
        if _set(get("sha")):
            raise ValueError(f"{slot.at}.sha makes the chart fail (it pins by {slot.at}.digest); use digest")
        ref += "-distroless" if _set(get("distroless")) else ""
        return ref + (f"@{get('digest')}" if _set(get("digest")) else "")
    sha = get("sha")
    if slot.sha_when:
        flag = _at(values, slot.sha_when)
        if not _set(flag):
            return ref
    if not _set(sha):
        return ref
    return ref + (f"@sha256:{sha}" if s == "sha256" else f"@{sha}")


def _moved(slot: Slot, node: Any, values: Any) -> bool:
    if any(_set(_at(values, p)) for p in slot.registries):
        return True
    if slot.sha_when and _set(_at(values, slot.sha_when)):
        return True
    if not isinstance(node, Mapping):
        return node is not _MISSING and node is not None
    return any(k in node and (k not in slot.defaults or node[k] != slot.defaults[k])
               for k in SCHEME_KEYS[slot.scheme])


def rendered_images(entry: ChartImages, values: Any, path: str = "values") -> Iterator[tuple[str, str]]:
    """``(where, reference)`` for each image of ``entry`` the values move, as the chart renders it, or
    ``(where, Refused(reason))`` when it cannot be known (see the module docstring)."""
    for slot in entry.slots:
        node = _at(values, slot.at)
        if not _moved(slot, node, values):
            continue
        where = f"{path}.{slot.at}"
        if node is _MISSING or node is None:
            node = {}
        if not isinstance(node, Mapping):
            yield where, Refused(f"{slot.at} is {type(node).__name__} {node!r}, not the map of "
                                 f"{', '.join(SCHEME_KEYS[slot.scheme])} the chart's template reads")
            continue
        try:
            yield where, _compose(slot, node, values)
        except ValueError as e:
            yield where, Refused(str(e))


def read_paths(entry: ChartImages) -> set[str]:
    """The values paths the slots of ``entry`` read (their maps and global registries): the generic reader skips
    them."""
    return {s.at for s in entry.slots} | {p for s in entry.slots for p in s.registries} | {
        s.sha_when for s in entry.slots if s.sha_when}
