"""The charts' own template checks (``fail``/``required``) that values set through platform.<key>.values reach are
refused by the config check, one line naming the value's path, instead of previewing clean and failing at pulumi up;
each check fires on the values its template refuses and stays silent on values it accepts."""

from __future__ import annotations

import pytest

from oke_rdma.addons import REGISTRY
from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.config.checks.platform import check_platform
from oke_rdma.facts.chart_templates import CHECKS, checks_of, truthy, value
from tests.stackcfg import dev_raw_config, load_dev_config

#: oke-rdma's own Cilium values that the checks read (l7Proxy false, kubeProxyReplacement "false").
CILIUM = {"l7Proxy": False, "kubeProxyReplacement": "false", "routingMode": "native"}

#: (add-on, first path of the check) → (final values it refuses, final values it accepts).
CASES = {
    ("cilium", "gatewayAPI.enabled"): ({**CILIUM, "gatewayAPI": {"enabled": True}},
                                       {**CILIUM, "gatewayAPI": {"enabled": True}, "l7Proxy": True}),
    ("cilium", "gatewayAPI.externalTrafficPolicy"): (
        {"gatewayAPI": {"enabled": True, "externalTrafficPolicy": "Local2"}},
        {"gatewayAPI": {"enabled": False, "externalTrafficPolicy": "Local2"}}),
    ("cilium", "ingressController.service.externalTrafficPolicy"): (
        {"ingressController": {"enabled": True, "service": {"externalTrafficPolicy": "None"}}},
        {"ingressController": {"enabled": True, "service": {"type": "ClusterIP", "externalTrafficPolicy": "None"}}}),
    ("cilium", "hubble.ui.enabled"): ({"hubble": {"ui": {"enabled": True}}},
                                      {"hubble": {"ui": {"enabled": True}, "relay": {"enabled": True}}}),
    ("cilium", "hubble.ui.standalone.tls.certsVolume"): (
        {"hubble": {"ui": {"enabled": True, "standalone": {"enabled": True}}, "relay": {"tls": {"server": {
            "enabled": True}}}}},
        {"hubble": {"ui": {"enabled": True, "standalone": {"enabled": True, "tls": {"certsVolume": {"x": 1}}}},
                    "relay": {"tls": {"server": {"enabled": True}}}}}),
    ("cilium", "hubble.relay.enabled"): ({"hubble": {"enabled": False, "relay": {"enabled": True}}},
                                         {"hubble": {"relay": {"enabled": True}}}),
    ("cilium", "prometheus.serviceMonitor.enabled"): (
        {"operator": {"prometheus": {"serviceMonitor": {"enabled": True}}}},
        {"operator": {"prometheus": {"enabled": False, "serviceMonitor": {"enabled": True}}}}),
    ("cilium", "hubble.tls.auto.certManagerIssuerRef"): (
        {"hubble": {"tls": {"auto": {"method": "certmanager"}}}},
        {"hubble": {"tls": {"auto": {"method": "certmanager", "certManagerIssuerRef": {"name": "ca"}}}}}),
    ("cilium", "hubble.redact.http.headers.allow"): (
        {"hubble": {"redact": {"http": {"headers": {"allow": ["a"], "deny": ["b"]}}}}},
        {"hubble": {"redact": {"http": {"headers": {"allow": ["a"]}}}}}),
    ("cilium", "clustermesh.apiserver.tls.auto.certManagerIssuerRef"): (
        {"clustermesh": {"useAPIServer": True, "apiserver": {"tls": {"auto": {"method": "certmanager"}}}}},
        {"clustermesh": {"useAPIServer": False, "apiserver": {"tls": {"auto": {"method": "certmanager"}}}}}),
    ("cilium", "authentication.mutual.spire.enabled"): (
        {"authentication": {"mutual": {"spire": {"enabled": True}}}},
        {"authentication": {"enabled": True, "mutual": {"spire": {"enabled": True}}}}),
    ("cilium", "disableEndpointCRD"): ({"ciliumEndpointSlice": {"enabled": True}, "disableEndpointCRD": True},
                                       {"ciliumEndpointSlice": {"enabled": True}}),
    ("cilium", "cluster.name"): ({"cluster": {"name": "OKE_dev"}}, {"cluster": {"name": "oke-dev", "id": 3}}),
    ("cilium", "clustermesh.apiserver.kvstoremesh.kvstoreMode"): (
        {"clustermesh": {"apiserver": {"kvstoremesh": {"kvstoreMode": "both"}}}},
        {"clustermesh": {"apiserver": {"kvstoremesh": {"kvstoreMode": "external"}}}}),
    ("cilium", "clustermesh.maxConnectedClusters"): ({"clustermesh": {"maxConnectedClusters": 256}},
                                                     {"clustermesh": {"maxConnectedClusters": 511}}),
    ("cilium", "envoy.baseID"): ({"envoy": {"baseID": -1}}, {"envoy": {"baseID": 7}}),
    ("cilium", "extraEnv"): ({"extraEnv": [{"name": "KUBE_CLIENT_BACKOFF_BASE", "value": "1"}]},
                             {"extraEnv": [{"name": "KUBE_CLIENT_BACKOFF_BASE", "value": "1"}],
                              "k8sClientExponentialBackoff": {"enabled": False}}),
    ("cilium", "dnsProxy.proxyPort"): ({"standaloneDnsProxy": {"enabled": True}},
                                       {"standaloneDnsProxy": {"enabled": True}, "dnsProxy": {"proxyPort": 10094}}),
    ("cilium", "bpf.tproxy"): ({"bpf": {"tproxy": True, "datapathMode": "netkit"}}, {"bpf": {"tproxy": True}}),
    ("cilium", "k8sServiceHost"): ({"k8sServiceHost": "10.0.0.1", "k8sServiceHostRef": {"name": "c", "key": "k"}},
                                   {"k8sServiceHost": "10.0.0.1"}),
    ("cilium", "operator.removeNodeTaints"): ({"operator": {"setNodeTaints": True, "removeNodeTaints": False}},
                                              {"operator": {"setNodeTaints": True}}),
    ("cilium", "ipv6NativeRoutingCIDR"): ({**CILIUM, "ipv6": {"enabled": True}},
                                          {**CILIUM, "ipv6": {"enabled": True}, "ipv6NativeRoutingCIDR": "fd00::/64"}),
    ("cilium", "aksbyocni.enabled"): ({"aksbyocni": {"enabled": True}}, {"aksbyocni": {"enabled": False}}),
    ("cilium", "enableCiliumEndpointSlice"): ({"tunnel": "vxlan"}, {"tunnelProtocol": "vxlan"}),
    ("gpuOperator", "gpuCluster.deployCR"): ({"gpuCluster": {"deployCR": True}},
                                             {"gpuCluster": {"deployCR": True}, "clusterPolicy": {"deployCR": False}}),
    ("gpuOperator", "cdi.nriPluginEnabled"): ({"cdi": {"enabled": False, "nriPluginEnabled": True}},
                                              {"cdi": {"nriPluginEnabled": True}}),
    ("gpuOperator", "devicePlugin.config.create"): (
        {"devicePlugin": {"config": {"create": True, "data": {"a": "b"}}}},
        {"devicePlugin": {"config": {"create": True, "name": "cfg", "data": {"a": "b"}}}}),
    ("kubePrometheusStack", "grafana.operator.matchLabels"): (
        {"grafana": {"operator": {"dashboardsConfigMapRefEnabled": True}}},
        {"grafana": {"operator": {"dashboardsConfigMapRefEnabled": True, "matchLabels": {"a": "b"}}}}),
    ("kubePrometheusStack", "grafana.operator.folderUID"): (
        {"grafana": {"operator": {"dashboardsConfigMapRefEnabled": True, "folderUID": "u"}}},
        {"grafana": {"operator": {"dashboardsConfigMapRefEnabled": True, "folderUID": "u", "folder": None}}}),
    ("kubePrometheusStack", "thanosRuler.thanosRulerSpec.extraEnv"): (
        {"thanosRuler": {"enabled": True, "thanosRulerSpec": {"extraEnv": [{"name": "A"}],
                                                              "containers": [{"name": "thanos-ruler"}]}}},
        {"thanosRuler": {"enabled": True, "thanosRulerSpec": {"extraEnv": [{"name": "A"}],
                                                              "containers": [{"name": "sidecar"}]}}}),
    ("jobset", "prometheus.enable"): ({"prometheus": {"enable": True}}, {"prometheus": {"enable": False}}),
    ("trainer", "dataCache.runtimes.torchDistributedWithCache.enabled"): (
        {"dataCache": {"runtimes": {"torchDistributedWithCache": {"enabled": True}}}},
        {"dataCache": {"enabled": True, "runtimes": {"torchDistributedWithCache": {"enabled": True}}}}),
    ("kuberay", "reconcileConcurrency"): ({"reconcileConcurrency": 0}, {"reconcileConcurrency": 4}),
    ("kuberay", "kubeClient.qps"): ({"kubeClient": {"qps": "fast"}}, {"kubeClient": {"qps": 50.5}}),
    ("kuberay", "kubeClient.burst"): ({"kubeClient": {"burst": -1}}, {"kubeClient": {"burst": 300}}),
}


def test_every_check_has_a_refused_and_an_accepted_case():
    """The class: every check of the table is exercised here, and every check is dated and names an add-on."""
    assert {(c.addon, c.paths[0]) for c in CHECKS} == set(CASES)
    for c in CHECKS:
        assert c.addon in REGISTRY and "checked 2026-12-02" in c.source


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: f"{c.addon}:{c.paths[0]}")
def test_each_check_refuses_what_its_template_refuses_and_accepts_the_rest(check):
    refused, accepted = CASES[(check.addon, check.paths[0])]
    assert check.fails(refused) is True
    assert check.fails(accepted) is False


def test_the_charts_defaults_pass_every_check():
    """With no value set (the chart's defaults) no template fails: a check never refuses an untouched chart."""
    for c in CHECKS:
        assert c.fails({}) is False, c.paths


def problems(**overrides) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(**overrides))
    return err.value.problems


def test_gateway_api_on_ciliums_pinned_l7_proxy_is_refused_at_the_users_key():
    """The bug hunt's input: gatewayAPI.enabled with oke-rdma's l7Proxy: false previewed clean and failed at pulumi
    up; now one line at the user's key, naming the chart and the template read."""
    found = problems(platform={"cilium": {"values": {"gatewayAPI": {"enabled": True}}}})
    [line] = [p for p in found if p.startswith("oke-rdma:platform.cilium.values.")]
    assert line.startswith("oke-rdma:platform.cilium.values.gatewayAPI.enabled: the cilium chart 1.20.0 refuses")
    assert "l7Proxy: true" in line and "templates/validate.yaml" in line


def test_the_line_names_the_path_the_user_set():
    """A check reading several paths names the one in the user's values: a standalone DNS proxy without a port is
    named at standaloneDnsProxy.enabled (dnsProxy.proxyPort is the chart's default)."""
    found = problems(platform={"cilium": {"values": {"standaloneDnsProxy": {"enabled": True}}}})
    assert any(p.startswith("oke-rdma:platform.cilium.values.standaloneDnsProxy.enabled: the cilium chart")
               for p in found), found


def test_gpu_operator_and_kuberay_checks_run_on_their_final_values():
    """Members beyond Cilium: a second GPU Operator CR, a KubeRay concurrency of 0 (KubeRay enabled)."""
    gpu = problems(platform={"gpuOperator": {"values": {"gpuCluster": {"deployCR": True}}}})
    assert any(p.startswith("oke-rdma:platform.gpuOperator.values.gpuCluster.deployCR: the gpu-operator chart "
                            "v26.7.0 refuses") for p in gpu), gpu
    ray = problems(platform={"kuberay": {"enabled": True, "values": {"reconcileConcurrency": 0}}})
    assert any(p.startswith("oke-rdma:platform.kuberay.values.reconcileConcurrency: the kuberay-operator chart")
               for p in ray), ray


def test_a_disabled_release_or_an_unread_version_is_not_checked():
    """Values of an add-on that is off, or of a chart version whose templates were not read, are not judged."""
    cfg = load_dev_config(platform={"kuberay": {"enabled": False, "values": {"reconcileConcurrency": 0}}})
    assert not [p for p in check_platform(cfg) if "kuberay-operator chart" in p]
    assert checks_of("kuberay", "1.6.2") == () and checks_of("kuberay", "1.7.0")


def test_the_stacks_own_values_pass():
    """dev's final values trip no template check (the GPU Operator's device-plugin configurations included)."""
    assert [p for p in check_platform(load_dev_config()) if "refuses these values at install" in p] == []


def test_helpers_follow_go_template_truth_and_chart_defaults():
    assert [truthy(x) for x in (None, False, 0, "", [], {}, "x", 1, [0], {"a": 0})] == [False] * 6 + [True] * 4
    assert value({"a": {"b": None}}, "a.b", 5) is None and value({}, "a.b", 5) == 5
