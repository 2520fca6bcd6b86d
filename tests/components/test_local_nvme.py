"""localNvme on a node pool: its nodes get the node-init cloud-init (RAID 0 at the mount path, then OKE's bootstrap)
as user data and the okerdma.io/local-nvme label; a pool without it gets the script without the NVMe step; mistakes
are refused with the key path."""

from __future__ import annotations

import base64
import json

import pytest

from oke_rdma.compute import LOCAL_NVME_LABEL, USER_DATA_KEY, node_labels, node_metadata
from oke_rdma.config.compute import NodePool
from tests.inprocess import preview
from tests.offline.test_cli import stack_file

IMAGE = "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaaexampleimage"


def _pool(**nvme):
    return NodePool.model_validate({"shape": "BM.GPU.H100.8", "size": 2, "imageId": IMAGE, "rdma": True,
                                    **({"localNvme": nvme} if nvme else {})})


def test_a_pool_with_local_nvme_gets_the_node_init_script_and_the_label():
    pool = _pool(enabled=True, mountPath="/mnt/scratch", filesystem="xfs")
    script = base64.b64decode(node_metadata(pool)[USER_DATA_KEY]).decode()
    assert "MOUNT_PATH=/mnt/scratch" in script and "FS_TYPE=xfs" in script and "NVME_ENABLED=1" in script
    assert "oke_init_script" in script and "oke bootstrap" in script
    assert node_labels(pool, "rdma", True)[LOCAL_NVME_LABEL] == "true"


def test_a_pool_without_local_nvme_gets_no_nvme_step_nor_the_label():
    """Its script still grows the root file system and runs OKE's bootstrap, with the NVMe step off."""
    pool = _pool()
    script = base64.b64decode(node_metadata(pool)[USER_DATA_KEY]).decode()
    assert "NVME_ENABLED=0" in script and "oke_init_script" in script
    assert LOCAL_NVME_LABEL not in node_labels(pool, "rdma", True)


@pytest.mark.parametrize("path", ["mnt/nvme", "/", "/var/lib/nvme", "/etc", "/mnt/../etc", "/mnt/nvme/", "/mnt//x"])
def test_mount_paths_that_would_cover_the_system_or_are_not_absolute_are_refused(path):
    with pytest.raises(Exception) as e:
        _pool(enabled=True, mountPath=path)
    assert "mountPath" in str(e.value)


def test_the_dev_stack_with_local_nvme_on_its_rdma_pool_previews_clean(tmp_path):
    def edit(config):
        pools = config["oke-rdma:nodePools"]
        rdma = next(name for name, p in pools.items() if p.get("rdma"))
        pools[rdma]["localNvme"] = {"enabled": True}
    out = preview("--config-file", str(stack_file(tmp_path, edit)), "--json", str(tmp_path / "plan.json"))
    assert out.returncode == 0, out.stdout + out.stderr
    plan = json.loads((tmp_path / "plan.json").read_text())
    pools = [r for r in plan["resources"] if r["type"] == "oci:ContainerEngine/nodePool:NodePool"]
    # every pool has user data (dev runs Cilium: its nodes register with the agent-not-ready taint); only the RDMA
    # pool's script builds the RAID
    with_data = [p for p in pools if "NVME_ENABLED=1" in base64.b64decode(
        (p["inputs"].get("nodeMetadata") or {}).get(USER_DATA_KEY, "")).decode()]
    assert len(with_data) == 1
    labels = {lab["key"]: lab["value"] for lab in with_data[0]["inputs"]["initialNodeLabels"]}
    assert labels[LOCAL_NVME_LABEL] == "true"


def test_a_user_label_cannot_take_the_local_nvme_label(tmp_path):
    def edit(config):
        pool = next(iter(config["oke-rdma:nodePools"].values()))
        pool.setdefault("labels", {})[LOCAL_NVME_LABEL] = "true"
    out = preview("--config-file", str(stack_file(tmp_path, edit)))
    assert out.returncode == 2 and "localNvme" in out.stderr and LOCAL_NVME_LABEL in out.stderr


@pytest.mark.parametrize("pool,shape,needle", [
    ("system", None, "has no local NVMe drives"),                       # the dev stack's E5.Flex system pool
    ("gpu", "BM.Standard.E5.192", "not in oke-rdma's shape table"),      # a bare metal shape the table lacks
])
def test_local_nvme_on_a_shape_without_known_drives_is_refused(pool, shape, needle):
    from oke_rdma.config import ConfigError, load_stack_config
    from tests.stackcfg import dev_raw_config, edited
    raw = edited(dev_raw_config(), "nodePools", (pool, "localNvme"), {"enabled": True})
    if shape:
        raw = edited(raw, "nodePools", (pool, "shape"), shape)
    with pytest.raises(ConfigError) as e:
        load_stack_config(raw)
    line = next(p for p in e.value.problems if "localNvme" in p)
    assert line.startswith(f"oke-rdma:nodePools.{pool}.localNvme:") and needle in line


@pytest.mark.parametrize("shape", ["BM.GPU.H100.8", "BM.GPU.A100-v2.8", "BM.GPU.H200.8", "BM.GPU.B200.8"])
def test_local_nvme_is_accepted_on_gpu_shapes_with_drives(shape):
    from oke_rdma.config import load_stack_config
    from oke_rdma.facts.shapes import nvme_drives
    from tests.stackcfg import dev_raw_config, edited
    assert nvme_drives(shape) > 0
    raw = edited(edited(dev_raw_config(), "nodePools", ("gpu", "localNvme"), {"enabled": True}),
                 "nodePools", ("gpu", "shape"), shape)
    assert load_stack_config(raw).node_pools["gpu"].local_nvme.enabled
