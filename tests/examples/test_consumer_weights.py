"""The training-job example with model weights and a choice of checkpoint volume: against a platform whose outputs
have a weights bucket, the tenant's grant and a pool with local NVMe (output contract version 3), it previews clean
under the policy pack with two init containers that copy the weights into the node's NVMe as the tenant with Workload
Identity and no credentials, Kubernetes objects valid for the API server; it checkpoints to the FSS or the Lustre
claim; and it refuses, in one line naming the output or key, every platform or config it cannot use."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import kubernetes_validate
import pulumi
import pytest
import yaml

from offline.preview import read_stack_outputs
from tests.componenttest import of_type
from tests.examples.test_consumer import EXAMPLE, PLATFORM, _config, plan, preview  # noqa: F401 (plan: a fixture)
from offline.engine import run_program

PREFIX = "models/llama-3-70b/"
BUCKET = {"namespace": "axaxnpcrorw5", "name": "okerdma-dev-weights", "region": "sa-saopaulo-1"}
#: The API server version the objects are checked against (kubernetes-validate's schemas, as the guard's tests do).
K8S = "1.34.0"


def with_weights(outputs: dict) -> dict:
    """The dev stack's outputs (the current contract version) with a weights bucket, research's read grant for its
    ServiceAccount trainer, the GPU pool's NVMe at /mnt/nvme, and a Lustre claim for research (its directory
    ``research``)."""
    out = copy.deepcopy(outputs)
    out["weightsBucket"] = dict(BUCKET)
    for name, tenant in out["tenants"].items():
        tenant["weights"] = {"serviceAccount": "trainer", "access": "read"} if name == "research" else None
        tenant["lustreClaim"] = "lustre-shared" if name == "research" else None
        tenant["lustreSubPath"] = "research" if name == "research" else None
    for pool in out["nodePools"].values():
        pool["localNvme"] = {"mountPath": "/mnt/nvme"} if pool["rdma"] else None
    return out


@pytest.fixture(scope="module")
def platform_v3(plan) -> dict:  # noqa: F811 (plan is the imported fixture)
    return with_weights(read_stack_outputs([f"{PLATFORM}={plan}"])[PLATFORM])


def write_outputs(plan_path: Path, outputs: dict, path: Path) -> Path:
    doc = json.loads(plan_path.read_text())
    doc["outputs"] = {k: v for k, v in outputs.items() if k != "kubeconfig"} | {"kubeconfig": doc["outputs"]["kubeconfig"]}
    path.write_text(json.dumps(doc))
    return path


def write_config(tmp_path: Path, **settings) -> Path:
    doc = yaml.safe_load((EXAMPLE / "Pulumi.dev.yaml").read_text())
    doc["config"].update({f"training-job:{k}": v for k, v in settings.items()})
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def preview_example(plan_path, outputs, tmp_path, **settings):
    """The example's offline preview under the security pack; returns (process, plan document or None)."""
    platform = write_outputs(plan_path, outputs, tmp_path / "platform.json")
    out = preview("--program", str(EXAMPLE / "__main__.py"), "--config-file", str(write_config(tmp_path, **settings)),
                  "--stack-outputs", f"{PLATFORM}={platform}", "--policy-pack", "policies/security",
                  "--policy-config", str(EXAMPLE / "policy-config.json"), "--json", str(tmp_path / "consumer.json"))
    doc = json.loads((tmp_path / "consumer.json").read_text()) if out.returncode == 0 else None
    return out, doc


def k8s_object(resource: dict, api_version: str, kind: str) -> dict:
    inputs = {k: v for k, v in resource["inputs"].items() if k not in ("apiVersion", "kind")}
    return {"apiVersion": api_version, "kind": kind, **inputs}


@pytest.fixture(scope="module")
def weights_preview(plan, platform_v3, tmp_path_factory):  # noqa: F811
    out, doc = preview_example(plan, platform_v3, tmp_path_factory.mktemp("weights"), weightsPrefix=PREFIX)
    assert out.returncode == 0, out.stdout + out.stderr
    return out, doc


def _job(doc: dict) -> dict:
    return next(r for r in doc["resources"] if r["type"] == "kubernetes:batch/v1:Job")


def test_the_weights_job_previews_clean_under_the_policy_pack(weights_preview):
    out, doc = weights_preview
    assert "no violations" in out.stdout and doc["policyViolations"] == []
    assert doc["outputs"]["weights"] == {
        "source": f"oci://{BUCKET['name']}@{BUCKET['namespace']}/{PREFIX}",
        "nodePath": f"/mnt/nvme/research/weights/{PREFIX}", "podPath": f"/local/weights/{PREFIX}"}


def test_init_containers_copy_the_bucket_prefix_into_the_tenants_nvme_directory(weights_preview):
    pod = _job(weights_preview[1])["inputs"]["spec"]["template"]["spec"]
    prepare, weights = pod["initContainers"]
    assert prepare["name"] == "nvme-prepare" and weights["name"] == "weights"
    assert prepare["args"] == ["prepare", "--mount", "/nvme", "--directory", "research", "--owner", "20001:20001"]
    assert prepare["securityContext"]["runAsUser"] == 0
    assert prepare["securityContext"]["capabilities"] == {"drop": ["ALL"], "add": ["CHOWN", "FOWNER"]}
    assert prepare["command"] == weights["command"] == ["python3", "/opt/train/stage_weights.py"]
    assert weights["args"] == ["copy", "--namespace", BUCKET["namespace"], "--bucket", BUCKET["name"], "--region",
                               BUCKET["region"], "--prefix", PREFIX, "--dest", f"/nvme/research/weights/{PREFIX}"]
    # the copy runs as the tenant (the pod's runAsUser), with nothing added
    assert "runAsUser" not in weights["securityContext"] and weights["securityContext"]["capabilities"] == {
        "drop": ["ALL"]}
    for c in (prepare, weights):
        assert c["image"] == "ghcr.io/oracle/oci-cli:20260930"
        assert c["securityContext"]["allowPrivilegeEscalation"] is False
        assert c["securityContext"]["readOnlyRootFilesystem"] is True
        assert {"name": "nvme", "mountPath": "/nvme"} in c["volumeMounts"]


def test_the_nvme_is_a_host_directory_on_nvme_nodes_only(weights_preview):
    pod = _job(weights_preview[1])["inputs"]["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes["nvme"] == {"name": "nvme", "hostPath": {"path": "/mnt/nvme", "type": "Directory"}}
    assert pod["nodeSelector"] == {"okerdma.io/local-nvme": "true"}
    (train,) = pod["containers"]
    assert {"name": "nvme", "mountPath": "/local", "subPath": "research"} in train["volumeMounts"]
    env = {e["name"]: e["value"] for e in train["env"]}
    assert env["WEIGHTS_DIR"] == f"/local/weights/{PREFIX}"


def test_the_pods_carry_no_credentials_only_the_workload_identity(weights_preview):
    """The ServiceAccount granted the bucket, the resource principal version and region; no secret, no key, no
    credential variable in any container."""
    doc = weights_preview[1]
    pod = _job(doc)["inputs"]["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "trainer"
    for c in pod["initContainers"] + pod["containers"]:
        assert "envFrom" not in c
        env = c.get("env", [])
        assert all(set(e) == {"name", "value"} for e in env), env  # no secretKeyRef / valueFrom
        names = {e["name"] for e in env}
        assert not {n for n in names if any(w in n for w in ("KEY", "SECRET", "PASSWORD", "FINGERPRINT", "OCI_CLI"))}
    weights = pod["initContainers"][1]
    assert {e["name"]: e["value"] for e in weights["env"]} == {"OCI_RESOURCE_PRINCIPAL_VERSION": "2.2",
                                                               "OCI_RESOURCE_PRINCIPAL_REGION": "sa-saopaulo-1"}
    assert not any(v.get("secret") for v in pod["volumes"])
    assert not of_type_in_doc(doc, "kubernetes:core/v1:Secret")


def of_type_in_doc(doc: dict, type_: str) -> list:
    return [r for r in doc["resources"] if r["type"] == type_]


def test_the_copy_script_ships_in_the_configmap(weights_preview):
    (cm,) = of_type_in_doc(weights_preview[1], "kubernetes:core/v1:ConfigMap")
    assert cm["inputs"]["data"]["stage_weights.py"] == (EXAMPLE / "stage_weights.py").read_text()
    assert cm["inputs"]["data"]["train.py"] == (EXAMPLE / "train.py").read_text()


def test_the_generated_objects_are_valid_kubernetes_objects(weights_preview):
    """Job, ConfigMap and Service, as the engine sends them, pass the API server's OpenAPI schemas (strict: no
    unknown fields)."""
    doc = weights_preview[1]
    kinds = {"kubernetes:batch/v1:Job": ("batch/v1", "Job"), "kubernetes:core/v1:ConfigMap": ("v1", "ConfigMap"),
             "kubernetes:core/v1:Service": ("v1", "Service")}
    checked = 0
    for r in doc["resources"]:
        if r["type"] in kinds:
            kubernetes_validate.validate(k8s_object(r, *kinds[r["type"]]), K8S, strict=True)
            checked += 1
    assert checked == 3


def test_schema_validation_catches_a_malformed_hostpath(weights_preview):
    job = k8s_object(_job(weights_preview[1]), "batch/v1", "Job")
    volumes = job["spec"]["template"]["spec"]["volumes"]
    next(v for v in volumes if v["name"] == "nvme")["hostPath"]["type"] = ["Directory"]
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(job, K8S, strict=True)


def test_without_weights_there_is_no_copy_and_no_nvme(plan, platform_v3, tmp_path):  # noqa: F811
    out, doc = preview_example(plan, platform_v3, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    pod = _job(doc)["inputs"]["spec"]["template"]["spec"]
    assert "initContainers" not in pod and "nodeSelector" not in pod
    assert "nvme" not in {v["name"] for v in pod["volumes"]} and "weights" not in doc["outputs"]
    (cm,) = of_type_in_doc(doc, "kubernetes:core/v1:ConfigMap")
    assert set(cm["inputs"]["data"]) == {"train.py"}


def test_checkpoints_go_to_the_lustre_claim_when_chosen(plan, platform_v3, tmp_path):  # noqa: F811
    out, doc = preview_example(plan, platform_v3, tmp_path, checkpointVolume="lustre", weightsPrefix=PREFIX)
    assert out.returncode == 0, out.stdout + out.stderr
    pod = _job(doc)["inputs"]["spec"]["template"]["spec"]
    shared = next(v for v in pod["volumes"] if v["name"] == "shared")
    assert shared["persistentVolumeClaim"]["claimName"] == "lustre-shared"
    assert doc["outputs"]["checkpoints"] == "lustre-shared:/shared/checkpoints/train"


def run_consumer(outputs: dict, **overrides: str):
    return run_program(_config(**overrides), [], "dev", program=EXAMPLE / "__main__.py", project="training-job",
                       stack_outputs={PLATFORM: outputs})


def test_in_process_the_job_reads_the_grant_and_the_pool(platform_v3):
    """The same Job in process (preview=False): the weights init container is there, so the checks ran."""
    run = run_consumer(platform_v3, weightsPrefix=PREFIX)
    (job,) = of_type(run, "kubernetes:batch/v1:Job")
    names = [c["name"] for c in job.inputs["spec"]["template"]["spec"]["initContainers"]]
    assert names == ["nvme-prepare", "weights"]


def _edit(outputs: dict, edit) -> dict:
    out = copy.deepcopy(outputs)
    edit(out)
    return out


W = {"weightsPrefix": PREFIX}
UP = {"checkpointUpload": "true"}


@pytest.mark.parametrize("edit, overrides, message", [
    (lambda o: o.__setitem__("outputsVersion", 2), W,
     "outputsVersion: the outputs of organization/oke-rdma/dev have output contract version 2; "
     "training-job:weightsPrefix needs version 3 or later (weightsBucket, tenants.<tenant>.weights)"),
    (lambda o: o.__setitem__("weightsBucket", None), W,
     "weightsBucket: absent or null in the outputs of organization/oke-rdma/dev: the platform stack has no weights "
     "bucket"),
    (lambda o: o.pop("weightsBucket"), W, "weightsBucket: absent or null in the outputs of organization/oke-rdma/dev"),
    # the checkpoint upload needs the same grant, with readWrite access
    (lambda o: None, UP, "tenants.research.weights.access: read (checkpointPrefix None): tenant 'research' may not "
                         "write to the bucket; ask the platform team for readWrite access, or set "
                         "training-job:checkpointUpload: false"),
    (lambda o: o["tenants"]["research"]["weights"].update(access="readWrite", checkpointPrefix=None), UP,
     "tenants.research.weights.access: readWrite (checkpointPrefix None)"),
    (lambda o: o.__setitem__("outputsVersion", 2), UP, "training-job:checkpointUpload needs version 3 or later"),
    (lambda o: o.pop("weightsBucket"), UP, "or set training-job:checkpointUpload: false"),
    (lambda o: o["tenants"]["research"].__setitem__("weights", None), UP, "tenants.research.weights: null"),
    (lambda o: o["tenants"]["research"].__setitem__("weights", None), W,
     "tenants.research.weights: null in the outputs of organization/oke-rdma/dev: tenant 'research' has no grant on "
     "the weights bucket okerdma-dev-weights; ask the platform team to grant it to the ServiceAccount trainer"),
    (lambda o: o["tenants"]["research"]["weights"].__setitem__("serviceAccount", "notebook"), W,
     "tenants.research.weights.serviceAccount: the weights grant is for ServiceAccount 'notebook', the pods run as "
     "'trainer'; set training-job:serviceAccount: notebook"),
    (lambda o: o["nodePools"]["gpu"].__setitem__("localNvme", None), W,
     "nodePools.gpu.localNvme: null or absent in the outputs of organization/oke-rdma/dev: pool 'gpu' has no local "
     "NVMe file system"),
    (lambda o: o["nodePools"]["gpu"].pop("localNvme"), W, "nodePools.gpu.localNvme: null or absent"),
    (lambda o: o["tenants"]["research"].__setitem__("lustreClaim", None), {"checkpointVolume": "lustre"},
     "training-job:checkpointVolume: lustre, but tenant 'research' has no Lustre claim in the outputs of "
     "organization/oke-rdma/dev (tenants.research.lustreClaim is null or absent)"),
    (lambda o: o["tenants"]["research"].__setitem__("sharedStorageClaim", None), {},
     "training-job:tenant: tenant 'research' has no shared FSS claim for checkpoints"),
    # malformed version-3 outputs: one line naming the output, whether or not the Job copies weights
    (lambda o: o["weightsBucket"].pop("region"), W, "weightsBucket.region: missing"),
    (lambda o: o["weightsBucket"].__setitem__("name", 7), {}, "weightsBucket.name: must be a string, got the "
                                                             "number 7"),
    (lambda o: o["tenants"]["research"]["weights"].__setitem__("access", "write"), W,
     "tenants.research.weights.access: input should be 'read' or 'readWrite'"),
    (lambda o: o["nodePools"]["gpu"].__setitem__("localNvme", {"mountPath": "mnt/nvme"}), W,
     "nodePools.gpu.localNvme.mountPath: string should match pattern '^/'"),
    (lambda o: o["tenants"]["research"].__setitem__("lustreClaim", ["lustre-shared"]), {},
     "tenants.research.lustreClaim: must be a string, got a list"),
    # the example's own keys
    (lambda o: None, {"weightsPrefix": "models/llama"}, "training-job:weightsPrefix: must be the weights' folder in "
                                                        "the bucket, relative and ending with '/'"),
    (lambda o: None, {"weightsPrefix": "/models/llama/"}, "training-job:weightsPrefix: must be the weights' folder"),
    (lambda o: None, {"weightsPrefix": "models/../secrets/"}, "training-job:weightsPrefix: must be the weights' "
                                                              "folder"),
    (lambda o: None, {"weightsPrefix": "models//llama/"}, "training-job:weightsPrefix: must be the weights' folder"),
    (lambda o: None, {"checkpointVolume": "s3"}, "training-job:checkpointVolume: must be fss or lustre, got 's3'"),
    (lambda o: None, {"weightsImage": "ghcr.io/oracle/oci-cli:latest", **W},
     "training-job:weightsImage: must be pinned by tag or digest"),
    (lambda o: None, {"weightsImage": "registry.local:5000/oci-cli", **W},
     "training-job:weightsImage: must be pinned by tag or digest"),
])
def test_the_example_refuses_a_platform_or_config_it_cannot_use(platform_v3, edit, overrides, message):
    with pytest.raises(pulumi.RunError) as err:
        run_consumer(_edit(platform_v3, edit), **overrides)
    assert message in str(err.value), str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("image", ["ghcr.io/oracle/oci-cli:20260930", "registry.local:5000/oci-cli:3.95.1",
                                   "ghcr.io/oracle/oci-cli@sha256:" + "a" * 64])
def test_a_pinned_image_is_accepted(platform_v3, image):
    run = run_consumer(platform_v3, weightsPrefix=PREFIX, weightsImage=image)
    (job,) = of_type(run, "kubernetes:batch/v1:Job")
    assert {c["image"] for c in job.inputs["spec"]["template"]["spec"]["initContainers"]} == {image}


def test_a_refusal_is_one_line_on_stderr_with_exit_2(plan, platform_v3, tmp_path):  # noqa: F811
    out, _ = preview_example(plan, _edit(platform_v3, lambda o: o.__setitem__("weightsBucket", None)), tmp_path,
                             weightsPrefix=PREFIX)
    assert out.returncode == 2 and "Traceback" not in out.stdout + out.stderr
    assert out.stderr.startswith("error: weightsBucket: absent or null in the outputs of organization/oke-rdma/dev")
    assert len(out.stderr.strip().splitlines()) == 1


def read_write(outputs: dict) -> dict:
    """research may also create checkpoints under research.checkpoints/ (the platform's readWrite grant)."""
    return _edit(outputs, lambda o: o["tenants"]["research"]["weights"].update(
        access="readWrite", checkpointPrefix="research.checkpoints/"))


def test_the_last_checkpoint_is_uploaded_beside_the_training_with_a_read_write_grant(
        plan, platform_v3, tmp_path):  # noqa: F811
    outputs = read_write(platform_v3)
    outputs["tenants"]["research"]["sharedStorageSubPath"] = "research"  # the mount follows the published directory
    out, doc = preview_example(plan, outputs, tmp_path, checkpointUpload=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no violations" in out.stdout
    assert doc["outputs"]["checkpointUpload"] == (f"oci://{BUCKET['name']}@{BUCKET['namespace']}/"
                                                  "research.checkpoints/train/")
    pod = _job(doc)["inputs"]["spec"]["template"]["spec"]
    train, upload = pod["containers"]
    assert train["args"][0].startswith("trap 'echo $? > /run/okerdma/train-exit' EXIT; torchrun ")
    assert {"name": "signal", "mountPath": "/run/okerdma"} in train["volumeMounts"]
    assert upload["name"] == "checkpoint-upload" and upload["args"] == [
        "upload", "--namespace", BUCKET["namespace"], "--bucket", BUCKET["name"], "--region", BUCKET["region"],
        "--source", "/shared/checkpoints/train", "--object-prefix", "research.checkpoints/train/", "--exit-file",
        "/run/okerdma/train-exit"]
    # the same directory of the checkpoint claim as the training, read-only
    assert {"name": "shared", "mountPath": "/shared", "subPath": "research", "readOnly": True} in upload["volumeMounts"]
    assert {e["name"]: e["value"] for e in upload["env"]} == {"OCI_RESOURCE_PRINCIPAL_VERSION": "2.2",
                                                              "OCI_RESOURCE_PRINCIPAL_REGION": "sa-saopaulo-1"}
    assert upload["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes["signal"]["emptyDir"] == {"medium": "Memory", "sizeLimit": "1Mi"}
    assert "initContainers" not in pod  # no weights asked: the upload alone
    (cm,) = of_type_in_doc(doc, "kubernetes:core/v1:ConfigMap")
    assert set(cm["inputs"]["data"]) == {"train.py", "stage_weights.py"}
    kubernetes_validate.validate(k8s_object(_job(doc), "batch/v1", "Job"), K8S, strict=True)


def test_a_bucket_in_another_region_is_read_there_with_the_clusters_identity(platform_v3):
    """The copy's endpoint follows weightsBucket.region; the resource principal stays the cluster's region."""
    outputs = _edit(platform_v3, lambda o: o["weightsBucket"].update(region="us-ashburn-1"))
    run = run_consumer(outputs, weightsPrefix=PREFIX)
    (job,) = of_type(run, "kubernetes:batch/v1:Job")
    weights = job.inputs["spec"]["template"]["spec"]["initContainers"][1]
    assert weights["args"][weights["args"].index("--region") + 1] == "us-ashburn-1"
    assert {e["name"]: e["value"] for e in weights["env"]}["OCI_RESOURCE_PRINCIPAL_REGION"] == "sa-saopaulo-1"


@pytest.mark.parametrize("overrides, expected", [
    (W, "trainer"),  # several ServiceAccounts: the Job that needs the bucket runs as the granted one
    ({}, None),  # no bucket needed: which one is still the user's choice
])
def test_with_several_service_accounts_the_granted_one_is_used(platform_v3, overrides, expected):
    outputs = _edit(platform_v3, lambda o: o["tenants"]["research"].__setitem__("serviceAccounts",
                                                                                  ["notebook", "trainer"]))
    if expected is None:
        with pytest.raises(pulumi.RunError, match="training-job:serviceAccount: not set; tenant 'research' has "
                                                  "ServiceAccounts notebook, trainer"):
            run_consumer(outputs, **overrides)
        return
    (job,) = of_type(run_consumer(outputs, **overrides), "kubernetes:batch/v1:Job")
    assert job.inputs["spec"]["template"]["spec"]["serviceAccountName"] == expected


PROD = "organization/oke-rdma/prod"


@pytest.fixture(scope="module")
def prod_plan(prod_plan_file) -> Path:
    return prod_plan_file[0]


@pytest.mark.parametrize("tenant, volume, upload", [("pretraining", "lustre", False), ("research", "fss", True)])
def test_against_the_prod_stacks_own_outputs_weights_go_to_nvme_and_checkpoints_to_lustre_or_fss(
        prod_plan, tmp_path, tenant, volume, upload):
    """The prod stack's unedited outputs (contract version 5: the weights bucket, the tenants' grants, the GPU pool's
    NVMe RAID, pretraining's Lustre claim and directory, each tenant's storage IDs) carry everything the example
    needs, with no IDs in its config: pretraining pulls weights into NVMe and checkpoints to its own Lustre directory
    as its UID/GID, research checkpoints to FSS and uploads the last one, both clean under the pack."""
    from oke_rdma.config import load_stack_config
    from oke_rdma.config.checks.storage import tenant_ids
    from tests.stackcfg import ROOT, read_stack_file
    uid, gid = tenant_ids(load_stack_config(*read_stack_file(ROOT / "Pulumi.prod.yaml")), tenant)
    outputs = read_stack_outputs([f"{PROD}={prod_plan}"])[PROD]
    assert outputs["outputsVersion"] == 5
    platform = write_outputs(prod_plan, outputs, tmp_path / "platform.json")
    config = write_config(tmp_path, platformStack=PROD, tenant=tenant, nodes=2,
                          weightsPrefix=PREFIX, checkpointVolume=volume, checkpointUpload=upload)
    # the example's policy config names research as the privileged namespace it deploys to; here, the tenant's
    policy = tmp_path / "policy-config.json"
    policy.write_text((EXAMPLE / "policy-config.json").read_text().replace('"research"', json.dumps(tenant)))
    out = preview("--program", str(EXAMPLE / "__main__.py"), "--config-file", str(config),
                  "--stack-outputs", f"{PROD}={platform}", "--policy-pack", "policies/security",
                  "--policy-config", str(policy), "--json", str(tmp_path / "consumer.json"))
    assert out.returncode == 0, out.stdout + out.stderr
    doc = json.loads((tmp_path / "consumer.json").read_text())
    assert doc["policyViolations"] == []
    pod = _job(doc)["inputs"]["spec"]["template"]["spec"]
    claims = {v["persistentVolumeClaim"]["claimName"] for v in pod["volumes"] if "persistentVolumeClaim" in v}
    assert claims == {outputs["tenants"][tenant]["lustreClaim" if volume == "lustre" else "sharedStorageClaim"]}
    assert {"name": "nvme", "hostPath": {"path": outputs["nodePools"]["h100"]["localNvme"]["mountPath"],
                                         "type": "Directory"}} in pod["volumes"]
    assert [c["name"] for c in pod["initContainers"]] == ["nvme-prepare", "weights"]
    assert ("checkpoint-upload" in [c["name"] for c in pod["containers"]]) is upload
    assert pod["securityContext"]["runAsUser"] == uid and pod["securityContext"]["runAsGroup"] == gid
    shared = next(m for m in pod["containers"][0]["volumeMounts"] if m["name"] == "shared")
    assert shared.get("subPath") == tenant  # pretraining: its Lustre directory; research: its FSS subPath
