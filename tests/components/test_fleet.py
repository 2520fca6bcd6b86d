"""The GPU fleet parts of the dev and prod stacks under mocks (preview=False, values asserted): the PrometheusRule
and dashboard ConfigMaps, the tenant namespace labels, the GPU-sharing node labels and device-plugin
configurations, the shared pool's Kueue flavor, and the guard's policies."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from offline.engine import run_program
from oke_rdma.monitoring import facts
from tests.componenttest import named, of_type
from tests.stackcfg import dev_raw_config
from tests.k8s_schemas import validate_all  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CRD = ROOT / "tests" / "fixtures" / "crds" / "prometheusrules-kube-prometheus-stack-87.2.1.yaml"
RULE = "kubernetes:monitoring.coreos.com/v1:PrometheusRule"
CM = "kubernetes:core/v1:ConfigMap"
NS = "kubernetes:core/v1:Namespace"
VAP = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy"
VAPB = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding"
RELEASE = "kubernetes:helm.sh/v3:Release"


@pytest.fixture(scope="module")
def dev(dev_run):
    return dev_run


@pytest.fixture(scope="module")
def prod(prod_run):
    return prod_run


def _release(run, name: str):
    return next(r for r in of_type(run, RELEASE) if r.inputs["name"] == name)


def _pool_labels(run, name: str) -> dict[str, str]:
    return {i["key"]: i["value"] for i in named(run, name).inputs["initialNodeLabels"]}


def test_prometheus_rule_holds_every_shipped_group_and_matches_the_crd(dev):
    """One PrometheusRule in the monitoring namespace with every rule group, valid against the PrometheusRule CRD
    of kube-prometheus-stack 87.2.1, waiting for that release."""
    (rule,) = of_type(dev, RULE)
    assert rule.inputs["metadata"]["namespace"] == "monitoring"
    assert rule.inputs["spec"]["groups"] == facts.rule_groups()
    assert _release(dev, "kube-prometheus-stack").urn in rule.dependencies
    crd = next(d for d in yaml.safe_load_all(CRD.read_text()) if d)
    schema = next(v for v in crd["spec"]["versions"] if v["name"] == "v1")["schema"]["openAPIV3Schema"]
    manifest = {"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule", **{
        k: rule.inputs[k] for k in ("metadata", "spec")}}
    # The CRD's OpenAPI v3 schema, applied as JSON Schema draft 7 without checking the schema itself: one of its
    # patterns uses Go's RE2 inline flags mid-pattern (partial_response_strategy), which Python's re refuses.
    validator = jsonschema.Draft7Validator(schema)
    validator.validate(manifest)
    broken = json.loads(json.dumps(manifest))
    broken["spec"]["groups"][0]["rules"][0]["for"] = 5
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(broken)


def test_dashboards_are_sidecar_configmaps(dev):
    """Each dashboard is a ConfigMap labelled grafana_dashboard=1 holding Grafana JSON; valid Kubernetes objects."""
    boards = [c for c in of_type(dev, CM) if c.inputs["metadata"].get("labels", {}).get("grafana_dashboard") == "1"]
    assert sorted(c.inputs["metadata"]["name"] for c in boards) == ["dashboard-okerdma-gpu-fleet",
                                                                     "dashboard-okerdma-gpu-tenants"]
    for cm in boards:
        (text,) = cm.inputs["data"].values()
        assert json.loads(text)["uid"].startswith("okerdma-gpu-")
        manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": cm.inputs["metadata"],
                    "data": cm.inputs["data"]}
        validate_all(manifest)


def test_no_monitoring_objects_without_kube_prometheus_stack():
    """With kube-prometheus-stack disabled there is no PrometheusRule and no dashboard ConfigMap (no CRD, no
    Grafana); the guard stays."""
    run = run_program(dev_raw_config(platform={"kubePrometheusStack": {"enabled": False}}), [], "dev")
    # pods: 1 + one per tenant + priority; RBAC: 3; storage IDs: one per tenant with shared storage (2); routes, nodes: 2;
    # tenants' block-volume classes: 1; tenants' Services: 1
    assert of_type(run, RULE) == [] and len(of_type(run, VAP)) == 4 + 3 + 2 + 2 + 1 + 1


def test_tenant_namespaces_carry_tenant_rdma_and_isolation_labels(dev):
    """Tenant namespaces are labelled for metering (okerdma.io/tenant) and the guard (rdma, isolation)."""
    labels = {n.inputs["metadata"]["name"]: n.inputs["metadata"]["labels"] for n in of_type(dev, NS)}
    assert {k: labels["research"][k] for k in ("okerdma.io/tenant", "okerdma.io/rdma", "okerdma.io/isolation")} == {
        "okerdma.io/tenant": "research", "okerdma.io/rdma": "true", "okerdma.io/isolation": "dedicated"}
    assert labels["analytics"]["okerdma.io/rdma"] == "false"
    assert "okerdma.io/tenant" not in labels["monitoring"]


def test_gpu_operator_and_kube_state_metrics_values(dev):
    """The GPU Operator gets the exclusive device-plugin config, MIG strategy single and the DCGM metrics list;
    kube-state-metrics allow-lists the pool and tenant labels the metering rules join on."""
    gpu = _release(dev, "gpu-operator").inputs["values"]
    config = gpu["devicePlugin"]["config"]
    assert config["create"] is True and config["default"] == "exclusive" and list(config["data"]) == ["exclusive"]
    assert yaml.safe_load(config["data"]["exclusive"]) == {"version": "v1", "flags": {"migStrategy": "single"}}
    assert gpu["mig"] == {"strategy": "single"}
    assert gpu["dcgmExporter"]["config"] == {"create": True, "name": "okerdma-dcgm-metrics",
                                             "data": facts.DCGM_METRICS_CSV.read_text()}
    kps = _release(dev, "kube-prometheus-stack").inputs["values"]
    assert kps["kube-state-metrics"]["metricLabelsAllowlist"] == ["nodes=[okerdma.io/node-pool]",
                                                                  "namespaces=[okerdma.io/tenant]"]
    assert _pool_labels(dev, "okerdma-dev-gpu")["okerdma.io/gpu-sharing"] == "exclusive"
    assert "okerdma.io/gpu-sharing" not in _pool_labels(dev, "okerdma-dev-system")


def test_prod_shared_pool_is_time_sliced_and_only_the_shared_tenant_reaches_it(prod):
    """Prod: the A10 pool is labelled for 4-way time-slicing, the device plugin has that configuration, the pool's
    flavor has no RDMA topology, only the shared tenant's ClusterQueue and guard policy include it (first), and the
    RDMA pool stays exclusive."""
    shared = _pool_labels(prod, "okerdma-prod-shared")
    assert shared["okerdma.io/gpu-sharing"] == "time-slicing"
    assert shared["nvidia.com/device-plugin.config"] == "time-slicing-4"
    assert _pool_labels(prod, "okerdma-prod-h100")["okerdma.io/gpu-sharing"] == "exclusive"
    data = _release(prod, "gpu-operator").inputs["values"]["devicePlugin"]["config"]["data"]
    sliced = yaml.safe_load(data["time-slicing-4"])["sharing"]["timeSlicing"]
    assert sliced["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]
    assert sliced["failRequestsGreaterThanOne"] is True
    flavor = named(prod, "okerdma-prod-flavor-shared").inputs["spec"]
    assert flavor["nodeLabels"] == {"okerdma.io/node-pool": "shared"} and "topologyName" not in flavor
    flavors = {t: [f["name"] for f in named(prod, f"okerdma-prod-cq-{t}").inputs["spec"]["resourceGroups"][0]
                   ["flavors"]] for t in ("pretraining", "research", "evaluation")}
    assert flavors == {"pretraining": ["okerdma-prod-h100"], "research": ["okerdma-prod-h100"],
                       "evaluation": ["okerdma-prod-shared", "okerdma-prod-h100"]}
    policies = {v.inputs["metadata"]["name"]: v for v in of_type(prod, VAP)}
    assert "['shared', 'h100']" not in json.dumps(policies["okerdma-prod-tenant-pools-evaluation"].inputs)
    text = json.dumps(policies["okerdma-prod-tenant-pools-evaluation"].inputs["spec"]["validations"])
    assert '[\\"shared\\", \\"h100\\"]' in text
    assert '[\\"h100\\"]' in json.dumps(policies["okerdma-prod-tenant-pools-research"].inputs["spec"]["validations"])


def test_guard_bindings_wait_for_their_policies(dev):
    """Each binding depends on its policy; the RDMA-privileges policy waits for the tenant namespaces."""
    policies = {v.inputs["metadata"]["name"]: v for v in of_type(dev, VAP)}
    for binding in of_type(dev, VAPB):
        assert policies[binding.inputs["spec"]["policyName"]].urn in binding.dependencies
    research_ns = next(n for n in of_type(dev, NS) if n.inputs["metadata"]["name"] == "research")
    assert research_ns.urn in policies["okerdma-dev-rdma-privileges"].dependencies


def _tenant_namespace_waits(run) -> dict[str, set[str]]:
    """Admission policy name → the tenant namespaces (by name) it depends on."""
    tenant_ns = {n.urn: n.inputs["metadata"]["name"] for n in of_type(run, NS)
                 if "okerdma.io/tenant" in n.inputs["metadata"].get("labels", {})}
    assert len(tenant_ns) >= 2  # dev has tenants: the comparison is not vacuous
    return {p.inputs["metadata"]["name"]: {tenant_ns[d] for d in p.dependencies if d in tenant_ns}
            for p in of_type(run, VAP)}


def test_a_tenant_pools_policy_waits_for_its_namespace_the_others_for_every_tenant_namespace(dev):
    """A policy whose binding selects one tenant's namespace by name waits for that namespace only (N edges, not
    N²); the policies that select every tenant namespace by label wait for them all."""
    waits = _tenant_namespace_waits(dev)
    every = set().union(*waits.values())
    per_tenant = {name: (ns, marker) for name, ns in waits.items() for marker in ("-tenant-pools-", "-tenant-ids-")
                  if marker in name}  # the guard's policies bound to one tenant's namespace by name
    assert {m for _, m in per_tenant.values()} == {"-tenant-pools-", "-tenant-ids-"}
    assert all(ns == {name.rsplit(marker, 1)[1]} for name, (ns, marker) in per_tenant.items()), per_tenant
    others = {name: ns for name, ns in waits.items() if name not in per_tenant}
    assert {"okerdma-dev-rdma-privileges", "okerdma-dev-tenant-priority"} <= set(others)
    assert all(ns == every for ns in others.values()), others


def test_a_tenant_pools_policy_waiting_for_another_tenant_is_seen(dev):
    """The comparison above can fail: a tenant-pools policy that also waits for another tenant's namespace."""
    import copy
    from types import SimpleNamespace
    resources = copy.deepcopy(dev.resources)
    other = next(n for n in resources if n.type == NS and n.inputs["metadata"]["name"] == "analytics")
    victim = next(r for r in resources if r.type == VAP
                  and r.inputs["metadata"]["name"] == "okerdma-dev-tenant-pools-research")
    victim.dependencies = [*victim.dependencies, other.urn]
    assert _tenant_namespace_waits(SimpleNamespace(resources=resources))[
        "okerdma-dev-tenant-pools-research"] == {"analytics", "research"}


FLEET_COMPONENTS = ("oke-rdma:monitoring:Monitoring", "oke-rdma:guard:Guard", "oke-rdma:health:GpuHealth")


def test_every_fleet_kubernetes_object_validates_against_the_kubernetes_schema(dev):
    """Every built-in Kubernetes object the monitoring, guard and GPU-health components declare (ConfigMaps,
    policies, bindings, DaemonSet, RBAC) is valid for Kubernetes 1.34 (strict: no unknown field); the
    PrometheusRule is checked against its CRD above."""
    checked = 0
    for r in dev.resources:
        if not r.type.startswith("kubernetes:") or r.type == RULE or not any(f"{c}$" in r.urn for c in FLEET_COMPONENTS):
            continue
        group_version, kind = r.type.split(":")[1], r.type.split(":")[2]
        api_version = group_version.removeprefix("core/")
        manifest = {"apiVersion": api_version, "kind": kind,
                    **{k: v for k, v in r.inputs.items() if k not in ("apiVersion", "kind")}}
        validate_all(manifest)
        checked += 1
    # dashboards; guard pod, RBAC, storage-ID (2 tenants), route and node policies; the block-volume classes' policy;
    # the tenants' Services policy and its binding
    assert checked == 2 + 8 + 6 + 8 + 5 + 2 + 2
    # and bindings; NPD SA, role, binding, config, DaemonSet
