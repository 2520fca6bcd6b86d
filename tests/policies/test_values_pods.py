"""Every pod rule of the security pack judges the pod-spec-shaped maps of a Helm release's values as pod specs of the
release's namespace (and of its namespaceOverride namespace); values a pod field cannot take are refused."""
from __future__ import annotations

import pytest

from policies.security._pod_fields import Uninterpretable
from policies.security._rules import UNKNOWN
from policies.security._values_pods import values_pod_specs
from tests.policies.test_policies import U, messages, res, run

HELM = "kubernetes:helm.sh/v3:Release"
NS = "kubernetes:core/v1:Namespace"
QUOTA = "kubernetes:core/v1:ResourceQuota"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
SCHEDULING, VOLUMES = "tenant-pods-scheduled-by-the-platform", "tenant-volumes-through-claims"
PRIORITY, FLOOR = "system-priority-only-for-node-agents", "pods-keep-the-privileged-port-floor"
GPU_PODS, GPU_ENV = "gpu-pods-only-in-tenant-namespaces", "gpu-devices-through-device-plugin"
GPU_ENV_FROM, VALUES = "gpu-env-from-sources-without-gpus", "helm-values-pod-security"


def namespace(name, level="restricted", tenant=False):
    labels = {"pod-security.kubernetes.io/enforce": level, **({"okerdma.io/tenant": name} if tenant else {})}
    return res(NS, f"ns-{name}", {"metadata": {"name": name, "labels": labels}})


def release(values, ns="research"):
    return res(HELM, "rel", {"chart": "keda", "version": "2.20.2", "namespace": ns,
                             "repositoryOpts": {"repo": "https://kedacore.github.io/charts"}, "values": values})


def stack(values, ns="research"):
    return [namespace("research", tenant=True), namespace("apps"), namespace("keda"), release(values, ns)]


def found(policy, *resources):
    return messages(run(*resources, policy=policy), policy)


SYSCTL = {"name": "net.ipv4.ip_unprivileged_port_start", "value": "80"}
GPU = {"limits": {"nvidia.com/gpu": 1}}

#: (values, namespace, the rule that refuses them); each passes with the safe variant of the next table.
UNSAFE = [
    ({"podSecurityContext": {"operator": {"sysctls": [SYSCTL]}}}, "apps", FLOOR),
    ({"securityContext": {"sysctls": [{"name": "net.ipv4.ip_unprivileged_port_start", "value": "0 65535"}]}},
     "keda", FLOOR),
    ({"priorityClassName": "system-node-critical"}, "research", PRIORITY),
    ({"webhooks": {"priorityClassName": "system-cluster-critical"}}, "apps", PRIORITY),
    ({"tolerations": [{"operator": "Exists"}]}, "research", SCHEDULING),
    ({"operator": {"nodeName": "10.0.16.5"}}, "research", SCHEDULING),
    ({"nodeSelector": {"kubernetes.io/hostname": "10.0.16.5"}}, "research", SCHEDULING),
    ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}}}, "research", SCHEDULING),
    ({"volumes": {"keda": {"extraVolumes": [{"name": "s", "nfs": {"server": "10.0.20.5", "path": "/"}}]}}},
     "research", VOLUMES),
    ({"persistence": {"nfs": {"server": "10.0.20.5", "path": "/shared"}}}, "research", VOLUMES),
    ({"additionalVolumes": [{"name": "s", "nfs": {"server": "10.0.20.5", "path": "/"}}]}, "research", VOLUMES),
    ({"resources": GPU}, "apps", GPU_PODS),
    ({"operator": {"resources": {"requests": {"nvidia.com/mig-1g.10gb": 1}}}}, "keda", GPU_PODS),
    ({"env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}]}, "research", GPU_ENV),
    ({"extraEnv": {"NVIDIA_VISIBLE_DEVICES": "all"}}, "apps", GPU_ENV),
    ({"runtimeClassName": "nvidia"}, "research", GPU_ENV),
    ({"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "all-gpus"}]}, "research", GPU_ENV),
    ({"tolerations": "- operator: Exists"}, "keda", VALUES),
    ({"extraVolumes": "{{ .Values.vols }}"}, "keda", VALUES),
    ({"nodeSelector": "okerdma.io/node-pool: gpu"}, "keda", VALUES),
    ({"tolerations": U}, "research", SCHEDULING),
    ({"priorityClassName": U}, "apps", PRIORITY),
]
SAFE = [
    ({"podSecurityContext": {"operator": {"sysctls": [{**SYSCTL, "value": "1024"}]}}}, "apps"),
    ({"securityContext": {"sysctls": [{"name": "net.ipv4.ip_unprivileged_port_start", "value": "1024 65535"}]}},
     "keda"),
    ({"priorityClassName": "okerdma-tenant-normal"}, "research"),
    ({"webhooks": {"priorityClassName": ""}}, "apps"),
    ({"tolerations": [{"key": "example.com/maintenance", "operator": "Exists"}]}, "research"),
    ({"operator": {"nodeName": ""}}, "research"),
    ({"nodeSelector": {"okerdma.io/node-pool": "system"}}, "research"),
    ({"affinity": {}}, "research"),
    ({"volumes": {"keda": {"extraVolumes": [{"name": "s", "emptyDir": {}}]}}}, "research"),
    ({"persistence": {"enabled": False}}, "research"),
    ({"additionalVolumes": [{"name": "s", "persistentVolumeClaim": {"claimName": "data"}}]}, "research"),
    ({"resources": {"limits": {"cpu": "1"}}}, "apps"),
    ({"operator": {"resources": {"requests": {"memory": "1Gi"}}}}, "keda"),
    ({"env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "void"}]}, "research"),
    ({"extraEnv": {"LOG_LEVEL": "info"}}, "apps"),
    ({"runtimeClassName": "gvisor"}, "research"),
    ({"resourceClaims": []}, "research"),
    ({"tolerations": []}, "keda"),
    ({"extraVolumes": []}, "keda"),
    ({"nodeSelector": {"okerdma.io/node-pool": "system"}}, "keda"),
    ({"tolerations": [{"key": "a", "operator": "Equal", "value": "b"}]}, "research"),
    ({"priorityClassName": "okerdma-tenant-low"}, "apps"),
]


@pytest.mark.parametrize("case", range(len(UNSAFE)))
def test_a_pod_field_in_helm_values_is_judged_by_the_pod_rule_that_judges_it_in_a_pod_spec(case):
    values, ns, policy = UNSAFE[case]
    assert found(policy, *stack(values, ns)), (values, policy)
    safe, safe_ns = SAFE[case]
    assert not found(policy, *stack(safe, safe_ns)), (safe, policy)


def test_the_rules_name_the_values_path_of_the_setting():
    [message] = found(FLOOR, *stack({"podSecurityContext": {"operator": {"sysctls": [SYSCTL]}}}, "apps"))
    assert "HelmValues 'rel' values.podSecurityContext.operator" in message


def test_namespace_override_lands_the_values_pods_in_that_namespace():
    values = {"namespaceOverride": "research", "tolerations": [{"operator": "Exists"}]}
    assert found(SCHEDULING, *stack(values, "apps"))
    assert not found(SCHEDULING, *stack({"tolerations": [{"operator": "Exists"}]}, "apps"))


def test_a_node_agent_release_keeps_its_tolerations_and_system_priority():
    values = {"tolerations": [{"operator": "Exists"}], "priorityClassName": "system-node-critical"}
    resources = [namespace("research", tenant=True), namespace("gpu-operator", "privileged"),
                 release(values, "gpu-operator")]
    assert not found(SCHEDULING, *resources) and not found(PRIORITY, *resources)


def test_env_from_a_config_map_naming_gpus_in_values_is_refused():
    source = res(CONFIG_MAP, "cm", {"metadata": {"name": "gpus", "namespace": "research"},
                                    "data": {"NVIDIA_VISIBLE_DEVICES": "all"}})
    values = {"extraEnvFrom": [{"configMapRef": {"name": "gpus"}}]}
    assert found(GPU_ENV_FROM, *stack(values), source)
    safe = res(CONFIG_MAP, "cm", {"metadata": {"name": "gpus", "namespace": "research"}, "data": {"A": "b"}})
    assert not found(GPU_ENV_FROM, *stack(values), safe)


def test_objects_rendered_verbatim_are_not_read_twice():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"priorityClassName": "x"}}
    assert values_pod_specs({"extraObjects": [pod], "inline": pod}) == []


def test_a_pod_key_the_chart_cannot_take_as_a_pod_field_is_uninterpretable():
    [(where, spec)] = values_pod_specs({"a": {"tolerations": 3}})
    assert where == "values.a.tolerations" and isinstance(spec, Uninterpretable)


def test_unknown_values_are_one_unknown_pod_spec():
    [(where, spec)] = values_pod_specs(U)
    assert where == "values" and spec is UNKNOWN


def test_the_unknown_values_object_fails_closed_in_a_tenant_namespace():
    assert found(SCHEDULING, *stack(U))
