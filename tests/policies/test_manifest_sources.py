"""kubernetes-manifest-source-pinned: manifests applied from a remote reference (ConfigFile, ConfigGroup files,
Kustomize Directory) name a commit SHA; branches, tags and release assets are refused, local paths pass, unknown
sources fail closed."""

from __future__ import annotations

import pytest

from policies.security.manifests import CONFIG_FILE, CONFIG_GROUP, KUSTOMIZE, validate_manifest_source
from tests.policies.test_policies import U, call_resource_rule

SHA = "101db144e019e1de65aaded07745e9d805c2852a"
RAW = "https://raw.githubusercontent.com/kubeflow/mpi-operator"


@pytest.mark.parametrize("type_, props", [
    (CONFIG_FILE, {"file": "manifests/mpi-operator-v0.8.0.yaml"}),
    (CONFIG_FILE, {"file": "/abs/path/pod.yaml"}),
    (CONFIG_FILE, {"file": f"{RAW}/{SHA}/deploy/v2beta1/mpi-operator.yaml"}),
    (CONFIG_GROUP, {"files": ["a.yaml", "dir/*.yaml", f"{RAW}/{SHA}/deploy/v2beta1/mpi-operator.yaml"]}),
    (CONFIG_GROUP, {"objs": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}]}),
    (CONFIG_GROUP, {"yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"}),
    (KUSTOMIZE, {"directory": f"https://github.com/kubeflow/trainer.git//manifests/overlays/manager?ref={SHA}"}),
    (KUSTOMIZE, {"directory": f"git@github.com:kubeflow/trainer.git//manifests?ref={SHA}"}),
])
def test_local_inline_and_commit_pinned_sources_pass(type_, props):
    assert call_resource_rule(validate_manifest_source, type_, props) == []


@pytest.mark.parametrize("type_, props, needle", [
    (CONFIG_FILE, {"file": f"{RAW}/master/deploy/v2beta1/mpi-operator.yaml"}, "without a commit SHA"),
    (CONFIG_FILE, {"file": f"{RAW}/v0.8.0/deploy/v2beta1/mpi-operator.yaml"}, "without a commit SHA"),
    (CONFIG_FILE, {"file": "https://github.com/kubeflow/mpi-operator/releases/latest/download/mpi-operator.yaml"},
     "without a commit SHA"),
    (CONFIG_FILE, {"file": "HTTP://example.com/pod.yaml"}, "does not address files by"),
    (CONFIG_FILE, {"file": f"{RAW}/{SHA[:12]}/deploy/x.yaml"}, "without a commit SHA"),  # a short SHA may collide
    (CONFIG_GROUP, {"files": ["a.yaml", f"{RAW}/main/deploy/x.yaml"]}, "without a commit SHA"),
    (KUSTOMIZE, {"directory": "github.com/kubeflow/trainer/manifests/overlays/manager?ref=v2.3.0"},
     "without a commit SHA"),
    (KUSTOMIZE, {"directory": "git::https://github.com/kubeflow/trainer.git//manifests?ref=master"},
     "without a commit SHA"),
    (CONFIG_FILE, {"file": U}, "unknown"),
    (CONFIG_GROUP, {"files": U}, "unknown"),
    (CONFIG_GROUP, {"files": ["a.yaml", U]}, "unknown"),
    (CONFIG_FILE, {"file": 42}, "not a path or URL"),
    (CONFIG_FILE, {"file": f"https://manifests.example.com/{SHA}/mpi-operator.yaml"}, "does not address files by"),
    (CONFIG_FILE, {"file": f"https://raw.githubusercontent.com.evil.example/{SHA}/x.yaml"}, "does not address"),
])
def test_moving_remote_and_unknown_sources_are_refused(type_, props, needle):
    found = call_resource_rule(validate_manifest_source, type_, props)
    assert found and needle in " ".join(found)


def test_other_resource_types_are_not_judged():
    assert call_resource_rule(validate_manifest_source, "kubernetes:helm.sh/v3:Release",
                              {"file": "https://example.com/x.yaml"}) == []


def _kustomization(root, text, name="kustomization.yaml"):
    root.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text)
    (root / "pod.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
    return str(root)


@pytest.mark.parametrize("text, needle", [
    ("resources: [pod.yaml, 'https://github.com/o/r//deploy?ref=main']", "without a commit SHA"),
    ("bases: ['github.com/o/r//deploy?ref=v1.2.3']", "without a commit SHA"),
    ("components: ['git::https://github.com/o/r.git//c']", "without a commit SHA"),
    ("generators: ['https://example.com/gen.yaml']", "does not address files by Git commit"),
    ("resources: [base]", "base"),                                  # a local base that pulls a remote one, below
    ("resources: [missing.yaml]", "does not exist"),
    ("resources: pod.yaml", "is not a list"),
    ("helmCharts: [{name: x, repo: 'https://charts.example.com', version: 1.0.0}]", "inflates chart x"),
    ("- not a mapping", "not a YAML mapping"),
    ("resources: [self]", "cycle")])
def test_a_local_kustomization_pulling_unpinned_or_unreadable_bases_is_refused(tmp_path, text, needle):
    """A local Kustomize directory is judged by what its kustomization file (and its local bases', in turn) pulls in:
    a remote reference at a branch or tag, a chart from a repository, or what cannot be read."""
    _kustomization(tmp_path / "base", "resources: ['https://github.com/o/r//x?ref=main']")
    (tmp_path / "self").mkdir()
    (tmp_path / "self" / "kustomization.yaml").write_text("resources: ['.']")
    found = call_resource_rule(validate_manifest_source, KUSTOMIZE, {"directory": _kustomization(tmp_path, text)})
    assert found and needle in found[0], found


@pytest.mark.parametrize("text, name", [
    ("resources: [pod.yaml, base]", "kustomization.yaml"),
    (f"resources: ['https://github.com/o/r//deploy?ref={SHA}']", "kustomization.yml"),
    ("resources: [pod.yaml]\nhelmCharts: [{name: x, version: 1.0.0}]", "Kustomization")])
def test_a_local_kustomization_of_local_or_commit_pinned_bases_passes(tmp_path, text, name):
    _kustomization(tmp_path / "base", "resources: [pod.yaml]")
    props = {"directory": _kustomization(tmp_path, text, name)}
    assert not call_resource_rule(validate_manifest_source, KUSTOMIZE, props)


@pytest.mark.parametrize("layout", ["none", "two", "absent"])
def test_a_directory_without_one_readable_kustomization_is_refused(tmp_path, layout):
    """No kustomization file, two of them, or a directory the pack cannot find (a relative path under the CLI):
    what it renders cannot be judged."""
    if layout != "absent":
        tmp_path.joinpath("pod.yaml").write_text("kind: Pod\n")
    if layout == "two":
        tmp_path.joinpath("kustomization.yaml").write_text("resources: [pod.yaml]\n")
        tmp_path.joinpath("kustomization.yml").write_text("resources: [pod.yaml]\n")
    directory = str(tmp_path / "nowhere") if layout == "absent" else str(tmp_path)
    assert call_resource_rule(validate_manifest_source, KUSTOMIZE, {"directory": directory})
