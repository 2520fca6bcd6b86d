"""Red-team programs for the supply chain (images, charts, remote references) and for inputs no rule can read
(another shape than the provider takes, several IAM statements in one string, conditions nested past the parser's
limit). Registered into ``programs.CASES`` on import, like every ``programs_<area>.py``."""
from __future__ import annotations

import pulumi_kubernetes as k8s
import pulumi_oci as oci

from tests.policies.redteam.programs import C, case, namespace, pod, release, statements

SHA = "101db144e019e1de65aaded07745e9d805c2852a"
DIGEST = "sha256:" + "0123456789abcdef" * 4
RESTRICTED = {"runAsNonRoot": True, "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]},
              "seccompProfile": {"type": "RuntimeDefault"}}


def _container(image: str) -> dict:
    return {"name": "c", "image": image, "securityContext": RESTRICTED}


@case("supply-chain", "container-image-pinned")
def workload_image_with_an_implied_registry(bad):
    pod({"containers": [_container("nginx:1.27" if bad else "docker.io/library/nginx:1.27")]}, kind="Job")


@case("supply-chain", "container-image-pinned")
def workload_image_from_an_unlisted_registry_by_tag(bad):
    ref = "images.evil.example.com/trainer:1.0" + ("" if bad else f"@{DIGEST}")
    pod({"containers": [_container(ref)]}, kind="DaemonSet")


@case("supply-chain", "container-image-pinned")
def operator_resource_image_with_an_implied_registry(bad):
    pod({"containers": [_container(("pytorch/pytorch:2.5.1" if bad else "docker.io/pytorch/pytorch:2.5.1") + f"@{DIGEST}")]},
        kind="PyTorchJob")


@case("supply-chain", "container-image-pinned")
def chart_values_override_the_image_registry(bad):
    release({"image": {"keda": {"registry": "images.evil.example.com" if bad else "ghcr.io",
                                "repository": "kedacore/keda", "tag": "2.20.2"}}})


@case("supply-chain", "container-image-pinned")
def chart_values_global_image_registry(bad):
    """A registry override moves every image of the chart to <host>/<the chart's repository path>: the host must be
    trusted whole (a single-publisher registry or the organisation's mirror), never a multi-tenant one."""
    release({"global": {"imageRegistry": "images.evil.example.com" if bad else "registry.k8s.io"}})


@case("supply-chain", "container-image-pinned")
def chart_values_image_registry_override_to_a_multi_tenant_host(bad):
    """ghcr.io/<the chart's repository path> is whoever owns that name on GHCR, not the chart's publisher."""
    release({"global": {"imageRegistry": "ghcr.io" if bad else "container-registry.oracle.com"}})


@case("supply-chain", "chart-repository-https")
def chart_repository_over_plain_http(bad):
    namespace("apps", "restricted")
    k8s.helm.v3.Release("rel", chart="keda", version="2.20.2", namespace="apps", repository_opts={
        "repo": "http://kedacore.github.io/charts" if bad else "https://kedacore.github.io/charts"})


@case("supply-chain", "resource-type-catalogued")
def python_side_helm_chart_hides_its_source(bad):
    namespace("apps", "restricted")
    if bad:
        k8s.helm.v3.Chart("keda", k8s.helm.v3.ChartOpts(chart="keda", version="2.20.2", namespace="apps",
                                                        fetch_opts=k8s.helm.v3.FetchOpts(
                                                            repo="https://kedacore.github.io/charts")))
    else:
        k8s.helm.v3.Release("keda", chart="keda", version="2.20.2", namespace="apps",
                            repository_opts={"repo": "https://kedacore.github.io/charts"})


@case("supply-chain", "kubernetes-manifest-source-pinned")
def kustomization_with_a_sha_beside_a_branch_ref(bad):
    ref = f"ref=main&pin={SHA}" if bad else f"ref={SHA}"
    k8s.kustomize.v2.Directory("trainer", directory=f"https://github.com/kubeflow/trainer.git//manifests?{ref}")


@case("identity", "input-shape-readable")
def policy_statements_as_one_string(bad):
    text = "Allow group Admins to manage all-resources in tenancy"
    oci.identity.Policy("p", compartment_id=C, description="red team",
                        statements=text if bad else ["Allow group ml to read buckets in tenancy"])


@case("network", "input-shape-readable")
def bastion_client_list_as_one_string(bad):
    oci.bastion.Bastion("b", bastion_type="STANDARD", compartment_id=C, target_subnet_id="ocid1.subnet.oc1..aaaa",
                        client_cidr_block_allow_lists="0.0.0.0/0" if bad else ["10.0.0.0/16"])


@case("identity", "iam-no-identity-escalation")
def two_statements_in_one_string(bad):
    first = "Allow group ml to read buckets in tenancy"
    statements(f"{first}\nAllow group ml to manage all-resources in tenancy" if bad else first)


@case("identity", "iam-no-identity-escalation")
def condition_nested_past_the_parser(bad):
    depth = 40 if bad else 1
    pinned = ("request.principal.type = 'workload', request.principal.namespace = 'ml', "
              "request.principal.service_account = 'trainer', request.principal.cluster_id = 'ocid1.cluster.oc1..aaaa'")
    where = "all {" * depth + pinned + "}" * depth
    statements(f"Allow any-user to read buckets in compartment id {C} where {where}")


@case("supply-chain", "container-image-pinned")
def workload_image_from_any_docker_hub_account_by_tag(bad):
    """Docker Hub is a registry anyone publishes to: an account's tag is trusted no more than an unknown host's;
    the control takes the same image by digest."""
    ref = "docker.io/xmrig4u/xmrig:6.21" + ("" if bad else f"@{DIGEST}")
    pod({"containers": [_container(ref)]}, kind="Job")


@case("supply-chain", "container-image-pinned")
def workload_image_from_another_tenancys_ocir_namespace_by_tag(bad):
    """Every OCI tenancy has a namespace on <region>.ocir.io: another tenancy's image by tag is refused; the control
    is the OCI HPC team's published nccl-tests namespace the product's examples use."""
    ns = "someoneelsestenancy" if bad else "idxzjcdglx2s"
    pod({"containers": [_container(f"iad.ocir.io/{ns}/nccl-tests:cuda-13.4.1-ubuntu-24.04-nccl-2.32.3-100526.0")]},
        kind="Job")
