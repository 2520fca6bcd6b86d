"""Data made public: public buckets, pre-authenticated requests of every access type, public container
repositories and container instances with a public IP are refused; private ones — such as a versioned, KMS-encrypted
weights bucket — pass."""
from __future__ import annotations

import pytest

from policies.security.public_endpoints import (BUCKET, CONTAINER_INSTANCE, CONTAINER_REPOSITORY,
                                                MARKETPLACE_PUBLICATION, PREAUTH_REQUEST,
                                                validate_no_public_endpoints as rule)
from tests.policies.test_policies import U, call_resource_rule, messages, res, run

RULE = "no-public-endpoints"


def found(type_: str, props: dict) -> list[str]:
    return call_resource_rule(rule, type_, props)


@pytest.mark.parametrize("access", ["ObjectRead", "ObjectReadWithoutList", "objectread", "NoPublicAcess", "", U])
def test_buckets_other_than_no_public_access_are_refused(access):
    """Object Storage takes NoPublicAccess, ObjectRead and ObjectReadWithoutList; any other spelling cannot be
    interpreted and is refused like a public bucket."""
    assert len(found(BUCKET, {"name": "weights", "namespace": "ns", "accessType": access})) == 1


def test_a_private_versioned_kms_weights_bucket_passes():
    props = {"name": "weights", "namespace": "ns", "compartmentId": "c", "accessType": "NoPublicAccess",
             "versioning": "Enabled", "kmsKeyId": "ocid1.key.oc1..aaaa", "objectEventsEnabled": False}
    assert found(BUCKET, props) == []
    assert found(BUCKET, {k: v for k, v in props.items() if k != "accessType"}) == []  # NoPublicAccess by default


@pytest.mark.parametrize("access", ["ObjectRead", "ObjectWrite", "ObjectReadWrite", "AnyObjectWrite",
                                    "AnyObjectRead", "AnyObjectReadWrite", U])
def test_pre_authenticated_requests_of_every_access_type_are_refused(access):
    props = {"accessType": access, "bucket": "weights", "namespace": "ns", "name": "share",
             "timeExpires": "2030-01-01T00:00:00Z", "bucketListingAction": "ListObjects"}
    [message] = found(PREAUTH_REQUEST, props)
    assert "bearer URL" in message


@pytest.mark.parametrize("public", [True, "true", 1, U])
def test_public_or_unverifiable_container_repositories_are_refused(public):
    [message] = found(CONTAINER_REPOSITORY, {"compartmentId": "c", "displayName": "team/trainer", "isPublic": public})
    assert "isPublic" in message


@pytest.mark.parametrize("props", [{"compartmentId": "c", "displayName": "team/trainer"},
                                   {"compartmentId": "c", "displayName": "team/trainer", "isPublic": False}])
def test_private_container_repositories_pass(props):
    assert found(CONTAINER_REPOSITORY, props) == []


@pytest.mark.parametrize("vnics, count", [
    ([{"subnetId": "s", "isPublicIpAssigned": True}], 1), ([{"subnetId": "s"}], 1),
    ([{"subnetId": "s", "isPublicIpAssigned": False}, {"subnetId": "s2", "isPublicIpAssigned": U}], 1),
    (U, 1), ([{"subnetId": "s", "isPublicIpAssigned": False}], 0),
])
def test_container_instances_are_private_only_with_a_literal_false(vnics, count):
    props = {"availabilityDomain": "AD-1", "compartmentId": "c", "shape": "CI.Standard.E4.Flex",
             "containers": [{"imageUrl": "iad.ocir.io/ns/app@sha256:" + "a" * 64}], "vnics": vnics}
    assert len(found(CONTAINER_INSTANCE, props)) == count


@pytest.mark.parametrize("listing, count", [("COMMUNITY", 1), ("PARTNER", 1), ("community", 1), (U, 1),
                                            ("PRIVATE", 0)])
def test_marketplace_publications_other_than_private_listings_are_refused(listing, count):
    props = {"compartmentId": "c", "name": "trainer-image", "listingType": listing, "isAgreementAcknowledged": True,
             "packageDetails": {"packageType": "IMAGE", "packageVersion": "1.0", "imageId": "ocid1.image.oc1..i",
                                "operatingSystem": {"name": "Oracle Linux"}, "eulas": [{"eulaType": "TEXT"}]}}
    assert len(found(MARKETPLACE_PUBLICATION, props)) == count


def test_the_pack_refuses_a_public_container_repository_and_passes_a_private_one():
    report = run(res(CONTAINER_REPOSITORY, "public", {"compartmentId": "c", "displayName": "a", "isPublic": True}),
                 res(CONTAINER_REPOSITORY, "private", {"compartmentId": "c", "displayName": "b", "isPublic": False}),
                 policy=RULE)
    [message] = messages(report, RULE)
    assert "ContainerRepository 'public'" in message


#: Representative public values of the flags that publish data (camelCase, as the engine shows them).
PUBLIC_VALUES = {"isPublic": True, "accessType": "ObjectRead", "listingType": "COMMUNITY"}
#: Resources with such a flag that no-public-endpoints deliberately does not judge, and why.
NOT_PUBLISHING = {
    "oci:GoldenGate/deployment:Deployment": "a public console behind GoldenGate's own login (threat model: not "
                                            "covered yet)",
    "oci:Database/autonomousDatabaseSaasAdminUser:AutonomousDatabaseSaasAdminUser":
        "accessType is the SaaS administrator's privilege; the user itself is refused by iam-no-static-credentials",
}


def _publishing_flags() -> dict[str, set[str]]:
    """Engine token → the data-publishing flags (``isPublic``, ``accessType``, ``listingType``) its Args take, for
    every resource of the installed pulumi_oci."""
    import re
    from pathlib import Path

    import pulumi_oci
    found: dict[str, set[str]] = {}
    snake = {"is_public": "isPublic", "access_type": "accessType", "listing_type": "listingType"}
    for path in Path(pulumi_oci.__file__).parent.glob("*/*.py"):
        if path.name.startswith(("get_", "_")) or path.name == "outputs.py":
            continue
        text = path.read_text()
        args = re.search(r"^class \w+Args:\n    def __init__\(__self__, \*,\n(.*?)\):", text, re.M | re.S)
        token = re.search(r"'(oci:[A-Za-z]+/[A-Za-z0-9]+:[A-Za-z0-9]+)'", text)
        if not args or not token:
            continue
        params = set(re.findall(r"^\s+(\w+): pulumi\.Input", args.group(1), re.M))
        flags = {snake[p] for p in params & set(snake)}
        if flags:
            found[token.group(1)] = flags
    return found


def test_every_sdk_resource_with_a_publishing_flag_is_judged_or_named():
    """A resource of the installed SDK that takes isPublic, accessType or listingType is refused when the flag says
    public, unless it is named here with the reason it publishes nothing: a new SDK member cannot slip by."""
    flags = _publishing_flags()
    assert {CONTAINER_REPOSITORY, BUCKET, MARKETPLACE_PUBLICATION} <= set(flags)
    assert set(NOT_PUBLISHING) <= set(flags), "a named exception no longer takes a publishing flag"
    for token, names in sorted(flags.items()):
        if token in NOT_PUBLISHING:
            continue
        props = {name: PUBLIC_VALUES[name] for name in names}
        assert found(token, props), (token, props)
