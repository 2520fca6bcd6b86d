"""Every config problem names its key in one notation, the one users type in ``pulumi config set --path``: map keys
after dots (``oke-rdma:nodePools.gpu.size``), list items by index in brackets (``allow[0]``), keys with dots or spaces
as quoted indexes (``labels["okerdma.io/role"]``). The key each problem names leads to the value at fault in the
stack config the user wrote.

Grammar (Pulumi docs "Configuration", structured configuration with ``--path``; checked 2026-12-01): a path is a
first name, then ``.name`` (a name runs to the next ``.`` or ``[``), ``[<digits>]`` (a list index) or
``["<JSON-escaped text>"]`` (a map key holding any character).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, strategies as st

from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.schema import _key
from tests.stackcfg import dev_config, edited

RAW, SECRETS = dev_config()
TRAINER_ALLOW = ("research", "serviceAccounts", "trainer", "allow")
GOOD_GRANT = json.loads(RAW["oke-rdma:tenants"])["research"]["serviceAccounts"]["trainer"]["allow"][0]
LUSTRE = {"capacityGb": 52000}


def parse_path(key: str) -> tuple[str, tuple[Any, ...]]:
    """``oke-rdma:a.b[0]["c.d"]`` → ``("oke-rdma", ("a", "b", 0, "c.d"))`` by the grammar above; ValueError when
    ``key`` does not follow it."""
    namespace, sep, path = key.partition(":")
    if not sep or not namespace:
        raise ValueError(f"no namespace in {key!r}")
    parts: list[Any] = []
    at = 0
    while at < len(path):
        if path[at] == "[":
            index = re.match(r"\[([0-9]+)\]", path[at:])
            if index:
                parts.append(int(index.group(1)))
                at += index.end()
                continue
            quoted = re.match(r'\[("(?:[^"\\]|\\.)*")\]', path[at:])
            if not quoted:
                raise ValueError(f"bad index at {path[at:]!r} in {key!r}")
            parts.append(json.loads(quoted.group(1)))
            at += quoted.end()
            continue
        if parts:
            if path[at] != ".":
                raise ValueError(f"expected '.' or '[' at {path[at:]!r} in {key!r}")
            at += 1
        name = re.match(r"[^.\[]+", path[at:])
        if not name:
            raise ValueError(f"empty name at {path[at:]!r} in {key!r}")
        parts.append(name.group(0))
        at += name.end()
    return namespace, tuple(parts)


def value_at(raw: dict[str, str], key: str) -> Any:
    """The value the key path names in the raw stack config (``KeyError``/``IndexError`` when it names nothing)."""
    namespace, parts = parse_path(key)
    node: Any = json.loads(raw[f"{namespace}:{parts[0]}"])
    for part in parts[1:]:
        if isinstance(part, int):
            assert isinstance(node, list), f"{key}: [{part}] indexes a {type(node).__name__}, not a list"
        else:
            assert isinstance(node, dict), f"{key}: .{part} names a key of a {type(node).__name__}, not a map"
        node = node[part]
    return node


def problems(raw: dict[str, str]) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw, SECRETS)
    return err.value.problems


#: Invalid configs across sections: (raw config, the key path the problem must name).
CASES = {
    "list-item-type": (edited(RAW, "availabilityDomains", (), json.dumps(["bxtG:SA-SAOPAULO-1-AD-1", 1])),
                       "oke-rdma:availabilityDomains[1]"),
    "grant-item": (edited(RAW, "tenants", TRAINER_ALLOW, [GOOD_GRANT, "read object in tenancy"]),
                   "oke-rdma:tenants.research.serviceAccounts.trainer.allow[1]"),
    "grant-item-type": (edited(RAW, "tenants", TRAINER_ALLOW, [7]),
                        "oke-rdma:tenants.research.serviceAccounts.trainer.allow[0]"),
    "label-key-with-dots": (edited(RAW, "nodePools", ("gpu", "labels"), {"okerdma.io/node-pool": "x"}),
                            'oke-rdma:nodePools.gpu.labels["okerdma.io/node-pool"]'),
    "lustre-tenant-item": (edited(RAW, "storage", ("lustre",), {**LUSTRE, "tenants": ["research", "nobody"]}),
                           "oke-rdma:storage.lustre.tenants[1]"),
    "lustre-client-pool-item": (edited(RAW, "storage", ("lustre",), {**LUSTRE, "client": {"pools": ["nope"]}}),
                                "oke-rdma:storage.lustre.client.pools[0]"),
    "helm-values-key-with-dots": (
        edited(RAW, "platform", ("kubePrometheusStack", "values"),
               {"grafana": {"grafana.ini": {"security": {"admin_password": "x"}}}}),
        'oke-rdma:platform.kubePrometheusStack.values.grafana["grafana.ini"].security.admin_password'),
    "tenant-name-with-space": (
        edited(RAW, "tenants", ("data team",), json.loads(RAW["oke-rdma:tenants"])["analytics"]),
        'oke-rdma:tenants["data team"]'),
    "number-type": (edited(RAW, "nodePools", ("gpu", "size"), "2"), "oke-rdma:nodePools.gpu.size"),
    "fss-tier": (edited(RAW, "storage", ("fss", "throughputGbps"), 7), "oke-rdma:storage.fss.throughputGbps"),
    "fault-domain-item": (edited(RAW, "nodePools", ("gpu", "faultDomains"), ["FAULT-DOMAIN-1", "FAULT-DOMAIN-9"]),
                        "oke-rdma:nodePools.gpu.faultDomains"),
}


@pytest.mark.parametrize("name", CASES)
def test_each_problem_names_its_key_as_pulumi_config_set_path_takes_it(name):
    """The expected key path is reported; every reported key parses by the ``--path`` grammar and, unless the
    problem is a missing key, leads to a value in the config the user wrote; no message writes a list index as
    ``.0`` or repeats the key in another notation (``allow: allow[0]``)."""
    raw, expected = CASES[name]
    found = problems(raw)
    assert any(p.startswith(f"{expected}: ") for p in found), found
    for problem in found:
        key, _, text = problem.partition(": ")
        parse_path(key)  # raises when the key does not follow the grammar
        if not text.startswith("required"):
            value_at(raw, key)
        assert not re.search(r"[A-Za-z]\.[0-9]+\b", problem), problem
        assert not re.match(r"[A-Za-z]+\[[0-9]+\] ", text), problem


def test_an_index_key_is_not_a_map_key():
    """A list index is ``[0]``, a map key that is all digits stays a name (``.0``): the two never read alike."""
    assert _key(("storage", "lustre", "tenants", 0)) == "oke-rdma:storage.lustre.tenants[0]"
    assert _key(("tenants", "0", "rdma")) == "oke-rdma:tenants.0.rdma"
    assert parse_path(_key(("tenants", "0", "rdma")))[1] == ("tenants", "0", "rdma")
    assert _key(("region",)) == "oci:region"


def test_a_path_in_another_notation_does_not_parse():
    """The grammar check of the test above can fail."""
    for bad in ("oke-rdma:a..b", "oke-rdma:a[x]", "oke-rdma:a[0", "oke-rdma:a[0]b", "no-namespace"):
        with pytest.raises(ValueError):
            parse_path(bad)


_name = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)


@given(st.lists(st.one_of(_name, st.integers(min_value=0, max_value=999)), min_size=0, max_size=5), _name)
def test_every_rendered_key_parses_back_to_its_parts(rest, first):
    """Whatever the keys (dots, brackets, quotes, spaces, control characters), :func:`_key` renders a path that
    parses back to the same parts: the notation is unambiguous."""
    if first == "region":
        return
    first = first if re.fullmatch(r"[A-Za-z0-9_/-]+", first) else "nodePools"  # top-level keys are field names
    loc = (first, *rest)
    namespace, parts = parse_path(_key(loc))
    assert namespace == "oke-rdma" and parts == loc
