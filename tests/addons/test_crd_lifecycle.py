"""Chart CRDs upgraded on purpose, as a class: every add-on whose chart or manifest ships CRDs says how they are
installed and upgraded (oke_rdma/facts/crds.py), and a value that would leave old CRDs in place on a version change is
refused naming the key path."""

from __future__ import annotations

import pytest

from oke_rdma.addons import REGISTRY, ValuesContext
from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.facts.crds import CHART_JOB, CRD_LIFECYCLE, CRDS_DIR, MODES
from tests.stackcfg import dev_raw_config, load_dev_config


def test_every_add_on_with_crds_declares_how_they_are_upgraded():
    """A new add-on installing CRDs without a row fails here (e.g. an add-on added to the registry later)."""
    assert sorted(a.key for a in REGISTRY if a.crds and a.key not in CRD_LIFECYCLE) == []
    for key, row in CRD_LIFECYCLE.items():
        assert key in REGISTRY and row.mode in MODES and "checked 20" in row.source


def test_a_crds_dir_add_on_has_the_key_recording_applied_crds():
    for key, row in CRD_LIFECYCLE.items():
        if row.mode == CRDS_DIR:
            assert "crds_applied" in REGISTRY[key].config.model_fields, key


@pytest.mark.parametrize("key", [k for k, r in CRD_LIFECYCLE.items() if r.keep is not None])
def test_the_value_that_upgrades_the_crds_holds_in_the_default_values(key):
    """oke-rdma keeps the chart's CRD Job on (kube-prometheus-stack: set; GPU Operator, KEDA: the chart's default)."""
    addon, (path, wanted) = REGISTRY[key], CRD_LIFECYCLE[key].keep
    cur = addon.helm_values(addon.config(enabled=True), ValuesContext(enabled=frozenset(a.key for a in REGISTRY)))
    for p in path:
        cur = cur.get(p) if isinstance(cur, dict) else None
    assert cur in (wanted, None)  # None: absent, the chart's default (the row's source)
    if CRD_LIFECYCLE[key].mode == CHART_JOB and key == "kubePrometheusStack":
        assert cur is True


@pytest.mark.parametrize("key, path, bad", [
    ("gpuOperator", {"operator": {"upgradeCRD": False}}, "operator.upgradeCRD"),
    ("kubePrometheusStack", {"crds": {"upgradeJob": {"enabled": False}}}, "crds.upgradeJob.enabled"),
    ("keda", {"crds": {"install": False}}, "crds.install"),
    ("gpuOperator", {"operator": {"upgradeCRD": None}}, "operator.upgradeCRD"),  # null deletes the chart's default
])
def test_a_value_turning_off_the_crd_upgrade_is_refused(key, path, bad):
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(platform={key: {"values": path}}))
    [line] = [p for p in err.value.problems if p.startswith(f"oke-rdma:platform.{key}.values.{bad}")]
    assert "must stay true" in line and "old CRDs in place" in line


def test_the_dev_stack_keeps_every_crd_path():
    from oke_rdma.config.checks.crds import check_crd_lifecycle
    assert check_crd_lifecycle(load_dev_config()) == []


def test_kube_prometheus_stack_crd_job_runs_a_pinned_busybox():
    """The chart's CRD Job defaults to busybox:latest; oke-rdma pins it."""
    addon = REGISTRY["kubePrometheusStack"]
    values = addon.helm_values(addon.defaults, ValuesContext())
    assert values["crds"]["upgradeJob"]["image"]["busybox"]["tag"] not in ("", "latest")
