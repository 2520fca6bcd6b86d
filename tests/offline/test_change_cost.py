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


def test_the_stored_changes_name_only_resources_the_program_still_declares(plans):
    """A stored result that names a resource the dev stack no longer has (a rule since removed) is stale even when
    its case is not: every resource a stored change updates, replaces or deletes is in the current steady plan."""
    _, base = plans
    names = {r["name"] for r in base["dev"]["resources"]}
    entries = changecost.load()["entries"]
    stale = sorted({n for e in entries.values() if e.get("base") == "dev" for op, _t, n, *_ in e.get("changes", [])
                    if op != "create" and n not in names})
    assert not stale, f"run python -m offline.changecost --write --refresh (make docs): {stale[:5]}"


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


def test_a_refused_replacement_reads_as_what_it_replaces_then_why_it_is_refused():
    """A replacement pulumi up stops on (a unique name kept, a protected resource) still says what it replaces and
    loses, then why it is refused; resources refused for the same reason are named together; an update refused in
    place stays a refusal of that path."""
    subnet = _c("replace", "oci:Core/subnet:Subnet", "cp", replace_because=("prohibitPublicIpOnVnic",),
                refused=("dnsLabel: 'cp' is kept in the same vcnId: ...",))
    cluster = _c("replace", "oci:ContainerEngine/cluster:Cluster", "oke")
    pools = [_c("replace", "oci:ContainerEngine/nodePool:NodePool", f"p{i}") for i in range(2)]
    found = changecost.outcome([subnet, cluster, *pools])
    assert found["kind"] == "refused"
    assert found["summary"].startswith("replaces the cluster, 2 node pools and 1 subnet; loses "), found["summary"]
    assert "refused: cp: the replacement keeps its dnsLabel, which OCI requires unique in its VCN" in found["summary"]
    policies = [_c("replace", "oci:Identity/policy:Policy", n, refused=("name: kept",)) for n in ("a", "b")]
    both = changecost.outcome(policies)["summary"]
    assert "refused: a, b: the replacement keeps its name, which OCI requires unique in the tenancy" in both
    fs = _c("replace", "oci:FileStorage/fileSystem:FileSystem", "fss", protect=True)
    assert changecost.outcome([fs])["summary"].startswith("replaces the FSS file system; loses ")
    assert "refused: fss is protected" in changecost.outcome([fs])["summary"]
    pv = _c("update", "kubernetes:core/v1:PersistentVolume", "pv", refused=("spec.nodeAffinity: immutable",))
    assert changecost.outcome([pv])["summary"] == ("refused: pv: spec.nodeAffinity (the API server refuses to change "
                                                   "it in place)")


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
