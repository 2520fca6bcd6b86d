"""Red-team programs for GPU sharing by effect: a dedicated tenant's queue on a pool whose device plugin time-slices or
uses MPS (by the default config, or by a label set in cloud-init) while the pool's own label says exclusive, a
ConfigMap the stack does not hold, a self-managed node labelled in its cloud-init, and two pools whose labels let a
selector for one land on the other. Registered into ``programs.CASES`` on import."""
from __future__ import annotations

import base64
from typing import Optional

import pulumi_kubernetes as k8s
import pulumi_oci as oci

from tests.policies.redteam.programs import C, PSA, case

EXCLUSIVE = "version: v1\nflags:\n  migStrategy: single\n"
TIME_SLICED = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"
MPS = "version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 2\n"


def _pool(name: str, labels: dict, user_data: Optional[str] = None) -> None:
    metadata = {"areLegacyImdsEndpointsDisabled": "true"}
    if user_data:
        metadata["user_data"] = base64.b64encode(user_data.encode()).decode()
    oci.containerengine.NodePool(
        name, cluster_id="ocid1.cluster.oc1..aaaacluster", compartment_id=C, node_shape="VM.GPU.A10.2",
        node_metadata=metadata, initial_node_labels=[{"key": k, "value": v} for k, v in labels.items()],
        node_config_details={"size": 1, "is_pv_encryption_in_transit_enabled": True,
                             "nsg_ids": ["ocid1.networksecuritygroup.oc1..aaaaworkers"],
                             "placement_configs": [{"availability_domain": "AD-1",
                                                    "subnet_id": "ocid1.subnet.oc1..aaaasub"}]})


def _operator(config: dict) -> None:
    k8s.core.v1.Namespace("ns-gpu-operator", metadata={"name": "gpu-operator", "labels": {PSA: "privileged"}})
    k8s.helm.v3.Release("gpu-operator", chart="gpu-operator", version="v26.7.0", namespace="gpu-operator",
                        repository_opts={"repo": "https://helm.ngc.nvidia.com/nvidia"},
                        values={"driver": {"enabled": False}, "devicePlugin": {"enabled": True, "config": config}})


def _dedicated_queue(pool: str = "gpu") -> None:
    k8s.apiextensions.CustomResource("flavor-gpu", api_version="kueue.x-k8s.io/v1beta2", kind="ResourceFlavor",
                                     metadata={"name": "gpu"}, spec={"nodeLabels": {"okerdma.io/node-pool": pool}})
    k8s.core.v1.Namespace("ns-research", metadata={"name": "research", "labels": {
        PSA: "restricted", "okerdma.io/isolation": "dedicated"}})
    k8s.apiextensions.CustomResource("cq-research", api_version="kueue.x-k8s.io/v1beta2", kind="ClusterQueue",
                                     metadata={"name": "research"}, spec={
                                         "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name":
                                                                               "research"}},
                                         "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [
                                             {"name": "gpu",
                                              "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "2"}]}]}]})


@case("placement", "dedicated-tenant-not-on-shared-pool")
def dedicated_tenant_on_a_pool_whose_default_config_time_slices(bad):
    """The pool says exclusive, but the device plugin's default config (what every unlabelled node uses)
    time-slices each GPU; the control's default config shares nothing."""
    _pool("gpu", {"okerdma.io/node-pool": "gpu", "okerdma.io/gpu-sharing": "exclusive"})
    _operator({"create": True, "name": "dp", "default": "default",
               "data": {"default": TIME_SLICED if bad else EXCLUSIVE}})
    _dedicated_queue()


@case("placement", "dedicated-tenant-not-on-shared-pool")
def dedicated_tenant_on_a_pool_labelled_for_mps_in_cloud_init(bad):
    """The kubelet's --node-labels in the pool's cloud-init select the MPS config; the control selects the
    exclusive one."""
    chosen = "mps" if bad else "exclusive"
    script = ("#!/bin/bash\noke bootstrap --kubelet-extra-args "
              f"'--node-labels=nvidia.com/device-plugin.config={chosen}'\n")
    _pool("gpu", {"okerdma.io/node-pool": "gpu"}, user_data=script)
    _operator({"create": True, "name": "dp", "default": "exclusive", "data": {"exclusive": EXCLUSIVE, "mps": MPS}})
    _dedicated_queue()


@case("placement", "dedicated-tenant-not-on-shared-pool")
def dedicated_tenant_on_a_pool_whose_config_map_is_elsewhere(bad):
    """The device plugin reads a ConfigMap the stack does not hold, so what the pool's nodes do cannot be read; the
    control creates it from the chart's values."""
    config = {"create": False, "name": "dp", "default": "exclusive"} if bad else {
        "create": True, "name": "dp", "default": "exclusive", "data": {"exclusive": EXCLUSIVE}}
    _pool("gpu", {"okerdma.io/node-pool": "gpu"})
    _operator(config)
    _dedicated_queue()


@case("placement", "node-pool-labels-distinct")
def two_pools_one_selector(bad):
    """A time-sliced pool carries every label of the exclusive one, so a selector for the exclusive pool lands on
    the time-sliced nodes too; the control gives each pool its own name label."""
    _pool("exclusive", {"okerdma.io/role": "gpu"} if bad else {"okerdma.io/role": "gpu", "okerdma.io/node-pool": "x"})
    _pool("shared", {"okerdma.io/role": "gpu", "okerdma.io/gpu-sharing": "time-slicing"})


@case("placement", "dedicated-tenant-not-on-shared-pool")
def dedicated_tenant_on_a_self_managed_node_time_sliced_in_cloud_init(bad):
    """A self-managed GPU node (an instance whose cloud-init runs oke bootstrap) joins with the dedicated pool's
    name label and, in the unsafe variant, the time-slicing config label: the dedicated flavor lands on a shared
    node. The control's node joins under its own name with the same config label."""
    _pool("gpu", {"okerdma.io/node-pool": "gpu"})
    _operator({"create": True, "name": "dp", "default": "exclusive", "data": {"exclusive": EXCLUSIVE,
                                                                             "ts": TIME_SLICED}})
    name = "gpu" if bad else "self-managed"
    script = ("#!/bin/bash\noke bootstrap --kubelet-extra-args "
              f"'--node-labels=okerdma.io/node-pool={name},nvidia.com/device-plugin.config=ts'\n")
    oci.core.Instance("node", compartment_id=C, availability_domain="AD-1", shape="VM.GPU.A10.2",
                      create_vnic_details={"subnet_id": "ocid1.subnet.oc1..aaaasub", "assign_public_ip": "false"},
                      instance_options={"are_legacy_imds_endpoints_disabled": True},
                      source_details={"source_type": "image", "source_id": "ocid1.image.oc1..aaaagpu"},
                      metadata={"user_data": base64.b64encode(script.encode()).decode()})
    _dedicated_queue()
