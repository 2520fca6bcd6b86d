"""Red-team programs whose objects name no namespace and land in their Kubernetes provider's default namespace
(``kubernetes.Provider(namespace=...)``): the packs must judge them where they land, not in ``default``; and a Helm
release whose values are huge (a generated list), judged to its last item. Registered into ``programs.CASES`` on
import."""
from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import case, namespace

READ_SECRETS = [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list"]}]
USER = [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice@example.com"}]
REF = {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "secret-reader"}


def _provider(bad: bool) -> pulumi.ResourceOptions:
    namespace("apps", "restricted")
    return pulumi.ResourceOptions(provider=k8s.Provider("k8s", namespace="kube-system" if bad else "apps",
                                                        kubeconfig="{}"))


@case("identity", "kubernetes-rbac-no-escalation")
def role_without_namespace_lands_in_the_providers_kube_system(bad):
    opts = _provider(bad)
    k8s.rbac.v1.Role("reader", metadata={"name": "secret-reader"}, rules=READ_SECRETS, opts=opts)
    k8s.rbac.v1.RoleBinding("reader", metadata={"name": "secret-reader"}, role_ref=REF, subjects=USER, opts=opts)


@case("identity", "kubernetes-rbac-no-escalation")
def config_group_role_without_namespace_lands_in_the_providers_kube_system(bad):
    opts = _provider(bad)
    k8s.yaml.v2.ConfigGroup("rbac", objs=[
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "secret-reader"},
         "rules": READ_SECRETS},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "secret-reader"},
         "roleRef": REF, "subjects": USER}], opts=opts)


@case("pod", "node-escape-only-in-node-agent-namespaces")
def huge_helm_values_hide_a_host_pid_item_at_the_end(bad):
    """A thousand generated value maps (a dashboard list) with hostPID in the last one: judged, not timed out."""
    from tests.policies.redteam.programs import release
    items = [{"name": f"d{i}", "labels": {"a": str(i)}, "spec": {"x": [1, 2, 3]}} for i in range(1000)]
    if bad:
        items[-1] = {"hostPID": True}
    release({"dashboards": items})
