"""A stack file shaped so that Pulumi would not read (part of) its config is refused, naming what is where and the
fix — in the offline preview's reader and in the fleet's — and a well-shaped file passes."""

from __future__ import annotations

import pytest

from oke_rdma.stack_file import document_problem

GOOD = {"config": {"oci:region": "sa-saopaulo-1", "oke-rdma:nodePools": {"gpu": {"size": 2}}},
        "encryptionsalt": "v1:abc", "secretsprovider": "passphrase"}


@pytest.mark.parametrize("doc, said", [
    ({"oci:region": "x", "oke-rdma:namePrefix": "y"}, "no top-level config:; found oci:region, oke-rdma:namePrefix"),
    ({"oke-rdma": {"namePrefix": "y"}}, "no top-level config:; found oke-rdma at the top level"),
    ({**GOOD, "oke-rdma:tenants": {}}, "oke-rdma:tenants at the top level, beside config:"),
    ({"Config": GOOD["config"]}, "top-level key 'Config' is not one Pulumi reads from a stack file"),
    ({"conifg": GOOD["config"]}, "did you mean config:?"),
    ({"configs": GOOD["config"]}, "did you mean config:?"),
    ({**GOOD, "notes": "hello"}, "top-level key 'notes' is not one Pulumi reads"),
    ({"config": [{"oci:region": "x"}]}, "'config:' is a list"),
    ({"config": "oci:region=x"}, "'config:' holds text"),
    ({"config": {"config": {"oci:region": "x"}}}, "config: holds another config:"),
    ({"config": {"oci": {"region": "x"}}}, "'oci:' is a namespace, not a key: write each key under it as oci:<key>"),
])
def test_a_misshapen_stack_file_is_refused_naming_the_fix(doc, said):
    problem = document_problem(doc, "oke-rdma")
    assert problem and said in problem, problem


def test_a_well_shaped_stack_file_and_an_empty_one_pass():
    assert document_problem(GOOD, "oke-rdma") is None
    assert document_problem(None, "oke-rdma") is None
    assert document_problem({"config": None}, "oke-rdma") is None
    assert document_problem({"environment": ["env"], "config": {"region": "x"}}, "oke-rdma") is None


def test_the_fleet_refuses_a_stack_file_without_config(tmp_path):
    """The fleet reads stack files too: one whose keys sit at the top level is refused, not resolved as empty."""
    from oke_rdma.fleet import load_fleet, resolve
    from oke_rdma.fleet.load import FleetError
    from tests.fleet.fleetfiles import fleet_copy

    path = fleet_copy(tmp_path)
    stack = tmp_path / "stacks" / "Pulumi.gpu-chi-a.yaml"
    text = stack.read_text()
    stack.write_text(text.replace("config:\n", "", 1))
    with pytest.raises(FleetError) as err:
        resolve(load_fleet(path))
    assert any("no top-level config:" in p for p in err.value.problems), err.value.problems
