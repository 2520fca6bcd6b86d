"""The tenants' walls under mocks (preview=False, values asserted): one CiliumClusterwideNetworkPolicy per tenant and
one for the platform, each valid against Cilium's CRD schema (unknown fields refused), waiting for the Cilium
release and a readiness gate that dry-runs the kind; ``tenants.<t>.network.allowFrom`` opens exactly the named
tenants; without Cilium nothing is declared and a shared cluster is warned about; the reachability table the
``--details`` preview prints is read back from the declared policies.

CRD fixture: ``tests/fixtures/crds/cilium.io_ciliumclusterwidenetworkpolicies-1.20.json`` is the CRD's
openAPIV3Schema as a cluster served it, converted to JSON Schema with ``additionalProperties: false`` wherever the
CRD declares properties (deedee-ops/schemas@c7f1b0f, 2026-07-31, the dump that followed the 1.20.0 release of
2026-07-29: it adds the 1.20 ``cluster-mesh`` entity). cilium/cilium's own CRD file at v1.20.0 could not be read
here; the fields the walls use (``endpointSelector``, ``enableDefaultDeny``, ``ingressDeny``, ``egressDeny``,
``fromEndpoints``, ``toCIDR``) are in every v2 CRD since 1.15 (cilium/cilium@65fc47d2 too). Read 2026-12-01."""

from __future__ import annotations

import copy
import json
import re
from types import SimpleNamespace

import jsonschema
import pytest

from offline.engine import run_program
from offline.reachability import (ALLOWED, DENIED, NOT_COVERED, OPEN, reachability, reachability_lines,
                                  selector_matches, verdict)
from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.walls import (METADATA_CIDR, PROBE, TenantWall, platform_policy, policies, shared_nodes_text,
                             tenant_policy)
from tests.crddeps import crd_dependency_problems, gate_problems
from tests.stackcfg import ROOT, dev_raw_config
from offline.preview import read_stack_file

CRD = json.loads((ROOT / "tests" / "fixtures" / "crds" / "cilium.io_ciliumclusterwidenetworkpolicies-1.20.json")
                 .read_text())
CCNP = "kubernetes:cilium.io/v2:CiliumClusterwideNetworkPolicy"
RELEASE = "kubernetes:helm.sh/v3:Release"


def validate(manifest: dict) -> None:
    jsonschema.Draft7Validator(CRD).validate(manifest)


def _manifest(r) -> dict:
    return {"apiVersion": "cilium.io/v2", "kind": "CiliumClusterwideNetworkPolicy",
            "metadata": r.inputs["metadata"], "spec": r.inputs["spec"]}


@pytest.fixture(scope="module")
def dev(dev_run):
    return dev_run


@pytest.fixture(scope="module")
def prod(prod_run):
    return prod_run


@pytest.fixture(scope="module")
def allowed():
    """dev with analytics letting research in."""
    return run_program(dev_raw_config(tenants={"analytics": {"network": {"allowFrom": ["research"]}}}), [], "dev")


@pytest.fixture(scope="module")
def open_network():
    return run_program(dev_raw_config(platform={"cilium": {"enabled": False}}), [], "dev")


def test_every_declared_policy_is_valid_against_the_crd(dev, prod):
    found = [r for run in (dev, prod) for r in run.resources if r.type == CCNP]
    assert len(found) == (2 + 1) + (3 + 1)
    for r in found:
        validate(_manifest(r))


def test_the_crd_refuses_an_unknown_field_and_a_wrong_type():
    """The API server drops unknown fields silently; the schema check does not."""
    good = tenant_policy("p", "a", TenantWall("a"))
    validate(good)
    misspelt = copy.deepcopy(good)
    misspelt["spec"]["ingressDeny"][0]["fromEndpoint"] = misspelt["spec"]["ingressDeny"][0].pop("fromEndpoints")
    with pytest.raises(jsonschema.ValidationError):
        validate(misspelt)
    wrong = copy.deepcopy(good)
    wrong["spec"]["enableDefaultDeny"]["ingress"] = "false"
    with pytest.raises(jsonschema.ValidationError):
        validate(wrong)
    validate(platform_policy("p"))
    validate({"apiVersion": PROBE.api_version, "kind": PROBE.kind, "metadata": {"generateName": "p-"},
              "spec": PROBE.spec})  # the readiness gate's dry-run object


def test_each_tenant_is_walled_and_the_platform_too(dev):
    by_name = {r.inputs["metadata"]["name"]: r.inputs["spec"] for r in dev.resources if r.type == CCNP}
    assert sorted(by_name) == ["okerdma-dev-wall-analytics", "okerdma-dev-wall-platform", "okerdma-dev-wall-research"]
    research = by_name["okerdma-dev-wall-research"]
    assert research["endpointSelector"] == {"matchLabels": {"k8s:io.kubernetes.pod.namespace": "research"}}
    assert research["enableDefaultDeny"] == {"ingress": False, "egress": False}
    (rule,) = research["ingressDeny"][0]["fromEndpoints"]
    assert {"key": "k8s:io.kubernetes.pod.namespace", "operator": "NotIn", "values": ["research"]} \
        in rule["matchExpressions"]
    assert research["egressDeny"] == [{"toCIDR": [METADATA_CIDR]}]


def test_policies_wait_for_cilium_and_a_gate_that_dry_runs_them(dev):
    assert crd_dependency_problems(dev.resources) == []
    assert gate_problems(dev.resources) == []
    cilium = next(r for r in dev.resources if r.type == RELEASE and r.inputs["name"] == "cilium")
    assert all(cilium.urn in r.dependencies for r in dev.resources if r.type == CCNP)


def test_a_policy_without_its_gate_is_reported(dev):
    """The gate check above can fail: a policy that depends on the release only."""
    resources = copy.deepcopy([r for r in dev.resources])
    cilium = next(r for r in resources if r.type == RELEASE and r.inputs["name"] == "cilium")
    victim = next(r for r in resources if r.type == CCNP)
    victim.dependencies = [cilium.urn]
    assert [line for line in gate_problems(resources) if victim.name in line]


NS = "kubernetes:core/v1:Namespace"


def _namespace_waits(run) -> dict[str, set[str]]:
    """Wall name → the tenant namespaces (by name) it depends on."""
    tenant_ns = {r.urn: r.inputs["metadata"]["name"] for r in run.resources
                 if r.type == NS and "okerdma.io/tenant" in r.inputs["metadata"].get("labels", {})}
    assert len(tenant_ns) >= 2  # the stacks below have tenants: the comparison is not vacuous
    return {r.inputs["metadata"]["name"]: {tenant_ns[d] for d in r.dependencies if d in tenant_ns}
            for r in run.resources if r.type == CCNP}


def test_each_wall_waits_for_the_namespaces_it_names_and_the_platform_wall_for_all(allowed):
    """A tenant's wall waits for its own namespace and those of its allowFrom tenants, no other tenant's (N edges,
    not N²); the platform's wall selects every tenant namespace by label and waits for them all."""
    waits = _namespace_waits(allowed)
    every = set().union(*waits.values())
    assert waits["okerdma-dev-wall-analytics"] == {"analytics", "research"}
    assert waits["okerdma-dev-wall-research"] == {"research"}
    assert waits["okerdma-dev-wall-platform"] == every and len(every) == len(waits) - 1


def test_a_wall_waiting_for_every_tenant_namespace_is_seen(allowed):
    """The comparison above can fail: the old design (every wall waits for every tenant namespace) differs."""
    resources = copy.deepcopy(allowed.resources)
    namespaces = [r.urn for r in resources if r.type == NS and "okerdma.io/tenant" in r.inputs["metadata"].get(
        "labels", {})]
    victim = next(r for r in resources if r.type == CCNP and r.name == "okerdma-dev-wall-research")
    victim.dependencies = [*victim.dependencies, *namespaces]
    assert _namespace_waits(SimpleNamespace(resources=resources))["okerdma-dev-wall-research"] == {
        "analytics", "research"}


def test_allow_from_opens_exactly_the_named_tenant(allowed):
    spec = next(r.inputs["spec"] for r in allowed.resources
                if r.type == CCNP and r.inputs["metadata"]["name"] == "okerdma-dev-wall-analytics")
    (rule,) = spec["ingressDeny"][0]["fromEndpoints"]
    assert {"key": "k8s:io.kubernetes.pod.namespace", "operator": "NotIn", "values": ["analytics", "research"]} \
        in rule["matchExpressions"]
    table = reachability(allowed.resources)
    assert table.cells[("research", "analytics")] == ALLOWED
    assert table.cells[("analytics", "research")] == DENIED  # allowFrom is one-way


@pytest.mark.parametrize("allow, where", [
    (["nobody"], "oke-rdma:tenants.analytics.network.allowFrom[0]: there is no tenant 'nobody'"),
    (["research", "ghost"], "oke-rdma:tenants.analytics.network.allowFrom[1]: there is no tenant 'ghost'"),
    (["analytics"], "oke-rdma:tenants.analytics.network.allowFrom[0]: 'analytics' is the tenant itself"),
    (["research", "research"], "oke-rdma:tenants.analytics.network.allowFrom[1]: 'research' is listed twice"),
])
def test_allow_from_names_other_tenants_of_the_stack(allow, where):
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(tenants={"analytics": {"network": {"allowFrom": allow}}}))
    assert [p for p in err.value.problems if p.startswith(where)], err.value.problems


def test_allow_from_an_existing_tenant_loads():
    cfg = load_stack_config(dev_raw_config(tenants={"analytics": {"network": {"allowFrom": ["research"]}}}))
    assert cfg.tenants["analytics"].network.allow_from == ("research",)


@pytest.mark.parametrize("run_name", ["dev", "prod"])
def test_every_cross_tenant_cell_is_denied_in_the_shipped_stacks(run_name, request):
    run = request.getfixturevalue(run_name)
    table = reachability(run.resources)
    assert table.engine and len(table.tenants) >= 2
    tenant_ns = list(table.tenants.values())
    cross = [(a, b) for a in tenant_ns for b in tenant_ns if a != b]
    assert cross and all(table.cells[c] == DENIED for c in cross)
    assert all(table.cells[(t, p)] == DENIED for t in tenant_ns for p in table.platform)
    assert all(table.cells[(p, t)] == ALLOWED for t in tenant_ns for p in table.platform)
    assert all(table.metadata.values())


def test_the_table_reads_the_declared_policies_not_the_config(dev):
    """Dropping the deny rule from the declared research policy opens analytics → research in the table."""
    resources = copy.deepcopy(list(dev.resources))
    wall = next(r for r in resources if r.type == CCNP and r.inputs["metadata"]["name"].endswith("-research"))
    del wall.inputs["spec"]["ingressDeny"]
    table = reachability(resources)
    assert table.cells[("analytics", "research")] == ALLOWED
    assert table.cells[("research", "analytics")] == DENIED
    assert table.metadata == {"analytics": True, "research": True}


def test_without_cilium_nothing_is_walled_and_a_shared_cluster_is_warned_about(open_network):
    assert not [r for r in open_network.resources if r.type == CCNP]
    assert [w for w in open_network.warnings if w.startswith("platform.cilium.enabled is false: no network policy")]
    table = reachability(open_network.resources)
    assert not table.engine and set(table.cells.values()) == {OPEN}


def test_a_single_tenant_without_cilium_is_not_warned_about():
    run = run_program(dev_raw_config(platform={"cilium": {"enabled": False}}, tenants={"analytics": None}), [], "dev")
    assert not [w for w in run.warnings if "platform.cilium.enabled is false" in w]


def test_the_details_section_says_what_pod_policy_cannot_stop(dev):
    lines = reachability_lines(dev.resources)
    text = "\n".join(lines)
    assert "Reachability (pod → pod, read back from the declared CiliumClusterwideNetworkPolicies)" in text
    assert all(line in text for line in NOT_COVERED)
    row = next(line for line in lines if line.strip().startswith("analytics "))
    assert row.split()[1:3] == ["-", "denied"]
    assert [m for severity, m in dev.diagnostics if severity == "info" and "RDMA pods with hostNetwork" in m]


@pytest.mark.parametrize("selector, labels, expected", [
    ({"matchLabels": {"k8s:io.kubernetes.pod.namespace": "a"}}, {"io.kubernetes.pod.namespace": "a"}, True),
    ({"matchLabels": {"io.kubernetes.pod.namespace": "a"}}, {"io.kubernetes.pod.namespace": "b"}, False),
    ({"matchExpressions": [{"key": "k8s:io.cilium.k8s.namespace.labels.okerdma.io/tenant", "operator": "Exists"}]},
     {"io.kubernetes.pod.namespace": "a"}, False),
    ({"matchExpressions": [{"key": "any:io.kubernetes.pod.namespace", "operator": "NotIn", "values": ["a"]}]},
     {"io.kubernetes.pod.namespace": "b"}, True),
    ({"matchLabels": {"app": "web"}}, {"io.kubernetes.pod.namespace": "a"}, None),
    ({}, {"io.kubernetes.pod.namespace": "a"}, True),
])
def test_selector_evaluation(selector, labels, expected):
    assert selector_matches(selector, labels) is expected


def test_a_default_deny_policy_without_an_allow_denies():
    spec = {"endpointSelector": {}, "ingress": [{"fromEndpoints": [{"matchLabels": {
        "io.kubernetes.pod.namespace": "x"}}]}]}
    ns = lambda n: {"io.kubernetes.pod.namespace": n}  # noqa: E731
    assert verdict([spec], ns("x"), ns("y")) == ALLOWED
    assert verdict([spec], ns("z"), ns("y")) == "denied (default)"
    assert verdict([{**spec, "enableDefaultDeny": {"ingress": False}}], ns("z"), ns("y")) == ALLOWED


def test_policies_order_and_names():
    out = policies("p", {"b": TenantWall("b-ns"), "a": TenantWall("a-ns", ("b-ns",))})
    assert [o["metadata"]["name"] for o in out] == ["p-wall-b", "p-wall-a", "p-wall-platform"]


def test_an_rdma_tenant_sharing_gpu_nodes_is_warned_about(dev, prod):
    """In dev research (RDMA) shares pool gpu with analytics; in prod pretraining and research share h100 with each
    other and with evaluation: hostNetwork pods there are not walled, so every preview says so."""
    assert [w for w in dev.warnings if w.startswith("tenant research runs RDMA pods with hostNetwork and shares GPU "
                                                    "nodes (pool gpu with analytics)")]
    assert len([w for w in prod.warnings if "runs RDMA pods with hostNetwork and shares GPU nodes" in w]) == 2


def test_the_shared_nodes_warning_names_pools_with_the_same_tenants_together():
    """Pools shared with the same tenants are one entry (the warning grows with pools + tenants, not their
    product: 64 pools × 200 tenants made each RDMA tenant's warning 127 000 characters); different sets stay apart."""
    assert shared_nodes_text({"gpu": ["b", "a"]}) == "pool gpu with a, b"
    assert shared_nodes_text({"h200": ["a", "b"], "l40s": ["c"], "h100": ["b", "a"]}) == \
        "pools h100, h200 with a, b; pool l40s with c"


def test_an_rdma_tenant_alone_on_its_pools_is_not_warned_about():
    run = run_program(dev_raw_config(tenants={"analytics": None}), [], "dev")
    assert not [w for w in run.warnings if "shares GPU nodes" in w]


def test_a_dedicated_rdma_tenant_listing_its_pools_has_them_alone():
    """research lists pool gpu: analytics' flavors leave it (its GPU quota goes), the guard lets analytics' GPU pods
    on no pool, and nobody is warned about shared nodes."""
    from oke_rdma.config.checks.fleet import tenant_pools
    raw = dev_raw_config(tenants={"research": {"nodePools": ["gpu"]},
                                  "analytics": {"quota": {"gpu": 0, "gpuBorrowingLimit": 0}}})
    cfg = load_stack_config(raw)
    assert tenant_pools(cfg, "research") == ["gpu"] and tenant_pools(cfg, "analytics") == []
    run = run_program(raw, [], "dev")
    assert not [w for w in run.warnings if "shares GPU nodes" in w]


def test_leaving_the_other_tenants_quota_is_refused():
    """The same without lowering analytics' quota: its GPUs have no pool left, named on its quota key."""
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(tenants={"research": {"nodePools": ["gpu"]}}))
    assert [p for p in err.value.problems if p.startswith("oke-rdma:tenants.analytics.quota.gpu:")]


@pytest.mark.parametrize("tenants, where", [
    ({"research": {"nodePools": ["gpus"]}}, re.escape("oke-rdma:tenants.research.nodePools[0]: 'gpus' is not an RDMA")),
    ({"research": {"nodePools": ["system"]}},
     re.escape("oke-rdma:tenants.research.nodePools[0]: 'system' is not an RDMA")),
    ({"research": {"nodePools": ["gpu", "gpu"]}},
     re.escape("oke-rdma:tenants.research.nodePools[1]: 'gpu' is listed twice")),
    ({"research": {"nodePools": ["gpu"]}, "analytics": {"nodePools": ["gpu"]}},
     r"oke-rdma:tenants\.(analytics|research)\.nodePools\[0\]: pool 'gpu' is already dedicated to tenant "
     r"'(research|analytics)'"),
])
def test_node_pools_name_gpu_pools_a_dedicated_tenant_owns_alone(tenants, where):
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(tenants=tenants))
    assert [p for p in err.value.problems if re.match(where, p)], err.value.problems


def test_a_dedicated_tenant_may_not_list_a_shared_pool():
    raw, _ = read_stack_file(ROOT / "Pulumi.prod.yaml")
    doc = json.loads(raw["oke-rdma:tenants"])
    doc["research"]["nodePools"] = ["shared"]
    with pytest.raises(ConfigError) as err:
        load_stack_config({**raw, "oke-rdma:tenants": json.dumps(doc)})
    assert [p for p in err.value.problems if p.startswith(
        "oke-rdma:tenants.research.nodePools[0]: 'shared' is a shared (time-sliced or MIG) pool")]
