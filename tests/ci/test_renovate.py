"""renovate.json covers every pin of the repository: each pin site (a Python requirement, an add-on's chart version, an
image in code, values or examples, the vendored MPI Operator release, an add-on version in a stack file, a workflow
action) is matched by one of its managers, read with Renovate's semantics (``managerFilePatterns`` as ``/regex/``;
custom regex managers whose named groups ``depName``, ``currentValue`` and ``datasource`` — or their templates — make
a dependency; JavaScript ``(?<name>...)`` groups read as Python's ``(?P<name>...)``)."""

from __future__ import annotations

import copy
import inspect
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from oke_rdma.addons import REGISTRY
from oke_rdma.addons.mpi_operator import MANIFESTS

ROOT = Path(__file__).resolve().parents[2]
CONFIG = json.loads((ROOT / "renovate.json").read_text())
#: Datasources the managers may name (Renovate docs "Datasources").
DATASOURCES = {"helm", "docker", "github-releases", "github-tags", "pypi"}
#: Registries whose image references are pins (a reference of another host is not an image).
REGISTRIES = r"(?:docker\.io|registry\.k8s\.io|nvcr\.io|ghcr\.io|quay\.io|gcr\.io|[a-z0-9-]+\.ocir\.io)"
IMAGE_RE = re.compile(rf"\b(?P<repo>{REGISTRIES}/[a-z0-9._/-]+):(?P<tag>[A-Za-z0-9][A-Za-z0-9._-]*)")


def js_regex(text: str) -> re.Pattern:
    """A Renovate (JavaScript) regex as Python's: named groups ``(?<n>`` → ``(?P<n>`` (lookbehinds kept)."""
    return re.compile(re.sub(r"\(\?<(?![=!])", "(?P<", text))


def file_patterns(patterns: list[str]) -> list[re.Pattern]:
    """``managerFilePatterns``: ``/regex/`` entries are regexes; anything else is a glob (none is used here)."""
    out = []
    for p in patterns:
        assert p.startswith("/") and p.endswith("/"), f"{p!r}: write managerFilePatterns as /regex/"
        out.append(js_regex(p[1:-1]))
    return out


def tracked() -> list[str]:
    return subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()


@dataclass(frozen=True)
class Dep:
    file: str
    dep_name: str
    current_value: str
    datasource: str


def custom_deps(config: dict, path: str, text: str) -> list[Dep]:
    """The dependencies the custom regex managers of ``config`` extract from ``path`` (matchStringsStrategy ``any``:
    every match of every matchString; a match lacking depName, currentValue or datasource makes no dependency, as in
    Renovate)."""
    deps = []
    for m in config.get("customManagers", []):
        assert m.get("customType") == "regex"
        if not any(p.search(path) for p in file_patterns(m["managerFilePatterns"])):
            continue
        for ms in m["matchStrings"]:
            for hit in js_regex(ms).finditer(text):
                groups = {k: v for k, v in hit.groupdict().items() if v is not None}
                name = groups.get("depName") or m.get("depNameTemplate")
                value = groups.get("currentValue") or m.get("currentValueTemplate")
                source = groups.get("datasource") or m.get("datasourceTemplate")
                if name and value and source:
                    deps.append(Dep(path, name, value, source))
    return deps


def pin_sites() -> list[tuple[str, str, str]]:
    """Every pin of the repository: (kind, file, what must be matched)."""
    files = tracked()
    sites: list[tuple[str, str, str]] = []
    for f in files:
        if re.search(r"(^|/)requirements[^/]*\.txt$", f):
            for line in (ROOT / f).read_text().splitlines():
                if re.match(r"^[A-Za-z0-9_.\-\[\]]+==\S+", line.strip()):
                    sites.append(("requirement", f, line.strip()))
        if f.startswith(".github/workflows/"):
            for ref in re.findall(r"uses:\s*([\w.-]+/[\w./-]+@\S+)", (ROOT / f).read_text()):
                sites.append(("action", f, ref))
        if f.startswith(("oke_rdma/", "examples/", "policies/")) and f.endswith((".py", ".yaml", ".yml")) \
                and "/manifests/" not in f:
            for hit in IMAGE_RE.finditer((ROOT / f).read_text()):
                sites.append(("image", f, f"{hit['repo']}:{hit['tag']}"))
        if re.match(r"^(tests/fixtures/)?Pulumi\.[^/]+\.yaml$", f):
            platform = (yaml.safe_load((ROOT / f).read_text()) or {}).get("config", {}).get("oke-rdma:platform") or {}
            for key, section in platform.items():
                if isinstance(section, dict) and "version" in section:
                    sites.append(("stack", f, f"{key}={section['version']}"))
    for addon in REGISTRY:
        module = Path(inspect.getsourcefile(addon.config)).relative_to(ROOT).as_posix()
        sites.append(("chart", module, addon.defaults.version))
    for vendored in MANIFESTS.values():
        if vendored.image:
            sites.append(("manifest-image", "oke_rdma/addons/mpi_operator.py", vendored.image))
    return sites


def unmatched(config: dict) -> list[tuple[str, str, str]]:
    """The pin sites no manager of ``config`` matches."""
    pip = file_patterns(config["pip_requirements"]["managerFilePatterns"])
    actions = file_patterns(config["github-actions"]["managerFilePatterns"])
    cache: dict[str, list[Dep]] = {}

    def deps(f: str) -> list[Dep]:
        if f not in cache:
            cache[f] = custom_deps(config, f, (ROOT / f).read_text())
        return cache[f]

    stack_deps = {}
    for addon in REGISTRY:
        stack_deps[addon.key] = addon
    missing = []
    for kind, f, what in pin_sites():
        if kind == "requirement":
            ok = any(p.search(f) for p in pip)
        elif kind == "action":
            ok = any(p.search(f) for p in actions)
        elif kind in ("image", "manifest-image"):
            repo, tag = what.rsplit(":", 1)
            ok = any(d.current_value == tag and d.dep_name.split("/", 1)[-1] in repo for d in deps(f))
        elif kind == "stack":
            key, version = what.split("=", 1)
            ok = any(d.current_value == version for d in deps(f))
        else:  # chart: the add-on module's default version
            ok = any(d.current_value == what for d in deps(f))
        if not ok:
            missing.append((kind, f, what))
    return missing


def test_the_pin_sites_are_found():
    """The enumeration finds every kind of pin (so the coverage test below cannot pass on an empty list)."""
    kinds = {kind for kind, _, _ in pin_sites()}
    assert kinds == {"requirement", "action", "image", "stack", "chart", "manifest-image"}
    assert ("image", "oke_rdma/facts/images.py", "docker.io/library/python:3.14.6-slim-trixie") in pin_sites()
    assert ("chart", "oke_rdma/addons/kueue.py", "0.19.7") in pin_sites()


def test_every_pin_site_is_matched_by_a_manager():
    assert unmatched(CONFIG) == []


def test_a_pin_site_no_manager_matches_is_reported():
    """Without the stack-file managers, the stacks' add-on versions are reported; without the Python comment manager,
    every chart version and image in code."""
    config = copy.deepcopy(CONFIG)
    config["customManagers"] = [m for m in config["customManagers"] if "stack file" not in m["description"]]
    assert {kind for kind, _, _ in unmatched(config)} == {"stack"}
    config["customManagers"] = config["customManagers"][1:]
    assert {kind for kind, _, _ in unmatched(config)} >= {"chart", "image", "stack"}


def test_every_dependency_names_a_known_datasource():
    for f in tracked():
        text = (ROOT / f).read_text(errors="replace") if (ROOT / f).is_file() else ""
        for dep in custom_deps(CONFIG, f, text):
            assert dep.datasource in DATASOURCES, dep


def test_a_new_chart_without_its_renovate_comment_is_not_covered(tmp_path):
    """The class: an add-on module whose version line has no '# renovate:' comment is matched by no manager."""
    text = 'class X:\n    version: str = Field("1.2.3", description="Exact chart version.")\n'
    assert custom_deps(CONFIG, "oke_rdma/addons/new.py", text) == []
    text = '    # renovate: datasource=helm depName=new registryUrl=https://example.com\n' + text.split("\n", 1)[1]
    assert custom_deps(CONFIG, "oke_rdma/addons/new.py", text) == [
        Dep("oke_rdma/addons/new.py", "new", "1.2.3", "helm")]


@pytest.mark.parametrize("manager", [m for m in CONFIG["customManagers"] if "stack file" not in m["description"]]
                         + [m for m in CONFIG["customManagers"] if "kueue.version in a stack" in m["description"]],
                         ids=lambda m: m["description"][:40])
def test_every_custom_manager_matches_something(manager):
    """A manager matching nothing is a stale pattern (a moved file, a renamed key). The stack-file managers of add-ons
    no stack pins today (kuberay, jobset, trainer, mpiOperator) wait for a stack that does."""
    config = {"customManagers": [manager]}
    assert any(custom_deps(config, f, (ROOT / f).read_text(errors="replace"))
               for f in tracked() if (ROOT / f).is_file()), manager["description"]
