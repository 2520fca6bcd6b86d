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
