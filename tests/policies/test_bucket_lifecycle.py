"""bucket-lifecycle-keeps-protected-data: a lifecycle rule that deletes objects or previous versions of a bucket the
stack protects is refused; tiering, aborting multipart uploads, disabled rules and unprotected buckets pass; unknowns
fail closed."""
from __future__ import annotations

import pytest

from tests.policies.test_policies import U, messages, res, run

RULE = "bucket-lifecycle-keeps-protected-data"
BUCKET, LIFECYCLE = "oci:ObjectStorage/bucket:Bucket", "oci:ObjectStorage/objectLifecyclePolicy:ObjectLifecyclePolicy"


def rule(action: str = "DELETE", target: str = "objects", enabled=True, **extra) -> dict:
    return {"name": "r", "action": action, "target": target, "isEnabled": enabled, "timeAmount": "30",
            "timeUnit": "DAYS", **extra}


def stack(*rules: dict, protect: bool = True, linked: bool = True, bucket_name="weights", policy_props=None):
    bucket = res(BUCKET, "weights", {"name": "weights", "namespace": "ns", "versioning": "Enabled"})
    bucket.protect = protect
    props = {"bucket": bucket_name, "namespace": "ns", "rules": list(rules), **(policy_props or {})}
    policy = res(LIFECYCLE, "lifecycle", props, deps={"bucket": [bucket]} if linked else None)
    return [bucket, policy]


def violations(*resources) -> list[str]:
    return messages(run(*resources, policy=RULE), RULE)


@pytest.mark.parametrize("rules, needle", [
    ([rule()], "deletes objects permanently"),
    ([rule(target="previous-object-versions")], "deletes previous-object-versions"),
    ([rule("ARCHIVE"), rule("delete")], "rules[1]"),  # any spelling of DELETE
    ([rule(action=U)], "unknown during preview"),
    ([rule(enabled=U)], "isEnabled is not the literal"),
])
def test_a_deleting_rule_on_a_protected_bucket_is_refused(rules, needle):
    """DELETE on objects or old versions of a protected bucket, linked by dependency, is refused."""
    found = violations(*stack(*rules))
    assert any(needle in m and "protected bucket 'weights'" in m for m in found), found


def test_the_bucket_is_found_by_name_and_an_unknown_bucket_fails_closed():
    """Without a dependency the bucket is matched by its name; an unknown bucket name may be the protected one."""
    assert violations(*stack(rule(), linked=False))
    found = violations(*stack(rule(), linked=False, bucket_name=U))
    assert any("a bucket unknown during preview" in m for m in found), found
    assert any("rules are unknown" in m for m in violations(*stack(policy_props={"rules": U})))


@pytest.mark.parametrize("rules", [[rule("ARCHIVE")], [rule("INFREQUENT_ACCESS", "previous-object-versions")],
                                   [rule("ABORT", "multipart-uploads")], [rule(enabled=False)]])
def test_tiering_aborting_uploads_and_disabled_rules_pass(rules):
    """Moving objects between tiers, aborting uncommitted uploads and a disabled DELETE rule keep the data."""
    assert violations(*stack(*rules)) == []


def test_unprotected_or_other_buckets_keep_any_lifecycle():
    """A bucket the stack does not protect, or a policy on another bucket, is not this rule's business."""
    assert violations(*stack(rule(), protect=False)) == []
    assert violations(*stack(rule(), linked=False, bucket_name="scratch")) == []
