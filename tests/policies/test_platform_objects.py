"""kubernetes-platform-objects-only-by-platform: an object the platform owns is written only by the platform's
components — every ``*Patch`` type of pulumi_kubernetes is judged as its base kind, a patch of a platform-owned kind,
a write in kube-system or an add-on's namespace, an add-on's CRD and an object a platform component declares are
refused for anything else; the pack's copy of the model equals the package's."""
from __future__ import annotations

import re
from pathlib import Path

import pulumi_kubernetes
import pytest

from oke_rdma.addons import _registry
from oke_rdma.facts import tenancy as facts
from offline.policy_eval import EngineResource, evaluate
from policies.security import platform_objects, tenancy
from policies.security.pack import PACK_NAME, POLICIES
from tests.policies.test_policies import U, res

RULE = platform_objects.RULE
ROOT = Path(__file__).resolve().parents[2]


def violations(*resources, prefixes=None):
    rule = {"enforcementLevel": "mandatory", **({"platformNamePrefixes": prefixes} if prefixes is not None else {})}
    cfg = {"all": "disabled", RULE: rule}
    report = evaluate(POLICIES, list(resources), PACK_NAME, policy_config=cfg)
    return [v.message for v in report.violations if v.policy == RULE]


def platform_res(type_, name, inputs):
    """A resource a platform component declares (its URN's parent chain holds ``oke-rdma:walls:Walls``)."""
    return EngineResource(urn=f"urn:pulumi:dev::oke-rdma::oke-rdma:walls:Walls${type_}::{name}", type=type_,
                          name=name, custom=True, inputs=inputs, outputs=inputs, property_dependencies={},
                          dependencies=[])


def _patch_types() -> list[tuple[str, str]]:
    """(Patch type token, base type token) of every ``*Patch`` resource class pulumi_kubernetes ships, read from its
    sources (each class calls ``super().__init__('kubernetes:<group>/<version>:<Kind>Patch', ...)``)."""
    root = Path(pulumi_kubernetes.__file__).parent
    found = []
    for path in root.rglob("*Patch.py"):
        m = re.search(r"'(kubernetes:[^']+Patch)'", path.read_text())
        if m:
            found.append((m.group(1), m.group(1)[:-5]))
    return sorted(found)


PATCHES = _patch_types()


def test_pulumi_kubernetes_ships_a_patch_type_for_every_built_in_kind_and_the_list_is_read():
    assert len(PATCHES) > 100
    assert ("kubernetes:core/v1:NamespacePatch", "kubernetes:core/v1:Namespace") in PATCHES


@pytest.mark.parametrize("patch, base", PATCHES)
def test_every_patch_type_maps_to_its_base_kind(patch, base):
    """The one mapping the rule reads: ``<Kind>Patch`` → ``<Kind>`` of the same group and version, as a patch."""
    group, kind, token, is_patch = platform_objects.base_kind(patch)
    assert token == base and is_patch
    assert platform_objects.base_kind(base)[2:] == (base, False)


@pytest.mark.parametrize("patch, base", [p for p in PATCHES if tenancy.owned_kind(
    *platform_objects.base_kind(p[0])[:2]) is not None and platform_objects.base_kind(p[0])[:2]
    not in tenancy.PATCH_JUDGED_BY_EFFECT])
def test_every_patch_of_a_platform_owned_kind_is_refused_outside_the_platform(patch, base):
    props = {"metadata": {"name": "x", "namespace": "research"}}
    assert any("which the platform owns" in v for v in violations(res(patch, "p", props)))
    assert violations(platform_res(patch, "p", props)) == []


def test_patch_kinds_judged_by_effect_pass_here_unless_they_write_tenancy_labels():
    rb = res("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBindingPatch", "p", {"metadata": {"name": "view"}})
    ns = res("kubernetes:core/v1:NamespacePatch", "n", {"metadata": {"name": "research", "labels": {"a": "b"}}})
    assert violations(rb, ns) == []
    relabel = res("kubernetes:core/v1:NamespacePatch", "n", {"metadata": {"name": "analytics", "labels": {
        "okerdma.io/tenant": "research"}}})
    assert any("tenancy labels (okerdma.io/tenant)" in v for v in violations(relabel))
    unknown = res("kubernetes:core/v1:NamespacePatch", "n", {"metadata": {"name": "analytics", "labels": U}})
    assert any("unknown during preview" in v for v in violations(unknown))


def test_custom_resource_patch_of_a_platform_group_is_refused_and_of_a_tenant_kind_passes():
    wall = res("kubernetes:cilium.io/v2:CiliumClusterwideNetworkPolicyPatch", "w", {"metadata": {"name": "wall"}})
    job = res("kubernetes:batch/v1:JobPatch", "j", {"metadata": {"name": "j", "namespace": "research"}})
    assert any("CiliumClusterwideNetworkPolicy wall, which the platform owns" in v for v in violations(wall))
    assert violations(job) == []


@pytest.mark.parametrize("kind, namespace, refused", [
    ("kubernetes:core/v1:ConfigMap", "kube-system", True), ("kubernetes:apps/v1:Deployment", "kube-node-lease", True),
    ("kubernetes:coordination.k8s.io/v1:Lease", "kueue-system", True),
    ("kubernetes:core/v1:Secret", "monitoring", True), ("kubernetes:core/v1:ServiceAccount", "cilium", True),
    ("kubernetes:core/v1:ConfigMap", "research", False), ("kubernetes:coordination.k8s.io/v1:Lease", "research", False),
    ("kubernetes:core/v1:Service", "monitoring", False)])
def test_writes_in_the_clusters_and_the_addons_namespaces(kind, namespace, refused):
    found = violations(res(kind, "o", {"metadata": {"name": "o", "namespace": namespace}}))
    assert bool(found) is refused, found


def test_an_addon_namespace_the_stack_declares_itself_is_its_own():
    ns = res("kubernetes:core/v1:Namespace", "ns", {"metadata": {"name": "monitoring"}})
    cm = res("kubernetes:core/v1:ConfigMap", "cm", {"metadata": {"name": "o", "namespace": "monitoring"}})
    assert violations(ns, cm) == []
    assert violations(cm)


def test_an_unknown_namespace_of_a_control_object_fails_closed():
    assert any("namespace unknown" in v for v in violations(
        res("kubernetes:coordination.k8s.io/v1:Lease", "l", {"metadata": {"name": "l", "namespace": U}})))


@pytest.mark.parametrize("name, group, refused", [
    ("clusterqueues.kueue.x-k8s.io", "kueue.x-k8s.io", True), ("helmreleases.helm.toolkit.fluxcd.io", None, True),
    ("reports.analytics.example.com", "analytics.example.com", False), (U, U, True)])
def test_a_crd_of_an_addon_group_is_refused(name, group, refused):
    spec = {"group": group} if group else {}
    found = violations(res("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition", "c",
                           {"metadata": {"name": name}, "spec": spec}))
    assert bool(found) is refused, found


def test_an_object_a_platform_component_declares_is_refused_to_any_other_resource_naming_the_owner():
    mine = platform_res("kubernetes:core/v1:ConfigMap", "mine", {"metadata": {"name": "cfg", "namespace": "research"}})
    theirs = res("kubernetes:core/v1:ConfigMap", "theirs", {"metadata": {"name": "cfg", "namespace": "research"}})
    other = res("kubernetes:core/v1:ConfigMap", "other", {"metadata": {"name": "cfg2", "namespace": "research"}})
    found = violations(mine, theirs, other)
    assert len(found) == 1 and "oke-rdma:walls:Walls declares in this stack" in found[0]


def test_objects_a_helm_release_renders_are_judged_as_written_by_the_release():
    values = {"extraObjects": [{"apiVersion": "v1", "kind": "ConfigMap",
                                "metadata": {"name": "coredns-custom", "namespace": "kube-system"}}]}
    rel = res("kubernetes:helm.sh/v3:Release", "r", {"chart": "x", "namespace": "research", "values": values})
    assert any("kube-system" in v for v in violations(rel))


def test_the_packs_copy_of_the_model_equals_the_packages():
    for name in ("PLATFORM_COMPONENT_PREFIX", "CLUSTER_NAMESPACES", "ADDON_NAMESPACES", "CONTROL_KINDS",
                 "ADDON_CRD_GROUPS", "PLATFORM_LABEL_PREFIX", "PATCH_JUDGED_BY_EFFECT", "PLATFORM_OBJECT_NAMES",
                 "DEFAULT_PLATFORM_NAME_PREFIXES"):
        assert getattr(tenancy, name) == getattr(facts, name), name


def test_the_addon_namespaces_are_the_registrys_defaults():
    registry = _registry.discover("oke_rdma.addons")
    defaults = set()
    for addon in registry.addons:
        defaults.add(addon.config.model_fields["namespace"].default)
        config = addon.config()
        for value in vars(config).values():  # a sub-model's own namespace (Kueue's topology labeler)
            if hasattr(type(value), "model_fields") and isinstance(getattr(value, "namespace", None), str):
                defaults.add(value.namespace)
    assert defaults == set(facts.ADDON_NAMESPACES)


def test_every_component_of_the_package_carries_the_platform_prefix():
    types = set()
    for path in (ROOT / "oke_rdma").rglob("*.py"):
        types |= set(re.findall(r"super\(\).__init__\(\"([^\"]+:[^\"]+)\", name", path.read_text()))
    assert types and all(t.startswith(facts.PLATFORM_COMPONENT_PREFIX) for t in types), types


def test_a_stack_installing_an_addon_itself_may_declare_its_crds_but_never_patch_them():
    ns = res("kubernetes:core/v1:Namespace", "ns", {"metadata": {"name": "mpi-operator"}})
    crd = {"metadata": {"name": "mpijobs.kubeflow.org"}, "spec": {"group": "kubeflow.org"}}
    declared = res("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition", "c", crd)
    patched = res("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinitionPatch", "c", crd)
    assert violations(ns, declared) == []
    assert violations(declared) and violations(ns, patched)


# --- a declaration under a name the platform gives its own objects (the platform may be in another stack) ----------
VAPB = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding"
NAMED = {
    "the guard's binding set to Audit": (VAPB, None, "okerdma-tenant-priority", {"spec": {
        "policyName": "okerdma-tenant-priority", "validationActions": ["Audit"]}}),
    "the guard's policy emptied": ("kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy", None,
                                   "okerdma-dev-rdma-privileges", {"spec": {"validations": []}}),
    "a tenant priority class": ("kubernetes:scheduling.k8s.io/v1:PriorityClass", None, "okerdma-prod-tenant-high",
                                {"value": 1000000000}),
    "a tenant's wall": ("kubernetes:cilium.io/v2:CiliumClusterwideNetworkPolicy", None, "okerdma-dev-wall-research",
                        {"spec": {}}),
    "a tenant's ClusterQueue": ("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", None, "okerdma-dev-research",
                                {"spec": {}}),
    "the tenant admin role": ("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", None, "okerdma-dev-tenant-admin",
                              {"rules": []}),
    "a tenant's role binding": ("kubernetes:rbac.authorization.k8s.io/v1:RoleBinding", "research",
                                "okerdma-dev-tenant-viewer", {}),
    "a tenant's GPU quota, in a namespace this stack does not declare": (
        "kubernetes:core/v1:ResourceQuota", "research", "gpu", {"spec": {"hard": {"requests.nvidia.com/gpu": "999"}}}),
    "a tenant's LimitRange": ("kubernetes:core/v1:LimitRange", "research", "defaults", {"spec": {"limits": []}}),
    "the block volume class": ("kubernetes:storage.k8s.io/v1:StorageClass", None, "oke-rdma-bv",
                               {"provisioner": "blockvolume.csi.oraclecloud.com"}),
    "a tenant's LocalQueue, named after its namespace": ("kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue", "research",
                                                          "research", {"spec": {"clusterQueue": "elsewhere"}}),
    "the MPI Operator's role in a tenant namespace": ("kubernetes:rbac.authorization.k8s.io/v1:Role", "research",
                                                      "mpi-operator", {"rules": []}),
}


def _object(type_, namespace, name, body):
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return res(type_, "o", {"metadata": metadata, **body})


@pytest.mark.parametrize("case", sorted(NAMED))
def test_an_object_declared_under_a_platform_name_is_refused_without_the_platform_in_the_stack(case):
    """The platform may run in another stack: a declaration of an object of a platform-owned kind under the name the
    platform gives its own (``<namePrefix>-*``, a tenant's ``gpu`` quota, ``oke-rdma-bv``) is applied over the live
    object, so it is refused naming what the platform keeps there; the same kind under the stack's own name passes."""
    type_, namespace, name, body = NAMED[case]
    [found] = violations(_object(type_, namespace, name, body))
    assert f"declares {type_.split(':')[-1]} {name}" in found and "a name the platform gives its own objects" in found
    assert violations(_object(type_, namespace, "analytics-own", body)) == []


def test_the_platforms_prefixes_come_from_the_policy_config():
    """With platformNamePrefixes [acme], acme-* names are the platform's and okerdma-* names are free."""
    binding = _object(VAPB, None, "acme-gpu-tenant-priority", {"spec": {"validationActions": ["Audit"]}})
    other = _object(VAPB, None, "okerdma-tenant-priority", {"spec": {"validationActions": ["Audit"]}})
    assert len(violations(binding, prefixes=["acme"])) == 1 and violations(other, prefixes=["acme"]) == []
    assert violations(binding) == [] and len(violations(other)) == 1


def test_a_fixed_tenant_name_in_a_namespace_the_stack_declares_is_its_own_tenant():
    """A hand-written platform gives its own tenants a gpu quota: the name counts only outside its namespaces."""
    ns = res("kubernetes:core/v1:Namespace", "ns", {"metadata": {"name": "team"}})
    quota = _object("kubernetes:core/v1:ResourceQuota", "team", "gpu", {"spec": {}})
    assert violations(ns, quota) == [] and len(violations(quota)) == 1
    mpi = _object("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", None, "mpi-operator", {"rules": []})
    installs = res("kubernetes:core/v1:Namespace", "mpi", {"metadata": {"name": "mpi-operator"}})
    assert len(violations(mpi)) == 1 and violations(installs, mpi) == []  # a stack installing the add-on itself
    prefixed = _object("kubernetes:rbac.authorization.k8s.io/v1:RoleBinding", "team", "okerdma-dev-tenant-viewer", {})
    assert len(violations(ns, prefixed)) == 1  # a <prefix>-* name is the platform's in any namespace


def test_an_unknown_name_of_a_platform_owned_kind_fails_closed_and_a_patch_is_judged_as_before():
    assert any("name is unknown during preview" in v for v in violations(_object(VAPB, None, U, {"spec": {}})))
    assert violations(res("kubernetes:core/v1:ConfigMap", "c", {"metadata": {"name": U, "namespace": "x"}})) == []


K8S = "pulumi:providers:kubernetes"


def test_a_platform_object_redeclared_through_a_provider_of_unknown_target_is_refused():
    """A second provider whose kubeconfig is unknown during preview may reach the platform's cluster: the same object
    through it is the platform's; through a provider of another known cluster it is not."""
    from tests.policies.test_clusters import on
    oke = res("oci:ContainerEngine/cluster:Cluster", "oke", {"name": "oke"})
    home = res(K8S, "home", {"kubeconfig": "apiVersion: v1 # home"}, deps={"kubeconfig": [oke]})
    unknown = res(K8S, "unknown", {"kubeconfig": U})
    elsewhere = res(K8S, "elsewhere", {"kubeconfig": "apiVersion: v1 # elsewhere"})
    mine = platform_res("kubernetes:core/v1:ConfigMap", "mine", {"metadata": {"name": "cfg", "namespace": "research"}})
    theirs = res("kubernetes:core/v1:ConfigMap", "theirs", {"metadata": {"name": "cfg", "namespace": "research"}})
    got = violations(oke, home, unknown, on(home, mine), on(unknown, theirs))
    assert len(got) == 1 and "oke-rdma:walls:Walls declares in this stack" in got[0], got
    assert violations(oke, home, elsewhere, on(home, mine), on(elsewhere, theirs)) == []


@pytest.fixture(scope="module", params=["dev_run", "prod_run"])
def platform_objects_of(request):
    return request.getfixturevalue(request.param)


def test_every_object_of_a_platform_owned_kind_the_platform_declares_has_a_platform_name(platform_objects_of):
    """The table is the program's naming: every object of a platform-owned kind the dev and prod stacks' components
    declare carries a name of tenancy.PLATFORM_OBJECT_NAMES under the stack's namePrefix (Namespaces excepted: a
    tenant's namespace is the tenant's name, judged by the tenancy labels; CRDs: judged by their API group)."""
    run = platform_objects_of
    prefix = next(r.inputs["metadata"]["name"] for r in run.resources
                  if r.type.endswith(":ValidatingAdmissionPolicy")).split("-rdma-privileges")[0].split("-tenant-")[0]
    unnamed = []
    for r in run.resources:
        kind_of = platform_objects.base_kind(r.type)
        if kind_of is None or tenancy.owned_kind(*kind_of[:2]) is None or kind_of[1] in (
                "Namespace", "CustomResourceDefinition"):  # CRDs: tenancy.ADDON_CRD_GROUPS
            continue
        metadata = r.inputs.get("metadata") or {}
        if platform_objects.platform_name(kind_of[0], kind_of[1], metadata.get("name"), (prefix,),
                                          metadata.get("namespace")) is None:
            unnamed.append(f"{kind_of[1]} {name}")
    assert unnamed == []
