"""squash-identity-not-a-data-owner: the identity an FSS export, the FSS StorageClass or a Lustre file system squashes
root to is never UID/GID 0 nor an ID that owns a tenant's data (the tenant claims' okerdma.io/uid and gid, the IDs of
pods that mount claims); unknowns fail closed."""
from __future__ import annotations

import json

import pytest

from tests.policies.test_policies import U, messages, res, run

RULE = "squash-identity-not-a-data-owner"
EXPORT, SC = "oci:FileStorage/export:Export", "kubernetes:storage.k8s.io/v1:StorageClass"
LUSTRE = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"
PVC, DEPLOYMENT = "kubernetes:core/v1:PersistentVolumeClaim", "kubernetes:apps/v1:Deployment"


def export(**option):
    return res(EXPORT, "export", {"exportOptions": [{"source": "10.0.0.0/16", "access": "READ_WRITE",
                                                     "identitySquash": "ROOT", **option}]})


def claim(uid="20001", gid="20001"):
    return res(PVC, "claim", {"metadata": {"name": "fss-shared", "namespace": "research", "annotations": {
        "okerdma.io/uid": uid, "okerdma.io/gid": gid}}})


def trainer(**security):
    spec = {"securityContext": security, "containers": [{"name": "c", "image": "x"}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "fss-shared"}}]}
    return res(DEPLOYMENT, "trainer", {"metadata": {"name": "t", "namespace": "research"},
                                       "spec": {"template": {"spec": spec}}})


def violations(*resources) -> list[str]:
    return messages(run(*resources, policy=RULE), RULE)


@pytest.mark.parametrize("resources, needle", [
    ((export(anonymousUid="20001"), claim()), "UID 20001, which owns data (claim 'fss-shared'"),
    ((export(anonymousGid=20001), claim()), "GID 20001, which owns data"),
    ((export(identitySquash="ALL", anonymousUid="30000"), claim(), trainer(runAsUser=30000)), "Deployment 'trainer'"),
    ((export(anonymousGid="4000"), trainer(fsGroup=4000)), "GID 4000"),
    ((export(anonymousGid="4100"), trainer(supplementalGroups=[4100])), "GID 4100"),
    ((export(anonymousUid="0"),), "UID 0 (root)"),
    ((export(anonymousUid=U), claim()), "unknown during preview"),
    ((export(), claim(uid=U)), "owner UID is unknown"),
    ((export(), claim(uid="65534")), "UID 65534, which owns data"),  # the default squash identity owns data
    ((res(SC, "fss", {"provisioner": "fss.csi.oraclecloud.com", "parameters": {"exportOptions": json.dumps(
        [{"source": "10.0.0.0/16", "identitySquash": "ROOT", "anonymousUid": 20001}])}}), claim()), "StorageClass"),
    ((res(LUSTRE, "lustre", {"rootSquashConfiguration": {"identitySquash": "ROOT", "squashUid": "20001",
                                                         "squashGid": "65534"}}), claim()), "Lustre file system"),
])
def test_a_squash_to_root_or_a_data_owner_is_refused(resources, needle):
    """Squash identities equal to 0 or to an owner of tenant data, or unknown, are refused."""
    found = violations(*resources)
    assert any(needle in m for m in found), found


def test_squash_to_nobody_and_unsquashed_exports_pass():
    """The default squash (65534) with tenants on their own IDs passes; an unsquashed export is another rule's."""
    assert violations(export(), claim(), trainer(runAsUser=20001, runAsGroup=20001, fsGroup=20001)) == []
    assert violations(export(identitySquash="NONE", anonymousUid="20001"), claim()) == []
    assert violations(res(LUSTRE, "lustre", {"rootSquashConfiguration": {"identitySquash": "ROOT"}}), claim()) == []


def test_pods_without_claims_own_no_data():
    """A pod that mounts no claim writes no shared data: its IDs are not owners."""
    no_claim = res(DEPLOYMENT, "web", {"metadata": {"name": "w", "namespace": "apps"}, "spec": {"template": {
        "spec": {"securityContext": {"runAsUser": 30000}, "containers": [{"name": "c", "image": "x"}]}}}})
    assert violations(export(anonymousUid="30000"), no_claim) == []
