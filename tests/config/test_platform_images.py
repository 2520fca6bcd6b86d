"""A platform add-on's values may move one of its chart's images only to the chart's own repository with a version
tag, or pinned by digest, judged as the chart's templates render it (Cilium ``override`` and ``useDigest``, the
Grafana sub-chart's ``sha``, KEDA's ``global.image.registry``...); a value the template cannot be read from is
refused. Each refusal is one line naming the key path and the fix."""
from __future__ import annotations

import pytest

from oke_rdma.config import ConfigError, load_stack_config
from tests.stackcfg import dev_config, edited

RAW, _ = dev_config()
DIGEST = "sha256:" + "a" * 64


def image_lines(addon: str, values: dict) -> list[str]:
    raw = edited(RAW, "platform", (addon, "values"), values)
    try:
        load_stack_config(raw)
    except ConfigError as e:
        return [p for p in e.problems if "image" in p and f"platform.{addon}.values" in p]
    return []


@pytest.mark.parametrize("addon, values", [
    ("cilium", {"image": {"pullPolicy": "Always"}}),
    ("cilium", {"image": {"override": f"quay.io/cilium/cilium:v1.20.0@{DIGEST}"}}),
    ("kubePrometheusStack", {"grafana": {"image": {"tag": "13.2.1"}}}),
    ("kubePrometheusStack", {"grafana": {"image": {"repository": "other/grafana", "sha": "a" * 64}}}),
    ("keda", {"global": {"image": {"registry": "ghcr.io"}}}),
    ("gpuOperator", {"dcgmExporter": {"version": "4.6.0-4.8.4-distroless"}}),
])
def test_values_keeping_the_charts_own_images_or_pinning_them_pass(addon, values):
    assert image_lines(addon, values) == []


@pytest.mark.parametrize("addon, values, key", [
    ("cilium", {"image": {"override": "docker.io/evilacct/cilium:v1.20.0"}}, "platform.cilium.values.image.override"),
    ("cilium", {"hubble": {"relay": {"image": {"override": "quay.io/cilium/hubble-relay:v1.20.0"}}}},
     "platform.cilium.values.hubble.relay.image.override"),
    ("cilium", {"operator": {"image": {"tag": "v1.20.1"}}}, "platform.cilium.values.operator.image.tag"),
    ("kubePrometheusStack", {"grafana": {"image": {"repository": "other/grafana", "digest": DIGEST}}},
     "platform.kubePrometheusStack.values.grafana.image.repository"),
    ("kubePrometheusStack", {"global": {"imageRegistry": "registry.example.com"}},
     "platform.kubePrometheusStack.values.global.imageRegistry"),
    ("kubePrometheusStack", {"grafana": {"sidecar": {"image": {"tag": "latest"}}}},
     "platform.kubePrometheusStack.values.grafana.sidecar.image.tag"),
    ("keda", {"global": {"image": {"registry": "registry.evil.example"}}},
     "platform.keda.values.global.image.registry"),
    ("gpuOperator", {"devicePlugin": {"repository": "", "version": "", "image": "docker.io/x/plugin:v1"}},
     "platform.gpuOperator.values.devicePlugin.repository"),
])
def test_values_moving_an_image_elsewhere_unpinned_are_refused_on_one_line(addon, values, key):
    lines = image_lines(addon, values)
    assert lines and all("\n" not in line for line in lines), lines
    assert any(line.startswith(f"oke-rdma:{key}:") and ("digest" in line or "recorded" in line) for line in lines), lines
