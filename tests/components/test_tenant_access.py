"""The tenants' people under Pulumi's mocks (preview=False): the platform's tenant ClusterRoles, one RoleBinding per
tenant and role naming IAM groups by OCID and identity-provider groups with the groups prefix, the cluster's OIDC token
authentication, and the IAM groups' use-clusters statements pinned to the cluster."""

from __future__ import annotations

import pytest

from oke_rdma.adapter import tenant_bindings
from oke_rdma.iam import IamInputs, iam_plan
from oke_rdma.tenant_access import TenantBinding, manifests
from offline.engine import run_program
from tests.componenttest import named, of_type
from tests.stackcfg import dev_raw_config, load_dev_config
from tests.k8s_schemas import SCHEMA_VERSIONS, validate_all  # noqa: E402,F401

CR = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole"
RB = "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding"
CRB = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding"
CLUSTER = "oci:ContainerEngine/cluster:Cluster"


@pytest.fixture(scope="module")
def dev(dev_run):
    return dev_run


def test_three_tenant_roles_are_created_once(dev):
    names = sorted(r.inputs["metadata"]["name"] for r in of_type(dev, CR) if "-tenant-" in r.name)
    assert names == ["okerdma-dev-tenant-admin", "okerdma-dev-tenant-developer", "okerdma-dev-tenant-viewer"]


def test_each_tenant_role_is_bound_in_its_namespace_to_its_members(dev):
    cfg = load_dev_config()
    bindings = {(r.inputs["metadata"]["namespace"], r.inputs["roleRef"]["name"]): r for r in of_type(dev, RB)
                if r.inputs["roleRef"]["name"].startswith("okerdma-dev-tenant-")}
    expected = {(b.namespace, f"okerdma-dev-tenant-{b.role}"): b.subjects for b in tenant_bindings(cfg)}
    assert set(bindings) == set(expected) and len(expected) == 6
    for key, rb in bindings.items():
        assert rb.inputs["roleRef"]["kind"] == "ClusterRole"
        assert [s["name"] for s in rb.inputs["subjects"]] == list(expected[key])
        assert all(s["kind"] == "Group" for s in rb.inputs["subjects"])
        assert named(dev, f"okerdma-dev-ns-{key[0]}").urn in rb.dependencies
    research = {k[1]: [s["name"] for s in v.inputs["subjects"]] for k, v in bindings.items() if k[0] == "research"}
    assert research["okerdma-dev-tenant-viewer"] == ["oidc:research-observers"]
    assert research["okerdma-dev-tenant-admin"][0].startswith("ocid1.group.")


def test_no_cluster_role_binding_names_a_tenant_group(dev):
    groups = {s for b in tenant_bindings(load_dev_config()) for s in b.subjects}
    for crb in of_type(dev, CRB):
        assert not groups & {s.get("name") for s in crb.inputs.get("subjects") or []}


def test_the_cluster_authenticates_oidc_tokens_with_the_configured_prefixes(dev):
    options = named(dev, "okerdma-dev-oke").inputs["options"]["openIdConnectTokenAuthenticationConfig"]
    assert options == {"isOpenIdConnectAuthEnabled": True, "issuerUrl": "https://idp.example.com/realms/gpu-platform",
                       "clientId": "oke-rdma-dev", "usernameClaim": "sub", "usernamePrefix": "oidc:",
                       "groupsClaim": "groups", "groupsPrefix": "oidc:", "signingAlgorithms": ["RS256"]}


def test_no_oidc_token_authentication_without_cluster_oidc():
    run = run_program(dev_raw_config(cluster={"oidc": None}, tenants={
        "research": {"members": [{"iamGroupId": "ocid1.group.oc1..aaaaaaaaexampleonly", "role": "viewer"}]},
        "analytics": {"members": None}}), [], "dev")
    assert "openIdConnectTokenAuthenticationConfig" not in named(run, "okerdma-dev-oke").inputs["options"]
    roles = sorted(r.inputs["metadata"]["name"] for r in of_type(run, CR) if "-tenant-" in r.name)
    assert roles == ["okerdma-dev-tenant-viewer"]  # only the roles members hold (admin would bring all three)


def test_only_roles_in_use_are_created():
    assert manifests("p", [], []) == []
    kinds = [(m["kind"], m["metadata"]["name"]) for m in manifests("p", [], [TenantBinding("t", "t", "developer",
                                                                                            ("g",))])]
    assert kinds == [("ClusterRole", "p-tenant-developer"), ("RoleBinding", "p-tenant-developer")]


def test_member_groups_get_use_clusters_on_this_cluster_only():
    group = "ocid1.group.oc1..aaaaaaaaexampleteam"
    plan = iam_plan(IamInputs(compartment_id="ocid1.compartment.oc1..c", member_group_ids=(group,)),
                    "ocid1.cluster.oc1.iad.k")
    (st,) = [s for s in plan.statements if s.policy == "cluster-users"]
    assert st.text == (f"Allow group id {group} to use clusters in compartment id ocid1.compartment.oc1..c where "
                       "target.cluster.id = 'ocid1.cluster.oc1.iad.k'")
    assert plan.policies["cluster-users"].compartment_id == "ocid1.compartment.oc1..c"
    assert not [s for s in iam_plan(IamInputs(compartment_id="ocid1.compartment.oc1..c"), "k").statements
                if s.policy == "cluster-users"]


def test_with_create_policies_false_the_statement_is_output_not_created():
    run = run_program(dev_raw_config(iam={"createPolicies": False}), [], "dev")
    assert "okerdma-dev-cluster-users" in run.outputs["iamPolicies"]
    assert not [p for p in of_type(run, "oci:Identity/policy:Policy")]


def test_the_roles_and_bindings_validate_against_the_kubernetes_schema():
    """Strict (no unknown field) for every Kubernetes minor OKE offers: every ClusterRole and RoleBinding the component declares."""
    objs = manifests("okerdma", ["kueue", "jobset", "trainer", "mpiOperator", "kuberay", "keda"],
                     [TenantBinding("t", "t", r, ("oidc:g", "ocid1.group.oc1..aaaaaaaaexample")) for r in
                      ("viewer", "developer", "admin")])
    assert len(objs) == 6
    for obj in objs:
        validate_all(obj)


@pytest.mark.parametrize("binding, message", [
    (TenantBinding("t", "t", "owner", ("g",)), "bindings[0].role: expected one of viewer, developer, admin"),
    (TenantBinding("t", "t", "viewer", ()), "bindings[0].subjects: empty"),
    (TenantBinding("t", "other", "viewer", ("g",)), "namespaces['other'] missing"),
])
def test_args_refuse_a_binding_they_cannot_create(binding, message):
    from oke_rdma.tenant_access import TenantAccessArgs
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        TenantAccessArgs(name_prefix="p", provider=None, enabled_addons=(), bindings=[binding],
                         namespaces={"t": object()})
    assert TenantAccessArgs(name_prefix="p", provider=None, enabled_addons=(), namespaces={"t": object()},
                            bindings=[TenantBinding("t", "t", "viewer", ("g",))]).bindings


# --- what judges a tenant's pods exists before its people can create any ---------------------------------------------
ENFORCEMENT = ("kubernetes:cilium.io/v2:CiliumClusterwideNetworkPolicy",
               "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding",
               "kubernetes:core/v1:LimitRange", "kubernetes:core/v1:ResourceQuota")


def _unguarded(run) -> list[str]:
    """``<binding>: <enforcing object>`` for every tenant RoleBinding that does not wait for one of the walls, the
    guard's bindings or the tenant defaults (the class: node- or admission-level enforcement a tenant pod must meet)."""
    enforcing = [r for r in run.resources if r.type in ENFORCEMENT]
    assert {r.type for r in enforcing} == set(ENFORCEMENT)  # the dev stack declares each: the check is not vacuous
    return [f"{rb.name}: {e.name}" for rb in of_type(run, RB) if "-tenant-" in rb.name
            for e in enforcing if e.urn not in rb.dependencies]


def test_tenant_bindings_wait_for_the_walls_the_guard_and_the_tenant_defaults(dev):
    """Bound earlier, a tenant could create pods in the window before the Cilium walls, the admission guard's
    policies or the quotas and limits exist: pods that nothing judged."""
    assert _unguarded(dev) == []


def test_bindings_declared_without_their_enforcement_are_found(monkeypatch):
    """The same check on a program that binds the tenants without waiting: every binding is reported."""
    import oke_rdma.adapter as adapter

    original = adapter.tenant_access_args
    monkeypatch.setattr(adapter, "tenant_access_args",
                        lambda cfg, provider, platform, enforcement=(): original(cfg, provider, platform))
    run = run_program(dev_raw_config(), [], "dev")
    assert len({line.split(":")[0] for line in _unguarded(run)}) == 6
