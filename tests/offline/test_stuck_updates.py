"""Updates the providers plan in place that never land or fail on apply: an operator-owned StatefulSet's storage
(the claims keep their size) warns naming the manual resize; an OIDC change OCI refuses without a CA certificate,
and a Grafana StatefulSet's size, are refused; the change-cost reference says so."""

from __future__ import annotations

import pytest

from offline import changecost
from offline.replacement import Planner
from offline.stuck_updates import CLUSTER, HELM_RELEASE, MANUAL, REFUSE, STUCK_UPDATES, stuck
from tests.inprocess import preview
from tests.offline.test_cli import stack_file

KPS = "kube-prometheus-stack"
PROM = "values.prometheus.prometheusSpec.storageSpec.volumeClaimTemplate.spec.resources.requests.storage"
ALERT = "values.alertmanager.alertmanagerSpec.storage.volumeClaimTemplate.spec.resources.requests.storage"
OIDC = "options.openIdConnectTokenAuthenticationConfig"


def _release(chart: str = KPS, **values) -> dict:
    return {"chart": chart, "name": chart, "values": values}


def _prom(size: str) -> dict:
    return {"prometheusSpec": {"storageSpec": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {
        "storage": size}}}}}}}


def _alert(size: str) -> dict:
    return {"alertmanagerSpec": {"storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {
        "storage": size}}}}}}}


def _oidc(issuer: str, ca=None, enabled=True) -> dict:
    config = {"isOpenIdConnectAuthEnabled": enabled, "issuerUrl": issuer, "clientId": "c"}
    if ca:
        config["caCertificate"] = ca
    return {"options": {"openIdConnectTokenAuthenticationConfig": config}}


@pytest.mark.parametrize("old,new,path", [
    (_release(prometheus=_prom("100Gi")), _release(prometheus=_prom("200Gi")), PROM),
    (_release(prometheus=_prom("100Gi")), _release(prometheus=_prom("0.2Ti")), PROM),
    (_release(alertmanager=_alert("10Gi")), _release(alertmanager=_alert("20Gi")), ALERT),
])
def test_a_grown_operator_owned_claim_template_needs_the_manual_resize(old, new, path):
    """Prometheus and Alertmanager claims come from the operator's StatefulSet template: a raised size is applied
    but never reaches the claims; the warning names the patch of each claim before pulumi up."""
    [(kind, hit, text)] = stuck(HELM_RELEASE, old, new, (path,))
    assert (kind, hit) == (MANUAL, path)
    assert "kubectl patch pvc" in text and "then pulumi up" in text and "allowVolumeExpansion" in text
    assert "checked 2026-12-02" in text


@pytest.mark.parametrize("old,new,changed", [
    (_release(prometheus=_prom("200Gi")), _release(prometheus=_prom("100Gi")), (PROM,)),  # lowered: NO_DECREASE's
    (_release(prometheus=_prom("100Gi")), _release(prometheus=_prom("100Gi")), ()),
    (_release("other", prometheus=_prom("100Gi")), _release("other", prometheus=_prom("200Gi")), (PROM,)),
    (_release(prometheus=_prom("100Gi")), _release(prometheus=_prom("[unknown]")), (PROM,)),
])
def test_an_unchanged_lowered_unseen_or_foreign_storage_is_no_stuck_update(old, new, changed):
    assert stuck(HELM_RELEASE, old, new, changed) == []


@pytest.mark.parametrize("old,new,refused", [
    (_oidc("https://a.example.com"), _oidc("https://b.example.com"), True),
    (_oidc("https://a.example.com"), _oidc("https://b.example.com", ca="LS0tLS1CRUdJTg=="), False),
    (_oidc("https://a.example.com", enabled=False), _oidc("https://b.example.com"), False),  # first enabled
])
def test_an_oidc_change_without_a_ca_certificate_is_refused(old, new, refused):
    """OCI refuses a change of a cluster's OIDC configuration without caCertificate; with one it passes, and a first
    enabling is not the reported case."""
    hits = stuck(CLUSTER, old, new, (f"{OIDC}.issuerUrl",))
    assert bool(hits) is refused
    if refused:
        [(kind, path, text)] = hits
        assert kind == REFUSE and path == f"{OIDC}.issuerUrl"
        assert "cluster.oidc.caCertificate" in text and "terraform-provider-oci#2231" in text


def test_a_grafana_statefulset_size_is_refused_and_a_deployment_claim_is_not():
    """persistence.type statefulset renders the size into volumeClaimTemplates (the Helm upgrade fails); the chart's
    default PVC is patched by Helm and grows."""
    path = "values.grafana.persistence.size"
    sts = [_release(grafana={"persistence": {"type": "statefulset", "size": s}}) for s in ("10Gi", "20Gi")]
    pvc = [_release(grafana={"persistence": {"type": "pvc", "size": s}}) for s in ("10Gi", "20Gi")]
    [(kind, _, text)] = stuck(HELM_RELEASE, *sts, (path,))
    assert kind == REFUSE and "--cascade=orphan" in text
    assert stuck(HELM_RELEASE, *pvc, (path,)) == []


def test_every_row_is_sourced_and_names_a_manual_step():
    """The class: each row has an outcome, a dated source and a step; both outcomes have members, OCI and
    Kubernetes both."""
    assert {r.outcome for r in STUCK_UPDATES} == {REFUSE, MANUAL}
    assert {r.type for r in STUCK_UPDATES} >= {CLUSTER, HELM_RELEASE}
    for row in STUCK_UPDATES:
        assert row.step and row.what and "checked 20" in row.source, row.paths


def test_the_planner_turns_a_row_into_a_refusal_or_a_manual_warning_on_updates_only():
    urn = "urn:pulumi:dev::oke-rdma::kubernetes:helm.sh/v3:Release::kps"
    old = {"resources": [{"urn": urn, "type": HELM_RELEASE, "name": "kps",
                          "inputs": _release(prometheus=_prom("100Gi"))}]}
    change = Planner(old).decide(urn, HELM_RELEASE, True, _release(prometheus=_prom("200Gi")),
                                 property_dependencies={}, provider=None)
    assert change.op == "update" and not change.refused
    [line] = change.manual
    assert line.startswith(PROM + ": the Prometheus operator")
    created = Planner({"resources": []}).decide(urn, HELM_RELEASE, True, _release(prometheus=_prom("200Gi")),
                                                property_dependencies={}, provider=None)
    assert created.op == "create" and not created.manual


def test_the_change_cost_names_the_manual_step():
    """A stored change with a manual path is summarised as kind manual, naming the step; entries of the older shape
    (five fields) still read."""
    detail = [["update", HELM_RELEASE, "kps", [], False, [PROM]]]
    found = changecost.summarize(detail)
    assert found["kind"] == "manual" and "kubectl patch pvc" in found["summary"]
    assert changecost.summarize([["update", HELM_RELEASE, "kps", [], False]])["kind"] == "in place"
    stored = changecost.load()["entries"]
    assert stored["platform.kubePrometheusStack.storageGb"]["kind"] == "manual"
    assert stored["cluster.oidc.issuerUrl"]["kind"] == "refused"


def test_raising_prometheus_storage_against_the_previous_plan_warns_and_an_oidc_change_is_refused(
        tmp_path, dev_plan_file):
    """Through the preview: the dev stack with storageGb 100 -> 200 exits 0 with the manual step; a new issuer
    without caCertificate exits 4 naming cluster.oidc.caCertificate."""
    plan = dev_plan_file[0]

    def grow(config):
        config["oke-rdma:platform"].setdefault("kubePrometheusStack", {}).update(storageGb=200, retentionSizeGb=160)

    def issuer(config):
        config["oke-rdma:cluster"]["oidc"]["issuerUrl"] = "https://idp2.example.com/realms/gpu"
    path = stack_file(tmp_path, grow).rename(tmp_path / "Pulumi.dev.yaml")
    out = preview("--config-file", str(path), "--previous", str(plan))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr
    assert "Updates that need a manual step:" in out.stdout and "kubectl patch pvc" in out.stdout
    path = stack_file(tmp_path, issuer).rename(tmp_path / "Pulumi.dev.yaml")
    out = preview("--config-file", str(path), "--previous", str(plan))
    assert out.returncode == 4, out.stdout[-3000:] + out.stderr
    assert "cluster.oidc.caCertificate" in out.stdout + out.stderr


CLASS = "values.prometheus.prometheusSpec.storageSpec.volumeClaimTemplate.spec.storageClassName"


def _prom_class(name: str) -> dict:
    return {"prometheusSpec": {"storageSpec": {"volumeClaimTemplate": {"spec": {"storageClassName": name}}}}}


def test_a_new_storage_class_for_an_operator_owned_claim_needs_the_old_claims_deleted():
    """Moving Prometheus from oci-bv to the stack's paravirtualized class is applied in place, but the StatefulSet's
    existing claims keep their immutable class: a manual warning naming the claims to delete. The same class, or
    another chart, is no stuck update."""
    old, new = _release(prometheus=_prom_class("oci-bv")), _release(prometheus=_prom_class("oke-rdma-bv"))
    [(kind, hit, text)] = stuck(HELM_RELEASE, old, new, (CLASS,))
    assert kind == MANUAL and hit == CLASS
    assert "storageClassName cannot change" in text and "delete pvc -l app.kubernetes.io/name=prometheus" in text
    assert stuck(HELM_RELEASE, old, old, ()) == []
    assert stuck(HELM_RELEASE, _release("other", prometheus=_prom_class("a")),
                 _release("other", prometheus=_prom_class("b")), (CLASS,)) == []
