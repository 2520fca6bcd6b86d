"""The offline engine's URNs of plain strings (offline.plain_urns) are the SDK's own: same value, known, not
secret, no resources; anything not a plain string is left to the SDK's function."""
from __future__ import annotations

import asyncio

import pulumi
import pytest
from pulumi.runtime import resource as sdk_resource

from offline.engine import run_program
from offline.plain_urns import plain_urn, plain_urns

SHAPES = [
    ("vcn", "oci:Core/vcn:Vcn", None, None, None),
    ("vcn", "oci:Core/vcn:Vcn", None, "proj", "stk"),
    ("rule", "oci:Core/rule:Rule", "urn:pulumi:dev::oke-rdma::my:comp:Network::net", None, None),
    ("child", "x:y:Z", "urn:pulumi:dev::oke-rdma::a:b:C$my:comp:Network::net", None, None),
    ("odd", "x:y:Z", "", None, None),  # an empty parent URN: the SDK's slicing gives "$"
]


async def _data(output: pulumi.Output):
    data = await output._data
    return data.value, data.is_known, data.is_secret, data.resources


@pytest.mark.parametrize("shape", SHAPES, ids=[s[0] + str(i) for i, s in enumerate(SHAPES)])
def test_a_plain_urn_is_the_sdks_own(shape):
    def program():
        sdk = sdk_resource.create_urn
        with plain_urns():
            fast = sdk_resource.create_urn(*shape)
        assert sdk_resource.create_urn is sdk
        pulumi.export("fast", fast)
        pulumi.export("sdk", sdk(*shape))
        pulumi.export("same", pulumi.Output.all(fast, sdk(*shape)).apply(lambda pair: pair[0] == pair[1]))

    run = run_program({"oci:region": "sa-saopaulo-1"}, [], "dev", program=program)
    assert run.outputs["same"] is True and run.outputs["fast"] == run.outputs["sdk"]
    assert run.outputs["fast"] == plain_urn(*shape) or shape[3] is None


def test_anything_but_plain_strings_goes_to_the_sdk():
    """A parent given as an output (or a name that is one) has no plain URN; the SDK's chain computes it."""
    loop = asyncio.new_event_loop()
    try:
        asyncio.set_event_loop(loop)
        parent = pulumi.Output.from_input("urn:pulumi:dev::p::a:b:C::c")
        assert plain_urn("n", "t:t:T", parent) is None
        assert plain_urn(pulumi.Output.from_input("n"), "t:t:T") is None
        assert plain_urn("n", "t:t:T", "urn:pulumi:dev::p::a:b:C::c") == "urn:pulumi:dev::p::a:b:C$t:t:T::n"
    finally:
        loop.close()
        asyncio.set_event_loop(None)


def test_the_dev_stack_registers_the_same_urns_with_and_without_the_shortcut(dev_run, monkeypatch):
    """Every URN of a dev program run is the same when the SDK computes its mock URNs itself."""
    from contextlib import nullcontext

    import offline.engine as engine
    from offline.preview import _read_stack_file
    from tests.conftest import ROOT

    monkeypatch.setattr(engine, "plain_urns", nullcontext)
    config, secrets = _read_stack_file(ROOT / "Pulumi.dev.yaml", "oke-rdma")
    slow = run_program(config, secrets, "dev")
    assert sorted(r.urn for r in slow.resources) == sorted(r.urn for r in dev_run.resources)
    assert {r.urn: r.inputs for r in slow.resources} == {r.urn: r.inputs for r in dev_run.resources}
