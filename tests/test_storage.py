"""The Storage component under mocks: protection, export clients, NSG, throughput, AD, mount IP, first preview."""

from __future__ import annotations

import pulumi
import pulumi_oci as oci

from components.config import subnet_plan
from components.storage import Storage, StorageArgs, fss_availability_domain
from tests.stackcfg import dev_raw_config, load_dev_config, of_type, one
from offline.engine import fake_ocid, run_program

FS = "oci:FileStorage/fileSystem:FileSystem"
MT = "oci:FileStorage/mountTarget:MountTarget"
EXPORT = "oci:FileStorage/export:Export"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
STORAGE_NSG = "ocid1.networksecuritygroup.oc1.sa-saopaulo-1.aaaaaaaastoragensg"
WORKERS_NSG = "ocid1.networksecuritygroup.oc1.sa-saopaulo-1.aaaaaaaaworkersnsg"
AD1 = "bxtG:SA-SAOPAULO-1-AD-1"


def _run(unknowns: bool = False, **overrides):
    raw = dev_raw_config(**overrides)
    cfg = load_dev_config(**overrides)
    plan = subnet_plan(cfg.network)
    built: dict[str, Storage] = {}

    def program():
        # A real subnet stands in for the network component (the mocks answer getPrivateIp from its CIDR).
        subnet = oci.core.Subnet("stub-storage-subnet", oci.core.SubnetArgs(
            compartment_id=cfg.compartment_id, vcn_id="ocid1.vcn.oc1..stub", cidr_block=plan["storage"]))
        nsgs = {"storage": pulumi.Output.from_input(STORAGE_NSG), "workers": pulumi.Output.from_input(WORKERS_NSG)}
        built["s"] = s = Storage("storage", StorageArgs(cfg, {"storage": subnet.id}, plan, nsgs))
        if s.file_system_id is not None:
            pulumi.export("fss", {"fileSystemId": s.file_system_id, "mountTargetId": s.mount_target_id,
                                  "mountTargetIp": s.mount_target_ip, "exportPath": s.export_path})

    run = run_program(raw, [], "dev", unknowns=unknowns, program=program)
    return run, built["s"], plan


def test_file_system_protected_by_default():
    run, storage, _ = _run()
    fs = one(run.resources, FS, "okerdma-dev-fss")
    assert fs.protect is True
    assert fs.inputs["availabilityDomain"] == AD1
    assert fs.inputs["freeformTags"] == {"project": "oke-rdma", "environment": "dev"}
    assert storage.availability_domain == AD1


def test_file_system_not_protected_when_protect_false():
    run, _, _ = _run(storage={"fss": {"protect": False}})
    assert one(run.resources, FS).protect is False


def test_export_options_are_exactly_workers_and_pods():
    run, _, plan = _run()
    export = one(run.resources, EXPORT, "okerdma-dev-fss-export")
    assert [o["source"] for o in export.inputs["exportOptions"]] == [plan["workers"], plan["pods"]]
    assert [o["source"] for o in export.inputs["exportOptions"]] == ["10.0.16.0/20", "10.0.128.0/17"]
    for option in export.inputs["exportOptions"]:
        assert option == {"source": option["source"], "access": "READ_WRITE", "identitySquash": "ROOT",
                          "requirePrivilegedSourcePort": True}
    assert export.inputs["path"] == "/shared"
    mt = one(run.resources, MT)
    fs = one(run.resources, FS)
    assert export.inputs["exportSetId"] == mt.outputs["exportSetId"]
    assert export.inputs["fileSystemId"] == fake_ocid("filesystem", "sa-saopaulo-1", FS, "okerdma-dev-fss")
    assert fs.urn in export.dependencies and mt.urn in export.dependencies


def test_export_options_follow_config():
    run, _, _ = _run(storage={"fss": {"identitySquash": "ALL", "requirePrivilegedSourcePort": False,
                                      "exportPath": "/ckpt"}})
    export = one(run.resources, EXPORT)
    assert {o["identitySquash"] for o in export.inputs["exportOptions"]} == {"ALL"}
    assert {o["requirePrivilegedSourcePort"] for o in export.inputs["exportOptions"]} == {False}
    assert export.inputs["path"] == "/ckpt"


def test_mount_target_in_storage_subnet_with_storage_nsg():
    run, _, _ = _run()
    mt = one(run.resources, MT, "okerdma-dev-fss-mt")
    subnet = one(run.resources, "oci:Core/subnet:Subnet")
    assert mt.inputs["nsgIds"] == [STORAGE_NSG]
    assert mt.inputs["subnetId"] == fake_ocid("subnet", "sa-saopaulo-1", subnet.type, "stub-storage-subnet")
    assert subnet.urn in mt.property_dependencies["subnetId"]
    assert mt.inputs["availabilityDomain"] == AD1
    assert mt.inputs["requestedThroughput"] == "1"


def test_requested_throughput_from_config():
    run, _, _ = _run(storage={"fss": {"throughputGbps": 20}})
    assert one(run.resources, MT).inputs["requestedThroughput"] == "20"


def test_outputs_mount_target_ip_from_get_private_ip():
    run, _, plan = _run()
    fss = run.outputs["fss"]
    assert fss["mountTargetIp"] == "10.0.3.10"  # the mocks answer the 10th host of the storage subnet
    assert plan["storage"] == "10.0.3.0/24"
    assert fss["exportPath"] == "/shared"
    assert fss["fileSystemId"].startswith("ocid1.filesystem.oc1.sa-saopaulo-1.")
    assert fss["mountTargetId"].startswith("ocid1.mounttarget.oc1.sa-saopaulo-1.")


def test_children_parented_to_component():
    run, _, _ = _run()
    component = one(run.resources, "oke-rdma:storage:Storage")
    assert {r.parent for r in run.resources if r.type.startswith("oci:FileStorage/")} == {component.urn}
    assert len([r for r in run.resources if r.type.startswith("oci:FileStorage/")]) == 3


def test_disabled_builds_nothing():
    run, storage, _ = _run(storage={"fss": {"enabled": False}})
    assert [r for r in run.resources if r.type.startswith("oci:FileStorage/")] == []
    assert "fss" not in run.outputs
    assert (storage.file_system_id, storage.mount_target_id, storage.mount_target_ip, storage.export_path) == (
        None, None, None, None)


def test_availability_domain_choice():
    cfg = load_dev_config(availabilityDomains=["bxtG:SA-SAOPAULO-1-AD-1", "bxtG:SA-SAOPAULO-1-AD-2"],
                          computeCluster={"availabilityDomain": "bxtG:SA-SAOPAULO-1-AD-2"},
                          nodePools={"gpu": {"availabilityDomains": ["bxtG:SA-SAOPAULO-1-AD-2"]}})
    assert fss_availability_domain(cfg) == "bxtG:SA-SAOPAULO-1-AD-2"  # the Compute Cluster's AD
    cfg = load_dev_config(storage={"fss": {"availabilityDomain": AD1}},
                          availabilityDomains=["bxtG:SA-SAOPAULO-1-AD-1", "bxtG:SA-SAOPAULO-1-AD-2"],
                          computeCluster={"availabilityDomain": "bxtG:SA-SAOPAULO-1-AD-2"},
                          nodePools={"gpu": {"availabilityDomains": ["bxtG:SA-SAOPAULO-1-AD-2"]}})
    assert fss_availability_domain(cfg) == AD1  # explicit wins
    cfg = load_dev_config(computeCluster=None, nodePools={"gpu": {"rdma": False, "shape": "VM.GPU.A10.1"}},
                          availabilityDomains=["bxtG:SA-SAOPAULO-1-AD-3", AD1])
    assert fss_availability_domain(cfg) == "bxtG:SA-SAOPAULO-1-AD-3"  # first of availabilityDomains


def test_first_preview_registers_everything():
    run, _, _ = _run(unknowns=True)
    assert {r.type for r in run.resources} >= {FS, MT, EXPORT}
    export = one(run.resources, EXPORT)
    assert export.inputs["exportSetId"] == UNKNOWN and export.inputs["fileSystemId"] == UNKNOWN
    assert [o["source"] for o in export.inputs["exportOptions"]] == ["10.0.16.0/20", "10.0.128.0/17"]
    assert one(run.resources, FS).protect is True
    assert run.outputs["fss"]["mountTargetIp"] == UNKNOWN  # the getPrivateIp invoke was skipped, not failed
