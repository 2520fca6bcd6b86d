"""The pull-request CI: the workflows parse as YAML and have the expected jobs and steps; the stack and project files
CI previews parse too."""

import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
def committed_stacks() -> set[str]:
    """The stacks whose ``Pulumi.<stack>.yaml`` the repository holds (``git ls-files``): a stack file a user added
    to their own clone (docs/new-stack.md) is not one CI knows about. Without git (an exported tree), the project
    ships dev and prod."""
    import subprocess
    try:
        out = subprocess.run(["git", "ls-files", "Pulumi.*.yaml"], cwd=ROOT, capture_output=True, text=True,
                             timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {"dev", "prod"}
    return {Path(p).name.split(".")[1] for p in out.split()} or {"dev", "prod"}


WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
PREVIEW = ROOT / ".github" / "workflows" / "preview.yml"


def load(path: Path) -> dict:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(doc, dict), path
    return doc


def triggers(doc: dict) -> dict:
    """The workflow's ``on:`` (PyYAML, a YAML 1.1 reader, turns the bare key ``on`` into True)."""
    on = doc.get("on", doc.get(True))
    return {on: None} if isinstance(on, str) else dict.fromkeys(on) if isinstance(on, list) else on


def header(path: Path) -> str:
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line)
    return "\n".join(lines)


def steps_running(job: dict, command: str) -> list[dict]:
    return [s for s in job["steps"] if re.search(rf"(^|\n|\s){re.escape(command)}(\s|$)", s.get("run", ""))]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_workflow_is_valid_and_documents_its_secrets(path):
    doc = load(path)
    assert doc["jobs"] and "pull_request" in triggers(doc)
    text = path.read_text(encoding="utf-8")
    used = set(re.findall(r"secrets\.([A-Za-z_][A-Za-z0-9_]*)", text))
    documented = header(path)
    assert {s for s in used if s not in documented} == set(), "secrets used but not listed in the header comment"
    for name, job in doc["jobs"].items():
        assert job.get("runs-on") and job.get("steps"), name
        for step in job["steps"]:
            assert "uses" in step or "run" in step, (name, step)


def test_offline_job_needs_no_secret_and_runs_make_preview():
    jobs = load(PREVIEW)["jobs"]
    offline = jobs["offline-preview"]
    assert "secrets." not in yaml.safe_dump(offline)
    assert offline.get("permissions") == {"contents": "read"}  # nothing to write, even on the repo's own PRs
    assert "if" not in offline  # forks get this check
    assert steps_running(offline, "make preview") and steps_running(offline, "make test")
    assert steps_running(offline, "make consumer-preview")
    loop = next(s for s in offline["steps"] if "Pulumi.*.yaml" in s.get("run", ""))
    assert "pipefail" in loop["run"] or loop.get("shell") == "bash"  # `| tee` must not hide a failing preview


def test_preview_job_runs_the_preflight_before_the_preview():
    """With the runner's OCI credentials (the OCI CLI's variables), the pre-flight asks the tenancy first."""
    jobs = load(ROOT / ".github" / "workflows" / "preview.yml")["jobs"]
    (job,) = [j for j in jobs.values() if any(str(s.get("uses", "")).startswith("pulumi/actions@")
                                            for s in j["steps"])]
    (pre,) = steps_running(job, ".venv/bin/python -m oke_rdma.preflight")
    assert "--auth env" in pre["run"] and "${{ matrix.stack }}" in pre["run"]
    action = next(s for s in job["steps"] if str(s.get("uses", "")).startswith("pulumi/actions@"))
    assert job["steps"].index(pre) < job["steps"].index(action)
    assert {"OCI_CLI_USER", "OCI_CLI_TENANCY", "OCI_CLI_FINGERPRINT", "OCI_CLI_KEY_CONTENT"} <= set(job["env"])


def test_preview_job_uses_the_official_action_with_the_policy_pack():
    jobs = load(PREVIEW)["jobs"]
    (job,) = [j for j in jobs.values() if any(str(s.get("uses", "")).startswith("pulumi/actions@")
                                            for s in j["steps"])]
    (step,) = [s for s in job["steps"] if str(s.get("uses", "")).startswith("pulumi/actions@")]
    args = step["with"]
    assert args["command"] == "preview"
    assert args["policyPacks"].split() == ["policies/security", "policies/placement"]
    # each pack gets the config its stack config implies (brought Vault keys, allowed pools), written by a step first
    assert args["policyPackConfigs"].split() == ["security-config.json", "placement-config.json"]
    writes = " ".join(str(s.get("run", "")) for s in job["steps"][:job["steps"].index(step)])
    assert "offline.security_config" in writes and "offline.placement_config" in writes
    assert args["comment-on-pr"] is True
    assert args["stack-name"] and "matrix.stack" in args["stack-name"]
    assert set(job["strategy"]["matrix"]["stack"]) == committed_stacks()
    assert "github.event.pull_request.head.repo.full_name == github.repository" in job["if"]  # forks: no secrets
    assert job["env"]["PULUMI_ACCESS_TOKEN"] == "${{ secrets.PULUMI_ACCESS_TOKEN }}"
    assert {"OCI_TENANCY_OCID", "OCI_USER_OCID", "OCI_FINGERPRINT", "OCI_PRIVATE_KEY"} <= set(job["env"])
    # each pack's virtualenv (its PulumiPolicy.yaml: venv) is built before the action runs
    before = "".join(s.get("run", "") for s in job["steps"][:job["steps"].index(step)])
    for pack_dir in ("policies/security", "policies/placement"):
        pack = yaml.safe_load((ROOT / pack_dir / "PulumiPolicy.yaml").read_text())
        assert pack["runtime"]["options"]["virtualenv"] == "venv" and pack_dir in before
    assert '"$pack/venv"' in before and '-r "$pack/requirements.txt"' in before


@pytest.mark.parametrize("path", [
    ROOT / "Pulumi.prod.yaml", ROOT / "examples" / "training-job" / "Pulumi.yaml",
    ROOT / "examples" / "training-job" / "Pulumi.dev.yaml"], ids=lambda p: str(p.relative_to(ROOT)))
def test_previewed_stack_and_project_files_parse(path):
    assert isinstance(load(path), dict)


def test_consumer_project_declares_its_config_and_pins_its_sdks():
    project = load(ROOT / "examples" / "training-job" / "Pulumi.yaml")
    assert project["name"] == "training-job" and project["runtime"]["name"] == "python"
    stack = load(ROOT / "examples" / "training-job" / "Pulumi.dev.yaml")["config"]
    assert stack["training-job:platformStack"] == "organization/oke-rdma/dev" and stack["training-job:tenant"]
    assert {k.split(":", 1)[1] for k in stack} <= set(project["config"])
    source = (ROOT / "examples" / "training-job" / "__main__.py").read_text()
    used = set(re.findall(r'config\.(?:get|require)(?:_int|_bool)?\("([A-Za-z]+)"\)', source))
    assert used == set(project["config"])  # every key the program reads is declared, and nothing else
    ours = dict(line.split("==") for line in (ROOT / "requirements.txt").read_text().splitlines()
                if "==" in line and not line.startswith("#"))
    for line in (ROOT / "examples" / "training-job" / "requirements.txt").read_text().splitlines():
        if "==" in line:
            name, version = line.split("==")
            assert ours[name] == version, name  # the same SDK versions as oke-rdma
    assert json.loads((ROOT / "examples" / "training-job" / "policy-config.json").read_text())


def test_offline_job_previews_each_stack_against_the_base_branch_plan_and_gates_destruction():
    offline = load(PREVIEW)["jobs"]["offline-preview"]
    steps = offline["steps"]
    names = [s.get("name", s.get("uses")) for s in steps]
    base = next(s for s in steps if s.get("with", {}).get("path") == "base")
    assert base["uses"].startswith("actions/checkout@") and base["with"]["ref"] == \
        "${{ github.event.pull_request.base.sha }}"
    assert names.index("test") < steps.index(base)  # the tests never collect the base checkout
    plans = next(s for s in steps if "plan-base-" in s.get("run", "") and "cd base" in s["run"])
    preview = next(s for s in steps if "--previous" in s.get("run", ""))
    assert steps.index(base) < steps.index(plans) < steps.index(preview)
    assert '--previous "plan-base-${stack}.json"' in preview["run"] and "${FAIL_ON_REPLACE}" in preview["run"]
    assert "--fail-on-replace" in offline["env"]["FAIL_ON_REPLACE"] and "allow-destroy" in offline["env"][
        "FAIL_ON_REPLACE"]
    assert "GITHUB_STEP_SUMMARY" in preview["run"] and "^Replacements (" in preview["run"]
    assert "pipefail" in preview["run"] and "status=1" in preview["run"]


def test_offline_job_previews_the_fleet_against_the_base_and_writes_the_table_to_the_summary():
    """The fleet step: base plans from the base checkout (its own code), the rendered files checked fresh, then the
    fleet preview against them, gated like the stacks, its table appended to the job summary."""
    steps = load(PREVIEW)["jobs"]["offline-preview"]["steps"]
    (fleet,) = [s for s in steps if "--fleet fleet/fleet.yaml" in s.get("run", "")]
    run = fleet["run"]
    assert "cd base" in run and "--json-dir ../fleet-base" in run and "--previous-dir fleet-base" in run
    assert "python -m oke_rdma.fleet render --check" in run
    assert '--summary "$GITHUB_STEP_SUMMARY"' in run and "${FAIL_ON_REPLACE}" in run
    base = next(s for s in steps if s.get("with", {}).get("path") == "base")
    assert steps.index(base) < steps.index(fleet)
