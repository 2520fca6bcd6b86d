"""The engine's requests to a pack: ``AnalyzeStack``'s, built one resource at a time as bytes, is the message the whole
request was, and a pack's server answers the bytes as it answers the message; a provider's message kept for the next
registration is the one built afresh."""
from __future__ import annotations

import json

import pytest

from offline import analyzer
from offline.analyzer_requests import analyze_request, stack_request, stack_request_bytes
from offline.policy_eval import EngineResource, start_analyzers
from tests.offline.test_analyzer import PACK_MAIN, thing


def _resources(plan: dict) -> list[EngineResource]:
    return [EngineResource(urn=r["urn"], type=r["type"], name=r["name"], custom=r["custom"], inputs=r["inputs"],
                           outputs=r["outputs"], parent=r["parent"], dependencies=r["dependencies"],
                           property_dependencies=r["propertyDependencies"], provider=r["provider"],
                           protect=r["protect"], ignore_changes=r["ignoreChanges"])
            for r in plan["resources"]]


def test_the_stack_request_bytes_are_the_whole_message(dev_plan_file):
    """Every resource of the dev plan (providers, parents, dependencies, property dependencies, options) comes back
    from the bytes as it is in the message built whole, byte for byte."""
    from pulumi.runtime.proto import analyzer_pb2

    resources = _resources(json.loads(dev_plan_file[0].read_text()))
    by_urn = {r.urn: r for r in resources}
    whole = stack_request(resources, by_urn)
    encoded = stack_request_bytes(resources, by_urn)
    assert len(whole.resources) == len(resources) > 100
    assert any(r.provider.urn for r in whole.resources) and any(r.propertyDependencies for r in whole.resources)
    assert analyzer_pb2.AnalyzeStackRequest.FromString(encoded) == whole
    assert encoded == whole.SerializeToString()  # the same bytes: maps in the same order (rules may read it)
    assert stack_request_bytes(resources[:0], {}) == b"" == analyzer_pb2.AnalyzeStackRequest().SerializeToString()


def test_a_kept_provider_message_is_the_one_built_afresh(dev_plan_file):
    """Each Kubernetes object's request carries its provider's message; kept across calls it is the same message,
    and a provider registered again under the same URN (another registration) is built again."""
    resources = _resources(json.loads(dev_plan_file[0].read_text()))
    by_urn = {r.urn: r for r in resources}
    providers: dict = {}
    using = [r for r in resources if r.provider and r.type.startswith("kubernetes:")]
    assert len(using) > 20
    for r in using:
        assert analyze_request(r, by_urn, providers) == analyze_request(r, by_urn)
    urn = next(iter(providers))
    replaced = EngineResource(urn=urn, type=by_urn[urn].type, name=by_urn[urn].name, inputs={"kubeconfig": "other"})
    changed = {**by_urn, urn: replaced}
    r = next(r for r in using if r.provider.startswith(urn))
    assert analyze_request(r, changed, providers) == analyze_request(r, changed)
    assert analyze_request(r, changed, providers) != analyze_request(r, by_urn)


@pytest.fixture(scope="module")
def toy_pack(tmp_path_factory):
    pack = tmp_path_factory.mktemp("toy-pack")
    (pack / "PulumiPolicy.yaml").write_text("runtime: python\nversion: 1.2.3\ndescription: toy\n")
    (pack / "__main__.py").write_text(PACK_MAIN)
    return pack


def test_a_server_answers_the_serialized_stack_request_as_the_message(toy_pack):
    """AnalyzeStack sent as bytes and as the message: the same findings (parents, dependencies, attribution)."""
    parent = thing("parent")
    child = thing("child", {"value": 1}, parent=parent.urn, dependencies=[parent.urn])
    resources = [parent, child, thing("elsewhere")]
    by_urn = {r.urn: r for r in resources}
    with start_analyzers([toy_pack]) as started:
        process = started.processes[0]
        session = analyzer.describe(process)
        analyzer.configure(session, {}, "dev", "proj")
        as_bytes = process.call("AnalyzeStack", stack_request_bytes(resources, by_urn), "of 3 resources")
        as_message = process.call("AnalyzeStack", stack_request(resources, by_urn), "of 3 resources")
    assert as_bytes == as_message
    assert [d.message.split("\n")[-1] for d in as_bytes.diagnostics] == [
        "saw parent parent=None deps=[]", "saw child parent=parent deps=['parent']", "saw elsewhere parent=None deps=[]"]
