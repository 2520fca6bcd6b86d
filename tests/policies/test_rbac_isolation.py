"""kubernetes-rbac-no-escalation, writes that break tenant isolation (``rbac_isolation``): cluster-scoped objects
every tenant shares (VolumeAttachments, storage, scheduling and Kueue classes, clusterwide network policy) refused
through a cluster-wide grant; writes to other namespaces' Services, Endpoints, routes, network policies, quotas and
leases refused cluster-wide and across namespaces but kept in a tenant's own namespace; Service status and
scheduler-owned allocations refused even through a Role."""
from __future__ import annotations

import pytest

from policies.security.rbac_isolation import ISOLATION_DANGERS
from tests.policies.test_rbac import found, role, rule
from tests.policies.test_rbac_cross_namespace import OTHER_SA, OWN_SA, role_binding, stack_role
from tests.policies.test_rbac_stack import bound

#: key -> (a rule that grants it, text of the danger in the message). Members the red team did not name included.
MEMBERS = {
    "endpoint-writes": (rule(["patch"], ["endpointslices"], ["discovery.k8s.io"]), "EndpointSlice writes"),
    "load-balancer-status": (rule(["patch"], ["services/status"]), "services/status"),
    "service-writes": (rule(["update"], ["services"]), "Service writes"),
    "route-writes": (rule(["create"], ["referencegrants"], ["gateway.networking.k8s.io"]), "ReferenceGrant"),
    "ingress-class-writes": (rule(["create"], ["ingressclasses"], ["networking.k8s.io"]), "IngressClass"),
    "cluster-ip-allocation": (rule(["create"], ["ipaddresses"], ["networking.k8s.io"]), "IPAddress"),
    "network-policy-writes": (rule(["delete"], ["networkpolicies"], ["networking.k8s.io"]), "NetworkPolicy"),
    "cluster-network-policy-writes": (rule(["create"], ["ciliumidentities"], ["cilium.io"]), "identities"),
    "volume-attachment": (rule(["create"], ["volumeattachments"], ["storage.k8s.io"]), "VolumeAttachment"),
    "storage-class-writes": (rule(["patch"], ["storageclasses"], ["storage.k8s.io"]), "StorageClass"),
    "snapshot-content-writes": (rule(["create"], ["volumegroupsnapshotcontents"], ["groupsnapshot.storage.k8s.io"]),
                                "VolumeSnapshotContent"),
    "scheduling-class-writes": (rule(["create"], ["runtimeclasses"], ["node.k8s.io"]), "RuntimeClass"),
    "api-fairness-writes": (rule(["update"], ["flowschemas"], ["flowcontrol.apiserver.k8s.io"]), "FlowSchema"),
    "device-writes": (rule(["create"], ["resourceslices"], ["resource.k8s.io"]), "ResourceSlice"),
    "device-allocation": (rule(["update"], ["resourceclaims/status"], ["resource.k8s.io"]), "resourceclaims/status"),
    "trust-bundle-writes": (rule(["create"], ["clustertrustbundles"], ["certificates.k8s.io"]), "ClusterTrustBundle"),
    "quota-writes": (rule(["patch"], ["resourcequotas"]), "ResourceQuota"),
    "kueue-admin-writes": (rule(["patch"], ["clusterqueues"], ["kueue.x-k8s.io"]), "ClusterQueue"),
    "workload-admission": (rule(["patch"], ["workloads/status"], ["kueue.x-k8s.io"]), "workloads/status"),
    "lease-writes": (rule(["update"], ["leases"], ["coordination.k8s.io"]), "Lease writes"),
}
ROWS = {row[0]: row for row in ISOLATION_DANGERS}


def test_every_isolation_danger_has_a_member_under_test():
    assert set(MEMBERS) == set(ROWS)


@pytest.mark.parametrize("key", sorted(MEMBERS))
def test_a_cluster_wide_isolation_breaking_write_is_refused(key):
    granted, text = MEMBERS[key]
    got = found(*bound(granted))
    assert len(got) == 1 and text in got[0], got


@pytest.mark.parametrize("key", sorted(k for k, row in ROWS.items() if row[2] == "namespace"))
def test_a_write_only_the_control_plane_makes_is_refused_even_in_one_namespace(key):
    granted, text = MEMBERS[key]
    got = found(stack_role(granted))
    assert len(got) == 1 and text in got[0], got


@pytest.mark.parametrize("key", sorted(k for k, row in ROWS.items() if len(row) > 4 and row[4]))
def test_another_namespaces_services_routes_and_policies_are_refused_and_ones_own_pass(key):
    granted, text = MEMBERS[key]
    got = found(stack_role(granted), role_binding("helper", [OTHER_SA]))
    assert len(got) == 1 and text in got[0] and "not of namespace 'research'" in got[0], got
    assert found(stack_role(granted), role_binding("helper", [OWN_SA])) == []
    assert found(*bound(granted, kind="RoleBinding")) == []


@pytest.mark.parametrize("granted", [rule(["get", "list", "watch"], ["endpointslices"], ["discovery.k8s.io"]),
                                     rule(["get", "list", "watch"], ["volumeattachments"], ["storage.k8s.io"]),
                                     rule(["get", "list", "watch"], ["services", "services/status"]),
                                     rule(["create"], ["localqueues"], ["kueue.x-k8s.io"]),
                                     rule(["get"], ["clusterqueues", "workloads/status"], ["kueue.x-k8s.io"])])
def test_reading_what_the_isolation_writes_decide_passes_cluster_wide(granted):
    assert found(*bound(granted)) == []


def test_a_wildcard_resource_of_the_storage_group_covers_volume_attachments():
    got = found(*bound(rule(["create"], ["*"], ["storage.k8s.io"])))
    assert len(got) == 1 and "VolumeAttachment" in got[0], got


def test_the_cluster_scoped_members_are_not_judged_across_namespaces():
    """A RoleBinding cannot grant a cluster-scoped resource, so another namespace's account given a role that names
    one gets nothing from it."""
    assert found(stack_role(MEMBERS["volume-attachment"][0]), role_binding("helper", [OTHER_SA])) == []
    assert found(role(MEMBERS["volume-attachment"][0], name="helper"),
                 role_binding("helper", [OTHER_SA], ref_kind="ClusterRole")) == []


@pytest.mark.parametrize("granted", [rule(["create"], ["volumesnapshotcontents"], ["snapshot.storage.k8s.io"]),
                                     rule(["patch"], ["volumesnapshotcontents/status"], ["snapshot.storage.k8s.io"]),
                                     rule(["update"], ["volumesnapshotclasses"], ["snapshot.storage.k8s.io"]),
                                     rule(["*"], ["*"], ["snapshot.storage.k8s.io"])])
def test_cluster_wide_snapshot_content_writes_are_refused(granted):
    got = found(*bound(granted))
    assert len(got) == 1 and "VolumeSnapshotContent" in got[0], got


def test_reading_snapshot_contents_and_writing_ones_own_snapshots_pass():
    assert found(*bound(rule(["get", "list", "watch"], ["volumesnapshotcontents", "volumesnapshotclasses"],
                             ["snapshot.storage.k8s.io"]))) == []
    assert found(*bound(rule(["create", "delete"], ["volumesnapshots"], ["snapshot.storage.k8s.io"]),
                        kind="RoleBinding")) == []
