"""The in-cluster guard's ValidatingAdmissionPolicies: their CEL expressions evaluated against allowed and denied
pod manifests, and the objects validated against the OpenAPI schema of every Kubernetes minor OKE offers.

CEL engine: cel-python (celpy), an implementation of the CEL specification. Kubernetes evaluates the same
expressions with cel-go plus Kubernetes' libraries (lists, regex, URLs, quantities, ``strings`` extensions) and
type-checks them against the Pod schema when the policy is created; the guard uses only standard CEL (``has``,
``exists`` over lists and map keys, ``all``, ``in``, ``size``, ``startsWith``, ``matches`` with RE2 syntax, the ternary
operator, list concatenation), which both engines define alike, so no Kubernetes-only function is exercised here or relied on. What cel-python does not do:
the admission-time type check against the schema (kubernetes-validate checks the objects' shape instead), cost
limits, and VAP's lazy ``variables`` (emulated: each variable evaluated in order, then the validations).
"""

from __future__ import annotations

import copy
import functools
from typing import Any

import celpy
import kubernetes_validate
import pytest

from oke_rdma.guard import POOL_LABEL, RDMA_LABEL, TENANT_LABEL, policies, tenant_labels
from oke_rdma.tenant_defaults import priority_class_names
from tests.k8s_schemas import SCHEMA_VERSIONS, validate_all  # noqa: E402,F401

OBJECTS = policies("okerdma-dev", {"research": ["gpu"], "analytics": ["gpu", "shared"]},
                   {"research": "research", "analytics": "analytics"}, ["gpu-operator", "monitoring"],
                   priority_class_names("okerdma-dev"))


@functools.cache
def program(expression: str) -> Any:
    """``expression`` compiled by cel-python, once per expression (the environment is built on first use)."""
    return _environment().program(_environment().compile(expression))


@functools.cache
def _environment() -> Any:
    return celpy.Environment()


def _policy(name: str) -> dict:
    return next(o for o in OBJECTS if o["kind"] == "ValidatingAdmissionPolicy" and o["metadata"]["name"] == name)


def _cel_map(values: dict[str, Any]) -> Any:
    return celpy.celtypes.MapType({celpy.celtypes.StringType(k): v for k, v in values.items()})


def failures(policy: dict, pod: dict) -> list[str]:
    """The messages of ``policy``'s validations that refuse ``pod`` (empty: admitted). Variables are evaluated in
    order, each seeing the ones before it, as the API server composes them."""
    obj = celpy.json_to_cel(pod)
    variables: dict[str, Any] = {}
    for var in policy["spec"].get("variables", []):
        variables[var["name"]] = program(var["expression"]).evaluate(
            {"object": obj, "variables": _cel_map(variables)})
    activation = {"object": obj, "variables": _cel_map(variables)}
    refused = []
    for check in policy["spec"]["validations"]:
        result = program(check["expression"]).evaluate(activation)
        assert isinstance(result, celpy.celtypes.BoolType), f"{check['expression']} gave {result!r}"
        if not result:
            refused.append(check.get("message") or str(program(check["messageExpression"]).evaluate(activation)))
    return refused


def pod(**spec: Any) -> dict:
    base = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "analytics"},
            "spec": {"containers": [{"name": "main", "image": "busybox"}]}}
    base["spec"].update(spec)
    return base


def container(**fields: Any) -> dict:
    return {"name": "c", "image": "busybox", **fields}


def caps(*add: str) -> dict:
    return container(securityContext={"capabilities": {"add": list(add)}})


RDMA = _policy("okerdma-dev-rdma-privileges")


@pytest.mark.parametrize("manifest", [
    pod(),
    pod(hostNetwork=False),
    pod(containers=[container(securityContext={"privileged": False, "runAsNonRoot": True})]),
    pod(containers=[caps("NET_BIND_SERVICE")]),
    pod(containers=[container(securityContext={"capabilities": {"drop": ["ALL"]}})]),
    pod(volumes=[{"name": "d", "hostPath": {"path": "/data"}}, {"name": "e", "emptyDir": {}}]),
    pod(volumes=[{"name": "d", "hostPath": {"path": "/dev/shm"}}]),
    pod(volumes=[{"name": "d", "hostPath": {"path": "/devices"}}]),
], ids=["plain", "hostNetwork-false", "privileged-false", "other-capability", "drop-all", "other-hostpath",
        "dev-shm", "devices-prefix"])
def test_rdma_privileges_policy_admits_ordinary_pods(manifest):
    """Pods with no RDMA privilege pass the RDMA-privileges policy."""
    assert failures(RDMA, manifest) == []


@pytest.mark.parametrize("manifest,message", [
    (pod(hostNetwork=True), "hostNetwork"),
    (pod(containers=[container(securityContext={"privileged": True})]), "privileged"),
    (pod(initContainers=[container(securityContext={"privileged": True})]), "privileged"),
    (pod(ephemeralContainers=[container(securityContext={"privileged": True})]), "privileged"),
    (pod(containers=[caps("IPC_LOCK")]), "IPC_LOCK"),
    (pod(containers=[caps("CAP_IPC_LOCK")]), "IPC_LOCK"),
    (pod(containers=[caps("ipc_lock")]), "IPC_LOCK"),
    (pod(containers=[caps("ALL")]), "IPC_LOCK"),
    (pod(initContainers=[caps("NET_ADMIN", "IPC_LOCK")]), "IPC_LOCK"),
    (pod(volumes=[{"name": "ib", "hostPath": {"path": "/dev/infiniband"}}]), "/dev/infiniband"),
    (pod(volumes=[{"name": "ib", "hostPath": {"path": "/dev/infiniband/uverbs0", "type": "CharDevice"}}]),
     "/dev/infiniband"),
    (pod(volumes=[{"name": "ib", "hostPath": {"path": "/dev"}}]), "/dev/infiniband"),
    (pod(volumes=[{"name": "ib", "hostPath": {"path": "/"}}]), "/dev/infiniband"),
    (pod(volumes=[{"name": "ib", "hostPath": {"path": "//dev//infiniband/"}}]), "/dev/infiniband"),
], ids=["hostNetwork", "privileged", "privileged-init", "privileged-ephemeral", "ipc-lock", "cap-ipc-lock",
        "lowercase", "all", "init-ipc-lock", "infiniband", "uverbs", "dev", "root", "double-slashes"])
def test_rdma_privileges_policy_denies_each_rdma_privilege(manifest, message):
    """hostNetwork, privileged (any container kind), IPC_LOCK in every spelling (or ALL) and hostPaths exposing
    /dev/infiniband are refused outside RDMA namespaces."""
    found = failures(RDMA, manifest)
    assert found and any(message in m for m in found), found


def test_rdma_privileges_binding_spares_rdma_tenants_platform_and_system_namespaces():
    """The binding selects every namespace except those labelled okerdma.io/rdma=true, the platform's and the
    system namespaces; the tenant namespace labels carry that flag."""
    binding = next(o for o in OBJECTS if o["kind"] == "ValidatingAdmissionPolicyBinding"
                   and o["spec"]["policyName"] == "okerdma-dev-rdma-privileges")
    exprs = binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"]
    assert {"key": RDMA_LABEL, "operator": "NotIn", "values": ["true"]} in exprs
    exempt = next(e for e in exprs if e["key"] == "kubernetes.io/metadata.name")["values"]
    assert {"kube-system", "gpu-operator", "monitoring"} <= set(exempt) and "research" not in exempt
    assert binding["spec"]["validationActions"] == ["Deny"]
    assert tenant_labels("research", True, "dedicated")[RDMA_LABEL] == "true"
    assert tenant_labels("analytics", False, "shared")[RDMA_LABEL] == "false"


GPU = {"resources": {"limits": {"nvidia.com/gpu": "1"}}}
TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


@pytest.mark.parametrize("tenant,manifest", [
    ("research", pod(nodeSelector={POOL_LABEL: "gpu"}, containers=[container(**GPU)], tolerations=[TOLERATION])),
    ("analytics", pod(nodeSelector={POOL_LABEL: "shared"}, containers=[container(**GPU)])),
    ("analytics", pod(nodeSelector={POOL_LABEL: "gpu"}, containers=[container(**GPU)])),
    ("research", pod()),
    ("research", pod(tolerations=[{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}])),
    ("research", pod(containers=[container(resources={"requests": {"cpu": "1"}})])),
    ("research", pod(containers=[container(resources={"limits": {"cpu": "1", "memory": "1Gi",
                                                                  "ephemeral-storage": "1Gi", "hugepages-2Mi": "1Gi"}})])),
    ("research", pod(nodeSelector={POOL_LABEL: "gpu"},
                     containers=[container(resources={"limits": {"nvidia.com/mig-3g.40gb": "1"}})])),
], ids=["dedicated-own-pool", "shared-on-shared", "shared-on-exclusive", "cpu-pod", "other-toleration",
        "cpu-requests", "native-resources", "mig-on-own-pool"])
def test_tenant_pools_policy_admits_pods_on_their_pools(tenant, manifest):
    """GPU pods selecting one of their tenant's pools pass, and pods without GPUs are not concerned."""
    assert failures(_policy(f"okerdma-dev-tenant-pools-{tenant}"), manifest) == []


@pytest.mark.parametrize("tenant,manifest,message", [
    ("research", pod(containers=[container(**GPU)]), "must select one of its pools"),
    ("research", pod(nodeSelector={POOL_LABEL: "shared"}, containers=[container(**GPU)]), "in gpu"),
    ("research", pod(nodeSelector={"okerdma.io/role": "gpu"}, containers=[container(**GPU)]), "must select"),
    ("research", pod(containers=[container(resources={"requests": {"nvidia.com/gpu": "8"}})]), "must select"),
    ("research", pod(initContainers=[container(**GPU)]), "must select"),
    ("research", pod(tolerations=[TOLERATION]), "must select"),
    ("research", pod(tolerations=[{"operator": "Exists"}]), "must select"),
    ("research", pod(nodeSelector={POOL_LABEL: "gpu"}, nodeName="10.0.10.5", containers=[container(**GPU)]),
     "may not name a node"),
    ("analytics", pod(nodeSelector={POOL_LABEL: "system"}, containers=[container(**GPU)]), "in gpu, shared"),
    ("analytics", pod(nodeSelector={POOL_LABEL: "system"},
                      containers=[container(resources={"limits": {"nvidia.com/mig-1g.10gb": "1"}})]), "in gpu, shared"),
    ("research", pod(containers=[container(resources={"requests": {"nvidia.com/gpu.shared": "1"}})]), "must select"),
    ("research", pod(containers=[container(resources={"limits": {"example.com/renamed": "1"}})]), "must select"),
    ("research", pod(resourceClaims=[{"name": "g", "resourceClaimTemplateName": "gpus"}]), "must select"),
], ids=["no-selector", "dedicated-on-shared", "other-label", "requests-only", "init-container", "toleration-only",
        "keyless-exists", "node-name", "shared-on-cpu-pool", "mig-slice", "time-sliced", "renamed-resource",
        "dra-claim"])
def test_tenant_pools_policy_denies_pods_off_their_pools(tenant, manifest, message):
    """A GPU pod (any extended resource in requests or limits — MIG slices, renamed time-sliced resources —, an init
    container's, a DRA claim, or a toleration of the GPU taint) that selects no pool, another tenant's or a shared
    pool for a dedicated tenant, or names a node, is refused with the allowed pools named."""
    found = failures(_policy(f"okerdma-dev-tenant-pools-{tenant}"), manifest)
    assert found and any(message in m for m in found), found


def test_a_policy_that_refuses_nothing_would_be_caught():
    """The harness is not vacuous: dropping a validation lets a denied pod through."""
    weakened = copy.deepcopy(RDMA)
    weakened["spec"]["validations"] = weakened["spec"]["validations"][1:]
    assert failures(weakened, pod(hostNetwork=True)) == []


@pytest.mark.parametrize("obj", OBJECTS, ids=lambda o: f"{o['kind']}/{o['metadata']['name']}")
def test_objects_validate_against_the_kubernetes_schema(obj):
    """Each policy and binding is a valid admissionregistration.k8s.io/v1 object for every Kubernetes minor OKE
    offers (strict: no unknown fields)."""
    validate_all(obj)


def test_schema_validation_catches_a_malformed_binding():
    """validationActions as a string instead of a list is refused by the schema check."""
    bad = copy.deepcopy(next(o for o in OBJECTS if o["kind"] == "ValidatingAdmissionPolicyBinding"))
    bad["spec"]["validationActions"] = "Deny"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, SCHEMA_VERSIONS[-1], strict=True)


PRIORITY = _policy("okerdma-dev-tenant-priority")


@pytest.mark.parametrize("manifest", [
    pod(), pod(priorityClassName=""), pod(priorityClassName="okerdma-dev-tenant-low"),
    pod(priorityClassName="okerdma-dev-tenant-normal"), pod(priorityClassName="okerdma-dev-tenant-high"),
], ids=["unset", "empty", "low", "normal", "high"])
def test_tenant_priority_policy_admits_the_tenant_classes(manifest):
    assert failures(PRIORITY, manifest) == []


@pytest.mark.parametrize("name", ["system-node-critical", "system-cluster-critical", "okerdma-dev-platform",
                                  "OKERDMA-DEV-TENANT-HIGH", "okerdma-prod-tenant-high"])
def test_tenant_priority_policy_refuses_system_and_other_classes(name):
    """The system classes would let a tenant pod preempt the platform's daemons; any class not made for tenants is
    refused too (a look-alike in another case or of another stack included)."""
    found = failures(PRIORITY, pod(priorityClassName=name))
    assert found and name in found[0] and "okerdma-dev-tenant-low" in found[0]


def test_tenant_priority_binding_selects_every_tenant_namespace():
    binding = next(o for o in OBJECTS if o["kind"] == "ValidatingAdmissionPolicyBinding"
                   and o["spec"]["policyName"] == "okerdma-dev-tenant-priority")
    assert binding["spec"]["matchResources"]["namespaceSelector"] == {
        "matchExpressions": [{"key": TENANT_LABEL, "operator": "Exists"}]}
    assert binding["spec"]["validationActions"] == ["Deny"]
    assert TENANT_LABEL in tenant_labels("t", False, "dedicated")


def test_no_tenant_classes_no_priority_policy():
    names = [o["metadata"]["name"] for o in policies("p", {"t": ["gpu"]}, {"t": "t"}, [])]
    assert "p-tenant-priority" not in names


BLOCK = policies("okerdma-dev", {"research": ["gpu"]}, {"research": "research"}, [],
                 unattachable_classes=("oci-bv", "oci"))
BLOCK_POLICY = next(o for o in BLOCK if o["kind"] == "ValidatingAdmissionPolicy"
                    and o["metadata"]["name"] == "okerdma-dev-tenant-block-volumes")


def claim(storage_class=None) -> dict:
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "50Gi"}}}
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "research"},
            "spec": spec}


@pytest.mark.parametrize("name", ["oci-bv", "oci"])
def test_tenant_block_volumes_policy_refuses_iscsi_classes(name):
    """A tenant's claim on OKE's iSCSI classes would never attach to the stack's in-transit-encrypting nodes."""
    [message] = failures(BLOCK_POLICY, claim(name))
    assert message.startswith(f"StorageClass {name} attaches block volumes over iSCSI")


@pytest.mark.parametrize("name", [None, "", "oke-rdma-bv", "okerdma-dev-fss", "oci-bv-paravirtualized"])
def test_tenant_block_volumes_policy_admits_other_claims(name):
    """No class (the paravirtualized default), the static-volume spelling, the stack's classes pass."""
    assert failures(BLOCK_POLICY, claim(name)) == []


def test_tenant_block_volumes_policy_matches_claims_of_every_tenant_namespace_and_only_when_needed():
    binding = next(o for o in BLOCK if o["kind"] == "ValidatingAdmissionPolicyBinding"
                   and o["spec"]["policyName"] == "okerdma-dev-tenant-block-volumes")
    assert binding["spec"]["matchResources"]["namespaceSelector"] == {
        "matchExpressions": [{"key": TENANT_LABEL, "operator": "Exists"}]}
    assert BLOCK_POLICY["spec"]["matchConstraints"]["resourceRules"][0]["resources"] == ["persistentvolumeclaims"]
    names = [o["metadata"]["name"] for o in OBJECTS]
    assert "okerdma-dev-tenant-block-volumes" not in names  # no unattachable class: no policy


def test_the_dev_stack_refuses_iscsi_classes_and_a_stack_without_in_transit_encryption_does_not():
    from oke_rdma.config.checks.storage_classes import unattachable_classes
    from tests.stackcfg import load_dev_config
    assert unattachable_classes(load_dev_config()) == ("oci-bv", "oci")
    off = {"system": {"isPvEncryptionInTransitEnabled": False}, "gpu": {"isPvEncryptionInTransitEnabled": False}}
    assert unattachable_classes(load_dev_config(nodePools=off)) == ()


@pytest.mark.parametrize("obj", [o for o in BLOCK if "block-volumes" in o["metadata"]["name"]],
                         ids=lambda o: o["kind"])
def test_the_block_volume_objects_validate_against_the_kubernetes_schema(obj):
    validate_all(obj)
