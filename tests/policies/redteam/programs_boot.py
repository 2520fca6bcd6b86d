"""What nodes run at boot and who the cluster lets in, reached around the first rules: a kubelet-opening boot script
wrapped in gzip and MIME, a boot script included from a URL, a static pod written by cloud-config, a structured OIDC
configuration whose claim mappings have no prefix, the legacy Tiller and Dashboard add-ons, and a probe that makes
the kubelet call the instance metadata service for the pod."""
from __future__ import annotations

import base64
import gzip
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

import pulumi_oci as oci
import yaml

from tests.policies.redteam.programs import C, case, container, pod
from tests.policies.redteam.programs_runtime import BOOT, POOL

RUN_OKE = "bash /var/run/oke-init.sh\n"
CLUSTER = dict(compartment_id=C, vcn_id="ocid1.vcn.oc1..aaaaaaaavcn", kubernetes_version="v1.34.1",
               type="ENHANCED_CLUSTER", name="rt", endpoint_config={
                   "is_public_ip_enabled": False, "subnet_id": "ocid1.subnet.oc1..aaaaaaaaapi",
                   "nsg_ids": ["ocid1.networksecuritygroup.oc1..aaaaaaaacp"]})


def _pool(user_data: bytes) -> None:
    oci.containerengine.NodePool("workers", **POOL, node_metadata={
        "areLegacyImdsEndpointsDisabled": "true", "user_data": base64.b64encode(user_data).decode()})


@case("pod", "node-cloud-init-keeps-node-closed")
def node_pool_cloud_init_gzip_mime_opens_the_kubelet(bad):
    # cloud-init decompresses gzip and walks MIME parts (a base64 text/x-shellscript here) before it runs them
    run = ("bash /var/run/oke-init.sh --kubelet-extra-args '--anonymous-auth=true --authorization-mode=AlwaysAllow'\n"
           if bad else RUN_OKE)
    message = MIMEMultipart()
    message.attach(MIMEText(BOOT + run, "x-shellscript", "utf-8"))
    _pool(gzip.compress(message.as_bytes(), mtime=0))


@case("supply-chain", "node-cloud-init-keeps-node-closed")
def node_pool_cloud_init_includes_a_url(bad):
    # cloud-init fetches an #include URL at every boot: what the node runs is what that address serves then
    _pool(b"#include\nhttps://raw.githubusercontent.com/example/node-setup/main/boot.sh\n" if bad
          else (BOOT + RUN_OKE).encode())


@case("pod", "node-cloud-init-keeps-node-closed")
def node_pool_cloud_config_writes_a_static_pod(bad):
    # the kubelet runs what is in its static pod directory with no admission, no pack and no Pod Security
    path = "/etc/kubernetes/manifests/agent.yaml" if bad else "/etc/motd"
    manifest = "apiVersion: v1\nkind: Pod\nspec:\n  hostPID: true\n  containers: [{name: a, image: busybox}]\n"
    _pool(("#cloud-config\n" + yaml.safe_dump({"write_files": [{"path": path, "content": manifest}],
                                                "runcmd": [BOOT.splitlines()[1], RUN_OKE.strip()]})).encode())


@case("identity", "cluster-oidc-prefixed")
def cluster_oidc_configuration_file_unprefixed(bad):
    # the flag prefixes are set, but the structured configuration the API server uses maps groups with prefix ""
    prefix = '""' if bad else '"oidc:"'
    cfg = (f"apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n"
           f"    url: https://idp.example\n    audiences: [k8s]\n  claimMappings:\n"
           f"    username: {{claim: sub, prefix: \"oidc:\"}}\n    groups: {{claim: groups, prefix: {prefix}}}\n")
    oci.containerengine.Cluster("oke", **CLUSTER, options={"open_id_connect_token_authentication_config": {
        "is_open_id_connect_auth_enabled": True, "issuer_url": "https://idp.example", "client_id": "k8s",
        "username_prefix": "oidc:", "groups_prefix": "oidc:",
        "configuration_file": base64.b64encode(cfg.encode()).decode()}})


@case("identity", "cluster-add-ons-closed")
def cluster_with_tiller_and_dashboard_add_ons(bad):
    # Tiller takes unauthenticated gRPC from any pod; the Dashboard acts with its service account's rights
    oci.containerengine.Cluster("oke", **CLUSTER, options={"add_ons": {
        "is_tiller_enabled": bad, "is_kubernetes_dashboard_enabled": bad}})


@case("network", "pod-probes-target-own-pod")
def probe_host_points_the_kubelet_at_the_metadata_service(bad):
    # the kubelet runs probes from the node's network: past the wall's egress deny of 169.254.169.254/32
    host = {"host": "169.254.169.254"} if bad else {}
    pod({"containers": [{**container(), "livenessProbe": {"httpGet": {**host, "path": "/opc/v2/instance/",
                                                                      "port": 80, "httpHeaders": [
                                                                          {"name": "Authorization",
                                                                           "value": "Bearer Oracle"}]}}}]})


