"""OKE Workload Identity in the cluster: each tenant's Kubernetes ServiceAccounts and its workload mapping.

For every binding of :func:`oke_rdma.config.workload_bindings` this creates the ``ServiceAccount`` named by the
binding in the tenant's namespace — the same binding object the IAM component builds the policy condition
(``request.principal.namespace`` / ``request.principal.service_account``) from, so the two cannot drift apart.
Pods authenticate with the OCI SDK's OKE workload identity provider (``automountServiceAccountToken: true`` on the
pod); nothing is annotated on the ServiceAccount.

When a tenant's grants reach a compartment other than the stack's, OKE needs a ``ClusterWorkloadMapping`` from the
tenant's namespace to that compartment; it is created here, after the policies that allow the deployer group to
create it (``IamArgs`` / ``Iam.workload_mapping_dependencies``, wired by ``__main__.py``).

Sources: OKE docs "Granting Workloads Access to OCI Resources" (contenggrantingworkloadaccesstoresources.htm),
including "... in a Different Compartment"; pulumi_oci ``containerengine.ClusterWorkloadMapping``.
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci

from oke_rdma.config.workload_identity import WorkloadBinding


class WorkloadIdentityArgs:
    """Inputs of :class:`WorkloadIdentity`.

    :param bindings: the :class:`oke_rdma.config.WorkloadBinding` list (tenant, namespace, service account, grants,
        mapped compartment), e.g. :func:`oke_rdma.config.workload_bindings` of a stack config.
    :param compartment_id: the compartment of the ClusterWorkloadMappings (the cluster's).
    :param provider: the explicit Kubernetes provider of the OKE cluster; every ServiceAccount uses it.
    :param cluster_id: the OKE cluster OCID (of the workload mappings).
    :param namespaces: namespace name → the ``Namespace`` resource (``Platform.namespaces``); each ServiceAccount
        waits for its namespace.
    :param mapping_depends_on: tenant → what its ClusterWorkloadMapping waits for (the IAM policies allowing it).
    :param name_prefix: prefix of logical names (default ``okerdma``).
    :param freeform_tags: free-form tags on the mappings (default none).
    :raises KeyError: (at construction of the component) when a tenant's namespace is missing from ``namespaces``.
    """

    def __init__(self, bindings: Sequence[WorkloadBinding], compartment_id: str, provider: pulumi.ProviderResource,
                 cluster_id: pulumi.Input[str], namespaces: Mapping[str, pulumi.Resource],
                 mapping_depends_on: Optional[Mapping[str, Sequence[pulumi.Resource]]] = None, *,
                 name_prefix: str = "okerdma", freeform_tags: Optional[Mapping[str, str]] = None):
        self.bindings = list(bindings)
        self.compartment_id = compartment_id
        self.name_prefix = name_prefix
        self.freeform_tags = dict(freeform_tags or {})
        self.provider = provider
        self.cluster_id = cluster_id
        self.namespaces = namespaces
        self.mapping_depends_on = dict(mapping_depends_on or {})


class WorkloadIdentity(pulumi.ComponentResource):
    """ServiceAccounts and ClusterWorkloadMappings for Workload Identity (type ``oke-rdma:workload_identity:
    WorkloadIdentity``).

    Names: ServiceAccount ``<prefix>-sa-<namespace>.<service account>`` (unambiguous: a namespace has no ``.``);
    mapping ``<prefix>-wi-mapping-<tenant>`` in ``compartmentId``. Attributes: ``service_accounts``
    (``(namespace, name)`` → ``ServiceAccount``), ``workload_mappings`` (tenant → ``ClusterWorkloadMapping``),
    ``bindings`` (the :class:`oke_rdma.config.WorkloadBinding` list).
    """

    def __init__(self, name: str, args: WorkloadIdentityArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:workload_identity:WorkloadIdentity", name, None, opts)
        prefix = args.name_prefix
        self.bindings = args.bindings
        self.service_accounts: dict[tuple[str, str], k8s.core.v1.ServiceAccount] = {}
        self.workload_mappings: dict[str, oci.containerengine.ClusterWorkloadMapping] = {}

        for b in self.bindings:
            namespace = args.namespaces[b.namespace]
            self.service_accounts[(b.namespace, b.service_account)] = k8s.core.v1.ServiceAccount(
                f"{prefix}-sa-{b.namespace}.{b.service_account}", k8s.core.v1.ServiceAccountInitArgs(
                    metadata=k8s.meta.v1.ObjectMetaArgs(
                        name=b.service_account, namespace=b.namespace,
                        labels={"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": prefix,
                                "okerdma.io/tenant": b.tenant})),
                pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=[namespace]))
            if b.mapped_compartment_id and b.tenant not in self.workload_mappings:
                self.workload_mappings[b.tenant] = oci.containerengine.ClusterWorkloadMapping(
                    f"{prefix}-wi-mapping-{b.tenant}", oci.containerengine.ClusterWorkloadMappingArgs(
                        cluster_id=args.cluster_id, namespace=b.namespace,
                        mapped_compartment_id=b.mapped_compartment_id, freeform_tags=args.freeform_tags),
                    pulumi.ResourceOptions(parent=self, depends_on=list(args.mapping_depends_on.get(b.tenant, []))))

        self.register_outputs({
            "serviceAccounts": [f"{ns}/{sa}" for ns, sa in self.service_accounts],
            "workloadMappings": {t: m.mapped_compartment_id for t, m in self.workload_mappings.items()}})
