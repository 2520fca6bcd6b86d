"""volume-reclaim-keeps-protected-storage: a PersistentVolume whose claim's deletion deletes (Delete) or erases
(Recycle) its storage passes only on unprotected storage of the stack — by dependency or literal OCID, an export or a
mount target counting with the file systems it serves; protected storage, storage the stack does not declare, an
unknown policy and a patch are refused; Retain (or no policy: Retain for a volume made by hand) passes."""
from __future__ import annotations

import pytest

from tests.policies.test_policies import U, messages, res, run

RULE = "volume-reclaim-keeps-protected-storage"
PV = "kubernetes:core/v1:PersistentVolume"
FS, MT, EXPORT = ("oci:FileStorage/fileSystem:FileSystem", "oci:FileStorage/mountTarget:MountTarget",
                  "oci:FileStorage/export:Export")
LUSTRE = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"
FS_ID = "ocid1.filesystem.oc1.iad.aaaaaaaashared"


def storage(protect: bool = True):
    fs = res(FS, "shared", {"id": FS_ID, "availabilityDomain": "AD-1"})
    fs.protect = protect
    mt = res(MT, "mt", {"id": "ocid1.mounttarget.oc1.iad.aaaaaaaamt"})
    export = res(EXPORT, "export", {"path": "/shared"}, deps={"fileSystemId": [fs], "exportSetId": [mt]})
    return fs, mt, export


def pv(policy="Delete", source=None, deps=None, type_=PV, name="pv"):
    spec = {"capacity": {"storage": "1Ti"}, "accessModes": ["ReadWriteMany"], **(source or {
        "csi": {"driver": "fss.csi.oraclecloud.com", "volumeHandle": f"{FS_ID}:10.0.3.10:/shared"}})}
    if policy is not None:
        spec["persistentVolumeReclaimPolicy"] = policy
    return res(type_, name, {"metadata": {"name": name}, "spec": spec}, deps={"spec": deps} if deps else None)


def violations(*resources) -> list[str]:
    return messages(run(*resources, policy=RULE), RULE)


@pytest.mark.parametrize("policy", ["Delete", "Recycle", U, "delete"])
def test_a_volume_that_deletes_or_erases_a_protected_file_system_is_refused(policy):
    """The red team's input: a static FSS volume of the protected file system with Delete (or Recycle, an unknown
    policy, a value the API server would not take)."""
    fs, mt, export = storage()
    [found] = violations(fs, mt, export, pv(policy, deps=[fs]))
    assert "storage this stack protects ('shared')" in found and "Retain" in found


@pytest.mark.parametrize("how", ["dependency on the export", "dependency on the mount target", "literal OCID"])
def test_the_protected_file_system_is_reached_through_its_export_its_mount_target_or_its_ocid(how):
    fs, mt, export = storage()
    deps = {"dependency on the export": [export], "dependency on the mount target": [mt],
            "literal OCID": None}[how]
    found = violations(fs, mt, export, pv("Delete", deps=deps))
    assert len(found) == 1 and "'shared'" in found[0], found


def test_an_nfs_volume_recycled_on_the_mount_target_of_a_protected_file_system_is_refused():
    fs, mt, export = storage()
    nfs = {"nfs": {"server": "10.0.3.10", "path": "/shared"}}
    assert len(violations(fs, mt, export, pv("Recycle", nfs, deps=[mt]))) == 1


def test_a_lustre_volume_of_a_protected_lustre_file_system_is_refused():
    lustre = res(LUSTRE, "lustre", {"fileSystemName": "lfs"})
    lustre.protect = True
    handle = {"csi": {"driver": "lustre.csi.oraclecloud.com", "volumeHandle": "10.0.4.5@tcp:/lfs"}}
    assert len(violations(lustre, pv("Delete", handle, deps=[lustre]))) == 1


def test_storage_the_stack_does_not_declare_fails_closed():
    """A handle to storage of another stack (or unknown) may be protected there."""
    found = violations(pv("Delete"))
    assert len(found) == 1 and "not a resource of this stack" in found[0]
    assert len(violations(pv("Delete", {"csi": {"driver": "fss.csi.oraclecloud.com", "volumeHandle": U}}))) == 1


def test_a_patch_setting_delete_on_a_live_volume_is_refused():
    found = violations(pv("Delete", type_=PV + "Patch", name="okerdma-dev-research-fss"))
    assert len(found) == 1 and "live PersistentVolume" in found[0]
    assert violations(pv(None, type_=PV + "Patch")) == []


def test_list_items_and_rendered_volumes_are_judged():
    fs, mt, export = storage()
    item = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "x"},
            "spec": {"persistentVolumeReclaimPolicy": "Delete", "nfs": {"server": "10.0.3.10", "path": "/shared"}}}
    listed = res(PV + "List", "pvs", {"items": [item]})
    assert len(violations(fs, mt, export, listed)) == 1
    rendered = res("kubernetes:helm.sh/v3:Release", "r", {"chart": "x", "namespace": "apps",
                                                          "values": {"extraObjects": [item]}})
    assert len(violations(fs, mt, export, rendered)) == 1


def test_kserve_local_model_volume_spec_is_judged():
    group = res("kubernetes:serving.kserve.io/v1alpha1:LocalModelNodeGroup", "models", {
        "metadata": {"name": "models"}, "spec": {"persistentVolumeSpec": {"persistentVolumeReclaimPolicy": "Delete",
                                                                          "nfs": {"server": "10.0.3.10", "path": "/"}}}})
    assert len(violations(group)) == 1


def test_retain_no_policy_and_unprotected_storage_of_the_stack_pass():
    fs, mt, export = storage()
    assert violations(fs, mt, export, pv("Retain", deps=[fs]), pv(None, deps=[fs], name="pv2")) == []
    scratch = storage(protect=False)
    assert violations(*scratch, pv("Delete", deps=[scratch[0]])) == []
