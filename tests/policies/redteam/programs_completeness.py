"""Red-team programs for placement, completed: self-managed RDMA nodes (instances) outside a Compute Cluster,
preemptible in one, or joining one from another AD. Registered into ``programs.CASES`` on import."""
from __future__ import annotations

import pulumi_oci as oci

from tests.policies.redteam.programs import C, case

SUBNET = "ocid1.subnet.oc1..aaaaaaaaredteamnodes"


def _instance(name: str = "node", ad: str = "AD-1", **extra) -> oci.core.Instance:
    return oci.core.Instance(name, compartment_id=C, availability_domain=ad, shape="BM.GPU.H100.8",
                             create_vnic_details={"subnet_id": SUBNET, "assign_public_ip": "false"},
                             instance_options={"are_legacy_imds_endpoints_disabled": True},
                             source_details={"source_type": "image", "source_id": "ocid1.image.oc1..aaaagpu"},
                             **extra)


def _compute_cluster() -> oci.core.ComputeCluster:
    return oci.core.ComputeCluster("cc", compartment_id=C, availability_domain="AD-1")


@case("placement", "rdma-shape-in-compute-cluster")
def rdma_instance_outside_a_compute_cluster(bad):
    cc = _compute_cluster()
    _instance(**({} if bad else {"compute_cluster_id": cc.id}))


@case("placement", "compute-cluster-not-reclaimable")
def preemptible_instance_in_a_compute_cluster(bad):
    cc = _compute_cluster()
    extra = {"preemptible_instance_config": {"preemption_action": {"type": "TERMINATE"}}} if bad else {}
    _instance(compute_cluster_id=cc.id, **extra)


@case("placement", "compute-cluster-instance-ad")
def instance_joins_a_compute_cluster_from_another_ad(bad):
    cc = _compute_cluster()
    _instance(ad="AD-2" if bad else "AD-1", compute_cluster_id=cc.id)
