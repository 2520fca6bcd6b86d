"""Switching a store (the FSS file system, the created weights bucket, the cluster's secrets) from Vault key A to key B
drops A's grant in the same update, while the store still uses A until it has switched: ``previousKmsKeyIds`` keeps
A's grant for that update, and with ``--previous`` the preview warns (one line naming the key and the two-step
procedure) when a store's key changes and A is not kept."""

from __future__ import annotations

import pytest

from offline.kms_changes import kms_changes
from oke_rdma.adapter import iam_inputs
from oke_rdma.iam import iam_plan
from tests.offline.plans import dev_plan
from tests.stackcfg import load_dev_config

A = "ocid1.key.oc1.sa-saopaulo-1.bbpr4kqzaafaq.abzxiljr9q1s3u5w7y2a4c6e8g1i3k5m7o9q2s4u6w8y1keya"
B = A[:-4] + "keyb"
TENANCY = "ocid1.tenancy.oc1..aaaaaaaagovtenancy0000000000000000000000000000000000000000000"


def _plan(config: dict) -> dict:
    return {"config": config}


STORES = [
    ("oke-rdma:storage", lambda k, kept=None: {"fss": {"kmsKeyId": k, **({"previousKmsKeyIds": kept} if kept else {})}},
     "oke-rdma:storage.fss.kmsKeyId", "oke-rdma:storage.fss.previousKmsKeyIds"),
    ("oke-rdma:storage", lambda k, kept=None: {"objectStorage": {"enabled": True, "kmsKeyId": k,
                                                                 **({"previousKmsKeyIds": kept} if kept else {})}},
     "oke-rdma:storage.objectStorage.kmsKeyId", "oke-rdma:storage.objectStorage.previousKmsKeyIds"),
    ("oke-rdma:cluster", lambda k, kept=None: {"kmsKeyId": k, **({"previousKmsKeyIds": kept} if kept else {})},
     "oke-rdma:cluster.kmsKeyId", "oke-rdma:cluster.previousKmsKeyIds"),
]


@pytest.mark.parametrize("key, value, at, keep", STORES)
@pytest.mark.parametrize("new", [B, None])
def test_a_key_switch_that_drops_the_old_grant_warns_naming_the_key_and_the_two_steps(key, value, at, keep, new):
    (line,) = kms_changes(_plan({key: value(A)}), {key: value(new)})
    assert line.startswith(f"{at}: changes from {A} to {new or 'Oracle-managed keys'}") and "\n" not in line
    assert f"add {A} to {keep} for this update and remove it in the next" in line and "Rotating a key" in line


@pytest.mark.parametrize("key, value, at, keep", STORES)
def test_a_switch_that_keeps_the_old_grant_an_unchanged_key_or_no_previous_plan_is_quiet(key, value, at, keep):
    assert kms_changes(_plan({key: value(A)}), {key: value(B, [A])}) == []
    assert kms_changes(_plan({key: value(A)}), {key: value(A)}) == []
    assert kms_changes(_plan({key: value(None)}), {key: value(B)}) == []  # no old key: nothing to keep
    assert kms_changes(None, {key: value(B)}) == []


def test_raw_config_as_json_text_is_read_too():
    import json
    assert kms_changes(_plan({"oke-rdma:cluster": json.dumps({"kmsKeyId": A})}),
                       {"oke-rdma:cluster": json.dumps({"kmsKeyId": B})})


def test_previous_keys_keep_their_grants_beside_the_new_key():
    """The old key's statements (file systems' dynamic group, key delegate, Object Storage, cluster principal) stay
    beside the new key's; the new key's statements keep their names (no change for a stack that lists none)."""
    cfg = load_dev_config(tenants=None, iam={"tenancyId": TENANCY},
                          cluster={"kmsKeyId": B, "previousKmsKeyIds": [A]},
                          storage={"fss": {"kmsKeyId": B, "previousKmsKeyIds": [A]},
                                   "objectStorage": {"bucket": None, "kmsKeyId": B, "previousKmsKeyIds": [A]}})
    plan = iam_plan(iam_inputs(cfg), "ocid1.cluster.oc1..x")
    by_name = {s.name: s.text for s in plan.statements}
    for name in ("fss-kms-key", "fss-kms-key-delegate", "objectstorage-kms-key"):
        assert B in by_name[name] and A in by_name[f"{name}-previous-1"], name
    cluster = [t for n, t in by_name.items() if n.startswith("cluster-kms-key-")]
    assert any(A in t for t in cluster) and any(B in t for t in cluster)


def test_a_previous_key_that_is_not_a_key_ocid_is_refused():
    from oke_rdma.config import ConfigError
    with pytest.raises(ConfigError, match=r"oke-rdma:storage\.fss\.previousKmsKeyIds"):
        load_dev_config(storage={"fss": {"previousKmsKeyIds": ["ocid1.vault.oc1..x"]}})


def test_the_preview_warns_with_previous_and_not_once_the_old_key_is_kept(tmp_path):
    def edit(key, kept=()):
        def e(c):
            c["oke-rdma:iam"]["tenancyId"] = TENANCY
            c["oke-rdma:storage"]["fss"]["kmsKeyId"] = key
            if kept:
                c["oke-rdma:storage"]["fss"]["previousKmsKeyIds"] = list(kept)
        return e

    assert dev_plan(tmp_path, "a.json", edit(A))[0] == 0
    code, switched = dev_plan(tmp_path, "b.json", edit(B), "--previous", str(tmp_path / "a.json"))
    assert code == 0
    assert [d for d in switched["diagnostics"] if "storage.fss.kmsKeyId: changes from" in d["message"]]
    code, kept = dev_plan(tmp_path, "c.json", edit(B, [A]), "--previous", str(tmp_path / "a.json"))
    assert code == 0 and not [d for d in kept["diagnostics"] if "kmsKeyId: changes from" in d["message"]]
