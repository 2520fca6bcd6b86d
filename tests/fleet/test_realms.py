"""A fleet member in another OCI realm than the management cluster gets a cross-realm note (a realm is a separate
cloud: the management cluster's credentials and peering do not reach it); members of its realm get none."""
from __future__ import annotations

from pathlib import Path

from oke_rdma.fleet.load import load_fleet, realm_notes

ROOT = Path(__file__).resolve().parents[2]


def _with_region(region: str):
    spec = load_fleet(ROOT / "fleet" / "fleet.yaml").spec
    first = spec.clusters[0].model_copy(update={"name": "far", "region": region, "landing_zone": None})
    return spec.model_copy(update={"clusters": [*spec.clusters, first]})


def test_a_cluster_in_another_realm_is_noted():
    notes = realm_notes(_with_region("uk-gov-london-1"))
    assert list(notes) == ["far"] and notes["far"].startswith("cross-realm: uk-gov-london-1 is in oc4")
    assert "oc1" in notes["far"]


def test_clusters_of_the_management_realm_get_no_note():
    assert realm_notes(_with_region("eu-frankfurt-1")) == {}


def test_a_new_cluster_in_another_realm_is_warned_and_gets_no_management_cidr(tmp_path, capsys):
    """new-cluster for a region of another realm (oc3 under an oc1 management cluster) warns before writing, and the
    resolved stack's allowedCidrs hold no management egress CIDR (no route crosses realms); the request still goes
    through (the operator may be given a credential and a path of that realm)."""
    from oke_rdma.fleet import resolve
    from oke_rdma.fleet.__main__ import main
    from tests.fleet.fleetfiles import fleet_copy

    path = fleet_copy(tmp_path)
    egress = load_fleet(path).spec.management.egress_cidrs
    args = ["new-cluster", "--fleet", str(path), "--name", "gov-ash-b", "--region", "us-gov-ashburn-1", "--wave",
            "main", "--", "--availability-domains", "Abcd:US-GOV-ASHBURN-1-AD-1", "--shape", "BM.GPU.A100-v2.8"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: --region us-gov-ashburn-1 is in realm oc3") and "not added" in err
    assert all(cidr in err for cidr in egress)
    stacks = {s.name: s for s in resolve(load_fleet(path))}
    cidrs = stacks["gov-ash-b"].config["oke-rdma:network"]["apiEndpoint"]["allowedCidrs"]
    assert not set(egress) & set(cidrs) and cidrs
    other = stacks["gpu-chi-a"].config["oke-rdma:network"]["apiEndpoint"]["allowedCidrs"]  # another region, same realm
    assert set(egress) <= set(other)


def test_request_warnings_name_every_realm_but_the_management_ones():
    """Members not in the example: the UK government realm (oc4) is warned, another commercial region is not."""
    from types import SimpleNamespace

    from oke_rdma.fleet.newcluster import request_warnings

    fleet = SimpleNamespace(spec=load_fleet(ROOT / "fleet" / "fleet.yaml").spec)
    assert "realm oc4" in request_warnings(fleet, "uk-gov-london-1")[0]
    assert request_warnings(fleet, "eu-frankfurt-1") == [] and request_warnings(fleet, "us-ashburn-1") == []


def test_vcns_overlap_only_within_the_management_realm():
    """Two VCNs the management cluster routes to must not overlap; a VCN in another realm, which none of its routes
    reaches, makes no pair."""
    from types import SimpleNamespace

    from oke_rdma.fleet.resolve import vcn_overlaps

    def stack(name, region):
        return SimpleNamespace(name=name, kind="cluster", config={"oke-rdma:network": {"vcnCidr": "10.40.0.0/16"}},
                               entry=SimpleNamespace(region=region, stack_file=f"stacks/Pulumi.{name}.yaml"))
    across = [stack("lz", "us-ashburn-1"), stack("gov", "us-gov-ashburn-1")]
    assert vcn_overlaps(across, "fleet.yaml", "us-ashburn-1") == []
    within = [stack("lz", "us-ashburn-1"), stack("chi", "us-chicago-1")]
    (line,) = vcn_overlaps(within, "fleet.yaml", "us-ashburn-1")
    assert "overlaps lz's 10.40.0.0/16" in line


def test_a_problem_with_a_value_from_the_defaults_names_the_defaults_file():
    """A config problem at a key the stack file does not set but the fleet's defaults do (an OCID of another realm
    inherited by a gov stack) says where the value comes from; one the stack file sets, or that neither sets, does
    not."""
    from oke_rdma.fleet.resolve import origin_note

    defaults = {"oke-rdma:compartmentId": "ocid1.compartment.oc1..x", "oke-rdma:nodePools": {"system": {"size": 3}},
                "oke-rdma:availabilityDomains": ["Abcd:US-ASHBURN-AD-1"]}
    problem = "oke-rdma:compartmentId: ocid1.compartment.oc1..x is an OCID of realm oc1, but ..."
    assert "comes from defaults.yaml" in origin_note(problem, {}, defaults, "defaults.yaml")
    assert origin_note(problem, {"oke-rdma:compartmentId": "x"}, defaults, "defaults.yaml") == problem
    nested = "oke-rdma:nodePools.system.size: expected ..."
    assert "comes from defaults.yaml" in origin_note(nested, {"oke-rdma:nodePools": {"gpu": {}}}, defaults, "defaults.yaml")
    listed = "oke-rdma:availabilityDomains[0]: 'Abcd:US-ASHBURN-AD-1' is an availability domain of us-ashburn-1 ..."
    assert "comes from" in origin_note(listed, {}, defaults, "defaults.yaml")
    assert origin_note("oke-rdma:tenants.x: ...", {}, defaults, "defaults.yaml") == "oke-rdma:tenants.x: ..."
