"""The change-cost reference is derived by the preview's own replacement model and kept fresh: every config key has a
result for the current stack and case, a sample of cases previewed again gives the stored result, and the outcome
of a plan is sorted into none / in place / replaces (naming what is lost) / refused."""

from __future__ import annotations

import pytest

from offline import changecost
from offline.replacement import Change

#: Cases previewed again on every run: an everyday in-place change, a structural one and one that replaces.
SAMPLE = ("nodePools.<pool>.size", "a new tenant", "cluster.kmsKeyId")


def test_every_reference_key_and_structural_change_has_a_current_result():
    entries = changecost.load()["entries"]
    missing = [c.id for c in changecost.cases() if c.id not in entries]
    stale = [c.id for c in changecost.cases() if c.id in entries and entries[c.id]["digest"] != c.digest()]
    assert not missing and not stale, (f"run python -m offline.changecost --write (make docs): missing {missing[:5]}"
                                       f", stale {stale[:5]}")


@pytest.fixture(scope="module")
def plans():
    run = changecost.runner()
    return run, {"dev": changecost.baseline("dev", run)}


@pytest.mark.parametrize("ident", SAMPLE)
def test_a_sample_previewed_again_gives_the_stored_result(plans, ident):
    run, base = plans
    case = next(c for c in changecost.cases() if c.id == ident)
    fresh = changecost.evaluate(case, base, run)
    stored = changecost.load()["entries"][ident]
    assert (fresh["kind"], fresh["summary"], fresh["value"]) == (stored["kind"], stored["summary"], stored["value"])


def _c(op, typ="kubernetes:core/v1:ConfigMap", name="x", **kw):
    return Change(f"urn:pulumi:dev::oke-rdma::{typ}::{name}", typ, name, op, **kw)


def test_outcomes_are_sorted_by_what_pulumi_up_would_do():
    assert changecost.outcome([_c("same")])["kind"] == "none"
    assert changecost.outcome([_c("update"), _c("create", name="y")])["summary"] == "in place (1 created, 1 updated)"
    cluster = _c("replace", "oci:ContainerEngine/cluster:Cluster", "oke", replace_because=("kmsKeyId",))
    pools = [_c("replace", "oci:ContainerEngine/nodePool:NodePool", f"p{i}") for i in range(2)]
    ns = _c("replace", "kubernetes:core/v1:Namespace", "ns")
    found = changecost.outcome([cluster, *pools, ns])
    assert found["kind"] == "replaces"
    assert found["summary"].startswith("replaces the cluster, 2 node pools and 1 namespace; loses ")
    assert "etcd" not in found["summary"]  # the short reason, not the whole text
    refused = changecost.outcome([_c("update", refused=("spec.x: immutable",))])
    assert refused["kind"] == "refused" and "x: spec.x" in refused["summary"]
    deleted = changecost.outcome([_c("delete", "oci:FileStorage/fileSystem:FileSystem", "fs")])
    assert deleted["kind"] == "replaces" and deleted["summary"].startswith("deletes the FSS file system")


def test_a_job_that_runs_again_is_no_loss():
    """A one-off Job replaced (a new image or script) runs again: the change stays in place, and says so."""
    found = changecost.outcome([_c("replace", "kubernetes:batch/v1:Job", "gate"), _c("update")])
    assert found["kind"] == "in place"
    assert found["summary"] == "in place (1 updated); re-creates 1 Kubernetes object (1 Job) (nothing is lost)"


def test_the_summary_is_rendered_again_from_the_stored_details():
    found = changecost.outcome([_c("update"), _c("delete", "kubernetes:core/v1:Namespace", "ns")])
    assert changecost.summarize(found["changes"]) == {"kind": found["kind"], "summary": found["summary"]}


def test_a_case_the_model_refuses_for_every_candidate_is_recorded_as_not_derived():
    case = changecost.Case("oci:region", "dev", ["nowhere-1"], lambda doc: None)
    result = changecost.evaluate(case, {"dev": {}}, lambda *a, **k: pytest.fail("never previewed"))
    assert result["kind"] == "invalid" and "oci:region" in result["summary"]


def test_a_kubernetes_version_case_is_an_upgrade_by_one_minor_never_a_downgrade():
    """The version keys are previewed at the newest patch of the next minor OKE offers (the pool's from the
    cluster's version it follows), and listed as an upgrade, not as an everyday change."""
    from offline.changecost import CATEGORIES, UPGRADE, cases, upgrade_one_minor
    from oke_rdma.facts.kubernetes import parse_version

    assert upgrade_one_minor("v1.35.2") == ["v1.36.1"]
    assert upgrade_one_minor("v1.36.1") == [] and upgrade_one_minor(None) == []
    by_id = {c.id: c for c in cases()}
    for key in ("cluster.kubernetesVersion", "nodePools.<pool>.kubernetesVersion"):
        (value,) = by_id[key].value
        assert parse_version(value)[:2] == (1, 36)
        assert CATEGORIES[key] == UPGRADE


def test_creation_time_keys_are_not_listed_as_everyday_changes():
    """kmsKeyId, cniType and a public API endpoint are creation-time choices in the day-two table."""
    from oke_rdma.docs import _day_two_table

    table = _day_two_table()
    for key in ("cluster.kmsKeyId", "cluster.cniType", "network.apiEndpoint.public"):
        (row,) = [line for line in table.splitlines() if f"| `{key}` |" in line]
        assert row.startswith("| a creation-time choice |"), row
    (row,) = [line for line in table.splitlines() if "| `cluster.kubernetesVersion` |" in line]
    assert row.startswith("| an upgrade (one minor) |") and "v1.34" not in row
