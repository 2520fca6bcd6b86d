"""The training operators (Kubeflow Trainer, JobSet, KubeRay) as optional add-ons: off by default, each in its own
namespace at its Pod Security level when on, one JobSet controller whichever of Trainer and JobSet is on, and their
kinds admitted by Kueue."""

from __future__ import annotations

import importlib

import pytest

from oke_rdma.addons import REGISTRY, ValuesContext
from oke_rdma.config import load_stack_config
from tests.addons.test_registry import RELEASE, _plan
from tests.stackcfg import dev_raw_config, of_type

OPERATORS = ("trainer", "jobset", "kuberay")


def _platform(**enabled):
    raw = dev_raw_config()
    cfg = load_stack_config(raw)
    model = type(cfg.platform)
    data = {key: {"enabled": on} for key, on in enabled.items()}
    return model.model_validate(data)


def test_the_dev_stack_plans_no_training_operator():
    cfg = load_stack_config(dev_raw_config())
    assert not any(getattr(cfg.platform, REGISTRY[k].field).enabled for k in OPERATORS)


@pytest.mark.parametrize("key,release,namespace,level", [
    ("trainer", "kubeflow-trainer", "kubeflow-system", "restricted"),
    ("jobset", "jobset", "jobset-system", "baseline"),
    ("kuberay", "kuberay-operator", "ray-system", "baseline"),
])
def test_an_enabled_operator_is_a_pinned_release_in_its_own_namespace(key, release, namespace, level):
    run, component = _plan(REGISTRY, _platform(**{key: True}))
    releases = {r.inputs["name"]: r for r in of_type(run.resources, RELEASE)}
    assert releases[release].inputs["namespace"] == namespace
    assert component.pod_security[namespace] == level
    assert releases[release].inputs["version"] == REGISTRY[key].defaults.version


def test_trainer_brings_its_own_jobset_unless_the_jobset_addon_runs_it():
    trainer = REGISTRY["trainer"]
    alone = trainer.helm_values(trainer.defaults, ValuesContext(enabled=frozenset({"trainer"})))
    both = trainer.helm_values(trainer.defaults, ValuesContext(enabled=frozenset({"trainer", "jobset"})))
    assert alone["jobset"]["install"] is True and both["jobset"]["install"] is False
    run, _ = _plan(REGISTRY, _platform(trainer=True, jobset=True))
    releases = {r.inputs["name"]: r for r in of_type(run.resources, RELEASE)}
    assert releases["jobset"].urn in releases["kubeflow-trainer"].dependencies


@pytest.mark.parametrize("key", OPERATORS)
def test_each_operator_names_the_kueue_integrations_of_its_kinds(key):
    module = importlib.import_module(f"oke_rdma.addons.{key}")
    assert module.KUEUE_FRAMEWORKS and all("/" in f for f in module.KUEUE_FRAMEWORKS)
