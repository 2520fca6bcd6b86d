"""Red-team programs (pass 4, the UID wall on shared storage and tenant isolation through Kueue): a claim template
naming a volume; a pod lowering the privileged-port floor; an export or a Lustre file system leaving root unsquashed
for the pods; GPU pods outside every quota; ClusterQueues that hand a dedicated pool to other namespaces. Registered
in ``programs.CASES`` on import; each control differs only in what makes the input unsafe."""
from __future__ import annotations

import pulumi_kubernetes as k8s
import pulumi_oci as oci

from tests.policies.redteam.programs import C, case
from tests.policies.redteam.programs_oci import FSS
from tests.policies.redteam.programs_tenants import VOLUMES, restricted, tenant


@case("data", VOLUMES)
def ephemeral_claim_template_names_a_volume(bad):
    """A generic ephemeral volume's claim template names a PersistentVolume nobody reserved for the tenant."""
    tenant("analytics")
    spec = {"accessModes": ["ReadWriteOnce"], "storageClassName": "oci-bv" if not bad else "",
            "resources": {"requests": {"storage": "1Gi"}}, **({"volumeName": "oke-rdma-prepare"} if bad else {})}
    k8s.core.v1.Pod("w", metadata={"name": "w", "namespace": "analytics"}, spec={
        "containers": [restricted()], "volumes": [{"name": "d", "ephemeral": {"volumeClaimTemplate": {"spec": spec}}}]})


@case("data", "pods-keep-the-privileged-port-floor")
def tenant_pod_lowers_the_privileged_port_floor(bad):
    """ip_unprivileged_port_start=0 (Pod Security restricted admits it): a non-root NFS client on a port below 1024."""
    tenant("analytics")
    floor = [{"name": "net.ipv4.ip_unprivileged_port_start", "value": "0" if bad else "1024"}]
    k8s.core.v1.Pod("w", metadata={"name": "w", "namespace": "analytics"}, spec={
        "securityContext": {"sysctls": floor}, "containers": [restricted()]})


@case("data", "storage-trusts-only-node-addresses")
def export_unsquashed_for_the_pods_range(bad):
    """identitySquash NONE for a range no node pool of the stack places nodes in (the pods' /18)."""
    oci.filestorage.Export("e", **FSS, path="/shared", export_options=[{
        "source": "10.0.64.0/18", "access": "READ_WRITE", "identity_squash": "NONE" if bad else "ROOT",
        "require_privileged_source_port": True}])


@case("data", "storage-trusts-only-node-addresses")
def lustre_exempts_the_whole_vcn_from_root_squash(bad):
    """Lustre clientExceptions of the whole VCN: every pod and node is root on every file."""
    oci.lustre.FileStorageLustreFileSystem(
        "lustre", availability_domain="Uocm:US-ASHBURN-AD-1", compartment_id=C, capacity_in_gbs=31200,
        file_system_name="scratch", performance_tier="MBPS_PER_TB_125", subnet_id="ocid1.subnet.oc1..s",
        root_squash_configuration={"identity_squash": "ROOT", "squash_uid": "65534", "squash_gid": "65534",
                                   "client_exceptions": ["10.0.0.0/16" if bad else "10.0.10.5/32"]})
