"""Walks over graphs a stack's author draws are bounded by distinct nodes and total work, not by depth alone: a
kustomize lattice, YAML aliases (in rendered Helm objects, cloud-init, configuration files, ConfigGroups),
ConfigGroup globs and ClusterRole aggregation lattices each end quickly, and what passes a budget is refused with
one line (fail closed)."""
from __future__ import annotations

import base64
import time
from pathlib import Path

import pytest

from offline import remote
from offline.policy_types import EngineResource
from policies.security import _kustomization, _yaml_bounded, cluster_auth
from policies.security._objects import hook_objects
from policies.security._user_data import unpack
from policies.security.manifests import KUSTOMIZE, validate_manifest_source
from tests.policies.test_policies import call_resource_rule, messages, res, run

ROOT = Path(__file__).resolve().parents[2]
#: Eight levels of ten aliases each: 10^8 nodes as a tree, 81 distinct.
LAUGHS = "\n".join(["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"] + [
    f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, 9)])
SELF = "a: &a [*a]"


def lattice(root: Path, levels: int, width: int) -> Path:
    """``levels`` levels of ``width`` directories, each listing every directory of the next; one ConfigMap below."""
    for level in range(levels):
        for i in range(width):
            d = root / f"l{level}" / f"d{i}"
            d.mkdir(parents=True)
            below = [f"../../l{level + 1}/d{j}" for j in range(width)] if level + 1 < levels else ["cm.yaml"]
            (d / "kustomization.yaml").write_text(f"resources: {below}\n")
            if level + 1 == levels:
                (d / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    (root / "kustomization.yaml").write_text(f"resources: {[f'l0/d{i}' for i in range(width)]}\n")
    return root


def kustomize(directory: Path) -> list[str]:
    return call_resource_rule(validate_manifest_source, KUSTOMIZE, {"directory": str(directory)})


def test_a_kustomize_lattice_is_read_once_per_directory_and_refused_for_its_paths(tmp_path):
    start = time.monotonic()
    found = kustomize(lattice(tmp_path, 12, 4))
    assert time.monotonic() - start < 10
    assert len(found) == 1 and "paths" in found[0] and "\n" not in found[0]


def test_a_small_diamond_of_bases_passes(tmp_path):
    assert kustomize(lattice(tmp_path, 3, 2)) == []


def test_a_kustomization_reaching_too_many_directories_is_refused(tmp_path):
    wide = _kustomization.MAX_DIRECTORIES + 5
    for i in range(wide):
        (tmp_path / f"d{i}").mkdir()
        (tmp_path / f"d{i}" / "kustomization.yaml").write_text("resources: []\n")
    (tmp_path / "kustomization.yaml").write_text(f"resources: {[f'd{i}' for i in range(wide)]}\n")
    found = kustomize(tmp_path)
    assert any(f"more than {_kustomization.MAX_DIRECTORIES} directories" in f for f in found)


@pytest.mark.parametrize("text, why", [(LAUGHS, "excessive aliasing"), (SELF, "contains an alias to itself")])
def test_yaml_whose_aliases_explode_or_loop_is_refused_in_one_line(text, why):
    with pytest.raises(_yaml_bounded.BoundedYAMLError, match=why):
        _yaml_bounded.safe_load(text)
    with pytest.raises(_yaml_bounded.BoundedYAMLError, match=why):
        _yaml_bounded.safe_load_all("a: 1\n---\n" + text)


def test_yaml_with_ordinary_anchors_loads_as_pyyaml_does():
    text = "base: &b {cpu: 1}\nwith:\n  <<: *b\n  memory: 2\nlist: [*b, *b]\n"
    import yaml
    assert _yaml_bounded.safe_load(text) == yaml.safe_load(text)
    assert _yaml_bounded.safe_load_all("a: 1\n---\nb: 2\n") == [{"a": 1}, {"b": 2}]


def test_every_reader_of_user_yaml_refuses_alias_bombs():
    """Rendered Helm objects, cloud-init and the cluster's authentication configuration file: each reports the document as unreadable instead of walking 10^8 nodes."""
    start = time.monotonic()
    assert any("not valid YAML" in why for _, _, why in hook_objects(LAUGHS, "values.extraObjects[0]"))
    assert unpack("#cloud-config\n" + LAUGHS).problems
    encoded = base64.b64encode(("apiVersion: x\n" + LAUGHS).encode()).decode()
    assert cluster_auth.configuration_file_problems(encoded)
    assert time.monotonic() - start < 10


def test_a_config_group_with_an_alias_bomb_or_a_huge_glob_is_refused(tmp_path, monkeypatch):
    group = EngineResource(urn="urn:pulumi:s::p::kubernetes:yaml/v2:ConfigGroup::g", type=remote.CONFIG_GROUP,
                           name="g", custom=False, inputs={"yaml": LAUGHS})
    children, advisories = remote.expand_remote(group)
    assert children == [] and any("excessive aliasing" in a for a in advisories)
    monkeypatch.setattr(remote, "MAX_FILES", 3)
    for i in range(5):
        (tmp_path / f"m{i}.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: m{i}}}\n")
    globbed = EngineResource(urn="urn:pulumi:s::p::kubernetes:yaml/v2:ConfigGroup::h", type=remote.CONFIG_GROUP,
                             name="h", custom=False, inputs={"files": ["*.yaml"]})
    children, advisories = remote.expand_remote(globbed, cwd=str(tmp_path))
    assert children == [] and any("matches more than 3 files" in a for a in advisories)


def _cluster_role(name, level, width, levels):
    labels = {"lattice": f"l{level}"}
    props = {"metadata": {"name": name, "labels": labels},
             "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]}
    if level + 1 < levels:
        props["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {"lattice": f"l{level + 1}"}}]}
    return res("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", name, props)


def test_a_cluster_role_aggregation_lattice_is_judged_in_bounded_time():
    """Twelve levels of four ClusterRoles, each aggregating every role of the next level: judged once per role."""
    roles = [_cluster_role(f"r{lv}-{i}", lv, 4, 12) for lv in range(12) for i in range(4)]
    secrets = res("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "bottom", {
        "metadata": {"name": "bottom", "labels": {"lattice": "l11"}},
        "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list"]}]})
    start = time.monotonic()
    found = messages(run(*roles, secrets, policy="kubernetes-rbac-no-escalation"), "kubernetes-rbac-no-escalation")
    assert time.monotonic() - start < 30
    assert any("r0-0" in m and "secrets" in m for m in found)  # the top role still carries the bottom's grant
    calm = messages(run(*roles, policy="kubernetes-rbac-no-escalation"), "kubernetes-rbac-no-escalation")
    assert not any("secrets" in m for m in calm)


def test_both_packs_carry_the_same_bounded_yaml_reader():
    security = (ROOT / "policies/security/_yaml_bounded.py").read_bytes()
    assert security == (ROOT / "policies/placement/_yaml_bounded.py").read_bytes()


def test_nested_cloud_config_archives_sharing_one_entry_stop_at_the_byte_budget():
    """Each archive level lists the same nested archive 60 times through an alias: 60^5 parts without a bound."""
    import json
    text = "#cloud-config\nruncmd: [true]\n"
    for _ in range(5):
        text = ("#cloud-config-archive\n- &p {type: text/cloud-config-archive, content: " + json.dumps(text) + "}\n"
                + "".join("- *p\n" for _ in range(59)))
    start = time.monotonic()
    found = unpack(text)
    assert time.monotonic() - start < 10
    assert any("expands past" in p for p in found.problems)
    assert unpack("#cloud-config-archive\n- {type: text/cloud-config, content: 'runcmd: [true]'}\n").problems == []


def test_a_v1_config_group_with_an_alias_bomb_fails_the_preview_in_one_line(tmp_path):
    """pulumi_kubernetes.yaml (v1) decodes through the provider's ``kubernetes:yaml:decode``: the offline engine
    refuses the document there with one line and no traceback, instead of handing 10^8 nodes to the program."""
    from tests.inprocess import preview
    program = tmp_path / "__main__.py"
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  " + LAUGHS.replace("\n", "\n  ")
    program.write_text(f"import pulumi_kubernetes as k8s\nk8s.yaml.ConfigGroup('g', yaml=[{text!r}])\n")
    (tmp_path / "Pulumi.yaml").write_text("name: bomb\nruntime: python\n")
    (tmp_path / "Pulumi.x.yaml").write_text("config: {}\n")
    done = preview("--program", str(program), "--config-file", str(tmp_path / "Pulumi.x.yaml"))
    assert done.returncode == 2 and "excessive aliasing" in done.stderr and "Traceback" not in done.stderr
