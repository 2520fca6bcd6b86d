"""The Storage component under mocks: protection, export clients, NSG, throughput, AD, mount IP, first preview."""

from __future__ import annotations

from types import SimpleNamespace

import pulumi
import pulumi_oci as oci
import pytest

from oke_rdma.config import subnet_plan
from oke_rdma.adapter import storage_args
from oke_rdma.storage import (Storage, fss_availability_domain, high_performance_notice,
                                requested_throughput)
from offline.engine import OciMocks, fake_ocid, run_program
from oke_rdma.config import load_stack_config
from tests.stackcfg import dev_raw_config, in_region, load_dev_config, one
from tests import inprocess

# The dev tenants ask for the shared FSS volume; with FSS disabled they must not (a config error otherwise).
NO_SHARED_STORAGE = {"research": {"sharedStorage": None}, "analytics": {"sharedStorage": None}}

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
        built["s"] = s = Storage("storage", storage_args(cfg, {"storage": subnet.id}, plan, nsgs))
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


def test_export_options_are_exactly_the_workers_subnet():
    """The nodes mount (the CSI driver's node plugin); the pods subnet is never a source: a pod's own NFS client
    could claim any UID from a privileged source port."""
    run, _, plan = _run()
    export = one(run.resources, EXPORT, "okerdma-dev-fss-export")
    assert [o["source"] for o in export.inputs["exportOptions"]] == [plan["workers"]] == ["10.0.16.0/20"]
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
    # ALL is refused while tenants use the shared storage (their directories would be unwritable): none here
    run, _, _ = _run(storage={"fss": {"identitySquash": "ALL", "requirePrivilegedSourcePort": False,
                                      "exportPath": "/ckpt"}}, tenants=NO_SHARED_STORAGE)
    export = one(run.resources, EXPORT, "okerdma-dev-fss-export")
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


def test_high_tier_is_created_at_1_gbps_and_warns():
    """OCI accepts only 1 Gbps in CreateMountTarget and pulumi-oci sends requestedThroughput as given on create."""
    run, storage, _ = _run(storage={"fss": {"throughputGbps": 20}})
    assert one(run.resources, MT).inputs["requestedThroughput"] == "1"
    warnings = [m for sev, m in run.diagnostics if sev == "warning"]
    assert any("creates it at 1 Gbps and the next pulumi up upgrades it to 20 Gbps" in m for m in warnings)
    [cost] = [m for m in warnings if "capacity entitlement" in m]
    assert "20 TB" in cost and "30-day" in cost and "must be downgraded to 1 Gbps" in cost


@pytest.mark.parametrize("tier, tb", [(20, 20), (40, 40), (80, 80)])
def test_existing_mount_target_gets_the_configured_tier(monkeypatch, tier, tb):
    """A later pulumi up finds the mount target (getMountTargets): the provider's Update upgrades it."""
    monkeypatch.setattr(OciMocks, "EXISTING_MOUNT_TARGETS", {"okerdma-dev-fss-mt": "1"})
    run, _, _ = _run(storage={"fss": {"throughputGbps": tier}})
    assert one(run.resources, MT).inputs["requestedThroughput"] == str(tier)
    warnings = [m for sev, m in run.diagnostics if sev == "warning"]
    assert not any("does not exist yet" in m for m in warnings)
    assert any(f"capacity entitlement of {tb} TB" in m for m in warnings)


def test_a_deleted_mount_target_of_the_same_name_does_not_count():
    assert requested_throughput(40, [SimpleNamespace(state="DELETED")]) == "1"
    assert requested_throughput(40, [SimpleNamespace(state="ACTIVE")]) == "40"
    assert requested_throughput(1, [SimpleNamespace(state="ACTIVE")]) == "1"


def test_standard_tier_needs_no_lookup_and_no_cost_warning():
    run, _, _ = _run()
    assert one(run.resources, MT).inputs["requestedThroughput"] == "1"
    assert not any("capacity entitlement" in m for _, m in run.diagnostics)
    assert high_performance_notice(1, "mt") == ""


def test_preview_says_whether_the_file_system_is_protected():
    run, _, _ = _run()
    assert ("info", "file system okerdma-dev-fss is protected: pulumi destroy stops at it (and keeps its data) "
            "until storage.fss.protect is false and pulumi up has run") in run.diagnostics
    run, _, _ = _run(storage={"fss": {"protect": False}})
    assert any(sev == "warning" and "okerdma-dev-fss is NOT protected" in m for sev, m in run.diagnostics)


def test_kms_key_encrypts_the_file_system():
    key = "ocid1.key.oc1.sa-saopaulo-1.aaaaaaaafsskey"
    # the file systems' key needs a dynamic group in the tenancy, hence iam.tenancyId
    run, _, _ = _run(storage={"fss": {"kmsKeyId": key}}, iam={"tenancyId": "ocid1.tenancy.oc1..aaaaaaaatenancy2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4tenant"})
    assert one(run.resources, FS).inputs["kmsKeyId"] == key
    run, _, _ = _run()
    assert "kmsKeyId" not in one(run.resources, FS).inputs


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
    assert len([r for r in run.resources if r.type.startswith("oci:FileStorage/")]) == 4  # file system, mount target, export, preparation export


def test_disabled_builds_nothing():
    run, storage, _ = _run(storage={"fss": {"enabled": False}}, tenants=NO_SHARED_STORAGE)
    assert [r for r in run.resources if r.type.startswith("oci:FileStorage/")] == []
    assert "fss" not in run.outputs
    assert (storage.file_system_id, storage.mount_target_id, storage.mount_target_ip, storage.export_path) == (
        None, None, None, None)


def test_availability_domain_choice():
    """In a three-AD region (Chicago): the Compute Cluster's AD, an explicit one, or the first listed."""
    def chicago(**overrides):
        return load_stack_config(in_region(dev_raw_config(**overrides), "us-chicago-1"))

    ad1, ad2, ad3 = (f"Uocm:US-CHICAGO-1-AD-{n}" for n in (1, 2, 3))
    cfg = chicago(availabilityDomains=[AD1, "bxtG:SA-SAOPAULO-1-AD-2"],
                  computeCluster={"availabilityDomain": "bxtG:SA-SAOPAULO-1-AD-2"},
                  nodePools={"gpu": {"availabilityDomains": ["bxtG:SA-SAOPAULO-1-AD-2"]}})
    assert fss_availability_domain(cfg) == ad2  # the Compute Cluster's AD
    cfg = chicago(storage={"fss": {"availabilityDomain": AD1}},
                  availabilityDomains=[AD1, "bxtG:SA-SAOPAULO-1-AD-2"],
                  computeCluster={"availabilityDomain": "bxtG:SA-SAOPAULO-1-AD-2"},
                  nodePools={"gpu": {"availabilityDomains": ["bxtG:SA-SAOPAULO-1-AD-2"]}})
    assert fss_availability_domain(cfg) == ad1  # explicit wins
    cfg = chicago(computeCluster=None, nodePools={"gpu": {"rdma": False, "shape": "VM.GPU.A10.1"}},
                  tenants={"research": {"quota": None}, "analytics": {"quota": None}},  # no RDMA pool
                  availabilityDomains=["bxtG:SA-SAOPAULO-1-AD-3", AD1])
    assert fss_availability_domain(cfg) == ad3  # first of availabilityDomains


def test_first_preview_registers_everything():
    run, _, _ = _run(unknowns=True)
    assert {r.type for r in run.resources} >= {FS, MT, EXPORT}
    export = one(run.resources, EXPORT, "okerdma-dev-fss-export")
    assert export.inputs["exportSetId"] == UNKNOWN and export.inputs["fileSystemId"] == UNKNOWN
    assert [o["source"] for o in export.inputs["exportOptions"]] == ["10.0.16.0/20"]
    assert one(run.resources, FS).protect is True
    assert run.outputs["fss"]["mountTargetIp"] == UNKNOWN  # the getPrivateIp invoke was skipped, not failed


# --- config: the inputs that must fail ---------------------------------------------------------------------------
def test_throughput_10_exits_2_listing_the_tiers(tmp_path):
    """An unknown mount target tier (throughputGbps 10) → the offline preview exits 2 and lists 1, 20, 40, 80."""

    import yaml

    from tests.stackcfg import ROOT

    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    doc["config"]["oke-rdma:storage"]["fss"]["throughputGbps"] = 10
    path = tmp_path / "Pulumi.tier.yaml"
    path.write_text(yaml.safe_dump(doc))
    out = inprocess.preview("--config-file", str(path))
    assert out.returncode == 2, out.stdout + out.stderr
    assert "oke-rdma:storage.fss.throughputGbps: must be one of 1, 20, 40, 80 (Gbps), got 10" in out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


@pytest.mark.parametrize("fss, expected", [
    ({"kmsKeyId": "ocid1.vault.oc1..x"}, "oke-rdma:storage.fss.kmsKeyId: expected the OCID of a key (ocid1.key.…), "
                                        "got the OCID of a vault"),
    ({"inTransitTls": "yes"}, "oke-rdma:storage.fss.inTransitTls:"),
    ({"exportPath": "/shared/"}, "oke-rdma:storage.fss.exportPath: must be an absolute path"),
    ({"exportPath": "/a/../b"}, "oke-rdma:storage.fss.exportPath: must be an absolute path"),
    ({"availabilityDomain": "bxtG:SA-SAOPAULO-1-AD-2"}, "oke-rdma:storage.fss.availabilityDomain: "
                                                        "'bxtG:SA-SAOPAULO-1-AD-2' is not in availabilityDomains"),
])
def test_bad_fss_config_names_the_key(fss, expected):
    from oke_rdma.config import ConfigError

    with pytest.raises(ConfigError) as err:
        load_dev_config(storage={"fss": fss})
    assert any(p.startswith(expected) for p in err.value.problems), err.value.problems


def test_in_transit_tls_opens_tcp_2051_to_the_mount_target_only_when_on():
    from oke_rdma.network import oke_rules

    def nfs_2051(rules):
        return sorted((r.name, r.nsg, r.direction) for r in rules if (2051, 2051) in (r.ports, r.source_ports))

    assert nfs_2051(oke_rules(())) == []
    assert nfs_2051(oke_rules((), in_transit_tls=True)) == [
        ("workers-nfs-tcp-2051-in", "storage", "INGRESS"),
        ("workers-nfs-tcp-2051-out", "workers", "EGRESS"), ("workers-nfs-tcp-2051-reply", "storage", "EGRESS")]


def test_export_accepts_output_cidrs_of_a_brought_network():
    cfg = load_dev_config()
    built = {}

    def program():
        cidrs = {"workers": pulumi.Output.from_input("10.9.16.0/20"), "pods": pulumi.Output.from_input("10.9.128.0/17")}
        built["s"] = Storage("storage", storage_args(cfg, {"storage": "ocid1.subnet.oc1..s"}, cidrs,
                                                    {"storage": STORAGE_NSG}))

    run = run_program(dev_raw_config(), [], "dev", program=program)
    assert [o["source"] for o in one(run.resources, EXPORT, "okerdma-dev-fss-export").inputs["exportOptions"]] == ["10.9.16.0/20"]


def test_offline_preview_prints_the_cost_commitment_and_protection(tmp_path):
    import json

    import yaml

    from tests.stackcfg import ROOT

    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    doc["config"]["oke-rdma:storage"]["fss"]["throughputGbps"] = 40
    path = tmp_path / "Pulumi.hpmt.yaml"
    path.write_text(yaml.safe_dump(doc))
    out = inprocess.preview("--config-file", str(path), "--details", "--json", str(tmp_path / "plan.json"))
    assert out.returncode == 0, out.stderr
    diagnostics = out.stdout.split("\nDiagnostics:\n", 1)[1].split("\nOutputs:", 1)[0]
    assert "warning: mount target okerdma-dev-fss-mt: 40 Gbps is a high-performance tier" in diagnostics
    assert "capacity entitlement of 40 TB billed in 30-day cycles" in diagnostics
    assert "must be downgraded to 1 Gbps" in diagnostics and "next pulumi up upgrades it to 40 Gbps" in diagnostics
    assert "info: file system okerdma-dev-fss is protected" in diagnostics
    assert "okerdma-dev-fss-mt                         create  1 Gbps" in out.stdout
    plan = json.loads((tmp_path / "plan.json").read_text())
    assert {d["severity"] for d in plan["diagnostics"]} == {"warning", "info"}
