"""The offline preview as a user runs it: a subprocess, its exit codes, its report and its JSON."""

import json
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def preview(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "offline.preview", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def stack_file(tmp_path: Path, edit) -> Path:
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    edit(doc["config"])
    path = tmp_path / "Pulumi.test.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_dev_stack_previews_clean_and_writes_json(tmp_path):
    out = preview("--stack", "dev", "--details", "--json", str(tmp_path / "plan.json"))
    assert out.returncode == 0, out.stderr
    assert "oci:ContainerEngine/cluster:Cluster" in out.stdout and "type=ENHANCED_CLUSTER" in out.stdout
    assert "kubeconfig: [secret]" in out.stdout
    assert "no violations" in out.stdout
    plan = json.loads((tmp_path / "plan.json").read_text())
    assert plan["stack"] == "dev" and plan["policyViolations"] == []
    assert plan["outputs"]["kubeconfig"] == "[secret]"
    types = {r["type"] for r in plan["resources"]}
    assert {"oci:Core/vcn:Vcn", "oci:Core/computeCluster:ComputeCluster", "kubernetes:helm.sh/v3:Release"} <= types
    provider = next(r for r in plan["resources"] if r["type"] == "pulumi:providers:kubernetes")
    assert provider["inputs"]["kubeconfig"] == "[secret]"  # never printed, not even in the JSON
    assert "generate-token" not in (tmp_path / "plan.json").read_text()


def test_public_api_endpoint_open_to_the_internet_exits_2_and_outside_the_policy_cidrs_exits_1(tmp_path):
    def edit(cfg):
        cfg["oke-rdma:network"]["apiEndpoint"] = {"public": True, "allowedCidrs": ["0.0.0.0/0"]}
    out = preview("--config-file", str(stack_file(tmp_path, edit)))  # the config refuses it before the pack runs
    assert out.returncode == 2, out.stdout + out.stderr
    assert "oke-rdma:network.apiEndpoint.allowedCidrs: 0.0.0.0/0 is broader than /8" in out.stderr

    def clients(cfg):
        cfg["oke-rdma:network"]["apiEndpoint"] = {"public": True, "allowedCidrs": ["203.0.113.0/24"]}
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"kubernetes-api-not-public": {"allowedApiCidrs": ["10.0.0.0/16"]}}))
    (tmp_path / "none.json").write_text("{}")
    out = preview("--config-file", str(stack_file(tmp_path, clients)), "--policy-pack", "policies/security",
                  "--policy-config", str(policy), "--policy-pack", "policies/placement", "--policy-config",
                  str(tmp_path / "none.json"))
    assert out.returncode == 1, out.stdout + out.stderr
    assert "[mandatory]  kubernetes-api-not-public" in out.stdout
    assert out.stdout.startswith("Previewing update (test)")  # the stack named by Pulumi.test.yaml


def test_rdma_pool_with_a_fault_domain_exits_2_with_the_key_path(tmp_path):
    def edit(cfg):
        cfg["oke-rdma:nodePools"]["gpu"]["faultDomains"] = ["FAULT-DOMAIN-2"]
    out = preview("--config-file", str(stack_file(tmp_path, edit)))
    assert out.returncode == 2
    assert "oke-rdma:nodePools.gpu.faultDomains: must be empty" in out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_first_preview_mode_exits_0(tmp_path):
    out = preview("--stack", "dev", "--unknowns")
    assert out.returncode == 0, out.stderr
    assert "apiEndpoint: [unknown]" in out.stdout


def test_unreadable_or_missing_stack_files_exit_2(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("config: [unclosed\n")
    for args in (["--config-file", str(bad)], ["--stack", "nosuchstack"]):
        out = preview(*args)
        assert out.returncode == 2 and out.stderr.startswith("error: ") and "Traceback" not in out.stderr


def test_yaml_only_values_never_give_a_traceback(tmp_path):
    cases = {
        "date.yaml": "config:\n  oke-rdma:namePrefix: 2024-01-01\n",
        "datekey.yaml": "config:\n  oke-rdma:freeformTags:\n    2024-01-01: x\n",
        "binary.yaml": "config:\n  oke-rdma:storage:\n    fss:\n      exportPath: !!binary aGVsbG8=\n",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "latin1.yaml").write_bytes(b"config:\n  oci:region: sa-s\xe3opaulo-1\n")
    for name in [*cases, "latin1.yaml"]:
        out = preview("--config-file", str(tmp_path / name))
        assert out.returncode == 2, (name, out.stderr)
        assert "Traceback" not in out.stderr, name
