"""Config messages say what is wrong in the first round: an OCID with upper case says OCIDs are lower case and shows
the OCID's shape in the stack's own realm (and region, for a regional kind); a fractional number written as text for a
whole-number key states the whole-number rule at once; articles and verbs agree ("a user", "needs")."""

from __future__ import annotations

import pytest

from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.schema import _a
from tests.stackcfg import dev_raw_config, edited, in_region

KEY = "ocid1.key.oc4.uk-gov-london-1.bbpr4kqzaafaq.abzxiljr9q1s3u5w7y2a4c6e8g1i3k5m7o9q2s4u6w8y1keyb"


def problems(raw) -> list[str]:
    try:
        load_stack_config(raw)
    except ConfigError as e:
        return list(e.problems)
    return []


def test_an_ocid_with_upper_case_says_ocids_are_lower_case_in_the_stacks_realm():
    raw = in_region(dev_raw_config(), "uk-gov-london-1")
    bad = KEY[:-6] + "Y1keyb"
    raw = edited(raw, "iam", ("tenancyId",), "ocid1.tenancy.oc4..aaaaaaaagovtenancy00000000000000000000000000000000")
    [p] = [p for p in problems(edited(raw, "storage", ("fss", "kmsKeyId"), bad)) if "fss.kmsKeyId" in p]
    assert "OCIDs are all lower case (ocid1.key.oc4.uk-gov-london-1.<unique id>)" in p and "'Y' at character" in p
    assert KEY in p  # the value in lower case
    assert problems(edited(raw, "storage", ("fss", "kmsKeyId"), KEY)) == []


@pytest.mark.parametrize("region, example", [("uk-gov-london-1", "ocid1.group.oc4..<unique id>"),
                                             ("sa-saopaulo-1", "ocid1.group.oc1..<unique id>")])
def test_a_malformed_ocid_shows_the_shape_of_the_stacks_realm(region, example):
    raw = in_region(dev_raw_config(), region)
    [p] = [p for p in problems(edited(raw, "iam", ("deployerGroupId",), "platform-admins")) if "deployerGroupId" in p]
    assert f"expected the OCID of a group ({example})" in p


def test_a_regional_kind_shows_its_region_part():
    raw = in_region(dev_raw_config(), "uk-gov-london-1")
    [p] = [p for p in problems(edited(raw, "nodePools", ("gpu", "imageId"), "ami-0abc")) if "gpu.imageId" in p]
    assert "(ocid1.image.oc4.uk-gov-london-1.<unique id>)" in p


def test_articles_follow_the_sound():
    assert [_a(w) for w in ("user", "image", "unknown", "group", "ocid", "unique id")] == [
        "a user", "an image", "an unknown", "a group", "an ocid", "a unique id"]


def test_a_user_ocid_where_a_group_belongs_says_a_user():
    raw = edited(dev_raw_config(), "iam", ("deployerGroupId",), "ocid1.user.oc1..aaaaaaaauser")
    [p] = [p for p in problems(raw) if "deployerGroupId" in p]
    assert "got the OCID of a user;" in p and "an user" not in p


def test_one_key_needing_the_tenancy_takes_needs():
    raw = edited(dev_raw_config(), "storage", ("fss", "kmsKeyId"), "ocid1.key.oc1.sa-saopaulo-1.aaaakey")
    [p] = [p for p in problems(raw) if p.startswith("oke-rdma:iam.tenancyId")]
    assert "oke-rdma:storage.fss.kmsKeyId needs a policy" in p


def test_fractional_ocpus_as_text_states_the_whole_number_rule_first():
    [p] = [p for p in problems(edited(dev_raw_config(), "nodePools", ("system", "ocpus"), "8.5")) if ".ocpus:" in p]
    assert "ocpus is a whole number of OCPUs from 1 to the shape's maximum, so 8.5 is not one" in p
    assert "such as 8 or 9 without quotes" in p and "--type int" in p


def test_whole_ocpus_as_text_only_asks_to_drop_the_quotes():
    [p] = [p for p in problems(edited(dev_raw_config(), "nodePools", ("system", "ocpus"), "8")) if ".ocpus:" in p]
    assert p.endswith("write 8 without quotes")
