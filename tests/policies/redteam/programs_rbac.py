"""Red-team programs: Kubernetes RBAC objects that let a subject gain more privilege than the platform intends.

Each case declares the unsafe object with ``bad=True`` and, with ``bad=False``, the same object narrowed to what
does not escalate (registered in ``CASES`` by :func:`tests.policies.redteam.programs.case`)."""
from __future__ import annotations

import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import case

RBAC_API = "rbac.authorization.k8s.io"
SA = {"kind": "ServiceAccount", "name": "trainer", "namespace": "research"}
AGG = "rbac.authorization.k8s.io/aggregate-to-"
ESCALATION = CLUSTER_WIDE = "kubernetes-rbac-no-escalation"


def cluster_role(rules: list[dict], name: str = "helper", labels: dict | None = None, **extra) -> None:
    k8s.rbac.v1.ClusterRole(f"cr-{name}", metadata={"name": name, **({"labels": labels} if labels else {})},
                            rules=rules, **extra)


def cluster_binding(role: str, subjects: list[dict] = (SA,), name: str = "helper") -> None:
    k8s.rbac.v1.ClusterRoleBinding(f"crb-{name}", metadata={"name": name}, subjects=list(subjects),
                                   role_ref={"api_group": RBAC_API, "kind": "ClusterRole", "name": role})


def bound_cluster_role(rules: list[dict]) -> None:
    """A ClusterRole bound cluster-wide to one named service account."""
    cluster_role(rules)
    cluster_binding("helper")


def rule(verbs: list[str], resources: list[str], groups: tuple[str, ...] = ("",)) -> dict:
    return {"api_groups": list(groups), "resources": resources, "verbs": verbs}


@case("identity", ESCALATION)
def cluster_wide_admin_binding(bad):
    cluster_binding("admin" if bad else "view")


@case("identity", ESCALATION)
def cluster_wide_edit_binding(bad):
    cluster_binding("edit" if bad else "view")


@case("identity", ESCALATION)
def service_account_token_request(bad):
    bound_cluster_role([rule(["create"] if bad else ["get"], ["serviceaccounts/token" if bad else "serviceaccounts"])])


@case("identity", ESCALATION)
def secret_creation_cluster_wide(bad):
    """Secret creation in every namespace for an operations account: a service-account-token Secret in kube-system
    naming a controller's account is filled with that account's long-lived token. The control binds the same role
    in the account's own namespace only."""
    k8s.core.v1.Namespace("ns-ops", metadata={"name": "ops", "labels": {
        "pod-security.kubernetes.io/enforce": "restricted"}})
    cluster_role([rule(["create"], ["secrets"])], name="secret-writer")
    runner = {"kind": "ServiceAccount", "name": "runner", "namespace": "ops"}
    if bad:
        cluster_binding("secret-writer", [runner], name="secret-writer")
    else:
        k8s.rbac.v1.RoleBinding("rb-secret-writer", metadata={"name": "secret-writer", "namespace": "ops"},
                                subjects=[runner],
                                role_ref={"api_group": RBAC_API, "kind": "ClusterRole", "name": "secret-writer"})


@case("identity", CLUSTER_WIDE)
def admission_webhook_configuration_write(bad):
    bound_cluster_role([rule(["get", "list", "patch"] if bad else ["get", "list"],
                             ["validatingwebhookconfigurations", "mutatingwebhookconfigurations"],
                             ("admissionregistration.k8s.io",))])


@case("identity", CLUSTER_WIDE)
def pod_creation_cluster_wide(bad):
    cluster_role([rule(["create", "get"], ["pods"])])
    if bad:
        cluster_binding("helper")
    else:  # the same ClusterRole, granted only in one namespace
        k8s.rbac.v1.RoleBinding("rb", metadata={"name": "helper", "namespace": "research"}, subjects=[SA],
                                role_ref={"api_group": RBAC_API, "kind": "ClusterRole", "name": "helper"})


@case("identity", ESCALATION)
def aggregation_rule_selecting_admin(bad):
    cluster_role([], name="aggregated", aggregation_rule={"cluster_role_selectors": [
        {"match_labels": {AGG + ("admin" if bad else "view"): "true"}}]})


@case("identity", ESCALATION)
def role_feeding_view_with_secrets(bad):
    cluster_role([rule(["get", "list"], ["secrets" if bad else "configmaps"])], name="extra-view",
                 labels={AGG + "view": "true"})


@case("identity", CLUSTER_WIDE)
def kubelet_api_through_nodes_proxy(bad):
    bound_cluster_role([rule(["get"], ["nodes/proxy" if bad else "nodes"])])


@case("identity", ESCALATION)
def impersonate_users(bad):
    bound_cluster_role([rule(["impersonate"] if bad else ["get", "list"], ["users", "groups", "serviceaccounts"]
                             if bad else ["serviceaccounts"])])


@case("identity", ESCALATION)
def escalate_and_bind_in_a_namespace(bad):
    k8s.rbac.v1.Role("r", metadata={"name": "granter", "namespace": "research"}, rules=[
        rule(["escalate", "bind", "create"] if bad else ["get", "list", "create"], ["roles", "rolebindings"],
             (RBAC_API,))])


@case("identity", CLUSTER_WIDE)
def certificate_approval(bad):
    bound_cluster_role([rule(["update"] if bad else ["get"], ["certificatesigningrequests/approval"],
                             ("certificates.k8s.io",)),
                        rule(["approve"] if bad else ["get"], ["signers"], ("certificates.k8s.io",))])


@case("identity", CLUSTER_WIDE)
def persistent_volume_creation(bad):
    bound_cluster_role([rule(["create", "get"] if bad else ["get", "list"], ["persistentvolumes"])])


@case("identity", CLUSTER_WIDE)
def wildcard_reads_every_secret(bad):
    bound_cluster_role([rule(["get", "list"], ["*"] if bad else ["configmaps", "pods"], ("*",) if bad else ("",))])


@case("identity", ESCALATION)
def binding_to_system_authenticated(bad):
    subject = {"kind": "Group", "name": "system:authenticated", "api_group": RBAC_API} if bad else SA
    k8s.rbac.v1.RoleBinding("rb", metadata={"name": "readers", "namespace": "research"}, subjects=[subject],
                            role_ref={"api_group": RBAC_API, "kind": "ClusterRole", "name": "view"})


@case("identity", ESCALATION)
def binding_patch_adds_a_subject_to_cluster_admin(bad):
    if bad:  # a default binding's roleRef is its name: the subject gets cluster-admin
        k8s.rbac.v1.ClusterRoleBindingPatch("patch", metadata={"name": "cluster-admin"}, subjects=[SA])
    else:
        k8s.rbac.v1.ClusterRoleBindingPatch("patch", metadata={"name": "trainer-view"}, subjects=[SA], role_ref={
            "api_group": RBAC_API, "kind": "ClusterRole", "name": "view"})


@case("identity", ESCALATION)
def namespace_relabelled_by_its_tenant(bad):
    k8s.rbac.v1.Role("r", metadata={"name": "ns-editor", "namespace": "research"}, rules=[
        rule(["get", "patch"] if bad else ["get"], ["namespaces"])])


@case("identity", CLUSTER_WIDE)
def exec_into_every_pod(bad):
    bound_cluster_role([rule(["create", "get"], ["pods/exec"] if bad else ["pods/log"])])


@case("identity", ESCALATION)
def binding_to_a_controller_role(bad):
    cluster_binding("system:controller:replicaset-controller" if bad else "system:public-info-viewer")


@case("identity", ESCALATION)
def pod_creation_in_kube_system(bad):
    k8s.rbac.v1.Role("r", metadata={"name": "deployer", "namespace": "kube-system" if bad else "research"},
                     rules=[rule(["create", "get"], ["pods"])])


@case("identity", ESCALATION)
def binding_to_the_default_service_account(bad):
    k8s.rbac.v1.RoleBinding("rb", metadata={"name": "readers", "namespace": "research"}, subjects=[
        {**SA, "name": "default" if bad else "trainer"}],
        role_ref={"api_group": RBAC_API, "kind": "ClusterRole", "name": "view"})


@case("identity", ESCALATION)
def rbac_declared_in_a_config_group(bad):
    verbs = "[create, get]" if bad else "[get, list]"
    k8s.yaml.v2.ConfigGroup("manifests", yaml=f"""
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {{name: deployer}}
rules: [{{apiGroups: [apps], resources: [daemonsets], verbs: {verbs}}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {{name: deployer}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: deployer}}
subjects: [{{kind: ServiceAccount, name: trainer, namespace: research}}]
""")
