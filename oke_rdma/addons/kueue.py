"""Kueue: job queueing with topology-aware scheduling over OCI's RDMA network tiers.

An OCI chart (``oci://registry.k8s.io/kueue/charts/kueue``: no repository). Kueue objects (Topology,
ResourceFlavor, ClusterQueue, LocalQueue; ``oke_rdma.scheduling``) must wait for this release (it installs the
``kueue.x-k8s.io`` CRDs). With kube-prometheus-stack, its metrics ``ServiceMonitor`` is on and the release waits for
kube-prometheus-stack (the CRD). Namespace Pod Security ``restricted``. The optional RDMA topology labeler
(``topologyLabeler``) gets its own ``privileged`` namespace (hostNetwork, to read the host's instance metadata).

Sources: Kueue docs "Installation" (Helm OCI chart), "Topology Aware Scheduling" (the lowest level must be
``kubernetes.io/hostname``; every level's label must be on the nodes); kueue chart 0.18.2 values.yaml
(``enablePrometheus``); oracle-quickstart/oci-hpc-oke "Using RDMA Network Locality When Running Workloads on OKE"
(the ``oci.oraclecloud.com/rdma.*`` labels); Kubernetes docs "Labels and Selectors" (label keys) — checked
2026-11-30.

Kueue manages only the tenants' jobs. Kueue's ``managedJobsNamespaceSelector`` decides which namespaces' jobs and
pods it manages, and the chart builds the ``namespaceSelector`` of every job and pod mutating/validating webhook from
it (charts/kueue/templates/webhook/manifests.yaml@v0.18.2: the selector when set, else "not kube-system and not the
release namespace"). From 0.18 the chart's default configuration enables the ``pod``, ``deployment`` and
``statefulset`` integrations, so with the default selector every Pod created in ``gpu-operator``, ``monitoring``,
``keda``... — chart hook Jobs included — goes through Kueue's webhook and fails while Kueue is not serving. oke-rdma
sets the selector to the namespaces carrying :data:`TENANT_LABEL` (the platform labels each tenant namespace with
its tenant name; ``oke_rdma.platform``) and nothing else. The selector lives in the one YAML string
``managerConfig.controllerManagerConfigYaml``: oke-rdma writes the chart's own default for the pinned version
(``oke_rdma.facts.charts.kueue_manager_config``, sourced per version) with the selector added. A
``values.managerConfig.controllerManagerConfigYaml`` of the user's replaces that string; it is refused unless it is a
YAML map whose ``managedJobsNamespaceSelector`` is exactly oke-rdma's (naming both sides).

The training operators' kinds: the chart's default ``integrations.frameworks`` lists every job kind Kueue knows
(``kubeflow.org/mpijob``, ``trainer.kubeflow.org/trainjob``, ``jobset.x-k8s.io/jobset``, ``ray.io/*``...). oke-rdma
keeps a kind an add-on of the registry installs only while that add-on is enabled (each add-on's
``kueue_frameworks``), so Kueue enables the integrations of the installed kinds; kinds no add-on installs keep the
chart's choice (:func:`integration_frameworks`).
Sources: kubernetes-sigs/kueue apis/config/v1beta2/configuration_types.go@v0.18.2 (ManagedJobsNamespaceSelector),
defaults.go@v0.18.2 (the default selector), charts/kueue/values.yaml@v0.18.2 — checked 2026-11-30.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

import yaml
from pydantic import Field, field_validator

from oke_rdma.facts.images import PYTHON_IMAGE
from oke_rdma.addons._registry import PRIVILEGED, RESTRICTED, AddOn, ExtraNamespace, HelmRelease, ValuesContext
from oke_rdma.schema import StrList, _k8s_name, _key, _Model

HOSTNAME_LABEL = "kubernetes.io/hostname"
#: The label every tenant namespace carries (value: the tenant's name); Kueue manages jobs only where it is.
TENANT_LABEL = "okerdma.io/tenant"
#: Kueue's ``managedJobsNamespaceSelector``: the tenants' namespaces only.
MANAGED_JOBS_NAMESPACE_SELECTOR: dict[str, Any] = {"matchExpressions": [{"key": TENANT_LABEL, "operator": "Exists"}]}
CONFIG_YAML_PATH = ("managerConfig", "controllerManagerConfigYaml")
#: Kueue's ``waitForPodsReady`` as oke-rdma sets it (Kueue 0.19 turns it on by default with a 30-minute timeout and a
#: recovery timeout equal to it: CHANGELOG-0.19.md, #11855; apis/config/v1beta2/defaults.go@v0.19.2). Set explicitly
#: for every Kueue version, for slow gang starts on bare-metal GPU pools:
#:
#: * ``timeout: 60m``: an admitted gang has an hour to get every pod Ready. Its first pods on a node pull multi-GB
#:   training images (PyTorch/NGC images are 10–20 GB) and wait for the GPU Operator's validator and the RDMA
#:   device plugin; 30 minutes evicts gangs that are still pulling, and each eviction restarts the pulls elsewhere.
#: * ``blockAdmission: false``: the platform is shared; one tenant's slow gang must not stop every other tenant's
#:   admissions (``true`` admits one workload at a time until it is Ready).
#: * ``recoveryTimeout: 20m``: a running gang that loses a pod (a GPU failing with an XID, whose node the health
#:   cordoner takes out) gets 20 minutes for the replacement, then is requeued and frees its GPUs, instead of
#:   holding them an hour (the default is the timeout).
#: * ``requeuingStrategy``: backoff from 60 s doubling to 1 h (Kueue's defaults), at most 5 requeues: a gang that can
#:   never start (an image that does not exist, a quota larger than the topology) is deactivated instead of
#:   cycling forever (Kueue's default, null, requeues without end).
#:
#: Sources: kubernetes-sigs/kueue apis/config/v1beta2/configuration_types.go@v0.19.2 (``WaitForPodsReady``,
#: ``RequeuingStrategy``), defaults.go@v0.19.2, CHANGELOG/CHANGELOG-0.19.md — checked 2026-12-01.
WAIT_FOR_PODS_READY: dict[str, Any] = {
    "timeout": "60m", "blockAdmission": False, "recoveryTimeout": "20m",
    "requeuingStrategy": {"timestamp": "Eviction", "backoffLimitCount": 5, "backoffBaseSeconds": 60,
                          "backoffMaxSeconds": 3600},
}
#: Kueue feature gates oke-rdma turns on, each for the chart versions that know it: ``(gate, first, before, why)``.
#: A gate is set only inside its range, because Kueue refuses to start on a gate name it does not know (k8s.io
#: component-base featuregate: "unrecognized feature gate") and an Alpha gate may be renamed or dropped.
#:
#: * ``PodIntegrationCountSucceededPodsAsReady`` (Alpha, off by default, from 0.19.6): succeeded pods count as ready
#:   for ``PodsReady``, as they already do for the batch/job integration. Without it a pod group one of whose pods
#:   completes is evicted once ``waitForPodsReady.recoveryTimeout`` passes (kubernetes-sigs/kueue #15910), and
#:   oke-rdma sets a recovery timeout (:data:`WAIT_FOR_PODS_READY`) while the chart's default integrations keep
#:   ``pod``. Safe: it only changes how a completed pod of a pod group is counted (Ready or Succeeded), the rule
#:   Jobs follow; no quota or admission path changes.
#:
#: Sources: kubernetes-sigs/kueue CHANGELOG/CHANGELOG-0.19.md v0.19.6 (#15910: the gate, Alpha, disabled by default);
#: charts/kueue/values.yaml@v0.19.2 (``controllerManager.featureGates``: a list of ``{name, enabled}``) — checked
#: 2026-12-02.
FEATURE_GATES: tuple[tuple[str, str, Optional[str], str], ...] = (
    ("PodIntegrationCountSucceededPodsAsReady", "0.19.6", "0.20.0",
     "a pod group is not evicted after recoveryTimeout once one of its pods completes (kubernetes-sigs/kueue #15910)"),
)
#: Where the chart takes them: a list of ``{name, enabled}``. A user's ``values.controllerManager.featureGates`` merges
#: with oke-rdma's by gate name (``AddOn.keyed_lists``): theirs win for a gate both name, ours stay otherwise (Helm
#: alone would replace the list and drop the platform's gates). Gate dependencies: ``oke_rdma.facts.kueue_gates``.
FEATURE_GATES_PATH = ("controllerManager", "featureGates")
#: OCI's RDMA network tiers, coarse to fine, as OKE labels nodes (oci-hpc-oke, "Using RDMA Network Locality").
RDMA_TOPOLOGY_LEVELS = (
    "oci.oraclecloud.com/rdma.hpc_island_id",
    "oci.oraclecloud.com/rdma.network_block_id",
    "oci.oraclecloud.com/rdma.local_block_id",
    HOSTNAME_LABEL,
)
#: The most levels a Kueue ``Topology`` holds: ``TopologySpec.levels`` ``+kubebuilder:validation:MaxItems=16``
#: (kubernetes-sigs/kueue apis/kueue/v1beta2/topology_types.go, read 2026-12-01; the API server refuses more).
MAX_TOPOLOGY_LEVELS = 16
#: Longest prefix of a label key (a DNS subdomain: Kubernetes docs "Labels and Selectors", checked 2026-12-01).
_LABEL_PREFIX_MAX = 253
_LABEL_KEY_RE = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                           r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
_IMAGE_RE = re.compile(r"^[a-z0-9.-]+(:[0-9]+)?/[a-z0-9._/-]+(:[A-Za-z0-9._-]+|@sha256:[a-f0-9]{64})$")


class TopologyLabeler(_Model):
    """The optional DaemonSet that labels RDMA nodes from the instance metadata's ``rdmaTopologyData``.

    ``image``: a pinned Python image (tag or digest, never ``latest``); ``namespace``: its own namespace (Pod
    Security ``privileged``: it uses hostNetwork to reach the node's instance metadata).
    """

    enabled: bool = Field(False, description="Run the RDMA topology labeler DaemonSet (docs/scheduling.md).")
    image: str = Field(PYTHON_IMAGE, description=(
        "The labeler's image, pinned by tag or digest."))
    namespace: str = Field("oke-rdma-topology", description=(
        "The labeler's namespace (Pod Security `privileged`: hostNetwork)."))

    _ns = field_validator("namespace")(lambda v: _k8s_name(v))

    @field_validator("image")
    @classmethod
    def _pinned(cls, v: str) -> str:
        if not _IMAGE_RE.match(v) or v.endswith(":latest"):
            raise ValueError(f"must be a fully qualified image pinned by tag or digest "
                             f"(registry/repository:tag, not latest), got {v!r}")
        return v


class KueueRelease(HelmRelease):
    """Kueue, default 0.19.7 in ``kueue-system``.

    ``topologyLevels``: the node labels of the Kueue ``Topology``, coarse to fine; default OCI's RDMA tiers then
    ``kubernetes.io/hostname`` (which must be the lowest level). ``topologyLabeler``: see :class:`TopologyLabeler`.
    """

    # renovate: datasource=docker depName=registry.k8s.io/kueue/charts/kueue
    version: str = Field("0.19.7", description="Exact Kueue chart version.")
    namespace: str = Field("kueue-system", description="Namespace of Kueue.")
    topology_levels: StrList = Field(RDMA_TOPOLOGY_LEVELS, description=(
        "Node labels of the Kueue Topology, coarse to fine; must end with `kubernetes.io/hostname`."))
    topology_labeler: TopologyLabeler = Field(TopologyLabeler(), description=(
        "The RDMA topology labeler, for nodes OKE did not label."))

    @field_validator("topology_levels")
    @classmethod
    def _levels(cls, v: StrList) -> StrList:
        if len(v) > MAX_TOPOLOGY_LEVELS:
            raise ValueError(f"lists {len(v)} levels; a Kueue Topology holds at most {MAX_TOPOLOGY_LEVELS} (the API "
                             "server refuses more: Topology spec.levels maxItems); drop the levels no job asks for")
        bad = [level for level in v if not _LABEL_KEY_RE.match(level) or len(level.rpartition("/")[0]) > _LABEL_PREFIX_MAX]
        if bad:
            raise ValueError(f"must be Kubernetes label keys, got {bad}")
        if len(set(v)) != len(v):
            raise ValueError("lists a label twice; each level is a different node label")
        if not v or v[-1] != HOSTNAME_LABEL:
            fix = (f"move {HOSTNAME_LABEL} to the last level" if HOSTNAME_LABEL in v else f"append {HOSTNAME_LABEL}")
            raise ValueError(f"must end with {HOSTNAME_LABEL} (Kueue requires the hostname as the last, finest level), "
                             f"got {list(v)}; {fix}")
        return v


def integration_frameworks(defaults: list[str], context: ValuesContext) -> list[str]:
    """Kueue's ``integrations.frameworks`` for the platform of ``context``: the chart's ``defaults`` without the
    frameworks of the registry's add-ons that are off (their kinds are not installed), plus those of the enabled
    add-ons the defaults lack. A framework no add-on declares (``batch/job``, ``pod``, the Training Operator's
    ``kubeflow.org/pytorchjob``...) keeps the chart's choice. A framework two add-ons declare stays while either is on.
    Order: the defaults' order, then the added ones sorted."""
    owned = {f for frameworks in context.kueue_frameworks.values() for f in frameworks}
    on = {f for key in context.enabled for f in context.kueue_frameworks.get(key, ())}
    kept = [f for f in defaults if f not in owned or f in on]
    return kept + sorted(on - set(defaults))


def feature_gates(version: str) -> list[dict[str, Any]]:
    """The chart's ``controllerManager.featureGates`` oke-rdma sets for chart ``version``: each gate of
    :data:`FEATURE_GATES` whose range holds ``version``, as ``{"name": gate, "enabled": True}`` ([] for none).

    :raises ValueError: when ``version`` is not a semantic version.
    """
    from oke_rdma.facts.charts import parse_version

    v = parse_version(version)
    return [{"name": gate, "enabled": True} for gate, first, before, _why in FEATURE_GATES
            if v >= parse_version(first) and (before is None or v < parse_version(before))]


def manager_config_yaml(version: str, context: Optional[ValuesContext] = None) -> str:
    """The manager configuration string for chart ``version``: the chart's default with
    :data:`MANAGED_JOBS_NAMESPACE_SELECTOR`, :data:`WAIT_FOR_PODS_READY` and, given ``context``, the integrations of the installed kinds
    (:func:`integration_frameworks`). The config check has refused a version with no recorded default.

    :raises ValueError: when no default is recorded for ``version`` (a wiring bug: the config check refuses it).
    """
    from oke_rdma.facts.charts import kueue_manager_config

    found = kueue_manager_config(version)
    if found is None:
        raise ValueError(f"no recorded Kueue manager configuration for chart {version}")
    config, _source = found
    config["managedJobsNamespaceSelector"] = MANAGED_JOBS_NAMESPACE_SELECTOR
    config["waitForPodsReady"] = json.loads(json.dumps(WAIT_FOR_PODS_READY))
    if context is not None:
        integrations = config.setdefault("integrations", {})
        integrations["frameworks"] = integration_frameworks(list(integrations.get("frameworks") or []), context)
    return yaml.safe_dump(config, sort_keys=False)


def values(cfg: KueueRelease, context: ValuesContext) -> dict[str, Any]:
    """Kueue's metrics ServiceMonitor only with kube-prometheus-stack (its CRD); the manager configuration with
    the tenants-only ``managedJobsNamespaceSelector`` and the integrations of the installed operators (see the module
    docstring); the feature gates of :data:`FEATURE_GATES` the version knows."""
    out: dict[str, Any] = {"enablePrometheus": "kubePrometheusStack" in context.enabled,
                           "managerConfig": {"controllerManagerConfigYaml": manager_config_yaml(cfg.version, context)}}
    gates = feature_gates(cfg.version)
    if gates:
        out["controllerManager"] = {"featureGates": gates}
    return out


def checks(cfg: KueueRelease, at: tuple[str, ...]) -> list[str]:
    """A user's ``values.managerConfig.controllerManagerConfigYaml`` must be a YAML map (text) whose
    ``managedJobsNamespaceSelector`` is oke-rdma's: any other selector makes Kueue's webhooks intercept the platform's
    own namespaces (or miss the tenants')."""
    section = cfg.values.get("managerConfig")
    if not isinstance(section, dict) or CONFIG_YAML_PATH[1] not in section:
        return []
    key = _key(at + ("values", *CONFIG_YAML_PATH))
    text = section[CONFIG_YAML_PATH[1]]
    if not isinstance(text, str):
        return [f"{key}: expected the manager configuration as YAML text (the chart reads a string), got "
                f"{type(text).__name__}; write it as a block string or remove it"]
    try:
        parsed = yaml.safe_load(text)
    except yaml.YAMLError as err:
        return [f"{key}: is not valid YAML ({str(err).splitlines()[0]}); fix it or remove it"]
    if not isinstance(parsed, dict):
        return [f"{key}: expected a YAML map (a Kueue Configuration), got {type(parsed).__name__}; fix it or remove it"]
    theirs = parsed.get("managedJobsNamespaceSelector")
    if theirs != MANAGED_JOBS_NAMESPACE_SELECTOR:
        shown = "no managedJobsNamespaceSelector (Kueue then manages every namespace but kube-system and its own)" \
            if theirs is None else f"managedJobsNamespaceSelector {theirs}"
        return [f"{key}: replaces oke-rdma's manager configuration with {shown}, while oke-rdma restricts Kueue to "
                f"the tenants' namespaces ({MANAGED_JOBS_NAMESPACE_SELECTOR}) so its job and pod webhooks never "
                f"intercept the platform's namespaces (gpu-operator, monitoring, keda hook jobs); set "
                f"managedJobsNamespaceSelector to exactly that or remove the value"]
    return []


def extra_namespaces(cfg: KueueRelease) -> list[ExtraNamespace]:
    """The topology labeler's namespace (privileged: hostNetwork), when the labeler is enabled."""
    labeler = cfg.topology_labeler
    return [ExtraNamespace(("topologyLabeler", "namespace"), labeler.namespace, PRIVILEGED)] if labeler.enabled else []


ADDON = AddOn(
    key="kueue",
    release_name="kueue",
    chart="oci://registry.k8s.io/kueue/charts/kueue",
    repository=None,
    config=KueueRelease,
    pod_security=RESTRICTED,
    values=values,
    # its metrics ServiceMonitor needs the monitoring.coreos.com CRD; the MPIJob CRD present when it starts (it would
    # otherwise poll for the API with a backoff before serving MPIJobs: jobframework/setup.go@v0.18.2)
    after=("kubePrometheusStack", "mpiOperator"),
    crds=("kueue.x-k8s.io",),
    # Workloads hold kueue.x-k8s.io/resource-in-use while they use quota, pods of the pod integration
    # kueue.x-k8s.io/managed (kueue pkg/constants; kubernetes-sigs/kueue#13830; checked 2026-12-02).
    finalizers=("kueue.x-k8s.io/resource-in-use", "kueue.x-k8s.io/managed"),
    value_shapes=((("enablePrometheus",), "bool"), (("managerConfig",), "map"), (("controllerManager",), "map"),
                  (FEATURE_GATES_PATH, "list")),
    keyed_lists=((FEATURE_GATES_PATH, "name"),),
    checks=checks,
    extra_namespaces=extra_namespaces,
    source="Kueue docs, Installation and Topology Aware Scheduling; kueue chart 0.19.7 (CHANGELOG-0.19.md); checked "
           "2026-12-02",
)
