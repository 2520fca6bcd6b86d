"""Update paths that the engine plans as a clean in-place update but that never land, or fail on ``pulumi up``.

The replacement model (:mod:`offline.immutable`) knows what the providers replace and what the API servers refuse.
This table holds the rest of the class: changes every provider accepts as an update, where the system behind them
either refuses the update at apply time (an OCI API validation the provider does not model) or accepts it and
never converges (an operator that copies the value into an object whose field cannot change after creation, so the
old value stays in force). Each row names the resource type, the input paths, when it applies, what happens, the
manual step that makes the change land, and its source with the date it was read.

* ``refuse``: ``pulumi up`` fails on the update: the offline preview refuses it (exit 4), like an API-immutable field.
* ``manual``: the update is applied but does not converge: the preview warns (exit 0) naming the manual step, and
  the change-cost reference (:mod:`offline.changecost`) says "then a manual step".

Read by :meth:`offline.replacement.Planner.decide` for every update (never for a creation or replacement).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from offline.immutable import _get, _quantity

REFUSE, MANUAL = "refuse", "manual"
HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
CLUSTER = "oci:ContainerEngine/cluster:Cluster"

_OIDC = "options.openIdConnectTokenAuthenticationConfig"
_PROM_OPERATOR = ("prometheus-operator Documentation/platform/storage.md 'Resizing volumes' (the operator recreates "
                  "the StatefulSet and the claims are not expanded; Kubernetes cannot change a StatefulSet's "
                  "volumeClaimTemplates: kubernetes/enhancements#661); prometheus-operator#2357 (open); "
                  "zacheryph/k8s-gitops#3409 (a raised size left the claim at its old size, Prometheus filled it); "
                  "OKE docs 'Provisioning PVCs on the Block Volume Service' (oci-bv: CSI block volumes grow online "
                  "when the class allows volume expansion); checked 2026-12-02")


@dataclass(frozen=True)
class StuckUpdate:
    """One update path that does not land.

    :param type: the resource type (``oci:ContainerEngine/cluster:Cluster``).
    :param paths: input paths (dotted, as the plan shows them) whose change hits it.
    :param outcome: :data:`REFUSE` (``pulumi up`` fails) or :data:`MANUAL` (applied, never converges).
    :param what: what happens, one clause.
    :param step: the manual step that makes the change land, imperative.
    :param source: where that is stated, and when it was checked.
    :param chart: for a Helm release, the chart it applies to (``inputs.chart``).
    :param when: ``(old inputs, new inputs) -> bool``: a further condition (None: any change of ``paths``).
    """

    type: str
    paths: tuple[str, ...]
    outcome: str
    what: str
    step: str
    source: str
    chart: Optional[str] = None
    when: Optional[Callable[[dict[str, Any], dict[str, Any]], bool]] = None

    def __post_init__(self) -> None:
        if self.outcome not in (REFUSE, MANUAL):
            raise ValueError(f"{self.paths}: outcome {self.outcome!r} is not {REFUSE!r} or {MANUAL!r}")
        if "checked 20" not in self.source:
            raise ValueError(f"{self.paths}: a row names its source and the date it was checked")


def _grows(path: str) -> Callable[[dict[str, Any], dict[str, Any]], bool]:
    def when(old: dict[str, Any], new: dict[str, Any]) -> bool:
        before, after = _quantity(_get(old, path)), _quantity(_get(new, path))
        return before is not None and after is not None and after > before
    return when


def _oidc_without_ca(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """OIDC was on before and stays configured, and the new configuration carries no CA certificate."""
    return (_get(old, f"{_OIDC}.isOpenIdConnectAuthEnabled") is True
            and _get(new, f"{_OIDC}.isOpenIdConnectAuthEnabled") is True
            and not _get(new, f"{_OIDC}.caCertificate"))


def _grafana_statefulset(old: dict[str, Any], new: dict[str, Any]) -> bool:
    return (_get(old, "values.grafana.persistence.type") == "statefulset"
            and _get(new, "values.grafana.persistence.type") == "statefulset")


def _operator_storage(kind: str, spec: str, label: str) -> StuckUpdate:
    path = f"values.{spec}.volumeClaimTemplate.spec.resources.requests.storage"
    return StuckUpdate(
        HELM_RELEASE, (path,), MANUAL,
        f"the Prometheus operator copies the {kind} storage request into its StatefulSet's volumeClaimTemplates, "
        f"which cannot change after creation: it recreates the StatefulSet and the existing claims keep their old "
        f"size (a raised retention then fills the volume and {kind} crash-loops)",
        f"grow the claims first: for each claim of kubectl -n NAMESPACE get pvc -l app.kubernetes.io/name={label}, "
        f"kubectl patch pvc CLAIM -p '{{\"spec\":{{\"resources\":{{\"requests\":{{\"storage\":\"NEW_SIZE\"}}}}}}}}' "
        f"(its StorageClass must allow volume expansion, as oke-rdma-bv does: kubectl get storageclass CLASS -o "
        f"jsonpath='{{.allowVolumeExpansion}}'), wait until its status.capacity shows the new size, then pulumi up",
        _PROM_OPERATOR, chart="kube-prometheus-stack", when=_grows(path))


def _operator_class(kind: str, spec: str, label: str) -> StuckUpdate:
    path = f"values.{spec}.volumeClaimTemplate.spec.storageClassName"
    return StuckUpdate(
        HELM_RELEASE, (path,), MANUAL,
        f"the Prometheus operator recreates the {kind} StatefulSet with the new class, but its pods keep the claims "
        f"of the same names, whose storageClassName cannot change: they stay on the old class (a claim of OKE's "
        f"iSCSI oci-bv still never attaches to a node with in-transit encryption)",
        f"after pulumi up, delete the old claims so the StatefulSet creates them in the new class (their data is "
        f"lost: copy it first if the volume ever attached): kubectl -n NAMESPACE delete pvc -l "
        f"app.kubernetes.io/name={label}, then kubectl -n NAMESPACE delete pod -l app.kubernetes.io/name={label}",
        f"{_PROM_OPERATOR.rsplit('; checked', 1)[0]}; Kubernetes ValidatePersistentVolumeClaimUpdate "
        f"(spec.storageClassName is immutable once set); checked 2026-12-02",
        chart="kube-prometheus-stack")


#: The update paths that never land or fail, per resource type (see the module docstring).
STUCK_UPDATES: tuple[StuckUpdate, ...] = (
    _operator_storage("Prometheus", "prometheus.prometheusSpec.storageSpec", "prometheus"),
    _operator_storage("Alertmanager", "alertmanager.alertmanagerSpec.storage", "alertmanager"),
    _operator_storage("ThanosRuler", "thanosRuler.thanosRulerSpec.storage", "thanos-ruler"),
    _operator_class("Prometheus", "prometheus.prometheusSpec.storageSpec", "prometheus"),
    _operator_class("Alertmanager", "alertmanager.alertmanagerSpec.storage", "alertmanager"),
    StuckUpdate(
        HELM_RELEASE, ("values.grafana.persistence.size",), REFUSE,
        "with persistence.type statefulset the grafana chart renders the size into a StatefulSet's "
        "volumeClaimTemplates, and the API server refuses the Helm upgrade ('updates to statefulset spec for fields "
        "other than ... are forbidden')",
        "keep the size; to grow it, patch the claim (kubectl -n NAMESPACE patch pvc CLAIM), delete the "
        "StatefulSet with kubectl delete statefulset NAME --cascade=orphan, then pulumi up with the new size",
        "grafana/helm-charts charts/grafana templates/statefulset.yaml (persistence.type: statefulset renders "
        "volumeClaimTemplates); Kubernetes ValidateStatefulSetUpdate (only replicas, template, updateStrategy, "
        "persistentVolumeClaimRetentionPolicy, minReadySeconds and ordinals may change); checked 2026-12-02",
        chart="kube-prometheus-stack", when=_grafana_statefulset),
    StuckUpdate(
        CLUSTER, tuple(f"{_OIDC}.{k}" for k in ("issuerUrl", "clientId", "usernameClaim", "usernamePrefix",
                                                "groupsClaim", "groupsPrefix", "requiredClaims", "signingAlgorithms")),
        REFUSE,
        "OCI refuses an update of a cluster's OIDC authentication without a CA certificate ('Invalid "
        "OidcAuthnConfig.CaCertificate'), although the provider plans it as an in-place update",
        "set cluster.oidc.caCertificate (the base64 PEM of the CA that signs the issuer's TLS certificate) in the "
        "same change, or make the change in the OCI Console",
        "oracle/terraform-provider-oci#2231 (open, 2024-10-24: changing issuer and client ID of an enhanced cluster "
        "fails with 'Invalid OidcAuthnConfig.CaCertificate'); checked 2026-12-02",
        when=_oidc_without_ca),
)


def _touches(changed: str, path: str) -> bool:
    """``changed`` is ``path``, inside it, or an object that contains it (the rows' paths hold no list index)."""
    return changed == path or changed.startswith(path + ".") or path.startswith(changed + ".")


def stuck(typ: str, old_inputs: dict[str, Any], new_inputs: dict[str, Any],
          changed: tuple[str, ...]) -> list[tuple[str, str, str]]:
    """``(outcome, path, text)`` for each row of :data:`STUCK_UPDATES` an update of a ``typ`` resource hits: one of
    its paths is among (or inside) ``changed`` and its condition holds. ``text`` says what happens and the manual
    step, and cites the source."""
    out = []
    for row in STUCK_UPDATES:
        if row.type != typ or (row.chart is not None and new_inputs.get("chart") != row.chart):
            continue
        hit = [p for p in row.paths if any(_touches(c, p) for c in changed)]
        if not hit or (row.when is not None and not row.when(old_inputs, new_inputs)):
            continue
        out.append((row.outcome, hit[0], f"{row.what}; {row.step} [{row.source}]"))
    return out


def manual_block(changes: Optional[list]) -> list[str]:
    """The preview's warnings for updates that need a manual step to land (``Change.manual``), one per change."""
    lines = [f"warning: {c.type} {c.name}: {text}; pulumi up applies it, but it does not land without that step"
             for c in changes or [] for text in getattr(c, "manual", ())]
    return ["", "Updates that need a manual step:"] + lines if lines else []
