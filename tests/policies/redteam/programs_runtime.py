"""What the stack's resources cannot show: grants that undo the other rules at run time (a principal type that is
every instance of the tenancy; workload and group grants that change exposure, keys or data), OCI paths around the
exposure and data rules (a route through a host, a VNIC in another network, a file-system clone, a quota unset, a
node pool's SSH key or boot script, a cluster trusting an outside issuer's names) and image tags that move."""
from __future__ import annotations

import base64

import pulumi
import pulumi_oci as oci

from tests.policies.redteam.programs import C, case, container, pod, statements, vault_key

PIN = ("request.principal.type = 'workload', request.principal.cluster_id = 'ocid1.cluster.oc1..aaaaaaaaoke', "
       "request.principal.namespace = 'research', request.principal.service_account = 'trainer'")
POOL = dict(compartment_id=C, cluster_id="ocid1.cluster.oc1..aaaaaaaacluster", name="workers",
            node_shape="VM.Standard.E5.Flex", kubernetes_version="v1.34.1",
            node_shape_config={"ocpus": 4, "memory_in_gbs": 32},
            node_source_details={"source_type": "IMAGE", "image_id": "ocid1.image.oc1..aaaaaaaaimage"},
            node_config_details={"size": 2, "is_pv_encryption_in_transit_enabled": True, "placement_configs": [
                {"availability_domain": "AD-1", "subnet_id": "ocid1.subnet.oc1..aaaaaaaaw"}]})
BOOT = ("#!/bin/bash\ncurl --fail -H 'Authorization: Bearer Oracle' -L0 "
        "http://169.254.169.254/opc/v2/instance/metadata/oke_init_script | base64 --decode >/var/run/oke-init.sh\n")


@case("identity", "iam-principal-type-pinned")
def any_user_instance_principals_read_every_object(bad):
    # type 'instance' is every instance of the tenancy (every tenant's nodes); the control pins one compartment.
    pin = "" if bad else ", request.principal.compartment.id = '" + C + "'"
    statements(f"Allow any-user to read objects in tenancy where all {{request.principal.type = 'instance'{pin}}}")


@case("identity", "iam-principal-type-pinned")
def any_user_resource_principals_read_secrets(bad):
    pin = "" if bad else ", request.principal.id = 'ocid1.fnfunc.oc1..aaaaaaaafn'"
    statements(f"Allow any-user to read secret-bundles in compartment id {C} where all "
               f"{{request.principal.type = 'resource'{pin}}}")


@case("data", "iam-no-run-time-undo")
def pinned_workload_manages_every_bucket(bad):
    statements(f"Allow any-user to manage object-family in tenancy where all {{{PIN}}}" if bad else
               f"Allow any-user to read objects in compartment id {C} where all {{{PIN}, target.bucket.name = 'd'}}")


@case("network", "iam-no-run-time-undo")
def pinned_workload_rewrites_security_rules(bad):
    statements(f"Allow any-user to {'manage' if bad else 'read'} network-security-groups in compartment id {C} "
               f"where all {{{PIN}}}")


@case("network", "iam-no-run-time-undo")
def group_manages_networks_and_public_ips(bad):
    statements(f"Allow group analytics-engineers to {'manage' if bad else 'read'} virtual-network-family in "
               f"compartment id {C}")


@case("data", "iam-no-run-time-undo")
def group_manages_protected_keys(bad):
    oci.filestorage.FileSystem("shared", compartment_id=C, availability_domain="AD-1",
                               kms_key_id=vault_key().id, opts=pulumi.ResourceOptions(protect=True))
    statements(f"Allow group analytics-engineers to {'manage' if bad else 'use'} keys in compartment id {C}")


@case("data", "iam-no-run-time-undo")
def group_manages_object_and_file_family(bad):
    verb = "manage" if bad else "read"
    statements(f"Allow group analytics-engineers to {verb} object-family in compartment id {C}",
               f"Allow group analytics-engineers to {verb} file-family in compartment id {C}")


@case("data", "iam-no-run-time-undo")
def dynamic_group_rewrites_exports_by_permission(bad):
    perm = "EXPORT_UPDATE" if bad else "EXPORT_READ"
    statements(f"Allow dynamic-group batch-nodes to {{{perm}}} in compartment id {C}")


@case("identity", "cluster-oidc-prefixed")
def cluster_trusts_an_outside_issuers_names(bad):
    oidc = {"is_open_id_connect_auth_enabled": True, "issuer_url": "https://idp.attacker.example", "client_id": "k8s",
            "username_claim": "sub", "groups_claim": "groups", "groups_prefix": "" if bad else "oidc:",
            "username_prefix": "" if bad else "oidc:"}
    _cluster({"open_id_connect_token_authentication_config": oidc})


@case("identity", "cluster-oidc-prefixed")
def cluster_oidc_groups_prefixed_system(bad):
    oidc = {"is_open_id_connect_auth_enabled": True, "issuer_url": "https://idp.example", "client_id": "k8s",
            "username_claim": "sub", "groups_claim": "groups", "groups_prefix": "system:" if bad else "idp:",
            "username_prefix": "idp:"}
    _cluster({"open_id_connect_token_authentication_config": oidc})


def _cluster(options: dict) -> None:
    oci.containerengine.Cluster("oke", compartment_id=C, vcn_id="ocid1.vcn.oc1..aaaaaaaavcn",
                                kubernetes_version="v1.34.1", type="ENHANCED_CLUSTER", name="rt",
                                endpoint_config={"is_public_ip_enabled": False, "subnet_id": "ocid1.subnet.oc1..aaapi",
                                                 "nsg_ids": ["ocid1.networksecuritygroup.oc1..aaaaaaaacp"]},
                                options=options)


def _route(target) -> None:
    vcn = oci.core.Vcn("vcn", compartment_id=C, cidr_blocks=["10.0.0.0/16"])
    nat = oci.core.NatGateway("nat", compartment_id=C, vcn_id=vcn.id)
    rt = oci.core.RouteTable("rt", compartment_id=C, vcn_id=vcn.id, route_rules=[
        {"destination": "0.0.0.0/0", "destination_type": "CIDR_BLOCK", "network_entity_id": target or nat.id}])
    oci.core.Subnet("workers", compartment_id=C, vcn_id=vcn.id, cidr_block="10.0.10.0/24", route_table_id=rt.id,
                    prohibit_public_ip_on_vnic=True)


@case("network", "route-no-private-ip-hop")
def route_all_egress_through_a_private_ip_of_the_stack(bad):
    ip = oci.core.PrivateIp("fwd", vnic_id="ocid1.vnic.oc1..aaaaaaaaforwarder", ip_address="10.0.30.9") if bad else None
    _route(ip.id if ip else None)


@case("network", "route-no-private-ip-hop")
def route_to_a_literal_private_ip(bad):
    _route("ocid1.privateip.oc1.iad.aaaaaaaahost" if bad else None)


@case("network", "vnic-in-stack-subnet")
def node_vnic_into_another_vcn(bad):
    vcn = oci.core.Vcn("vcn", compartment_id=C, cidr_blocks=["10.0.0.0/16"])
    own = oci.core.Subnet("rdma", compartment_id=C, vcn_id=vcn.id, cidr_block="10.0.50.0/24",
                          prohibit_public_ip_on_vnic=True)
    oci.core.VnicAttachment("second", instance_id="ocid1.instance.oc1..aaaaaaaagpunode1", create_vnic_details={
        "subnet_id": "ocid1.subnet.oc1..aaaaaaaapartnervcnsubnet" if bad else own.id, "assign_public_ip": False})


@case("data", "fs-not-cloned")
def file_system_cloned_from_a_protected_snapshot(bad):
    fs = oci.filestorage.FileSystem("shared", compartment_id=C, availability_domain="AD-1",
                                    kms_key_id=vault_key().id, opts=pulumi.ResourceOptions(protect=True))
    snap = oci.filestorage.Snapshot("snap", file_system_id=fs.id, name="nightly")
    oci.filestorage.FileSystem("copy", compartment_id=C, availability_domain="AD-1",
                               source_snapshot_id=snap.id if bad else None)


@case("placement", "quota-only-lowers")
def compartment_quota_unset(bad):
    oci.limits.Quota("q", compartment_id=C, name="gpu", description="gpu quotas", statements=[
        f"{'unset' if bad else 'zero'} compute-core quota /gpu-h100*/ in compartment tenant-analytics"])


@case("placement", "quota-only-lowers")
def compartment_quota_unset_after_a_zero(bad):
    oci.limits.Quota("q", compartment_id=C, name="gpu", description="gpu quotas", statements=[
        "zero compute-core quotas in tenancy",
        f"{'Unset' if bad else 'set'} compute-core quota gpu-a100-count{'' if bad else ' to 8'} in compartment lab"])


@case("pod", "node-pool-no-ssh-key")
def node_pool_ssh_key(bad):
    oci.containerengine.NodePool("workers", node_metadata={"areLegacyImdsEndpointsDisabled": "true"}, **POOL,
                                 **({"ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKey a@example"}
                                    if bad else {}))


@case("pod", "node-cloud-init-keeps-node-closed")
def node_pool_cloud_init_opens_the_kubelet(bad):
    run = ("bash /var/run/oke-init.sh --kubelet-extra-args '--anonymous-auth=true --authorization-mode=AlwaysAllow'\n"
           if bad else "bash /var/run/oke-init.sh\n")
    oci.containerengine.NodePool("workers", **POOL, node_metadata={
        "areLegacyImdsEndpointsDisabled": "true", "user_data": base64.b64encode((BOOT + run).encode()).decode()})


@case("pod", "node-cloud-init-keeps-node-closed")
def instance_cloud_init_serves_containerd_on_tcp(bad):
    script = BOOT + ("cat >>/etc/containerd/config.toml <<EOF\n[grpc]\n  tcp_address = \"0.0.0.0:8888\"\nEOF\n"
                     if bad else "bash /var/run/oke-init.sh\n")
    oci.core.Instance("node", compartment_id=C, availability_domain="AD-1", shape="VM.Standard.E5.Flex",
                      shape_config={"ocpus": 2, "memory_in_gbs": 16},
                      create_vnic_details={"subnet_id": "ocid1.subnet.oc1..aaaaaaaaw", "assign_public_ip": False},
                      source_details={"source_type": "image", "source_id": "ocid1.image.oc1..aaaaaaaaimage"},
                      instance_options={"are_legacy_imds_endpoints_disabled": True},
                      metadata={"user_data": base64.b64encode(script.encode()).decode()})


@case("supply-chain", "container-image-pinned")
def image_pinned_by_a_branch_tag(bad):
    pod({"containers": [{**container(), "image": "nvcr.io/nvidia/tritonserver:" + ("main" if bad else "25.01-py3")}]},
        ns="research", level="privileged")


@case("supply-chain", "container-image-pinned")
def image_pinned_by_a_channel_tag_in_a_deployment(bad):
    pod({"containers": [{**container(), "image": "quay.io/prometheus/node-exporter:" + ("stable" if bad else "v1.9.1")}]},
        ns="research", level="privileged", kind="Job")


@case("pod", "gpu-devices-through-device-plugin")
def nvidia_visible_devices_all_without_a_gpu_request(bad):
    c = ({**container(), "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}]} if bad else
         {**container(), "resources": {"limits": {"nvidia.com/gpu": "1"}}})
    pod({"containers": [c]}, ns="research", level="privileged", kind="Job",
        labels={"kueue.x-k8s.io/queue-name": "research"})  # a GPU Job goes through the tenant's queue


@case("pod", "gpu-devices-through-device-plugin")
def nvidia_visible_devices_by_index_in_an_init_container(bad):
    env = [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "0,1" if bad else "void"}]
    pod({"initContainers": [{**container(), "name": "i", "env": env}], "containers": [container()]},
        ns="research", level="privileged")
