"""Red-team pass 4 (2026-12-02), identity: RBAC writes that break tenant isolation without a classic escalation
(EndpointSlices, VolumeAttachments, Services of every namespace), and OCI grants whose principal set or target is
wider than it reads (a dynamic group of every instance, a pin to the protected bucket, bucket administration by
pin, a tenancy-wide resource-principal type)."""
from __future__ import annotations

import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import case

RBAC = "rbac.authorization.k8s.io"
SA = {"kind": "ServiceAccount", "name": "ctl", "namespace": "apps"}


def _bound(group: str, resources: list[str], verbs: list[str]) -> None:
    """A ClusterRole with one rule, bound cluster-wide to one named ServiceAccount."""
    k8s.rbac.v1.ClusterRole("cr", metadata={"name": "rt-ctl"},
                            rules=[{"api_groups": [group], "resources": resources, "verbs": verbs}])
    k8s.rbac.v1.ClusterRoleBinding("crb", metadata={"name": "rt-ctl"}, subjects=[SA],
                                   role_ref={"api_group": RBAC, "kind": "ClusterRole", "name": "rt-ctl"})


@case("identity", "kubernetes-rbac-no-escalation")
def cluster_wide_endpointslice_writes(bad):
    _bound("discovery.k8s.io", ["endpointslices"], ["create", "update", "patch"] if bad else ["get", "list", "watch"])


@case("identity", "kubernetes-rbac-no-escalation")
def cluster_wide_volumeattachment_create(bad):
    _bound("storage.k8s.io", ["volumeattachments"], ["create", "update"] if bad else ["get", "list", "watch"])


@case("identity", "kubernetes-rbac-no-escalation")
def cluster_wide_service_writes(bad):
    _bound("", ["services"], ["patch", "update"] if bad else ["get", "list", "watch"])


@case("identity", "kubernetes-rbac-no-escalation")
def cluster_wide_runtimeclass_create(bad):
    # not named by the red team: a RuntimeClass's scheduling.tolerations are merged into every pod naming it
    _bound("node.k8s.io", ["runtimeclasses"], ["create"] if bad else ["get", "list", "watch"])
