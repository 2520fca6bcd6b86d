"""Add-ons that must match each other: an operator older than the enabled Kueue drives is refused (exit 2) naming both
versions and the versions that work; a partner add-on at or after an API change the enabled add-on compiled against it
was not built for is refused at the partner's version key, naming both versions, the change, its source and the pairs
that work; a combination inside the tables, a reviewed compatible change, or either side off passes."""

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


@pytest.mark.parametrize("key, version", [("kuberay", "1.1.0"), ("kuberay", "1.7.0"), ("mpiOperator", "0.8.0"),
                                          ("mpiOperator", "0.8.2"), ("jobset", "0.12.0")])
def test_an_operator_kueue_drives_passes(key, version):
    cfg = load_dev_config(platform={key: {"enabled": True, "version": version}, "kueue": {"version": "0.19.7"}})
    assert getattr(cfg.platform, {"kuberay": "kuberay", "mpiOperator": "mpi_operator", "jobset": "jobset"}[key]) \
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


TRAINER_KEY = "oke-rdma:platform.trainer.version"


@pytest.mark.parametrize("kueue", ["0.19.7", "0.19.2", "0.18.8"])
def test_trainer_2_3_beside_a_kueue_built_against_trainer_2_2_is_refused_naming_both_and_the_way_out(kueue):
    """Trainer 2.3.0 (the default) with Kueue 0.18 or 0.19, which build against Trainer 2.2.1: one line at
    platform.trainer.version naming both versions, what 2.2.1 each builds against, the change, its source, the pairs
    upstream builds together and the fix (turn Trainer or Kueue off until a Kueue built against 2.3 is pinned)."""
    lines = problems(platform={"trainer": {"enabled": True}, "kueue": {"version": kueue}})
    [line] = [p for p in lines if p.startswith(TRAINER_KEY)]
    assert f"Kubeflow Trainer 2.3.0 is at or after 2.3.0, whose API change Kueue {kueue} was not built for " \
           f"(it builds against 2.2.1)" in line
    assert "strategic-merge" in line and "runtime snapshot" in line and "checked 2026-12-02" in line
    assert "Kueue 0.18-0.19 with Trainer 2.2.x" in line and "Kueue main (the future 0.20" in line
    assert "set platform.trainer.enabled: false (or platform.kueue.enabled: false)" in line


def test_the_dev_stack_with_trainer_turned_on_exits_2_in_the_offline_preview(tmp_path):
    """The bug hunt's input, end to end: Pulumi.dev.yaml with platform.trainer.enabled and nothing else changed is
    refused by the offline preview (exit 2) with the line at platform.trainer.version."""
    import subprocess
    import sys

    import yaml
    from tests.stackcfg import ROOT

    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    doc["config"]["oke-rdma:platform"]["trainer"] = {"enabled": True}
    path = tmp_path / "Pulumi.trainer.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    run = subprocess.run([sys.executable, "-m", "offline.preview", "--config-file", str(path), "--stack", "dev"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "oke-rdma:platform.trainer.version: Kubeflow Trainer 2.3.0 is at or after 2.3.0" in run.stderr


def test_trainer_alone_or_kueue_alone_passes():
    """Either side off: Trainer 2.3.0 without Kueue, and Kueue without Trainer (the dev stack), load."""
    assert load_dev_config(platform={"trainer": {"enabled": True}, "kueue": {"enabled": False}}) \
        .platform.trainer.version == "2.3.0"
    assert not load_dev_config().platform.trainer.enabled


def test_kuberay_newer_than_kueue_builds_against_passes_as_a_reviewed_change():
    """KubeRay 1.7.0 beside Kueue 0.19.7 (built against 1.6.2): a recorded, reviewed non-breaking change, so no line
    at platform.kuberay.version."""
    cfg = load_dev_config(platform={"kuberay": {"enabled": True, "version": "1.7.0"}})
    assert cfg.platform.kuberay.version == "1.7.0"
    [change] = compat.partner_changes("kueue", "0.19.7", "kuberay", "1.7.0")
    assert not change.breaks and "#14669" in change.source


def test_a_breaking_row_refuses_every_consumer_partner_pair_it_names(monkeypatch):
    """The rule reads the table, not Kueue and Trainer by name: a breaking JobSet change recorded against Trainer 2.3
    refuses an enabled JobSet at or after it beside Trainer (at platform.jobset.version), and not one before it."""
    import dataclasses

    from oke_rdma.config.checks.compat import check_partner_api_breaks

    row = compat.PartnerChange("trainer", ("2.3.0", "2.4.0"), "jobset", "0.12.0", True, "a test change",
                               "use JobSet 0.11", "a test source; checked 2026-12-02")
    cfg = load_dev_config(platform={"jobset": {"enabled": True}, "kueue": {"enabled": False},
                                    "trainer": {"enabled": True}})
    monkeypatch.setattr(compat, "PARTNER_CHANGES", compat.PARTNER_CHANGES + (row,))
    [line] = check_partner_api_breaks(cfg)
    assert line.startswith("oke-rdma:platform.jobset.version: JobSet 0.12.0 is at or after 0.12.0, whose API "
                           "change Kubeflow Trainer 2.3.0 was not built for (it builds against 0.12.0)")
    assert line.endswith("a test change (a test source; checked 2026-12-02); use JobSet 0.11")
    monkeypatch.setattr(compat, "PARTNER_CHANGES", (dataclasses.replace(row, since="0.13.0"),))
    assert check_partner_api_breaks(cfg) == []


def test_every_partner_change_row_is_sourced_and_names_add_ons():
    from oke_rdma.addons import REGISTRY
    for row in compat.PARTNER_CHANGES + compat.BUILT_WITH:
        assert "checked 20" in row.source and row.consumer in REGISTRY and row.partner in REGISTRY


def test_every_default_partner_newer_than_what_its_consumer_builds_against_was_reviewed():
    """The class: for every consumer add-on whose default version has a built-against record for a partner add-on,
    the partner's default is on that line or a reviewed change row covers it (a later pin of either side without a
    review fails here)."""
    from oke_rdma.addons import REGISTRY
    from oke_rdma.facts.charts import parse_version
    unreviewed = []
    for consumer in REGISTRY:
        for partner in REGISTRY:
            built = compat.built_with(consumer.key, consumer.defaults.version, partner.key) \
                if consumer.key != partner.key else None
            if built is None:
                continue
            have, want = parse_version(partner.defaults.version), parse_version(built[0])
            if (have.major, have.minor) > (want.major, want.minor) and not compat.partner_changes(
                    consumer.key, consumer.defaults.version, partner.key, partner.defaults.version):
                unreviewed.append((consumer.key, partner.key))
    assert unreviewed == []


def test_trainer_s_jobset_is_the_one_the_default_trainer_builds_against():
    """Trainer 2.3.0 builds against and bundles JobSet 0.12.0, the jobset add-on's default, so turning the add-on on
    (Trainer's subchart off, one JobSet controller) runs the JobSet Trainer was built for."""
    from oke_rdma.addons import REGISTRY
    version, source = compat.built_with("trainer", REGISTRY["trainer"].defaults.version, "jobset")
    assert version == REGISTRY["jobset"].defaults.version == "0.12.0" and "Chart.yaml@v2.3.0" in source
    assert compat.built_with("trainer", "2.2.1", "jobset")[0] == "0.11.1"
