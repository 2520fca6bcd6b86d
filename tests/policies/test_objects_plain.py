"""policies.security._objects.plain turns proxied engine props into plain data, unknowns as UNKNOWN, reading the
containers the proxies wrap (no per-item proxy walk)."""
from __future__ import annotations

from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, unknown_checking_proxy

from policies.security._objects import plain
from policies.security._rules import UNKNOWN


def test_proxied_props_become_plain_with_unknowns_marked():
    props = unknown_checking_proxy({"a": [1, {"b": UNKNOWN_STRING_VALUE, "c": None}], "d": "x", "e": True,
                                    "f": UNKNOWN_STRING_VALUE})
    out = plain(props)
    assert type(out) is dict and type(out["a"]) is list and type(out["a"][1]) is dict
    assert out["a"][0] == 1 and out["a"][1]["b"] is UNKNOWN and out["a"][1]["c"] is None
    assert out["d"] == "x" and out["e"] is True and out["f"] is UNKNOWN


def test_plain_data_and_scalars_pass_through():
    assert plain({"k": ["v", 2.5]}) == {"k": ["v", 2.5]}
    assert plain(UNKNOWN) is UNKNOWN and plain(None) is None and plain(UNKNOWN_STRING_VALUE) is UNKNOWN
