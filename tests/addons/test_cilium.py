"""Cilium as the platform's policy engine: its values are valid for the pinned chart (every path oke-rdma sets is
declared by the chart's values.schema.json at 1.20.0, with that type), the values chaining on OKE needs cannot be
changed by a user, the config refuses a cluster Cilium cannot chain onto, and every other release waits for it.

Fixture: ``tests/fixtures/charts/cilium-1.20.0.values.schema.json`` is the chart's own file, taken from
``cilium-1.20.0.tgz`` of the Helm repository (cilium/charts@d5f3d1cc, "Add cilium v1.20.0@450c5314"; sha256 of the
archive c5f01391...7883), read 2026-12-01."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import jsonschema
import pytest

from oke_rdma.addons import REGISTRY, ValuesContext
from oke_rdma.addons.cilium import CILIUM_POOL_CIDR, PINNED, CiliumRelease, checks, values
from oke_rdma.config import ConfigError, load_stack_config
from tests.stackcfg import dev_raw_config, load_dev_config

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "charts" /
                     "cilium-1.20.0.values.schema.json").read_text())
RELEASE = "kubernetes:helm.sh/v3:Release"
AT = ("platform", "cilium")


def _leaves(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            yield from _leaves(v, path + (k,))
    else:
        yield path


def undeclared(vals: dict[str, Any]) -> list[str]:
    """Value paths the chart's schema does not declare (Helm would accept and ignore them: a typo is silent)."""
    out = []
    for path in _leaves(vals):
        node = SCHEMA
        for part in path:
            props = node.get("properties") if isinstance(node, dict) else None
            if not props or part not in props:
                out.append(".".join(path))
                break
            node = props[part]
    return out


def problems(**overrides) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(**overrides))
    return err.value.problems


@pytest.mark.parametrize("enabled", [frozenset(), frozenset({"kubePrometheusStack"})])
def test_every_value_is_declared_by_the_pinned_chart_with_its_type(enabled):
    vals = values(CiliumRelease(), ValuesContext(enabled=enabled))
    assert undeclared(vals) == []
    jsonschema.Draft7Validator(SCHEMA).validate(vals)


def test_the_chart_check_catches_a_misspelt_or_mistyped_value():
    """The two checks above can fail: a key the chart does not have, and a value of the wrong type."""
    vals = values(CiliumRelease(), ValuesContext())
    assert undeclared({**vals, "cni": {**vals["cni"], "chainingMod": "generic-veth"}}) == ["cni.chainingMod"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(SCHEMA).validate({**vals, "routingMode": 1})


def test_chaining_on_oke_values():
    """Generic-veth chaining onto OKE's 'oci' conflist, native routing, no masquerading, kube-proxy kept, OCI's IPAM
    in charge (Cilium's pool in RFC 6598 space), no L7 proxy, images by digest."""
    vals = values(CiliumRelease(), ValuesContext())
    assert vals["cni"] == {"chainingMode": "generic-veth", "chainingTarget": "oci", "exclusive": False}
    assert (vals["routingMode"], vals["enableIPv4Masquerade"], vals["kubeProxyReplacement"]) == \
        ("native", False, "false")
    assert vals["ipam"]["operator"]["clusterPoolIPv4PodCIDRList"] == [CILIUM_POOL_CIDR] == ["100.64.0.0/16"]
    assert vals["l7Proxy"] is False and vals["envoy"]["enabled"] is False
    assert vals["image"]["useDigest"] is True and vals["operator"]["image"]["useDigest"] is True


def test_the_default_platform_enables_cilium_1_20_0():
    cfg = load_dev_config()
    assert cfg.platform.cilium.enabled and cfg.platform.cilium.version == "1.20.0"
    assert cfg.platform.cilium.namespace == "cilium"
    assert "cilium" in REGISTRY and REGISTRY["cilium"].cni


@pytest.mark.parametrize("path", sorted(PINNED))
def test_a_user_value_moving_what_chaining_needs_is_refused(path):
    required, _ = PINNED[path]
    wrong: Any = {"generic-veth": "none", "oci": "flannel", "native": "tunnel", "false": "true",
                  "default": "never"}.get(required, not required) if not isinstance(required, bool) else not required
    user: dict[str, Any] = {}
    node = user
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = wrong
    found = checks(CiliumRelease(values=user), AT)
    assert len(found) == 1 and found[0].startswith("oke-rdma:platform.cilium.values." + ".".join(path) + ":")
    node[path[-1]] = required  # the same value restated is fine
    assert checks(CiliumRelease(values=user), AT) == []


def test_a_string_where_a_boolean_is_pinned_is_refused():
    """Helm templates read the text 'false' as true: only the boolean passes."""
    assert checks(CiliumRelease(values={"cni": {"exclusive": "false"}}), AT)
    assert checks(CiliumRelease(values={"ipam": {"mode": "kubernetes"}}), AT)
    assert checks(CiliumRelease(values={"ipam": {"operator": {"clusterPoolIPv4PodCIDRList": ["10.0.0.0/8"]}}}), AT)
    assert checks(CiliumRelease(values={"hubble": {"enabled": False}}), AT) == []


def test_a_flannel_cluster_cannot_chain_cilium():
    lines = problems(cluster={"cniType": "FLANNEL_OVERLAY"})
    assert any(p.startswith("oke-rdma:platform.cilium.enabled: Cilium chains onto OKE's VCN-native") for p in lines)


def test_a_flannel_cluster_without_cilium_is_not_refused_for_it():
    """The rule above applies only while Cilium is on (whatever else a Flannel dev stack breaks)."""
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(cluster={"cniType": "FLANNEL_OVERLAY"},
                                         platform={"cilium": {"enabled": False}}))
    assert not any("platform.cilium" in p for p in err.value.problems)


def test_a_vcn_overlapping_ciliums_pool_is_refused():
    lines = problems(network={"vcnCidr": "100.64.0.0/16"})
    assert any(p.startswith("oke-rdma:network.vcnCidr: 100.64.0.0/16 overlaps 100.64.0.0/16") for p in lines)
    lines = problems(cluster={"servicesCidr": "100.64.128.0/20"})
    assert any(p.startswith("oke-rdma:cluster.servicesCidr:") for p in lines)


def test_every_other_release_waits_for_cilium(dev_run):
    """Pods started before Cilium are not enforced until restarted: Cilium is installed first."""
    releases = {r.inputs["name"]: r for r in dev_run.resources if r.type == RELEASE}
    cilium = releases.pop("cilium")
    assert cilium.inputs["chart"] == "cilium" and cilium.inputs["version"] == "1.20.0"
    assert cilium.inputs["repositoryOpts"]["repo"] == "https://helm.cilium.io"
    assert releases and all(cilium.urn in r.dependencies for r in releases.values())
    assert not any(r.urn in cilium.dependencies for r in releases.values())


def test_a_chart_without_chaining_target_is_refused():
    """cni.chainingTarget (how Cilium finds OKE's conflist) exists from 1.14.0 on."""
    lines = [p for p in problems(platform={"cilium": {"version": "1.13.4"}})
             if p.startswith("oke-rdma:platform.cilium.version")]
    assert lines and "1.14.0" in lines[0], lines
    assert load_dev_config(platform={"cilium": {"version": "1.14.0"}}).platform.cilium.version == "1.14.0"
