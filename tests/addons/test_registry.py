"""The add-on registry: a new add-on is one module, planned by the platform and checked by the config from the
registry alone; the pack's repository allow-list and the CRD table follow the registry; malformed registries are
refused with a message naming the add-on."""

from __future__ import annotations

import importlib
import shutil
import sys
import textwrap
import uuid
from pathlib import Path
from types import SimpleNamespace

import pulumi_kubernetes as k8s
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

import oke_rdma.addons as addons_pkg
from offline.engine import run_program
from oke_rdma.addons import (POD_SECURITY_LEVELS, REGISTRY, AddOn, HelmRelease, Registry, ValuesContext, discover,
                             platform_model)
from oke_rdma.config import Platform, StackConfig
from oke_rdma.config.checks.platform import check_platform
from oke_rdma.config.platform import values_problems
from oke_rdma.platform import Platform as PlatformComponent
from oke_rdma.platform import PlatformArgs, TenantNamespace
from policies.security.kubernetes import DEFAULT_ALLOWED_REPOSITORIES, PSA_LEVELS, chart_repository
from tests.crddeps import CRD_RELEASES
from tests.stackcfg import dev_raw_config, of_type, one

RELEASE = "kubernetes:helm.sh/v3:Release"
#: The add-ons every stack gets unless it turns them off.
CORE_ADDONS = {"cilium", "kubePrometheusStack", "gpuOperator", "kueue", "keda"}
NS = "kubernetes:core/v1:Namespace"

THROWAWAY = textwrap.dedent('''
    """A throwaway add-on for a test."""
    from oke_rdma.addons._registry import BASELINE, AddOn, HelmRelease, ValuesContext


    class ThrowawayRelease(HelmRelease):
        version: str = "1.2.3"
        namespace: str = "throwaway-system"
        replicas: int = 2


    def values(cfg, context: ValuesContext):
        return {"replicas": cfg.replicas, "metrics": {"enabled": "kubePrometheusStack" in context.enabled}}


    ADDON = AddOn(key="throwawayThing", release_name="throwaway-thing", chart="throwaway",
                  repository="https://charts.example.com/throwaway", config=ThrowawayRelease, pod_security=BASELINE,
                  values=values, after=("kubePrometheusStack",), crds=("throwaway.example.com",),
                  value_shapes=((("metrics",), "map"), (("metrics", "enabled"), "bool")),
                  source="a test, checked 2026-11-30")
''')


@pytest.fixture
def temp_registry(tmp_path: Path):
    """A copy of the add-on package plus one throwaway module, importable under a fresh name."""
    name = f"tmp_addons_{uuid.uuid4().hex[:8]}"
    pkg = tmp_path / name
    shutil.copytree(Path(addons_pkg.__file__).parent, pkg, ignore=shutil.ignore_patterns("__pycache__", "__init__.py"))
    (pkg / "__init__.py").write_text('"""A temporary add-on registry."""\n')
    (pkg / "throwaway_thing.py").write_text(THROWAWAY)
    sys.path.insert(0, str(tmp_path))
    try:
        yield discover(name)
    finally:
        sys.path.remove(str(tmp_path))
        for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[mod]


def _plan(registry: Registry, platform, tenants=None):
    built = {}

    def program():
        provider = k8s.Provider("k8s", kubeconfig="apiVersion: v1\nkind: Config\nclusters: []\n")
        built["p"] = PlatformComponent("platform", PlatformArgs(provider=provider, name_prefix="t", platform=platform,
                                                                tenants=tenants or {}, addons=registry))

    run = run_program(dev_raw_config(), [], "dev", program=program)
    return run, built["p"]


def test_a_new_addon_module_is_planned_with_its_namespace_values_and_dependencies(temp_registry):
    """A module dropped into a registry package is discovered, gets a platform config section, its namespace with
    its Pod Security level, its pinned release with its values (user values merged over) and waits for the add-on it
    names in after."""
    assert temp_registry.keys().index("throwawayThing") > temp_registry.keys().index("kubePrometheusStack")
    model = platform_model(temp_registry)
    platform = model.model_validate({"throwawayThing": {"replicas": 3, "values": {"metrics": {"port": 9090}}}})
    run, component = _plan(temp_registry, platform)
    releases = {r.inputs["name"]: r for r in of_type(run.resources, RELEASE)}
    namespaces = {r.inputs["metadata"]["name"]: r for r in of_type(run.resources, NS)}
    thing = releases["throwaway-thing"]
    assert thing.name == "t-throwaway-thing"
    assert thing.inputs["chart"] == "throwaway" and thing.inputs["version"] == "1.2.3"
    assert thing.inputs["repositoryOpts"] == {"repo": "https://charts.example.com/throwaway"}
    assert thing.inputs["namespace"] == "throwaway-system"
    assert thing.inputs["values"] == {"replicas": 3, "metrics": {"enabled": True, "port": 9090}}
    assert namespaces["throwaway-system"].urn in thing.dependencies
    assert releases["kube-prometheus-stack"].urn in thing.dependencies
    labels = namespaces["throwaway-system"].inputs["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "baseline"
    assert component.pod_security["throwaway-system"] == "baseline"
    assert set(component.releases) == {a.key for a in temp_registry if a.defaults.enabled}
    # The config checks read the new module's value shapes.
    addon = temp_registry["throwawayThing"]
    assert values_problems(addon, {"metrics": {"enabled": "yes"}}) == [
        "oke-rdma:platform.throwawayThing.values.metrics.enabled: expected true or false, got the text 'yes'; Helm "
        "templates treat any non-empty text (even 'false') as true: write true or false without quotes"]


def test_a_new_addon_waits_for_nothing_disabled_and_is_skipped_when_disabled(temp_registry):
    """Without kube-prometheus-stack (and Cilium, which every add-on waits for) the new add-on waits only for its
    namespace and sees it disabled in its values; disabled itself, it has neither namespace nor release."""
    model = platform_model(temp_registry)
    run, _ = _plan(temp_registry, model.model_validate({"kubePrometheusStack": {"enabled": False},
                                                        "cilium": {"enabled": False}}))
    thing = next(r for r in of_type(run.resources, RELEASE) if r.inputs["name"] == "throwaway-thing")
    assert thing.inputs["values"]["metrics"] == {"enabled": False}
    assert thing.dependencies == [one(run.resources, NS, "t-ns-throwaway-system").urn]
    run, component = _plan(temp_registry, model.model_validate({"throwawayThing": {"enabled": False}}))
    assert "throwaway-thing" not in {r.inputs["name"] for r in of_type(run.resources, RELEASE)}
    assert "throwaway-system" not in component.namespaces


def test_a_new_addons_config_is_checked_like_the_others(temp_registry):
    """The new section refuses unknown keys, ranges of versions and wrong types, like every add-on's; the platform
    checks read its value shapes and refuse a reserved namespace for it."""
    model = platform_model(temp_registry)
    bad = SimpleNamespace(node_pools={}, platform=model.model_validate(
        {"throwawayThing": {"namespace": "kube-system", "values": {"metrics": ["on"]}}}))
    problems = check_platform(bad, temp_registry)
    assert problems == [
        "oke-rdma:platform.throwawayThing.values.metrics: expected a map (like metrics: {key: value}), got a list; "
        "anything but a map replaces every value oke-rdma sets there (Helm merges maps only): write it as a map or "
        "remove it",
        "oke-rdma:platform.throwawayThing.namespace: 'kube-system' is a namespace Kubernetes reserves for itself "
        "(Kubernetes docs, Namespaces); install the release in its own, like the default 'throwaway-system'"]
    assert check_platform(SimpleNamespace(node_pools={}, platform=model()), temp_registry) == []
    for bad in ({"throwawayThing": {"version": "^1.2"}}, {"throwawayThing": {"replicas": "3"}},
                {"throwawayThing": {"replica": 3}}):
        with pytest.raises(ValidationError) as e:
            model.model_validate(bad)
        assert e.value.errors()[0]["loc"][0] == "throwawayThing"


def test_the_stack_config_platform_section_is_the_registrys():
    """oke-rdma:platform has exactly one section per add-on of the registry, each its module's config model."""
    fields = Platform.model_fields
    assert [f.alias for f in fields.values()] == REGISTRY.keys()
    for addon in REGISTRY:
        assert fields[addon.field].annotation is addon.config
    assert StackConfig.model_fields["platform"].annotation is Platform


def test_the_packs_repository_allow_list_is_the_registrys_repositories():
    """The policy pack (published alone, so it keeps its own list) allows exactly where the add-ons' charts come
    from, read the way the pack reads a release."""
    repos = {chart_repository({"chart": a.chart, "repositoryOpts": {"repo": a.repository} if a.repository else None})
             for a in REGISTRY if not a.is_manifest}  # a vendored manifest comes from no repository
    assert repos == {r.rstrip("/") for r in DEFAULT_ALLOWED_REPOSITORIES}
    assert len(DEFAULT_ALLOWED_REPOSITORIES) == len(repos)


def test_the_packs_pod_security_levels_are_the_registrys():
    """The pack's copy of the Pod Security Standards levels (it imports nothing from oke_rdma) is the registry's."""
    assert tuple(PSA_LEVELS) == POD_SECURITY_LEVELS


def test_the_crd_table_of_the_tests_is_the_registrys():
    """Every CRD group an add-on brings maps to its release name, and nothing else."""
    assert CRD_RELEASES == {group: a.release_name for a in REGISTRY for group in a.crds}


#: Add-on key → a config that turns on the values only some configs set (e.g. Grafana's admin Secret reference).
RICHER = {"kubePrometheusStack": {"grafanaAdminPassword": "long-enough-password"}}


@pytest.mark.parametrize("addon", list(REGISTRY), ids=lambda a: a.key)
def test_value_shapes_match_the_values_the_addon_sets(addon: AddOn):
    """Each declared value shape names a value the add-on sets (with every other add-on enabled), of that shape: a
    shape for a value no longer set, or of another kind, would check users' values against a stale layout."""
    context = ValuesContext(enabled=frozenset(REGISTRY.keys()))
    configs = [addon.defaults, addon.config.model_validate(RICHER.get(addon.key, {}))]
    kinds = {"map": dict, "list": list, "bool": bool, "false": bool}
    for path, shape in addon.value_shapes:
        found = []
        for cfg in configs:
            cur = addon.values(cfg, context)
            for part in path:
                cur = cur.get(part, KeyError) if isinstance(cur, dict) else KeyError
            found.append(cur)
        assert any(v is not KeyError for v in found), (addon.key, path)
        for cur in (v for v in found if v is not KeyError):
            assert isinstance(cur, kinds[shape]), (addon.key, path, shape)
            assert shape != "false" or cur is False, (addon.key, path)


@pytest.mark.parametrize("addon", list(REGISTRY), ids=lambda a: a.key)
def test_each_addon_pins_an_exact_version_and_names_its_source(addon: AddOn):
    """Defaults validate, the level is a Pod Security level, the module says where its facts come from and when;
    the platform's core add-ons are on by default, the optional ones (training operators) off."""
    assert addon.pod_security in POD_SECURITY_LEVELS
    assert addon.defaults.enabled is (addon.key in CORE_ADDONS)
    HelmRelease.model_validate({"version": addon.defaults.version, "namespace": addon.defaults.namespace})
    assert "checked 20" in addon.source
    module = importlib.import_module(type(addon.defaults).__module__)
    assert "checked 20" in " ".join((module.__doc__ or "").split())


def _addon(name: str, **kw) -> AddOn:
    class Release(HelmRelease):
        version: str = "1.0.0"
        namespace: str = name.lower()

    args = dict(key=name, release_name=name.lower(), chart=name.lower(), repository="https://charts.example.com",
                config=Release, pod_security="restricted", values=lambda c, ctx: {})
    args.update(kw)
    return AddOn(**args)


@pytest.mark.parametrize("kw, message", [
    (dict(key="Bad-Key"), "is not a lower camelCase config key"),
    (dict(pod_security="lenient"), "pod_security 'lenient' is not one of"),
    (dict(chart="oci://example.com/charts/a"), "an oci:// chart takes no repository"),
    (dict(repository=None), "an oci:// chart takes no repository, any other chart needs one"),
    (dict(value_shapes=((("a",), "dict"),)), "is not one of ('map', 'list', 'bool', 'false')"),
    (dict(config=dict), "config must be a HelmRelease subclass"),
    (dict(config="HelmRelease"), "config must be a HelmRelease subclass"),
])
def test_a_malformed_addon_is_refused(kw, message):
    """An add-on declaration that cannot be planned is refused when its module is imported, naming it."""
    with pytest.raises(ValueError) as e:
        _addon("alpha", **kw)
    assert str(e.value).startswith(f"add-on {kw.get('key', 'alpha')!r}: ") and message in str(e.value)


@pytest.mark.parametrize("addons, message", [
    ((_addon("alpha"), _addon("alpha", release_name="other")), "key ['alpha'] declared by more than one add-on"),
    ((_addon("alpha"), _addon("beta", release_name="alpha")), "release_name ['alpha'] declared by more than one"),
    ((_addon("alpha", after=("gamma",)),), "after names ['gamma'], which no add-on of the registry has"),
    ((_addon("alpha", after=("beta",)), _addon("beta", after=("alpha",))), "wait for each other in a cycle"),
])
def test_a_malformed_registry_is_refused(addons, message):
    """Two add-ons with one key or release name, a dependency on a missing add-on, or a cycle are refused."""
    with pytest.raises(ValueError, match="add-on") as e:
        Registry(addons)
    assert message in str(e.value)


def test_a_registry_module_without_an_addon_is_refused(tmp_path: Path):
    """A public module in a registry package that declares no ADDON would silently do nothing: refused, named."""
    name = f"tmp_empty_{uuid.uuid4().hex[:8]}"
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("")
    (tmp_path / name / "helper.py").write_text("X = 1\n")
    (tmp_path / name / "_private.py").write_text("Y = 2\n")
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(ValueError, match=rf"add-on module {name}\.helper defines no ADDON"):
            discover(name)
    finally:
        sys.path.remove(str(tmp_path))


def test_install_order_puts_each_addon_after_what_it_waits_for():
    """Registry order is a topological order of after (ties by key), whatever the declaration order."""
    a, b, c = _addon("alpha", after=("gamma",)), _addon("beta"), _addon("gamma", after=("beta",))
    assert Registry((a, b, c)).keys() == ["beta", "gamma", "alpha"]
    assert REGISTRY.keys().index("kubePrometheusStack") < REGISTRY.keys().index("gpuOperator")


def test_tenant_namespace_refuses_a_negative_quota():
    """A GPU quota is a count: negative or non-integer quotas are refused."""
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="gpu_quota must be a count"):
            TenantNamespace(namespace="a", gpu_quota=bad)


def test_the_addons_page_lists_every_addon_as_the_registry_declares_it():
    """docs/addons.md has one table row per add-on with its chart, pinned version, namespace, Pod Security level,
    what it waits for and the CRDs it brings — the registry's values, so the page cannot drift from the code."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "addons.md").read_text()
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0].startswith("`") and cells[0] != "`key`":
            rows[cells[0].strip("`")] = cells
    assert set(rows) == set(REGISTRY.keys())
    for addon in REGISTRY:
        _, chart, version, namespace, level, after, crds = rows[addon.key]
        if addon.is_manifest:  # a vendored release manifest: no chart
            assert chart.startswith("release manifest `oke_rdma/addons/manifests/"), addon.key
        else:
            assert f"`{addon.chart}`" in chart, addon.key
        assert version == addon.defaults.version and namespace == f"`{addon.defaults.namespace}`", addon.key
        assert level == addon.pod_security, addon.key
        assert after == (", ".join(f"`{k}`" for k in addon.after) or "—"), addon.key
        assert crds == (", ".join(f"`{g}`" for g in addon.crds) or "—"), addon.key


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sets(st.integers(0, 7), max_size=3), min_size=1, max_size=8), st.randoms(use_true_random=False))
def test_any_acyclic_set_of_addons_is_ordered_after_what_each_waits_for(deps, rnd):
    """For any add-ons whose after-edges only point to earlier-numbered add-ons (so acyclic), declared in any order,
    the registry puts every add-on after each one it waits for, and the order does not depend on declaration."""
    n = len(deps)
    keys = [f"addon{chr(ord('a') + i)}" for i in range(n)]
    addons = [_addon(keys[i], after=tuple(keys[j] for j in sorted(deps[i]) if j < i)) for i in range(n)]
    shuffled = addons[:]
    rnd.shuffle(shuffled)
    order = Registry(tuple(shuffled)).keys()
    assert sorted(order) == sorted(keys)
    for a in addons:
        assert all(order.index(dep) < order.index(a.key) for dep in a.after)
    assert order == Registry(tuple(addons)).keys()
