"""Rules of the ``platform`` section that read other keys of the stack config, and values derived from the whole
:class:`~oke_rdma.config.stack.StackConfig`. The section's models and single-key rules are in
``oke_rdma.config.platform``, which imports nothing back."""

from __future__ import annotations

import re
from typing import Any

from oke_rdma.addons import AddOn, all_namespaces, REGISTRY, Registry
from .._base import _key, RESERVED_NAMESPACES
from ..platform import _get, is_gpu_shape, OKE_DEVICE_PLUGIN_LABEL, Platform, values_problems
from ..stack import StackConfig


def check_platform(cfg: StackConfig, registry: Registry = REGISTRY) -> list[str]:
    """Values that break the platform, reserved namespaces, and the device-plugin rule (one plugin per GPU node).

    * every add-on's :func:`values_problems` (sections oke-rdma sets keep their shape; flags stay booleans;
      ``gpuOperator.values.driver.enabled`` only false — OKE GPU images ship the NVIDIA driver) and its own rules
      (:attr:`~oke_rdma.addons.AddOn.checks`, e.g. no Grafana password in plain text, Prometheus' retention size
      fits its volume).
    * an add-on (or a namespace its config asks for, like Kueue's topology labeler) in a reserved namespace
      (``kube-system``, ``kube-public``, ``kube-node-lease``, ``default``).
    * The operator's device plugin off while a GPU pool disables OKE's plugin (label ``true``): nothing would
      advertise ``nvidia.com/gpu`` on those nodes.
    * The operator's device plugin on while a GPU pool's labels force OKE's plugin on (label ``false``): both would
      advertise the same GPUs.
    * the chart's own template checks (``fail``/``required``, :mod:`oke_rdma.facts.chart_templates`) that the
      release's final values would trip at ``pulumi up`` (:func:`template_problems`).
    """
    p = cfg.platform
    problems: list[str] = []
    context = registry.context(p)
    for addon in registry:
        release = getattr(p, addon.field)
        at = ("platform", addon.key)
        shapes = values_problems(addon, getattr(release, "values", {}))  # a manifest add-on has no values
        problems += shapes
        if addon.checks:
            problems += addon.checks(release, at)
        if release.enabled and not addon.is_manifest:
            problems += template_problems(cfg, addon, release, context)
            shaped = {line.split(": ", 1)[0] for line in shapes}  # a section of the wrong shape: one line, not two
            problems += [line for line in image_problems(addon, release, context)
                         if not any(line.startswith(k + ".") or line.startswith(k + ":") for k in shaped)]
        if release.namespace in RESERVED_NAMESPACES:
            problems.append(f"{_key(at + ('namespace',))}: {release.namespace!r} is a namespace "
                            f"Kubernetes reserves for itself (Kubernetes docs, Namespaces); install the release in "
                            f"its own, like the default {addon.defaults.namespace!r}")
        for extra in (addon.extra_namespaces(release) if addon.extra_namespaces else ()):
            if extra.name in RESERVED_NAMESPACES:
                problems.append(f"{_key(at + extra.path)}: {extra.name!r} is a namespace Kubernetes reserves for "
                                f"itself (Kubernetes docs, Namespaces); use its own, like the default "
                                f"{_default_at(addon, extra.path)!r}")
    operator_plugin = p.operator_device_plugin
    for name, pool in cfg.node_pools.items():
        if not is_gpu_shape(pool.shape):
            continue
        forced = pool.labels.get(OKE_DEVICE_PLUGIN_LABEL)
        at = _key(("nodePools", name, "labels", OKE_DEVICE_PLUGIN_LABEL))
        if forced == "true" and not operator_plugin:
            problems.append(f"{at}: disables OKE's device plugin but the GPU Operator's device plugin is off, so "
                            f"nothing advertises nvidia.com/gpu on these nodes; remove the label or enable "
                            f"platform.gpuOperator (values.devicePlugin.enabled)")
        if forced == "false" and operator_plugin:
            problems.append(f"{at}: keeps OKE's device plugin on while the GPU Operator runs its own, so two plugins "
                            f"advertise the same GPUs; remove the label (oke-rdma sets it to true) or set "
                            f"platform.gpuOperator.values.devicePlugin.enabled: false")
    return problems


def template_problems(cfg: StackConfig, addon: AddOn, release: Any, context: Any) -> list[str]:
    """One line per template check of the add-on's chart at its pinned version (:mod:`oke_rdma.facts.chart_templates`)
    that the release's final values trip: oke-rdma's values with the user's merged over (for the GPU Operator, with
    the pools' device-plugin configurations, as the program hands them). The line names the first of the check's
    paths the user set (``platform.<key>.values.<path>``), what the chart requires, the fix, and the template read."""
    from oke_rdma.facts.chart_templates import checks_of, value
    from .gpu_sharing import gpu_operator_values

    checks = checks_of(addon.key, release.version)
    if not checks:
        return []
    if addon.key == "gpuOperator":
        release = release.model_copy(update={"values": gpu_operator_values(cfg)})
    try:
        final = addon.helm_values(release, context)
    except ValueError:  # values that cannot be built: the version rules refuse the pin
        return []
    _missing = object()
    out = []
    for check in checks:
        if not check.fails(final):
            continue
        named = next((p for p in check.paths if value(release.values, p, _missing) is not _missing), check.paths[0])
        chart = addon.chart.rsplit("/", 1)[-1]
        out.append(f"{_key(('platform', addon.key, 'values', *named.split('.')))}: the {chart} "
                   f"chart {release.version} refuses these values at install ({check.says}), so pulumi up would "
                   f"fail there; {check.fix} [{check.source}]")
    return out


def image_problems(addon: AddOn, release: Any, context: Any) -> list[str]:
    """One line per image of the add-on's chart that the user's ``platform.<key>.values`` move (the chart's images
    and how its templates compose them: :mod:`oke_rdma.facts.chart_images`), judged as the chart renders it from the
    release's final values: a value the template cannot be read from (another type, a chart default not recorded)
    is refused, and so is an image outside the chart's own repository that is not pinned by digest (``override``,
    another ``repository``, a global registry, a digest the template drops). Only the tag of the chart's own
    repository may change without a digest, and then to a version tag. Charts not in the table: nothing here (the
    security pack's generic reader judges them)."""
    from oke_rdma.facts.chart_images import Refused, chart_images, rendered_images

    chart, repository = addon.chart, addon.repository
    if chart.startswith("oci://"):
        repository, _, chart = chart.rpartition("/")
    entry = chart_images(chart, repository, release.version)
    if entry is None or not release.values:
        return []
    try:
        final = addon.helm_values(release, context)
    except ValueError:
        return []
    ours = addon.helm_values(release.model_copy(update={"values": {}}), context)
    out = []
    for where, ref in rendered_images(entry, final):
        path = where.split(".", 1)[1]
        if any(r == ref for w, r in rendered_images(entry, ours) if w == where):
            continue  # oke-rdma's own values render it: not the user's
        at = _key(("platform", addon.key, "values", *_user_key(entry, path, release.values).split(".")))
        if isinstance(ref, Refused):
            out.append(f"{at}: the image cannot be known from these values ({ref}) [{_slot_source(entry, path)}]")
            continue
        problem = _image_problem(entry, path, ref)
        if problem:
            out.append(f"{at}: the {chart} chart {release.version} would run {ref!r}, {problem} "
                       f"[{_slot_source(entry, path)}]")
    return out


_DIGEST_RE = re.compile(r"@sha256:[0-9a-f]{64}$")
_VERSION_RE = re.compile(r"\d+\.\d+")


def _user_key(entry: Any, path: str, values: dict[str, Any]) -> str:
    """The key the user set that moves the image at ``path`` (the slot's own key first, then a global registry)."""
    from oke_rdma.facts.chart_images import SCHEME_KEYS

    slot = next(s for s in entry.slots if s.at == path)
    node = _get(values, *path.split("."))
    if isinstance(node, dict):
        for key in SCHEME_KEYS[slot.scheme]:
            if key in node:
                return f"{path}.{key}"
    return next((p for p in slot.registries + (slot.sha_when,) if p and _get(values, *p.split(".")) is not None),
                path)


def _slot_source(entry: Any, path: str) -> str:
    return next(s.source for s in entry.slots if s.at == path)


def _image_problem(entry: Any, path: str, ref: str) -> str:
    """Why a rendered image of a platform add-on is refused ('' when it is not)."""
    if _DIGEST_RE.search(ref):
        return ""
    slot = next(s for s in entry.slots if s.at == path)
    own = "/".join(str(slot.defaults.get(k) or "") for k in ("registry", "repository") if k in slot.defaults)
    if slot.scheme == "nvidia":
        own = f"{slot.defaults.get('repository')}/{slot.defaults.get('image')}"
    name, _, tag = ref.rpartition(":")
    from oke_rdma.facts.chart_images import docker_hub_path
    if own and "/" not in tag and docker_hub_path(name) == docker_hub_path(own) and _VERSION_RE.search(tag) \
            and "latest" not in tag:
        return ""
    return ("which is neither the chart's own repository with a version tag nor pinned by digest; remove the "
            "value, or pin the image by digest (repository and tag with @sha256:<64 hex>, through the key the "
            "chart reads for it)")


def _default_at(addon: AddOn, path: tuple[str, ...]) -> Any:
    """The default value at config key path ``path`` (camelCase keys) below the add-on's config."""
    cur: Any = addon.defaults
    for part in path:
        cur = getattr(cur, next(n for n, f in type(cur).model_fields.items() if (f.alias or n) == part))
    return cur


def platform_namespaces(cfg: StackConfig, registry: Registry = REGISTRY) -> dict[str, tuple[str, ...]]:
    """Namespace → config key path of every add-on namespace (enabled or not) and every extra namespace an add-on's
    config asks for: the namespaces a tenant must not take."""
    return {ns: ("platform", *path) for ns, path in all_namespaces(cfg.platform, registry).items()}


def check_chart_compatibility(cfg: StackConfig) -> list[str]:
    """Each enabled release's chart version against what the program creates through it and against the cluster's
    Kubernetes version, from the compatibility data of :mod:`oke_rdma.facts.charts` (each fact sourced there).

    * a chart version below the first one serving an API or feature the program uses (Kueue below 0.15.0 serves no
      ``kueue.x-k8s.io/v1beta2``: the first ``pulumi up`` fails with ``no matches for kind``) — one line naming the
      version, what it lacks, and the first version that fits;
    * ``cluster.kubernetesVersion`` outside the Kubernetes versions the chart version supports — one line naming both
      versions, the supported range, and the recorded chart versions that support that Kubernetes version (if any);
    * a version that is not a semantic version cannot be compared and is refused.
    """
    from oke_rdma.facts import charts as facts

    problems: list[str] = []
    kube = cfg.cluster.kubernetes_version
    rdma = bool(cfg.rdma_pools)
    for field, info in Platform.model_fields.items():
        release = getattr(cfg.platform, field)
        key = info.alias or field
        if not release.enabled or key not in facts.CHARTS:
            continue
        at = _key(("platform", key, "version"))
        chart = facts.CHARTS[key]
        try:
            missing = facts.unmet_requirements(key, release.version, rdma)
            support = facts.kubernetes_support(key, release.version)
        except ValueError:
            problems.append(f"{at}: {release.version!r} is not a semantic version (like 1.2.3), so its compatibility "
                            f"with the APIs oke-rdma uses cannot be checked; write the chart's exact version")
            continue
        if not missing and key == "kueue" and facts.kueue_manager_config(release.version) is None:
            minors = facts.kueue_recorded_minors()
            problems.append(f"{at}: oke-rdma sets Kueue's manager configuration (managedJobsNamespaceSelector) from the "
                            f"chart's own default, recorded for Kueue {minors[0]}.x–{minors[-1]}.x only, not for "
                            f"{release.version}; pin a recorded version (default "
                            f"{type(release).model_fields['version'].default}) or add the chart's default to "
                            f"oke_rdma/facts/kueue_manager_config.json with its source")
            continue
        if missing:
            fits = facts.first_fitting(key, rdma)
            lacks = "; ".join(f"{r.what} (needed for {r.used_for}; from {r.since}: {r.source})" for r in missing)
            problems.append(f"{at}: {chart.name} {release.version} lacks {lacks}; set {fits} or newer (default "
                            f"{type(release).model_fields['version'].default})")
            continue
        if support is not None and not facts.fits_kubernetes(support, kube):
            span = f"{support.kube_min}–{support.kube_max}" if support.kube_max else f"{support.kube_min} or newer"
            others = [e for e in facts.chart_versions_for_kubernetes(key, kube)
                      if not facts.unmet_requirements(key, e.charts[0], rdma)]
            fix = (f"use {chart.name} {others[0].charts[0]} or newer (supports Kubernetes {kube}), or a Kubernetes "
                   f"version in {span}" if others else f"use a Kubernetes version in {span} (no recorded "
                   f"{chart.name} version supports {kube})")
            # leaving the add-on out is a way too (the config model accepts every release disabled)
            fix += f", or set {_key(('platform', key, 'enabled'))}: false (the stack goes without {chart.name})"
            problems.append(f"{at}: {chart.name} {release.version} supports Kubernetes {span} but "
                            f"cluster.kubernetesVersion is {kube} ({support.source}); {fix}")
    return problems


#: Prometheus selector flags of kube-prometheus-stack that, set true, make Prometheus ignore every monitor but the
#: chart's own (chart values.yaml@87.2.1, ``prometheus.prometheusSpec.*SelectorNilUsesHelmValues``).
_NIL_USES_HELM_VALUES = ("serviceMonitorSelectorNilUsesHelmValues", "podMonitorSelectorNilUsesHelmValues",
                         "ruleSelectorNilUsesHelmValues", "probeSelectorNilUsesHelmValues")


def check_addon_dependencies(cfg: StackConfig, registry: Registry = REGISTRY) -> list[str]:
    """Values a user sets on one add-on that switch off what another part of the stack relies on, naming both sides.

    * GPU Operator ``nfd.enabled: false`` with GPU pools: the operator finds GPU nodes by NFD's
      ``feature.node.kubernetes.io/pci-10de.present`` label (controllers/state_manager.go@v25.10.1) and the pools'
      OKE device plugin is disabled, so nothing would advertise ``nvidia.com/gpu``.
    * Kueue ``enableCertManager: true``: the platform installs no cert-manager (charts/kueue/templates/certmanager/
      @v0.18.2 creates cert-manager Certificates), so the webhook would get no certificate.

    The ``monitoring.coreos.com`` ServiceMonitors of the GPU Operator (DCGM exporter) and Kueue (metrics) need
    kube-prometheus-stack's CRDs (``crds.enabled``), its operator (``prometheusOperator.enabled``) and a Prometheus
    that selects monitors of other releases (``*SelectorNilUsesHelmValues: false``); a ServiceMonitor turned on while
    kube-prometheus-stack is disabled has no CRD and fails the release. Sources: kube-prometheus-stack
    values.yaml@87.2.1 (``crds.enabled``, ``prometheusOperator.enabled``, the selector flags); gpu-operator
    values.yaml@v25.10.1 (``dcgmExporter.serviceMonitor.enabled``); kueue values.yaml@v0.18.2
    (``enablePrometheus``) — checked 2026-11-30.
    """
    from oke_rdma.addons import enabled_releases

    enabled = enabled_releases(cfg.platform, registry)
    context = registry.context(cfg.platform)
    problems: list[str] = []
    gpu_values = cfg.platform.gpu_operator.values if "gpuOperator" in enabled else {}
    if _get(gpu_values, "nfd", "enabled") is False and any(is_gpu_shape(p.shape) for p in cfg.node_pools.values()):
        # gpu-operator controllers/state_manager.go@v25.10.1: GPU nodes are found by NFD's
        # feature.node.kubernetes.io/pci-10de.present label; no NFD in the platform → no device plugin anywhere.
        problems.append(f"{_key(('platform', 'gpuOperator', 'values', 'nfd', 'enabled'))}: the GPU Operator finds GPU "
                        f"nodes by Node Feature Discovery's feature.node.kubernetes.io/pci-10de.present label, and the "
                        f"platform runs no other NFD, so the GPU pools (whose OKE device plugin is disabled) would get "
                        f"no device plugin and advertise no nvidia.com/gpu; remove it")
    kueue_values = cfg.platform.kueue.values if "kueue" in enabled else {}
    if _get(kueue_values, "enableCertManager") is True:
        # kueue charts/kueue/templates/certmanager/*.yaml@v0.18.2: Certificates and an Issuer of cert-manager.io
        problems.append(f"{_key(('platform', 'kueue', 'values', 'enableCertManager'))}: makes Kueue's webhook "
                        f"certificates cert-manager Certificates, but the platform installs no cert-manager, so the "
                        f"webhook never gets a certificate and every Kueue object (and the readiness gate) fails; "
                        f"remove it (Kueue's built-in certificate rotation is used)")
    final: dict[str, dict[str, Any]] = {}
    for key, release in enabled.items():
        try:
            final[key] = registry[key].helm_values(release, context)
        except ValueError:  # a version whose values cannot be built: check_chart_compatibility refuses it
            final[key] = {}
    monitors = []  # (who, the config key path that turns it on)
    if "gpuOperator" in final and _get(final["gpuOperator"], "dcgmExporter", "serviceMonitor", "enabled") is True:
        monitors.append(("the GPU Operator's DCGM exporter ServiceMonitor",
                         "platform.gpuOperator.values.dcgmExporter.serviceMonitor.enabled"))
    if "kueue" in final and _get(final["kueue"], "enablePrometheus") is True:
        monitors.append(("Kueue's metrics ServiceMonitor", "platform.kueue.values.enablePrometheus"))
    if not monitors:
        return problems
    who = " and ".join(m[0] for m in monitors)
    if "kubePrometheusStack" not in final:
        for name, at in monitors:
            problems.append(f"oke-rdma:{at}: turns on {name}, but platform.kubePrometheusStack is disabled, so the "
                            f"ServiceMonitor CRD (monitoring.coreos.com) does not exist and the release fails; "
                            f"remove it or enable kube-prometheus-stack")
        return problems
    kps_values = cfg.platform.kube_prometheus_stack.values
    base = ("platform", "kubePrometheusStack", "values")
    for path, what in ((("crds", "enabled"), "installs no monitoring.coreos.com CRDs"),
                       (("prometheusOperator", "enabled"), "runs no Prometheus operator to act on ServiceMonitors")):
        if _get(kps_values, *path) is False:
            problems.append(f"{_key(base + path)}: kube-prometheus-stack then {what}, while {who} rely on them; "
                            f"remove it (the chart's default is true)")
    for flag in _NIL_USES_HELM_VALUES:
        if _get(kps_values, "prometheus", "prometheusSpec", flag) is True:
            problems.append(f"{_key(base + ('prometheus', 'prometheusSpec', flag))}: Prometheus would then select "
                            f"only kube-prometheus-stack's own monitors and rules, so {who} would never be scraped; "
                            f"remove it (oke-rdma sets false)")
    return problems
