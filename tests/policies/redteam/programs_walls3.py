"""Red-team programs (pass 3, pods and tenants): GPUs through an envFrom ConfigMap, a CDI annotation or DRA resource
claims; an unpinned image volume; a tenant pod pinned to a node by hostname affinity or selector; a tenant pod running
as another tenant's storage UID, and one mounting a static claim of unknown owner whole; a route and hand-written
Endpoints into another tenant. Registered in ``programs.CASES`` on import; each control differs only in what makes
the input unsafe."""
from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import case
from tests.policies.redteam.programs_tenants import IMAGE, restricted, tenant

PSA = "pod-security.kubernetes.io/enforce"
GPU, GPU_FROM = "gpu-devices-through-device-plugin", "gpu-env-from-sources-without-gpus"
SCHEDULING, IDS, REFS = ("tenant-pods-scheduled-by-the-platform", "tenant-pods-run-as-their-storage-ids",
                         "tenant-references-inside-the-wall")


def apps() -> None:
    k8s.core.v1.Namespace("ns-apps", metadata={"name": "apps", "labels": {PSA: "restricted"}})


def plain_pod(ns: str = "apps", annotations: dict | None = None, **spec) -> None:
    k8s.core.v1.Pod("w", metadata={"name": "w", "namespace": ns, "annotations": annotations or {}},
                    spec={"containers": [restricted()], **spec})


@case("pod", GPU_FROM)
def gpu_env_from_a_config_map(bad):
    """A ConfigMap imported whole with envFrom carries NVIDIA_VISIBLE_DEVICES=all: every GPU of the node."""
    apps()
    k8s.core.v1.ConfigMap("cm", metadata={"name": "gpu-env", "namespace": "apps"},
                          data={"NVIDIA_VISIBLE_DEVICES": "all" if bad else "void"})
    plain_pod(containers=[restricted(envFrom=[{"configMapRef": {"name": "gpu-env"}}])])


@case("pod", GPU_FROM)
def gpu_env_from_a_secret_by_prefix(bad):
    """A Secret's key DEVICES imported with prefix NVIDIA_VISIBLE_ makes NVIDIA_VISIBLE_DEVICES."""
    apps()
    k8s.core.v1.Secret("s", metadata={"name": "gpu-env", "namespace": "apps"}, string_data={"DEVICES": "all"})
    plain_pod(containers=[restricted(envFrom=[{"secretRef": {"name": "gpu-env"},
                                               "prefix": "NVIDIA_VISIBLE_" if bad else "APP_"}])])


@case("pod", GPU)
def gpu_through_a_cdi_annotation(bad):
    """A cdi.k8s.io/ pod annotation makes the runtime inject nvidia.com/gpu=all past the device plugin."""
    apps()
    plain_pod(annotations={"cdi.k8s.io/gpus" if bad else "example.com/note": "nvidia.com/gpu=all"})


@case("pod", GPU)
def gpu_through_dra_resource_claims(bad):
    """Dynamic Resource Allocation claims devices outside the nvidia.com/gpu quota and Kueue."""
    apps()
    plain_pod(**({"resourceClaims": [{"name": "g", "resourceClaimTemplateName": "all-gpus"}]} if bad else {}))


@case("supply-chain", "container-image-pinned")
def image_volume_unpinned(bad):
    """An image volume names an image the kubelet pulls: an unreviewed registry and a moving tag."""
    apps()
    ref = "evil.example.com/payload:latest" if bad else IMAGE
    plain_pod(volumes=[{"name": "m", "image": {"reference": ref}}],
              containers=[restricted(volumeMounts=[{"name": "m", "mountPath": "/models"}])])


@case("placement", SCHEDULING)
def tenant_pod_node_affinity_to_a_hostname(bad):
    """A required node affinity on kubernetes.io/hostname pins the pod to one node, like nodeName."""
    tenant("analytics")
    key = "kubernetes.io/hostname" if bad else "okerdma.io/node-pool"
    plain_pod("analytics", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": ["10.0.16.23"]}]}]}}})


@case("placement", SCHEDULING)
def tenant_pod_match_fields_on_a_node_name(bad):
    """matchFields metadata.name picks one node by its name."""
    tenant("analytics")
    term = ({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["10.0.16.23"]}]} if bad else
            {"matchExpressions": [{"key": "okerdma.io/node-pool", "operator": "In", "values": ["gpu"]}]})
    plain_pod("analytics", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [term]}}})


def _shared(ns: str, uid: int) -> None:
    k8s.core.v1.PersistentVolumeClaim(f"pvc-{ns}", metadata={"name": "fss-shared", "namespace": ns, "annotations": {
        "okerdma.io/sub-path": ns, "okerdma.io/uid": str(uid), "okerdma.io/gid": str(uid)}},
        spec={"accessModes": ["ReadWriteMany"], "storageClassName": "", "resources": {"requests": {"storage": "1Mi"}}})


@case("data", IDS)
def tenant_pod_runs_as_another_tenants_uid(bad):
    """Every tenant volume mounts the whole export: running as research's UID reads research's directory."""
    tenant("research"), tenant("analytics")
    _shared("research", 20001), _shared("analytics", 20002)
    ids = 20001 if bad else 20002
    k8s.core.v1.Pod("w", metadata={"name": "w", "namespace": "analytics"}, spec={
        "securityContext": {"runAsUser": ids, "runAsGroup": ids},
        "volumes": [{"name": "s", "persistentVolumeClaim": {"claimName": "fss-shared"}}],
        "containers": [restricted(volumeMounts=[{"name": "s", "mountPath": "/shared"}])]},
        opts=pulumi.ResourceOptions())


@case("data", IDS)
def tenant_pod_mounts_a_static_claim_of_unknown_owner_whole(bad):
    """A static claim without the owner annotations mounted without subPath: every tenant directory is below."""
    tenant("analytics")
    k8s.core.v1.PersistentVolumeClaim("pvc", metadata={"name": "fss-shared", "namespace": "analytics"}, spec={
        "accessModes": ["ReadWriteMany"], "storageClassName": "", "resources": {"requests": {"storage": "1Mi"}}})
    mount = {"name": "s", "mountPath": "/shared", **({} if bad else {"subPath": "analytics"})}
    plain_pod("analytics", volumes=[{"name": "s", "persistentVolumeClaim": {"claimName": "fss-shared"}}],
              containers=[restricted(volumeMounts=[mount])])


@case("network", REFS)
def gateway_route_into_another_tenant(bad):
    """analytics routes the shared gateway to research's Service; research's ReferenceGrant admits it. (The shared
    Gateway is one the stack does not declare, which routes-attach-to-declared-gateways refuses on its own: both
    variants here attach to the Service instead, a mesh parent, to keep this case about the backend.)"""
    tenant("research"), tenant("analytics")
    k8s.apiextensions.CustomResource("rg", api_version="gateway.networking.k8s.io/v1beta1", kind="ReferenceGrant",
                                     metadata={"name": "from-analytics", "namespace": "research"}, spec={
                                         "from": [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute",
                                                   "namespace": "analytics"}], "to": [{"group": "", "kind": "Service"}]})
    backend = {"name": "llm", "port": 8000, **({"namespace": "research"} if bad else {})}
    k8s.apiextensions.CustomResource("route", api_version="gateway.networking.k8s.io/v1", kind="HTTPRoute",
                                     metadata={"name": "r", "namespace": "analytics"},
                                     spec={"parentRefs": [{"group": "", "kind": "Service", "name": "llm"}],
                                           "rules": [{"backendRefs": [backend]}]})


@case("network", REFS)
def hand_written_endpoints_behind_a_tenant_service(bad):
    """A Service without a selector plus hand-written Endpoints puts another tenant's pod behind it."""
    tenant("analytics")
    k8s.core.v1.Service("svc", metadata={"name": "llm", "namespace": "analytics"},
                        spec={"ports": [{"port": 8000}], **({} if bad else {"selector": {"app": "llm"}})})
    if bad:
        k8s.core.v1.Endpoints("ep", metadata={"name": "llm", "namespace": "analytics"},
                              subsets=[{"addresses": [{"ip": "10.244.3.7"}], "ports": [{"port": 8000}]}])


@case("placement", SCHEDULING)
def tenant_gpu_pod_on_another_tenants_dedicated_pool(bad):
    """analytics's GPU pod selects research's dedicated pool by label, past Kueue's flavors."""
    tenant("research"), tenant("analytics")
    for pool in ("gpu", "shared"):
        k8s.apiextensions.CustomResource(f"rf-{pool}", api_version="kueue.x-k8s.io/v1beta2", kind="ResourceFlavor",
                                         metadata={"name": pool}, spec={"nodeLabels": {"okerdma.io/node-pool": pool}})
    for ns, pool in (("research", "gpu"), ("analytics", "shared")):
        k8s.apiextensions.CustomResource(f"cq-{ns}", api_version="kueue.x-k8s.io/v1beta2", kind="ClusterQueue",
                                         metadata={"name": ns}, spec={
                                             "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}},
                                             "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"],
                                                                 "flavors": [{"name": pool, "resources": [
                                                                     {"name": "nvidia.com/gpu", "nominalQuota": 8}]}]}]})
    plain_pod("analytics", nodeSelector={"okerdma.io/node-pool": "gpu" if bad else "shared"},
              containers=[restricted(resources={"limits": {"nvidia.com/gpu": 1}})])
