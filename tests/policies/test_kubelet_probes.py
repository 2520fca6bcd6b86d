"""Probes and lifecycle hooks the kubelet runs connect to the pod itself: an httpGet or tcpSocket host in any probe
or hook of any container, in any pod template the pack reads or in a Helm release's values, is refused (the kubelet
would connect there from the node's network: the instance metadata service, the node's ports, other tenants' pods);
no host, grpc, exec and sleep handlers pass, and loopback passes in a hostNetwork pod."""
from __future__ import annotations

import pytest

from policies.security import kubelet_probes
from tests.policies.test_policies import U, call_resource_rule

POD, DEPLOYMENT = "kubernetes:core/v1:Pod", "kubernetes:apps/v1:Deployment"
IMDS = "169.254.169.254"


def container(**fields) -> dict:
    return {"name": "c", "image": "nvcr.io/nvidia/pytorch:25.01-py3", **fields}


def pod(*containers, field="containers", **spec) -> dict:
    return {"metadata": {"name": "w", "namespace": "analytics"}, "spec": {field: list(containers), **spec}}


def found(kind: str, props: dict) -> list[str]:
    return call_resource_rule(kubelet_probes.validate_probes_target_own_pod, kind, props)


@pytest.mark.parametrize("fields, where", [
    ({"livenessProbe": {"httpGet": {"host": IMDS, "path": "/opc/v2/instance/", "port": 80}}}, "livenessProbe.httpGet"),
    ({"readinessProbe": {"tcpSocket": {"host": "10.0.10.5", "port": 10250}}}, "readinessProbe.tcpSocket"),
    ({"startupProbe": {"httpGet": {"host": "kubernetes.default.svc", "port": 443}}}, "startupProbe.httpGet"),
    ({"lifecycle": {"postStart": {"httpGet": {"host": IMDS, "port": 80}}}}, "lifecycle.postStart.httpGet"),
    ({"lifecycle": {"preStop": {"tcpSocket": {"host": "127.0.0.1", "port": 10248}}}}, "lifecycle.preStop.tcpSocket"),
    ({"livenessProbe": {"httpGet": {"host": "localhost", "port": 10248}}}, "livenessProbe.httpGet"),
    ({"livenessProbe": {"httpGet": {"host": U, "port": 80}}}, "host is unknown"),
    ({"livenessProbe": {"httpGet": U}}, "httpGet.host is unknown"),
    ({"livenessProbe": U}, "livenessProbe is unknown"),
    ({"lifecycle": U}, "lifecycle is unknown"),
])
@pytest.mark.parametrize("field", ["containers", "initContainers"])
def test_a_probe_or_hook_with_a_host_is_refused(fields, where, field):
    """Any host in a probe or hook (metadata service, node, API server, loopback outside hostNetwork, unknown) is
    refused, in regular and init containers."""
    messages = found(POD, pod(container(**fields), field=field))
    assert any(where in m for m in messages), messages


def test_every_pod_template_is_read():
    """A Deployment's template and a Kubeflow job's replicas are read like a Pod."""
    bad = container(livenessProbe={"httpGet": {"host": IMDS, "port": 80}})
    deployment = {"metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": [bad]}}}}
    assert found(DEPLOYMENT, deployment)
    job = {"metadata": {"name": "j"}, "spec": {"pytorchReplicaSpecs": {"Worker": {"template": {"spec": {
        "containers": [bad]}}}}}}
    assert any("Worker" in m for m in found("kubernetes:kubeflow.org/v1:PyTorchJob", job))


@pytest.mark.parametrize("fields", [
    {"livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080, "httpHeaders": [{"name": "Host",
                                                                                        "value": "app"}]}}},
    {"readinessProbe": {"tcpSocket": {"port": 8080, "host": ""}}},
    {"startupProbe": {"grpc": {"port": 9090}}},
    {"livenessProbe": {"exec": {"command": ["cat", "/tmp/ready"]}}},
    {"lifecycle": {"preStop": {"sleep": {"seconds": 5}}, "postStart": {"exec": {"command": ["true"]}}}},
])
def test_probes_and_hooks_on_the_pod_itself_pass(fields):
    """No host (the pod's IP), grpc, exec and sleep handlers pass."""
    assert found(POD, pod(container(**fields))) == []


def test_loopback_passes_only_in_a_host_network_pod():
    """In a hostNetwork pod loopback is the pod's own network; another host is still refused."""
    probe = {"httpGet": {"host": "127.0.0.1", "port": 9879, "path": "/healthz"}}
    assert found(POD, pod(container(livenessProbe=probe), hostNetwork=True)) == []
    assert found(POD, pod(container(livenessProbe={"httpGet": {"host": "::1", "port": 1}}), hostNetwork=True)) == []
    assert found(POD, pod(container(livenessProbe=probe)))
    assert found(POD, pod(container(livenessProbe={"httpGet": {"host": IMDS, "port": 80}}), hostNetwork=True))


@pytest.mark.parametrize("values, refused", [
    ({"livenessProbe": {"httpGet": {"host": IMDS, "port": 80}}}, True),
    ({"server": {"readinessProbe": {"tcpSocket": {"host": "10.0.0.1", "port": 22}}}}, True),
    ({"extraContainers": [{"name": "x", "lifecycle": {"postStart": {"httpGet": {"host": U, "port": 1}}}}]}, True),
    ({"livenessProbe": {"httpGet": {"path": "/healthz", "port": "http"}}}, False),
])
def test_helm_values_with_a_probe_host_are_refused(values, refused):
    """A probe or hook host anywhere in a Helm release's values is refused; probes without one pass."""
    props = {"chart": "keda", "version": "2.20.2", "namespace": "apps", "values": values}
    assert bool(found("kubernetes:helm.sh/v3:Release", props)) is refused
