"""The guard's storage-identity policies: a pod mounting a tenant's shared claim runs as the tenant's UID and GID
(pod or every container), with no other fsGroup or supplemental group; pods not mounting it are not concerned."""
from __future__ import annotations

import copy

import pytest

from oke_rdma.guard import policies
from oke_rdma.guard_ids import TenantIds
from tests.components.test_guard import container, failures
from tests.components.test_guard import pod as base_pod
from tests.k8s_schemas import SCHEMA_VERSIONS, validate_all  # noqa: E402,F401

OBJECTS = policies("okerdma-dev", {"research": ["gpu"]}, {"research": "research", "analytics": "analytics"},
                   ["gpu-operator"], tenant_ids={"analytics": TenantIds(20002, 20002, ["fss-shared"]),
                                                 "research": TenantIds(20001, 20001, [])})
IDS = next(o for o in OBJECTS if o["metadata"]["name"] == "okerdma-dev-tenant-ids-analytics"
           and o["kind"] == "ValidatingAdmissionPolicy")
SHARED = [{"name": "s", "persistentVolumeClaim": {"claimName": "fss-shared"}}]
MOUNT = {"volumeMounts": [{"name": "s", "mountPath": "/shared"}]}


def pod(**spec):
    """A pod whose containers (main, and any given) mount the shared volume when the pod declares it."""
    for key in ("containers", "initContainers", "ephemeralContainers"):
        if key in spec and spec.get("volumes") == SHARED:
            spec[key] = [{**MOUNT, **c} for c in spec[key]]
    built = base_pod(**spec)
    if spec.get("volumes") == SHARED and "containers" not in spec:
        built["spec"]["containers"] = [{**MOUNT, **c} for c in built["spec"]["containers"]]
    return built


def sc(uid=20002, gid=20002, **more):
    return {"runAsUser": uid, "runAsGroup": gid, **more}


@pytest.mark.parametrize("manifest", [
    pod(),
    pod(volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "scratch"}}]),
    pod(volumes=SHARED, securityContext=sc()),
    pod(volumes=SHARED, securityContext=sc(fsGroup=20002, supplementalGroups=[20002])),
    pod(volumes=SHARED, containers=[container(securityContext=sc())]),
    pod(volumes=SHARED, securityContext=sc(uid=1, gid=1), containers=[container(securityContext=sc())]),
    pod(volumes=SHARED, securityContext=sc()) | {"spec": {**pod(volumes=SHARED, securityContext=sc())["spec"],
        "initContainers": [container(securityContext={"runAsUser": 0, "runAsNonRoot": False})]}},
], ids=["no-volume", "other-claim", "pod-level", "fs-group", "container-level", "container-overrides-pod",
        "root-init-without-the-mount"])
def test_tenant_ids_policy_admits_pods_running_as_the_tenant(manifest):
    assert failures(IDS, manifest) == []


@pytest.mark.parametrize("manifest,message", [
    (pod(volumes=SHARED), "UID 20002"),
    (pod(volumes=SHARED, securityContext=sc(uid=20001)), "UID 20002"),
    (pod(volumes=SHARED, securityContext=sc(gid=20001)), "GID 20002"),
    (pod(volumes=SHARED, securityContext=sc(), initContainers=[container(securityContext={"runAsUser": 20001})]),
     "UID 20002"),
    (pod(volumes=SHARED, securityContext=sc(), ephemeralContainers=[container(securityContext={"runAsGroup": 1})]),
     "GID 20002"),
    (pod(volumes=SHARED, securityContext=sc(fsGroup=20001)), "fsGroup"),
    (pod(volumes=SHARED, securityContext=sc(supplementalGroups=[20002, 20001])), "no group"),
], ids=["unset-image-user", "other-uid", "other-gid", "init-container", "ephemeral-container", "fs-group",
        "supplemental"])
def test_tenant_ids_policy_refuses_other_ids(manifest, message):
    """Another tenant's UID or GID on the pod or any container, unset IDs (the image's user), a foreign fsGroup or
    supplemental group: refused."""
    found = failures(IDS, manifest)
    assert found and any(message in m for m in found), found


def test_tenant_ids_policy_only_for_tenants_with_claims_and_bound_to_their_namespace():
    names = {o["metadata"]["name"] for o in OBJECTS if "tenant-ids" in o["metadata"]["name"]}
    assert names == {"okerdma-dev-tenant-ids-analytics"}
    binding = next(o for o in OBJECTS if o["kind"] == "ValidatingAdmissionPolicyBinding"
                   and o["metadata"]["name"] == "okerdma-dev-tenant-ids-analytics")
    assert binding["spec"]["matchResources"]["namespaceSelector"]["matchLabels"] == {
        "kubernetes.io/metadata.name": "analytics"}
    for obj in OBJECTS:
        if any(k in obj["metadata"]["name"] for k in ("tenant-ids", "tenant-routes", "tenant-nodes")):
            validate_all(obj)


ROUTES = next(o for o in OBJECTS if o["metadata"]["name"] == "okerdma-dev-tenant-routes"
              and o["kind"] == "ValidatingAdmissionPolicy")


def route(*rules):
    return {"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
            "metadata": {"name": "r", "namespace": "analytics"}, "spec": {"rules": list(rules)}}


MIRROR = {"type": "RequestMirror", "requestMirror": {"backendRef": {"name": "llm", "namespace": "research"}}}


@pytest.mark.parametrize("manifest", [
    route(), route({"backendRefs": [{"name": "llm", "port": 8000}]}),
    route({"backendRefs": [{"name": "llm", "namespace": "analytics"}]}),
    route({"filters": [{"type": "RequestMirror", "requestMirror": {"backendRef": {"name": "shadow"}}}]}),
], ids=["no-rules", "same-namespace", "own-namespace-named", "own-mirror"])
def test_tenant_routes_policy_admits_routes_inside_the_namespace(manifest):
    assert failures(ROUTES, manifest) == []


@pytest.mark.parametrize("manifest", [
    route({"backendRefs": [{"name": "llm", "namespace": "research"}]}),
    route({"filters": [MIRROR]}),
    route({"backendRefs": [{"name": "llm", "filters": [MIRROR]}]}),
], ids=["backend", "rule-mirror", "backend-mirror"])
def test_tenant_routes_policy_refuses_backends_in_other_namespaces(manifest):
    """A backend or a mirror in another namespace: the shared gateway would carry the traffic past the walls."""
    assert failures(ROUTES, manifest)


NODES = next(o for o in OBJECTS if o["metadata"]["name"] == "okerdma-dev-tenant-nodes"
             and o["kind"] == "ValidatingAdmissionPolicy")


def _affinity(term, preferred=False):
    if preferred:
        return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": term}]}}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}


HOST = {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["10.0.16.23"]}]}
POOL = {"matchExpressions": [{"key": "okerdma.io/node-pool", "operator": "In", "values": ["gpu"]}]}


@pytest.mark.parametrize("manifest", [
    pod(), pod(nodeSelector={"okerdma.io/node-pool": "gpu"}), pod(affinity=_affinity(POOL)),
    pod(affinity=_affinity(POOL, preferred=True)), pod(affinity={"podAntiAffinity": {}}),
], ids=["plain", "pool-selector", "pool-affinity", "pool-preference", "pod-anti-affinity"])
def test_tenant_nodes_policy_admits_pool_selection(manifest):
    assert failures(NODES, manifest) == []


@pytest.mark.parametrize("manifest", [
    pod(nodeName="10.0.16.23"), pod(nodeSelector={"kubernetes.io/hostname": "10.0.16.23"}),
    pod(affinity=_affinity(HOST)), pod(affinity=_affinity(HOST, preferred=True)),
    pod(affinity=_affinity({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]})),
], ids=["node-name", "hostname-selector", "hostname-affinity", "hostname-preference", "match-fields"])
def test_tenant_nodes_policy_refuses_a_node_picked_by_name(manifest):
    assert failures(NODES, manifest)
