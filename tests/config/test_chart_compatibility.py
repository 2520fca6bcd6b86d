"""Chart compatibility: a chart version that does not serve what the program creates through it, or a Kubernetes
version outside what the chart version supports, is refused before anything is declared, naming both sides and the
first version that fits."""

from __future__ import annotations

import pytest

from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.facts import charts
from tests.config.test_config_platform import preview_exit
from tests.stackcfg import dev_raw_config, load_dev_config, pinned_knowingly


def problems(**overrides) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(**overrides))
    return err.value.problems


def only(lines: list[str], key: str) -> str:
    [line] = [p for p in lines if p.startswith(key)]
    return line


@pytest.mark.parametrize("version", ["0.14.3", "0.10.1", "0.14.0", "0.9.0", "0.1.0"])
def test_kueue_without_v1beta2_is_refused_naming_the_first_fitting_version(version):
    """Every Kueue before 0.15.0 lacks kueue.x-k8s.io/v1beta2; the line names it and 0.15.0."""
    line = only(problems(platform={"kueue": {"version": version}}), "oke-rdma:platform.kueue.version")
    assert f"Kueue {version} lacks kueue.x-k8s.io/v1beta2" in line
    assert "set 0.15.0 or newer" in line
    assert "CHANGELOG-0.15.md" in line  # the fact carries its source


def test_old_kueue_names_every_missing_feature_in_one_line():
    """0.10.1 also predates TAS with cohorts (0.11.0) and TAS on by default (0.14.0): all in one line."""
    line = only(problems(platform={"kueue": {"version": "0.10.1"}}), "oke-rdma:platform.kueue.version")
    assert "cohorts" in line and "TopologyAwareScheduling" in line and "0.15.0" in line


@pytest.mark.parametrize("version", ["0.15.0", "0.15.3", "0.16.1", "0.17.8", "0.18.2", "0.18.6", "0.19.2"])
def test_kueue_serving_v1beta2_passes(version):
    cfg = load_dev_config(platform={"kueue": pinned_knowingly("kueue", version)})
    assert cfg.platform.kueue.version == version


def test_a_disabled_kueue_is_not_checked():
    cfg = load_dev_config(platform={"kueue": {"version": "0.10.1", "enabled": False}})
    assert not cfg.platform.kueue.enabled


def test_kubernetes_older_than_kueue_supports_names_both_sides():
    """Kueue 0.18.2 needs Kubernetes 1.29+; a v1.28 cluster is refused naming both versions and the range."""
    line = only(problems(cluster={"kubernetesVersion": "v1.28.10"},
                         nodePools={"system": {"kubernetesVersion": None}, "gpu": {"kubernetesVersion": None}}),
                "oke-rdma:platform.kueue.version")
    assert "supports Kubernetes 1.29 or newer" in line and "Kueue 0.1" in line and "v1.28.10" in line
    assert "installation.md" in line


def test_keda_outside_its_published_matrix_names_the_fitting_keda():
    """KEDA 2.14 supports Kubernetes 1.27–1.29: on the dev stack's v1.35.2 it is refused, naming KEDA 2.20.0."""
    line = only(problems(platform={"keda": {"version": "2.14.0"}}), "oke-rdma:platform.keda.version")
    assert "KEDA 2.14.0 supports Kubernetes 1.27–1.29" in line and "v1.35.2" in line
    assert "use KEDA 2.20.0 or newer" in line


@pytest.mark.parametrize("key, version, kube, span", [
    ("gpuOperator", "v25.10.1", "v1.36.1", "1.30–1.35"),   # NVIDIA validated 1.30–1.35, the chart's floor is 1.16
    ("gpuOperator", "v26.3.1", "v1.36.1", "1.32–1.35"),
    ("gpuOperator", "v26.7.0", "v1.31.14", "1.33–1.37"),
    ("gpuOperator", "v26.7.0", "v1.38.0", "1.33–1.37"),
    ("keda", "2.20.2", "v1.36.1", "1.33–1.35"),            # KEDA tests 2.20 up to 1.35
    ("keda", "2.19.0", "v1.36.1", "1.32–1.34"),
])
def test_an_add_on_outside_its_vendors_tested_kubernetes_range_is_refused(key, version, kube, span):
    """The recorded range is the vendor's validated or tested one, not the chart's install floor: an add-on on a
    Kubernetes version outside it is refused naming both versions and the range."""
    from oke_rdma.config.checks.platform import check_chart_compatibility
    cfg = load_dev_config()
    cfg.cluster.__dict__["kubernetes_version"] = kube
    getattr(cfg.platform, {"gpuOperator": "gpu_operator", "keda": "keda"}[key]).__dict__["version"] = version
    [line] = [p for p in check_chart_compatibility(cfg) if p.startswith(f"oke-rdma:platform.{key}.version")]
    assert f"supports Kubernetes {span} but cluster.kubernetesVersion is {kube}" in line and version in line
    # leaving the add-on out is named as the other way
    assert f"or set oke-rdma:platform.{key}.enabled: false" in line, line


@pytest.mark.parametrize("kube", ["v1.33.1", "v1.36.1", "v1.37.0"])
def test_gpu_operator_26_7_fits_kubernetes_1_33_to_1_37(kube):
    """NVIDIA validated GPU Operator 26.7.0 up to Kubernetes 1.37 after its release (a post-release documentation
    update), and from 1.33 on every operating system: no compatibility line for it inside that range."""
    from oke_rdma.config.checks.platform import check_chart_compatibility
    cfg = load_dev_config()
    cfg.cluster.__dict__["kubernetes_version"] = kube
    cfg.platform.gpu_operator.__dict__["version"] = "v26.7.0"
    assert [p for p in check_chart_compatibility(cfg) if p.startswith("oke-rdma:platform.gpuOperator.")] == []


def test_the_gpu_operator_names_the_release_validated_on_the_cluster():
    """GPU Operator 25.10 on v1.36.1: the first recorded release NVIDIA validated on 1.36 (26.3.2) is named."""
    from oke_rdma.config.checks.platform import check_chart_compatibility
    cfg = load_dev_config()
    cfg.cluster.__dict__["kubernetes_version"] = "v1.36.1"
    cfg.platform.gpu_operator.__dict__["version"] = "v25.10.1"
    [line] = [p for p in check_chart_compatibility(cfg) if "gpuOperator" in p]
    assert "use NVIDIA GPU Operator 26.3.2 or newer" in line


@pytest.mark.parametrize("version", ["v1.34.2", "v1.35.2"])
def test_the_default_add_ons_fit_every_offered_version_keda_tests(version):
    """Every default chart fits the offered Kubernetes versions inside KEDA 2.20's tested range."""
    from oke_rdma.config.checks.platform import check_chart_compatibility
    cfg = load_dev_config()
    cfg.cluster.__dict__["kubernetes_version"] = version
    for field in type(cfg.platform).model_fields:
        release = getattr(cfg.platform, field)
        release.__dict__["version"] = type(release).model_fields["version"].default
    assert cfg.platform.gpu_operator.version == "v26.7.0" and cfg.platform.kueue.version == "0.19.7"
    assert check_chart_compatibility(cfg) == []


def test_keda_range_names_the_first_keda_that_supports_the_cluster():
    """On v1.30 KEDA 2.13 (1.27–1.29) is refused and KEDA 2.15.0 (1.28–1.30) is named."""
    lines = problems(platform={"keda": {"version": "2.13.2"}}, cluster={"kubernetesVersion": "v1.30.1"})
    line = only(lines, "oke-rdma:platform.keda.version")
    assert "use KEDA 2.15.0 or newer" in line


def test_kube_prometheus_stack_below_its_kube_version_is_refused():
    line = only(problems(cluster={"kubernetesVersion": "v1.24.1"}),
                "oke-rdma:platform.kubePrometheusStack.version")
    assert "1.25 or newer" in line and "Chart.yaml" in line


def test_a_version_that_is_not_semver_is_refused_not_passed():
    """'0.18' passes the exact-version pattern only if it looks exact; anything semver cannot read is refused."""
    from oke_rdma.config.checks.platform import check_chart_compatibility
    cfg = load_dev_config()
    cfg.platform.kueue.__dict__["version"] = "0.18"  # bypass the field validator: the check must still refuse
    [line] = check_chart_compatibility(cfg)
    assert line.startswith("oke-rdma:platform.kueue.version: '0.18' is not a semantic version")


def test_dev_stack_fits():
    from oke_rdma.config.checks.platform import check_chart_compatibility
    assert check_chart_compatibility(load_dev_config()) == []


def test_every_fact_names_its_source_and_date():
    for facts in charts.CHARTS.values():
        for entry in (*facts.requirements, *facts.kubernetes):
            assert "checked 20" in entry.source, entry


def test_kueue_0_14_3_previews_exit_2_without_a_traceback(tmp_path):
    out = preview_exit(tmp_path, {"kueue": {"version": "0.14.3"}})
    assert out.returncode == 2, out.stdout + out.stderr
    assert "oke-rdma:platform.kueue.version" in out.stdout + out.stderr and "0.15.0" in out.stdout + out.stderr
    assert "Traceback" not in out.stdout + out.stderr


@pytest.mark.parametrize("version", ["0.20.0", "1.0.0", "0.21.3"])
def test_kueue_without_a_recorded_manager_configuration_is_refused(version):
    """oke-rdma writes Kueue's whole manager configuration from the chart's recorded default: a version whose default
    is not recorded cannot be configured safely and is refused, naming the recorded range."""
    line = only(problems(platform={"kueue": {"version": version}}), "oke-rdma:platform.kueue.version")
    assert "recorded for Kueue 0.15.x–0.19.x only" in line and "kueue_manager_config.json" in line


def test_every_recorded_kueue_configuration_names_its_source():
    from oke_rdma.facts.charts import kueue_manager_config
    for version in ("0.15.0", "0.16.9", "0.17.0", "0.18.4", "0.18.5", "0.19.0", "0.19.2"):
        config, source = kueue_manager_config(version)
        assert config["kind"] == "Configuration" and "charts/kueue/values.yaml@" in source
    assert kueue_manager_config("0.18.4")[1] != kueue_manager_config("0.18.5")[1]  # a patch changed the default
