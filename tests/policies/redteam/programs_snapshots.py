"""Red-team programs (pass 6, identity × data): cluster-wide writes of VolumeSnapshotContents and their classes, the
snapshot twins of PersistentVolume writes — a pre-provisioned content names any backup's handle and binds it to a
VolumeSnapshot of any namespace, whose claim restores the data there — and such a content declared directly by a
stack. Registered in ``programs.CASES`` on import."""
from __future__ import annotations

import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import case
from tests.policies.redteam.programs_rt4id import _bound


@case("identity", "kubernetes-rbac-no-escalation")
def cluster_wide_volume_snapshot_content_create(bad):
    _bound("snapshot.storage.k8s.io", ["volumesnapshotcontents"], ["create"] if bad else ["get", "list", "watch"])


@case("identity", "kubernetes-rbac-no-escalation")
def cluster_wide_volume_snapshot_class_writes(bad):
    # not named by the red team: a class's deletionPolicy and driver parameters apply to every tenant's snapshots
    _bound("snapshot.storage.k8s.io", ["volumesnapshotclasses"], ["update", "patch"] if bad else ["get", "list"])


@case("data", "resource-type-catalogued")
def pre_provisioned_snapshot_content_for_a_tenant(bad):
    """A VolumeSnapshotContent naming a volume backup's OCID, bound to a VolumeSnapshot in a tenant namespace."""
    if bad:
        k8s.apiextensions.CustomResource(
            "vsc", api_version="snapshot.storage.k8s.io/v1", kind="VolumeSnapshotContent",
            metadata={"name": "stolen"}, spec={
                "deletionPolicy": "Retain", "driver": "blockvolume.csi.oraclecloud.com",
                "source": {"snapshotHandle": "ocid1.volumebackup.oc1.sa-saopaulo-1.aaaaaaaaother"},
                "volumeSnapshotRef": {"name": "restored", "namespace": "research"}})
    else:
        k8s.core.v1.ConfigMap("cm", metadata={"name": "c", "namespace": "default"}, data={"a": "b"})
