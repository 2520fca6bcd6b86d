"""Shared storage under root squash: a workers-only unsquashed preparation export, a one-off Job that creates each
tenant's directory owned by the tenant's non-root UID/GID, the tenants' claims waiting for it, and the config rules
for the IDs and directories."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.config.storage import derived_id
from oke_rdma.storage import preparation_export_path
from oke_rdma.volumes import PREPARE_SCRIPT, preparation_job_name, preparation_plan
from offline.engine import run_program
from tests.stackcfg import dev_raw_config, load_dev_config, of_type, one

EXPORT = "oci:FileStorage/export:Export"
JOB = "kubernetes:batch/v1:Job"
PV, PVC = "kubernetes:core/v1:PersistentVolume", "kubernetes:core/v1:PersistentVolumeClaim"


def _run(**overrides):
    return run_program(dev_raw_config(**overrides), [], "dev", unknowns=False)


@pytest.fixture(scope="module")
def dev():
    return _run()


def _job(run):
    [job] = [r for r in of_type(run.resources, JOB) if r.name == "okerdma-dev-fss-prepare-job"]
    return job


def test_preparation_export_is_workers_only_and_unsquashed(dev):
    main = one(dev.resources, EXPORT, "okerdma-dev-fss-export")
    prep = one(dev.resources, EXPORT, "okerdma-dev-fss-prepare-export")
    assert prep.inputs["path"] == "/shared-prepare" == preparation_export_path("/shared")
    assert prep.inputs["fileSystemId"] == main.inputs["fileSystemId"]
    assert prep.inputs["exportSetId"] == main.inputs["exportSetId"]
    [option] = prep.inputs["exportOptions"]
    assert option["source"] == "10.0.16.0/20"  # the dev workers subnet: never the pods subnet
    assert option["identitySquash"] == "NONE" and option["requirePrivilegedSourcePort"] is True
    # the tenants' export keeps root squashed
    assert {o["identitySquash"] for o in main.inputs["exportOptions"]} == {"ROOT"}


def test_job_creates_each_directory_owned_by_the_tenant(dev):
    job = _job(dev)
    pod = job.inputs["spec"]["template"]["spec"]
    [c] = pod["containers"]
    plan = json.loads(next(e["value"] for e in c["env"] if e["name"] == "PREPARE_PLAN"))
    assert plan == [{"path": "", "uid": 0, "gid": 0, "mode": "1777"},  # research shares the top directory
                    {"path": "analytics", "uid": 20002, "gid": 20002, "mode": "2770"}]  # Pulumi.dev.yaml's IDs
    assert job.inputs["metadata"]["namespace"] == "oke-rdma-storage"
    assert job.inputs["metadata"]["name"] == preparation_job_name(plan, PREPARE_SCRIPT.read_text())
    sc = c["securityContext"]
    assert sc["capabilities"] == {"drop": ["ALL"], "add": ["CHOWN", "DAC_OVERRIDE", "FOWNER"]}
    assert sc["allowPrivilegeEscalation"] is False and sc["readOnlyRootFilesystem"] is True
    assert pod["automountServiceAccountToken"] is False


def test_job_mounts_only_the_preparation_export(dev):
    pv = one(dev.resources, PV, "okerdma-dev-fss-prepare")
    assert pv.inputs["spec"]["csi"]["volumeHandle"].endswith(":/shared-prepare")
    assert pv.inputs["spec"]["claimRef"] == {"namespace": "oke-rdma-storage", "name": "fss-prepare"}
    prep_export = one(dev.resources, EXPORT, "okerdma-dev-fss-prepare-export")
    assert prep_export.urn in pv.dependencies
    ns = one(dev.resources, "kubernetes:core/v1:Namespace", "okerdma-dev-ns-oke-rdma-storage")
    assert ns.inputs["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "baseline"


def test_tenant_claims_wait_for_the_preparation_and_name_their_ids(dev):
    job = _job(dev)
    for tenant, sub, ids in (("research", "", "20001"), ("analytics", "analytics", "20002")):
        pvc = one(dev.resources, PVC, f"okerdma-dev-{tenant}-fss-shared")
        assert job.urn in pvc.dependencies
        ann = pvc.inputs["metadata"]["annotations"]
        assert ann == {"okerdma.io/sub-path": sub, "okerdma.io/uid": ids, "okerdma.io/gid": ids}
        assert int(ann["okerdma.io/uid"]) not in (0, 65534)


def test_derived_ids_are_used_without_configured_ones():
    run = _run(tenants={"analytics": {"sharedStorage": {"uid": None, "gid": None}}})
    plan = json.loads(next(e["value"] for e in _job(run).inputs["spec"]["template"]["spec"]["containers"][0]["env"]))
    assert {"path": "analytics", "uid": derived_id("analytics"), "gid": derived_id("analytics"), "mode": "2770"} in plan


def test_configured_ids_are_used():
    run = _run(tenants={"analytics": {"sharedStorage": {"uid": 5001, "gid": 6001}}})
    plan = json.loads(next(e["value"] for e in _job(run).inputs["spec"]["template"]["spec"]["containers"][0]["env"]))
    assert {"path": "analytics", "uid": 5001, "gid": 6001, "mode": "2770"} in plan


def test_no_preparation_when_turned_off_or_nobody_asks():
    for overrides in ({"storage": {"fss": {"prepareDirectories": False}}},
                      {"tenants": {"research": {"sharedStorage": None}, "analytics": {"sharedStorage": None}}}):
        run = _run(**overrides)
        assert not [r for r in of_type(run.resources, JOB) if "fss-prepare" in r.name]
        assert not [r for r in of_type(run.resources, EXPORT) if "prepare" in r.name]


def test_a_new_tenant_gives_a_new_job_name():
    from oke_rdma.adapter import tenant_shares
    cfg = load_dev_config()
    cfg2 = load_dev_config(tenants={"vision": {"sharedStorage": {"subPath": "vision"}}})
    script = PREPARE_SCRIPT.read_text()
    assert preparation_job_name(preparation_plan(tenant_shares(cfg)), script) != \
        preparation_job_name(preparation_plan(tenant_shares(cfg2)), script)


def _problems(**overrides) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(**overrides))
    return err.value.problems


@pytest.mark.parametrize("tenants, expected", [
    # tenants are checked in name order, so the later name (research) is the one refused
    ({"research": {"sharedStorage": {"uid": 7000}}, "analytics": {"sharedStorage": {"subPath": "analytics", "uid": 7000}}},
     "oke-rdma:tenants.research.sharedStorage.uid: 7000 (set) is already the uid of tenant 'analytics'"),
    ({"research": {"sharedStorage": {"gid": 7000}}, "analytics": {"sharedStorage": {"subPath": "analytics", "gid": 7000}}},
     "oke-rdma:tenants.research.sharedStorage.gid: 7000 (set) is already the gid of tenant 'analytics'"),
    ({"research": {"sharedStorage": {"subPath": "analytics/nlp"}}},
     "oke-rdma:tenants.research.sharedStorage.subPath: 'analytics/nlp' is inside tenant 'analytics'"),
    ({"research": {"sharedStorage": {"subPath": "analytics"}}},
     "oke-rdma:tenants.research.sharedStorage.subPath: 'analytics' is tenant 'analytics'"),
    ({"research": {"sharedStorage": {"uid": 0}}}, "oke-rdma:tenants.research.sharedStorage.uid:"),
    ({"research": {"sharedStorage": {"uid": 65534}}}, "oke-rdma:tenants.research.sharedStorage.uid:"),
    ({"research": {"sharedStorage": {"gid": 999}}}, "oke-rdma:tenants.research.sharedStorage.gid:"),
    ({"research": {"namespace": "oke-rdma-storage"}},
     "oke-rdma:tenants.research.namespace: 'oke-rdma-storage' is the platform's storage preparation namespace"),
])
def test_ids_and_directories_that_would_be_shared_are_refused(tenants, expected):
    assert any(p.startswith(expected) for p in _problems(tenants=tenants)), _problems(tenants=tenants)


def test_distinct_ids_and_directories_pass():
    cfg = load_dev_config(tenants={"research": {"sharedStorage": {"subPath": "research", "uid": 7001, "gid": 7001}}})
    assert cfg.tenants["research"].shared_storage.uid == 7001


def test_derived_ids_are_stable_and_in_range():
    assert derived_id("research") == derived_id("research")
    assert all(100000 <= derived_id(n) < 1000000 for n in ("a", "research", "analytics", "x" * 63))


def test_prepare_script_sets_owner_and_mode(tmp_path, monkeypatch):
    """The script itself, run against a temporary directory (``PREPARE_ROOT``) as the current user (owner unchanged:
    chown to self)."""
    uid, gid = os.getuid(), os.getgid()
    plan = [{"path": "teams/nlp", "uid": uid, "gid": gid, "mode": "2770"}]
    code = subprocess.run([sys.executable, "-c", f"import runpy, sys; sys.modules['__main__'].__dict__; "
                           f"import importlib.util as u; s=u.spec_from_file_location('p', {str(PREPARE_SCRIPT)!r}); "
                           f"m=u.module_from_spec(s); s.loader.exec_module(m); "
                           f"sys.exit(m.main())"],
                          env={**os.environ, "PREPARE_PLAN": json.dumps(plan), "PREPARE_ROOT": str(tmp_path)},
                          capture_output=True, text=True)
    assert code.returncode == 0, code.stderr
    st = (tmp_path / "teams" / "nlp").stat()
    assert oct(st.st_mode & 0o7777) == "0o2770" and st.st_uid == uid


def test_prepare_script_refuses_a_path_leaving_the_file_system(tmp_path):
    plan = [{"path": "../escape", "uid": 1, "gid": 1, "mode": "2770"}]
    code = subprocess.run([sys.executable, "-c", f"import importlib.util as u, sys; "
                           f"s=u.spec_from_file_location('p', {str(PREPARE_SCRIPT)!r}); m=u.module_from_spec(s); "
                           f"s.loader.exec_module(m); sys.exit(m.main())"],
                          env={**os.environ, "PREPARE_PLAN": json.dumps(plan), "PREPARE_ROOT": str(tmp_path)},
                          capture_output=True, text=True)
    assert code.returncode == 2 and "leaves the file system" in code.stderr
    assert not (tmp_path.parent / "escape").exists()


def test_squash_all_with_tenant_storage_is_refused():
    [line] = [p for p in _problems(storage={"fss": {"identitySquash": "ALL"}})
              if p.startswith("oke-rdma:storage.fss.identitySquash")]
    assert "anonymous ID 65534" in line and "'analytics'" in line and "use ROOT" in line


def test_squash_all_without_tenant_storage_passes():
    cfg = load_dev_config(storage={"fss": {"identitySquash": "ALL"}},
                          tenants={"research": {"sharedStorage": None}, "analytics": {"sharedStorage": None}})
    assert cfg.storage.fss.identity_squash == "ALL"
