"""The NCCL all-reduce smoke test in its three forms (Job, MPIJob, TrainJob): each custom resource is valid against
its CRD's schema at the pinned operator version, each pod template the Kubernetes API accepts, every form queues in
an RDMA tenant's LocalQueue with an RDMA topology level, podset groups Kueue accepts, whole GPU nodes with the RDMA
settings the RDMA pod rules need, and the same NCCL settings."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any, Iterator

import jsonschema
import pytest
import yaml

from oke_rdma import yamlsafe
from oke_rdma.addons.mpi_operator import upstream_objects
from oke_rdma.config import GPUS_PER_SHAPE
from oke_rdma.scheduling import local_queue_name
from tests.stackcfg import load_dev_config
from tests.k8s_schemas import validate_all  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "nccl-allreduce"
FORMS = {"job": "nccl-allreduce.yaml", "mpijob": "nccl-allreduce-mpijob.yaml",
         "trainjob": "nccl-allreduce-trainjob.yaml"}
TRAINER_CRDS = ROOT / "tests" / "fixtures" / "crds"
TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"
GROUP = "kueue.x-k8s.io/podset-group-name"
QUEUE = "kueue.x-k8s.io/queue-name"


#: Kind → the path of an integer field, to check that the schema really constrains the example.
BREAK = {"MPIJob": ("spec", "slotsPerWorker"), "TrainingRuntime": ("spec", "mlPolicy", "numNodes"),
         "TrainJob": ("spec", "trainer", "numNodes")}


def _docs(form: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((EXAMPLES / FORMS[form]).read_text()) if d]


@functools.cache
def schemas() -> dict[tuple[str, str], dict[str, Any]]:
    """(apiVersion, kind) → openAPIV3Schema of the CRDs at the pinned versions: the MPIJob CRD from the vendored MPI
    Operator manifest, Trainer's from the chart's templates at 2.3.0 (fixtures); read once, on first use."""
    crds = [o for o in upstream_objects("0.8.0") if o["kind"] == "CustomResourceDefinition"]
    for path in sorted(TRAINER_CRDS.glob("trainer.kubeflow.org_*-2.3.0.yaml")):
        crds += [d for d in yamlsafe.load_all(path.read_text()) if d]
    out = {}
    for crd in crds:
        for version in crd["spec"]["versions"]:
            out[(f"{crd['spec']['group']}/{version['name']}", crd["spec"]["names"]["kind"])] = \
                version["schema"]["openAPIV3Schema"]
    return out



def pod_templates(obj: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], int]]:
    """(role, pod template, replicas) of a Job, MPIJob or TrainingRuntime."""
    kind = obj["kind"]
    if kind == "Job":
        yield "job", obj["spec"]["template"], obj["spec"]["parallelism"]
    elif kind == "MPIJob":
        for role, spec in obj["spec"]["mpiReplicaSpecs"].items():
            yield role, spec["template"], spec.get("replicas", 1)
    elif kind == "TrainingRuntime":
        nodes = obj["spec"]["mlPolicy"]["numNodes"]
        for rj in obj["spec"]["template"]["spec"]["replicatedJobs"]:
            yield rj["name"], rj["template"]["spec"]["template"], nodes if rj["name"] == "node" else 1


def _templates(form: str) -> list[tuple[str, dict[str, Any], int]]:
    return [t for d in _docs(form) for t in pod_templates(d)]


@pytest.mark.parametrize("form", ["mpijob", "trainjob"])
def test_each_custom_resource_is_valid_against_its_crd_at_the_pinned_version(form):
    customs = [d for d in _docs(form) if (d["apiVersion"], d["kind"]) in schemas()]
    assert customs and all("." in d["apiVersion"].split("/")[0] for d in _docs(form))  # nothing unvalidated
    for doc in customs:
        validator = jsonschema.Draft7Validator(schemas()[(doc["apiVersion"], doc["kind"])])
        validator.validate(doc)
        broken = copy.deepcopy(doc)
        *path, last = BREAK[doc["kind"]]
        target = broken
        for key in path:
            target = target[key]
        target[last] = "two"  # an integer field given text
        with pytest.raises(jsonschema.ValidationError):
            validator.validate(broken)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_pod_template_is_a_valid_pod_for_the_api_server(form):
    for role, template, _ in _templates(form):
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"x-{role.lower()}",
                                                               **template.get("metadata", {})},
               "spec": template["spec"]}
        validate_all(pod)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_each_form_queues_in_an_rdma_tenant_with_an_rdma_topology_level(form):
    cfg = load_dev_config()
    docs = _docs(form)
    (ns,) = {d["metadata"]["namespace"] for d in docs}
    tenant = next(t for t in cfg.tenants if cfg.tenant_namespace(t) == ns)
    assert cfg.tenants[tenant].rdma, "the example must run in a tenant allowed RDMA pods"
    queued = [d for d in docs if d["kind"] in ("Job", "MPIJob", "TrainJob")]
    assert len(queued) == 1 and queued[0]["metadata"]["labels"][QUEUE] == local_queue_name(tenant)
    levels = cfg.platform.kueue.topology_levels[:-1]  # an RDMA level, not the hostname
    for role, template, _ in _templates(form):
        assert template["metadata"]["annotations"][TOPOLOGY] in levels, role
    gpus = [t["spec"]["containers"][0]["resources"]["limits"].get("nvidia.com/gpu", 0) * n
            for _, t, n in _templates(form)]
    quota = cfg.tenants[tenant].quota
    assert 0 < sum(gpus) <= quota.gpu + quota.gpu_borrowing_limit


@pytest.mark.parametrize("form", sorted(FORMS))
def test_podset_groups_are_what_kueue_accepts(form):
    """Kueue 0.18 (pkg/controller/jobframework/tas_validation.go@v0.18.2): a podset group has exactly two podsets, one
    of them with one pod, and the same required topology."""
    groups: dict[str, list[tuple[str, int]]] = {}
    for role, template, replicas in _templates(form):
        group = template["metadata"].get("annotations", {}).get(GROUP)
        if group:
            groups.setdefault(group, []).append((template["metadata"]["annotations"][TOPOLOGY], replicas))
    for members in groups.values():
        assert len(members) == 2 and min(n for _, n in members) == 1 and len({t for t, _ in members}) == 1


@pytest.mark.parametrize("form", sorted(FORMS))
def test_gpu_pods_take_whole_nodes_with_the_rdma_settings(form):
    cfg = load_dev_config()
    shape = cfg.node_pools[next(iter(cfg.rdma_pools))].shape
    gpu_pods = 0
    for role, template, _ in _templates(form):
        pod = template["spec"]
        (c,) = pod["containers"]
        assert ":" in c["image"] and not c["image"].endswith(":latest"), role
        gpus = c["resources"]["limits"].get("nvidia.com/gpu")
        if gpus is None:
            continue
        gpu_pods += 1
        assert gpus == c["resources"]["requests"]["nvidia.com/gpu"] == GPUS_PER_SHAPE[shape], role
        assert pod["hostNetwork"] is True and "IPC_LOCK" in c["securityContext"]["capabilities"]["add"], role
        assert {"/dev/infiniband", "/dev/shm"} <= {m["mountPath"] for m in c["volumeMounts"]}, role
        assert {"path": "/dev/infiniband"} in [v.get("hostPath") for v in pod["volumes"]], role
    assert gpu_pods >= 1


def _nccl_settings(form: str) -> dict[str, str]:
    out = {}
    for _, template, _ in _templates(form):
        (c,) = template["spec"]["containers"]
        out.update({e["name"]: e["value"] for e in c.get("env", []) if e["name"].startswith("NCCL_IB_")})
        text = " ".join(c.get("args", []))
        for token in text.split():
            if token.startswith("NCCL_IB_") and "=" in token:
                name, value = token.split("=", 1)
                out[name] = value
    return out


@pytest.mark.parametrize("form", ["mpijob", "trainjob"])
def test_the_mpi_forms_pass_the_job_forms_nccl_settings_to_every_rank(form):
    assert _nccl_settings(form) == _nccl_settings("job")
