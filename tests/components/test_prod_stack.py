"""Pulumi.prod.yaml, the production-sized example stack, previews offline cleanly, as CI previews it."""

import json
from collections import Counter
from pathlib import Path

from oke_rdma.outputs import check_outputs
from offline.preview import _unmask
from tests import inprocess

ROOT = Path(__file__).resolve().parents[2]


def test_prod_stack_previews_clean_with_its_first_up_notes(tmp_path):
    out = inprocess.preview("--stack", "prod", "--json", str(tmp_path / "plan.json"))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr
    assert out.stderr == ""  # no config warning, no contract warning
    assert "no violations" in out.stdout and "okerdma-prod-fss-mt" in out.stdout
    plan = json.loads((tmp_path / "plan.json").read_text())
    assert plan["policyViolations"] == []
    by_type = Counter(r["type"] for r in plan["resources"])
    assert by_type["oci:Core/computeCluster:ComputeCluster"] == 1
    pools = {r["name"]: r["inputs"] for r in plan["resources"] if r["type"] == "oci:ContainerEngine/nodePool:NodePool"}
    gpu, system = pools["okerdma-prod-h100"], pools["okerdma-prod-system"]
    assert (gpu["nodeShape"], gpu["nodeConfigDetails"]["size"]) == ("BM.GPU.H100.8", 16)
    assert gpu["nodeConfigDetails"]["computeClusterId"].startswith("ocid1.computecluster.oc1.us-chicago-1.")
    assert system["nodeConfigDetails"]["size"] >= 3
    (fs,) = [r for r in plan["resources"] if r["type"] == "oci:FileStorage/fileSystem:FileSystem"]
    assert fs["protect"] is True and fs["inputs"]["kmsKeyId"].startswith("ocid1.key.")
    (mt,) = [r for r in plan["resources"] if r["type"] == "oci:FileStorage/mountTarget:MountTarget"]
    assert str(mt["inputs"]["requestedThroughput"]) == "1"  # created at 1 Gbps, upgraded by the next pulumi up
    notes = [d["message"] for d in plan["diagnostics"]]
    assert any("creates it at 1 Gbps and the next pulumi up upgrades it to 20 Gbps" in n for n in notes)
    assert any("capacity entitlement of 20 TB" in n for n in notes)
    assert "Diagnostics:" in out.stdout and "upgrades it to 20 Gbps" in out.stdout
    outputs = plan["outputs"]
    assert check_outputs(_unmask(outputs)) == []
    assert outputs["nodePools"]["h100"] == {"id": outputs["nodePools"]["h100"]["id"], "shape": "BM.GPU.H100.8",
                                            "size": 16, "rdma": True, "gpusPerNode": 8,
                                            "localNvme": {"mountPath": "/mnt/nvme"}}
    assert {t: (v["rdma"], v["serviceAccounts"], v["sharedStorageClaim"]) for t, v in outputs["tenants"].items()} == {
        "pretraining": (True, ["trainer"], "fss-shared"), "research": (True, ["trainer"], "fss-shared"),
        "evaluation": (False, ["evaluator"], "fss-shared")}
    assert outputs["region"] == "us-chicago-1" and outputs["kubeconfig"] == "[secret]"
