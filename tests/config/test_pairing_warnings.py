"""Pairings the config accepts but the declared nodes cannot serve are warned about, naming the key and the fix: a
Lustre file system with no client to install, a Lustre client pool on Arm, FSS in-transit TLS without the package
it needs and an RDMA tenant with no RDMA pool. The dev stack has none."""

from __future__ import annotations

from oke_rdma.config import load_stack_config
from oke_rdma.config.checks.pairings import pairing_warnings
from tests.stackcfg import dev_config, edited

ARCHIVE = {"url": "https://objectstorage.example.com/p/x/lustre.tar.gz", "sha256": "a" * 64}


def _warnings(*edits) -> list[str]:
    raw, secret = dev_config()
    for key, path, value in edits:
        raw = edited(raw, key, path, value)
    return pairing_warnings(load_stack_config(raw, secret))


def test_the_dev_stack_has_no_pairing_warning():
    assert _warnings() == []


def test_lustre_without_a_client_archive_warns_that_its_pods_stay_pending():
    found = _warnings(("storage", ("lustre",), {"capacityGb": 31200, "tenants": ["research"]}))
    assert len(found) == 1 and found[0].startswith("oke-rdma:storage.lustre.client.packages:")
    assert "Pending" in found[0] and "research" in found[0] and "gpu" in found[0]


def test_lustre_with_a_client_archive_or_no_client_management_says_nothing():
    with_archive = {"capacityGb": 31200, "tenants": ["research"], "client": {"packages": {"oracleLinux8": ARCHIVE}}}
    assert _warnings(("storage", ("lustre",), with_archive)) == []
    unmanaged = {"capacityGb": 31200, "tenants": ["research"], "client": {"enabled": False}}
    assert _warnings(("storage", ("lustre",), unmanaged)) == []


def test_an_arm_lustre_client_pool_is_named():
    lustre = {"capacityGb": 31200, "tenants": ["research"],
              "client": {"pools": ["arm"], "packages": {"oracleLinux8": ARCHIVE}}}
    arm = {"shape": "VM.Standard.A1.Flex", "ocpus": 4, "memoryGb": 32, "size": 1,
           "imageId": "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaak3s7w2nb5qj4x6l9d2r8t1y3u5i7o9p0a2s4d6f8g1h3j5k7armx"}
    found = _warnings(("storage", ("lustre",), lustre), ("nodePools", ("arm",), arm))
    assert [w.split(":")[1] for w in found] == ["storage.lustre.client.pools"] and "x86_64" in found[0]


def test_fss_in_transit_tls_warns_about_the_package_the_nodes_need():
    found = _warnings(("storage", ("fss", "inTransitTls"), True))
    assert len(found) == 1 and found[0].startswith("oke-rdma:storage.fss.inTransitTls:") and "oci-fss-utils" in found[0]


def test_an_rdma_tenant_without_an_rdma_pool_is_named():
    """No pool with rdma: true, quotas at 0 (the quota rule would refuse GPUs no pool offers): the config accepts it,
    and the warning names the RDMA tenant only."""
    no_gpus = {"gpu": 0, "gpuBorrowingLimit": 0, "cpu": 10, "memoryGb": 10}
    found = _warnings(("nodePools", ("gpu", "rdma"), False), ("tenants", ("research", "quota"), no_gpus),
                      ("tenants", ("analytics", "quota"), no_gpus))
    assert [w.split(":")[1] for w in found] == ["tenants.research.rdma"]



def _lustre_on(pool: dict) -> list[str]:
    lustre = {"capacityGb": 31200, "tenants": ["research"],
              "client": {"pools": ["extra"], "packages": {"oracleLinux8": ARCHIVE}}}
    image = "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaak3s7w2nb5qj4x6l9d2r8t1y3u5i7o9p0a2s4d6f8g1h3j5k7armx"
    return _warnings(("storage", ("lustre",), lustre), ("nodePools", ("extra",), {**pool, "imageId": image}))


def test_an_a10_lustre_client_pool_is_x86_and_not_warned_about():
    """VM.GPU.A10.2 runs on Intel x86 ('.A10.' in its name is no Ampere Arm): the Lustre client installs there."""
    assert _lustre_on({"shape": "VM.GPU.A10.2", "size": 1}) == []


def test_a_lustre_client_pool_of_a_shape_of_unknown_architecture_is_named_not_guessed():
    """A CPU shape the shape table does not know (BM.Standard.E5.192) is neither passed as x86 nor called Arm."""
    found = _lustre_on({"shape": "BM.Standard.E5.192", "size": 1})
    assert [w.split(":")[1] for w in found] == ["storage.lustre.client.pools"]
    assert "not in oke_rdma/facts/shapes.py" in found[0] and "is Arm" not in found[0]
