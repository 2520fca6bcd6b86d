"""The OCI replace-on table is derived from terraform-provider-oci's schema (every ForceNew field of every OCI type
the stacks declare), and a change to any of them previews as a replacement while updatable fields stay updates."""

import json

import pytest

from offline import tfschema
from offline.immutable import FORCE_NEW
from offline.replacement import compare

GO = '''
func ExampleResource() *schema.Resource {
	return &schema.Resource{
		Schema: map[string]*schema.Schema{
			"vcn_id": {Type: schema.TypeString, Required: true, ForceNew: true},
			"display_name": {Type: schema.TypeString, Optional: true},
			"state": {Type: schema.TypeString, Computed: true, ForceNew: true},
			"endpoint_config": {
				Type: schema.TypeList, Optional: true, MaxItems: 1,
				Elem: &schema.Resource{
					Schema: map[string]*schema.Schema{
						"subnet_id": {Type: schema.TypeString, Required: true},
						"is_public": {Type: schema.TypeBool, Optional: true, ForceNew: true, Description: "a {brace}"},
					},
				},
			},
			"rules": {
				Type: schema.TypeList, Optional: true,
				Elem: &schema.Resource{
					Schema: map[string]*schema.Schema{
						"cidr": {Type: schema.TypeString, Optional: true, ForceNew: true},
					},
				},
			},
		},
		CustomizeDiff: customdiff.All(
			customdiff.ForceNewIfChange("endpoint_config.0.subnet_id", func() bool { return true }),
		),
	}
}
'''


def test_the_schema_reader_finds_force_new_fields_at_every_depth_and_skips_outputs_and_updatable_fields():
    assert tfschema.parse_resource(GO) == ["endpointConfig.isPublic", "endpointConfig.subnetId", "rules[*].cidr",
                                           "vcnId"]


def test_the_table_is_the_data_file_read_from_the_provider_source():
    doc = json.loads(tfschema.DATA.read_text())
    assert "terraform-provider-oci v" in doc["source"]
    assert FORCE_NEW == {t: tuple(p) for t, p in doc["types"].items()}
    assert set(doc["types"]) == set(tfschema.TYPES)


@pytest.fixture(scope="module")
def declared_types(tmp_path_factory):
    from offline import preview
    tmp = tmp_path_factory.mktemp("types")
    types = set()
    for stack in ("dev", "prod"):
        assert preview.main(["--stack", stack, "--json", str(tmp / f"{stack}.json")]) == 0
        types |= {r["type"] for r in json.loads((tmp / f"{stack}.json").read_text())["resources"]
                  if r["type"].startswith("oci:") and r["custom"]}
    return types


def test_every_oci_type_the_stacks_declare_has_its_force_new_fields_read(declared_types, capsys):
    assert declared_types and declared_types <= set(tfschema.TYPES)


def _res(typ, inputs, urn="urn:pulumi:dev::oke-rdma::t::r"):
    return {"urn": urn, "type": typ, "name": "r", "inputs": inputs}


#: Inputs terraform-provider-oci replaces on that the hand-picked table did not list, with an updatable neighbour
#: (the control that must stay an update).
MEMBERS = [
    ("oci:ContainerEngine/cluster:Cluster", {"options": {"serviceLbSubnetIds": ["ocid1.subnet.a"]}},
     {"options": {"serviceLbSubnetIds": ["ocid1.subnet.b"]}}, "options.serviceLbSubnetIds[0]"),
    ("oci:ContainerEngine/cluster:Cluster", {"options": {"ipFamilies": ["IPv4"]}},
     {"options": {"ipFamilies": ["IPv4", "IPv6"]}}, "options.ipFamilies"),
    ("oci:Core/vcn:Vcn", {"cidrBlock": "10.0.0.0/16"}, {"cidrBlock": "10.1.0.0/16"}, "cidrBlock"),
    ("oci:FileStorage/mountTarget:MountTarget", {"ipAddress": "10.0.3.10"}, {"ipAddress": "10.0.3.11"}, "ipAddress"),
    ("oci:ContainerEngine/nodePool:NodePool",
     {"nodeConfigDetails": {"nodePoolPodNetworkOptionDetails": {"cniType": "OCI_VCN_IP_NATIVE"}}},
     {"nodeConfigDetails": {"nodePoolPodNetworkOptionDetails": {"cniType": "FLANNEL_OVERLAY"}}},
     "nodeConfigDetails.nodePoolPodNetworkOptionDetails.cniType"),
    ("oci:Core/computeCluster:ComputeCluster", {"placementConstraintDetails": {"hpcIslandId": "a"}},
     {"placementConstraintDetails": {"hpcIslandId": "b"}}, "placementConstraintDetails.hpcIslandId"),
    ("oci:FileStorage/fileSystem:FileSystem", {"sourceSnapshotId": "a"}, {"sourceSnapshotId": "b"},
     "sourceSnapshotId"),
    # the VCN's default security list is managed through its id: a new VCN means a new default security list
    ("oci:Core/defaultSecurityList:DefaultSecurityList", {"manageDefaultResourceId": "ocid1.securitylist.a"},
     {"manageDefaultResourceId": "[unknown]"}, "manageDefaultResourceId"),
]
CONTROLS = [
    ("oci:ContainerEngine/cluster:Cluster", {"endpointConfig": {"nsgIds": ["a"]}},
     {"endpointConfig": {"nsgIds": ["b"]}}),
    ("oci:Core/vcn:Vcn", {"cidrBlocks": ["10.0.0.0/16"]}, {"cidrBlocks": ["10.0.0.0/16", "10.1.0.0/16"]}),
    ("oci:FileStorage/mountTarget:MountTarget", {"requestedThroughput": "1"}, {"requestedThroughput": "20"}),
    ("oci:ContainerEngine/nodePool:NodePool",
     {"nodeConfigDetails": {"nodePoolPodNetworkOptionDetails": {"maxPodsPerNode": 31}}},
     {"nodeConfigDetails": {"nodePoolPodNetworkOptionDetails": {"maxPodsPerNode": 64}}}),
]


@pytest.mark.parametrize("typ, old, new, path", MEMBERS)
def test_a_change_to_a_field_the_provider_replaces_on_is_a_replacement(typ, old, new, path):
    [change] = compare({"resources": [_res(typ, old)]}, {"resources": [_res(typ, new)]})
    assert change.op == "replace" and change.replace_because == (path,)


@pytest.mark.parametrize("typ, old, new", CONTROLS)
def test_a_change_to_an_updatable_field_stays_an_update(typ, old, new):
    [change] = compare({"resources": [_res(typ, old)]}, {"resources": [_res(typ, new)]})
    assert change.op == "update"


def test_a_new_prod_vcn_replaces_its_default_security_list_and_stops_at_the_protected_lustre_file_system(
        tmp_path, capsys, prod_plan_file):
    """On the prod stack a new VCN DNS label replaces the VCN, so its default security list (managed through the
    VCN's id), the storage subnet and the Lustre file system in it: the Lustre file system is protected, so the
    preview fails naming it and how to proceed, and the unknown ids of what is replaced raise no contract warning."""
    import yaml

    from offline import preview
    from tests.offline.plans import ROOT

    old = prod_plan_file[0]
    doc = yaml.safe_load((ROOT / "Pulumi.prod.yaml").read_text())
    doc["config"]["oke-rdma:network"]["dnsLabel"] = "otherlabel"
    (tmp_path / "Pulumi.prod.yaml").write_text(yaml.safe_dump(doc))
    capsys.readouterr()
    code = preview.main(["--config-file", str(tmp_path / "Pulumi.prod.yaml"), "--json", str(tmp_path / "new.json"),
                         "--previous", str(old)])
    captured = capsys.readouterr()
    err = captured.err
    assert code == preview.EXIT_PLAN
    ops = {c["type"].rsplit(":", 1)[1]: c for c in json.loads((tmp_path / "new.json").read_text())["changes"]}
    assert ops["DefaultSecurityList"]["op"] == "replace"
    assert ops["DefaultSecurityList"]["causedBy"] == ["okerdma-prod-vcn is replaced"]
    assert ops["FileStorageLustreFileSystem"]["op"] == "replace"
    assert "okerdma-prod-lustre is protected and would be replaced" in err and "pulumi state unprotect" in err
    assert "outputs.contract.json" not in err + captured.out  # the warning is in the report's Diagnostics


def test_every_input_pulumi_oci_documents_as_unique_is_a_known_name_conflict():
    """The class behind UNIQUE_NAMES: each input of a declared OCI type whose pulumi_oci docstring says it must be
    unique (and that is no "(Updatable)" display name) is listed, so a replacement keeping it is caught."""
    import re

    import pulumi_oci as oci

    from offline.immutable import UNIQUE_NAMES

    found = set()
    for typ in tfschema.TYPES:
        module = getattr(oci, typ.split(":")[1].split("/")[0].lower())
        for line in (getattr(module, typ.rsplit(":", 1)[1] + "Args").__init__.__doc__ or "").splitlines():
            m = re.match(r"\s*:param .*?\] (\w+): (.*)", line)
            if m and re.search(r"must be unique|is unique within|unique within an", m.group(2), re.I) \
                    and "(Updatable)" not in m.group(2):
                found.add((typ, re.sub(r"_([a-z])", lambda g: g.group(1).upper(), m.group(1))))
    assert found == {(t, field) for t, (field, _) in UNIQUE_NAMES.items()}


POLICY = "oci:Identity/policy:Policy"
SUBNET = "oci:Core/subnet:Subnet"


@pytest.mark.parametrize("typ, old, new, dbr, conflict", [
    (POLICY, {"name": "p", "compartmentId": "a"}, {"name": "p", "compartmentId": "b"}, None, True),
    (POLICY, {"name": "p", "compartmentId": "a"}, {"name": "p", "compartmentId": "b"}, True, False),
    (POLICY, {"name": "p", "compartmentId": "a"}, {"name": "p2", "compartmentId": "b"}, None, False),
    ("oci:Identity/dynamicGroup:DynamicGroup", {"name": "g", "compartmentId": "a"},
     {"name": "g", "compartmentId": "b"}, None, True),
    ("oci:ObjectStorage/bucket:Bucket", {"name": "w", "namespace": "ns", "storageTier": "Standard"},
     {"name": "w", "namespace": "ns", "storageTier": "Archive"}, None, True),
    (SUBNET, {"dnsLabel": "s", "vcnId": "v", "prohibitPublicIpOnVnic": False},
     {"dnsLabel": "s", "vcnId": "v", "prohibitPublicIpOnVnic": True}, None, True),
    (SUBNET, {"dnsLabel": "s", "vcnId": "v", "availabilityDomain": "AD-1"},
     {"dnsLabel": "s", "vcnId": "[unknown]", "availabilityDomain": "AD-1"}, None, False),  # a new VCN: new scope
    ("oci:FileStorage/mountTarget:MountTarget", {"hostnameLabel": "fs", "subnetId": "s", "availabilityDomain": "1"},
     {"hostnameLabel": "fs", "subnetId": "s", "availabilityDomain": "2"}, None, True),
])
def test_a_replacement_keeping_a_unique_name_in_its_scope_is_refused_unless_deleted_first(typ, old, new, dbr,
                                                                                          conflict):
    from offline.replacement import Planner

    urn = f"urn:pulumi:dev::oke-rdma::{typ}::r"
    change = Planner({"resources": [_res(typ, old, urn)]}).decide(urn, typ, True, new, property_dependencies={},
                                                                  provider=None, delete_before_replace=dbr)
    assert change.op == "replace"
    assert bool(change.refused) is conflict
    if conflict:
        assert "deleteBeforeReplace" in change.refused[0]
