"""Regions, availability domains and OCID realms: every value a user can legally write in their region is accepted,
and a value OCI would refuse is refused with its key path and the fix."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.facts import regions
from tests.stackcfg import ROOT, dev_config, edited, in_region

RAW, _ = dev_config()


def problems(raw: dict[str, str]) -> list[str]:
    try:
        load_stack_config(raw)
    except ConfigError as e:
        return e.problems
    return []


def relocated(region: str, *, realm: str | None = None, key: str | None = None, prefix: str = "Uocm",
              ads: list[str] | None = None) -> dict[str, str]:
    """The dev stack moved to ``region`` (:func:`tests.stackcfg.in_region`), with ``ads`` as its ADs and the
    Compute Cluster in the first."""
    out = in_region(RAW, region, realm=realm, key=key, prefix=prefix)
    if ads is not None:
        out["oke-rdma:availabilityDomains"] = json.dumps(ads)
        cc = json.loads(out["oke-rdma:computeCluster"])
        cc["availabilityDomain"] = ads[0]
        out["oke-rdma:computeCluster"] = json.dumps(cc)
    return out


# --- regions and realms ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("region", regions.regions())
def test_every_region_of_the_sdk_table_is_accepted_with_its_own_ads_and_realm(region):
    """All 85 regions (several words between the dashes, every realm): the dev stack moved there loads."""
    assert problems(relocated(region)) == []


@pytest.mark.parametrize("region, realm", [("us-gov-ashburn-1", "oc3"), ("me-dcc-muscat-1", "oc9"),
                                           ("uk-gov-london-1", "oc4"), ("us-langley-1", "oc2"),
                                           ("eu-dcc-milan-1", "oc14"), ("us-ashburn-2", "oc42"), ("sa-saopaulo-1", "oc1")])
def test_realm_of_a_region_comes_from_the_sdk(region, realm):
    assert regions.realm_of(region) == realm


@pytest.mark.parametrize("region", ["us-gov-ashburn-1", "me-dcc-muscat-1", "uk-gov-london-1"])
def test_an_oc1_ocid_is_refused_in_a_region_of_another_realm(region):
    found = problems(relocated(region, realm="oc1"))
    realm = regions.realm_of(region)
    assert (f"oke-rdma:compartmentId: ocid1.compartment.oc1..aaaaaaaa4m5xq2nq7d3jb6... is an OCID of realm oc1, but "
            f"oci:region {region} is in realm {realm} (OCI SDK region table); OCIDs of another realm never resolve "
            f"there: use the compartment's OCID from your {realm} tenancy, or set oci:region") in found
    # the OCIDs inside a Workload Identity grant are checked too
    assert any(p.startswith("oke-rdma:tenants.research.serviceAccounts.trainer.allow[0]: ocid1.compartment.oc1")
               for p in found)


def test_an_oc3_ocid_is_refused_in_an_oc1_region():
    raw = dict(RAW, **{"oke-rdma:compartmentId": "ocid1.compartment.oc3..aaaaaaaa4m5xq2nq7d3jb6"})
    assert problems(raw) == [
        "oke-rdma:compartmentId: ocid1.compartment.oc3..aaaaaaaa4m5xq2nq7d3jb6 is an OCID of realm oc3, but "
        "oci:region sa-saopaulo-1 is in realm oc1 (OCI SDK region table); OCIDs of another realm never resolve there: "
        "use the compartment's OCID from your oc1 tenancy, or set oci:region"]


@pytest.mark.parametrize("key", ["iad", "us-ashburn-1"])
def test_regional_ocids_may_use_the_short_region_key(key):
    """Older OCIDs carry a three-letter key (``iad``); both forms name the region (SDK REGIONS_SHORT_NAMES)."""
    assert problems(relocated("us-ashburn-1", key=key)) == []


def test_an_ocid_in_another_region_is_refused_even_by_its_short_key():
    found = problems(relocated("us-ashburn-1", key="phx"))
    assert ("oke-rdma:nodePools.gpu.imageId: expected an image in oci:region us-ashburn-1, got an image of "
            "us-phoenix-1; use the OCID of the same image in us-ashburn-1 (images are regional)") in found


def test_an_ocid_naming_no_region_is_refused():
    raw = json.loads(RAW["oke-rdma:nodePools"])
    raw["gpu"]["imageId"] = "ocid1.image.oc1.xx-nowhere-1.aaaaaaaa7u2b4n6m8q1w3e5r"
    found = problems(dict(RAW, **{"oke-rdma:nodePools": json.dumps(raw)}))
    assert found == ["oke-rdma:nodePools.gpu.imageId: ocid1.image.oc1.xx-nowhere-1.aaaaaaaa7u2b4n6m... names "
                     "region 'xx-nowhere-1', which is no OCI region or region key (OCI SDK region table); copy the "
                     "OCID again from the console or `oci` CLI"]


@pytest.mark.parametrize("region, hint", [("saopaulo", "did you mean sa-saopaulo-1?"),
                                          ("us-ashburn-9", "us-ashburn-1"),
                                          ("US-ASHBURN-1", "did you mean us-ashburn-1?"),
                                          ("iad", "did you mean us-ashburn-1?"),
                                          ("GRU", "did you mean sa-saopaulo-1?"),
                                          ("mars-north-1", "see `oci iam region list`. Set it")])
def test_a_region_the_sdk_does_not_know_is_refused_with_the_closest(region, hint):
    found = problems(dict(RAW, **{"oci:region": region}))
    assert len(found) == 1 and found[0].startswith("oci:region: expected an OCI region identifier") and hint in found[0]


# --- availability domains -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("region, ads", [
    ("us-ashburn-1", ["Uocm:US-ASHBURN-AD-1"]),
    ("us-ashburn-1", ["Uocm:US-ASHBURN-AD-3", "Uocm:US-ASHBURN-AD-1", "Uocm:US-ASHBURN-AD-2"]),
    ("us-phoenix-1", ["Uocm:PHX-AD-1"]),
    ("us-phoenix-1", ["kWVD:PHX-AD-2", "kWVD:PHX-AD-3"]),
    ("eu-frankfurt-1", ["EjsR:EU-FRANKFURT-1-AD-2"]),
    ("uk-london-1", ["EjsR:UK-LONDON-1-AD-3"]),
    ("us-chicago-1", ["Vmpq:US-CHICAGO-1-AD-2"]),
    ("ap-tokyo-1", ["bxtG:AP-TOKYO-1-AD-1"]),
    ("us-gov-ashburn-1", ["abCD:US-GOV-ASHBURN-1-AD-1"]),
    ("me-dcc-muscat-1", ["abCD:ME-DCC-MUSCAT-1-AD-1"]),
])
def test_ads_of_the_stacks_region_are_accepted(region, ads):
    """Legacy names (Ashburn, Phoenix), three-AD and single-AD regions, other realms."""
    cfg = load_stack_config(relocated(region, ads=ads))
    assert cfg.availability_domains == tuple(ads)


def test_a_sao_paulo_ad_in_an_ashburn_stack_is_refused():
    raw = relocated("us-ashburn-1", ads=["bxtG:SA-SAOPAULO-1-AD-1"])
    assert problems(raw) == [
        "oke-rdma:availabilityDomains[0]: 'bxtG:SA-SAOPAULO-1-AD-1' is an availability domain of sa-saopaulo-1, not of "
        "oci:region us-ashburn-1; use us-ashburn-1's ADs (bxtG:US-ASHBURN-AD-1, bxtG:US-ASHBURN-AD-2, "
        "bxtG:US-ASHBURN-AD-3, with your tenancy's prefix: `oci iam availability-domain list`), or set oci:region"]


@pytest.mark.parametrize("region, ad", [
    ("us-ashburn-1", "Uocm:US-ASHBURN-1-AD-1"),   # Ashburn's ADs keep their legacy names
    ("us-phoenix-1", "Uocm:US-PHOENIX-1-AD-1"),   # Phoenix's too
    ("us-ashburn-1", "Uocm:PHX-AD-1"),            # the other legacy region
    ("us-phoenix-1", "Uocm:US-ASHBURN-AD-2"),
    ("eu-frankfurt-1", "Uocm:UK-LONDON-1-AD-1"),
])
def test_an_ad_that_is_not_the_regions_is_refused(region, ad):
    found = problems(relocated(region, ads=[ad]))
    assert len(found) == 1 and found[0].startswith(f"oke-rdma:availabilityDomains[0]: {ad!r} is ")
    assert f"not of oci:region {region}" in found[0]


@pytest.mark.parametrize("region, ad", [("sa-saopaulo-1", "bxtG:SA-SAOPAULO-1-AD-2"),
                                        ("ap-tokyo-1", "bxtG:AP-TOKYO-1-AD-3"),
                                        ("us-ashburn-1", "Uocm:US-ASHBURN-AD-4"),
                                        ("us-langley-1", "abCD:US-LANGLEY-1-AD-2"),
                                        ("us-gov-ashburn-1", "abCD:US-GOV-ASHBURN-1-AD-4")])
def test_an_ad_number_the_region_does_not_have_is_refused(region, ad):
    found = problems(relocated(region, ads=[ad]))
    assert len(found) == 1 and f"so {ad!r} does not exist" in found[0]


def test_ads_of_one_tenancy_share_one_prefix():
    found = problems(relocated("us-ashburn-1", ads=["Uocm:US-ASHBURN-AD-1", "bxtG:US-ASHBURN-AD-2"]))
    assert found == ["oke-rdma:availabilityDomains: the names carry different tenancy prefixes (Uocm, bxtG), but "
                     "every AD of a tenancy has the same one; copy all of them from `oci iam availability-domain "
                     "list` (e.g. Uocm:...)"]


@pytest.mark.parametrize("ad", ["AD-1", "US-ASHBURN-AD-1", "Uocm:us-ashburn-ad-1", "Uocm:US-ASHBURN-AD-", ":PHX-AD-1"])
def test_a_name_not_written_like_an_ad_is_refused(ad):
    found = problems(relocated("us-ashburn-1", ads=[ad]))
    assert any(p.startswith("oke-rdma:availabilityDomains: expected availability domain names like") for p in found)


def test_the_region_table_is_read_without_importing_the_whole_sdk():
    code = ("import sys; from oke_rdma.facts import regions; assert regions.realm_of('us-ashburn-1') == 'oc1'; "
            "print('oci' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_ad_names_of_every_region_parse_back_to_it():
    for region in regions.regions():
        for name in regions.example_ads(region):
            ad = regions.parse_ad(name)
            assert ad is not None and ad.region == region, name


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(regions.regions()), st.sampled_from(regions.regions()), st.integers(1, 3))
def test_an_ad_of_any_other_region_is_refused_and_the_regions_own_accepted(stack_region, ad_region, number):
    """Any pair of SDK regions: the stack region's own existing ADs load; another region's AD name never does."""
    own = f"Uocm:{regions.ad_stem(stack_region)}-AD-{number}"
    found = problems(relocated(stack_region, ads=[own]))
    assert (found == []) == (number <= (regions.ad_count(stack_region) or regions.MOST_ADS)), found
    if regions.ad_stem(ad_region) != regions.ad_stem(stack_region):
        other = f"Uocm:{regions.ad_stem(ad_region)}-AD-1"
        found = problems(relocated(stack_region, ads=[other]))
        assert len(found) == 1 and f"not of oci:region {stack_region}" in found[0], found


@pytest.mark.parametrize("key, path", [("cluster", ("kmsKeyId",)), ("storage", ("fss", "kmsKeyId"))])
def test_a_vault_key_of_another_region_is_refused(key, path):
    raw = edited(RAW, key, path, "ocid1.key.oc1.iad.bbpr4kqzaafaq.abzxiljr7m2n4q6s8u1w3y5a7c9e2g4")
    found = [p for p in problems(raw) if "Vault key" in p]
    assert found == [f"oke-rdma:{key}.{'.'.join(path)}: expected a Vault key in oci:region sa-saopaulo-1, got the "
                     f"OCID of a Vault key in us-ashburn-1; use the Vault key of sa-saopaulo-1 (it is a regional "
                     f"resource), or set oci:region"]
    same = edited(RAW, key, path, "ocid1.key.oc1.gru.bbpr4kqzaafaq.abzxiljr7m2n4q6s8u1w3y5a7c9e2g4")
    assert not any("Vault key" in p for p in problems(same))


@pytest.mark.parametrize("region", ["us-gov-ashburn-1", "me-dcc-muscat-1"])
def test_a_stack_in_a_region_with_several_words_previews_clean_and_honours_the_output_contract(region, tmp_path,
                                                                                                 capsys):
    """The whole offline preview (config, program, packs, output contract) of the dev stack moved to the region."""
    from offline import preview
    text = (ROOT / "Pulumi.dev.yaml").read_text().replace("oci:region: sa-saopaulo-1", f"oci:region: {region}")
    text = re.sub(r"ocid1\.([a-z0-9]+)\.oc1\.([a-z0-9-]*)\.",
                  lambda m: f"ocid1.{m[1]}.{regions.realm_of(region)}.{region if m[2] else ''}.", text)
    text = text.replace("bxtG:SA-SAOPAULO-1-AD-1", f"bxtG:{regions.ad_stem(region)}-AD-1")
    path = tmp_path / "Pulumi.moved.yaml"
    path.write_text(text)
    code = preview.main(["--config-file", str(path)])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "do not honour" not in out.err + out.out and f"region: {region}" in out.out
    assert f"clusterId: ocid1.cluster.{regions.realm_of(region)}.{region}." in out.out  # OCIDs of the region's realm


@pytest.mark.parametrize("region, number, refused", [
    ("us-langley-1", 1, False), ("us-langley-1", 2, True),      # oc2: one AD each (US Government Cloud page)
    ("us-luke-1", 2, True),
    ("us-chicago-1", 3, False), ("ap-tokyo-1", 2, True),        # oc1: the commercial table
    ("us-gov-ashburn-1", 2, False), ("us-gov-phoenix-1", 3, False),  # oc3: count not in the sources read
    ("uk-gov-london-1", 2, False), ("eu-frankfurt-2", 3, False),
    ("us-gov-ashburn-1", 4, True), ("me-dcc-muscat-1", 4, True),     # ... but no OCI region has 4
])
def test_ad_numbers_are_refused_only_where_the_regions_count_is_known(region, number, refused):
    """A region whose AD count oke-rdma read (oc1, oc2) refuses an AD it does not have; a region of another realm
    (government, sovereign, dedicated) is not claimed to have one AD: its AD-2 and AD-3 load, AD-4 never does."""
    found = problems(relocated(region, realm=regions.realm_of(region),
                               ads=[f"Uocm:{regions.ad_stem(region)}-AD-{number}"]))
    assert bool(found) == refused, found
    if refused:
        assert len(found) == 1 and "availabilityDomains" in found[0].split(": ", 1)[0], found


@pytest.mark.parametrize("region, number, noted", [
    ("uk-gov-london-1", 3, True), ("us-gov-ashburn-1", 2, True),   # realms whose AD counts oke-rdma has not read
    ("uk-gov-london-1", 1, False),                                  # AD-1 exists in every region
    ("us-chicago-1", 3, False), ("us-langley-1", 1, False),        # oc1, oc2: counts verified, nothing to say
])
def test_an_ad_whose_existence_the_facts_cannot_confirm_is_named_with_make_preflight(region, number, noted):
    """An AD above 1 in a realm whose AD counts are not in the sources loads, with an info line naming the
    unverified fact and `make preflight`; a verified region or AD-1 gets none."""
    from oke_rdma.config import load_stack_config
    from oke_rdma.config.checks.oci_facts import unverified_ad_notes

    raw = relocated(region, realm=regions.realm_of(region), ads=[f"Uocm:{regions.ad_stem(region)}-AD-{number}"])
    notes = unverified_ad_notes(load_stack_config(raw))
    assert bool(notes) == noted, notes
    if noted:
        assert notes[0].startswith("oke-rdma:availabilityDomains[0]: not checked: the availability domains of "
                                   f"{region} (realm {regions.realm_of(region)})")
        assert "`make preflight`" in notes[0]
