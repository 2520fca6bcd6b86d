"""A conflict between two entities (a namespace, a subnet CIDR, a UID/GID, a directory, a dedicated pool) is reported
on the key the user set, and names the other entity's key or says how it got the value, whatever order the tenants
or subnets are read in."""

from __future__ import annotations

import pytest

from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.config.checks.storage import tenant_ids
from tests.stackcfg import dev_raw_config


def _problems(**overrides) -> list[str]:
    try:
        load_stack_config(dev_raw_config(**overrides))
    except ConfigError as e:
        return e.problems
    return []


def _about(found: list[str], text: str) -> list[str]:
    return [p for p in found if text in p]


@pytest.mark.parametrize("setter, named", [("research", "analytics"), ("analytics", "research")])
def test_a_namespace_set_to_another_tenants_name_is_reported_on_the_key_that_set_it(setter, named):
    """Whichever tenant is read first, the tenant whose namespace key was set is the one named, with the other's
    name as the reason."""
    found = _about(_problems(tenants={setter: {"namespace": named}}), "is already the namespace")
    assert found == [f"oke-rdma:tenants.{setter}.namespace: {named!r} is already the namespace of tenant {named!r} "
                     f"(its name; tenants.{named} sets no namespace); tenants must not share one: set "
                     f"tenants.{setter}.namespace to a namespace of its own"]


def test_two_tenants_setting_one_namespace_are_both_named():
    found = _about(_problems(tenants={"research": {"namespace": "team"}, "analytics": {"namespace": "team"}}),
                   "is already the namespace")
    assert len(found) == 1 and found[0].startswith("oke-rdma:tenants.research.namespace: 'team'")
    assert "(its oke-rdma:tenants.analytics.namespace)" in found[0]


def test_distinct_namespaces_pass():
    assert not _about(_problems(tenants={"research": {"namespace": "team-a"}, "analytics": {"namespace": "team-b"}}),
                      "namespace")


def test_a_subnet_override_overlapping_a_later_default_subnet_is_reported_on_the_override():
    """workers (set) on the default plan's internalLoadBalancers /24: the workers key is named, not the unset one."""
    found = _about(_problems(network={"subnets": {"workers": "10.0.1.0/24"}}), "overlaps the")
    assert found and all(p.startswith("oke-rdma:network.subnets.workers: 10.0.1.0/24 overlaps the ") for p in found)
    assert any("(the default plan's internalLoadBalancers subnet; oke-rdma:network.subnets.internalLoadBalancers is "
               "not set)" in p for p in found), found


def test_two_set_subnets_that_overlap_name_both_keys():
    found = _about(_problems(network={"subnets": {"workers": "10.0.1.0/24", "internalLoadBalancers": "10.0.1.0/25"}}),
                   "overlaps the")
    assert any("(oke-rdma:network.subnets.workers)" in p or "(oke-rdma:network.subnets.internalLoadBalancers)" in p
               for p in found), found


def test_a_uid_set_to_what_another_tenant_derives_is_reported_on_the_set_key():
    """analytics (read first) sets the UID research derives from its name: analytics' key is named."""
    cfg = load_stack_config(dev_raw_config(tenants={"research": {"sharedStorage": {"uid": None}}}))
    derived, _ = tenant_ids(cfg, "research")
    found = _about(_problems(tenants={"research": {"sharedStorage": {"uid": None}},
                                      "analytics": {"sharedStorage": {"uid": derived}}}), "is already the uid")
    assert found == [f"oke-rdma:tenants.analytics.sharedStorage.uid: {derived} (set) is already the uid of tenant "
                     f"'research' (derived from its name); each tenant owns its directory alone: set another uid"]


def test_a_directory_inside_another_tenants_names_both_subpath_keys():
    found = _about(_problems(tenants={"research": {"sharedStorage": {"subPath": "analytics/nlp"}}}), "subPath")
    assert found == ["oke-rdma:tenants.research.sharedStorage.subPath: 'analytics/nlp' is inside tenant 'analytics''s "
                     "directory 'analytics' (oke-rdma:tenants.analytics.sharedStorage.subPath); give each tenant a "
                     "directory of its own, neither inside the other"]


def test_a_pool_dedicated_to_two_tenants_names_both_list_entries():
    found = _about(_problems(tenants={"research": {"nodePools": ["gpu"]}, "analytics": {"nodePools": ["gpu"]}}),
                   "already dedicated")
    assert len(found) == 1 and "(oke-rdma:tenants." in found[0] and ".nodePools[0])" in found[0], found
