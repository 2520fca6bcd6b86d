"""The prod stack's storage and training operators: local NVMe RAID on the H100 pool, a Lustre file system with a
volume for the pretraining tenant, and Kueue without Kubeflow Trainer (no released Kueue builds
against the Trainer oke-rdma accepts) — planned offline, packs clean."""

from __future__ import annotations

import base64
import json


def test_prod_plans_nvme_raid_lustre_and_no_trainer(prod_plan_file):
    plan = json.loads(prod_plan_file[0].read_text())
    by_type: dict[str, list[dict]] = {}
    for r in plan["resources"]:
        by_type.setdefault(r["type"], []).append(r)
    h100 = next(p for p in by_type["oci:ContainerEngine/nodePool:NodePool"] if p["inputs"]["nodeShape"] == "BM.GPU.H100.8")
    script = base64.b64decode(h100["inputs"]["nodeMetadata"]["user_data"]).decode()
    assert "MOUNT_PATH=/mnt/nvme" in script and "--level=0" in script
    fs = by_type["oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"]
    assert len(fs) == 1 and fs[0]["inputs"]["capacityInGbs"] == 52000 and fs[0]["protect"]
    claims = [c for c in by_type["kubernetes:core/v1:PersistentVolumeClaim"]
              if c["inputs"]["metadata"]["name"] == "lustre-shared"]
    assert [c["inputs"]["metadata"]["namespace"] for c in claims] == ["pretraining"]
    releases = {r["inputs"]["name"]: r for r in by_type["kubernetes:helm.sh/v3:Release"]}
    assert "kubeflow-trainer" not in releases and "kueue" in releases
