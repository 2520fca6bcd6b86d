"""Supply chain as one class: every container image (workloads, operator resources, chart values, objects rendered
from values) names its registry host and is pinned by digest or from an allowed registry with a version tag; charts
come over HTTPS or OCI; a remote manifest or kustomization is pinned only by a full commit SHA, however the URL
spells its revision."""
from __future__ import annotations

import pytest

from policies.security.manifests import CONFIG_FILE, CONFIG_GROUP, KUSTOMIZE, validate_manifest_source
from policies.security.supply_chain import (DEFAULT_ALLOWED_REGISTRIES, image_problem, validate_chart_https,
                                            validate_image_pinned)
from tests.policies.test_policies import U, call_resource_rule

DIGEST = "@sha256:" + "a" * 64
SHA = "101db144e019e1de65aaded07745e9d805c2852a"
RELEASE, CHART4 = "kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"


def deployment(*images) -> dict:
    return {"metadata": {"name": "d", "namespace": "apps"}, "spec": {"template": {"spec": {
        "containers": [{"name": f"c{i}", "image": image} for i, image in enumerate(images)]}}}}


@pytest.mark.parametrize("ref", [
    "registry.k8s.io/kubectl:v1.34.1", "docker.io/library/python:3.12.10-slim-bookworm", "nvcr.io/nvidia/cuda:12.4.1",
    "iad.ocir.io/idxzjcdglx2s/nccl-tests:cuda-13.4.1-ubuntu-24.04-nccl-2.32.3-100526.0",
    f"sa-saopaulo-1.ocir.io/ns/app{DIGEST}", f"evil.example.com/app{DIGEST}", f"localhost:5000/app{DIGEST}",
    f"docker.io/library/nginx:1.27{DIGEST}",
])
def test_images_with_a_host_pinned_by_digest_or_from_an_allowed_registry_pass(ref):
    assert image_problem(ref, DEFAULT_ALLOWED_REGISTRIES) is None


@pytest.mark.parametrize("ref, said", [
    ("nginx", "names no registry host"), ("library/nginx:1.27", "names no registry host"),
    (f"nginx{DIGEST}", "names no registry host"), ("mpioperator/mpi-operator:0.8.0", "names no registry host"),
    ("evil.example.com/app:1.0", "no allowedRegistries prefix covers"), ("docker.io/library/nginx", "no tag"),
    ("docker.io/library/nginx:latest", "the tag latest"), ("docker.io/library/nginx@sha256:abc", "digest"),
    (U, "unknown"), (42, "not an image reference"), ("docker.io/a b:1", "not an image reference"),
])
def test_unpinned_or_implied_images_are_refused(ref, said):
    from policies.security._rules import UNKNOWN
    problem = image_problem(UNKNOWN if ref == U else ref, DEFAULT_ALLOWED_REGISTRIES)
    assert problem and said in problem


def test_workload_and_operator_resource_images_are_judged():
    assert call_resource_rule(validate_image_pinned, DEPLOYMENT, deployment("registry.k8s.io/pause:3.10")) == []
    [message] = call_resource_rule(validate_image_pinned, DEPLOYMENT, deployment("registry.k8s.io/pause:3.10", "nginx"))
    assert "containers[1].image" in message
    rayjob = {"metadata": {"name": "r"}, "spec": {"rayClusterSpec": {"headGroupSpec": {"template": {"spec": {
        "containers": [{"name": "head", "image": "rayproject/ray:2.40.0"}]}}}}}}
    assert call_resource_rule(validate_image_pinned, "kubernetes:ray.io/v1:RayJob", rayjob)
    job = {"metadata": {"name": "j"}, "spec": {"template": {"spec": {
        "initContainers": [{"name": "i", "image": "busybox:1.36"}], "containers": [{"name": "c", "image": U}]}}}}
    found = call_resource_rule(validate_image_pinned, "kubernetes:batch/v1:Job", job)
    assert len(found) == 2 and any("unknown" in f for f in found)


@pytest.mark.parametrize("values, said", [
    ({"image": "nginx:1.27"}, "values.image"),
    ({"controller": {"image": {"registry": "evil.example.com", "repository": "ctl", "tag": "1.0"}}}, "evil.example"),
    ({"driver": {"repository": "evil.example.com/nvidia", "image": "driver", "version": "550"}}, "evil.example"),
    ({"global": {"imageRegistry": "evil.example.com"}}, "imageRegistry"),
    ({"image": {"repository": "docker.io/library/nginx", "tag": "latest"}}, "latest"),
    ({"sidecars": [{"name": "s", "image": "busybox"}]}, "sidecars[0].image"),
    ({"extraObjects": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                        "spec": {"containers": [{"name": "c", "image": "nginx"}]}}]}, "extraObjects"),
    ({"image": U}, "unknown"),
])
def test_images_named_by_chart_values_are_judged(values, said):
    for type_ in (RELEASE, CHART4):
        found = call_resource_rule(validate_image_pinned, type_, {"chart": "c", "values": values})
        assert found and said in " ".join(found), found


@pytest.mark.parametrize("values", [
    {"image": {"tag": "v2.0.1"}},  # a tag-only override keeps the chart's own repository
    {"image": {"registry": "registry.k8s.io", "repository": "kueue/kueue", "tag": "v0.18.2"}},
    {"driver": {"enabled": False}, "toolkit": {"repository": "nvcr.io/nvidia/k8s", "image": "container-toolkit",
                                               "version": "v1.17.0"}},
    {"image": {"repository": "evil.example.com/x", "digest": "sha256:" + "b" * 64}},
    {"replicaCount": 2},
])
def test_pinned_or_chart_default_images_in_values_pass(values):
    assert call_resource_rule(validate_image_pinned, RELEASE, {"chart": "c", "values": values}) == []


def test_allowed_registries_come_from_the_policy_config():
    from pulumi_policy import ResourceValidationArgs
    from tests.policies.test_policies import proxied, urn
    found: list[str] = []
    args = ResourceValidationArgs(DEPLOYMENT, proxied(deployment("registry.k8s.io/pause:3.10")), urn(DEPLOYMENT, "d"),
                                  "d", None, None, {"allowedRegistries": ["mirror.example.com"]})  # type: ignore
    validate_image_pinned(args, lambda m, u=None: found.append(m))
    assert found and "no allowedRegistries prefix covers" in found[0]


@pytest.mark.parametrize("props, ok", [
    ({"chart": "c", "repositoryOpts": {"repo": "https://charts.example.com"}}, True),
    ({"chart": "oci://registry.example.com/charts/c"}, True),
    ({"chart": "c", "repositoryOpts": {"repo": "http://charts.example.com"}}, False),
    ({"chart": "http://charts.example.com/c-1.0.0.tgz"}, False),
    ({"chart": "c", "repositoryOpts": {"repo": "ftp://charts.example.com"}}, False),
])
def test_charts_come_over_https_or_oci(props, ok):
    for type_ in (RELEASE, CHART4):
        assert (call_resource_rule(validate_chart_https, type_, props) == []) is ok


@pytest.mark.parametrize("type_, props", [
    (KUSTOMIZE, {"directory": f"https://github.com/org/repo//overlays/prod?ref={SHA}&timeout=120"}),
    (KUSTOMIZE, {"directory": f"https://gitlab.com/group/repo.git//deploy?version={SHA}"}),
    (CONFIG_FILE, {"file": f"https://github.com/org/repo/raw/{SHA}/deploy/x.yaml"}),
    (CONFIG_FILE, {"file": f"https://gitlab.com/group/sub/repo/-/raw/{SHA}/deploy/x.yaml"}),
    (CONFIG_FILE, {"file": f"https://bitbucket.org/org/repo/raw/{SHA}/x.yaml"}),
])
def test_remote_references_at_a_full_commit_pass_however_spelled(type_, props):
    assert call_resource_rule(validate_manifest_source, type_, props) == []


@pytest.mark.parametrize("type_, props", [
    (KUSTOMIZE, {"directory": f"https://github.com/org/repo//overlays?ref=main&pin={SHA}"}),  # SHA beside a branch
    (KUSTOMIZE, {"directory": f"https://github.com/org/repo//overlays?ref={SHA}&ref=main"}),  # a second ref
    (KUSTOMIZE, {"directory": f"https://github.com/{SHA}/repo//overlays?ref=main"}),  # SHA as the organisation
    (KUSTOMIZE, {"directory": f"https://github.com/org/{SHA}//overlays"}),  # SHA as the repository name
    (CONFIG_FILE, {"file": f"https://github.com/org/repo/releases/download/{SHA}/x.yaml"}),  # a tag named like one
    (CONFIG_FILE, {"file": f"https://raw.githubusercontent.com/org/repo/refs/heads/{SHA}/x.yaml"}),
    (CONFIG_GROUP, {"files": [f"https://gitlab.com/group/repo/-/raw/main/{SHA}.yaml"]}),
    (KUSTOMIZE, {"directory": f"git::https://github.com/org/repo.git//x?ref={SHA.upper()}"}),
])
def test_a_sha_anywhere_but_the_revision_pins_nothing(type_, props):
    assert call_resource_rule(validate_manifest_source, type_, props)


def test_an_oci_container_instances_images_are_judged():
    ci = "oci:ContainerEngine/containerInstance:ContainerInstance"
    assert call_resource_rule(validate_image_pinned, ci, {"containers": [{"imageUrl": f"iad.ocir.io/ns/tool{DIGEST}"}]}) == []
    [message] = call_resource_rule(validate_image_pinned, ci, {"containers": [{"imageUrl": "busybox:1.36"}]})
    assert "containers[0].imageUrl" in message


@pytest.mark.parametrize("tag", ["main", "master", "stable", "edge", "nightly", "3", "v1", "1.2-latest", "dev"])
def test_a_tag_that_moves_like_a_branch_or_channel_is_refused(tag):
    problem = image_problem(f"ghcr.io/org/app:{tag}", ["ghcr.io/org/"])
    assert problem and "does not look like a version" in problem


@pytest.mark.parametrize("tag", ["1.4.2", "v0.17.1-ubi9", "25.3.0-ubuntu22.04", "25.01-py3", "2.20", "20260930",
                                 "cuda-13.4.1-ubuntu-24.04-nccl-2.32.3-100526.0"])
def test_a_version_tag_from_an_allowed_registry_passes(tag):
    assert image_problem(f"ghcr.io/org/app:{tag}", ["ghcr.io/org/"]) is None


def test_allowed_tags_accept_a_reviewed_tag_that_is_no_version():
    assert image_problem("ghcr.io/org/app:build-7f3a2c1", ["ghcr.io/org/"], ["build-*"]) is None
    assert image_problem("ghcr.io/org/app:build-7f3a2c1", ["ghcr.io/org/"])


@pytest.mark.parametrize("ref", [
    "docker.io/xmrig4u/xmrig:6.21",  # any Docker Hub account
    "iad.ocir.io/someoneelsestenancy/miner:1.0",  # any tenancy's OCIR namespace
    "quay.io/attacker/tool:1.0", "ghcr.io/attacker/tool:1.0", "nvcr.io/attacker-org/tool:1.0",
    "nvcr.io/nvidia-evil/tool:1.0",  # a namespace that only starts like an allowed one
])
def test_images_of_any_publisher_on_a_multi_tenant_registry_need_a_digest(ref):
    """Trust names a registry namespace (docker.io/library/, nvcr.io/nvidia/), never the host anyone publishes to."""
    problem = image_problem(ref, DEFAULT_ALLOWED_REGISTRIES)
    assert problem and "no allowedRegistries prefix covers" in problem
    assert image_problem(ref.split(":")[0] + DIGEST, DEFAULT_ALLOWED_REGISTRIES) is None


def test_an_entry_naming_a_whole_multi_tenant_host_trusts_nothing_and_says_so():
    for entry in ("docker.io", "docker.io/", "*.ocir.io", "quay.io/"):
        problem = image_problem("docker.io/xmrig4u/xmrig:6.21" if "docker" in entry
                                else "quay.io/x/y:1.0" if "quay" in entry else "iad.ocir.io/x/y:1.0", [entry])
        assert problem and "ignored" in problem
    assert image_problem("iad.ocir.io/mytenancy/app:1.0", ["*.ocir.io/mytenancy/"]) is None
    assert image_problem("mirror.example.com/app:1.0", ["mirror.example.com"]) is None  # a single-tenant host
