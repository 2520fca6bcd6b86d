"""Red-team programs (pass 4, the UID wall on shared storage and tenant isolation through Kueue): a claim template
naming a volume; a pod lowering the privileged-port floor; an export or a Lustre file system leaving root unsquashed
for the pods; GPU pods outside every quota; ClusterQueues that hand a dedicated pool to other namespaces. Registered
in ``programs.CASES`` on import; each control differs only in what makes the input unsafe."""
from __future__ import annotations

import pulumi_kubernetes as k8s
import pulumi_oci as oci

from tests.policies.redteam.programs import C, case
from tests.policies.redteam.programs_oci import FSS
from tests.policies.redteam.programs_tenants import VOLUMES, restricted, tenant


@case("data", VOLUMES)
def ephemeral_claim_template_names_a_volume(bad):
    """A generic ephemeral volume's claim template names a PersistentVolume nobody reserved for the tenant."""
    tenant("analytics")
    spec = {"accessModes": ["ReadWriteOnce"], "storageClassName": "oci-bv" if not bad else "",
            "resources": {"requests": {"storage": "1Gi"}}, **({"volumeName": "oke-rdma-prepare"} if bad else {})}
    k8s.core.v1.Pod("w", metadata={"name": "w", "namespace": "analytics"}, spec={
        "containers": [restricted()], "volumes": [{"name": "d", "ephemeral": {"volumeClaimTemplate": {"spec": spec}}}]})


@case("data", "pods-keep-the-privileged-port-floor")
def tenant_pod_lowers_the_privileged_port_floor(bad):
    """ip_unprivileged_port_start=0 (Pod Security restricted admits it): a non-root NFS client on a port below 1024."""
    tenant("analytics")
    floor = [{"name": "net.ipv4.ip_unprivileged_port_start", "value": "0" if bad else "1024"}]
    k8s.core.v1.Pod("w", metadata={"name": "w", "namespace": "analytics"}, spec={
        "securityContext": {"sysctls": floor}, "containers": [restricted()]})


@case("data", "storage-trusts-only-node-addresses")
def export_unsquashed_for_the_pods_range(bad):
    """identitySquash NONE for a range no node pool of the stack places nodes in (the pods' /18)."""
    oci.filestorage.Export("e", **FSS, path="/shared", export_options=[{
        "source": "10.0.64.0/18", "access": "READ_WRITE", "identity_squash": "NONE" if bad else "ROOT",
        "require_privileged_source_port": True}])


@case("data", "storage-trusts-only-node-addresses")
def lustre_exempts_the_whole_vcn_from_root_squash(bad):
    """Lustre clientExceptions of the whole VCN: every pod and node is root on every file."""
    oci.lustre.FileStorageLustreFileSystem(
        "lustre", availability_domain="Uocm:US-ASHBURN-AD-1", compartment_id=C, capacity_in_gbs=31200,
        file_system_name="scratch", performance_tier="MBPS_PER_TB_125", subnet_id="ocid1.subnet.oc1..s",
        root_squash_configuration={"identity_squash": "ROOT", "squash_uid": "65534", "squash_gid": "65534",
                                   "client_exceptions": ["10.0.0.0/16" if bad else "10.0.10.5/32"]})


def _cluster_queue(name: str, selector: dict, quota: int, **extra) -> None:
    k8s.apiextensions.CustomResource(
        f"cq-{name}", api_version="kueue.x-k8s.io/v1beta2", kind="ClusterQueue", metadata={"name": name},
        spec={"namespaceSelector": selector, "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [
            {"name": "research-h100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": quota}]}]}], **extra})


def _pin(ns: str) -> dict:
    return {"matchLabels": {"kubernetes.io/metadata.name": ns}}


@case("placement", "gpu-pods-only-in-tenant-namespaces")
def gpu_pods_in_a_namespace_outside_the_tenancy_model(bad):
    """4 x 8-GPU pods tolerating the GPU taint in a namespace with no quota and no LocalQueue."""
    k8s.core.v1.Namespace("ns-batch", metadata={"name": "batch", "labels": {
        "pod-security.kubernetes.io/enforce": "restricted"}})
    limits = {"nvidia.com/gpu": "8"} if bad else {"cpu": "1"}
    k8s.apps.v1.Deployment("d", metadata={"name": "d", "namespace": "batch"}, spec={
        "replicas": 4, "selector": {"matchLabels": {"app": "d"}}, "template": {
            "metadata": {"labels": {"app": "d"}}, "spec": {"containers": [restricted(resources={"limits": limits})]}}})


@case("placement", "cluster-queues-select-one-namespace")
def dedicated_cluster_queue_selects_every_namespace(bad):
    """research's ClusterQueue on its dedicated pool with namespaceSelector {}: any namespace's LocalQueue."""
    tenant("research", gpus="16")
    _cluster_queue("research", {} if bad else _pin("research"), 16)


@case("placement", "tenant-cohorts-hold-only-tenants")
def strangers_cluster_queue_borrows_from_the_tenants_cohort(bad):
    """A ClusterQueue of namespace apps joins research's cohort with no quota and borrows its dedicated GPUs."""
    tenant("research", gpus="16")
    _cluster_queue("research", _pin("research"), 16, cohortName="tenants")
    _cluster_queue("apps", _pin("apps"), 0, **({"cohortName": "tenants", "preemption": {
        "borrowWithinCohort": {"policy": "LowerPriority"}, "reclaimWithinCohort": "Any"}} if bad else {}))


@case("supply-chain", "kubernetes-manifest-source-pinned")
def kustomize_local_directory_pulls_a_remote_base_at_a_branch(bad):
    """A local kustomize Directory whose kustomization.yaml pulls github.com/...//deploy?ref=main beside a local pod."""
    import os
    import tempfile

    directory = os.path.join(tempfile.gettempdir(), f"rt-kustomize-{os.getpid()}-{'bad' if bad else 'safe'}")
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "pod.yaml"), "w", encoding="utf-8") as f:
        f.write("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: apps}\ndata: {a: b}\n")
    remote = ["https://github.com/evil-org/manifests//deploy?ref=main"] if bad else []
    with open(os.path.join(directory, "kustomization.yaml"), "w", encoding="utf-8") as f:
        f.write("resources: " + repr(["pod.yaml", *remote]).replace("'", '"') + "\n")
    k8s.core.v1.Namespace("ns-apps", metadata={"name": "apps", "labels": {
        "pod-security.kubernetes.io/enforce": "restricted"}})
    k8s.kustomize.v2.Directory("k", directory=directory)
