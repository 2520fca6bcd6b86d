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
``openIdConnectDiscovery`` publishes the cluster's OIDC issuer (:attr:`Cluster.oidc_discovery_endpoint`);
``oidc`` lets users of your identity provider sign in with its tokens (:func:`oidc_token_authentication`).

On a stack's first preview the cluster id is unknown: the kubeconfig invoke is then skipped by the SDK and the
provider's kubeconfig is unknown; nothing here calls ``.apply`` on it.

Sources: OKE docs "Comparing Enhanced with Basic Clusters", "Using Compute Clusters to Provision Managed Nodes",
"Network Resource Configuration", "Encrypting Kubernetes Secrets at Rest in Etcd", "Enforcing the Use of Signed
Images from Registry"; pulumi-eks (one component hands out one explicit provider).
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci

from oke_rdma.facts.kubernetes import withdrawal_notice

from oke_rdma.config.compute import Cluster as ClusterConfig

#: The defaults of ``cluster.type`` and ``cluster.cniType``.
CLUSTER_TYPE = "ENHANCED_CLUSTER"
CNI_TYPE = "OCI_VCN_IP_NATIVE"
KUBECONFIG_TOKEN_VERSION = "2.0.0"


def oidc_token_authentication(cl: ClusterConfig) -> Optional[
        oci.containerengine.ClusterOptionsOpenIdConnectTokenAuthenticationConfigArgs]:
    """The API server's OIDC token authentication from ``cluster.oidc`` (None without it): issuer, client id,
    username and groups claims with their required prefixes, required claims, signing algorithms, CA (pulumi-oci
    ``ClusterOptionsOpenIdConnectTokenAuthenticationConfigArgs``; OKE docs "Authenticating Cluster Users using an
    External OpenID Connect (OIDC) Identity Provider", enhanced clusters only, checked 2026-12-01)."""
    o = cl.oidc
    if o is None:
        return None
    return oci.containerengine.ClusterOptionsOpenIdConnectTokenAuthenticationConfigArgs(
        is_open_id_connect_auth_enabled=True, issuer_url=o.issuer_url, client_id=o.client_id,
        username_claim=o.username_claim, username_prefix=o.username_prefix, groups_claim=o.groups_claim,
        groups_prefix=o.groups_prefix, signing_algorithms=list(o.signing_algorithms), ca_certificate=o.ca_certificate,
        required_claims=[oci.containerengine.ClusterOptionsOpenIdConnectTokenAuthenticationConfigRequiredClaimArgs(
            key=c.key, value=c.value) for c in o.required_claims] or None)


class ClusterArgs:
    """Inputs of :class:`Cluster`.

    :param compartment_id: OCID of the cluster's compartment.
    :param cluster: the cluster's config (:class:`oke_rdma.config.Cluster`, the ``oke-rdma:cluster`` model:
        ``kubernetesVersion`` (``v1.x.y``), ``type``, ``cniType``, ``servicesCidr``, ``kmsKeyId``,
        ``imageVerificationKeyIds``, ``openIdConnectDiscovery``).
    :param vcn_id: the VCN OCID.
    :param subnet_ids: subnet OCID per role; uses ``controlPlane`` and ``internalLoadBalancers``.
    :param nsg_ids: NSG OCID per role; uses ``controlPlane``.
    :param public_endpoint: give the API endpoint a public IP (default False: private only;
        ``network.apiEndpoint.public`` in the stack config).
    :param name_prefix: prefix of the logical and display names (default ``okerdma``).
    :param freeform_tags: free-form tags on the cluster, its load balancers and volumes (default none).
    :param depends_on: resources the OKE cluster waits for (the IAM policy letting clusters use the Vault keys of
        ``kmsKeyId`` / ``imageVerificationKeyIds``: OKE checks it when creating the cluster).
    :raises ValueError: a missing subnet or NSG role, or a cluster config that is not a :class:`oke_rdma.config.Cluster`.
    """

    def __init__(self, compartment_id: str, cluster: ClusterConfig, vcn_id: pulumi.Input[str],
                 subnet_ids: Mapping[str, pulumi.Input[str]], nsg_ids: Mapping[str, pulumi.Input[str]], *,
                 public_endpoint: bool = False, name_prefix: str = "okerdma",
                 freeform_tags: Optional[Mapping[str, str]] = None, depends_on: Sequence[pulumi.Resource] = ()):
        if not isinstance(cluster, ClusterConfig):
            raise ValueError(f"ClusterArgs.cluster: expected an oke_rdma.config.Cluster (build it with "
                             f"Cluster.model_validate({{'kubernetesVersion': 'v1.34.1'}})), got {type(cluster).__name__}")
        missing = [f"subnet_ids[{r!r}]" for r in ("controlPlane", "internalLoadBalancers") if r not in subnet_ids]
        missing += [f"nsg_ids[{r!r}]" for r in ("controlPlane",) if r not in nsg_ids]
        if missing:
            raise ValueError(f"ClusterArgs: {', '.join(missing)} missing; pass the network's subnet_ids and nsg_ids")
        self.compartment_id = compartment_id
        self.cluster = cluster
        self.vcn_id = vcn_id
        self.subnet_ids = dict(subnet_ids)
        self.nsg_ids = dict(nsg_ids)
        self.public_endpoint = public_endpoint
        self.name_prefix = name_prefix
        self.freeform_tags = dict(freeform_tags or {})
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
        cl = args.cluster
        prefix, tags = args.name_prefix, args.freeform_tags

        image_policy = None
        if cl.image_verification_key_ids:
            image_policy = oci.containerengine.ClusterImagePolicyConfigArgs(
                is_policy_enabled=True,
                key_details=[oci.containerengine.ClusterImagePolicyConfigKeyDetailArgs(kms_key_id=k)
                             for k in cl.image_verification_key_ids])
        oidc = (oci.containerengine.ClusterOptionsOpenIdConnectDiscoveryArgs(is_open_id_connect_discovery_enabled=True)
                if cl.open_id_connect_discovery else None)
        token_auth = oidc_token_authentication(cl)

        self.cluster = oci.containerengine.Cluster(f"{prefix}-oke", oci.containerengine.ClusterArgs(
            compartment_id=args.compartment_id, name=f"{prefix}-oke", vcn_id=args.vcn_id,
            kubernetes_version=cl.kubernetes_version, type=cl.type,
            cluster_pod_network_options=[oci.containerengine.ClusterClusterPodNetworkOptionArgs(
                cni_type=cl.cni_type)],
            kms_key_id=cl.kms_key_id, image_policy_config=image_policy,
            endpoint_config=oci.containerengine.ClusterEndpointConfigArgs(
                subnet_id=args.subnet_ids["controlPlane"], is_public_ip_enabled=args.public_endpoint,
                nsg_ids=[args.nsg_ids["controlPlane"]]),
            options=oci.containerengine.ClusterOptionsArgs(
                service_lb_subnet_ids=[args.subnet_ids["internalLoadBalancers"]],
                kubernetes_network_config=oci.containerengine.ClusterOptionsKubernetesNetworkConfigArgs(
                    services_cidr=cl.services_cidr),
                open_id_connect_discovery=oidc,
                open_id_connect_token_authentication_config=token_auth,
                persistent_volume_config=oci.containerengine.ClusterOptionsPersistentVolumeConfigArgs(
                    freeform_tags=tags),
                service_lb_config=oci.containerengine.ClusterOptionsServiceLbConfigArgs(
                    freeform_tags=tags)),
            freeform_tags=tags),
            pulumi.ResourceOptions(parent=self, depends_on=args.depends_on,
                                   # OCI cannot change these in place: the cluster (and every pool) is recreated.
                                   replace_on_changes=["kmsKeyId", "clusterPodNetworkOptions[*].cniType"]))

        notice = withdrawal_notice(cl.kubernetes_version)
        if notice:  # an existing cluster keeps running it; the offline preview refuses a new one (exit 2)
            pulumi.log.warn(f"oke-rdma:cluster.kubernetesVersion: {notice}", resource=self.cluster)
        self.cluster_id = self.cluster.id
        self.kubernetes_version = self.cluster.kubernetes_version
        self.api_endpoint = self.cluster.endpoints.apply(lambda e: e[0].private_endpoint if e else None)
        self.oidc_discovery_endpoint: Optional[pulumi.Output[str]] = (
            self.cluster.open_id_connect_discovery_endpoint if cl.open_id_connect_discovery else None)
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
