"""Kueue manages only the tenants' jobs: its managedJobsNamespaceSelector (which the chart also uses for every job
and pod webhook) selects the namespaces labelled with a tenant, which only tenant namespaces are; a user's manager
configuration with another selector is refused naming both sides."""

from __future__ import annotations

import pytest
import yaml

from oke_rdma.addons import REGISTRY
from oke_rdma.addons.kueue import MANAGED_JOBS_NAMESPACE_SELECTOR, TENANT_LABEL, manager_config_yaml
from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.facts.charts import kueue_manager_config
from offline.engine import run_program
from tests.stackcfg import dev_values, dev_raw_config, of_type

RELEASE = "kubernetes:helm.sh/v3:Release"
NAMESPACE = "kubernetes:core/v1:Namespace"


def _selects(selector: dict, labels: dict) -> bool:
    """A LabelSelector with matchLabels / matchExpressions (In, NotIn, Exists, DoesNotExist) against labels."""
    for k, v in selector.get("matchLabels", {}).items():
        if labels.get(k) != v:
            return False
    for e in selector.get("matchExpressions", []):
        op, key, values = e["operator"], e["key"], e.get("values", [])
        if op == "Exists" and key not in labels or op == "DoesNotExist" and key in labels:
            return False
        if op == "In" and labels.get(key) not in values or op == "NotIn" and labels.get(key) in values:
            return False
    return True


@pytest.fixture(scope="module")
def dev(dev_run):
    return dev_run


def _kueue_config(run) -> dict:
    kueue = next(r for r in of_type(run.resources, RELEASE) if r.inputs["name"] == "kueue")
    return yaml.safe_load(kueue.inputs["values"]["managerConfig"]["controllerManagerConfigYaml"])


def test_selector_excludes_every_platform_namespace_and_selects_every_tenant(dev):
    selector = _kueue_config(dev)["managedJobsNamespaceSelector"]
    namespaces = {r.inputs["metadata"]["name"]: r.inputs["metadata"]["labels"] for r in of_type(dev.resources, NAMESPACE)}
    tenants = {"research", "analytics"}
    assert tenants < set(namespaces)
    for name, labels in namespaces.items():
        labels = {**labels, "kubernetes.io/metadata.name": name}  # set by the API server on every namespace
        assert _selects(selector, labels) == (name in tenants), name
    # kube-system and the other namespaces the program does not create carry no tenant label either
    assert not _selects(selector, {"kubernetes.io/metadata.name": "kube-system"})


def test_selector_with_the_labeler_and_a_renamed_tenant_namespace():
    run = run_program(dev_raw_config(platform={"kueue": {"topologyLabeler": {"enabled": True}}},
                                     tenants={"research": {"namespace": "team-research"}}), [], "dev", unknowns=False)
    selector = _kueue_config(run)["managedJobsNamespaceSelector"]
    namespaces = {r.inputs["metadata"]["name"]: r.inputs["metadata"]["labels"] for r in of_type(run.resources, NAMESPACE)}
    assert namespaces["team-research"][TENANT_LABEL] == "research"
    assert {n for n, labels in namespaces.items() if _selects(selector, labels)} == {"team-research", "analytics"}


def test_the_chart_default_is_kept_apart_from_the_selector(dev):
    """Everything else is the chart's own default for the pinned version; its integrations without the kinds of the
    training-operator add-ons the dev stack leaves off."""
    config = _kueue_config(dev)
    default, _ = kueue_manager_config(dev_values()["oke-rdma:platform"]["kueue"]["version"])
    off = {f for a in REGISTRY if a.kueue_frameworks and not a.defaults.enabled for f in a.kueue_frameworks}
    frameworks = config["integrations"].pop("frameworks")
    assert frameworks == [f for f in default["integrations"].pop("frameworks") if f not in off]
    assert {k: v for k, v in config.items() if k not in ("managedJobsNamespaceSelector", "waitForPodsReady")} \
        == default
    assert "managedJobsNamespaceSelector" not in default  # the chart's default leaves it to Kueue (all but 2 ns)
    assert "waitForPodsReady" not in default  # commented out in the chart: Kueue's built-in default would apply


@pytest.mark.parametrize("version", ["0.15.0", "0.18.6", "0.19.2"])
def test_wait_for_pods_ready_is_set_for_slow_gang_starts(version):
    """Kueue 0.19 turns waitForPodsReady on by default (30 min, requeued without end); oke-rdma sets it on every
    version: an hour for a gang to start, admissions never blocked platform-wide, a bounded number of requeues."""
    wait = yaml.safe_load(manager_config_yaml(version))["waitForPodsReady"]
    assert wait["timeout"] == "60m" and wait["blockAdmission"] is False and wait["recoveryTimeout"] == "20m"
    assert wait["requeuingStrategy"]["backoffLimitCount"] == 5


@pytest.mark.parametrize("version", ["0.15.0", "0.16.2", "0.17.1", "0.18.6", "0.19.2"])
def test_every_recorded_version_gets_the_selector(version):
    assert yaml.safe_load(manager_config_yaml(version))["managedJobsNamespaceSelector"] == \
        MANAGED_JOBS_NAMESPACE_SELECTOR


def _problems(values: dict) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(platform={"kueue": {"values": values}}))
    return err.value.problems


KEY = "oke-rdma:platform.kueue.values.managerConfig.controllerManagerConfigYaml"


@pytest.mark.parametrize("text, expected", [
    ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n", "no managedJobsNamespaceSelector"),
    ("kind: Configuration\nmanagedJobsNamespaceSelector:\n  matchExpressions:\n  - {key: kubernetes.io/metadata.name,"
     " operator: NotIn, values: [kube-system]}\n", "managedJobsNamespaceSelector {'matchExpressions'"),
    ("- a\n- b\n", "expected a YAML map"),
    ("key: [unclosed\n", "is not valid YAML"),
    (42, "expected the manager configuration as YAML text"),
])
def test_a_user_configuration_that_widens_or_breaks_the_selector_is_refused(text, expected):
    [line] = [p for p in _problems({"managerConfig": {"controllerManagerConfigYaml": text}}) if p.startswith(KEY)]
    assert expected in line


def test_a_user_configuration_keeping_the_selector_passes():
    text = yaml.safe_dump({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                           "managedJobsNamespaceSelector": MANAGED_JOBS_NAMESPACE_SELECTOR,
                           "integrations": {"frameworks": ["batch/job"]}})
    cfg = load_stack_config(dev_raw_config(platform={"kueue": {"values": {"managerConfig": {
        "controllerManagerConfigYaml": text}}}}))
    assert cfg.platform.kueue.values["managerConfig"]["controllerManagerConfigYaml"] == text


def test_manager_config_section_must_stay_a_map():
    assert any(p.startswith("oke-rdma:platform.kueue.values.managerConfig: expected a map")
               for p in _problems({"managerConfig": "x"}))


@pytest.mark.parametrize("version, cohort", [("0.19.2", False), ("0.19.5", False), ("0.19.6", True), ("0.19.7", True)])
def test_the_manager_configuration_follows_the_chart_default_of_its_patch(version, cohort):
    """0.19.6 added Cohort.kueue.x-k8s.io: 1 to the chart's groupKindConcurrency (#15876): oke-rdma writes it from
    that patch on, so a bump never drops a new chart default."""
    concurrency = yaml.safe_load(manager_config_yaml(version))["controller"]["groupKindConcurrency"]
    assert ("Cohort.kueue.x-k8s.io" in concurrency) is cohort
    assert concurrency["Workload.kueue.x-k8s.io"] == 10


@pytest.mark.parametrize("version, gates", [
    ("0.18.6", []), ("0.19.5", []),
    ("0.19.6", ["PodIntegrationCountSucceededPodsAsReady"]), ("0.19.7", ["PodIntegrationCountSucceededPodsAsReady"]),
    ("0.20.0", []),  # not known there: Kueue refuses to start on a gate it does not know
])
def test_the_succeeded_pods_gate_is_set_only_where_the_version_knows_it(version, gates):
    from oke_rdma.addons.kueue import feature_gates
    assert [g["name"] for g in feature_gates(version) if g["enabled"] is True] == gates
