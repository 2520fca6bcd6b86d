"""Tenant directories on Lustre: the preparation Job FSS uses (``oke_rdma.preparation``) creates ``/<tenant>`` owned
by the tenant's UID/GID through a platform-only claim of the file system; the worker nodes it runs on become a
root-squash client exception (only then can root chown there); the tenants' claims wait for it and name their
directory and IDs."""

from __future__ import annotations

import json

import pytest

from oke_rdma.config import load_stack_config
from oke_rdma.config.checks.storage import tenant_ids
from oke_rdma.config.lustre import Lustre
from oke_rdma.lustre import client_exceptions
from oke_rdma.preparation import PREPARE_SCRIPT, preparation_job_name
from offline.engine import run_program
from tests.components.test_lustre import _run
from tests.stackcfg import dev_raw_config, of_type, one

FS = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"
JOB, NS = "kubernetes:batch/v1:Job", "kubernetes:core/v1:Namespace"
PV, PVC = "kubernetes:core/v1:PersistentVolume", "kubernetes:core/v1:PersistentVolumeClaim"
LUSTRE = {"capacityGb": 31200, "tenants": ["research"]}


def _stack(**lustre):
    raw = dev_raw_config(storage={"lustre": {**LUSTRE, **lustre}})
    return raw, run_program(raw, [], "dev", unknowns=False)


@pytest.fixture(scope="module")
def dev():
    return _stack()


def _container(job):
    [c] = job.inputs["spec"]["template"]["spec"]["containers"]
    return c


def test_the_job_creates_each_tenant_directory_owned_by_its_ids(dev):
    raw, run = dev
    cfg = load_stack_config(raw, [])
    job = one(run.resources, JOB, "okerdma-dev-lustre-prepare-job")
    c = _container(job)
    env = {e["name"]: e["value"] for e in c["env"]}
    plan = json.loads(env["PREPARE_PLAN"])
    uid, gid = tenant_ids(cfg, "research")
    assert plan == [{"path": "research", "uid": uid, "gid": gid, "mode": "2770"}] and (uid, gid) == (20001, 20001)
    assert env["PREPARE_ROOT"] == "/lustre" and {"name": "lustre", "mountPath": "/lustre"} in c["volumeMounts"]
    assert job.inputs["metadata"]["name"] == preparation_job_name(plan, PREPARE_SCRIPT.read_text(), "lustre")
    assert job.inputs["metadata"]["namespace"] == "oke-rdma-storage"
    sc = c["securityContext"]
    assert sc["runAsUser"] == 0 and sc["capabilities"] == {"drop": ["ALL"], "add": ["CHOWN", "DAC_OVERRIDE", "FOWNER"]}
    assert sc["allowPrivilegeEscalation"] is False and sc["readOnlyRootFilesystem"] is True
    pod = job.inputs["spec"]["template"]["spec"]
    assert pod["automountServiceAccountToken"] is False
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]


def test_the_job_mounts_a_platform_claim_of_the_file_system_on_client_nodes(dev):
    _, run = dev
    pv = one(run.resources, PV, "okerdma-dev-lustre-prepare")
    tenant_pv = one(run.resources, PV, "okerdma-dev-research-lustre")
    assert pv.inputs["spec"]["claimRef"] == {"namespace": "oke-rdma-storage", "name": "lustre-prepare"}
    assert pv.inputs["spec"]["csi"] == tenant_pv.inputs["spec"]["csi"]
    assert pv.inputs["spec"]["nodeAffinity"] == tenant_pv.inputs["spec"]["nodeAffinity"]
    claim = one(run.resources, PVC, "okerdma-dev-lustre-prepare")
    job = one(run.resources, JOB, "okerdma-dev-lustre-prepare-job")
    [vol] = [v for v in job.inputs["spec"]["template"]["spec"]["volumes"] if v["name"] == "lustre"]
    assert vol["persistentVolumeClaim"]["claimName"] == claim.inputs["metadata"]["name"] == "lustre-prepare"
    # one preparation namespace: FSS's (dev prepares FSS directories too), at Pod Security baseline
    [ns] = [r for r in of_type(run.resources, NS) if r.inputs["metadata"]["name"] == "oke-rdma-storage"]
    assert ns.inputs["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "baseline"


def test_the_tenant_claim_waits_and_names_its_directory_and_ids(dev):
    _, run = dev
    job = one(run.resources, JOB, "okerdma-dev-lustre-prepare-job")
    claim = one(run.resources, PVC, "okerdma-dev-research-lustre-shared")
    assert job.urn in claim.dependencies
    assert claim.inputs["metadata"]["annotations"] == {"okerdma.io/sub-path": "research", "okerdma.io/uid": "20001",
                                                       "okerdma.io/gid": "20001"}


def test_the_workers_subnet_becomes_a_root_squash_exception_only_while_preparing(dev):
    _, run = dev
    fs = one(run.resources, FS, "okerdma-dev-lustre")
    squash = fs.inputs["rootSquashConfiguration"]
    assert squash["identitySquash"] == "ROOT" and squash["clientExceptions"] == ["10.0.16.0/20"]  # dev workers
    _, off = _stack(prepareDirectories=False)
    fs_off = one(off.resources, FS, "okerdma-dev-lustre")
    assert not fs_off.inputs["rootSquashConfiguration"].get("clientExceptions")
    assert not [r for r in of_type(off.resources, JOB) if "lustre-prepare" in r.name]
    claim = one(off.resources, PVC, "okerdma-dev-research-lustre-shared")
    assert "annotations" not in claim.inputs["metadata"]


def test_a_configured_exception_covering_the_workers_is_kept_alone():
    assert client_exceptions(["10.0.0.0/16"], "10.0.16.0/20") == ["10.0.0.0/16"]
    assert client_exceptions(["10.9.0.0/24"], "10.0.16.0/20") == ["10.9.0.0/24", "10.0.16.0/20"]
    assert client_exceptions([], None) is None
    assert client_exceptions(["fd00::/64"], "10.0.16.0/20") == ["fd00::/64", "10.0.16.0/20"]


def test_a_library_user_must_give_ids_and_the_workers_cidr():
    with pytest.raises(ValueError, match="tenant_ids has no"):
        _run(Lustre(capacityGb=31200, tenants=("research",)), tenant_ids={})
    with pytest.raises(ValueError, match="workers_cidr is needed"):
        _run(Lustre(capacityGb=31200, tenants=("research",)), workers_cidr=None)
    run = _run(Lustre(capacityGb=31200, tenants=("research",), prepareDirectories=False), workers_cidr=None)
    assert not [r for r in of_type(run.resources, JOB)]


def test_the_preparation_image_must_be_pinned():
    with pytest.raises(ValueError, match="pinned by tag or digest"):
        Lustre(capacityGb=31200, preparationImage="python:latest")


def test_the_tenants_outputs_give_their_ids_and_directories(dev):
    """``tenants.<t>.runAsUser/runAsGroup`` (configured or derived) and the directory on each claim (contract
    version 5): what a job sets as its securityContext and volumeMounts[].subPath, without reading annotations."""
    from oke_rdma.outputs import unwrap
    _, run = dev
    tenants, _ = unwrap(run.outputs["tenants"])
    research, analytics = tenants["research"], tenants["analytics"]
    assert (research["runAsUser"], research["runAsGroup"]) == (20001, 20001)  # Pulumi.dev.yaml's sharedStorage IDs
    assert (analytics["runAsUser"], analytics["runAsGroup"]) == (20002, 20002)
    assert research["sharedStorageSubPath"] is None  # shares the export's top directory
    assert analytics["sharedStorageSubPath"] == "analytics"
    assert research["lustreSubPath"] == "research" and research["lustreClaim"] == "lustre-shared"
    assert analytics["lustreSubPath"] is None and analytics["lustreClaim"] is None


def _problems(**overrides):
    from oke_rdma.config import ConfigError
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(**overrides), [])
    return err.value.problems


def test_a_lustre_only_tenant_never_shares_an_owner_with_another_tenant():
    """A tenant with a Lustre directory and no sharedStorage owns it by the IDs derived from its name; another
    tenant setting those IDs is refused on its own key (each tenant owns its directories alone), naming the Lustre tenant."""
    from oke_rdma.config.storage import derived_id
    nlp = {"rdma": True, "quota": {"gpu": 0, "cpu": 1, "memoryGb": 1}}
    clash = derived_id("nlp")
    found = _problems(tenants={"nlp": nlp, "analytics": {"sharedStorage": {"uid": clash, "gid": clash}}},
                      storage={"lustre": {**LUSTRE, "tenants": ["research", "nlp"]}})
    # the key the user set is named (analytics' uid), with the Lustre tenant whose derived ID it takes
    assert [p for p in found if p.startswith("oke-rdma:tenants.analytics.sharedStorage.uid: ") and
            "the uid of tenant 'nlp' (derived from its name)" in p], found
    assert all("sharedStorage with its own" in p for p in found if p.startswith("oke-rdma:tenants.nlp:"))
    # without the Lustre directory, the same IDs are nobody else's business
    cfg = load_stack_config(dev_raw_config(tenants={"nlp": nlp, "analytics": {"sharedStorage": {"uid": clash,
                                                                                              "gid": clash}}}), [])
    assert tenant_ids(cfg, "nlp") == (clash, clash)
