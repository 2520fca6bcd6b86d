"""The API client CIDRs are judged together: their union may cover at most one /8 of public IPv4 space."""
from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.config.network import NON_PUBLIC_V4, public_ipv4_addresses
from tests.stackcfg import dev_config, edited

RAW, _ = dev_config()
KEY = "oke-rdma:network.apiEndpoint.allowedCidrs: "


def load(cidrs):
    return load_stack_config(edited(RAW, "network", ("apiEndpoint",), {"public": True, "allowedCidrs": cidrs}))


def refused(cidrs) -> str:
    with pytest.raises(ConfigError) as err:
        load(cidrs)
    [problem] = err.value.problems
    assert problem.startswith(KEY)
    return problem


def test_119_public_8s_are_refused_although_each_is_a_network():
    problem = refused([f"{i}.0.0.0/8" for i in range(1, 121) if i != 10])
    assert "1,992,294,400 public IPv4 addresses" in problem and "internet-scale" in problem


@pytest.mark.parametrize("cidrs", [["8.0.0.0/8", "9.0.0.0/24"], ["11.0.0.0/9", "12.0.0.0/9", "13.0.0.0/16"],
                                   [f"20.{i}.0.0/16" for i in range(256)] + ["52.0.0.0/15"]])
def test_unions_just_over_one_8_are_refused(cidrs):
    assert "public IPv4 addresses" in refused(cidrs)


@pytest.mark.parametrize("cidrs", [["8.0.0.0/8"], ["11.0.0.0/9", "12.0.0.0/9"],
                                   ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "8.0.0.0/8"],
                                   ["8.0.0.0/8", "8.1.0.0/16", "8.2.3.0/24"]])
def test_private_space_and_overlaps_do_not_count(cidrs):
    load(cidrs)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2 ** 32 - 1), st.integers(12, 32)), min_size=1, max_size=6))
def test_public_count_matches_address_by_address_subtraction(pairs):
    """The count equals the size of the union minus each non-public block it meets, computed independently."""
    nets = [str(ipaddress.IPv4Network((a, p), strict=False)) for a, p in pairs]
    union = list(ipaddress.collapse_addresses(ipaddress.IPv4Network(n) for n in nets))
    expected = 0
    for n in union:
        remaining = [n]
        for x in NON_PUBLIC_V4:
            nxt = []
            for r in remaining:
                if r.subnet_of(x):
                    continue
                nxt += list(r.address_exclude(x)) if x.subnet_of(r) else [r]
            remaining = nxt
        expected += sum(r.num_addresses for r in remaining)
    assert public_ipv4_addresses(nets) == expected


def test_the_config_and_the_pack_count_the_same_space_as_public():
    """The program cannot import the pack (it is published on its own), so the two copies are kept equal here."""
    from policies.security import _addresses
    assert NON_PUBLIC_V4 == _addresses.NON_PUBLIC_V4
    cidrs = [f"{i}.0.0.0/8" for i in range(1, 121) if i != 10]
    assert public_ipv4_addresses(cidrs) == _addresses.public_addresses(
        ipaddress.IPv4Network(c) for c in cidrs)[4]
