"""The Object Storage weights bucket (``storage.objectStorage``) and the tenants' grants to it, run through the whole
program under the offline mocks (preview=False: every apply runs), on the prod stack and dev variants."""

from __future__ import annotations

import json

import pytest

from offline.engine import run_program
from offline.preview import read_stack_file
from oke_rdma.outputs import check_outputs, unwrap
from policies.security import public_endpoints
from tests.stackcfg import ROOT, dev_raw_config, of_type

BUCKET = "oci:ObjectStorage/bucket:Bucket"
POLICY = "oci:Identity/policy:Policy"
DATA = "ocid1.compartment.oc1..aaaaaaaa2q7w9e4r6t8y1u3i5o7p9a2s4d6f8g1h3j5k7l9z2x4cdata"
DEV_COMPARTMENT = "ocid1.compartment.oc1..aaaaaaaa4m5xq2nq7d3jb6rkf2lq3v5wz7y6c4h2p8t1s9e0u3i5o7a2dfev"
KEY = "ocid1.key.oc1.sa-saopaulo-1.bbpr4kqzaafaq.abzxiljr5k7m9o2q4s6u8w1y3a5c7e9g2i4k6m8o1q3s5u7w9objkey"


def _run(raw: dict[str, str], **kw):
    return run_program(raw, [], "test", **kw)


def _prod():
    raw, secrets = read_stack_file(ROOT / "Pulumi.prod.yaml")
    return run_program(raw, secrets, "prod")


def _dev(object_storage: dict, weights: dict | None = None, tenant: str = "research", **more):
    """The dev stack with ``object_storage`` (a created bucket unless it names ``bucket``: dev brings one)."""
    tenants = {tenant: {"weights": weights}} if weights else {}
    return dev_raw_config(storage={"objectStorage": {"bucket": None, **object_storage}}, tenants=tenants, **more)


def _statements(run) -> list[str]:
    texts: list[str] = []
    for policy in of_type(run.resources, POLICY):
        texts += [unwrap(s)[0] for s in policy.inputs["statements"]]
    return texts


def _weights_statements(run, bucket: str) -> list[str]:
    return [s for s in _statements(run) if f"target.bucket.name = '{bucket}'" in s]


@pytest.fixture(scope="module")
def prod():
    return _prod()


def test_prod_creates_a_private_versioned_protected_bucket(prod):
    """The created bucket is private, versioned, Standard tier without auto-tiering, encrypted with the configured
    key, protected, and waits for the policy letting Object Storage use that key."""
    [bucket] = of_type(prod.resources, BUCKET)
    inputs = bucket.inputs
    assert inputs["name"] == "okerdma-prod-weights"
    assert inputs["accessType"] == "NoPublicAccess" and inputs["versioning"] == "Enabled"
    assert inputs["storageTier"] == "Standard" and inputs["autoTiering"] == "Disabled"
    assert inputs["kmsKeyId"].endswith("objkey") and inputs["objectEventsEnabled"] is False
    assert inputs["namespace"] and inputs["compartmentId"].endswith("prod")
    assert bucket.protect is True
    [kms] = [p for p in of_type(prod.resources, POLICY) if p.inputs["name"] == "okerdma-prod-objectstorage-kms"]
    assert kms.urn in bucket.dependencies
    assert [unwrap(s)[0] for s in kms.inputs["statements"]] == [
        f"Allow service objectstorage-us-chicago-1 to use keys in compartment id {inputs['compartmentId']} "
        f"where target.key.id = '{inputs['kmsKeyId']}'"]
    assert ("info", "bucket okerdma-prod-weights is protected: pulumi destroy stops at it (and keeps its objects) "
            "until storage.objectStorage.protect is false and pulumi up has run") in prod.diagnostics


def test_prod_grants_are_pinned_to_service_account_namespace_cluster_and_bucket(prod):
    """Each weights statement names the tenant's namespace, its declared ServiceAccount, this cluster and the bucket;
    readWrite adds only OBJECT_CREATE and OBJECT_OVERWRITE under the tenant's checkpoint prefix; nothing manages
    buckets or deletes objects."""
    [cluster] = of_type(prod.resources, "oci:ContainerEngine/cluster:Cluster")
    cluster_id = prod.ids[cluster.urn]
    comp = "ocid1.compartment.oc1..aaaaaaaa7p2k4m6n8q1r3t5v7x9z2b4d6f8h1j3l5n7p9r2t4v6x8prod"

    def pin(ns: str, sa: str) -> str:
        return (f"where all {{request.principal.type = 'workload', request.principal.namespace = '{ns}', "
                f"request.principal.service_account = '{sa}', request.principal.cluster_id = '{cluster_id}', "
                f"target.bucket.name = 'okerdma-prod-weights'")

    statements = _weights_statements(prod, "okerdma-prod-weights")
    assert sorted(statements) == sorted([
        f"Allow any-user to read buckets in compartment id {comp} {pin('research', 'trainer')}}}",
        f"Allow any-user to read objects in compartment id {comp} {pin('research', 'trainer')}}}",
        f"Allow any-user to {{OBJECT_CREATE, OBJECT_OVERWRITE}} in compartment id {comp} "
        f"{pin('research', 'trainer')}, target.object.name = /research.checkpoints*/}}",
        f"Allow any-user to read buckets in compartment id {comp} {pin('evaluation', 'evaluator')}}}",
        f"Allow any-user to read objects in compartment id {comp} {pin('evaluation', 'evaluator')}}}",
        f"Allow any-user to read buckets in compartment id {comp} {pin('pretraining', 'trainer')}}}",
        f"Allow any-user to read objects in compartment id {comp} {pin('pretraining', 'trainer')}}}",
    ])
    assert not any(w in s for s in statements for w in ("manage", "use ", "OBJECT_DELETE", "OBJECT_VERSION_DELETE"))


def test_prod_outputs_name_the_bucket_and_each_tenants_access(prod):
    """``weightsBucket`` is {namespace, name, region} of the created bucket; ``tenants.<t>.weights`` is the access of
    each tenant (null without weights); the outputs honour the contract."""
    assert check_outputs(prod.outputs) == []
    [bucket] = of_type(prod.resources, BUCKET)
    weights = unwrap(prod.outputs["weightsBucket"])[0]
    assert weights == {"namespace": bucket.inputs["namespace"], "name": "okerdma-prod-weights",
                       "region": "us-chicago-1"}
    tenants = unwrap(prod.outputs["tenants"])[0]
    assert tenants["research"]["weights"] == {"serviceAccount": "trainer", "access": "readWrite",
                                              "checkpointPrefix": "research.checkpoints/"}
    assert tenants["evaluation"]["weights"] == {"serviceAccount": "evaluator", "access": "read",
                                                "checkpointPrefix": None}
    assert tenants["pretraining"]["weights"] == {"serviceAccount": "trainer", "access": "read",
                                                 "checkpointPrefix": None}


def test_prod_bucket_passes_the_public_exposure_rule(prod):
    """The security pack's no-public-endpoints rule judges the created bucket and finds nothing; the same bucket
    with ObjectRead is refused (the rule did run on these props)."""
    [bucket] = of_type(prod.resources, BUCKET)
    assert list(public_endpoints.problems_of(BUCKET, bucket.inputs, {})) == []
    assert list(public_endpoints.problems_of(BUCKET, {**bucket.inputs, "accessType": "ObjectRead"}, {}))


def test_dev_brings_its_bucket_and_creates_none():
    """The dev stack brings the data team's bucket: no Bucket, no namespace lookup, the brought bucket exported."""
    raw, secrets = read_stack_file(ROOT / "Pulumi.dev.yaml")
    run = run_program(raw, secrets, "dev")
    assert of_type(run.resources, BUCKET) == []
    assert "oci:ObjectStorage/getNamespace:getNamespace" not in run.mocks.invokes
    assert unwrap(run.outputs["weightsBucket"])[0] == {"namespace": "axaxnpcrorw5", "name": "model-weights",
                                                        "region": "sa-saopaulo-1"}
    tenants = unwrap(run.outputs["tenants"])[0]
    assert tenants["research"]["weights"]["access"] == "readWrite" and tenants["analytics"]["weights"] is None
    assert check_outputs(run.outputs) == []


def test_without_object_storage_nothing_is_declared_or_exported():
    """storage.objectStorage off: no bucket, no lookup, no weightsBucket output, every tenant's weights null."""
    raw = dev_raw_config(storage={"objectStorage": None}, tenants={"research": {"weights": None}})
    run = _run(raw)
    assert of_type(run.resources, BUCKET) == []
    assert "oci:ObjectStorage/getNamespace:getNamespace" not in run.mocks.invokes
    assert "weightsBucket" not in run.outputs
    assert all(t["weights"] is None for t in unwrap(run.outputs["tenants"])[0].values())
    assert check_outputs(run.outputs) == []


def test_unprotected_bucket_warns():
    """protect: false declares the bucket unprotected and says so as a warning."""
    run = _run(_dev({"enabled": True, "protect": False}))
    [bucket] = of_type(run.resources, BUCKET)
    assert bucket.protect is False and "kmsKeyId" not in bucket.inputs
    assert any("okerdma-dev-weights is NOT protected" in w for w in run.warnings)
    assert not [p for p in of_type(run.resources, POLICY) if p.inputs["name"].endswith("objectstorage-kms")]


def test_brought_bucket_is_not_created_but_granted():
    """A brought bucket creates no Bucket and no namespace lookup; the grants name it in its own compartment (the
    tenant's workload mapping goes there) and the output reports its namespace and name."""
    brought = {"namespace": "axaxnpcrorw5", "name": "team-weights", "compartmentId": DATA}
    run = _run(_dev({"enabled": True, "bucket": brought}, {"serviceAccount": "trainer", "access": "read"}))
    assert of_type(run.resources, BUCKET) == []
    assert "oci:ObjectStorage/getNamespace:getNamespace" not in run.mocks.invokes
    statements = _weights_statements(run, "team-weights")
    assert len(statements) == 2 and all(f"in compartment id {DATA} " in s for s in statements)
    assert all("request.principal.namespace = 'research'" in s and "service_account = 'trainer'" in s
               for s in statements)
    assert unwrap(run.outputs["weightsBucket"])[0] == {"namespace": "axaxnpcrorw5", "name": "team-weights",
                                                        "region": "sa-saopaulo-1"}
    [mapping] = of_type(run.resources, "oci:ContainerEngine/clusterWorkloadMapping:ClusterWorkloadMapping")
    assert mapping.inputs["mappedCompartmentId"] == DATA
    assert check_outputs(run.outputs) == []


def test_service_account_with_only_weights_access():
    """A ServiceAccount declared with no grant of its own gets only the weights statements, and its Kubernetes
    ServiceAccount is created in the tenant's namespace."""
    raw = _dev({"enabled": True}, {"serviceAccount": "loader", "access": "read"}, tenant="analytics")
    doc = json.loads(raw["oke-rdma:tenants"])
    doc["analytics"]["serviceAccounts"]["loader"] = {}
    raw["oke-rdma:tenants"] = json.dumps(doc)
    run = _run(raw)
    statements = [s for s in _statements(run) if "service_account = 'loader'" in s]
    assert len(statements) == 2 and all("okerdma-dev-weights" in s and DEV_COMPARTMENT in s for s in statements)
    accounts = [r for r in of_type(run.resources, "kubernetes:core/v1:ServiceAccount")
                if r.inputs["metadata"]["name"] == "loader"]
    assert [a.inputs["metadata"]["namespace"] for a in accounts] == ["analytics"]


def test_created_bucket_with_key_in_dev_region():
    """kmsKeyId on a created bucket sets it and names the stack region's Object Storage service principal."""
    run = _run(_dev({"enabled": True, "kmsKeyId": KEY, "name": "Team.Weights_1"}))
    [bucket] = of_type(run.resources, BUCKET)
    assert bucket.inputs["kmsKeyId"] == KEY and bucket.inputs["name"] == "Team.Weights_1"
    assert any(s.startswith("Allow service objectstorage-sa-saopaulo-1 to use keys") and KEY in s
               for s in _statements(run))


def _with_bucket(cfg):
    cfg["oke-rdma:storage"]["objectStorage"] = {"enabled": True}
    cfg["oke-rdma:tenants"]["research"]["weights"] = {"serviceAccount": "trainer", "access": "readWrite"}


def test_previous_state_keeps_the_bucket_and_its_namespace(tmp_path):
    """Planned again from its previous plan (--previous), the bucket is unchanged: the namespace lookup answers the
    namespace the state holds (an imported one here), so nothing is replaced; dropping the protected bucket from
    the config is refused as in pulumi preview."""
    from offline import preview
    from tests.offline.plans import dev_plan

    code, old = dev_plan(tmp_path, "old.json", _with_bucket)
    assert code == 0
    [bucket] = [r for r in old["resources"] if r["type"] == BUCKET]
    bucket["inputs"]["namespace"] = "importedns1"
    (tmp_path / "prev.json").write_text(json.dumps(old))
    code, new = dev_plan(tmp_path, "new.json", _with_bucket, "--previous", str(tmp_path / "prev.json"))
    assert code == 0
    [change] = [c for c in new["changes"] if c["type"] == BUCKET]
    assert change["op"] == "same"
    [again] = [r for r in new["resources"] if r["type"] == BUCKET]
    assert again["id"] == bucket["id"] and again["inputs"]["namespace"] == "importedns1"
    assert new["outputs"]["weightsBucket"]["namespace"] == "importedns1"

    def without(cfg):
        _with_bucket(cfg)
        cfg["oke-rdma:storage"]["objectStorage"]["enabled"] = False
        del cfg["oke-rdma:tenants"]["research"]["weights"]
    code, gone = dev_plan(tmp_path, "gone.json", without, "--previous", str(tmp_path / "prev.json"))
    assert code == preview.EXIT_PLAN
    assert next(c for c in gone["changes"] if c["type"] == BUCKET)["op"] == "delete"
