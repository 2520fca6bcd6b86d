"""Placement pack: a pool's GPU sharing is read from what the GPU Operator declared in the stack will do on its nodes
(device-plugin config and its node label, the default config, MIG config), failing closed when that cannot be read;
and rule node-pool-labels-distinct: no pool carries every label of another."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tests.policies.test_policies import U, messages, res, run

ROOT = Path(__file__).resolve().parents[2]
RULE, DISTINCT = "dedicated-tenant-not-on-shared-pool", "node-pool-labels-distinct"
NS, NODE_POOL = "kubernetes:core/v1:Namespace", "oci:ContainerEngine/nodePool:NodePool"
RF, CQ = "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor", "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
RELEASE, CM = "kubernetes:helm.sh/v3:Release", "kubernetes:core/v1:ConfigMap"
CLUSTER_POLICY = "kubernetes:nvidia.com/v1:ClusterPolicy"
EXCLUSIVE = "version: v1\nflags:\n  migStrategy: single\n"
TIME_SLICED = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"
MPS = "version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 3\n"


def pool(name: str, shape: str = "BM.GPU.H100.8", user_data: str | None = None, labels: dict | None = None):
    items = [{"key": "okerdma.io/node-pool", "value": name}] + [
        {"key": k, "value": v} for k, v in (labels or {}).items()]
    props = {"name": name, "nodeShape": shape, "initialNodeLabels": items}
    if user_data is not None:
        props["nodeMetadata"] = {"user_data": base64.b64encode(user_data.encode()).decode()}
    return res(NODE_POOL, f"pool-{name}", props)


def operator(config: dict | None = None, mig: dict | None = None, chart: str = "gpu-operator"):
    values = {"devicePlugin": {"enabled": True, "config": config if config is not None else {
        "create": True, "name": "okerdma-device-plugin", "default": "exclusive", "data": {"exclusive": EXCLUSIVE}}}}
    if mig is not None:
        values["migManager"] = mig
    return res(RELEASE, "gpu-operator", {"chart": chart, "namespace": "gpu-operator", "values": values})


def config_map(name: str, data: dict, namespace: str = "gpu-operator"):
    return res(CM, f"cm-{name}", {"metadata": {"name": name, "namespace": namespace}, "data": data})


def dedicated_queue():
    return [res(NS, "ns-research", {"metadata": {"name": "research", "labels": {"okerdma.io/isolation": "dedicated"}}}),
            res(RF, "rf-gpu", {"metadata": {"name": "f-gpu"}, "spec": {"nodeLabels": {"okerdma.io/node-pool": "gpu"}}}),
            res(CQ, "cq-research", {"metadata": {"name": "cq"}, "spec": {
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "research"}},
                "resourceGroups": [{"flavors": [{"name": "f-gpu", "resources": []}]}]}})]


def refused(*resources) -> list[str]:
    return messages(run(*resources, *dedicated_queue(), policy=RULE), RULE)


def test_the_packs_copy_of_the_sharing_facts_equals_the_packages():
    """The placement pack carries oke_rdma.facts.gpu_sharing byte for byte (packs are published alone)."""
    assert (ROOT / "policies/placement/_gpu_sharing.py").read_bytes() == \
        (ROOT / "oke_rdma/facts/gpu_sharing.py").read_bytes()


def test_an_exclusive_pool_under_the_exclusive_default_passes():
    """The dedicated flavor's pool uses the operator's exclusive default config: nothing shared."""
    assert refused(pool("gpu"), operator()) == []


@pytest.mark.parametrize("resources, needle", [
    # the default config every unlabelled node uses time-slices
    ([pool("gpu"), operator({"create": True, "name": "dp", "default": "any", "data": {"any": TIME_SLICED}})],
     "time-slicing, 4 pods per GPU"),
    # the node label picks an MPS config: shared whatever the pool's own okerdma.io label says
    ([pool("gpu", labels={"okerdma.io/gpu-sharing": "exclusive", "nvidia.com/device-plugin.config": "mps"}),
      operator({"create": True, "name": "dp", "default": "exclusive", "data": {"exclusive": EXCLUSIVE, "mps": MPS}})],
     "MPS, 3 pods per GPU"),
    # the label arrives through cloud-init's kubelet --node-labels
    ([pool("gpu", user_data='#!/bin/bash\noke bootstrap --kubelet-extra-args '
                            '"--node-labels=nvidia.com/device-plugin.config=ts"\n'),
      operator({"create": True, "name": "dp", "default": "exclusive", "data": {"exclusive": EXCLUSIVE,
                                                                               "ts": TIME_SLICED}})],
     "label nvidia.com/device-plugin.config=ts"),
    # the ConfigMap is a separate object of the stack
    ([pool("gpu"), operator({"create": False, "name": "dp", "default": "shared"}),
      config_map("dp", {"shared": TIME_SLICED})], "ConfigMap 'dp'"),
    # a ClusterPolicy instead of the chart
    ([pool("gpu"), res(CLUSTER_POLICY, "cp", {"spec": {"devicePlugin": {"config": {"name": "dp", "default": "ts"}}}}),
      config_map("dp", {"ts": TIME_SLICED})], "ClusterPolicy 'cp'"),
    # MIG by its label
    ([pool("gpu", labels={"nvidia.com/mig.config": "all-1g.10gb"}), operator()], "partitions the GPUs with MIG"),
])
def test_a_pool_shared_by_effect_is_refused_to_a_dedicated_tenant(resources, needle):
    """Whatever the pool's own label says, a pool whose device plugin or MIG manager shares its GPUs is shared."""
    found = refused(*resources)
    assert any("may land on pool 'gpu', whose GPUs are shared" in m and needle in m for m in found), found


@pytest.mark.parametrize("resources, needle", [
    ([pool("gpu"), operator({"create": False, "name": "elsewhere", "default": "exclusive"})],
     "ConfigMap 'elsewhere'"),  # the ConfigMap is not in the stack
    ([pool("gpu", labels={"nvidia.com/device-plugin.config": "nope"}), operator()], "lacks"),
    ([pool("gpu"), operator({"create": True, "name": "dp", "default": U, "data": {"exclusive": EXCLUSIVE}})],
     "unknown during preview"),
    ([pool("gpu"), operator({"create": True, "name": "dp", "default": "x", "data": {"x": "version: v9\n"}})],
     "version 'v9'"),
    # no operator in the stack to read the label
    ([pool("gpu", labels={"nvidia.com/device-plugin.config": "ts"})], "not in the stack"),
    ([pool("gpu"), operator(mig={"config": {"name": "custom", "default": "all-disabled"}})],
     "custom mig-parted config"),
    ([pool("gpu"), operator(chart=U)], "chart unknown during preview"),
])
def test_a_pool_whose_sharing_cannot_be_read_fails_closed(resources, needle):
    """An unknown, missing or unreadable device-plugin or MIG config counts as shared for a dedicated tenant."""
    found = refused(*resources)
    assert any("whose GPU sharing cannot be read" in m and needle in m for m in found), found


def test_a_self_managed_gpu_node_labelled_in_cloud_init_is_a_pool_of_its_own():
    """An instance that joins the cluster through cloud-init (oke bootstrap) with the pool's name label but a
    time-slicing config label is a shared node a dedicated flavor may land on; without the config label it passes."""
    def node(extra: str):
        text = (f"#!/bin/bash\noke bootstrap --kubelet-extra-args "
                f"'--node-labels=okerdma.io/node-pool=gpu{extra}'\n")
        return res("oci:Core/instance:Instance", "self-managed", {"shape": "BM.GPU.H100.8", "metadata": {
            "user_data": base64.b64encode(text.encode()).decode()}})
    ops = operator({"create": True, "name": "dp", "default": "exclusive",
                    "data": {"exclusive": EXCLUSIVE, "ts": TIME_SLICED}})
    found = refused(pool("gpu"), ops, node(",nvidia.com/device-plugin.config=ts"))
    assert any("pool 'gpu', whose GPUs are shared: label nvidia.com/device-plugin.config=ts" in m
               for m in found), found
    assert refused(pool("gpu"), ops, node("")) == []
    # and the node carries every label of the pool: a selector for the pool lands on it
    clash = distinct(pool("gpu"), node(",nvidia.com/device-plugin.config=ts"))
    assert any("'self-managed' carries every label of 'pool-gpu'" in m for m in clash), clash


def test_cpu_pools_and_a_spare_config_pass():
    """A config no node selects, a CPU pool with the label, and a flavor pinned away from the shared pool pass."""
    ops = operator({"create": True, "name": "dp", "default": "exclusive",
                    "data": {"exclusive": EXCLUSIVE, "spare": TIME_SLICED}})
    spare = {"nvidia.com/device-plugin.config": "spare"}
    assert refused(pool("gpu"), pool("cpu", shape="VM.Standard.E5.Flex", labels=spare), pool("ts", labels=spare),
                   ops) == []


def distinct(*resources) -> list[str]:
    return messages(run(*resources, policy=DISTINCT), DISTINCT)


def test_pools_with_a_label_of_their_own_pass():
    """Pools that share a role label but each carry their own pool name pass."""
    role = {"okerdma.io/role": "gpu"}
    assert distinct(pool("gpu", labels=role), pool("ts", labels=role)) == []


def test_a_pool_whose_labels_another_carries_is_refused():
    """A pool whose every label another pool carries (a superset, or the same set) is refused."""
    a = res(NODE_POOL, "pool-a", {"nodeShape": "BM.GPU.H100.8", "initialNodeLabels": [
        {"key": "okerdma.io/role", "value": "gpu"}]})
    b = res(NODE_POOL, "pool-b", {"nodeShape": "BM.GPU.A10.4", "initialNodeLabels": [
        {"key": "okerdma.io/role", "value": "gpu"}, {"key": "okerdma.io/gpu-sharing", "value": "time-slicing"}]})
    found = distinct(a, b)
    assert any("'pool-b' carries every label of 'pool-a'" in m for m in found), found
    same = distinct(pool("gpu"), res(NODE_POOL, "pool-twin", {"initialNodeLabels": [
        {"key": "okerdma.io/node-pool", "value": "gpu"}]}))
    assert any("the same labels as" in m for m in same), same


def test_cloud_init_labels_count_and_unknown_labels_fail_closed():
    """Labels from cloud-init's --node-labels make a pool carry another's labels; a pool whose cloud-init contradicts
    its initial labels, or whose labels are unknown, is reported."""
    a = res(NODE_POOL, "pool-a", {"initialNodeLabels": [{"key": "okerdma.io/role", "value": "gpu"}]})
    b = res(NODE_POOL, "pool-b", {"initialNodeLabels": [], "nodeMetadata": {"user_data": base64.b64encode(
        b"#!/bin/bash\noke bootstrap --kubelet-extra-args '--node-labels=okerdma.io/role=gpu,team=x'").decode()}})
    assert any("'pool-b' carries every label of 'pool-a'" in m for m in distinct(a, b))
    clash = pool("gpu2", user_data="#!/bin/bash\noke bootstrap --kubelet-extra-args "
                                   "'--node-labels=okerdma.io/node-pool=gpu'")
    assert any("pool-gpu2': its node labels are unknown" in m for m in distinct(pool("gpu"), clash))
    found = distinct(pool("gpu"), res(NODE_POOL, "pool-x", {"initialNodeLabels": U}))
    assert any("unknown during preview" in m for m in found), found


@pytest.fixture(scope="module")
def stack_verdicts():
    """The placement pack's verdict per node pool of the dev stack with a time-sliced pool added (as prod has),
    read from the program's registrations under the mocks."""
    from pulumi_policy import EnforcementLevel, StackValidationPolicy

    from offline.engine import run_program
    from offline.policy_eval import evaluate
    from policies.placement._pools import sharing_by_pool
    from tests.stackcfg import dev_raw_config

    seen: dict = {}

    def capture(args, report_violation):
        seen.update({p.label_name: v for p, v in sharing_by_pool(args.resources)})

    shared = {"shape": "VM.GPU.A10.2", "gpusPerNode": 2, "size": 1, "labels": {"okerdma.io/role": "gpu-shared"},
              "imageId": "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaa7u2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4j6k8lgpub",
              "gpuSharing": {"mode": "timeSlicing", "replicas": 4}}
    run = run_program(dev_raw_config(nodePools={"shared": shared}), [], "dev")
    probe = StackValidationPolicy(name="probe", description="probe", validate=capture,
                                  enforcement_level=EnforcementLevel.ADVISORY)
    evaluate([probe], run.resources, "probe")
    return seen


def test_the_programs_pools_are_judged_by_what_their_device_plugin_does(stack_verdicts):
    """The program's time-sliced pool is shared by effect (its label selects a time-slicing config of the operator's
    ConfigMap), the RDMA pool is exclusive under the default config, and the CPU pool has no GPUs."""
    shared = {name for name, v in stack_verdicts.items() if v.shared}
    assert shared and all("time-slicing" in stack_verdicts[n].why for n in shared), stack_verdicts
    assert all(v.shared is False for n, v in stack_verdicts.items() if n not in shared), stack_verdicts
    assert any("default config 'exclusive'" in v.why for v in stack_verdicts.values()), stack_verdicts
