"""The stack output contract: outputs.contract.json, its append-only versions, the exported outputsVersion, and the
table of docs/outputs.md — a change to the outputs without a new contract version fails here."""

import copy
import re
import json
import subprocess

import pytest

from oke_rdma.docs import PARTS
from oke_rdma.outputs import (CONTRACT_PATH, DOC_PATH, OUTPUTS_VERSION, SECRET_SIG, VERSIONS_PATH, check_contract,
                              check_outputs, contract_digest, load_contract, load_versions, render_table, unwrap,
                              UNKNOWN)
from offline.engine import run_program
from tests.stackcfg import ROOT, dev_raw_config

CONTRACT = load_contract()
VERSIONS = load_versions()


@pytest.fixture(scope="module")
def dev(dev_run):
    return dev_run


def test_contract_version_digest_and_exported_version_agree():
    assert check_contract(CONTRACT, VERSIONS) == []
    assert CONTRACT["x-outputsVersion"] == OUTPUTS_VERSION == max(VERSIONS)
    assert VERSIONS[OUTPUTS_VERSION] == contract_digest(CONTRACT)
    assert CONTRACT["properties"]["outputsVersion"]["const"] == OUTPUTS_VERSION


def _edited(edit) -> dict:
    c = copy.deepcopy(CONTRACT)
    edit(c)
    return c


@pytest.mark.parametrize("what, edit", [
    ("an output added", lambda c: c["properties"].setdefault("ingressIp", {"type": "string"})),
    ("an output removed", lambda c: c["properties"].pop("topology")),
    ("an output renamed", lambda c: c["properties"].__setitem__("clusterOcid", c["properties"].pop("clusterId"))),
    ("a nested key added", lambda c: c["properties"]["tenants"]["additionalProperties"]["properties"]
     .__setitem__("quota", {"type": "integer"})),
    ("a type changed", lambda c: c["properties"]["nodePools"]["additionalProperties"]["properties"]
     .__setitem__("size", {"type": "string"})),
    ("a secret flag dropped", lambda c: c["properties"]["kubeconfig"].pop("x-secret")),
    ("an output made optional", lambda c: c["required"].remove("tenants")),
])
def test_editing_the_contract_in_place_without_a_new_version_is_caught(what, edit):
    problems = check_contract(_edited(edit), VERSIONS)
    assert len(problems) == 1 and f"is not version {OUTPUTS_VERSION}'s" in problems[0], what
    assert "needs a new version" in problems[0]


def test_documentation_edits_need_no_new_version():
    def edit(c):
        c["properties"]["region"]["description"] = "another wording"
        c["$defs"]["ocid"]["title"] = "Oracle Cloud ID"
        c["properties"]["tenants"]["x-key"] = "team"
    assert check_contract(_edited(edit), VERSIONS) == []
    # a *property* called description (iamPolicies' documents) is shape, not an annotation
    removed = _edited(lambda c: c["properties"]["iamPolicies"]["additionalProperties"]["properties"].pop("description"))
    assert check_contract(removed, VERSIONS) != []


def test_a_new_version_needs_its_digest_the_contract_and_the_exported_version():
    current, new = OUTPUTS_VERSION, OUTPUTS_VERSION + 1
    changed = _edited(lambda c: (c["properties"].setdefault("ingressIp", {"type": "string"}),
                                 c.__setitem__("x-outputsVersion", new)))
    # bumped, but no entry appended
    assert any(f"latest version in outputs.versions.json is {current}" in p
               for p in check_contract(changed, VERSIONS, new))
    appended = {**VERSIONS, new: contract_digest(changed)}
    assert check_contract(changed, appended, new) == []
    # the program still exports the current version
    assert any(f"OUTPUTS_VERSION is {current}" in p for p in check_contract(changed, appended, current))
    # an entry appended for an unchanged contract (same digest twice)
    same = {**VERSIONS, new: VERSIONS[current]}
    assert any("same digest" in p for p in check_contract(_edited(lambda c: c.__setitem__("x-outputsVersion", new)),
                                                             same, new))
    # an old entry rewritten to match an edited contract breaks the newest one instead
    rewritten = {**VERSIONS, current: contract_digest(changed)}
    assert check_contract(CONTRACT, rewritten) != []


def test_versions_file_is_append_only_against_the_last_commit():
    """Every version the last commit knew is still there with the same digest (an edited or removed entry fails)."""
    try:
        committed = subprocess.run(["git", "show", f"HEAD:{VERSIONS_PATH.name}"], cwd=ROOT, capture_output=True,
                                   text=True, check=False)
    except FileNotFoundError:
        pytest.skip("git is not installed")
    if committed.returncode != 0:
        pytest.skip("outputs.versions.json is not committed yet (or this is not a git checkout)")
    before = {int(k): v for k, v in json.loads(committed.stdout)["versions"].items()}
    assert {v: VERSIONS.get(v) for v in before} == before


def test_dev_stack_outputs_honour_the_contract(dev):
    assert check_outputs(dev.outputs) == []
    assert dev.outputs["outputsVersion"] == OUTPUTS_VERSION
    assert set(dev.outputs) == set(CONTRACT["properties"])  # the dev stack exports every output, optional ones too
    assert dev.outputs["kubeconfig"][SECRET_SIG[0]] == SECRET_SIG[1]


@pytest.mark.parametrize("what, change, expected", [
    ("output added", lambda o: o.__setitem__("ingressIp", "10.0.0.9"), "Additional properties are not allowed"),
    ("output removed", lambda o: o.pop("tenants"), "'tenants' is a required property"),
    ("output renamed", lambda o: o.__setitem__("clusterOcid", o.pop("clusterId")), "'clusterId' is a required"),
    ("nested key added", lambda o: o["tenants"]["research"].__setitem__("quota", 16), "('quota' was unexpected)"),
    ("nested key removed", lambda o: o["nodePools"]["gpu"].pop("rdma"), "'rdma' is a required property"),
    ("secret in plain text", lambda o: o.__setitem__("kubeconfig", "apiVersion: v1"), "must be a Pulumi secret"),
    ("plain output made secret", lambda o: o.__setitem__("region", {SECRET_SIG[0]: SECRET_SIG[1],
                                                                    "value": "sa-saopaulo-1"}), "exported as a secret"),
    ("wrong version", lambda o: o.__setitem__("outputsVersion", OUTPUTS_VERSION + 1), f"{OUTPUTS_VERSION} was expected"),
])
def test_outputs_that_break_the_contract_are_reported(dev, what, change, expected):
    outputs = copy.deepcopy(dev.outputs)
    change(outputs)
    problems = check_outputs(outputs)
    assert problems and any(expected in p for p in problems), (what, problems)


@pytest.mark.parametrize("overrides", [
    {"storage": {"fss": {"enabled": False}}, "tenants": {"research": {"sharedStorage": None},
                                                         "analytics": {"sharedStorage": None}}},
    {"platform": {"kueue": {"enabled": False}}},
    {"network": {"publicLoadBalancers": True}},
    {"iam": {"createPolicies": False}},
], ids=["no-fss", "no-kueue", "public-lbs", "no-policies"])
def test_stack_variants_honour_the_contract(overrides):
    run = run_program(dev_raw_config(**overrides), [], "dev")
    assert check_outputs(run.outputs) == []
    values, _ = unwrap(run.outputs)
    if "storage" in overrides:
        assert "fss" not in values and {t["sharedStorageClaim"] for t in values["tenants"].values()} == {None}
    if "platform" in overrides:
        assert "topology" not in values and {t["localQueue"] for t in values["tenants"].values()} == {None}
    if "network" in overrides:
        assert "publicLoadBalancers" in values["subnetIds"]


def test_outputs_page_lists_exactly_the_contract_outputs():
    text = DOC_PATH.read_text(encoding="utf-8")
    block = next(p for p in PARTS if p.path == DOC_PATH).current(text)
    assert block == render_table(CONTRACT) + "\n", "docs/outputs.md's table is stale: make docs"
    rows = [line.split("|")[1].strip().strip("`") for line in block.splitlines() if line.startswith("| `")]
    assert rows == list(CONTRACT["properties"])
    assert f"Contract version **{OUTPUTS_VERSION}**" in block
    assert CONTRACT_PATH.name in text and VERSIONS_PATH.name in text


def test_make_preview_prints_every_contract_output_with_secrets_masked():
    """`make preview`'s command (read from the Makefile with make -n, so no virtualenv is rebuilt) prints the
    contract's outputs, the secret kubeconfig as [secret]."""
    import shlex
    import sys

    dry = subprocess.run(["make", "-n", "preview"], cwd=ROOT, capture_output=True, text=True, check=True)
    (command,) = [line for line in dry.stdout.splitlines() if "offline.preview" in line]
    argv = shlex.split(command)
    assert argv[1:] == ["-m", "offline.preview", "--stack", "dev"]
    out = subprocess.run([sys.executable, *argv[1:]], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stderr == "" and "outputs.contract.json" not in out.stdout  # no "do not honour" warning anywhere
    shown = out.stdout.split("\nOutputs:\n", 1)[1]
    keys = re.findall(r"^    ([A-Za-z]+): ", shown, re.M)
    assert keys == sorted(CONTRACT["properties"])
    assert "    kubeconfig: [secret]" in shown and "generate-token" not in out.stdout
    assert f"    outputsVersion: {OUTPUTS_VERSION}" in shown


@pytest.mark.parametrize("where", [
    lambda o: o.__setitem__("apiEndpoint", UNKNOWN),               # a pattern-checked string
    lambda o: o.__setitem__("clusterId", UNKNOWN),                 # an OCID
    lambda o: o["nodePools"]["gpu"].__setitem__("id", UNKNOWN),    # nested
    lambda o: o.__setitem__("subnetIds", UNKNOWN),                 # a whole object not known yet
], ids=["apiEndpoint", "clusterId", "nodePools.gpu.id", "subnetIds"])
def test_an_output_still_unknown_in_a_preview_is_not_judged(dev, where):
    """A replaced cluster's outputs are unknown until pulumi up (a preview with --previous shows them so): the
    contract judges known values only, while a key missing next to an unknown value is still reported."""
    outputs = copy.deepcopy(dev.outputs)
    where(outputs)
    assert check_outputs(outputs) == []
    outputs["nodePools"]["gpu"].pop("rdma")
    assert any("'rdma' is a required property" in p for p in check_outputs(outputs))


def test_a_value_unknown_in_a_preview_is_not_judged_but_a_known_wrong_one_still_is(dev):
    """A replaced VCN's id is unknown in a ``--previous`` preview: the contract cannot judge it (no false warning);
    a known value of the wrong shape beside it is still reported."""
    from pulumi.runtime import rpc

    outputs = copy.deepcopy(dev.outputs)
    outputs["vcnId"] = rpc.UNKNOWN
    assert check_outputs(outputs) == []
    outputs["clusterId"] = "not-an-ocid"
    assert [p.split(":")[0] for p in check_outputs(outputs)] == ["clusterId"]
