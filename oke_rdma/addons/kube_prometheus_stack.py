"""kube-prometheus-stack (prometheus-community): Prometheus, Alertmanager, Grafana and node-exporter.

Installed first among the add-ons that use its CRDs (``monitoring.coreos.com``: ``ServiceMonitor``, ``PodMonitor``,
``PrometheusRule``, ``Probe``...). ``*SelectorNilUsesHelmValues: false`` so Prometheus picks up every monitor and
rule in the cluster, not only the chart's own. Prometheus keeps ``retention`` (and at most ``retentionSizeGb``) on a
``storageGb`` block volume of ``storageClass`` (the stack's paravirtualized class by default). Grafana's admin password, when given, is a Pulumi secret written into
a Kubernetes Secret the chart reads (``grafana.admin.existingSecret``) — never in Helm values; without one, Grafana
generates a random password instead of the chart's well-known default. Namespace Pod Security ``privileged``:
node-exporter uses hostNetwork, hostPID and hostPath mounts of /proc, /sys and /.

A managed control plane (:data:`MANAGED_CONTROL_PLANE`): OKE runs the API server, etcd, the scheduler and the
controller manager in Oracle's control plane, outside the cluster, so the chart's scrapers for etcd, the scheduler
and the controller manager find nothing, and its ``KubeSchedulerDown``/``KubeControllerManagerDown``/etcd alerts
would fire forever; kube-proxy runs on the nodes but serves metrics on 127.0.0.1:10249 (kube-proxy's default
``--metrics-bind-address``), which Prometheus cannot reach. Each is turned off with ``<component>.enabled: false``,
which also drops its alert rules (templates/prometheus/rules-1.14/*.yaml@87.2.1 render only when the component is
enabled). A user's ``<component>.enabled: true`` is refused with the reason. The API server (the ``kubernetes``
Service), the kubelets, CoreDNS and kube-state-metrics stay scraped.

Sources: kube-prometheus-stack chart README and values.yaml (prometheus-community/helm-charts, chart 87.2.1:
``prometheus.prometheusSpec.*SelectorNilUsesHelmValues``, ``storageSpec``, ``retentionSize``,
``grafana.admin.existingSecret``); Prometheus docs "Storage" (durations, the WAL beside the blocks); OCI Block
Volume docs (50 GB minimum volume) — checked 2026-11-30.
"""

from __future__ import annotations

import re
from typing import Any, Optional

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field, field_validator

from oke_rdma.addons._grafana_egress import PLATFORM_DEFAULTS, grafana_egress_problems
from oke_rdma.addons._grafana_sidecars import pinned_sidecars, sidecar_reach_problems
from oke_rdma.addons._monitoring_paths import egress_problems, plugin_problems
from oke_rdma.addons._registry import PRIVILEGED, AddOn, HelmRelease, ValuesContext
from oke_rdma.facts.images import BUSYBOX_TAG
from oke_rdma.facts.storage import BLOCK_VOLUME_CLASS
from oke_rdma.schema import _k8s_name, _key

#: Chart components with no reachable target on OKE → why (each source in the module docstring).
MANAGED_CONTROL_PLANE: dict[str, str] = {
    "kubeEtcd": "OKE runs etcd in Oracle's managed control plane (OKE docs 'Overview of Kubernetes Engine': Oracle "
                "manages the control plane nodes); no etcd endpoint is reachable from the cluster",
    "kubeControllerManager": "OKE runs the controller manager in Oracle's managed control plane, outside the cluster",
    "kubeScheduler": "OKE runs the scheduler in Oracle's managed control plane, outside the cluster",
    "kubeProxy": "kube-proxy serves its metrics on 127.0.0.1:10249 by default (Kubernetes docs 'kube-proxy' "
                 "reference, --metrics-bind-address) and OKE manages its configuration: Prometheus cannot reach it",
}

#: Smallest block volume OCI creates, in GB (OCI Block Volume docs) — the floor of Prometheus' volume.
MIN_BLOCK_VOLUME_GB = 50
#: The Kubernetes Secret holding Grafana's admin user and password (when ``grafanaAdminPassword`` is set).
GRAFANA_SECRET = "grafana-admin"
_DURATION_RE = re.compile(r"^([0-9]+(y|w|d|h|m|s|ms))+$")  # Prometheus duration, e.g. 15d, 12h30m
#: Keys under ``values.grafana`` that hold a password (``adminPassword``, ``grafana.ini.security.admin_password``,
#: ``...password``, ``...passwd``); ``passwordKey`` names a Secret key and is fine.
_PASSWORD_KEY_RE = re.compile(r"pass(word|wd)$", re.IGNORECASE)


class KubePrometheusStackRelease(HelmRelease):
    """kube-prometheus-stack, default 88.5.3 in ``monitoring``.

    ``retention`` (Prometheus duration, ``15d``), ``retentionSizeGb`` (GB kept before the oldest blocks are
    dropped; must leave 10 % of the volume for the WAL), ``storageGb`` (the Prometheus volume, GB, 50 to 32768:
    OCI's block volume sizes), ``storageClass`` (``oke-rdma-bv``: the stack's paravirtualized block volume class,
    :data:`oke_rdma.facts.storage.BLOCK_VOLUME_CLASS`).
    ``grafanaAdminPassword``: a **secret** (``pulumi config set --secret``), at least 12 characters; stored in a
    Kubernetes Secret Grafana reads, never in Helm values. Without it Grafana generates a random one.
    """

    # renovate: datasource=helm depName=kube-prometheus-stack registryUrl=https://prometheus-community.github.io/helm-charts
    version: str = Field("88.5.3", description=(
        "Exact kube-prometheus-stack chart version (its CRDs are upgraded by the chart's job: docs/operations.md)."))
    namespace: str = Field("monitoring", description="Namespace of kube-prometheus-stack.")
    grafana_admin_password: Optional[str] = Field(default=None, json_schema_extra={"secret": True}, description=(
        "Grafana's admin password, a Pulumi secret (`pulumi config set --path --secret`, at least 12 characters);"
        " kept in a Kubernetes Secret, never in Helm values; absent: Grafana generates a random one (read it with"
        " `kubectl -n monitoring get secret kube-prometheus-stack-grafana -o jsonpath='{.data.admin-password}'`)."))
    retention: str = Field("15d", description=(
        "How long Prometheus keeps samples, a Prometheus duration like `15d` or `12h`."))
    retention_size_gb: Optional[int] = Field(default=None, gt=0, description=(
        "Size cap of Prometheus data in GB; must fit in `storageGb` with 10 % headroom."))
    storage_gb: int = Field(default=100, ge=MIN_BLOCK_VOLUME_GB, le=32768, description=(
        "Prometheus volume in GB (at least 50, OCI's smallest block volume). Raising it does not grow the existing "
        "claim (the operator's StatefulSet keeps its claim template): grow the claim first, as the preview says."))
    storage_class: str = Field(BLOCK_VOLUME_CLASS, description=(
        f"StorageClass of the Prometheus volume (`{BLOCK_VOLUME_CLASS}`: the stack's CSI block volumes attached "
        f"paravirtualized, which attach to nodes with in-transit encryption; OKE's `oci-bv` attaches over iSCSI and "
        f"is refused while a node pool has `isPvEncryptionInTransitEnabled`)."))
    allowed_remote_urls: tuple[str, ...] = Field(default=(), description=(
        "URL prefixes (https://host/...; smtp://host:port for a mail relay, tcp://host:port for an Alertmanager "
        "peer) Prometheus may remote-write or remote-read, Alertmanager may send to and Grafana may publish to: "
        "reviewed destinations outside the cluster (every tenant's metrics leave with them); empty: none."))

    @field_validator("retention")
    @classmethod
    def _duration(cls, v: str) -> str:
        if not _DURATION_RE.match(v):
            raise ValueError(f"must be a Prometheus duration like 15d or 12h, got {v!r}")
        return v

    @field_validator("grafana_admin_password")
    @classmethod
    def _password(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and len(v) < 12:
            # Never echo the value (nor its length): it is a secret.
            raise ValueError("expected a password of at least 12 characters, got a shorter one (not shown); choose "
                             "a longer one and set it with pulumi config set --path --secret")
        return v

    _sc = field_validator("storage_class")(lambda v: _k8s_name(v))

    @field_validator("allowed_remote_urls")
    @classmethod
    def _https_prefixes(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [u for u in v if not re.match(r"^(https://[^/\s]+(/|$)|(smtp|tcp)://[^/\s:]+:\d+$)", u)]
        if bad:
            raise ValueError(f"expected https://<host>[/path] prefixes (or smtp://<host>:<port>, tcp://<host>:<port>), "
                             f"got {bad[0]!r}; metrics leave only over TLS to a named host")
        return v


def values(cfg: KubePrometheusStackRelease, context: ValuesContext) -> dict[str, Any]:
    """Prometheus picks up every monitor and rule; its retention and volume; Grafana's password from the Secret."""
    spec: dict[str, Any] = {
        "serviceMonitorSelectorNilUsesHelmValues": False, "podMonitorSelectorNilUsesHelmValues": False,
        "ruleSelectorNilUsesHelmValues": False, "probeSelectorNilUsesHelmValues": False,
        "retention": cfg.retention,
        "storageSpec": {"volumeClaimTemplate": {"spec": {
            "storageClassName": cfg.storage_class, "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": f"{cfg.storage_gb}Gi"}}}}}}
    if cfg.retention_size_gb is not None:
        spec["retentionSize"] = f"{cfg.retention_size_gb}GB"
    grafana: dict[str, Any] = (
        {"admin": {"existingSecret": GRAFANA_SECRET, "userKey": "admin-user", "passwordKey": "admin-password"}}
        if cfg.grafana_admin_password is not None else {"adminPassword": ""})  # "": the chart generates one
    # Nothing Grafana shows leaves by default: external snapshots, usage reports, update checks, Gravatar and public
    # dashboards off (oke_rdma.addons._grafana_egress; Grafana conf/defaults.ini turns them on).
    grafana["grafana.ini"] = {section: dict(body) for section, body in PLATFORM_DEFAULTS.items()}
    # Grafana's sidecars read ConfigMaps and Secrets of this namespace only, never a tenant's (the chart's dashboards
    # sidecar searches ALL: oke_rdma.addons._grafana_sidecars).
    grafana["sidecar"] = pinned_sidecars(cfg.namespace)
    # kube_node_labels / kube_namespace_labels carry only allow-listed labels: the pool and tenant labels the GPU
    # metering rules join on (oke_rdma/monitoring/rules/gpu-metering.yaml; kube-state-metrics chart 7.5.1
    # values.yaml, metricLabelsAllowlist).
    ksm = {"metricLabelsAllowlist": ["nodes=[okerdma.io/node-pool]", "namespaces=[okerdma.io/tenant]"]}
    off = {component: {"enabled": False} for component in MANAGED_CONTROL_PLANE}
    # Helm installs the chart's crds/ once and never upgrades them; the chart's pre-upgrade Job applies the new
    # version's CRDs server-side before the operator moves (oke_rdma/facts/crds.py). Its busybox pinned (the chart
    # defaults to latest); its kubectl defaults to the cluster's Kubernetes version.
    crds = {"upgradeJob": {"enabled": True, "image": {"busybox": {"tag": BUSYBOX_TAG}}}}
    return {"prometheus": {"prometheusSpec": spec}, "grafana": grafana, "kube-state-metrics": ksm, "crds": crds,
            **off}


def _password_paths(value: Any, at: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Key paths below ``at`` whose key names a password and whose value is not empty."""
    found: list[tuple[str, ...]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if _PASSWORD_KEY_RE.search(str(k)) and v not in (None, ""):
                found.append(at + (str(k),))
            else:
                found += _password_paths(v, at + (str(k),))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _password_paths(v, at + (str(i),))
    return found


_TRUE_TEXT = ("true", "1", "yes", "on")


def _on(value: Any) -> bool:
    """True for a value Grafana's ini and environment parsing reads as on (true, 1, yes, on; any case)."""
    return value is True or (isinstance(value, (str, int)) and str(value).strip().lower() in _TRUE_TEXT)


def grafana_auth_problems(grafana: Any, at: tuple[str, ...]) -> list[str]:
    """Grafana settings that let anyone who reaches it in without a login, each naming its key path: anonymous
    access (``grafana.ini`` ``auth.anonymous.enabled``, or ``GF_AUTH_ANONYMOUS_ENABLED`` in ``grafana.env``) shows
    every tenant's GPU usage, jobs and node names (and with ``org_role: Admin``, edits them); an auth proxy
    (``auth.proxy.enabled``) without ``whitelist`` trusts a user name header any client can send. Grafana docs
    "Configure anonymous access", "Configure auth proxy authentication" (checked 2026-12-01)."""
    if not isinstance(grafana, dict):
        return []
    problems = []
    ini = grafana.get("grafana.ini") if isinstance(grafana.get("grafana.ini"), dict) else {}
    auth_anonymous = ((ini.get("auth.anonymous") if isinstance(ini.get("auth.anonymous"), dict) else None)
                      or {})
    if _on(auth_anonymous.get("enabled")):
        problems.append(f"{_key(at + ('grafana.ini', 'auth.anonymous', 'enabled'))}: anonymous access lets anyone "
                        f"who reaches Grafana see every tenant's dashboards (GPU usage, jobs, node names) without a "
                        f"login; remove it and give people accounts (or an OIDC login: grafana.ini auth.generic_oauth)")
    env = grafana.get("env") if isinstance(grafana.get("env"), dict) else {}
    if _on(env.get("GF_AUTH_ANONYMOUS_ENABLED")):
        problems.append(f"{_key(at + ('env', 'GF_AUTH_ANONYMOUS_ENABLED'))}: anonymous access lets anyone who "
                        f"reaches Grafana see every tenant's dashboards without a login; remove it")
    proxy = ini.get("auth.proxy") if isinstance(ini.get("auth.proxy"), dict) else {}
    if _on(proxy.get("enabled")) and not proxy.get("whitelist"):
        problems.append(f"{_key(at + ('grafana.ini', 'auth.proxy', 'whitelist'))}: an auth proxy without a whitelist "
                        f"trusts the user header from any client, so anyone who reaches Grafana logs in as anyone; "
                        f"list the proxy's addresses in whitelist")
    return problems


def checks(cfg: KubePrometheusStackRelease, at: tuple[str, ...]) -> list[str]:
    """No Grafana password in plain-text values, no login-free Grafana (:func:`grafana_auth_problems`); no Grafana
    sidecar reading tenant namespaces (:mod:`oke_rdma.addons._grafana_sidecars`); no Grafana plugin from a URL or
    unpinned, no metrics or alerts sent outside unless ``allowedRemoteUrls`` lists the place
    (:mod:`oke_rdma.addons._monitoring_paths`);
    ``retentionSizeGb`` fits the volume with 10 % left for the WAL."""
    problems = [f"{_key(p)}: a password in plain-text Helm values (readable in the stack config and the Helm "
                f"release); remove it and set the Grafana admin password as a Pulumi secret with pulumi config set "
                f"--path --secret '{_key(at + ('grafanaAdminPassword',))}' <password> (other Grafana credentials: "
                f"reference a Kubernetes Secret, e.g. grafana.envFromSecret)"
                for p in _password_paths(cfg.values.get("grafana"), at + ("values", "grafana"))]
    problems += grafana_auth_problems(cfg.values.get("grafana"), at + ("values", "grafana"))
    problems += plugin_problems(cfg.values.get("grafana"), at + ("values", "grafana"))
    problems += sidecar_reach_problems(cfg.values.get("grafana"), cfg.namespace, at + ("values", "grafana"))
    problems += egress_problems(cfg.values, cfg.allowed_remote_urls, at + ("values",))
    problems += grafana_egress_problems(cfg.values.get("grafana"), cfg.allowed_remote_urls, at)
    if cfg.retention_size_gb is not None and cfg.retention_size_gb > cfg.storage_gb * 0.9:
        problems.append(f"{_key(at + ('retentionSizeGb',))}: {cfg.retention_size_gb} GB does not fit in the "
                        f"{cfg.storage_gb} GB volume with 10% headroom for the WAL; lower it or raise storageGb")
    for component, why in MANAGED_CONTROL_PLANE.items():
        section = cfg.values.get(component)
        if isinstance(section, dict) and section.get("enabled") is True:
            problems.append(f"{_key(at + ('values', component, 'enabled'))}: {why}, so the scrape finds no target and "
                            f"its alerts fire forever; remove it (oke-rdma sets false)")
    return problems


def prepare(cfg: KubePrometheusStackRelease, namespace: pulumi.Output, name_prefix: str,
            opts: pulumi.ResourceOptions) -> list[pulumi.Resource]:
    """The Secret holding Grafana's admin password (a Pulumi secret end to end), when one is set."""
    if cfg.grafana_admin_password is None:
        return []
    return [k8s.core.v1.Secret(f"{name_prefix}-{GRAFANA_SECRET}", k8s.core.v1.SecretInitArgs(
        metadata=k8s.meta.v1.ObjectMetaArgs(name=GRAFANA_SECRET, namespace=namespace),
        type="Opaque",
        string_data=pulumi.Output.secret({"admin-user": "admin", "admin-password": cfg.grafana_admin_password})),
        opts)]


ADDON = AddOn(
    key="kubePrometheusStack",
    release_name="kube-prometheus-stack",
    chart="kube-prometheus-stack",
    repository="https://prometheus-community.github.io/helm-charts",
    config=KubePrometheusStackRelease,
    pod_security=PRIVILEGED,
    values=values,
    crds=("monitoring.coreos.com",),
    value_shapes=(
        (("prometheus",), "map"), (("prometheus", "prometheusSpec"), "map"),
        (("prometheus", "prometheusSpec", "storageSpec"), "map"), (("grafana",), "map"), (("grafana", "admin"), "map"),
        (("grafana", "sidecar"), "map"), (("grafana", "sidecar", "dashboards"), "map"),
        (("kube-state-metrics",), "map"), (("crds",), "map"), (("crds", "upgradeJob"), "map"), (("kube-state-metrics", "metricLabelsAllowlist"), "list"),
        *(shape for component in MANAGED_CONTROL_PLANE
          for shape in (((component,), "map"), ((component, "enabled"), "bool"))),
    ),
    checks=checks,
    prepare=prepare,
    source="kube-prometheus-stack chart 88.5.3 README/UPGRADE.md/values.yaml (prometheus-community/helm-charts), checked "
           "2026-12-01",
)
