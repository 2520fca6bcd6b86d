"""The IAM statement a tenant member's IAM group needs to reach this cluster: ``use clusters`` pinned to the
cluster's OCID, nothing more.

``use clusters`` (CLUSTER_USE) lets a user create a kubeconfig (``oci ce cluster create-kubeconfig``) and the token it
runs (``oci ce cluster generate-token``); what the user may then do inside the cluster is Kubernetes RBAC's decision —
the tenant RoleBindings naming the group's OCID (:mod:`oke_rdma.tenant_access`). ``manage clusters`` would make IAM
authorise every Kubernetes request (cluster-admin), so it is never granted. ``target.cluster.id`` limits the grant to
this cluster (IAM "Details for Kubernetes Engine": the variables of ``clusters``).

Sources (checked 2026-12-01): OKE docs "About Access Control and Kubernetes Engine (OKE)" and "Setting Up Cluster
Access" (downloading a kubeconfig); IAM Policy Reference "Details for Kubernetes Engine" (verbs of ``clusters``,
``target.cluster.id``).
"""

from __future__ import annotations

from typing import Iterable

import pulumi

POLICY_KEY = "cluster-users"
SOURCE = ("OKE docs, 'About Access Control and Kubernetes Engine (OKE)' (contengaboutaccesscontrol.htm); IAM, "
          "'Details for Kubernetes Engine' (target.cluster.id)")


def member_statement(group_id: str, compartment_id: str, cluster_id: pulumi.Input[str]) -> pulumi.Input[str]:
    """``Allow group id <group> to use clusters in compartment id <compartment> where target.cluster.id =
    '<cluster>'`` (an ``Output[str]`` while the cluster OCID is one)."""
    head = f"Allow group id {group_id} to use clusters in compartment id {compartment_id} where target.cluster.id = '"
    if isinstance(cluster_id, str):
        return head + cluster_id + "'"
    return pulumi.Output.concat(head, cluster_id, "'")


def member_group_ids(groups: Iterable[str]) -> tuple[str, ...]:
    """The distinct group OCIDs, in first-seen order (one statement each)."""
    return tuple(dict.fromkeys(groups))
