"""File Storage with Lustre: capacity and tier bounds in config, the file system (protected) with its NSG, the LNet
rules on both sides, and a static Lustre CSI volume reserved for each tenant that asked — all under the mocks."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci
import pytest
from pydantic import ValidationError

from offline.engine import run_program
from oke_rdma.config.lustre import Lustre, valid_capacities_gb
from oke_rdma.lustre import LustreArgs, LustreStorage, volume_handle
from tests.stackcfg import dev_raw_config

FS = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"
RULE = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"


_DEFAULT = object()


def _run(cfg: Lustre, tenants=("research",), tenant_ids=_DEFAULT, workers_cidr="10.0.16.0/20"):
    def program():
        vcn = oci.core.Vcn("vcn", compartment_id="ocid1.compartment.oc1..aaaa", cidr_blocks=["10.0.0.0/16"])
        subnet = oci.core.Subnet("storage", compartment_id="ocid1.compartment.oc1..aaaa", vcn_id=vcn.id,
                                 cidr_block="10.0.40.0/24")
        workers = oci.core.NetworkSecurityGroup("workers", compartment_id="ocid1.compartment.oc1..aaaa", vcn_id=vcn.id)
        provider = k8s.Provider("k8s", kubeconfig="apiVersion: v1\nkind: Config\nclusters: []\n")
        ns = {t: k8s.core.v1.Namespace(t, metadata={"name": t}, opts=pulumi.ResourceOptions(provider=provider))
              for t in tenants}
        LustreStorage("lustre", LustreArgs(
            config=cfg, name_prefix="t", compartment_id="ocid1.compartment.oc1..aaaa",
            availability_domain="Uocm:US-ASHBURN-AD-1", vcn_id=vcn.id, subnet_id=subnet.id, client_nsg_id=workers.id,
            freeform_tags={"team": "ml"}, provider=provider, tenant_namespaces={t: t for t in tenants},
            namespaces=ns, workers_cidr=workers_cidr,
            tenant_ids={t: (20001 + i, 30001 + i) for i, t in enumerate(tenants)} if tenant_ids is _DEFAULT
            else tenant_ids))
    return run_program(dev_raw_config(), [], "dev", program=program)


def test_the_file_system_gets_its_tier_capacity_squash_nsg_and_protection():
    run = _run(Lustre(capacityGb=41600, performanceTier=500, fileSystemName="ckpt", tenants=("research",)))
    fs = next(r for r in run.resources if r.type == FS)
    assert fs.inputs["capacityInGbs"] == 41600 and fs.inputs["performanceTier"] == "MBPS_PER_TB_500"
    assert fs.inputs["fileSystemName"] == "ckpt" and fs.protect
    assert fs.inputs["rootSquashConfiguration"]["identitySquash"] == "ROOT"
    assert fs.inputs["rootSquashConfiguration"]["squashUid"] == "65534"
    assert fs.inputs["freeformTags"] == {"team": "ml"} and len(fs.inputs["nsgIds"]) == 1


def test_lnet_rules_both_ways_between_the_file_system_the_workers_and_itself():
    run = _run(Lustre(capacityGb=31200))
    rules = [r for r in run.resources if r.type == RULE]
    assert len(rules) == 6
    for r in rules:
        tcp = r.inputs["tcpOptions"]
        assert r.inputs["protocol"] == "6" and r.inputs["stateless"] is False
        assert tcp["destinationPortRange"] == {"min": 988, "max": 988}
        assert tcp["sourcePortRange"] == {"min": 512, "max": 1023}
        peer_type = r.inputs.get("sourceType") or r.inputs.get("destinationType")
        assert peer_type == "NETWORK_SECURITY_GROUP"  # never a CIDR: nothing outside the two NSGs is opened
    assert {r.inputs["direction"] for r in rules} == {"INGRESS", "EGRESS"}


def test_each_tenant_gets_a_static_lustre_volume_bound_to_its_claim():
    run = _run(Lustre(capacityGb=31200, fileSystemName="okerdma", tenants=("research", "nlp")),
               tenants=("research", "nlp"))
    pvs = {r.name: r for r in run.resources if r.type == "kubernetes:core/v1:PersistentVolume"}
    pvcs = {r.name: r for r in run.resources if r.type == "kubernetes:core/v1:PersistentVolumeClaim"}
    pv = pvs["t-research-lustre"]
    assert pv.inputs["spec"]["csi"]["driver"] == "lustre.csi.oraclecloud.com"
    assert pv.inputs["spec"]["csi"]["volumeHandle"] == "10.0.40.6@tcp:/okerdma"
    assert pv.inputs["spec"]["claimRef"] == {"namespace": "research", "name": "lustre-shared"}
    assert pv.inputs["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    claim = pvcs["t-research-lustre-shared"]
    assert claim.inputs["spec"]["volumeName"] == "t-research-lustre"
    assert claim.inputs["metadata"]["namespace"] == "research" and "t-nlp-lustre" in pvs


def test_volume_handle_shape():
    assert volume_handle("10.0.2.6", "tcp", "fs1") == "10.0.2.6@tcp:/fs1"


@pytest.mark.parametrize("capacity", [31200, 41600, 124800, 166400, 208000])
def test_capacities_the_service_accepts(capacity):
    assert Lustre(capacityGb=capacity).capacity_gb == capacity


@pytest.mark.parametrize("capacity", [0, 5000, 31199, 40000, 135200, 150000, "31200", 31200.0, True])
def test_capacities_the_service_refuses_name_the_nearest_valid_ones(capacity):
    with pytest.raises(ValidationError) as e:
        Lustre(capacityGb=capacity)
    assert "capacityGb" in str(e.value)


@pytest.mark.parametrize("bad", [{"squashUid": 0}, {"squashGid": 0}, {"performanceTier": 100}, {"fileSystemName": "toolongname"},
                                 {"fileSystemName": "a-b"}, {"rootSquash": "ALL"}, {"kmsKeyId": "ocid1.vault.x"}])
def test_other_values_the_service_refuses(bad):
    with pytest.raises(ValidationError):
        Lustre(capacityGb=31200, **bad)


def test_capacity_steps_are_10400_then_41600():
    caps = valid_capacities_gb(300000)
    assert caps[:3] == [31200, 41600, 52000] and caps[9] == 124800 and caps[10] == 166400


def _with_lustre(lustre):
    def edit(config):
        config.setdefault("oke-rdma:storage", {})["lustre"] = lustre
    return edit


def test_a_stack_with_lustre_previews_clean_with_the_file_system_and_a_tenant_volume(tmp_path):
    """The whole program with storage.lustre: the file system and the tenant's volume are planned, the packs pass."""
    from tests.inprocess import preview
    from tests.offline.test_cli import stack_file
    path = stack_file(tmp_path, _with_lustre({"capacityGb": 52000, "performanceTier": 250, "tenants": ["research"]}))
    out = preview("--config-file", str(path), "--json", str(tmp_path / "plan.json"))
    assert out.returncode == 0, out.stdout + out.stderr
    import json
    plan = json.loads((tmp_path / "plan.json").read_text())
    types = [r["type"] for r in plan["resources"]]
    assert FS in types
    pv = next(r for r in plan["resources"] if r["type"] == "kubernetes:core/v1:PersistentVolume"
              and r["name"].endswith("-lustre"))
    assert pv["inputs"]["spec"]["csi"]["driver"] == "lustre.csi.oraclecloud.com"


@pytest.mark.parametrize("lustre,key", [
    ({"capacityGb": 52000, "tenants": ["nobody"]}, "oke-rdma:storage.lustre.tenants[0]"),
    ({"capacityGb": 50000}, "oke-rdma:storage.lustre.capacityGb"),
    ({"capacityGb": 31200, "availabilityDomain": "bxtG:SA-SAOPAULO-1-AD-3"}, "oke-rdma:storage.lustre.availabilityDomain"),
])
def test_a_lustre_mistake_is_one_line_naming_the_key(tmp_path, lustre, key):
    from tests.inprocess import preview
    from tests.offline.test_cli import stack_file
    out = preview("--config-file", str(stack_file(tmp_path, _with_lustre(lustre))))
    assert out.returncode == 2 and key in out.stderr + out.stdout and "Traceback" not in out.stderr


@pytest.mark.parametrize("protect, level, text", [
    (True, "info", "Lustre file system t-lustre is protected: pulumi destroy stops at it"),
    (False, "warning", "Lustre file system t-lustre is NOT protected (storage.lustre.protect: false)"),
])
def test_the_preview_says_whether_the_lustre_file_system_is_protected(protect, level, text):
    run = _run(Lustre(capacityGb=41600, performanceTier=500, fileSystemName="ckpt", tenants=("research",),
                      protect=protect))
    assert any(sev == level and msg.startswith(text) for sev, msg in run.diagnostics), run.diagnostics
