"""Values the service only raises (a Lustre file system's capacity, a cluster's or node pool's Kubernetes version):
an update that lowers one is refused with the reason (exit 4), never previewed as a clean update."""

from __future__ import annotations

import pytest

from offline.immutable import lowered
from tests.offline.test_cli import preview, stack_file

LUSTRE = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"
CLUSTER, POOL = "oci:ContainerEngine/cluster:Cluster", "oci:ContainerEngine/nodePool:NodePool"


@pytest.mark.parametrize("typ,path,old,new", [
    (LUSTRE, "capacityInGbs", 52000, 41600),
    (CLUSTER, "kubernetesVersion", "v1.34.1", "v1.33.10"),
    (POOL, "kubernetesVersion", "v1.34.1", "v1.34.0"),
])
def test_a_lowered_value_is_named_with_its_reason(typ, path, old, new):
    (found,) = lowered(typ, {path: old}, {path: new})
    assert found[0] == path and f"{old} -> {new}" in found[1]


@pytest.mark.parametrize("typ,path,old,new", [
    (LUSTRE, "capacityInGbs", 41600, 52000),
    (CLUSTER, "kubernetesVersion", "v1.33.10", "v1.34.1"),
    (CLUSTER, "kubernetesVersion", "v1.34.1", "[unknown]"),
    ("oci:Core/vcn:Vcn", "cidrBlocks", 2, 1),
])
def test_raised_unknown_or_unrelated_values_pass(typ, path, old, new):
    assert lowered(typ, {path: old}, {path: new}) == []


def test_a_kubernetes_downgrade_against_the_previous_plan_is_refused(tmp_path):
    plan = tmp_path / "plan.json"
    assert preview("--stack", "dev", "--json", str(plan)).returncode == 0

    def downgrade(config):
        config["oke-rdma:cluster"]["kubernetesVersion"] = "v1.33.10"
        for pool in config["oke-rdma:nodePools"].values():
            pool.pop("kubernetesVersion", None)
    path = stack_file(tmp_path, downgrade).rename(tmp_path / "Pulumi.dev.yaml")  # the stack name comes from it
    out = preview("--config-file", str(path), "--previous", str(plan))
    assert out.returncode == 4, out.stdout[-3000:] + out.stderr
    assert "never downgrades" in out.stdout + out.stderr
