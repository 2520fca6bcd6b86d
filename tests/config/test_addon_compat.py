"""Add-ons that must match each other: an operator older than the enabled Kueue drives is refused (exit 2) naming both
versions and the versions that work; a combination inside the table, or with Kueue off, passes."""

from __future__ import annotations

import pytest

from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.facts import compat
from tests.stackcfg import dev_raw_config, load_dev_config


def problems(**overrides) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(**overrides))
    return err.value.problems


@pytest.mark.parametrize("key, version, kueue, minimum", [
    ("kuberay", "1.0.0", "0.19.2", "1.1.0"),
    ("kuberay", "1.0.0", "0.18.2", "1.1.0"),
    ("trainer", "1.9.0", "0.19.2", "2.2.0"),
    ("trainer", "2.1.0", "0.18.2", "2.2.0"),
])
def test_an_operator_older_than_kueue_drives_is_refused_naming_both(key, version, kueue, minimum):
    lines = problems(platform={key: {"enabled": True, "version": version}, "kueue": {"version": kueue}})
    [line] = [p for p in lines if p.startswith(f"oke-rdma:platform.{key}.version") and "Kueue" in p]
    assert f"{version} is older than Kueue {kueue} drives (it needs {minimum} or newer" in line
    assert "go.mod@v" in line and f"set {minimum} or newer" in line


@pytest.mark.parametrize("key, version", [("kuberay", "1.1.0"), ("kuberay", "1.7.0"), ("trainer", "2.3.0"),
                                          ("mpiOperator", "0.8.0"), ("mpiOperator", "0.8.2")])
def test_an_operator_kueue_drives_passes(key, version):
    cfg = load_dev_config(platform={key: {"enabled": True, "version": version}, "kueue": {"version": "0.19.7"}})
    assert getattr(cfg.platform, {"kuberay": "kuberay", "trainer": "trainer", "mpiOperator": "mpi_operator"}[key]) \
        .version == version


def test_with_kueue_off_an_old_operator_is_not_judged_against_it():
    cfg = load_dev_config(platform={"kuberay": {"enabled": True, "version": "1.0.0"}, "kueue": {"enabled": False}})
    assert cfg.platform.kuberay.version == "1.0.0"


def test_every_row_names_its_source_and_date_and_the_operators_are_add_ons():
    from oke_rdma.addons import REGISTRY
    for row in compat.KUEUE_DRIVES:
        assert "checked 20" in row.source and "go.mod@v" in row.source
        assert row.operator in REGISTRY and REGISTRY[row.operator].kueue_frameworks


def test_every_kueue_integration_add_on_has_a_row_for_the_default_kueue():
    """The class: every add-on whose kinds Kueue admits has a row for the pinned Kueue (a new operator add-on without
    one fails here)."""
    from oke_rdma.addons import REGISTRY
    default = REGISTRY["kueue"].defaults.version
    missing = [a.key for a in REGISTRY if a.kueue_frameworks and compat.kueue_drives(default, a.key) is None]
    assert missing == []


def test_the_default_operators_are_the_ones_the_default_kueue_is_tested_with_or_newer():
    from oke_rdma.addons import REGISTRY
    from oke_rdma.facts.charts import parse_version
    kueue = REGISTRY["kueue"].defaults.version
    for a in REGISTRY:
        row = compat.kueue_drives(kueue, a.key)
        if row is not None and row.minimum is not None:
            assert parse_version(a.defaults.version) >= parse_version(row.minimum), a.key
