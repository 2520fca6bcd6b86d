"""Every add-on version key against the versions oke-rdma knows exist: a version spelled unlike the add-on's (a ``v``
missing or extra) is refused naming the right spelling; an unknown version is warned about with the nearest known."""
from __future__ import annotations

import pytest

from oke_rdma.addons import REGISTRY
from oke_rdma.config import ConfigError
from oke_rdma.config.checks.chart_versions import chart_version_warnings, nearest_known
from oke_rdma.facts.chart_versions import KNOWN_VERSIONS
from tests.stackcfg import load_dev_config


def test_every_pin_is_a_known_version():
    """Each add-on's default version is in the facts (a new pin needs its row), so the dev stack warns about none."""
    for addon in REGISTRY:
        assert addon.defaults.version in KNOWN_VERSIONS[addon.key][0], addon.key
    assert chart_version_warnings(load_dev_config()) == []


@pytest.mark.parametrize("platform,line", [
    ({"gpuOperator": {"version": "26.7.0"}},
     "oke-rdma:platform.gpuOperator.version: '26.7.0' lacks the 'v' every gpu-operator version carries"),
    ({"keda": {"version": "v2.20.2"}}, "oke-rdma:platform.keda.version: 'v2.20.2' has a 'v' no keda version carries"),
    ({"kuberay": {"enabled": True, "version": "v1.7.0"}}, "oke-rdma:platform.kuberay.version: 'v1.7.0' has a 'v'"),
])
def test_a_version_spelled_unlike_the_add_ons_is_refused(platform, line):
    """The format of every add-on's versions is checked: one line naming the key and the spelling to write."""
    with pytest.raises(ConfigError) as e:
        load_dev_config(platform=platform)
    assert any(p.startswith(line) and "write '" in p for p in e.value.problems), e.value.problems


@pytest.mark.parametrize("platform,key,nearest", [
    ({"keda": {"version": "2.20.30"}}, "keda", "2.20.2"),
    ({"gpuOperator": {"version": "v26.7.9"}}, "gpuOperator", "v26.7.0"),
    ({"kubePrometheusStack": {"version": "88.9.0"}}, "kubePrometheusStack", "88.5.3"),
])
def test_an_unknown_version_is_warned_about_with_the_nearest_known(platform, key, nearest):
    """A well-spelled version the facts do not know: a warning naming it, the nearest known version and where to
    check, never silence."""
    (line,) = chart_version_warnings(load_dev_config(platform=platform))
    assert line.startswith(f"oke-rdma:platform.{key}.version: ") and f"nearest {nearest}" in line


def test_a_disabled_add_on_is_not_checked():
    """Nothing is installed for a disabled add-on: no claim about its version."""
    cfg = load_dev_config(platform={"kuberay": {"enabled": False, "version": "9.9.9"}})
    assert chart_version_warnings(cfg) == []


def test_nearest_prefers_the_same_line():
    assert nearest_known("kueue", "0.19.9") == "0.19.7"
    assert nearest_known("kueue", "0.18.1") == "0.18.2"
    assert nearest_known("kueue", "latest") is None


@pytest.mark.parametrize("version,status,path", [
    ("v25.10.1", "end of support", "through 26.3 then 26.7"),
    ("v25.3.4", "end of support", "through 25.10 then 26.3 then 26.7"),
    ("v26.3.3", "deprecated", ""),
])
def test_a_pin_on_a_line_past_its_support_is_warned_about_with_the_way_up(version, status, path):
    """A GPU Operator on a line NVIDIA no longer supports (or deprecates) is accepted with an advisory warning that
    names the line, its status with the source, and the majors to go through (one at a time)."""
    from oke_rdma.config.checks.chart_versions import support_warnings

    (line,) = support_warnings(load_dev_config(platform={"gpuOperator": {"version": version}}))
    assert line.startswith(f"oke-rdma:platform.gpuOperator.version: {version} is on ") and f"which is {status}" in line
    assert "platform-support.rst" in line and "move to 26.7.x" in line and path in line


def test_the_pins_are_on_supported_lines_and_every_stepped_major_has_a_status():
    """The default pins warn about nothing; every major an upgrade must go through has a recorded status (a line
    added to MAJOR_STEPS without one would leave its pins unjudged)."""
    from oke_rdma.config.checks.chart_versions import support_warnings
    from oke_rdma.facts import charts

    assert support_warnings(load_dev_config()) == []
    for key, steps in charts.MAJOR_STEPS.items():
        assert {r.line for r in charts.SUPPORT.get(key, ())} >= set(steps), key
    for addon in REGISTRY:
        row = charts.support_status(addon.key, addon.defaults.version)
        assert row is None or row.status == "supported", (addon.key, row)
