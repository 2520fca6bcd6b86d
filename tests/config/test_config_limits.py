"""Config limits OCI and Kubernetes document, and the ways around them that are closed: VCN and subnet sizes, worker-IP
capacity, broad API client CIDRs, Helm values that undo the platform's settings, reserved namespaces,
IAM-administration grants, node labels the program or the kubelet own, GPUs per known shape, OCIDs of another region,
Flex bounds, tag lengths, brought subnets serving several roles, and the wording of secret and range messages.

Each "must fail" input is also a row of the validation-rule table of docs/configuration.md
(``tests/config/test_validation_rules.py``); this file adds the inputs that must pass, the variants of each rule and the cases the table cannot hold.
"""
from __future__ import annotations

import json

import pytest

from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.config.workload_identity import IAM_ADMIN_RESOURCE_TYPES, parse_grant
from tests.stackcfg import dev_config, edited
from tests.config.test_network_byo import CIDRS, SUBNETS, existing

RAW, SECRETS = dev_config()


def problems(raw, secret_keys=None) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw, secret_keys)
    return err.value.problems


def pool(raw, name, **changes):
    for k, v in changes.items():
        raw = edited(raw, "nodePools", (name, k), v)
    return raw


# --- 1. VCN and subnet sizes, worker-IP capacity -------------------------------------------------------------------
@pytest.mark.parametrize("cidr", ["10.0.0.0/8", "10.0.0.0/15", "10.0.0.0/31"])
def test_vcn_outside_16_to_30_is_refused(cidr):
    [p] = problems(edited(RAW, "network", ("vcnCidr",), cidr))
    assert p.startswith(f"oke-rdma:network.vcnCidr: expected a VCN CIDR from /16 to /30 (OCI's allowed sizes")


@pytest.mark.parametrize("cidr", ["10.0.3.0/31", "10.0.3.0/32"])
def test_subnet_smaller_than_30_is_refused_before_any_resource(cidr):
    [p] = problems(edited(RAW, "network", ("subnets", "storage"), cidr))
    assert p.startswith("oke-rdma:network.subnets.storage: expected a subnet CIDR from /16 to /30")


def test_brought_subnet_sizes_are_checked_too():
    network = existing(subnetCidrs={**CIDRS, "storage": "10.1.3.0/32"})
    found = problems(edited(RAW, "network", (), network))
    assert any(p.startswith("oke-rdma:network.existing.subnetCidrs.storage: expected a subnet CIDR from /16 to /30")
               for p in found)


def test_worker_subnet_capacity_counts_cycle_headroom():
    # 10.0.16.0/29 has 5 usable IPs; gpu (2+1) + system (3+1) = 7 nodes at the peak of a rolling cycle
    [p] = problems(edited(RAW, "network", ("subnets", "workers"), "10.0.16.0/29"))
    assert p.startswith("oke-rdma:network.subnets.workers: 10.0.16.0/29 has 5 usable IPs (OCI reserves 3) but the "
                        "node pools need 7, one per node")
    # a /28 (13 usable) holds them; a surge of 5 on the system pool (3+5) + gpu (2+1) = 11 still fits, 9 does not
    load_stack_config(edited(RAW, "network", ("subnets", "workers"), "10.0.16.0/28"))
    raw = edited(RAW, "network", ("subnets", "workers"), "10.0.16.0/28")
    raw = pool(raw, "system", size=10, cycling={"enabled": True, "maxSurge": "100%"})
    assert any(p.startswith("oke-rdma:network.subnets.workers: 10.0.16.0/28 has 13 usable IPs") and
               "system (10+10)" in p for p in problems(raw))


# --- 2. API client CIDRs -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cidrs", [["0.0.0.0/0"], ["0.0.0.0/1", "128.0.0.0/1"], ["64.0.0.0/7"]])
def test_api_client_cidrs_broader_than_8_are_refused(cidrs):
    [p] = problems(edited(RAW, "network", ("apiEndpoint", "allowedCidrs"), cidrs))
    assert p.startswith("oke-rdma:network.apiEndpoint.allowedCidrs: ") and "broader than /8" in p
    assert "effectively the internet" in p


def test_a_8_and_narrower_api_client_cidrs_pass():
    load_stack_config(edited(RAW, "network", ("apiEndpoint",), {"public": True,
                                                                  "allowedCidrs": ["10.0.0.0/8", "203.0.113.7/32"]}))


# --- 3. Helm values bypasses ---------------------------------------------------------------------------------------
def values(release, vals):
    return edited(RAW, "platform", (release, "values"), vals)


@pytest.mark.parametrize("grafana, at", [
    ({"adminPassword": "hunter2hunter2"}, "grafana.adminPassword"),
    ({"grafana.ini": {"security": {"admin_password": "x"}}}, 'grafana["grafana.ini"].security.admin_password'),
    ({"smtp": {"Password": "x"}}, "grafana.smtp.Password"),
])
def test_a_grafana_password_in_helm_values_is_refused_without_echoing_it(grafana, at):
    [p] = problems(values("kubePrometheusStack", {"grafana": grafana}))
    assert p.startswith(f"oke-rdma:platform.kubePrometheusStack.values.{at}: a password in plain-text Helm values")
    assert "platform.kubePrometheusStack.grafanaAdminPassword" in p and "hunter2" not in p


def test_grafana_values_without_a_password_pass():
    load_stack_config(values("kubePrometheusStack", {"grafana": {"adminPassword": "", "admin": {
        "passwordKey": "admin-password"}, "persistence": {"enabled": True}}}))


@pytest.mark.parametrize("enabled, shown", [("true", "the text 'true'"), ("yes", "the text 'yes'"),
                                            ("1", "the text '1'"), ("false", "the text 'false'"),
                                            (1, "the number 1"), ([], "a list")])
def test_driver_enabled_must_be_the_boolean_false(enabled, shown):
    [p] = problems(values("gpuOperator", {"driver": {"enabled": enabled}}))
    assert p == (f"oke-rdma:platform.gpuOperator.values.driver.enabled: expected the boolean false, got {shown}; Helm "
                 f"templates treat any non-empty text (even 'false') as true: write false or remove it")


def test_driver_enabled_true_is_refused_and_false_passes():
    [p] = problems(values("gpuOperator", {"driver": {"enabled": True}}))
    assert p.startswith("oke-rdma:platform.gpuOperator.values.driver.enabled: OKE GPU images ship the NVIDIA driver")
    load_stack_config(values("gpuOperator", {"driver": {"enabled": False}, "devicePlugin": {"enabled": False}}))


@pytest.mark.parametrize("vals, at, why", [
    ({"cdi": {"enabled": False}}, "cdi.enabled", "OKE runs CRI-O"),
    ({"cdi": {"nriPluginEnabled": True}}, "cdi.nriPluginEnabled", "annotations name"),
    ({"mig": {"strategy": "mixed"}}, "mig.strategy", "nvidia.com/mig-<profile>"),
    ({"mig": {"strategy": "none"}}, "mig.strategy", "nvidia.com/mig-<profile>"),
])
def test_gpu_operator_values_the_platform_depends_on_are_refused_when_moved(vals, at, why):
    """Values OKE and the tenancy walls need from the GPU Operator (CDI on: OKE runs CRI-O; its NRI plugin off; MIG
    strategy single: the quotas count nvidia.com/gpu) are refused when a user's values change them, one line at the
    user's key naming the reason; the same values written as oke-rdma sets them pass."""
    found = [p for p in problems(values("gpuOperator", vals)) if ".values." + at + ":" in p]
    assert len(found) == 1 and found[0].startswith(f"oke-rdma:platform.gpuOperator.values.{at}: must stay "), found
    assert why in found[0] and found[0].endswith("; remove it")
    load_stack_config(values("gpuOperator", {"cdi": {"enabled": True, "nriPluginEnabled": False},
                                             "mig": {"strategy": "single"}}))


def test_cdi_enabled_as_text_gets_the_shape_line_only():
    """cdi.enabled written as text is one line (the shape's: Helm reads any non-empty text as true), not two."""
    found = [p for p in problems(values("gpuOperator", {"cdi": {"enabled": "false"}})) if "cdi.enabled" in p]
    assert len(found) == 1 and "expected true or false" in found[0]


@pytest.mark.parametrize("vals, at, got", [
    ({"devicePlugin": False}, "devicePlugin", "the boolean false"),
    ({"driver": None}, "driver", "null"),
    ({"driver": "off"}, "driver", "the text 'off'"),
    ({"dcgmExporter": {"serviceMonitor": []}}, "dcgmExporter.serviceMonitor", "a list"),
])
def test_sections_oke_rdma_sets_must_stay_maps(vals, at, got):
    [p] = problems(values("gpuOperator", vals))
    assert p.startswith(f"oke-rdma:platform.gpuOperator.values.{at}: expected a map (like ")
    assert f"got {got};" in p


def test_device_plugin_enabled_as_text_is_refused():
    [p] = problems(values("gpuOperator", {"devicePlugin": {"enabled": "false"}}))
    assert p.startswith("oke-rdma:platform.gpuOperator.values.devicePlugin.enabled: expected true or false, got the "
                        "text 'false'")


def test_a_list_oke_rdma_sets_must_stay_a_list_and_kueue_flags_boolean():
    [p] = problems(values("gpuOperator", {"daemonsets": {"tolerations": "all"}}))
    assert p.startswith("oke-rdma:platform.gpuOperator.values.daemonsets.tolerations: expected a list")
    [p] = problems(values("kueue", {"enablePrometheus": "true"}))
    assert p.startswith("oke-rdma:platform.kueue.values.enablePrometheus: expected true or false")


# --- 4. reserved namespaces ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("release", ["kubePrometheusStack", "gpuOperator", "kueue", "keda"])
@pytest.mark.parametrize("ns", ["kube-system", "kube-public", "kube-node-lease", "default"])
def test_a_platform_release_in_a_reserved_namespace_is_refused(release, ns):
    found = problems(edited(RAW, "platform", (release, "namespace"), ns))
    assert f"oke-rdma:platform.{release}.namespace: {ns!r} is a namespace Kubernetes reserves" in found[0]


def test_the_topology_labeler_in_a_reserved_namespace_is_refused():
    raw = edited(RAW, "platform", ("kueue", "topologyLabeler"), {"enabled": True, "namespace": "kube-system"})
    assert problems(raw)[0].startswith("oke-rdma:platform.kueue.topologyLabeler.namespace: 'kube-system' is a "
                                       "namespace Kubernetes reserves")


# --- 5. Workload Identity grants on IAM administration -------------------------------------------------------------
@pytest.mark.parametrize("grant", ["manage policies in tenancy", "use dynamic-groups in tenancy",
                                   "manage dynamic-groups in tenancy", "manage groups in tenancy",
                                   "manage users in tenancy", "manage domains in tenancy",
                                   "use identity-providers in tenancy", "manage credentials in tenancy",
                                   "manage compartments in tenancy", "use tag-namespaces in tenancy",
                                   "USE  Policies in tenancy", "use all-resources in tenancy"])
def test_grants_that_administer_iam_are_refused(grant):
    with pytest.raises(ValueError) as err:
        parse_grant(grant)
    assert "grant itself anything" in str(err.value) or "widen its own access" in str(err.value)


@pytest.mark.parametrize("verb", ["inspect", "read"])
@pytest.mark.parametrize("resource", sorted(IAM_ADMIN_RESOURCE_TYPES))
def test_inspect_and_read_of_iam_types_stay_allowed(verb, resource):
    assert parse_grant(f"{verb} {resource} in tenancy").resource == resource


def test_an_iam_grant_is_refused_through_the_stack_config():
    raw = edited(RAW, "tenants", ("research", "serviceAccounts", "trainer", "allow"), ["manage policies in tenancy"])
    [p] = problems(raw)
    assert p.startswith("oke-rdma:tenants.research.serviceAccounts.trainer.allow[0]: 'manage policies in "
                        "tenancy': 'manage policies' administers IAM")


# --- 6. node labels ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key, why", [
    ("okerdma.io/node-pool", "is set by oke-rdma to the pool name"),
    ("node-role.kubernetes.io/worker", "a kubelet may not set on its own Node"),
    ("kubernetes.io/role", "a kubelet may not set on its own Node"),
    ("example.k8s.io/x", "a kubelet may not set on its own Node"),
    ("node-restriction.kubernetes.io/pool", "a kubelet may not set on its own Node"),
    ("kubernetes.io/hostname", "set by the kubelet or OCI's cloud controller"),
    ("topology.kubernetes.io/zone", "set by the kubelet or OCI's cloud controller"),
])
def test_labels_the_program_or_the_kubelet_own_are_refused(key, why):
    [p] = problems(pool(RAW, "gpu", labels={key: "x"}))
    assert p.startswith(f'oke-rdma:nodePools.gpu.labels["{key}"]: ') and why in p


def test_labels_a_kubelet_may_set_pass():
    load_stack_config(pool(RAW, "gpu", labels={"okerdma.io/role": "gpu", "node.kubernetes.io/exclude-from-external"
                                               "-load-balancers": "true", "kubelet.kubernetes.io/x": "y",
                                               "mykubernetes.io/team": "a"}))


# --- 7. gpusPerNode on a known shape -------------------------------------------------------------------------------
def test_gpus_per_node_of_a_known_shape_must_be_its_count():
    [p] = problems(pool(RAW, "gpu", gpusPerNode=4))
    assert p.startswith("oke-rdma:nodePools.gpu.gpusPerNode: BM.GPU.H100.8 has 8 GPUs per node")
    load_stack_config(pool(RAW, "gpu", gpusPerNode=8))  # the same count: redundant, accepted


# --- 8. OCIDs of another region ------------------------------------------------------------------------------------
def test_brought_network_ocids_of_another_region_are_refused():
    network = existing()
    ex = network["existing"]
    ex["vcnId"] = ex["vcnId"].replace(".sa-saopaulo-1.", ".us-ashburn-1.")
    ex["subnetIds"]["workers"] = ex["subnetIds"]["workers"].replace(".sa-saopaulo-1.", ".iad.")
    ex["nsgIds"]["pods"] = ex["nsgIds"]["pods"].replace(".sa-saopaulo-1.", ".eu-frankfurt-1.")
    found = problems(edited(RAW, "network", (), network))
    assert found == [
        "oke-rdma:network.existing.vcnId: expected a VCN in oci:region sa-saopaulo-1, got the OCID of a VCN in "
        "us-ashburn-1; use the VCN of sa-saopaulo-1 (it is a regional resource), or set oci:region",
        "oke-rdma:network.existing.subnetIds.workers: expected a subnet in oci:region sa-saopaulo-1, got the OCID of a "
        "subnet in us-ashburn-1; use the subnet of sa-saopaulo-1 (it is a regional resource), or set oci:region",
        "oke-rdma:network.existing.nsgIds.pods: expected an NSG in oci:region sa-saopaulo-1, got the OCID of an NSG "
        "in eu-frankfurt-1; use the NSG of sa-saopaulo-1 (it is a regional resource), or set oci:region"]


def test_compute_cluster_of_another_region_is_refused_and_of_this_region_passes():
    ocid = "ocid1.computecluster.oc1.{}.aaaaaaaabcdefgh"
    [p] = problems(edited(RAW, "computeCluster", ("existingId",), ocid.format("us-ashburn-1")))
    assert p.startswith("oke-rdma:computeCluster.existingId: expected a Compute Cluster in oci:region sa-saopaulo-1")
    load_stack_config(edited(RAW, "computeCluster", ("existingId",), ocid.format("sa-saopaulo-1")))
    load_stack_config(edited(RAW, "computeCluster", ("existingId",), ocid.format("gru")))  # old-style key


# --- 9. Flex bounds ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("changes, at, text", [
    ({"ocpus": 2.5}, "ocpus", "expected a whole number of OCPUs from 1 to 94 (VM.Standard.E5.Flex"),
    ({"ocpus": 95, "memoryGb": 512}, "ocpus", "from 1 to 94"),
    ({"ocpus": 0.5}, "ocpus", "from 1 to 94"),
    ({"memoryGb": 1e308}, "memoryGb", "expected from 8 to 512 GB for 8 OCPUs"),
    ({"memoryGb": 4}, "memoryGb", "expected from 8 to 512 GB for 8 OCPUs"),
    ({"ocpus": 64, "memoryGb": 2048}, "memoryGb", "expected from 64 to 1049 GB for 64 OCPUs"),
    ({"shape": "VM.Standard3.Flex", "ocpus": 33}, "ocpus", "from 1 to 32 (VM.Standard3.Flex"),
    ({"shape": "VM.Standard.X9.Flex", "memoryGb": 1e308}, "memoryGb", "at most 4096 GB for a Flex VM"),
])
def test_flex_sizes_outside_the_shape_bounds_are_refused(changes, at, text):
    [p] = problems(pool(RAW, "system", **changes))
    assert p.startswith(f"oke-rdma:nodePools.system.{at}: ") and text in p


def test_flex_sizes_inside_the_bounds_pass():
    load_stack_config(pool(RAW, "system", ocpus=1, memoryGb=1))
    load_stack_config(pool(RAW, "system", ocpus=94, memoryGb=1049))
    load_stack_config(pool(RAW, "system", shape="VM.Standard.A1.Flex", ocpus=4, memoryGb=24))


# --- 10. free-form tags --------------------------------------------------------------------------------------------
def test_tag_key_and_value_lengths():
    load_stack_config(edited(RAW, "freeformTags", (), {"k" * 100: "v" * 256}))
    assert "expected tag keys of 1 to 100 characters" in problems(edited(RAW, "freeformTags", (), {"k" * 101: "v"}))[0]
    assert "expected tag keys of 1 to 100 characters" in problems(edited(RAW, "freeformTags", (), {"": "v"}))[0]
    assert "at most 256 characters" in problems(edited(RAW, "freeformTags", (), {"k": "v" * 257}))[0]


# --- 11. brought network: one subnet for several roles; a small VCN with every subnet given -----------------------
def test_one_brought_subnet_may_serve_several_roles():
    shared = SUBNETS["workers"]
    network = existing(subnetIds={**SUBNETS, "internalLoadBalancers": shared, "storage": shared},
                       subnetCidrs={**CIDRS, "internalLoadBalancers": CIDRS["workers"], "storage": CIDRS["workers"]})
    load_stack_config(edited(RAW, "network", (), network))


def test_roles_sharing_a_subnet_add_their_ip_demands():
    shared = SUBNETS["workers"]
    small = "10.1.16.0/28"  # 13 usable IPs: the 7 worker nodes fit alone, not with the 3 + ... of the others
    network = existing(subnetIds={**SUBNETS, "storage": shared, "pods": shared},
                       subnetCidrs={**CIDRS, "workers": small, "storage": small, "pods": small})
    [p] = problems(edited(RAW, "network", (), network))
    assert p.startswith("oke-rdma:network.existing.subnetCidrs.workers: 10.1.16.0/28 serves the workers, pods, "
                        "storage roles and has 13 usable IPs (OCI reserves 3) but they need 326 together")


def test_one_subnet_ocid_with_two_cidrs_and_two_subnets_with_one_cidr_are_refused():
    shared = SUBNETS["workers"]
    network = existing(subnetIds={**SUBNETS, "storage": shared})  # storage keeps its own CIDR
    found = problems(edited(RAW, "network", (), network))
    assert any(p.startswith("oke-rdma:network.existing.subnetCidrs.storage: 10.1.3.0/24 differs from 10.1.16.0/20, "
                            "the CIDR given for the same subnet") for p in found)
    network = existing(subnetCidrs={**CIDRS, "storage": CIDRS["workers"]})  # two OCIDs, one CIDR: they overlap
    found = problems(edited(RAW, "network", (), network))
    assert any("overlaps the workers subnet 10.1.16.0/20" in p for p in found)


def test_a_small_vcn_with_every_used_subnet_given_needs_no_default_plan():
    network = {"vcnCidr": "10.0.0.0/21", "subnets": {
        "controlPlane": "10.0.0.0/28", "workers": "10.0.1.0/24", "pods": "10.0.4.0/22",
        "internalLoadBalancers": "10.0.2.0/25", "storage": "10.0.2.128/29"},
        "apiEndpoint": {"allowedCidrs": ["10.0.0.0/16"]}}
    load_stack_config(edited(RAW, "network", (), network))
    with_public = {**network, "publicLoadBalancers": True}
    [p] = problems(edited(RAW, "network", (), with_public))
    assert p.startswith("oke-rdma:network.vcnCidr: is smaller than /20, too small for the default subnet plan")


# --- 12. messages --------------------------------------------------------------------------------------------------
def test_a_nested_secure_value_names_its_full_path():
    raw = dict(RAW)
    raw["oke-rdma:nodePools"] = json.dumps({**json.loads(RAW["oke-rdma:nodePools"]),
                                            "system": {**json.loads(RAW["oke-rdma:nodePools"])["system"],
                                                       "size": "offline-placeholder-secret"}})
    [p] = problems(raw, [*SECRETS, "oke-rdma:nodePools"])
    assert p.endswith("store it in plain text with pulumi config set --path 'oke-rdma:nodePools.system.size' <value>")


def test_the_placeholder_text_never_appears_in_a_message():
    raw = edited(RAW, "network", ("apiEndpoint", "allowedCidrs"), ["offline-placeholder-secret"])
    raw = edited(raw, "tenants", ("research", "serviceAccounts", "trainer", "allow"), ["offline-placeholder-secret"])
    found = problems(raw, [*SECRETS, "oke-rdma:network", "oke-rdma:tenants"])
    assert len(found) == 2 and all("a secret value" in p or "got a secret (secure:)" in p for p in found)
    assert not any("offline-placeholder-secret" in p for p in found)


def test_a_huge_whole_number_says_the_range():
    [p] = problems(pool(RAW, "system", size=1e30))
    assert p == "oke-rdma:nodePools.system.size: expected a whole number from 0 to 1000, got the number 1e+30; " \
                "change the value"


def test_hostname_first_says_it_must_be_last():
    raw = edited(RAW, "platform", ("kueue", "topologyLevels"), ["kubernetes.io/hostname", "topology.kubernetes.io/zone"])
    [p] = problems(raw)
    assert p.endswith("; move kubernetes.io/hostname to the last level") and "append" not in p
    [p] = problems(edited(RAW, "platform", ("kueue", "topologyLevels"), ["topology.kubernetes.io/zone"]))
    assert p.endswith("; append kubernetes.io/hostname")


def test_a_malformed_secure_value_is_not_called_plain_text():
    raw = edited(RAW, "platform", ("kubePrometheusStack", "grafanaAdminPassword"), {"secure": {"a": 1}})
    [p] = problems(raw, SECRETS)
    assert "plain text" not in p
    assert p.startswith("oke-rdma:platform.kubePrometheusStack.grafanaAdminPassword: expected a secure: value "
                        "holding the ciphertext Pulumi writes, got secure: with a map with keys a; set it again with "
                        "pulumi config set --path --secret")
    [p] = problems(pool(RAW, "system", size={"secure": 3}), SECRETS)  # not a secret field: no --secret
    assert p.startswith("oke-rdma:nodePools.system.size: expected a secure: value") and "--secret" not in p


def test_max_surge_as_a_number_is_the_node_count():
    raw = pool(RAW, "system", cycling={"enabled": True, "maxSurge": 2, "maxUnavailable": 0})
    cycling = load_stack_config(raw).node_pools["system"].cycling
    assert (cycling.max_surge, cycling.max_unavailable) == ("2", "0")
    assert "expected text" in problems(pool(RAW, "system", cycling={"maxSurge": 1.5}))[0]


@pytest.mark.parametrize("grafana, at", [
    ({"grafana.ini": {"auth.anonymous": {"enabled": True, "org_role": "Admin"}}},
     'grafana["grafana.ini"]["auth.anonymous"].enabled'),
    ({"grafana.ini": {"auth.anonymous": {"enabled": "true"}}}, 'grafana["grafana.ini"]["auth.anonymous"].enabled'),
    ({"env": {"GF_AUTH_ANONYMOUS_ENABLED": "TRUE"}}, "grafana.env.GF_AUTH_ANONYMOUS_ENABLED"),
    ({"grafana.ini": {"auth.proxy": {"enabled": True, "header_name": "X-WEBAUTH-USER"}}},
     'grafana["grafana.ini"]["auth.proxy"].whitelist'),
])
def test_a_grafana_anyone_can_enter_without_a_login_is_refused_naming_the_key(grafana, at):
    """Anonymous access (ini or environment) and an auth proxy trusting any client's header are refused."""
    [p] = problems(values("kubePrometheusStack", {"grafana": grafana}))
    assert p.startswith(f"oke-rdma:platform.kubePrometheusStack.values.{at}: "), p


@pytest.mark.parametrize("grafana", [
    {"grafana.ini": {"auth.anonymous": {"enabled": False}}},
    {"grafana.ini": {"auth.proxy": {"enabled": True, "whitelist": "10.0.0.5"}}},
    {"env": {"GF_AUTH_ANONYMOUS_ENABLED": "false"}},
    {"grafana.ini": {"auth.generic_oauth": {"enabled": True}}},
])
def test_grafana_logins_and_trusted_proxies_pass(grafana):
    load_stack_config(values("kubePrometheusStack", {"grafana": grafana}))
