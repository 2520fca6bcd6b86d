"""The management cluster enforces NetworkPolicy (Cilium): the flux2 chart's own policies admit ingress to Flux's
pods only from Flux's namespace (and metrics on 8080 from anywhere), so a fleet whose Stacks take their program from
an OCI release (``fluxSource``) renders the one NetworkPolicy that lets its workspace pods — and only them — download
the artifact from source-controller. Evaluated here with NetworkPolicy's semantics over the chart's policies and the
rendered one."""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml

from oke_rdma.fleet import load_fleet, render, resolve
from oke_rdma.fleet.render import ARTIFACT_POLICY
from tests.fleet.fleetfiles import cluster, fleet_copy

DIGEST = "sha256:" + "ab" * 32
FLUX_NS, FLEET_NS = "flux-system", "pulumi-fleet"


def _flux_chart_policies(ns: str) -> list[dict]:
    """flux2 chart 2.18.3 templates/policies.yaml (``policies.create: true``, its default), metadata trimmed."""
    return [
        {"metadata": {"name": "allow-egress", "namespace": ns},
         "spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress"], "egress": [{}],
                  "ingress": [{"from": [{"podSelector": {}}]}]}},
        {"metadata": {"name": "allow-scraping", "namespace": ns},
         "spec": {"podSelector": {}, "policyTypes": ["Ingress"],
                  "ingress": [{"from": [{"namespaceSelector": {}}], "ports": [{"port": 8080, "protocol": "TCP"}]}]}},
        {"metadata": {"name": "allow-webhooks", "namespace": ns},
         "spec": {"podSelector": {"matchLabels": {"app": "notification-controller"}}, "policyTypes": ["Ingress"],
                  "ingress": [{"from": [{"namespaceSelector": {}}]}]}},
    ]


@dataclass
class Pod:
    namespace: str
    labels: dict[str, str] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)  # container port name → number


SOURCE_CONTROLLER = Pod(FLUX_NS, {"app": "source-controller"}, {"http": 9090, "http-prom": 8080})
KUSTOMIZE_CONTROLLER = Pod(FLUX_NS, {"app": "kustomize-controller"}, {"http-prom": 8080})
WORKSPACE = Pod(FLEET_NS, {"auto.pulumi.com/component": "workspace", "auto.pulumi.com/workspace-name": "gpu-ash-a"})


def _selects(selector: dict, labels: dict[str, str]) -> bool:
    assert set(selector) <= {"matchLabels"}, selector  # the policies here use matchLabels only
    return all(labels.get(k) == v for k, v in (selector.get("matchLabels") or {}).items())


def _peer(peer: dict, policy_ns: str, src: Pod) -> bool:
    ns_ok = (_selects(peer["namespaceSelector"], {"kubernetes.io/metadata.name": src.namespace})
             if "namespaceSelector" in peer else src.namespace == policy_ns)
    return ns_ok and _selects(peer.get("podSelector", {}), src.labels)


def allowed(policies: list[dict], src: Pod, dst: Pod, port: int) -> bool:
    """NetworkPolicy ingress semantics: no policy selecting ``dst`` for Ingress admits everything; otherwise the
    union of the selecting policies' rules (a rule: any of its peers, or all when none; any of its ports, a named port
    resolved on ``dst``, or all when none)."""
    selecting = [p for p in policies if p["metadata"]["namespace"] == dst.namespace
                 and "Ingress" in p["spec"]["policyTypes"] and _selects(p["spec"]["podSelector"], dst.labels)]
    if not selecting:
        return True
    for p in selecting:
        for rule in p["spec"].get("ingress", []):
            peers = rule.get("from") or [{"namespaceSelector": {}}]
            ports = [dst.ports.get(q["port"]) if isinstance(q["port"], str) else q["port"]
                     for q in rule.get("ports") or []]
            if any(_peer(x, p["metadata"]["namespace"], src) for x in peers) and (not ports or port in ports):
                return True
    return False


def _oci_fleet(tmp_path, mgmt_flux_namespace=None):
    def edit(doc):
        doc["release"] = {"oci": {"url": "oci://ghcr.io/example/oke-rdma", "tag": "v1.5.0", "digest": DIGEST}}
    path = fleet_copy(tmp_path, edit)
    if mgmt_flux_namespace:
        stack = tmp_path / "stacks" / "Pulumi.mgmt.yaml"
        doc = yaml.safe_load(stack.read_text())
        doc["config"]["oke-rdma:platform"]["flux"]["namespace"] = mgmt_flux_namespace
        stack.write_text(yaml.safe_dump(doc))
    fleet = load_fleet(path)
    return render(fleet, resolve(fleet))


def _policies(rendered) -> list[dict]:
    return [o for o in rendered.objects() if o["kind"] == "NetworkPolicy"]


def test_an_oci_release_fleet_lets_exactly_its_workspace_pods_fetch_from_source_controller(tmp_path):
    rendered = _oci_fleet(tmp_path)
    [policy] = _policies(rendered)
    assert policy["metadata"]["name"] == ARTIFACT_POLICY and policy["metadata"]["namespace"] == FLUX_NS
    assert "bootstrap/network.yaml" in rendered.files
    assert "network.yaml" in yaml.safe_load(rendered.files["bootstrap/kustomization.yaml"])["resources"]
    chart = _flux_chart_policies(FLUX_NS)
    everything = chart + [policy]
    # the path the workspaces' fetch init container takes (Service port 80 → container port http, 9090)
    assert not allowed(chart, WORKSPACE, SOURCE_CONTROLLER, 9090)  # the chart alone blocks it
    assert allowed(everything, WORKSPACE, SOURCE_CONTROLLER, 9090)
    # ... and nothing else is opened
    assert not allowed(everything, Pod(FLEET_NS, {"app": "other"}), SOURCE_CONTROLLER, 9090)
    assert not allowed(everything, Pod("research", dict(WORKSPACE.labels)), SOURCE_CONTROLLER, 9090)
    assert not allowed(everything, WORKSPACE, KUSTOMIZE_CONTROLLER, 9090)
    assert not allowed(everything, WORKSPACE, SOURCE_CONTROLLER, 9443)
    # the chart's own paths stay as they were: in-namespace traffic, metrics from anywhere
    assert allowed(everything, KUSTOMIZE_CONTROLLER, SOURCE_CONTROLLER, 9090)
    assert allowed(everything, Pod("monitoring", {"app.kubernetes.io/name": "prometheus"}), SOURCE_CONTROLLER, 8080)


def test_the_policy_follows_the_management_stacks_flux_namespace(tmp_path):
    [policy] = _policies(_oci_fleet(tmp_path, mgmt_flux_namespace="gitops"))
    assert policy["metadata"]["namespace"] == "gitops"
    flux = Pod("gitops", SOURCE_CONTROLLER.labels, SOURCE_CONTROLLER.ports)
    assert allowed(_flux_chart_policies("gitops") + [policy], WORKSPACE, flux, 9090)


def test_a_git_release_fleet_renders_no_policy(tmp_path):
    """Workspaces of a git release clone the repository themselves: nothing reaches source-controller."""
    fleet = load_fleet(fleet_copy(tmp_path))
    rendered = render(fleet, resolve(fleet))
    assert _policies(rendered) == [] and "bootstrap/network.yaml" not in rendered.files


def test_one_cluster_on_an_oci_release_is_enough_to_render_it(tmp_path):
    def edit(doc):
        cluster(doc, "gpu-chi-a")["release"] = {"oci": {"url": "oci://ghcr.io/example/oke-rdma", "tag": "v1.5.0",
                                                        "digest": DIGEST}}
    fleet = load_fleet(fleet_copy(tmp_path, edit))
    assert len(_policies(render(fleet, resolve(fleet)))) == 1
