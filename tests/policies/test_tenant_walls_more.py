"""More walls between tenants and around the device plugin: GPUs through envFrom sources and device-injection paths
(gpu-env-from-sources-without-gpus, gpu-devices-through-device-plugin), a node picked by name
(tenant-pods-scheduled-by-the-platform), a tenant's pods running as another tenant's storage IDs
(tenant-pods-run-as-their-storage-ids), routes into another namespace (tenant-references-inside-the-wall), image
volumes (container-image-pinned)."""
from __future__ import annotations

import base64

import pytest

from policies.security import gpu_env, tenant_ids, tenant_pods, tenant_refs
from tests.policies.test_policies import U, call_resource_rule, res
from tests.policies.test_tenant_isolation import tenant, violations

POD, CM, SECRET = "kubernetes:core/v1:Pod", "kubernetes:core/v1:ConfigMap", "kubernetes:core/v1:Secret"
PVC = "kubernetes:core/v1:PersistentVolumeClaim"
IMG = "nvcr.io/nvidia/pytorch:25.01-py3"
GPU_FROM = "gpu-env-from-sources-without-gpus"


def pod(spec, ns="analytics", name="w", annotations=None):
    meta = {"name": name, "namespace": ns, **({"annotations": annotations} if annotations else {})}
    return res(POD, name, {"metadata": meta, "spec": {"containers": [{"name": "c", "image": IMG}], **spec}})


def env_from(*sources, ns="apps"):
    return pod({"containers": [{"name": "c", "image": IMG, "envFrom": list(sources)}]}, ns=ns)


def cm(data, name="gpu-env", ns="apps", kind=CM, field="data"):
    return res(kind, name, {"metadata": {"name": name, "namespace": ns}, field: data})


# --- GPUs through envFrom ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("resources", [
    [cm({"NVIDIA_VISIBLE_DEVICES": "all"}), env_from({"configMapRef": {"name": "gpu-env"}})],
    [cm({"ICES": "0,1"}), env_from({"configMapRef": {"name": "gpu-env"}, "prefix": "NVIDIA_VISIBLE_DEVICES"[:-4]})],
    [cm({"NVIDIA_VISIBLE_DEVICES": base64.b64encode(b"all").decode()}, kind=SECRET),
     env_from({"secretRef": {"name": "gpu-env"}})],
    [cm({"NVIDIA_VISIBLE_DEVICES": "all"}, kind=SECRET, field="stringData"), env_from({"secretRef": {"name": "gpu-env"}})],
    [env_from({"configMapRef": {"name": "made-elsewhere"}})],
    [cm(U), env_from({"configMapRef": {"name": "gpu-env"}})],
    [env_from(U)],
], ids=["configmap", "prefix-completes-the-name", "secret-base64", "secret-stringdata", "undeclared", "unknown-data",
        "unknown-entry"])
def test_gpus_imported_through_env_from_are_refused(resources):
    assert violations(GPU_FROM, *resources)


def test_the_prefix_completing_the_name_is_read_as_such():
    """A prefix that NVIDIA_VISIBLE_DEVICES starts with: the key is the rest of the name."""
    found = violations(GPU_FROM, cm({"DEVICES": "all"}), env_from({"configMapRef": {"name": "gpu-env"},
                                                                   "prefix": "NVIDIA_VISIBLE_"}))
    assert found and "'all'" in found[0]


@pytest.mark.parametrize("resources", [
    [cm({"NVIDIA_VISIBLE_DEVICES": "void", "OTHER": "x"}), env_from({"configMapRef": {"name": "gpu-env"}})],
    [env_from({"configMapRef": {"name": "made-elsewhere"}, "prefix": "APP_"})],
    [cm({"NVIDIA_VISIBLE_DEVICES": "all"}, ns="gpu-operator"),
     env_from({"configMapRef": {"name": "gpu-env"}}, ns="gpu-operator")],
], ids=["no-gpu-value", "prefix-rules-it-out", "operator-namespace"])
def test_env_from_without_gpus_passes(resources):
    assert violations(GPU_FROM, *resources) == []


# --- device injection past the plugin ---------------------------------------------------------------------------------
def _props(spec=None, annotations=None, ns="apps"):
    meta = {"name": "p", "namespace": ns, **({"annotations": annotations} if annotations else {})}
    return {"metadata": meta, "spec": {"containers": [{"name": "c", "image": IMG}], **(spec or {})}}


@pytest.mark.parametrize("resource_type, props", [
    (POD, _props(annotations={"cdi.k8s.io/gpus": "nvidia.com/gpu=all"})),
    (POD, _props(annotations={"nvidia.cdi.k8s.io/x": "nvidia.com/gpu=all"})),
    (POD, _props(annotations={"cdi.nri.io/pod": "nvidia.com/gpu=0"})),
    (POD, _props(annotations={"devices.noderesource.dev/container.c": "- path: /dev/nvidia0"})),
    ("kubernetes:apps/v1:Deployment", {"metadata": {"name": "d", "namespace": "apps"}, "spec": {"template": {
        "metadata": {"annotations": {"cdi.k8s.io/g": "nvidia.com/gpu=all"}}, "spec": {"containers": []}}}}),
    ("kubernetes:helm.sh/v3:Release", {"namespace": "apps", "values": {"podAnnotations": {
        "cdi.k8s.io/g": "nvidia.com/gpu=all"}}}),
    (POD, _props({"runtimeClassName": "nvidia"})),
    (POD, _props({"runtimeClassName": U})),
    (POD, _props({"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "all-gpus"}]})),
], ids=["cdi", "vendor-cdi", "nri-cdi", "nri-devices", "template-annotation", "chart-values", "nvidia-runtime",
        "unknown-runtime", "dra-claims"])
def test_device_injection_past_the_plugin_is_refused(resource_type, props):
    assert call_resource_rule(gpu_env.validate_gpu_env, resource_type, props)


@pytest.mark.parametrize("props", [
    _props(annotations={"prometheus.io/scrape": "true"}), _props({"runtimeClassName": "gvisor"}),
    _props({"resourceClaims": []}), _props({"runtimeClassName": "nvidia"}, ns="gpu-operator"),
], ids=["other-annotation", "other-runtime", "no-claims", "operator-namespace"])
def test_other_annotations_runtimes_and_the_operator_pass(props):
    assert call_resource_rule(gpu_env.validate_gpu_env, POD, props) == []


# --- picking a node by name -------------------------------------------------------------------------------------------
def _affinity(term_key, kind="required", field=False):
    expr = {"key": term_key, "operator": "In", "values": ["10.0.16.23"]}
    term = {"matchFields" if field else "matchExpressions": [expr]}
    if kind == "required":
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": term}]}}


@pytest.mark.parametrize("spec", [
    {"affinity": _affinity("kubernetes.io/hostname")},
    {"affinity": _affinity("kubernetes.io/hostname", "preferred")},
    {"affinity": _affinity("metadata.name", field=True)},
    {"nodeSelector": {"kubernetes.io/hostname": "10.0.16.23"}},
    {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "kubernetes.io/hostname", "namespaces": ["research"], "labelSelector": {}}]}}},
    {"affinity": U},
], ids=["required-hostname", "preferred-hostname", "match-fields", "node-selector", "pod-affinity-elsewhere",
        "unknown"])
def test_a_tenant_pod_picking_its_node_by_name_is_refused(spec):
    assert violations(tenant_pods.SCHEDULING, tenant("analytics"), pod(spec))


@pytest.mark.parametrize("spec", [
    {"affinity": _affinity("okerdma.io/node-pool")}, {"nodeSelector": {"okerdma.io/node-pool": "gpu"}},
    {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "w"}}}]}}},
], ids=["pool-affinity", "pool-selector", "own-pod-affinity"])
def test_a_tenant_pod_selecting_pools_passes(spec):
    assert violations(tenant_pods.SCHEDULING, tenant("analytics"), pod(spec)) == []


# --- storage identities -----------------------------------------------------------------------------------------------
def claim(ns, uid=None, gid=None, storage_class=""):
    ann = {k: str(v) for k, v in (("okerdma.io/uid", uid), ("okerdma.io/gid", gid)) if v is not None}
    return res(PVC, f"pvc-{ns}", {"metadata": {"name": "fss-shared", "namespace": ns, **(
        {"annotations": ann} if ann else {})}, "spec": {"storageClassName": storage_class}})


def mounting(sc=None, sub_path=None, ns="analytics", containers_sc=None):
    mount = {"name": "s", "mountPath": "/s", **({"subPath": sub_path} if sub_path else {})}
    c = {"name": "c", "image": IMG, "volumeMounts": [mount], **({"securityContext": containers_sc}
                                                                 if containers_sc else {})}
    return pod({"securityContext": sc or {}, "containers": [c],
                "volumes": [{"name": "s", "persistentVolumeClaim": {"claimName": "fss-shared"}}]}, ns=ns)


OWN = {"runAsUser": 20002, "runAsGroup": 20002}
STACK = [tenant("analytics"), tenant("research"), claim("analytics", 20002, 20002), claim("research", 20001, 20001)]


@pytest.mark.parametrize("resources", [
    [*STACK, mounting({"runAsUser": 20001, "runAsGroup": 20002})],
    [*STACK, mounting({"runAsUser": 20002})],
    [*STACK, mounting({})],
    [*STACK, mounting({**OWN, "supplementalGroups": [20001]})],
    [*STACK, mounting({**OWN, "fsGroup": 20001})],
    [*STACK, mounting(OWN, containers_sc={"runAsUser": 20001})],
    [*STACK, pod({"securityContext": {"runAsUser": 20001}})],
    [tenant("analytics"), claim("analytics"), mounting({"runAsUser": 20001})],
    [tenant("analytics"), claim("analytics"), mounting(OWN, sub_path="../research")],
    [*STACK, mounting(OWN, containers_sc={"runAsUser": U})],
], ids=["other-uid", "group-unset", "ids-unset", "other-supplemental", "other-fsgroup", "container-overrides",
        "other-uid-without-mount", "unannotated-static-claim-whole", "climbing-sub-path", "unknown-uid"])
def test_a_tenant_pod_touching_shared_storage_as_another_identity_is_refused(resources):
    assert violations(tenant_ids.POLICY_NAME, *resources)


@pytest.mark.parametrize("resources", [
    [*STACK, mounting(OWN)],
    [*STACK, mounting({**OWN, "fsGroup": 20002, "supplementalGroups": [20002]})],
    [*STACK, pod({})],
    [tenant("analytics"), claim("analytics"), mounting({"runAsUser": 20002}, sub_path="analytics")],
    [tenant("analytics"), claim("analytics", storage_class="fss"), mounting({"runAsUser": 5})],
    [*STACK, pod({"securityContext": OWN, "volumes": [{"name": "s", "persistentVolumeClaim": {"claimName": "fss-shared"}}],
                  "initContainers": [{"name": "prep", "image": IMG, "securityContext": {"runAsUser": 0}}],
                  "containers": [{"name": "c", "image": IMG, "volumeMounts": [{"name": "s", "mountPath": "/s"}]}]})],
], ids=["own-ids", "own-groups", "no-mount", "unannotated-with-sub-path", "dynamic-claim", "root-init-not-mounting"])
def test_a_tenant_pod_running_as_its_own_identity_passes(resources):
    assert violations(tenant_ids.POLICY_NAME, *resources) == []


# --- references into another namespace --------------------------------------------------------------------------------
ROUTE = "kubernetes:gateway.networking.k8s.io/v1:"


def route(kind, backend, ns="analytics"):
    return res(ROUTE + kind, "r", {"metadata": {"name": "r", "namespace": ns},
                                    "spec": {"rules": [{"backendRefs": [backend]}]}})


MIRROR = {"filters": [{"type": "RequestMirror", "requestMirror": {"backendRef": {"name": "llm",
                                                                                 "namespace": "research"}}}]}


@pytest.mark.parametrize("resource", [
    route("HTTPRoute", {"name": "llm", "namespace": "research"}),
    route("GRPCRoute", {"name": "llm", "namespace": "research"}),
    res("kubernetes:gateway.networking.k8s.io/v1alpha2:TCPRoute", "t", {"metadata": {"namespace": "analytics"},
        "spec": {"rules": [{"backendRefs": [{"name": "db", "namespace": "research"}]}]}}),
    route("HTTPRoute", {"name": "own", **MIRROR}),
    route("HTTPRoute", U),
    res("kubernetes:core/v1:Endpoints", "e", {"metadata": {"name": "llm", "namespace": "analytics"},
                                               "subsets": [{"addresses": [{"ip": "10.244.3.7"}]}]}),
    res("kubernetes:discovery.k8s.io/v1:EndpointSlice", "s", {"metadata": {"name": "llm", "namespace": "analytics"},
                                                              "addressType": "IPv4", "endpoints": []}),
    res(ROUTE + "Gateway", "g", {"metadata": {"name": "g", "namespace": "analytics"}, "spec": {"listeners": [
        {"name": "l", "tls": {"certificateRefs": [{"name": "cert", "namespace": "research"}]}}]}}),
], ids=["http", "grpc", "tcp", "mirror", "unknown-backend", "endpoints", "endpointslice", "gateway-cert"])
def test_tenant_references_into_another_namespace_are_refused(resource):
    assert violations(tenant_refs.POLICY_NAME, tenant("analytics"), tenant("research"), resource)


@pytest.mark.parametrize("resource", [
    route("HTTPRoute", {"name": "llm"}), route("HTTPRoute", {"name": "llm", "namespace": "analytics"}),
    res("kubernetes:gateway.networking.k8s.io/v1beta1:ReferenceGrant", "rg", {
        "metadata": {"namespace": "research"}, "spec": {"from": [{"group": "gateway.networking.k8s.io",
                                                                  "kind": "HTTPRoute", "namespace": "gateways"}]}}),
    route("HTTPRoute", {"name": "llm", "namespace": "research"}, ns="gateways"),
], ids=["same-namespace", "own-namespace-named", "grant", "platform-namespace"])
def test_references_inside_the_namespace_pass(resource):
    assert violations(tenant_refs.POLICY_NAME, tenant("analytics"), tenant("research"), resource) == []


# --- image volumes ----------------------------------------------------------------------------------------------------
def _image_volume(reference):
    return _props({"volumes": [{"name": "m", "image": {"reference": reference}}]})


@pytest.mark.parametrize("reference", ["evil.example.com/payload:latest", "nvcr.io/nvidia/pytorch:latest", U],
                         ids=["other-registry", "moving-tag", "unknown"])
def test_an_unpinned_image_volume_is_refused(reference):
    from policies.security import supply_chain
    assert call_resource_rule(supply_chain.validate_image_pinned, POD, _image_volume(reference))


def test_a_pinned_image_volume_passes():
    from policies.security import supply_chain
    assert call_resource_rule(supply_chain.validate_image_pinned, POD, _image_volume(IMG)) == []


# --- GPU pods on their tenant's pools ---------------------------------------------------------------------------------
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"


def queue(ns, *flavors):
    return res(KUEUE + "ClusterQueue", f"cq-{ns}", {"metadata": {"name": ns}, "spec": {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}},
        "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [{"name": f} for f in flavors]}]}})


def flavor(pool):
    return res(KUEUE + "ResourceFlavor", f"rf-{pool}", {"metadata": {"name": pool},
                                                         "spec": {"nodeLabels": {"okerdma.io/node-pool": pool}}})


def gpu_pod(pool, ns="analytics"):
    return pod({"nodeSelector": {"okerdma.io/node-pool": pool}, "containers": [
        {"name": "c", "image": IMG, "resources": {"limits": {"nvidia.com/gpu": 1}}}]}, ns=ns)


QUEUES = [tenant("analytics"), tenant("research"), flavor("gpu"), flavor("shared"), queue("research", "gpu"),
          queue("analytics", "shared")]


@pytest.mark.parametrize("resources", [
    [*QUEUES, gpu_pod("gpu")], [tenant("analytics"), gpu_pod("gpu")], [*QUEUES, gpu_pod(U)],
], ids=["another-tenants-pool", "no-queue-for-the-namespace", "unknown-pool"])
def test_a_gpu_pod_selecting_a_pool_not_its_tenants_is_refused(resources):
    assert violations(tenant_pods.SCHEDULING, *resources)


@pytest.mark.parametrize("resources", [
    [*QUEUES, gpu_pod("shared")], [*QUEUES, gpu_pod("gpu", ns="research")],
    [tenant("analytics"), pod({"nodeSelector": {"okerdma.io/node-pool": "gpu"}})],
], ids=["own-pool", "dedicated-own-pool", "cpu-pod"])
def test_a_gpu_pod_on_its_tenants_pool_passes(resources):
    assert violations(tenant_pods.SCHEDULING, *resources) == []
