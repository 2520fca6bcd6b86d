"""The OKE cluster and the one Kubernetes provider every in-cluster resource uses.

Builds an ``ENHANCED_CLUSTER`` by default (required for managed node pools in Compute Clusters, node cycling, OIDC
discovery and Workload Identity; ``cluster.type`` may select ``BASIC_CLUSTER``) with VCN-native pod networking
(``OCI_VCN_IP_NATIVE``, or ``FLANNEL_OVERLAY`` from ``cluster.cniType``), its API endpoint in the control-plane subnet behind the
control-plane NSG (a public IP only when ``network.apiEndpoint.public``), load balancers in the internal load
balancer subnet; reads its kubeconfig (``token_version`` 2.0.0, which runs ``oci ce cluster generate-token``, so the
user needs the OCI CLI) as a **secret**, and builds one explicit ``pulumi_kubernetes.Provider`` from it.

Optional, from ``cluster``: ``kmsKeyId`` encrypts Kubernetes secrets in etcd with that Vault key (the cluster must
not be created before the IAM policy letting clusters use the key: pass it in ``ClusterArgs.depends_on``);
``imageVerificationKeyIds`` enables the image signature verification policy with those keys;
``openIdConnectDiscovery`` publishes the cluster's OIDC issuer (:attr:`Cluster.oidc_discovery_endpoint`).

On a stack's first preview the cluster id is unknown: the kubeconfig invoke is then skipped by the SDK and the
provider's kubeconfig is unknown; nothing here calls ``.apply`` on it.

Sources: OKE docs "Comparing Enhanced with Basic Clusters", "Using Compute Clusters to Provision Managed Nodes",
"Network Resource Configuration", "Encrypting Kubernetes Secrets at Rest in Etcd", "Enforcing the Use of Signed
Images from Registry"; pulumi-eks (one component hands out one explicit provider).
"""

from __future__ import annotations

from typing import Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci

from oke_rdma.config import StackConfig

#: The defaults of ``cluster.type`` and ``cluster.cniType``.
CLUSTER_TYPE = "ENHANCED_CLUSTER"
CNI_TYPE = "OCI_VCN_IP_NATIVE"
KUBECONFIG_TOKEN_VERSION = "2.0.0"


class ClusterArgs:
    """Inputs of :class:`Cluster`.

    :param config: the stack config (reads ``cluster``, ``network.apiEndpoint``, ``compartmentId``, ``namePrefix``).
    :param vcn_id: the VCN OCID.
    :param subnet_ids: subnet OCID per role; uses ``controlPlane`` and ``internalLoadBalancers``.
    :param nsg_ids: NSG OCID per role; uses ``controlPlane``.
    :param depends_on: resources the OKE cluster waits for (the IAM policy letting clusters use the Vault keys of
        ``cluster.kmsKeyId`` / ``cluster.imageVerificationKeyIds``: OKE checks it when creating the cluster).
    """

    def __init__(self, config: StackConfig, vcn_id: pulumi.Input[str], subnet_ids: dict[str, pulumi.Input[str]],
                 nsg_ids: dict[str, pulumi.Input[str]], depends_on: Sequence[pulumi.Resource] = ()):
        self.config = config
        self.vcn_id = vcn_id
        self.subnet_ids = subnet_ids
        self.nsg_ids = nsg_ids
        self.depends_on = list(depends_on)


class Cluster(pulumi.ComponentResource):
    """An OKE cluster (enhanced by default) plus its Kubernetes provider (type ``oke-rdma:cluster:Cluster``).

    Attributes: ``cluster`` (the ``oci.containerengine.Cluster``), ``cluster_id``, ``kubernetes_version``,
    ``api_endpoint`` (private ``host:6443``), ``kubeconfig`` (secret ``Output[str]``), ``provider`` (the explicit
    ``pulumi_kubernetes.Provider`` for every Kubernetes resource), ``oidc_discovery_endpoint`` (``Output[str]``, or
    None when ``cluster.openIdConnectDiscovery`` is off).

    ``kmsKeyId`` and the CNI type cannot change on an existing cluster: OCI replaces the cluster (and with it every
    node pool), see the offline preview's ``--previous``.
    """

    def __init__(self, name: str, args: ClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:cluster:Cluster", name, None, opts)
        cfg = args.config
        prefix = cfg.name_prefix
        api = cfg.network.api_endpoint

        image_policy = None
        if cfg.cluster.image_verification_key_ids:
            image_policy = oci.containerengine.ClusterImagePolicyConfigArgs(
                is_policy_enabled=True,
                key_details=[oci.containerengine.ClusterImagePolicyConfigKeyDetailArgs(kms_key_id=k)
                             for k in cfg.cluster.image_verification_key_ids])
        oidc = (oci.containerengine.ClusterOptionsOpenIdConnectDiscoveryArgs(is_open_id_connect_discovery_enabled=True)
                if cfg.cluster.open_id_connect_discovery else None)

        self.cluster = oci.containerengine.Cluster(f"{prefix}-oke", oci.containerengine.ClusterArgs(
            compartment_id=cfg.compartment_id, name=f"{prefix}-oke", vcn_id=args.vcn_id,
            kubernetes_version=cfg.cluster.kubernetes_version, type=cfg.cluster.type,
            cluster_pod_network_options=[oci.containerengine.ClusterClusterPodNetworkOptionArgs(
                cni_type=cfg.cluster.cni_type)],
            kms_key_id=cfg.cluster.kms_key_id, image_policy_config=image_policy,
            endpoint_config=oci.containerengine.ClusterEndpointConfigArgs(
                subnet_id=args.subnet_ids["controlPlane"], is_public_ip_enabled=api.public,
                nsg_ids=[args.nsg_ids["controlPlane"]]),
            options=oci.containerengine.ClusterOptionsArgs(
                service_lb_subnet_ids=[args.subnet_ids["internalLoadBalancers"]],
                kubernetes_network_config=oci.containerengine.ClusterOptionsKubernetesNetworkConfigArgs(
                    services_cidr=cfg.cluster.services_cidr),
                open_id_connect_discovery=oidc,
                persistent_volume_config=oci.containerengine.ClusterOptionsPersistentVolumeConfigArgs(
                    freeform_tags=cfg.freeform_tags),
                service_lb_config=oci.containerengine.ClusterOptionsServiceLbConfigArgs(
                    freeform_tags=cfg.freeform_tags)),
            freeform_tags=cfg.freeform_tags),
            pulumi.ResourceOptions(parent=self, depends_on=args.depends_on,
                                   # OCI cannot change these in place: the cluster (and every pool) is recreated.
                                   replace_on_changes=["kmsKeyId", "clusterPodNetworkOptions[*].cniType"]))

        self.cluster_id = self.cluster.id
        self.kubernetes_version = self.cluster.kubernetes_version
        self.api_endpoint = self.cluster.endpoints.apply(lambda e: e[0].private_endpoint if e else None)
        self.oidc_discovery_endpoint: Optional[pulumi.Output[str]] = (
            self.cluster.open_id_connect_discovery_endpoint if cfg.cluster.open_id_connect_discovery else None)
        kubeconfig = oci.containerengine.get_cluster_kube_config_output(
            cluster_id=self.cluster.id, token_version=KUBECONFIG_TOKEN_VERSION,
            opts=pulumi.InvokeOutputOptions(parent=self))
        self.kubeconfig = pulumi.Output.secret(kubeconfig.content)
        # clusterIdentifier: pulumi-kubernetes replaces the provider (and every object it manages) only when it
        # changes, so a refreshed kubeconfig of the same cluster is an update and a new cluster a replacement
        # (provider.go DiffConfig, pulumi-kubernetes v4.32.0-27-g9497796, checked 2026-11-30).
        self.provider = k8s.Provider(f"{prefix}-k8s", k8s.ProviderArgs(
            kubeconfig=self.kubeconfig, cluster_identifier=self.cluster.id, enable_server_side_apply=True,
            delete_unreachable=False), pulumi.ResourceOptions(parent=self))

        self.register_outputs({"clusterId": self.cluster_id, "kubeconfig": self.kubeconfig})
