"""Chart values name images the way the chart's templates compose them: for a chart the platform pins (at a version
read), the pack judges the image the chart will render — Cilium's ``override`` and ``useDigest``, the
prometheus-community and Grafana ``sha`` and ``global.imageRegistry``, KEDA's ``global.image.registry``, the GPU
Operator's verbatim ``image`` — and fails closed on a value the template cannot be read from; for any other chart the
generic reader reads the same dangerous spellings (a whole-reference override, ``useDigest: false``, a registry
without a repository, an image beside an empty repository)."""
from __future__ import annotations

from pathlib import Path

import pytest

from policies.security.supply_chain import validate_image_pinned
from tests.policies.test_policies import call_resource_rule

ROOT = Path(__file__).resolve().parents[2]
RELEASE = "kubernetes:helm.sh/v3:Release"
DIGEST = "sha256:" + "a" * 64
CILIUM = ("cilium", "https://helm.cilium.io", "1.20.0")
KPS = ("kube-prometheus-stack", "https://prometheus-community.github.io/helm-charts", "88.5.3")
KPS87 = ("kube-prometheus-stack", "https://prometheus-community.github.io/helm-charts", "87.2.1")
KEDA = ("keda", "https://kedacore.github.io/charts", "2.20.2")
GPU = ("gpu-operator", "https://helm.ngc.nvidia.com/nvidia", "v26.7.0")
KUEUE = ("oci://registry.k8s.io/kueue/charts/kueue", None, "0.19.7")
OTHER = ("mychart", "https://charts.example.com", "1.0.0")


def judged(chart: tuple, values: dict) -> list[str]:
    name, repo, version = chart
    props = {"chart": name, "version": version, "namespace": "apps", "values": values}
    if repo:
        props["repositoryOpts"] = {"repo": repo}
    return call_resource_rule(validate_image_pinned, RELEASE, props)


# --- the charts the platform pins -----------------------------------------------------------------------------------
@pytest.mark.parametrize("chart, values", [
    (CILIUM, {"image": {"override": "quay.io/cilium/cilium:v1.20.0"}}),
    (CILIUM, {"image": {"repository": "docker.io/other/cilium", "tag": "v1.20.0", "digest": DIGEST,
                        "useDigest": True}}),
    (CILIUM, {"image": {"useDigest": True}, "operator": {"image": {"useDigest": True}}}),
    (CILIUM, {"operator": {"image": {"repository": "docker.io/other/operator", "tag": "v1.20.0",
                                     "genericDigest": DIGEST}}}),
    (CILIUM, {"hubble": {"relay": {"image": {"override": f"docker.io/other/hubble-relay@{DIGEST}"}}}}),
    (KPS, {"grafana": {"image": {"registry": "docker.io", "repository": "other/grafana", "tag": "12.3.0",
                                 "sha": "a" * 64}}}),
    (KPS87, {"grafana": {"image": {"repository": "grafana/grafana", "tag": "12.3.0"}}}),
    (KPS, {"crds": {"upgradeJob": {"image": {"busybox": {"tag": "1.37.0"}}}}}),
    (KPS, {"prometheus-node-exporter": {"image": {"repository": "other/ne", "digest": DIGEST}}}),
    (KPS, {"kube-state-metrics": {"image": {"repository": "other/ksm", "sha": DIGEST}}}),
    (KEDA, {"global": {"image": {"registry": "ghcr.io"}}}),
    (GPU, {"devicePlugin": {"version": "v0.20.1"}}),
    (GPU, {"dcgmExporter": {"repository": "docker.io/other", "version": DIGEST}}),
    (KUEUE, {"controllerManager": {"manager": {"image": {"repository": "registry.k8s.io/kueue/kueue",
                                                         "tag": "v0.19.7"}}}}),
])
def test_an_image_the_chart_renders_pinned_or_from_its_own_registry_passes(chart, values):
    assert judged(chart, values) == []


@pytest.mark.parametrize("chart, values, said", [
    (CILIUM, {"image": {"override": "docker.io/other/cilium:v1.20.0"}}, "values.image 'docker.io/other/cilium"),
    (CILIUM, {"image": {"repository": "docker.io/other/cilium", "tag": "v1.20.0", "digest": DIGEST,
                        "useDigest": False}}, "'docker.io/other/cilium:v1.20.0'"),
    (CILIUM, {"operator": {"image": {"override": "docker.io/other/operator:v1"}}}, "values.operator.image"),
    (CILIUM, {"operator": {"image": {"repository": "docker.io/other/operator", "tag": "v1.20.0",
                                     "digest": DIGEST}}}, "not recorded"),  # the operator's digest is genericDigest
    (CILIUM, {"envoy": {"image": {"override": "docker.io/other/envoy:v1.35"}}}, "values.envoy.image"),
    (CILIUM, {"envoy": {"image": {"tag": "v1.35"}}}, "not recorded"),
    (CILIUM, {"image": {"useDigest": "false"}}, "boolean"),
    (CILIUM, {"image": {"override": {"repository": "x"}}}, "string"),
    (CILIUM, {"eni": {"enabled": True}, "operator": {"image": {"tag": "v1"}}}, "eni.enabled"),
    (KPS, {"grafana": {"image": {"registry": "docker.io", "repository": "other/grafana", "tag": "12.3.0",
                                 "digest": DIGEST}}}, "'docker.io/other/grafana:12.3.0'"),
    (KPS87, {"grafana": {"image": {"registry": "docker.io", "repository": "other/grafana", "tag": "12.3.0",
                                   "digest": DIGEST}}}, "values.grafana.image"),
    (KPS, {"global": {"imageRegistry": "registry.evil.example"}}, "registry.evil.example/prometheus-operator/"),
    (KPS, {"grafana": {"global": {"imageRegistry": "registry.evil.example"}}}, "values.grafana.sidecar.image"),
    (KPS, {"kube-state-metrics": {"global": {"imageRegistry": "registry.evil.example"}}},
     "values.kube-state-metrics.kubeRBACProxy.image"),
    (KPS, {"crds": {"upgradeJob": {"image": {"busybox": {"repository": "other/busybox", "tag": "1.37.0",
                                                         "sha": "a" * 64}}}}}, "'docker.io/other/busybox:1.37.0'"),
    (KPS, {"prometheus-node-exporter": {"image": {"sha": "a" * 64}}}, "use digest"),
    (KPS, {"prometheus-node-exporter": {"permissionInitContainer": {"image": {"tag": "latest2"}}}}, "latest2"),
    (KPS, {"prometheusOperator": {"admissionWebhooks": {"patch": {"image": {"tag": "1.9.0"}}}}},
     "ghcr.io/jkroepke/"),
    (KPS, {"prometheus": {"prometheusSpec": {"image": {"tag": 3.1}}}}, "float"),
    (KEDA, {"global": {"image": {"registry": "registry.evil.example"}}}, "values.image.metricsApiServer"),
    (KEDA, {"image": {"webhooks": {"repository": "other/webhooks", "digest": DIGEST}}}, "values.image.webhooks"),
    (GPU, {"devicePlugin": {"repository": "", "version": "", "image": "docker.io/other/plugin:v1"}},
     "'docker.io/other/plugin:v1'"),
    (GPU, {"validator": {"repository": "docker.io/other"}}, "'docker.io/other/gpu-operator:v26.7.0'"),
    (KUEUE, {"controllerManager": {"manager": {"image": {"tag": "v0.19.7"}}}}, "not recorded"),
])
def test_an_image_the_chart_renders_elsewhere_or_from_values_it_cannot_read_is_refused(chart, values, said):
    found = judged(chart, values)
    assert found and any(said in f for f in found), found


def test_a_values_image_beside_the_recorded_ones_is_still_read():
    """Keys outside the recorded images (an extra init container, a sidecar list) go to the generic reader."""
    extra = {"prometheus": {"prometheusSpec": {"initContainers": [{"name": "i", "image": "busybox:1.36"}]}}}
    assert any("initContainers[0].image" in f for f in judged(KPS, extra))
    assert judged(KPS, {"prometheus": {"prometheusSpec": {"initContainers": [
        {"name": "i", "image": "docker.io/library/busybox:1.36"}]}}}) == []


def test_a_chart_at_a_version_not_read_falls_back_to_the_generic_reader():
    chart = ("cilium", "https://helm.cilium.io", "1.19.0")
    assert judged(chart, {"image": {"override": "docker.io/other/cilium:v1.19.0"}})
    assert judged(chart, {"image": {"override": "quay.io/cilium/cilium:v1.19.0"}}) == []


# --- any other chart: the generic reader ----------------------------------------------------------------------------
@pytest.mark.parametrize("values", [
    {"image": {"override": "quay.io/cilium/cilium:v1.20.0"}},
    {"image": {"repository": "docker.io/other/app", "tag": "1.0", "digest": DIGEST, "useDigest": True}},
    {"global": {"image": {"registry": "container-registry.oracle.com"}}},
    {"operator": {"repository": "", "version": "", "image": f"docker.io/other/app@{DIGEST}"}},
    {"agent": {"imageOverride": "registry.k8s.io/pause:3.10"}},
])
def test_an_unknown_charts_image_spellings_pass_when_pinned(values):
    assert judged(OTHER, values) == []


@pytest.mark.parametrize("values, said", [
    ({"image": {"override": "docker.io/other/app:1.0"}}, "values.image.override"),
    ({"image": {"repository": "docker.io/other/app", "tag": "1.0", "digest": DIGEST, "useDigest": False}},
     "'docker.io/other/app:1.0'"),
    ({"global": {"image": {"registry": "registry.evil.example"}}}, "values.global.image.registry"),
    ({"image": {"keda": {"registry": "registry.evil.example"}}}, "values.image.keda.registry"),
    ({"operator": {"repository": "", "version": "", "image": "docker.io/other/app:1.0"}}, "values.operator.image"),
    ({"agent": {"imageOverride": "docker.io/other/app:1.0"}}, "values.agent.imageOverride"),
])
def test_an_unknown_charts_dangerous_spellings_are_refused(values, said):
    found = judged(OTHER, values)
    assert found and any(said in f for f in found), found


def test_the_pack_and_the_program_carry_the_same_image_table():
    """The pack is published alone, so it keeps a copy of the facts module; the copies are the same file."""
    assert ((ROOT / "policies" / "security" / "_chart_images.py").read_text()
            == (ROOT / "oke_rdma" / "facts" / "chart_images.py").read_text())


def test_every_pinned_helm_add_on_at_its_pin_is_in_the_table_or_listed_as_not_read():
    from oke_rdma.addons import REGISTRY
    from oke_rdma.facts.chart_images import CHARTS, NOT_READ
    known = {c.chart for c in CHARTS}
    for addon in REGISTRY:
        if addon.is_manifest:
            continue
        name = addon.chart.rsplit("/", 1)[-1]
        assert name in known or name in NOT_READ, name
        if name in known:
            assert any(addon.defaults.version in c.versions for c in CHARTS if c.chart == name), name


def test_every_row_carries_its_source_and_date():
    from oke_rdma.facts.chart_images import CHARTS, CHECKED, SCHEME_KEYS
    for chart in CHARTS:
        for slot in chart.slots:
            assert CHECKED in slot.source and slot.scheme in SCHEME_KEYS
            assert set(slot.defaults) <= set(SCHEME_KEYS[slot.scheme]), slot.at
