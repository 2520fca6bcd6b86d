"""The pod network's policy engine turned off or on for a running cluster (compared with the previous plan): the
preview names the step pulumi up leaves undone — removing Cilium's CNI configuration from the nodes, restarting the
pods that started before it — and says nothing for a new cluster or another add-on."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from offline.cni_changes import CONFLIST, NODE_POOL, RELEASE, cni_changes
from offline.replacement import Change
from offline.policy_types import EngineResource

POOL = "urn:pulumi:dev::oke-rdma::oke-rdma:compute:Compute$oci:ContainerEngine/nodePool:NodePool::okerdma-dev-gpu"


def _release(name: str) -> str:
    return f"urn:pulumi:dev::oke-rdma::oke-rdma:platform:Platform${RELEASE}::okerdma-dev-{name}"


def _previous(*releases: str, pool: bool = True) -> dict:
    resources = [{"urn": _release(r), "type": RELEASE, "name": f"okerdma-dev-{r}", "inputs": {"name": r}}
                 for r in releases]
    if pool:
        resources.append({"urn": POOL, "type": NODE_POOL, "name": "okerdma-dev-gpu", "inputs": {}})
    return {"resources": resources}


def _run(created: tuple[str, ...] = (), deleted: tuple[str, ...] = (), pool_op: str = "same"):
    resources = [EngineResource(urn=_release(r), type=RELEASE, name=f"okerdma-dev-{r}", custom=True,
                                inputs={"name": r}, outputs={}) for r in created]
    changes = [Change(_release(r), RELEASE, f"okerdma-dev-{r}", "create") for r in created]
    changes += [Change(_release(r), RELEASE, f"okerdma-dev-{r}", "delete") for r in deleted]
    changes.append(Change(POOL, NODE_POOL, "okerdma-dev-gpu", pool_op))
    return SimpleNamespace(resources=resources, changes=changes)


def test_turning_cilium_off_on_a_running_cluster_names_the_conflist_and_the_procedure():
    [warning] = cni_changes(_run(deleted=("cilium",)), _previous("cilium", "kueue"))
    assert warning.startswith("oke-rdma:platform.cilium.enabled: turning cilium off on a running cluster")
    assert CONFLIST in warning and "ContainerCreating" in warning and '"Turning Cilium off"' in warning


def test_turning_cilium_on_for_a_running_cluster_names_the_restart():
    [warning] = cni_changes(_run(created=("cilium",)), _previous("kueue"))
    assert "turning cilium on for a running cluster" in warning and "CiliumEndpoint" in warning
    assert '"Turning Cilium on"' in warning


@pytest.mark.parametrize("run, previous", [
    (_run(created=("cilium",)), _previous(pool=False)),  # a new cluster: no pod ran before Cilium
    (_run(created=("cilium",), pool_op="replace"), _previous()),  # every node is new
    (_run(deleted=("kueue",)), _previous("cilium", "kueue")),  # another add-on removed
    (_run(created=("keda",)), _previous("cilium")),  # another add-on added
    (_run(), _previous("cilium")),  # nothing changes
])
def test_no_warning_for_a_new_cluster_or_another_add_on(run, previous):
    assert cni_changes(run, previous) == []


def test_nothing_without_a_previous_plan():
    assert cni_changes(_run(deleted=("cilium",)), None) == []
