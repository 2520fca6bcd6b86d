"""The report a reviewer reads: a summary that fits a screen, --details for the whole tree, only the changes when
compared with a previous plan, and a JSON plan that keeps everything; stacks using ESC are previewed from resolved
config JSON."""

import json
import re
from pathlib import Path

import pytest
import yaml

from offline import preview
from offline.report import DEFAULT_WIDTH

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dev")
    return tmp


def _run(capsys, *args):
    code = preview.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_dev_summary_fits_95_lines_of_100_columns_and_counts_nsg_rules_per_nsg(dev_plan_file):
    path, out = dev_plan_file
    lines = out.splitlines()
    # 80 until the tenants' walls, defaults and people added three components, their diagnostics and the members'
    # IAM statements (one per group); 95 with the warning about the pinned KEDA's unfixed bug (5 lines, while no
    # release fixes it): every line is still about the stack, none repeats another
    assert len(lines) <= 95, len(lines)
    tables = out.split("\nResources:")[0].splitlines()[2:] + out.split("\nOutputs:\n")[1].splitlines()
    # messages and IAM statements are never cut; an output whose value is one long word (an OCID) keeps it whole
    assert all(len(line) <= DEFAULT_WIDTH or " " not in line.strip().split(": ", 1)[-1] for line in tables)
    doc = json.loads(path.read_text())
    top = [r for r in doc["resources"] if r["parent"].endswith("::pulumi:pulumi:Stack::oke-rdma-dev")]
    assert f"Components and top-level resources ({len(top)}) of pulumi:pulumi:Stack oke-rdma-dev:" in out
    network = next(line for line in lines if line.startswith(" +  okerdma-dev-network "))
    rules = next(line for line in lines if line.strip().startswith("NSG rules:"))
    assert "5 NetworkSecurityGroup" in network and "48 NSG rules" in rules and "controlPlane" in rules
    assert out.count("Allow any-user to manage file-family") == 1  # IAM shown once
    assert "    policyStatements: (see IAM statements)" in out
    created = int(re.search(r"\+ (\d+) to create", out).group(1))  # the root stack is counted, not listed
    shown = re.search(r"IAM statements \((\d+)\):", out).group(1)
    assert len(doc["resources"]) == created - 1 and len(doc["outputs"]["policyStatements"]) == int(shown)  # all


def _documented(pattern: str) -> tuple[str, ...]:
    text = (ROOT / "docs" / "preview.md").read_text()
    m = re.search(pattern, text)
    assert m, f"docs/preview.md no longer says {pattern!r}"
    return m.groups()


def test_the_figures_preview_md_gives_for_the_dev_summary_are_the_measured_ones(dev_plan_file):
    """docs/preview.md's numbers about the dev summary (its lines, its IAM statements, the lines wider than the
    width) are what the dev summary prints now: a change to the report that moves them fails here, not in a reader's
    hands."""
    out = dev_plan_file[1]
    lines = out.splitlines()
    total, iam = map(int, _documented(r"the dev stack: (\d+) lines, (\d+) of them its IAM statements"))
    (wide,) = map(int, _documented(r"so those\s+lines are wider \((\d+) of the dev stack's\)"))
    assert len(lines) == total, f"docs/preview.md says {total} lines, the dev summary has {len(lines)}"
    block = next(part for part in out.split("\n\n") if part.startswith("IAM statements ("))
    assert len(block.splitlines()) == iam, f"docs/preview.md says {iam} IAM lines, the block has {block.count(chr(10)) + 1}"
    assert sum(len(line) > DEFAULT_WIDTH for line in lines) == wide


def test_details_show_the_whole_tree_and_every_output(capsys):
    code, out, _ = _run(capsys, "--stack", "dev", "--details")
    assert code == 0
    assert sum("NetworkSecurityGroupSecurityRule" in line for line in out.splitlines()) >= 46
    assert "Types:" in out and '"okerdma-dev-cluster-principal": {' in out
    # The tenants' walls, read back from the declared Cilium policies, and what pod policy cannot stop.
    table = out.split("Reachability (pod → pod, read back from the declared CiliumClusterwideNetworkPolicies):")[1]
    assert re.search(r"\n    analytics +- +denied +denied", table) and re.search(r"\n    research +denied +- +denied",
                                                                                  table)
    assert "hostNetwork pods (RDMA training pods) are not Cilium endpoints" in table


def test_with_previous_only_changes_are_listed_with_the_count_of_unchanged(tmp_path, capsys, dev_plan_file):
    (tmp_path / "old.json").write_text(dev_plan_file[0].read_text())
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    doc["config"]["oke-rdma:nodePools"]["gpu"]["size"] = 4
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump(doc))
    code, out, _ = _run(capsys, "--config-file", str(tmp_path / "Pulumi.dev.yaml"), "--previous",
                        str(tmp_path / "old.json"))
    assert code == 0
    unchanged = len(json.loads((tmp_path / "old.json").read_text())["resources"])  # every other one, root included
    assert f"Changes (1; {unchanged} unchanged not listed):" in out
    assert " ~  oci:ContainerEngine/nodePool:NodePool okerdma-dev-gpu (update)\n      nodeConfigDetails.size: 2 → 4\n" in out
    assert "okerdma-dev-system" not in out.split("Changes (")[1].split("Resources:")[0]
    # a one-key change fits one screen: only what changes and the findings, no unchanged IAM statement or output
    lines = out.splitlines()
    (most,) = map(int, _documented(r"A one-key change fits (\d+) lines"))
    assert len(lines) <= most, out
    assert "IAM statements" not in out and "    nodePools.gpu.size: 2 → 4" in out and "clusterId" not in out
    # wrapped at the width; only a single unbreakable word (an OCID) may run past it; the header names the plan path
    assert all(len(line) <= DEFAULT_WIDTH or " " not in line.strip() for line in lines[1:] if "…" not in line)


def test_an_esc_stack_file_exits_2_naming_config_json(tmp_path, capsys):
    stack = tmp_path / "Pulumi.esc.yaml"
    stack.write_text("environment:\n  - oke-rdma/dev\nconfig:\n  oke-rdma:namePrefix: x\n")
    code, out, err = _run(capsys, "--config-file", str(stack))
    assert code == 2 and out == ""
    assert "environment:' imports Pulumi ESC environments" in err and "--config-json" in err
    assert "pulumi config --json --show-secrets --open" in err and "Traceback" not in err


def _config_json(secret_blinded: bool) -> dict:
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())["config"]
    out = {}
    for key, value in doc.items():
        full = key if ":" in key else f"oke-rdma:{key}"
        text = value if isinstance(value, str) else json.dumps(value)
        out[full] = {"value": text, "secret": False, **({} if isinstance(value, str) else {"objectValue": value})}
    out["oke-rdma:freeformTags"] = {"value": "[secret]" if secret_blinded else json.dumps(doc["oke-rdma:freeformTags"]),
                                    "secret": True}
    return out


def test_the_output_of_pulumi_config_json_previews_like_the_stack_file(tmp_path, capsys, dev_plan_file):
    (tmp_path / "file.json").write_text(dev_plan_file[0].read_text())
    (tmp_path / "config.json").write_text(json.dumps(_config_json(False)))
    code, _, err = _run(capsys, "--stack", "dev", "--config-json", str(tmp_path / "config.json"), "--json",
                        str(tmp_path / "cj.json"))
    assert code == 0, err
    a, b = (json.loads((tmp_path / n).read_text()) for n in ("file.json", "cj.json"))
    assert [r["urn"] for r in a["resources"]] == [r["urn"] for r in b["resources"]]
    assert b["outputs"]["vcnId"] == a["outputs"]["vcnId"]


def test_an_esc_open_document_is_read_from_its_pulumi_config(tmp_path, capsys):
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())["config"]
    (tmp_path / "esc.json").write_text(json.dumps({"pulumiConfig": doc, "environmentVariables": {}}))
    code, _, err = _run(capsys, "--config-json", str(tmp_path / "esc.json"), "--json", str(tmp_path / "p.json"))
    assert code == 0, err


@pytest.mark.parametrize("content, said", [
    ("[]", "expected a JSON object"),
    ('{"oke-rdma:namePrefix": 3}', "oke-rdma:namePrefix: expected"),
    ("nope", "not a JSON file"),
])
def test_a_malformed_config_json_exits_2_naming_the_entry(tmp_path, capsys, content, said):
    (tmp_path / "c.json").write_text(content)
    code, out, err = _run(capsys, "--config-json", str(tmp_path / "c.json"))
    assert code == 2 and said in err and "Traceback" not in err


def test_a_blinded_secret_in_config_json_stays_a_secret(tmp_path, capsys):
    (tmp_path / "config.json").write_text(json.dumps(_config_json(True)))
    code, out, err = _run(capsys, "--config-json", str(tmp_path / "config.json"))
    assert code == 2 and "oke-rdma:freeformTags" in err  # a blinded value cannot be read as tags: said, not passed


@pytest.mark.parametrize("typ, urn_project, hint", [
    ("oci:FileStorage/fileSystem:FileSystem", "oke-rdma", "set oke-rdma:storage.fss.protect: false and "),
    ("oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem", "oke-rdma",
     "set oke-rdma:storage.lustre.protect: false and "),
    ("oci:ObjectStorage/bucket:Bucket", "oke-rdma", "set oke-rdma:storage.objectStorage.protect: false and "),
    ("oci:FileStorage/fileSystem:FileSystem", "their-project", "remove `protect` from it in the program and "),
    ("oci:Core/vcn:Vcn", "oke-rdma", "remove `protect` from it in the program and "),
])
def test_a_protected_resource_names_the_config_key_that_unprotects_it(typ, urn_project, hint):
    """In this project a stateful resource is protected through a config key: the exit-4 error names that key;
    another program's resource keeps the engine's generic advice."""
    from offline.replacement import Change
    from offline.report import errors_block, protect_hint
    change = Change(f"urn:pulumi:dev::{urn_project}::{typ}::x", typ, "x", "delete", protect=True)
    assert protect_hint(change) == hint
    assert any(hint in line for line in errors_block([change]))


def test_a_change_line_shows_old_and_new_values_masks_secrets_and_never_cuts_a_word():
    from offline.replacement import Change
    from offline.report_changes import change_lines
    from offline.values import SECRET_SIG

    secret = {SECRET_SIG[0]: SECRET_SIG[1], "value": "hunter2"}
    change = Change("urn:pulumi:dev::oke-rdma::kubernetes:core/v1:Secret::s", "kubernetes:core/v1:Secret", "s",
                    "update", changed=("stringData.password", "metadata.labels.team"))
    old = {"stringData": {"password": secret}, "metadata": {"labels": {"team": "research and development " * 3}}}
    new = {"stringData": {"password": secret}, "metadata": {"labels": {"team": "platform"}}}
    lines = change_lines(change, old, new, 60)
    text = "\n".join(lines)
    assert "stringData.password: [secret] → [secret]" in text and "hunter2" not in text
    assert "→ platform" in text
    words = set(" ".join(old["metadata"]["labels"]["team"].split()).split())
    assert words <= set(text.split())  # wrapped, every word whole
    assert all(len(line) <= 60 for line in lines)


def test_a_summary_line_is_cut_between_words_only():
    from offline.report import _cut
    line = " ~  okerdma-dev-gpu (NodePool): nodeConfigDetails.size, nodeShape, nodeSourceDetails.imageId changed"
    cut = _cut(line, 60)
    assert len(cut) <= 60 and cut.endswith("…")
    assert line.startswith(cut[:-1].rstrip(", ")) and line[len(cut[:-1].rstrip())] in " ,"


def _fake_run(statements):
    from types import SimpleNamespace
    return SimpleNamespace(resources=[], diagnostics=[("info", "x")], advisories=[],
                           stack_urn="urn:pulumi:dev::oke-rdma::pulumi:pulumi:Stack::oke-rdma-dev",
                           outputs={"policyStatements": statements, "region": "sa-saopaulo-1"},
                           analyzed_resources=lambda: [])


def test_iam_statements_are_listed_only_when_they_change():
    from types import SimpleNamespace

    from offline.report_changes import render_changes
    report = SimpleNamespace(packs=[], violations=[], not_run=[])
    previous = {"resources": [], "outputs": {"policyStatements": ["Allow a"], "region": "sa-saopaulo-1"}}
    same = render_changes("dev", _fake_run(["Allow a"]), report, False, [], "old.json", previous)
    assert "IAM statements" not in same and "Outputs: none changed" in same and "(1 info message: --details)" in same
    grown = render_changes("dev", _fake_run(["Allow a", "Allow b"]), report, False, [], "old.json", previous)
    assert "IAM statements (2):" in grown and "    Allow b" in grown


def test_advisory_findings_and_not_checked_notes_are_listed_once():
    """The same advisory (policy and reason) on several resources is one line with the count; a repeated
    not-checked-offline note is printed once."""
    from types import SimpleNamespace

    from offline.report import _policy_lines
    run = _fake_run(["Allow a"])
    run.advisories = ["note a", "note a", "note b"]
    pack = SimpleNamespace(name="oke-rdma-security", version="0.2.0", path="policies/security")
    finding = "string value at .statements.0 can't be known during preview"
    not_run = [SimpleNamespace(pack=pack.name, policy="iam-no-node-access", urn=u, reason=finding) for u in "ab"]
    lines = _policy_lines(run, SimpleNamespace(packs=[pack], violations=[], not_run=not_run))
    assert [line for line in lines if "iam-no-node-access" in line] == [
        f"        - [advisory]  iam-no-node-access: {finding} (2 resources)"]
    assert "Not checked offline (2):" in lines and sum("note a" in line for line in lines) == 1


def test_several_rules_stopped_by_one_unknown_value_are_one_line():
    """Seven IAM rules that cannot judge the same unknown statement are one advisory line naming them all."""
    from types import SimpleNamespace

    from offline.report import _policy_lines
    pack = SimpleNamespace(name="oke-rdma-security", version="0.2.0", path="policies/security")
    finding = "string value at .statements.0 can't be known during preview"
    rules = [f"iam-rule-{i}" for i in range(7)]
    not_run = [SimpleNamespace(pack=pack.name, policy=r, urn=u, reason=finding) for r in rules for u in "ab"]
    lines = _policy_lines(_fake_run(["Allow a"]), SimpleNamespace(packs=[pack], violations=[], not_run=not_run))
    (line,) = [x for x in lines if "[advisory]" in x]
    assert line == f"        - [advisory]  7 rules ({', '.join(rules)}): {finding} (2 resources)"


def test_an_iam_policy_the_stack_already_has_is_updated_not_created():
    """With --previous, the IAM section says updated or unchanged for a policy the previous plan holds."""
    from types import SimpleNamespace

    from offline.report import iam_section
    policy = "oci:Identity/policy:Policy"
    run = _fake_run(["Allow a", "Allow b"])
    run.outputs["iamPolicies"] = {n: {"compartmentId": "c", "statements": ["Allow a"]} for n in ("p1", "p2", "p3")}
    run.resources = [SimpleNamespace(name=n, type=policy) for n in ("p1", "p2", "p3")]
    run.changes = [SimpleNamespace(name="p1", type=policy, op="update"), SimpleNamespace(name="p2", type=policy,
                                                                                        op="same")]
    text = "\n".join(iam_section(run))
    assert "p1 (updated; " in text and "p2 (unchanged; " in text and "p3 (created; " in text


def test_diagnostics_wrap_by_one_rule_in_the_first_preview_and_with_previous():
    """A long diagnostic is wrapped at the width, continuation lines indented, in the summary and in the
    --previous view alike."""
    from types import SimpleNamespace

    from offline.report import diagnostics_block
    from offline.report_changes import render_changes
    long = "warning text " * 20
    run = _fake_run(["Allow a"])
    run.diagnostics = [("warning", long.strip())]
    first = diagnostics_block(run, "dev", 60)
    assert len(first) > 4 and all(len(line) <= 60 for line in first) and first[4].startswith("      ")
    report = SimpleNamespace(packs=[], violations=[], not_run=[])
    previous = {"resources": [], "outputs": {"policyStatements": ["Allow a"], "region": "sa-saopaulo-1"}}
    changed = render_changes("dev", run, report, False, [], "old.json", previous, 60)
    assert "\n".join(first[1:]) in changed


def test_a_derived_label_conflict_of_this_project_gives_config_advice_not_program_advice():
    """A subnet's dnsLabel (derived by oke-rdma, no config key) kept by a replacement: the error says to avoid the
    replacement, not to set deleteBeforeReplace; another project's resource keeps the program advice."""
    from offline.immutable import name_conflict
    from offline.replacement import Change
    from offline.report import errors_block
    ((path, reason),) = name_conflict("oci:Core/subnet:Subnet", {"dnsLabel": "cp", "vcnId": "v"},
                                      {"dnsLabel": "cp", "vcnId": "v"})
    ours = Change("urn:pulumi:s::oke-rdma::oci:Core/subnet:Subnet::cp", "oci:Core/subnet:Subnet", "cp", "replace",
                  refused=(f"{path}: {reason}",))
    theirs = Change("urn:pulumi:s::other::oci:Core/subnet:Subnet::cp", "oci:Core/subnet:Subnet", "cp", "replace",
                    refused=(f"{path}: {reason}",))
    (_, mine), (_, other) = errors_block([ours]), errors_block([theirs])
    assert "deleteBeforeReplace" not in mine and "undo the config change that causes it" in mine
    assert "set deleteBeforeReplace on it" in other
