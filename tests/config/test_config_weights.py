"""Config rules of the weights bucket (``storage.objectStorage``) and the tenants' access to it
(``tenants.<t>.weights``): each refusal is one line naming the key path and the fix; each has a passing variant."""

from __future__ import annotations

import pytest

from oke_rdma.config import ConfigError, workload_bindings
from oke_rdma.config.checks.object_storage import weights_bucket_name, weights_grants
from tests.stackcfg import load_dev_config

DATA = "ocid1.compartment.oc1..aaaaaaaa2q7w9e4r6t8y1u3i5o7p9a2s4d6f8g1h3j5k7l9z2x4cdata"
OTHER = "ocid1.compartment.oc1..aaaaaaaa9z8y7x6w5v4u3t2s1r0q9p8o7n6m5l4k3j2i1h0g9f8eother"
TENANCY = "ocid1.tenancy.oc1..aaaaaaaa3x5z7b9d2f4h6j8l1n3p5r7t9v2x4z6b8d1f3h5j7l9n2p4tenancy"
ON = {"objectStorage": {"enabled": True, "bucket": None}}  # a created bucket (dev brings one)
OFF = {"objectStorage": {"enabled": False, "bucket": None}}
BROUGHT = {"namespace": "axaxnpcrorw5", "name": "team-weights", "compartmentId": DATA}


def _problems(**overrides) -> list[str]:
    try:
        load_dev_config(**overrides)
    except ConfigError as e:
        return e.problems
    return []


def _weights(sa: str = "trainer", access: str = "read", tenant: str = "research") -> dict:
    return {tenant: {"weights": {"serviceAccount": sa, "access": access}}}


def test_off_by_default_and_a_tenant_with_weights_is_accepted_when_on():
    """Without storage.objectStorage there is no bucket; a created one with a tenant's declared ServiceAccount is a
    valid config."""
    assert load_dev_config(storage={"objectStorage": None}, tenants={"research": {"weights": None}}
                           ).storage.object_storage.enabled is False
    cfg = load_dev_config(storage=ON, tenants=_weights(access="readWrite"))
    assert cfg.tenants["research"].weights.access == "readWrite"
    assert weights_bucket_name(cfg) == "okerdma-dev-weights"


def test_weights_need_the_bucket():
    """A tenant asking for weights while the bucket is off is refused at tenants.<t>.weights."""
    [problem] = _problems(storage=OFF, tenants=_weights())
    assert problem.startswith("oke-rdma:tenants.research.weights: asks for the weights bucket but "
                              "storage.objectStorage.enabled is false;")


def test_weights_service_account_must_be_declared_by_the_tenant():
    """A grant to a ServiceAccount the tenant does not declare (or another tenant's) is refused, naming the key."""
    [problem] = _problems(storage=ON, tenants=_weights(sa="gpu-metrics"))  # analytics' SA, not research's
    assert problem.startswith("oke-rdma:tenants.research.weights.serviceAccount: 'gpu-metrics' is not a "
                              "ServiceAccount of tenant 'research' (declared: trainer);")


@pytest.mark.parametrize("access", ["write", "manage", "READ", "readwrite", ""])
def test_access_must_be_read_or_read_write(access):
    """Only read and readWrite are accepted (no verb passes through)."""
    [problem] = _problems(storage=ON, tenants=_weights(access=access))
    assert problem.startswith("oke-rdma:tenants.research.weights.access:")


@pytest.mark.parametrize("missing", ["namespace", "name", "compartmentId"])
def test_brought_bucket_needs_namespace_name_and_compartment(missing):
    """A brought bucket names all of namespace, name and compartmentId."""
    bucket = {**BROUGHT, missing: None}  # None deletes the dev stack's value
    [problem] = _problems(storage={"objectStorage": {"enabled": True, "bucket": bucket}})
    assert problem.startswith(f"oke-rdma:storage.objectStorage.bucket.{missing}: required")


KEY = "ocid1.key.oc1.sa-saopaulo-1.bbpr4kqzaafaq.abzxiljr5k7m9o2q4s6u8w1y3a5c7e9g2i4k6m8o1q3s5u7w9objkey"


@pytest.mark.parametrize("key, value", [("name", "mine"), ("kmsKeyId", KEY)])
def test_brought_bucket_refuses_settings_of_a_created_one(key, value):
    """name or kmsKeyId beside a brought bucket would configure nothing: refused."""
    [problem] = _problems(storage={"objectStorage": {"enabled": True, "bucket": BROUGHT, key: value}})
    assert problem.startswith("oke-rdma:storage.objectStorage:") and f"remove {key}" in problem


@pytest.mark.parametrize("where, value", [
    (("name",), "bad name"), (("name",), "x" * 256), (("name",), "weights/ckpt"),
    (("bucket", "name"), "a:b"), (("bucket", "namespace"), "Upper_Case"),
    (("bucket", "compartmentId"), "ocid1.vcn.oc1..aaaa"),
    (("kmsKeyId",), "ocid1.vault.oc1.sa-saopaulo-1.aaaaaaaa"),
])
def test_malformed_values_are_refused(where, value):
    """Bucket names outside OCI's characters or length, namespaces that are not OCI's, wrong OCID kinds: refused at
    their key."""
    obj: dict = {"enabled": True}
    if where[0] == "bucket":
        obj["bucket"] = {**BROUGHT, where[1]: value}
    else:
        obj[where[0]], obj["bucket"] = value, None
    problems = _problems(storage={"objectStorage": obj})
    assert problems and problems[0].startswith(f"oke-rdma:storage.objectStorage.{'.'.join(where)}:"), problems


def test_service_account_with_no_grant_only_for_weights():
    """An empty allow list is accepted for the tenant's weights ServiceAccount and refused for any other."""
    tenants = {"research": {"serviceAccounts": {"loader": {}}, "weights": {"serviceAccount": "loader", "access": "read"}}}
    cfg = load_dev_config(storage=ON, tenants=tenants)
    [binding] = [b for b in workload_bindings(cfg) if b.service_account == "loader"]
    assert [g.render() for g in binding.grants] == [
        f"read buckets in compartment id {cfg.compartment_id} where target.bucket.name = 'okerdma-dev-weights'",
        f"read objects in compartment id {cfg.compartment_id} where target.bucket.name = 'okerdma-dev-weights'"]
    [problem] = _problems(storage=ON, tenants={"research": {"serviceAccounts": {"loader": {}}}})
    assert problem.startswith("oke-rdma:tenants.research.serviceAccounts.loader.allow: lists no grant;")


def test_read_write_grants_create_and_overwrite_under_the_tenants_prefix_only():
    """readWrite adds one permission-list grant: OBJECT_CREATE and OBJECT_OVERWRITE, the bucket and the tenant's
    checkpoint prefix as a pattern; never a delete, never manage."""
    cfg = load_dev_config(storage=ON, tenants=_weights(access="readWrite"))
    grants = weights_grants(cfg, "research")
    assert [g.render() for g in grants][2] == (
        f"{{OBJECT_CREATE, OBJECT_OVERWRITE}} in compartment id {cfg.compartment_id} where all "
        f"{{target.bucket.name = 'okerdma-dev-weights', target.object.name = /research.checkpoints*/}}")
    assert not any(g.verb == "manage" or "OBJECT_DELETE" in g.permissions for g in grants)


def test_no_tenant_prefix_is_a_prefix_of_another_tenants():
    """Tenant names are DNS labels (no '.'), so '<a>.checkpoints' never starts another tenant's prefix — even for
    tenants whose names start alike."""
    from oke_rdma.config.object_storage import checkpoint_prefix
    names = ["a", "ab", "a-b", "a-checkpoints", "research", "research2"]
    for x in names:
        for y in names:
            if x != y:
                assert not checkpoint_prefix(y).lower().startswith(checkpoint_prefix(x).rstrip("/").lower())


def test_brought_bucket_in_another_compartment_is_the_tenants_mapped_compartment():
    """A brought bucket in another compartment counts as the tenant's one mapped compartment: accepted when its other
    grants reach the same compartment, refused when they reach a different one, and it needs iam.deployerGroupId."""
    obj = {"objectStorage": {"enabled": True, "bucket": BROUGHT}}  # the dev research grants reach DATA already
    cfg = load_dev_config(storage=obj, tenants=_weights())
    [trainer] = [b for b in workload_bindings(cfg) if b.service_account == "trainer"]
    assert trainer.mapped_compartment_id == DATA
    other = {"objectStorage": {"enabled": True, "bucket": {**BROUGHT, "compartmentId": OTHER}}}
    [problem] = _problems(storage=other, tenants=_weights())
    assert problem.startswith("oke-rdma:tenants.research.serviceAccounts: the grants of namespace 'research' reach "
                              "2 compartments besides oke-rdma:compartmentId")
    analytics = {**_weights(sa="gpu-metrics", tenant="analytics"), "research": {"weights": None}}
    assert _problems(storage=other, tenants=analytics) == []
    problems = _problems(storage=other, tenants=analytics, iam={"deployerGroupId": None})  # research's too
    assert any(p.startswith("oke-rdma:iam.deployerGroupId: required because tenant 'analytics' reaches compartment "
                            f"{OTHER}") for p in problems), problems


def test_brought_bucket_in_the_root_compartment_needs_no_mapping():
    """A bucket in the root compartment is granted with the location 'tenancy' (its policy attached to that OCID),
    with no workload mapping and no iam.tenancyId."""
    obj = {"objectStorage": {"enabled": True, "bucket": {**BROUGHT, "compartmentId": TENANCY}}}
    cfg = load_dev_config(storage=obj, tenants=_weights(sa="gpu-metrics", tenant="analytics"))  # research: DATA too
    [binding] = [b for b in workload_bindings(cfg) if b.tenant == "analytics"]
    assert binding.mapped_compartment_id is None
    assert all(g.location == "tenancy" and g.compartment_id == TENANCY for g in binding.grants[1:])


@pytest.mark.parametrize("key, value", [("bucket", BROUGHT), ("name", "w"), ("protect", False),
                                        ("objectEventsEnabled", True)])
def test_settings_of_a_disabled_bucket_are_refused_not_ignored(key, value):
    """A key set under storage.objectStorage while enabled is false would be silently dropped: refused instead."""
    [problem] = _problems(storage={"objectStorage": {"enabled": False, "bucket": None, key: value}},
                          tenants={"research": {"weights": None}})
    assert problem.startswith("oke-rdma:storage.objectStorage:") and f"{key} would be ignored" in problem


def test_key_in_another_region_is_refused():
    """The bucket's Vault key is an OCID of oci:region (the stack-wide OCID region rule covers it)."""
    other = KEY.replace("sa-saopaulo-1", "us-ashburn-1")
    problems = _problems(storage={"objectStorage": {"enabled": True, "bucket": None, "kmsKeyId": other}})
    assert any(p.startswith("oke-rdma:storage.objectStorage.kmsKeyId:") for p in problems), problems


def test_every_vault_key_of_the_storage_section_is_region_checked():
    """The class of the rule above: the Lustre file system's key is regional too."""
    other = KEY.replace("sa-saopaulo-1", "us-ashburn-1")
    lustre = {"lustre": {"capacityGb": 31200, "performanceTier": 125, "tenants": ["research"], "kmsKeyId": other}}
    problems = _problems(storage=lustre)
    assert any(p.startswith("oke-rdma:storage.lustre.kmsKeyId: expected a Vault key in oci:region") for p in problems), \
        problems
    assert not [p for p in _problems(storage={"lustre": {**lustre["lustre"], "kmsKeyId": KEY}}) if "kmsKeyId" in p]
