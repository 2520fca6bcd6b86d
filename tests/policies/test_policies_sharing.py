"""Placement pack rule dedicated-tenant-not-on-shared-pool: a ClusterQueue that may admit a dedicated tenant never
has a flavor on a time-sliced or MIG pool; unknowns fail closed."""

from __future__ import annotations

import pytest

from tests.policies.test_policies import U, messages, res, run

RULE = "dedicated-tenant-not-on-shared-pool"
NS, NODE_POOL = "kubernetes:core/v1:Namespace", "oci:ContainerEngine/nodePool:NodePool"
RF, CQ = "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor", "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"


def namespace(name: str, isolation: str | None):
    labels = {"okerdma.io/isolation": isolation} if isolation else {}
    return res(NS, f"ns-{name}", {"metadata": {"name": name, "labels": labels}})


def node_pool(pool: str, sharing: str | None):
    labels = [{"key": "okerdma.io/node-pool", "value": pool}]
    if sharing:
        labels.append({"key": "okerdma.io/gpu-sharing", "value": sharing})
    return res(NODE_POOL, f"pool-{pool}", {"name": pool, "initialNodeLabels": labels})


def flavor(name: str, pool: str | None):
    return res(RF, f"rf-{name}", {"metadata": {"name": name},
                                  "spec": {"nodeLabels": {"okerdma.io/node-pool": pool} if pool else {}}})


def queue(name: str, namespace_selector, *flavors: str):
    return res(CQ, f"cq-{name}", {"metadata": {"name": name}, "spec": {
        "namespaceSelector": namespace_selector,
        "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"],
                            "flavors": [{"name": f, "resources": []} for f in flavors]}]}})


def by_name(ns: str) -> dict:
    return {"matchLabels": {"kubernetes.io/metadata.name": ns}}


BASE = [node_pool("gpu", "exclusive"), node_pool("shared", "time-slicing"), node_pool("system", None),
        flavor("f-gpu", "gpu"), flavor("f-shared", "shared"),
        namespace("research", "dedicated"), namespace("evaluation", "shared"), namespace("legacy", None)]


def violations(*extra) -> list[str]:
    return messages(run(*BASE, *extra, policy=RULE), RULE)


def test_dedicated_tenant_on_exclusive_pools_and_shared_tenant_on_shared_pool_pass():
    """A dedicated tenant with the exclusive flavor and a shared tenant with both flavors pass."""
    assert violations(queue("cq-research", by_name("research"), "f-gpu"),
                      queue("cq-eval", by_name("evaluation"), "f-shared", "f-gpu")) == []


@pytest.mark.parametrize("cq,needle", [
    (queue("cq-research", by_name("research"), "f-gpu", "f-shared"), "namespace 'research' is dedicated"),
    (queue("cq-legacy", by_name("legacy"), "f-shared"), "okerdma.io/isolation: unset"),
    (queue("cq-any", {}, "f-shared"), "does not pin one namespace"),
    (queue("cq-expr", {"matchExpressions": [{"key": "team", "operator": "Exists"}]}, "f-shared"),
     "may select any namespace"),
    (queue("cq-research", by_name("research"), "f-missing"), "flavor 'f-missing' is not in the stack"),
    (queue("cq-research", by_name("research"), "f-unpinned"), "may land on pool 'shared'"),
    (queue("cq-research", by_name(U), "f-shared"), "unknown during preview"),
    (queue("cq-research", by_name("research"), U), "a flavor name is unknown"),
])
def test_dedicated_tenant_that_may_reach_a_shared_pool_is_refused(cq, needle):
    """A dedicated (or unlabelled, or unpinned, or unknown) namespace with a flavor on a shared, unknown, missing or
    unpinned pool is a violation."""
    found = violations(cq, flavor("f-unpinned", None))
    assert any(needle in m for m in found), found


def test_mig_pool_counts_as_shared():
    """A MIG pool is shared too."""
    found = messages(run(node_pool("mig", "mig"), flavor("f-mig", "mig"), namespace("research", "dedicated"),
                         queue("cq-research", by_name("research"), "f-mig"), policy=RULE), RULE)
    assert any("pool 'mig', whose GPUs are shared" in m for m in found), found


def test_unknown_pool_labels_fail_closed():
    """A node pool whose labels are unknown during preview may be shared: a dedicated queue is refused."""
    unknown_pool = res(NODE_POOL, "pool-x", {"initialNodeLabels": U})
    found = messages(run(node_pool("gpu", "exclusive"), unknown_pool, flavor("f-gpu", "gpu"),
                         namespace("research", "dedicated"), queue("cq-research", by_name("research"), "f-gpu"),
                         policy=RULE), RULE)
    assert any("unknown during preview" in m for m in found), found


def test_stack_without_shared_pools_passes_even_with_loose_queues():
    """With no shared pool at all, nothing a queue selects can be shared."""
    found = messages(run(node_pool("gpu", "exclusive"), flavor("f-gpu", "gpu"), namespace("research", None),
                         queue("cq-any", {}, "f-gpu", "f-missing"), policy=RULE), RULE)
    assert found == []
