"""The Kubernetes side of shared storage under mocks (preview=False): StorageClass on our mount target, a static
RWX PersistentVolume per tenant that asked, bound both ways to its claim, and the volume handle built from the
real (mocked) FSS outputs."""

from __future__ import annotations

import json

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci
import pytest

from oke_rdma.config import ConfigError, subnet_plan
from oke_rdma.adapter import platform_args, shared_volumes_args, storage_args
from oke_rdma.platform import Platform
from oke_rdma.storage import Storage
from oke_rdma.volumes import SharedVolumes, export_options_json, volume_handle
from tests.stackcfg import dev_raw_config, load_dev_config, of_type, one
from offline.engine import fake_ocid, run_program

PV, PVC, SC = "kubernetes:core/v1:PersistentVolume", "kubernetes:core/v1:PersistentVolumeClaim", \
    "kubernetes:storage.k8s.io/v1:StorageClass"
FS, MT = "oci:FileStorage/fileSystem:FileSystem", "oci:FileStorage/mountTarget:MountTarget"
NS = "kubernetes:core/v1:Namespace"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
STORAGE_NSG = "ocid1.networksecuritygroup.oc1.sa-saopaulo-1.aaaaaaaastoragensg"


def _run(unknowns: bool = False, **overrides):
    raw = dev_raw_config(**overrides)
    cfg = load_dev_config(**overrides)
    plan = subnet_plan(cfg.network)
    built: dict = {}

    def program():
        subnet = oci.core.Subnet("stub-storage-subnet", oci.core.SubnetArgs(
            compartment_id=cfg.compartment_id, vcn_id="ocid1.vcn.oc1..stub", cidr_block=plan["storage"]))
        cidrs = {role: pulumi.Output.from_input(cidr) for role, cidr in plan.items()}  # as a brought network gives
        s = Storage("storage", storage_args(cfg, {"storage": subnet.id}, cidrs, {"storage": STORAGE_NSG}))
        provider = k8s.Provider("k8s", kubeconfig="apiVersion: v1\nkind: Config\nclusters: []\n")
        p = Platform("platform", platform_args(cfg, provider))
        built["v"] = SharedVolumes("volumes", shared_volumes_args(
            cfg, provider, p.namespaces, s.file_system_id, s.mount_target_id, s.mount_target_ip, s.export_path,
            s.availability_domain, s.client_cidrs))

    return run_program(raw, [], "dev", unknowns=unknowns, program=program), built["v"]


def test_volume_handle_is_file_system_ocid_mount_target_ip_and_export_path():
    """Every tenant's handle is <file system OCID>:<mount target IP>:<export path>, with or without a subPath."""
    run, volumes = _run()
    fs = one(run.resources, FS, "okerdma-dev-fss")
    fs_id = run.ids[fs.urn]
    assert fs_id == fake_ocid("filesystem", "sa-saopaulo-1", FS, "okerdma-dev-fss")
    research = one(run.resources, PV, "okerdma-dev-research-fss")
    csi = research.inputs["spec"]["csi"]
    assert csi["driver"] == "fss.csi.oraclecloud.com"
    # the getPrivateIp mock answers the 10th host of the storage subnet (10.0.3.0/24); the export path is /shared
    assert csi["volumeHandle"] == f"{fs_id}:10.0.3.10:/shared"
    analytics = one(run.resources, PV, "okerdma-dev-analytics-fss")
    # a subPath is a directory pods mount with volumeMounts[].subPath, never part of the handle: the handle names
    # an export path, and FSS exports no directory below one
    assert analytics.inputs["spec"]["csi"]["volumeHandle"] == f"{fs_id}:10.0.3.10:/shared"
    assert "volumeAttributes" not in csi  # no in-transit TLS in dev


def test_each_volume_and_claim_are_bound_both_ways():
    run, volumes = _run()
    for tenant, capacity in (("research", "1Ti"), ("analytics", "500Gi")):
        pv = one(run.resources, PV, f"okerdma-dev-{tenant}-fss")
        pvc = one(run.resources, PVC, f"okerdma-dev-{tenant}-fss-shared")
        spec = pv.inputs["spec"]
        assert pv.inputs["metadata"]["name"] == f"okerdma-dev-{tenant}-fss"
        assert spec["accessModes"] == ["ReadWriteMany"] and spec["persistentVolumeReclaimPolicy"] == "Retain"
        assert spec["storageClassName"] == "" and spec["capacity"] == {"storage": capacity}
        assert spec["claimRef"] == {"namespace": tenant, "name": "fss-shared"}
        assert pvc.inputs["metadata"]["namespace"] == tenant and pvc.inputs["metadata"]["name"] == "fss-shared"
        assert pvc.inputs["spec"]["volumeName"] == f"okerdma-dev-{tenant}-fss"
        assert pvc.inputs["spec"]["storageClassName"] == "" and pvc.inputs["spec"]["accessModes"] == ["ReadWriteMany"]
        # the size lives on the volume (mutable); the static claim asks for a nominal 1Mi it never has to resize
        assert pvc.inputs["spec"]["resources"]["requests"] == {"storage": "1Mi"}
        assert pvc.ignore_changes == ["spec.resources.requests.storage"]  # a claim made with its size keeps it
        ns = one(run.resources, NS, f"okerdma-dev-ns-{tenant}")
        assert ns.urn in pvc.dependencies and pv.urn in pvc.dependencies
        assert pv.provider and pv.provider.startswith(one(run.resources, "pulumi:providers:kubernetes").urn)
    assert volumes.claim_names == {"research": "fss-shared", "analytics": "fss-shared"}


def test_only_tenants_that_asked_get_a_volume():
    run, volumes = _run(tenants={"analytics": {"sharedStorage": None}})
    assert [r.name for r in of_type(run.resources, PV)] == ["okerdma-dev-research-fss"]
    assert [r.name for r in of_type(run.resources, PVC)] == ["okerdma-dev-research-fss-shared"]
    assert volumes.claim_names == {"research": "fss-shared"}


def test_storage_class_references_our_mount_target():
    run, _ = _run()
    sc = one(run.resources, SC, "okerdma-dev-fss")
    mt = one(run.resources, MT)
    assert sc.inputs["provisioner"] == "fss.csi.oraclecloud.com" and sc.inputs["reclaimPolicy"] == "Retain"
    params = sc.inputs["parameters"]
    assert params["mountTargetOcid"] == run.ids[mt.urn]
    assert params["availabilityDomain"] == "bxtG:SA-SAOPAULO-1-AD-1"
    assert params["compartmentOcid"].startswith("ocid1.compartment.")
    assert params["encryptInTransit"] == "false" and "kmsKeyOcid" not in params and "exportPath" not in params
    assert json.loads(params["exportOptions"]) == [
        {"source": "10.0.16.0/20", "requirePrivilegedSourcePort": True, "access": "READ_WRITE",
         "identitySquash": "ROOT"}]


def test_in_transit_tls_and_kms_key_reach_the_kubernetes_side():
    key = "ocid1.key.oc1.sa-saopaulo-1.aaaaaaaafsskey"
    run, _ = _run(storage={"fss": {"inTransitTls": True, "kmsKeyId": key, "requirePrivilegedSourcePort": False}},
                  iam={"tenancyId": "ocid1.tenancy.oc1..aaaaaaaatenancy2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4tenant"})  # the key's dynamic group lives in the tenancy
    params = one(run.resources, SC, "okerdma-dev-fss").inputs["parameters"]
    assert params["encryptInTransit"] == "true" and params["kmsKeyOcid"] == key
    assert {o["requirePrivilegedSourcePort"] for o in json.loads(params["exportOptions"])} == {False}
    for pv in of_type(run.resources, PV):
        assert pv.inputs["spec"]["csi"]["volumeAttributes"] == {"encryptInTransit": "true"}


def test_first_preview_declares_everything_with_an_unknown_handle():
    run, _ = _run(unknowns=True)
    assert len(of_type(run.resources, PV)) == 2 and len(of_type(run.resources, PVC)) == 2
    assert one(run.resources, PV, "okerdma-dev-research-fss").inputs["spec"]["csi"]["volumeHandle"] == UNKNOWN


def test_helpers():
    assert volume_handle("ocid1.filesystem.oc1..x", "10.0.3.10", "/shared") == "ocid1.filesystem.oc1..x:10.0.3.10:/shared"
    assert json.loads(export_options_json(["10.0.0.0/24"], "NONE", False)) == [
        {"source": "10.0.0.0/24", "requirePrivilegedSourcePort": False, "access": "READ_WRITE",
         "identitySquash": "NONE"}]


@pytest.mark.parametrize("tenants, expected", [
    ({"research": {"sharedStorage": {"subPath": "/abs"}}}, "oke-rdma:tenants.research.sharedStorage.subPath: must be a relative"),
    ({"research": {"sharedStorage": {"subPath": "a/../b"}}}, "oke-rdma:tenants.research.sharedStorage.subPath:"),
    ({"research": {"sharedStorage": {"subPath": "a/"}}}, "oke-rdma:tenants.research.sharedStorage.subPath:"),
    ({"research": {"sharedStorage": {"capacity": "10GB"}}}, "oke-rdma:tenants.research.sharedStorage.capacity: must be"),
    ({"research": {"sharedStorage": {"size": "1Ti"}}}, "oke-rdma:tenants.research.sharedStorage.size: unknown key"),
])
def test_bad_shared_storage_requests_fail(tenants, expected):
    with pytest.raises(ConfigError) as err:
        load_dev_config(tenants=tenants)
    assert any(p.startswith(expected) for p in err.value.problems), err.value.problems


def test_shared_storage_without_fss_fails():
    with pytest.raises(ConfigError) as err:
        load_dev_config(storage={"fss": {"enabled": False}})
    assert err.value.problems == [  # tenants in key order: Pulumi hands maps to programs with sorted keys
        "oke-rdma:tenants.analytics.sharedStorage: asks for the shared FSS volume but storage.fss.enabled is false; "
        "enable FSS or remove sharedStorage",
        "oke-rdma:tenants.research.sharedStorage: asks for the shared FSS volume but storage.fss.enabled is false; "
        "enable FSS or remove sharedStorage"]


def test_stack_outputs_carry_the_fss_contract_and_the_claims():
    run = run_program(dev_raw_config(), [], "dev")
    fss = run.outputs["fss"]
    fs = one(run.resources, FS, "okerdma-dev-fss")
    assert fss == {"fileSystemId": run.ids[fs.urn], "mountTargetIp": "10.0.3.10", "exportPath": "/shared",
                   "mountTargetId": run.ids[one(run.resources, MT).urn], "storageClassName": "okerdma-dev-fss"}
    assert {t: v["sharedStorageClaim"] for t, v in run.outputs["tenants"].items()} == {
        "research": "fss-shared", "analytics": "fss-shared"}
    rules = {r.name for r in of_type(run.resources, "oci:Core/networkSecurityGroupSecurityRule:"
                                                    "NetworkSecurityGroupSecurityRule")}
    assert not any("2051" in n for n in rules)
    tls = run_program(dev_raw_config(storage={"fss": {"inTransitTls": True}}), [], "dev")
    tls_rules = {r.name for r in of_type(tls.resources, "oci:Core/networkSecurityGroupSecurityRule:"
                                                         "NetworkSecurityGroupSecurityRule")}
    assert "okerdma-dev-storage-workers-nfs-tcp-2051-in" in tls_rules


def test_without_fss_there_is_no_volume_and_null_outputs():
    raw = dev_raw_config(storage={"fss": {"enabled": False}},
                         tenants={"research": {"sharedStorage": None}, "analytics": {"sharedStorage": None}})
    run = run_program(raw, [], "dev")
    assert run.outputs.get("fss") is None  # a None export is dropped from the wire outputs
    fss_classes = [r for r in of_type(run.resources, SC) if r.inputs["provisioner"] == "fss.csi.oraclecloud.com"]
    assert not of_type(run.resources, PV) and not fss_classes  # the block-volume class is the platform's
    assert {v["sharedStorageClaim"] for v in run.outputs["tenants"].values()} == {None}
