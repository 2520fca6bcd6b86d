"""Red-team programs (pass 6, exposure and the storage wall): IPv6 ranges that carry all of IPv4 (Teredo, local-use
NAT64, IPv4-translated) as sources, VNICs of an instance configuration beyond the primary one, and shared storage in
a subnet that hosts a node pool. Registered in ``programs.CASES`` on import; each control differs only in what makes
the input unsafe."""
from __future__ import annotations

import pulumi_oci as oci

from tests.policies.redteam.programs import C, case, nsg_rule

AD = "bxtG:SA-SAOPAULO-1-AD-1"


@case("network", "no-internet-ssh-or-all-ports")
def ssh_from_teredo(bad):
    """SSH from 2001::/32: every IPv4 host reaches the IPv6 internet through a public Teredo relay."""
    nsg_rule(source="2001::/32" if bad else "2a01:4f8::/32")


@case("network", "no-internet-ssh-or-all-ports")
def security_list_all_ports_from_ipv4_translated(bad):
    """Every port from ::ffff:0:0:0/96 (RFC 2765 IPv4-translated addresses): the whole IPv4 internet."""
    oci.core.SecurityList("sl", compartment_id=C, vcn_id="ocid1.vcn.oc1..aaaa", ingress_security_rules=[
        {"protocol": "all", "source": "::ffff:0:0:0/96" if bad else "::ffff:0:a00:0/104"}])


@case("network", "no-public-endpoints")
def bastion_clients_through_local_nat64(bad):
    """A bastion admitting 64:ff9b:1::/48 (RFC 8215 local-use NAT64): every IPv4 client, whatever the layout."""
    oci.bastion.Bastion("b", bastion_type="STANDARD", compartment_id=C, target_subnet_id="ocid1.subnet.oc1..aaaa",
                        client_cidr_block_allow_lists=["64:ff9b:1::/48" if bad else "203.0.113.0/24"])


def _config(**details):
    oci.core.InstanceConfiguration("ic", compartment_id=C, instance_details={"instance_type": "compute", **details})


PRIVATE = {"assign_public_ip": False, "subnet_id": "ocid1.subnet.oc1..aaaa"}


@case("network", "no-public-endpoints")
def instance_configuration_secondary_vnic_public(bad):
    """A secondary VNIC of an instance configuration takes a public IP while the primary stays private."""
    _config(launch_details={"compartment_id": C, "create_vnic_details": PRIVATE},
            secondary_vnics=[{"create_vnic_details": {**PRIVATE, "assign_public_ip": bad}}])


@case("network", "no-public-endpoints")
def instance_configuration_option_vnic_public(bad):
    """instance_options: each option's launch details declare a primary VNIC of their own."""
    oci.core.InstanceConfiguration("ic", compartment_id=C, instance_details={
        "instance_type": "instance_options", "options": [{"launch_details": {
            "compartment_id": C, "create_vnic_details": {**PRIVATE, "assign_public_ip": bad}}}]})


@case("network", "no-public-endpoints")
def instance_configuration_vnic_with_ipv6(bad):
    """A VNIC given an IPv6 address: OCI's IPv6 addresses are globally routable."""
    _config(launch_details={"compartment_id": C, "create_vnic_details": {**PRIVATE, "assign_ipv6ip": bad}})


def _pool_with_subnets():
    vcn = oci.core.Vcn("vcn", compartment_id=C, cidr_blocks=["10.0.0.0/16"])

    def subnet(name, cidr, sources):
        sl = oci.core.SecurityList(f"sl-{name}", compartment_id=C, vcn_id=vcn.id, ingress_security_rules=[
            {"protocol": "all", "source": s, "source_type": "CIDR_BLOCK"} for s in sources])
        return oci.core.Subnet(name, compartment_id=C, vcn_id=vcn.id, cidr_block=cidr, prohibit_public_ip_on_vnic=True,
                               security_list_ids=[sl.id])
    workers = subnet("workers", "10.0.16.0/20", ["10.0.16.0/20", "10.0.128.0/17"])
    pods = subnet("pods", "10.0.128.0/17", ["10.0.128.0/17", "10.0.16.0/20"])
    storage = subnet("storage", "10.0.32.0/24", ["10.0.16.0/20"])
    oci.containerengine.NodePool(
        "pool", cluster_id="ocid1.cluster.oc1..aaaa", compartment_id=C, kubernetes_version="v1.35.2", name="cpu",
        node_shape="VM.Standard.E5.Flex", node_shape_config={"ocpus": 4, "memory_in_gbs": 32},
        node_source_details={"source_type": "IMAGE", "image_id": "ocid1.image.oc1..aaaa"},
        node_metadata={"areLegacyImdsEndpointsDisabled": "true"},
        initial_node_labels=[{"key": "okerdma.io/node-pool", "value": "cpu"}],
        node_config_details={"size": 2, "is_pv_encryption_in_transit_enabled": True,
                             "placement_configs": [{"availability_domain": AD, "subnet_id": workers.id}],
                             "node_pool_pod_network_option_details": {"cni_type": "OCI_VCN_IP_NATIVE",
                                                                      "pod_subnet_ids": [pods.id]}})
    return workers, pods, storage


@case("data", "storage-trusts-only-node-addresses")
def mount_target_in_the_workers_subnet(bad):
    """A mount target among the workers: VCN-native pods reach their nodes' subnet on every port."""
    workers, _, storage = _pool_with_subnets()
    oci.filestorage.MountTarget("mt", availability_domain=AD, compartment_id=C,
                                subnet_id=workers.id if bad else storage.id)


@case("data", "storage-trusts-only-node-addresses")
def lustre_in_the_pods_subnet(bad):
    """A Lustre file system among the pods: no export list narrows Lustre, so every pod is a client."""
    _, pods, storage = _pool_with_subnets()
    oci.lustre.FileStorageLustreFileSystem(
        "lustre", availability_domain=AD, compartment_id=C, capacity_in_gbs=31200, file_system_name="scratch",
        performance_tier="MBPS_PER_TB_125", subnet_id=pods.id if bad else storage.id,
        root_squash_configuration={"identity_squash": "ROOT", "squash_uid": "65534", "squash_gid": "65534"})
