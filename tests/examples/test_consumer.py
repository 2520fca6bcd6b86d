"""A consumer project end to end: the dev stack's offline plan answers the training-job example's StackReference, and the example's
preview passes the policy pack; the example refuses tenants and outputs it cannot use."""

import copy
import importlib.util
import json
import subprocess
from pathlib import Path

import pulumi
import pytest

from offline.engine import STACK_REFERENCE, run_program, stack_reference_state
from offline.preview import program_project, read_stack_outputs
from offline.stackfile import read_stack_file
from tests.componenttest import of_type
from tests import inprocess

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "training-job"
PLATFORM = "organization/oke-rdma/dev"
SECRET = ("4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270")


def preview(*args: str) -> subprocess.CompletedProcess:
    return inprocess.preview(*args)


def consumer_args(plan: Path, *extra: str) -> list[str]:
    return ["--program", str(EXAMPLE / "__main__.py"), "--config-file", str(EXAMPLE / "Pulumi.dev.yaml"),
            "--stack-outputs", f"{PLATFORM}={plan}", *extra]


@pytest.fixture(scope="module")
def plan(dev_plan_file) -> Path:
    return dev_plan_file[0]


def test_consumer_previews_against_the_dev_plan_and_passes_the_policy_pack(plan, tmp_path):
    out = preview(*consumer_args(plan, "--policy-pack", "policies/security", "--policy-config",
                                 str(EXAMPLE / "policy-config.json"),
                                 "--json", str(tmp_path / "consumer.json")))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "training-job-dev" in out.stdout and "no violations" in out.stdout
    doc = json.loads((tmp_path / "consumer.json").read_text())
    assert doc["policyViolations"] == []
    assert doc["outputs"] == {"namespace": "research", "job": "train", "localQueue": "research", "gpus": 16,
                              "checkpoints": "fss-shared:/shared/checkpoints/train"}
    job = next(r for r in doc["resources"] if r["type"] == "kubernetes:batch/v1:Job")
    meta, spec = job["inputs"]["metadata"], job["inputs"]["spec"]
    assert meta["namespace"] == "research" and meta["labels"]["kueue.x-k8s.io/queue-name"] == "research"
    assert meta["annotations"]["pulumi.com/skipAwait"] == "true"
    assert (spec["completionMode"], spec["completions"], spec["parallelism"], spec["suspend"]) == ("Indexed", 2, 2, True)
    template = spec["template"]
    assert template["metadata"]["annotations"] == {
        "kueue.x-k8s.io/podset-required-topology": "oci.oraclecloud.com/rdma.network_block_id"}
    pod = template["spec"]
    assert pod["hostNetwork"] is True and pod["serviceAccountName"] == "trainer" and pod["subdomain"] == "train"
    # checkpoints are written as research's storage IDs: root would be squashed to 65534 on the export
    assert pod["securityContext"] == {"runAsUser": 20001, "runAsGroup": 20001, "runAsNonRoot": True}
    (container,) = pod["containers"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "8"
    assert container["securityContext"]["capabilities"]["add"] == ["IPC_LOCK"]
    assert {m["mountPath"] for m in container["volumeMounts"]} >= {"/dev/infiniband", "/dev/shm", "/shared"}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes["infiniband"]["hostPath"]["path"] == "/dev/infiniband"
    assert volumes["shm"]["emptyDir"]["medium"] == "Memory"
    assert volumes["shared"]["persistentVolumeClaim"]["claimName"] == "fss-shared"
    provider = next(r for r in doc["resources"] if r["type"] == "pulumi:providers:kubernetes")
    assert provider["inputs"]["kubeconfig"] == "[secret]"
    assert all(r["provider"].startswith(provider["urn"] + "::") for r in doc["resources"]
               if r["type"].startswith("kubernetes:") and r["type"] != "pulumi:providers:kubernetes")


def test_without_the_privileged_namespace_config_the_pack_refuses_the_rdma_job(plan):
    out = preview(*consumer_args(plan))
    assert out.returncode == 1
    assert "rdma-pods-in-privileged-namespaces" in out.stdout and "'research'" in out.stdout


def test_a_missing_platform_stack_is_a_clear_error(plan):
    out = preview("--program", str(EXAMPLE / "__main__.py"), "--config-file", str(EXAMPLE / "Pulumi.dev.yaml"))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"pass --stack-outputs {PLATFORM}=PATH" in out.stderr
    bad = preview(*consumer_args(plan)[:-2], "--stack-outputs", "no-equals-sign")
    assert bad.returncode == 2 and "expected NAME=PATH" in bad.stderr


# --- in process: the StackReference answers and the example's refusals ---------------------------------------------
def _config(**overrides: str) -> dict[str, str]:
    config, _ = read_stack_file(EXAMPLE / "Pulumi.dev.yaml", "training-job")
    return config | {f"training-job:{k}": v for k, v in overrides.items()}


def run_consumer(outputs: dict, **overrides: str):
    return run_program(_config(**overrides), [], "dev", program=EXAMPLE / "__main__.py", project="training-job",
                       stack_outputs={PLATFORM: outputs})


@pytest.fixture(scope="module")
def platform_outputs(plan) -> dict:
    return read_stack_outputs([f"{PLATFORM}={plan}"])[PLATFORM]


def test_masked_secrets_come_back_as_secret_outputs(platform_outputs):
    assert program_project(EXAMPLE / "__main__.py") == "training-job"
    assert platform_outputs["kubeconfig"] == {SECRET[0]: SECRET[1], "value": "[secret]"}
    state = stack_reference_state(PLATFORM, platform_outputs)
    assert state["secretOutputNames"] == ["kubeconfig"] and state["name"] == PLATFORM
    run = run_consumer(platform_outputs)
    (provider,) = of_type(run, "pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"][SECRET[0]] == SECRET[1]  # a secret in the consumer too
    assert STACK_REFERENCE not in {r.type for r in run.resources}  # a read, not a registration
    assert run.stack_urn.endswith("::training-job::pulumi:pulumi:Stack::training-job-dev")


def test_a_plain_json_object_of_outputs_works_too(platform_outputs, tmp_path):
    plain = {k: v for k, v in platform_outputs.items() if k != "kubeconfig"} | {"kubeconfig": "apiVersion: v1"}
    path = tmp_path / "outputs.json"
    path.write_text(json.dumps(plain))
    outputs = read_stack_outputs([f"{PLATFORM}={path}"])[PLATFORM]
    assert stack_reference_state(PLATFORM, outputs)["secretOutputNames"] == []
    assert run_consumer(outputs).outputs["gpus"] == 16


def _edit(outputs: dict, edit) -> dict:
    out = copy.deepcopy(outputs)
    edit(out)
    return out


@pytest.mark.parametrize("edit, overrides, message", [
    (lambda o: o.__setitem__("outputsVersion", 6), {}, "outputsVersion: the outputs of organization/oke-rdma/dev "
                                                       "have output contract version 6, this program reads versions 1, "
                                                       "2, 3, 4, 5"),
    (lambda o: o.pop("outputsVersion"), {}, "have output contract version None"),
    (lambda o: None, {"tenant": "nobody"}, "training-job:tenant: the outputs of organization/oke-rdma/dev have no "
                                            "tenant 'nobody' (tenants: analytics, research); pick one of them"),
    (lambda o: None, {"tenant": "analytics"}, "training-job:tenant: tenant 'analytics' is not RDMA-enabled (rdma: "
                                               "false, Pod Security restricted)"),
    (lambda o: o["tenants"]["research"].__setitem__("sharedStorageClaim", None), {},
     "training-job:tenant: tenant 'research' has no shared FSS claim for checkpoints; ask the platform team to give "
     "it sharedStorage"),
    (lambda o: o["tenants"]["research"].__setitem__("serviceAccounts", []), {},
     "training-job:tenant: tenant 'research' has no Workload Identity ServiceAccount"),
    (lambda o: None, {"serviceAccount": "other"}, "training-job:serviceAccount: other; tenant 'research' has "
                                                   "ServiceAccounts trainer; set it to one of them"),
    (lambda o: o["tenants"]["research"].__setitem__("localQueue", None), {}, "has no Kueue LocalQueue"),
    (lambda o: None, {"nodes": "3"}, "training-job:nodes: 3 nodes asked, pool 'gpu' has 2 nodes with 8 GPUs each"),
    (lambda o: None, {"nodePool": "system"}, "training-job:nodePool: system; the RDMA pools of "
                                              "organization/oke-rdma/dev are gpu"),
    (lambda o: o.pop("topology"), {}, "training-job:topologyLevel: 'oci.oraclecloud.com/rdma.network_block_id' is "
                                      "not a level of the stack's Kueue topology (none: no RDMA topology)"),
    (lambda o: None, {"topologyMode": "strict"}, "training-job:topologyMode: must be required or preferred"),
])
def test_the_example_refuses_what_it_cannot_run(platform_outputs, edit, overrides, message):
    with pytest.raises(pulumi.RunError) as err:
        run_consumer(_edit(platform_outputs, edit), **overrides)
    assert message in str(err.value), str(err.value)


def test_a_refusal_exits_2_without_a_traceback(plan, tmp_path):
    stack = tmp_path / "Pulumi.dev.yaml"
    stack.write_text((EXAMPLE / "Pulumi.dev.yaml").read_text().replace("tenant: research", "tenant: analytics"))
    out = preview("--program", str(EXAMPLE / "__main__.py"), "--config-file", str(stack),
                  "--stack-outputs", f"{PLATFORM}={plan}")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith("error: training-job:tenant: tenant 'analytics' is not RDMA-enabled")


# --- incomplete or malformed platform outputs: one line naming the output, exit 2, never a traceback (exit 3) --------
def _drop(*path):
    def edit(o):
        *parents, last = path
        for p in parents:
            o = o[p]
        o.pop(last)
    return edit


def _set(value, *path):
    def edit(o):
        *parents, last = path
        for p in parents:
            o = o[p]
        o[last] = value
    return edit


BROKEN_OUTPUTS = {
    "no_pool_size": (_drop("nodePools", "gpu", "size"), "error: nodePools.gpu.size: missing"),
    "no_pool_shape": (_drop("nodePools", "gpu", "shape"), "error: nodePools.gpu.shape: missing"),
    "no_namespace": (_drop("tenants", "research", "namespace"), "error: tenants.research.namespace: missing"),
    "no_kubeconfig": (_drop("kubeconfig"), "error: kubeconfig: missing"),
    "tenants_list": (lambda o: o.__setitem__("tenants", list(o["tenants"].values())),
                     "error: tenants: must be an object, got a list"),
    "size_two": (_set("two", "nodePools", "gpu", "size"),
                 "error: nodePools.gpu.size: must be a whole number, got a string 'two'"),
    "no_region": (_drop("region"), "error: region: missing"),
    "version_string": (_set("2", "outputsVersion"), "error: outputsVersion: the outputs of organization/oke-rdma/dev "
                                                    "have an outputsVersion that is a string '2', not a number"),
    "rdma_string": (_set("true", "nodePools", "gpu", "rdma"),
                    "error: nodePools.gpu.rdma: must be true or false, got a string 'true'"),
}


@pytest.mark.parametrize("name", sorted(BROKEN_OUTPUTS))
def test_incomplete_or_malformed_outputs_are_refused_naming_the_output(plan, tmp_path, capsys, name):
    from offline import preview as preview_module
    edit, first = BROKEN_OUTPUTS[name]
    doc = json.loads(plan.read_text())
    edit(doc["outputs"])
    broken = tmp_path / f"{name}.json"
    broken.write_text(json.dumps(doc))
    code = preview_module.main(consumer_args(broken))
    out = capsys.readouterr()
    assert code == 2, out.err
    assert out.err.startswith(first) and len(out.err.splitlines()) == 1, out.err
    assert "Traceback" not in out.err and out.out == ""
    if name not in ("version_string",):
        from oke_rdma.outputs import OUTPUTS_VERSION
        assert f"do not honour the oke-rdma output contract version {OUTPUTS_VERSION}" in out.err


_spec = importlib.util.spec_from_file_location("training_job_platform_outputs", EXAMPLE / "platform_outputs.py")
outputs_model = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(outputs_model)

#: Where each model of the example's outputs subset sits in outputs.contract.json ("*": any key of a map).
MODEL_PATHS = {"PlatformOutputs": (), "NodePoolOutput": ("nodePools", "*"),
               "LocalNvmeOutput": ("nodePools", "*", "localNvme"), "TenantOutput": ("tenants", "*"),
               "WeightsGrantOutput": ("tenants", "*", "weights"), "TopologyOutput": ("topology",),
               "WeightsBucketOutput": ("weightsBucket",)}
#: Outputs the example reads before the platform exports them ("<Model>.<field>" or "<Model>.*"; none today). Each
#: is a strict xfail: once the contract defines it the test passes unexpectedly and fails, so the entry must go.
PENDING: set[str] = set()


def _object_schema(contract: dict, node: dict) -> dict:
    """The object schema of ``node``, through ``$ref`` and the object branch of ``anyOf``/``oneOf`` (nullable)."""
    if "$ref" in node:
        node = contract["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    for option in node.get("anyOf", []) + node.get("oneOf", []):
        if "properties" in _object_schema(contract, option):
            return _object_schema(contract, option)
    return node


def _model_fields():
    for model, path in MODEL_PATHS.items():
        for field, info in getattr(outputs_model, model).model_fields.items():
            pending = {f"{model}.{field}", f"{model}.*"} & PENDING
            yield pytest.param(path, field, info.is_required(), id=f"{model}.{field}", marks=[pytest.mark.xfail(
                strict=True, reason="not in the platform's output contract yet")] if pending else [])


@pytest.mark.parametrize("path, field, required", list(_model_fields()))
def test_the_outputs_model_reads_only_what_the_contract_defines(path, field, required):
    """The example's subset of the contract agrees with outputs.contract.json: every field it reads is defined there,
    and every field it requires is required there (a consumer must not demand what the platform never promised)."""
    contract = json.loads((ROOT / "outputs.contract.json").read_text())
    node = contract
    for part in path:
        node = _object_schema(contract, node)
        node = node["additionalProperties"] if part == "*" else node["properties"][part]
    node = _object_schema(contract, node)
    assert field in node["properties"]
    assert not required or field in node.get("required", [])


def test_every_model_of_the_outputs_subset_is_checked_against_the_contract():
    models = {name for name, value in vars(outputs_model).items()
              if isinstance(value, type) and issubclass(value, outputs_model._Output) and value is not
              outputs_model._Output}
    assert models == set(MODEL_PATHS)


def test_a_platform_stack_in_a_region_with_several_words_is_read(plan, tmp_path, capsys):
    """Contract version 2 accepts region identifiers like us-gov-ashburn-1 (version 1's pattern refused them)."""
    from offline import preview as preview_module
    doc = json.loads(plan.read_text())
    doc["outputs"]["region"] = "us-gov-ashburn-1"
    moved = tmp_path / "gov.json"
    moved.write_text(json.dumps(doc))
    code = preview_module.main(consumer_args(moved, "--policy-pack", "policies/security", "--policy-config",
                                             str(EXAMPLE / "policy-config.json")))
    out = capsys.readouterr()
    assert code == 0, (out.err, out.out[-2000:])
    assert "no violations" in out.out


@pytest.mark.parametrize("edit, key", [
    ({"training-job:runAsUser": 0}, "training-job:runAsUser"),
    ({"training-job:runAsGroup": 65534}, "training-job:runAsGroup"),
    ({"training-job:subPath": "../other"}, "training-job:subPath"),
    ({"training-job:runAsUser": 20002}, "training-job:runAsUser"),  # not the platform's: another tenant's owner
    ({"training-job:subPath": "research"}, "training-job:subPath"),  # research shares the export's top directory
])
def test_consumer_refuses_a_writer_the_squashed_export_would_reject(plan, tmp_path, edit, key):
    import yaml
    doc = yaml.safe_load((EXAMPLE / "Pulumi.dev.yaml").read_text())
    for k, v in edit.items():
        doc["config"][k] = v
    cfg = tmp_path / "Pulumi.dev.yaml"
    cfg.write_text(yaml.safe_dump(doc))
    out = preview("--program", str(EXAMPLE / "__main__.py"), "--config-file", str(cfg),
                  "--stack-outputs", f"{PLATFORM}={plan}")
    assert out.returncode != 0 and key in out.stdout + out.stderr and "Traceback" not in out.stdout + out.stderr


def _before_v5(outputs: dict) -> dict:
    """The outputs as a stack of contract version 4 exported them: no runAsUser/runAsGroup, no sub-paths."""
    out = copy.deepcopy(outputs)
    out["outputsVersion"] = 4
    for tenant in out["tenants"].values():
        for key in ("runAsUser", "runAsGroup", "sharedStorageSubPath", "lustreSubPath"):
            tenant.pop(key, None)
    return out


def test_the_pods_run_as_the_ids_and_directory_the_platform_publishes(platform_outputs):
    """Contract version 5: ``tenants.<t>.runAsUser``/``runAsGroup`` become the pod's securityContext and the
    claim's sub-path its mount, with no training-job config."""
    outputs = _edit(platform_outputs, lambda o: o["tenants"]["research"].update(
        runAsUser=30001, runAsGroup=30002, sharedStorageSubPath="teams/research"))
    config = {k: v for k, v in _config().items() if not k.endswith((":runAsUser", ":runAsGroup", ":subPath"))}
    run = run_program(config, [], "dev", program=EXAMPLE / "__main__.py", project="training-job",
                      stack_outputs={PLATFORM: outputs})
    (job,) = of_type(run, "kubernetes:batch/v1:Job")
    pod = job.inputs["spec"]["template"]["spec"]
    assert pod["securityContext"] == {"runAsUser": 30001, "runAsGroup": 30002, "runAsNonRoot": True}
    (container,) = pod["containers"]
    shared = next(m for m in container["volumeMounts"] if m["name"] == "shared")
    assert shared == {"name": "shared", "mountPath": "/shared", "subPath": "teams/research"}


def test_a_platform_before_v5_needs_the_ids_in_config(platform_outputs):
    """A stack of contract version 4 publishes no IDs: without training-job:runAsUser the Job is refused, naming the
    key and where to read it; with it (and subPath) the Job runs as configured."""
    config = {k: v for k, v in _config().items() if not k.endswith((":runAsUser", ":runAsGroup"))}
    with pytest.raises(pulumi.RunError) as err:
        run_program(config, [], "dev", program=EXAMPLE / "__main__.py", project="training-job",
                    stack_outputs={PLATFORM: _before_v5(platform_outputs)})
    assert str(err.value).startswith("training-job:runAsUser: not set") and "okerdma.io/uid" in str(err.value)
    run = run_consumer(_before_v5(platform_outputs), runAsUser="20001", runAsGroup="20001", subPath="research")
    (job,) = of_type(run, "kubernetes:batch/v1:Job")
    pod = job.inputs["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsUser"] == 20001
    shared = next(m for m in pod["containers"][0]["volumeMounts"] if m["name"] == "shared")
    assert shared["subPath"] == "research"


def test_a_v5_platform_without_the_ids_is_refused(platform_outputs):
    """Version 5 promises runAsUser: its absence is a broken platform, named as the output at fault."""
    outputs = _edit(platform_outputs, lambda o: o["tenants"]["research"].pop("runAsUser"))
    with pytest.raises(pulumi.RunError) as err:
        run_consumer(outputs)
    assert "tenants.research.runAsUser: missing" in str(err.value)


def test_consumer_mounts_the_tenant_directory_with_sub_path(plan, tmp_path):
    """The published sub-path, through the offline preview under the pack."""
    doc = json.loads(plan.read_text())
    doc["outputs"]["tenants"]["research"]["sharedStorageSubPath"] = "research"
    moved = tmp_path / "plan.json"
    moved.write_text(json.dumps(doc))
    out = preview("--program", str(EXAMPLE / "__main__.py"), "--config-file", str(EXAMPLE / "Pulumi.dev.yaml"),
                  "--stack-outputs", f"{PLATFORM}={moved}", "--policy-pack", "policies/security",
                  "--policy-config", str(EXAMPLE / "policy-config.json"), "--json", str(tmp_path / "c.json"))
    assert out.returncode == 0, out.stdout + out.stderr
    job = next(r for r in json.loads((tmp_path / "c.json").read_text())["resources"]
               if r["type"] == "kubernetes:batch/v1:Job")
    (container,) = job["inputs"]["spec"]["template"]["spec"]["containers"]
    shared = next(m for m in container["volumeMounts"] if m["name"] == "shared")
    assert shared == {"name": "shared", "mountPath": "/shared", "subPath": "research"}


# --- NCCL settings per shape ------------------------------------------------------------------------------------------
def _job_env(run) -> dict:
    (job,) = of_type(run, "kubernetes:batch/v1:Job")
    (container,) = job.inputs["spec"]["template"]["spec"]["containers"]
    return {e["name"]: e.get("value") for e in container["env"]}


def _warnings(run) -> list:
    return [m for severity, m in run.diagnostics if severity == "warning"]


@pytest.mark.parametrize("shape", ["BM.GPU.A100-v2.8", "BM.GPU4.8", "BM.GPU.H200.8", "BM.GPU.H100.8"])
def test_an_rdma_pool_of_a_shape_the_facts_know_gets_its_nccl_settings_and_no_warning(platform_outputs, shape):
    from oke_rdma.facts.nccl import NCCL_ENV

    run = run_consumer(_edit(platform_outputs, lambda o: o["nodePools"]["gpu"].update(shape=shape)))
    env = _job_env(run)
    for key, value in NCCL_ENV[shape].items():
        if key != "GPUS":
            assert env[key] == value, (shape, key)
    assert not [w for w in _warnings(run) if "NCCL" in w]


@pytest.mark.parametrize("shape", ["BM.GPU.MI300X.8", "BM.GPU.B300.8"])
def test_an_rdma_pool_of_a_shape_without_nccl_values_warns_in_one_line(platform_outputs, shape):
    run = run_consumer(_edit(platform_outputs, lambda o: o["nodePools"]["gpu"].update(shape=shape)))
    assert not [k for k in _job_env(run) if k.startswith("NCCL_IB_")]
    (warning,) = [w for w in _warnings(run) if "NCCL" in w]
    assert warning.startswith("training-job:nodePool: pool 'gpu': RDMA pool shape " + shape) and "\n" not in warning
