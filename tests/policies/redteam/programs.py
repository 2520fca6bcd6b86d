"""Hand-written Pulumi programs an attacker (or a hurried engineer) might write, one per case.

Each case is a function ``case(bad)``: with ``bad=True`` it declares the unsafe input, with ``bad=False`` the safe
control, which differs only in what makes the input unsafe. ``CASES`` maps a case name to (threat class, the policy
expected to refuse it, the function). The test runs each through ``python -m offline.preview --program``.
"""
from __future__ import annotations

import json
from typing import Callable

import pulumi_kubernetes as k8s
import pulumi_oci as oci

C = "ocid1.compartment.oc1..aaaaaaaaredteam"
T = "ocid1.tenancy.oc1..aaaaaaaaredteam"
PSA = "pod-security.kubernetes.io/enforce"
INTERNAL_LB = {"service.beta.kubernetes.io/oci-load-balancer-internal": "true"}
PUBLIC_8S = [f"{i}.0.0.0/8" for i in range(1, 121) if i != 10]
CASES: dict[str, tuple[str, str, Callable[[bool], None]]] = {}


def case(threat: str, policy: str):
    def register(fn: Callable[[bool], None]) -> Callable[[bool], None]:
        CASES[fn.__name__] = (threat, policy, fn)
        return fn
    return register


def vault_key(name: str = "key") -> oci.kms.Key:
    """A Vault key the program declares: a protected store's kmsKeyId must be a key of the stack (or listed in the
    security pack's protected-data-keys-kept.broughtKeys, which red-team programs do not pass)."""
    return oci.kms.Key(name, compartment_id=C, display_name=name, management_endpoint="https://vault-mgmt",
                       key_shape={"algorithm": "AES", "length": 32})


def statements(*texts: str) -> None:
    oci.identity.Policy("p", compartment_id=C, description="red team", statements=list(texts))


def nsg_rule(name: str = "r", **props) -> None:
    base = {"network_security_group_id": "ocid1.networksecuritygroup.oc1..aaaaaaaanet", "direction": "INGRESS",
            "protocol": "6", "source": "10.0.0.0/16", "source_type": "CIDR_BLOCK",
            "tcp_options": {"destination_port_range": {"min": 22, "max": 22}}}
    oci.core.NetworkSecurityGroupSecurityRule(name, **{**base, **props})


def namespace(name: str, level: str) -> k8s.core.v1.Namespace:
    """A namespace; ``research`` is a GPU tenant (a ResourceQuota on GPUs, as the platform gives every tenant)."""
    ns = k8s.core.v1.Namespace(f"ns-{name}", metadata={"name": name, "labels": {PSA: level}})
    if name == "research":
        k8s.core.v1.ResourceQuota("gpu-quota", metadata={"name": "gpu", "namespace": ns.metadata["name"]},
                                  spec={"hard": {"requests.nvidia.com/gpu": "16"}})
    return ns


def release(values: dict, ns: str = "apps", level: str = "restricted", **props) -> None:
    namespace(ns, level)
    args = {"chart": "keda", "version": "2.20.2", "namespace": ns,
            "repository_opts": {"repo": "https://kedacore.github.io/charts"}, "values": values, **props}
    k8s.helm.v3.Release("rel", **args)


def pod(spec: dict, ns: str = "apps", level: str = "restricted", kind: str = "Pod", labels: dict | None = None) -> None:
    namespace(ns, level)
    meta = {"name": "w", "namespace": ns, **({"labels": labels} if labels else {})}
    template = {"metadata": {"labels": {"app": "w"}}, "spec": spec}
    if kind == "Pod":
        k8s.core.v1.Pod("w", metadata=meta, spec=spec)
    elif kind == "DaemonSet":
        k8s.apps.v1.DaemonSet("w", metadata=meta, spec={"selector": {"matchLabels": {"app": "w"}},
                                                        "template": template})
    elif kind == "Job":
        k8s.batch.v1.Job("w", metadata=meta, spec={"template": {**template, "spec": {**spec,
                                                                                     "restartPolicy": "Never"}}})
    elif kind == "CronJob":
        k8s.batch.v1.CronJob("w", metadata=meta, spec={"schedule": "0 * * * *", "jobTemplate": {"spec": {
            "template": {**template, "spec": {**spec, "restartPolicy": "Never"}}}}})
    else:  # a Kubeflow PyTorchJob custom resource
        k8s.apiextensions.CustomResource("w", api_version="kubeflow.org/v1", kind="PyTorchJob", metadata=meta,
                                         spec={"pytorchReplicaSpecs": {"Worker": {"replicas": 2,
                                                                                  "template": template}}})


def container(**security) -> dict:
    return {"name": "c", "image": "nvcr.io/nvidia/pytorch:25.01-py3", **({"securityContext": security}
                                                                          if security else {})}


# --- identity escalation --------------------------------------------------------------------------------------------
@case("identity", "iam-no-identity-escalation")
def manage_policies(bad):
    statements(f"Allow group Ops to {'manage policies' if bad else 'read policies'} in tenancy")


@case("identity", "iam-no-identity-escalation")
def manage_groups(bad):
    statements(f"Allow group Ops to {'manage' if bad else 'inspect'} groups in tenancy")


@case("identity", "iam-no-identity-escalation")
def dynamic_group_use_all_resources(bad):
    what = "use all-resources" if bad else "use virtual-network-family"
    statements(f"Allow dynamic-group ci to {what} in compartment id {C}")


@case("identity", "iam-no-identity-escalation")
def iam_permission_list(bad):
    statements(f"Allow group Ops to {{{'POLICY_UPDATE' if bad else 'POLICY_READ'}}} in tenancy")


@case("identity", "iam-no-identity-escalation")
def tag_namespaces_gate_policies(bad):
    statements(f"Allow group Ops to {'use' if bad else 'read'} tag-namespaces in tenancy")


@case("identity", "iam-no-identity-escalation")
def manage_compartments(bad):
    statements(f"Allow group Ops to {'manage' if bad else 'inspect'} compartments in tenancy")


@case("identity", "iam-no-identity-escalation")
def endorse_cross_tenancy(bad):
    statements(f"{'Endorse' if bad else 'Allow'} group Ops to read buckets in {'any-tenancy' if bad else 'tenancy'}")


@case("identity", "iam-no-identity-escalation")
def define_cross_tenancy(bad):
    statements("Define tenancy Acme as ocid1.tenancy.oc1..aaaaaaaaacme" if bad
               else "Allow group Ops to read buckets in tenancy")


@case("identity", "iam-no-identity-escalation")
def unparseable_statement(bad):
    where = "request.region in ('gru')" if bad else "request.region = 'gru'"
    statements(f"Allow group Ops to read buckets in tenancy where {where}")


@case("identity", "iam-any-user-restricts-principal-type")
def any_user_without_principal_condition(bad):
    statements("Allow any-user to read objects in tenancy" + ("" if bad else
                                                               " where request.principal.type = 'cluster'"))


@case("identity", "iam-any-user-restricts-principal-type")
def any_group_without_principal_condition(bad):
    statements("Allow any-group to read buckets in tenancy" + ("" if bad else
                                                                " where request.principal.type = 'cluster'"))


@case("identity", "iam-no-admin-group-membership")
def user_into_administrators(bad):
    group = oci.identity.Group("g", compartment_id=T, description="d", name="Administrators" if bad else "readers")
    oci.identity.UserGroupMembership("m", group_id=group.id, user_id="ocid1.user.oc1..aaaaaaaauser")


@case("identity", "iam-no-admin-group-membership")
def identity_domain_administrators(bad):
    oci.identity.DomainsGroup("g", idcs_endpoint="https://idcs.example", schemas=["urn:ietf:params:scim:schemas:"
                                                                                  "core:2.0:Group"],
                              display_name="Administrators" if bad else "ml-engineers",
                              members=[{"type": "User", "value": "u1"}])


@case("identity", "kubernetes-rbac-no-escalation")
def cluster_admin_for_a_service_account(bad):
    k8s.rbac.v1.ClusterRoleBinding("crb", metadata={"name": "trainer"}, role_ref={
        "api_group": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin" if bad else "view"},
        subjects=[{"kind": "ServiceAccount", "name": "trainer", "namespace": "research"}])


@case("identity", "kubernetes-rbac-no-escalation")
def role_that_can_escalate(bad):
    k8s.rbac.v1.ClusterRole("cr", metadata={"name": "helper"}, rules=[{
        "api_groups": ["rbac.authorization.k8s.io"], "resources": ["clusterrolebindings"],
        "verbs": ["create", "bind", "escalate"] if bad else ["get", "list"]}])


# --- network exposure ---------------------------------------------------------------------------------------------
@case("network", "no-internet-scale-ingress")
def ssh_from_119_public_slash8s(bad):
    for i, cidr in enumerate(PUBLIC_8S if bad else ["10.0.0.0/8", "192.168.0.0/16", "203.0.113.0/24"]):
        nsg_rule(f"ssh{i}", source=cidr)


@case("network", "no-public-endpoints")
def service_load_balancer_without_internal_annotation(bad):
    k8s.core.v1.Service("svc", metadata={"name": "web", "namespace": "apps",
                                         "annotations": {} if bad else INTERNAL_LB},
                        spec={"type": "LoadBalancer", "selector": {"app": "web"}, "ports": [{"port": 443}]})


@case("network", "no-public-endpoints")
def nlb_service_with_the_load_balancer_annotation(bad):
    annotations = {"oci.oraclecloud.com/load-balancer-type": "nlb",
                   **(INTERNAL_LB if bad else {"oci-network-load-balancer.oraclecloud.com/internal": "true"})}
    k8s.core.v1.Service("svc", metadata={"name": "web", "namespace": "apps", "annotations": annotations},
                        spec={"type": "LoadBalancer", "selector": {"app": "web"}, "ports": [{"port": 443}]})


@case("network", "no-public-endpoints")
def public_load_balancer(bad):
    oci.loadbalancer.LoadBalancer("lb", compartment_id=C, display_name="lb", shape="flexible",
                                  subnet_ids=["ocid1.subnet.oc1..aaaaaaaasub"], is_private=not bad)


@case("network", "no-public-endpoints")
def network_load_balancer_defaults_public(bad):
    oci.networkloadbalancer.NetworkLoadBalancer("nlb", compartment_id=C, display_name="nlb",
                                                subnet_id="ocid1.subnet.oc1..aaaaaaaasub",
                                                **({} if bad else {"is_private": True}))


@case("network", "no-public-endpoints")
def reserved_public_ip(bad):
    if bad:
        oci.core.PublicIp("ip", compartment_id=C, lifetime="RESERVED")
    else:
        oci.core.PrivateIp("ip", vnic_id="ocid1.vnic.oc1..aaaaaaaavnic", display_name="ip")


@case("network", "no-public-endpoints")
def instance_public_ip_by_default(bad):
    vnic = {"subnet_id": "ocid1.subnet.oc1..aaaaaaaasub", **({} if bad else {"assign_public_ip": "false"})}
    oci.core.Instance("vm", availability_domain="AD-1", compartment_id=C, shape="VM.Standard.E5.Flex",
                      create_vnic_details=vnic)


@case("network", "no-public-endpoints")
def bastion_open_to_the_internet(bad):
    oci.bastion.Bastion("b", bastion_type="standard", compartment_id=C, target_subnet_id="ocid1.subnet.oc1..aaaasub",
                        client_cidr_block_allow_lists=["0.0.0.0/0"] if bad else ["198.51.100.0/24"])


@case("network", "no-public-endpoints")
def service_external_ips(bad):
    k8s.core.v1.Service("svc", metadata={"name": "web", "namespace": "apps"},
                        spec={"type": "ClusterIP", "selector": {"app": "web"}, "ports": [{"port": 80}],
                              **({"externalIPs": ["203.0.113.10"]} if bad else {})})


@case("network", "network-rule-interpretable")
def lower_case_direction(bad):
    nsg_rule(direction="ingress" if bad else "INGRESS", source="0.0.0.0/0" if bad else "10.0.0.0/16")


@case("network", "network-rule-interpretable")
def unknown_protocol_string(bad):
    nsg_rule(protocol="tcpp" if bad else "6", source="0.0.0.0/0" if bad else "10.0.0.0/16")


@case("network", "no-internet-ssh-or-all-ports")
def ipv4_mapped_ipv6_source(bad):
    nsg_rule(source="::ffff:0.0.0.0/96" if bad else "fd00:10::/64")


@case("network", "no-internet-ssh-or-all-ports")
def split_default_route_in_a_security_list(bad):
    sources = ["0.0.0.0/1", "128.0.0.0/1"] if bad else ["10.0.0.0/16"]
    oci.core.SecurityList("sl", compartment_id=C, vcn_id="ocid1.vcn.oc1..aaaaaaaavcn", ingress_security_rules=[
        {"protocol": "all", "source": s} for s in sources])


@case("network", "kubernetes-api-endpoint-restricted")
def public_api_endpoint_behind_an_nsg_the_stack_cannot_see(bad):
    oci.containerengine.Cluster("oke", compartment_id=C, vcn_id="ocid1.vcn.oc1..aaaaaaaavcn",
                                kubernetes_version="v1.34.1", type="ENHANCED_CLUSTER",
                                endpoint_config={"subnet_id": "ocid1.subnet.oc1..aaaasub", "is_public_ip_enabled": bad,
                                                 "nsg_ids": ["ocid1.networksecuritygroup.oc1..aaaaaaaacp"]})


# --- pod privilege and node escape ----------------------------------------------------------------------------------
@case("pod", "helm-values-pod-security")
def helm_values_host_network_and_privileged(bad):
    values = {"hostNetwork": True, "hostPID": True, "containerSecurityContext": {"privileged": True}}
    release(values if bad else {"resources": {"operator": {"limits": {"cpu": 1}}}})


@case("pod", "node-escape-only-in-node-agent-namespaces")
def host_root_hostpid_sys_admin_in_privileged_non_rdma_namespace(bad):
    if bad:
        spec = {"hostPID": True, "volumes": [{"name": "root", "hostPath": {"path": "/"}}],
                "containers": [container(capabilities={"add": ["SYS_ADMIN"]})]}
    else:  # an RDMA pod: what the platform needs, and nothing that takes the node
        spec = {"hostNetwork": True, "volumes": [{"name": "ib", "hostPath": {"path": "/dev/infiniband"}}],
                "containers": [container(privileged=True, capabilities={"add": ["IPC_LOCK"]})]}
    pod(spec, ns="tools" if bad else "research", level="privileged")


@case("pod", "node-escape-only-in-node-agent-namespaces")
def core_pod_declared_as_a_custom_resource(bad):
    namespace("apps", "restricted")
    spec = ({"hostPID": True, "volumes": [{"name": "root", "hostPath": {"path": "/"}}],
             "containers": [container(privileged=True)]} if bad else {"containers": [container(
                 runAsNonRoot=True, allowPrivilegeEscalation=False, capabilities={"drop": ["ALL"]},
                 seccompProfile={"type": "RuntimeDefault"})]})
    k8s.apiextensions.CustomResource("rawpod", api_version="v1", kind="Pod",
                                     metadata={"name": "rp", "namespace": "apps"}, spec=spec)


@case("pod", "node-escape-only-in-node-agent-namespaces")
def trainer_runtime_template_escapes_the_node(bad):
    namespace("apps", "restricted")
    spec = ({"hostPID": True, "volumes": [{"name": "root", "hostPath": {"path": "/"}}],
             "containers": [container(privileged=True)]} if bad else {"containers": [container(
                 runAsNonRoot=True, allowPrivilegeEscalation=False, capabilities={"drop": ["ALL"]},
                 seccompProfile={"type": "RuntimeDefault"})]})
    k8s.apiextensions.CustomResource("runtime", api_version="trainer.kubeflow.org/v1alpha1", kind="TrainingRuntime",
                                     metadata={"name": "torch", "namespace": "apps"},
                                     spec={"template": {"spec": {"replicatedJobs": [{"name": "node", "template": {
                                         "spec": {"template": {"spec": spec}}}}]}}})


@case("pod", "privileged-namespace-purpose")
def privileged_namespace_that_is_no_tenant(bad):
    namespace("tools" if bad else "research", "privileged")


@case("pod", "helm-release-pinned")
def local_chart_path_beside_an_allowed_repository(bad):
    release({}, chart="./charts/keda" if bad else "keda")


@case("pod", "helm-release-pinned")
def chart_version_range(bad):
    release({}, version="^2.20.0" if bad else "2.20.2")


@case("pod", "workload-namespace-declared")
def workload_in_an_undeclared_namespace(bad):
    namespace("apps", "restricted")
    k8s.core.v1.Pod("w", metadata={"name": "w", "namespace": "default" if bad else "apps"},
                    spec={"containers": [container()]})


@case("pod", "rdma-pods-in-privileged-namespaces")
def daemonset_host_port_in_restricted_namespace(bad):
    c = {**container(), "ports": [{"containerPort": 9100, **({"hostPort": 9100} if bad else {})}]}
    pod({"containers": [c]}, kind="DaemonSet")


@case("pod", "node-escape-only-in-node-agent-namespaces")
def job_net_admin_in_rdma_namespace(bad):
    pod({"containers": [container(capabilities={"add": ["NET_ADMIN" if bad else "IPC_LOCK"]})]},
        ns="research", level="privileged", kind="Job")


@case("pod", "node-escape-only-in-node-agent-namespaces")
def cronjob_container_runtime_socket(bad):
    path = "/var/run/containerd/containerd.sock" if bad else "/dev/infiniband"
    pod({"volumes": [{"name": "v", "hostPath": {"path": path}}], "containers": [container()]},
        ns="research", level="privileged", kind="CronJob")


@case("pod", "node-escape-only-in-node-agent-namespaces")
def pytorchjob_host_pid(bad):
    pod({"hostNetwork": True, **({"hostPID": True} if bad else {}), "containers": [container()]},
        ns="research", level="privileged", kind="PyTorchJob")


@case("pod", "helm-values-pod-security")
def helm_values_run_as_root(bad):
    release({"securityContext": {"runAsUser": 0 if bad else 1000, "runAsNonRoot": not bad}})


@case("pod", "node-escape-only-in-node-agent-namespaces")
def helm_values_sys_admin_in_a_list(bad):
    release({"sidecars": [{"name": "s", "securityContext": {"capabilities": {"add": ["SYS_ADMIN" if bad
                                                                                      else "CHOWN"]}}}]})


@case("pod", "namespace-pod-security-enforce")
def namespace_without_pod_security_label(bad):
    k8s.core.v1.Namespace("ns", metadata={"name": "apps", "labels": {} if bad else {PSA: "restricted"}})


# --- data exposure ------------------------------------------------------------------------------------------------
@case("data", "fss-export-no-internet-root")
def fss_export_open_without_root_squash(bad):
    oci.filestorage.Export("exp", export_set_id="ocid1.exportset.oc1..aaaaset",
                           file_system_id="ocid1.filesystem.oc1..aaaafs", path="/shared",
                           export_options=[{"source": "0.0.0.0/1" if bad else "10.0.0.0/16", "access": "READ_WRITE",
                                            "identity_squash": "NONE" if bad else "ROOT"}])


@case("data", "fss-export-no-internet-root")
def fss_storage_class_exports_to_everyone(bad):
    options = [{"source": "0.0.0.0/0" if bad else "10.0.0.0/16", "requirePrivilegedSourcePort": True,
                "access": "READ_WRITE", "identitySquash": "NONE" if bad else "ROOT"}]
    k8s.storage.v1.StorageClass("fss", metadata={"name": "fss-dyn"}, provisioner="fss.csi.oraclecloud.com",
                                parameters={"availabilityDomain": "AD-1", "mountTargetOcid": "ocid1.mounttarget.oc1..m",
                                            "exportOptions": json.dumps(options)})


@case("data", "fss-export-no-internet-root")
def fss_root_squashed_to_uid_0(bad):
    oci.filestorage.Export("exp", export_set_id="ocid1.exportset.oc1..aaaaset",
                           file_system_id="ocid1.filesystem.oc1..aaaafs", path="/shared",
                           export_options=[{"source": "0.0.0.0/0", "access": "READ_WRITE", "identity_squash": "ROOT",
                                            "anonymous_uid": "0" if bad else "65534",
                                            "anonymous_gid": "0" if bad else "65534"}])


@case("data", "lustre-root-squash")
def lustre_root_squashed_to_uid_0(bad):
    oci.lustre.FileStorageLustreFileSystem(
        "lustre", availability_domain="Uocm:US-ASHBURN-AD-1", compartment_id=C, capacity_in_gbs=31200,
        file_system_name="scratch", performance_tier="MBPS_PER_TB_125", subnet_id="ocid1.subnet.oc1..s",
        root_squash_configuration={"identity_squash": "ROOT", "squash_uid": "0" if bad else "65534",
                                   "squash_gid": "0" if bad else "65534"})


@case("data", "lustre-root-squash")
def lustre_file_system_without_root_squash(bad):
    oci.lustre.FileStorageLustreFileSystem(
        "lustre", availability_domain="Uocm:US-ASHBURN-AD-1", compartment_id=C, capacity_in_gbs=31200,
        file_system_name="scratch", performance_tier="MBPS_PER_TB_125", subnet_id="ocid1.subnet.oc1..s",
        root_squash_configuration={"identity_squash": "NONE" if bad else "ROOT", "squash_uid": "65534",
                                   "squash_gid": "65534"})


@case("data", "lustre-root-squash")
def lustre_root_squash_exempting_the_internet(bad):
    oci.lustre.FileStorageLustreFileSystem(
        "lustre", availability_domain="Uocm:US-ASHBURN-AD-1", compartment_id=C, capacity_in_gbs=31200,
        file_system_name="scratch", performance_tier="MBPS_PER_TB_125", subnet_id="ocid1.subnet.oc1..s",
        root_squash_configuration={"identity_squash": "ROOT", "squash_uid": "65534", "squash_gid": "65534",
                                   "client_exceptions": ["0.0.0.0/1", "128.0.0.0/1"] if bad else ["10.0.5.10/32"]})


@case("data", "no-public-endpoints")
def public_bucket(bad):
    oci.objectstorage.Bucket("b", compartment_id=C, name="weights", namespace="ns",
                             access_type="ObjectRead" if bad else "NoPublicAccess")


@case("data", "no-public-endpoints")
def pre_authenticated_request(bad):
    oci.objectstorage.Bucket("b", compartment_id=C, name="weights", namespace="ns")
    if bad:
        oci.objectstorage.Preauthrequest("par", access_type="AnyObjectRead", bucket="weights", namespace="ns",
                                         name="share", time_expires="2030-01-01T00:00:00Z")


@case("data", "no-public-endpoints")
def autonomous_database_open_to_everyone(bad):
    oci.database.AutonomousDatabase("adb", compartment_id=C, db_name="features", admin_password="x" * 16,
                                    **({} if bad else {"subnet_id": "ocid1.subnet.oc1..aaaaaaaadata"}))


@case("data", "helm-values-exposure")
def helm_values_public_load_balancer(bad):
    release({"service": {"type": "LoadBalancer", "annotations": {} if bad else INTERNAL_LB}})


# --- placement and capacity -----------------------------------------------------------------------------------------
def node_pool(**details) -> None:
    """An RDMA node pool in an existing Compute Cluster, with everything else the packs ask of one (launch
    statement, IMDSv2 only, in-transit encryption), so only ``details`` decide the verdict."""
    statements(f"Allow any-user to {{COMPUTE_CLUSTER_LAUNCH_INSTANCE}} in compartment id {C} where "
               "request.principal.type = 'nodepool'")
    base = {"size": 2, "compute_cluster_id": "ocid1.computecluster.oc1..aaaacc", "is_pv_encryption_in_transit_enabled":
            True, "nsg_ids": ["ocid1.networksecuritygroup.oc1..aaaaworkers"],
            "placement_configs": [{"availability_domain": "AD-1", "subnet_id": "ocid1.subnet.oc1..aaaasub"}]}
    oci.containerengine.NodePool("gpu", cluster_id="ocid1.cluster.oc1..aaaacluster", compartment_id=C,
                                 node_shape=details.pop("shape", "BM.GPU.H100.8"),
                                 node_metadata={"areLegacyImdsEndpointsDisabled": "true"},
                                 node_config_details={**base, **details})


def cluster_with_pool(cluster_type: str, compute_cluster_ad: str) -> None:
    """A whole OKE stack: VCN, the NSGs and rules OKE needs, a private enhanced-or-not cluster, a Compute Cluster and
    an RDMA node pool in it (launch statement, IMDSv2, in-transit encryption)."""
    from tests.policies.test_policy_pack_e2e import _oke_nsgs
    vcn = oci.core.Vcn("vcn", compartment_id=C, cidr_blocks=["10.2.0.0/16"])
    cp, workers = _oke_nsgs(C, vcn)
    cluster = oci.containerengine.Cluster("oke", compartment_id=C, vcn_id=vcn.id, kubernetes_version="v1.34.1",
                                          type=cluster_type, endpoint_config={
                                              "subnet_id": "ocid1.subnet.oc1..aaaacp", "is_public_ip_enabled": False,
                                              "nsg_ids": [cp.id]})
    cc = oci.core.ComputeCluster("cc", availability_domain=compute_cluster_ad, compartment_id=C)
    statements(f"Allow any-user to {{COMPUTE_CLUSTER_LAUNCH_INSTANCE}} in compartment id {C} where "
               "request.principal.type = 'nodepool'")
    oci.containerengine.NodePool("gpu", cluster_id=cluster.id, compartment_id=C, node_shape="BM.GPU.H100.8",
                                 node_metadata={"areLegacyImdsEndpointsDisabled": "true"},
                                 node_config_details={"size": 2, "compute_cluster_id": cc.id, "nsg_ids": [workers.id],
                                                      "is_pv_encryption_in_transit_enabled": True,
                                                      "placement_configs": [{"availability_domain": "AD-1",
                                                                             "subnet_id": "ocid1.subnet.oc1..aaaaw"}]})


@case("placement", "rdma-cluster-enhanced")
def compute_cluster_pool_on_a_basic_cluster(bad):
    cluster_with_pool("BASIC_CLUSTER" if bad else "ENHANCED_CLUSTER", "AD-1")


@case("placement", "rdma-node-pool-compute-cluster-ad")
def pool_in_another_ad_than_its_compute_cluster(bad):
    cluster_with_pool("ENHANCED_CLUSTER", "AD-2" if bad else "AD-1")


@case("placement", "rdma-node-pool-placement")
def rdma_pool_two_placements(bad):
    node_pool(placement_configs=[{"availability_domain": f"AD-{i}", "subnet_id": "ocid1.subnet.oc1..aaaasub"}
                                 for i in ((1, 2) if bad else (1,))])


@case("placement", "rdma-node-pool-placement")
def rdma_pool_fault_domains(bad):
    node_pool(placement_configs=[{"availability_domain": "AD-1", "subnet_id": "ocid1.subnet.oc1..aaaasub",
                                  **({"fault_domains": ["FAULT-DOMAIN-1"]} if bad else {})}])


@case("placement", "rdma-node-pool-placement")
def rdma_pool_shape_without_rdma(bad):
    node_pool(shape="VM.Standard.E5.Flex" if bad else "BM.GPU.H100.8")




@case("placement", "dedicated-tenant-not-on-shared-pool")
def dedicated_tenant_queue_on_a_time_sliced_pool(bad):
    """A dedicated tenant's Kueue ClusterQueue given the flavor of a time-sliced GPU pool, whose GPUs other tenants'
    pods share; the control gives it the exclusive pool's flavor."""
    for pool, sharing in (("exclusive", "exclusive"), ("shared", "time-slicing")):
        oci.containerengine.NodePool(
            pool, cluster_id="ocid1.cluster.oc1..aaaacluster", compartment_id=C, node_shape="VM.GPU.A10.2",
            node_metadata={"areLegacyImdsEndpointsDisabled": "true"},
            initial_node_labels=[{"key": "okerdma.io/node-pool", "value": pool},
                                 {"key": "okerdma.io/gpu-sharing", "value": sharing}],
            node_config_details={"size": 1, "is_pv_encryption_in_transit_enabled": True,
                                 "nsg_ids": ["ocid1.networksecuritygroup.oc1..aaaaworkers"],
                                 "placement_configs": [{"availability_domain": "AD-1",
                                                        "subnet_id": "ocid1.subnet.oc1..aaaasub"}]})
        k8s.apiextensions.CustomResource(f"flavor-{pool}", api_version="kueue.x-k8s.io/v1beta2",
                                         kind="ResourceFlavor", metadata={"name": pool},
                                         spec={"nodeLabels": {"okerdma.io/node-pool": pool}})
    k8s.core.v1.Namespace("ns-research", metadata={"name": "research", "labels": {
        PSA: "restricted", "okerdma.io/isolation": "dedicated"}})
    k8s.apiextensions.CustomResource("cq-research", api_version="kueue.x-k8s.io/v1beta2", kind="ClusterQueue",
                                     metadata={"name": "research"}, spec={
                                         "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name":
                                                                               "research"}},
                                         "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [
                                             {"name": "shared" if bad else "exclusive",
                                              "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "2"}]}]}]})


def _load_sibling_cases(prefix: str) -> None:
    """Import every ``<prefix>_<area>.py`` beside this file: each registers its cases with :func:`case` (or adds to
    ``CONFIG_CASES``), so an area's cases live in their own module and no list of modules is kept by hand."""
    import importlib
    from pathlib import Path
    for path in sorted(Path(__file__).parent.glob(f"{prefix}_*.py")):
        importlib.import_module(f"{__package__}.{path.stem}")


_load_sibling_cases("programs")
