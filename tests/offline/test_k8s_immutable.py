"""Kubernetes changes the API server refuses in place are refused by the preview (or are replacements when the
program declares them in replaceOnChanges): the fields the API reference describes as immutable, the transition
rules of the pinned Kueue CRDs in every served version, and a ConfigMap or Secret once marked immutable."""

import json

import pytest

from offline import k8sschema
from offline.replacement import compare


def test_the_documented_immutable_fields_are_derived_from_the_installed_kubernetes_client():
    assert json.loads(k8sschema.DATA.read_text()) == json.loads(json.dumps(k8sschema.generate()))


def test_fields_documented_as_mutable_now_or_under_a_pod_template_are_not_listed():
    types = json.loads(k8sschema.DATA.read_text())["types"]
    assert "spec.podInfoOnMount" not in types["kubernetes:storage.k8s.io/v1:CSIDriver"]  # "now is mutable"
    assert "kubernetes:apps/v1:Deployment" not in types  # its pod template's resourceClaims may change


def _plan(typ, old, new, roc=()):
    urn = "urn:pulumi:dev::oke-rdma::t::o"
    meta = {"metadata": {"name": "o"}}
    [change] = compare({"resources": [{"urn": urn, "type": typ, "name": "o", "inputs": meta | old}]},
                       {"resources": [{"urn": urn, "type": typ, "name": "o", "inputs": meta | new,
                                       "replaceOnChanges": list(roc)}]})
    return change


REFUSED = [
    ("kubernetes:storage.k8s.io/v1:CSIDriver", {"spec": {"attachRequired": True}}, {"spec": {"attachRequired": False}},
     "spec.attachRequired"),
    ("kubernetes:storage.k8s.io/v1:CSIDriver", {"spec": {"volumeLifecycleModes": ["Persistent"]}},
     {"spec": {"volumeLifecycleModes": ["Persistent", "Ephemeral"]}}, "spec.volumeLifecycleModes"),
    ("kubernetes:batch/v1:Job", {"spec": {"backoffLimitPerIndex": 1}}, {"spec": {"backoffLimitPerIndex": 2}},
     "spec.backoffLimitPerIndex"),
    ("kubernetes:networking.k8s.io/v1:IngressClass", {"spec": {"controller": "a.io/x"}},
     {"spec": {"controller": "b.io/x"}}, "spec.controller"),
    ("kubernetes:node.k8s.io/v1:RuntimeClass", {"handler": "runc"}, {"handler": "kata"}, "handler"),
    ("kubernetes:core/v1:ConfigMap", {"immutable": True}, {"immutable": False}, "immutable"),
    ("kubernetes:core/v1:Secret", {"immutable": True}, {}, "immutable"),
    ("kubernetes:kueue.x-k8s.io/v1beta2:AdmissionCheck", {"spec": {"controllerName": "a"}},
     {"spec": {"controllerName": "b"}}, "spec.controllerName"),
    ("kubernetes:kueue.x-k8s.io/v1beta1:Topology", {"spec": {"levels": [{"nodeLabel": "a"}]}},
     {"spec": {"levels": [{"nodeLabel": "b"}]}}, "spec.levels[0].nodeLabel"),
    ("kubernetes:kueue.x-k8s.io/v1beta1:LocalQueue", {"spec": {"clusterQueue": "a"}},
     {"spec": {"clusterQueue": "b"}}, "spec.clusterQueue"),
]
UPDATES = [
    ("kubernetes:storage.k8s.io/v1:CSIDriver", {"spec": {"podInfoOnMount": False}}, {"spec": {"podInfoOnMount": True}}),
    ("kubernetes:core/v1:ConfigMap", {"immutable": False}, {"immutable": True}),
    ("kubernetes:core/v1:ConfigMap", {}, {"immutable": True}),
    ("kubernetes:batch/v1:Job", {"spec": {"ttlSecondsAfterFinished": 60}}, {"spec": {"ttlSecondsAfterFinished": 600}}),
    ("kubernetes:storage.k8s.io/v1:StorageClass", {"allowVolumeExpansion": False}, {"allowVolumeExpansion": True}),
]


@pytest.mark.parametrize("typ, old, new, path", REFUSED)
def test_a_change_the_api_server_refuses_in_place_is_refused_with_its_source(typ, old, new, path):
    change = _plan(typ, old, new)
    assert change.op == "update" and change.refused and change.refused[0].startswith(f"{path}: ")
    assert "(" in change.refused[0]  # the reason cites where the rule comes from


@pytest.mark.parametrize("typ, old, new, path", REFUSED)
def test_the_same_change_declared_in_replace_on_changes_is_a_replacement(typ, old, new, path):
    change = _plan(typ, old, new, roc=[path.split("[")[0]])
    assert change.op == "replace" and not change.refused


@pytest.mark.parametrize("typ, old, new", UPDATES)
def test_a_change_the_api_server_accepts_stays_a_clean_update(typ, old, new):
    change = _plan(typ, old, new)
    assert change.op == "update" and not change.refused


@pytest.mark.parametrize("path", ["spec.completionMode", "spec.podFailurePolicy", "spec.successPolicy"])
def test_a_jobs_fields_validation_keeps_immutable_are_refused(path):
    key = path.split(".")[1]
    change = _plan("kubernetes:batch/v1:Job", {"spec": {key: "a"}}, {"spec": {key: "b"}})
    assert change.refused and change.refused[0].startswith(f"{path}: ") and "ValidateJobSpecUpdate" in change.refused[0]


def test_a_cron_jobs_job_template_is_a_template_and_changes_in_place():
    change = _plan("kubernetes:batch/v1:CronJob", {"spec": {"jobTemplate": {"spec": {"backoffLimitPerIndex": 1}}}},
                   {"spec": {"jobTemplate": {"spec": {"backoffLimitPerIndex": 2}}}})
    assert change.op == "update" and not change.refused
