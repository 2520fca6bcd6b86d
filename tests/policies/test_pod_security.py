"""Pod privilege through every path: Helm values, workload pod specs, node escape, undeclared namespaces."""
from __future__ import annotations

import pytest

from policies.security.pod_security import node_escape_path, values_findings
from tests.policies.test_policies import U, messages, res, run

HELM = "kubernetes:helm.sh/v3:Release"
NS = "kubernetes:core/v1:Namespace"
POD = "kubernetes:core/v1:Pod"
VALUES, ESCAPE, DECLARED = ("helm-values-pod-security", "node-escape-only-in-node-agent-namespaces",
                            "workload-namespace-declared")
RDMA_LEVEL = "rdma-pods-in-privileged-namespaces"


def namespace(name, level):
    return res(NS, f"ns-{name}", {"metadata": {"name": name, "labels": {"pod-security.kubernetes.io/enforce": level}}})


def release(values, ns="apps"):
    return res(HELM, "rel", {"chart": "keda", "version": "2.20.2", "namespace": ns,
                             "repositoryOpts": {"repo": "https://kedacore.github.io/charts"}, "values": values})


def pod(spec, ns="apps"):
    return res(POD, "p", {"metadata": {"name": "p", "namespace": ns}, "spec": spec})


def found(policy, *resources):
    return messages(run(*resources, policy=policy), policy)


@pytest.mark.parametrize("values, policy", [
    ({"hostNetwork": True}, VALUES), ({"controller": {"hostNetwork": "true"}}, VALUES),
    ({"containerSecurityContext": {"privileged": True}}, VALUES),
    ({"a": {"b": [{"securityContext": {"capabilities": {"add": ["NET_RAW"]}}}]}}, VALUES),
    ({"extraVolumes": [{"name": "d", "hostPath": {"path": "/data"}}]}, VALUES),
    ({"ports": {"hostPort": 8080}}, VALUES),
    ({"securityContext": {"allowPrivilegeEscalation": True}}, VALUES),
    ({"securityContext": {"runAsUser": 0}}, VALUES),
    ({"service": {"type": "LoadBalancer"}}, "helm-values-exposure"),
    ({"hostPID": True}, ESCAPE), ({"x": {"hostIPC": True}}, ESCAPE),
    ({"securityContext": {"capabilities": {"add": ["SYS_ADMIN"]}}}, ESCAPE),
    ({"securityContext": {"capabilities": {"add": ["CAP_ALL"]}}}, ESCAPE),
    ({"volumes": [{"hostPath": {"path": "/"}}]}, ESCAPE), ({"hostPath": "/var/run/docker.sock"}, ESCAPE),
    ({"v": {"hostPath": {"path": "/etc/../"}}}, ESCAPE),
    (U, ESCAPE),
])
def test_privilege_settings_anywhere_in_helm_values_are_refused_in_a_restricted_namespace(values, policy):
    assert len(found(policy, namespace("apps", "restricted"), release(values))) == 1


def test_the_issue_example_release_is_refused_by_both_rules():
    values = {"hostNetwork": True, "hostPID": True, "containerSecurityContext": {"privileged": True}}
    resources = (namespace("apps", "restricted"), release(values))
    assert found(VALUES, *resources) and found(ESCAPE, *resources)


def test_values_fit_the_namespace_level():
    baseline = namespace("apps", "baseline")
    assert found(VALUES, baseline, release({"securityContext": {"runAsUser": 0}})) == []
    assert found(VALUES, baseline, release({"hostNetwork": True}))
    privileged = namespace("apps", "privileged")
    assert found(VALUES, privileged, release({"hostNetwork": True, "privileged": True})) == []
    assert found(ESCAPE, privileged, release({"hostPID": True}))  # privileged is not enough for node escape
    agents = namespace("gpu-operator", "privileged")
    assert found(ESCAPE, agents, release({"hostPID": True, "hostPath": {"path": "/"}}, ns="gpu-operator")) == []
    assert found(VALUES, namespace("apps", "restricted"), release({"replicas": 2, "privileged": False,
                                                                   "securityContext": {"runAsNonRoot": True,
                                                                                       "allowPrivilegeEscalation": False}})) == []
    internal = {"service": {"type": "LoadBalancer", "annotations": {
        "service.beta.kubernetes.io/oci-load-balancer-internal": "true"}}}
    assert found("helm-values-exposure", namespace("apps", "restricted"), release(internal)) == []


def test_the_issue_example_pod_is_refused_in_a_privileged_non_rdma_namespace():
    spec = {"hostPID": True, "volumes": [{"name": "root", "hostPath": {"path": "/"}}],
            "containers": [{"name": "c", "image": "i", "securityContext": {"capabilities": {"add": ["SYS_ADMIN"]}}}]}
    [message] = found(ESCAPE, namespace("tools", "privileged"), pod(spec, "tools"))
    assert "hostPID" in message and "SYS_ADMIN" in message and "host path /" in message


def test_rdma_pods_need_no_node_escape():
    spec = {"hostNetwork": True, "volumes": [{"name": "ib", "hostPath": {"path": "/dev/infiniband"}}],
            "containers": [{"name": "c", "image": "i", "securityContext": {
                "privileged": True, "capabilities": {"add": ["IPC_LOCK"]}}}]}
    resources = (namespace("research", "privileged"), pod(spec, "research"))
    assert found(ESCAPE, *resources) == [] and found(RDMA_LEVEL, *resources) == []


@pytest.mark.parametrize("spec, what", [
    ({"hostPID": True, "containers": []}, "hostPID"), ({"hostIPC": True, "containers": []}, "hostIPC"),
    ({"volumes": [{"hostPath": {"path": "/data"}}], "containers": []}, "hostPath"),
    ({"containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 80}]}]}, "hostPort"),
    ({"containers": [{"name": "c", "securityContext": {"capabilities": {"add": ["NET_RAW"]}}}]}, "NET_RAW"),
])
def test_every_baseline_control_needs_a_privileged_namespace(spec, what):
    [message] = found(RDMA_LEVEL, namespace("apps", "baseline"), pod(spec))
    assert what in message


@pytest.mark.parametrize("path, escape", [("/", True), ("/etc", True), ("/etc/kubernetes", True), ("/var", True),
                                          ("/var/lib/kubelet/pods", True), ("/dev", True), ("//", True),
                                          ("/dev/infiniband", False), ("/data", False), ("/mnt/nvme", False),
                                          ("/opt/../proc", True), ("/var/lib/containers/storage", True),
                                          ("/var/lib/crio", True), ("/var/spool/cron", True),
                                          ("/var/log", True), ("/var/log/containers", True), ("/var/lib/cni", True),
                                          ("/var/lib/data", True), ("/var/cache/models", False),
                                          ("/var/lib/cloud", True), ("/var/lib/cloud/scripts/per-boot", True),
                                          ("/etc/cloud", True), ("/etc/cron.d", True), ("/etc/systemd/system", True),
                                          ("/usr/lib/systemd", True), ("/run/systemd", True), ("/tmp", True),
                                          ("/etc/ld.so.preload", True), ("/home/opc/.ssh", True), ("/opt", True),
                                          ("/var/run/crio/crio.sock", True), ("/dev/sda", True), ("/dev/mem", True),
                                          ("/dev/nvme0n1", True), ("/var/lib/dbus", True), ("/opt/oci-hpc", True),
                                          ("/mnt/localdisk", False), ("/dev/infiniband/uverbs0", False),
                                          ("/dev/infiniband/../sda", True), ("/mntx", True), ("/", True)])
def test_node_escape_paths(path, escape):
    assert node_escape_path(path) is escape


def test_workloads_and_releases_go_to_declared_namespaces():
    assert found(DECLARED, pod({"containers": []}, "default"))
    assert found(DECLARED, release({}, ns="elsewhere"))
    assert found(DECLARED, namespace("apps", "restricted"), pod({"containers": []}), release({})) == []


def test_values_findings_paths_name_where_the_setting_sits():
    [(kind, text)] = values_findings({"node-exporter": {"hostPID": True}})
    assert kind == "escape" and text == "values.node-exporter.hostPID: true"


@pytest.mark.parametrize("spec, what", [
    ({"securityContext": {"seccompProfile": {"type": "Unconfined"}}, "containers": []}, "seccompProfile"),
    ({"securityContext": {"sysctls": [{"name": "kernel.core_pattern", "value": "|/x"}]}, "containers": []},
     "kernel.core_pattern"),
    ({"containers": [{"name": "c", "securityContext": {"procMount": "Unmasked"}}]}, "procMount"),
    ({"containers": [{"name": "c", "securityContext": {"seLinuxOptions": {"type": "spc_t"}}}]}, "seLinuxOptions"),
    ({"containers": [{"name": "c", "securityContext": {"appArmorProfile": {"type": "Unconfined"}}}]}, "appArmor"),
    ({"containers": [{"name": "c", "securityContext": {"windowsOptions": {"hostProcess": True}}}]}, "hostProcess"),
])
def test_security_context_controls_of_baseline_need_a_privileged_namespace(spec, what):
    [message] = found(RDMA_LEVEL, namespace("apps", "restricted"), pod(spec))
    assert what in message


def test_baseline_security_contexts_pass():
    spec = {"securityContext": {"seccompProfile": {"type": "RuntimeDefault"}, "sysctls": [
        {"name": "net.ipv4.tcp_keepalive_time", "value": "60"}]},
            "containers": [{"name": "c", "securityContext": {"procMount": "Default", "seLinuxOptions": {
                "type": "container_t"}}}]}
    assert found(RDMA_LEVEL, namespace("apps", "restricted"), pod(spec)) == []


@pytest.mark.parametrize("path, bad", [("/", True), ("/etc/kubernetes", True), ("/mnt/datasets", False)])
def test_persistent_volumes_with_node_host_paths_are_refused(path, bad):
    pv = res("kubernetes:core/v1:PersistentVolume", "pv", {"spec": {"hostPath": {"path": path},
                                                                  "capacity": {"storage": "1Gi"}}})
    assert bool(found(ESCAPE, pv)) is bad


@pytest.mark.parametrize("values, policy", [
    ({"hostNetwork": "yes"}, VALUES), ({"privileged": 1}, VALUES),
    ({"securityContext": {"capabilities": {"add": "SYS_ADMIN"}}}, ESCAPE),
    ({"podSecurityContext": {"seccompProfile": {"type": "Unconfined"}}}, VALUES),
    ({"podSecurityContext": {"sysctls": [{"name": "kernel.msgmax", "value": "1"}]}}, VALUES),
])
def test_helm_values_spellings_fail_closed(values, policy):
    assert found(policy, namespace("apps", "restricted"), release(values))


def test_helm_values_false_spellings_pass():
    values = {"hostNetwork": "false", "privileged": 0, "hostPID": None, "x": {"hostIPC": "no"}}
    resources = (namespace("apps", "restricted"), release(values))
    assert found(VALUES, *resources) == [] and found(ESCAPE, *resources) == []


@pytest.mark.parametrize("extra", [{"valueYamlFiles": [{"4dabf18193072939515e22adb298388d":
                                                        "c44067f5952c0a294b673a41bacd8c17", "path": "v.yaml"}]},
                                   {"postrender": "/usr/local/bin/kustomize-wrap"}])
def test_values_files_and_post_renderers_cannot_be_judged_and_are_refused(extra):
    rel = release({})
    rel.inputs.update(extra)
    assert found(VALUES, namespace("apps", "restricted"), rel)


PURPOSE = "privileged-namespace-purpose"


def gpu_quota(ns: str, deps=None):
    return res("kubernetes:core/v1:ResourceQuota", f"q-{ns}", {"metadata": {"name": "gpu", "namespace": ns},
                                                               "spec": {"hard": {"requests.nvidia.com/gpu": "8"}}},
               deps=deps)


def test_privileged_namespaces_need_a_purpose():
    assert found(PURPOSE, namespace("tools", "privileged"))
    assert found(PURPOSE, res(NS, "u", {"metadata": {"name": "tools", "labels": {
        "pod-security.kubernetes.io/enforce": U}}}))
    cpu_quota = res("kubernetes:core/v1:ResourceQuota", "q", {"metadata": {"namespace": "tools"},
                                                              "spec": {"hard": {"requests.cpu": "8"}}})
    assert found(PURPOSE, namespace("tools", "privileged"), cpu_quota)


def test_gpu_tenants_and_node_agents_may_be_privileged():
    tenant = namespace("research", "privileged")
    assert found(PURPOSE, tenant, gpu_quota("research")) == []
    assert found(PURPOSE, tenant, gpu_quota(U, deps={"metadata": [tenant]})) == []
    assert found(PURPOSE, namespace("gpu-operator", "privileged"), namespace("monitoring", "privileged"),
                 namespace("apps", "restricted")) == []


def test_an_unknown_release_namespace_is_followed_to_the_namespace_it_depends_on():
    agents = namespace("gpu-operator", "privileged")
    rel = res(HELM, "rel", {"chart": "gpu-operator", "version": "v25.10.1", "namespace": U,
                            "repositoryOpts": {"repo": "https://helm.ngc.nvidia.com/nvidia"},
                            "values": {"hostPID": True}}, deps={"namespace": [agents]})
    assert found(ESCAPE, agents, rel) == [] and found(DECLARED, agents, rel) == []
    stray = res(HELM, "rel", {"chart": "keda", "version": "2.20.2", "namespace": U, "values": {"hostPID": True},
                              "repositoryOpts": {"repo": "https://kedacore.github.io/charts"}})
    assert found(ESCAPE, agents, stray) and found(DECLARED, agents, stray)


@pytest.mark.parametrize("chart, refused", [("./charts/keda", True), ("/opt/charts/keda", True),
                                            ("keda-2.20.2.tgz", True), ("kedacore/keda", True), ("keda", False),
                                            ("https://kedacore.github.io/charts/keda", False)])
def test_a_chart_path_beside_an_allowed_repository_is_refused(chart, refused):
    rel = release({})
    rel.inputs["chart"] = chart
    assert bool(found("helm-release-pinned", namespace("apps", "restricted"), rel)) is refused


@pytest.mark.parametrize("chart, name", [("gpu-operator", "gpu-operator"),
                                         ("oci://registry.k8s.io/kueue/charts/kueue", "kueue"),
                                         ("https://example.com/charts/network-operator-25.4.0.tgz", "network-operator")])
def test_chart_names(chart, name):
    from policies.security.kubernetes import chart_name
    assert chart_name({"chart": chart}) == name
