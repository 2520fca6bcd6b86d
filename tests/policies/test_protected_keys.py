"""The Vault key of a protected store (file system, Lustre, bucket) cannot be disabled or scheduled for deletion in
the same stack, nor its versions or vault; an unprotected store's key is not this rule's business."""
from __future__ import annotations

import pytest

from tests.policies.test_policies import U, messages, res, run

RULE = "protected-data-keys-kept"
KEY_ID = "ocid1.key.oc1..aaaaprotected"


def stack(protect: bool = True, key: dict | None = None, extra=(), store="oci:FileStorage/fileSystem:FileSystem"):
    k = res("oci:Kms/key:Key", "key", {"id": KEY_ID, "displayName": "fss", "managementEndpoint": "https://v-mgmt",
                                       **(key or {})})
    fs = res(store, "fs", {"kmsKeyId": U}, deps={"kmsKeyId": [k]})
    fs.protect = protect
    return [k, fs, *extra]


@pytest.mark.parametrize("key, extra", [
    ({"desiredState": "DISABLED"}, ()), ({"timeOfDeletion": "2027-01-01T00:00:00Z"}, ()), ({"desiredState": U}, ()),
    ({}, (res("oci:Kms/keyVersion:KeyVersion", "v1", {"keyId": KEY_ID, "timeOfDeletion": "2027-01-01T00:00:00Z"}),)),
    ({}, (res("oci:Kms/vault:Vault", "vault", {"managementEndpoint": "https://v-mgmt",
                                               "timeOfDeletion": "2027-01-01T00:00:00Z"}),)),
])
def test_a_protected_stores_key_disabled_or_scheduled_for_deletion_is_refused(key, extra):
    assert messages(run(*stack(key=key, extra=extra), policy=RULE), RULE)


@pytest.mark.parametrize("store", ["oci:ObjectStorage/bucket:Bucket",
                                   "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"])
def test_buckets_and_lustre_are_protected_stores_too(store):
    assert messages(run(*stack(key={"desiredState": "DISABLED"}, store=store), policy=RULE), RULE)


def test_an_enabled_key_or_an_unprotected_store_passes():
    assert messages(run(*stack(key={"desiredState": "ENABLED"}), policy=RULE), RULE) == []
    assert messages(run(*stack(protect=False, key={"desiredState": "DISABLED"}), policy=RULE), RULE) == []


SCHEDULED = {"timeOfDeletion": "2027-01-01T00:00:00Z"}


@pytest.mark.parametrize("key, extra", [
    ({"restoreTrigger": True}, ()), ({"restoreFromObjectStore": {"bucket": "b", "namespace": "n", "object": "o"}}, ()),
    ({}, (res("oci:Kms/vault:Vault", "vault", {"managementEndpoint": "https://v-mgmt", "restoreTrigger": True}),)),
    # the vault's endpoint is unknown: the key's literal endpoint cannot rule it out, so it is judged as its vault
    ({}, (res("oci:Kms/vault:Vault", "vault", {"managementEndpoint": U, **SCHEDULED}),)),
    ({}, (res("oci:Kms/vault:Vault", "vault", SCHEDULED),)),
    # a key version whose key cannot be told
    ({}, (res("oci:Kms/keyVersion:KeyVersion", "v1", {"keyId": U, **SCHEDULED}),)),
])
def test_restores_and_vaults_or_versions_that_may_hold_the_key_are_refused(key, extra):
    """Restoring the key or its vault from a backup rolls it back; a scheduled vault or version the policy cannot
    tell apart from the key's own is judged as the key's own."""
    assert messages(run(*stack(key=key, extra=extra), policy=RULE), RULE)


def test_the_vault_named_by_the_keys_endpoint_dependency_is_its_vault():
    """A key whose managementEndpoint comes from a scheduled vault (the dependency, whatever the value) is refused."""
    vault = res("oci:Kms/vault:Vault", "vault", {"managementEndpoint": "https://other", **SCHEDULED})
    k = res("oci:Kms/key:Key", "key", {"id": KEY_ID, "managementEndpoint": U}, deps={"managementEndpoint": [vault]})
    fs = res("oci:FileStorage/fileSystem:FileSystem", "fs", {"kmsKeyId": U}, deps={"kmsKeyId": [k]})
    fs.protect = True
    assert messages(run(vault, k, fs, policy=RULE), RULE)


def test_a_version_of_a_protected_stores_literal_key_is_refused():
    """A store naming a brought key OCID (listed in broughtKeys, not declared): a key version of that OCID
    scheduled for deletion."""
    fs = res("oci:FileStorage/fileSystem:FileSystem", "fs", {"kmsKeyId": KEY_ID})
    fs.protect = True
    version = res("oci:Kms/keyVersion:KeyVersion", "v1", {"keyId": KEY_ID, **SCHEDULED})
    assert _kept(fs, version, brought=[KEY_ID])
    other = res("oci:Kms/keyVersion:KeyVersion", "v1", {"keyId": "ocid1.key.oc1..other", **SCHEDULED})
    assert _kept(fs, other, brought=[KEY_ID]) == []


def test_another_vault_or_version_scheduled_for_deletion_passes():
    """A vault whose known endpoint is not the key's, and a version of another key, are not the key's."""
    extra = (res("oci:Kms/vault:Vault", "old", {"managementEndpoint": "https://old-mgmt", **SCHEDULED}),
             res("oci:Kms/keyVersion:KeyVersion", "v1", {"keyId": "ocid1.key.oc1..other", **SCHEDULED}),
             res("oci:Kms/vault:Vault", "kept", {"managementEndpoint": "https://v-mgmt", "restoreTrigger": False}))
    assert messages(run(*stack(key={"desiredState": "ENABLED"}, extra=extra), policy=RULE), RULE) == []


# -- the key itself: the stack's, or brought on purpose (broughtKeys) ----------------------------------------------
OUTSIDE = "ocid1.key.oc1.sa-saopaulo-1.othervault.aaaaaaaaoutsidekey"
STORES = ["oci:FileStorage/fileSystem:FileSystem", "oci:ObjectStorage/bucket:Bucket",
          "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"]


def _store(store: str, props: dict, protect: bool = True, deps=None):
    s = res(store, "fs", props, deps=deps)
    s.protect = protect
    return s


def _with(brought: list[str]) -> list[dict]:
    from policies import PACK_DIRS
    config = {"all": "disabled", RULE: {"enforcementLevel": "mandatory", "broughtKeys": brought}}
    return [config] * len(PACK_DIRS)


def _kept(*resources, brought: list[str] = ()):
    from offline.policy_eval import evaluate_packs
    from policies import PACK_DIRS
    return messages(evaluate_packs(PACK_DIRS, list(resources), _with(list(brought))), RULE)


@pytest.mark.parametrize("store", STORES)
def test_a_protected_store_encrypted_with_a_key_outside_the_stack_is_refused(store):
    """Neither a key of the stack nor listed: one line naming the store, the key and both fixes."""
    (message,) = _kept(_store(store, {"kmsKeyId": OUTSIDE}))
    assert "'fs' is protected" in message and OUTSIDE in message
    assert "Declare the key" in message and f"{RULE}.broughtKeys" in message


def test_an_unknown_key_not_from_a_key_of_the_stack_is_refused():
    """Fail closed: a kmsKeyId unknown during preview with no Key dependency (an invoke, a stack reference, another
    resource's output) cannot be told to be the stack's."""
    other = res("oci:Kms/keyVersion:KeyVersion", "v1", {"keyId": OUTSIDE})
    assert _kept(_store(STORES[0], {"kmsKeyId": U}))
    assert _kept(other, _store(STORES[0], {"kmsKeyId": U}, deps={"kmsKeyId": [other]}))


def test_a_declared_key_passes_by_dependency_or_by_its_known_id():
    """The store's key is an oci:Kms/key:Key of the stack: through its property dependency (a first preview, the id
    unknown), or a literal equal to the declared key's known id."""
    key = res("oci:Kms/key:Key", "key", {"id": KEY_ID, "managementEndpoint": "https://v-mgmt"})
    assert _kept(key, _store(STORES[0], {"kmsKeyId": U}, deps={"kmsKeyId": [key]})) == []
    assert _kept(key, _store(STORES[1], {"kmsKeyId": KEY_ID})) == []
    assert _kept(key, _store(STORES[1], {"kmsKeyId": OUTSIDE}))  # another key than the declared one


def test_a_listed_key_passes_and_only_that_one():
    assert _kept(_store(STORES[0], {"kmsKeyId": OUTSIDE}), brought=[OUTSIDE]) == []
    assert _kept(_store(STORES[0], {"kmsKeyId": OUTSIDE}), brought=[KEY_ID])


def test_no_key_or_an_unprotected_store_is_not_this_rules_business():
    """Oracle-managed keys (no kmsKeyId: bucket-protected-data-customer-key's advisory) and unprotected stores."""
    assert _kept(_store(STORES[1], {})) == []
    assert _kept(_store(STORES[0], {"kmsKeyId": OUTSIDE}, protect=False)) == []


@pytest.mark.parametrize("bad", ["ocid1.vault.oc1..aaaa", "ocid1.key.oc1..", "OCID1.KEY.OC1..aaaa", "",
                                 "ocid1.key.oc1.iad.a.b.c", " ocid1.key.oc1..aaaa"])
def test_broughtkeys_items_that_are_not_key_ocids_are_refused_by_the_config_schema(bad):
    from offline.policy_eval import PolicyConfigError, resolve_policy_config
    from policies.security import protected_keys
    with pytest.raises(PolicyConfigError) as e:
        resolve_policy_config(protected_keys.POLICIES, {RULE: {"broughtKeys": [OUTSIDE, bad]}})
    (problem,) = e.value.problems
    assert problem.startswith(f"{RULE}: broughtKeys.1: "), problem


def test_broughtkeys_pattern_is_the_config_models_key_ocid():
    """The pack's copy of the key OCID pattern equals the config model's (oke_rdma.schema)."""
    from oke_rdma.brought_keys import BROUGHT_KEY, KEYS_POLICY
    from oke_rdma.schema import _OCID_RE
    from policies.security import protected_keys
    assert protected_keys.KEY_OCID == _OCID_RE.format(kind="key")
    assert (KEYS_POLICY, BROUGHT_KEY) == (protected_keys.POLICY_NAME, protected_keys.BROUGHT)


def test_the_prod_stack_implies_its_three_brought_keys_and_dev_none(capsys):
    """The derived security config lists the prod stack config's kmsKeyId values (cluster, FSS, bucket: a security
    team's vault), which the export command prints for --policy-pack-config; dev brings none."""
    import json
    from pathlib import Path

    import yaml

    from offline.security_config import main
    from oke_rdma.brought_keys import security_policy_config
    from oke_rdma.config import load_stack_config
    from offline.stackfile import read_stack_file

    root = Path(__file__).resolve().parents[2]
    doc = yaml.safe_load((root / "Pulumi.prod.yaml").read_text())["config"]
    expected = sorted({doc["oke-rdma:cluster"]["kmsKeyId"], doc["oke-rdma:storage"]["fss"]["kmsKeyId"],
                       doc["oke-rdma:storage"]["objectStorage"]["kmsKeyId"]})
    assert len(expected) == 3
    derived = security_policy_config(load_stack_config(*read_stack_file(root / "Pulumi.prod.yaml")))
    assert derived == {RULE: {"broughtKeys": expected}}
    assert main(["--stack", "prod"]) == 0
    assert json.loads(capsys.readouterr().out) == derived
    assert security_policy_config(load_stack_config(*read_stack_file(root / "Pulumi.dev.yaml"))) is None
    assert main(["--stack", "dev"]) == 0 and json.loads(capsys.readouterr().out) == {}
