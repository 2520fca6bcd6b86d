"""The offline preview on inputs that once crashed it or were silently accepted: tiny subnets in the mocks, an
unwritable --json path, a missing or empty --program, a failing program (exit 3), malformed --previous entries, and
secure: config values that reached the plan as plain text."""
from __future__ import annotations

import json
import os

import pulumi
import pulumi_oci as oci
import pytest

from offline import preview
from offline.engine import host_address, run_program
from offline.replacement import check_plan
from offline.stackfile import SECRET_PLACEHOLDER
from tests.offline.test_cli import ROOT, stack_file
from tests.offline.test_cli import preview as preview_process


# --- 1. the mocks on any subnet size -----------------------------------------------------------------------------------
@pytest.mark.parametrize("cidr, first, tenth", [
    ("10.0.0.0/24", "10.0.0.1", "10.0.0.10"),
    ("10.0.0.4/30", "10.0.0.5", "10.0.0.6"),  # OCI's smallest subnet: clamped to its last usable address
    ("10.0.0.5/32", "10.0.0.5", "10.0.0.5"),  # hosts() is a list here; next() on it was a TypeError
    ("10.0.0.4/31", "10.0.0.4", "10.0.0.4"),
    ("10.0.0.77/24", "10.0.0.1", "10.0.0.10"),  # host bits set: still a network
    ("2603:c020::/64", "2603:c020::1", "2603:c020::a"),  # never lists 2**64 hosts
    ("not-a-cidr", "10.0.0.1", "10.0.0.10"),
])
def test_host_address_on_any_network(cidr, first, tenth):
    assert (host_address(cidr), host_address(cidr, 9)) == (first, tenth)


def test_a_program_declaring_a_slash_32_subnet_runs_under_the_mocks():
    def program():
        vcn = oci.core.Vcn("v", oci.core.VcnArgs(compartment_id="ocid1.compartment.oc1..c",
                                                 cidr_blocks=["10.0.0.0/16"]))
        subnet = oci.core.Subnet("tiny", oci.core.SubnetArgs(compartment_id="ocid1.compartment.oc1..c",
                                                             vcn_id=vcn.id, cidr_block="10.0.0.5/32"))
        mt = oci.filestorage.MountTarget("mt", oci.filestorage.MountTargetArgs(
            availability_domain="AD-1", compartment_id="ocid1.compartment.oc1..c", subnet_id=subnet.id))
        ip = mt.private_ip_ids.apply(lambda ids: oci.core.get_private_ip(private_ip_id=ids[0]).ip_address)
        pulumi.export("router", subnet.virtual_router_ip)
        pulumi.export("mountTargetIp", ip)

    run = run_program({"oci:region": "sa-saopaulo-1"}, [], "dev", program=program)
    assert run.outputs == {"router": "10.0.0.5", "mountTargetIp": "10.0.0.5"}


# --- 2. --json PATH that cannot be written ---------------------------------------------------------------------------
def test_unwritable_json_path_exits_2_before_the_preview(tmp_path, capsys):
    cases = {tmp_path / "missing" / "plan.json": "does not exist", tmp_path: "is a directory"}
    for path, reason in cases.items():
        assert preview.main(["--stack", "dev", "--json", str(path)]) == 2
        out = capsys.readouterr()
        assert out.err.startswith(f"error: --json {path}: ") and reason in out.err, out.err
        assert out.out == "" and "Traceback" not in out.err  # refused before anything ran


def test_read_only_directory_for_json_exits_2(tmp_path, capsys, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    # os.access as an unprivileged user sees a read-only directory (the tests may run as root, which writes anywhere)
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(locked) else real_access(p, mode))
    assert preview.main(["--stack", "dev", "--json", str(locked / "plan.json")]) == 2
    assert f"cannot create a file in {locked} (permission denied)" in capsys.readouterr().err


def test_write_failure_after_the_check_is_exit_2_not_a_traceback(tmp_path, capsys, monkeypatch):
    target = tmp_path / "plan.json"
    original_text, original_open = type(target).write_text, type(target).open

    def failing_text(self, *args, **kwargs):
        if self == target:
            raise OSError(28, "No space left on device")
        return original_text(self, *args, **kwargs)

    def failing_open(self, mode="r", *args, **kwargs):
        if self == target and "w" in mode:  # the plan is written in chunks through an open file
            raise OSError(28, "No space left on device")
        return original_open(self, mode, *args, **kwargs)

    monkeypatch.setattr(type(target), "write_text", failing_text)
    monkeypatch.setattr(type(target), "open", failing_open)
    assert preview.main(["--stack", "dev", "--json", str(target)]) == 2
    assert f"error: --json {target}: No space left on device" in capsys.readouterr().err


# --- 3. --program that is missing or a directory without __main__.py -------------------------------------------------
def test_missing_program_or_directory_without_main_exits_2(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    for path, reason in ((tmp_path / "nope.py", "no such file or directory"),
                         (empty, "is a directory without a __main__.py")):
        assert preview.main(["--stack", "dev", "--program", str(path)]) == 2
        out = capsys.readouterr()
        assert out.err.startswith(f"error: --program {path}: {reason}") and out.out == "", out.err


def test_program_directory_with_main_runs_that_program(tmp_path, capsys):
    (tmp_path / "__main__.py").write_text("import pulumi\npulumi.export('mine', 'their program ran')\n")
    assert preview.main(["--stack", "dev", "--program", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "mine: their program ran" in out and "oci:ContainerEngine/cluster:Cluster" not in out


# --- 4. a program that fails --------------------------------------------------------------------------------------------
FAILING = {
    "value_error.py": ("import pulumi\n\ndef build():\n    raise ValueError('no such shape')\n\nbuild()\n",
                       "ValueError: no such shape", True),
    "syntax.py": ("def f(:\n    pass\n", "SyntaxError: invalid syntax", True),
    "exit7.py": ("import sys\nsys.exit(7)\n", "SystemExit: the program called sys.exit(7) before it finished", True),
    "exit0.py": ("import sys\nsys.exit(0)\n", "SystemExit: the program called sys.exit(0) before it finished", True),
    "apply.py": ("import pulumi\n\ndef boom(value):\n    return {}['missing']\n\n"
                 "pulumi.export('x', pulumi.Output.from_input(1).apply(boom))\n", "KeyError: 'missing'", True),
}


@pytest.mark.parametrize("name", sorted(FAILING))
def test_failing_program_exits_3_with_its_own_traceback(tmp_path, capsys, name):
    source, first, with_traceback = FAILING[name]
    program = tmp_path / name
    program.write_text(source)
    assert preview.main(["--stack", "dev", "--program", str(program)]) == preview.EXIT_PROGRAM == 3
    out = capsys.readouterr()
    lines = out.err.splitlines()
    assert lines[0] == f"error: the program failed: {first}" or lines[0].startswith(
        f"error: the program failed: {first} ("), lines[0]  # a SyntaxError adds (file, line)
    assert out.out == ""
    assert with_traceback
    assert f'File "{program}", line' in out.err  # the user's frames, for their debugging
    for plumbing in ("offline/engine.py", "offline/preview.py", "runpy", "asyncio", "pulumi/runtime"):
        assert plumbing not in out.err, out.err  # ... and only theirs


def test_a_program_refusing_its_input_with_run_error_exits_2_with_its_message(tmp_path, capsys):
    """pulumi.RunError is how a program refuses its input (our ConfigError is one): exit 2, one line, no traceback,
    as the Pulumi CLI prints it."""
    program = tmp_path / "run_error.py"
    program.write_text("import pulumi\nraise pulumi.RunError('the image is not in this region')\n")
    assert preview.main(["--stack", "dev", "--program", str(program)]) == preview.EXIT_CONFIG == 2
    out = capsys.readouterr()
    assert out.err.splitlines() == ["error: the image is not in this region"] and out.out == ""


def test_our_own_program_failing_is_exit_3(tmp_path, capsys, monkeypatch):
    import oke_rdma.network as network

    def broken(*args, **kwargs):
        raise RuntimeError("a bug in a component")

    monkeypatch.setattr(network.Network, "__init__", broken)
    assert preview.main(["--stack", "dev"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("error: the program failed: RuntimeError: a bug in a component\nTraceback")
    assert f'File "{ROOT / "__main__.py"}"' in err


def test_config_error_stays_exit_2_without_traceback(tmp_path):
    def edit(cfg):
        cfg["oke-rdma:nodePools"]["gpu"]["faultDomains"] = ["FAULT-DOMAIN-2"]
    out = preview_process("--config-file", str(stack_file(tmp_path, edit)))
    assert out.returncode == 2 and "the program failed" not in out.stderr and "Traceback" not in out.stderr


def test_failing_program_in_a_real_process(tmp_path):
    program = tmp_path / "p.py"
    program.write_text("raise ValueError('boom')\n")
    out = preview_process("--stack", "dev", "--program", str(program))
    assert out.returncode == 3 and out.stderr.startswith("error: the program failed: ValueError: boom\n")
    program.write_text("import os\nos._exit(0)\n")  # documented: cannot be caught in-process
    assert preview_process("--stack", "dev", "--program", str(program)).returncode == 0
    assert "os._exit" in preview.__doc__


# --- 5. --previous with malformed entries ----------------------------------------------------------------------------
@pytest.mark.parametrize("doc, expected", [
    ({"resources": [{"urn": 5}]}, "resources[0].urn: expected text, got a number (5)"),
    ({"resources": [None]}, "resources[0]: expected a resource object with urn, type, name and inputs, got null"),
    ({"resources": [{"x": 1}]}, "resources[0]: has no 'urn'"),
    ({"resources": [{"urn": "u", "type": "t"}]}, "resources[0]: has no 'name'"),
    ({"resources": [{"urn": "u", "type": "t", "name": "n", "inputs": []}]}, "resources[0].inputs: expected an object"),
    ({"resources": [{"urn": "u", "type": "t", "name": "n", "replaceOnChanges": "x"}]},
     "resources[0].replaceOnChanges: expected a list"),
    ({"resources": [{"urn": "u", "type": "t", "name": "n"}] * 2}, "resources[1].urn: u is also resources[0]"),
])
def test_malformed_previous_entries_are_named_and_exit_2(tmp_path, capsys, doc, expected):
    with pytest.raises(ValueError, match=expected.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        check_plan(doc)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    assert preview.main(["--stack", "dev", "--previous", str(path)]) == 2
    out = capsys.readouterr()
    assert out.err.strip() == f"error: --previous {path}: {expected}" or out.err.startswith(
        f"error: --previous {path}: {expected}"), out.err
    assert out.out == ""


def test_well_formed_previous_still_accepted():
    check_plan({"resources": [{"urn": "u", "type": "t", "name": "n", "inputs": {}, "replaceOnChanges": ["a"]}]})


# --- 8. secure: config values stay secret in the plan ------------------------------------------------------------
def test_secure_label_value_is_masked_and_reported(tmp_path):
    text = (ROOT / "Pulumi.dev.yaml").read_text()
    marker = "        okerdma.io/role: gpu\n"
    assert marker in text
    config = tmp_path / "Pulumi.sec.yaml"
    config.write_text(text.replace(marker, marker + "        team:\n          secure: AAABAHx9wq1x\n"))
    out = preview_process("--config-file", str(config), "--json", str(tmp_path / "plan.json"))
    assert out.returncode == 0, out.stderr
    plan = (tmp_path / "plan.json").read_text()
    assert SECRET_PLACEHOLDER not in plan and SECRET_PLACEHOLDER not in out.stdout + out.stderr
    pool = next(r for r in json.loads(plan)["resources"] if r["name"] == "okerdma-dev-gpu")
    assert {"key": "team", "value": "[secret]"} in pool["inputs"]["initialNodeLabels"]
    diagnostics = " ".join(out.stdout.split("\nDiagnostics:\n", 1)[1].split("\nPolicies:")[0].split())
    assert ("warning: a secure: config value reaches oci:ContainerEngine/nodePool:NodePool okerdma-dev-gpu: "
            "initialNodeLabels[") in diagnostics and "pulumi.Output.secret" in diagnostics  # in the report, not above


def test_mask_hides_the_placeholder_inside_text_and_keeps_real_secrets_quiet():
    assert preview.mask({"a": f"prefix-{SECRET_PLACEHOLDER}", "b": ["x"]}) == {"a": "[secret]", "b": ["x"]}

    def program():
        pulumi.export("wrapped", pulumi.Output.secret(SECRET_PLACEHOLDER))
        pulumi.export("plain", {"label": SECRET_PLACEHOLDER})

    run = run_program({"oci:region": "sa-saopaulo-1"}, [], "dev", program=program)
    assert preview.secret_leaks(run) == ["stack output: plain.label"]  # the wrapped one is a real Pulumi secret
    assert preview.mask(run.outputs) == {"wrapped": "[secret]", "plain": {"label": "[secret]"}}


def test_a_placeholder_deep_in_a_resources_inputs_is_found_and_a_wrapped_one_is_not():
    """secret_leaks names the path of a secure: value inside a resource's inputs (nested in maps and lists, inside
    longer text, under a key JSON would escape), and not one the program wrapped as a Pulumi secret or a resource
    without it."""
    def program():
        pulumi.CustomResource("test:index:Thing", "leaky", {"spec": {"items": [{"x": 1}, {"note": f"a\"b {SECRET_PLACEHOLDER}"}],
                                                                     "ünï\n": "plain"}})
        pulumi.CustomResource("test:index:Thing", "wrapped", {"token": pulumi.Output.secret(SECRET_PLACEHOLDER)})
        pulumi.CustomResource("test:index:Thing", "clean", {"spec": {"note": "offline-placeholder"}})

    run = run_program({"oci:region": "sa-saopaulo-1"}, [], "dev", program=program)
    assert preview.secret_leaks(run) == ["test:index:Thing leaky: spec.items[1].note"]
    assert json.dumps(SECRET_PLACEHOLDER, ensure_ascii=False) == f'"{SECRET_PLACEHOLDER}"'  # JSON writes it as is


def test_dev_stack_has_no_secret_leak_warning():
    out = preview_process("--stack", "dev")
    assert out.returncode == 0 and "warning: a secure:" not in out.stderr


@pytest.mark.parametrize("urn, named", [
    ("urn:pulumi:prod::oke-rdma::oci:Core/vcn:Vcn::okerdma-prod-vcn", "stack 'prod' of project 'oke-rdma'"),
    ("urn:pulumi:dev::other-project::oci:Core/vcn:Vcn::v", "stack 'dev' of project 'other-project'"),
    ("urn:pulumi:gpu-fra::oke-rdma::pulumi:pulumi:Stack::oke-rdma-gpu-fra", "stack 'gpu-fra' of project 'oke-rdma'"),
])
def test_a_plan_of_another_stack_or_project_is_refused_before_the_program_runs(tmp_path, capsys, urn, named):
    """Pulumi keeps one state per stack: a --previous plan of another stack (or project) would show every resource
    created and the other stack's deleted (exit 4 on its protected file system); it is refused in one line (exit 2)
    naming both stacks."""
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"resources": [{"urn": urn, "type": urn.split("::")[2], "name": urn.split("::")[3]}]}))
    assert preview.main(["--stack", "dev", "--previous", str(path)]) == 2
    out = capsys.readouterr()
    assert out.err.startswith(f"error: --previous {path}: is a plan of {named}, not of the stack previewed ('dev' of "
                              f"'oke-rdma')"), out.err
    assert len(out.err.strip().splitlines()) == 1 and out.out == ""
