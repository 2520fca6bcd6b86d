"""kubernetes-tenant-no-platform-writes: no binding lets a tenant subject write what the platform owns, escalate,
or hold the built-in edit/admin/cluster-admin; the tenant roles the program generates pass it and the RBAC rule; the
pack's copy of the ownership model equals the package's."""
from __future__ import annotations

import pytest
from pulumi_policy import EnforcementLevel

from oke_rdma.facts import tenancy as facts
from oke_rdma.tenant_access import TenantBinding, manifests, role_name, role_rules
from offline.policy_eval import evaluate
from policies.security import tenancy, tenant_rbac
from policies.security.pack import PACK_NAME, POLICIES
from policies.security.rbac_model import parse_rules
from tests.policies.test_policies import U, res
from tests.policies.test_rbac import RBAC, rule

RULE = "kubernetes-tenant-no-platform-writes"
NS = "kubernetes:core/v1:Namespace"
GROUP = {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "oidc:research-devs"}
ALL_ADDONS = ("kueue", "jobset", "trainer", "mpiOperator", "kuberay", "keda")


def tenant_ns(name="research"):
    return res(NS, name, {"metadata": {"name": name, "labels": {"okerdma.io/tenant": name}}})


def role(*rules, kind="Role", name="r", namespace="research"):
    meta = {"name": name, **({"namespace": namespace} if kind == "Role" else {})}
    return res(RBAC + kind, name, {"metadata": meta, "rules": list(rules)})


def binding(ref, ref_kind="Role", subjects=(GROUP,), kind="RoleBinding", namespace="research", name="b"):
    meta = {"name": name, **({"namespace": namespace} if kind == "RoleBinding" else {})}
    return res(RBAC + kind, name, {"metadata": meta, "subjects": subjects if subjects == U else list(subjects),
                                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": ref_kind,
                                               "name": ref}})


def violations(*resources, config=None, rule_name=RULE):
    cfg = {"all": "disabled", rule_name: {"enforcementLevel": "mandatory", **(config or {})}}
    report = evaluate(POLICIES, list(resources), PACK_NAME, policy_config=cfg)
    return [v.message for v in report.violations if v.policy == rule_name]


def test_the_packs_copy_of_the_ownership_model_equals_the_packages():
    assert tenancy.PLATFORM_OWNED == facts.PLATFORM_OWNED
    assert tenancy.DELEGATED == facts.DELEGATED
    assert tenancy.WRITE_VERBS == facts.WRITE_VERBS


def test_the_rule_is_mandatory():
    assert tenant_rbac.kubernetes_tenant_no_platform_writes.enforcement_level == EnforcementLevel.MANDATORY


# --- the generated roles, judged by the pack's RBAC model ---------------------------------------------------------
def parsed(role_key, enabled=ALL_ADDONS):
    rules, problems = parse_rules(role_rules("okerdma", enabled)[role_key], namespaced=False)
    assert problems == []
    return rules


def can(rules, group, resource, verb):
    return any(r.allows(group, resource, verb) for r in rules)


ALLOWED = {
    "viewer": [("", "pods", "list"), ("", "pods/log", "get"), ("batch", "jobs", "watch"),
               ("kueue.x-k8s.io", "localqueues", "get"), ("kueue.x-k8s.io", "workloads", "list"),
               ("visibility.kueue.x-k8s.io", "localqueues/pendingworkloads", "get"), ("", "resourcequotas", "get"),
               ("jobset.x-k8s.io", "jobsets", "list"), ("ray.io", "rayjobs", "get")],
    "developer": [("", "pods", "create"), ("", "pods/exec", "create"), ("apps", "deployments", "update"),
                  ("batch", "jobs", "create"), ("batch", "cronjobs", "delete"),
                  ("jobset.x-k8s.io", "jobsets", "create"),
                  ("trainer.kubeflow.org", "trainjobs", "create"), ("kubeflow.org", "mpijobs", "patch"),
                  ("ray.io", "rayjobs", "create"), ("ray.io", "rayclusters", "delete"), ("", "secrets", "get"),
                  ("", "configmaps", "create"), ("", "persistentvolumeclaims", "create")],
    "admin": [("rbac.authorization.k8s.io", "rolebindings", "create"), ("rbac.authorization.k8s.io", "roles", "get"),
              ("", "pods", "create")],
}
REFUSED = {
    "viewer": [("", "secrets", "get"), ("", "pods", "create"), ("batch", "jobs", "create")],
    "developer": [("apps", "daemonsets", "create"), ("", "serviceaccounts", "create"),
                  ("", "serviceaccounts/token", "create"), ("", "resourcequotas", "update"),
                  ("", "limitranges", "create"), ("", "namespaces", "patch"),
                  ("networking.k8s.io", "networkpolicies", "delete"), ("kueue.x-k8s.io", "localqueues", "patch"),
                  ("kueue.x-k8s.io", "workloads/status", "update"), ("scheduling.k8s.io", "priorityclasses", "create"),
                  ("rbac.authorization.k8s.io", "rolebindings", "create"), ("", "pods/ephemeralcontainers", "patch"),
                  ("", "serviceaccounts", "impersonate"), ("trainer.kubeflow.org", "trainingruntimes", "create"),
                  ("policy", "poddisruptionbudgets", "create")],
    "admin": [("rbac.authorization.k8s.io", "roles", "create"), ("rbac.authorization.k8s.io", "clusterroles",
                                                                  "escalate"),
              ("rbac.authorization.k8s.io", "clusterrolebindings", "create"), ("", "users", "impersonate"),
              ("cilium.io", "ciliumnetworkpolicies", "create"), ("kueue.x-k8s.io", "clusterqueues", "patch")],
}


@pytest.mark.parametrize("role_key", ["viewer", "developer", "admin"])
def test_each_role_allows_what_it_should(role_key):
    rules = parsed(role_key)
    missing = [a for a in ALLOWED[role_key] if not can(rules, *a)]
    assert missing == []


@pytest.mark.parametrize("role_key", ["viewer", "developer", "admin"])
def test_each_role_refuses_what_it_should(role_key):
    rules = parsed(role_key)
    granted = [a for a in REFUSED[role_key] if can(rules, *a)]
    assert granted == []


def test_the_admin_role_binds_only_the_three_tenant_roles():
    binds = [r for r in parsed("admin") if "bind" in r.verbs]
    assert len(binds) == 1 and binds[0].named_bind()
    assert binds[0].names == {role_name("okerdma", r) for r in ("viewer", "developer", "admin")}


def test_job_kinds_are_granted_only_for_enabled_operators():
    rules = parsed("developer", enabled=("kueue",))
    assert can(rules, "batch", "jobs", "create")
    assert not can(rules, "ray.io", "rayjobs", "create") and not can(rules, "kubeflow.org", "mpijobs", "create")
    assert can(parsed("developer", enabled=("kuberay",)), "ray.io", "rayjobs", "create")


@pytest.mark.parametrize("role_key", ["viewer", "developer", "admin"])
def test_no_generated_role_writes_a_platform_owned_kind(role_key):
    assert tenant_rbac.platform_writes(parsed(role_key)) == set()


def test_the_generated_roles_and_bindings_pass_both_rbac_rules():
    objs = manifests("okerdma", ALL_ADDONS, [TenantBinding("research", "research", r, ("oidc:g",))
                                             for r in ("viewer", "developer", "admin")])
    resources = [tenant_ns()] + [res(RBAC + m["kind"], m["metadata"]["name"] + m["metadata"].get("namespace", ""),
                                     {k: v for k, v in m.items() if k not in ("apiVersion", "kind")}) for m in objs]
    assert violations(*resources) == []
    assert violations(*resources, rule_name="kubernetes-rbac-no-escalation") == []


def test_an_unbound_developer_role_named_by_the_admins_bind_is_judged_in_the_namespace():
    objs = manifests("okerdma", ALL_ADDONS, [TenantBinding("research", "research", "admin", ("oidc:g",))])
    resources = [res(RBAC + m["kind"], m["metadata"]["name"], {k: v for k, v in m.items()
                                                               if k not in ("apiVersion", "kind")}) for m in objs]
    assert len(objs) == 4  # three roles, one binding
    assert violations(*resources, rule_name="kubernetes-rbac-no-escalation") == []


# --- hand-written RBAC that gives tenants the platform's kinds -----------------------------------------------------
REFUSED_GRANTS = {
    "its own ResourceQuota": (rule(["update"], ["resourcequotas"]), "update resourcequotas"),
    "its ResourceQuota's status": (rule(["patch"], ["resourcequotas/status"]), "patch resourcequotas"),
    "its LimitRange": (rule(["delete"], ["limitranges"]), "delete limitranges"),
    "its LocalQueue": (rule(["patch"], ["localqueues"], ["kueue.x-k8s.io"]), "localqueues.kueue.x-k8s.io"),
    "Kueue workload status (self-admission)": (rule(["update"], ["workloads/status"], ["kueue.x-k8s.io"]),
                                               "workloads.kueue.x-k8s.io"),
    "ClusterQueues": (rule(["patch"], ["clusterqueues"], ["kueue.x-k8s.io"]), "clusterqueues.kueue.x-k8s.io"),
    "ResourceFlavors": (rule(["create"], ["resourceflavors"], ["kueue.x-k8s.io"]), "resourceflavors"),
    "Cohorts": (rule(["update"], ["cohorts"], ["kueue.x-k8s.io"]), "cohorts"),
    "WorkloadPriorityClasses": (rule(["create"], ["workloadpriorityclasses"], ["kueue.x-k8s.io"]),
                                "workloadpriorityclasses"),
    "the namespace's Pod Security label": (rule(["patch"], ["namespaces"]), "patch namespaces"),
    "PriorityClasses": (rule(["create"], ["priorityclasses"], ["scheduling.k8s.io"]), "priorityclasses"),
    "NetworkPolicies": (rule(["delete"], ["networkpolicies"], ["networking.k8s.io"]), "networkpolicies"),
    "CiliumNetworkPolicies": (rule(["delete"], ["ciliumnetworkpolicies"], ["cilium.io"]), "ciliumnetworkpolicies"),
    "CiliumClusterwideNetworkPolicies": (rule(["patch"], ["ciliumclusterwidenetworkpolicies"], ["cilium.io"]),
                                         "ciliumclusterwidenetworkpolicies"),
    "ValidatingAdmissionPolicyBindings": (rule(["delete"], ["validatingadmissionpolicybindings"],
                                               ["admissionregistration.k8s.io"]), "validatingadmissionpolicybindings"),
    "webhook configurations": (rule(["update"], ["mutatingwebhookconfigurations"],
                                    ["admissionregistration.k8s.io"]), "mutatingwebhookconfigurations"),
    "NodeFeatureRules": (rule(["create"], ["nodefeaturerules"], ["nfd.k8s-sigs.io"]), "nfd.k8s-sigs.io"),
    "ServiceMonitors": (rule(["create"], ["servicemonitors"], ["monitoring.coreos.com"]), "monitoring.coreos.com"),
    "RoleBindings with unrestricted bind": (rule(["create", "bind"], ["rolebindings", "clusterroles"],
                                                 ["rbac.authorization.k8s.io"]), "bind clusterroles"),
    "escalate": (rule(["escalate"], ["roles"], ["rbac.authorization.k8s.io"]), "escalate roles"),
    "impersonate": (rule(["impersonate"], ["users"]), "impersonate users"),
    "every verb on cluster roles": (rule(["*"], ["clusterroles"], ["rbac.authorization.k8s.io"]),
                                    "escalate clusterroles"),
    "every verb on groups": (rule(["*"], ["groups"]), "impersonate groups"),
    "every resource of the core group": (rule(["*"], ["*"]), "any verb on resourcequotas"),
    "every group and resource, create only": (rule(["create"], ["*"], ["*"]), "create *.cilium.io"),
    "deletecollection on every Kueue kind": (rule(["deletecollection"], ["*"], ["kueue.x-k8s.io"]), "cohorts"),
}


@pytest.mark.parametrize("name", sorted(REFUSED_GRANTS))
def test_a_role_giving_a_tenant_group_a_platform_kind_is_refused(name):
    granted, phrase = REFUSED_GRANTS[name]
    got = violations(tenant_ns(), role(granted), binding("r"))
    assert len(got) == 1 and phrase in got[0] and "oidc:research-devs" in got[0], got


def test_a_cluster_role_on_clusterqueues_bound_in_a_tenant_namespace_is_refused():
    got = violations(tenant_ns(), role(rule(["patch"], ["clusterqueues"], ["kueue.x-k8s.io"]), kind="ClusterRole"),
                     binding("r", ref_kind="ClusterRole"))
    assert len(got) == 1 and "clusterqueues" in got[0]


@pytest.mark.parametrize("built_in", ["edit", "admin", "cluster-admin"])
def test_a_tenant_subject_bound_to_a_built_in_writer_role_is_refused(built_in):
    got = violations(tenant_ns(), binding(built_in, ref_kind="ClusterRole"))
    assert len(got) == 1 and f"built-in {built_in}" in got[0]


def test_a_tenant_service_account_is_a_tenant_subject_wherever_bound():
    sa = {"kind": "ServiceAccount", "name": "trainer", "namespace": "research"}
    quota = role(rule(["update"], ["resourcequotas"]), kind="ClusterRole", name="quota-writer")
    got = violations(tenant_ns(), quota, binding("quota-writer", ref_kind="ClusterRole", subjects=[sa],
                                                 kind="ClusterRoleBinding"))
    assert len(got) == 1 and "ServiceAccount:research/trainer" in got[0]


def test_a_tenant_group_is_a_tenant_subject_in_a_cluster_role_binding_too():
    got = violations(tenant_ns(), role(rule(["get"], ["pods"])), binding("r"),
                     role(rule(["create"], ["priorityclasses"], ["scheduling.k8s.io"]), kind="ClusterRole", name="pc"),
                     binding("pc", ref_kind="ClusterRole", kind="ClusterRoleBinding", name="crb"))
    assert len(got) == 1 and "priorityclasses" in got[0]


def test_subjects_the_policy_config_names_are_tenants():
    pc = role(rule(["create"], ["priorityclasses"], ["scheduling.k8s.io"]), kind="ClusterRole", name="pc")
    crb = binding("pc", ref_kind="ClusterRole", kind="ClusterRoleBinding", name="crb")
    assert violations(pc, crb) == []
    assert len(violations(pc, crb, config={"tenantSubjects": ["Group:oidc:*"]})) == 1
    assert len(violations(role(rule(["patch"], ["limitranges"]), namespace="team"),
                          binding("r", namespace="team"), config={"tenantNamespaces": ["team"]})) == 1


def test_an_unknown_namespace_is_judged_as_a_tenant_namespace():
    got = violations(role(rule(["update"], ["resourcequotas"]), namespace=U), binding("r", namespace=U))
    assert len(got) == 1


@pytest.mark.parametrize("granted", [rule(["create", "delete"], ["pods", "configmaps"]),
                                     rule(["get", "list", "watch"], ["resourcequotas", "limitranges", "namespaces"]),
                                     rule(["create"], ["rayjobs"], ["ray.io"]),
                                     rule(["*"], ["mpijobs", "mpijobs/status"], ["kubeflow.org"]),
                                     rule(["get"], ["clusterqueues"], ["kueue.x-k8s.io"])])
def test_a_tenant_role_without_platform_writes_passes(granted):
    assert violations(tenant_ns(), role(granted), binding("r")) == []


def test_the_platforms_own_subjects_outside_tenant_namespaces_pass():
    controller = {"kind": "ServiceAccount", "name": "kueue-controller-manager", "namespace": "kueue-system"}
    assert violations(tenant_ns(), role(rule(["*"], ["clusterqueues", "workloads/status"], ["kueue.x-k8s.io"]),
                                        kind="ClusterRole", name="kueue"),
                      binding("kueue", ref_kind="ClusterRole", subjects=[controller],
                              kind="ClusterRoleBinding")) == []


def test_a_binding_rendered_by_a_chart_is_judged_too():
    rendered = {"extraObjects": [
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "q", "namespace":
                                                                                   "research"},
         "rules": [rule(["patch"], ["resourcequotas"])]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
         "metadata": {"name": "q", "namespace": "research"}, "subjects": [GROUP],
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "q"}}]}
    release = res("kubernetes:helm.sh/v3:Release", "keda", {"chart": "keda", "namespace": "keda",
                                                             "values": rendered})
    got = violations(tenant_ns(), release)
    assert len(got) == 1 and "resourcequotas" in got[0]


# --- bind limited by resourceNames, in kubernetes-rbac-no-escalation (rbac_bind) -----------------------------------
ESCALATION = "kubernetes-rbac-no-escalation"


def binder(*names, with_crb=False):
    rules = [rule(["create"], ["rolebindings"], ["rbac.authorization.k8s.io"]),
             {**rule(["bind"], ["clusterroles"], ["rbac.authorization.k8s.io"]), "resourceNames": list(names)}]
    if with_crb:
        rules.append(rule(["create"], ["clusterrolebindings"], ["rbac.authorization.k8s.io"]))
    return role(*rules, kind="ClusterRole", name="binder")


def test_bind_limited_to_declared_roles_passes_and_unlimited_bind_is_refused():
    target = role(rule(["create"], ["pods"]), kind="ClusterRole", name="dev")
    assert violations(binder("dev"), binding("binder", ref_kind="ClusterRole"), target, rule_name=ESCALATION) == []
    unlimited = role(rule(["create"], ["rolebindings"], ["rbac.authorization.k8s.io"]),
                     rule(["bind"], ["clusterroles"], ["rbac.authorization.k8s.io"]), kind="ClusterRole",
                     name="binder")
    got = violations(unlimited, binding("binder", ref_kind="ClusterRole"), target, rule_name=ESCALATION)
    assert any("escalate/bind" in m for m in got), got


@pytest.mark.parametrize("name, phrase", [("cluster-admin", "grants everything"),
                                          ("not-in-this-stack", "cannot be judged"),
                                          ("system:node", "cannot be judged")])
def test_bind_naming_an_unjudgeable_or_all_powerful_role_is_refused(name, phrase):
    got = violations(binder(name), binding("binder", ref_kind="ClusterRole"), rule_name=ESCALATION)
    assert len(got) == 1 and phrase in got[0], got


def test_a_role_named_by_a_binder_takes_the_binders_scope():
    target = role(rule(["create"], ["pods"]), kind="ClusterRole", name="dev")  # bound by no binding of the stack
    assert violations(binder("dev"), binding("binder", ref_kind="ClusterRole"), target, rule_name=ESCALATION) == []
    got = violations(binder("dev", with_crb=True), binding("binder", ref_kind="ClusterRole"), target,
                     rule_name=ESCALATION)
    assert any("may be bound in every namespace" in m and "workload creation" in m for m in got), got
    got = violations(binder("dev"), binding("binder", ref_kind="ClusterRole", kind="ClusterRoleBinding"), target,
                     rule_name=ESCALATION)
    assert any("may be bound in every namespace" in m for m in got), got


def test_unknown_subjects_are_judged_as_tenant_subjects():
    """A ClusterRoleBinding whose subjects are unknown during preview may name a tenant: judged as one."""
    pc = role(rule(["create"], ["priorityclasses"], ["scheduling.k8s.io"]), kind="ClusterRole", name="pc")
    got = violations(pc, binding("pc", ref_kind="ClusterRole", kind="ClusterRoleBinding", subjects=U))
    assert len(got) == 1 and "unknown during preview" in got[0]
