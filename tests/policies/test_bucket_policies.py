"""bucket-protected-data-versioned (mandatory) and bucket-protected-data-customer-key (advisory): a bucket declared
protected keeps its objects' versions and is encrypted with a Vault key; unprotected buckets are not judged;
unknown versioning fails closed."""

from __future__ import annotations

import dataclasses

import pytest
from pulumi_policy import PolicyCustomTimeouts, PolicyResourceOptions, ResourceValidationArgs

from policies.security.buckets import BUCKET, validate_customer_key, validate_versioned
from tests.policies.test_policies import U, messages, proxied, res, run, urn

KEY = "ocid1.key.oc1.sa-saopaulo-1.bbpr4kqzaafaq.abzxiljr5k7m9o2q4s6u8w1y3a5c7e9g2i4k6m8o1q3s5u7w9objkey"


def _call(fn, props: dict, protect: bool = True, type_: str = BUCKET) -> list[str]:
    found: list[str] = []
    opts = PolicyResourceOptions(protect, [], None, [], PolicyCustomTimeouts(0, 0, 0), [], None)
    args = ResourceValidationArgs(type_, proxied(props), urn(type_, "b"), "b", opts, None)  # type: ignore[arg-type]
    fn(args, lambda message, u=None: found.append(message))
    return found


def _bucket(**props) -> dict:
    return {"name": "weights", "namespace": "ns", "accessType": "NoPublicAccess", **props}


@pytest.mark.parametrize("versioning", ["Enabled", "enabled"])
def test_protected_versioned_buckets_pass(versioning):
    assert _call(validate_versioned, _bucket(versioning=versioning)) == []


@pytest.mark.parametrize("props, needle", [
    (_bucket(), "unset"), (_bucket(versioning="Disabled"), "'Disabled'"), (_bucket(versioning="Suspended"),
                                                                              "'Suspended'"),
    (_bucket(versioning=U), "unknown"), (_bucket(versioning=["Enabled"]), "not a text value"),
])
def test_protected_buckets_without_versioning_are_refused(props, needle):
    found = _call(validate_versioned, props)
    assert found and needle in found[0]


def test_unprotected_buckets_and_other_types_are_not_judged():
    assert _call(validate_versioned, _bucket(), protect=False) == []
    assert _call(validate_customer_key, _bucket(), protect=False) == []
    assert _call(validate_versioned, {}, type_="oci:FileStorage/fileSystem:FileSystem") == []


@pytest.mark.parametrize("key, refused", [(KEY, False), (U, True), (None, True), ("", True)])
def test_customer_key_advisory(key, refused):
    props = _bucket(versioning="Enabled", **({} if key is None else {"kmsKeyId": key}))
    assert bool(_call(validate_customer_key, props)) is refused


def test_the_security_pack_reports_versioning_mandatory_and_the_key_advisory():
    """Through the pack: the protect option reaches the rules; versioning is mandatory, the key advisory."""
    bad = dataclasses.replace(res(BUCKET, "weights", _bucket()), protect=True)
    report = run(bad)
    assert messages(report, "bucket-protected-data-versioned") and report.mandatory
    assert [v.enforcement_level for v in report.violations if v.policy == "bucket-protected-data-customer-key"] == [
        "advisory"]
    good = dataclasses.replace(res(BUCKET, "weights", _bucket(versioning="Enabled", kmsKeyId=KEY)), protect=True)
    report = run(good)
    assert not [v for v in report.violations if v.policy.startswith("bucket-protected-data")]
    unprotected = res(BUCKET, "scratch", _bucket())
    assert not [v for v in run(unprotected).violations if v.policy.startswith("bucket-protected-data")]
