"""Tenancy needs pods that speak with their own address: ``tenant-walls-need-vcn-native-pods``.

Every wall between tenants that a stack's OCI resources draw trusts where packets come from: FSS exports and storage
NSG rules admit the node subnets and never a pod subnet (``storage-trusts-only-node-addresses``), Lustre's root-squash
exceptions likewise, and Cilium's tenant walls chain onto OKE's VCN-native CNI only. With flannel overlay pod
networking a pod's traffic leaves the node SNATed to the node's address (OKE docs "Pod Networking": "Using the flannel
CNI plugin for pod networking"), so every tenant's pod reaches storage *as a node*, every UID claim it makes is
believed, and the walls tell no tenant apart. The oke-rdma config refuses this (``cluster.cniType``,
``oke_rdma/config/checks/walls.py``); this rule holds it for every stack the pack judges, hand-written ones included.

A stack with tenants (``_pss.tenant_namespaces``: a namespace with a GPU ResourceQuota, a Kueue LocalQueue or the
``okerdma.io/tenant`` label, rendered Helm objects included) is refused when:

* an ``oci:ContainerEngine/cluster:Cluster`` of the stack lists a ``clusterPodNetworkOptions[].cniType`` other than
  ``OCI_VCN_IP_NATIVE`` (the list is what node pools may choose from, so one flannel entry is enough), or lists none
  (the API's default is flannel: OKE docs "Using the flannel CNI plugin for pod networking", "If you use the API,
  the flannel CNI plugin continues to be the default"), or the list or a type is unknown during preview;
* an ``oci:ContainerEngine/nodePool:NodePool`` of the stack sets
  ``nodeConfigDetails.nodePoolPodNetworkOptionDetails.cniType`` to anything else (or an unknown).

A stack without tenants may use flannel. A cluster the stack does not declare (brought by OCID) is not judged: its
CNI cannot be read here.

Sources (checked 2026-12-03): pulumi_oci 5.5.0 ``containerengine/cluster.py`` (``clusterPodNetworkOptions``:
"Available CNIs and network options for existing and new node pools of the cluster"; ``cniType``
``OCI_VCN_IP_NATIVE``, ``FLANNEL_OVERLAY``), ``containerengine/_inputs.py``
(``NodePoolNodeConfigDetailsNodePoolPodNetworkOptionDetails.cniType``); OKE docs "Pod Networking" (flannel: pods on
an overlay, traffic leaving the node source-NATed to the node's IP; VCN-native: each pod a VNIC address of the pod
subnet); Cilium docs "Oracle Kubernetes Engine (OKE)" (chaining needs VCN-native pod networking).
"""
from __future__ import annotations

from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy

if __package__:  # imported as the package `policies.security`
    from . import _rules as R
    from ._objects import with_derived
    from ._pss import tenant_namespaces
else:  # run by the Pulumi CLI from inside policies/security/
    import _rules as R
    from _objects import with_derived
    from _pss import tenant_namespaces

UNKNOWN = R.UNKNOWN
RULE = "tenant-walls-need-vcn-native-pods"
VCN_NATIVE = "OCI_VCN_IP_NATIVE"
WHY = ("pods then leave their node with the node's address (SNAT), so the exports, storage NSG rules, Lustre "
       "exceptions and Cilium walls that trust node addresses no longer tell one tenant from another")


def cluster_problems(props: Any) -> list[str]:
    """Why a cluster's pod networking may give pods their node's address ([] for VCN-native only)."""
    options = R.elements(R.read(props, "clusterPodNetworkOptions"))
    if options is UNKNOWN:
        return ["its clusterPodNetworkOptions are unknown during preview"]
    if not options:
        return [f"sets no clusterPodNetworkOptions, and a cluster created through the API then uses flannel "
                f"overlay (OKE's default outside the Console); set clusterPodNetworkOptions "
                f"[{{cniType: {VCN_NATIVE}}}]"]
    found = []
    for i, option in enumerate(options):
        cni = R.read(option, "cniType")
        if cni != VCN_NATIVE:
            shown = "unknown during preview" if cni is UNKNOWN else repr(cni)
            found.append(f"offers its node pools clusterPodNetworkOptions[{i}].cniType {shown}")
    return found


def pool_problems(props: Any) -> list[str]:
    """Why a node pool's own pod networking may give pods their node's address (unset: the cluster's decides)."""
    cni = R.read(props, "nodeConfigDetails", "nodePoolPodNetworkOptionDetails", "cniType")
    if cni is None or cni == VCN_NATIVE:
        return []
    return [f"sets nodeConfigDetails.nodePoolPodNetworkOptionDetails.cniType "
            f"{'unknown during preview' if cni is UNKNOWN else repr(cni)}"]


def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``tenant-walls-need-vcn-native-pods`` (module docstring)."""
    tenants = sorted(tenant_namespaces(list(with_derived(args.resources))))
    if not tenants:
        return
    for r in args.resources:
        if r.resource_type == R.CLUSTER:
            problems = cluster_problems(r.props)
        elif r.resource_type == R.NODE_POOL:
            problems = pool_problems(r.props)
        else:
            continue
        for problem in problems:
            report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}' {problem} while the stack has tenants "
                             f"({', '.join(tenants[:3])}{', ...' if len(tenants) > 3 else ''}): {WHY}. Use "
                             f"{VCN_NATIVE} pod networking, or keep tenants off this cluster.", r.urn)


POLICIES = [
    StackValidationPolicy(
        name=RULE,
        description=("A stack with tenants runs them on VCN-native pod networking: with flannel overlay pods speak "
                     "with their node's address, and the walls that trust node addresses hold no tenant apart."),
        validate=validate, enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.HIGH,
        remediation_steps=(f"Set the cluster's clusterPodNetworkOptions to [{{cniType: {VCN_NATIVE}}}] (a new "
                           "cluster: the CNI cannot be changed in place) and give node pools pod subnets. Source: OKE "
                           "docs 'Pod Networking'; docs/threat-model.md, 'The UID wall on shared storage'."),
        tags=["oci", "kubernetes", "tenancy", "storage"]),
]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    RULE: ("fails closed: an unknown clusterPodNetworkOptions list or cniType, or a pool's unknown cniType, is a "
           "violation when the stack has tenants"),
}
