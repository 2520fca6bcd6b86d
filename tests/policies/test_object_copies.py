"""A server-side object copy (StorageObject with sourceUriDetails) lands in a bucket the stack declares, and a copy
out of a protected bucket lands in a protected bucket; uploads (content) are judged by their bucket."""
from __future__ import annotations

import pytest

from tests.policies.test_policies import U, messages, res, run

RULE = "object-copy-stays-in-the-platform"
BUCKET, OBJECT = "oci:ObjectStorage/bucket:Bucket", "oci:ObjectStorage/storageObject:StorageObject"


def bucket(name: str, protect: bool, namespace: str = "platformns"):
    b = res(BUCKET, name, {"name": name, "namespace": namespace})
    b.protect = protect
    return b


def copy(dest_ns: str, dest: str, src: dict | None, deps: dict | None = None, **extra):
    props = {"namespace": dest_ns, "bucket": dest, "object": "model.safetensors", **extra}
    if src is not None:
        props["sourceUriDetails"] = src
    return res(OBJECT, "o", props, deps=deps)


WEIGHTS_SRC = {"region": "us-ashburn-1", "namespace": "platformns", "bucket": "weights", "object": "model.safetensors"}


@pytest.mark.parametrize("obj", [
    copy("outsidens", "loot", WEIGHTS_SRC),  # into a bucket of another namespace
    copy("platformns", "elsewhere", {**WEIGHTS_SRC, "bucket": "public-data"}),  # into a bucket the stack lacks
    copy("platformns", "scratch", WEIGHTS_SRC),  # from a protected bucket into an unprotected one
    copy("platformns", "scratch", U),  # from an unknown source into an unprotected one
    copy("platformns", U, WEIGHTS_SRC),  # into an unknown bucket
])
def test_copies_out_of_the_platforms_protected_buckets_are_refused(obj):
    assert messages(run(bucket("weights", True), bucket("scratch", False), obj, policy=RULE), RULE)


def test_the_source_bucket_is_followed_through_its_dependency():
    """The source bucket's name read from a protected bucket (the dependency, not the value) makes it protected."""
    weights = bucket("weights", True)
    obj = copy("platformns", "scratch", {**WEIGHTS_SRC, "bucket": U}, deps={"sourceUriDetails": [weights]})
    assert messages(run(weights, bucket("scratch", False), obj, policy=RULE), RULE)


@pytest.mark.parametrize("obj", [
    copy("platformns", "archive", WEIGHTS_SRC),  # protected to protected, same stack
    copy("platformns", "scratch", {**WEIGHTS_SRC, "namespace": "bigdata", "bucket": "public"}),  # outside data in
    copy("outsidens", "loot", None, content="hello"),  # an upload, not a copy: judged by its bucket
])
def test_copies_between_protected_buckets_in_and_uploads_pass(obj):
    resources = (bucket("weights", True), bucket("archive", True), bucket("scratch", False), obj)
    assert messages(run(*resources, policy=RULE), RULE) == []
